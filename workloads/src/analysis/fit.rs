//! Least squares, linear and nonlinear, weighted, with residuals and standard errors.
//!
//! Every fit reports what a user needs to judge it: the parameters, their standard errors
//! (from the covariance `σ² (JᵀWJ)⁻¹` with `σ² = RSS_w / (n − p)`), the raw residuals
//! `yᵢ − ŷᵢ`, the relative residuals `(yᵢ − ŷᵢ) / yᵢ`, and the weighted residual sum of squares.
//!
//! Weights are per observation (`wᵢ`, the reciprocal of each observation's variance up to a
//! common factor). Timing data that spans orders of magnitude should be fitted with
//! `wᵢ = 1 / yᵢ²`, i.e. by relative error, or the largest times decide the whole fit.

use nalgebra::{DMatrix, DVector};
use thiserror::Error;

/// Why a fit could not be made.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum FitError {
    /// Fewer observations than parameters.
    #[error("need at least {needed} observations to fit {needed} parameters, got {got}")]
    TooFewPoints {
        /// Observations required (the number of parameters).
        needed: usize,
        /// Observations given.
        got: usize,
    },
    /// Rows of different lengths, or weights not matching the observations.
    #[error("shape mismatch: {0}")]
    Shape(String),
    /// A value is NaN or infinite, or a weight is not positive.
    #[error("non-finite or invalid input: {0}")]
    Invalid(String),
    /// The design matrix does not determine the parameters (collinear columns).
    #[error("the parameters are not identifiable from these data (rank-deficient design)")]
    RankDeficient,
    /// The nonlinear iteration did not converge.
    #[error("nonlinear fit did not converge in {0} iterations")]
    NoConvergence(usize),
}

/// Result of a linear least-squares fit `y ≈ X·θ`.
#[derive(Debug, Clone, PartialEq)]
pub struct LinearFit {
    /// Fitted parameters θ, in column order of the design matrix.
    pub params: Vec<f64>,
    /// Standard error of each parameter (NaN where n = p: no degrees of freedom).
    pub std_errors: Vec<f64>,
    /// `diag((JᵀWJ)⁻¹)^{1/2}`: each parameter's standard error per unit of noise, i.e. its
    /// standard error when the weights are the observations' exact inverse variances; multiply
    /// by an independent estimate of the noise's standard deviation (e.g. from replicates).
    pub unit_std_errors: Vec<f64>,
    /// Residuals yᵢ − ŷᵢ.
    pub residuals: Vec<f64>,
    /// Relative residuals (yᵢ − ŷᵢ)/yᵢ (NaN where yᵢ = 0).
    pub relative_residuals: Vec<f64>,
    /// Weighted residual sum of squares Σ wᵢ(yᵢ − ŷᵢ)².
    pub weighted_rss: f64,
    /// Coefficient of determination (weighted), 1 for a perfect fit.
    pub r_squared: f64,
    /// Degrees of freedom n − p.
    pub dof: usize,
}

impl LinearFit {
    /// Largest |relative residual|, the accuracy figure the papers quote.
    pub fn max_relative_residual(&self) -> f64 {
        self.relative_residuals
            .iter()
            .filter(|r| r.is_finite())
            .fold(0.0_f64, |m, r| m.max(r.abs()))
    }
}

/// Result of a nonlinear least-squares fit.
pub type NonlinearFit = LinearFit;

fn check_finite(what: impl std::fmt::Display, values: &[f64]) -> Result<(), FitError> {
    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
        return Err(FitError::Invalid(format!("{what}[{i}] = {}", values[i])));
    }
    Ok(())
}

fn weights_or_ones(weights: Option<&[f64]>, n: usize) -> Result<Vec<f64>, FitError> {
    match weights {
        None => Ok(vec![1.0; n]),
        Some(w) => {
            if w.len() != n {
                return Err(FitError::Shape(format!(
                    "{} weights for {n} observations",
                    w.len()
                )));
            }
            if let Some(i) = w.iter().position(|w| !(w.is_finite() && *w > 0.0)) {
                return Err(FitError::Invalid(format!(
                    "weight[{i}] = {} (must be > 0)",
                    w[i]
                )));
            }
            Ok(w.to_vec())
        }
    }
}

