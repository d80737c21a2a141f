//! The machine: a topology and a configuration resolved once against this host into a
//! [`RunSpec`] (`spec.rs`), and the run of one program on all its processors.
//!
//! A run goes to an engine (`engines/`), chosen by the spec's time mode; every engine takes
//! the same spec and program, runs each processor through the one body of `engines/body.rs`,
//! and returns the same record.

use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

use crate::TieOrder;
use crate::clock::{
    Crossing, DilationInputs, Seats, TimeMode, WaitStrategy, WorkClock, choose_dilation,
};
use crate::engines::{self, Engine};
use crate::error::{ConfigError, ProcessorError, RunError};
use crate::limits::HostLimits;
use crate::link::{LinkCost, Payload, Wire};
use crate::processor::Processor;
use crate::report::RunRecord;
use crate::spec::{Hints, Resolved, RunSpec};
use crate::topology::Topology;
use crate::trace::TraceSink;
use crate::tuning::{
    AUTO_LATENESS_SHARE, DEFAULT_STACK_BYTES, DEFAULT_WAKE_CPU, DEFAULT_WAKEUP, MIN_STACK_BYTES,
};
use crate::work::{Charging, ComputeCharge, CostTable, WorkCosts};

/// How a machine is to run, as asked for; [`Machine::new`] resolves it into a [`RunSpec`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MachineConfig {
    /// Native, dilated (D given or chosen), virtual or auto.
    pub mode: TimeMode,
    /// How processors wait for deadlines (native and dilated time).
    pub wait: WaitStrategy,
    /// The costs of the message system.
    pub link: LinkCost,
    /// Messages a link buffers before its sender blocks (≥ 1; raised to the hints' minimum).
    pub capacity: usize,
    /// How real work is charged; `None`: model in virtual time, measured otherwise.
    pub compute: Option<ComputeCharge>,
    /// Costs per unit of declared work and per degradation-loop iteration (model charging).
    pub work_costs: WorkCosts,
    /// What the workload says about itself (for dilation, buffers and its units of work).
    pub hints: Hints,
    /// Stack reserved for each processor in virtual time, bytes (mapped lazily).
    pub stack_bytes: usize,
    /// Record an event trace.
    pub trace: bool,
    /// The folder a traced run spills its trace to while it runs (an unnamed temporary file,
    /// gone when the trace is); `None`: the system's temporary folder. Put it where the trace
    /// will be written, on the same file system.
    #[serde(skip)]
    pub trace_dir: Option<PathBuf>,
    /// A wait that ends later than this (emulated) counts as late in the fidelity report;
    /// `None`: [`AUTO_LATENESS_SHARE`] of the smallest emulated cost (at least 1 µs), or 10 µs
    /// if none is known.
    pub tolerance: Option<Duration>,
    /// How often the deadlock monitor looks (wall time, threads only).
    pub deadlock_check: Duration,
    /// Report a stall when no message moves for this long (wall time, threads only);
    /// `None` = never.
    pub stall_timeout: Option<Duration>,
    /// For dilation: the host's wake-up latency (from `calibrate`).
    pub wakeup: Duration,
    /// For dilation: the CPU time of one sleep/wake cycle (from `calibrate`).
    pub wake_cpu: Duration,
    /// For dilation over MPI ranks: the one-way time of a cut link's message between ranks
    /// (from `calibrate` under `mpirun`); a dilation chosen over ranks needs it.
    pub rank_one_way: Option<Duration>,
    /// Which processor acts first among simultaneous events (virtual time; [`TieOrder`]).
    pub ties: TieOrder,
    /// Partitioned virtual time (`--partitions K`): the processors cut into K parts
    /// ([`Partition`](crate::Partition)), each run by its own scheduler on its own thread,
    /// under the partitioned semantics: every effect that crosses a link (a message, room
    /// freed on a full link, a closure) takes at least the link latency L, and equal
    /// arrivals are taken by (arrival, send time, sender). `Some(1)` is the sequential
    /// reference of these semantics; any K gives the same results, bit for bit. K > 1 needs
    /// L > 0 (the lookahead). `None`: today's sequential engine and semantics. Virtual time
    /// only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partitions: Option<NonZeroUsize>,
}

