//! Flags shared by several commands: the topology, time mode, link costs, trace files,
//! repetitions and output formats.

use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};
use multicomputer_runtime::{TieOrder, Topology};

use super::limits::{MAX_CAPACITY, MAX_LOOP_COUNT, MAX_RUNS};
use super::values::{parse_bytes, parse_duration, parse_ties, parse_topology, parse_unit_cost};

/// `-t/--topology` and `--root`.
#[derive(Debug, Clone, Args)]
pub(crate) struct TopologyArg {
    /// Interconnection: chain:P, array:P, tree:K:LEVELS, binary:LEVELS, parents:FILE,
    /// ring:P, mesh:AxB, mesh:AxBxC, torus:AxB, torus:AxBxC, hypercube:D or edges:FILE (one
    /// link `A B` a line).
    #[arg(long, short, value_parser = parse_topology, default_value = "binary:3")]
    pub(crate) topology: Topology,
    /// The processor the spanning tree grows from, breadth first (where tasks enter); default:
    /// the tree's own root on trees, processor 0 on other networks.
    #[arg(long, value_name = "P")]
    pub(crate) root: Option<usize>,
}

/// How emulated time maps to wall time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ModeArg {
    /// Processors ≤ cores, pinned, spinning, D = 1: real speedup.
    Native,
    /// Threads sleeping until start + D × emulated time (--dilation D, else D chosen for
    /// fidelity): kept for comparison with virtual time.
    Dilated,
    /// Coroutines under a discrete-event scheduler: events in exact order, the same on every
    /// run, wall time independent of emulated time; 100 000 processors and more.
    Virtual,
    /// Native if the processors leave a core free for the host, else virtual.
    Auto,
}

/// How real work is charged to the emulated clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ComputeArg {
    /// Declared units of work × their cost per unit (the profile's, or --unit-cost):
    /// deterministic.
    Model,
    /// The thread CPU time the work took.
    Measured,
}

/// How processors wait for deadlines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum WaitArg {
    /// Busy-wait (exact; a core per processor).
    Spin,
    /// Sleep with minimal timer slack (tens of µs late; no CPU).
    Sleep,
    /// Sleep, then spin the last 100 µs.
    Hybrid,
    /// Spin natively, else hybrid or sleep.
    Auto,
}

/// How emulated time relates to wall time: `--mode`, `--dilation`, `--wait`, `--profile`.
#[derive(Debug, Clone, Args)]
pub(crate) struct TimeArgs {
    /// Time mode.
    #[arg(long, value_enum, default_value_t = ModeArg::Auto)]
    pub(crate) mode: ModeArg,
    /// Dilation factor D for --mode dilated (a number in 1..=1e6).
    #[arg(long, value_name = "D")]
    pub(crate) dilation: Option<f64>,
    /// Wait strategy.
    #[arg(long, value_enum, default_value_t = WaitArg::Auto)]
    pub(crate) wait: WaitArg,
    /// Machine profile from `calibrate` (wake-up latency for dilation; costs per unit of work
    /// for model charging) [default: <out>/machine-profile.json if it exists].
    #[arg(long, value_name = "FILE")]
    pub(crate) profile: Option<PathBuf>,
    /// How real work is charged [default: model in virtual time, measured otherwise].
    #[arg(long, value_enum)]
    pub(crate) compute: Option<ComputeArg>,
    /// Cost of one unit of declared work, e.g. trial_division=7.5 (ns; repeatable; overrides
    /// the profile).
    #[arg(long, value_name = "UNIT=NS", value_parser = parse_unit_cost)]
    pub(crate) unit_cost: Vec<(String, f64)>,
    /// Stack reserved per processor in virtual time, e.g. 256KiB or 1MiB (mapped lazily)
    /// [default: 256KiB].
    #[arg(long, value_name = "SIZE", value_parser = parse_bytes)]
    pub(crate) stack_size: Option<usize>,
    /// Which processor acts first among simultaneous events in virtual time: index (the
    /// convention), reverse or shuffle:SEED (other legal orders, to see what depends on it).
    #[arg(long, value_name = "ORDER", value_parser = parse_ties, default_value = "index")]
    pub(crate) ties: TieOrder,
    /// Partitioned virtual time: cut the processors into K parts, each run on a thread of its
    /// own, every effect crossing a link taking at least --latency (which must be > 0 for
    /// K > 1). Any K gives the same results; K = 1 is their sequential reference. Virtual
    /// time only.
    #[arg(long, value_name = "K")]
    pub(crate) partitions: Option<NonZeroUsize>,
}

