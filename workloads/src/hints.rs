//! What a workload tells the emulated machine about itself before a run
//! ([`Hints`]: what `auto` time mode needs to choose a dilation,
//! the buffers its protocol needs, the units of work it declares).
//!
//! Each workload's `compare` module derives its hints from its spec and model; the command
//! line puts them into its machine configuration as they are.

use std::time::Duration;

pub use multicomputer_runtime::Hints;

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
