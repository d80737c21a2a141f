//! `multicomputer tour` (and no command at all).

use clap::Args;

use super::common::ReportArgs;

/// `multicomputer tour`.
#[derive(Debug, Default, Args)]
pub(crate) struct TourArgs {
    #[command(flatten)]
    pub(crate) output: ReportArgs,
}
