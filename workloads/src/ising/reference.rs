//! The sequential reference: all samples in order, summarised exactly.

use multicomputer_runtime::WorkUnit;
use serde::Serialize;

use super::metropolis::{SampleResult, run_sample};
use super::{IsingConfig, IsingError};

/// One sample added to, or one partial summary merged into, a summary.
pub const SUMMARY_MERGE: WorkUnit = WorkUnit("summary_merge");

/// A mean over samples with its standard error (NaN, serialised as null, for one sample).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimate {
    /// Mean of the per-sample means.
    pub mean: f64,
    /// Standard error of that mean, `s/√n` with `s` the sample standard deviation over the `n`
    /// independent samples (valid whatever the autocorrelation within a sample).
    pub std_error: f64,
}

/// The summary of a run: physics estimates and the program's accumulated counts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Samples summarised.
    pub samples: u64,
    /// Spins per sample N.
    pub spins: u64,
    /// Measurement sweeps per sample.
    pub measurements_per_sample: u64,
    /// `⟨|M|/N⟩`, the order parameter of a finite lattice.
    pub abs_magnetisation: Estimate,
    /// `⟨M/N⟩` (≈ 0 above T_c; below, ±m depending on the start and on tunnelling).
    pub magnetisation: Estimate,
    /// `⟨E/N⟩`.
    pub energy: Estimate,
    /// Σ over samples of the accumulated change in magnetisation.
    pub delta_magnetisation: i64,
    /// Accepted flips, all samples.
    pub flips: u64,
    /// Attempted flips, all samples.
    pub attempts: u64,
    /// `flips / attempts`.
    pub acceptance_ratio: f64,
}

/// Exact (integer) accumulation of [`SampleResult`]s: [`add`](Self::add) and
/// [`merge`](Self::merge) are associative and commutative, so processors may each accumulate
/// their own samples and merge in any order and still produce the [`Summary`] of
/// [`run_sequential`] bit for bit.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SummaryAccumulator {
    samples: u64,
    spins: u64,
    measurements: u64,
    sum_m: i128,
    sum_m_sq: i128,
    sum_abs: i128,
    sum_abs_sq: i128,
    sum_e: i128,
    sum_e_sq: i128,
    delta_m: i64,
    flips: u64,
    attempts: u64,
}

impl SummaryAccumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one sample. All samples must come from the same config.
    pub fn add(&mut self, r: &SampleResult) {
        if self.samples == 0 {
            self.spins = r.spins;
            self.measurements = r.measurements;
        }
        assert_eq!(
            (self.spins, self.measurements),
            (r.spins, r.measurements),
            "samples from different configurations"
        );
        let (m, a, e) = (
            i128::from(r.sum_magnetisation),
            i128::from(r.sum_abs_magnetisation),
            i128::from(r.sum_energy),
        );
        self.samples += 1;
        self.sum_m += m;
        self.sum_m_sq += m * m;
        self.sum_abs += a;
        self.sum_abs_sq += a * a;
        self.sum_e += e;
        self.sum_e_sq += e * e;
        self.delta_m += r.delta_magnetisation;
        self.flips += r.flips;
        self.attempts += r.attempts;
    }

    /// Merges another accumulator (e.g. another processor's) into this one.
    pub fn merge(&mut self, other: &SummaryAccumulator) {
        if other.samples == 0 {
            return;
        }
        if self.samples == 0 {
            *self = other.clone();
            return;
        }
        assert_eq!(
            (self.spins, self.measurements),
            (other.spins, other.measurements),
            "samples from different configurations"
        );
        self.samples += other.samples;
        self.sum_m += other.sum_m;
        self.sum_m_sq += other.sum_m_sq;
        self.sum_abs += other.sum_abs;
        self.sum_abs_sq += other.sum_abs_sq;
        self.sum_e += other.sum_e;
        self.sum_e_sq += other.sum_e_sq;
        self.delta_m += other.delta_m;
        self.flips += other.flips;
        self.attempts += other.attempts;
    }

    /// Samples added so far.
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// The summary, or [`IsingError::ZeroSamples`] if nothing was added.
    pub fn finish(&self) -> Result<Summary, IsingError> {
        if self.samples == 0 {
            return Err(IsingError::ZeroSamples);
        }
        let n = self.samples as i128;
        let norm = (self.measurements * self.spins) as f64;
        // Per-sample means are xₖ = Sₖ/norm; mean and variance from exact integer sums.
        let estimate = |sum: i128, sum_sq: i128| {
            let mean = sum as f64 / (self.samples as f64 * norm);
            let std_error = if n > 1 {
                let num = n * sum_sq - sum * sum; // n²·(n−1)/n · var(S), exact, ≥ 0
                let var = num as f64 / ((n * (n - 1)) as f64) / (norm * norm);
                (var / n as f64).sqrt()
            } else {
                f64::NAN
            };
            Estimate { mean, std_error }
        };
        Ok(Summary {
            samples: self.samples,
            spins: self.spins,
            measurements_per_sample: self.measurements,
            abs_magnetisation: estimate(self.sum_abs, self.sum_abs_sq),
            magnetisation: estimate(self.sum_m, self.sum_m_sq),
            energy: estimate(self.sum_e, self.sum_e_sq),
            delta_magnetisation: self.delta_m,
            flips: self.flips,
            attempts: self.attempts,
            acceptance_ratio: self.flips as f64 / self.attempts as f64,
        })
    }
}

