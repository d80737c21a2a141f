//! Ring algorithms: p − 1 steps, each processor sending one block to its right neighbour
//! (rank + 1) and receiving one from its left (Thakur, Rabenseifner & Gropp 2005: §3.2
//! all-gather by the ring, (p − 1)·α + ((p − 1)/p)·m·β; §3.5 reduce-scatter by the ring,
//! (p − 1)·α + ((p − 1)/p)·m·(β + γ); §3.6 all-reduce as their sum,
//! 2(p − 1)·α + 2((p − 1)/p)·m·β + ((p − 1)/p)·m·γ). Bandwidth-optimal: each processor sends
//! 2(p − 1)/p of the vector, whatever p. On a hypercube the ring follows the Gray code
//! (`blocks::RingOrder`), so every step is one hop.

use multicomputer_runtime::ProcessorError;

use super::blocks::{Element, RingOrder, combine, recv, send};
use super::{Proc, Reduction};

/// This processor's ring: the order, its position, and its left and right neighbours.
fn ring<T: Element>(p: &Proc<T>) -> (RingOrder, usize, usize, usize) {
    let n = p.processors();
    let order = RingOrder::new(p.grid(), n);
    let q = order.position(p.id());
    (order, q, order.at(q + n - 1), order.at(q + 1))
}

/// Processor r ends with block r combined over everyone, in `data` (padded).
pub(super) fn reduce_scatter_in_place<T: Element>(
    p: &mut Proc<T>,
    data: &mut [T],
    b: usize,
    reduction: &Reduction<T>,
) -> Result<(), ProcessorError> {
    let n = p.processors();
    let (order, q, left, right) = ring(p);
    for s in 0..n - 1 {
        let out = order.at(q + 2 * n - s - 1);
        let inn = order.at(q + 2 * n - s - 2);
        send(p, right, data[out * b..(out + 1) * b].to_vec())?;
        let got = recv(p, left)?;
        combine(p, reduction, &mut data[inn * b..(inn + 1) * b], got);
    }
    Ok(())
}

/// Block r of `data` (padded) is this processor's; everyone ends with every block.
pub(super) fn all_gather_in_place<T: Element>(
    p: &mut Proc<T>,
    data: &mut [T],
    b: usize,
) -> Result<(), ProcessorError> {
    let n = p.processors();
    let (order, q, left, right) = ring(p);
    for s in 0..n - 1 {
        let out = order.at(q + n - s);
        let inn = order.at(q + 2 * n - s - 1);
        send(p, right, data[out * b..(out + 1) * b].to_vec())?;
        let got = recv(p, left)?;
        data[inn * b..(inn + 1) * b].copy_from_slice(&got);
    }
    Ok(())
}
