//! The dimension-ordered forms: a collective on a mesh, torus or hypercube done as the
//! one-dimensional algorithm along each dimension in turn (Kumar, Grama, Gupta & Karypis,
//! *Introduction to Parallel Computing*, 2nd ed., ch. 4). On a network without a grid there
//! is one dimension, everyone in processor order.
//!
//! Processors are numbered x₀ fastest (`Grid::coordinates`), so the blocks of the processors
//! of one line along dimension d, and of everything below it, are contiguous: after the steps
//! along dimensions 0…d−1 a processor holds a chunk of Π_{k<d} s_k consecutive blocks.
//!
//! | operation | along each dimension | order | model (p = Π s_d, m bytes, b = m/p) |
//! |---|---|---|---|
//! | broadcast | binomial tree from the root's coordinate | 0 first | Σ_d ⌈lg s_d⌉(α + m·β): lg p(α + m·β) on a hypercube, eq. (4.1) |
//! | reduce | binomial tree to the root's coordinate | 0 first | Σ_d ⌈lg s_d⌉(α + m·β + m·γ), §4.1 |
//! | all-gather | ring, chunks of Π_{k<d} s_k blocks | 0 first | Σ_d (s_d − 1)α + (p − 1)·b·β: 2(√p − 1)α + (p − 1)bβ on a square mesh, eq. (4.3); lg p·α + (p − 1)bβ on a hypercube, eq. (4.4) |
//! | reduce-scatter | ring, chunks of Π_{k<d} s_k blocks | last first | Σ_d (s_d − 1)α + (p − 1)·b·(β + γ), §4.2 (the dual of all-gather) |
//! | scatter | binomial tree, units of Π_{k<d} s_k blocks | last first | Σ_d ⌈lg s_d⌉α + (p − 1)·b·β (powers of two), §4.4 |
//! | gather | binomial tree, units of Π_{k<d} s_k blocks | 0 first | as scatter, §4.4 |
//!
//! The all-reduce (a ring all-reduce of the whole vector along each dimension, §4.3) is in
//! `ring`. The models in `model` add these steps up on the actual network, each charged for
//! its farthest pair; a ring along a mesh's line closes across the line (s_d − 1 hops), so
//! on a mesh the ring forms' models are upper bounds. So are the binomial forms' along a line
//! whose length is not a power of two: that tree is unbalanced (the root's first send goes to
//! a leaf), and the model charges that send as a whole step.

use multicomputer_runtime::{Grid, ProcessorError};

use super::binomial;
use super::blocks::{Element, padded};
use super::ring::{self, Ring};
use super::{Proc, Reduction};

/// The dimensions of a network: their sizes, x₀ first (one dimension of everyone without a
/// grid).
#[derive(Debug, Clone)]
pub(crate) struct Dims {
    sizes: Vec<usize>,
}

impl Dims {
    /// The dimensions of a network of `p` processors with `grid`.
    pub(crate) fn of(grid: Option<&Grid>, p: usize) -> Self {
        Self {
            sizes: grid.map_or_else(|| vec![p], Grid::sizes),
        }
    }

    /// Number of dimensions.
    pub(crate) fn count(&self) -> usize {
        self.sizes.len()
    }

    /// The size of dimension `d`.
    pub(crate) fn size(&self, d: usize) -> usize {
        self.sizes[d]
    }

    /// Processors (and blocks) between neighbours along dimension `d`: Π_{k<d} s_k.
    pub(crate) fn stride(&self, d: usize) -> usize {
        self.sizes[..d].iter().product()
    }

    /// Processor `id`'s coordinate along dimension `d`.
    pub(crate) fn coordinate(&self, id: usize, d: usize) -> usize {
        (id / self.stride(d)) % self.sizes[d]
    }

    /// Whether processor `id` has `root`'s coordinates along every dimension in `ks`.
    pub(crate) fn agrees(
        &self,
        id: usize,
        root: usize,
        ks: impl IntoIterator<Item = usize>,
    ) -> bool {
        ks.into_iter()
            .all(|k| self.coordinate(id, k) == self.coordinate(root, k))
    }

    /// The line along dimension `d` through processor `id`.
    pub(crate) fn line(&self, id: usize, d: usize) -> Line {
        let stride = self.stride(d);
        let q = self.coordinate(id, d);
        Line {
            base: id - q * stride,
            stride,
            len: self.sizes[d],
            q,
        }
    }
}

/// A group of processors in a line: position q is processor base + q·stride.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Line {
    base: usize,
    stride: usize,
    len: usize,
    /// This processor's position.
    pub(crate) q: usize,
}

impl Line {
    /// Every processor of a machine of `p`, in processor order; this one is `id`.
    pub(crate) fn whole(p: usize, id: usize) -> Self {
        Self {
            base: 0,
            stride: 1,
            len: p,
            q: id,
        }
    }

    /// Processors on the line.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The processor at position `q`.
    pub(crate) fn member(&self, q: usize) -> usize {
        self.base + q * self.stride
    }
}

/// The dimensions of the machine `p` runs on.
fn dims<T: Element>(p: &Proc<T>) -> Dims {
    Dims::of(p.grid(), p.processors())
}

