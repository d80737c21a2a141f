//! What every algorithm shares: the element type, blocks of a vector, relative ranks, and
//! one message or one combination with its cost.

use std::time::Duration;

use multicomputer_runtime::{Grid, ProcessorError};

use multicomputer_runtime::Wire;

use super::{Proc, Reduction};

/// What a collective's vectors hold: plain values (`Default` pads the last blocks), that can
/// cross MPI ranks ([`Wire`]: any type without the `mpi` feature).
pub trait Element: Copy + Default + Send + Wire + 'static {}

impl<T: Copy + Default + Send + Wire + 'static> Element for T {}

/// Elements per block when `n` elements are cut into `p` blocks: ⌈n/p⌉.
pub(crate) fn block_len(n: usize, p: usize) -> usize {
    n.div_ceil(p)
}

/// `data` padded with `T::default()` to `p` blocks of [`block_len`].
pub(crate) fn padded<T: Element>(mut data: Vec<T>, p: usize) -> (Vec<T>, usize) {
    let b = block_len(data.len(), p);
    data.resize(b * p, T::default());
    (data, b)
}

/// The rank of processor `r` relative to `root`: `r XOR root` on a power-of-two machine (so
/// that partners 2^k apart stay hypercube neighbours), `r − root mod p` otherwise. Its own
/// inverse is [`absolute`].
pub(crate) fn relative(r: usize, root: usize, p: usize) -> usize {
    if p.is_power_of_two() {
        r ^ root
    } else {
        (r + p - root) % p
    }
}

/// The processor of relative rank `vr`.
pub(crate) fn absolute(vr: usize, root: usize, p: usize) -> usize {
    if p.is_power_of_two() {
        vr ^ root
    } else {
        (vr + root) % p
    }
}

/// Sends `v` to processor `to`.
pub(crate) fn send<T: Element>(
    p: &mut Proc<T>,
    to: usize,
    v: Vec<T>,
) -> Result<(), ProcessorError> {
    p.send_to(to, v)
}

/// Receives the next vector from processor `from`.
pub(crate) fn recv<T: Element>(p: &mut Proc<T>, from: usize) -> Result<Vec<T>, ProcessorError> {
    p.recv_routed(Some(from)).map(|(_, v)| v)
}

/// The emulated time of combining `bytes` at γ = `gamma_ns_per_byte`, ns (rounded as the
/// models round it).
pub(crate) fn combine_ns(gamma_ns_per_byte: f64, bytes: usize) -> u64 {
    (gamma_ns_per_byte * bytes as f64).round() as u64
}

/// Combines `other` into `into` and charges it, γ per byte of `other`.
pub(crate) fn combine<T: Element>(
    p: &mut Proc<T>,
    reduction: &Reduction<T>,
    into: &mut [T],
    other: Vec<T>,
) {
    let bytes = std::mem::size_of_val(other.as_slice());
    reduction.apply(into, other);
    p.occupy(Duration::from_nanos(combine_ns(
        reduction.gamma_ns_per_byte,
        bytes,
    )));
}

/// The order of processors around the ring the ring algorithms use: on a hypercube the
/// reflected Gray code (position q is processor q XOR q/2, so ring neighbours are hypercube
/// neighbours; Kumar et al. §2.7.1, a section number from memory, unchecked), elsewhere
/// processor q at position q.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RingOrder {
    gray: bool,
    p: usize,
}

impl RingOrder {
    /// The ring order on a network of `p` processors with `grid`.
    pub(crate) fn new(grid: Option<&Grid>, p: usize) -> Self {
        let hypercube = grid.is_some_and(|g| g.wraps() && g.sizes().iter().all(|&s| s == 2));
        Self {
            gray: hypercube && p > 2,
            p,
        }
    }

    /// Processors on the ring.
    pub(crate) fn len(self) -> usize {
        self.p
    }

    /// The processor at position `q` (taken modulo p).
    pub(crate) fn at(self, q: usize) -> usize {
        let q = q % self.p;
        if self.gray { q ^ (q >> 1) } else { q }
    }

    /// The position of processor `r`.
    pub(crate) fn position(self, r: usize) -> usize {
        if !self.gray {
            return r;
        }
        let mut q = r;
        let mut shift = r >> 1;
        while shift != 0 {
            q ^= shift;
            shift >>= 1;
        }
        q
    }
}
