//! The fit of a model's parameters to a sweep's measured makespans.

use serde::Serialize;

use super::{Experiment, ExperimentError, Sweep};
use crate::analysis::fit_nonlinear;

/// One parameter as fitted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FittedParameter {
    /// Its name.
    pub name: String,
    /// The value given to the model (where the fit started).
    pub given: f64,
    /// The fitted value.
    pub value: f64,
    /// Its standard error (NaN with as many observations as parameters).
    pub std_error: f64,
    /// `100 (fitted − given)/given` (NaN where the given value is 0).
    pub change_pct: f64,
}

/// The model's parameters fitted to every measured run of a sweep.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fit {
    /// The parameters, in the model's order.
    pub parameters: Vec<FittedParameter>,
    /// Runs fitted: every measured run of every point.
    pub observations: usize,
    /// The model's makespan with the fitted values, per point of the sweep, seconds.
    pub fitted_s: Vec<f64>,
    /// Each run's `(measured − fitted)/measured`, points in order, runs in order.
    pub relative_residuals: Vec<f64>,
    /// The largest |relative residual|.
    pub max_relative_residual: f64,
}

impl Experiment<'_> {
    /// Fits the model's parameters to every measured run of `sweep` (made by this
    /// experiment) by nonlinear least squares (Levenberg–Marquardt, [`fit_nonlinear`]),
    /// starting from the given values, by relative error (weights `1/T²`: makespans that
    /// span orders of magnitude count alike).
    pub fn fit(&self, sweep: &Sweep) -> Result<Fit, ExperimentError> {
        let model = self.model();
        // One observation per measured run: its point and its makespan.
        let runs: Vec<(usize, f64)> = sweep
            .points
            .iter()
            .enumerate()
            .flat_map(|(i, p)| p.makespans_s.iter().map(move |t| (i, *t)))
            .collect();
        let y: Vec<f64> = runs.iter().map(|r| r.1).collect();
        if let Some(t) = y.iter().find(|t| !(t.is_finite() && **t > 0.0)) {
            return Err(ExperimentError::Unfittable(*t));
        }
        let weights: Vec<f64> = y.iter().map(|t| 1.0 / (t * t)).collect();
        let given = model.values();
        let fit = fit_nonlinear(
            |i, theta| model.predict_s(&sweep.points[runs[i].0].machine, theta),
            &y,
            &given,
            Some(&weights),
        )?;
        let parameters = model
            .parameters()
            .iter()
            .zip(fit.params.iter().zip(&fit.std_errors))
            .map(|(p, (&value, &std_error))| FittedParameter {
                name: p.name.clone(),
                given: p.value,
                value,
                std_error,
                change_pct: if p.value == 0.0 {
                    f64::NAN
                } else {
                    100.0 * (value - p.value) / p.value
                },
            })
            .collect();
        Ok(Fit {
            parameters,
            observations: y.len(),
            fitted_s: sweep
                .points
                .iter()
                .map(|p| model.predict_s(&p.machine, &fit.params))
                .collect(),
            max_relative_residual: fit.max_relative_residual(),
            relative_residuals: fit.relative_residuals,
        })
    }
}
