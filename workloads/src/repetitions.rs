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

/// Runs below which quartiles, and so the interquartile range, are not computed: with three
/// values the quartiles are the extremes' neighbours.
pub const MIN_RUNS_FOR_QUARTILES: usize = 4;

/// The modified Z-score `|x − median| / MAD` beyond which a value is an outlier: ten standard
/// deviations, the MAD being 1/1.4826 of one for normal noise (hyperfine's
/// `OUTLIER_THRESHOLD`; Iglewicz and Hoaglin, *How to Detect and Handle Outliers*, 1993).
pub const OUTLIER_MODIFIED_Z: f64 = 1.4826 * 10.0;

/// Runs below which no value is called an outlier: of three quiet runs (normal noise), one
/// lies beyond [`OUTLIER_MODIFIED_Z`] of the other two in 11 % of samples, as the MAD of three
/// is their closest pair's gap; of four, 2.5 % (simulated, 2 × 10⁵ samples).
pub const MIN_RUNS_FOR_OUTLIERS: usize = 4;

/// How scattered one quantity's replicates are, by the measures a benchmark tool judges a
/// sample by: the relative standard deviation, the interquartile range over the median, and
/// how many values are outliers by their modified Z-score (their distance from the median in
/// median absolute deviations, [`OUTLIER_MODIFIED_Z`], as hyperfine counts them). Every
/// measure is relative, so it does not change when the values are scaled.
///
/// ```
/// use multicomputer_workloads::repetitions::Scatter;
///
/// // Quartiles by linear interpolation: Q1 = 1.75, Q3 = 27.25, IQR = 25.5. The median is
/// // 2.5, the deviations from it 1.5, 0.5, 0.5 and 97.5, their median (the MAD) 1.0: 100 is
/// // 97.5 MADs away, beyond 14.826.
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
    /// Values whose modified Z-score exceeds [`OUTLIER_MODIFIED_Z`] (none below
    /// [`MIN_RUNS_FOR_OUTLIERS`] runs). With a MAD of zero (more than half the values equal),
    /// every other value is one.
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
        let iqr_over_median = (n >= MIN_RUNS_FOR_QUARTILES)
            .then(|| relative(quantile(&v, 0.75) - quantile(&v, 0.25), median))
            .flatten();
        let outliers = if n >= MIN_RUNS_FOR_OUTLIERS {
            let mut deviations: Vec<f64> = v.iter().map(|x| (x - median).abs()).collect();
            deviations.sort_by(f64::total_cmp);
            let mad = quantile(&deviations, 0.5);
            deviations
                .iter()
                .filter(|&&d| d > 0.0 && (mad == 0.0 || d / mad > OUTLIER_MODIFIED_Z))
                .count()
        } else {
            0
        };
        Some(Self {
            runs: n,
            median,
            relative_sd: summary.sd.and_then(|sd| relative(sd, summary.mean)),
            iqr_over_median,
            outliers,
        })
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
        // Below four runs no quartiles and no outliers; one run, no sd.
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
    fn outliers_are_counted_in_median_absolute_deviations() {
        // Median 1.01; deviations 0.01 0 0.02 0.01 0.01 0 1.49, their median (the MAD) 0.01:
        // 2.5 is 149 MADs away.
        let s = Scatter::of(&[1.00, 1.01, 0.99, 1.02, 1.00, 1.01, 2.5]).unwrap();
        assert_eq!(s.outliers, 1);
        // 10, 10, 11, 12, 40: median 11, deviations 1 1 0 1 29, MAD 1. 40 is 29 MADs away;
        // 26 would be 15 (an outlier), 25 is 14 (not one: the bound is 14.826).
        assert_eq!(
            Scatter::of(&[10.0, 10.0, 11.0, 12.0, 40.0])
                .unwrap()
                .outliers,
            1
        );
        assert_eq!(
            Scatter::of(&[10.0, 10.0, 11.0, 12.0, 26.0])
                .unwrap()
                .outliers,
            1
        );
        assert_eq!(
            Scatter::of(&[10.0, 10.0, 11.0, 12.0, 25.0])
                .unwrap()
                .outliers,
            0
        );
        // (Tukey's fences, the rule before, called 25 one too: Q3 = 12, IQR = 2, fence 15.)
        // More than half equal: the MAD is 0, and every other value is an outlier.
        assert_eq!(Scatter::of(&[5.0, 5.0, 5.0, 5.0, 5.1]).unwrap().outliers, 1);
        assert_eq!(Scatter::of(&[5.0; 6]).unwrap().outliers, 0);
    }

    #[test]
    fn mean_vector_averages_element_wise() {
        let a = [0.2, 0.8];
        let b = [0.4, 0.6];
        let m = mean_vector(&[&a, &b]);
        assert!((m[0] - 0.3).abs() < 1e-15 && (m[1] - 0.7).abs() < 1e-15);
    }
}
