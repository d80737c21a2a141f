//! Efficiency against grain at P = the largest: where the runtime, rayon, scoped threads and
//! the model each reach 50 % and 90 % efficiency. The native counterpart of the grain-size
//! teaching page: the total work is kept ([`Workload::at_grain`]), so only the grain — the
//! work between two scheduling events — changes.

use std::cell::OnceCell;

use multicomputer_runtime::Machine;
use rayon::ThreadPool;
use serde::Serialize;

use crate::speedup::error::SpeedupError;
use crate::speedup::kernel::Workload;
use crate::speedup::model::{ModelFit, Observation, WorkCosts, predict_s};
use crate::speedup::plan::SpeedupPlan;
use crate::speedup::rounds::{Bench, Timing, time_sequential};
use crate::speedup::spread::Spread;

/// A variant's efficiency at a grain, if known.
type Efficiency = fn(&GrainPoint) -> Option<f64>;

/// The efficiencies at which the sweep reports its thresholds.
pub const EFFICIENCY_TARGETS: [f64; 2] = [0.5, 0.9];

/// One grain of the sweep.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GrainPoint {
    /// The grain.
    pub grain: u64,
    /// Tasks at this grain (the total work kept).
    pub tasks: u64,
    /// The sequential program's time of one task (for OCL, of one packet's outputs), seconds:
    /// its median time over the units of scheduling ([`Workload::units`]).
    pub task_s: f64,
    /// The sequential program's wall time, seconds.
    pub sequential_s: Spread,
    /// The runtime.
    pub runtime: Timing,
    /// Rayon.
    pub rayon: Timing,
    /// Scoped threads.
    pub scoped: Timing,
    /// The model's efficiency.
    pub model_efficiency: Option<f64>,
}

/// Where one variant first reaches an efficiency.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Threshold {
    /// `runtime`, `rayon`, `scoped threads` or `model`.
    pub who: &'static str,
    /// The efficiency (0.5, 0.9).
    pub efficiency: f64,
    /// The grain, interpolated (log-linearly) between the grid's grains; `None` when not
    /// reached at the largest.
    pub grain: Option<f64>,
    /// The sequential time of a task at that grain, seconds.
    pub task_s: Option<f64>,
    /// Reached already at the smallest grain: the threshold is at most this.
    pub at_most: bool,
}

/// A grain sweep.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GrainSweep {
    /// P.
    pub processors: usize,
    /// Per grain, ascending.
    pub points: Vec<GrainPoint>,
    /// Where each variant reaches each target efficiency.
    pub thresholds: Vec<Threshold>,
}

/// The smallest grain from which on `efficiency` stays at or above `target`, interpolated
/// log-linearly between the last grain below and the first above (in grain and in task
/// time); `points` are `(grain, task time, efficiency)` in ascending grain.
pub fn threshold(points: &[(f64, f64, f64)], target: f64) -> (Option<f64>, Option<f64>, bool) {
    let Some(last) = points.last() else {
        return (None, None, false);
    };
    if last.2 < target {
        return (None, None, false);
    }
    // The first index of the run of points at or above the target that reaches the end.
    let first = points
        .iter()
        .rposition(|p| p.2 < target)
        .map_or(0, |i| i + 1);
    if first == 0 {
        return (Some(points[0].0), Some(points[0].1), true);
    }
    let (a, b) = (points[first - 1], points[first]);
    let t = (target - a.2) / (b.2 - a.2);
    let lerp_log = |x: f64, y: f64| (x.ln() + t * (y.ln() - x.ln())).exp();
    (Some(lerp_log(a.0, b.0)), Some(lerp_log(a.1, b.1)), false)
}

