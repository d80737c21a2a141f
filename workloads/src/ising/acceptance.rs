//! The Metropolis acceptance probabilities of a lattice's positive energy changes, computed
//! once per temperature (shared by the sweep and the lattice's own flips).

use rand::Rng;

use super::{Dimension, IsingError};

/// Precomputed Metropolis acceptance for the `d` positive energy changes `ΔE = 4k`,
/// `k = 1..=d` (`ΔE = 2 sᵢ hᵢ`, `sᵢhᵢ ∈ {2, 4, …, 2d}`).
#[derive(Debug, Clone, PartialEq)]
pub struct AcceptanceTable {
    probabilities: Vec<f64>,
    thresholds: Vec<u64>,
}

impl AcceptanceTable {
    /// `p_k = exp(−4k/T)` and its threshold `⌊p_k · 2⁶⁴⌋` (saturating): a flip with `ΔE = 4k` is
    /// accepted when a uniform `u64` is below it, i.e. with probability `p_k` to within 2⁻⁶⁴.
    pub fn new(dimension: Dimension, temperature: f64) -> Result<Self, IsingError> {
        if !(temperature.is_finite() && temperature > 0.0) {
            return Err(IsingError::BadTemperature(temperature));
        }
        let probabilities: Vec<f64> = (1..=dimension.d())
            .map(|k| (-4.0 * k as f64 / temperature).exp())
            .collect();
        // `as` saturates: p·2⁶⁴ rounding to 2⁶⁴ becomes u64::MAX.
        let thresholds = probabilities
            .iter()
            .map(|p| (p * 18_446_744_073_709_551_616.0) as u64)
            .collect();
        Ok(AcceptanceTable {
            probabilities,
            thresholds,
        })
    }

    /// `(ΔE, exp(−ΔE/T))` for every positive `ΔE`.
    pub fn probabilities(&self) -> impl Iterator<Item = (u32, f64)> + '_ {
        self.probabilities
            .iter()
            .enumerate()
            .map(|(k, p)| (4 * (k as u32 + 1), *p))
    }

    /// Whether to flip a spin with `sᵢhᵢ = sh`; draws from `rng` only when `ΔE > 0`.
    #[inline]
    pub(crate) fn accepts<R: Rng + ?Sized>(&self, sh: i32, rng: &mut R) -> bool {
        if sh <= 0 {
            return true;
        }
        rng.next_u64() < self.thresholds[(sh / 2 - 1) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acceptance_probabilities_are_boltzmann_factors() {
        let t = AcceptanceTable::new(Dimension::Three, 2.0).unwrap();
        let p: Vec<(u32, f64)> = t.probabilities().collect();
        assert_eq!(p.len(), 3);
        for (k, (de, pk)) in p.iter().enumerate() {
            assert_eq!(*de, 4 * (k as u32 + 1));
            assert!((pk - (-f64::from(*de) / 2.0).exp()).abs() < 1e-15);
        }
        assert_eq!(
            AcceptanceTable::new(Dimension::Two, 1.0)
                .unwrap()
                .thresholds
                .len(),
            2
        );
        assert!(AcceptanceTable::new(Dimension::Two, -1.0).is_err());
        // Infinite-temperature limit: every flip accepted except with probability 2⁻⁶⁴.
        let hot = AcceptanceTable::new(Dimension::Two, 1e300).unwrap();
        assert_eq!(hot.thresholds, vec![u64::MAX; 2]);
    }
}
