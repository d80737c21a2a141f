//! Fitting the start-up overheads `β_e`, `β_f` from measured throughputs (§4.2).
//!
//! The paper substitutes measured throughputs into the model and solves for `β_e` and `β_f`
//! for several parameter sets, checking that the values agree. Here all observations are
//! fitted at once by weighted nonlinear least squares (Levenberg–Marquardt,
//! [`crate::analysis::fit_nonlinear`]) with relative weights `1/y²`, which also yields standard
//! errors and per-observation residuals.

use serde::{Deserialize, Serialize};

use super::model::{FarmCosts, saturating_unchecked};
use super::{ModelError, check_duration, check_work};
use crate::analysis::{FitError, fit_nonlinear};
use crate::tree::TreeShape;

/// One measured configuration of a farm.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ThroughputObservation {
    /// Topology: arity `k` (1 = chain) and levels `N`.
    pub shape: TreeShape,
    /// Task compute time `T_e` (seconds).
    pub te_s: f64,
    /// Transfer time of one task message `T_τ` (seconds), for the link limit and the start-up.
    pub tau_s: f64,
    /// Measured throughput (tasks/s).
    pub throughput_per_s: f64,
    /// `Some(M)`: the throughput was measured as `M / execution time`, so the model compared
    /// with it is `M / (T_startup + (M − 1)/S_N)` (g); `None`: a steady-state rate.
    pub tasks_m: Option<u64>,
}

impl ThroughputObservation {
    fn validate(&self) -> Result<(), ModelError> {
        self.shape.validate()?;
        check_work("te_s", self.te_s)?;
        check_duration("tau_s", self.tau_s)?;
        check_work("1/throughput_per_s", 1.0 / self.throughput_per_s)?;
        if self.tasks_m == Some(0) {
            return Err(ModelError::ZeroTasks);
        }
        Ok(())
    }

    /// The model's throughput (tasks/s) for given `β_e`, `β_f` (seconds), unchecked so that
    /// the iteration may try any values: the fitted curve a report draws through the rows,
    /// and beyond them for other shapes of the row's tree.
    pub fn predict_per_s(&self, beta_e_s: f64, beta_f_s: f64) -> f64 {
        let costs = FarmCosts {
            te_s: self.te_s,
            beta_e_s,
            beta_f_s,
        };
        let (s, _) = saturating_unchecked(self.shape, &costs);
        let steady = s[s.len() - 1].min(1.0 / (self.tau_s + beta_e_s));
        match self.tasks_m {
            None => steady,
            Some(m) => {
                let startup = f64::from(self.shape.levels - 1) * (2.0 * self.tau_s + beta_f_s)
                    + self.te_s
                    + beta_e_s;
                m as f64 / (startup + (m - 1) as f64 / steady)
            }
        }
    }
}

/// Fitted start-up overheads.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BetaFit {
    /// `β_e` (seconds).
    pub beta_e_s: f64,
    /// `β_f` (seconds).
    pub beta_f_s: f64,
    /// Standard error of `β_e` (seconds).
    pub beta_e_std_error_s: f64,
    /// Standard error of `β_f` (seconds).
    pub beta_f_std_error_s: f64,
    /// Measured minus fitted throughput per observation (tasks/s).
    pub residuals_per_s: Vec<f64>,
    /// Residuals relative to the measured throughput.
    pub relative_residuals: Vec<f64>,
    /// Largest |relative residual|.
    pub max_relative_residual: f64,
    /// The fit's residual standard deviation, relative (the fit weighs each observation by
    /// `1/y²`): `√(Σ r²/dof)` over the relative residuals `r`; NaN with no degree of freedom.
    pub relative_residual_sd: f64,
    /// Degrees of freedom (observations − 2).
    pub dof: usize,
}

