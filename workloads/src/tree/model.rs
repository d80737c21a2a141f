//! What the models of programs on the tree engine share (the farm's and divide and
//! conquer's): their errors and parameter checks, and what a prediction holds.

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Why a model could not be evaluated.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ModelError {
    /// Tree arity `k = 0`.
    #[error("tree arity k must be at least 1 (k = 1 is a chain)")]
    ZeroArity,
    /// A tree of zero levels.
    #[error("a tree needs at least one level")]
    ZeroLevels,
    /// No tasks (`M = 0`).
    #[error("the number of tasks M must be at least 1")]
    ZeroTasks,
    /// Zero tasks per message.
    #[error("granularity (tasks per message) must be at least 1")]
    ZeroGranularity,
    /// A duration is negative or not finite.
    #[error("{name} = {value} s: durations must be finite and non-negative")]
    InvalidDuration {
        /// Which parameter.
        name: &'static str,
        /// Its value in seconds.
        value: f64,
    },
    /// A task execution time is zero (the model divides by `T_e + β_e`).
    #[error("{name} must be positive (got {value} s)")]
    NonPositiveWork {
        /// Which parameter.
        name: &'static str,
        /// Its value in seconds.
        value: f64,
    },
    /// A dimensionless parameter out of its range.
    #[error("{name} = {value} is out of range")]
    InvalidParameter {
        /// Which parameter (and its range).
        name: &'static str,
        /// Its value.
        value: f64,
    },
    /// The parent relation is not a tree with a single root.
    #[error("invalid parent relation: {0}")]
    InvalidTree(String),
    /// Per-processor data whose length does not match the number of processors or levels.
    #[error("length mismatch: {0}")]
    LengthMismatch(String),
    /// The linear system of the general framework is singular.
    #[error("the framework's linear system is singular for these parameters")]
    Singular,
    /// The operation needs a balanced tree shape, not a parent relation.
    #[error("{0} needs a balanced tree shape (k, levels)")]
    NeedsTreeShape(&'static str),
    /// Fitting failed.
    #[error("fit failed: {0}")]
    Fit(#[from] crate::analysis::FitError),
}

/// Checks that a duration in seconds is finite and non-negative.
pub(crate) fn check_duration(name: &'static str, value: f64) -> Result<(), ModelError> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(ModelError::InvalidDuration { name, value })
    }
}

/// Checks that a work duration in seconds is finite and strictly positive.
pub(crate) fn check_work(name: &'static str, value: f64) -> Result<(), ModelError> {
    check_duration(name, value)?;
    if value > 0.0 {
        Ok(())
    } else {
        Err(ModelError::NonPositiveWork { name, value })
    }
}

/// What limits the predicted throughput.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Bound {
    /// The processors: the steady state (d)/(f) or its general-tree form.
    Processors,
    /// Some processor spends all its time forwarding (its rate is capped at `1/β_f`).
    Forwarding,
    /// The root's input link, `1/(T_τ + β_e)`.
    Link,
}

/// Predicted performance of a farm.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prediction {
    /// Steady-state throughput in tasks (not messages) per second.
    pub throughput_per_s: f64,
    /// `SP = M T_e / makespan`.
    pub speedup: f64,
    /// Execution time (g): `T_startup + (messages − 1)/S`.
    pub makespan_s: f64,
    /// Fraction of all tasks executed on each level (element `i − 1` = level `i`, 1 = leaves).
    pub fractions_by_level: Vec<f64>,
    /// Start-up cost: time until the deepest processor returns its first result.
    pub startup_s: f64,
    /// What limits the throughput.
    pub bound: Bound,
}
