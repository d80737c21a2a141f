//! The kernels on P threads of `std::thread::scope`, each given one static, contiguous chunk
//! of the tasks (the first `tasks mod P` chunks one task longer): no scheduling at all, so a
//! kernel whose tasks differ in cost (primes grow with √n) is only as fast as its slowest
//! chunk.

use crate::dnc::mergesort;
use crate::ising::{IsingError, SummaryAccumulator, run_sample, sample_range};
use crate::speedup::kernel::{Inputs, Output, Workload};

use super::{ocl_count_into, padded_stream, primes_task};

/// Chunk `i` of `P` over `total` items.
fn chunk(i: usize, processors: usize, total: usize) -> std::ops::Range<usize> {
    let r = sample_range(i as u32, processors as u32, total as u64);
    r.start as usize..r.end as usize
}

/// Splits `items` into the P static chunks.
fn chunks_mut<T>(mut items: &mut [T], processors: usize) -> Vec<&mut [T]> {
    let total = items.len();
    let mut out = Vec::with_capacity(processors);
    for i in 0..processors {
        let (head, tail) = items.split_at_mut(chunk(i, processors, total).len());
        out.push(head);
        items = tail;
    }
    out
}

/// Runs `workload` on `inputs` on `processors` scoped threads.
pub fn run(workload: &Workload, inputs: Inputs, processors: usize) -> Result<Output, IsingError> {
    let p = processors.max(1);
    let g = workload.grain;
    Ok(match inputs {
        Inputs::Primes => {
            let mut counts = vec![0; workload.tasks as usize];
            std::thread::scope(|s| {
                let mut first = 0u64;
                for out in chunks_mut(&mut counts, p) {
                    let start = first;
                    first += out.len() as u64;
                    s.spawn(move || {
                        for (k, c) in out.iter_mut().enumerate() {
                            *c = primes_task(start + k as u64, g);
                        }
                    });
                }
            });
            Output::Counts(counts)
        }
        Inputs::Lists(mut lists) => {
            std::thread::scope(|s| {
                for part in chunks_mut(&mut lists, p) {
                    s.spawn(move || {
                        for l in part {
                            mergesort(l, &mut Default::default());
                        }
                    });
                }
            });
            Output::Sorted(lists)
        }
        Inputs::Ising(config) => {
            let n = workload.tasks as usize;
            let parts: Vec<Result<SummaryAccumulator, IsingError>> = std::thread::scope(|s| {
                let handles: Vec<_> = (0..p)
                    .map(|i| {
                        let config = &config;
                        s.spawn(move || {
                            let mut acc = SummaryAccumulator::new();
                            for k in chunk(i, p, n) {
                                acc.add(&run_sample(config, k as u64)?);
                            }
                            Ok(acc)
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                    .collect()
            });
            let mut acc = SummaryAccumulator::new();
            for part in parts {
                acc.merge(&part?);
            }
            Output::Summary(Box::new(acc.finish()?))
        }
        Inputs::Stream(a) => {
            let n = workload.window;
            let padded = padded_stream(&a, n);
            let mut b = vec![0; a.len()];
            std::thread::scope(|s| {
                let mut first = 0;
                for out in chunks_mut(&mut b, p) {
                    let start = first;
                    first += out.len();
                    let padded = &padded;
                    s.spawn(move || ocl_count_into(padded, n, start, out));
                }
            });
            Output::Stream(b)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn static_chunks_cover_everything_once_in_order() {
        let mut v: Vec<usize> = (0..10).collect();
        let parts = chunks_mut(&mut v, 3);
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            vec![4, 3, 3]
        );
        assert_eq!(parts[1], &[4, 5, 6]);
        let mut few = [1, 2];
        assert_eq!(
            chunks_mut(&mut few, 4)
                .iter()
                .map(|p| p.len())
                .sum::<usize>(),
            2
        );
    }
}
