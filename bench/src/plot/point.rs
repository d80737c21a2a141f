//! A measured point with its uncertainty.

/// The uncertainty of a measured value, drawn as an error bar with caps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum ErrorBar {
    /// `value ± half_width`: a standard deviation, a standard error, or a confidence interval's
    /// half-width (say which in the axis or legend label).
    PlusMinus(f64),
    /// From `low` to `high` (e.g. the minimum and maximum of the replicates).
    Range {
        /// Lower end.
        low: f64,
        /// Upper end.
        high: f64,
    },
}

impl ErrorBar {
    /// The bar's ends around `value`, `None` when they are not finite or coincide (nothing
    /// is drawn: runs that all gave the same value have no spread to show).
    pub(super) fn ends(self, value: f64) -> Option<(f64, f64)> {
        let (low, high) = match self {
            Self::PlusMinus(h) => (value - h.abs(), value + h.abs()),
            Self::Range { low, high } => (low.min(high), low.max(high)),
        };
        (low.is_finite() && high.is_finite() && high > low).then_some((low, high))
    }
}

/// A measured point: `(x, y)` and optionally its error bar.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Point {
    /// Position along the x axis.
    pub(crate) x: f64,
    /// Measured value (a mean, for replicates).
    pub(crate) y: f64,
    /// Its uncertainty, if known.
    pub(crate) error: Option<ErrorBar>,
}

impl Point {
    /// A point without error bar.
    pub(crate) fn new(x: f64, y: f64) -> Self {
        Self { x, y, error: None }
    }

    /// A point with an error bar.
    pub(crate) fn with_error(x: f64, y: f64, error: ErrorBar) -> Self {
        Self {
            x,
            y,
            error: Some(error),
        }
    }
}

impl From<(f64, f64)> for Point {
    fn from((x, y): (f64, f64)) -> Self {
        Self::new(x, y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plot_error_bar_ends() {
        assert_eq!(ErrorBar::PlusMinus(0.5).ends(2.0), Some((1.5, 2.5)));
        assert_eq!(ErrorBar::PlusMinus(-0.5).ends(2.0), Some((1.5, 2.5)));
        let r = ErrorBar::Range {
            low: 3.0,
            high: 1.0,
        };
        assert_eq!(r.ends(2.0), Some((1.0, 3.0)));
        assert_eq!(ErrorBar::PlusMinus(f64::NAN).ends(2.0), None);
        assert_eq!(ErrorBar::PlusMinus(0.0).ends(2.0), None);
        let none = ErrorBar::Range {
            low: 2.0,
            high: 2.0,
        };
        assert_eq!(none.ends(2.0), None);
    }
}
