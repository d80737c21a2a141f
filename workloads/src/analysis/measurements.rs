//! The input of the consistency test: measured run times at (P, loop count), grouped into
//! cells.
//!
//! A [`Measurement`] is one run, or the mean of several runs with its standard error. What is
//! analysed is the system overhead `Φ_s = T/ideal` (paper §4: "we divide the actual run times by
//! the corresponding ideal run times") when the ideal run time is given, else the run time
//! itself (the paper's Tables 1–2, where the ideal run time is constant).
//!
//! Measurements at the same P and loop count form a [`Cell`]: its mean, its number of runs and
//! the sum of squares of its runs about their mean (the *pure error*, which owes nothing to any
//! model). A mean with a standard error of `n` runs contributes the same sum of squares,
//! `(n − 1)·n·se²`, as its runs would have. A standard error without a count of runs is taken
//! as exact (a known variance).
//!
//! ```
//! use multicomputer_workloads::analysis::{Measurement, cells};
//!
//! let runs = [
//!     Measurement::run(4, 0.0, 10.0),
//!     Measurement::run(4, 0.0, 12.0),
//!     Measurement::run(8, 0.0, 11.0),
//! ];
//! let c = cells(&runs)?;
//! assert_eq!((c[0].processors, c[0].runs, c[0].mean, c[0].within_ss), (4, 2, 11.0, 2.0));
//! assert_eq!((c[1].processors, c[1].runs), (8, 1));
//! # Ok::<(), multicomputer_workloads::analysis::ScalabilityError>(())
//! ```

use serde::Serialize;

use super::definitions::system_overhead;
use super::error::{ScalabilityError, non_negative, positive, processors_f64};

/// One row of a scalability table.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Measurement {
    /// Configuration size P.
    pub processors: u32,
    /// The message-system degradation (the paper's busy-loop `loop_count`; any measure that
    /// grows with the mean message time `T_avg` works).
    pub loop_count: f64,
    /// Run time T, or the mean of `runs` runs (any unit; seconds on the command line).
    pub run_time: f64,
    /// Ideal run time `C·[W_s(P) + W_p(P)/P]` in the unit of `run_time`; when given, the
    /// system overhead `Φ_s = T/ideal` is analysed.
    pub ideal_run_time: Option<f64>,
    /// Standard error of `run_time`.
    pub std_error: Option<f64>,
    /// Runs averaged into `run_time` (with `std_error`); without it a standard error is taken
    /// as exact.
    pub runs: Option<u32>,
}

impl Measurement {
    /// One run.
    pub fn run(processors: u32, loop_count: f64, run_time: f64) -> Self {
        Measurement {
            processors,
            loop_count,
            run_time,
            ideal_run_time: None,
            std_error: None,
            runs: None,
        }
    }

    /// The same, analysed as `Φ_s = run_time/ideal_run_time`.
    pub fn with_ideal(self, ideal_run_time: f64) -> Self {
        Measurement {
            ideal_run_time: Some(ideal_run_time),
            ..self
        }
    }

    /// The same, as a mean with its standard error (of `runs` runs, if known).
    pub fn with_std_error(self, std_error: f64, runs: Option<u32>) -> Self {
        Measurement {
            std_error: Some(std_error),
            runs,
            ..self
        }
    }

    /// The analysed value: `Φ_s = T/ideal`, or T.
    fn value(&self) -> Result<f64, ScalabilityError> {
        positive("run time", self.run_time)?;
        match self.ideal_run_time {
            Some(ideal) => system_overhead(self.run_time, ideal),
            None => Ok(self.run_time),
        }
    }

    /// `value / run_time`: the factor that turns a run-time spread into the analysed unit.
    fn scale(&self) -> f64 {
        self.ideal_run_time.map_or(1.0, |i| 1.0 / i)
    }
}

