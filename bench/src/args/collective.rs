//! `multicomputer collective`.

use std::time::Duration;

use clap::{Args, ValueEnum};

use super::common::RunArgs;
use super::values::{parse_bytes, parse_duration};

/// A collective operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum OperationArg {
    /// The root's vector to everyone.
    Broadcast,
    /// Everyone's vectors summed at the root.
    Reduce,
    /// Everyone's vectors summed, everywhere.
    AllReduce,
    /// Block i of the root's vector to processor i.
    Scatter,
    /// Processor i's block to block i of the root's vector.
    Gather,
    /// Processor i's block to block i of everyone's vector.
    AllGather,
    /// Block i of the sum at processor i.
    ReduceScatter,
    /// Block j of processor i's vector to block i of processor j's.
    AllToAll,
    /// Everyone waits for everyone.
    Barrier,
}

/// An algorithm of a collective.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum AlgorithmArg {
    /// Binomial tree (broadcast, reduce, scatter, gather).
    BinomialTree,
    /// Ring (all-reduce, reduce-scatter, all-gather).
    Ring,
    /// Recursive doubling (all-reduce, all-gather; P a power of two).
    RecursiveDoubling,
    /// Recursive halving (reduce-scatter; P a power of two).
    RecursiveHalving,
    /// Rabenseifner's reduce-scatter + all-gather (all-reduce; P a power of two).
    Rabenseifner,
    /// Pairwise exchange (all-to-all).
    Pairwise,
    /// Dissemination, or the butterfly when P is a power of two (barrier).
    Dissemination,
    /// The one-dimensional algorithm along each dimension of the grid in turn: a binomial
    /// tree (broadcast, reduce, scatter, gather) or a ring (all-reduce, reduce-scatter,
    /// all-gather).
    DimensionOrdered,
}

/// `multicomputer collective`.
#[derive(Debug, Args)]
pub(crate) struct CollectiveArgs {
    /// The operation.
    #[arg(value_enum)]
    pub(crate) operation: OperationArg,
    /// Its algorithm; default: the operation's first (binomial tree, recursive doubling when
    /// P is a power of two else ring, …).
    #[arg(long, value_enum)]
    pub(crate) algorithm: Option<AlgorithmArg>,
    /// Bytes of each processor's vector (of 8-byte values), e.g. 64KiB.
    #[arg(long, value_parser = parse_bytes, default_value = "8KiB", value_name = "SIZE")]
    pub(crate) bytes: usize,
    /// Compute time per byte a reduction combines (γ), e.g. 1ns.
    #[arg(long, value_parser = parse_duration, default_value = "0s", value_name = "DURATION")]
    pub(crate) gamma: Duration,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}
