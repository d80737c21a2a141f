//! A farm measured beside its model: one experiment ([`FarmExperiment`]) runs the program on a
//! machine, checks it against the sequential reference, measures what the model predicts
//! (throughput, speedup, makespan, start-up, per-level fractions `f_i`) and compares them
//! ([`FarmComparison`]), with the drain at the end that (g) leaves out for random task times
//! ([`Drain`]).
//!
//! Every number a report of a farm shows is computed here; the command line only renders.
//!
//! ```
//! use std::time::Duration;
//! use multicomputer_runtime::{Machine, MachineConfig, TimeMode, Topology};
//! use multicomputer_workloads::farm::{FarmExperiment, FarmSpec};
//!
//! let experiment = FarmExperiment {
//!     spec: FarmSpec { tasks: 40, te: Duration::from_micros(500), ..FarmSpec::default() },
//!     beta_e: Duration::from_micros(50),
//!     beta_f: Duration::from_micros(100),
//!     queue: 1,
//!     guided: false,
//!     tau_s: 0.0,
//! };
//! let topology = Topology::chain(2)?;
//! let hints = experiment.hints(&topology)?;
//! let config = MachineConfig {
//!     mode: TimeMode::Dilated(1.0),
//!     capacity: hints.min_capacity,
//!     ..MachineConfig::default()
//! };
//! let c = experiment.run(&Machine::new(topology, config)?)?;
//! assert_eq!(c.processors, 2);
//! assert!((c.errors_pct.speedup - 100.0 * (c.measured.speedup / c.predicted.speedup - 1.0)).abs() < 1e-9);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::time::Duration;

use multicomputer_runtime::{Fidelity, Machine, Topology, Trace};
use serde::Serialize;
use thiserror::Error;

use super::ModelError;
use super::config::{FarmModel, FarmTopology, Prediction};
use super::drain::{drain_s, flood_fill_drain, speedup_error_with_drain_pct};
use super::granularity::{PeakOperatingPoint, peak_operating_point};
use super::model::TreeShape;
use super::program::{FarmError, FarmSpec, Kernel, TaskTimes, run, sequential_metered};
use super::tree::{ProcessorCosts, flood_fill_tree};
use crate::charging::Charger;
use crate::hints::{MachineHints, smallest_nonzero};
use crate::repetitions::{Quantities, mean_vector};
use crate::tree::{
    EngineConfig, EngineRun, engine_events_per_s, steady_throughput_per_s, throughput_per_s,
};

/// Longest chain searched for the peak operating point (Figure 4).
pub const PEAK_SEARCH_CHAIN_LEVELS: u32 = 1024;
/// Deepest tree searched for it (a binary tree of 16 levels has 65 535 processors).
pub const PEAK_SEARCH_TREE_LEVELS: u32 = 16;

/// One farm to run and compare: the program, the engine's overheads and flow control, and the
/// link cost the model charges per task.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FarmExperiment {
    /// The program: tasks, task times, kernel, granularity, sizes, seed.
    pub spec: FarmSpec,
    /// `β_e`: start-up overhead per locally executed message.
    pub beta_e: Duration,
    /// `β_f`: start-up overhead per forwarded message.
    pub beta_f: Duration,
    /// Queue of unprocessed tasks per processor (flood fill).
    pub queue: usize,
    /// Model-guided flow control: processor `i` forwards no more than the model's share of its
    /// subtree.
    pub guided: bool,
    /// `T_τ`: overlapped transfer time of one task's data over a link, seconds.
    pub tau_s: f64,
}