/// The measurements at one (P, loop count).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cell {
    /// P.
    pub processors: u32,
    /// The loop count.
    pub loop_count: f64,
    /// Mean of the analysed value (`Φ_s` or T) over the cell's runs.
    pub mean: f64,
    /// Where the noise's variance function `σ_c ∝ level^γ` is evaluated for this cell's
    /// weight: the cell's mean as grouped; [`consistency_test`](super::consistency_test) moves
    /// it to `H₀`'s fitted value (iteratively reweighted least squares, its step 2b), which does
    /// not move with the cell's own noise.
    pub level: f64,
    /// Number of runs.
    pub runs: u32,
    /// `Σ (y − ȳ)²` over the runs, analysed unit (0 for one run).
    pub within_ss: f64,
    /// The same for the raw run times (for the timer-resolution check).
    pub run_time_within_ss: f64,
    /// Whether the cell has two or more runs, all with the same run time.
    pub identical_replicates: bool,
    /// The smallest positive difference between two of its runs' run times, if any.
    pub smallest_gap: Option<f64>,
    /// Variance of `mean` when the standard errors are taken as exact.
    pub known_variance: Option<f64>,
    /// The analysed value of each run, when every row is a run (empty for means with standard
    /// errors): what the consistency test reads the noise's tails from.
    #[serde(skip)]
    pub values: Vec<f64>,
}

impl Cell {
    /// Degrees of freedom of its pure error, `runs − 1`.
    pub fn pure_error_dof(&self) -> usize {
        self.runs as usize - 1
    }
}

/// How the rows of a table describe their noise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Spread {
    /// Each row is a run.
    Runs,
    /// Each row is a mean of `runs` runs with its standard error.
    Summaries,
    /// Each row has a standard error taken as exact.
    Known,
}

fn spread_of(measurements: &[Measurement]) -> Result<Spread, ScalabilityError> {
    let with_se = measurements
        .iter()
        .filter(|m| m.std_error.is_some())
        .count();
    let with_runs = measurements.iter().filter(|m| m.runs.is_some()).count();
    if let Some(i) = measurements
        .iter()
        .position(|m| m.runs.is_some() && m.std_error.is_none())
    {
        return Err(ScalabilityError::RunsWithoutStdError(i));
    }
    if with_se > 0 && with_se < measurements.len() {
        let i = measurements.iter().position(|m| m.std_error.is_none());
        return Err(ScalabilityError::MixedStdErrors(i.unwrap_or(0)));
    }
    if with_runs > 0 && with_runs < measurements.len() {
        let i = measurements.iter().position(|m| m.runs.is_none());
        return Err(ScalabilityError::MixedRuns(i.unwrap_or(0)));
    }
    Ok(match (with_se, with_runs) {
        (0, _) => Spread::Runs,
        (_, 0) => Spread::Known,
        _ => Spread::Summaries,
    })
}

/// Groups measurements into cells, ordered by loop count, then P.
pub fn cells(measurements: &[Measurement]) -> Result<Vec<Cell>, ScalabilityError> {
    let spread = spread_of(measurements)?;
    let mut order: Vec<usize> = (0..measurements.len()).collect();
    for m in measurements {
        processors_f64(m.processors)?;
        if !m.loop_count.is_finite() {
            return Err(ScalabilityError::InvalidValue {
                what: "loop count".into(),
                value: m.loop_count,
            });
        }
    }
    // Within a cell the rows go in a canonical order too, so that its sums, and so every
    // figure and the verdict's resamples (seeded by the cells), do not depend on the order of
    // the rows given.
    let rest = |m: &Measurement| {
        (
            m.ideal_run_time.unwrap_or(f64::NAN),
            m.std_error.unwrap_or(f64::NAN),
            m.runs,
        )
    };
    order.sort_by(|&i, &j| {
        let (a, b) = (&measurements[i], &measurements[j]);
        let ((ia, sa, na), (ib, sb, nb)) = (rest(a), rest(b));
        a.loop_count
            .total_cmp(&b.loop_count)
            .then(a.processors.cmp(&b.processors))
            .then(a.run_time.total_cmp(&b.run_time))
            .then(ia.total_cmp(&ib))
            .then(sa.total_cmp(&sb))
            .then(na.cmp(&nb))
    });
    order
        .chunk_by(|&i, &j| {
            let (a, b) = (&measurements[i], &measurements[j]);
            a.loop_count == b.loop_count && a.processors == b.processors
        })
        .map(|group| {
            let rows: Vec<&Measurement> = group.iter().map(|&i| &measurements[i]).collect();
            cell(&rows, spread)
        })
        .collect()
}