/// Fits `β_e` and `β_f` to measured throughputs of farms of several shapes and task sizes.
///
/// The model is the farm steady state (d)–(f) (in its saturating form, identical where no
/// processor is forwarding-bound), capped by the link limit `1/(T_τ + β_e)`, and for
/// observations with `tasks_m` the execution-time form (g). At least one observation must have
/// `N ≥ 2` levels, or `β_f` does not enter the model. The fit is [`fit_overheads`] on the
/// scale of the median `T_e`.
pub fn fit_betas(observations: &[ThroughputObservation]) -> Result<BetaFit, ModelError> {
    for o in observations {
        o.validate()?;
    }
    if observations.len() < 2 {
        return Err(FitError::TooFewPoints {
            needed: 2,
            got: observations.len(),
        }
        .into());
    }
    if observations.iter().all(|o| o.shape.levels < 2) {
        // β_f only appears when tasks are forwarded.
        return Err(FitError::RankDeficient.into());
    }
    let y: Vec<f64> = observations.iter().map(|o| o.throughput_per_s).collect();
    let mut te: Vec<f64> = observations.iter().map(|o| o.te_s).collect();
    te.sort_by(f64::total_cmp);
    let scale = te[te.len() / 2];
    fit_overheads(&y, scale, |i, be, bf| observations[i].predict_per_s(be, bf))
}

/// Fits the two start-up overheads `(β_e, β_f)` of any model `predict(i, β_e, β_f)` of
/// observations `y` (throughputs, times: any positive quantity) by weighted least squares with
/// relative weights `1/y²`: the best point of a logarithmic grid `β ∈ [10⁻⁴, 1]·scale`,
/// refined by successively finer grids around it (the farm and divide-and-conquer models have
/// kinks, at the link limit and at forwarding saturation, where Gauss–Newton steps stall from
/// a distant start), then Levenberg–Marquardt from there ([`fit_nonlinear`]).
pub fn fit_overheads(
    y: &[f64],
    scale: f64,
    predict: impl Fn(usize, f64, f64) -> f64,
) -> Result<BetaFit, ModelError> {
    check_work("scale", scale)?;
    if y.len() < 2 {
        return Err(FitError::TooFewPoints {
            needed: 2,
            got: y.len(),
        }
        .into());
    }
    let w: Vec<f64> = y.iter().map(|y| 1.0 / (y * y)).collect();
    let best = grid_overheads(y, scale, &predict);
    let fit = fit_nonlinear(
        |i, theta| predict(i, theta[0], theta[1]),
        y,
        &[best.0, best.1],
        Some(&w),
    )?;
    Ok(BetaFit {
        beta_e_s: fit.params[0],
        beta_f_s: fit.params[1],
        beta_e_std_error_s: fit.std_errors[0],
        beta_f_std_error_s: fit.std_errors[1],
        max_relative_residual: fit.max_relative_residual(),
        relative_residual_sd: if fit.dof > 0 {
            (fit.weighted_rss / fit.dof as f64).sqrt()
        } else {
            f64::NAN
        },
        residuals_per_s: fit.residuals,
        relative_residuals: fit.relative_residuals,
        dof: fit.dof,
    })
}

