//! The reference distributions of the consistency test (t, F, χ²), from `statrs`, and the power
//! of an F test against a given noncentrality (Patnaik's approximation).
//!
//! A noise estimate carries its degrees of freedom as `Option<usize>`: `Some(d)` for a variance
//! estimated on `d` degrees of freedom (pure error of replicates), `None` when the variance is
//! known (measured standard errors taken as exact), where an F statistic on `(d1, ∞)` degrees of
//! freedom is `χ²_{d1}/d1`.
//!
//! ```
//! use multicomputer_workloads::analysis::{f_critical, f_sf, t_two_sided_p};
//!
//! // The 95th percentile of F(2, 10) is 4.1028 (any table of the F distribution).
//! assert!((f_sf(4.102_821, 2, Some(10)) - 0.05).abs() < 1e-6);
//! assert!((f_critical(0.05, 2, Some(10)) - 4.102_821).abs() < 1e-5);
//! // A t statistic is an F on (1, d) degrees of freedom: t² = F.
//! assert!((t_two_sided_p(2.228_139, Some(10)) - 0.05).abs() < 1e-6);
//! ```

use statrs::distribution::{ChiSquared, ContinuousCDF, FisherSnedecor, StudentsT};

/// Upper-tail probability `P(χ²_dof ≥ x)`; 1 for `x ≤ 0` or `dof = 0`.
pub fn chi_square_sf(x: f64, dof: usize) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if dof == 0 || x <= 0.0 {
        return 1.0;
    }
    ChiSquared::new(dof as f64).map_or(f64::NAN, |d| d.sf(x))
}

/// Upper-tail probability `P(F_{d1, d2} ≥ f)`; `d2 = None` is an unbounded denominator
/// (known variance): `P(χ²_{d1} ≥ d1·f)`. 1 for `f ≤ 0` or `d1 = 0`.
pub fn f_sf(f: f64, d1: usize, d2: Option<usize>) -> f64 {
    if f.is_nan() {
        return f64::NAN;
    }
    if d1 == 0 || f <= 0.0 {
        return 1.0;
    }
    match d2 {
        None => chi_square_sf(d1 as f64 * f, d1),
        Some(0) => f64::NAN,
        Some(d2) => FisherSnedecor::new(d1 as f64, d2 as f64).map_or(f64::NAN, |d| d.sf(f)),
    }
}

/// Two-sided p-value `P(|t_dof| ≥ |t|)`; `dof = None` is the standard normal.
pub fn t_two_sided_p(t: f64, dof: Option<usize>) -> f64 {
    if t.is_nan() {
        return f64::NAN;
    }
    let freedom = match dof {
        None => f64::INFINITY,
        Some(0) => return f64::NAN,
        Some(d) => d as f64,
    };
    StudentsT::new(0.0, 1.0, freedom).map_or(f64::NAN, |d| (2.0 * d.sf(t.abs())).min(1.0))
}

/// The critical value `F_c` with `P(F_{d1, d2} ≥ F_c) = level`.
pub fn f_critical(level: f64, d1: usize, d2: Option<usize>) -> f64 {
    let q = 1.0 - level;
    match d2 {
        None => ChiSquared::new(d1 as f64).map_or(f64::NAN, |d| d.inverse_cdf(q) / d1 as f64),
        Some(d2) => {
            FisherSnedecor::new(d1 as f64, d2 as f64).map_or(f64::NAN, |d| d.inverse_cdf(q))
        }
    }
}

