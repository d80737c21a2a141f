//! An estimate with its standard error and a confidence interval from Student's t
//! distribution: what a report shows beside every fitted parameter.
//!
//! ```
//! use multicomputer_workloads::estimate::Interval;
//!
//! // 10 degrees of freedom: t(0.975, 10) = 2.228.
//! let i = Interval::student(5.0, 0.5, 10);
//! assert!((i.high - (5.0 + 2.228 * 0.5)).abs() < 1e-3);
//! ```

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Confidence level of every interval a report shows.
pub const CONFIDENCE: f64 = 0.95;

/// An estimate, its standard error and its two-sided confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    /// The estimate.
    pub value: f64,
    /// Its standard error.
    pub std_error: f64,
    /// Lower end of the interval.
    pub low: f64,
    /// Upper end.
    pub high: f64,
    /// Confidence level of the interval (0.95).
    pub level: f64,
    /// Degrees of freedom of the t quantile (0: the normal quantile was used).
    pub dof: usize,
}

impl Interval {
    /// `value ± t(1 − (1 − CONFIDENCE)/2, dof) · std_error`; with no degrees of freedom, the
    /// normal quantile 1.96 (a standard error known from elsewhere). A non-finite standard
    /// error gives an unbounded interval.
    pub fn student(value: f64, std_error: f64, dof: usize) -> Self {
        let p = 1.0 - (1.0 - CONFIDENCE) / 2.0;
        let t = if dof == 0 {
            1.959_963_984_540_054
        } else {
            StudentsT::new(0.0, 1.0, dof as f64)
                .map(|d| d.inverse_cdf(p))
                .unwrap_or(f64::NAN)
        };
        let half = if std_error.is_finite() {
            t * std_error
        } else {
            f64::INFINITY
        };
        Self {
            value,
            std_error,
            low: value - half,
            high: value + half,
            level: CONFIDENCE,
            dof,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_the_tables() {
        // Two-sided 95 %: t(1) = 12.706, t(5) = 2.571, t(30) = 2.042.
        for (dof, t) in [(1, 12.706), (5, 2.571), (30, 2.042)] {
            let i = Interval::student(0.0, 1.0, dof);
            assert!((i.high - t).abs() < 1e-3, "dof {dof}: {}", i.high);
            assert!((i.low + t).abs() < 1e-3);
        }
        assert!((Interval::student(1.0, 1.0, 0).high - 2.96).abs() < 1e-2);
    }

    #[test]
    fn an_unknown_error_gives_an_unbounded_interval() {
        let i = Interval::student(1.0, f64::NAN, 3);
        assert_eq!((i.low, i.high), (f64::NEG_INFINITY, f64::INFINITY));
    }
}
