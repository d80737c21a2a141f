//! Steady state, throughput limit, start-up and speedup of divide and conquer (§3.3).

use serde::{Deserialize, Serialize};

use crate::tree::{ModelError, check_duration, check_work};

/// Costs of one level of a divide-and-conquer tree, all in seconds. Element `i − 1` of a
/// `&[DncLevelCosts]` describes level `i` (1 = leaves, `N` = root).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DncLevelCosts {
    /// `T_e(i)`: time for a level-`i` processor to execute, sequentially, the (sub)task it
    /// receives. At the root `T_e(N)` is the sequential time of a whole task.
    pub te_s: f64,
    /// `T_s(i)`: time to split a subtask into `k` parts.
    pub ts_s: f64,
    /// `T_j(i)`: time to join the `k` partial results.
    pub tj_s: f64,
    /// `T_τ(i)`: transmission time of the data of a subtask at level `i`.
    pub tau_s: f64,
}

impl DncLevelCosts {
    fn validate(&self) -> Result<(), ModelError> {
        check_work("te_s", self.te_s)?;
        check_duration("ts_s", self.ts_s)?;
        check_duration("tj_s", self.tj_s)?;
        check_duration("tau_s", self.tau_s)
    }

    /// `T_s(i) + T_j(i) + β_f`: busy time of a level-`i` processor per task it forwards.
    fn forward_s(&self, beta_f_s: f64) -> f64 {
        self.ts_s + self.tj_s + beta_f_s
    }
}

pub(crate) fn validate(
    levels: &[DncLevelCosts],
    beta_e_s: f64,
    beta_f_s: f64,
) -> Result<(), ModelError> {
    if levels.is_empty() {
        return Err(ModelError::ZeroLevels);
    }
    for l in levels {
        l.validate()?;
    }
    check_duration("beta_e_s", beta_e_s)?;
    check_duration("beta_f_s", beta_f_s)
}

/// Per-level costs of a task split evenly `k` ways at every level, with every cost linear in
/// the size of the (sub)task: level `i` gets `whole / k^{N−i}` of each cost of the whole task
/// (so `T_e(N)` is the whole task's sequential time, `T_e(1) = T_e(N)/k^{N−1}`).
pub fn even_split_levels(
    k: u32,
    levels: u32,
    whole: DncLevelCosts,
) -> Result<Vec<DncLevelCosts>, ModelError> {
    if k == 0 {
        return Err(ModelError::ZeroArity);
    }
    if levels == 0 {
        return Err(ModelError::ZeroLevels);
    }
    whole.validate()?;
    Ok((1..=levels)
        .map(|i| {
            let share = f64::from(k).powi(-((levels - i) as i32));
            DncLevelCosts {
                te_s: whole.te_s * share,
                ts_s: whole.ts_s * share,
                tj_s: whole.tj_s * share,
                tau_s: whole.tau_s * share,
            }
        })
        .collect())
}

/// Throughputs `S_1, …, S_N` (whole tasks/s) by recurrence (j):
/// `S_i = S_{i−1} (T_e(i) + β_e − T_s(i) − T_j(i) − β_f)/(T_e(i) + β_e) + 1/(T_e(i) + β_e)`,
/// `S_0 = 0`; `S_i` is the throughput of levels 1 to `i`.
pub fn throughput_by_level_per_s(
    levels: &[DncLevelCosts],
    beta_e_s: f64,
    beta_f_s: f64,
) -> Result<Vec<f64>, ModelError> {
    validate(levels, beta_e_s, beta_f_s)?;
    let mut s = 0.0;
    Ok(levels
        .iter()
        .map(|l| {
            let local = l.te_s + beta_e_s;
            s = s * (local - l.forward_s(beta_f_s)) / local + 1.0 / local;
            s
        })
        .collect())
}

/// The throughput limit (k): `S_max = 1/(t_max + β_f)`, `t_max = max_{2≤i≤N} (T_s(i) + T_j(i))`
/// (whole tasks/s): no task can pass the intermediate levels faster. Infinite for `N = 1`.
pub fn throughput_limit_per_s(levels: &[DncLevelCosts], beta_f_s: f64) -> Result<f64, ModelError> {
    validate(levels, 0.0, beta_f_s)?;
    if levels.len() < 2 {
        return Ok(f64::INFINITY);
    }
    let t_max = levels[1..]
        .iter()
        .map(|l| l.ts_s + l.tj_s)
        .fold(0.0, f64::max);
    Ok(1.0 / (t_max + beta_f_s))
}

