//! Integration tests of the runtime: results, emulated times, accounting, failures.
//!
//! Emulated times are exact (they come from message stamps, not from the host's clock), so
//! these tests compare them with hand-worked values; nothing here asserts a wall-clock time.
//! Every test of the machine's semantics runs in dilated and in virtual time, which must
//! agree exactly.

use std::time::Duration;

use multicomputer_runtime::{
    Activity, Interrupt, LinkCost, Machine, MachineConfig, Processor, ProcessorError, Resolved,
    RunError, TimeMode, Topology, Trace, WaitStrategy, Waiting,
};

#[macro_use]
mod common;

use common::{subtree_sum, us};

fn config(mode: TimeMode, link: LinkCost) -> MachineConfig {
    MachineConfig {
        mode,
        wait: WaitStrategy::Sleep,
        link,
        ..MachineConfig::default()
    }
}

fn dilated(link: LinkCost) -> MachineConfig {
    config(TimeMode::Dilated(1.0), link)
}

per_engine! {
    fn tree_reduction_loses_no_message_and_accounts_exactly(mode) {
        let topology = Topology::kary_tree(2, 6).unwrap();
        let n = topology.len() as u64;
        let link = LinkCost {
            send_overhead: us(20),
            recv_overhead: us(5),
            ..LinkCost::default()
        };
        let machine = Machine::new(topology, config(mode, link)).unwrap();
        let record = machine.run(subtree_sum).unwrap();
        assert_eq!(record.results[0], n * (n - 1) / 2);
        let r = &record.report;
        assert_eq!(r.totals.messages_sent, n - 1);
        assert_eq!(r.totals.messages_received, n - 1);
        for p in &r.per_processor {
            let a = &p.accounting;
            assert_eq!(
                a.compute_ns + a.communication_ns + a.idle_ns,
                a.finish_ns,
                "P{}",
                p.id
            );
        }
        // Critical path: 5 hops up, each 20 µs send + 5 µs receive; the root's two receives are
        // serialised (5 µs each), and so are those of every internal processor on the path.
        // Leaf: send 20 → arrives at 20; level 2 receives two (20+5, 25+5=30), sends (50), etc.
        // Each level adds 2 × 5 (receives) + 20 (send) = 30 µs after its children's arrival.
        // Leaves finish at 20; level 2 at 20 + 30 = 50; level 3 at 80; 4: 110; 5: 140;
        // the root receives its two at 140 + 5 + 5 = 150.
        assert_eq!(r.makespan(), us(150));
    }
}

per_engine! {
    fn overlapped_transfer_delays_arrival_but_not_the_sender(mode) {
        let link = LinkCost {
            per_byte_ns: 2.0,
            latency: us(3),
            ..LinkCost::default()
        };
        let machine = Machine::new(Topology::chain(2).unwrap(), config(mode, link)).unwrap();
        let record = machine
            .run(|p| {
                if let Some(&c) = p.children().first() {
                    p.send(c, vec![0u8; 1000])?; // 1000 B × 2 ns + 3 µs = 5 µs in transit
                    p.send(c, vec![0u8; 1000])?; // serialised behind the first: leaves at 4 µs
                    Ok(p.now())
                } else {
                    let up = p.parent().unwrap();
                    p.recv(up)?;
                    let first = p.now();
                    p.recv(up)?;
                    Ok(first + p.now())
                }
            })
            .unwrap();
        assert_eq!(
            record.results[0],
            Duration::ZERO,
            "the sender is never busy"
        );
        // Arrivals at 5 µs and 2 + 2 + 3 = 7 µs.
        assert_eq!(record.results[1], us(5) + us(7));
        assert_eq!(record.report.per_processor[1].accounting.idle_ns, 7_000);
        assert_eq!(record.report.totals.bytes_received, 2000);
    }
}

#[test]
fn occupy_and_compute_are_charged_to_compute() {
    let machine = Machine::new(Topology::chain(1).unwrap(), dilated(LinkCost::default())).unwrap();
    let record = machine
        .run(|p: &mut Processor<()>| {
            p.occupy(us(250));
            p.occupy_comm(us(50));
            let x = p.compute(|_| (0..200_000u64).map(std::hint::black_box).sum::<u64>());
            p.record_executed(3);
            Ok(x)
        })
        .unwrap();
    let a = &record.report.per_processor[0].accounting;
    assert_eq!(record.results[0], 199_999 * 200_000 / 2);
    assert!(a.compute_ns > 250_000, "real compute adds its CPU time");
    assert_eq!(a.communication_ns, 50_000);
    assert_eq!(a.tasks_executed, 3);
    assert_eq!(a.compute_ns + a.communication_ns, a.finish_ns);
}