/// Runs the sweep of `plan` over `grains` at its largest P: the sweep (its model's
/// efficiencies and the thresholds still to come, see [`GrainSweep::predict`]) and the
/// runtime's median times as observations for the model's fit.
pub(crate) fn sweep_grains(
    plan: &SpeedupPlan,
    grains: &[u64],
    pools: &[(usize, ThreadPool)],
    machines: &[Machine],
    step: &mut dyn FnMut(&str),
) -> Result<(GrainSweep, Vec<Observation>), SpeedupError> {
    let p = plan.max_processors();
    let mut grains = grains.to_vec();
    grains.sort_unstable();
    grains.dedup();
    let mut points = Vec::with_capacity(grains.len());
    let mut observations = Vec::with_capacity(grains.len());
    for &g in &grains {
        let workload: Workload = plan.workload.at_grain(g);
        workload.check(&[p])?;
        let inputs = workload.inputs()?;
        let (reference, _) = time_sequential(&workload, &inputs)?;
        let bench = Bench {
            workload: workload.clone(),
            inputs,
            reference,
            pools,
            machines,
            runtime: OnceCell::new(),
        };
        let mut rounds = Vec::with_capacity(plan.rounds);
        for r in 0..plan.warmup + plan.rounds {
            let round = bench.round(r, &[p], step)?;
            if r >= plan.warmup {
                rounds.push(round);
            }
        }
        let seq: Vec<f64> = rounds.iter().map(|r| r.sequential_s).collect();
        let col = |f: fn(&crate::speedup::rounds::AtP) -> f64| -> Vec<f64> {
            rounds.iter().map(|r| f(&r.at[0])).collect()
        };
        let missing = || SpeedupError::Mismatch {
            variant: "a measurement (none finite)",
            processors: p,
            grain: g,
        };
        let sequential_s = Spread::of(&seq).ok_or_else(missing)?;
        let costs = WorkCosts::measure(&workload, &bench.inputs, sequential_s.median, &[p])?;
        observations.push(Observation {
            workload: workload.clone(),
            costs,
            processors: p,
            wall_s: Spread::of(&col(|a| a.runtime_s))
                .ok_or_else(missing)?
                .median,
        });
        points.push(GrainPoint {
            grain: g,
            tasks: workload.tasks,
            task_s: sequential_s.median / workload.units() as f64,
            sequential_s,
            runtime: Timing::of(&col(|a| a.runtime_s), &seq, p).ok_or_else(missing)?,
            rayon: Timing::of(&col(|a| a.rayon_s), &seq, p).ok_or_else(missing)?,
            scoped: Timing::of(&col(|a| a.scoped_s), &seq, p).ok_or_else(missing)?,
            model_efficiency: None,
        });
    }
    let mut sweep = GrainSweep {
        processors: p,
        points,
        thresholds: Vec::new(),
    };
    sweep.thresholds = sweep.thresholds_of_all();
    Ok((sweep, observations))
}

impl GrainSweep {
    /// Fills in the model's efficiency at every grain with the overheads of `fitted` (the
    /// `observations` are the sweep's own, in its order), and the thresholds.
    pub(crate) fn predict(
        &mut self,
        fitted: &ModelFit,
        observations: &[Observation],
    ) -> Result<(), SpeedupError> {
        let p = self.processors;
        for (point, o) in self.points.iter_mut().zip(observations) {
            let t = predict_s(&o.workload, &o.costs, fitted.overheads, p)?;
            point.model_efficiency = Some(point.sequential_s.median / (p as f64 * t));
        }
        self.thresholds = self.thresholds_of_all();
        Ok(())
    }

    /// Where each variant (and the model, once predicted) reaches each target efficiency.
    fn thresholds_of_all(&self) -> Vec<Threshold> {
        let mut thresholds = Vec::new();
        let series: [(&'static str, Efficiency); 4] = [
            ("runtime", |g| Some(g.runtime.efficiency)),
            ("rayon", |g| Some(g.rayon.efficiency)),
            ("scoped threads", |g| Some(g.scoped.efficiency)),
            ("model", |g| g.model_efficiency),
        ];
        for (who, efficiency) in series {
            let pts: Option<Vec<(f64, f64, f64)>> = self
                .points
                .iter()
                .map(|g| Some((g.grain as f64, g.task_s, efficiency(g)?)))
                .collect();
            let Some(pts) = pts else { continue };
            for target in EFFICIENCY_TARGETS {
                let (grain, task_s, at_most) = threshold(&pts, target);
                thresholds.push(Threshold {
                    who,
                    efficiency: target,
                    grain,
                    task_s,
                    at_most,
                });
            }
        }
        thresholds
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_interpolate_in_log_grain_and_say_when_out_of_range() {
        let pts = [(10.0, 1e-6, 0.2), (100.0, 1e-5, 0.6), (1000.0, 1e-4, 0.95)];
        // 0.5 lies between 10 (0.2) and 100 (0.6), three quarters of the way: 10^1.75.
        let (g, t, at_most) = threshold(&pts, 0.5);
        assert!((g.unwrap() - 10f64.powf(1.75)).abs() < 1e-9);
        assert!((t.unwrap() - 10f64.powf(-5.25)).abs() < 1e-15);
        assert!(!at_most);
        // 0.9: between 100 and 1000, 6/7 of the way.
        let (g, _, _) = threshold(&pts, 0.9);
        assert!((g.unwrap() - 10f64.powf(2.0 + 6.0 / 7.0)).abs() < 1e-9);
        // Never reached; reached everywhere.
        assert_eq!(threshold(&pts, 0.99), (None, None, false));
        assert_eq!(threshold(&pts, 0.1), (Some(10.0), Some(1e-6), true));
        // A dip below the target at a larger grain: the threshold is after the dip.
        let dip = [(1.0, 1.0, 0.95), (2.0, 2.0, 0.5), (4.0, 4.0, 0.92)];
        let (g, _, _) = threshold(&dip, 0.9);
        assert!(g.unwrap() > 2.0 && g.unwrap() < 4.0);
    }
}
