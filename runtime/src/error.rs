//! Typed errors: invalid topologies and configurations, and the ways a run can fail.

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::transport::TransportError;

/// A topology that cannot be built.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum TopologyError {
    /// A topology with no processors (chain or array of 0, empty parent list).
    #[error("a topology needs at least one processor")]
    Empty,
    /// A k-ary tree with k = 0.
    #[error("tree arity k must be at least 1, got 0")]
    ZeroArity,
    /// A k-ary tree with 0 levels.
    #[error("a tree needs at least 1 level, got 0")]
    ZeroLevels,
    /// More processors than this runtime will emulate.
    #[error("{requested} processors requested; at most {max} can be emulated")]
    TooLarge {
        /// Processors the description asks for (saturated at `u64::MAX`).
        requested: u64,
        /// The limit.
        max: usize,
    },
    /// A parent relation without a root, or with more than one.
    #[error("a parent relation needs exactly one root ('-'), found {0}")]
    Roots(usize),
    /// A parent index outside the processor range, or a processor its own parent.
    #[error("processor {processor} has parent {parent}, which is not a valid processor")]
    BadParent {
        /// The processor.
        processor: usize,
        /// Its claimed parent.
        parent: usize,
    },
    /// The parent relation contains a cycle.
    #[error("the parent relation has a cycle through processor {0}")]
    Cycle(usize),
    /// More links than the link tables can index.
    #[error("{links} links; at most {max} can be emulated")]
    TooManyLinks {
        /// Links asked for.
        links: u64,
        /// The limit.
        max: usize,
    },
    /// A link to a processor that does not exist, or from a processor to itself.
    #[error("processor {from} has a link to {to}, which is not another processor")]
    BadLink {
        /// The processor.
        from: usize,
        /// The other end named.
        to: usize,
    },
    /// A link listed at one of its ends only.
    #[error("the link {from}–{to} is listed at one end only")]
    OneSided {
        /// One end.
        from: usize,
        /// The other end.
        to: usize,
    },
    /// A link listed twice.
    #[error("the link {a}–{b} is listed twice")]
    Duplicate {
        /// One end.
        a: usize,
        /// The other end.
        b: usize,
    },
    /// A network in more than one piece.
    #[error("processor {processor} cannot be reached from processor 0")]
    Disconnected {
        /// The first processor not reached.
        processor: usize,
    },
    /// A grid with too few or too many dimensions.
    #[error("a mesh or torus has 1 to {max} dimensions, got {given}")]
    Dimensions {
        /// Dimensions given.
        given: usize,
        /// The most allowed.
        max: usize,
    },
    /// A spanning-tree root that is not a processor.
    #[error("root {root} is not a processor: the topology has processors 0 to {}", .processors - 1)]
    BadRoot {
        /// The root asked for.
        root: usize,
        /// Processors in the topology.
        processors: usize,
    },
    /// A topology description that cannot be parsed.
    #[error("cannot parse topology '{spec}': {reason}")]
    Parse {
        /// What was given.
        spec: String,
        /// Why it was rejected, with the accepted forms.
        reason: String,
    },
}

