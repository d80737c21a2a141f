//! What each unit of real work the programs declare costs on this host.
//!
//! In virtual time with model compute charging, a compute block is charged the units it
//! declares times their cost ([`WorkCosts`]). The costs are measured here, natively, by running
//! each kernel on inputs of its own kind and timing it by thread CPU time:
//!
//! | unit | declared by | measured on |
//! |---|---|---|
//! | `prime_candidate`, `trial_division` | the farm's prime kernel | four ranges from 10³ to 10⁹ (least squares: t = a·candidates + b·divisions) |
//! | `comparison`, `key_move` | mergesort (split, leaf sort, merges) | random and presorted lists (least squares) |
//! | `attempted_flip`, `accepted_flip` | an Ising sample (its attempted and its accepted flips) | samples of 20 + 20 sweeps, cold start, that accept 1–22 % of their flips: 3D 8³ at T = 4 and T = 3, 2D 32² at T = 1.5 (least squares) |
//! | `summary_merge` | adding a sample to, or merging, Ising summaries | 100 000 adds |
//! | `ocl_comparison`, `ocl_value` | an OCL cell step | four grains (least squares) |
//!
//! Each measurement is repeated and the median kept. A unit's cost on other inputs differs
//! (caches, branch prediction): the model is a linear approximation of the real program, which
//! `--compute measured` avoids at the price of repeatability. The largest such difference is
//! the spin flip's: a Metropolis attempt costs more the more often it is accepted (an accepted
//! flip writes the spin and updates the energy and magnetisation, and the accept-or-reject
//! branch is mispredicted more often), so a sample is charged its attempted flips and its
//! accepted ones, each at its own cost. The fit spans the acceptance of the README's runs
//! (1.4 % in 2D at T = 1.5, 22 % in 3D at T = 4). Towards half the attempts accepted the
//! branch's cost stops growing (measured on the development host, 8³, cold start: 5.4 ns an
//! attempt at T = 3 (5 % accepted), 7.3 ns at T = 4, 9.4 ns at T = 4.5, 10.6 ns at T = 6
//! (66 %)), and the two units overcharge; every Ising run reports its modelled sample time
//! against a native sample, which says how far another temperature is off.

use std::collections::BTreeMap;

use multicomputer_runtime::{Work, WorkClock, WorkCosts, WorkUnit};

use crate::dnc::{COMPARISON, KEY_MOVE, mergesort};
use crate::farm::{PRIME_CANDIDATE, TRIAL_DIVISION, count_primes_metered};
use crate::ising::{
    ACCEPTED_FLIP, ATTEMPTED_FLIP, DEFAULT_SWEEPS, DEFAULT_TEMPERATURE, Dimension, IsingConfig,
    SUMMARY_MERGE, SummaryAccumulator, run_sample,
};
use crate::ocl::{
    CellChoice, Grain, OCL_COMPARISON, OCL_VALUE, random_stream, run_systolic, transform_label,
};
use crate::speedup::Spread;

/// Every unit a program of this crate declares.
pub const UNITS: [WorkUnit; 9] = [
    PRIME_CANDIDATE,
    TRIAL_DIVISION,
    COMPARISON,
    KEY_MOVE,
    ATTEMPTED_FLIP,
    ACCEPTED_FLIP,
    SUMMARY_MERGE,
    OCL_COMPARISON,
    OCL_VALUE,
];

/// One iteration of the runtime's degradation loop on the development host, ns (used when no
/// machine profile gives this host's own).
pub const REFERENCE_LOOP_ITERATION_NS: f64 = 0.6;

/// The reference cost of an attempted flip, ns: the development host's 7.3 ns per attempt of
/// the default 3D sample (21.5 % accepted) split in the ratio of the development host's
/// two-unit fit (3.10 ns an attempt, 16.83 ns an accepted flip, which charge that sample
/// 6.72 ns an attempt; docs/results/trust.md), so that the default sample's reference charge
/// is unchanged: 3.37 + 0.215 × 18.3 = 7.30 ns.
pub const ATTEMPTED_FLIP_REFERENCE_NS: f64 = 3.37;

