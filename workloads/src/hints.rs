//! What a workload tells the emulated machine about itself before a run, so that `auto` time
//! mode can choose native or dilated time and a dilation factor (see the runtime's
//! `choose_dilation`), and links can buffer what the program's protocol needs.
//!
//! Each workload's `compare` module derives its hints from its spec and model; the command
//! line turns them, with the user's time mode and link costs, into one machine configuration.

use std::time::Duration;

/// A workload's hints for building its machine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MachineHints {
    /// Fraction of each processor's time spent in real (measured) compute, 0 to 1.
    pub compute_share: f64,
    /// The smallest emulated cost the program charges besides the link costs.
    pub smallest_cost: Option<Duration>,
    /// Expected wake-ups (messages to sleeping processors, deadlines) per emulated second over
    /// the whole machine.
    pub events_per_s: Option<f64>,
    /// Messages every link must buffer for the protocol not to deadlock.
    pub min_capacity: usize,
}

impl Default for MachineHints {
    /// Nothing known: no real compute, no smallest cost, no rate, capacity 1.
    fn default() -> Self {
        Self {
            compute_share: 0.0,
            smallest_cost: None,
            events_per_s: None,
            min_capacity: 1,
        }
    }
}

/// The smallest non-zero duration among `costs`, if any.
pub fn smallest_nonzero(costs: &[Duration]) -> Option<Duration> {
    costs.iter().copied().filter(|d| !d.is_zero()).min()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smallest_nonzero_skips_zeros() {
        let us = Duration::from_micros;
        assert_eq!(smallest_nonzero(&[us(0), us(50), us(7)]), Some(us(7)));
        assert_eq!(smallest_nonzero(&[us(0)]), None);
        assert_eq!(smallest_nonzero(&[]), None);
    }
}