per_engine! {
    fn receive_takes_the_earliest_emulated_arrival_first(mode) {
        // Root with two children: child 1 sends at 40 ms, child 2 at 2 ms (emulated).
        let machine = Machine::new(
            Topology::kary_tree(2, 2).unwrap(),
            config(mode, LinkCost::default()),
        )
        .unwrap();
        let record = machine
            .run(|p| match p.parent() {
                Some(up) => {
                    p.occupy(if p.id() == 1 {
                        Duration::from_millis(40)
                    } else {
                        Duration::from_millis(2)
                    });
                    p.send(up, p.id() as u64)?;
                    Ok(vec![])
                }
                None => {
                    let (_, a) = p.recv_any()?;
                    let (_, b) = p.recv_any()?;
                    Ok(vec![a, b])
                }
            })
            .unwrap();
        assert_eq!(record.results[0], vec![2, 1]);
        assert_eq!(record.report.makespan(), Duration::from_millis(40));
    }
}

per_engine! {
    fn a_message_interrupts_an_occupation_with_the_rest_returned(mode) {
        let machine = Machine::new(
            Topology::chain(2).unwrap(),
            config(mode, LinkCost::default()),
        )
        .unwrap();
        let record = machine
            .run(|p| match p.parent() {
                Some(up) => {
                    p.occupy(Duration::from_millis(2));
                    p.send(up, 7u64)?;
                    Ok(Duration::ZERO)
                }
                None => {
                    let child = p.children()[0];
                    match p.occupy_or_recv(Duration::from_millis(60), &[child])? {
                        Interrupt::Message {
                            message, remaining, ..
                        } => {
                            assert_eq!(message, 7);
                            assert_eq!(p.now(), Duration::from_millis(2));
                            Ok(remaining)
                        }
                        Interrupt::Completed => {
                            Err(ProcessorError::Program("not interrupted".into()))
                        }
                    }
                }
            })
            .unwrap();
        assert_eq!(record.results[0], Duration::from_millis(58));
    }
}

per_engine! {
    fn occupation_without_messages_completes(mode) {
        let machine = Machine::new(
            Topology::chain(2).unwrap(),
            config(mode, LinkCost::default()),
        )
        .unwrap();
        let record = machine
            .run(|p: &mut Processor<()>| {
                let links = p.links().to_vec();
                let done = matches!(p.occupy_or_recv(us(500), &links)?, Interrupt::Completed);
                Ok((done, p.now()))
            })
            .unwrap();
        assert_eq!(record.results, vec![(true, us(500)), (true, us(500))]);
    }
}

per_engine! {
    fn a_panic_names_the_processor_and_stops_the_others(mode) {
        let machine = Machine::new(
            Topology::chain(4).unwrap(),
            config(mode, LinkCost::default()),
        )
        .unwrap();
        let err = machine
            .run(|p| {
                if p.id() == 2 {
                    panic!("bad task 42");
                }
                // Everyone else would wait forever for a message that never comes.
                let l = p.links()[0];
                p.recv(l).map(|_: u64| ())
            })
            .unwrap_err();
        assert_eq!(
            err,
            RunError::Panic {
                processor: 2,
                message: "bad task 42".into()
            }
        );
        assert!(err.to_string().contains("P2 panicked: bad task 42"));
    }
}

per_engine! {
    fn a_receive_cycle_is_reported_as_deadlock_with_each_wait(mode) {
        let machine = Machine::new(
            Topology::chain(3).unwrap(),
            config(mode, LinkCost::default()),
        )
        .unwrap();
        let err = machine
            .run(|p| p.recv_any().map(|(_, m): (_, u64)| m))
            .unwrap_err();
        let RunError::Deadlock { waits } = &err else {
            panic!("expected deadlock, got {err}")
        };
        assert_eq!(waits.len(), 3);
        assert_eq!(waits[0].waiting, Waiting::Receive { from: vec![1] });
        assert_eq!(waits[1].waiting, Waiting::Receive { from: vec![0, 2] });
        assert!(
            err.to_string()
                .contains("P1 waits to receive from P0 or P2"),
            "{err}"
        );
    }
}

