//! The data of the farm paper's Figures 4 and 5 for one tree family: speedup against the
//! number of processors for `T_e`, `5 T_e` and `10 T_e` (Figure 4, whose maxima are the
//! peaks the figure shows), and speedup against granularity `g` for several machine sizes
//! (Figure 5).
//!
//! With start-up included, (g) makes the speedup of a fixed number of tasks rise with the
//! processors and then fall, as every added level lengthens the start-up
//! `(N − 1)(2T_τ + β_f)` while the throughput saturates near `1/β_f`. Figure 4's range is
//! chosen here so that every curve's maximum lies inside it.

use serde::Serialize;

use super::ModelError;
use super::config::{FarmModel, FarmTopology};
use crate::tree::TreeShape;

/// The longest chain drawn.
pub const FIGURE_CHAIN_LEVELS: u32 = 1024;
/// Processors of the largest tree drawn (about 2^20).
const FIGURE_TREE_PROCESSORS_LOG2: u32 = 20;

/// One point of a speedup curve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CurvePoint {
    /// Levels `N` of the tree (processors of a chain).
    pub levels: u32,
    /// Processors of an `N`-level tree of the family's arity.
    pub processors: u64,
    /// Predicted speedup, start-up included.
    pub speedup: f64,
}

/// Figure 4's curve for one task time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpeedupCurve {
    /// Task time `T_e` of this curve, seconds.
    pub te_s: f64,
    /// The curve, by levels.
    pub points: Vec<CurvePoint>,
    /// The largest speedup, if the curve falls after it within the range drawn (`None`: still
    /// rising at the range's end).
    pub peak: Option<CurvePoint>,
}

/// Figure 5's curve for one machine size.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GranularityCurve {
    /// Levels `N`.
    pub levels: u32,
    /// Processors.
    pub processors: u64,
    /// `(g, speedup)`.
    pub points: Vec<(u32, f64)>,
}

fn shape_of(model: &FarmModel) -> Result<TreeShape, ModelError> {
    match &model.topology {
        FarmTopology::Tree(shape) => Ok(*shape),
        FarmTopology::Parents { .. } => Err(ModelError::NeedsTreeShape("the farm's figures")),
    }
}

fn at(
    model: &FarmModel,
    shape: TreeShape,
    levels: u32,
    te_s: f64,
    g: u32,
) -> Result<CurvePoint, ModelError> {
    let s = TreeShape { levels, ..shape };
    let m = FarmModel {
        topology: FarmTopology::Tree(s),
        te_s,
        granularity: g,
        ..model.clone()
    };
    Ok(CurvePoint {
        levels,
        processors: s.processors(),
        speedup: m.predict()?.speedup,
    })
}

/// The most levels a figure of this family draws: 1024 for a chain, about a million
/// processors for a tree.
pub fn max_levels(k: u32) -> u32 {
    if k == 1 {
        FIGURE_CHAIN_LEVELS
    } else {
        (FIGURE_TREE_PROCESSORS_LOG2 / k.ilog2().max(1)).max(1)
    }
}

/// Figure 4: for each factor `f` in `factors`, the speedup of `model` with `T_e·f` against the
/// levels of its tree family. The range runs to a third beyond the last curve's peak (at
/// least 32 levels for a chain), within [`max_levels`]; each curve's peak is marked.
pub fn figure4(model: &FarmModel, factors: &[f64]) -> Result<Vec<SpeedupCurve>, ModelError> {
    let shape = shape_of(model)?;
    let limit = max_levels(shape.k);
    // 1. Each curve's peak: scan until a third past the best so far (a chain), or the limit.
    let mut last_peak = 1;
    for &f in factors {
        let te_s = model.te_s * f;
        let mut best: Option<CurvePoint> = None;
        for n in 1..=limit {
            let p = at(model, shape, n, te_s, model.granularity)?;
            if best.is_none_or(|b| p.speedup > b.speedup) {
                best = Some(p);
            }
            let b = best.map_or(n, |b| b.levels);
            if shape.k == 1 && n >= 32 && f64::from(n) >= 1.34 * f64::from(b) {
                break;
            }
        }
        last_peak = last_peak.max(best.map_or(limit, |b| b.levels));
    }
    // 2. One range for all: a third beyond the last peak (at least 32 levels for a chain).
    let end = if shape.k == 1 {
        ((f64::from(last_peak) * 4.0 / 3.0).ceil() as u32).clamp(32, limit)
    } else {
        limit
    };
    factors
        .iter()
        .map(|&f| {
            let te_s = model.te_s * f;
            let points = (1..=end)
                .map(|n| at(model, shape, n, te_s, model.granularity))
                .collect::<Result<Vec<_>, _>>()?;
            let best = points
                .iter()
                .copied()
                .reduce(|b, p| if p.speedup > b.speedup { p } else { b });
            let peak = best.filter(|b| b.levels < end);
            Ok(SpeedupCurve { te_s, points, peak })
        })
        .collect()
}

