//! The machine: a topology and a configuration resolved against this host (time mode,
//! dilation, wait strategy, how real work is charged, the host's limits), and the run of one
//! program on all its processors.
//!
//! A run goes to one of two engines, which take the same program and return the same record:
//!
//! - **OS threads** (`threads.rs`), for native and dilated time: one thread per processor,
//!   waiting in real time; see its protocol there.
//! - **the discrete-event scheduler** (`sim/`), for virtual time: one coroutine per processor
//!   on one thread, in exact emulated-time order.

mod threads;

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use crate::TieOrder;
use crate::clock::{
    AUTO_LATENESS_SHARE, DilationInputs, TimeMode, WaitStrategy, WorkClock, choose_dilation,
};
use crate::error::{ConfigError, ProcessorError, RunError};
use crate::limits::HostLimits;
use crate::link::{LinkCost, Payload};
use crate::processor::{Charging, Processor};
use crate::report::RunRecord;
use crate::sim::{self, DEFAULT_STACK_BYTES, MIN_STACK_BYTES};
use crate::topology::Topology;
use crate::work::{ComputeCharge, WorkCosts};

/// Host wake-up latency assumed by dilated `auto` choices when no calibrated profile is given.
pub const DEFAULT_WAKEUP: Duration = Duration::from_micros(60);

/// CPU time of one sleep/wake cycle assumed when no profile is given.
pub const DEFAULT_WAKE_CPU: Duration = Duration::from_micros(5);

/// How a machine runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MachineConfig {
    /// Native, dilated, virtual or auto.
    pub mode: TimeMode,
    /// How processors wait for deadlines (native and dilated time).
    pub wait: WaitStrategy,
    /// The costs of the message system.
    pub link: LinkCost,
    /// Messages a link buffers before its sender blocks (≥ 1).
    pub capacity: usize,
    /// How real work is charged; `None`: model in virtual time, measured otherwise.
    pub compute: Option<ComputeCharge>,
    /// Costs per unit of declared work and per degradation-loop iteration (model charging).
    pub work_costs: WorkCosts,
    /// Stack reserved for each processor in virtual time, bytes (mapped lazily).
    pub stack_bytes: usize,
    /// Record an event trace.
    pub trace: bool,
    /// A wait that ends later than this (emulated) counts as late in the fidelity report;
    /// `None`: [`AUTO_LATENESS_SHARE`] of the smallest emulated cost (at least 1 µs), or 10 µs
    /// if none is known.
    pub tolerance: Option<Duration>,
    /// How often the deadlock monitor looks (wall time, threads only).
    pub deadlock_check: Duration,
    /// Report a stall when no message moves for this long (wall time, threads only);
    /// `None` = never.
    pub stall_timeout: Option<Duration>,
    /// For dilation: the fraction of each processor's time spent in real compute (0 to 1).
    pub compute_share: f64,
    /// For dilation: the smallest emulated cost the program charges besides the link costs.
    pub smallest_cost: Option<Duration>,
    /// For dilation: expected wake-ups (messages to sleeping processors, deadlines) per
    /// emulated second over the whole machine, if known.
    pub events_per_s: Option<f64>,
    /// For dilation: the host's wake-up latency (from `calibrate`).
    pub wakeup: Duration,
    /// For dilation: the CPU time of one sleep/wake cycle (from `calibrate`).
    pub wake_cpu: Duration,
    /// Which processor acts first among simultaneous events (virtual time; [`TieOrder`]).
    pub ties: TieOrder,
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
            stack_bytes: DEFAULT_STACK_BYTES,
            trace: false,
            tolerance: None,
            deadlock_check: Duration::from_millis(20),
            stall_timeout: None,
            compute_share: 0.0,
            smallest_cost: None,
            events_per_s: None,
            wakeup: DEFAULT_WAKEUP,
            wake_cpu: DEFAULT_WAKE_CPU,
            ties: TieOrder::Index,
        }
    }
}

/// The time mode a machine resolved to.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Resolved {
    /// Pinned, spinning OS threads, D = 1.
    Native,
    /// OS threads waiting for `start + D × emulated time`.
    Dilated(f64),
    /// Coroutines under the discrete-event scheduler.
    Virtual,
}

/// A topology and a configuration, resolved against this host.
#[derive(Debug, Clone)]
pub struct Machine {
    topology: Topology,
    config: MachineConfig,
    resolved: Resolved,
    charge: ComputeCharge,
    strategy: WaitStrategy,
    tolerance: Duration,
    cores: Vec<core_affinity::CoreId>,
}

/// The cores this process may run on.
fn usable_cores() -> (Vec<core_affinity::CoreId>, usize) {
    let cores = core_affinity::get_core_ids().unwrap_or_default();
    let n = if cores.is_empty() {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        cores.len()
    };
    (cores, n)
}

impl Machine {
    /// Resolves a configuration for a topology on this host (mode, dilation, wait strategy,
    /// compute charging), and checks that the host can hold it (threads, memory maps, memory).
    pub fn new(topology: Topology, config: MachineConfig) -> Result<Self, ConfigError> {
        Self::with_limits(topology, config, &HostLimits::read())
    }

