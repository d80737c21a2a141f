//! The F test of a restricted model against a fuller one that contains it, with the noise
//! estimated independently of both.

use serde::Serialize;

use super::super::distributions::f_sf;

/// Which question a test asks (see [`consistency_test`](super::consistency_test)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TestKind {
    /// Does `a` drift with the loop count? (the paper's own criterion)
    Trend,
    /// Do the cell means depart from the candidate with `a` shared and the other coefficients
    /// linear in the loop count?
    LackOfFit,
    /// Does a named richer model fit significantly better (`--against`)?
    Against,
}

impl TestKind {
    /// A short name for a report.
    pub fn describe(self) -> &'static str {
        match self {
            TestKind::Trend => "trend test of a against loop_count",
            TestKind::LackOfFit => "pooled lack-of-fit test",
            TestKind::Against => "nested test against the richer model",
        }
    }
}

/// One F test of nested models: `F = [(RSS_r − RSS_f)/dof] / σ̂²`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct NestedTest {
    /// The question.
    pub kind: TestKind,
    /// The F statistic.
    pub f: f64,
    /// For one numerator degree of freedom, the signed t statistic (`t² = F`), its sign that
    /// of the estimated effect.
    pub t: Option<f64>,
    /// Numerator degrees of freedom (parameters the fuller model adds).
    pub dof: usize,
    /// Denominator degrees of freedom; `None` for a known variance (then `F·dof` is χ²).
    pub error_dof: Option<usize>,
    /// The p-value that decides: for the noise the data allow (the report's
    /// [`NoiseAllowance`](super::NoiseAllowance): resampled at the replicates' estimated shape,
    /// or exact at the shape asked for, widened for tails), else `f_p_value`.
    pub p_value: f64,
    /// `P(F_{dof, error_dof} ≥ f)`: the p-value for normal noise of the weighting's shape.
    pub f_p_value: f64,
    /// The level it is judged at (the overall significance over the number of tests).
    pub level: f64,
    /// `p_value < level`.
    pub rejects: bool,
}

impl NestedTest {
    /// The same test with the p-value allowing for other noise.
    pub(super) fn calibrated(self, p_value: f64) -> Self {
        NestedTest {
            p_value,
            rejects: p_value < self.level,
            ..self
        }
    }
}

/// Sums of squares below this fraction of `Σ w·y²` are rounding, not signal.
const ROUNDING: f64 = 1e-14;

/// The numerator sum of squares `RSS_r − RSS_f`, with rounding set to 0.
pub(super) fn extra_ss(rss_restricted: f64, rss_full: f64, total: f64) -> f64 {
    let d = rss_restricted - rss_full;
    if d <= ROUNDING * total { 0.0 } else { d }
}

/// The test from its sums of squares. `effect_sign` gives `t` its sign for one-dof tests.
#[allow(clippy::too_many_arguments)]
pub(super) fn nested_test(
    kind: TestKind,
    extra_ss: f64,
    dof: usize,
    error_variance: f64,
    error_dof: Option<usize>,
    level: f64,
    effect_sign: f64,
) -> NestedTest {
    let numerator = extra_ss / dof as f64;
    let f = if numerator == 0.0 {
        0.0
    } else if error_variance > 0.0 {
        numerator / error_variance
    } else {
        f64::INFINITY
    };
    let p_value = f_sf(f, dof, error_dof);
    NestedTest {
        kind,
        f,
        t: (dof == 1).then(|| f.sqrt().copysign(effect_sign)),
        dof,
        error_dof,
        p_value,
        f_p_value: p_value,
        level,
        rejects: p_value < level,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f_and_t_from_sums_of_squares() {
        // Extra SS 8 on 2 dof over σ̂² = 0.5: F = 8.
        let t = nested_test(TestKind::LackOfFit, 8.0, 2, 0.5, Some(10), 0.01, 1.0);
        assert_eq!((t.f, t.t), (8.0, None));
        // F(2, 10) upper tail at 8: (1 + 2·8/10)^(−5) exactly.
        assert!((t.p_value - (1.0_f64 + 1.6).powi(-5)).abs() < 1e-12);
        assert!(t.rejects);
        let trend = nested_test(TestKind::Trend, 4.0, 1, 1.0, None, 0.005, -3.0);
        assert_eq!(trend.t, Some(-2.0));
        assert!((trend.p_value - 0.045_500_26).abs() < 1e-7);
        assert!(!trend.rejects);
        assert_eq!(extra_ss(1.0 + 1e-16, 1.0, 1.0), 0.0);
        assert_eq!(
            nested_test(TestKind::Against, 0.0, 1, 0.0, Some(3), 0.01, 1.0).f,
            0.0
        );
    }
}
