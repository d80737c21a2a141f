//! Binomial trees: broadcast, reduce, scatter and gather in ⌈lg p⌉ steps, as MPICH does them
//! (Thakur, Rabenseifner & Gropp 2005, §3.1 broadcast, §3.3 reduce, §3.4 scatter and gather).
//!
//! Each runs among the processors of a [`Line`] (the whole machine, or one line of a grid for
//! the dimension-ordered forms), the root given by its position there. Ranks are relative to
//! the root (`blocks::relative`). In a broadcast or scatter a processor
//! first receives from the rank `mask` below it (its lowest set bit), then sends to the ranks
//! `mask/2, mask/4, …, 1` above it, the largest subtree first; reduce and gather run the same
//! tree upwards, the smallest subtree first.
//!
//! Models (one step per level, each charged for its farthest pair; m bytes, b bytes a block):
//! broadcast ⌈lg p⌉(α + m·β) (§3.1), reduce ⌈lg p⌉(α + m·β + m·γ) (§3.3), scatter and gather
//! lg p·α + ((p − 1)/p)·m·β (§3.4): the step at distance 2^k carries 2^k blocks.

use multicomputer_runtime::ProcessorError;

use super::blocks::{Element, absolute, combine, padded, recv, relative, send};
use super::lines::Line;
use super::{Proc, Reduction};

/// The lowest set bit of `vr` (its parent is `vr − mask`), or the first power of two ≥ p at
/// the root.
fn parent_mask(vr: usize, p: usize) -> usize {
    let mut mask = 1;
    while mask < p {
        if vr & mask != 0 {
            return mask;
        }
        mask <<= 1;
    }
    mask
}

/// Broadcasts `data` from processor `root` to every processor.
pub(super) fn broadcast<T: Element>(
    p: &mut Proc<T>,
    root: usize,
    data: Vec<T>,
) -> Result<Vec<T>, ProcessorError> {
    let line = Line::whole(p.processors(), p.id());
    broadcast_in(p, &line, root, data)
}

/// Broadcasts `data` from position `root` of `line` to its every position.
pub(super) fn broadcast_in<T: Element>(
    p: &mut Proc<T>,
    line: &Line,
    root: usize,
    mut data: Vec<T>,
) -> Result<Vec<T>, ProcessorError> {
    let n = line.len();
    let at = |vr| line.member(absolute(vr, root, n));
    let vr = relative(line.q, root, n);
    let mut mask = parent_mask(vr, n);
    if vr != 0 {
        data = recv(p, at(vr - mask))?;
    }
    mask >>= 1;
    while mask > 0 {
        if vr + mask < n {
            send(p, at(vr + mask), data.clone())?;
        }
        mask >>= 1;
    }
    Ok(data)
}

/// Reduces everyone's `data` at processor `root`.
pub(super) fn reduce<T: Element>(
    p: &mut Proc<T>,
    root: usize,
    data: Vec<T>,
    reduction: &Reduction<T>,
) -> Result<Vec<T>, ProcessorError> {
    let line = Line::whole(p.processors(), p.id());
    reduce_in(p, &line, root, data, reduction)
}

/// Reduces the `data` of `line`'s processors at its position `root`.
pub(super) fn reduce_in<T: Element>(
    p: &mut Proc<T>,
    line: &Line,
    root: usize,
    mut data: Vec<T>,
    reduction: &Reduction<T>,
) -> Result<Vec<T>, ProcessorError> {
    let n = line.len();
    let at = |vr| line.member(absolute(vr, root, n));
    let vr = relative(line.q, root, n);
    let mut mask = 1;
    while mask < n {
        if vr & mask == 0 {
            let src = vr | mask;
            if src < n {
                let other = recv(p, at(src))?;
                combine(p, reduction, &mut data, other);
            }
        } else {
            send(p, at(vr & !mask), data.clone())?;
            break;
        }
        mask <<= 1;
    }
    Ok(data)
}

/// Scatters processor `root`'s `data` (p blocks, padded): processor i returns block i.
pub(super) fn scatter<T: Element>(
    p: &mut Proc<T>,
    root: usize,
    data: Vec<T>,
) -> Result<Vec<T>, ProcessorError> {
    let held = scattered(p, root, data);
    scatter_in(p, &Line::whole(p.processors(), p.id()), root, held)
}

/// What a scatter starts from: at `root`, its `data` padded to p blocks; elsewhere nothing.
pub(super) fn scattered<T: Element>(p: &Proc<T>, root: usize, data: Vec<T>) -> Vec<T> {
    if p.id() == root {
        padded(data, p.processors()).0
    } else {
        Vec::new()
    }
}

/// Scatters `held` (at `line`'s position `root`: one equal unit per position, in position
/// order; elsewhere ignored): position q returns unit q.
pub(super) fn scatter_in<T: Element>(
    p: &mut Proc<T>,
    line: &Line,
    root: usize,
    held: Vec<T>,
) -> Result<Vec<T>, ProcessorError> {
    let n = line.len();
    let at = |vr| line.member(absolute(vr, root, n));
    let vr = relative(line.q, root, n);
    // The root holds the units in relative-rank order; a processor holds those of its
    // subtree, [vr, vr + its size).
    let (mut held, b) = if vr == 0 {
        let b = held.len() / n;
        let mut ordered = Vec::with_capacity(held.len());
        for r in 0..n {
            let i = absolute(r, root, n);
            ordered.extend_from_slice(&held[i * b..(i + 1) * b]);
        }
        (ordered, b)
    } else {
        (Vec::new(), 0)
    };
    let mut mask = parent_mask(vr, n);
    if vr != 0 {
        held = recv(p, at(vr - mask))?;
    }
    let b = if vr == 0 {
        b
    } else {
        held.len() / mask.min(n - vr)
    };
    mask >>= 1;
    while mask > 0 {
        if vr + mask < n {
            let count = mask.min(n - vr - mask);
            let part = held[mask * b..(mask + count) * b].to_vec();
            send(p, at(vr + mask), part)?;
        }
        mask >>= 1;
    }
    held.truncate(b);
    Ok(held)
}

/// Gathers every processor's `block` at processor `root`, in processor order.
pub(super) fn gather<T: Element>(
    p: &mut Proc<T>,
    root: usize,
    block: Vec<T>,
) -> Result<Vec<T>, ProcessorError> {
    gather_in(p, &Line::whole(p.processors(), p.id()), root, block)
}

/// Gathers the equal units `held` of `line`'s positions at its position `root`, which
/// returns them in position order; the others return an empty vector.
pub(super) fn gather_in<T: Element>(
    p: &mut Proc<T>,
    line: &Line,
    root: usize,
    block: Vec<T>,
) -> Result<Vec<T>, ProcessorError> {
    let n = line.len();
    let at = |vr| line.member(absolute(vr, root, n));
    let vr = relative(line.q, root, n);
    let mut held = block;
    let mut mask = 1;
    while mask < n {
        if vr & mask == 0 {
            let src = vr | mask;
            if src < n {
                let more = recv(p, at(src))?;
                held.extend(more);
            }
        } else {
            send(p, at(vr & !mask), held)?;
            return Ok(Vec::new());
        }
        mask <<= 1;
    }
    // At the root: units in relative-rank order, put back in position order.
    let b = held.len() / n;
    let mut out = vec![T::default(); held.len()];
    for r in 0..n {
        let i = absolute(r, root, n);
        out[i * b..(i + 1) * b].copy_from_slice(&held[r * b..(r + 1) * b]);
    }
    Ok(out)
}
