//! `multicomputer calibrate`.

use std::path::PathBuf;

use clap::Args;

use super::common::ReportArgs;

/// `multicomputer calibrate`.
#[derive(Debug, Args)]
pub(crate) struct CalibrateArgs {
    /// Samples per measured quantity (more is slower and steadier; 5..=100000).
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(5..=multicomputer_runtime::CalibrateOptions::MAX_SAMPLES as i64))]
    pub(crate) samples: u32,
    /// Where to save the profile [default: <out>/machine-profile.json].
    #[arg(long, value_name = "FILE")]
    pub(crate) profile: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) output: ReportArgs,
}
