//! What the executors need of an experiment: its machine's hints, an estimate of a run's
//! wall time, a run, and a label for progress.

use std::time::Duration;

use anyhow::Result;
use multicomputer_runtime::{Hints, Machine, Topology};
use multicomputer_workloads::collectives::CollectiveComparison;
use multicomputer_workloads::dnc::{DncCompareError, DncComparison, DncExperiment, DncKernel};
use multicomputer_workloads::farm::{CompareError, FarmComparison, FarmExperiment, Kernel};
use multicomputer_workloads::synthetic::{Pattern, Phold, SyntheticComparison, SyntheticSpec};
use multicomputer_workloads::tree::Prediction;

use super::Estimate;
use crate::plan::{ArgError, CollectiveExperiment, model_error};
use crate::tuning::COPY_BYTES_PER_S;
use crate::units::human_s;

/// An experiment the executors can run on a machine.
pub(crate) trait Experiment {
    /// A run's result.
    type Outcome;

    /// The command's name, for estimates and progress.
    const NAME: &'static str;

    /// The flags that set a run's emulated time, named when a run would be too long.
    const TIME_FLAGS: &'static str;

    /// What the machine's auto mode should know.
    fn hints(&self, topology: &Topology) -> Result<Hints, ArgError>;

    /// The wall time of one run at dilation `d` (none: in virtual time).
    fn estimate(&self, topology: &Topology, d: Option<f64>) -> Estimate;

    /// The model's prediction of a run on `topology` from the experiment's own inputs, where
    /// they are all it needs (synthetic tasks; a real kernel's model needs its measured task
    /// time); `None` too where the model refuses the topology or there is no model.
    fn predicted(&self, _topology: &Topology) -> Option<Prediction> {
        None
    }

    /// One run.
    fn run(&self, machine: &Machine) -> Result<Self::Outcome>;

    /// The headline figures of a run, whose spread over tie orders the report gives.
    fn headline(outcome: &Self::Outcome) -> Vec<(&'static str, f64)>;

    /// The seed of the run's random draws, if it draws any.
    fn seed(&self) -> Option<u64>;

    /// This experiment with its random draws from `seed`.
    fn reseeded(&self, seed: u64) -> Self
    where
        Self: Sized;

    /// What a sweep's progress shows for this cell.
    fn label(&self, topology: &Topology) -> String;
}

fn invalid(e: multicomputer_workloads::farm::ModelError) -> ArgError {
    model_error(&e, &[], "--topology")
}

impl Experiment for FarmExperiment {
    type Outcome = FarmComparison;
    const NAME: &'static str = "farm";
    const TIME_FLAGS: &'static str = "--tasks, --te";

    fn hints(&self, topology: &Topology) -> Result<Hints, ArgError> {
        FarmExperiment::hints(self, topology).map_err(invalid)
    }

    /// From the model's makespan (unknown for a real kernel).
    fn estimate(&self, topology: &Topology, d: Option<f64>) -> Estimate {
        let rate = FarmExperiment::hints(self, topology)
            .ok()
            .and_then(|h| h.events_per_s);
        match Experiment::predicted(self, topology) {
            Some(p) => Estimate::emulated(p.makespan_s, d, rate, 1),
            None => Estimate::UNKNOWN,
        }
    }

    fn predicted(&self, topology: &Topology) -> Option<Prediction> {
        match self.spec.kernel {
            Kernel::Synthetic => self.model(topology).predict().ok(),
            _ => None,
        }
    }

    fn run(&self, machine: &Machine) -> Result<FarmComparison> {
        FarmExperiment::run(self, machine).map_err(|e| match e {
            CompareError::Model(m) => invalid(m).into(),
            other => anyhow::Error::from(other),
        })
    }

    fn headline(outcome: &FarmComparison) -> Vec<(&'static str, f64)> {
        let m = &outcome.comparison.measured;
        vec![("makespan_s", m.makespan_s), ("speedup", m.speedup)]
    }

    fn seed(&self) -> Option<u64> {
        FarmExperiment::seed(self)
    }

    fn reseeded(&self, seed: u64) -> Self {
        FarmExperiment::reseeded(self, seed)
    }

    fn label(&self, topology: &Topology) -> String {
        format!(
            "{topology} T_e={} g={}",
            human_s(self.spec.te.as_secs_f64()),
            self.spec.granularity
        )
    }
}

impl Experiment for DncExperiment {
    type Outcome = DncComparison;
    const NAME: &'static str = "dnc";
    const TIME_FLAGS: &'static str = "--tasks, --te";

    fn hints(&self, topology: &Topology) -> Result<Hints, ArgError> {
        DncExperiment::hints(self, topology).map_err(invalid)
    }

    /// From the model's makespan (unknown for mergesort).
    fn estimate(&self, topology: &Topology, d: Option<f64>) -> Estimate {
        let rate = DncExperiment::hints(self, topology)
            .ok()
            .and_then(|h| h.events_per_s);
        match Experiment::predicted(self, topology) {
            Some(p) => Estimate::emulated(p.makespan_s, d, rate, 1),
            None => Estimate::UNKNOWN,
        }
    }

