//! Steady state, start-up and speedup of a processor farm on a balanced `k`-ary tree (§3.2).

use serde::{Deserialize, Serialize};

use super::{ModelError, check_duration, check_work};
use crate::tree::TreeShape;

/// Per-task costs of a farm, all in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FarmCosts {
    /// `T_e`: compute time of one task.
    pub te_s: f64,
    /// `β_e`: non-overlapped communication start-up for a task executed locally.
    pub beta_e_s: f64,
    /// `β_f`: non-overlapped start-up for forwarding a task (and returning its result).
    pub beta_f_s: f64,
}

impl FarmCosts {
    /// Checks `T_e > 0`, `β_e ≥ 0`, `β_f ≥ 0`, all finite.
    pub fn validate(&self) -> Result<(), ModelError> {
        check_work("te_s", self.te_s)?;
        check_duration("beta_e_s", self.beta_e_s)?;
        check_duration("beta_f_s", self.beta_f_s)
    }

    /// `T_e + β_e`, the time a processor is busy per locally executed task.
    pub(crate) fn local_s(&self) -> f64 {
        self.te_s + self.beta_e_s
    }
}

/// Below this distance of `a` from 1 the closed forms lose more than ~1e-10 to cancellation.
const NEAR_ONE: f64 = 1e-6;

/// `a = k (T_e + β_e − β_f) / (T_e + β_e)`, the ratio of the geometric recurrence (d) (§3.2.1).
pub fn ratio_a(k: u32, costs: &FarmCosts) -> f64 {
    f64::from(k) * (costs.local_s() - costs.beta_f_s) / costs.local_s()
}

/// Subtree throughputs `S_1, …, S_N` (tasks/s) by recurrence (d), generalised from `2` to `k`:
/// `S_i = k S_{i−1} (T_e + β_e − β_f)/(T_e + β_e) + 1/(T_e + β_e)`, `S_0 = 0`.
///
/// Element `i − 1` is the throughput of the subtree rooted at one processor of level `i`.
pub fn throughput_by_level_per_s(
    shape: TreeShape,
    costs: &FarmCosts,
) -> Result<Vec<f64>, ModelError> {
    shape.validate()?;
    costs.validate()?;
    Ok(recurrence_unchecked(shape, costs))
}

pub(crate) fn recurrence_unchecked(shape: TreeShape, costs: &FarmCosts) -> Vec<f64> {
    let k = f64::from(shape.k);
    let c = (costs.local_s() - costs.beta_f_s) / costs.local_s();
    let mut s = 0.0;
    (0..shape.levels)
        .map(|_| {
            s = k * s * c + 1.0 / costs.local_s();
            s
        })
        .collect()
}

/// Steady-state throughput `S_N` (tasks/s) of the whole tree by recurrence (d).
pub fn throughput_recurrence_per_s(shape: TreeShape, costs: &FarmCosts) -> Result<f64, ModelError> {
    Ok(*throughput_by_level_per_s(shape, costs)?
        .last()
        .expect("levels >= 1"))
}

/// Steady-state throughput `S_N` (tasks/s) by the closed forms (e) (`k = 2`) and (f) (any `k`):
/// `S_N = [1 − a^N] / [(T_e + β_e) − k (T_e + β_e − β_f)]`.
///
/// Where `a = 1` (so both numerator and denominator vanish) the limit `N/(T_e + β_e)` is
/// returned; within `1e-6` of it, where the quotient loses digits to cancellation, the same
/// geometric sum is evaluated term by term.
pub fn throughput_closed_form_per_s(
    shape: TreeShape,
    costs: &FarmCosts,
) -> Result<f64, ModelError> {
    shape.validate()?;
    costs.validate()?;
    let a = ratio_a(shape.k, costs);
    let n = shape.levels as i32;
    if a == 1.0 {
        return Ok(f64::from(shape.levels) / costs.local_s());
    }
    if (1.0 - a).abs() < NEAR_ONE {
        // 0/0 cancellation: the geometric sum (d) is the same number, computed stably.
        return Ok(recurrence_unchecked(shape, costs)[shape.levels as usize - 1]);
    }
    let k = f64::from(shape.k);
    let denominator = costs.local_s() - k * (costs.local_s() - costs.beta_f_s);
    Ok((1.0 - a.powi(n)) / denominator)
}

