//! The *ising* test program of Zorbas, Reble and VanKooten, "Measuring the scalability of
//! parallel computer systems" (1989), §5: Metropolis Monte Carlo of the Ising model, with the
//! samples distributed over the processors.
//!
//! # The model
//!
//! Spins `sᵢ = ±1` sit on a periodic `L×L` (2D) or `L×L×L` (3D) lattice with energy
//! `E = −J Σ_⟨ij⟩ sᵢ sⱼ` over nearest-neighbour bonds (each bond once), `J = 1`, `k_B = 1`,
//! temperature `T`. Per-spin quantities are `m = M/N` with `M = Σ sᵢ` and `e = E/N`,
//! `N = L^d`. The critical temperature is `T_c = 2/ln(1+√2) ≈ 2.269` in 2D and `≈ 4.5115` in 3D;
//! [`exact`] has Onsager's exact 2D results and the low/high-temperature series used to check
//! the simulation against statistical physics, not only against itself.
//!
//! # The method
//!
//! Metropolis single-spin flips in typewriter order (x fastest, then y, then z): flipping `sᵢ`
//! costs `ΔE = 2 sᵢ hᵢ` with `hᵢ` the sum of its `2d` neighbours; it is accepted when `ΔE ≤ 0`
//! and otherwise with probability `exp(−ΔE/T)`. `ΔE > 0` takes only the values `4, 8, …, 4d`, so
//! the probabilities are precomputed once ([`AcceptanceTable`]) and compared with a raw 64-bit
//! random integer: no floating-point arithmetic in the sweep, so results are bit-for-bit
//! reproducible on every host.
//!
//! # The program (the paper's PARDO over samples)
//!
//! ```text
//! PARDO sample = 1, n
//!   for each lattice point (x,y,z)
//!     — perform spin-flip on (x,y,z)
//!     — cumulate change in magnetism
//! ENDPARDO
//! ```
//!
//! A *sample* is an independent Markov chain: a fresh lattice (cold or hot start), a number of
//! thermalisation sweeps, then measurement sweeps; it accumulates its change in magnetisation
//! flip by flip and its `M`, `|M|`, `E` after each measurement sweep, all as integers
//! ([`run_sample`] → [`SampleResult`]). The number of samples is the work: scaled with the
//! processors (`samples_per_processor × P`, the paper's choice: work ∝ P, so the ideal run time
//! is constant) or fixed (strong scaling), see [`Workload`].
//!
//! ## Random streams: independent of which processor runs a sample
//!
//! Sample `k` of seed `s` draws from its own [`Xoshiro256PlusPlus`](rand_xoshiro::Xoshiro256PlusPlus)
//! whose 256-bit state is outputs `4k, 4k+1, 4k+2, 4k+3` of the SplitMix64 sequence seeded with
//! `s` (SplitMix64 is counter based, so output `i` is `mix(s + (i+1)·0x9E3779B97F4A7C15)`
//! computed directly in O(1); see [`sample_rng`]). A sample's result therefore depends only on
//! `(config, k)`, not on the processor, nor on the order in which samples run, and no stream
//! needs `jump()` to be split. Every accumulator is an integer, so summaries merge exactly in any
//! order ([`SummaryAccumulator`]): a parallel run must equal [`run_sequential`] bit for bit.
//!
//! ## On the emulated multicomputer
//!
//! [`run_parallel`] runs the program on a [`Machine`](multicomputer_runtime::Machine) under one
//! of two control mechanisms ([`Mechanism`]): a centralized one with a hot spot (the paper's
//! PCM) and a tree broadcast and reduction (the MCM). Samples are real compute, charged by CPU
//! time; the emulated makespan is the run time `T` of the scalability analysis.
//!
//! # Example
//!
//! ```
//! use multicomputer_workloads::ising::{Dimension, IsingConfig, run_sample, run_sequential};
//!
//! let mut config = IsingConfig::new(Dimension::Two, 8, 1.0)?;
//! config.thermalisation_sweeps = 10;
//! config.measurement_sweeps = 20;
//! let summary = run_sequential(&config, 4)?;
//! assert!(summary.abs_magnetisation.mean > 0.99); // far below T_c ≈ 2.269: ordered
//! // Any sample can be rerun alone, on any processor, with the same result.
//! let again = run_sample(&config, 2)?;
//! assert_eq!(again, run_sample(&config, 2)?);
//! # Ok::<(), multicomputer_workloads::ising::IsingError>(())
//! ```

mod acceptance;
mod compare;
pub mod exact;
mod lattice;
mod metropolis;
mod parallel;
mod reference;

use serde::Serialize;
use thiserror::Error;

pub use acceptance::AcceptanceTable;
pub use compare::{ExactValues, IsingExperiment, IsingMeasurement, median};
pub use lattice::Lattice;
pub use metropolis::{
    ACCEPTED_FLIP, ATTEMPTED_FLIP, NEIGHBOUR_READ, SampleResult, run_sample, sample_rng,
};
pub use parallel::{
    IsingMessage, Mechanism, PARTIAL_BYTES, ParallelError, ParallelRun, SAMPLE_RESULT_BYTES,
    UNIT_BYTES, WORK_BYTES, run_parallel,
};
pub use reference::{Estimate, SUMMARY_MERGE, Summary, SummaryAccumulator, run_sequential};