/// Why an experiment failed.
#[derive(Debug, Error)]
pub enum CompareError {
    /// The model refused the parameters.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The program refused the parameters, or the machine failed.
    #[error(transparent)]
    Run(#[from] FarmError),
    /// The run's values differ from the sequential reference (a bug).
    #[error("the {0}'s results differ from the sequential reference")]
    Mismatch(&'static str),
}

/// Measured quantities of a tree-engine run, with the same keys as the prediction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measured {
    /// (results − 1) / (last result − first result), tasks/s: the rate of (g).
    pub throughput_per_s: f64,
    /// Rate over the middle half of the results (steady state, no start-up or wind-down),
    /// tasks/s: the quantity `β_e` and `β_f` are fitted to.
    pub steady_throughput_per_s: f64,
    /// Sequential time over the makespan.
    pub speedup: f64,
    /// Emulated makespan, seconds.
    pub makespan_s: f64,
    /// Share of the tasks executed per level (index 0 = level 1, the leaves).
    pub fractions_by_level: Vec<f64>,
    /// Time of the first result at the root, seconds.
    pub startup_s: f64,
}

impl Measured {
    /// The measurement of an engine run on `topology`, with `g` tasks per result and a
    /// sequential time of `sequential_s` (the speedup's numerator).
    pub fn of<R>(run: &EngineRun<R>, topology: &Topology, g: f64, sequential_s: f64) -> Self {
        let times = &run.result_times;
        Self {
            throughput_per_s: throughput_per_s(times, g),
            steady_throughput_per_s: steady_throughput_per_s(times, g),
            speedup: sequential_s / run.report.makespan_s,
            makespan_s: run.report.makespan_s,
            fractions_by_level: run.fractions_by_level(topology),
            startup_s: times.first().map_or(f64::NAN, Duration::as_secs_f64),
        }
    }

    /// The mean of several runs' measurements, quantity by quantity (fractions level by
    /// level); `None` for no runs.
    pub fn mean(runs: &[Measured]) -> Option<Self> {
        if runs.is_empty() {
            return None;
        }
        let n = runs.len() as f64;
        let avg = |f: fn(&Measured) -> f64| runs.iter().map(f).sum::<f64>() / n;
        let fractions: Vec<&[f64]> = runs
            .iter()
            .map(|r| r.fractions_by_level.as_slice())
            .collect();
        Some(Self {
            throughput_per_s: avg(|m| m.throughput_per_s),
            steady_throughput_per_s: avg(|m| m.steady_throughput_per_s),
            speedup: avg(|m| m.speedup),
            makespan_s: avg(|m| m.makespan_s),
            fractions_by_level: mean_vector(&fractions),
            startup_s: avg(|m| m.startup_s),
        })
    }
}

impl Quantities for Measured {
    fn quantities(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("throughput_per_s", self.throughput_per_s),
            ("steady_throughput_per_s", self.steady_throughput_per_s),
            ("speedup", self.speedup),
            ("makespan_s", self.makespan_s),
            ("startup_s", self.startup_s),
        ]
    }
}

/// `100 (measured − predicted)/predicted`.
pub fn error_pct(measured: f64, predicted: f64) -> f64 {
    100.0 * (measured - predicted) / predicted
}

/// Relative errors of measured against predicted, in percent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Errors {
    /// Speedup.
    pub speedup: f64,
    /// Throughput of (g).
    pub throughput: f64,
    /// Steady-state throughput against the model's throughput.
    pub steady_throughput: f64,
    /// Makespan.
    pub makespan: f64,
    /// Per level: (measured − predicted) fraction, in percent of M.
    pub fractions_of_m: Vec<f64>,
}

impl Errors {
    /// The errors of `measured` against `predicted`.
    pub fn between(measured: &Measured, predicted: &Prediction) -> Self {
        Self {
            speedup: error_pct(measured.speedup, predicted.speedup),
            throughput: error_pct(measured.throughput_per_s, predicted.throughput_per_s),
            steady_throughput: error_pct(
                measured.steady_throughput_per_s,
                predicted.throughput_per_s,
            ),
            makespan: error_pct(measured.makespan_s, predicted.makespan_s),
            fractions_of_m: measured
                .fractions_by_level
                .iter()
                .zip(&predicted.fractions_by_level)
                .map(|(m, p)| 100.0 * (m - p))
                .collect(),
        }
    }

    /// The largest |fraction error|, percent of M.
    pub fn max_fraction_of_m(&self) -> f64 {
        self.fractions_of_m
            .iter()
            .fold(0.0_f64, |m, e| m.max(e.abs()))
    }
}