impl Default for MachineConfig {
    fn default() -> Self {
        Self {
            mode: TimeMode::Auto,
            wait: WaitStrategy::Auto,
            link: LinkCost::default(),
            capacity: 2,
            compute: None,
            work_costs: WorkCosts::default(),
            hints: Hints::default(),
            stack_bytes: DEFAULT_STACK_BYTES,
            trace: false,
            trace_dir: None,
            tolerance: None,
            deadlock_check: Duration::from_millis(20),
            stall_timeout: None,
            wakeup: DEFAULT_WAKEUP,
            wake_cpu: DEFAULT_WAKE_CPU,
            rank_one_way: None,
            ties: TieOrder::Index,
            partitions: None,
        }
    }
}

/// How many cores this process may run on, as a machine counts them (its affinity set).
pub fn host_cores() -> usize {
    usable_cores().1
}

/// The cores this process may run on, and how many.
fn usable_cores() -> (Vec<core_affinity::CoreId>, usize) {
    let cores = core_affinity::get_core_ids().unwrap_or_default();
    let n = if cores.is_empty() {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        cores.len()
    };
    (cores, n)
}

impl MachineConfig {
    /// Resolves this configuration for `topology` on this host: the one place where `auto`
    /// time mode, a dilation chosen for fidelity, the wait strategy, the compute charging and
    /// its cost table are decided. Checks the configuration, not the host's limits (see
    /// [`Machine::new`]).
    pub fn resolve(&self, topology: &Topology) -> Result<RunSpec, ConfigError> {
        self.resolve_on(topology, usable_cores().1)
    }

    fn resolve_on(&self, topology: &Topology, cores: usize) -> Result<RunSpec, ConfigError> {
        self.link.validate()?;
        if self.capacity == 0 {
            return Err(ConfigError::ZeroCapacity);
        }
        for (unit, &ns) in &self.work_costs.ns_per_unit {
            if !(ns.is_finite() && ns >= 0.0) {
                return Err(ConfigError::BadUnitCost {
                    unit: unit.clone(),
                    ns,
                });
            }
        }
        let loop_ns = self.work_costs.loop_iteration_ns;
        if !(loop_ns.is_finite() && loop_ns >= 0.0) {
            return Err(ConfigError::BadUnitCost {
                unit: "loop_iteration".into(),
                ns: loop_ns,
            });
        }
        let p = topology.len();
        let smallest = self.smallest_cost();
        let mut dilation_chosen = None;
        let time = match self.mode {
            TimeMode::Native => {
                let held = held_here(topology, self.partitions);
                if held > cores {
                    return Err(ConfigError::NotEnoughCores {
                        processors: held,
                        cores,
                    });
                }
                Resolved::Native
            }
            TimeMode::Dilated(d) => {
                if !(d.is_finite() && d >= 1.0) {
                    return Err(ConfigError::BadDilation(d));
                }
                Resolved::Dilated(d)
            }
            TimeMode::DilatedChosen => {
                let choice = choose_dilation(&DilationInputs {
                    processors: p,
                    cores,
                    smallest_cost: smallest.unwrap_or(Duration::ZERO),
                    compute_share: self.hints.compute_share,
                    wakeup: self.wakeup,
                    wake_cpu: self.wake_cpu,
                    events_per_s: self.hints.events_per_s,
                    crossing: self.crossing()?,
                });
                dilation_chosen = Some(choice.reason);
                Resolved::Dilated(choice.factor)
            }
            TimeMode::Virtual => Resolved::Virtual,
            TimeMode::Auto if self.partitions.is_some() => Resolved::Virtual,
            // Native only with a core to spare: a processor spinning on every core shares its
            // core with the OS and anything else the host runs, and each preemption goes
            // straight into emulated time. Ask for `Native` to use them all.
            TimeMode::Auto if p < cores || p == 1 => Resolved::Native,
            TimeMode::Auto => Resolved::Virtual,
        };
        self.check_partitions(time, p)?;
        if time.is_virtual() && self.stack_bytes < MIN_STACK_BYTES {
            return Err(ConfigError::StackTooSmall {
                given: self.stack_bytes,
                min: MIN_STACK_BYTES,
            });
        }
        let tolerance = self.tolerance.unwrap_or_else(|| {
            smallest.map_or(Duration::from_micros(10), |s| {
                s.mul_f64(AUTO_LATENESS_SHARE).max(Duration::from_micros(1))
            })
        });
        let charge = self.compute.unwrap_or(match time {
            Resolved::Virtual => ComputeCharge::Model,
            _ => ComputeCharge::Measured,
        });
        // Measured charging times real work on the monotonic clock natively (a pinned
        // processor owns its core), on the thread's CPU time where processors share cores.
        let clock = match time {
            Resolved::Native => WorkClock::Monotonic,
            Resolved::Dilated(_) | Resolved::Virtual => WorkClock::ThreadCpu,
        };
        let costs = CostTable::new(
            self.work_costs.clone(),
            &self.hints.units,
            charge == ComputeCharge::Model,
        )?;
        Ok(RunSpec {
            time,
            wait: self.wait.resolve(time.is_native(), p, cores),
            charging: Charging::new(charge, clock, costs),
            link: self.link,
            capacity: self.capacity.max(self.hints.min_capacity),
            tolerance,
            trace: self.trace,
            trace_dir: self.trace_dir.clone(),
            stack_bytes: self.stack_bytes,
            deadlock_check: self.deadlock_check,
            stall_timeout: self.stall_timeout,
            ties: self.ties,
            partitions: self.partitions,
            dilation_chosen,
        })
    }

