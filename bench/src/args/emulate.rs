//! `multicomputer emulate`.

use std::time::Duration;

use clap::{Args, ValueEnum};

use super::common::RunArgs;
use super::limits::MAX_ROUNDS;
use super::values::parse_duration;

/// What the synthetic program does between occupations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum PatternArg {
    /// No messages: each processor's occupations are chained by absolute deadlines.
    Independent,
    /// After each round, children send one message to their parent (a reduction to the root).
    Reduce,
}

/// `multicomputer emulate`.
#[derive(Debug, Args)]
pub(crate) struct EmulateArgs {
    /// Rounds per processor (at most 10⁹).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=MAX_ROUNDS))]
    pub(crate) rounds: u64,
    /// Emulated occupation per round, e.g. 10ms.
    #[arg(long, value_parser = parse_duration, default_value = "10ms", value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) occupy: Duration,
    /// Communication pattern between rounds.
    #[arg(long, value_enum, default_value_t = PatternArg::Independent)]
    pub(crate) pattern: PatternArg,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}