/// The paper's rule (§3.3.1), literally: if `S_1` from (j) is below `S_max` (k), the throughput
/// is `S_N` from (j), otherwise `S_max` (and the intermediate levels should not compute).
///
/// The rule only compares the leaves with `S_max`; for deep trees `S_N` from (j) can exceed
/// `S_max` while `S_1 < S_max`, with a negative `f_N`. [`saturating_throughput_by_level_per_s`]
/// handles both regimes level by level.
pub fn paper_throughput_per_s(
    levels: &[DncLevelCosts],
    beta_e_s: f64,
    beta_f_s: f64,
) -> Result<f64, ModelError> {
    let s = throughput_by_level_per_s(levels, beta_e_s, beta_f_s)?;
    let s_max = throughput_limit_per_s(levels, beta_f_s)?;
    Ok(if s[0] < s_max { s[s.len() - 1] } else { s_max })
}

/// Returns `(S_i, forwarded_i)` with forwarding capped at `1/σ_i`.
fn saturating_unchecked(
    levels: &[DncLevelCosts],
    beta_e_s: f64,
    beta_f_s: f64,
) -> (Vec<f64>, Vec<f64>) {
    let mut s_prev: f64 = 0.0;
    let mut s = Vec::with_capacity(levels.len());
    let mut fwd = Vec::with_capacity(levels.len());
    for l in levels {
        let sigma = l.forward_s(beta_f_s);
        let f = if sigma > 0.0 {
            s_prev.min(1.0 / sigma)
        } else {
            s_prev
        };
        let si = f + (1.0 - sigma * f) / (l.te_s + beta_e_s);
        s.push(si);
        fwd.push(f);
        s_prev = si;
    }
    (s, fwd)
}

/// Throughputs `S_1, …, S_N` (whole tasks/s) with forwarding allowed to saturate: a level-`i`
/// processor passes at most `1/(T_s(i) + T_j(i) + β_f)` tasks to the levels below, so
/// `S_i = S'_{i−1} + (1 − σ_i S'_{i−1})/(T_e(i) + β_e)` with `S'_{i−1} = min(S_{i−1}, 1/σ_i)`.
///
/// Equal to (j) whenever every `f_i ≥ 0`; equal to `S_max` (k) when the levels below an
/// intermediate level with the largest `T_s + T_j` can absorb more than it passes on and the
/// levels above it are no faster (e.g. uniform split and join costs with `S_1 ≥ S_max`).
pub fn saturating_throughput_by_level_per_s(
    levels: &[DncLevelCosts],
    beta_e_s: f64,
    beta_f_s: f64,
) -> Result<Vec<f64>, ModelError> {
    validate(levels, beta_e_s, beta_f_s)?;
    Ok(saturating_unchecked(levels, beta_e_s, beta_f_s).0)
}

/// Fractions `f_i` of the tasks processed at each level (element `i − 1`), from (j):
/// `F_i = S_i/S_N` (h, i) so `f_i = (S_i − S_{i−1})/S_N`; `Σ f_i = 1`. Negative values flag
/// saturation (see [`saturating_level_fractions`]).
pub fn level_fractions(
    levels: &[DncLevelCosts],
    beta_e_s: f64,
    beta_f_s: f64,
) -> Result<Vec<f64>, ModelError> {
    let s = throughput_by_level_per_s(levels, beta_e_s, beta_f_s)?;
    let s_n = s[s.len() - 1];
    Ok((0..s.len())
        .map(|i| (s[i] - if i == 0 { 0.0 } else { s[i - 1] }) / s_n)
        .collect())
}

/// Fractions `f_i` of the saturating model (all `≥ 0`, `Σ = 1`). Below a saturated level the
/// subtrees receive less than they could absorb; splitting and forwarding run at high priority
/// (§4.1), so the supply flows as deep as the subtrees take it: a level-`i` processor receiving
/// `r` tasks/s forwards (splits) `min(r, S'_{i−1})` of them and executes the rest. A split sends
/// one subtask to each child, so each child subtree receives as many (smaller) tasks per second
/// as its parent forwards, and a level-`i` processor's work share in whole tasks is
/// `(r − forwarded)/S_N` summed over the `k^{N−i}` processors of the level, each doing
/// `k^{−(N−i)}` of a whole task per task. Equals [`level_fractions`] whenever those are all
/// non-negative. (The engine in `crate::tree` allocates this way: on a binary tree of 5 levels
/// with `T_e(N) = 8 ms`, `T_s(N) = T_j(N) = 200 µs`, `β_e = 50 µs`, `β_f = 100 µs` the root
/// saturates and levels 3 to 5 only split.)
pub fn saturating_level_fractions(
    levels: &[DncLevelCosts],
    beta_e_s: f64,
    beta_f_s: f64,
) -> Result<Vec<f64>, ModelError> {
    validate(levels, beta_e_s, beta_f_s)?;
    let (s, fwd) = saturating_unchecked(levels, beta_e_s, beta_f_s);
    let n = s.len();
    let total = s[n - 1];
    // rate: tasks/s (of the level's own size) entering one subtree rooted at level i + 1.
    let mut rate = total;
    let mut out = vec![0.0; n];
    for i in (0..n).rev() {
        let forwarded = rate.min(fwd[i]);
        out[i] = (rate - forwarded) / total;
        rate = forwarded;
    }
    Ok(out)
}

