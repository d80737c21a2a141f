//! Step 2b: where each cell's noise is evaluated for its weight, by iteratively reweighted
//! least squares.
//!
//! # Why
//!
//! The weights `1/μ_c^{2γ}` and the noise's variances in step 4d evaluate the variance
//! function `σ_c ∝ μ_c^γ` at each cell's level `μ_c`. Taken as the observed cell mean `ȳ_c`,
//! the level moves with the very noise it weights: under noise ∝ T² a mean 2 % low by chance
//! gains 8 % of weight, and the fit follows the cells whose noise happened to pull them down.
//! The fitted values pool every cell and hardly move with one cell's noise. Measured
//! (docs/results/trust.md, 8000 tables a setting): the false-refutation rate this was
//! suspected of (1.66 % with two runs per point over a 7× range under noise ∝ T²) did not come
//! from it (1.68 % with the levels at the true means, an oracle no user has, and at the fitted
//! values alike; the cause is the estimated exponent, whose error the bootstrap carries into
//! each test's reference by estimating it again in every resample, [`bootstrap`](super::bootstrap)), but the fitted values' weights find a 5 % `c·P` term in 77.1 % of tables
//! where the means' find it in 75.9 %.
//!
//! # What
//!
//! Generalised least squares with an estimated variance function (Carroll & Ruppert 1988,
//! ch. 2; Carroll, Wu & Ruppert 1988): the levels become `H₀`'s fitted values, which pool every
//! cell and so hardly move with one cell's noise.
//!
//! 1. Start from the observed means and the weighting they give (the noise exponent from the
//!    replicates, [`choose_weighting`]).
//! 2. Fit `H₀` (`a` shared, the other coefficients linear in the loop count) with those
//!    weights; its fitted values are the new levels.
//! 3. Choose the weighting again at the new levels (the replicates' exponent is estimated
//!    against them: Carroll & Ruppert's pseudo-likelihood, ch. 3), and repeat from 2,
//!    [`CYCLES`] times in all. Carroll, Wu & Ruppert show that two cycles already give
//!    the efficiency of the known weights; further cycles change the levels by far less than
//!    the noise.
//!
//! A fit that puts a cell at or below zero, or that cannot be made, leaves the levels as they
//! were (a run time is positive; the later steps then report what is wrong with the table).
//! Standard errors taken as exact fix the weights, and nothing is reweighted.
//!
//! References: R. J. Carroll and D. Ruppert, *Transformation and Weighting in Regression*
//! (Chapman & Hall, 1988); R. J. Carroll, C. F. J. Wu and D. Ruppert, "The effect of estimating
//! weights in weighted least squares", JASA 83 (1988) 1045–1054.

use super::super::error::ScalabilityError;
use super::super::measurements::Cell;
use super::super::noise::{
    AppliedWeighting, VarianceLevels, Weighting, WeightingChoice, cell_weights, choose_weighting,
};
use super::super::overhead_model::OverheadModel;
use super::design::{self, LoopCounts, Structure};

/// Cycles of reweighting (step 3).
pub const CYCLES: usize = 3;

/// Steps 1–3: moves each cell's [`level`](Cell::level) to `H₀`'s fitted value and returns the
/// weighting chosen at the final levels.
pub(super) fn reweight(
    model: &OverheadModel,
    cells: &mut [Cell],
    requested: Weighting,
    use_replicates: bool,
) -> WeightingChoice {
    let mut weighting = choose_weighting(cells, requested, use_replicates);
    if weighting.applied == AppliedWeighting::StdErrors {
        return weighting;
    }
    for cycles in 1..=CYCLES {
        let Ok(fitted) = fitted_values(model, cells, weighting.applied) else {
            break;
        };
        if !fitted.iter().all(|f| f.is_finite() && *f > 0.0) {
            break;
        }
        for (c, f) in cells.iter_mut().zip(fitted) {
            c.level = f;
        }
        weighting = WeightingChoice {
            levels: VarianceLevels::Fitted { cycles },
            ..choose_weighting(cells, requested, use_replicates)
        };
    }
    weighting
}

