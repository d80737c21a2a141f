//! What can be wrong with the input of the scalability analysis.

use thiserror::Error;

use super::basis::BasisTerm;
use super::fit::FitError;

/// Bad input to the scalability analysis.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ScalabilityError {
    /// A processor count of 0.
    #[error("processor counts must be ≥ 1")]
    ZeroProcessors,
    /// A time, work, weight or uncertainty that is negative, zero where it must be positive, or
    /// not finite.
    #[error("invalid {what}: {value}")]
    InvalidValue {
        /// What the value is.
        what: String,
        /// The value.
        value: f64,
    },
    /// Fewer distinct processor counts at one loop count than the model has parameters.
    #[error(
        "loop count {loop_count}: need at least {needed} distinct processor counts for this model, got {got}"
    )]
    TooFewPoints {
        /// The loop count.
        loop_count: f64,
        /// Distinct P values needed.
        needed: usize,
        /// Distinct P values given.
        got: usize,
    },
    /// A basis term name that is not understood.
    #[error("unknown basis term '{0}' (use 1, log, sqrt, P, PlogP, P2)")]
    UnknownTerm(String),
    /// A model with no terms.
    #[error("an overhead model needs at least one term")]
    EmptyModel,
    /// A term given twice.
    #[error("basis term {0} given twice")]
    DuplicateTerm(BasisTerm),
    /// The consistency test needs a constant term `a`.
    #[error("the candidate needs a constant term (1)")]
    NoConstantTerm,
    /// Fewer than two loop counts.
    #[error("the consistency test needs at least 2 loop counts, got {0}")]
    TooFewLoopCounts(usize),
    /// Some measurements carry a standard error and others do not.
    #[error("measurement {0} has no standard error, but others do: give one for every row or none")]
    MixedStdErrors(usize),
    /// Some measurements give their number of runs and others do not.
    #[error("measurement {0} has no number of runs, but others do: give one for every row or none")]
    MixedRuns(usize),
    /// A count of runs without the standard error of their mean.
    #[error("measurement {0} gives a number of runs but no standard error")]
    RunsWithoutStdError(usize),
    /// Significance level outside (0, 1).
    #[error(
        "significance must be in [{smallest}, 1), got {0} (a smaller one needs more than {most} \
         resamples of the table)",
        smallest = super::SMALLEST_SIGNIFICANCE,
        most = super::MOST_RESAMPLES
    )]
    BadSignificance(f64),
    /// The richer model of `--against` does not contain the candidate.
    #[error("the richer model {richer} must contain every term of the candidate {candidate}")]
    NotNested {
        /// The candidate.
        candidate: String,
        /// The richer model.
        richer: String,
    },
    /// The richer model has as many parameters as there are cells: nothing is left to test it.
    #[error("the richer model {0} leaves no degrees of freedom in these data")]
    RicherModelSaturated(String),
    /// The least-squares fit failed.
    #[error(transparent)]
    Fit(#[from] FitError),
}

/// `value` if finite and > 0.
pub(super) fn positive(what: &str, value: f64) -> Result<f64, ScalabilityError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(ScalabilityError::InvalidValue {
            what: what.into(),
            value,
        })
    }
}

/// `value` if finite and ≥ 0.
pub(super) fn non_negative(what: &str, value: f64) -> Result<f64, ScalabilityError> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(ScalabilityError::InvalidValue {
            what: what.into(),
            value,
        })
    }
}

/// P as a float, refusing 0.
pub(super) fn processors_f64(p: u32) -> Result<f64, ScalabilityError> {
    if p == 0 {
        Err(ScalabilityError::ZeroProcessors)
    } else {
        Ok(f64::from(p))
    }
}