    /// As [`Machine::new`], against given host limits.
    pub fn with_limits(
        topology: Topology,
        config: MachineConfig,
        limits: &HostLimits,
    ) -> Result<Self, ConfigError> {
        config.link.validate()?;
        if config.capacity == 0 {
            return Err(ConfigError::ZeroCapacity);
        }
        for (unit, &ns) in &config.work_costs.ns_per_unit {
            if !(ns.is_finite() && ns >= 0.0) {
                return Err(ConfigError::BadUnitCost {
                    unit: unit.clone(),
                    ns,
                });
            }
        }
        let loop_ns = config.work_costs.loop_iteration_ns;
        if !(loop_ns.is_finite() && loop_ns >= 0.0) {
            return Err(ConfigError::BadUnitCost {
                unit: "loop_iteration".into(),
                ns: loop_ns,
            });
        }
        let (cores, ncores) = usable_cores();
        let p = topology.len();
        let smallest = [config.link.smallest_cost(), config.smallest_cost]
            .into_iter()
            .flatten()
            .min();
        let resolved = match config.mode {
            TimeMode::Native => {
                if p > ncores {
                    return Err(ConfigError::NotEnoughCores {
                        processors: p,
                        cores: ncores,
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
            TimeMode::Virtual => Resolved::Virtual,
            // Native only with a core to spare: a processor spinning on every core shares its
            // core with the OS and anything else the host runs, and each preemption goes
            // straight into emulated time. Ask for `Native` to use them all.
            TimeMode::Auto if p < ncores || p == 1 => Resolved::Native,
            TimeMode::Auto => Resolved::Virtual,
        };
        match resolved {
            Resolved::Virtual => {
                if config.stack_bytes < MIN_STACK_BYTES {
                    return Err(ConfigError::StackTooSmall {
                        given: config.stack_bytes,
                        min: MIN_STACK_BYTES,
                    });
                }
                limits.check_coroutines(p, config.stack_bytes)?;
            }
            Resolved::Native => limits.check_threads(p, "native")?,
            Resolved::Dilated(_) => limits.check_threads(p, "dilated")?,
        }
        let tolerance = config.tolerance.unwrap_or_else(|| {
            smallest.map_or(Duration::from_micros(10), |s| {
                s.mul_f64(AUTO_LATENESS_SHARE).max(Duration::from_micros(1))
            })
        });
        let native = resolved == Resolved::Native;
        let strategy = config.wait.resolve(native, p, ncores);
        let charge = config.compute.unwrap_or(match resolved {
            Resolved::Virtual => ComputeCharge::Model,
            _ => ComputeCharge::Measured,
        });
        Ok(Self {
            topology,
            config,
            resolved,
            charge,
            strategy,
            tolerance,
            cores,
        })
    }

    /// The dilation factor D a dilated run of `config` on `topology` would pick on this host
    /// (see [`choose_dilation`]).
    pub fn suggested_dilation(topology: &Topology, config: &MachineConfig) -> f64 {
        let (_, ncores) = usable_cores();
        let smallest = [config.link.smallest_cost(), config.smallest_cost]
            .into_iter()
            .flatten()
            .min();
        choose_dilation(&DilationInputs {
            processors: topology.len(),
            cores: ncores,
            smallest_cost: smallest.unwrap_or(Duration::ZERO),
            compute_share: config.compute_share,
            wakeup: config.wakeup,
            wake_cpu: config.wake_cpu,
            events_per_s: config.events_per_s,
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

    /// The time mode it runs in: `native`, `dilated` or `virtual`.
    pub fn mode(&self) -> &'static str {
        match self.resolved {
            Resolved::Native => "native",
            Resolved::Dilated(_) => "dilated",
            Resolved::Virtual => "virtual",
        }
    }

    /// The dilation factor D this machine runs with (1 in native mode; none in virtual mode,
    /// where wall time is unrelated to emulated time).
    pub fn dilation(&self) -> Option<f64> {
        match self.resolved {
            Resolved::Native => Some(1.0),
            Resolved::Dilated(d) => Some(d),
            Resolved::Virtual => None,
        }
    }

    /// Whether it runs natively (pinned, D = 1).
    pub fn is_native(&self) -> bool {
        self.resolved == Resolved::Native
    }

    /// Whether it runs in virtual time.
    pub fn is_virtual(&self) -> bool {
        self.resolved == Resolved::Virtual
    }

    /// How real work is charged.
    pub fn compute_charge(&self) -> ComputeCharge {
        self.charge
    }

    /// The resolved wait strategy (native and dilated time).
    pub fn strategy(&self) -> WaitStrategy {
        self.strategy
    }

    /// The clock that times real work in measured charging: monotonic natively (a pinned
    /// processor owns its core), thread CPU time in dilated and virtual time.
    pub fn work_clock(&self) -> WorkClock {
        match self.resolved {
            Resolved::Native => WorkClock::Monotonic,
            Resolved::Dilated(_) | Resolved::Virtual => WorkClock::ThreadCpu,
        }
    }

    fn charging(&self) -> Charging {
        Charging {
            charge: self.charge,
            clock: self.work_clock(),
            costs: Arc::new(self.config.work_costs.clone()),
        }
    }

    /// Runs `program` once on every processor and returns their results with the run report.
    ///
    /// The program gets its processor's handle; it returns a result or a [`ProcessorError`]
    /// (which `?` on sends and receives produces).
    pub fn run<M, R, F>(&self, program: F) -> Result<RunRecord<R>, RunError>
    where
        M: Payload,
        R: Send,
        F: Fn(&mut Processor<M>) -> Result<R, ProcessorError> + Sync,
    {
        match self.resolved {
            Resolved::Virtual => {
                let settings = sim::Settings {
                    cost: self.config.link,
                    capacity: self.config.capacity,
                    charging: self.charging(),
                    trace: self.config.trace,
                    stack_bytes: self.config.stack_bytes,
                    ties: self.config.ties,
                };
                sim::run(&self.topology, &settings, &program)
            }
            Resolved::Native => threads::run(self, 1.0, &program),
            Resolved::Dilated(d) => threads::run(self, d, &program),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        (machine.work_clock(), Duration::from_nanos(compute_ns))
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
}