/// Step 2: `H₀`'s fitted value at each cell under `weighting` at the cells' current levels.
fn fitted_values(
    model: &OverheadModel,
    cells: &[Cell],
    weighting: AppliedWeighting,
) -> Result<Vec<f64>, ScalabilityError> {
    let loops = LoopCounts::of(cells);
    let rows = design::rows(model, Structure::Constrained, cells, &loops)?;
    let y: Vec<f64> = cells.iter().map(|c| c.mean).collect();
    let fit = design::fit(&rows, &y, &cell_weights(cells, weighting))?;
    Ok(y.iter().zip(&fit.residuals).map(|(y, r)| y - r).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Measurement, cells};

    #[test]
    fn levels_are_the_fitted_values_of_the_reweighted_fit() {
        // Model "1" (a constant a, nothing else) on two loop counts of one P, relative weights
        // asked for. Cell means 10 (runs 9, 11) and 20 (runs 19, 21).
        // Cycle 1, weights 2/ȳ²: 2/100, 2/400; a = (10·4 + 20·1)/5 = 12.
        // Cycle 2, weights 2/12² for both: a = 15. Cycles 3 on: the same weights, a = 15.
        let mut c = cells(&[
            Measurement::run(2, 0.0, 9.0),
            Measurement::run(2, 0.0, 11.0),
            Measurement::run(2, 1.0, 19.0),
            Measurement::run(2, 1.0, 21.0),
        ])
        .unwrap();
        let model: OverheadModel = "1".parse().unwrap();
        let one_cycle = fitted_values(&model, &c, AppliedWeighting::Relative).unwrap();
        assert!((one_cycle[0] - 12.0).abs() < 1e-12, "{one_cycle:?}");
        assert!((one_cycle[1] - 12.0).abs() < 1e-12, "{one_cycle:?}");
        let w = reweight(&model, &mut c, Weighting::Relative, true);
        assert_eq!(w.applied, AppliedWeighting::Relative);
        assert_eq!(w.levels, VarianceLevels::Fitted { cycles: CYCLES });
        for cell in &c {
            assert!((cell.level - 15.0).abs() < 1e-12, "{c:?}");
        }
        // The means are the data, untouched.
        assert_eq!((c[0].mean, c[1].mean), (10.0, 20.0));
        // Uniform weights: one fit, a = 15, whatever the levels.
        let mut u = cells(&[
            Measurement::run(2, 0.0, 9.0),
            Measurement::run(2, 0.0, 11.0),
            Measurement::run(2, 1.0, 19.0),
            Measurement::run(2, 1.0, 21.0),
        ])
        .unwrap();
        reweight(&model, &mut u, Weighting::Uniform, true);
        assert!(u.iter().all(|c| (c.level - 15.0).abs() < 1e-12), "{u:?}");
    }

    #[test]
    fn standard_errors_taken_as_exact_are_not_reweighted() {
        let mut c = cells(&[
            Measurement::run(2, 0.0, 10.0).with_std_error(0.5, None),
            Measurement::run(2, 1.0, 20.0).with_std_error(0.5, None),
        ])
        .unwrap();
        let w = reweight(&"1".parse().unwrap(), &mut c, Weighting::Auto, true);
        assert_eq!(w.applied, AppliedWeighting::StdErrors);
        assert_eq!((c[0].level, c[1].level), (10.0, 20.0));
    }

    #[test]
    fn a_fit_at_or_below_zero_leaves_the_levels() {
        // a + b·ln P with b linear in the loop count, relative weights, means 10, 1, 50 at
        // P = 2, 4, 8 at both loop counts: the fit pivots on the heavy P = 4 cell (weight 1
        // against 1/100 and 1/2500) and follows P = 2, which puts P = 8 near 1 − 6.8 < 0.
        // No level may be a negative run time, so the means stay.
        let mut runs = Vec::new();
        for l in [0.0, 1.0] {
            for (p, y) in [(2, 10.0), (4, 1.0), (8, 50.0)] {
                runs.extend([y - 0.1, y + 0.1].map(|t| Measurement::run(p, l, t)));
            }
        }
        let mut c = cells(&runs).unwrap();
        let fitted = fitted_values(&OverheadModel::log(), &c, AppliedWeighting::Relative).unwrap();
        assert!(fitted[2] < 0.0, "{fitted:?}");
        let before: Vec<f64> = c.iter().map(|c| c.level).collect();
        let w = reweight(&OverheadModel::log(), &mut c, Weighting::Relative, true);
        assert_eq!(w.levels, VarianceLevels::Means);
        let after: Vec<f64> = c.iter().map(|c| c.level).collect();
        assert_eq!(before, after);
    }
}
