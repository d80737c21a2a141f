//! `multicomputer fit farm|ocl`.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::common::ReportArgs;
use super::ocl::FitOclArgs;

/// What `fit` fits.
#[derive(Debug, Subcommand)]
pub(crate) enum FitCommand {
    /// β_e and β_f of a processor farm, from a `sweep farm` CSV (or any CSV with its columns).
    Farm(FitFarmArgs),
    /// α, β ([M,1], §4.1) or α0, α1, β ([K,K], §4.2) of the OCL arrays, from a `sweep ocl` CSV,
    /// your own table, or the paper's published one (--paper).
    Ocl(FitOclArgs),
}

/// `multicomputer fit farm`.
#[derive(Debug, Args)]
pub(crate) struct FitFarmArgs {
    /// The table: columns k, levels, te_s, tau_s and a throughput column (tasks/s); optional
    /// beta_e_s and beta_f_s (injected values, shown beside the fit). Column names are
    /// matched ignoring case.
    #[arg(long, value_name = "FILE")]
    pub(crate) csv: PathBuf,
    /// The throughput column to fit.
    #[arg(long, default_value = "steady_throughput_per_s")]
    pub(crate) column: String,
    #[command(flatten)]
    pub(crate) output: ReportArgs,
}
