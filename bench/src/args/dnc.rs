//! `multicomputer dnc` and `predict dnc`.

use std::time::Duration;

use clap::{Args, ValueEnum};

use super::common::{ReportArgs, RunArgs, TopologyArg, TransferArgs};
use super::farm::EngineArgs;
use super::limits::{MAX_KEYS, MAX_TASK_BYTES, MAX_TASKS};
use super::values::parse_duration;

/// How tasks are split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SplitArg {
    /// k equal parts.
    Equal,
    /// Random parts (the paper's robustness test).
    Random,
}

/// What the tasks are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum DncKernelArg {
    /// Emulated split, execute and join times.
    Synthetic,
    /// Real mergesort of --keys random integers per task, checked against the sequential sort.
    Mergesort,
}

/// The divide-and-conquer tasks as the model sees them.
#[derive(Debug, Clone, Args)]
pub(crate) struct DncWorkArgs {
    /// M, the number of tasks (at most 10⁸).
    #[arg(long, short = 'm', default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..=MAX_TASKS))]
    pub(crate) tasks: u64,
    /// T_e(N): sequential time of a whole task; level i executes its k^{N−i}-th part.
    #[arg(long, value_parser = parse_duration, default_value = "8ms", value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) te: Duration,
    /// T_s(N): time to split a whole task (level i: its k^{N−i}-th part).
    #[arg(long, value_parser = parse_duration, default_value = "200us", value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) ts: Duration,
    /// T_j(N): time to join a whole task's results (level i: its k^{N−i}-th part).
    #[arg(long, value_parser = parse_duration, default_value = "200us", value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) tj: Duration,
    /// Bytes of a whole task in a message (subtasks carry their share; at most 1 GiB).
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u64).range(0..=MAX_TASK_BYTES))]
    pub(crate) task_bytes: u64,
}

/// Mergesort's keys per task when `--keys` is not given.
pub(crate) const DEFAULT_KEYS: u64 = 50_000;

/// What only a run needs.
#[derive(Debug, Clone, Args)]
pub(crate) struct DncRunArgs {
    /// Equal or random splits.
    #[arg(long, value_enum, default_value_t = SplitArg::Equal)]
    pub(crate) split: SplitArg,
    /// Synthetic costs or real mergesort.
    #[arg(long, value_enum, default_value_t = DncKernelArg::Synthetic)]
    pub(crate) kernel: DncKernelArg,
    /// Keys per task for mergesort (at most 10⁹; all tasks' keys must fit in memory)
    /// [default: 50000; only with --kernel mergesort].
    #[arg(long, value_parser = clap::value_parser!(u64).range(2..=MAX_KEYS))]
    pub(crate) keys: Option<u64>,
    /// Seed of random splits and of mergesort's keys.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
}

/// `multicomputer dnc`.
#[derive(Debug, Args)]
pub(crate) struct DncArgs {
    #[command(flatten)]
    pub(crate) engine: EngineArgs,
    #[command(flatten)]
    pub(crate) work: DncWorkArgs,
    #[command(flatten)]
    pub(crate) dnc: DncRunArgs,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

/// `multicomputer predict dnc`.
#[derive(Debug, Args)]
pub(crate) struct PredictDncArgs {
    #[command(flatten)]
    pub(crate) topology: TopologyArg,
    #[command(flatten)]
    pub(crate) transfer: TransferArgs,
    #[command(flatten)]
    pub(crate) engine: EngineArgs,
    #[command(flatten)]
    pub(crate) work: DncWorkArgs,
    #[command(flatten)]
    pub(crate) output: ReportArgs,
}
