//! Virtual time: exact event order, the tie-break rule, determinism, capacity blocking, model
//! charging, stacks, and failures. Every expected value here is worked out by hand; nothing
//! asserts a wall-clock time.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use multicomputer_runtime::{
    ComputeCharge, ConfigError, LinkCost, Machine, MachineConfig, Processor, Resolved, RunError,
    RunReport, TimeMode, Topology, Waiting, WorkCosts, WorkUnit,
};

mod common;

use common::{subtree_sum, us};

fn virtual_config(link: LinkCost) -> MachineConfig {
    MachineConfig {
        mode: TimeMode::Virtual,
        link,
        ..MachineConfig::default()
    }
}

fn machine(topology: Topology, config: MachineConfig) -> Machine {
    Machine::new(topology, config).unwrap()
}

/// Messages arriving at the same emulated time are taken in the order they were sent; and
/// processors at the same time run in increasing index. Here P2 sends at time 0 when it first
/// runs; P1 sends at time 0 too, but only once its child P3 (which runs after P2) has sent to
/// it. So the root takes P2's message first although its link to P1 comes first.
#[test]
fn equal_arrivals_are_taken_in_the_order_they_were_sent() {
    // 0 ─ 1 ─ 3
    //   └ 2
    let topology = Topology::from_parents(vec![None, Some(0), Some(0), Some(1)]).unwrap();
    let m = machine(topology, virtual_config(LinkCost::default()));
    let record = m
        .run(|p: &mut Processor<u64>| match p.id() {
            0 => {
                let (_, a) = p.recv_any()?;
                let (_, b) = p.recv_any()?;
                Ok(vec![a, b])
            }
            1 => {
                let got = p.recv(p.children()[0])?;
                p.send(p.parent().unwrap(), 1)?;
                Ok(vec![got])
            }
            id => {
                p.send(p.parent().unwrap(), id as u64)?;
                Ok(vec![])
            }
        })
        .unwrap();
    assert_eq!(record.results[0], vec![2, 1]);
    assert_eq!(record.report.makespan(), Duration::ZERO);
}

/// A link of capacity 1: the sender's second and third messages wait for room, and it resumes
/// at exactly the receiver's takes (10 µs, then 15 µs).
#[test]
fn a_full_link_blocks_its_sender_until_the_receiver_takes() {
    let config = MachineConfig {
        capacity: 1,
        ..virtual_config(LinkCost::default())
    };
    let m = machine(Topology::chain(2).unwrap(), config);
    let record = m
        .run(|p: &mut Processor<u64>| {
            if let Some(up) = p.parent() {
                for i in 0..3 {
                    p.send(up, i)?;
                }
                return Ok(vec![]);
            }
            let child = p.children()[0];
            p.occupy(us(10));
            let mut got = vec![p.recv(child)?];
            p.occupy(us(5));
            got.push(p.recv(child)?);
            p.occupy(us(5));
            got.push(p.recv(child)?);
            Ok(got)
        })
        .unwrap();
    assert_eq!(record.results[0], vec![0, 1, 2]);
    let sender = &record.report.per_processor[1].accounting;
    assert_eq!(sender.finish_ns, 15_000);
    assert_eq!(sender.idle_ns, 15_000);
    assert_eq!(record.report.makespan(), us(20));
}

