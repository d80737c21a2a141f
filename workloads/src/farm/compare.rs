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
//! let config = MachineConfig {
//!     mode: TimeMode::Dilated(1.0),
//!     hints: experiment.hints(&topology)?,
//!     ..MachineConfig::default()
//! };
//! let c = experiment.run(&Machine::new(topology, config)?)?.comparison;
//! assert_eq!(c.processors, 2);
//! assert!((c.errors_pct.speedup - 100.0 * (c.measured.speedup / c.predicted.speedup - 1.0)).abs() < 1e-9);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::time::Duration;

use multicomputer_runtime::{Machine, Topology};
use serde::Serialize;
use thiserror::Error;

use super::ModelError;
use super::config::{FarmModel, FarmTopology};
use super::drain::{drain_s, flood_fill_drain, speedup_error_with_drain_pct};
use super::granularity::{PeakOperatingPoint, peak_operating_point};
use super::program::{
    FarmError, FarmSpec, Kernel, PRIME_CANDIDATE, TRIAL_DIVISION, TaskTimes, run,
    sequential_metered,
};
use super::tree::{ProcessorCosts, flood_fill_tree};
use crate::hints::{Hints, smallest_nonzero};
use crate::tree::TreeShape;
use crate::tree::{Comparison, Measured, Prediction, error_pct};
use crate::tree::{EngineConfig, engine_events_per_s};

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
/// `slots × depth` steps (`drain_sample_steps`), down to 200.
pub fn drain_samples(topology: &Topology) -> u32 {
    const BUDGET_STEPS: f64 = 2e8;
    (BUDGET_STEPS / drain_sample_steps(topology)).clamp(200.0, 4000.0) as u32
}

/// The steps of one sample of the flood-fill drain on `topology`: its task slots (two a
/// processor) times the longest path a task falls down to refill one (the root's level, in
/// processors).
fn drain_sample_steps(topology: &Topology) -> f64 {
    (2 * topology.len()) as f64 * f64::from(topology.levels())
}

/// Whether a farm's comparison samples the flood-fill protocol's drain
/// ([`super::flood_fill_drain`]): random task times under flood fill (model guidance has a
/// drain of its own, constant times none).
fn samples_flood_fill_drain(times: TaskTimes, guided: bool) -> bool {
    times != TaskTimes::Constant && !guided
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
        let flood_fill = if samples_flood_fill_drain(times, guided) {
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

    /// A measured speedup's error against (g) plus the flood-fill drain, percent (random
    /// times, flood fill only).
    pub fn error_with_flood_fill_pct(&self, measured_speedup: f64) -> Option<f64> {
        let f = self.flood_fill.as_ref()?;
        Some(error_pct(measured_speedup, f.speedup))
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

/// A farm measured beside its model: what every tree program reports, and the drain at the
/// end that (g) leaves out.
#[derive(Debug, Clone, Serialize)]
pub struct FarmComparison {
    /// Measured beside predicted.
    #[serde(flatten)]
    pub comparison: Comparison,
    /// The drain at the end that (g) leaves out (synthetic kernel).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drain: Option<Drain>,
}

impl FarmComparison {
    /// The speedup of (g) plus the flood-fill drain, and the measured speedup's error against
    /// it, percent (random times, flood fill only).
    pub fn error_with_drain_pct(&self) -> Option<f64> {
        self.drain
            .as_ref()?
            .error_with_flood_fill_pct(self.comparison.measured.speedup)
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
    pub fn hints(&self, topology: &Topology) -> Result<Hints, ModelError> {
        let predicted = self.model(topology).predict()?;
        let g = self.spec.granularity as u32;
        Ok(Hints {
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
            units: if self.real() {
                vec![PRIME_CANDIDATE, TRIAL_DIVISION]
            } else {
                Vec::new()
            },
        })
    }

    /// The steps of the Monte Carlo that each run's comparison takes for its drain
    /// ([`FarmExperiment::drain`]) on `topology`, samples × `drain_sample_steps`: work every
    /// run does besides the farm itself, on the calling thread, in every time mode; 0 where
    /// no drain is sampled (constant times, model guidance, a real kernel).
    pub fn drain_steps(&self, topology: &Topology) -> f64 {
        if self.real() || !samples_flood_fill_drain(self.spec.times, self.guided) {
            return 0.0;
        }
        f64::from(drain_samples(topology)) * drain_sample_steps(topology)
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
        let (reference, charged_s) = machine
            .charging()
            .run_s(|w| sequential_metered(&self.spec, w));
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
        Ok(FarmComparison {
            comparison: Comparison::of(machine, r, measured, predicted, Vec::new()),
            drain,
        })
    }
}

/// One comparison standing for several runs of the same farm ([`Comparison::combine`]), with
/// the last run's drain; `None` for no runs.
pub fn combine_runs(runs: &[FarmComparison]) -> Option<FarmComparison> {
    Some(FarmComparison {
        comparison: Comparison::combine(runs.iter().map(|r| &r.comparison))?,
        drain: runs.last()?.drain.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::prediction;

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

    #[test]
    fn a_runs_drain_steps_are_its_samples_times_slots_times_depth() {
        let farm = |times, guided, kernel| FarmExperiment {
            spec: FarmSpec {
                times,
                kernel,
                ..FarmSpec::default()
            },
            beta_e: Duration::from_micros(50),
            beta_f: Duration::from_micros(100),
            queue: 1,
            guided,
            tau_s: 0.0,
        };
        let random = farm(TaskTimes::Exponential, false, Kernel::Synthetic);
        // chain:16: 4000 samples of 32 slots down 16 levels.
        let chain = Topology::chain(16).unwrap();
        assert_eq!(random.drain_steps(&chain), 4000.0 * 32.0 * 16.0);
        // binary:4 (15 processors, 4 levels): 4000 samples of 30 × 4 steps.
        let binary: Topology = "binary:4".parse().unwrap();
        assert_eq!(random.drain_steps(&binary), 4000.0 * 30.0 * 4.0);
        // A deep chain: the fewest samples, 200, of 4000 × 2000 steps.
        let deep = Topology::chain(2000).unwrap();
        assert_eq!(random.drain_steps(&deep), 200.0 * 4000.0 * 2000.0);
        // Nothing sampled: constant times, model guidance, a real kernel.
        for none in [
            farm(TaskTimes::Constant, false, Kernel::Synthetic),
            farm(TaskTimes::Exponential, true, Kernel::Synthetic),
            farm(TaskTimes::Exponential, false, Kernel::Primes { grain: 10 }),
        ] {
            assert_eq!(none.drain_steps(&chain), 0.0);
        }
    }
}
