//! The end of a farm with random task times: the drain that equation (g) leaves out.
//!
//! Equation (g), `T = T_startup + (M − 1)/S_N`, lets the steady state run until the last
//! result, as if every processor finished its last task at the same moment. §4.3 says why that
//! is fair for the paper's model: "an assumption of our model is that T_e is constant". With
//! random task times it is not: when the last task starts, the other busy processors are each
//! part-way through a task, and the run ends at the *largest* of their remaining times, where
//! the steady state's rate accounts only for their *mean*. This module derives that excess.
//!
//! # Derivation
//!
//! 1. Take an ideal farm of `P` processors that are all busy until the tasks run out, each
//!    taking the next task the moment it is free (greedy list scheduling, no overheads).
//! 2. When the last task starts, every other processor is part-way through a task. By renewal
//!    theory a task in progress at an arbitrary moment has the *equilibrium* residual time,
//!    of density `(1 − F(x))/T_e` and mean `E[X²]/(2 T_e)` (the inspection paradox).
//! 3. Work is conserved: up to the last start all `P` processors are busy, so that moment
//!    comes `(W − Σ R_i)/P` after the start, where `W` is the total work and `R_i` the
//!    remaining times; the run ends `max R_i` after it. The makespan is therefore
//!    `W/P + (max_i R_i − mean_i R_i)`: the fluid time `W/P`, which the steady state of (g)
//!    stands for, plus the drain `E[max_i R_i] − E[R]`.
//! 4. Exponential times (mean `T_e`) are memoryless: every `R_i` is again exponential with
//!    mean `T_e`, exactly, so `E[max] = H_P T_e` and the drain is `(H_P − 1) T_e`, with `H_P`
//!    the `P`-th harmonic number. For the greedy farm this is exact:
//!    `E[T] = M T_e/P + (H_P − 1) T_e` (the tests check it by simulation).
//! 5. Uniform times on `[0, 2 T_e]`: `F_R(x) = 1 − (1 − x/(2T_e))²`, `E[R] = 2T_e/3`, and
//!    `E[max of P] = ∫ (1 − F_R^P) dx = 2 T_e (1 − c_P)` with
//!    `c_P = ∫₀¹ (1 − v²)^P dv = Π_{j=1}^{P} 2j/(2j + 1)`, so the drain is
//!    `2 T_e (2/3 − c_P)`. This treats every residual as an equilibrium one (the processor
//!    that takes the last task starts a fresh one), an approximation for the greedy farm.
//! 6. Constant times: the processors of the paper's farm run in lock step, so there is no
//!    drain to add (0).
//!
//! No schedule that neither preempts tasks nor knows their times in advance can avoid this
//! excess: it is the floor. The paper's flood-fill protocol (§4.1) holds more than the task in
//! progress — a queue of unprocessed tasks per processor and the task being forwarded — so
//! its drain is larger (below). Both are independent of `M`: their share of the makespan
//! falls as `1/M`, which is why the paper's robustness test (§4.3), run with "sufficiently
//! large M", stayed within 5 %.
//!
//! # The flood-fill protocol's own drain, on a chain
//!
//! The paper's flood fill (§4.1) buffers more than the tasks in progress, and forwarding
//! before execution moves those buffers to the far end of the machine as the tasks run out
//! ("the processors closer to the root may become idle at the later stages"). On a chain
//! with exponential task times this is again exact:
//!
//! 1. Slots: each processor queues `q` tasks, and each but the last also holds the task being
//!    forwarded. From the far end: the last processor's `q`, then the forwarding slot and
//!    the `q` of the one before it, and so on: `C = (q + 1)(P − 1) + q` slots.
//! 2. A task moves down whenever the slot below it is free (a request is answered before
//!    anything is executed), and a processor starts a queued task only when its forwarding
//!    slot is full. So the filled slots are always the lowest ones, and while `n` are filled
//!    the processors at distance `d < (n − 1)/(q + 1) + 1` from the far end can start tasks:
//!    `m(n) = min(P, ⌊(n − 1)/(q + 1)⌋ + 1)` of them, all busy.
//! 3. From the moment the root hands out its last task, `n` falls from `C` by one at each
//!    start. A processor that finishes when it can no longer start a task stays idle; one
//!    that loses its turn while running is `busy`, with `b` of them.
//! 4. Exponential times make `(n, b)` a Markov chain: a start at rate `m(n)/T_e`
//!    (`n → n − 1`, and `b` grows by `m(n) − m(n − 1)`), a last completion at rate `b/T_e`
//!    (`b → b − 1`). The expected time to empty, `E(n, b)`, follows from
//!    `E(n, b) = [T_e + m E(n − 1, b + m(n) − m(n − 1)) + b E(n, b − 1)] / (m + b)`.
//! 5. Equation (g) expects the `C + P` results still due at its steady rate, `P/T_e`
//!    without overheads, so the drain is `E(C, 0) − (C + P) T_e/P`.
//!
//! For two processors and `q = 1` that is `9/8 T_e` (worked by hand in the tests); for 16 it
//! is about `5.0 T_e`, twice the floor of any non-preemptive schedule (`2.38 T_e`). Overheads
//! are neglected (`β ≪ T_e`).
//!
//! # Any tree, any random times: the same slots, sampled
//!
//! On a tree the slots form a tree too, and the Markov chain's state (which slots are filled
//! on every path) grows too fast to solve. [`flood_fill_drain`] samples the same dynamics
//! instead, from the last hand-out on:
//!
//! 1. Every slot is filled and every executing processor is part-way through a task, with the
//!    equilibrium residual time of step 2 above.
//! 2. A processor that finishes starts its next queued task if its forwarding slot is full (or
//!    it has no children); otherwise it stays idle. Processors that only forward (a saturated
//!    level, `f_i = 0`) never start one.
//! 3. A freed queue slot is refilled from the parent's forwarding slot, which the parent
//!    refills from its own queue, and so up the path to the root, as far as tasks remain.
//! 4. The drain of one sample is its last completion minus its remaining work (the residuals
//!    and the `C` buffered tasks) spread over the `B` executing processors: the fluid end that
//!    (g) stands for. Its mean is `E[drain]`; for exponential times `E[work] = (C + B) T_e`, as
//!    in step 5 above. The estimate is the mean over seeded samples, with their standard
//!    deviation (how far single runs scatter; the randomness of the total work is left out, as
//!    the speedup's numerator holds the same work) and the mean's standard error.
//!
//! On a chain with exponential times it agrees with [`chain_flood_fill_drain_s`] (tested).