/// A message that arrives while another waits for room is not lost: the receiver takes from a
/// link whose sender is blocked while the receiver itself is interrupted in an occupation, then
/// blocks sending itself (the case of a bug once found by the farm engine on a chain).
#[test]
fn a_blocked_senders_message_survives_a_receiver_that_blocks_in_turn() {
    let config = MachineConfig {
        capacity: 1,
        ..virtual_config(LinkCost::default())
    };
    let m = machine(Topology::chain(3).unwrap(), config);
    let rounds = 50u64;
    let record = m
        .run(move |p: &mut Processor<u64>| {
            match p.id() {
                // The leaf floods its parent.
                2 => {
                    for i in 0..rounds {
                        p.send(p.parent().unwrap(), i)?;
                    }
                    Ok(0)
                }
                // The middle takes while occupied, forwards up at once (blocking: capacity 1).
                1 => {
                    let child = p.children()[0];
                    let mut sum = 0;
                    let mut got = 0;
                    while got < rounds {
                        let message = match p.occupy_or_recv(us(3), &[child])? {
                            multicomputer_runtime::Interrupt::Message { message, .. } => message,
                            multicomputer_runtime::Interrupt::Completed => p.recv(child)?,
                        };
                        got += 1;
                        sum += message;
                        p.send(p.parent().unwrap(), message)?;
                    }
                    Ok(sum)
                }
                // The root takes slowly.
                _ => {
                    let child = p.children()[0];
                    let mut sum = 0;
                    for _ in 0..rounds {
                        p.occupy(us(7));
                        sum += p.recv(child)?;
                    }
                    Ok(sum)
                }
            }
        })
        .unwrap();
    let all: u64 = (0..rounds).sum();
    assert_eq!(record.results, vec![all, all, 0]);
    assert_eq!(record.report.totals.messages_received, 2 * rounds);
}

/// A reduction on a binary tree of 3 levels with start-up 20 µs, receive cost 5 µs and
/// 1 ms of work per processor: leaves send at 1.020 ms; a level-2 processor takes its two
/// messages (5 µs each) then sends (20 µs): 1.050 ms; the root takes its two: 1.060 ms.
#[test]
fn a_reduction_takes_exactly_the_hand_worked_time() {
    let link = LinkCost {
        send_overhead: us(20),
        recv_overhead: us(5),
        ..LinkCost::default()
    };
    let m = machine(Topology::kary_tree(2, 3).unwrap(), virtual_config(link));
    let record = m
        .run(|p: &mut Processor<u64>| {
            p.occupy(Duration::from_millis(1));
            subtree_sum(p)
        })
        .unwrap();
    assert_eq!(record.results[0], 21);
    let finish: Vec<u64> = record
        .report
        .per_processor
        .iter()
        .map(|p| p.accounting.finish_ns)
        .collect();
    assert_eq!(
        finish,
        vec![
            1_060_000, 1_050_000, 1_050_000, 1_020_000, 1_020_000, 1_020_000, 1_020_000
        ]
    );
    // Three levels of 1 ms work and messages: 7 timed waits of work, 6 start-ups and 6
    // receive costs are timed waits too; 6 messages delivered.
    let sim = record.report.sim.as_ref().unwrap();
    assert_eq!(sim.messages_delivered, 6);
    assert_eq!(sim.timed_waits, 7 + 6 + 6);
    assert_eq!(sim.events, 6 + 19);
}

/// The JSON of a report without its wall-clock part.
fn emulated_json(report: &RunReport) -> serde_json::Value {
    let mut v = serde_json::to_value(report).unwrap();
    v.as_object_mut().unwrap().remove("wall");
    v
}

/// Model-charged real work, random message sizes and ties everywhere: two runs give the same
/// report and trace, byte for byte (the wall clock apart).
#[test]
fn two_runs_give_identical_reports_and_traces() {
    const UNIT: WorkUnit = WorkUnit("test_unit");
    let link = LinkCost {
        send_overhead: us(3),
        per_byte_ns: 0.5,
        loop_count: 100,
        ..LinkCost::default()
    };
    let config = MachineConfig {
        trace: true,
        work_costs: WorkCosts::default().with_unit(UNIT, 1.25),
        ..virtual_config(link)
    };
    let run = || {
        let m = machine(Topology::kary_tree(3, 4).unwrap(), config.clone());
        m.run(|p: &mut Processor<Vec<u32>>| {
            let mut x = p.id() as u64 + 1;
            for round in 0..20u64 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(round);
                let n = (x >> 59) as usize;
                let id = p.id() as u32;
                let v = p.compute(|w| {
                    w.add(UNIT, x % 1000);
                    vec![id; n]
                });
                if let Some(up) = p.parent() {
                    p.send(up, v)?;
                }
                for _ in p.children().to_vec() {
                    let (_, got) = p.recv_any()?;
                    x ^= got.len() as u64;
                }
            }
            Ok(x)
        })
        .unwrap()
    };
    let (a, b) = (run(), run());
    assert_eq!(a.results, b.results);
    let (ja, jb) = (emulated_json(&a.report), emulated_json(&b.report));
    assert_eq!(
        serde_json::to_string(&ja).unwrap(),
        serde_json::to_string(&jb).unwrap()
    );
    let trace = |r: &multicomputer_runtime::RunRecord<u64>| {
        let mut out = Vec::new();
        r.trace
            .as_ref()
            .unwrap()
            .write_chrome_json(&mut out, r.report.processors)
            .unwrap();
        out
    };
    assert_eq!(trace(&a), trace(&b));
    assert_eq!(a.report.work.charge, ComputeCharge::Model);
    assert!(a.report.work.units["test_unit"] > 0);
}

