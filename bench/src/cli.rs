//! Command-line arguments as clap parses them (the "low-level" arguments). Each command turns
//! its arguments into a validated configuration before anything runs.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use multicomputer_runtime::Topology;

use crate::commands::dnc::{DncArgs, PredictDncArgs};
use crate::commands::farm::{FarmArgs, PredictFarmArgs};
use crate::commands::fit::FitCommand;
use crate::commands::ising::IsingArgs;
use crate::commands::ocl::OclArgs;
use crate::commands::scaling::ScalingArgs;
use crate::commands::sweep::SweepCommand;

/// Emulate a message-passing multicomputer (a transputer-style network) on this machine's
/// threads, run parallel programs on it and compare them with analytic performance models.
///
/// With no command, runs a short tour: calibrates this host, emulates a few machines, and
/// writes its results to the results folder.
#[derive(Debug, Parser)]
#[command(name = "multicomputer", version, propagate_version = true)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
    /// Folder for result files (profiles, CSV, JSON, SVG); files are written atomically.
    #[arg(long, global = true, default_value = "results", value_name = "DIR")]
    pub(crate) out: PathBuf,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Measure this host's own costs (message, wake-up, occupy error, clock) and save them as a
    /// machine profile that `auto` mode and the models use.
    Calibrate(CalibrateArgs),
    /// Run a synthetic program on an emulated machine: every processor occupies itself for a
    /// set time each round, optionally reducing to the root between rounds. Shows emulated
    /// against wall time, the dilation factor and the run's fidelity.
    Emulate(Box<EmulateArgs>),
    /// Compare the runtime's per-message cost with a bare crossbeam ping-pong, in one run.
    Pingpong(PingpongArgs),
    /// Run a processor farm on the tree task engine and print measured beside predicted
    /// (throughput, speedup, makespan, per-level task fractions f_i).
    Farm(Box<FarmArgs>),
    /// Run divide and conquer on a k-ary tree (synthetic T_s, T_e, T_j per level, or real
    /// mergesort) and print measured beside predicted.
    Dnc(Box<DncArgs>),
    /// Run the OCL (Occurrence Count Last) systolic array of the grain-size paper — fine
    /// grained, [M,1], [K,K] or [M,K] — one process per emulated processor, and print measured
    /// beside predicted time; the output is checked against the sequential reference.
    Ocl(Box<OclArgs>),
    /// Print a model's prediction alone (no run).
    #[command(subcommand)]
    Predict(PredictCommand),
    /// Run a grid of configurations with a progress bar; write CSV, JSON and SVG plots.
    #[command(subcommand)]
    Sweep(SweepCommand),
    /// Fit a model's cost parameters to measurements (a sweep's CSV or your own table).
    #[command(subcommand)]
    Fit(FitCommand),
    /// Run the scalability paper's ising program (Metropolis Monte Carlo, samples over
    /// processors) once, under the centralized or the tree control mechanism.
    Ising(Box<IsingArgs>),
    /// The scalability paper's method: ising over P × loop_counts, fit a + b·log P per
    /// loop_count, test the candidate's consistency; or the same analysis on your own table
    /// (--csv).
    Scaling(Box<ScalingArgs>),
    /// The default tour (what running with no command does).
    Tour,
}

/// What `predict` predicts.
#[derive(Debug, Subcommand)]
pub(crate) enum PredictCommand {
    /// The processor-farm model (steady state, start-up, speedup, f_i).
    Farm(Box<PredictFarmArgs>),
    /// The divide-and-conquer model (recurrence (j), S_max (k), start-up, speedup).
    Dnc(Box<PredictDncArgs>),
}

#[derive(Debug, Args)]
pub(crate) struct CalibrateArgs {
    /// Samples per measured quantity (more is slower and steadier).
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(5..))]
    pub(crate) samples: u32,
    /// Print one JSON object on stdout instead of a table.
    #[arg(long)]
    pub(crate) json: bool,
    /// Where to save the profile [default: <out>/machine-profile.json].
    #[arg(long, value_name = "FILE")]
    pub(crate) profile: Option<PathBuf>,
}