per_engine! {
    fn a_sender_blocked_on_a_full_link_is_part_of_the_deadlock_report(mode) {
        let config = MachineConfig {
            capacity: 1,
            ..config(mode, LinkCost::default())
        };
        let machine = Machine::new(Topology::chain(3).unwrap(), config).unwrap();
        let err = machine
            .run(|p| -> Result<(), ProcessorError> {
                match p.id() {
                    0 => loop {
                        p.send(p.children()[0], 1u64)?;
                    },
                    1 => p.recv(p.children()[0]).map(|_| ()),
                    _ => p.recv(p.parent().unwrap()).map(|_| ()),
                }
            })
            .unwrap_err();
        let RunError::Deadlock { waits } = &err else {
            panic!("expected deadlock, got {err}")
        };
        assert_eq!(waits[0].waiting, Waiting::Send { to: 1 });
        assert!(
            err.to_string()
                .contains("P0 waits to send to P1 (link buffer full)"),
            "{err}"
        );
    }
}

per_engine! {
    fn receiving_from_a_finished_peer_is_an_error_naming_it(mode) {
        let machine = Machine::new(
            Topology::chain(2).unwrap(),
            config(mode, LinkCost::default()),
        )
        .unwrap();
        let err = machine
            .run(|p| match p.parent() {
                None => p.recv(p.children()[0]).map(|_: u64| ()),
                Some(_) => Ok(()),
            })
            .unwrap_err();
        assert_eq!(
            err,
            RunError::Processor {
                processor: 0,
                error: ProcessorError::LinkClosed { peer: 1 }
            }
        );
    }
}

per_engine! {
    fn trace_intervals_add_up_to_each_processors_accounting(mode) {
        let link = LinkCost {
            send_overhead: us(10),
            ..LinkCost::default()
        };
        let config = MachineConfig {
            trace: true,
            ..config(mode, link)
        };
        let machine = Machine::new(Topology::kary_tree(3, 2).unwrap(), config).unwrap();
        let record = machine.run(subtree_sum).unwrap();
        let mut events = Vec::new();
        record.trace.unwrap().visit_events(|e| events.push(e.clone())).unwrap();
        for p in &record.report.per_processor {
            let sum = |a: Activity| -> u64 {
                events
                    .iter()
                    .filter(|e| e.processor == p.id && e.activity == a)
                    .map(|e| e.duration_ns)
                    .sum()
            };
            assert_eq!(sum(Activity::Compute), p.accounting.compute_ns);
            assert_eq!(sum(Activity::Communication), p.accounting.communication_ns);
            assert_eq!(sum(Activity::Idle), p.accounting.idle_ns);
        }
    }
}