/// Broadcast: along dimension 0 on the root's line, then along 1 from every processor that
/// has it, and so on.
pub(super) fn broadcast<T: Element>(
    p: &mut Proc<T>,
    root: usize,
    mut data: Vec<T>,
) -> Result<Vec<T>, ProcessorError> {
    let (dims, id) = (dims(p), p.id());
    for d in 0..dims.count() {
        if dims.agrees(id, root, d + 1..dims.count()) {
            let line = dims.line(id, d);
            data = binomial::broadcast_in(p, &line, dims.coordinate(root, d), data)?;
        }
    }
    Ok(data)
}

/// Reduce: along dimension 0 in every line, then along 1 among the processors with the
/// root's coordinate 0, and so on.
pub(super) fn reduce<T: Element>(
    p: &mut Proc<T>,
    root: usize,
    mut data: Vec<T>,
    reduction: &Reduction<T>,
) -> Result<Vec<T>, ProcessorError> {
    let (dims, id) = (dims(p), p.id());
    for d in 0..dims.count() {
        if dims.agrees(id, root, 0..d) {
            let line = dims.line(id, d);
            data = binomial::reduce_in(p, &line, dims.coordinate(root, d), data, reduction)?;
        }
    }
    Ok(data)
}

/// Scatter: the root's line along the last dimension gets one chunk per coordinate, then
/// each holder scatters its chunk along the dimension before, down to dimension 0.
pub(super) fn scatter<T: Element>(
    p: &mut Proc<T>,
    root: usize,
    data: Vec<T>,
) -> Result<Vec<T>, ProcessorError> {
    let (dims, id) = (dims(p), p.id());
    let mut held = binomial::scattered(p, root, data);
    for d in (0..dims.count()).rev() {
        if dims.agrees(id, root, 0..d) {
            let line = dims.line(id, d);
            held = binomial::scatter_in(p, &line, dims.coordinate(root, d), held)?;
        }
    }
    Ok(held)
}

/// Gather: along dimension 0 to the root's coordinate, then along 1, and so on; the root
/// returns the vector, the others an empty one.
pub(super) fn gather<T: Element>(
    p: &mut Proc<T>,
    root: usize,
    mut held: Vec<T>,
) -> Result<Vec<T>, ProcessorError> {
    let (dims, id) = (dims(p), p.id());
    for d in 0..dims.count() {
        if !dims.agrees(id, root, 0..d) {
            return Ok(Vec::new());
        }
        let line = dims.line(id, d);
        held = binomial::gather_in(p, &line, dims.coordinate(root, d), held)?;
    }
    Ok(if id == root { held } else { Vec::new() })
}

/// The chunk of blocks a processor works on along dimension `d`: those of the processors
/// that share its coordinates above d, [start, start + Π_{k≤d} s_k) in blocks.
fn chunk(dims: &Dims, id: usize, d: usize) -> (usize, usize) {
    let len = dims.stride(d) * dims.size(d);
    ((id / len) * len, len)
}

/// All-gather: a ring along each line of dimension 0, then 1, …, the chunks growing by the
/// dimension's size each time.
pub(super) fn all_gather<T: Element>(
    p: &mut Proc<T>,
    block: Vec<T>,
) -> Result<Vec<T>, ProcessorError> {
    let (dims, id, n) = (dims(p), p.id(), p.processors());
    let b = block.len();
    let mut data = vec![T::default(); n * b];
    data[id * b..(id + 1) * b].copy_from_slice(&block);
    for d in (0..dims.count()).filter(|&d| dims.size(d) > 1) {
        let (start, len) = chunk(&dims, id, d);
        let ring = Ring::of_line(&dims.line(id, d));
        let unit = dims.stride(d) * b;
        ring::all_gather_in_place(p, &ring, &mut data[start * b..(start + len) * b], unit)?;
    }
    Ok(data)
}

/// Reduce-scatter: a ring along each line of the last dimension, then the one before, …,
/// the chunks shrinking by the dimension's size each time.
pub(super) fn reduce_scatter<T: Element>(
    p: &mut Proc<T>,
    data: Vec<T>,
    reduction: &Reduction<T>,
) -> Result<Vec<T>, ProcessorError> {
    let (dims, id, n) = (dims(p), p.id(), p.processors());
    let (mut data, b) = padded(data, n);
    for d in (0..dims.count()).rev().filter(|&d| dims.size(d) > 1) {
        let (start, len) = chunk(&dims, id, d);
        let ring = Ring::of_line(&dims.line(id, d));
        let unit = dims.stride(d) * b;
        let part = &mut data[start * b..(start + len) * b];
        ring::reduce_scatter_in_place(p, &ring, part, unit, reduction)?;
    }
    Ok(data[id * b..(id + 1) * b].to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_chunks_follow_x_fastest_numbering() {
        // 4 × 3 × 2: processor 17 is (1, 1, 1).
        let dims = Dims {
            sizes: vec![4, 3, 2],
        };
        assert_eq!(
            (0..3).map(|d| dims.coordinate(17, d)).collect::<Vec<_>>(),
            [1, 1, 1]
        );
        let y = dims.line(17, 1);
        assert_eq!(
            (0..3).map(|q| y.member(q)).collect::<Vec<_>>(),
            [13, 17, 21]
        );
        assert_eq!(y.q, 1);
        assert_eq!(chunk(&dims, 17, 0), (16, 4));
        assert_eq!(chunk(&dims, 17, 1), (12, 12));
        assert_eq!(chunk(&dims, 17, 2), (0, 24));
        assert!(dims.agrees(17, 5, [0, 1]));
        assert!(!dims.agrees(17, 5, [2]));
    }
}