/// Fraction `f_i` of all `M` tasks executed by the `k^{N−i}` processors of level `i`
/// (element `i − 1`), closed form of §3.2.1 generalised to `k`:
/// `f_i = k^{N−i} (1 − k − a^i + k a^{i−1}) / (1 − a^N)`; for `k = 2` this is the paper's
/// `2^{N−i} (2a^{i−1} − a^i − 1)/(1 − a^N)`. `Σ f_i = 1`.
///
/// Equivalently `f_i = k^{N−i} (S_i − k S_{i−1}) / S_N` with `S` from (d) (used where `a = 1`).
/// A negative `f_i` means the model of (d) is outside its validity: level `i` cannot forward as
/// fast as its subtree could absorb (see [`saturating_level_fractions`]).
pub fn level_fractions(shape: TreeShape, costs: &FarmCosts) -> Result<Vec<f64>, ModelError> {
    shape.validate()?;
    costs.validate()?;
    let a = ratio_a(shape.k, costs);
    let k = f64::from(shape.k);
    let n = shape.levels;
    if (1.0 - a).abs() < NEAR_ONE {
        let s = recurrence_unchecked(shape, costs);
        let s_n = s[s.len() - 1];
        return Ok((1..=n)
            .map(|i| {
                let below = if i == 1 { 0.0 } else { s[i as usize - 2] };
                k.powi((n - i) as i32) * (s[i as usize - 1] - k * below) / s_n
            })
            .collect());
    }
    let denominator = 1.0 - a.powi(n as i32);
    Ok((1..=n)
        .map(|i| {
            let i32_ = i as i32;
            k.powi((n - i) as i32) * (1.0 - k - a.powi(i32_) + k * a.powi(i32_ - 1)) / denominator
        })
        .collect())
}

/// Fraction `F_i` of all tasks processed by one subtree rooted at level `i`, definition (a):
/// `F_i = (1/k^{N−i}) Σ_{j ≤ i} f_j`; `F_N = 1`.
pub fn subtree_fractions(shape: TreeShape, costs: &FarmCosts) -> Result<Vec<f64>, ModelError> {
    let f = level_fractions(shape, costs)?;
    let k = f64::from(shape.k);
    let mut cumulative = 0.0;
    Ok(f.iter()
        .enumerate()
        .map(|(idx, fi)| {
            cumulative += fi;
            cumulative / k.powi((shape.levels as usize - idx - 1) as i32)
        })
        .collect())
}

/// Subtree throughputs `S_1, …, S_N` (tasks/s) of the flood-fill farm when forwarding can
/// saturate: a processor forwards at most `1/β_f` tasks/s, so
/// `S_i = k S'_{i−1} + (1 − β_f k S'_{i−1})/(T_e + β_e)` with `k S'_{i−1} = min(k S_{i−1}, 1/β_f)`.
///
/// This is recurrence (d) whenever `k S_{i−1} β_f ≤ 1` on every level (all `f_i ≥ 0`), and
/// the farm analogue of the divide-and-conquer limit (k) otherwise.
pub fn saturating_throughput_by_level_per_s(
    shape: TreeShape,
    costs: &FarmCosts,
) -> Result<Vec<f64>, ModelError> {
    shape.validate()?;
    costs.validate()?;
    Ok(saturating_unchecked(shape, costs).0)
}

/// Returns `(S_i, forwarded_i)` where `forwarded_i = k S'_{i−1}` (tasks/s per processor).
pub(crate) fn saturating_unchecked(shape: TreeShape, costs: &FarmCosts) -> (Vec<f64>, Vec<f64>) {
    let k = f64::from(shape.k);
    let mut s_prev = 0.0;
    let mut s = Vec::with_capacity(shape.levels as usize);
    let mut fwd = Vec::with_capacity(shape.levels as usize);
    for _ in 0..shape.levels {
        let wanted = k * s_prev;
        let forwarded = if costs.beta_f_s > 0.0 {
            wanted.min(1.0 / costs.beta_f_s)
        } else {
            wanted
        };
        let si = forwarded + (1.0 - costs.beta_f_s * forwarded) / costs.local_s();
        s.push(si);
        fwd.push(forwarded);
        s_prev = si;
    }
    (s, fwd)
}