/// One row's contribution: (runs, mean, within SS, raw mean, raw within SS, known variance).
struct Part {
    runs: f64,
    mean: f64,
    ss: f64,
    raw_mean: f64,
    raw_ss: f64,
    variance: Option<f64>,
}

fn part(m: &Measurement, spread: Spread) -> Result<Part, ScalabilityError> {
    let mean = m.value()?;
    let scale = m.scale();
    let mut p = Part {
        runs: 1.0,
        mean,
        ss: 0.0,
        raw_mean: m.run_time,
        raw_ss: 0.0,
        variance: None,
    };
    match spread {
        Spread::Runs => {}
        Spread::Summaries => {
            let se = non_negative("standard error", m.std_error.unwrap_or(0.0))?;
            let n = m.runs.unwrap_or(1);
            if n == 0 {
                return Err(ScalabilityError::InvalidValue {
                    what: "number of runs".into(),
                    value: 0.0,
                });
            }
            let n = f64::from(n);
            p.runs = n;
            p.raw_ss = (n - 1.0) * n * se * se;
            p.ss = p.raw_ss * scale * scale;
        }
        Spread::Known => {
            let se = positive("standard error", m.std_error.unwrap_or(0.0))? * scale;
            p.variance = Some(se * se);
        }
    }
    Ok(p)
}