/// The end of a farm with random task times ([`super::drain_s`]): what (g) leaves out.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Drain {
    /// Processors that execute tasks (those that only forward hold none at the end).
    pub busy_processors: u64,
    /// Expected excess of the makespan over (g): `E[max_i R_i] − E[R]`.
    pub drain_s: f64,
    /// The speedup error against (g) of a run that has nothing but this drain, in percent (≤ 0).
    pub speedup_error_floor_pct: f64,
    /// The flood-fill protocol's own drain, sampled ([`super::flood_fill_drain`]): random
    /// times, flood fill without model guidance.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flood_fill: Option<FloodFillDrain>,
}

/// The flood-fill protocol's drain and the speedup error it implies against (g).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FloodFillDrain {
    /// Expected drain.
    pub drain_s: f64,
    /// Standard deviation of a single run's drain.
    pub drain_sd_s: f64,
    /// Expected speedup error against (g), percent.
    pub error_pct: f64,
    /// Standard deviation of a single run's speedup error, percent (to first order).
    pub error_sd_pct: f64,
    /// Samples behind the estimate (its standard error is `drain_sd_s/√samples`).
    pub samples: u32,
    /// Speedup predicted by (g) plus this drain: `M T_e / (T + drain)`.
    pub speedup: f64,
}

/// Samples for the flood-fill drain: 4000 (a standard error near 1.6 % of a run's scatter)
/// where the machine is small, fewer on deep machines, where each sample costs about
/// `slots × depth` steps, down to 200.
pub fn drain_samples(topology: &Topology) -> u32 {
    const BUDGET_STEPS: f64 = 2e8;
    let slots = 2 * topology.len();
    // The root's level is the longest path's length in processors.
    let path = topology.levels() as usize;
    (BUDGET_STEPS / (slots * path) as f64).clamp(200.0, 4000.0) as u32
}

impl Drain {
    /// The drain of a farm on `topology` predicted by `predicted`, with task times `times` of
    /// mean `te_msg_s` per message, flood fill with `queue` (or model guidance).
    pub fn new(
        topology: &Topology,
        predicted: &Prediction,
        times: TaskTimes,
        te_msg_s: f64,
        queue: usize,
        guided: bool,
    ) -> Result<Self, ModelError> {
        // A processor executes unless its level only forwards (f_i = 0, a saturated level);
        // one that only forwards holds no task in progress at the end.
        let executes: Vec<bool> = (0..topology.len())
            .map(|i| predicted.fractions_by_level[topology.level(i) as usize - 1] > 1e-9)
            .collect();
        let busy_processors = (executes.iter().filter(|&&e| e).count() as u64).max(1);
        let drain = drain_s(times, busy_processors, te_msg_s)?;
        let flood_fill = if times != TaskTimes::Constant && !guided {
            let d = flood_fill_drain(
                topology.parents(),
                &executes,
                queue as u64,
                times,
                te_msg_s,
                drain_samples(topology),
                1,
            )?;
            let t = predicted.makespan_s;
            // Error e(d) = 100 (T/(T + d) − 1); its slope 100 T/(T + d)² carries the scatter.
            let mean = d.mean_s.max(0.0);
            Some(FloodFillDrain {
                drain_s: d.mean_s,
                drain_sd_s: d.sd_s,
                error_pct: speedup_error_with_drain_pct(t, mean)?,
                error_sd_pct: 100.0 * t / (t + mean).powi(2) * d.sd_s,
                samples: d.samples,
                speedup: predicted.speedup * t / (t + mean),
            })
        } else {
            None
        };
        Ok(Self {
            busy_processors,
            drain_s: drain,
            speedup_error_floor_pct: speedup_error_with_drain_pct(predicted.makespan_s, drain)?,
            flood_fill,
        })
    }
}

