//! The kernels' units of work as the baselines share them.

use crate::farm::count_primes;

/// Task `i` of the prime kernel: the primes in `[i·grain, (i+1)·grain)`.
#[inline]
pub(crate) fn primes_task(i: u64, grain: u64) -> u64 {
    count_primes(i * grain, grain)
}

/// The OCL stream with the zero padding of §2.1 in front: `N − 1` zeros, then `A`.
pub(crate) fn padded_stream(a: &[i64], window: usize) -> Vec<i64> {
    let mut padded = vec![0; window.saturating_sub(1)];
    padded.extend_from_slice(a);
    padded
}

/// `B(i)` for `i = first, first + 1, …` into `out`: how often `A(i)` occurs among the `N`
/// values `A(i − N + 1 ..= i)` of the padded stream — the same `N` comparisons an output costs
/// the array.
pub(crate) fn ocl_count_into(padded: &[i64], window: usize, first: usize, out: &mut [u64]) {
    for (k, b) in out.iter_mut().enumerate() {
        let i = first + k;
        let values = &padded[i..i + window];
        let last = values[window - 1];
        *b = values.iter().filter(|&&v| v == last).count() as u64;
    }
}