/// Model charging: a block declaring 1 000 units at 2.5 ns is charged 2.5 µs exactly, and a
/// send's degradation loop of 400 iterations at 3 ns each, 1.2 µs.
#[test]
fn model_charging_is_units_times_their_costs() {
    const FLIP: WorkUnit = WorkUnit("flip");
    let link = LinkCost {
        loop_count: 400,
        ..LinkCost::default()
    };
    let config = MachineConfig {
        work_costs: WorkCosts {
            loop_iteration_ns: 3.0,
            ..WorkCosts::default()
        }
        .with_unit(FLIP, 2.5),
        ..virtual_config(link)
    };
    let m = machine(Topology::chain(2).unwrap(), config);
    let record = m
        .run(|p: &mut Processor<u64>| {
            let x = p.compute(|w| {
                w.add(FLIP, 1_000);
                7
            });
            match p.parent() {
                Some(up) => p.send(up, x)?,
                None => {
                    p.recv(p.children()[0])?;
                }
            }
            Ok(p.now())
        })
        .unwrap();
    // Both compute 2.5 µs; the child then spends 1.2 µs in its send's loop.
    assert_eq!(record.results[1], Duration::from_nanos(3_700));
    let child = &record.report.per_processor[1].accounting;
    assert_eq!(child.compute_ns, 2_500);
    assert_eq!(child.communication_ns, 1_200);
    assert_eq!(record.results[0], Duration::from_nanos(3_700));
    assert_eq!(record.report.work.units["flip"], 2_000);
    assert_eq!(record.report.work.loop_iterations, 400);
}

#[test]
fn a_unit_without_a_cost_fails_naming_the_processor_and_the_unit() {
    let m = machine(
        Topology::chain(1).unwrap(),
        virtual_config(LinkCost::default()),
    );
    let err = m
        .run(|p: &mut Processor<()>| {
            p.compute(|w| w.add(WorkUnit("mystery"), 1));
            Ok(())
        })
        .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("P0 panicked"), "{text}");
    assert!(text.contains("'mystery'"), "{text}");
}

#[test]
fn a_deadlock_is_reported_when_no_event_is_left() {
    let m = machine(
        Topology::chain(3).unwrap(),
        virtual_config(LinkCost::default()),
    );
    let err = m
        .run(|p: &mut Processor<u64>| {
            // The middle processor waits for its child, the child for its parent: a cycle.
            p.occupy(us(1));
            p.recv_any().map(|(_, m)| m)
        })
        .unwrap_err();
    let RunError::Deadlock { waits } = &err else {
        panic!("expected a deadlock, got {err}")
    };
    assert_eq!(waits.len(), 3);
    assert_eq!(waits[2].waiting, Waiting::Receive { from: vec![1] });
}

#[test]
fn a_long_deadlock_report_lists_a_few_and_counts_the_rest() {
    let m = machine(
        Topology::chain(100).unwrap(),
        virtual_config(LinkCost::default()),
    );
    let err = m
        .run(|p: &mut Processor<u64>| p.recv_any().map(|(_, m)| m))
        .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("and 92 more processors waiting"), "{text}");
    let RunError::Deadlock { waits } = err else {
        panic!()
    };
    assert_eq!(waits.len(), 100);
}

