//! `multicomputer ocl`, `sweep ocl` and `fit ocl`.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};

use super::common::{RepeatArgs, ReportArgs, TraceArgs, WaitArg};
use super::limits::{MAX_RUNS, MAX_STREAM};
use super::values::parse_duration;

/// Whether costs are emulated or real.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CostsArg {
    /// The model's costs, emulated: α0 + Kα1 per communication (a rendezvous), β per comparison.
    Emulated,
    /// Real compute and real channels, timed by the wall clock (a core per process).
    Native,
}

/// The machine and cost options shared by `ocl` and `sweep ocl`.
#[derive(Debug, Clone, Args)]
pub(crate) struct OclMachineArgs {
    /// Emulated costs (the model's α, β; times are exact) or native (real work, wall clock).
    #[arg(long, value_enum, default_value_t = CostsArg::Emulated)]
    pub(crate) costs: CostsArg,
    /// α, time of one communication of the single-value programs (fine, m1)
    /// [default: §4.1's 12.33us].
    #[arg(long, value_parser = parse_duration, value_name = "DURATION", conflicts_with_all = ["alpha0", "alpha1"])]
    pub(crate) alpha: Option<Duration>,
    /// α0, set-up time of a communication of a packet (kk, mk) [default: §4.2's 5.77us].
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    pub(crate) alpha0: Option<Duration>,
    /// α1, time per value of a packet (kk, mk) [default: §4.2's 7.42us].
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    pub(crate) alpha1: Option<Duration>,
    /// β, time of one comparison [default: 2.88us for fine and m1 (§4.1), 2.45us for kk and mk
    /// (§4.2)].
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    pub(crate) beta: Option<Duration>,
    /// Dilation factor D (1..=1e6) for emulated costs. Emulated times do not depend on it (every
    /// receive names its link); it only sets how closely wall time follows emulated time.
    /// [default: 1 if the processes leave a core free for the host, else chosen from the
    /// expected message rate so that the host keeps up]
    #[arg(long, value_name = "D")]
    pub(crate) dilation: Option<f64>,
    /// How processors wait for deadlines.
    #[arg(long, value_enum, default_value_t = WaitArg::Auto)]
    pub(crate) wait: WaitArg,
    /// Machine profile from `calibrate` (its wake-up latency guides the default dilation)
    /// [default: <out>/machine-profile.json if it exists].
    #[arg(long, value_name = "FILE")]
    pub(crate) profile: Option<PathBuf>,
}

/// `multicomputer ocl`.
#[derive(Debug, Args)]
pub(crate) struct OclArgs {
    /// Window length N (the fine-grained array has N processes; at most 2097152).
    #[arg(long, short = 'n', value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=multicomputer_runtime::tuning::MAX_PROCESSORS as u64))]
    pub(crate) window: usize,
    /// The program: fine (N processes), m1:M (N/M processes, a window of M each), kk:K (N/K
    /// processes, packets of K), mk:M,K (K divides M).
    #[arg(long, default_value = "fine", value_name = "fine|m1:M|kk:K|mk:M,K")]
    pub(crate) transform: String,
    /// Stream length L of the random stream (at most 10⁹; it must fit in memory).
    #[arg(long, short = 'l', default_value_t = 10_000, conflicts_with = "input", value_parser = clap::value_parser!(u64).range(1..=MAX_STREAM))]
    pub(crate) length: u64,
    /// Seed of the random stream.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Random values are drawn uniformly from 0..=V (small V: many repeats to count).
    #[arg(long, default_value_t = 9, value_name = "V")]
    pub(crate) values: i64,
    /// Read the stream A from FILE instead: one integer per line (blank lines ignored).
    #[arg(long, value_name = "FILE")]
    pub(crate) input: Option<PathBuf>,
    /// Write the output stream B to FILE, one count per line.
    #[arg(long, value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) machine: OclMachineArgs,
    #[command(flatten)]
    pub(crate) trace: TraceArgs,
    #[command(flatten)]
    pub(crate) repeat: RepeatArgs,
    #[command(flatten)]
    pub(crate) report: ReportArgs,
}