use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use serde::Serialize;

use super::{ModelError, TaskTimes, check_duration, check_work};
use crate::tree::Tree;

/// The expected drain at the end of a farm of `busy_processors` processors with task times
/// `times` of mean `te_s`: `E[max_i R_i] − E[R]` over the residual times `R_i` of the tasks in
/// progress when the last task starts (see the module's derivation). Seconds.
///
/// `(H_P − 1) T_e` for exponential times (exact for an ideal greedy farm), `2T_e (2/3 − c_P)`
/// for uniform times on `[0, 2 T_e]` (equilibrium residuals), 0 for constant times.
/// `busy_processors` counts the processors that execute tasks (a processor that only forwards
/// holds none at the end).
pub fn drain_s(times: TaskTimes, busy_processors: u64, te_s: f64) -> Result<f64, ModelError> {
    check_work("te_s", te_s)?;
    if busy_processors == 0 {
        return Err(ModelError::NonPositiveWork {
            name: "busy_processors",
            value: 0.0,
        });
    }
    let p = busy_processors;
    Ok(match times {
        TaskTimes::Constant => 0.0,
        TaskTimes::Exponential => (harmonic(p) - 1.0) * te_s,
        TaskTimes::Uniform => 2.0 * te_s * (2.0 / 3.0 - uniform_c(p)),
    })
}

/// The speedup error against (g) of a run that has nothing but `drain_s` beyond it: the speedup
/// becomes `M T_e / (T + drain)`, so the error is `100 (T/(T + drain) − 1)` percent (≤ 0). For
/// [`drain_s`] it is the floor no schedule beats; for the flood-fill drain, the expected error.
pub fn speedup_error_with_drain_pct(makespan_s: f64, drain_s: f64) -> Result<f64, ModelError> {
    check_work("makespan_s", makespan_s)?;
    check_duration("drain_s", drain_s)?;
    Ok(100.0 * (makespan_s / (makespan_s + drain_s) - 1.0))
}

