//! The median of repeated measurements with their spread (smallest and largest): the figure a
//! noisy host allows, where a mean and a standard deviation would let one stalled run decide.

use serde::Serialize;

use crate::repetitions::Scatter;

/// Median, minimum and maximum of repeated values.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spread {
    /// The median (the mean of the two middle values for an even count).
    pub median: f64,
    /// The smallest value.
    pub min: f64,
    /// The largest value.
    pub max: f64,
    /// How many values (non-finite ones are left out).
    pub runs: usize,
    /// How scattered the values are (relative sd, IQR over the median, outliers).
    pub scatter: Scatter,
}

impl Spread {
    /// The spread of `values`; `None` when none is finite.
    ///
    /// ```
    /// use multicomputer_workloads::speedup::Spread;
    ///
    /// let s = Spread::of(&[3.0, 1.0, 10.0, 2.0]).unwrap();
    /// assert_eq!((s.median, s.min, s.max, s.runs), (2.5, 1.0, 10.0, 4));
    /// ```
    pub fn of(values: &[f64]) -> Option<Self> {
        let scatter = Scatter::of(values)?;
        let (min, max) = values
            .iter()
            .filter(|x| x.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
                (lo.min(x), hi.max(x))
            });
        Some(Self {
            median: scatter.median,
            min,
            max,
            runs: scatter.runs,
            scatter,
        })
    }

    /// The same spread with every value multiplied by `factor` (≥ 0).
    pub fn scaled(self, factor: f64) -> Self {
        Self {
            median: self.median * factor,
            min: self.min * factor,
            max: self.max * factor,
            scatter: Scatter {
                median: self.scatter.median * factor,
                ..self.scatter
            },
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_counts_take_the_middle_and_nan_is_left_out() {
        let s = Spread::of(&[5.0, f64::NAN, 1.0, 3.0]).unwrap();
        assert_eq!((s.median, s.min, s.max, s.runs), (3.0, 1.0, 5.0, 3));
        assert!(Spread::of(&[f64::INFINITY]).is_none());
        assert_eq!(s.scaled(2.0).median, 6.0);
    }
}
