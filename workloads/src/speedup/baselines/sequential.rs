//! The best sequential program of each kernel: the reference of every speedup.

use crate::dnc::mergesort;
use crate::ising::{IsingError, run_sequential};
use crate::speedup::kernel::{Inputs, Output, Workload};

use super::{ocl_count_into, padded_stream, primes_task};

/// Runs `workload` on `inputs` on this thread. Mergesort sorts the lists in place (give it a
/// copy).
pub fn run(workload: &Workload, inputs: Inputs) -> Result<Output, IsingError> {
    let g = workload.grain;
    Ok(match inputs {
        Inputs::Primes => Output::Counts((0..workload.tasks).map(|i| primes_task(i, g)).collect()),
        Inputs::Lists(mut lists) => {
            for l in &mut lists {
                mergesort(l, &mut Default::default());
            }
            Output::Sorted(lists)
        }
        Inputs::Ising(config) => {
            Output::Summary(Box::new(run_sequential(&config, workload.tasks)?))
        }
        Inputs::Stream(a) => {
            let padded = padded_stream(&a, workload.window);
            let mut b = vec![0; a.len()];
            ocl_count_into(&padded, workload.window, 0, &mut b);
            Output::Stream(b)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ocl::ocl_reference;
    use crate::speedup::kernel::Kernel;

    #[test]
    fn the_fast_ocl_count_is_the_specification() {
        for window in [1, 3, 7, 50] {
            let mut w = Workload::new(Kernel::Ocl);
            w.tasks = 300;
            w.window = window;
            let inputs = w.inputs().unwrap();
            let Inputs::Stream(a) = &inputs else {
                unreachable!()
            };
            let want = ocl_reference(a, window).unwrap();
            assert_eq!(run(&w, inputs).unwrap(), Output::Stream(want));
        }
    }
}