    /// Over MPI ranks (a partitioned run in one of several ranks), what the cut links must
    /// cover for a chosen dilation ([`crossing_of`]); `None` in one process.
    fn crossing(&self) -> Result<Option<Crossing>, ConfigError> {
        match (self.partitions, engines::mpi_ranks()) {
            (Some(_), Some(_)) => crossing_of(&self.link, self.rank_one_way).map(Some),
            _ => Ok(None),
        }
    }

    /// Partitioned time asks for a part per processor at most; over MPI ranks, a part per
    /// rank; in native and dilated time, MPI ranks; in virtual time, a lookahead when there
    /// is more than one part.
    fn check_partitions(&self, time: Resolved, processors: usize) -> Result<(), ConfigError> {
        let Some(k) = self.partitions else {
            return Ok(());
        };
        let ranks = engines::mpi_ranks();
        check_ranks(self.partitions, ranks)?;
        if !time.is_virtual() && ranks.is_none() {
            return Err(ConfigError::PartitionsNeedRanks {
                mode: time.name(),
                partitions: k.get(),
            });
        }
        if k.get() > processors {
            return Err(ConfigError::TooManyPartitions {
                partitions: k.get(),
                processors,
            });
        }
        if time.is_virtual() && k.get() > 1 && self.link.latency.is_zero() {
            return Err(ConfigError::NoLookahead {
                partitions: k.get(),
            });
        }
        Ok(())
    }

    /// The smallest emulated cost known: the links' or the program's.
    fn smallest_cost(&self) -> Option<Duration> {
        [self.link.smallest_cost(), self.hints.smallest_cost]
            .into_iter()
            .flatten()
            .min()
    }
}

/// A topology and a configuration, resolved against this host.
#[derive(Debug, Clone)]
pub struct Machine {
    topology: Topology,
    config: MachineConfig,
    spec: RunSpec,
    cores: Vec<core_affinity::CoreId>,
    seats: Seats,
}

/// Over MPI ranks, a run has one part per rank: `partitions` must equal `ranks` (the ranks
/// this process runs among, if it is one of several).
fn check_ranks(partitions: Option<NonZeroUsize>, ranks: Option<usize>) -> Result<(), ConfigError> {
    match (partitions, ranks) {
        (Some(k), Some(ranks)) if k.get() != ranks => Err(ConfigError::PartitionsNotRanks {
            partitions: k.get(),
            ranks,
        }),
        _ => Ok(()),
    }
}

/// What the cut links of a run over ranks with costs `link` must cover, against the measured
/// `one_way` time between ranks: links share one cost, so the smallest crossing of a cut
/// link is the smallest message's, the latency (τ × bytes only lengthens it; β is waited
/// for before a message leaves). Refused without a measured one-way time, or with no
/// latency (no D would do).
fn crossing_of(link: &LinkCost, one_way: Option<Duration>) -> Result<Crossing, ConfigError> {
    let one_way = one_way.ok_or(ConfigError::NoRankCrossing)?;
    let cost = Duration::from_nanos(link.transfer_ns(0));
    if cost.is_zero() {
        return Err(ConfigError::FreeCutLinks {
            one_way_us: one_way.as_secs_f64() * 1e6,
        });
    }
    Ok(Crossing { cost, one_way })
}

/// The processors whose threads or coroutines this process holds: all of them, but over MPI
/// ranks only those of this rank's part (each rank has its own host limits).
fn held_here(topology: &Topology, partitions: Option<NonZeroUsize>) -> usize {
    match partitions.filter(|_| engines::mpi_ranks().is_some()) {
        Some(k) => crate::topology::Partition::of(topology, k.get())
            .sizes()
            .into_iter()
            .max()
            .unwrap_or(0),
        None => topology.len(),
    }
}