/// Per-processor split limits from the model (model-guided flow control), in messages: each
/// processor forwards what its descendants execute.
pub fn guided_limits(topology: &Topology, model: &FarmModel) -> Result<Vec<u64>, ModelError> {
    let costs =
        vec![ProcessorCosts::farm(model.te_s * f64::from(model.granularity)); topology.len()];
    let solution = flood_fill_tree(topology.parents(), &costs, model.beta_e_s, model.beta_f_s)?;
    let messages = model.messages() as f64;
    let mut subtree = solution.fractions.clone();
    let mut order = vec![topology.root()];
    let mut i = 0;
    while i < order.len() {
        order.extend_from_slice(topology.children(order[i]));
        i += 1;
    }
    for &v in order.iter().rev() {
        if let Some(p) = topology.parent(v) {
            subtree[p] += subtree[v];
        }
    }
    Ok((0..topology.len())
        .map(|v| ((subtree[v] - solution.fractions[v]).max(0.0) * messages).round() as u64)
        .collect())
}

/// A farm measured beside its model.
#[derive(Debug, Clone, Serialize)]
pub struct FarmComparison {
    /// The machine's topology, as written on the command line.
    pub topology: String,
    /// Its processors.
    pub processors: usize,
    /// What was measured (the mean over the runs, for several).
    pub measured: Measured,
    /// What the model predicts (with the measured task time for a real kernel).
    pub predicted: Prediction,
    /// Speedup error, percent.
    pub error_pct: f64,
    /// Every error, percent.
    pub errors_pct: Errors,
    /// The drain at the end that (g) leaves out (synthetic kernel).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drain: Option<Drain>,
    /// What the run spent that the model leaves out, by name and size (a real kernel's
    /// divide and conquer: local execution on a level the model has only forwarding).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing_terms: Vec<MissingTerm>,
    /// How faithfully the host kept emulated time.
    pub fidelity: Fidelity,
    /// The time mode the machine ran in: `native`, `dilated` or `virtual`.
    pub mode: &'static str,
    /// The dilation factor D (none in virtual time).
    pub dilation: Option<f64>,
    /// Wall time of the run, seconds.
    pub wall_s: f64,
    /// The event trace, if the machine recorded one.
    #[serde(skip)]
    pub trace: Option<Trace>,
}

/// A cost the run paid on its critical path that the model does not have: its name, its size
/// and the speedup the model predicts with it added to the makespan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MissingTerm {
    /// What it is, in words.
    pub name: String,
    /// Its size: time added to the predicted makespan, seconds.
    pub time_s: f64,
    /// The model's speedup with it: `M T_e / (makespan + time_s)`.
    pub speedup: f64,
}

impl MissingTerm {
    /// The term `name` of `time_s` beside `predicted`.
    pub fn new(name: String, time_s: f64, predicted: &Prediction) -> Self {
        Self {
            name,
            time_s,
            speedup: predicted.speedup * predicted.makespan_s / (predicted.makespan_s + time_s),
        }
    }
}

impl FarmComparison {
    /// The measured speedup's error against the model with each missing term added, percent.
    pub fn errors_with_missing_terms_pct(&self) -> Vec<f64> {
        self.missing_terms
            .iter()
            .map(|t| error_pct(self.measured.speedup, t.speedup))
            .collect()
    }

    /// The speedup of (g) plus the flood-fill drain, and the measured speedup's error against
    /// it, percent (random times, flood fill only).
    pub fn error_with_drain_pct(&self) -> Option<f64> {
        let f = self.drain.as_ref()?.flood_fill.as_ref()?;
        Some(error_pct(self.measured.speedup, f.speedup))
    }
}

impl FarmExperiment {
    /// The seed of this farm's random draws, if it draws any: synthetic task times other than
    /// constant. (Repeated runs draw afresh from `seed + run index`.)
    pub fn seed(&self) -> Option<u64> {
        (self.spec.kernel == Kernel::Synthetic && self.spec.times != TaskTimes::Constant)
            .then_some(self.spec.seed)
    }

    /// This farm with its draws from `seed`.
    pub fn reseeded(&self, seed: u64) -> Self {
        let mut e = self.clone();
        e.spec.seed = seed;
        e
    }

