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
    /// PHOLD, the benchmark of parallel discrete-event simulation: events that schedule
    /// events, a share of them on neighbours (--remote, --mean-delay, --population,
    /// --horizon, --seed; its lookahead is --latency).
    Phold,
}

/// `multicomputer emulate`.
#[derive(Debug, Args)]
pub(crate) struct EmulateArgs {
    /// Rounds per processor (at most 10⁹) [default: 100; not with phold].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_ROUNDS))]
    pub(crate) rounds: Option<u64>,
    /// Emulated occupation per round, e.g. 10ms [default: 10ms; not with phold].
    #[arg(long, value_parser = parse_duration, value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) occupy: Option<Duration>,
    /// Communication pattern between rounds.
    #[arg(long, value_enum, default_value_t = PatternArg::Independent)]
    pub(crate) pattern: PatternArg,
    #[command(flatten)]
    pub(crate) phold: PholdArgs,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

/// PHOLD's parameters (`--pattern phold` only).
#[derive(Debug, Args)]
pub(crate) struct PholdArgs {
    /// PHOLD: the share of events scheduled on a neighbour, 0 to 1 [default: 0.25, as ROSS].
    #[arg(long, value_name = "SHARE", value_parser = parse_share)]
    pub(crate) remote: Option<f64>,
    /// PHOLD: mean of the exponential delay each event adds to the lookahead [default: 1ms].
    #[arg(long, value_parser = parse_duration, value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) mean_delay: Option<Duration>,
    /// PHOLD: events each processor starts with (at most 10⁶) [default: 1].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub(crate) population: Option<u32>,
    /// PHOLD: emulated time at which the run stops [default: 100ms].
    #[arg(long, value_parser = parse_duration, value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) horizon: Option<Duration>,
    /// PHOLD: seed of the processors' random streams [default: 1].
    #[arg(long)]
    pub(crate) seed: Option<u64>,
}

/// A share in [0, 1].
fn parse_share(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        Ok(x) => Err(format!("{x} is not a share between 0 and 1")),
        Err(e) => Err(format!("{s:?} is not a number: {e}")),
    }
}