/// The drain of the paper's flood-fill protocol on a chain of `processors` with `queue` queued
/// tasks per processor and exponential task times of mean `te_s`: the expected excess of the
/// makespan over (g), by the Markov chain of the module's second derivation. Seconds.
///
/// It includes [`drain_s`]'s floor (the tasks in progress) and adds what the buffers, which
/// forwarding moves to the far end, cost on top.
pub fn chain_flood_fill_drain_s(processors: u64, queue: u64, te_s: f64) -> Result<f64, ModelError> {
    check_work("te_s", te_s)?;
    if processors == 0 || queue == 0 {
        return Err(ModelError::InvalidParameter {
            name: "processors and queue (each ≥ 1)",
            value: processors.min(queue) as f64,
        });
    }
    let (p, q) = (processors as usize, queue as usize);
    let slots = (q + 1) * (p - 1) + q;
    let eligible = |n: usize| {
        if n == 0 {
            0
        } else {
            p.min((n - 1) / (q + 1) + 1)
        }
    };
    // e[n][b]: expected time (in units of T_e) until all is done with n slots filled and b
    // processors running their last task. Row n needs row n − 1 and the entries before b.
    let mut prev: Vec<f64> = (0..=p)
        .scan(0.0, |acc, b| {
            if b > 0 {
                *acc += 1.0 / b as f64; // E(0, b) = H_b: the last of b exponentials
            }
            Some(*acc)
        })
        .collect();
    for n in 1..=slots {
        let m = eligible(n);
        let drop = m - eligible(n - 1);
        let mut row = vec![f64::NAN; p + 1];
        for b in 0..=(p - m) {
            let after_start = prev[b + drop];
            let after_finish = if b > 0 { row[b - 1] } else { 0.0 };
            row[b] = (1.0 + m as f64 * after_start + b as f64 * after_finish) / (m + b) as f64;
        }
        prev = row;
    }
    Ok((prev[0] - (slots + p) as f64 / p as f64) * te_s)
}

/// The drain of the flood-fill protocol on a tree, estimated by sampling (see the module's
/// third derivation), in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DrainEstimate {
    /// Expected excess of the makespan over (g).
    pub mean_s: f64,
    /// Standard deviation of one run's excess: how far a single run scatters.
    pub sd_s: f64,
    /// Standard error of `mean_s` from the finite number of samples.
    pub standard_error_s: f64,
    /// Samples drawn.
    pub samples: u32,
}

