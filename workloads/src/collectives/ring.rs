//! Ring algorithms: p − 1 steps, each processor sending one block to its right neighbour
//! (rank + 1) and receiving one from its left (Thakur, Rabenseifner & Gropp 2005: §3.2
//! all-gather by the ring, (p − 1)·α + ((p − 1)/p)·m·β; §3.5 reduce-scatter by the ring,
//! (p − 1)·α + ((p − 1)/p)·m·(β + γ); §3.6 all-reduce as their sum,
//! 2(p − 1)·α + 2((p − 1)/p)·m·β + ((p − 1)/p)·m·γ). Bandwidth-optimal: each processor sends
//! 2(p − 1)/p of the vector, whatever p. On a hypercube the ring follows the Gray code
//! (`blocks::RingOrder`), so every step is one hop.

use multicomputer_runtime::ProcessorError;

use super::blocks::{Element, RingOrder, combine, padded, recv, send};
use super::lines::{Dims, Line};
use super::{Proc, Reduction};

/// A ring of processors this processor is on: who is at each position, which block each
/// position owns, and this processor's position.
pub(super) struct Ring {
    members: Vec<usize>,
    blocks: Vec<usize>,
    q: usize,
}

impl Ring {
    /// The whole machine, in [`RingOrder`]; position q owns the block of its processor.
    pub(super) fn whole<T: Element>(p: &Proc<T>) -> Self {
        let n = p.processors();
        let order = RingOrder::new(p.grid(), n);
        let members: Vec<usize> = (0..n).map(|q| order.at(q)).collect();
        Self {
            blocks: members.clone(),
            q: order.position(p.id()),
            members,
        }
    }

    /// The processors of `line`, by position; position q owns block q.
    pub(super) fn of_line(line: &Line) -> Self {
        Self {
            members: (0..line.len()).map(|q| line.member(q)).collect(),
            blocks: (0..line.len()).collect(),
            q: line.q,
        }
    }

    /// Processors on the ring.
    pub(super) fn len(&self) -> usize {
        self.members.len()
    }

    fn left(&self) -> usize {
        self.members[(self.q + self.len() - 1) % self.len()]
    }

    fn right(&self) -> usize {
        self.members[(self.q + 1) % self.len()]
    }

    /// The block owned by the position `shift` after this one (mod the ring).
    fn block(&self, shift: usize) -> usize {
        self.blocks[(self.q + shift) % self.len()]
    }
}

/// Each position ends with its block combined over the ring, in `data` (padded).
pub(super) fn reduce_scatter_in_place<T: Element>(
    p: &mut Proc<T>,
    ring: &Ring,
    data: &mut [T],
    b: usize,
    reduction: &Reduction<T>,
) -> Result<(), ProcessorError> {
    let n = ring.len();
    for s in 0..n - 1 {
        let out = ring.block(2 * n - s - 1);
        let inn = ring.block(2 * n - s - 2);
        send(p, ring.right(), data[out * b..(out + 1) * b].to_vec())?;
        let got = recv(p, ring.left())?;
        combine(p, reduction, &mut data[inn * b..(inn + 1) * b], got);
    }
    Ok(())
}

/// This position's block of `data` (padded) is complete; everyone on the ring ends with every
/// block.
pub(super) fn all_gather_in_place<T: Element>(
    p: &mut Proc<T>,
    ring: &Ring,
    data: &mut [T],
    b: usize,
) -> Result<(), ProcessorError> {
    let n = ring.len();
    for s in 0..n - 1 {
        let out = ring.block(n - s);
        let inn = ring.block(2 * n - s - 1);
        send(p, ring.right(), data[out * b..(out + 1) * b].to_vec())?;
        let got = recv(p, ring.left())?;
        data[inn * b..(inn + 1) * b].copy_from_slice(&got);
    }
    Ok(())
}

/// The dimension-ordered all-reduce of a grid: a ring all-reduce along each dimension in
/// turn, x first (Kumar et al. §4.3: all-to-all reduction on a mesh, row then column; on a
/// torus every ring step is one hop). On a network without a grid, one ring of everyone.
pub(super) fn dimension_ordered_all_reduce<T: Element>(
    p: &mut Proc<T>,
    data: Vec<T>,
    reduction: &Reduction<T>,
) -> Result<Vec<T>, ProcessorError> {
    let len = data.len();
    let rings: Vec<Ring> = match p.grid() {
        Some(grid) => {
            let dims = Dims::of(Some(grid), p.processors());
            (0..dims.count())
                .map(|d| Ring::of_line(&dims.line(p.id(), d)))
                .collect()
        }
        None => vec![Ring::whole(p)],
    };
    let mut data = data;
    for ring in rings.iter().filter(|r| r.len() > 1) {
        let (mut padded_data, b) = padded(data, ring.len());
        reduce_scatter_in_place(p, ring, &mut padded_data, b, reduction)?;
        all_gather_in_place(p, ring, &mut padded_data, b)?;
        padded_data.truncate(len);
        data = padded_data;
    }
    Ok(data)
}
