//! Binomial trees: broadcast, reduce, scatter and gather in ⌈lg p⌉ steps, as MPICH does them
//! (Thakur, Rabenseifner & Gropp 2005, §3.1 broadcast, §3.3 reduce, §3.4 scatter and gather).
//!
//! Ranks are relative to the root (`blocks::relative`). In a broadcast or scatter a processor
//! first receives from the rank `mask` below it (its lowest set bit), then sends to the ranks
//! `mask/2, mask/4, …, 1` above it, the largest subtree first; reduce and gather run the same
//! tree upwards, the smallest subtree first.
//!
//! Models (one step per level, each charged for its farthest pair; m bytes, b bytes a block):
//! broadcast ⌈lg p⌉(α + m·β) (§3.1), reduce ⌈lg p⌉(α + m·β + m·γ) (§3.3), scatter and gather
//! lg p·α + ((p − 1)/p)·m·β (§3.4): the step at distance 2^k carries 2^k blocks.

use multicomputer_runtime::ProcessorError;

use super::blocks::{Element, absolute, combine, padded, recv, relative, send};
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

pub(super) fn broadcast<T: Element>(
    p: &mut Proc<T>,
    root: usize,
    mut data: Vec<T>,
) -> Result<Vec<T>, ProcessorError> {
    let n = p.processors();
    let vr = relative(p.id(), root, n);
    let mut mask = parent_mask(vr, n);
    if vr != 0 {
        data = recv(p, absolute(vr - mask, root, n))?;
    }
    mask >>= 1;
    while mask > 0 {
        if vr + mask < n {
            send(p, absolute(vr + mask, root, n), data.clone())?;
        }
        mask >>= 1;
    }
    Ok(data)
}

pub(super) fn reduce<T: Element>(
    p: &mut Proc<T>,
    root: usize,
    mut data: Vec<T>,
    reduction: &Reduction<T>,
) -> Result<Vec<T>, ProcessorError> {
    let n = p.processors();
    let vr = relative(p.id(), root, n);
    let mut mask = 1;
    while mask < n {
        if vr & mask == 0 {
            let src = vr | mask;
            if src < n {
                let other = recv(p, absolute(src, root, n))?;
                combine(p, reduction, &mut data, other);
            }
        } else {
            send(p, absolute(vr & !mask, root, n), data.clone())?;
            break;
        }
        mask <<= 1;
    }
    Ok(data)
}

pub(super) fn scatter<T: Element>(
    p: &mut Proc<T>,
    root: usize,
    data: Vec<T>,
) -> Result<Vec<T>, ProcessorError> {
    let n = p.processors();
    let vr = relative(p.id(), root, n);
    // The root holds the blocks in relative-rank order; a processor holds those of its
    // subtree, [vr, vr + its size).
    let (mut held, b) = if vr == 0 {
        let (data, b) = padded(data, n);
        let mut ordered = Vec::with_capacity(data.len());
        for r in 0..n {
            let i = absolute(r, root, n);
            ordered.extend_from_slice(&data[i * b..(i + 1) * b]);
        }
        (ordered, b)
    } else {
        (Vec::new(), 0)
    };
    let mut mask = parent_mask(vr, n);
    if vr != 0 {
        held = recv(p, absolute(vr - mask, root, n))?;
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
            send(p, absolute(vr + mask, root, n), part)?;
        }
        mask >>= 1;
    }
    held.truncate(b);
    Ok(held)
}

pub(super) fn gather<T: Element>(
    p: &mut Proc<T>,
    root: usize,
    block: Vec<T>,
) -> Result<Vec<T>, ProcessorError> {
    let n = p.processors();
    let vr = relative(p.id(), root, n);
    let mut held = block;
    let mut mask = 1;
    while mask < n {
        if vr & mask == 0 {
            let src = vr | mask;
            if src < n {
                let more = recv(p, absolute(src, root, n))?;
                held.extend(more);
            }
        } else {
            send(p, absolute(vr & !mask, root, n), held)?;
            return Ok(Vec::new());
        }
        mask <<= 1;
    }
    // At the root: blocks in relative-rank order, put back in processor order.
    let b = held.len() / n;
    let mut out = vec![T::default(); held.len()];
    for r in 0..n {
        let i = absolute(r, root, n);
        out[i * b..(i + 1) * b].copy_from_slice(&held[r * b..(r + 1) * b]);
    }
    Ok(out)
}