/// Start-up cost of an `N`-level divide and conquer (§3.3.2):
/// `T_startup = Σ_{i=2}^{N} (2 T_τ(i) + T_s(i) + T_j(i) + β_f) + T_e(1) + β_e`.
pub fn startup_s(
    levels: &[DncLevelCosts],
    beta_e_s: f64,
    beta_f_s: f64,
) -> Result<f64, ModelError> {
    validate(levels, beta_e_s, beta_f_s)?;
    Ok(levels[1..]
        .iter()
        .map(|l| 2.0 * l.tau_s + l.forward_s(beta_f_s))
        .sum::<f64>()
        + levels[0].te_s
        + beta_e_s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::farm::{FarmCosts, throughput_by_level_per_s as farm_by_level};
    use crate::tree::TreeShape;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * a.abs().max(b.abs()).max(1e-300)
    }

    fn level(te_s: f64, ts_s: f64, tj_s: f64, tau_s: f64) -> DncLevelCosts {
        DncLevelCosts {
            te_s,
            ts_s,
            tj_s,
            tau_s,
        }
    }

    // Two levels: leaves T_e(1) = 0.5; root T_e(2) = 1, T_s = T_j = 0.1, T_τ(2) = 0.05;
    // β_e = 0.1, β_f = 0.2.
    fn hand() -> Vec<DncLevelCosts> {
        vec![level(0.5, 0.0, 0.0, 0.0), level(1.0, 0.1, 0.1, 0.05)]
    }

    #[test]
    fn recurrence_matches_hand_computation() {
        // S_1 = 1/0.6 = 5/3; S_2 = (5/3)(1.1 − 0.4)/1.1 + 1/1.1 = 35/33 + 30/33 = 65/33.
        let s = throughput_by_level_per_s(&hand(), 0.1, 0.2).unwrap();
        assert!(close(s[0], 5.0 / 3.0, 1e-15));
        assert!(close(s[1], 65.0 / 33.0, 1e-15));
        // (k): t_max = 0.2, S_max = 1/0.4 = 2.5 > S_1, so the paper's rule gives S_2.
        assert!(close(
            throughput_limit_per_s(&hand(), 0.2).unwrap(),
            2.5,
            1e-15
        ));
        assert!(close(
            paper_throughput_per_s(&hand(), 0.1, 0.2).unwrap(),
            65.0 / 33.0,
            1e-15
        ));
        // f_1 = S_1/S_2 = 11/13, f_2 = 2/13.
        let f = level_fractions(&hand(), 0.1, 0.2).unwrap();
        assert!(close(f[0], 11.0 / 13.0, 1e-14) && close(f[1], 2.0 / 13.0, 1e-14));
        // Start-up: (2·0.05 + 0.1 + 0.1 + 0.2) + 0.5 + 0.1 = 1.1.
        assert!(close(startup_s(&hand(), 0.1, 0.2).unwrap(), 1.1, 1e-15));
    }

    #[test]
    fn without_split_and_join_it_is_the_farm_chain() {
        // T_s = T_j = 0 and the same T_e on every level: (j) is (d) with k = 1.
        let levels = vec![level(1e-3, 0.0, 0.0, 0.0); 6];
        let s = throughput_by_level_per_s(&levels, 5e-5, 1e-4).unwrap();
        let farm = farm_by_level(
            TreeShape { k: 1, levels: 6 },
            &FarmCosts {
                te_s: 1e-3,
                beta_e_s: 5e-5,
                beta_f_s: 1e-4,
            },
        )
        .unwrap();
        for (a, b) in s.iter().zip(&farm) {
            assert!(close(*a, *b, 1e-14));
        }
    }

    #[test]
    fn fractions_sum_to_one() {
        let levels = even_split_levels(2, 6, level(64e-3, 2e-3, 2e-3, 1e-3)).unwrap();
        for (be, bf) in [(5e-5, 1e-4), (0.0, 0.0), (1e-3, 1e-5)] {
            let f = level_fractions(&levels, be, bf).unwrap();
            assert!(close(f.iter().sum(), 1.0, 1e-12), "{f:?}");
            let g = saturating_level_fractions(&levels, be, bf).unwrap();
            assert!(close(g.iter().sum(), 1.0, 1e-12), "{g:?}");
            assert!(g.iter().all(|x| *x >= 0.0));
        }
    }

    #[test]
    fn saturating_model_equals_j_when_unsaturated_and_s_max_when_leaves_are_fast() {
        let s = saturating_throughput_by_level_per_s(&hand(), 0.1, 0.2).unwrap();
        assert!(close(s[1], 65.0 / 33.0, 1e-15));
        assert_eq!(
            saturating_level_fractions(&hand(), 0.1, 0.2).unwrap(),
            level_fractions(&hand(), 0.1, 0.2).unwrap()
        );
        // Uniform split/join 0.3, β_f = 0.2: S_max = 2. Leaves T_e(1) = 0.2, β_e = 0.1:
        // S_1 = 1/0.3 ≥ S_max, so the paper's rule gives S_max, and so does saturation.
        let levels = vec![
            level(0.2, 0.0, 0.0, 0.0),
            level(1.0, 0.15, 0.15, 0.0),
            level(2.0, 0.15, 0.15, 0.0),
        ];
        let s_max = throughput_limit_per_s(&levels, 0.2).unwrap();
        assert!(close(s_max, 2.0, 1e-15));
        assert!(close(
            paper_throughput_per_s(&levels, 0.1, 0.2).unwrap(),
            2.0,
            1e-15
        ));
        let s = saturating_throughput_by_level_per_s(&levels, 0.1, 0.2).unwrap();
        assert!(close(s[2], 2.0, 1e-15));
        // …whereas (j) alone overshoots the limit: S_2 = (10/3)(0.6/1.1) + 1/1.1 = 30/11 and
        // S_3 = (30/11)(1.6/2.1) + 1/2.1 ≈ 2.554, with a negative share f_2 ∝ S_2 − S_1 < 0.
        let j = throughput_by_level_per_s(&levels, 0.1, 0.2).unwrap();
        assert!(close(j[1], 30.0 / 11.0, 1e-14) && j[2] > s_max);
        assert!(level_fractions(&levels, 0.1, 0.2).unwrap()[1] < 0.0);
    }

    #[test]
    fn saturated_root_sends_the_supply_as_deep_as_it_goes() {
        // Leaves: S_1 = 1/(0.5 + 0.1) = 5/3. Level 2: σ = 0.3, forwards min(5/3, 10/3) = 5/3,
        // S_2 = 5/3 + (1 − 0.3·5/3)/1.1 = 70/33. Root: σ = 0.5 caps forwarding at 2 < 70/33,
        // so S_3 = 2 with no time left to execute.
        let levels = vec![
            level(0.5, 0.0, 0.0, 0.0),
            level(1.0, 0.05, 0.05, 0.0),
            level(2.0, 0.15, 0.15, 0.0),
        ];
        let s = saturating_throughput_by_level_per_s(&levels, 0.1, 0.2).unwrap();
        assert!(close(s[1], 70.0 / 33.0, 1e-14) && close(s[2], 2.0, 1e-15));
        // Priority to splitting: the root splits all 2/s; each level-2 processor receives
        // 2/s, splits the 5/3 its leaves absorb and executes 1/3: f = (5/6, 1/6, 0).
        // (Equal idling below the root would have given f_2 = 3/14.)
        let f = saturating_level_fractions(&levels, 0.1, 0.2).unwrap();
        assert!(close(f[0], 5.0 / 6.0, 1e-14), "{f:?}");
        assert!(close(f[1], 1.0 / 6.0, 1e-14), "{f:?}");
        assert_eq!(f[2], 0.0);
    }

    #[test]
    fn even_split_and_errors() {
        let l = even_split_levels(2, 3, level(8.0, 4.0, 2.0, 1.0)).unwrap();
        assert_eq!(l[0], level(2.0, 1.0, 0.5, 0.25));
        assert_eq!(l[2], level(8.0, 4.0, 2.0, 1.0));
        assert_eq!(even_split_levels(0, 3, l[0]), Err(ModelError::ZeroArity));
        assert_eq!(
            throughput_by_level_per_s(&[], 0.0, 0.0),
            Err(ModelError::ZeroLevels)
        );
        assert!(matches!(
            startup_s(&[level(1.0, -1.0, 0.0, 0.0)], 0.0, 0.0),
            Err(ModelError::InvalidDuration { name: "ts_s", .. })
        ));
        assert!(matches!(
            throughput_limit_per_s(&[level(0.0, 0.0, 0.0, 0.0)], 0.0),
            Err(ModelError::NonPositiveWork { .. })
        ));
        assert_eq!(
            throughput_limit_per_s(&[level(1.0, 0.0, 0.0, 0.0)], 0.1),
            Ok(f64::INFINITY)
        );
    }
}