/// The reference cost of an accepted flip besides its attempt, ns (see
/// [`ATTEMPTED_FLIP_REFERENCE_NS`]).
pub const ACCEPTED_FLIP_REFERENCE_NS: f64 = 18.3;

/// The Ising samples the flips' costs are fitted on: (dimension, L, T), accepting from 1.4 %
/// (2D at T = 1.5, the README's) to 22 % (3D at T = 4, the default) of their attempts.
const FLIP_SAMPLES: [(Dimension, usize, f64); 3] = [
    (Dimension::Three, 8, DEFAULT_TEMPERATURE),
    (Dimension::Three, 8, 3.0),
    (Dimension::Two, 32, 1.5),
];

/// Costs per unit measured on the development host (a 2-vCPU Firecracker VM; see
/// docs/results/virtual-time.md), used when no machine profile gives this host's own.
pub fn reference_unit_costs() -> BTreeMap<String, f64> {
    [
        (PRIME_CANDIDATE, 4.0),
        (TRIAL_DIVISION, 7.5),
        (COMPARISON, 2.5),
        (KEY_MOVE, 0.7),
        (ATTEMPTED_FLIP, ATTEMPTED_FLIP_REFERENCE_NS),
        (ACCEPTED_FLIP, ACCEPTED_FLIP_REFERENCE_NS),
        (SUMMARY_MERGE, 40.0),
        (OCL_COMPARISON, 0.5),
        (OCL_VALUE, 0.3),
    ]
    .into_iter()
    .map(|(u, ns)| (u.name().to_string(), ns))
    .collect()
}

/// Thread CPU time of `f`, ns, with what it declared.
fn timed<T>(f: impl FnOnce(&mut Work) -> T) -> (f64, Work) {
    let mut work = Work::default();
    let (_, took) = WorkClock::ThreadCpu.time(|| std::hint::black_box(f(&mut work)));
    (took.as_nanos() as f64, work)
}

/// The median of the finite values, NaN without any.
fn median(v: Vec<f64>) -> f64 {
    Spread::of(&v).map_or(f64::NAN, |s| s.median)
}

/// Least squares of `t = a·x + b·y` through the origin, for non-negative (a, b).
fn two_unit_fit(points: &[(f64, f64, f64)]) -> (f64, f64) {
    let (mut sxx, mut sxy, mut syy, mut sxt, mut syt) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for &(x, y, t) in points {
        sxx += x * x;
        sxy += x * y;
        syy += y * y;
        sxt += x * t;
        syt += y * t;
    }
    let det = sxx * syy - sxy * sxy;
    if det.abs() <= f64::EPSILON * sxx * syy {
        // Collinear: charge everything to x.
        return ((sxt / sxx).max(0.0), 0.0);
    }
    let a = (sxt * syy - syt * sxy) / det;
    let b = (syt * sxx - sxt * sxy) / det;
    match (a >= 0.0, b >= 0.0) {
        (true, true) => (a, b),
        // A negative cost is noise: fit the other unit alone.
        (false, _) => (0.0, (syt / syy).max(0.0)),
        (_, false) => ((sxt / sxx).max(0.0), 0.0),
    }
}

fn pair(points: Vec<(f64, Work)>, x: WorkUnit, y: WorkUnit) -> (f64, f64) {
    let rows: Vec<(f64, f64, f64)> = points
        .iter()
        .map(|(t, w)| (w.count(x) as f64, w.count(y) as f64, *t))
        .collect();
    two_unit_fit(&rows)
}

/// The units' costs measured on this host, with the replicates they come from.
#[derive(Debug, Clone)]
pub struct MeasuredUnitCosts {
    /// The cost of each unit.
    pub costs: WorkCosts,
    /// Every timed input (a kernel on one of its inputs) and its time in each repetition, ns:
    /// replicates of one measurement, which a busy host scatters.
    pub replicates: Vec<(String, Vec<f64>)>,
}

