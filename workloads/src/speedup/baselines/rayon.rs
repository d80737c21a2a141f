//! The kernels with rayon on a pool of exactly P threads: what a user would pick instead of
//! the runtime. The work and the grain are the runtime's:
//!
//! - primes: `par_iter` over the tasks, one task (a range of `grain` integers) an item;
//! - mergesort: `par_iter_mut` over the lists, each sorted by a top-down mergesort that splits
//!   with `rayon::join` down to pieces of the runtime's leaf size (`⌈grain/(P−1)⌉` keys) and
//!   runs the same sequential mergesort and the same merge;
//! - Ising: `par_iter` over the samples, summaries folded and merged (exact integers);
//! - OCL: `par_chunks_mut` over the output in packets of K values, each output counted over
//!   the whole window (the same `L·N` comparisons).

use rayon::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuildError, ThreadPoolBuilder};

use crate::dnc::{merge, mergesort};
use crate::ising::{IsingError, SummaryAccumulator, run_sample};
use crate::speedup::kernel::{Inputs, Output, Workload};

use super::{ocl_count_into, padded_stream, primes_task};

/// A pool of exactly `threads` threads.
pub fn pool(threads: usize) -> Result<ThreadPool, ThreadPoolBuildError> {
    ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .thread_name(|i| format!("rayon-{i}"))
        .build()
}

/// Sorts `keys` by top-down mergesort, the halves in parallel while longer than `leaf`.
fn par_mergesort(keys: &mut [i64], leaf: usize) {
    if keys.len() <= leaf.max(2) {
        mergesort(keys, &mut Default::default());
        return;
    }
    let mid = keys.len() / 2;
    let (left, right) = keys.split_at_mut(mid);
    rayon::join(|| par_mergesort(left, leaf), || par_mergesort(right, leaf));
    let merged = merge(left, right);
    keys.copy_from_slice(&merged);
}

/// The runtime's leaf piece for mergesort on P processors: a list split `P − 1` ways.
pub fn mergesort_leaf(keys: usize, processors: usize) -> usize {
    keys.div_ceil(processors.saturating_sub(1).max(1))
}

/// Runs `workload` on `inputs` in `pool` (of P threads).
pub fn run(workload: &Workload, inputs: Inputs, pool: &ThreadPool) -> Result<Output, IsingError> {
    let g = workload.grain;
    let p = pool.current_num_threads();
    pool.install(|| {
        Ok(match inputs {
            Inputs::Primes => Output::Counts(
                (0..workload.tasks)
                    .into_par_iter()
                    .map(|i| primes_task(i, g))
                    .collect(),
            ),
            Inputs::Lists(mut lists) => {
                let leaf = mergesort_leaf(g as usize, p);
                lists.par_iter_mut().for_each(|l| par_mergesort(l, leaf));
                Output::Sorted(lists)
            }
            Inputs::Ising(config) => {
                let acc = (0..workload.tasks)
                    .into_par_iter()
                    .try_fold(SummaryAccumulator::new, |mut acc, k| {
                        acc.add(&run_sample(&config, k)?);
                        Ok::<_, IsingError>(acc)
                    })
                    .try_reduce(SummaryAccumulator::new, |mut a, b| {
                        a.merge(&b);
                        Ok(a)
                    })?;
                Output::Summary(Box::new(acc.finish()?))
            }
            Inputs::Stream(a) => {
                let n = workload.window;
                let padded = padded_stream(&a, n);
                let mut b = vec![0; a.len()];
                b.par_chunks_mut(g as usize)
                    .enumerate()
                    .for_each(|(c, out)| ocl_count_into(&padded, n, c * g as usize, out));
                Output::Stream(b)
            }
        })
    })
}
