//! Repeated runs of one experiment: mean ± standard deviation, minimum and maximum of each
//! measured quantity, as hyperfine reports them.
//!
//! An experiment's measured result names its scalar quantities ([`Quantities`]); the
//! summary of several runs is one [`Summary`] per quantity ([`summarise`]). The standard
//! deviation is the sample one (`n − 1` in the denominator); a single run has none.
//!
//! ```
//! use multicomputer_workloads::repetitions::Summary;
//!
//! let s = Summary::of(&[1.0, 2.0, 3.0, 6.0]).unwrap();
//! assert_eq!((s.runs, s.mean, s.min, s.max), (4, 3.0, 1.0, 6.0));
//! // Σ (x − 3)² = 4 + 1 + 0 + 9 = 14 over n − 1 = 3.
//! assert!((s.sd.unwrap() - (14.0_f64 / 3.0).sqrt()).abs() < 1e-12);
//! ```

use serde::Serialize;

/// Mean ± standard deviation, minimum and maximum of one quantity over repeated runs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Summary {
    /// Runs with a finite value (non-finite values are left out).
    pub runs: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (`n − 1`); `None` for a single run.
    pub sd: Option<f64>,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
}

impl Summary {
    /// The summary of `values`, leaving out NaN and infinities; `None` when none is finite.
    pub fn of(values: &[f64]) -> Option<Self> {
        let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        let n = finite.len();
        if n == 0 {
            return None;
        }
        let mean = finite.iter().sum::<f64>() / n as f64;
        let sd = (n > 1).then(|| {
            let ss: f64 = finite.iter().map(|v| (v - mean).powi(2)).sum();
            (ss / (n - 1) as f64).sqrt()
        });
        let (min, max) = finite
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            });
        Some(Self {
            runs: n,
            mean,
            sd,
            min,
            max,
        })
    }

    /// The standard error of the mean, `sd/√n`; `None` for a single run.
    pub fn std_error(&self) -> Option<f64> {
        self.sd.map(|sd| sd / (self.runs as f64).sqrt())
    }
}

/// Runs below which quartiles, and so the interquartile range and Tukey's fences, are not
/// computed: with three values the quartiles are the extremes' neighbours and every value
/// would sit on a fence.
pub const MIN_RUNS_FOR_QUARTILES: usize = 4;

/// How scattered one quantity's replicates are, by the measures a benchmark tool judges a
/// sample by: the relative standard deviation, the interquartile range over the median, and
/// how many values lie beyond Tukey's fences (1.5 IQR outside the quartiles). Every measure is
/// relative, so it does not change when the values are scaled.
///
/// ```
/// use multicomputer_workloads::repetitions::Scatter;
///
/// // Quartiles by linear interpolation: Q1 = 1.75, Q3 = 27.25, IQR = 25.5; the upper fence
/// // 27.25 + 1.5 · 25.5 = 65.5 leaves 100 outside.
/// let s = Scatter::of(&[1.0, 2.0, 3.0, 100.0]).unwrap();
/// assert_eq!((s.runs, s.median, s.outliers), (4, 2.5, 1));
/// assert_eq!(s.iqr_over_median, Some(25.5 / 2.5));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Scatter {
    /// Runs with a finite value (non-finite values are left out).
    pub runs: usize,
    /// The median (the mean of the two middle values for an even count).
    pub median: f64,
    /// Sample standard deviation over the mean's magnitude; `None` for one run or a zero mean.
    pub relative_sd: Option<f64>,
    /// `(Q3 − Q1) / |median|`, quartiles by linear interpolation between order statistics;
    /// `None` below [`MIN_RUNS_FOR_QUARTILES`] runs or for a zero median.
    pub iqr_over_median: Option<f64>,
    /// Values below `Q1 − 1.5 IQR` or above `Q3 + 1.5 IQR` (none below
    /// [`MIN_RUNS_FOR_QUARTILES`] runs).
    pub outliers: usize,
}

impl Scatter {
    /// The scatter of `values`; `None` when none is finite.
    pub fn of(values: &[f64]) -> Option<Self> {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        let summary = Summary::of(&v)?;
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = quantile(&v, 0.5);
        let relative = |x: f64, by: f64| (by != 0.0).then(|| x / by.abs());
        let (iqr_over_median, outliers) = if n >= MIN_RUNS_FOR_QUARTILES {
            let (q1, q3) = (quantile(&v, 0.25), quantile(&v, 0.75));
            let iqr = q3 - q1;
            let (lo, hi) = (q1 - 1.5 * iqr, q3 + 1.5 * iqr);
            let outliers = v.iter().filter(|&&x| x < lo || x > hi).count();
            (relative(iqr, median), outliers)
        } else {
            (None, 0)
        };
        Some(Self {
            runs: n,
            median,
            relative_sd: summary.sd.and_then(|sd| relative(sd, summary.mean)),
            iqr_over_median,
            outliers,
        })
    }

    /// The share of the runs beyond Tukey's fences.
    pub fn outlier_share(&self) -> f64 {
        self.outliers as f64 / self.runs as f64
    }
}