/// The sequential reference: samples `0..samples` in order on one thread. Any parallel run of
/// the same `(config, samples)` must return exactly this.
pub fn run_sequential(config: &IsingConfig, samples: u64) -> Result<Summary, IsingError> {
    config.validate()?;
    if samples == 0 {
        return Err(IsingError::ZeroSamples);
    }
    let mut acc = SummaryAccumulator::new();
    for k in 0..samples {
        acc.add(&run_sample(config, k)?);
    }
    acc.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ising::{Dimension, Start, exact, sample_range};

    fn config(dim: Dimension, l: usize, t: f64, therm: u32, meas: u32) -> IsingConfig {
        let mut c = IsingConfig::new(dim, l, t).unwrap();
        c.thermalisation_sweeps = therm;
        c.measurement_sweeps = meas;
        c.seed = 2024;
        c
    }

    #[test]
    fn sequential_reference_is_reproducible_and_order_free() {
        let mut c = config(Dimension::Three, 4, 4.0, 5, 5);
        c.start = Start::Hot;
        let seq = run_sequential(&c, 10).unwrap();
        assert_eq!(seq, run_sequential(&c, 10).unwrap());
        // Deal the samples to 3 "processors", run each block backwards, merge in reverse.
        let mut parts: Vec<SummaryAccumulator> = (0..3)
            .map(|p| {
                let mut acc = SummaryAccumulator::new();
                for k in sample_range(p, 3, 10).rev() {
                    acc.add(&run_sample(&c, k).unwrap());
                }
                acc
            })
            .collect();
        parts.reverse();
        let mut total = SummaryAccumulator::new();
        for p in &parts {
            total.merge(p);
        }
        assert_eq!(total.finish().unwrap(), seq);
        // A different seed gives a different run.
        c.seed += 1;
        assert_ne!(run_sequential(&c, 10).unwrap(), seq);
        assert_eq!(run_sequential(&c, 0), Err(IsingError::ZeroSamples));
        assert_eq!(
            SummaryAccumulator::new().finish(),
            Err(IsingError::ZeroSamples)
        );
    }

    /// |observed − expected| within `k` standard errors plus a stated systematic allowance.
    fn assert_close(what: &str, est: Estimate, expected: f64, k: f64, systematic: f64) {
        let tol = k * est.std_error + systematic;
        assert!(
            (est.mean - expected).abs() <= tol,
            "{what}: {} ± {} vs {expected} (tolerance {tol})",
            est.mean,
            est.std_error
        );
    }

    #[test]
    fn two_d_far_below_tc_matches_onsager() {
        // T = 1 ≈ 0.44 T_c: correlation length ≪ 1, so L = 16 has no visible finite-size effect.
        let c = config(Dimension::Two, 16, 1.0, 20, 100);
        let s = run_sequential(&c, 24).unwrap();
        let m = exact::onsager_magnetisation(1.0);
        let e = exact::onsager_energy(1.0);
        assert!((m - 0.99927).abs() < 1e-5 && (e + 1.997).abs() < 1e-3);
        assert!(s.abs_magnetisation.std_error > 0.0 && s.energy.std_error > 0.0);
        assert_close("|m|", s.abs_magnetisation, m, 5.0, 1e-4);
        assert_close("e", s.energy, e, 5.0, 2e-4);
    }

    #[test]
    fn two_d_far_above_tc_is_disordered() {
        // T = 5 ≈ 2.2 T_c: |m| ~ √(χT/N) = O(1/L), energy from the exact solution, which the
        // high-temperature series reproduces to ~1e-4 here.
        let l = 16;
        let c = config(Dimension::Two, l, 5.0, 50, 100);
        let s = run_sequential(&c, 24).unwrap();
        assert!(
            s.abs_magnetisation.mean < 2.5 / l as f64,
            "{:?}",
            s.abs_magnetisation
        );
        assert!(s.magnetisation.mean.abs() < 5.0 * s.magnetisation.std_error + 1e-3);
        assert_close("e", s.energy, exact::onsager_energy(5.0), 5.0, 5e-4);
        assert_close(
            "e (series)",
            s.energy,
            exact::high_temperature_energy(Dimension::Two, 5.0),
            5.0,
            1e-3,
        );
    }

    #[test]
    fn three_d_far_below_tc_is_ordered() {
        // T = 2 ≈ 0.44 T_c: e → −3 and |m| → 1, as the low-temperature series says.
        let c = config(Dimension::Three, 8, 2.0, 20, 40);
        let s = run_sequential(&c, 16).unwrap();
        let m = exact::low_temperature_magnetisation(Dimension::Three, 2.0);
        let e = exact::low_temperature_energy(Dimension::Three, 2.0);
        assert!(m > 0.99 && e < -2.96);
        assert_close("|m|", s.abs_magnetisation, m, 5.0, 2e-4);
        assert_close("e", s.energy, e, 5.0, 5e-4);
    }

    #[test]
    fn three_d_far_above_tc_is_disordered() {
        // T = 10 ≈ 2.2 T_c.
        let l = 8;
        let c = config(Dimension::Three, l, 10.0, 30, 40);
        let s = run_sequential(&c, 16).unwrap();
        assert!(
            s.abs_magnetisation.mean < 2.5 / (l as f64).powf(1.5),
            "{:?}",
            s.abs_magnetisation
        );
        assert_close(
            "e",
            s.energy,
            exact::high_temperature_energy(Dimension::Three, 10.0),
            5.0,
            5e-4,
        );
    }
}
