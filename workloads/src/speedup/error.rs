//! Why a speedup experiment failed.

use thiserror::Error;

use crate::analysis::FitError;
use crate::farm::ModelError;
use crate::ising::IsingError;
use crate::ocl::OclError;
use crate::speedup::kernel::WorkloadError;
use crate::speedup::runtime::RuntimeError;

/// Why a speedup experiment failed.
#[derive(Debug, Error)]
pub enum SpeedupError {
    /// The workload cannot run.
    #[error(transparent)]
    Workload(#[from] WorkloadError),
    /// The plan measures nothing: no measured round, or no processor count, or none is 1.
    #[error("a speedup needs at least one measured round and the processor counts to include 1")]
    EmptyPlan,
    /// A run on the runtime failed.
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    /// A baseline's Ising samples failed.
    #[error(transparent)]
    Ising(#[from] IsingError),
    /// A rayon pool could not be built.
    #[error("a rayon pool of {threads} threads could not be built: {message}")]
    Pool {
        /// Threads asked for.
        threads: usize,
        /// Rayon's reason.
        message: String,
    },
    /// No runtime machine was given for a P of the plan.
    #[error(
        "no runtime machine of {processors} processors was given (see speedup::machine_config)"
    )]
    NoMachine {
        /// P.
        processors: usize,
    },
    /// A result differs from the sequential reference (a bug).
    #[error(
        "{variant} on {processors} processors (grain {grain}): the result differs from the sequential reference"
    )]
    Mismatch {
        /// `runtime`, `rayon` or `scoped threads`.
        variant: &'static str,
        /// P.
        processors: usize,
        /// The grain.
        grain: u64,
    },
    /// The model refused its parameters.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// A fit failed.
    #[error(transparent)]
    Fit(#[from] FitError),
    /// An OCL grain was refused.
    #[error(transparent)]
    Ocl(#[from] OclError),
}
