//! How a run goes, decided once: a [`MachineConfig`](crate::MachineConfig) and a topology
//! resolved against this host into a [`RunSpec`] (the time mode and its dilation, the wait
//! strategy, how real work is charged and at what costs, the link costs and buffers). This is
//! the only place the `auto` rules live; the engines, the workloads and the command line read
//! the spec and never work it out again.

use std::num::NonZeroUsize;
use std::time::Duration;

use serde::{Serialize, Serializer};

use crate::TieOrder;
use crate::clock::WaitStrategy;
use crate::link::LinkCost;
use crate::work::{Charging, WorkUnit};

/// What a workload tells the machine about itself before a run: what `auto` time mode needs
/// to choose a dilation factor (see [`choose_dilation`](crate::choose_dilation)), the buffer its
/// protocol needs, and the units of work it declares (resolved into the cost table before the
/// run, so that a unit without a cost fails there).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hints {
    /// Fraction of each processor's time spent in real (measured) compute, 0 to 1.
    pub compute_share: f64,
    /// The smallest emulated cost the program charges besides the link costs.
    pub smallest_cost: Option<Duration>,
    /// Expected wake-ups (messages to sleeping processors, deadlines) per emulated second over
    /// the whole machine.
    pub events_per_s: Option<f64>,
    /// Messages every link must buffer for the protocol not to deadlock.
    pub min_capacity: usize,
    /// The units of work its compute blocks declare.
    pub units: Vec<WorkUnit>,
}

impl Default for Hints {
    /// Nothing known: no real compute, no smallest cost, no rate, capacity 1, no units.
    fn default() -> Self {
        Self {
            compute_share: 0.0,
            smallest_cost: None,
            events_per_s: None,
            min_capacity: 1,
            units: Vec::new(),
        }
    }
}

/// The time mode a machine resolved to (never `auto`, never a dilation still to choose).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Resolved {
    /// Pinned OS threads, D = 1: wall time is real time.
    Native,
    /// OS threads waiting for `start + D × emulated time`.
    Dilated(f64),
    /// Coroutines under the discrete-event scheduler.
    Virtual,
}

impl Resolved {
    /// `native`, `dilated` or `virtual`.
    pub fn name(self) -> &'static str {
        match self {
            Resolved::Native => "native",
            Resolved::Dilated(_) => "dilated",
            Resolved::Virtual => "virtual",
        }
    }

    /// The dilation factor D (1 natively; none in virtual time, where wall time is unrelated
    /// to emulated time).
    pub fn dilation(self) -> Option<f64> {
        match self {
            Resolved::Native => Some(1.0),
            Resolved::Dilated(d) => Some(d),
            Resolved::Virtual => None,
        }
    }

    /// Whether it runs natively (pinned, D = 1).
    pub fn is_native(self) -> bool {
        self == Resolved::Native
    }

    /// Whether it runs in virtual time.
    pub fn is_virtual(self) -> bool {
        self == Resolved::Virtual
    }

    /// Its name alone, as a run report writes it (`"mode": "virtual"`).
    pub(crate) fn serialize_name<S: Serializer>(r: &Resolved, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(r.name())
    }
}

/// How a run goes: everything a machine resolved before it, and all an engine is given.
#[derive(Debug, Clone, Serialize)]
pub struct RunSpec {
    /// The time mode, with its dilation.
    pub time: Resolved,
    /// How processors wait for deadlines (native and dilated time; never `auto`).
    pub wait: WaitStrategy,
    /// How real work is charged, on which clock, at what costs.
    pub charging: Charging,
    /// The costs of the message system.
    pub link: LinkCost,
    /// Messages a link buffers before its sender blocks (at least the workload's minimum).
    pub capacity: usize,
    /// A wait that ends later than this (emulated) counts as late in the fidelity report.
    pub tolerance: Duration,
    /// Record an event trace.
    pub trace: bool,
    /// The folder a traced run spills its trace to (`None`: the system's temporary folder).
    #[serde(skip)]
    pub trace_dir: Option<std::path::PathBuf>,
    /// Stack reserved for each processor in virtual time, bytes.
    pub stack_bytes: usize,
    /// How often the deadlock monitor looks (wall time, threads only).
    pub deadlock_check: Duration,
    /// Report a stall when no message moves for this long (wall time, threads only).
    pub stall_timeout: Option<Duration>,
    /// Which processor acts first among simultaneous events (virtual time).
    pub ties: TieOrder,
    /// Partitioned virtual time: the run's parts (`None`: the sequential engine, today's
    /// semantics; see [`MachineConfig::partitions`](crate::MachineConfig::partitions)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partitions: Option<NonZeroUsize>,
    /// A dilation chosen for fidelity (`--mode dilated` without `--dilation`): which
    /// requirement set D, in words ([`DilationChoice`](crate::DilationChoice)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dilation_chosen: Option<String>,
}

impl RunSpec {
    /// The wait strategy actually used: none in virtual time, where nothing waits in real
    /// time.
    pub fn waits(&self) -> Option<WaitStrategy> {
        (!self.time.is_virtual()).then_some(self.wait)
    }
}