    /// The model of this farm on `topology`, with the spec's `T_e`.
    pub fn model(&self, topology: &Topology) -> FarmModel {
        FarmModel {
            topology: FarmTopology::of(topology),
            te_s: self.spec.te.as_secs_f64(),
            beta_e_s: self.beta_e.as_secs_f64(),
            beta_f_s: self.beta_f.as_secs_f64(),
            tau_s: self.tau_s,
            tasks_m: self.spec.tasks as u64,
            granularity: u32::try_from(self.spec.granularity).unwrap_or(u32::MAX),
        }
    }

    fn real(&self) -> bool {
        matches!(self.spec.kernel, Kernel::Primes { .. })
    }

    /// What the machine's auto mode should know: the real kernel's compute share, the
    /// smallest emulated cost, the engine's expected wake-ups and the links' capacity, which
    /// must hold a processor's whole flood-fill window (queue + a request + a no-more).
    pub fn hints(&self, topology: &Topology) -> Result<MachineHints, ModelError> {
        let predicted = self.model(topology).predict()?;
        let g = self.spec.granularity as u32;
        Ok(MachineHints {
            compute_share: if self.real() { 1.0 } else { 0.0 },
            smallest_cost: smallest_nonzero(&[
                if self.real() {
                    Duration::ZERO
                } else {
                    self.spec.te.saturating_mul(g)
                },
                self.beta_e,
                self.beta_f,
            ]),
            events_per_s: engine_events_per_s(
                predicted.throughput_per_s / f64::from(g.max(1)),
                &predicted.fractions_by_level,
                |_| 1.0,
            ),
            min_capacity: self.queue.saturating_add(2),
        })
    }

    /// The drain of random task times on `topology` beside `predicted`; `None` for a real
    /// kernel, whose task times follow no distribution.
    pub fn drain(
        &self,
        topology: &Topology,
        predicted: &Prediction,
    ) -> Result<Option<Drain>, ModelError> {
        if self.real() {
            return Ok(None);
        }
        // The unit of scheduling is a message of g tasks (§5).
        let te_msg_s = self.spec.te.as_secs_f64() * self.spec.granularity as f64;
        Drain::new(
            topology,
            predicted,
            self.spec.times,
            te_msg_s,
            self.queue,
            self.guided,
        )
        .map(Some)
    }

    /// The peak operating point (§5, Figure 4) of this farm's tree family, searched up to
    /// [`PEAK_SEARCH_CHAIN_LEVELS`] or [`PEAK_SEARCH_TREE_LEVELS`]; `None` for a parent
    /// relation.
    pub fn peak(
        &self,
        topology: &Topology,
        min_marginal_efficiency: f64,
    ) -> Result<Option<PeakOperatingPoint>, ModelError> {
        let model = self.model(topology);
        let FarmTopology::Tree(TreeShape { k, .. }) = model.topology else {
            return Ok(None);
        };
        let limit = if k == 1 {
            PEAK_SEARCH_CHAIN_LEVELS
        } else {
            PEAK_SEARCH_TREE_LEVELS
        };
        peak_operating_point(&model, limit, min_marginal_efficiency).map(Some)
    }

    /// The engine's settings on `topology`, with the model's split limits when guided.
    pub fn engine_config(&self, topology: &Topology) -> Result<EngineConfig, ModelError> {
        Ok(EngineConfig {
            beta_e: self.beta_e,
            beta_f: self.beta_f,
            queue: self.queue,
            split_limits: if self.guided {
                Some(guided_limits(topology, &self.model(topology))?)
            } else {
                None
            },
        })
    }