impl Machine {
    /// Resolves a configuration for a topology on this host ([`MachineConfig::resolve`]), and
    /// checks that the host can hold it (threads, memory maps, memory).
    pub fn new(topology: Topology, config: MachineConfig) -> Result<Self, ConfigError> {
        Self::with_limits(topology, config, &HostLimits::read())
    }

    /// As [`Machine::new`], against given host limits.
    pub fn with_limits(
        topology: Topology,
        config: MachineConfig,
        limits: &HostLimits,
    ) -> Result<Self, ConfigError> {
        let (cores, ncores) = usable_cores();
        let spec = config.resolve_on(&topology, ncores)?;
        let held = held_here(&topology, spec.partitions);
        match spec.time {
            Resolved::Virtual => limits.check_coroutines(held, spec.stack_bytes)?,
            Resolved::Native => limits.check_threads(held, "native")?,
            Resolved::Dilated(_) => limits.check_threads(held, "dilated")?,
        }
        let seats = Seats {
            processors: topology.len(),
            held,
            cores: ncores,
            host_cpus: crate::calibrate::host_cpus(),
            ranked: engines::mpi_ranks().is_some(),
        };
        Ok(Self {
            topology,
            config,
            spec,
            cores,
            seats,
        })
    }

    /// The topology.
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// The configuration as given.
    pub fn config(&self) -> &MachineConfig {
        &self.config
    }

    /// How its runs go: what it resolved.
    pub fn spec(&self) -> &RunSpec {
        &self.spec
    }

    /// How it charges real work: the same path for its processors and for work run outside a
    /// run (a sequential reference).
    pub fn charging(&self) -> &Charging {
        &self.spec.charging
    }

    /// Runs `program` once on every processor and returns their results with the run report.
    ///
    /// The program gets its processor's handle; it returns a result or a [`ProcessorError`]
    /// (which `?` on sends and receives produces).
    pub fn run<M, R, F>(&self, program: F) -> Result<RunRecord<R>, RunError>
    where
        M: Payload,
        R: Send + Wire,
        F: Fn(&mut Processor<M>) -> Result<R, ProcessorError> + Sync,
    {
        let sink = self.trace_sink()?;
        let run = engines::Run {
            spec: &self.spec,
            topology: &self.topology,
            cores: &self.cores,
            seats: self.seats,
            trace: sink.as_ref(),
        };
        match self.spec.time {
            #[cfg(feature = "mpi")]
            Resolved::Virtual if self.spec.partitions.is_some() && engines::ranks::started() => {
                engines::ranks::run(&run, &program)
            }
            Resolved::Virtual if self.spec.partitions.is_some() => {
                engines::Parts::run(&run, &program)
            }
            Resolved::Virtual => engines::Sim::run(&run, &program),
            #[cfg(feature = "mpi")]
            Resolved::Native | Resolved::Dilated(_)
                if self.spec.partitions.is_some() && engines::ranks::started() =>
            {
                engines::ranks::run_native(&run, &program)
            }
            Resolved::Native | Resolved::Dilated(_) => engines::Threads::run(&run, &program),
        }
    }

