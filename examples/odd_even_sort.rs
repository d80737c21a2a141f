//! Odd-even transposition sort on a linear array (`array:P`): each processor sorts its block
//! of k values, then in P phases neighbours i and i + 1 (i even in even phases, odd in odd
//! ones) exchange blocks; the lower keeps the k smallest, the upper the k largest (Kumar et
//! al., *Introduction to Parallel Computing*, §9.3.1). Checked against a sequential sort.
//!
//! ```text
//! cargo run -p multicomputer-examples --example odd_even_sort
//! ```

use multicomputer_runtime::{Machine, Processor, ProcessorError, TimeMode, Topology};

/// The k values processor i starts with.
fn input(i: usize, k: usize) -> Vec<u64> {
    (0..k)
        .map(|j| ((i * k + j) as u64).wrapping_mul(2_654_435_761) % 1000)
        .collect()
}

/// Sorts this processor's block with its neighbours; returns its part of the sorted whole.
fn odd_even_sort(
    p: &mut Processor<Vec<u64>>,
    mut block: Vec<u64>,
) -> Result<Vec<u64>, ProcessorError> {
    let (n, me, k) = (p.processors(), p.id(), block.len());
    block.sort_unstable();
    for phase in 0..n {
        // My partner this phase: the neighbour above if my parity matches the phase's.
        let partner = if me % 2 == phase % 2 {
            me + 1
        } else {
            me.wrapping_sub(1)
        };
        let Some(link) = (partner < n).then(|| p.link_to(partner)).flatten() else {
            continue;
        };
        p.send(link, block.clone())?;
        let theirs = p.recv(link)?;
        let mut merged = block;
        merged.extend(theirs);
        merged.sort_unstable();
        block = if me < partner {
            merged[..k].to_vec()
        } else {
            merged[merged.len() - k..].to_vec()
        };
    }
    Ok(block)
}

/// Sorts P blocks of k on `array:P` in `mode`, checked against a sequential sort.
fn run(p: usize, k: usize, mode: TimeMode) {
    let machine = Machine::new(
        Topology::array(p).unwrap(),
        multicomputer_examples::config(mode),
    )
    .unwrap();
    let record = machine
        .run(|proc| {
            let data = input(proc.id(), k);
            odd_even_sort(proc, data)
        })
        .unwrap();
    let mut want: Vec<u64> = (0..p).flat_map(|i| input(i, k)).collect();
    want.sort_unstable();
    assert_eq!(record.results.concat(), want, "array:{p} in {mode:?}");
}

fn main() {
    run(16, 100, TimeMode::Virtual);
    println!("odd-even transposition sort of 1600 values on array:16: sorted");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_like_the_sequential_sort_in_every_mode() {
        for (mode, most) in multicomputer_examples::MODES {
            for p in [1, 2, 5, 16, 64].into_iter().filter(|&p| p <= most) {
                run(p, 7, mode);
            }
        }
    }
}
