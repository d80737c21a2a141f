//! Recursive doubling and halving, for p a power of two: in step k a processor exchanges with
//! the partner whose rank differs in bit k, a hypercube neighbour (Thakur, Rabenseifner &
//! Gropp 2005: §3.2 all-gather by recursive doubling, lg p·α + ((p − 1)/p)·m·β; §3.5
//! reduce-scatter by recursive halving, lg p·α + ((p − 1)/p)·m·(β + γ); §3.6 all-reduce by
//! recursive doubling, lg p·(α + m·β + m·γ), and Rabenseifner's algorithm, halving then
//! doubling, 2 lg p·α + 2((p − 1)/p)·m·β + ((p − 1)/p)·m·γ).

use multicomputer_runtime::ProcessorError;

use super::blocks::{Element, combine, recv, send};
use super::{Proc, Reduction};

pub(super) fn doubling_all_reduce<T: Element>(
    p: &mut Proc<T>,
    mut data: Vec<T>,
    reduction: &Reduction<T>,
) -> Result<Vec<T>, ProcessorError> {
    let (n, r) = (p.processors(), p.id());
    let mut mask = 1;
    while mask < n {
        let partner = r ^ mask;
        send(p, partner, data.clone())?;
        let got = recv(p, partner)?;
        combine(p, reduction, &mut data, got);
        mask <<= 1;
    }
    Ok(data)
}

/// Halving: blocks [lo, lo + span) held, partner at distance span/2 takes the half without
/// r's block. Ends with block r combined over everyone, in `data`.
pub(super) fn halving_in_place<T: Element>(
    p: &mut Proc<T>,
    data: &mut [T],
    b: usize,
    reduction: &Reduction<T>,
) -> Result<(), ProcessorError> {
    let (n, r) = (p.processors(), p.id());
    let (mut lo, mut span) = (0, n);
    while span > 1 {
        let half = span / 2;
        let partner = r ^ half;
        let (keep, give) = if r & half == 0 {
            (lo, lo + half)
        } else {
            (lo + half, lo)
        };
        send(p, partner, data[give * b..(give + half) * b].to_vec())?;
        let got = recv(p, partner)?;
        combine(p, reduction, &mut data[keep * b..(keep + half) * b], got);
        lo = keep;
        span = half;
    }
    Ok(())
}

/// Doubling: block r held; in step k the partner's 2^k blocks join this processor's.
pub(super) fn doubling_in_place<T: Element>(
    p: &mut Proc<T>,
    data: &mut [T],
    b: usize,
) -> Result<(), ProcessorError> {
    let (n, r) = (p.processors(), p.id());
    let mut mask = 1;
    while mask < n {
        let partner = r ^ mask;
        let mine = r & !(mask - 1);
        let theirs = partner & !(mask - 1);
        send(p, partner, data[mine * b..(mine + mask) * b].to_vec())?;
        let got = recv(p, partner)?;
        data[theirs * b..(theirs + mask) * b].copy_from_slice(&got);
        mask <<= 1;
    }
    Ok(())
}
