//! All-to-all by pairwise exchange and the dissemination barrier (Thakur, Rabenseifner &
//! Gropp 2005, §3.7: pairwise exchange, (p − 1)·α + ((p − 1)/p)·m·β, step k with partner
//! r XOR k when p is a power of two, else sending to r + k and receiving from r − k; the
//! barrier by dissemination, ⌈lg p⌉·α: rounds of empty messages to r + 2^k, Hensgen, Finkel &
//! Manber 1988, or with p a power of two to r XOR 2^k, the butterfly barrier, whose partners
//! are hypercube neighbours).

use multicomputer_runtime::ProcessorError;

use super::Proc;
use super::blocks::{Element, padded, recv, send};

/// The partners of step `k` (1 ≤ k < p): where this processor sends, and whence it receives.
pub(super) fn pairwise_partners(r: usize, k: usize, p: usize) -> (usize, usize) {
    if p.is_power_of_two() {
        (r ^ k, r ^ k)
    } else {
        ((r + k) % p, (r + p - k) % p)
    }
}

pub(super) fn all_to_all<T: Element>(
    p: &mut Proc<T>,
    data: Vec<T>,
) -> Result<Vec<T>, ProcessorError> {
    let (n, r) = (p.processors(), p.id());
    let (data, b) = padded(data, n);
    let mut out = vec![T::default(); n * b];
    out[r * b..(r + 1) * b].copy_from_slice(&data[r * b..(r + 1) * b]);
    for k in 1..n {
        let (to, from) = pairwise_partners(r, k, n);
        send(p, to, data[to * b..(to + 1) * b].to_vec())?;
        let got = recv(p, from)?;
        out[from * b..(from + 1) * b].copy_from_slice(&got);
    }
    Ok(out)
}

/// The partners of barrier round `distance` (1, 2, 4, …): r XOR distance when p is a power of
/// two (the butterfly, hypercube neighbours), else r + distance and r − distance.
pub(super) fn barrier_partners(r: usize, distance: usize, p: usize) -> (usize, usize) {
    if p.is_power_of_two() {
        (r ^ distance, r ^ distance)
    } else {
        ((r + distance) % p, (r + p - distance) % p)
    }
}

pub(super) fn barrier<T: Element>(p: &mut Proc<T>) -> Result<(), ProcessorError> {
    let (n, r) = (p.processors(), p.id());
    let mut distance = 1;
    while distance < n {
        let (to, from) = barrier_partners(r, distance, n);
        send(p, to, Vec::new())?;
        recv(p, from)?;
        distance <<= 1;
    }
    Ok(())
}