/// The positive `(β_e, β_f)` of least relative squared error on a logarithmic grid
/// `β ∈ [10⁻⁴, 1]·scale`, zoomed in six times around its best point, with that error: the
/// start of [`fit_overheads`], and a bounded fit where an unbounded one would go negative.
pub fn grid_overheads(
    y: &[f64],
    scale: f64,
    predict: impl Fn(usize, f64, f64) -> f64,
) -> (f64, f64, f64) {
    let wrss = |be: f64, bf: f64| -> f64 {
        y.iter()
            .enumerate()
            .map(|(i, y)| {
                let r = (y - predict(i, be, bf)) / y;
                r * r
            })
            .sum()
    };
    let grid: Vec<f64> = (0..=32)
        .map(|i| scale * 10f64.powf(-4.0 + f64::from(i) / 8.0))
        .collect();
    let mut best = (grid[0], grid[0], f64::INFINITY);
    for &be in &grid {
        for &bf in &grid {
            let c = wrss(be, bf);
            if c < best.2 {
                best = (be, bf, c);
            }
        }
    }
    let mut half_width = 10f64.powf(1.0 / 8.0);
    for _ in 0..6 {
        let (be0, bf0) = (best.0, best.1);
        for i in -5..=5 {
            for j in -5..=5 {
                let be = be0 * half_width.powf(f64::from(i) / 5.0);
                let bf = bf0 * half_width.powf(f64::from(j) / 5.0);
                let c = wrss(be, bf);
                if c < best.2 {
                    best = (be, bf, c);
                }
            }
        }
        half_width = half_width.powf(0.25);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    const BETA_E: f64 = 60e-6;
    const BETA_F: f64 = 110e-6;

    fn synthetic(noise: impl Fn(usize) -> f64) -> Vec<ThroughputObservation> {
        let mut out = Vec::new();
        for k in [1, 2, 3] {
            for levels in 1..=6 {
                for te_s in [1e-3, 5e-3, 10e-3] {
                    for tasks_m in [None, Some(500)] {
                        let mut o = ThroughputObservation {
                            shape: TreeShape { k, levels },
                            te_s,
                            tau_s: 20e-6,
                            throughput_per_s: 0.0,
                            tasks_m,
                        };
                        let i = out.len();
                        o.throughput_per_s = o.predict_per_s(BETA_E, BETA_F) * (1.0 + noise(i));
                        out.push(o);
                    }
                }
            }
        }
        out
    }

    #[test]
    fn recovers_betas_from_exact_data_with_zero_residual() {
        let obs = synthetic(|_| 0.0);
        let fit = fit_betas(&obs).unwrap();
        assert!((fit.beta_e_s - BETA_E).abs() < 1e-6 * BETA_E, "{fit:?}");
        assert!((fit.beta_f_s - BETA_F).abs() < 1e-6 * BETA_F, "{fit:?}");
        assert!(fit.max_relative_residual < 1e-9);
        assert!(fit.relative_residual_sd < 1e-9);
        assert_eq!(fit.residuals_per_s.len(), obs.len());
        assert_eq!(fit.dof, obs.len() - 2);
    }

    #[test]
    fn recovers_betas_from_noisy_data_within_tolerance() {
        // ±1 % multiplicative noise from a fixed linear congruential sequence.
        let noise = |i: usize| {
            let x = (i as u64)
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((x >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 0.02
        };
        let obs = synthetic(noise);
        let fit = fit_betas(&obs).unwrap();
        assert!((fit.beta_e_s - BETA_E).abs() < 0.1 * BETA_E, "{fit:?}");
        assert!((fit.beta_f_s - BETA_F).abs() < 0.1 * BETA_F, "{fit:?}");
        // The truth lies within a few standard errors, and the residuals are the noise.
        assert!((fit.beta_e_s - BETA_E).abs() < 5.0 * fit.beta_e_std_error_s);
        assert!((fit.beta_f_s - BETA_F).abs() < 5.0 * fit.beta_f_std_error_s);
        assert!(fit.max_relative_residual < 0.012 && fit.max_relative_residual > 0.001);
        // Uniform noise on ±1 % has a standard deviation of 0.02/√12 = 0.58 %.
        let sd = fit.relative_residual_sd;
        assert!(sd > 0.0045 && sd < 0.007, "{sd}");
    }

    #[test]
    fn unidentifiable_or_invalid_input_is_an_error() {
        let single_level: Vec<ThroughputObservation> = synthetic(|_| 0.0)
            .into_iter()
            .filter(|o| o.shape.levels == 1)
            .collect();
        assert!(matches!(
            fit_betas(&single_level),
            Err(ModelError::Fit(FitError::RankDeficient))
        ));
        let mut bad = synthetic(|_| 0.0);
        bad[3].throughput_per_s = -1.0;
        assert!(fit_betas(&bad).is_err());
        assert!(matches!(
            fit_betas(&bad[..1]),
            Err(ModelError::NonPositiveWork { .. } | ModelError::Fit(_))
        ));
    }
}
