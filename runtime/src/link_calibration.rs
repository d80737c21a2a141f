//! This host's own cost of a message over a real link, as `α + β·m`: the start-up `α` per
//! message and the time `β` per byte of the runtime's native links, between two processors
//! on pinned threads, fitted by least squares over message sizes.
//!
//! `calibrate` saves the fit in the machine profile ([`crate::MachineProfile::link`]); a
//! native run whose links were given no costs can take them as its link costs, so that its
//! model charges what a message costs on this host.
//!
//! The protocol, one size `m` at a time:
//! 1. [`ping_pong`]: processor 0 copies `m` bytes out of its buffer into a message, sends it,
//!    and copies the reply into its buffer; processor 1 does the same the other way. A
//!    message is copied out of its sender's memory and into its receiver's, as a collective's
//!    block is, so `β` is the copies and the bytes' way from one core's cache to the other's.
//! 2. One sample is `rounds` round trips (enough for tens of microseconds), halved.
//! 3. The median of the samples is the size's one-way time; half their interquartile range
//!    its spread.
//! 4. [`fit_line`]: the least-squares line through the sizes' medians, by relative error
//!    (weights `1/y²`), with the standard errors of `α` and `β` and the residuals' spread.

use std::time::Instant;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::{
    ConfigError, Machine, MachineConfig, ProcessorError, RunError, TimeMode, Topology, WaitStrategy,
};

/// Message sizes the fit runs through, bytes: 8 B to 1 MiB, ×4 a step.
pub const LINK_SIZES: [u64; 10] = [
    8,
    64,
    1 << 10,
    1 << 12,
    1 << 14,
    1 << 16,
    1 << 17,
    1 << 18,
    1 << 19,
    1 << 20,
];

/// One size's one-way time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LinkPoint {
    /// Message size, bytes.
    pub bytes: u64,
    /// Median one-way time, ns.
    pub one_way_ns: f64,
    /// Half the interquartile range of the samples, ns.
    pub spread_ns: f64,
}

/// A least-squares line `y = intercept + slope·x` with its standard errors.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LineFit {
    /// The intercept.
    pub intercept: f64,
    /// The slope.
    pub slope: f64,
    /// Standard error of the intercept.
    pub intercept_se: f64,
    /// Standard error of the slope.
    pub slope_se: f64,
    /// Standard deviation of the residuals (`n − 2` degrees of freedom).
    pub residual_sd: f64,
}

/// The runtime's message cost on this host: `α + β·m`, fitted over [`LINK_SIZES`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkCalibration {
    /// `α`: start-up per message, ns.
    pub alpha_ns: f64,
    /// `β`: time per byte, ns.
    pub beta_ns_per_byte: f64,
    /// The fit, with the standard errors of `α` (intercept) and `β` (slope).
    pub fit: LineFit,
    /// The measured sizes.
    pub points: Vec<LinkPoint>,
    /// Samples per size.
    pub samples: usize,
}

