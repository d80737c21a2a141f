//! Criterion benches of the runtime's own costs: the per-message cost of a send/receive
//! against a bare crossbeam ping-pong, the accuracy of deadline waits (occupy), and the cost of
//! one event in virtual time beside one bare coroutine switch.
//!
//! Run with `cargo bench -p multicomputer-runtime`. The message benches need two cores; they
//! are skipped (with a note) where fewer are available.

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use multicomputer_runtime::{
    Machine, MachineConfig, TimeMode, Topology, WaitStrategy, bare_pingpong, coroutine_switch_ns,
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

/// Virtual time: a reduction every round on a binary tree of 10 levels (1 023 processors), one
/// occupation and one message per processor per round; throughput in events (messages
/// delivered plus occupations finished), beside one bare coroutine switch.
fn virtual_events(c: &mut Criterion) {
    let topology = Topology::kary_tree(2, 10).expect("a valid tree");
    let events_per_round = 2 * topology.len() as u64 - 1;
    let machine = Machine::new(
        topology,
        MachineConfig {
            mode: TimeMode::Virtual,
            ..MachineConfig::default()
        },
    )
    .expect("a virtual machine");
    let rounds = 20;
    let mut g = c.benchmark_group("virtual_time");
    g.sample_size(20);
    g.throughput(criterion::Throughput::Elements(rounds * events_per_round));
    g.bench_function("reduction_binary10_events", |b| {
        b.iter(|| {
            machine
                .run(|p: &mut multicomputer_runtime::Processor<u64>| {
                    let mut sum = 0;
                    for round in 0..rounds {
                        p.occupy(Duration::from_micros(100));
                        let mut s = round;
                        for &child in p.children().to_vec().iter() {
                            s += p.recv(child)?;
                        }
                        if let Some(up) = p.parent() {
                            p.send(up, s)?;
                        }
                        sum += s;
                    }
                    Ok(sum)
                })
                .expect("the reduction runs")
        })
    });
    g.throughput(criterion::Throughput::Elements(1));
    g.bench_function("coroutine_switch", |b| {
        b.iter_custom(|iters| {
            Duration::from_secs_f64(coroutine_switch_ns(iters) * iters as f64 / 1e9)
        })
    });
    g.finish();
}

criterion_group!(benches, messages, occupy, virtual_events);
criterion_main!(benches);