/// Figure 5: the speedup of `model` against `granularities`, for the sizes of its family
/// whose levels are a power of two, and the largest of `max_levels`.
pub fn figure5(
    model: &FarmModel,
    granularities: &[u32],
) -> Result<Vec<GranularityCurve>, ModelError> {
    let shape = shape_of(model)?;
    let top = if shape.k == 1 {
        32
    } else {
        max_levels(shape.k)
    };
    (1..=top)
        .filter(|n| n.is_power_of_two() || *n == top)
        .map(|n| {
            let points = granularities
                .iter()
                .map(|&g| Ok((g, at(model, shape, n, model.te_s, g)?.speedup)))
                .collect::<Result<Vec<_>, ModelError>>()?;
            Ok(GranularityCurve {
                levels: n,
                processors: TreeShape { levels: n, ..shape }.processors(),
                points,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(te_s: f64) -> FarmModel {
        FarmModel {
            topology: FarmTopology::Tree(TreeShape { k: 1, levels: 4 }),
            te_s,
            beta_e_s: 50e-6,
            beta_f_s: 100e-6,
            tau_s: 0.0,
            tasks_m: 1000,
            granularity: 1,
        }
    }

    #[test]
    fn figure4_reaches_and_marks_every_peak() {
        let curves = figure4(&chain(1e-3), &[1.0, 5.0, 10.0]).unwrap();
        assert_eq!(curves.len(), 3);
        for c in &curves {
            let peak = c.peak.expect("a peak inside the range");
            let best = c.points.iter().fold(f64::MIN, |m, p| m.max(p.speedup));
            assert_eq!(peak.speedup, best);
            // Falling after it, inside the range.
            let last = c.points.last().unwrap();
            assert!(last.levels > peak.levels && last.speedup < peak.speedup);
        }
        // Longer tasks peak on more processors (start-up weighs less against them).
        assert!(curves[0].peak.unwrap().levels < curves[1].peak.unwrap().levels);
        assert!(curves[1].peak.unwrap().levels < curves[2].peak.unwrap().levels);
        // All curves share the range, which passes the last peak by about a third.
        let n = curves[0].points.len();
        assert!(curves.iter().all(|c| c.points.len() == n));
        assert!(n as f64 >= 1.3 * f64::from(curves[2].peak.unwrap().levels));
    }

    #[test]
    fn the_peak_is_the_maximum_of_the_model_nearby() {
        // On each side of the peak the model's speedup is lower.
        let m = chain(5e-3);
        let c = &figure4(&m, &[1.0]).unwrap()[0];
        let p = c.peak.unwrap();
        let shape = TreeShape { k: 1, levels: 1 };
        for n in [p.levels - 1, p.levels + 1] {
            assert!(at(&m, shape, n, m.te_s, 1).unwrap().speedup <= p.speedup);
        }
    }

    #[test]
    fn figure5_has_power_of_two_sizes_and_every_granularity() {
        let curves = figure5(&chain(1e-3), &[1, 2, 4]).unwrap();
        let levels: Vec<u32> = curves.iter().map(|c| c.levels).collect();
        assert_eq!(levels, vec![1, 2, 4, 8, 16, 32]);
        assert!(curves.iter().all(|c| c.points.len() == 3));
    }

    #[test]
    fn parent_relations_have_no_figures() {
        let mut m = chain(1e-3);
        m.topology = FarmTopology::Parents {
            parents: vec![None, Some(0)],
            processor_te_s: None,
        };
        assert!(figure4(&m, &[1.0]).is_err());
    }
}
