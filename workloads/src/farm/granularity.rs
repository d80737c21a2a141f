//! Uses of the model from §5: the effect of granularity (Figure 5) and the peak operating
//! point (Figure 4).

use serde::Serialize;

use super::ModelError;
use super::config::{FarmModel, FarmTopology};
use crate::tree::TreeShape;

fn shape_of(model: &FarmModel, what: &'static str) -> Result<TreeShape, ModelError> {
    match &model.topology {
        FarmTopology::Tree(shape) => Ok(*shape),
        FarmTopology::Parents { .. } => Err(ModelError::NeedsTreeShape(what)),
    }
}

fn with(model: &FarmModel, shape: TreeShape, granularity: u32) -> FarmModel {
    FarmModel {
        topology: FarmTopology::Tree(shape),
        granularity,
        ..model.clone()
    }
}

/// Speedup with start-up included as a function of granularity `g` and levels `N` (Figure 5):
/// `result[a][b]` is the speedup of `base` with `granularities[a]` tasks per message on
/// `levels[b]` levels of its tree shape (arity kept). See [`FarmModel::predict`] for how a
/// message of `g` tasks is costed: `g T_e` compute, `g T_τ` transfer, one `β_e` or `β_f`.
pub fn speedup_surface(
    base: &FarmModel,
    granularities: &[u32],
    levels: &[u32],
) -> Result<Vec<Vec<f64>>, ModelError> {
    let shape = shape_of(base, "speedup_surface")?;
    granularities
        .iter()
        .map(|&g| {
            levels
                .iter()
                .map(|&n| {
                    with(base, TreeShape { levels: n, ..shape }, g)
                        .predict()
                        .map(|p| p.speedup)
                })
                .collect()
        })
        .collect()
}

/// The peak operating point of §5 / Figure 4.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PeakOperatingPoint {
    /// `N*`: levels at the peak operating point.
    pub levels: u32,
    /// Processors in an `N*`-level tree of the base arity.
    pub processors: u64,
    /// Speedup at `N*` (start-up included).
    pub speedup: f64,
    /// `η(N*)`, the marginal efficiency of growing to `N* + 1` levels (`None` if the search
    /// stopped at `max_levels` without the criterion being met).
    pub next_marginal_efficiency: Option<f64>,
}

