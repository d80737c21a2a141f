//! The definitions of the paper's §2–3: work, sequential and ideal run times, the system overhead
//! function `Φ_s`, speedup and Amdahl's bound.
//!
//! The work of a parallel algorithm on `P` processors is `W(P) = W_s(P) + W_p(P)` (serial and
//! parallel parts, chosen to grow with P so every processor has a share). With `C` the time per
//! unit of work:
//!
//! * sequential run time `C·[W_s(P) + W_p(P)]` ([`sequential_run_time`]);
//! * ideal run time `C·[W_s(P) + W_p(P)/P]` ([`ideal_run_time`]);
//! * the system scales with overhead `Φ(P)` if `T ≤ C·[W_s + W_p/P]·Φ(P)` (1); the smallest such
//!   function is the **system overhead function** `Φ_s(P) = T / (C·[W_s(P) + W_p(P)/P])`
//!   ([`system_overhead`]);
//! * `α(P) = W_s/(W_s + W_p)` ([`Work::serial_fraction`]); a P-processor run pays off iff
//!   `Φ(P) < 1/(α + (1−α)/P)` (3), the right side being Amdahl's bound on the speedup
//!   ([`amdahl_bound`]);
//! * speedup `s(P) = sequential / parallel run time` ([`speedup`]); with the paper's convention
//!   the sequential time is the *parallel program* on one processor ("rough speedup"), and
//!   `s(P) = 1/([α + (1−α)/P]·Φ_s(P))` (5) ([`speedup_from_overhead`]). When the work is scaled
//!   with P ([`scaled_speedup`]) the one-processor time of `W(P)` is estimated from a measured
//!   `W(1)` run by the paper's assumption that time ∝ work.
//!
//! ```
//! use multicomputer_workloads::analysis::{Work, ideal_run_time, system_overhead};
//!
//! let work = Work { serial: 10.0, parallel: 90.0 };
//! let ideal = ideal_run_time(2.0, work, 9)?; // 2·(10 + 90/9) = 40
//! assert_eq!(system_overhead(60.0, ideal)?, 1.5);
//! # Ok::<(), multicomputer_workloads::analysis::ScalabilityError>(())
//! ```
//!
//! # Notes on the paper's text
//!
//! * Typo: in §2's matrix-multiplication example `W_p(P) ∝ ⌈P^{1/2}⌉` should read `P^{3/2}`
//!   (`n³` multiply–adds with `n ∝ P^{1/2}`); the ceiling brackets around `W_p(P)/P` and
//!   `W_s(P) + W_p(P)/P` in that section are square brackets (grouping), not ceilings.
//! * Definition 2's two conditions are `Φ·α → 0` and `Φ·(1−α)/P → 0`; the paper's `Φ/P → 0`
//!   is the second one once `α → 0`.

use serde::Serialize;

use super::error::{ScalabilityError, non_negative, positive, processors_f64};

/// The work of a parallel algorithm at one P: `W(P) = W_s(P) + W_p(P)`, in any unit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Work {
    /// Serial part `W_s(P)`.
    pub serial: f64,
    /// Parallel part `W_p(P)`.
    pub parallel: f64,
}

impl Work {
    /// `W_s + W_p`.
    pub fn total(&self) -> f64 {
        self.serial + self.parallel
    }

    /// `α(P) = W_s/(W_s + W_p)` (paper, before (3)).
    pub fn serial_fraction(&self) -> Result<f64, ScalabilityError> {
        non_negative("serial work", self.serial)?;
        non_negative("parallel work", self.parallel)?;
        Ok(self.serial / positive("total work", self.total())?)
    }
}

/// Sequential run time `C·[W_s(P) + W_p(P)]` (paper §2).
pub fn sequential_run_time(c: f64, work: Work) -> Result<f64, ScalabilityError> {
    work.serial_fraction()?;
    Ok(positive("C", c)? * work.total())
}

/// Ideal run time `C·[W_s(P) + W_p(P)/P]` (paper §2).
pub fn ideal_run_time(c: f64, work: Work, processors: u32) -> Result<f64, ScalabilityError> {
    work.serial_fraction()?;
    let p = processors_f64(processors)?;
    Ok(positive("C", c)? * (work.serial + work.parallel / p))
}

