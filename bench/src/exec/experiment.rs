//! What the executors need of an experiment: its machine's hints, an estimate of a run's
//! wall time, a run, and a label for progress.

use std::time::Duration;

use anyhow::Result;
use multicomputer_runtime::{Hints, Machine, Topology, host_cores};
use multicomputer_workloads::collectives::CollectiveComparison;
use multicomputer_workloads::dnc::{DncCompareError, DncComparison, DncExperiment, DncKernel};
use multicomputer_workloads::farm::{CompareError, FarmComparison, FarmExperiment, Kernel};
use multicomputer_workloads::synthetic::{Pattern, Phold, SyntheticComparison, SyntheticSpec};
use multicomputer_workloads::tree::Prediction;

use super::Estimate;
use super::estimate::{EventKind, Events};
use crate::plan::{ArgError, CollectiveExperiment, model_error};
use crate::tuning::{COPY_BYTES_PER_S, DRAIN_STEP_S};
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

    /// The wall time of one run on `machine` (at its dilation; none: in virtual time).
    fn estimate(&self, machine: &Machine) -> Estimate;

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

/// A run of emulated time `emulated_s` (at dilation `d`; none: virtual time, at `rate`
/// events an emulated second) that does `work_s` of real work on a host of `cores`, and its
/// sequential reference the same work once more before it, in every time mode.
fn real_work(
    emulated_s: f64,
    d: Option<f64>,
    rate: Option<Events>,
    (work_s, cores): (f64, usize),
) -> Estimate {
    Estimate::emulated(emulated_s, d, rate, 1)
        .with_real_work(work_s, cores)
        .with_fixed(work_s)
}

/// The wall time of `steps` steps of a farm's drain Monte Carlo
/// ([`FarmExperiment::drain_steps`]), seconds: work on the calling thread after the farm, the
/// same in every time mode.
fn drain_s(steps: f64) -> f64 {
    steps * DRAIN_STEP_S
}

/// Integers sampled from each of the windows [`primes_work_s`] counts.
const PRIME_WINDOW: u64 = 256;

/// Windows of a prime farm's range whose work [`primes_work_s`] counts.
const PRIME_WINDOWS: u64 = 64;

/// The prime kernel's real work over `tasks` tasks of `grain` integers each (the range
/// `[0, tasks·grain)`), seconds: its candidates and trial divisions at the machine's unit
/// costs (`charging`'s, else the development host's reference costs), the divisions counted
/// on [`PRIME_WINDOWS`] windows of [`PRIME_WINDOW`] integers spread evenly over the tasks
/// (at most 16 384 integers, whatever the range) and scaled to the whole range.
fn primes_work_s(tasks: u64, grain: u64, charging: &multicomputer_runtime::Charging) -> f64 {
    use multicomputer_workloads::farm::{PRIME_CANDIDATE, TRIAL_DIVISION, count_primes_metered};
    let ns = unit_ns(charging);
    let (windows, len) = (PRIME_WINDOWS.min(tasks), PRIME_WINDOW.min(grain));
    if windows == 0 || len == 0 {
        return 0.0;
    }
    let mut work = multicomputer_runtime::Work::default();
    for w in 0..windows {
        // The middle of task w·tasks/windows.
        let task = w * tasks / windows;
        count_primes_metered(task * grain + (grain - len) / 2, len, &mut work);
    }
    let scale = (tasks * grain) as f64 / (windows * len) as f64;
    let divisions = work.count(TRIAL_DIVISION) as f64 * scale;
    let candidates = (tasks * grain) as f64;
    (candidates * ns(PRIME_CANDIDATE) + divisions * ns(TRIAL_DIVISION)) * 1e-9
}