/// Why the link could not be calibrated.
#[derive(Debug, Error)]
pub enum LinkCalibrationError {
    /// Two processors on pinned threads cannot run here (fewer than two cores).
    #[error("two native processors cannot run here: {0}")]
    Machine(#[from] ConfigError),
    /// The ping-pong failed.
    #[error("the ping-pong failed: {0}")]
    Run(#[from] RunError),
    /// The two-processor chain could not be built (a bug).
    #[error(transparent)]
    Topology(#[from] crate::TopologyError),
}

/// The weighted least-squares line through `points` (`x`, `y`, weight `w > 0`): it
/// minimises `Σ w (y − a − b x)²`. With `w = 1/y²` it fits relative errors, so that sizes
/// a thousand times apart weigh alike (the largest does not set the line alone). The
/// standard errors take the weighted residuals' variance `s² = Σ w r²/(n − 2)`:
/// `se(b)² = s²/S_xx`, `se(a)² = s² (1/Σw + x̄²/S_xx)` with weighted means and
/// `S_xx = Σ w (x − x̄)²`; `residual_sd` is `s`. `None` for fewer than three points, a weight
/// that is not positive, or points that all share one `x`.
pub fn fit_line(points: &[(f64, f64, f64)]) -> Option<LineFit> {
    if points.len() < 3 || points.iter().any(|p| !(p.2 > 0.0 && p.2.is_finite())) {
        return None;
    }
    let n = points.len() as f64;
    let sw: f64 = points.iter().map(|p| p.2).sum();
    let mx = points.iter().map(|p| p.2 * p.0).sum::<f64>() / sw;
    let my = points.iter().map(|p| p.2 * p.1).sum::<f64>() / sw;
    let sxx: f64 = points.iter().map(|p| p.2 * (p.0 - mx).powi(2)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let sxy: f64 = points.iter().map(|p| p.2 * (p.0 - mx) * (p.1 - my)).sum();
    let slope = sxy / sxx;
    let intercept = my - slope * mx;
    let sse: f64 = points
        .iter()
        .map(|p| p.2 * (p.1 - intercept - slope * p.0).powi(2))
        .sum();
    let s2 = sse / (n - 2.0);
    Some(LineFit {
        intercept,
        slope,
        intercept_se: (s2 * (1.0 / sw + mx * mx / sxx)).sqrt(),
        slope_se: (s2 / sxx).sqrt(),
        residual_sd: s2.sqrt(),
    })
}

/// Round trips in one sample of `bytes`: about 1 MiB copied each way, at least one.
fn rounds(bytes: u64) -> u64 {
    ((1 << 20) / (bytes + 4096)).max(1)
}

/// Step 1: `samples` samples of `rounds` round trips of `bytes`-byte messages between the
/// two processors of `machine`, as one-way times in ns (processor 0's clock).
fn ping_pong(
    machine: &Machine,
    bytes: u64,
    samples: usize,
) -> Result<Vec<f64>, LinkCalibrationError> {
    let m = usize::try_from(bytes).unwrap_or(usize::MAX);
    let rounds = rounds(bytes);
    let record = machine.run(|p: &mut crate::Processor<Vec<u8>>| {
        let link = p.links()[0];
        let starts = p.parent().is_none();
        let mut buffer = vec![p.id() as u8; m];
        let mut one_way = Vec::with_capacity(samples);
        for _ in 0..samples {
            let start = Instant::now();
            for _ in 0..rounds {
                if starts {
                    p.send(link, buffer.clone())?;
                }
                let got = p.recv(link)?;
                buffer.copy_from_slice(&got);
                if !starts {
                    p.send(link, buffer.clone())?;
                }
            }
            one_way.push(start.elapsed().as_nanos() as f64 / (2 * rounds) as f64);
        }
        Ok::<_, ProcessorError>(one_way)
    })?;
    let root = machine.topology().root();
    Ok(record.results.into_iter().nth(root).unwrap_or_default())
}

/// The machine a ping-pong measures the runtime's link on, here and in `multicomputer
/// pingpong`: two processors on a chain in native time (a pinned thread each), spinning
/// waits, links of capacity 1. Fails where two processors cannot run natively.
pub fn pingpong_machine() -> Result<Machine, LinkCalibrationError> {
    let config = MachineConfig {
        mode: TimeMode::Native,
        wait: WaitStrategy::Spin,
        capacity: 1,
        ..MachineConfig::default()
    };
    Ok(Machine::new(Topology::chain(2)?, config)?)
}

/// Steps 2–4: measures the runtime's native link between two pinned processors
/// ([`pingpong_machine`]) with `samples` samples per size (at least 5) and fits `α + β·m`.
pub fn calibrate_link(samples: usize) -> Result<LinkCalibration, LinkCalibrationError> {
    let samples = samples.max(5);
    let machine = pingpong_machine()?;
    let mut points = Vec::with_capacity(LINK_SIZES.len());
    for bytes in LINK_SIZES {
        let mut v = ping_pong(&machine, bytes, samples)?;
        v.sort_by(f64::total_cmp);
        let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
        points.push(LinkPoint {
            bytes,
            one_way_ns: at(0.5),
            spread_ns: (at(0.75) - at(0.25)) / 2.0,
        });
    }
    // Relative errors: each size's median weighs by 1/y².
    let xyw: Vec<(f64, f64, f64)> = points
        .iter()
        .map(|p| (p.bytes as f64, p.one_way_ns, p.one_way_ns.max(1.0).powi(-2)))
        .collect();
    let fit = fit_line(&xyw).expect("ten distinct sizes, positive weights");
    Ok(LinkCalibration {
        alpha_ns: fit.intercept,
        beta_ns_per_byte: fit.slope,
        fit,
        points,
        samples,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fit_recovers_a_line_and_its_spread_by_hand() {
        // y = 100 + 2x exactly: no spread, whatever the weights.
        let exact: Vec<(f64, f64, f64)> = [0.0, 1.0, 2.0, 3.0]
            .iter()
            .map(|&x| (x, 100.0 + 2.0 * x, 1.0 / (1.0 + x)))
            .collect();
        let f = fit_line(&exact).unwrap();
        assert!((f.intercept - 100.0).abs() < 1e-12 && (f.slope - 2.0).abs() < 1e-12);
        assert!(f.residual_sd.abs() < 1e-12 && f.slope_se.abs() < 1e-12);
        // Unit weights, (0, 1), (1, 3), (2, 2), (3, 4): x̄ = 1.5, ȳ = 2.5, Sxx = 5, Sxy = 4,
        // slope 0.8, intercept 1.3; residuals −0.3, 0.9, −0.9, 0.3: SSE = 1.8, s² = 0.9,
        // se(slope) = √(0.9/5), se(intercept) = √(0.9 (1/4 + 2.25/5)) = √0.63.
        let one = |x: f64, y: f64| (x, y, 1.0);
        let f = fit_line(&[one(0.0, 1.0), one(1.0, 3.0), one(2.0, 2.0), one(3.0, 4.0)]).unwrap();
        assert!((f.slope - 0.8).abs() < 1e-12 && (f.intercept - 1.3).abs() < 1e-12);
        assert!((f.residual_sd - 0.9_f64.sqrt()).abs() < 1e-12);
        assert!((f.slope_se - 0.18_f64.sqrt()).abs() < 1e-12);
        assert!((f.intercept_se - 0.63_f64.sqrt()).abs() < 1e-12);
        // A weight of 2 counts as the point twice (the line, not the spread's n): (0, 0) twice,
        // (1, 1), (2, 1): x̄ = 0.75, ȳ = 0.5, Sxx = 2.75, Sxy = 1.5, slope 6/11, intercept
        // 0.5 − 0.75·6/11 = 1/11.
        let f = fit_line(&[(0.0, 0.0, 2.0), (1.0, 1.0, 1.0), (2.0, 1.0, 1.0)]).unwrap();
        assert!((f.slope - 6.0 / 11.0).abs() < 1e-12, "{f:?}");
        assert!((f.intercept - 1.0 / 11.0).abs() < 1e-12, "{f:?}");
        // Too few points, one x only, or a weight that is not positive.
        assert!(fit_line(&[one(0.0, 1.0), one(1.0, 2.0)]).is_none());
        assert!(fit_line(&[one(1.0, 1.0), one(1.0, 2.0), one(1.0, 3.0)]).is_none());
        assert!(fit_line(&[one(0.0, 1.0), one(1.0, 2.0), (2.0, 3.0, 0.0)]).is_none());
    }

    #[test]
    fn samples_copy_about_a_mebibyte() {
        assert_eq!(rounds(8), 255);
        assert_eq!(rounds(1 << 20), 1);
        assert_eq!(rounds(1 << 16), 15);
    }

    #[test]
    fn a_native_link_is_measured_at_every_size_and_fitted() {
        // Two cores are needed; where there are fewer the machine says so.
        match calibrate_link(5) {
            Ok(c) => {
                assert_eq!(c.points.len(), LINK_SIZES.len());
                let sizes: Vec<u64> = c.points.iter().map(|p| p.bytes).collect();
                assert_eq!(sizes, LINK_SIZES);
                assert_eq!(c.samples, 5);
                assert_eq!(
                    (c.alpha_ns, c.beta_ns_per_byte),
                    (c.fit.intercept, c.fit.slope)
                );
            }
            Err(LinkCalibrationError::Machine(_)) => {}
            Err(e) => panic!("{e}"),
        }
    }
}