/// System overhead function `Φ_s(P) = T / (C·[W_s(P) + W_p(P)/P])` (paper, after (1)): the
/// measured run time over the ideal run time.
pub fn system_overhead(run_time: f64, ideal_run_time: f64) -> Result<f64, ScalabilityError> {
    Ok(positive("run time", run_time)? / positive("ideal run time", ideal_run_time)?)
}

/// Speedup `s(P) = sequential run time / parallel run time` (paper §3). With the sequential time
/// of the parallel program on one processor this is the paper's "rough speedup".
pub fn speedup(sequential_run_time: f64, parallel_run_time: f64) -> Result<f64, ScalabilityError> {
    Ok(positive("sequential run time", sequential_run_time)?
        / positive("parallel run time", parallel_run_time)?)
}

/// Scaled speedup (Gustafson; paper §3) for work that grows with P: the one-processor time of
/// `W(P)` is estimated as `T(1)·W(P)/W(1)` (time ∝ work, paper §2), so
/// `s(P) = T(1)·[W(P)/W(1)] / T(P)`.
pub fn scaled_speedup(
    one_processor_run_time: f64,
    work_one: Work,
    work_p: Work,
    run_time_p: f64,
) -> Result<f64, ScalabilityError> {
    work_one.serial_fraction()?;
    work_p.serial_fraction()?;
    let ratio = work_p.total() / work_one.total();
    speedup(
        positive("one-processor run time", one_processor_run_time)? * ratio,
        run_time_p,
    )
}

/// Amdahl's bound `1/(α + (1−α)/P)` (paper §3; also the right side of (3): a P-processor run
/// beats one processor iff `Φ(P)` is below it).
pub fn amdahl_bound(serial_fraction: f64, processors: u32) -> Result<f64, ScalabilityError> {
    let a = serial_fraction;
    if !(0.0..=1.0).contains(&a) {
        return Err(ScalabilityError::InvalidValue {
            what: "serial fraction".into(),
            value: a,
        });
    }
    Ok(1.0 / (a + (1.0 - a) / processors_f64(processors)?))
}

/// Speedup implied by an overhead, `s(P) = 1/([α + (1−α)/P]·Φ(P))` (paper (5), with equality
/// for `Φ = Φ_s`). The system is scalable (Definition 2) iff this grows without bound.
pub fn speedup_from_overhead(
    serial_fraction: f64,
    processors: u32,
    overhead: f64,
) -> Result<f64, ScalabilityError> {
    Ok(amdahl_bound(serial_fraction, processors)? / positive("overhead", overhead)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_formulas() {
        let w = Work {
            serial: 10.0,
            parallel: 90.0,
        };
        assert_eq!(w.serial_fraction(), Ok(0.1));
        assert_eq!(sequential_run_time(2.0, w), Ok(200.0));
        assert_eq!(ideal_run_time(2.0, w, 9), Ok(40.0));
        assert_eq!(system_overhead(60.0, 40.0), Ok(1.5));
        assert_eq!(speedup(200.0, 50.0), Ok(4.0));
        // (5): s = 1/([α + (1−α)/P]·Φ_s) equals sequential/parallel for T = ideal·Φ_s.
        let t = 40.0 * 1.5;
        let s = speedup_from_overhead(0.1, 9, 1.5).unwrap();
        assert!((s - 200.0 / t).abs() < 1e-12);
        assert!((amdahl_bound(0.1, 9).unwrap() - 5.0).abs() < 1e-12);
        assert_eq!(amdahl_bound(0.0, 64), Ok(64.0));
        // Scaled speedup: work ∝ P, run time constant ⇒ speedup P.
        let w1 = Work {
            serial: 0.0,
            parallel: 100.0,
        };
        let w16 = Work {
            serial: 0.0,
            parallel: 1600.0,
        };
        assert_eq!(scaled_speedup(5.0, w1, w16, 5.0), Ok(16.0));
        // Bad input.
        assert_eq!(
            ideal_run_time(1.0, w, 0),
            Err(ScalabilityError::ZeroProcessors)
        );
        assert!(system_overhead(-1.0, 1.0).is_err());
        assert!(amdahl_bound(1.5, 2).is_err());
        assert!(
            Work {
                serial: 0.0,
                parallel: 0.0
            }
            .serial_fraction()
            .is_err()
        );
    }
}