/// Counts how many programs' destructors ran.
struct Guard<'a>(&'a AtomicUsize);

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn a_panic_names_the_processor_and_unwinds_every_other() {
    let dropped = AtomicUsize::new(0);
    let m = machine(
        Topology::chain(6).unwrap(),
        virtual_config(LinkCost::default()),
    );
    let err = m
        .run(|p: &mut Processor<u64>| {
            let _guard = Guard(&dropped);
            p.occupy(us(p.id() as u64));
            if p.id() == 4 {
                panic!("bad task 7");
            }
            p.recv_any().map(|(_, m)| m)
        })
        .unwrap_err();
    assert_eq!(
        err,
        RunError::Panic {
            processor: 4,
            message: "bad task 7".into()
        }
    );
    // All six programs' frames were unwound before `run` returned.
    assert_eq!(dropped.load(Ordering::Relaxed), 6);
}

fn deep(n: u64, pad: &mut [u8; 512]) -> u64 {
    pad[(n % 512) as usize] = n as u8;
    if n == 0 {
        return u64::from(pad[0]);
    }
    let mut next = [0u8; 512];
    deep(n - 1, std::hint::black_box(&mut next)) + u64::from(std::hint::black_box(pad)[1])
}

#[test]
fn a_stack_overflow_is_an_error_naming_the_processor() {
    let config = MachineConfig {
        stack_bytes: 64 * 1024,
        ..virtual_config(LinkCost::default())
    };
    let m = machine(Topology::chain(3).unwrap(), config.clone());
    let err = m
        .run(|p: &mut Processor<u64>| {
            p.occupy(us(1));
            if p.id() == 1 {
                // Far more than 64 KiB of frames.
                return Ok(deep(10_000, &mut [0; 512]));
            }
            Ok(0)
        })
        .unwrap_err();
    assert_eq!(
        err,
        RunError::StackOverflow {
            processor: 1,
            stack_bytes: 64 * 1024
        }
    );
    assert!(err.to_string().contains("--stack-size"), "{err}");
    // The machine (and the process) go on working: the same program fits in a larger stack.
    let big = MachineConfig {
        stack_bytes: 16 << 20,
        ..config
    };
    let record = machine(Topology::chain(3).unwrap(), big)
        .run(|p: &mut Processor<u64>| {
            Ok(if p.id() == 1 {
                deep(2_000, &mut [0; 512])
            } else {
                0
            })
        })
        .unwrap();
    assert_eq!(record.results[0], 0);
}

#[test]
fn a_stack_below_the_minimum_is_refused_before_the_run() {
    let config = MachineConfig {
        stack_bytes: 1024,
        ..virtual_config(LinkCost::default())
    };
    let err = Machine::new(Topology::chain(2).unwrap(), config).unwrap_err();
    assert!(
        matches!(err, ConfigError::StackTooSmall { given: 1024, .. }),
        "{err}"
    );
}

/// Many processors on one thread: a reduction over 4 095 processors, exact.
#[test]
fn thousands_of_processors_reduce_exactly() {
    let link = LinkCost {
        send_overhead: us(2),
        ..LinkCost::default()
    };
    let topology = Topology::kary_tree(2, 12).unwrap();
    let n = topology.len() as u64;
    let m = machine(topology, virtual_config(link));
    let record = m.run(subtree_sum).unwrap();
    assert_eq!(record.results[0], n * (n - 1) / 2);
    // 11 sends of 2 µs on the critical path; receives are free.
    assert_eq!(record.report.makespan(), us(22));
    assert_eq!(record.report.totals.messages_received, n - 1);
}

#[test]
fn virtual_runs_report_exact_fidelity_and_no_dilation() {
    let m = machine(
        Topology::chain(2).unwrap(),
        virtual_config(LinkCost::default()),
    );
    assert_eq!(m.spec().time, Resolved::Virtual);
    assert_eq!(m.spec().time.dilation(), None);
    assert_eq!(m.charging().charge(), ComputeCharge::Model);
    let record = m
        .run(|p: &mut Processor<()>| {
            p.occupy(us(5));
            Ok(())
        })
        .unwrap();
    let f = &record.report.fidelity;
    assert!(f.exact && f.dilation.is_none() && f.warning.is_none());
    assert_eq!(record.report.time, Resolved::Virtual);
}