/// Solves the weighted normal problem for a design matrix (rows = observations), returning the
/// parameters and `(JᵀWJ)⁻¹`.
fn solve_weighted(
    design: &DMatrix<f64>,
    y: &DVector<f64>,
    w: &[f64],
) -> Result<(DVector<f64>, DMatrix<f64>), FitError> {
    let (n, p) = design.shape();
    let sqrt_w = DVector::from_iterator(n, w.iter().map(|w| w.sqrt()));
    let mut a = design.clone();
    for (i, s) in sqrt_w.iter().enumerate() {
        a.row_mut(i).scale_mut(*s);
    }
    let b = y.component_mul(&sqrt_w);
    let svd = a.clone().svd(true, true);
    let max_sv = svd.singular_values.max();
    let tol = max_sv * (n.max(p) as f64) * f64::EPSILON;
    if svd.rank(tol) < p {
        return Err(FitError::RankDeficient);
    }
    let theta = svd
        .solve(&b, tol)
        .map_err(|e| FitError::Invalid(e.to_string()))?;
    let ata = a.transpose() * &a;
    let cov = ata.try_inverse().ok_or(FitError::RankDeficient)?;
    Ok((theta, cov))
}

fn summarise(
    params: Vec<f64>,
    cov_unscaled: &DMatrix<f64>,
    y: &[f64],
    fitted: &[f64],
    w: &[f64],
) -> LinearFit {
    let n = y.len();
    let p = params.len();
    let residuals: Vec<f64> = y.iter().zip(fitted).map(|(y, f)| y - f).collect();
    let relative_residuals = residuals
        .iter()
        .zip(y)
        .map(|(r, y)| if *y == 0.0 { f64::NAN } else { r / y })
        .collect();
    let weighted_rss: f64 = residuals.iter().zip(w).map(|(r, w)| w * r * r).sum();
    let wsum: f64 = w.iter().sum();
    let mean = y.iter().zip(w).map(|(y, w)| w * y).sum::<f64>() / wsum;
    let tss: f64 = y
        .iter()
        .zip(w)
        .map(|(y, w)| w * (y - mean) * (y - mean))
        .sum();
    let r_squared = if tss > 0.0 {
        1.0 - weighted_rss / tss
    } else {
        1.0
    };
    let dof = n - p;
    let sigma2 = if dof > 0 {
        weighted_rss / dof as f64
    } else {
        f64::NAN
    };
    let unit_std_errors: Vec<f64> = (0..p).map(|j| cov_unscaled[(j, j)].sqrt()).collect();
    let std_errors = unit_std_errors.iter().map(|u| sigma2.sqrt() * u).collect();
    LinearFit {
        params,
        std_errors,
        unit_std_errors,
        residuals,
        relative_residuals,
        weighted_rss,
        r_squared,
        dof,
    }
}

/// Fits `y ≈ X·θ` by weighted linear least squares (SVD), where `rows[i]` is row i of X.
///
/// `weights` are per-observation (None = all 1).
pub fn fit_linear(
    rows: &[Vec<f64>],
    y: &[f64],
    weights: Option<&[f64]>,
) -> Result<LinearFit, FitError> {
    let n = y.len();
    if rows.len() != n {
        return Err(FitError::Shape(format!(
            "{} rows for {n} observations",
            rows.len()
        )));
    }
    let p = rows.first().map_or(0, Vec::len);
    if p == 0 {
        return Err(FitError::Shape("no parameters (empty rows)".into()));
    }
    if n < p {
        return Err(FitError::TooFewPoints { needed: p, got: n });
    }
    if let Some(i) = rows.iter().position(|r| r.len() != p) {
        return Err(FitError::Shape(format!(
            "row {i} has {} columns, expected {p}",
            rows[i].len()
        )));
    }
    check_finite("y", y)?;
    for (i, r) in rows.iter().enumerate() {
        check_finite(format_args!("row {i}"), r)?;
    }
    let w = weights_or_ones(weights, n)?;
    let design = DMatrix::from_fn(n, p, |i, j| rows[i][j]);
    let yv = DVector::from_column_slice(y);
    let (theta, cov) = solve_weighted(&design, &yv, &w)?;
    let fitted: Vec<f64> = (&design * &theta).iter().copied().collect();
    Ok(summarise(
        theta.iter().copied().collect(),
        &cov,
        y,
        &fitted,
        &w,
    ))
}