/// The temperature a run uses unless told otherwise, J/k_B: ordered, below the 3D critical
/// temperature ≈ 4.512. The cost of a spin flip is calibrated here (see `unit_costs`).
pub const DEFAULT_TEMPERATURE: f64 = 4.0;

/// The thermalisation and the measured sweeps a sample runs unless told otherwise, each.
pub const DEFAULT_SWEEPS: u32 = 20;

use crate::analysis::Work;

/// Bad input to the Ising program.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum IsingError {
    /// The linear size `L` is 0.
    #[error("lattice size L must be at least 2, got 0")]
    ZeroSize,
    /// `L = 1`: every site would be its own neighbour.
    #[error("lattice size L must be at least 2 (periodic neighbours), got {0}")]
    SizeTooSmall(usize),
    /// `L^d` does not fit the index type.
    #[error("lattice {size}^{dimension} is too large")]
    TooLarge {
        /// Linear size L.
        size: usize,
        /// Dimension d.
        dimension: usize,
    },
    /// `T ≤ 0`, NaN or infinite.
    #[error("temperature must be finite and > 0, got {0}")]
    BadTemperature(f64),
    /// No measurement sweeps: nothing to average.
    #[error("at least one measurement sweep is needed")]
    ZeroMeasurementSweeps,
    /// No samples to run.
    #[error("at least one sample is needed")]
    ZeroSamples,
    /// No processors.
    #[error("at least one processor is needed")]
    ZeroProcessors,
    /// The total number of samples overflows.
    #[error("{samples_per_processor} samples per processor × {processors} processors overflows")]
    TooManySamples {
        /// Samples per processor.
        samples_per_processor: u64,
        /// Processors.
        processors: u32,
    },
    /// Model compute charging has no cost for a unit the program declares.
    #[error("{0}")]
    Model(String),
}

/// Lattice dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Dimension {
    /// Square lattice `L×L`, 4 neighbours.
    #[serde(rename = "2d")]
    Two,
    /// Simple cubic lattice `L×L×L`, 6 neighbours.
    #[serde(rename = "3d")]
    Three,
}

impl Dimension {
    /// `d`, 2 or 3.
    pub fn d(self) -> usize {
        match self {
            Dimension::Two => 2,
            Dimension::Three => 3,
        }
    }
}

/// Initial state of each sample's lattice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Start {
    /// All spins +1 (ordered; the right start below T_c, where a hot start may freeze into
    /// domains for a long time).
    Cold,
    /// Each spin ±1 with probability 1/2, drawn from the sample's own stream.
    Hot,
}

/// One Ising program: lattice, temperature, sweeps per sample, seed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IsingConfig {
    /// 2D or 3D.
    pub dimension: Dimension,
    /// Linear size L (≥ 2).
    pub size: usize,
    /// Temperature T (> 0), in units of J/k_B.
    pub temperature: f64,
    /// Sweeps per sample before measuring (their flips still count in `delta_magnetisation`).
    pub thermalisation_sweeps: u32,
    /// Sweeps per sample after each of which `M`, `|M|`, `E` are recorded (≥ 1).
    pub measurement_sweeps: u32,
    /// Seed of every sample's stream (see [`sample_rng`]).
    pub seed: u64,
    /// Initial state of each sample.
    pub start: Start,
}

impl IsingConfig {
    /// A validated configuration with defaults: 100 thermalisation and 100 measurement sweeps,
    /// seed 1, cold start.
    pub fn new(dimension: Dimension, size: usize, temperature: f64) -> Result<Self, IsingError> {
        let config = IsingConfig {
            dimension,
            size,
            temperature,
            thermalisation_sweeps: 100,
            measurement_sweeps: 100,
            seed: 1,
            start: Start::Cold,
        };
        config.validate()?;
        Ok(config)
    }

    /// Checks every field.
    pub fn validate(&self) -> Result<(), IsingError> {
        match self.size {
            0 => return Err(IsingError::ZeroSize),
            1 => return Err(IsingError::SizeTooSmall(1)),
            _ => {}
        }
        self.spins()?;
        if !(self.temperature.is_finite() && self.temperature > 0.0) {
            return Err(IsingError::BadTemperature(self.temperature));
        }
        if self.measurement_sweeps == 0 {
            return Err(IsingError::ZeroMeasurementSweeps);
        }
        Ok(())
    }

    /// Number of spins `N = L^d` (checked for overflow; kept below 2^40 so every integer
    /// accumulator fits comfortably).
    pub fn spins(&self) -> Result<usize, IsingError> {
        let d = self.dimension.d();
        let too_large = IsingError::TooLarge {
            size: self.size,
            dimension: d,
        };
        let n = (0..d).try_fold(1usize, |acc, _| acc.checked_mul(self.size));
        match n {
            Some(n) if n < (1 << 40) => Ok(n),
            _ => Err(too_large),
        }
    }

