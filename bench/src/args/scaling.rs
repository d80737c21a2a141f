//! `multicomputer scaling`: the scalability paper's measuring method.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};

use super::common::ReportArgs;
use super::ising::{LatticeArgs, MechanismArg, MessageSystemArgs};
use super::values::parse_duration;

/// How the cells are weighted (`--weighting`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ScalingWeightingArg {
    /// Relative, unless the replicates reject scatter proportional to the run time (then by
    /// the power of the run time they estimate); each cell weighted at the candidate's fitted
    /// value (iteratively reweighted).
    Auto,
    /// Constant noise: ordinary least squares, as in the paper.
    Uniform,
    /// Noise proportional to the run time (weights 1/T²): timing noise over a wide range of
    /// run times.
    Relative,
}

/// `multicomputer scaling`.
#[derive(Debug, Clone, Args)]
pub(crate) struct ScalingArgs {
    /// Analyse this table instead of running. Columns (names in any case): `P` and `time_s`;
    /// optional `loop_count` (one fit per value; the consistency test needs two or more),
    /// `ideal_s` (then Φ_s = time_s/ideal_s is fitted), `std_error` (of time_s, when a row is a
    /// mean) and `runs` (how many runs each mean has; without it the standard errors are taken
    /// as exact). Rows with the same P and loop_count are replicates.
    #[arg(long, value_name = "FILE")]
    pub(crate) csv: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) lattice: LatticeArgs,
    /// Processor counts P, comma-separated.
    #[arg(long, default_value = "2,4,8,16,32,64,128,256", value_name = "LIST")]
    pub(crate) processors: String,
    /// Busy-loop iterations per message send, comma-separated (the paper used four).
    #[arg(long, default_value = "0,200000,400000,600000", value_name = "LIST")]
    pub(crate) loop_counts: String,
    /// Control mechanism.
    #[arg(long, value_enum, default_value_t = MechanismArg::Tree)]
    pub(crate) mechanism: MechanismArg,
    /// Samples per processor (work ∝ P, the paper's scaled workload).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) samples_per_processor: u64,
    /// Runs per (P, loop_count): the replicates estimate the noise for the consistency test
    /// (the paper §4: "repeating the measurement of each data point"). In virtual time with
    /// model compute charging every run is the same, so one is made and the test is exact.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) repeats: u32,
    #[command(flatten)]
    pub(crate) messages: MessageSystemArgs,
    /// Candidate overhead function: basis terms joined by '+' from 1, log, sqrt, P, PlogP, P2
    /// (the paper's (6) is 1+log).
    #[arg(long, default_value = "1+log", value_name = "TERMS")]
    pub(crate) model: String,
    /// A richer model containing the candidate (e.g. 1+log+P): a nested F test of the
    /// candidate against it, which can refute even without replicates (it can never confirm).
    #[arg(long, value_name = "TERMS")]
    pub(crate) against: Option<String>,
    /// Other candidates fitted and judged alongside, for comparison (comma-separated).
    #[arg(long, default_value = "1+P,1+log+P", value_name = "LIST")]
    pub(crate) alternatives: String,
    /// Weighting of the fits: relative suits timing noise over a wide range of run times,
    /// uniform constant noise (e.g. a coarse clock); auto is relative unless the replicates
    /// reject noise proportional to the run time, and then weights by the power of the run
    /// time they estimate (the report says which, and why).
    #[arg(long, value_enum, default_value_t = ScalingWeightingArg::Auto)]
    pub(crate) weighting: ScalingWeightingArg,
    /// The timer's resolution (e.g. 1us): replicate scatter at or below it is not used as
    /// noise. Without it, identical replicates reveal the resolution.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub(crate) timer_resolution: Option<Duration>,
    /// Overall significance of the consistency test (chance of refuting a correct candidate),
    /// in [1e-4, 1): a smaller one would need more than 150 000 resamples of the table.
    #[arg(long, default_value_t = 0.01)]
    pub(crate) significance: f64,
    /// A `consistent` verdict needs the tests to find, with --power, a missing c·P term (c
    /// growing with loop_count) this large at the largest P, as a fraction of the largest
    /// value.
    #[arg(long, default_value_t = 0.1, value_name = "FRACTION")]
    pub(crate) detectable: f64,
    /// The power the tests need against that term for a `consistent` verdict.
    #[arg(long, default_value_t = 0.8)]
    pub(crate) power: f64,
    /// Exact data (virtual time with model compute charging, or a --csv from such a sweep):
    /// the largest relative deviation of the candidate from a cell mean that is still
    /// consistent. There is no noise to test against, so every misfit is the model's; this is
    /// the accuracy asked of it. Default 0.01 (1 %) for a virtual sweep; with --csv it marks
    /// the table as exact.
    #[arg(long, value_name = "FRACTION")]
    pub(crate) tolerance: Option<f64>,
    /// Name of the run's folder in the results folder (<out>/<name>/<run>/: rows.csv, plots,
    /// report.json, report.html).
    #[arg(long, default_value = "scaling")]
    pub(crate) name: String,
    #[command(flatten)]
    pub(crate) output: ReportArgs,
}
