//! A ring all-reduce written by hand on `ring:P`: each processor's vector is cut into P
//! blocks; P − 1 steps pass partial sums to the right (reduce-scatter), then P − 1 steps pass
//! the finished blocks on (all-gather). Checked against the sequential sum, and in virtual
//! time its makespan equals the ring all-reduce model of the collectives library (Thakur,
//! Rabenseifner & Gropp 2005) to the nanosecond.
//!
//! ```text
//! cargo run -p multicomputer-examples --example ring_allreduce
//! ```

use std::time::Duration;

use multicomputer_runtime::{
    Direction, LinkCost, Machine, Processor, ProcessorError, TimeMode, Topology,
};
use multicomputer_workloads::collectives::{Algorithm, Costs, Operation, model_ns};

/// Sums everyone's `data` around the ring; every processor returns the sum.
fn ring_all_reduce(
    p: &mut Processor<Vec<f64>>,
    mut data: Vec<f64>,
) -> Result<Vec<f64>, ProcessorError> {
    let n = p.processors();
    let right = p.link_in(0, Direction::Plus).expect("a ring");
    let left = p.link_in(0, Direction::Minus).expect("a ring");
    let b = data.len() / n; // block length: the length is a multiple of P
    let block = |i: usize| (i % n) * b..(i % n + 1) * b;
    let me = p.id();
    // Reduce-scatter: after step s, block me − s − 1 holds s + 2 processors' sum.
    for s in 0..n - 1 {
        p.send(right, data[block(me + 2 * n - s - 1)].to_vec())?;
        let got = p.recv(left)?;
        for (x, y) in data[block(me + 2 * n - s - 2)].iter_mut().zip(got) {
            *x += y;
        }
    }
    // All-gather: pass each finished block on.
    for s in 0..n - 1 {
        p.send(right, data[block(me + n - s)].to_vec())?;
        let got = p.recv(left)?;
        data[block(me + 2 * n - s - 1)].copy_from_slice(&got);
    }
    Ok(data)
}

/// Processor i's vector.
fn input(i: usize, len: usize) -> Vec<f64> {
    (0..len).map(|k| (i * len + k) as f64).collect()
}

/// Runs the all-reduce of `len` values on `ring:P` in `mode`; checks every result against the
/// sequential sum; returns the makespan and the model's.
fn run(p: usize, len: usize, mode: TimeMode) -> (Duration, Duration) {
    let link = LinkCost {
        send_overhead: Duration::from_micros(20),
        latency: Duration::from_micros(1),
        per_byte_ns: 1.0,
        ..LinkCost::default()
    };
    let config = multicomputer_examples::config(mode);
    let config = multicomputer_runtime::MachineConfig { link, ..config };
    let machine = Machine::new(Topology::ring(p).unwrap(), config).unwrap();
    let record = machine
        .run(|proc| {
            let data = input(proc.id(), len);
            ring_all_reduce(proc, data)
        })
        .unwrap();
    let sum: Vec<f64> = (0..len)
        .map(|k| (0..p).map(|i| input(i, len)[k]).sum())
        .collect();
    for (i, got) in record.results.iter().enumerate() {
        assert_eq!(got, &sum, "P{i} in {mode:?}");
    }
    let model = model_ns(
        Operation::AllReduce,
        Algorithm::Ring,
        machine.topology(),
        0,
        len,
        8,
        &Costs::of(&link, 0.0),
    )
    .unwrap();
    (record.report.makespan(), Duration::from_nanos(model))
}

fn main() {
    for p in [2, 4, 8, 16] {
        let (measured, model) = run(p, 1024, TimeMode::Virtual);
        println!("ring:{p:<3} all-reduce of 8 KiB: {measured:?} (model {model:?})");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equals_the_sum_in_every_mode_and_the_model_in_virtual_time() {
        for (mode, most) in multicomputer_examples::MODES {
            for p in [2, 4, 8, 16, 64].into_iter().filter(|&p| p <= most) {
                let (measured, model) = run(p, 16 * p, mode);
                if mode == TimeMode::Virtual {
                    assert_eq!(measured, model, "ring:{p}");
                }
            }
        }
    }

    #[test]
    fn the_readme_shows_this_program() {
        let readme = include_str!("../README.md");
        let source = include_str!("ring_allreduce.rs");
        let start = source.find("/// Sums everyone's").unwrap();
        let end = source.find("/// Processor i's vector.").unwrap();
        assert!(
            readme.contains(source[start..end].trim_end()),
            "README's \"Write your own program\" must show ring_all_reduce as it is here"
        );
    }
}