/// Overlapped link costs, which the models charge too: `--latency`, `--per-byte`, and the
/// switching model of routed messages.
#[derive(Debug, Clone, Args)]
pub(crate) struct TransferArgs {
    /// Overlapped transfer time per byte (τ), e.g. 1us or 500ns.
    #[arg(long, value_parser = parse_duration, default_value = "0s", value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) per_byte: Duration,
    /// Overlapped fixed delay per message, per hop (t_h).
    #[arg(long, value_parser = parse_duration, default_value = "0s", value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) latency: Duration,
    /// How routed messages cross the processors between their ends.
    #[arg(long, value_enum, default_value_t = SwitchingArg::StoreAndForward)]
    pub(crate) switching: SwitchingArg,
}

/// `--switching`: the switching model of routed messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SwitchingArg {
    /// Each processor on the way receives the whole message and pays the start-up again to
    /// forward it: h·(β + m·τ + t_h).
    StoreAndForward,
    /// Start-up once, t_h per hop, the body pipelined: β + h·t_h + m·τ.
    CutThrough,
}

/// The emulated message system's other costs and buffering (runs only).
#[derive(Debug, Clone, Args)]
pub(crate) struct MessageArgs {
    /// Non-overlapped start-up cost per message, charged to the sender (β), e.g. 50us.
    #[arg(long, value_parser = parse_duration, default_value = "0s", value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) send_overhead: Duration,
    /// Non-overlapped cost per message charged to the receiver.
    #[arg(long, value_parser = parse_duration, default_value = "0s", value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) recv_overhead: Duration,
    /// Busy-loop iterations per send (degrades the message system, as the scalability paper;
    /// at most 10⁹).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=MAX_LOOP_COUNT))]
    pub(crate) loop_count: u64,
    /// Messages a link buffers before its sender blocks (1..=65536).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=MAX_CAPACITY))]
    pub(crate) capacity: u64,
}

/// A run's processor timeline as files.
#[derive(Debug, Clone, Args)]
pub(crate) struct TraceArgs {
    /// Write the run's processor timeline as Chrome trace-event JSON (open in Perfetto).
    #[arg(long, value_name = "FILE")]
    pub(crate) trace: Option<PathBuf>,
    /// Draw the run's processor timeline (compute, communication, idle) as an SVG; a long
    /// trace is drawn at two intervals a pixel column, in bounded memory.
    #[arg(long, value_name = "FILE")]
    pub(crate) timeline: Option<PathBuf>,
}

/// Repeated runs: `--runs`, `--warmup`.
#[derive(Debug, Clone, Args)]
pub(crate) struct RepeatArgs {
    /// Measured runs; with more than one, every measured quantity is reported as mean ± sd,
    /// min and max.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_RUNS)))]
    pub(crate) runs: u32,
    /// Runs before the measured ones, discarded (they warm caches and the host's clocks).
    #[arg(long, default_value_t = 0, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=i64::from(MAX_RUNS)))]
    pub(crate) warmup: u32,
}

/// How the result is shown and saved: `--json`, `--report`.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct ReportArgs {
    /// Print one JSON object on stdout instead of tables.
    #[arg(long)]
    pub(crate) json: bool,
    /// Also write the whole report (inputs, host, results, plots) to FILE, in the format of
    /// its extension: .html (a self-contained page), .md, .json or .csv. A device or FIFO
    /// (`/dev/stdout`) is written into, as JSON unless its name has one of those extensions.
    #[arg(long, value_name = "FILE")]
    pub(crate) report: Option<PathBuf>,
}

/// Flags every emulated run shares: the machine, its costs, trace files, repetitions and
/// output.
#[derive(Debug, Clone, Args)]
pub(crate) struct RunArgs {
    #[command(flatten)]
    pub(crate) topology: TopologyArg,
    #[command(flatten)]
    pub(crate) time: TimeArgs,
    #[command(flatten)]
    pub(crate) transfer: TransferArgs,
    #[command(flatten)]
    pub(crate) messages: MessageArgs,
    #[command(flatten)]
    pub(crate) trace: TraceArgs,
    #[command(flatten)]
    pub(crate) repeat: RepeatArgs,
    #[command(flatten)]
    pub(crate) output: ReportArgs,
}