/// Samples the end of the paper's flood-fill farm on the tree `parents` (`None` for the root)
/// with `queue` queued tasks per processor and random task times `times` of mean `te_s`:
/// the excess of the makespan over (g), from the last hand-out on. `executes[i]` says whether
/// processor `i` executes tasks (false for one that only forwards). Seeded: the same arguments
/// give the same estimate.
///
/// Constant times are not covered (their phases at the end are set by the start-up, not by
/// chance): an error.
pub fn flood_fill_drain(
    parents: &[Option<usize>],
    executes: &[bool],
    queue: u64,
    times: TaskTimes,
    te_s: f64,
    samples: u32,
    seed: u64,
) -> Result<DrainEstimate, ModelError> {
    check_work("te_s", te_s)?;
    let tree = Tree::new(parents)?;
    let n = parents.len();
    if executes.len() != n {
        return Err(ModelError::LengthMismatch(format!(
            "{} execute flags for {n} processors",
            executes.len()
        )));
    }
    let busy = executes.iter().filter(|&&e| e).count();
    if queue == 0 || samples < 2 || busy == 0 || times == TaskTimes::Constant {
        return Err(ModelError::InvalidParameter {
            name: "flood_fill_drain: queue ≥ 1, samples ≥ 2, an executing processor, random times",
            value: queue.min(u64::from(samples)) as f64,
        });
    }
    let q = queue as usize;
    let has_children: Vec<bool> = tree.children.iter().map(|c| !c.is_empty()).collect();
    let slots: usize = has_children.iter().map(|&h| q + usize::from(h)).sum();
    let fresh = |rng: &mut Xoshiro256PlusPlus| match times {
        TaskTimes::Exponential => -(1.0 - unit(rng)).ln(),
        _ => 2.0 * unit(rng),
    };
    let residual = |rng: &mut Xoshiro256PlusPlus| match times {
        TaskTimes::Exponential => -(1.0 - unit(rng)).ln(),
        // Equilibrium residual of U(0, 2): F(x) = 1 − (1 − x/2)², inverted.
        _ => 2.0 * (1.0 - (1.0 - unit(rng)).sqrt()),
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (mut sum, mut sum_sq) = (0.0, 0.0);
    let mut queued = vec![0usize; n];
    let mut forwarding = vec![false; n];
    let mut events = std::collections::BinaryHeap::new();
    for _ in 0..samples {
        queued.fill(q);
        for (f, &h) in forwarding.iter_mut().zip(&has_children) {
            *f = h;
        }
        events.clear();
        let mut work = 0.0;
        for (i, _) in executes.iter().enumerate().filter(|&(_, &e)| e) {
            let r = residual(&mut rng);
            work += r;
            events.push(Completion(-r, i));
        }
        let mut last = 0.0_f64;
        let mut started = 0;
        while let Some(Completion(neg_t, i)) = events.pop() {
            let t = -neg_t;
            last = t;
            if queued[i] > 0 && (forwarding[i] || !has_children[i]) {
                queued[i] -= 1;
                started += 1;
                let x = fresh(&mut rng);
                work += x;
                events.push(Completion(-(t + x), i));
                refill(parents, &has_children, q, &mut queued, &mut forwarding, i);
            }
        }
        debug_assert_eq!(started, slots, "every buffered task runs");
        // Against the fluid end of this sample's own remaining work (the speedup's numerator
        // holds the same work, so its randomness is not the drain's).
        let drain = last - work / busy as f64;
        sum += drain;
        sum_sq += drain * drain;
    }
    let mean = sum / f64::from(samples);
    let var = (sum_sq - f64::from(samples) * mean * mean).max(0.0) / f64::from(samples - 1);
    Ok(DrainEstimate {
        mean_s: mean * te_s,
        sd_s: var.sqrt() * te_s,
        standard_error_s: (var / f64::from(samples)).sqrt() * te_s,
        samples,
    })
}

/// Step 3: processor `i`'s queue has room; tasks fall down the path from the root. Along each
/// link, the parent first fills its forwarding slot from its queue (forwarding before
/// execution), then drops it into the child's queue if there is room there; sweeps repeat
/// until nothing moves (one sweep and a check for `q = 1`).
fn refill(
    parents: &[Option<usize>],
    has_children: &[bool],
    q: usize,
    queued: &mut [usize],
    forwarding: &mut [bool],
    i: usize,
) {
    let fill_slot = |n: usize, queued: &mut [usize], forwarding: &mut [bool]| {
        if has_children[n] && !forwarding[n] && queued[n] > 0 {
            queued[n] -= 1;
            forwarding[n] = true;
            true
        } else {
            false
        }
    };
    loop {
        let mut moved = false;
        let mut c = i;
        while let Some(p) = parents[c] {
            loop {
                moved |= fill_slot(p, queued, forwarding);
                if forwarding[p] && queued[c] < q {
                    forwarding[p] = false;
                    queued[c] += 1;
                    fill_slot(c, queued, forwarding);
                    moved = true;
                } else {
                    break;
                }
            }
            c = p;
        }
        if !moved {
            return;
        }
    }
}

/// A completion in the sampler's event heap: (−time, processor), so that the heap pops the
/// earliest first.
#[derive(PartialEq)]
struct Completion(f64, usize);

impl Eq for Completion {}

impl PartialOrd for Completion {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Completion {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

/// A uniform draw on [0, 1).
fn unit(rng: &mut Xoshiro256PlusPlus) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// `H_P = Σ_{j=1}^{P} 1/j`.
fn harmonic(p: u64) -> f64 {
    (1..=p).map(|j| 1.0 / j as f64).sum()
}

/// `c_P = ∫₀¹ (1 − v²)^P dv = Π_{j=1}^{P} 2j/(2j + 1)` (Wallis' integral).
fn uniform_c(p: u64) -> f64 {
    (1..=p)
        .map(|j| (2 * j) as f64 / (2 * j + 1) as f64)
        .product()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_worked_values() {
        // One processor: its last task ends when it ends, no drain whatever the times.
        for times in [
            TaskTimes::Constant,
            TaskTimes::Uniform,
            TaskTimes::Exponential,
        ] {
            assert!(drain_s(times, 1, 1e-3).unwrap().abs() < 1e-15);
        }
        // Exponential, P = 2: H_2 − 1 = 1/2; P = 4: 1/2 + 1/3 + 1/4 = 13/12.
        assert!((drain_s(TaskTimes::Exponential, 2, 0.01).unwrap() - 0.005).abs() < 1e-15);
        let d4 = drain_s(TaskTimes::Exponential, 4, 1.0).unwrap();
        assert!((d4 - 13.0 / 12.0).abs() < 1e-12);
        // Uniform, P = 2: c_2 = (2/3)(4/5) = 8/15, drain 2(2/3 − 8/15) = 4/15.
        let u2 = drain_s(TaskTimes::Uniform, 2, 1.0).unwrap();
        assert!((u2 - 4.0 / 15.0).abs() < 1e-12);
        assert_eq!(drain_s(TaskTimes::Constant, 31, 0.01).unwrap(), 0.0);
        // Binary tree of 5 levels, T_e = 10 ms: (H_31 − 1) · 10 ms = 30.27 ms.
        let d31 = drain_s(TaskTimes::Exponential, 31, 0.01).unwrap();
        assert!((d31 - 0.030_272_452).abs() < 1e-8, "{d31}");
    }

    #[test]
    fn uniform_closed_form_equals_the_sampled_maximum_of_equilibrium_residuals() {
        // R has F(x) = 1 − (1 − x/2T)², so R = 2T(1 − √(1 − U)); E[max of P] − E[R].
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let (p, n) = (8, 200_000);
        let mut sum = 0.0;
        let mut sum_sq = 0.0;
        for _ in 0..n {
            let max = (0..p)
                .map(|_| 2.0 * (1.0 - (1.0 - unit(&mut rng)).sqrt()))
                .fold(0.0_f64, f64::max);
            sum += max;
            sum_sq += max * max;
        }
        let mean = sum / n as f64;
        let se = ((sum_sq / n as f64 - mean * mean) / n as f64).sqrt();
        let predicted = drain_s(TaskTimes::Uniform, p, 1.0).unwrap() + 2.0 / 3.0;
        assert!(
            (mean - predicted).abs() < 4.0 * se,
            "{mean} vs {predicted} (se {se})"
        );
    }

    /// Mean makespan of greedy list scheduling of `m` tasks on `p` processors.
    fn greedy_makespan(p: usize, m: usize, runs: usize, draw: impl Fn(f64) -> f64) -> (f64, f64) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let mut sum = 0.0;
        let mut sum_sq = 0.0;
        for _ in 0..runs {
            let mut free_at = vec![0.0_f64; p];
            for _ in 0..m {
                let (i, t) = free_at
                    .iter()
                    .copied()
                    .enumerate()
                    .min_by(|a, b| a.1.total_cmp(&b.1))
                    .unwrap();
                free_at[i] = t + draw(unit(&mut rng));
            }
            let makespan = free_at.iter().copied().fold(0.0_f64, f64::max);
            sum += makespan;
            sum_sq += makespan * makespan;
        }
        let mean = sum / runs as f64;
        (
            mean,
            ((sum_sq / runs as f64 - mean * mean) / runs as f64).sqrt(),
        )
    }

    #[test]
    fn exponential_drain_is_exact_for_a_greedy_farm() {
        // E[T] = M T_e/P + (H_P − 1) T_e for exponential tasks, T_e = 1.
        let (p, m) = (16, 400);
        let (mean, se) = greedy_makespan(p, m, 20_000, |u| -(1.0 - u).ln());
        let predicted =
            m as f64 / p as f64 + drain_s(TaskTimes::Exponential, p as u64, 1.0).unwrap();
        assert!(
            (mean - predicted).abs() < 4.0 * se,
            "{mean} vs {predicted} (se {se})"
        );
        // And the fluid time alone, which (g) stands for, is far off (> 100 standard errors).
        assert!(mean - m as f64 / p as f64 > 100.0 * se);
    }

    #[test]
    fn uniform_drain_approximates_a_greedy_farm() {
        // The equilibrium approximation of step 5 against greedy scheduling: the fluid time
        // misses the end by about one T_e on 16 processors; the drain accounts for it to a
        // few per cent of T_e (0.90 T_e against about 0.92 T_e simulated: the processor that
        // takes the last task starts a whole one, longer on average than a residual).
        let (p, m) = (16, 400);
        let (mean, se) = greedy_makespan(p, m, 20_000, |u| 2.0 * u);
        let fluid = m as f64 / p as f64;
        let drain = drain_s(TaskTimes::Uniform, p as u64, 1.0).unwrap();
        assert!(mean - fluid > 100.0 * se, "{mean}");
        assert!(
            (mean - fluid - drain).abs() < 0.05,
            "{} vs {drain}",
            mean - fluid
        );
    }

    #[test]
    fn chain_flood_fill_drain_hand_worked() {
        // One processor: its queue and its task in progress, all its own: no drain.
        assert!(chain_flood_fill_drain_s(1, 1, 1.0).unwrap().abs() < 1e-12);
        // P = 2, q = 1: slots Q_2, R_1, Q_1 (C = 3), both busy. With E(0, b) = H_b,
        // E(1, 0) = 1 + E(0, 1) = 2, E(2, 0) = 1 + E(1, 0) = 3,
        // E(1, 1) = (1 + E(0, 2) + E(1, 0))/2 = (1 + 1.5 + 2)/2 = 2.25,
        // E(2, 1) = (1 + E(1, 1) + E(2, 0))/2 = 3.125, E(3, 0) = (1 + 2 E(2, 1))/2 = 3.625;
        // (g) expects (3 + 2)/2 = 2.5, so the drain is 1.125 T_e.
        let d = chain_flood_fill_drain_s(2, 1, 0.01).unwrap();
        assert!((d - 0.011_25).abs() < 1e-15, "{d}");
        // At least the floor of any non-preemptive schedule, and more the more it buffers.
        for p in [2, 4, 8, 16] {
            let floor = drain_s(TaskTimes::Exponential, p, 1.0).unwrap();
            let q1 = chain_flood_fill_drain_s(p, 1, 1.0).unwrap();
            let q2 = chain_flood_fill_drain_s(p, 2, 1.0).unwrap();
            assert!(floor < q1 && q1 < q2, "{p}: {floor} {q1} {q2}");
        }
        assert!(chain_flood_fill_drain_s(0, 1, 1.0).is_err());
        assert!(chain_flood_fill_drain_s(3, 0, 1.0).is_err());
    }

    #[test]
    fn chain_flood_fill_drain_equals_a_simulation_of_the_slots() {
        // Step 2's dynamics simulated event by event from the last hand-out: processor j
        // (0 = root, P − 1 = far end) may start a task while n ≥ (q + 1)(P − 1 − j) + 1.
        let (p, q, runs) = (6_usize, 1_usize, 40_000);
        let slots = (q + 1) * (p - 1) + q;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let (mut sum, mut sum_sq) = (0.0, 0.0);
        for _ in 0..runs {
            let mut n = slots;
            let mut ends: Vec<f64> = (0..p).map(|_| -(1.0 - unit(&mut rng)).ln()).collect();
            let mut idle = vec![false; p];
            let mut last = 0.0_f64;
            while let Some((j, t)) = ends
                .iter()
                .copied()
                .enumerate()
                .filter(|&(j, _)| !idle[j])
                .min_by(|a, b| a.1.total_cmp(&b.1))
            {
                last = t;
                if n > (q + 1) * (p - 1 - j) {
                    n -= 1;
                    ends[j] = t - (1.0 - unit(&mut rng)).ln();
                } else {
                    idle[j] = true;
                }
            }
            let excess = last - (slots + p) as f64 / p as f64;
            sum += excess;
            sum_sq += excess * excess;
        }
        let mean = sum / runs as f64;
        let se = ((sum_sq / runs as f64 - mean * mean) / runs as f64).sqrt();
        let exact = chain_flood_fill_drain_s(p as u64, q as u64, 1.0).unwrap();
        assert!(
            (mean - exact).abs() < 4.0 * se,
            "{mean} vs {exact} (se {se})"
        );
    }

    fn chain(p: usize) -> Vec<Option<usize>> {
        (0..p).map(|i| i.checked_sub(1)).collect()
    }

    #[test]
    fn sampled_drain_equals_the_exact_chain() {
        for (p, q) in [(2, 1), (6, 1), (16, 1), (5, 2)] {
            let est = flood_fill_drain(
                &chain(p),
                &vec![true; p],
                q,
                TaskTimes::Exponential,
                1.0,
                20_000,
                5,
            )
            .unwrap();
            let exact = chain_flood_fill_drain_s(p as u64, q, 1.0).unwrap();
            assert!(
                (est.mean_s - exact).abs() < 4.0 * est.standard_error_s,
                "P = {p}, q = {q}: {est:?} vs {exact}"
            );
        }
    }

    #[test]
    fn sampled_drain_on_trees() {
        // A binary tree of 3 levels (7 processors, 3 of them with a forwarding slot).
        let parents: Vec<Option<usize>> = (0..7).map(|i| (i > 0).then(|| (i - 1) / 2)).collect();
        let all = vec![true; 7];
        let exp = flood_fill_drain(&parents, &all, 1, TaskTimes::Exponential, 1.0, 20_000, 9);
        let exp = exp.unwrap();
        // At least the floor of any non-preemptive schedule, (H_7 − 1) T_e.
        let floor = drain_s(TaskTimes::Exponential, 7, 1.0).unwrap();
        assert!(
            exp.mean_s > floor + 4.0 * exp.standard_error_s,
            "{exp:?} vs {floor}"
        );
        // Seeded: the same arguments give the same estimate.
        let again = flood_fill_drain(&parents, &all, 1, TaskTimes::Exponential, 1.0, 20_000, 9);
        assert_eq!(again.unwrap(), exp);
        // Uniform times scatter less than exponential ones.
        let uni = flood_fill_drain(&parents, &all, 1, TaskTimes::Uniform, 1.0, 20_000, 9).unwrap();
        assert!(uni.sd_s < exp.sd_s && uni.mean_s > 0.0, "{uni:?}");
        // A processor that only forwards holds no task in progress; bad input is refused.
        let some = [false, true, true, true, true, true, true];
        assert!(flood_fill_drain(&parents, &some, 1, TaskTimes::Uniform, 1.0, 100, 1).is_ok());
        assert!(flood_fill_drain(&parents, &all, 1, TaskTimes::Constant, 1.0, 100, 1).is_err());
        assert!(flood_fill_drain(&parents, &all[..3], 1, TaskTimes::Uniform, 1.0, 100, 1).is_err());
        assert!(
            flood_fill_drain(
                &[Some(1), Some(0)],
                &[true; 2],
                1,
                TaskTimes::Uniform,
                1.0,
                100,
                1
            )
            .is_err()
        );
    }

    #[test]
    fn error_floor() {
        // Makespan 345 ms, drain 30.27 ms: a perfect run is 8.07 % slower than (g).
        let floor = speedup_error_with_drain_pct(0.345, 0.030_27).unwrap();
        assert!((floor + 8.066).abs() < 0.01, "{floor}");
        assert_eq!(speedup_error_with_drain_pct(1.0, 0.0).unwrap(), 0.0);
        assert!(speedup_error_with_drain_pct(1.0, -1.0).is_err());
        assert!(drain_s(TaskTimes::Uniform, 0, 1.0).is_err());
        assert!(drain_s(TaskTimes::Uniform, 3, -1.0).is_err());
    }
}
