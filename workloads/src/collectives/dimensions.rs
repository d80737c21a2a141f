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
//! | broadcast | binomial tree from the root's coordinate | 0 first | Σ_d ⌈lg s_d⌉(α + m·β): lg p(α + m·β) on a hypercube, eq. (4.1)? |
//! | reduce | binomial tree to the root's coordinate | 0 first | Σ_d ⌈lg s_d⌉(α + m·β + m·γ), §4.1 |
//! | all-gather | ring, chunks of Π_{k<d} s_k blocks | 0 first | Σ_d (s_d − 1)α + (p − 1)·b·β: 2(√p − 1)α + (p − 1)bβ on a square mesh, eq. (4.3)?; lg p·α + (p − 1)bβ on a hypercube, eq. (4.4)? |
//! | reduce-scatter | ring, chunks of Π_{k<d} s_k blocks | last first | Σ_d (s_d − 1)α + (p − 1)·b·(β + γ), §4.2 (the dual of all-gather) |
//! | scatter | binomial tree, units of Π_{k<d} s_k blocks | last first | Σ_d ⌈lg s_d⌉α + (p − 1)·b·β (powers of two), §4.4 |
//! | gather | binomial tree, units of Π_{k<d} s_k blocks | 0 first | as scatter, §4.4 |
//!
//! The section numbers are those of the chapter's outline (§4.1 one-to-all broadcast and
//! all-to-one reduction, §4.2 all-to-all broadcast and reduction, §4.3 all-reduce and
//! prefix sum, §4.4 scatter and gather), as the authors' own slides for the chapter list
//! them. The equation numbers (4.1), (4.3) and (4.4) were written from memory and are *not
//! checked* against the book: a search of public documentation, pages and code
//! (2026-11-26) found the formulas themselves in course notes, but no copy of the text that
//! numbers them. The formulas are checked by hand in `tests`; the numbers are for finding
//! them in the book, to be confirmed there.
//!
//! The all-reduce (a ring all-reduce of the whole vector along each dimension, §4.3) is in
//! `ring`. The models in `model` add these steps up on the actual network, each charged for
//! its farthest pair; a ring along a mesh's line closes across the line (s_d − 1 hops), so
//! on a mesh the ring forms' models are upper bounds. So are the binomial forms' along a line
//! whose length is not a power of two: that tree is unbalanced (the root's first send goes to
//! a leaf), and the model charges that send as a whole step.

use multicomputer_runtime::ProcessorError;

use super::binomial;
use super::blocks::{Element, padded};
use super::lines::Dims;
use super::ring::{self, Ring};
use super::{Proc, Reduction};

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
    fn chunks_hold_the_blocks_of_the_processors_below_a_dimension() {
        // 4 × 3 × 2: processor 17 is (1, 1, 1).
        let mesh = multicomputer_runtime::Topology::parse("mesh:4x3x2").unwrap();
        let dims = Dims::of(mesh.grid(), 24);
        assert_eq!(chunk(&dims, 17, 0), (16, 4));
        assert_eq!(chunk(&dims, 17, 1), (12, 12));
        assert_eq!(chunk(&dims, 17, 2), (0, 24));
    }
}
