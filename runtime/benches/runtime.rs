//! Criterion benches of the runtime's own costs: the per-message cost of a send/receive
//! against a bare crossbeam ping-pong, and the accuracy of deadline waits (occupy).
//!
//! Run with `cargo bench -p multicomputer-runtime`. The message benches need two cores; they
//! are skipped (with a note) where fewer are available.

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use multicomputer_runtime::{
    Machine, MachineConfig, TimeMode, Topology, WaitStrategy, bare_pingpong,
};

fn native(strategy: WaitStrategy, processors: usize) -> Option<Machine> {
    let config = MachineConfig {
        mode: TimeMode::Native,
        wait: strategy,
        capacity: 1,
        ..MachineConfig::default()
    };
    Machine::new(Topology::chain(processors).ok()?, config).ok()
}

/// Time of `iters` one-way messages (half round trips) between two pinned spinning threads.
fn bare(iters: u64) -> Duration {
    let cores = core_affinity::get_core_ids().unwrap_or_default();
    bare_pingpong(iters.div_ceil(2), &cores)
}

fn runtime_pingpong(machine: &Machine, iters: u64) -> Duration {
    let round_trips = iters.div_ceil(2);
    let record = machine
        .run(|p| {
            let link = p.links()[0];
            if p.parent().is_none() {
                let t = Instant::now();
                for i in 0..round_trips {
                    p.send(link, i)?;
                    let _: u64 = p.recv(link)?;
                }
                Ok(t.elapsed())
            } else {
                for _ in 0..round_trips {
                    let v: u64 = p.recv(link)?;
                    p.send(link, v)?;
                }
                Ok(Duration::ZERO)
            }
        })
        .expect("ping-pong runs");
    record.results[0]
}

fn messages(c: &mut Criterion) {
    let Some(machine) = native(WaitStrategy::Spin, 2) else {
        eprintln!("message benches skipped: two free cores are needed");
        return;
    };
    let mut g = c.benchmark_group("one_way_message");
    g.bench_function("bare_crossbeam_spin", |b| b.iter_custom(bare));
    g.bench_function("runtime_native_spin", |b| {
        b.iter_custom(|iters| runtime_pingpong(&machine, iters))
    });
    g.finish();
}

fn occupy(c: &mut Criterion) {
    let mut g = c.benchmark_group("occupy");
    g.sample_size(20);
    for (strategy, name) in [
        (WaitStrategy::Spin, "spin"),
        (WaitStrategy::Hybrid, "hybrid"),
    ] {
        let Some(machine) = native(strategy, 1) else {
            continue;
        };
        for us in [10u64, 100, 1000] {
            let d = Duration::from_micros(us);
            g.bench_function(format!("{name}/{us}us"), |b| {
                b.iter_custom(|iters| {
                    let record = machine
                        .run(|p: &mut multicomputer_runtime::Processor<()>| {
                            let t = Instant::now();
                            for _ in 0..iters {
                                p.occupy(d);
                            }
                            Ok(t.elapsed())
                        })
                        .expect("occupy runs");
                    record.results[0]
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, messages, occupy);
criterion_main!(benches);