/// A machine configuration that cannot be run.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ConfigError {
    /// Native mode asked for more processors than cores this thread may use.
    #[error(
        "native mode needs a free core per processor: {processors} processors, {cores} cores \
         available (use dilated or auto mode to emulate more processors than cores)"
    )]
    NotEnoughCores {
        /// Processors in the topology.
        processors: usize,
        /// Cores available to this process.
        cores: usize,
    },
    /// A dilation factor that is not finite and ≥ 1.
    #[error("dilation factor must be a finite number ≥ 1, got {0}")]
    BadDilation(f64),
    /// A link capacity of zero (rendezvous) is not supported.
    #[error("link capacity must be at least 1 (rendezvous channels are not emulated)")]
    ZeroCapacity,
    /// A negative or non-finite per-byte transfer time.
    #[error("per-byte transfer time must be finite and ≥ 0 ns, got {0}")]
    BadPerByte(f64),
    /// More processors than a time mode can run.
    #[error(
        "{processors} processors: {mode} time runs at most {max} (one OS thread each); use \
         virtual time (--mode virtual) for more"
    )]
    TooManyThreads {
        /// Processors in the topology.
        processors: usize,
        /// The mode asked for.
        mode: &'static str,
        /// Its limit.
        max: usize,
    },
    /// A stack size for virtual-time processors that is too small.
    #[error("a processor's stack must be at least {min} bytes, got {given}")]
    StackTooSmall {
        /// What was asked for.
        given: usize,
        /// The smallest allowed.
        min: usize,
    },
    /// The host cannot hold this many processors: a kernel or memory limit would be exceeded.
    #[error(
        "{processors} processors in {mode} time need {needed} {what}, but {limit_name} allows \
         {limit} ({in_use} in use): {fix}"
    )]
    HostLimit {
        /// Processors in the topology.
        processors: usize,
        /// The time mode.
        mode: &'static str,
        /// What runs out (`memory maps`, `threads`, `MiB of memory`).
        what: &'static str,
        /// How much the run needs.
        needed: u64,
        /// The limit's name (`vm.max_map_count`, …).
        limit_name: &'static str,
        /// Its value.
        limit: u64,
        /// How much is already in use.
        in_use: u64,
        /// What the user can do.
        fix: String,
    },
    /// A cost per unit of work that is negative or not finite.
    #[error("the cost per unit of '{unit}' must be finite and ≥ 0 ns, got {ns}")]
    BadUnitCost {
        /// The unit.
        unit: String,
        /// The cost given.
        ns: f64,
    },
    /// Native or dilated time cut into parts outside MPI ranks: such parts are ranks only.
    #[error(
        "--partitions {partitions} with --mode {mode}: native and dilated runs are cut into \
         parts only across MPI ranks, one part a rank; run `mpirun -np {partitions} \
         multicomputer …` with a multicomputer built with `--features mpi`, or use --mode \
         virtual"
    )]
    PartitionsNeedRanks {
        /// The mode it resolved to.
        mode: &'static str,
        /// Parts asked for.
        partitions: usize,
    },
    /// `auto` dilation over MPI ranks without the one-way time between ranks to choose D by.
    #[error(
        "--mode dilated without --dilation over MPI ranks: D is chosen so that cut links keep \
         their emulated costs, from the one-way time between ranks, which the machine profile \
         does not have; measure it with `mpirun -np 2 multicomputer calibrate` (built with \
         `--features mpi`), or give --dilation"
    )]
    NoRankCrossing,
    /// `auto` dilation over MPI ranks with cut links that take no emulated time to cross.
    #[error(
        "--mode dilated without --dilation over MPI ranks: the cut links take no emulated time \
         to cross (no --latency), so no D lets them keep their costs against the one-way time \
         between ranks ({one_way_us:.1} µs); give --latency, or --dilation"
    )]
    FreeCutLinks {
        /// The measured one-way time, µs.
        one_way_us: f64,
    },
    /// A partitioned run over MPI ranks with a number of parts other than the ranks'.
    #[error(
        "--partitions {partitions} on {ranks} MPI ranks: a run over ranks has one part a rank; \
         give --partitions {ranks} or run with `mpirun -np {partitions}`"
    )]
    PartitionsNotRanks {
        /// Parts asked for.
        partitions: usize,
        /// The MPI ranks started.
        ranks: usize,
    },
    /// More parts than processors.
    #[error("--partitions {partitions}: more parts than the {processors} processors")]
    TooManyPartitions {
        /// Parts asked for.
        partitions: usize,
        /// Processors in the topology.
        processors: usize,
    },
    /// Several parts with no lookahead.
    #[error(
        "--partitions {partitions} needs --latency > 0: parts run windows as long as the link \
         latency (the lookahead, the least time an effect takes to cross between parts), and \
         with --latency 0 a window holds no time (zero lookahead)"
    )]
    NoLookahead {
        /// Parts asked for.
        partitions: usize,
    },
    /// A unit of work the workload declared, with no cost to charge it by (model charging).
    #[error(transparent)]
    UnknownUnit(#[from] UnknownUnit),
}

/// What a processor was blocked on when a deadlock was detected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Waiting {
    /// Blocked in a receive on links from these processors.
    Receive {
        /// Peers it would accept a message from.
        from: Vec<usize>,
    },
    /// Blocked receiving a routed message.
    Routed {
        /// The sender it waits for; `None`: any processor.
        from: Option<usize>,
    },
    /// Blocked in a send to this processor (its link buffer full).
    Send {
        /// The receiving peer.
        to: usize,
    },
}

/// One processor's state in a deadlock report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitReport {
    /// Processor index.
    pub processor: usize,
    /// What it waited on.
    pub waiting: Waiting,
}