fn cell(rows: &[&Measurement], spread: Spread) -> Result<Cell, ScalabilityError> {
    let parts: Vec<Part> = rows
        .iter()
        .map(|m| part(m, spread))
        .collect::<Result<_, _>>()?;
    let n: f64 = parts.iter().map(|p| p.runs).sum();
    let (mean, known_variance) = if spread == Spread::Known {
        // Inverse-variance weighted mean; its variance 1/Σ(1/vᵢ).
        let w: Vec<f64> = parts
            .iter()
            .map(|p| 1.0 / p.variance.unwrap_or(1.0))
            .collect();
        let wsum: f64 = w.iter().sum();
        let mean = parts.iter().zip(&w).map(|(p, w)| w * p.mean).sum::<f64>() / wsum;
        (mean, Some(1.0 / wsum))
    } else {
        (parts.iter().map(|p| p.runs * p.mean).sum::<f64>() / n, None)
    };
    let raw_mean = parts.iter().map(|p| p.runs * p.raw_mean).sum::<f64>() / n;
    let within_ss = parts
        .iter()
        .map(|p| p.ss + p.runs * (p.mean - mean).powi(2))
        .sum();
    let run_time_within_ss = parts
        .iter()
        .map(|p| p.raw_ss + p.runs * (p.raw_mean - raw_mean).powi(2))
        .sum();
    let mut times: Vec<f64> = rows.iter().map(|m| m.run_time).collect();
    times.sort_by(f64::total_cmp);
    let smallest_gap = times
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|d| *d > 0.0)
        .reduce(f64::min);
    let identical_replicates = n >= 2.0 && spread != Spread::Known && run_time_within_ss == 0.0;
    Ok(Cell {
        processors: rows[0].processors,
        loop_count: rows[0].loop_count,
        mean,
        level: mean,
        runs: n as u32,
        within_ss: if spread == Spread::Known {
            0.0
        } else {
            within_ss
        },
        run_time_within_ss,
        identical_replicates,
        smallest_gap: if spread == Spread::Runs {
            smallest_gap
        } else {
            None
        },
        known_variance,
        values: if spread == Spread::Runs {
            parts.iter().map(|p| p.mean).collect()
        } else {
            Vec::new()
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_and_their_summaries_give_the_same_cell() {
        let runs = [
            Measurement::run(8, 100.0, 2.0),
            Measurement::run(8, 100.0, 4.0),
            Measurement::run(8, 100.0, 6.0),
            Measurement::run(8, 100.0, 8.0),
        ];
        let a = &cells(&runs).unwrap()[0];
        assert_eq!((a.runs, a.mean, a.within_ss), (4, 5.0, 20.0));
        assert_eq!(a.smallest_gap, Some(2.0));
        // Two summaries of two runs each: means 3 and 7, sd √2 each, se 1.
        let summaries = [
            Measurement::run(8, 100.0, 3.0).with_std_error(1.0, Some(2)),
            Measurement::run(8, 100.0, 7.0).with_std_error(1.0, Some(2)),
        ];
        let b = &cells(&summaries).unwrap()[0];
        assert_eq!((b.runs, b.mean), (4, 5.0));
        assert!((b.within_ss - 20.0).abs() < 1e-12);
        assert!((b.run_time_within_ss - 20.0).abs() < 1e-12);
        assert!(b.known_variance.is_none());
    }

    #[test]
    fn ideal_run_times_divide_values_and_spreads() {
        let runs = [
            Measurement::run(2, 0.0, 10.0).with_ideal(5.0),
            Measurement::run(2, 0.0, 12.0).with_ideal(5.0),
        ];
        let c = &cells(&runs).unwrap()[0];
        assert!((c.mean - 2.2).abs() < 1e-12);
        assert!((c.within_ss - 2.0 / 25.0).abs() < 1e-12);
        assert!((c.run_time_within_ss - 2.0).abs() < 1e-12);
        let known = [Measurement::run(2, 0.0, 10.0)
            .with_ideal(5.0)
            .with_std_error(0.5, None)];
        let k = &cells(&known).unwrap()[0];
        assert!((k.known_variance.unwrap() - 0.01).abs() < 1e-15);
    }

    #[test]
    fn cells_are_ordered_and_identical_replicates_flagged() {
        let runs = [
            Measurement::run(4, 10.0, 1.0),
            Measurement::run(2, 10.0, 1.0),
            Measurement::run(2, 0.0, 3.0),
            Measurement::run(2, 10.0, 1.0),
        ];
        let c = cells(&runs).unwrap();
        let keys: Vec<(f64, u32, u32)> = c
            .iter()
            .map(|c| (c.loop_count, c.processors, c.runs))
            .collect();
        assert_eq!(keys, vec![(0.0, 2, 1), (10.0, 2, 2), (10.0, 4, 1)]);
        assert!(c[1].identical_replicates && !c[0].identical_replicates);
        assert_eq!(c[1].smallest_gap, None);
    }

    #[test]
    fn bad_rows_are_named() {
        let ok = Measurement::run(2, 0.0, 1.0);
        assert_eq!(
            cells(&[ok, Measurement::run(0, 0.0, 1.0)]),
            Err(ScalabilityError::ZeroProcessors)
        );
        assert!(matches!(
            cells(&[Measurement::run(2, 0.0, -1.0)]),
            Err(ScalabilityError::InvalidValue { .. })
        ));
        assert_eq!(
            cells(&[ok, ok.with_std_error(0.1, None)]),
            Err(ScalabilityError::MixedStdErrors(0))
        );
        let mut r = ok;
        r.runs = Some(3);
        assert_eq!(cells(&[r]), Err(ScalabilityError::RunsWithoutStdError(0)));
        assert!(matches!(
            cells(&[ok.with_std_error(0.0, None)]),
            Err(ScalabilityError::InvalidValue { .. })
        ));
    }
}
