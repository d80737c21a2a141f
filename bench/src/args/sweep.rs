//! `multicomputer sweep farm|dnc|ocl`.

use std::time::Duration;

use clap::{Args, Subcommand};

use super::collective::OperationArg;
use super::common::{MessageArgs, ReportArgs, TimeArgs, TransferArgs};
use super::farm::EngineArgs;
use super::limits::{MAX_RUNS, MAX_TASK_BYTES, MAX_TASKS};
use super::ocl::SweepOclArgs;
use super::values::parse_duration;

/// What `sweep` sweeps.
#[derive(Debug, Subcommand)]
pub(crate) enum SweepCommand {
    /// Processor farms over a grid of topologies, task times and granularities.
    Farm(Box<SweepFarmArgs>),
    /// Divide and conquer over a grid of trees, whole-task times and split kinds.
    Dnc(Box<SweepDncArgs>),
    /// The OCL arrays over the grain-size paper's grid (its two tables, §4.1 and §4.2): time
    /// against M or K for N = 50 and 500, beside the model.
    Ocl(Box<SweepOclArgs>),
    /// A collective's algorithms over networks (P) and message sizes, each beside its α–β–γ
    /// model: time against bytes on log–log axes, and where one algorithm overtakes another,
    /// predicted beside measured.
    Collective(Box<SweepCollectiveArgs>),
}

/// Repetitions of every cell.
#[derive(Debug, Clone, Args)]
pub(crate) struct CellRepeatArgs {
    /// Runs per cell; with more than one, the CSV gives mean, sd, min and max of the speedup
    /// and steady throughput.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_RUNS)))]
    pub(crate) runs: u32,
    /// Runs per cell before the measured ones, discarded.
    #[arg(long, default_value_t = 0, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=i64::from(MAX_RUNS)))]
    pub(crate) warmup: u32,
}

/// `multicomputer sweep farm`.
#[derive(Debug, Args)]
pub(crate) struct SweepFarmArgs {
    /// Topologies, comma-separated; a range of sizes is written lo-hi: `chain:1-16,binary:1-5`.
    #[arg(long, default_value = "chain:1-8,binary:1-4", value_name = "LIST")]
    pub(crate) topologies: String,
    /// Mean task times T_e, comma-separated.
    #[arg(long, default_value = "1ms,5ms", value_name = "LIST")]
    pub(crate) te: String,
    /// Granularities g (tasks per message), comma-separated.
    #[arg(long, default_value = "1", value_name = "LIST")]
    pub(crate) granularity: String,
    /// Task-time distributions, comma-separated: constant, uniform, exponential.
    #[arg(long, default_value = "constant", value_name = "LIST")]
    pub(crate) times: String,
    #[command(flatten)]
    pub(crate) time: TimeArgs,
    #[command(flatten)]
    pub(crate) transfer: TransferArgs,
    #[command(flatten)]
    pub(crate) messages: MessageArgs,
    #[command(flatten)]
    pub(crate) engine: EngineArgs,
    /// M, tasks per run (at most 10⁸).
    #[arg(long, short = 'm', default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=MAX_TASKS))]
    pub(crate) tasks: u64,
    /// Bytes of one task in a message (at most 1 GiB).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(0..=MAX_TASK_BYTES))]
    pub(crate) task_bytes: u64,
    /// Seed of the task-time draws.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    #[command(flatten)]
    pub(crate) repeat: CellRepeatArgs,
    /// Name of the run's folder in the results folder (<out>/<name>/<run>/: rows.csv,
    /// report.json, report.html, plots; <out>/<name>/latest links to the newest run).
    #[arg(long, default_value = "sweep-farm")]
    pub(crate) name: String,
    #[command(flatten)]
    pub(crate) output: ReportArgs,
}

/// `multicomputer sweep dnc`.
#[derive(Debug, Args)]
pub(crate) struct SweepDncArgs {
    /// Trees, comma-separated, with ranges: `binary:1-5,tree:3:1-3`.
    #[arg(long, default_value = "binary:1-4", value_name = "LIST")]
    pub(crate) topologies: String,
    /// Whole-task times T_e(N), comma-separated.
    #[arg(long, default_value = "8ms", value_name = "LIST")]
    pub(crate) te: String,
    /// Split kinds, comma-separated: equal, random.
    #[arg(long, default_value = "equal", value_name = "LIST")]
    pub(crate) split: String,
    /// T_s(N): time to split a whole task.
    #[arg(long, value_parser = parse_duration, default_value = "200us", value_name = "DURATION")]
    pub(crate) ts: Duration,
    /// T_j(N): time to join a whole task.
    #[arg(long, value_parser = parse_duration, default_value = "200us", value_name = "DURATION")]
    pub(crate) tj: Duration,
    #[command(flatten)]
    pub(crate) time: TimeArgs,
    #[command(flatten)]
    pub(crate) transfer: TransferArgs,
    #[command(flatten)]
    pub(crate) messages: MessageArgs,
    #[command(flatten)]
    pub(crate) engine: EngineArgs,
    /// M, tasks per run (at most 10⁸).
    #[arg(long, short = 'm', default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..=MAX_TASKS))]
    pub(crate) tasks: u64,
    /// Bytes of a whole task in a message (at most 1 GiB).
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u64).range(0..=MAX_TASK_BYTES))]
    pub(crate) task_bytes: u64,
    /// Seed of random splits.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    #[command(flatten)]
    pub(crate) repeat: CellRepeatArgs,
    /// Name of the run's folder in the results folder.
    #[arg(long, default_value = "sweep-dnc")]
    pub(crate) name: String,
    #[command(flatten)]
    pub(crate) output: ReportArgs,
}

/// `multicomputer sweep collective`.
#[derive(Debug, Args)]
pub(crate) struct SweepCollectiveArgs {
    /// The operation.
    #[arg(value_enum)]
    pub(crate) operation: OperationArg,
    /// Its algorithms, comma-separated (binomial-tree, ring, recursive-doubling,
    /// recursive-halving, rabenseifner, pairwise, dissemination, dimension-ordered)
    /// [default: every algorithm the operation has].
    #[arg(long, value_name = "LIST")]
    pub(crate) algorithms: Option<String>,
    /// Networks, comma-separated; a range of sizes is written lo-hi: `hypercube:2-6,ring:16`.
    #[arg(long, default_value = "hypercube:4,ring:16", value_name = "LIST")]
    pub(crate) topologies: String,
    /// Bytes of each processor's vector (of 8-byte values), comma-separated; LO-HI is every
    /// power-of-two multiple of LO up to HI: `8-1MiB`, `64,4KiB,1MiB`.
    #[arg(long, default_value = "8-1MiB", value_name = "LIST")]
    pub(crate) bytes: String,
    /// Compute time per byte a reduction combines (γ), e.g. 1ns.
    #[arg(long, value_parser = parse_duration, default_value = "0s", value_name = "DURATION")]
    pub(crate) gamma: Duration,
    #[command(flatten)]
    pub(crate) time: TimeArgs,
    #[command(flatten)]
    pub(crate) transfer: TransferArgs,
    #[command(flatten)]
    pub(crate) messages: MessageArgs,
    #[command(flatten)]
    pub(crate) repeat: CellRepeatArgs,
    /// Name of the run's folder in the results folder.
    #[arg(long, default_value = "sweep-collective")]
    pub(crate) name: String,
    #[command(flatten)]
    pub(crate) output: ReportArgs,
}
