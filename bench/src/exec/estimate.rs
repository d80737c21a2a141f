//! How long a run will take, said before it starts when that is more than a few seconds.

use crate::units::wall_time;

/// Runs expected to take longer than this (wall time, seconds) are announced.
pub(crate) const ANNOUNCE_S: f64 = 10.0;

/// An estimate of a run's wall time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Estimate {
    /// Seconds of wall time, or NaN when nothing is known.
    pub(crate) wall_s: f64,
}

impl Estimate {
    /// Nothing known.
    pub(crate) const UNKNOWN: Self = Self { wall_s: f64::NAN };

    /// The wall time of an emulated time `emulated_s` run at dilation `dilation`, `times`
    /// times.
    pub(crate) fn emulated(emulated_s: f64, dilation: f64, times: u32) -> Self {
        Self {
            wall_s: emulated_s * dilation.max(1.0) * f64::from(times),
        }
    }

    /// The sum of two estimates (unknown parts count as nothing).
    pub(crate) fn plus(self, other: Self) -> Self {
        let v = |x: f64| if x.is_finite() { x } else { 0.0 };
        Self {
            wall_s: v(self.wall_s) + v(other.wall_s),
        }
    }

    /// Whether the run is long enough to announce.
    pub(crate) fn is_long(&self) -> bool {
        self.wall_s.is_finite() && self.wall_s > ANNOUNCE_S
    }
}

/// Says on stderr, before a long run, how long it is expected to take and why (`detail`:
/// the mode, dilation and runs the estimate assumes).
pub(crate) fn announce(what: &str, e: Estimate, detail: &str) {
    if e.is_long() {
        eprintln!(
            "{what}: expected to take about {} of wall time ({detail})",
            wall_time(e.wall_s)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_scale_with_dilation_and_runs() {
        let e = Estimate::emulated(2.0, 4.0, 3);
        assert_eq!(e.wall_s, 24.0);
        assert!(e.is_long());
        assert!(!Estimate::emulated(1.0, 1.0, 1).is_long());
        assert!(!Estimate::UNKNOWN.is_long());
        assert_eq!(Estimate::UNKNOWN.plus(e).wall_s, 24.0);
    }
}