/// Power of the F test at `level` on `(d1, d2)` degrees of freedom when the numerator's sum of
/// squares has noncentrality `λ` (in units of the noise variance): `P(F'_{d1, d2}(λ) ≥ F_c)`.
///
/// Patnaik's approximation (Biometrika 36, 1949): `χ'²_{d1}(λ) ≈ ρ·χ²_h` with
/// `ρ = (d1 + 2λ)/(d1 + λ)` and `h = (d1 + λ)²/(d1 + 2λ)`, so that
/// `P(F' ≥ F_c) ≈ P(F_{h, d2} ≥ d1·F_c/(ρh))`. Within 0.02 of the exact power (the Poisson
/// mixture of incomplete beta functions) over the degrees of freedom, levels and
/// noncentralities the consistency test meets; the largest errors are at `d1 = 1`, power
/// 0.3–0.5 (tested).
pub fn f_test_power(noncentrality: f64, d1: usize, d2: Option<usize>, level: f64) -> f64 {
    let lambda = noncentrality.max(0.0);
    if d1 == 0 {
        return f64::NAN;
    }
    let critical = f_critical(level, d1, d2);
    let d1 = d1 as f64;
    let rho = (d1 + 2.0 * lambda) / (d1 + lambda);
    let h = (d1 + lambda).powi(2) / (d1 + 2.0 * lambda);
    match d2 {
        None => ChiSquared::new(h).map_or(f64::NAN, |d| d.sf(d1 * critical / rho)),
        Some(d2) => {
            FisherSnedecor::new(h, d2 as f64).map_or(f64::NAN, |d| d.sf(d1 * critical / (rho * h)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use statrs::function::beta::beta_reg;

    /// Exact upper tail of the noncentral F: `Σⱼ Pois(j; λ/2)·I_x(d2/2, d1/2 + j)` with
    /// `x = d2/(d2 + d1·f)` (Johnson, Kotz and Balakrishnan, *Continuous Univariate
    /// Distributions* 2, §30.3).
    fn noncentral_f_sf(f: f64, d1: f64, d2: f64, lambda: f64) -> f64 {
        let x = d2 / (d2 + d1 * f);
        let mut sum = 0.0;
        let mut weight = (-lambda / 2.0).exp();
        for j in 0..5000 {
            if j > 0 {
                weight *= lambda / 2.0 / j as f64;
            }
            sum += weight * beta_reg(d2 / 2.0, d1 / 2.0 + j as f64, x);
            if j as f64 > lambda && weight < 1e-15 {
                break;
            }
        }
        sum
    }

    #[test]
    fn tails_match_tabulated_values() {
        // χ²: 95th and 99th percentiles (Abramowitz & Stegun, table 26.8).
        for (x, k, p) in [
            (3.841_459, 1, 0.05),
            (5.991_465, 2, 0.05),
            (7.814_728, 3, 0.05),
            (18.307_04, 10, 0.05),
            (6.634_897, 1, 0.01),
            (63.690_74, 40, 0.01),
        ] {
            assert!((chi_square_sf(x, k) - p).abs() < 1e-6, "χ²({k})");
        }
        for x in [0.5, 2.0, 10.0, 40.0] {
            // Two degrees of freedom: exp(−x/2) exactly.
            assert!((chi_square_sf(x, 2) - (-x / 2.0).exp()).abs() < 1e-13);
        }
        // F: 95th and 99th percentiles (A & S table 26.9).
        for (f, d1, d2, p) in [
            (4.102_821, 2, 10, 0.05),
            (3.238_872, 3, 16, 0.05),
            (4.102_685, 5, 20, 0.01),
            (161.447_6, 1, 1, 0.05),
            (2.689_6, 4, 30, 0.05),
            (3.368_2, 10, 20, 0.01),
        ] {
            assert!((f_sf(f, d1, Some(d2)) - p).abs() < 2e-5, "F({d1},{d2})");
            assert!(
                (f_critical(p, d1, Some(d2)) / f - 1.0).abs() < 2e-5,
                "F({d1},{d2})"
            );
        }
        // t: two-sided 5 % and 1 % points (A & S table 26.10), and the normal's.
        for (t, d, p) in [
            (12.706_20, Some(1), 0.05),
            (2.228_139, Some(10), 0.05),
            (4.604_095, Some(4), 0.01),
            (2.575_829, None, 0.01),
            (1.959_964, None, 0.05),
        ] {
            assert!((t_two_sided_p(t, d) - p).abs() < 1e-6, "t({d:?})");
            assert!((t_two_sided_p(-t, d) - p).abs() < 1e-6, "t({d:?})");
        }
        // t² on d dof is F(1, d); an unbounded denominator is χ²/d1.
        assert!((f_sf(2.228_139_f64.powi(2), 1, Some(10)) - 0.05).abs() < 1e-6);
        assert!((f_sf(7.814_728 / 3.0, 3, None) - 0.05).abs() < 1e-6);
        assert!((f_critical(0.05, 3, None) - 7.814_728 / 3.0).abs() < 1e-5);
        assert_eq!(f_sf(0.0, 3, Some(4)), 1.0);
        assert_eq!(f_sf(f64::INFINITY, 3, Some(4)), 0.0);
        assert!(f_sf(1.0, 3, Some(0)).is_nan());
    }

    #[test]
    fn power_follows_the_noncentral_distribution() {
        // Known variance, one degree of freedom: the two-sided z test, exactly.
        let z = 2.575_829;
        let normal = |x: f64| 0.5 * statrs::function::erf::erfc(-x / 2f64.sqrt());
        for delta in [0.0_f64, 1.0, 2.5, 4.0] {
            let exact = normal(delta - z) + normal(-delta - z);
            let approx = f_test_power(delta * delta, 1, None, 0.01);
            assert!(
                (approx - exact).abs() < 0.02,
                "δ = {delta}: {approx} vs {exact}"
            );
        }
        // Size: no noncentrality, power = level.
        assert!((f_test_power(0.0, 5, Some(20), 0.01) - 0.01).abs() < 1e-9);
        // Against the exact Poisson mixture, over the numerator and denominator degrees of
        // freedom the tests meet (1 for a trend, up to ~30 for a pooled lack of fit; 2 to 64 and
        // more for the noise) and their levels (1 % shared by one to three tests).
        for (d1, d2) in [
            (1, 2),
            (1, 4),
            (1, 16),
            (1, 64),
            (1, 100_000),
            (2, 27),
            (3, 10),
            (26, 4),
            (26, 64),
            (29, 32),
            (50, 200),
        ] {
            for lambda in [0.5, 1.0, 3.0, 6.0, 10.0, 15.0, 25.0, 40.0, 80.0] {
                for level in [0.01, 0.005, 0.01 / 3.0] {
                    let fc = f_critical(level, d1, Some(d2));
                    let exact = noncentral_f_sf(fc, d1 as f64, d2 as f64, lambda);
                    let approx = f_test_power(lambda, d1, Some(d2), level);
                    assert!(
                        (approx - exact).abs() < 0.02,
                        "F({d1},{d2}), λ = {lambda}, level {level}: {approx} vs {exact}"
                    );
                }
            }
        }
        // More noncentrality, more power.
        let p: Vec<f64> = [1.0, 10.0, 30.0]
            .iter()
            .map(|l| f_test_power(*l, 3, Some(20), 0.01))
            .collect();
        assert!(p[0] < p[1] && p[1] < p[2] && p[2] > 0.9, "{p:?}");
    }
}
