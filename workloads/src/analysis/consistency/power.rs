//! Could the tests have refuted a wrong candidate? The power of the tests against the paper's
//! own failure: a missing term that grows faster than the candidate's, whose coefficient grows
//! with the loop count.
//!
//! The reference alternative adds `δ(P, L) = c·L̂·g(P)` to every cell: `g` is `P` (the paper's
//! `c₂·P`), or the next faster basis term when the candidate already has `P`; `L̂` is 0 at the
//! smallest loop count and 1 at the largest; `c` makes the largest `δ` equal to `fraction` of the
//! largest cell mean. Each test's noncentrality is the weighted sum of squares that `δ` adds to
//! its numerator, over the noise variance: `λ = [RSS_r(δ) − RSS_f(δ)]/σ̂²`. The tests' power at
//! their level ([`f_test_power`]) is at least the largest of theirs.

use serde::Serialize;

use super::super::basis::BasisTerm;
use super::super::distributions::f_test_power;
use super::super::error::{ScalabilityError, processors_f64};
use super::super::measurements::Cell;
use super::super::overhead_model::OverheadModel;
use super::design::LoopCounts;

/// The power of the tests against the reference alternative (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PowerGuard {
    /// The missing term `g(P)`.
    pub reference_term: BasisTerm,
    /// Its size at the largest P and loop count, as a fraction of the largest cell mean.
    pub fraction: f64,
    /// The power required for a `consistent` verdict.
    pub required_power: f64,
    /// The tests' power against it (the largest of their powers).
    pub power: f64,
    /// The smallest such term (same fraction scale) found with the required power; `None` if
    /// above 10 times the largest cell mean.
    pub minimal_detectable_fraction: Option<f64>,
}

/// The missing term of the reference alternative: `P`, or the next faster term than the
/// candidate's fastest; `None` if the candidate already has `P²`.
pub(super) fn reference_term(model: &OverheadModel) -> Option<BasisTerm> {
    let fastest = *model.terms().last()?;
    [BasisTerm::P, BasisTerm::PLogP, BasisTerm::P2]
        .into_iter()
        .find(|t| *t > fastest)
}

/// `δ` at each cell, scaled to `fraction` of the largest cell mean.
pub(super) fn reference_alternative(
    term: BasisTerm,
    fraction: f64,
    cells: &[Cell],
    loops: &LoopCounts,
) -> Result<Vec<f64>, ScalabilityError> {
    let shape: Vec<f64> = cells
        .iter()
        .map(|c| Ok(term.eval(processors_f64(c.processors)?) * loops.scaled(c.loop_count)))
        .collect::<Result<_, ScalabilityError>>()?;
    let largest_shape = shape.iter().fold(0.0_f64, |m, s| m.max(s.abs()));
    let largest_mean = cells.iter().fold(0.0_f64, |m, c| m.max(c.mean.abs()));
    Ok(shape
        .iter()
        .map(|s| s / largest_shape * fraction * largest_mean)
        .collect())
}

/// One test's contribution: noncentrality at `fraction`, numerator and denominator dof, level.
#[derive(Debug, Clone, Copy)]
pub(super) struct TestPower {
    pub(super) noncentrality: f64,
    pub(super) dof: usize,
    pub(super) error_dof: Option<usize>,
    pub(super) level: f64,
}

fn power_at(tests: &[TestPower], scale: f64) -> f64 {
    tests
        .iter()
        .map(|t| f_test_power(t.noncentrality * scale * scale, t.dof, t.error_dof, t.level))
        .fold(0.0, f64::max)
}

/// The guard from the tests' noncentralities at `fraction`.
pub(super) fn guard(
    term: BasisTerm,
    fraction: f64,
    required_power: f64,
    tests: &[TestPower],
) -> PowerGuard {
    let power = power_at(tests, 1.0);
    // Bisection on the size, as a multiple of `fraction`; noncentrality ∝ size².
    const CAP: f64 = 10.0;
    let cap = CAP / fraction;
    let minimal_detectable_fraction = (power_at(tests, cap) >= required_power).then(|| {
        let (mut lo, mut hi) = (0.0, cap);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if power_at(tests, mid) >= required_power {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        hi * fraction
    });
    PowerGuard {
        reference_term: term,
        fraction,
        required_power,
        power,
        minimal_detectable_fraction,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::distributions::f_test_power;

    #[test]
    fn reference_is_the_next_faster_term() {
        assert_eq!(reference_term(&OverheadModel::log()), Some(BasisTerm::P));
        assert_eq!(
            reference_term(&OverheadModel::log_linear()),
            Some(BasisTerm::PLogP)
        );
        assert_eq!(reference_term(&"1+P2".parse().unwrap()), None);
    }

    #[test]
    fn minimal_detectable_size_has_the_required_power() {
        let tests = [
            TestPower {
                noncentrality: 4.0,
                dof: 1,
                error_dof: Some(20),
                level: 0.005,
            },
            TestPower {
                noncentrality: 6.0,
                dof: 10,
                error_dof: Some(20),
                level: 0.005,
            },
        ];
        let g = guard(BasisTerm::P, 0.1, 0.8, &tests);
        assert!(g.power < 0.8);
        let m = g.minimal_detectable_fraction.unwrap();
        assert!(m > 0.1);
        // At m the better of the two tests has 80 % power.
        let s = m / 0.1;
        let best = f_test_power(4.0 * s * s, 1, Some(20), 0.005).max(f_test_power(
            6.0 * s * s,
            10,
            Some(20),
            0.005,
        ));
        assert!((best - 0.8).abs() < 1e-6, "{best}");
    }
}
