//! Results of statistical physics the simulation is checked against (`J = k_B = 1`, `K = 1/T`).
//!
//! * 2D, infinite square lattice, exact: Onsager's energy and the Onsager–Yang spontaneous
//!   magnetisation `m = (1 − sinh(2K)^−4)^(1/8)` for `T < T_c = 2/ln(1+√2)`.
//! * Low-temperature series in `u = e^{−4K}` (single flipped spins cost `2zK` = `u^{z/2}`,
//!   `z = 2d`; adjacent pairs `u^{z−1}`), valid far below `T_c`.
//! * High-temperature series in `t = tanh K`: `ln Z/N = ln 2 + d ln cosh K + Σ gₙ tⁿ` with
//!   `g₄, g₆, g₈ = 1, 2, 9/2` (square) and `3, 22, 375/2` (simple cubic), valid far above `T_c`.
//!
//! The 2D series are checked against the exact solution in the tests.
//!
//! ```
//! use multicomputer_workloads::ising::{Dimension, exact};
//! assert!((exact::onsager_magnetisation(1.0) - 0.99927).abs() < 1e-5);
//! let e = exact::onsager_energy(5.0);
//! assert!((e - exact::high_temperature_energy(Dimension::Two, 5.0)).abs() < 1e-3);
//! ```

use std::f64::consts::PI;

use super::Dimension;

/// `T_c = 2/ln(1+√2) ≈ 2.269185` of the square lattice (exact).
pub const CRITICAL_TEMPERATURE_2D: f64 = 2.269_185_314_213_022;

/// `T_c ≈ 4.5115` of the simple cubic lattice (`K_c ≈ 0.2216546`, numerical).
pub const CRITICAL_TEMPERATURE_3D: f64 = 4.511_5;

/// Critical temperature of the dimension.
pub fn critical_temperature(dimension: Dimension) -> f64 {
    match dimension {
        Dimension::Two => CRITICAL_TEMPERATURE_2D,
        Dimension::Three => CRITICAL_TEMPERATURE_3D,
    }
}

/// Spontaneous magnetisation per spin of the infinite square lattice: `(1 − sinh(2/T)^−4)^(1/8)`
/// below `T_c`, 0 above.
pub fn onsager_magnetisation(temperature: f64) -> f64 {
    let s = (2.0 / temperature).sinh();
    let x = 1.0 - s.powi(-4);
    if x > 0.0 { x.powf(0.125) } else { 0.0 }
}

/// Complete elliptic integral of the first kind `K(k) = ∫₀^{π/2} dθ/√(1 − k² sin²θ)`, by the
/// arithmetic–geometric mean.
fn elliptic_k(k: f64) -> f64 {
    let (mut a, mut b) = (1.0_f64, (1.0 - k * k).max(0.0).sqrt());
    for _ in 0..64 {
        if (a - b).abs() <= 1e-16 * a {
            break;
        }
        (a, b) = (0.5 * (a + b), (a * b).sqrt());
    }
    PI / (2.0 * a)
}

/// Internal energy per spin of the infinite square lattice (Onsager):
/// `u = −coth 2K [1 + (2/π)(2 tanh² 2K − 1) K(κ)]`, `κ = 2 sinh 2K / cosh² 2K`.
/// (At `T_c` the bracket's product is `0·∞`, whose limit is 0: `K(κ)` grows as
/// `ln(4/√(1 − κ²))`, the bracket as `T − T_c`; so `u(T_c) = −coth 2K_c = −√2`. In floating
/// point `κ` rounds to 1 there while the bracket stays a rounding error from 0, and the
/// product would be that error times an AGM run down to nothing.)
pub fn onsager_energy(temperature: f64) -> f64 {
    let k2 = 2.0 / temperature;
    let kappa = 2.0 * k2.sinh() / k2.cosh().powi(2);
    let th = k2.tanh();
    let bracket = 2.0 * th * th - 1.0;
    if bracket == 0.0 || kappa >= 1.0 {
        return -1.0 / th;
    }
    -1.0 / th * (1.0 + 2.0 / PI * bracket * elliptic_k(kappa))
}

/// Low-temperature series for `|m|`, `u = e^{−4/T}`: 2D `1 − 2u² − 8u³ − 34u⁴`,
/// 3D `1 − 2u³ − 12u⁵`.
pub fn low_temperature_magnetisation(dimension: Dimension, temperature: f64) -> f64 {
    let u = (-4.0 / temperature).exp();
    match dimension {
        Dimension::Two => 1.0 - 2.0 * u.powi(2) - 8.0 * u.powi(3) - 34.0 * u.powi(4),
        Dimension::Three => 1.0 - 2.0 * u.powi(3) - 12.0 * u.powi(5),
    }
}