    /// Single-spin updates attempted by one sample: `(thermalisation + measurement) · N`. The
    /// unit of work `W` of the scalability analysis.
    pub fn updates_per_sample(&self) -> Result<u64, IsingError> {
        let sweeps = u64::from(self.thermalisation_sweeps) + u64::from(self.measurement_sweeps);
        Ok(sweeps * self.spins()? as u64)
    }
}

/// How many samples a run on `P` processors has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Workload {
    /// Work ∝ P, the paper's choice: `samples_per_processor × P` samples, so the ideal run time
    /// `C·W_p(P)/P` is constant.
    Scaled {
        /// Samples each processor gets.
        samples_per_processor: u64,
    },
    /// Fixed work (strong scaling): the same samples whatever P.
    Fixed {
        /// Total samples.
        samples: u64,
    },
}

impl Workload {
    /// Total samples `n` on `processors` processors.
    pub fn samples(&self, processors: u32) -> Result<u64, IsingError> {
        if processors == 0 {
            return Err(IsingError::ZeroProcessors);
        }
        let n = match *self {
            Workload::Scaled {
                samples_per_processor,
            } => samples_per_processor
                .checked_mul(u64::from(processors))
                .ok_or(IsingError::TooManySamples {
                    samples_per_processor,
                    processors,
                })?,
            Workload::Fixed { samples } => samples,
        };
        if n == 0 {
            return Err(IsingError::ZeroSamples);
        }
        Ok(n)
    }

    /// The work `W(P) = W_s(P) + W_p(P)` in single-spin updates: the program is completely
    /// parallel (`W_s = 0`), `W_p = n · updates_per_sample`.
    pub fn work(&self, config: &IsingConfig, processors: u32) -> Result<Work, IsingError> {
        let n = self.samples(processors)?;
        Ok(Work {
            serial: 0.0,
            parallel: n as f64 * config.updates_per_sample()? as f64,
        })
    }
}

/// The samples processor `processor` (0-based) runs when `total` samples are dealt out in
/// contiguous blocks to `processors` processors: the first `total mod P` get one more.
///
/// Any other distribution gives the same [`Summary`]; this one is the default.
pub fn sample_range(processor: u32, processors: u32, total: u64) -> std::ops::Range<u64> {
    assert!(
        processor < processors,
        "processor {processor} of {processors}"
    );
    let p = u64::from(processors);
    let i = u64::from(processor);
    let (q, r) = (total / p, total % p);
    let start = i * q + i.min(r);
    let len = q + u64::from(i < r);
    start..start + len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_rejects_bad_input() {
        assert_eq!(
            IsingConfig::new(Dimension::Two, 0, 1.0),
            Err(IsingError::ZeroSize)
        );
        assert_eq!(
            IsingConfig::new(Dimension::Three, 1, 1.0),
            Err(IsingError::SizeTooSmall(1))
        );
        assert_eq!(
            IsingConfig::new(Dimension::Two, 4, 0.0),
            Err(IsingError::BadTemperature(0.0))
        );
        assert!(matches!(
            IsingConfig::new(Dimension::Two, 4, f64::NAN),
            Err(IsingError::BadTemperature(_))
        ));
        assert!(matches!(
            IsingConfig::new(Dimension::Three, 1 << 14, 1.0),
            Err(IsingError::TooLarge { .. })
        ));
        let mut c = IsingConfig::new(Dimension::Two, 4, 1.0).unwrap();
        c.measurement_sweeps = 0;
        assert_eq!(c.validate(), Err(IsingError::ZeroMeasurementSweeps));
    }

    #[test]
    fn workload_counts_samples_and_work() {
        let c = IsingConfig::new(Dimension::Three, 4, 3.0).unwrap();
        let scaled = Workload::Scaled {
            samples_per_processor: 3,
        };
        assert_eq!(scaled.samples(8), Ok(24));
        let w = scaled.work(&c, 8).unwrap();
        assert_eq!(w.serial, 0.0);
        assert_eq!(w.parallel, 24.0 * 200.0 * 64.0);
        assert_eq!(Workload::Fixed { samples: 10 }.samples(8), Ok(10));
        assert_eq!(scaled.samples(0), Err(IsingError::ZeroProcessors));
        assert_eq!(
            Workload::Fixed { samples: 0 }.samples(2),
            Err(IsingError::ZeroSamples)
        );
        assert!(matches!(
            Workload::Scaled {
                samples_per_processor: u64::MAX
            }
            .samples(2),
            Err(IsingError::TooManySamples { .. })
        ));
    }

    #[test]
    fn sample_ranges_partition_all_samples() {
        for total in [0u64, 1, 7, 64, 100] {
            for p in [1u32, 2, 3, 8, 13] {
                let mut next = 0;
                for i in 0..p {
                    let r = sample_range(i, p, total);
                    assert_eq!(r.start, next);
                    assert!(r.end - r.start <= total / u64::from(p) + 1);
                    next = r.end;
                }
                assert_eq!(next, total);
            }
        }
    }
}
