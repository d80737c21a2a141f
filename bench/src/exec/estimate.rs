//! How long a run will take, said before it starts when that is more than a few seconds.

use crate::units::wall_time;

/// Runs expected to take longer than this (wall time, seconds) are announced.
pub(crate) const ANNOUNCE_S: f64 = 10.0;

/// Wall time of one event in virtual time (a message delivered or a timed wait ended), on
/// large machines of the development host (docs/results/virtual-time.md: 2–9 M events/s).
pub(crate) const VIRTUAL_EVENT_S: f64 = 0.5e-6;

/// An estimate of a run's wall time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Estimate {
    /// Seconds of wall time, or NaN when nothing is known.
    pub(crate) wall_s: f64,
}

impl Estimate {
    /// Nothing known.
    pub(crate) const UNKNOWN: Self = Self { wall_s: f64::NAN };

    /// The wall time of a run of emulated time `emulated_s`, `times` times: D × that on
    /// threads (`dilation` some); in virtual time (`dilation` none), its events — the expected
    /// rate `events_per_s` (emulated) over the emulated time — at [`VIRTUAL_EVENT_S`] each,
    /// unknown without a rate.
    pub(crate) fn emulated(
        emulated_s: f64,
        dilation: Option<f64>,
        events_per_s: Option<f64>,
        times: u32,
    ) -> Self {
        let once = match (dilation, events_per_s) {
            (Some(d), _) => emulated_s * d.max(1.0),
            (None, Some(rate)) => emulated_s * rate * VIRTUAL_EVENT_S,
            (None, None) => f64::NAN,
        };
        Self {
            wall_s: once * f64::from(times),
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
        let e = Estimate::emulated(2.0, Some(4.0), None, 3);
        assert_eq!(e.wall_s, 24.0);
        assert!(e.is_long());
        assert!(!Estimate::emulated(1.0, Some(1.0), None, 1).is_long());
        // Virtual time: 100 s emulated at 10⁶ events per second, 0.5 µs an event.
        let v = Estimate::emulated(100.0, None, Some(1e6), 1);
        assert!((v.wall_s - 50.0).abs() < 1e-9);
        assert!(!Estimate::emulated(100.0, None, None, 1).is_long());
        assert!(!Estimate::UNKNOWN.is_long());
        assert_eq!(Estimate::UNKNOWN.plus(e).wall_s, 24.0);
    }
}
