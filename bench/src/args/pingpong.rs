//! `multicomputer pingpong`.

use clap::Args;

use super::common::ReportArgs;
use super::limits::{MAX_ROUND_TRIPS, MAX_RUNS};

/// `multicomputer pingpong`.
#[derive(Debug, Args)]
pub(crate) struct PingpongArgs {
    /// Round trips per measurement (100..=10⁹).
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(100..=MAX_ROUND_TRIPS))]
    pub(crate) round_trips: u64,
    /// Measurements of each (alternating bare and runtime); the median is the headline,
    /// mean ± sd, min and max are reported beside it.
    #[arg(long, visible_alias = "repeat", default_value_t = 7, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_RUNS)))]
    pub(crate) runs: u32,
    /// Measurements of each before the measured ones, discarded (a tenth of the round trips
    /// each).
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=i64::from(MAX_RUNS)))]
    pub(crate) warmup: u32,
    #[command(flatten)]
    pub(crate) output: ReportArgs,
}