/// Level fractions `f_i` (element `i − 1`, `Σ f_i = 1`, all `≥ 0`) of the saturating model
/// [`saturating_throughput_by_level_per_s`]. Where a level saturates, the subtrees below it
/// receive less than they could absorb. Forwarding has priority over local execution (§4.1:
/// split and forward run at high priority, execution at low), so the supply flows as deep as
/// the subtrees take it: a processor receiving `r` tasks/s forwards `min(r, k S'_{i−1})` and
/// executes the rest. Equals [`level_fractions`] whenever those are all non-negative.
///
/// (The paper never meets this case: its fractions simply turn negative. The engine in
/// `crate::tree` shows the priority rule's allocation, e.g. on a binary tree of 4 levels with
/// T_e = 1 ms, β_e = 50 µs, β_f = 100 µs the level-3 processors only forward.)
pub fn saturating_level_fractions(
    shape: TreeShape,
    costs: &FarmCosts,
) -> Result<Vec<f64>, ModelError> {
    shape.validate()?;
    costs.validate()?;
    let (s, fwd) = saturating_unchecked(shape, costs);
    let n = shape.levels as usize;
    let k = f64::from(shape.k);
    let total = s[n - 1];
    // rate: tasks/s entering one subtree rooted at level i + 1.
    let mut rate = total;
    let mut fractions = vec![0.0; n];
    for i in (0..n).rev() {
        let forwarded = rate.min(fwd[i]);
        let processors = k.powi((n - 1 - i) as i32);
        fractions[i] = processors * (rate - forwarded) / total;
        rate = forwarded / k;
    }
    Ok(fractions)
}

/// The link-limited throughput `1/(T_τ + β_e)` (tasks/s) of §3.1: the root cannot receive
/// tasks faster than this, whatever the number or speed of processors. `T_τ` (`tau_s`) is the
/// transfer time of one task message. Infinite when both are zero.
pub fn link_limited_throughput_per_s(tau_s: f64, beta_e_s: f64) -> Result<f64, ModelError> {
    check_duration("tau_s", tau_s)?;
    check_duration("beta_e_s", beta_e_s)?;
    Ok(1.0 / (tau_s + beta_e_s))
}

/// Start-up cost of an `N`-level farm (§3.2.2), the time for the first task to reach level 1
/// and its result to return: `T_startup = (N − 1)(2 T_τ + β_f) + T_e + β_e`.
///
/// The paper prints `2T_r`; from the surrounding text and §3.3.2 it is the transfer time
/// `T_τ` of one task message (`tau_s`).
pub fn startup_s(levels: u32, tau_s: f64, costs: &FarmCosts) -> Result<f64, ModelError> {
    if levels == 0 {
        return Err(ModelError::ZeroLevels);
    }
    costs.validate()?;
    check_duration("tau_s", tau_s)?;
    Ok(f64::from(levels - 1) * (2.0 * tau_s + costs.beta_f_s) + costs.local_s())
}

/// Execution time of `M` tasks, equation (g): `T = T_startup + (M − 1)/S_N` (seconds).
pub fn execution_time_s(
    startup_s: f64,
    tasks_m: u64,
    throughput_per_s: f64,
) -> Result<f64, ModelError> {
    check_duration("startup_s", startup_s)?;
    if tasks_m == 0 {
        return Err(ModelError::ZeroTasks);
    }
    if !(throughput_per_s.is_finite() && throughput_per_s > 0.0) {
        return Err(ModelError::NonPositiveWork {
            name: "1/throughput_per_s",
            value: 1.0 / throughput_per_s,
        });
    }
    Ok(startup_s + (tasks_m - 1) as f64 / throughput_per_s)
}

/// Speedup `SP = M T_e / T`: sequential time of `M` tasks over the execution time (g).
pub fn speedup(tasks_m: u64, te_s: f64, execution_time_s: f64) -> Result<f64, ModelError> {
    if tasks_m == 0 {
        return Err(ModelError::ZeroTasks);
    }
    check_work("te_s", te_s)?;
    check_work("execution_time_s", execution_time_s)?;
    Ok(tasks_m as f64 * te_s / execution_time_s)
}