    fn predicted(&self, topology: &Topology) -> Option<Prediction> {
        match self.kernel {
            DncKernel::Synthetic { .. } => self.model(topology).and_then(|m| m.predict()).ok(),
            _ => None,
        }
    }

    fn run(&self, machine: &Machine) -> Result<DncComparison> {
        DncExperiment::run(self, machine).map_err(|e| match e {
            DncCompareError::Model(m) => invalid(m).into(),
            other => anyhow::Error::from(other),
        })
    }

    fn headline(outcome: &DncComparison) -> Vec<(&'static str, f64)> {
        let m = &outcome.measured;
        vec![("makespan_s", m.makespan_s), ("speedup", m.speedup)]
    }

    fn seed(&self) -> Option<u64> {
        DncExperiment::seed(self)
    }

    fn reseeded(&self, seed: u64) -> Self {
        DncExperiment::reseeded(self, seed)
    }

    fn label(&self, topology: &Topology) -> String {
        format!("{topology} T_e={}", human_s(self.te.as_secs_f64()))
    }
}

impl Experiment for SyntheticSpec {
    type Outcome = SyntheticComparison;
    const NAME: &'static str = "emulate";
    const TIME_FLAGS: &'static str = "--rounds, --occupy";

    fn hints(&self, topology: &Topology) -> Result<Hints, ArgError> {
        Ok(SyntheticSpec::hints(self, topology.len()))
    }

    /// `rounds × occupy`, the independent pattern's makespan (a lower bound with messages);
    /// in virtual time, an occupation per processor per round, and a message with `reduce`.
    /// PHOLD: its horizon, each event a timed wait and its remote share a message too.
    fn estimate(&self, topology: &Topology, d: Option<f64>) -> Estimate {
        let n = topology.len() as f64;
        let (emulated, rate) = match self.pattern {
            Pattern::Phold(p) => {
                let events = p.events_per_emulated_s(topology.len(), Duration::ZERO);
                (p.horizon.as_secs_f64(), Some(events * (1.0 + p.remote)))
            }
            pattern => {
                let emulated = self.rounds as f64 * self.occupy.as_secs_f64();
                let per_round = if pattern == Pattern::Reduce {
                    2.0 * n
                } else {
                    n
                };
                let rate = (emulated > 0.0).then(|| per_round * self.rounds as f64 / emulated);
                (emulated, rate)
            }
        };
        Estimate::emulated(emulated, d, rate, 1)
    }

    fn run(&self, machine: &Machine) -> Result<SyntheticComparison> {
        Ok(SyntheticSpec::run(self, machine)?)
    }

    fn headline(outcome: &SyntheticComparison) -> Vec<(&'static str, f64)> {
        vec![("makespan_s", outcome.measured().makespan_s)]
    }

    /// PHOLD's seed; the other patterns draw nothing.
    fn seed(&self) -> Option<u64> {
        match self.pattern {
            Pattern::Phold(p) => Some(p.seed),
            _ => None,
        }
    }

    fn reseeded(&self, seed: u64) -> Self {
        match self.pattern {
            Pattern::Phold(p) => Self {
                pattern: Pattern::Phold(Phold { seed, ..p }),
                ..*self
            },
            _ => *self,
        }
    }

    fn label(&self, topology: &Topology) -> String {
        match self.pattern {
            Pattern::Phold(p) => {
                format!("{topology} PHOLD to {}", human_s(p.horizon.as_secs_f64()))
            }
            _ => format!("{topology} {} rounds", self.rounds),
        }
    }
}

impl Experiment for CollectiveExperiment {
    type Outcome = CollectiveComparison;
    const NAME: &'static str = "collective";
    const TIME_FLAGS: &'static str = "--bytes, --topology";

    fn hints(&self, _: &Topology) -> Result<Hints, ArgError> {
        Ok(self.spec.hints())
    }

    /// The model's makespan, and its messages as the events of virtual time; and, in every
    /// mode, its vectors made, copied and checked against the sequential reference's at
    /// [`COPY_BYTES_PER_S`].
    fn estimate(&self, _: &Topology, d: Option<f64>) -> Estimate {
        let rate = (self.predicted_s > 0.0).then(|| self.messages / self.predicted_s);
        Estimate::emulated(self.predicted_s, d, rate, 1)
            .with_fixed(self.copied_bytes / COPY_BYTES_PER_S)
    }

    fn run(&self, machine: &Machine) -> Result<CollectiveComparison> {
        Ok(self.spec.run(machine)?)
    }

    fn headline(outcome: &CollectiveComparison) -> Vec<(&'static str, f64)> {
        vec![("makespan_s", outcome.measured.makespan_s)]
    }

    /// A collective's vectors are a function of the processor and element index: it draws
    /// nothing.
    fn seed(&self) -> Option<u64> {
        None
    }

    fn reseeded(&self, _: u64) -> Self {
        *self
    }

    fn label(&self, topology: &Topology) -> String {
        format!(
            "{} {} on {topology}, {} B",
            self.spec.operation.name(),
            self.spec.algorithm.name(),
            self.spec.bytes()
        )
    }
}
