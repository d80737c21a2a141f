//! The candidate fitted at each loop count by least squares (paper §4: "for each value of
//! T_avg, we divide the actual run times by the corresponding ideal run times and obtain a least
//! squares fit, which yields values for a₁ and b₁"): the rows of the paper's Tables 1–2.
//!
//! The fit is to the cells' means, each weighted by its number of runs and the weighting
//! ([`cell_weights`](super::cell_weights)), which gives the same coefficients as a fit to the
//! individual runs. Standard errors come from the pooled noise estimate when there is one
//! ([`UncertaintySource::Replicates`], [`UncertaintySource::StdErrors`]); otherwise from this
//! fit's own residuals ([`UncertaintySource::Residuals`]), shown for orientation only: the
//! verdict never uses them (see [`consistency_test`](super::consistency_test)).
//!
//! ```
//! use multicomputer_workloads::analysis::{
//!     AppliedWeighting, Measurement, NoiseSource, OverheadModel, cells, estimate_noise,
//!     fit_overhead,
//! };
//!
//! // 78 + 2·ln P, each P run twice, ±0.1.
//! let runs: Vec<Measurement> = [2u32, 4, 8, 16]
//!     .iter()
//!     .flat_map(|&p| {
//!         let t = 78.0 + 2.0 * f64::from(p).ln();
//!         [Measurement::run(p, 0.0, t - 0.1), Measurement::run(p, 0.0, t + 0.1)]
//!     })
//!     .collect();
//! let c = cells(&runs)?;
//! let noise = estimate_noise(&c, AppliedWeighting::Uniform, true);
//! assert_eq!(noise.source, NoiseSource::Replicates);
//! let fit = fit_overhead(&OverheadModel::log(), &c, AppliedWeighting::Uniform, &noise)?;
//! assert!((fit.coefficients[0].value - 78.0).abs() < 1e-9);
//! // σ̂² = 4·0.02/4 = 0.02 from the replicates, though the fit itself is exact.
//! assert!(fit.coefficients[0].std_error > 0.05);
//! # Ok::<(), multicomputer_workloads::analysis::ScalabilityError>(())
//! ```

use serde::Serialize;

use super::basis::BasisTerm;
use super::error::{ScalabilityError, processors_f64};
use super::fit::{LinearFit, fit_linear};
use super::measurements::Cell;
use super::noise::{AppliedWeighting, NoiseEstimate, NoiseSource, cell_weights};
use super::overhead_model::OverheadModel;

/// A value with its standard error.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimate {
    /// Value.
    pub value: f64,
    /// Standard error.
    pub std_error: f64,
}

/// One fitted coefficient.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TermEstimate {
    /// Coefficient name (`a`, `b`, …).
    pub name: String,
    /// Its basis function.
    pub term: BasisTerm,
    /// Fitted value.
    pub value: f64,
    /// Standard error (NaN when it cannot be estimated).
    pub std_error: f64,
}

/// Where a fit's standard errors come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UncertaintySource {
    /// The pure error of replicates, pooled over every cell of the table.
    Replicates,
    /// Standard errors taken as exact.
    StdErrors,
    /// This fit's own residuals: any misfit counts as noise (orientation only).
    Residuals,
}

impl UncertaintySource {
    /// `replicates`, `std errors` or `residuals`.
    pub fn as_str(self) -> &'static str {
        match self {
            UncertaintySource::Replicates => "replicates",
            UncertaintySource::StdErrors => "std errors",
            UncertaintySource::Residuals => "residuals",
        }
    }
}

/// The candidate fitted at one loop count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OverheadFit {
    /// The candidate.
    pub model: OverheadModel,
    /// The loop count.
    pub loop_count: f64,
    /// Coefficients with standard errors, in model order.
    pub coefficients: Vec<TermEstimate>,
    /// P of each cell.
    pub processors: Vec<u32>,
    /// Each cell's mean.
    pub observed: Vec<f64>,
    /// The model at each P.
    pub fitted: Vec<f64>,
    /// `ȳ − ŷ`.
    pub residuals: Vec<f64>,
    /// `(ȳ − ŷ)/ȳ`.
    pub relative_residuals: Vec<f64>,
    /// Weighted R² of the cell means.
    pub r_squared: f64,
    /// Where the standard errors come from.
    pub uncertainty: UncertaintySource,
}

impl OverheadFit {
    /// The fitted overhead at P.
    pub fn predict(&self, processors: f64) -> f64 {
        let params: Vec<f64> = self.coefficients.iter().map(|c| c.value).collect();
        self.model.evaluate(&params, processors)
    }

    /// The coefficient of `term`, if the model has it.
    pub fn coefficient(&self, term: BasisTerm) -> Option<&TermEstimate> {
        self.coefficients.iter().find(|c| c.term == term)
    }
}