/// How emulated time maps to wall time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ModeArg {
    /// Processors ≤ cores, pinned, spinning, D = 1: real speedup.
    Native,
    /// Threads sleeping until start + D × emulated time (--dilation D, or D chosen for
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
    /// Declared units of work × their cost per unit (profile, --unit-cost): deterministic.
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

/// How emulated time relates to wall time: `--mode`, `--dilation`, `--wait`.
#[derive(Debug, Clone, Args)]
pub(crate) struct TimeArgs {
    /// Time mode.
    #[arg(long, value_enum, default_value_t = ModeArg::Auto)]
    pub(crate) mode: ModeArg,
    /// Dilation factor D for --mode dilated (a number ≥ 1).
    #[arg(long, value_name = "D")]
    pub(crate) dilation: Option<f64>,
    /// Wait strategy.
    #[arg(long, value_enum, default_value_t = WaitArg::Auto)]
    pub(crate) wait: WaitArg,
    /// How real work is charged [default: model in virtual time, measured otherwise].
    #[arg(long, value_enum)]
    pub(crate) compute: Option<ComputeArg>,
    /// Cost of one unit of declared work, e.g. trial_division=7.5 (ns; repeatable; overrides
    /// the profile).
    #[arg(long, value_name = "UNIT=NS", value_parser = parse_unit_cost)]
    pub(crate) unit_cost: Vec<(String, f64)>,
    /// Stack reserved per processor in virtual time, e.g. 256KiB or 1MiB (mapped lazily).
    #[arg(long, value_name = "SIZE", value_parser = parse_bytes)]
    pub(crate) stack_size: Option<usize>,
}

impl Default for TimeArgs {
    /// `--mode auto --wait auto`, no dilation given.
    fn default() -> Self {
        Self {
            mode: ModeArg::Auto,
            dilation: None,
            wait: WaitArg::Auto,
            compute: None,
            unit_cost: Vec::new(),
            stack_size: None,
        }
    }
}

/// Options every emulated run shares.
#[derive(Debug, Clone, Args)]
pub(crate) struct MachineArgs {
    /// Interconnection: chain:P, array:P, tree:K:LEVELS, binary:LEVELS or parents:FILE.
    #[arg(long, short, value_parser = parse_topology, default_value = "binary:3")]
    pub(crate) topology: Topology,
    #[command(flatten)]
    pub(crate) time: TimeArgs,
    /// Non-overlapped start-up cost per message, charged to the sender (β), e.g. 50us.
    #[arg(long, value_parser = parse_duration, default_value = "0s", value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) send_overhead: Duration,
    /// Non-overlapped cost per message charged to the receiver.
    #[arg(long, value_parser = parse_duration, default_value = "0s", value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) recv_overhead: Duration,
    /// Overlapped transfer time per byte (τ), e.g. 1us or 500ns.
    #[arg(long, value_parser = parse_duration, default_value = "0s", value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) per_byte: Duration,
    /// Overlapped fixed delay per message.
    #[arg(long, value_parser = parse_duration, default_value = "0s", value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) latency: Duration,
    /// Busy-loop iterations per send (degrades the message system, as the scalability paper).
    #[arg(long, default_value_t = 0)]
    pub(crate) loop_count: u64,
    /// Messages a link buffers before its sender blocks.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) capacity: u64,
    /// Write the run's processor timeline as Chrome trace-event JSON (open in Perfetto).
    #[arg(long, value_name = "FILE")]
    pub(crate) trace: Option<PathBuf>,
    /// Draw the run's processor timeline (compute, communication, idle) as an SVG.
    #[arg(long, value_name = "FILE")]
    pub(crate) timeline: Option<PathBuf>,
    /// Machine profile from `calibrate` (its wake-up latency guides auto mode)
    /// [default: <out>/machine-profile.json if it exists].
    #[arg(long, value_name = "FILE")]
    pub(crate) profile: Option<PathBuf>,
}

