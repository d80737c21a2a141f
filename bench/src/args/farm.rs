//! `multicomputer farm` and `predict farm`.

use std::time::Duration;

use clap::{Args, ValueEnum};

use super::common::{ReportArgs, RunArgs, TopologyArg, TransferArgs};
use super::limits::{MAX_GRAIN, MAX_QUEUE, MAX_TASK_BYTES, MAX_TASKS};
use super::values::parse_duration;

/// Distribution of synthetic task times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TimesArg {
    /// Every task takes T_e.
    Constant,
    /// Uniform on [0, 2 T_e].
    Uniform,
    /// Exponential with mean T_e.
    Exponential,
}

/// What the tasks compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum KernelArg {
    /// Emulated work of T_e per task.
    Synthetic,
    /// Real work: count the primes in --grain integers per task (charged by CPU time).
    Primes,
}

/// The engine's overheads and flow control, shared by farm and dnc.
#[derive(Debug, Clone, Args)]
pub(crate) struct EngineArgs {
    /// β_e: start-up overhead per locally executed task (message), e.g. 50us.
    #[arg(long, value_parser = parse_duration, default_value = "50us", value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) beta_e: Duration,
    /// β_f: start-up overhead per forwarded (split) task, e.g. 100us.
    #[arg(long, value_parser = parse_duration, default_value = "100us", value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) beta_f: Duration,
    /// Queue of unprocessed tasks per processor (flood fill); the paper used 1–2 (at most
    /// 65536).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=MAX_QUEUE))]
    pub(crate) queue: u64,
    /// Model-guided flow control (for small M): processor i forwards no more than the model's
    /// share of its subtree, F_{i−1}·M.
    #[arg(long)]
    pub(crate) guided: bool,
}

/// The farm's tasks as the model sees them.
#[derive(Debug, Clone, Args)]
pub(crate) struct FarmWorkArgs {
    /// M, the number of tasks (at most 10⁸).
    #[arg(long, short = 'm', default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=MAX_TASKS))]
    pub(crate) tasks: u64,
    /// T_e, the (mean) execution time of a task.
    #[arg(long, value_parser = parse_duration, default_value = "1ms", value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) te: Duration,
    /// Distribution of task times around T_e (synthetic kernel).
    #[arg(long, value_enum, default_value_t = TimesArg::Constant)]
    pub(crate) times: TimesArg,
    /// g, tasks packed into one message (at most M).
    #[arg(long, short = 'g', default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) granularity: u32,
    /// Bytes of one task in a message (its transfer time is bytes × --per-byte; at most 1 GiB).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(0..=MAX_TASK_BYTES))]
    pub(crate) task_bytes: u64,
}

/// The prime kernel's grain when `--grain` is not given.
pub(crate) const DEFAULT_GRAIN: u64 = 20_000;

/// What only a run of the farm needs.
#[derive(Debug, Clone, Args)]
pub(crate) struct FarmRunArgs {
    /// What tasks compute.
    #[arg(long, value_enum, default_value_t = KernelArg::Synthetic)]
    pub(crate) kernel: KernelArg,
    /// Integers examined per task by the prime kernel (its grain; at most 10⁹) [default:
    /// 20000; only with --kernel primes].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_GRAIN))]
    pub(crate) grain: Option<u64>,
    /// Bytes of one task's result (at most 1 GiB).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(0..=MAX_TASK_BYTES))]
    pub(crate) result_bytes: u64,
    /// Seed of the task-time draws.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
}

/// `multicomputer farm`.
#[derive(Debug, Args)]
pub(crate) struct FarmArgs {
    #[command(flatten)]
    pub(crate) engine: EngineArgs,
    #[command(flatten)]
    pub(crate) work: FarmWorkArgs,
    #[command(flatten)]
    pub(crate) farm: FarmRunArgs,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

/// `multicomputer predict farm`.
#[derive(Debug, Args)]
pub(crate) struct PredictFarmArgs {
    #[command(flatten)]
    pub(crate) topology: TopologyArg,
    #[command(flatten)]
    pub(crate) transfer: TransferArgs,
    #[command(flatten)]
    pub(crate) engine: EngineArgs,
    #[command(flatten)]
    pub(crate) work: FarmWorkArgs,
    /// Also draw the paper's Figure 4 (speedup against N for T_e, 5 T_e and 10 T_e, each
    /// curve's peak marked) and Figure 5 (speedup against granularity g for several N) for
    /// this topology family, into a folder of the results.
    #[arg(long)]
    pub(crate) figures: bool,
    /// Marginal efficiency (speedup bought per added processor) below which adding levels no
    /// longer pays: defines the peak operating point.
    #[arg(long, default_value_t = 0.1)]
    pub(crate) min_marginal_efficiency: f64,
    #[command(flatten)]
    pub(crate) output: ReportArgs,
}
