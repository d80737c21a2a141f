//! `multicomputer speedup`.

use std::num::NonZeroUsize;

use clap::{Args, ValueEnum};

use super::common::ReportArgs;
use super::limits::{MAX_GRAIN, MAX_QUEUE, MAX_RUNS, MAX_TASKS};

/// A real kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SpeedupKernelArg {
    /// Counting primes, --grain integers a task, on the farm over a chain.
    PrimesChain,
    /// The same farm over a binary tree (heap order).
    PrimesTree,
    /// Mergesort of --tasks lists of --grain keys, divide and conquer on tree:(P−1):2.
    Mergesort,
    /// Ising samples of --grain sweeps (8³ lattice) under the tree mechanism.
    Ising,
    /// The OCL stream of --tasks values on a linear array, --grain values a packet.
    Ocl,
}

/// `multicomputer speedup`.
#[derive(Debug, Args)]
pub(crate) struct SpeedupArgs {
    /// The real kernel.
    #[arg(long, short = 'k', value_enum, default_value_t = SpeedupKernelArg::PrimesChain)]
    pub(crate) kernel: SpeedupKernelArg,
    /// Processor counts, comma-separated, ranges written lo-hi: `1,2,4` or `1-16`; 1 is always
    /// measured (the rough speedup needs it) [default: 1 up to the cores this process may use].
    #[arg(long, short = 'P', value_name = "LIST")]
    pub(crate) processors: Option<String>,
    /// Tasks: farm tasks, mergesort lists, Ising samples, or the OCL stream's length
    /// [default: the kernel's, about a third of a second of sequential work].
    #[arg(long, short = 'm', value_name = "N", value_parser = clap::value_parser!(u64).range(1..=MAX_TASKS))]
    pub(crate) tasks: Option<u64>,
    /// The grain: integers a prime task, keys a list, sweeps an Ising sample, values an OCL
    /// packet [default: 20000, 100000, 100, 16].
    #[arg(long, short = 'g', value_name = "N", value_parser = clap::value_parser!(u64).range(1..=MAX_GRAIN))]
    pub(crate) grain: Option<u64>,
    /// The OCL window N; P × grain must divide it [default: 80640 = 5040 × 16].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=MAX_TASKS))]
    pub(crate) window: Option<u64>,
    /// The tree engine's queue of unprocessed tasks per processor (farm, mergesort).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=MAX_QUEUE))]
    pub(crate) queue: u64,
    /// Seed of mergesort's keys, the Ising samples and the OCL stream.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Measured rounds R: each runs the sequential program, then the runtime, rayon and
    /// scoped threads at every P; medians over the rounds, with their range.
    #[arg(long, default_value_t = 5, value_name = "R", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_RUNS)))]
    pub(crate) rounds: u32,
    /// Rounds before the measured ones, discarded.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=i64::from(MAX_RUNS)))]
    pub(crate) warmup: u32,
    /// Also sweep the grain at the largest P, keeping the total work: a comma-separated list
    /// of grains, or `default` for the kernel's (tasks of a few µs to ms).
    #[arg(long, value_name = "LIST")]
    pub(crate) grains: Option<String>,
    /// Run the runtime over K MPI ranks, one part of its processors a rank, their cut links
    /// carried between ranks (`mpirun -np K multicomputer speedup … --partitions K`, built
    /// with `--features mpi`): P is then 1 (each rank alone) or K up to K × the cores a rank
    /// may use; the sequential program, rayon and scoped threads run in each rank alone.
    #[arg(long, value_name = "K")]
    pub(crate) partitions: Option<NonZeroUsize>,
    /// Name of the run's folder in the results folder.
    #[arg(long, default_value = "speedup")]
    pub(crate) name: String,
    #[command(flatten)]
    pub(crate) output: ReportArgs,
}