/// What the synthetic program does between occupations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum PatternArg {
    /// No messages: each processor's occupations are chained by absolute deadlines.
    Independent,
    /// After each round, children send one message to their parent (a reduction to the root).
    Reduce,
}

#[derive(Debug, Args)]
pub(crate) struct EmulateArgs {
    #[command(flatten)]
    pub(crate) machine: MachineArgs,
    /// Rounds per processor.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) rounds: u64,
    /// Emulated occupation per round, e.g. 10ms.
    #[arg(long, value_parser = parse_duration, default_value = "10ms", value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) occupy: Duration,
    /// Communication pattern between rounds.
    #[arg(long, value_enum, default_value_t = PatternArg::Independent)]
    pub(crate) pattern: PatternArg,
    /// Print one JSON object on stdout instead of tables.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct PingpongArgs {
    /// Round trips per measurement.
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(100..))]
    pub(crate) round_trips: u64,
    /// Repetitions of each measurement (the median is reported).
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) repeat: u32,
    /// Print one JSON object on stdout instead of a table.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Parses a duration with a unit (`250us`, `1ms`, `2s`, `500ns`).
pub(crate) fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    if t.starts_with('-') {
        return Err(format!("'{s}' is negative; durations must be ≥ 0"));
    }
    if !t.is_empty() && t.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return Err(format!(
            "'{s}' has no unit; write e.g. {t}us, {t}ms or {t}s"
        ));
    }
    humantime::parse_duration(t)
        .map_err(|e| format!("'{s}' is not a duration ({e}); write e.g. 250us, 1ms, 1.5s"))
}

/// Parses `UNIT=NS`, a cost per unit of work in nanoseconds.
pub(crate) fn parse_unit_cost(s: &str) -> Result<(String, f64), String> {
    let (unit, ns) = s
        .split_once('=')
        .ok_or_else(|| format!("'{s}' is not UNIT=NS (e.g. trial_division=7.5)"))?;
    let ns: f64 = ns
        .trim()
        .parse()
        .map_err(|_| format!("'{ns}' is not a number of nanoseconds"))?;
    if !(ns.is_finite() && ns >= 0.0) {
        return Err(format!("the cost of '{unit}' must be finite and ≥ 0 ns"));
    }
    Ok((unit.trim().to_string(), ns))
}

/// Parses a size in bytes: a whole number with an optional unit (B, KiB, MiB, GiB; K, M, G).
pub(crate) fn parse_bytes(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let n: u64 = number
        .parse()
        .map_err(|_| format!("'{s}' is not a size (e.g. 256KiB, 1MiB)"))?;
    let scale: u64 = match unit.trim() {
        "" | "B" => 1,
        "K" | "KiB" | "k" => 1 << 10,
        "M" | "MiB" => 1 << 20,
        "G" | "GiB" => 1 << 30,
        other => {
            return Err(format!(
                "unknown size unit '{other}' in '{s}': use KiB, MiB or GiB"
            ));
        }
    };
    n.checked_mul(scale)
        .and_then(|b| usize::try_from(b).ok())
        .ok_or_else(|| format!("'{s}' is too large"))
}

pub(crate) fn parse_topology(s: &str) -> Result<Topology, String> {
    Topology::parse(s).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_need_units_and_must_not_be_negative() {
        assert_eq!(parse_duration("250us"), Ok(Duration::from_micros(250)));
        assert_eq!(parse_duration("1ms"), Ok(Duration::from_millis(1)));
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert!(parse_duration("250").unwrap_err().contains("no unit"));
        assert!(parse_duration("-1ms").unwrap_err().contains("negative"));
        assert!(
            parse_duration("fast")
                .unwrap_err()
                .contains("not a duration")
        );
    }

    #[test]
    fn the_command_line_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
