//! `multicomputer ising`, and the lattice and message-system flags `scaling` shares.

use std::time::Duration;

use clap::{Args, ValueEnum};
use multicomputer_workloads::ising::{DEFAULT_SWEEPS, DEFAULT_TEMPERATURE};

use super::common::{RepeatArgs, ReportArgs, TimeArgs, TraceArgs};
use super::limits::{MAX_LATTICE, MAX_LOOP_COUNT, MAX_SAMPLES};
use super::values::parse_duration;

/// Lattice dimension on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum DimensionArg {
    /// Square lattice L×L (exact solution known: Onsager).
    #[value(name = "2")]
    Two,
    /// Simple cubic lattice L×L×L (the paper's (x, y, z)).
    #[value(name = "3")]
    Three,
}

/// Initial state of each sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum StartArg {
    /// All spins up.
    Cold,
    /// Random spins.
    Hot,
}

/// Control mechanism on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum MechanismArg {
    /// All distribution and collection through processor 0, one control message per sample
    /// (the paper's PCM: a hot spot).
    Centralized,
    /// Broadcast down a binomial tree, reduction up it (the paper's MCM).
    Tree,
}

/// The physics of one sample: lattice, temperature, sweeps, seed.
#[derive(Debug, Clone, Args)]
pub(crate) struct LatticeArgs {
    /// Lattice dimension (2 for validation against the exact solution, 3 as in the paper).
    #[arg(long, value_enum, default_value_t = DimensionArg::Three)]
    pub(crate) dimension: DimensionArg,
    /// Linear size L of the periodic lattice (L^d spins; every processor holds one lattice,
    /// and all must fit in memory).
    #[arg(long, short = 'L', default_value_t = 8, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=MAX_LATTICE as u64))]
    pub(crate) size: usize,
    /// Temperature T in units of J/k_B (T_c ≈ 2.269 in 2D, ≈ 4.512 in 3D).
    #[arg(long, default_value_t = DEFAULT_TEMPERATURE, allow_hyphen_values = true)]
    pub(crate) temperature: f64,
    /// Sweeps per sample before measuring.
    #[arg(long, default_value_t = DEFAULT_SWEEPS)]
    pub(crate) thermalisation: u32,
    /// Measured sweeps per sample.
    #[arg(long, default_value_t = DEFAULT_SWEEPS)]
    pub(crate) sweeps: u32,
    /// Seed of every sample's random stream.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Initial state of each sample.
    #[arg(long, value_enum, default_value_t = StartArg::Cold)]
    pub(crate) start: StartArg,
}

/// The emulated message system and clock of an Ising run (the topology follows from the
/// mechanism and the number of processors).
#[derive(Debug, Clone, Args)]
pub(crate) struct MessageSystemArgs {
    #[command(flatten)]
    pub(crate) time: TimeArgs,
    /// Start-up cost of every message, charged to the sender, besides its busy loop (by
    /// default a message costs only its loop_count iterations, nothing at loop_count 0).
    #[arg(long, value_parser = parse_duration, default_value = "0s", value_name = "DURATION")]
    pub(crate) send_overhead: Duration,
    /// Overlapped transfer time per byte.
    #[arg(long, value_parser = parse_duration, default_value = "0s", value_name = "DURATION")]
    pub(crate) per_byte: Duration,
}

/// `multicomputer ising`.
#[derive(Debug, Args)]
pub(crate) struct IsingArgs {
    #[command(flatten)]
    pub(crate) lattice: LatticeArgs,
    /// Processors P.
    #[arg(long, short = 'P', default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=16384))]
    pub(crate) processors: u32,
    /// Control mechanism.
    #[arg(long, value_enum, default_value_t = MechanismArg::Tree)]
    pub(crate) mechanism: MechanismArg,
    /// Busy-loop iterations per message send (degrades the message system, as the paper; at
    /// most 10⁹).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=MAX_LOOP_COUNT))]
    pub(crate) loop_count: u64,
    /// Scaled workload (the paper's): this many samples per processor, work ∝ P (at most 10⁹
    /// samples in all).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..=MAX_SAMPLES))]
    pub(crate) samples_per_processor: u64,
    /// Fixed workload (strong scaling): this many samples in all, whatever P (at most 10⁹).
    #[arg(long, conflicts_with = "samples_per_processor", value_parser = clap::value_parser!(u64).range(1..=MAX_SAMPLES))]
    pub(crate) samples: Option<u64>,
    #[command(flatten)]
    pub(crate) messages: MessageSystemArgs,
    /// Also run the sequential reference and check the result bit for bit.
    #[arg(long)]
    pub(crate) verify: bool,
    #[command(flatten)]
    pub(crate) trace: TraceArgs,
    #[command(flatten)]
    pub(crate) repeat: RepeatArgs,
    #[command(flatten)]
    pub(crate) output: ReportArgs,
}