/// The times of `points`, timed repetition after repetition over `inputs` (named), grouped
/// by input: each input's replicates.
fn replicates_of(points: &[(f64, Work)], inputs: &[String]) -> Vec<(String, Vec<f64>)> {
    inputs
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let times = points.iter().skip(i).step_by(inputs.len()).map(|p| p.0);
            (name.clone(), times.collect())
        })
        .collect()
}

/// Measures every unit's cost on this host; `repeats` ≥ 1 repetitions of each measurement (5
/// take about a second of CPU time).
pub fn measure_unit_costs(repeats: usize) -> MeasuredUnitCosts {
    let repeats = repeats.max(1);
    let mut costs = BTreeMap::new();
    let mut replicates = Vec::new();
    let mut set = |u: WorkUnit, ns: f64| {
        costs.insert(u.name().to_string(), ns);
    };

    // Primes: candidates and divisions, pooled over ranges whose divisions per candidate
    // differ by a factor of about a hundred.
    let ranges = [
        (1_000, 20_000),
        (100_000, 5_000),
        (10_000_000, 1_000),
        (1_000_000_000, 200),
    ];
    let points: Vec<(f64, Work)> = (0..repeats)
        .flat_map(|_| ranges)
        .map(|(s, n)| timed(|w| count_primes_metered(s, n, w)))
        .collect();
    let names: Vec<String> = ranges
        .iter()
        .map(|(s, n)| format!("primes: {n} candidates from {s}"))
        .collect();
    replicates.extend(replicates_of(&points, &names));
    let (candidate, division) = pair(points, PRIME_CANDIDATE, TRIAL_DIVISION);
    set(PRIME_CANDIDATE, candidate);
    set(TRIAL_DIVISION, division);

    // Mergesort: a key move is what copying a key costs; a comparison, the rest of a sort
    // (its loop also writes the key it picks) per comparison.
    let list = random_stream(50_000, -1_000_000, 1_000_000, 7);
    let mut copy = vec![0; list.len()];
    let copies: Vec<f64> = (0..repeats)
        .map(|_| {
            let (t, _) = timed(|_| {
                for _ in 0..20 {
                    copy.copy_from_slice(std::hint::black_box(&list));
                }
            });
            t
        })
        .collect();
    let move_ns = median(
        copies
            .iter()
            .map(|t| t / (20 * list.len()) as f64)
            .collect(),
    );
    let sorts: Vec<(f64, Work)> = (0..repeats)
        .map(|_| {
            let mut v = list.clone();
            timed(|w| mergesort(&mut v, w))
        })
        .collect();
    let comparison_ns = median(
        sorts
            .iter()
            .map(|(t, w)| {
                (t - move_ns * w.count(KEY_MOVE) as f64).max(0.0) / w.count(COMPARISON) as f64
            })
            .collect(),
    );
    replicates.push((format!("{} key copies", 20 * list.len()), copies));
    replicates.extend(replicates_of(
        &sorts,
        &[format!("mergesort of {} keys", list.len())],
    ));
    set(KEY_MOVE, move_ns);
    set(COMPARISON, comparison_ns);

    // Ising: attempted and accepted flips, pooled over samples whose acceptance differs by a
    // factor of fifteen.
    let sample_config = |(dimension, size, temperature): (Dimension, usize, f64)| {
        let mut c = IsingConfig::new(dimension, size, temperature).expect("a valid Ising config");
        c.thermalisation_sweeps = DEFAULT_SWEEPS;
        c.measurement_sweeps = DEFAULT_SWEEPS;
        c
    };
    let points: Vec<(f64, Work)> = (0..repeats)
        .flat_map(|k| FLIP_SAMPLES.map(|s| (k, sample_config(s))))
        .map(|(k, c)| {
            timed(|w| {
                let r = run_sample(&c, k as u64);
                if let Ok(r) = &r {
                    r.declare(w);
                }
                r
            })
        })
        .collect();
    let names: Vec<String> = FLIP_SAMPLES
        .iter()
        .map(|(d, l, t)| format!("Ising sample: {}D L = {l}, T = {t}", d.d()))
        .collect();
    replicates.extend(replicates_of(&points, &names));
    let (attempted, accepted) = pair(points, ATTEMPTED_FLIP, ACCEPTED_FLIP);
    set(ATTEMPTED_FLIP, attempted);
    set(ACCEPTED_FLIP, accepted);

    let sample = run_sample(&sample_config(FLIP_SAMPLES[0]), 0).expect("a valid Ising config");
    let adds = 100_000u64;
    let merges: Vec<f64> = (0..repeats)
        .map(|_| {
            let (t, _) = timed(|_| {
                let mut acc = SummaryAccumulator::new();
                for _ in 0..adds {
                    acc.add(std::hint::black_box(&sample));
                }
                acc
            });
            t
        })
        .collect();
    let merge_ns = median(merges.iter().map(|t| t / adds as f64).collect());
    replicates.push((format!("{adds} summary adds"), merges));
    set(SUMMARY_MERGE, merge_ns);

    // OCL: comparisons (KM a step) and values (3K in and 3K out a step), pooled over grains
    // whose ratio of the two differs by a factor of sixty.
    let input = random_stream(4_000, 0, 50, 3);
    let grains: Vec<Grain> = [
        Grain::fine(16),
        Grain::m1(64, 16),
        Grain::m1(64, 64),
        Grain::kk(64, 16),
        Grain::new(64, 16, 8),
    ]
    .into_iter()
    .flatten()
    .collect();
    let points: Vec<(f64, Work)> = (0..repeats)
        .flat_map(|_| grains.iter().copied())
        .map(|g| {
            timed(|w| {
                let run = run_systolic(g, &input, CellChoice::Specialised);
                if let Ok(r) = &run {
                    for c in &r.cells {
                        c.declare(w);
                    }
                }
                run
            })
        })
        .collect();
    let names: Vec<String> = grains
        .iter()
        .map(|g| format!("OCL cells: {} on N = {}", transform_label(*g), g.n()))
        .collect();
    replicates.extend(replicates_of(&points, &names));
    let (comparison, value) = pair(points, OCL_COMPARISON, OCL_VALUE);
    set(OCL_COMPARISON, comparison);
    set(OCL_VALUE, value);

    MeasuredUnitCosts {
        costs: WorkCosts {
            ns_per_unit: costs,
            ..WorkCosts::default()
        },
        replicates,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_unit_fit_recovers_known_costs() {
        // t = 3x + 0.5y exactly, on points of different x:y ratios.
        let pts: Vec<(f64, f64, f64)> = [(10.0, 100.0), (50.0, 20.0), (7.0, 300.0)]
            .iter()
            .map(|&(x, y)| (x, y, 3.0 * x + 0.5 * y))
            .collect();
        let (a, b) = two_unit_fit(&pts);
        assert!((a - 3.0).abs() < 1e-9 && (b - 0.5).abs() < 1e-9, "{a} {b}");
        // Collinear points cannot separate the units: all goes to x.
        let (a, b) = two_unit_fit(&[(1.0, 2.0, 4.0), (2.0, 4.0, 8.0)]);
        assert_eq!((a, b), (4.0, 0.0));
    }

    #[test]
    fn every_unit_has_a_reference_cost() {
        let reference = reference_unit_costs();
        for u in UNITS {
            assert!(reference.get(u.name()).is_some_and(|&ns| ns > 0.0), "{u}");
        }
    }

    #[test]
    fn measured_costs_cover_every_unit_and_are_positive() {
        let measured = measure_unit_costs(2);
        let costs = measured.costs;
        for u in UNITS {
            let ns = costs.unit_ns(u).unwrap_or(f64::NAN);
            assert!(ns.is_finite() && ns >= 0.0, "{u}: {ns}");
        }
        // The prime kernel's divisions cost something on any host.
        assert!(costs.unit_ns(TRIAL_DIVISION).unwrap() > 0.0);
        // Every timed input has its two repetitions, each a positive time.
        assert_eq!(measured.replicates.len(), 4 + 2 + 3 + 1 + 5);
        for (input, times) in &measured.replicates {
            assert!(
                times.len() == 2 && times.iter().all(|t| *t > 0.0),
                "{input}"
            );
        }
    }
}