/// Which of the paper's two tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TableArg {
    /// [M,1] (§4.1): grain column `m`.
    M1,
    /// [K,K] (§4.2): grain column `k`.
    Kk,
}

/// `multicomputer sweep ocl`.
#[derive(Debug, Args)]
pub(crate) struct SweepOclArgs {
    /// The tables to reproduce, comma-separated: m1 (§4.1), kk (§4.2).
    #[arg(long, default_value = "m1,kk", value_name = "LIST")]
    pub(crate) transforms: String,
    /// Window lengths N, comma-separated.
    #[arg(long, default_value = "50,500", value_name = "LIST")]
    pub(crate) windows: String,
    /// M or K values, comma-separated, for every N (each must divide N)
    /// [default: the paper's: 1,2,5,10,25,50 for N = 50 and 10,20,25,50,100,250,500 for N = 500;
    /// for other N, the divisors of N; with native costs only those whose N/M processes fit on
    /// this host's cores].
    #[arg(long, value_name = "LIST")]
    pub(crate) grains: Option<String>,
    /// Explicit cells `N:G` (G = M or K), comma-separated, instead of --windows × --grains,
    /// e.g. `25:25,50:25,100:100,200:100` (native costs need a core per process).
    #[arg(long, value_name = "LIST", conflicts_with_all = ["windows", "grains"])]
    pub(crate) cells: Option<String>,
    /// Stream length L. The paper used 100 000; the default is shortened to 2 000 (a multiple
    /// of every K in the grid) to keep the 500-process emulations short. Emulated times are
    /// exact and their model is linear in L, so a shorter L loses nothing but the paper's
    /// absolute times (its 13 equations hold for any L).
    #[arg(long, short = 'l', default_value_t = 2_000, value_parser = clap::value_parser!(u64).range(1..=MAX_STREAM))]
    pub(crate) length: u64,
    /// Seed of the random stream.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    #[command(flatten)]
    pub(crate) machine: OclMachineArgs,
    /// Runs per cell (alias --repeat); the CSV's elapsed_s is the fastest (for native costs on
    /// a shared host, where a run can only be slowed down by other work; emulated times are
    /// the same every run), beside mean, sd and max.
    #[arg(long, visible_alias = "repeat", default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_RUNS)))]
    pub(crate) runs: u32,
    /// Runs per cell before the measured ones, discarded.
    #[arg(long, default_value_t = 0, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=i64::from(MAX_RUNS)))]
    pub(crate) warmup: u32,
    /// Name of the run's folder in the results folder (<out>/<name>/<run>/, with a link
    /// <out>/<name>/latest to the newest run).
    #[arg(long, default_value = "sweep-ocl")]
    pub(crate) name: String,
    #[command(flatten)]
    pub(crate) output: ReportArgs,
}

/// Least-squares weighting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum WeightingArg {
    /// w = 1/t²: minimise relative errors.
    Relative,
    /// w = 1: minimise absolute errors.
    Unweighted,
}

/// `multicomputer fit ocl`.
#[derive(Debug, Args)]
pub(crate) struct FitOclArgs {
    /// Which model: m1 fits α, β (§4.1); kk fits α0, α1, β (§4.2).
    #[arg(long, value_enum)]
    pub(crate) transform: TableArg,
    /// The table: columns n, m (m1) or k (kk), l, and elapsed_s (or elapsed_ms); a `sweep ocl`
    /// CSV. Column names are matched ignoring case.
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "paper",
        conflicts_with = "paper"
    )]
    pub(crate) csv: Option<PathBuf>,
    /// Fit the paper's own published table (§4.1 or §4.2) instead of a CSV.
    #[arg(long)]
    pub(crate) paper: bool,
    /// Use only the rows run on more than one process (M or K < N). The paper's
    /// single-process rows deviate from its model by 2–5 %.
    #[arg(long)]
    pub(crate) multi_process: bool,
    /// Weighting: relative (w = 1/t², every run counts alike — the tables span two orders of
    /// magnitude) or unweighted (the longest runs decide).
    #[arg(long, value_enum, default_value_t = WeightingArg::Relative)]
    pub(crate) weighting: WeightingArg,
    #[command(flatten)]
    pub(crate) output: ReportArgs,
}