/// The real work of sorting one list of `keys` keys (the run's first), seconds: its
/// comparisons and key moves, counted by sorting it, at the machine's unit costs (as for
/// [`primes_work_s`]).
fn mergesort_work_s(keys: usize, seed: u64, machine: &Machine) -> f64 {
    use multicomputer_workloads::dnc::{COMPARISON, KEY_MOVE, mergesort, mergesort_keys};
    let mut work = multicomputer_runtime::Work::default();
    for mut list in mergesort_keys(1, keys, seed) {
        mergesort(&mut list, &mut work);
    }
    let ns = unit_ns(machine.charging());
    (work.count(COMPARISON) as f64 * ns(COMPARISON) + work.count(KEY_MOVE) as f64 * ns(KEY_MOVE))
        * 1e-9
}

/// A unit's cost, ns: `charging`'s, else the development host's reference cost, else 0.
fn unit_ns(
    charging: &multicomputer_runtime::Charging,
) -> impl Fn(multicomputer_runtime::WorkUnit) -> f64 + '_ {
    let reference = multicomputer_workloads::unit_costs::reference_unit_costs();
    move |u| {
        charging
            .costs()
            .unit_ns(u)
            .or_else(|| reference.get(u.name()).copied())
            .unwrap_or(0.0)
    }
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

    /// From the model's makespan; for the prime kernel, with `T_e` its tasks' mean work
    /// ([`primes_work_s`]), which the run does besides on the host's cores and its
    /// sequential reference once more; for random task times, with the Monte Carlo of the
    /// drain that the run's comparison samples afterwards ([`drain_s`]).
    fn estimate(&self, machine: &Machine) -> Estimate {
        let topology = machine.topology();
        let d = machine.spec().time.dilation();
        let rate = FarmExperiment::hints(self, topology)
            .ok()
            .and_then(|h| h.events_per_s);
        let rate = Events::of(EventKind::Tree, topology.len(), rate);
        match self.spec.kernel {
            Kernel::Synthetic => match Experiment::predicted(self, topology) {
                Some(p) => Estimate::emulated(p.makespan_s, d, rate, 1)
                    .with_fixed(drain_s(self.drain_steps(topology))),
                None => Estimate::UNKNOWN,
            },
            Kernel::Primes { grain } => {
                let work_s = primes_work_s(self.spec.tasks as u64, grain, machine.charging());
                let mut model = self.model(topology);
                model.te_s = work_s / self.spec.tasks.max(1) as f64;
                match model.predict() {
                    Ok(p) => real_work(p.makespan_s, d, rate, (work_s, host_cores())),
                    Err(_) => Estimate::UNKNOWN,
                }
            }
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

    /// From the model's makespan; for mergesort, from its real work ([`mergesort_work_s`]),
    /// shared evenly by the processors in emulated time, which the run does besides on the
    /// host's cores and its sequential reference once more.
    fn estimate(&self, machine: &Machine) -> Estimate {
        let (topology, d) = (machine.topology(), machine.spec().time.dilation());
        let rate = DncExperiment::hints(self, topology)
            .ok()
            .and_then(|h| h.events_per_s);
        let rate = Events::of(EventKind::Tree, topology.len(), rate);
        match self.kernel {
            DncKernel::Synthetic { .. } => match Experiment::predicted(self, topology) {
                Some(p) => Estimate::emulated(p.makespan_s, d, rate, 1),
                None => Estimate::UNKNOWN,
            },
            DncKernel::Mergesort { keys } => {
                let work_s = self.tasks as f64 * mergesort_work_s(keys, self.seed, machine);
                real_work(
                    work_s / topology.len() as f64,
                    d,
                    rate,
                    (work_s, host_cores()),
                )
            }
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
    fn estimate(&self, machine: &Machine) -> Estimate {
        let (topology, d) = (machine.topology(), machine.spec().time.dilation());
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
        let events = Events::of(EventKind::Engine, topology.len(), rate);
        Estimate::emulated(emulated, d, events, 1)
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
    /// mode, the bytes its run and its check write (inputs, messages, the reference's
    /// results) at [`COPY_BYTES_PER_S`].
    fn estimate(&self, machine: &Machine) -> Estimate {
        let d = machine.spec().time.dilation();
        let rate = (self.predicted_s > 0.0).then(|| self.messages / self.predicted_s);
        let events = Events::of(EventKind::Engine, machine.topology().len(), rate);
        Estimate::emulated(self.predicted_s, d, events, 1)
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

#[cfg(test)]
mod tests {
    use super::*;
    use multicomputer_runtime::{Charging, Work, WorkCosts};
    use multicomputer_workloads::farm::{TRIAL_DIVISION, count_primes_metered};

    fn charging(division_ns: f64, candidate_ns: f64) -> Charging {
        Charging::model(WorkCosts {
            ns_per_unit: [
                ("trial_division".to_string(), division_ns),
                ("prime_candidate".to_string(), candidate_ns),
            ]
            .into(),
            loop_iteration_ns: 0.0,
        })
    }

    #[test]
    fn a_prime_farms_work_is_its_divisions_and_candidates_at_their_costs() {
        // [0, 20) in two tasks of 10, every integer counted: 4…19 take one division each,
        // and the odd 9…19 one more (d = 3): 22 divisions; 20 candidates.
        let c = charging(1.0, 0.5);
        assert!((primes_work_s(2, 10, &c) - (22.0 + 10.0) * 1e-9).abs() < 1e-18);
        assert_eq!(primes_work_s(0, 10, &c), 0.0);
        // Beyond 64 windows of 256 integers, a sample scaled to the range: within a few per
        // cent of every division counted on [0, 10⁶).
        let mut all = Work::default();
        count_primes_metered(0, 1_000_000, &mut all);
        let exact = all.count(TRIAL_DIVISION) as f64 * 1e-9;
        let sampled = primes_work_s(1000, 1000, &charging(1.0, 0.0));
        assert!((sampled / exact - 1.0).abs() < 0.1, "{sampled} for {exact}");
    }

    #[test]
    fn a_random_farms_estimate_counts_the_drain_each_run_samples() {
        use multicomputer_runtime::{MachineConfig, TimeMode};
        use multicomputer_workloads::farm::{FarmSpec, TaskTimes};
        let farm = |times| FarmExperiment {
            spec: FarmSpec {
                times,
                te: Duration::from_millis(10),
                ..FarmSpec::default()
            },
            beta_e: Duration::from_micros(50),
            beta_f: Duration::from_micros(100),
            queue: 1,
            guided: false,
            tau_s: 0.0,
        };
        let (random, constant) = (farm(TaskTimes::Exponential), farm(TaskTimes::Constant));
        let topology = Topology::chain(16).unwrap();
        let config = MachineConfig {
            mode: TimeMode::Virtual,
            hints: FarmExperiment::hints(&random, &topology).unwrap(),
            ..MachineConfig::default()
        };
        let machine = Machine::new(topology, config).unwrap();
        // The same model, so the same events; random times add 4000 samples of the drain, of
        // 32 slots down 16 levels, at DRAIN_STEP_S a step, in every run.
        let (r, c) = (
            Experiment::estimate(&random, &machine),
            Experiment::estimate(&constant, &machine),
        );
        let drain = 4000.0 * 32.0 * 16.0 * DRAIN_STEP_S;
        assert_eq!(r.events, c.events);
        assert!((r.wall_s - c.wall_s - drain).abs() < 1e-12, "{r:?} {c:?}");
        assert!((r.fixed_s - drain).abs() < 1e-12);
        // Five runs after a warm-up: six drains.
        assert!((r.times(6).wall_s - c.times(6).wall_s - 6.0 * drain).abs() < 1e-12);
    }

    #[test]
    fn real_work_runs_on_the_cores_and_again_in_the_reference() {
        // 8 s of work, 1 s emulated on threads at D = 1 over 2 cores: the run takes the 4 s
        // the cores need, and the reference 8 s more.
        let e = real_work(1.0, Some(1.0), None, (8.0, 2));
        assert!((e.wall_s - 12.0).abs() < 1e-12, "{}", e.wall_s);
        assert_eq!(e.fixed_s, 8.0);
    }
}