/// Speedup of an `N`-level `k`-ary farm in closed form (§3.2.2), **corrected**:
///
/// ```text
/// SP_N = M T_e (1 − a^N) / [ (M − 1)((T_e + β_e) − k(T_e + β_e − β_f)) + T_startup (1 − a^N) ]
/// ```
///
/// The paper prints `(M − 1)(T_e + β_e) − k(T_e + β_e − β_f)` in the denominator, i.e. the
/// factor `M − 1` multiplies only the first term. Deriving it from (g) and (f):
/// `1/S_N = [(T_e + β_e) − k(T_e + β_e − β_f)]/(1 − a^N)`, so
/// `T = T_startup + (M − 1)/S_N = [T_startup (1 − a^N) + (M − 1)((T_e + β_e) − k(T_e + β_e − β_f))]/(1 − a^N)`
/// and `SP_N = M T_e / T` gives the form above: `M − 1` multiplies the whole bracket. The
/// printed form is even negative for ordinary parameters (see the tests). Near `a = 1`, where
/// the quotient is 0/0, `S_N` is taken from (d) instead (`S_N = N/(T_e + β_e)` at `a = 1`).
pub fn speedup_closed_form(
    shape: TreeShape,
    costs: &FarmCosts,
    tasks_m: u64,
    startup_s: f64,
) -> Result<f64, ModelError> {
    shape.validate()?;
    costs.validate()?;
    check_duration("startup_s", startup_s)?;
    if tasks_m == 0 {
        return Err(ModelError::ZeroTasks);
    }
    let m = tasks_m as f64;
    let a = ratio_a(shape.k, costs);
    if (1.0 - a).abs() < NEAR_ONE {
        let s_n = recurrence_unchecked(shape, costs)[shape.levels as usize - 1];
        return Ok(m * costs.te_s / (startup_s + (m - 1.0) / s_n));
    }
    let one_minus_an = 1.0 - a.powi(shape.levels as i32);
    let k = f64::from(shape.k);
    let bracket = costs.local_s() - k * (costs.local_s() - costs.beta_f_s);
    Ok(m * costs.te_s * one_minus_an / ((m - 1.0) * bracket + startup_s * one_minus_an))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * a.abs().max(b.abs()).max(1e-300)
    }

    // Hand-worked example in milliseconds-as-seconds: T_e = 0.9, β_e = 0.1, β_f = 0.25 so that
    // T_e + β_e = 1, c = (1 − 0.25)/1 = 0.75 and for k = 2, a = 1.5.
    const HAND: FarmCosts = FarmCosts {
        te_s: 0.9,
        beta_e_s: 0.1,
        beta_f_s: 0.25,
    };

    #[test]
    fn recurrence_matches_hand_computation() {
        // S_1 = 1, S_2 = 2·1·0.75 + 1 = 2.5, S_3 = 2·2.5·0.75 + 1 = 4.75.
        let s = throughput_by_level_per_s(TreeShape { k: 2, levels: 3 }, &HAND).unwrap();
        assert!(close(s[0], 1.0, 1e-15));
        assert!(close(s[1], 2.5, 1e-15));
        assert!(close(s[2], 4.75, 1e-15));
        // Closed form (e): (1 − 1.5³)/(2·0.25 − 0.1 − 0.9) = (−2.375)/(−0.5) = 4.75.
        let c = throughput_closed_form_per_s(TreeShape { k: 2, levels: 3 }, &HAND).unwrap();
        assert!(close(c, 4.75, 1e-14));
        // Chain (k = 1): S_2 = 0.75 + 1 = 1.75; closed form (1 − 0.75²)/β_f = 0.4375/0.25.
        let chain = TreeShape { k: 1, levels: 2 };
        assert!(close(
            throughput_closed_form_per_s(chain, &HAND).unwrap(),
            1.75,
            1e-14
        ));
        assert!(close(
            throughput_recurrence_per_s(chain, &HAND).unwrap(),
            1.75,
            1e-15
        ));
    }

    #[test]
    fn closed_form_equals_recurrence_over_a_grid() {
        for k in 1..=4 {
            for levels in 1..=8 {
                for (te, be, bf) in [
                    (1e-3, 5e-5, 1e-4),
                    (1e-2, 1e-4, 3e-5),
                    (5e-4, 0.0, 0.0),
                    (2e-3, 1e-3, 2e-3),
                    (1e-3, 0.0, 5e-4),
                ] {
                    let costs = FarmCosts {
                        te_s: te,
                        beta_e_s: be,
                        beta_f_s: bf,
                    };
                    let shape = TreeShape { k, levels };
                    let r = throughput_recurrence_per_s(shape, &costs).unwrap();
                    let c = throughput_closed_form_per_s(shape, &costs).unwrap();
                    assert!(close(r, c, 1e-9), "k={k} N={levels} {costs:?}: {r} vs {c}");
                }
            }
        }
    }

    #[test]
    fn a_equal_one_uses_the_limit() {
        // β_f = (T_e + β_e)/2 with k = 2 gives a = 1: S_N = N/(T_e + β_e).
        let costs = FarmCosts {
            te_s: 0.9,
            beta_e_s: 0.1,
            beta_f_s: 0.5,
        };
        let shape = TreeShape { k: 2, levels: 4 };
        assert_eq!(ratio_a(2, &costs), 1.0);
        assert!(close(
            throughput_closed_form_per_s(shape, &costs).unwrap(),
            4.0,
            1e-15
        ));
        assert!(close(
            throughput_recurrence_per_s(shape, &costs).unwrap(),
            4.0,
            1e-15
        ));
        let f = level_fractions(shape, &costs).unwrap();
        assert!(close(f.iter().sum::<f64>(), 1.0, 1e-12));
    }

    #[test]
    fn fractions_match_hand_computation_and_paper_binary_form() {
        // N = 2: f_1 = 2·(S_1 − 0)/S_2 = 0.8, f_2 = (2.5 − 2)/2.5 = 0.2.
        let shape = TreeShape { k: 2, levels: 2 };
        let f = level_fractions(shape, &HAND).unwrap();
        assert!(close(f[0], 0.8, 1e-14) && close(f[1], 0.2, 1e-13), "{f:?}");
        // The paper's binary expression 2^{N−i}(2a^{i−1} − a^i − 1)/(1 − a^N).
        let a: f64 = 1.5;
        for (i, fi) in f.iter().enumerate() {
            let i = i as i32 + 1;
            let paper = 2f64.powi(2 - i) * (2.0 * a.powi(i - 1) - a.powi(i) - 1.0) / (1.0 - a * a);
            assert!(close(*fi, paper, 1e-14));
        }
        // F_i by (a): F_1 = f_1/2 = 0.4 per leaf subtree, F_2 = 1.
        let big_f = subtree_fractions(shape, &HAND).unwrap();
        assert!(close(big_f[0], 0.4, 1e-14) && close(big_f[1], 1.0, 1e-14));
    }

    #[test]
    fn fractions_sum_to_one_and_match_recurrence() {
        for k in 1..=3 {
            for levels in 1..=7 {
                let costs = FarmCosts {
                    te_s: 1e-3,
                    beta_e_s: 4e-5,
                    beta_f_s: 6e-5,
                };
                let shape = TreeShape { k, levels };
                let f = level_fractions(shape, &costs).unwrap();
                assert!(close(f.iter().sum::<f64>(), 1.0, 1e-10), "{f:?}");
                let s = throughput_by_level_per_s(shape, &costs).unwrap();
                let kf = f64::from(k);
                for i in 0..levels as usize {
                    let below = if i == 0 { 0.0 } else { s[i - 1] };
                    let expected = kf.powi((levels as usize - 1 - i) as i32) * (s[i] - kf * below)
                        / s[s.len() - 1];
                    assert!(close(f[i], expected, 1e-8), "k={k} N={levels} i={i}");
                }
            }
        }
    }

    #[test]
    fn saturation_caps_forwarding_and_keeps_fractions_non_negative() {
        // N = 3 with HAND: (d) gives f_3 = (4.75 − 5)/4.75 < 0: the root would have to forward
        // 2·S_2 = 5 tasks per unit time at β_f = 0.25 each, i.e. 125 % of its time.
        let shape = TreeShape { k: 2, levels: 3 };
        let f = level_fractions(shape, &HAND).unwrap();
        assert!(f[2] < 0.0);
        // Saturating: the root forwards 1/β_f = 4 and executes nothing: S_3 = 4.
        let s = saturating_throughput_by_level_per_s(shape, &HAND).unwrap();
        assert!(close(s[2], 4.0, 1e-15));
        // Each level-2 processor receives 2 tasks per unit time. Forwarding has priority and
        // its two leaves absorb 2·S_1 = 2, so it forwards all 2 and executes nothing; each
        // leaf executes 1 (its capacity). f_1 = 4·1/4 = 1, f_2 = f_3 = 0.
        let g = saturating_level_fractions(shape, &HAND).unwrap();
        assert!(close(g[0], 1.0, 1e-14) && g[1].abs() < 1e-15, "{g:?}");
        assert!(g[2].abs() < 1e-15);
        // Where nothing saturates both models agree.
        let shape = TreeShape { k: 2, levels: 2 };
        let s = saturating_throughput_by_level_per_s(shape, &HAND).unwrap();
        assert!(close(
            s[1],
            throughput_recurrence_per_s(shape, &HAND).unwrap(),
            1e-15
        ));
        let g = saturating_level_fractions(shape, &HAND).unwrap();
        let f = level_fractions(shape, &HAND).unwrap();
        for (a, b) in g.iter().zip(&f) {
            assert!(close(*a, *b, 1e-12));
        }
    }

    #[test]
    fn chain_throughput_tends_to_one_over_beta_f() {
        // k = 1: a < 1 and S_∞ = 1/β_f; a chain never saturates.
        let costs = FarmCosts {
            te_s: 1e-3,
            beta_e_s: 5e-5,
            beta_f_s: 1e-4,
        };
        let s = throughput_recurrence_per_s(TreeShape { k: 1, levels: 400 }, &costs).unwrap();
        assert!(close(s, 1e4, 1e-9), "{s}");
        assert!(
            level_fractions(TreeShape { k: 1, levels: 50 }, &costs)
                .unwrap()
                .iter()
                .all(|f| *f >= 0.0)
        );
    }

    #[test]
    fn speedup_identity_and_corrected_closed_form() {
        // M = 100, N = 2, T_τ = 0.05: T_startup = 1·(0.1 + 0.25) + 1 = 1.35,
        // T = 1.35 + 99/2.5 = 40.95, SP = 100·0.9/40.95 = 2.19780…
        let shape = TreeShape { k: 2, levels: 2 };
        let t0 = startup_s(2, 0.05, &HAND).unwrap();
        assert!(close(t0, 1.35, 1e-15));
        let s = throughput_recurrence_per_s(shape, &HAND).unwrap();
        let t = execution_time_s(t0, 100, s).unwrap();
        assert!(close(t, 40.95, 1e-14));
        let sp = speedup(100, HAND.te_s, t).unwrap();
        assert!(close(sp, 90.0 / 40.95, 1e-14));
        let closed = speedup_closed_form(shape, &HAND, 100, t0).unwrap();
        assert!(close(closed, sp, 1e-12), "{closed} vs {sp}");
        // The printed form (M − 1)(T_e + β_e) − k(T_e + β_e − β_f) differs (here: negative).
        let a: f64 = 1.5;
        let printed = 90.0 * (1.0 - a * a) / (99.0 * 1.0 - 2.0 * 0.75 + t0 * (1.0 - a * a));
        assert!(printed < 0.0);
    }

    #[test]
    fn speedup_identity_holds_over_a_grid() {
        for k in 1..=3 {
            for levels in 1..=6 {
                for m in [1u64, 2, 17, 1000] {
                    let costs = FarmCosts {
                        te_s: 2e-3,
                        beta_e_s: 1e-4,
                        beta_f_s: 2e-4,
                    };
                    let shape = TreeShape { k, levels };
                    let t0 = startup_s(levels, 3e-5, &costs).unwrap();
                    let s_n = throughput_closed_form_per_s(shape, &costs).unwrap();
                    let expected = m as f64 * costs.te_s / (t0 + (m - 1) as f64 / s_n);
                    let got = speedup_closed_form(shape, &costs, m, t0).unwrap();
                    assert!(close(got, expected, 1e-9), "k={k} N={levels} M={m}");
                }
            }
        }
    }

    #[test]
    fn link_limit_and_errors() {
        assert!(close(
            link_limited_throughput_per_s(1e-4, 1e-4).unwrap(),
            5e3,
            1e-15
        ));
        assert_eq!(
            throughput_recurrence_per_s(TreeShape { k: 0, levels: 2 }, &HAND),
            Err(ModelError::ZeroArity)
        );
        assert_eq!(
            throughput_closed_form_per_s(TreeShape { k: 2, levels: 0 }, &HAND),
            Err(ModelError::ZeroLevels)
        );
        let bad = FarmCosts {
            beta_f_s: -1e-6,
            ..HAND
        };
        assert!(matches!(
            level_fractions(TreeShape { k: 2, levels: 2 }, &bad),
            Err(ModelError::InvalidDuration {
                name: "beta_f_s",
                ..
            })
        ));
        assert_eq!(execution_time_s(1.0, 0, 1.0), Err(ModelError::ZeroTasks));
        assert!(link_limited_throughput_per_s(f64::NAN, 0.0).is_err());
        assert_eq!(TreeShape { k: 3, levels: 3 }.processors(), 13);
    }
}