/// The level count beyond which adding processors stops increasing the speedup substantially.
///
/// **Criterion.** With `P(N)` the processors of an `N`-level tree of the base arity and
/// `SP(N)` the predicted speedup (start-up included, [`FarmModel::predict`]), the *marginal
/// efficiency* of growing from `N` to `N + 1` levels is
/// `η(N) = (SP(N+1) − SP(N)) / (P(N+1) − P(N))` — the speedup each added processor buys; an
/// ideal machine has `η = 1`. The peak operating point `N*` is the smallest `N` in
/// `1 ..= max_levels − 1` with `η(N) < min_marginal_efficiency`; if there is none, `N* =
/// max_levels` and `next_marginal_efficiency` is `None`. A threshold of e.g. `0.1` reads
/// "stop when ten more processors buy less than one processor's worth of speedup". (Speedup
/// relative to the *previous* speedup would not do: even an ideal chain gains only `1/N`.)
pub fn peak_operating_point(
    base: &FarmModel,
    max_levels: u32,
    min_marginal_efficiency: f64,
) -> Result<PeakOperatingPoint, ModelError> {
    let shape = shape_of(base, "peak_operating_point")?;
    if max_levels == 0 {
        return Err(ModelError::ZeroLevels);
    }
    if !(min_marginal_efficiency.is_finite() && min_marginal_efficiency > 0.0) {
        return Err(ModelError::InvalidParameter {
            name: "min_marginal_efficiency (must be > 0)",
            value: min_marginal_efficiency,
        });
    }
    let at = |n: u32| -> Result<(u64, f64), ModelError> {
        let s = TreeShape { levels: n, ..shape };
        Ok((
            s.processors(),
            with(base, s, base.granularity).predict()?.speedup,
        ))
    };
    let (mut p, mut sp) = at(1)?;
    for n in 1..max_levels {
        let (p_next, sp_next) = at(n + 1)?;
        let eta = (sp_next - sp) / (p_next - p) as f64;
        if eta < min_marginal_efficiency {
            return Ok(PeakOperatingPoint {
                levels: n,
                processors: p,
                speedup: sp,
                next_marginal_efficiency: Some(eta),
            });
        }
        (p, sp) = (p_next, sp_next);
    }
    Ok(PeakOperatingPoint {
        levels: max_levels,
        processors: p,
        speedup: sp,
        next_marginal_efficiency: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(te_s: f64, beta_f_s: f64, tasks_m: u64) -> FarmModel {
        FarmModel {
            topology: FarmTopology::Tree(TreeShape { k: 1, levels: 1 }),
            te_s,
            beta_e_s: 0.0,
            beta_f_s,
            tau_s: 0.0,
            tasks_m,
            granularity: 1,
        }
    }

    #[test]
    fn peak_matches_hand_computation() {
        // T_e = 1, β_e = 0, β_f = 0.5: S_N = 2(1 − 2^{−N}) = 1, 1.5, 1.75, 1.875 …; with
        // M = 10^9 the start-up is negligible and SP(N) ≈ S_N T_e, so η(1) = 0.5,
        // η(2) = 0.25, η(3) = 0.125. With threshold 0.2 the peak is N* = 3.
        let m = chain(1.0, 0.5, 1_000_000_000);
        let peak = peak_operating_point(&m, 20, 0.2).unwrap();
        assert_eq!(peak.levels, 3);
        assert_eq!(peak.processors, 3);
        assert!((peak.speedup - 1.75).abs() < 1e-6, "{peak:?}");
        assert!((peak.next_marginal_efficiency.unwrap() - 0.125).abs() < 1e-6);
        // Threshold 0.3 stops one level earlier (η(2) = 0.25 < 0.3).
        assert_eq!(peak_operating_point(&m, 20, 0.3).unwrap().levels, 2);
        // Ideal machine: never below threshold.
        let ideal = chain(1.0, 0.0, 1_000_000_000);
        let peak = peak_operating_point(&ideal, 10, 0.5).unwrap();
        assert_eq!(peak.levels, 10);
        assert_eq!(peak.next_marginal_efficiency, None);
    }

    #[test]
    fn peak_grows_with_task_size_as_in_figure_4() {
        // Larger T_e ⇒ better computation/overhead ratio ⇒ larger optimal N (§5).
        let peaks: Vec<u32> = [1e-3, 5e-3, 10e-3]
            .iter()
            .map(|te| {
                let mut m = chain(*te, 1e-4, 2000);
                m.beta_e_s = 5e-5;
                m.tau_s = 2e-5;
                peak_operating_point(&m, 200, 0.1).unwrap().levels
            })
            .collect();
        assert!(peaks[0] < peaks[1] && peaks[1] < peaks[2], "{peaks:?}");
    }

    #[test]
    fn granularity_has_an_interior_optimum_as_in_figure_5() {
        // Small g pays a start-up per task; large g has long start-up and few messages.
        let m = FarmModel {
            beta_e_s: 3e-4,
            tau_s: 1e-4,
            ..chain(1e-3, 3e-4, 400)
        };
        let gs: Vec<u32> = (1..=64).collect();
        let surface = speedup_surface(&m, &gs, &[8]).unwrap();
        let column: Vec<f64> = surface.iter().map(|row| row[0]).collect();
        let best = column
            .iter()
            .enumerate()
            .fold(0, |b, (i, v)| if *v > column[b] { i } else { b });
        assert!(best > 0 && best < gs.len() - 1, "best g = {}", gs[best]);
        assert!(column[best] > column[0] && column[best] > column[63]);
    }

    #[test]
    fn parents_topology_is_rejected() {
        let m = FarmModel {
            topology: FarmTopology::Parents {
                parents: vec![None],
                processor_te_s: None,
            },
            ..chain(1.0, 0.0, 1)
        };
        assert!(matches!(
            peak_operating_point(&m, 3, 0.1),
            Err(ModelError::NeedsTreeShape(_))
        ));
        assert!(matches!(
            speedup_surface(&m, &[1], &[1]),
            Err(ModelError::NeedsTreeShape(_))
        ));
    }
}