    /// The run's trace sink, if it is traced: its spill file made in the trace's folder.
    fn trace_sink(&self) -> Result<Option<TraceSink>, RunError> {
        if !self.spec.trace {
            return Ok(None);
        }
        let dir = self
            .spec
            .trace_dir
            .clone()
            .unwrap_or_else(std::env::temp_dir);
        TraceSink::spilling_in(&dir, self.topology.len())
            .map(Some)
            .map_err(|e| RunError::TraceSpill {
                dir: dir.display().to_string(),
                message: e.to_string(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn over_mpi_ranks_the_parts_must_be_the_ranks() {
        let k = |n| NonZeroUsize::new(n);
        assert_eq!(
            check_ranks(k(4), Some(2)),
            Err(ConfigError::PartitionsNotRanks {
                partitions: 4,
                ranks: 2
            })
        );
        let e = check_ranks(k(1), Some(4)).unwrap_err().to_string();
        assert!(e.contains("--partitions 1 on 4 MPI ranks"), "{e}");
        assert_eq!(check_ranks(k(4), Some(4)), Ok(()));
        // Not over ranks, or not partitioned: nothing to check.
        assert_eq!(check_ranks(k(4), None), Ok(()));
        assert_eq!(check_ranks(None, Some(4)), Ok(()));
    }

    #[test]
    fn a_dilation_chosen_over_ranks_needs_the_one_way_time_and_a_latency() {
        let us = Duration::from_micros;
        let link = LinkCost {
            latency: us(20),
            send_overhead: us(5),
            per_byte_ns: 1.0,
            ..LinkCost::default()
        };
        // The crossing is the latency: β is waited for before the message leaves.
        assert_eq!(
            crossing_of(&link, Some(us(230))),
            Ok(Crossing {
                cost: us(20),
                one_way: us(230)
            })
        );
        assert_eq!(crossing_of(&link, None), Err(ConfigError::NoRankCrossing));
        let e = crossing_of(&LinkCost::default(), Some(us(230))).unwrap_err();
        assert_eq!(e, ConfigError::FreeCutLinks { one_way_us: 230.0 });
        assert!(e.to_string().contains("--latency"), "{e}");
        assert!(
            ConfigError::NoRankCrossing
                .to_string()
                .contains("calibrate")
        );
    }

    /// Charges a block that sleeps 30 ms on one processor; returns the machine's work clock
    /// and the compute charged.
    fn charged_for_a_sleep(mode: TimeMode) -> (WorkClock, Duration) {
        let config = MachineConfig {
            mode,
            compute: Some(ComputeCharge::Measured),
            ..MachineConfig::default()
        };
        let machine = Machine::new(Topology::chain(1).unwrap(), config).unwrap();
        let record = machine
            .run(|p: &mut Processor<()>| {
                p.compute(|_| std::thread::sleep(Duration::from_millis(30)));
                Ok(())
            })
            .unwrap();
        let compute_ns = record.report.per_processor[0].accounting.compute_ns;
        (machine.charging().clock(), Duration::from_nanos(compute_ns))
    }

    #[test]
    fn native_time_charges_wall_time_and_dilated_time_thread_cpu_time() {
        // A sleep takes at least its 30 ms of wall time and almost no CPU time: the monotonic
        // clock charges all of it, the thread's CPU-time clock next to nothing.
        let (clock, charged) = charged_for_a_sleep(TimeMode::Native);
        assert_eq!(clock, WorkClock::Monotonic);
        assert!(charged >= Duration::from_millis(30), "{charged:?}");
        let (clock, charged) = charged_for_a_sleep(TimeMode::Dilated(1.0));
        assert_eq!(clock, WorkClock::ThreadCpu);
        assert!(charged < Duration::from_millis(15), "{charged:?}");
        let (clock, charged) = charged_for_a_sleep(TimeMode::Virtual);
        assert_eq!(clock, WorkClock::ThreadCpu);
        assert!(charged < Duration::from_millis(15), "{charged:?}");
    }

    #[test]
    fn auto_runs_natively_only_with_a_core_to_spare_or_one_processor() {
        let config = MachineConfig::default();
        let resolve = |p: usize, cores: usize| {
            config
                .resolve_on(&Topology::chain(p).unwrap(), cores)
                .unwrap()
                .time
        };
        assert_eq!(resolve(1, 1), Resolved::Native);
        assert_eq!(resolve(3, 4), Resolved::Native);
        assert_eq!(resolve(4, 4), Resolved::Virtual);
        assert_eq!(resolve(2, 1), Resolved::Virtual);
    }

    #[test]
    fn a_chosen_dilation_is_resolved_by_the_machine() {
        let config = MachineConfig {
            mode: TimeMode::DilatedChosen,
            link: LinkCost {
                send_overhead: Duration::from_micros(50),
                ..LinkCost::default()
            },
            ..MachineConfig::default()
        };
        let spec = config.resolve_on(&Topology::chain(8).unwrap(), 2).unwrap();
        // (60 µs wake-up + 4 × 5 µs queueing) / (0.1 × 50 µs) = 16.
        assert_eq!(spec.time, Resolved::Dilated(16.0));
        assert_eq!(spec.waits(), Some(WaitStrategy::Sleep));
    }

    #[test]
    fn a_declared_unit_without_a_cost_is_a_configuration_error() {
        let config = MachineConfig {
            mode: TimeMode::Virtual,
            hints: Hints {
                units: vec![crate::WorkUnit("nowhere")],
                ..Hints::default()
            },
            ..MachineConfig::default()
        };
        let err = Machine::new(Topology::chain(2).unwrap(), config).unwrap_err();
        assert!(matches!(err, ConfigError::UnknownUnit(_)), "{err}");
    }
}