    /// Runs the farm on `machine` and compares it with the model.
    ///
    /// 1. Predict; for guided flow control, derive the split limits.
    /// 2. Run the sequential reference: its values to check, its time as the speedup's
    ///    numerator (for a real kernel, charged as the machine charges real work: its CPU
    ///    time, or its declared units at their costs; `Σ` task times for a synthetic one).
    /// 3. Run the farm and check its values.
    /// 4. Measure; for a real kernel, predict again with the measured mean task time.
    /// 5. Add the drain of random task times and compare.
    pub fn run(&self, machine: &Machine) -> Result<FarmComparison, CompareError> {
        let topology = machine.topology();
        let mut model = self.model(topology);
        let mut predicted = model.predict()?;
        let engine = self.engine_config(topology)?;
        // A real kernel's reference is charged as the machine charges the same work.
        let (reference, charged_s) =
            Charger::of(machine).run(|w| sequential_metered(&self.spec, w));
        let sequential_s = if self.real() {
            charged_s
        } else {
            reference.iter().sum::<u64>() as f64 / 1e9
        };
        let run = run(machine, &self.spec, &engine)?;
        if run.values != reference {
            return Err(CompareError::Mismatch("farm"));
        }
        let r = run.engine;
        let measured = Measured::of(&r, topology, self.spec.granularity as f64, sequential_s);
        if self.real() {
            // The model's T_e is the measured mean task time of the real kernel.
            model.te_s = sequential_s / self.spec.tasks as f64;
            predicted = model.predict()?;
        }
        let drain = self.drain(topology, &predicted)?;
        let errors_pct = Errors::between(&measured, &predicted);
        Ok(FarmComparison {
            topology: topology.to_string(),
            processors: topology.len(),
            error_pct: errors_pct.speedup,
            errors_pct,
            measured,
            predicted,
            drain,
            missing_terms: Vec::new(),
            fidelity: r.report.fidelity.clone(),
            mode: machine.mode(),
            dilation: machine.dilation(),
            wall_s: r.report.wall_s(),
            trace: r.trace,
        })
    }
}

/// One comparison standing for several runs of the same experiment: the mean measurement,
/// its errors against the (last run's) prediction, the worst fidelity and the total wall
/// time; `None` for no runs.
pub fn combine_runs(runs: &[FarmComparison]) -> Option<FarmComparison> {
    let last = runs.last()?;
    let measured = Measured::mean(&runs.iter().map(|r| r.measured.clone()).collect::<Vec<_>>())?;
    let errors_pct = Errors::between(&measured, &last.predicted);
    Some(FarmComparison {
        error_pct: errors_pct.speedup,
        errors_pct,
        measured,
        fidelity: worst_fidelity(runs.iter().map(|r| &r.fidelity))?.clone(),
        wall_s: runs.iter().map(|r| r.wall_s).sum(),
        trace: None,
        ..last.clone()
    })
}