impl fmt::Display for WaitReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.waiting {
            Waiting::Receive { from } => {
                let peers: Vec<String> = from.iter().map(|p| format!("P{p}")).collect();
                write!(
                    f,
                    "P{} waits to receive from {}",
                    self.processor,
                    if peers.is_empty() {
                        "nobody".to_string()
                    } else {
                        peers.join(" or ")
                    }
                )
            }
            Waiting::Routed { from } => write!(
                f,
                "P{} waits to receive a routed message from {}",
                self.processor,
                from.map_or("any processor".to_string(), |p| format!("P{p}"))
            ),
            Waiting::Send { to } => {
                write!(
                    f,
                    "P{} waits to send to P{to} (link buffer full)",
                    self.processor
                )
            }
        }
    }
}

/// Waits listed in full in an error message; the rest are counted.
const LISTED_WAITS: usize = 8;

fn join_reports(reports: &[WaitReport]) -> String {
    let mut text = reports
        .iter()
        .take(LISTED_WAITS)
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ");
    if reports.len() > LISTED_WAITS {
        text.push_str(&format!(
            "; and {} more processors waiting",
            reports.len() - LISTED_WAITS
        ));
    }
    text
}

/// Why a run ended without results.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum RunError {
    /// The configuration was rejected before any thread started.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A processor's program panicked; the others were stopped.
    #[error("processor P{processor} panicked: {message}")]
    Panic {
        /// Index of the processor that panicked first.
        processor: usize,
        /// The panic message.
        message: String,
    },
    /// A processor's program returned an error of its own.
    #[error("processor P{processor} failed: {error}")]
    Processor {
        /// Index of the processor.
        processor: usize,
        /// What it returned.
        error: ProcessorError,
    },
    /// Every live processor was blocked and no message could move.
    #[error("deadlock: {}", join_reports(.waits))]
    Deadlock {
        /// What each blocked processor waited on.
        waits: Vec<WaitReport>,
    },
    /// No message moved for the configured stall timeout.
    #[error("no progress for {seconds:.1} s: {}", join_reports(.waits))]
    Stalled {
        /// How long nothing moved, in seconds of wall time.
        seconds: f64,
        /// What the blocked processors waited on (running ones are not listed).
        waits: Vec<WaitReport>,
    },
    /// A processor's stack overflowed (virtual time).
    #[error(
        "processor P{processor} overflowed its stack of {} KiB: give processors more \
         (--stack-size)", .stack_bytes / 1024
    )]
    StackOverflow {
        /// Index of the processor.
        processor: usize,
        /// Its stack size.
        stack_bytes: usize,
    },
    /// The parts of a partitioned run could not exchange their cut-link effects.
    #[error(transparent)]
    Exchange(#[from] TransportError),
    /// A traced run could not make its spill file.
    #[error("cannot make the trace's temporary file in {dir}: {message}")]
    TraceSpill {
        /// The folder.
        dir: String,
        /// The OS error.
        message: String,
    },
    /// A processor could not be started (its thread or its stack).
    #[error("could not start processor P{processor}: {message}")]
    Spawn {
        /// Index of the processor.
        processor: usize,
        /// The OS error.
        message: String,
    },
}

/// An error a processor's program sees from a send or receive.
#[derive(Debug, Error, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ProcessorError {
    /// The run is being stopped (another processor panicked or a deadlock was found).
    #[error("the run was aborted")]
    Aborted,
    /// The peer at the other end of the link has finished and its link is drained.
    #[error("the link to P{peer} is closed (the peer has finished)")]
    LinkClosed {
        /// The peer.
        peer: usize,
    },
    /// A link index that this processor does not have.
    #[error("no link {0} on this processor")]
    NoSuchLink(usize),
    /// A processor index outside the machine (a routed send or receive).
    #[error("no processor {0} in this machine")]
    NoSuchProcessor(usize),
    /// A program-level failure, with its message.
    #[error("{0}")]
    Program(String),
    /// A routed message in native or dilated time across MPI ranks.
    #[error(
        "routed messages (send_to, recv_routed) do not cross MPI ranks in native or dilated \
         time yet: run in virtual time (--mode virtual), or in one process"
    )]
    RoutedAcrossRanks,
}

/// A declared unit with no known cost.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error(
    "no cost per unit is known for work unit '{0}': run `multicomputer calibrate`, or give one \
     (--unit-cost {0}=<ns>)"
)]
pub struct UnknownUnit(pub String);