/// The `q` quantile of sorted, non-empty `v` by linear interpolation between order statistics
/// (position `q (n − 1)`).
fn quantile(v: &[f64], q: f64) -> f64 {
    let pos = q * (v.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
}

/// A measured result's scalar quantities, by name (each name a key of its JSON form).
pub trait Quantities {
    /// `(name, value)` of every scalar quantity, in a fixed order, the headline figure first
    /// (the one whose replicates' scatter decides whether the runs are reliable).
    fn quantities(&self) -> Vec<(&'static str, f64)>;
}

/// One quantity's summary over repeated runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuantitySummary {
    /// The quantity's name (as in [`Quantities::quantities`]).
    pub name: &'static str,
    /// Its summary; `None` when no run gave a finite value.
    pub summary: Option<Summary>,
}

/// The summary of every quantity over `runs`, in the order the first run names them.
pub fn summarise<T: Quantities>(runs: &[T]) -> Vec<QuantitySummary> {
    let Some(first) = runs.first() else {
        return Vec::new();
    };
    let names: Vec<&'static str> = first.quantities().into_iter().map(|(n, _)| n).collect();
    let table: Vec<Vec<(&'static str, f64)>> = runs.iter().map(Quantities::quantities).collect();
    names
        .into_iter()
        .enumerate()
        .map(|(i, name)| {
            let values: Vec<f64> = table
                .iter()
                .filter_map(|q| q.get(i).filter(|(n, _)| *n == name).map(|(_, v)| *v))
                .collect();
            QuantitySummary {
                name,
                summary: Summary::of(&values),
            }
        })
        .collect()
}

/// The element-wise mean of equally long vectors (per-level fractions of several runs);
/// empty when `rows` is.
pub fn mean_vector(rows: &[&[f64]]) -> Vec<f64> {
    let Some(first) = rows.first() else {
        return Vec::new();
    };
    (0..first.len())
        .map(|i| {
            let values: Vec<f64> = rows.iter().filter_map(|r| r.get(i).copied()).collect();
            values.iter().sum::<f64>() / values.len() as f64
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_single_run_has_no_spread() {
        let s = Summary::of(&[2.5]).unwrap();
        assert_eq!(
            s,
            Summary {
                runs: 1,
                mean: 2.5,
                sd: None,
                min: 2.5,
                max: 2.5
            }
        );
        assert_eq!(s.std_error(), None);
    }

    #[test]
    fn hand_worked_sample_standard_deviation() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, Σ(x − 5)² = 32, s² = 32/7.
        let s = Summary::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(s.mean, 5.0);
        assert!((s.sd.unwrap() - (32.0_f64 / 7.0).sqrt()).abs() < 1e-12);
        assert!((s.std_error().unwrap() - (32.0_f64 / 7.0 / 8.0).sqrt()).abs() < 1e-12);
        assert_eq!((s.min, s.max), (2.0, 9.0));
    }

    #[test]
    fn non_finite_values_are_left_out_and_none_gives_none() {
        let s = Summary::of(&[1.0, f64::NAN, 3.0, f64::INFINITY]).unwrap();
        assert_eq!((s.runs, s.mean), (2, 2.0));
        assert_eq!(Summary::of(&[f64::NAN]), None);
        assert_eq!(Summary::of(&[]), None);
    }

    struct Run(f64, f64);
    impl Quantities for Run {
        fn quantities(&self) -> Vec<(&'static str, f64)> {
            vec![("a", self.0), ("b", self.1)]
        }
    }

    #[test]
    fn every_quantity_is_summarised_in_order() {
        let s = summarise(&[Run(1.0, 10.0), Run(3.0, 30.0)]);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].name, "a");
        assert_eq!(s[0].summary.unwrap().mean, 2.0);
        assert_eq!(s[1].name, "b");
        assert_eq!(s[1].summary.unwrap().max, 30.0);
        assert!(summarise::<Run>(&[]).is_empty());
    }

    #[test]
    fn scatter_hand_worked() {
        // 10, 11, 12, 13: Q1 = 10.75, Q3 = 12.25 (linear interpolation), median 11.5.
        let s = Scatter::of(&[13.0, 10.0, 12.0, 11.0]).unwrap();
        assert_eq!((s.runs, s.median, s.outliers), (4, 11.5, 0));
        assert!((s.iqr_over_median.unwrap() - 1.5 / 11.5).abs() < 1e-15);
        // sd of 10..13 is √(5/3); mean 11.5.
        assert!((s.relative_sd.unwrap() - (5.0_f64 / 3.0).sqrt() / 11.5).abs() < 1e-15);
        // Scaling leaves every measure as it was.
        let t = Scatter::of(&[1.3, 1.0, 1.2, 1.1]).unwrap();
        assert!((t.iqr_over_median.unwrap() - s.iqr_over_median.unwrap()).abs() < 1e-12);
        // Below four runs no quartiles; one run, no sd.
        let few = Scatter::of(&[1.0, 2.0, 90.0]).unwrap();
        assert_eq!((few.iqr_over_median, few.outliers), (None, 0));
        assert_eq!(Scatter::of(&[4.0]).unwrap().relative_sd, None);
        assert_eq!(Scatter::of(&[f64::NAN]), None);
        // A zero median has no relative spread.
        assert_eq!(
            Scatter::of(&[-1.0, 0.0, 0.0, 1.0]).unwrap().iqr_over_median,
            None
        );
    }

    #[test]
    fn one_far_value_among_tight_ones_is_an_outlier() {
        let s = Scatter::of(&[1.00, 1.01, 0.99, 1.02, 1.00, 1.01, 2.5]).unwrap();
        assert_eq!(s.outliers, 1);
        assert!((s.outlier_share() - 1.0 / 7.0).abs() < 1e-15);
    }

    #[test]
    fn mean_vector_averages_element_wise() {
        let a = [0.2, 0.8];
        let b = [0.4, 0.6];
        let m = mean_vector(&[&a, &b]);
        assert!((m[0] - 0.3).abs() < 1e-15 && (m[1] - 0.7).abs() < 1e-15);
    }
}