/// Fits `y ≈ f(xᵢ; θ)` by weighted nonlinear least squares (Levenberg–Marquardt with a
/// forward-difference Jacobian), starting from `initial`.
///
/// `model(i, θ)` returns the prediction for observation `i` under parameters θ.
pub fn fit_nonlinear<F>(
    model: F,
    y: &[f64],
    initial: &[f64],
    weights: Option<&[f64]>,
) -> Result<NonlinearFit, FitError>
where
    F: Fn(usize, &[f64]) -> f64,
{
    const MAX_ITER: usize = 200;
    let n = y.len();
    let p = initial.len();
    if p == 0 {
        return Err(FitError::Shape("no parameters".into()));
    }
    if n < p {
        return Err(FitError::TooFewPoints { needed: p, got: n });
    }
    check_finite("y", y)?;
    check_finite("initial", initial)?;
    let w = weights_or_ones(weights, n)?;
    let predict = |theta: &[f64]| -> Vec<f64> { (0..n).map(|i| model(i, theta)).collect() };
    let wrss = |f: &[f64]| -> f64 {
        y.iter()
            .zip(f)
            .zip(&w)
            .map(|((y, f), w)| w * (y - f) * (y - f))
            .sum()
    };
    let jacobian = |theta: &[f64], f0: &[f64]| -> DMatrix<f64> {
        let mut j = DMatrix::zeros(n, p);
        for k in 0..p {
            let h = 1e-7 * theta[k].abs().max(1e-12);
            let mut t = theta.to_vec();
            t[k] += h;
            let f1 = predict(&t);
            for i in 0..n {
                j[(i, k)] = (f1[i] - f0[i]) / h;
            }
        }
        j
    };
    let mut theta = initial.to_vec();
    let mut f = predict(&theta);
    check_finite("model(initial)", &f)?;
    let mut cost = wrss(&f);
    let mut lambda: f64 = 1e-3;
    let mut converged = false;
    for _ in 0..MAX_ITER {
        let j = jacobian(&theta, &f);
        let mut jtwj: DMatrix<f64> = DMatrix::zeros(p, p);
        let mut jtwr: DVector<f64> = DVector::zeros(p);
        for i in 0..n {
            let r = y[i] - f[i];
            for a in 0..p {
                jtwr[a] += w[i] * j[(i, a)] * r;
                for b in 0..p {
                    jtwj[(a, b)] += w[i] * j[(i, a)] * j[(i, b)];
                }
            }
        }
        let mut improved = false;
        while lambda < 1e16 {
            let mut m = jtwj.clone();
            for a in 0..p {
                m[(a, a)] += lambda * jtwj[(a, a)].max(1e-300);
            }
            let Some(step) = m.lu().solve(&jtwr) else {
                lambda *= 10.0;
                continue;
            };
            let trial: Vec<f64> = theta.iter().zip(step.iter()).map(|(t, s)| t + s).collect();
            let ft = predict(&trial);
            let ct = if ft.iter().all(|v| v.is_finite()) {
                wrss(&ft)
            } else {
                f64::INFINITY
            };
            if ct <= cost {
                let rel_step = step
                    .iter()
                    .zip(&trial)
                    .map(|(s, t)| s.abs() / t.abs().max(1e-300))
                    .fold(0.0_f64, f64::max);
                let rel_cost = (cost - ct) / cost.max(1e-300);
                theta = trial;
                f = ft;
                cost = ct;
                lambda = (lambda / 10.0).max(1e-12);
                improved = true;
                if rel_step < 1e-10 || rel_cost < 1e-14 || cost == 0.0 {
                    converged = true;
                }
                break;
            }
            lambda *= 10.0;
        }
        if !improved || converged {
            // No step reduces the cost any more: we are at a minimum (to precision).
            converged = true;
            break;
        }
    }
    if !converged {
        return Err(FitError::NoConvergence(MAX_ITER));
    }
    let j = jacobian(&theta, &f);
    let mut jtwj: DMatrix<f64> = DMatrix::zeros(p, p);
    for i in 0..n {
        for a in 0..p {
            for b in 0..p {
                jtwj[(a, b)] += w[i] * j[(i, a)] * j[(i, b)];
            }
        }
    }
    let cov = jtwj.try_inverse().ok_or(FitError::RankDeficient)?;
    Ok(summarise(theta, &cov, y, &f, &w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_fit_recovers_exact_line_with_zero_residual() {
        let xs = [1.0, 2.0, 4.0, 8.0, 16.0];
        let rows: Vec<Vec<f64>> = xs.iter().map(|x| vec![1.0, *x]).collect();
        let y: Vec<f64> = xs.iter().map(|x| 3.0 + 0.5 * x).collect();
        let fit = fit_linear(&rows, &y, None).unwrap();
        assert!((fit.params[0] - 3.0).abs() < 1e-12);
        assert!((fit.params[1] - 0.5).abs() < 1e-12);
        assert!(fit.weighted_rss < 1e-20);
        assert!(fit.max_relative_residual() < 1e-12);
        assert_eq!(fit.dof, 3);
    }

    #[test]
    fn linear_fit_standard_error_matches_hand_computation() {
        // y = x + e with residuals ±1 alternating: slope 1, intercept 0 known by symmetry.
        let rows = vec![
            vec![1.0, 0.0],
            vec![1.0, 1.0],
            vec![1.0, 2.0],
            vec![1.0, 3.0],
        ];
        let y = vec![1.0, 0.0, 3.0, 2.0];
        let fit = fit_linear(&rows, &y, None).unwrap();
        // Hand-worked: x̄ = ȳ = 1.5, Sxy = Σ(x−x̄)(y−ȳ) = 0.75 + 0.75 + 0.75 + 0.75 = 3, Sxx = 5, slope 0.6.
        assert!((fit.params[1] - 0.6).abs() < 1e-12);
        assert!((fit.params[0] - (1.5 - 0.6 * 1.5)).abs() < 1e-12);
        // RSS = Σ r², σ² = RSS/2, se(slope) = sqrt(σ²/Sxx).
        let rss: f64 = fit.residuals.iter().map(|r| r * r).sum();
        assert!((fit.weighted_rss - rss).abs() < 1e-12);
        let se_slope = (rss / 2.0 / 5.0).sqrt();
        assert!((fit.std_errors[1] - se_slope).abs() < 1e-12);
    }

    #[test]
    fn linear_fit_rejects_collinear_design_and_bad_input() {
        let rows = vec![vec![1.0, 2.0], vec![2.0, 4.0], vec![3.0, 6.0]];
        assert_eq!(
            fit_linear(&rows, &[1.0, 2.0, 3.0], None),
            Err(FitError::RankDeficient)
        );
        assert!(matches!(
            fit_linear(&[vec![1.0, 1.0]], &[1.0], None),
            Err(FitError::TooFewPoints { needed: 2, got: 1 })
        ));
        assert!(matches!(
            fit_linear(&[vec![1.0], vec![1.0]], &[1.0, f64::NAN], None),
            Err(FitError::Invalid(_))
        ));
        assert!(matches!(
            fit_linear(&[vec![1.0], vec![1.0]], &[1.0, 2.0], Some(&[1.0, 0.0])),
            Err(FitError::Invalid(_))
        ));
    }

    #[test]
    fn relative_weighting_fits_small_values_as_well_as_large() {
        // Two clusters of magnitudes; with 1/y² weights, a 1 % error on each point counts the same.
        let xs = [1.0, 2.0, 100.0, 200.0];
        let rows: Vec<Vec<f64>> = xs.iter().map(|x| vec![1.0, *x]).collect();
        let y: Vec<f64> = xs.iter().map(|x| 1.0 + 2.0 * x).collect();
        let w: Vec<f64> = y.iter().map(|y| 1.0 / (y * y)).collect();
        let fit = fit_linear(&rows, &y, Some(&w)).unwrap();
        assert!((fit.params[0] - 1.0).abs() < 1e-9);
        assert!((fit.params[1] - 2.0).abs() < 1e-12);
    }

    #[test]
    fn nonlinear_fit_recovers_exponential_decay() {
        let xs: Vec<f64> = (0..12).map(|i| i as f64 * 0.5).collect();
        let truth = [2.5, 0.7];
        let y: Vec<f64> = xs
            .iter()
            .map(|x| truth[0] * (-truth[1] * x).exp())
            .collect();
        let fit =
            fit_nonlinear(|i, t| t[0] * (-t[1] * xs[i]).exp(), &y, &[1.0, 0.2], None).unwrap();
        assert!((fit.params[0] - 2.5).abs() < 1e-6, "{:?}", fit.params);
        assert!((fit.params[1] - 0.7).abs() < 1e-6, "{:?}", fit.params);
        assert!(fit.weighted_rss < 1e-12);
    }

    #[test]
    fn nonlinear_fit_of_linear_model_equals_linear_fit() {
        let rows = vec![
            vec![1.0, 0.0],
            vec![1.0, 1.0],
            vec![1.0, 2.0],
            vec![1.0, 3.0],
        ];
        let y = vec![1.0, 0.0, 3.0, 2.0];
        let lin = fit_linear(&rows, &y, None).unwrap();
        let non = fit_nonlinear(|i, t| t[0] + t[1] * rows[i][1], &y, &[0.1, 0.1], None).unwrap();
        for k in 0..2 {
            assert!((lin.params[k] - non.params[k]).abs() < 1e-7);
            assert!((lin.std_errors[k] - non.std_errors[k]).abs() < 1e-6);
        }
    }
}
