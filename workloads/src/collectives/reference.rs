//! The sequential reference: what every processor must return, computed on one thread.

use super::blocks::{Element, block_len};
use super::{Operation, Reduction};

/// What each processor returns from `operation` rooted at `root` when processor i passed
/// `inputs[i]`; `None` where the operation leaves the result unspecified (a reduce's
/// non-roots). Reductions combine in processor order: exact for integers, equal up to
/// rounding for floating point.
pub fn reference<T: Element>(
    operation: Operation,
    root: usize,
    inputs: &[Vec<T>],
    reduction: &Reduction<T>,
) -> Vec<Option<Vec<T>>> {
    let p = inputs.len();
    let combined = || {
        let mut acc = inputs[0].clone();
        for v in &inputs[1..] {
            reduction.apply(&mut acc, v.clone());
        }
        acc
    };
    // Block i of `v` cut into p blocks, padded: copied alone, not the whole vector.
    let block = |v: &[T], i: usize| {
        let b = block_len(v.len(), p);
        let (start, end) = ((i * b).min(v.len()), ((i + 1) * b).min(v.len()));
        let mut out = v[start..end].to_vec();
        out.resize(b, T::default());
        out
    };
    let everyone = |v: Vec<T>| (0..p).map(|_| Some(v.clone())).collect();
    match operation {
        Operation::Broadcast => everyone(inputs[root].clone()),
        Operation::Reduce => (0..p).map(|i| (i == root).then(combined)).collect(),
        Operation::AllReduce => everyone(combined()),
        Operation::Scatter => (0..p).map(|i| Some(block(&inputs[root], i))).collect(),
        Operation::Gather => (0..p)
            .map(|i| {
                Some(if i == root {
                    inputs.concat()
                } else {
                    Vec::new()
                })
            })
            .collect(),
        Operation::AllGather => everyone(inputs.concat()),
        Operation::ReduceScatter => {
            let all = combined();
            (0..p).map(|i| Some(block(&all, i))).collect()
        }
        Operation::AllToAll => (0..p)
            .map(|i| Some(inputs.iter().flat_map(|v| block(v, i)).collect()))
            .collect(),
        Operation::Barrier => inputs.iter().cloned().map(Some).collect(),
    }
}

/// The input processor `i` of `p` passes in the tests and on the command line: `elements`
/// small integers, distinct by processor and position, so that sums are exact in `f64`.
pub fn input(operation: Operation, i: usize, p: usize, elements: usize) -> Vec<f64> {
    let n = match operation {
        // A gather's or an all-gather's input is one block.
        Operation::Gather | Operation::AllGather => block_len(elements, p),
        _ => elements,
    };
    (0..n).map(|k| ((i * 31 + k * 7) % 1000) as f64).collect()
}