/// Low-temperature series for the energy per spin, `−∂(ln Z/N)/∂K` with
/// `ln Z/N = dK + u² + 2u³ + (9/2)u⁴` (2D) or `3K + u³ + 3u⁵` (3D):
/// 2D `−2 + 8u² + 24u³ + 72u⁴`, 3D `−3 + 12u³ + 60u⁵`.
pub fn low_temperature_energy(dimension: Dimension, temperature: f64) -> f64 {
    let u = (-4.0 / temperature).exp();
    match dimension {
        Dimension::Two => -2.0 + 8.0 * u.powi(2) + 24.0 * u.powi(3) + 72.0 * u.powi(4),
        Dimension::Three => -3.0 + 12.0 * u.powi(3) + 60.0 * u.powi(5),
    }
}

/// High-temperature series for the energy per spin, `t = tanh(1/T)`:
/// `−d·t − (1 − t²) Σ n gₙ tⁿ⁻¹` with the `gₙ` of the module docs (leading term `−d·t`).
pub fn high_temperature_energy(dimension: Dimension, temperature: f64) -> f64 {
    let t = (1.0 / temperature).tanh();
    let (d, g4, g6, g8) = match dimension {
        Dimension::Two => (2.0, 1.0, 2.0, 4.5),
        Dimension::Three => (3.0, 3.0, 22.0, 187.5),
    };
    let series = 4.0 * g4 * t.powi(3) + 6.0 * g6 * t.powi(5) + 8.0 * g8 * t.powi(7);
    -d * t - (1.0 - t * t) * series
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn onsager_energy_is_continuous_through_the_critical_point() {
        let tc = CRITICAL_TEMPERATURE_2D;
        assert!(
            (onsager_energy(tc) + 2.0_f64.sqrt()).abs() < 1e-9,
            "{}",
            onsager_energy(tc)
        );
        for t in [
            tc * (1.0 - 1e-6),
            tc * (1.0 + 1e-6),
            tc * 0.9999,
            tc * 1.0001,
        ] {
            let u = onsager_energy(t);
            assert!((u + 2.0_f64.sqrt()).abs() < 1e-2, "u({t}) = {u}");
        }
    }

    #[test]
    fn critical_temperature_2d_is_onsagers() {
        let tc = 2.0 / (1.0 + 2.0_f64.sqrt()).ln();
        assert!((CRITICAL_TEMPERATURE_2D - tc).abs() < 1e-14);
        assert_eq!(onsager_magnetisation(tc * 1.0001), 0.0);
        assert!(onsager_magnetisation(tc * 0.999) > 0.3);
        assert!((critical_temperature(Dimension::Three) - 1.0 / 0.221_654_6).abs() < 1e-3);
    }

    #[test]
    fn onsager_values_at_t_equal_one() {
        assert!((onsager_magnetisation(1.0) - 0.999_276).abs() < 1e-6);
        assert!((onsager_energy(1.0) - (-1.997_15)).abs() < 1e-4);
        // Energy is continuous through T_c, where u = −√2 (approach ~ ε ln ε).
        let tc = CRITICAL_TEMPERATURE_2D;
        for eps in [1e-4, -1e-4] {
            let u = onsager_energy(tc * (1.0 + eps));
            assert!((u + 2.0_f64.sqrt()).abs() < 1e-2, "{eps}: {u}");
        }
    }

    #[test]
    fn series_agree_with_exact_solution_in_2d() {
        for t in [0.8, 1.0, 1.2] {
            let m = onsager_magnetisation(t);
            let e = onsager_energy(t);
            let u: f64 = (-4.0 / t).exp();
            // Truncation error of order the next term, u⁵·(a few hundred).
            let tol = 400.0 * u.powi(5) + 1e-12;
            assert!((low_temperature_magnetisation(Dimension::Two, t) - m).abs() < tol);
            assert!((low_temperature_energy(Dimension::Two, t) - e).abs() < tol);
        }
        for t in [5.0, 8.0, 20.0] {
            let e = onsager_energy(t);
            let th: f64 = (1.0 / t).tanh();
            let tol = 200.0 * th.powi(9);
            assert!(
                (high_temperature_energy(Dimension::Two, t) - e).abs() < tol,
                "T={t}: {} vs {e}",
                high_temperature_energy(Dimension::Two, t)
            );
        }
    }

    #[test]
    fn three_d_series_limits() {
        assert!((low_temperature_energy(Dimension::Three, 0.1) + 3.0).abs() < 1e-12);
        assert!((low_temperature_magnetisation(Dimension::Three, 0.1) - 1.0).abs() < 1e-12);
        let t = 1e3;
        assert!((high_temperature_energy(Dimension::Three, t) + 3.0 / t).abs() < 1e-7);
    }
}