per_engine! {
    /// A run recording more than a processor's trace buffer holds spills it to a temporary
    /// file in the folder given, and reads it back whole: its Chrome JSON equals that of the
    /// same records held in memory, and the folder is left empty.
    fn a_spilled_trace_reads_back_as_recorded(mode) {
        let dir = tempfile::tempdir().unwrap();
        let link = LinkCost {
            send_overhead: us(1),
            ..LinkCost::default()
        };
        let config = MachineConfig {
            trace: true,
            trace_dir: Some(dir.path().to_path_buf()),
            ..config(mode, link)
        };
        let machine = Machine::new(Topology::chain(3).unwrap(), config).unwrap();
        let record = machine
            .run(|p: &mut Processor<u64>| {
                for round in 0..3_000u64 {
                    match p.parent() {
                        Some(up) => p.send(up, round)?,
                        None => {
                            p.recv(p.children()[0])?;
                        }
                    }
                    if let Some(&down) = p.children().first().filter(|_| p.parent().is_some()) {
                        p.recv(down)?;
                    }
                    p.occupy(us(1));
                }
                Ok(())
            })
            .unwrap();
        let trace = record.trace.unwrap();
        let (mut events, mut messages) = (Vec::new(), Vec::new());
        trace.visit_events(|e| events.push(e.clone())).unwrap();
        trace.visit_messages(|m| messages.push(m.clone())).unwrap();
        // More than a 64 KiB buffer of 25-byte records on the middle processor.
        assert!(events.iter().filter(|e| e.processor == 1).count() > 3_000);
        let json = |t: &Trace| {
            let mut out = Vec::new();
            t.write_chrome_json(&mut out, 3).unwrap();
            out
        };
        assert_eq!(json(&trace), json(&Trace::from_records(&events, &messages)));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}

#[test]
fn dilation_changes_wall_time_but_not_emulated_time() {
    let link = LinkCost {
        send_overhead: us(100),
        ..LinkCost::default()
    };
    let run = |d: f64| {
        let config = MachineConfig {
            mode: TimeMode::Dilated(d),
            ..dilated(link)
        };
        let machine = Machine::new(Topology::chain(5).unwrap(), config).unwrap();
        let record = machine.run(subtree_sum).unwrap();
        assert_eq!(record.report.fidelity.dilation, Some(d));
        record.report.makespan()
    };
    assert_eq!(run(1.0), run(3.0));
    assert_eq!(run(1.0), us(400));
}

#[test]
fn invalid_configurations_are_rejected() {
    let t = Topology::chain(2).unwrap();
    let bad = |config: MachineConfig| Machine::new(t.clone(), config).unwrap_err().to_string();
    assert!(
        bad(MachineConfig {
            mode: TimeMode::Dilated(0.5),
            ..MachineConfig::default()
        })
        .contains("dilation")
    );
    assert!(
        bad(MachineConfig {
            capacity: 0,
            ..MachineConfig::default()
        })
        .contains("capacity")
    );
    let big = Topology::chain(4096).unwrap();
    let err = Machine::new(
        big,
        MachineConfig {
            mode: TimeMode::Native,
            ..MachineConfig::default()
        },
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("native mode needs a free core per processor")
    );
}

/// The cores `Machine::new` counts.
fn usable_cores() -> usize {
    core_affinity::get_core_ids()
        .map(|c| c.len())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

#[test]
fn auto_mode_runs_virtually_unless_a_core_is_left_for_the_host() {
    let cores = usable_cores();
    // As many processors as cores, or more: virtual time.
    let all = Machine::new(Topology::chain(cores).unwrap(), MachineConfig::default()).unwrap();
    assert_eq!(
        all.spec().time,
        Resolved::Virtual,
        "{cores} processors on {cores} cores must run in virtual time"
    );
    assert_eq!(all.spec().time.dilation(), None);
    assert_eq!(all.spec().waits(), None);
    // A single processor always runs natively, spinning.
    let one = Machine::new(Topology::chain(1).unwrap(), MachineConfig::default()).unwrap();
    assert_eq!(one.spec().time, Resolved::Native);
    assert_eq!(one.spec().waits(), Some(WaitStrategy::Spin));
    // Fewer processors than cores: native.
    if cores > 2 {
        let spare = Topology::chain(cores - 1).unwrap();
        assert!(
            Machine::new(spare, MachineConfig::default())
                .unwrap()
                .spec()
                .time
                .is_native()
        );
    }
}

/// A panic stops processors in the middle of a long occupation: the others occupy 11.6 days
/// of emulated (and, at D = 1, wall) time, P7 panics at 10 ms. The run returns the panic as
/// soon as every thread has stopped; were waits not interrupted, the test would not end.
#[test]
fn an_abort_interrupts_the_others_long_occupations() {
    let config = MachineConfig {
        wait: WaitStrategy::Sleep,
        ..dilated(LinkCost::default())
    };
    let machine = Machine::new(Topology::chain(8).unwrap(), config).unwrap();
    let err = machine
        .run(|p: &mut Processor<()>| {
            if p.id() == 7 {
                p.occupy(Duration::from_millis(10));
                panic!("P7 gives up");
            }
            // A wait of 11.6 days: were it not interrupted, this test would not end.
            p.occupy(Duration::from_secs(1_000_000));
            // Stopped early: the wait returned because the run is being aborted.
            assert!(p.is_aborted());
            Ok(())
        })
        .unwrap_err();
    assert_eq!(
        err,
        RunError::Panic {
            processor: 7,
            message: "P7 gives up".into()
        }
    );
}