/// The fidelity with the largest share of late waits.
pub fn worst_fidelity<'a>(all: impl Iterator<Item = &'a Fidelity>) -> Option<&'a Fidelity> {
    let share = |f: &Fidelity| {
        if f.waits == 0 {
            0.0
        } else {
            f.late_waits as f64 / f.waits as f64
        }
    };
    all.max_by(|a, b| share(a).total_cmp(&share(b)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::farm::Bound;

    fn prediction(fractions: Vec<f64>, makespan_s: f64, speedup: f64) -> Prediction {
        Prediction {
            throughput_per_s: 1000.0,
            speedup,
            makespan_s,
            fractions_by_level: fractions,
            startup_s: 0.001,
            bound: Bound::Processors,
        }
    }

    #[test]
    fn errors_are_relative_and_fractions_in_percent_of_m() {
        let m = Measured {
            throughput_per_s: 1100.0,
            steady_throughput_per_s: 900.0,
            speedup: 2.0,
            makespan_s: 0.5,
            fractions_by_level: vec![0.6, 0.4],
            startup_s: 0.002,
        };
        let e = Errors::between(&m, &prediction(vec![0.5, 0.5], 0.4, 2.5));
        assert!((e.speedup + 20.0).abs() < 1e-12);
        assert!((e.throughput - 10.0).abs() < 1e-12);
        assert!((e.steady_throughput + 10.0).abs() < 1e-12);
        assert!((e.makespan - 25.0).abs() < 1e-12);
        assert!((e.fractions_of_m[0] - 10.0).abs() < 1e-12);
        assert!((e.fractions_of_m[1] + 10.0).abs() < 1e-12);
        assert!((e.max_fraction_of_m() - 10.0).abs() < 1e-12);
    }

    #[test]
    fn the_mean_of_runs_is_taken_quantity_by_quantity() {
        let run = |s: f64, f: f64| Measured {
            throughput_per_s: 10.0 * s,
            steady_throughput_per_s: 10.0 * s,
            speedup: s,
            makespan_s: 1.0 / s,
            fractions_by_level: vec![f, 1.0 - f],
            startup_s: 0.1,
        };
        let m = Measured::mean(&[run(1.0, 0.2), run(3.0, 0.4)]).unwrap();
        assert_eq!(m.speedup, 2.0);
        assert!((m.makespan_s - (1.0 + 1.0 / 3.0) / 2.0).abs() < 1e-15);
        assert!((m.fractions_by_level[0] - 0.3).abs() < 1e-15);
        assert!(Measured::mean(&[]).is_none());
    }

    #[test]
    fn exponential_drain_on_three_busy_processors_is_five_sixths_te() {
        // Binary tree of 2 levels, every level executes: (H_3 − 1)·T_e = (1/2 + 1/3)·T_e.
        let t: Topology = "binary:2".parse().unwrap();
        let p = prediction(vec![0.6, 0.4], 0.02, 2.5);
        let d = Drain::new(&t, &p, TaskTimes::Exponential, 600e-6, 1, true).unwrap();
        assert_eq!(d.busy_processors, 3);
        assert!((d.drain_s - 500e-6).abs() < 1e-12);
        assert!((d.speedup_error_floor_pct - 100.0 * (0.02 / 0.0205 - 1.0)).abs() < 1e-9);
        // Guided: no flood-fill drain; constant times: nothing at all.
        assert!(d.flood_fill.is_none());
        let c = Drain::new(&t, &p, TaskTimes::Constant, 600e-6, 1, false).unwrap();
        assert_eq!((c.drain_s, c.flood_fill.is_none()), (0.0, true));
    }

    #[test]
    fn flood_fill_drain_error_propagates_to_first_order() {
        // Chain of 2 with queue 1 and exponential times: the drain's mean is 9/8·T_e
        // (chain_flood_fill_drain_s); the error and its scatter follow e(d) = 100(T/(T+d) − 1).
        let t = Topology::chain(2).unwrap();
        let p = prediction(vec![0.5, 0.5], 0.05, 1.9);
        let d = Drain::new(&t, &p, TaskTimes::Exponential, 800e-6, 1, false).unwrap();
        let f = d.flood_fill.unwrap();
        assert_eq!(f.samples, 4000);
        let se = f.drain_sd_s / f64::from(f.samples).sqrt();
        assert!(
            (f.drain_s - 900e-6).abs() < 4.0 * se,
            "{} ± {se}",
            f.drain_s
        );
        let mean = f.drain_s;
        assert!((f.error_pct - 100.0 * (0.05 / (0.05 + mean) - 1.0)).abs() < 1e-9);
        assert!(
            (f.error_sd_pct - 100.0 * 0.05 / (0.05 + mean).powi(2) * f.drain_sd_s).abs() < 1e-9
        );
        assert!((f.speedup - 1.9 * 0.05 / (0.05 + mean)).abs() < 1e-12);
    }

    #[test]
    fn guided_limits_forward_what_the_subtree_executes() {
        // A chain of 2 with β = 0: each processor takes half, so the root forwards M/2.
        let t = Topology::chain(2).unwrap();
        let model = FarmModel {
            topology: FarmTopology::of(&t),
            te_s: 1e-3,
            beta_e_s: 0.0,
            beta_f_s: 0.0,
            tau_s: 0.0,
            tasks_m: 100,
            granularity: 1,
        };
        assert_eq!(guided_limits(&t, &model).unwrap(), vec![50, 0]);
    }

    #[test]
    fn drain_samples_shrink_on_deep_machines() {
        assert_eq!(drain_samples(&Topology::chain(2).unwrap()), 4000);
        assert_eq!(drain_samples(&Topology::chain(2000).unwrap()), 200);
    }
}