/// Fits `model` to the cells of one loop count (module docs). Needs at least as many distinct
/// P values as the model has terms.
pub fn fit_overhead(
    model: &OverheadModel,
    cells: &[Cell],
    weighting: AppliedWeighting,
    noise: &NoiseEstimate,
) -> Result<OverheadFit, ScalabilityError> {
    let loop_count = cells.first().map_or(0.0, |c| c.loop_count);
    if cells.len() < model.len() {
        return Err(ScalabilityError::TooFewPoints {
            loop_count,
            needed: model.len(),
            got: cells.len(),
        });
    }
    let rows: Vec<Vec<f64>> = cells
        .iter()
        .map(|c| processors_f64(c.processors).map(|p| model.row(p)))
        .collect::<Result<_, _>>()?;
    let y: Vec<f64> = cells.iter().map(|c| c.mean).collect();
    let w = cell_weights(cells, weighting);
    let fit: LinearFit = fit_linear(&rows, &y, Some(&w))?;
    let (uncertainty, std_errors): (UncertaintySource, Vec<f64>) = match noise.source {
        NoiseSource::Replicates | NoiseSource::StdErrors => (
            if noise.source == NoiseSource::Replicates {
                UncertaintySource::Replicates
            } else {
                UncertaintySource::StdErrors
            },
            fit.unit_std_errors
                .iter()
                .map(|u| u * noise.variance.sqrt())
                .collect(),
        ),
        NoiseSource::Unavailable | NoiseSource::Exact => {
            (UncertaintySource::Residuals, fit.std_errors.clone())
        }
    };
    Ok(OverheadFit {
        model: model.clone(),
        loop_count,
        coefficients: model
            .terms()
            .iter()
            .enumerate()
            .map(|(j, t)| TermEstimate {
                name: model.name(j),
                term: *t,
                value: fit.params[j],
                std_error: std_errors[j],
            })
            .collect(),
        processors: cells.iter().map(|c| c.processors).collect(),
        fitted: y.iter().zip(&fit.residuals).map(|(y, r)| y - r).collect(),
        observed: y,
        residuals: fit.residuals,
        relative_residuals: fit.relative_residuals,
        r_squared: fit.r_squared,
        uncertainty,
    })
}

/// [`fit_overhead`] at each loop count of `cells` (ordered by loop count, as
/// [`cells`](super::cells) returns them).
pub fn fit_each_loop_count(
    model: &OverheadModel,
    cells: &[Cell],
    weighting: AppliedWeighting,
    noise: &NoiseEstimate,
) -> Result<Vec<OverheadFit>, ScalabilityError> {
    cells
        .chunk_by(|a, b| a.loop_count == b.loop_count)
        .map(|table| fit_overhead(model, table, weighting, noise))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Measurement, cells, estimate_noise};

    #[test]
    fn fits_recover_exact_constants_with_zero_residual() {
        let truth = [3.0, 0.5, 0.02, 0.25, 0.01, 1e-4];
        for terms in [
            "1+log",
            "1+P",
            "1+log+P",
            "1+sqrt",
            "1+PlogP",
            "1+P2",
            "1+log+sqrt+P+PlogP+P2",
        ] {
            let model: OverheadModel = terms.parse().unwrap();
            let params: Vec<f64> = model
                .terms()
                .iter()
                .map(|t| truth[BasisTerm::ALL.iter().position(|a| a == t).unwrap()])
                .collect();
            let runs: Vec<Measurement> = (0..10)
                .map(|i| {
                    let p = 1u32 << i;
                    Measurement::run(p, 0.0, model.evaluate(&params, f64::from(p)))
                })
                .collect();
            let c = cells(&runs).unwrap();
            for weighting in [AppliedWeighting::Uniform, AppliedWeighting::Relative] {
                let noise = estimate_noise(&c, weighting, true);
                let fit = fit_overhead(&model, &c, weighting, &noise).unwrap();
                assert_eq!(fit.uncertainty, UncertaintySource::Residuals);
                for (c, want) in fit.coefficients.iter().zip(&params) {
                    assert!(
                        (c.value - want).abs() < 1e-7 * want.abs().max(1.0),
                        "{model}: {} = {} ≠ {want}",
                        c.name,
                        c.value
                    );
                }
                assert!(fit.relative_residuals.iter().all(|r| r.abs() < 1e-9));
                assert!((fit.predict(1000.0) - model.evaluate(&params, 1000.0)).abs() < 1e-5);
            }
        }
    }

    #[test]
    fn standard_errors_come_from_the_pooled_replicates() {
        // a + b·ln P at P = 2, 4, 8, 16, 32; every P twice, ±s: σ̂² = s²·2/1 per cell.
        let s = 0.3;
        let runs: Vec<Measurement> = [2u32, 4, 8, 16, 32]
            .iter()
            .flat_map(|&p| {
                let t = 10.0 + f64::from(p).ln();
                [
                    Measurement::run(p, 0.0, t - s),
                    Measurement::run(p, 0.0, t + s),
                ]
            })
            .collect();
        let c = cells(&runs).unwrap();
        let noise = estimate_noise(&c, AppliedWeighting::Uniform, true);
        assert!((noise.variance - 2.0 * s * s).abs() < 1e-12);
        let fit =
            fit_overhead(&OverheadModel::log(), &c, AppliedWeighting::Uniform, &noise).unwrap();
        // Cell means exact: SE(a) = σ·√(1/N + x̄²/Sxx) with N = 10 runs.
        let x: Vec<f64> = [2f64, 4.0, 8.0, 16.0, 32.0]
            .iter()
            .map(|p| p.ln())
            .collect();
        let mean = x.iter().sum::<f64>() / 5.0;
        let sxx = 2.0 * x.iter().map(|v| (v - mean).powi(2)).sum::<f64>();
        let want = (2.0 * s * s * (1.0 / 10.0 + mean * mean / sxx)).sqrt();
        assert!((fit.coefficients[0].std_error - want).abs() < 1e-9);
        assert!((fit.coefficients[1].value - 1.0).abs() < 1e-12);
        assert_eq!(fit.uncertainty, UncertaintySource::Replicates);
    }

    #[test]
    fn too_few_processor_counts_are_named() {
        let c = cells(&[Measurement::run(2, 7.0, 1.0), Measurement::run(4, 7.0, 1.1)]).unwrap();
        let noise = estimate_noise(&c, AppliedWeighting::Uniform, true);
        assert_eq!(
            fit_overhead(
                &OverheadModel::log_linear(),
                &c,
                AppliedWeighting::Uniform,
                &noise
            ),
            Err(ScalabilityError::TooFewPoints {
                loop_count: 7.0,
                needed: 3,
                got: 2
            })
        );
    }
}
