//! Routed messages in dilated and virtual time: delivery from and to anyone, arrival times
//! equal to the switching models on an idle network, queueing on a shared link, and the
//! deadlock report of a routed receive nobody answers.

use std::time::Duration;

use multicomputer_runtime::{
    LinkCost, Machine, MachineConfig, Processor, RunError, Switching, TimeMode, Topology,
    WaitStrategy, Waiting,
};

/// `n` microseconds.
fn us(n: u64) -> Duration {
    Duration::from_micros(n)
}

/// The time modes whose emulated times must agree: dilated (threads) and virtual.
const MODES: [TimeMode; 2] = [TimeMode::Dilated(1.0), TimeMode::Virtual];

fn machine(topology: &str, mode: TimeMode, link: LinkCost) -> Machine {
    let config = MachineConfig {
        mode,
        wait: WaitStrategy::Sleep,
        link,
        ..MachineConfig::default()
    };
    Machine::new(Topology::parse(topology).unwrap(), config).unwrap()
}

fn costs(switching: Switching) -> LinkCost {
    LinkCost {
        send_overhead: us(20),
        recv_overhead: us(3),
        latency: us(2),
        per_byte_ns: 10.0,
        switching,
        ..LinkCost::default()
    }
}

#[test]
fn everyone_sends_to_everyone_on_any_network_in_dilated_and_virtual_time() {
    for mode in MODES {
        for spec in ["ring:5", "mesh:3x2", "hypercube:3", "binary:3"] {
            let m = machine(spec, mode, costs(Switching::CutThrough));
            let record = m
                .run(|p: &mut Processor<u64>| {
                    let (n, me) = (p.processors(), p.id());
                    for to in (0..n).filter(|&to| to != me) {
                        p.send_to(to, (me * 100 + to) as u64)?;
                    }
                    let mut got = Vec::new();
                    for _ in 1..n {
                        let (from, v) = p.recv_routed(None)?;
                        assert_eq!(v as usize, from * 100 + p.id());
                        got.push(from);
                    }
                    got.sort_unstable();
                    Ok(got)
                })
                .unwrap();
            for (i, got) in record.results.iter().enumerate() {
                let want: Vec<usize> = (0..m.topology().len()).filter(|&j| j != i).collect();
                assert_eq!(got, &want, "{spec} P{i} in {mode:?}");
            }
        }
    }
}

#[test]
fn an_idle_route_takes_the_switching_models_time_in_dilated_and_virtual_time() {
    for mode in MODES {
        for switching in [Switching::StoreAndForward, Switching::CutThrough] {
            let link = costs(switching);
            let m = machine("mesh:4x4", mode, link);
            // From P0 to P15: 6 hops (3 along x, then 3 along y); 800 bytes.
            let record = m
                .run(|p: &mut Processor<Vec<u8>>| {
                    match p.id() {
                        0 => p.send_to(15, vec![0u8; 800])?,
                        15 => {
                            let (from, v) = p.recv_routed(Some(0))?;
                            assert_eq!((from, v.len()), (0, 800));
                        }
                        _ => {}
                    }
                    Ok(p.now())
                })
                .unwrap();
            let transit = switching.uncontended_ns(&link, 6, 800);
            let want = Duration::from_nanos(transit) + us(3);
            assert_eq!(record.results[15], want, "{switching:?} in {mode:?}");
        }
        assert_eq!(Topology::mesh(&[4, 4]).unwrap().hops(0, 15), 6);
    }
}

#[test]
fn routes_that_share_a_link_queue_on_it_in_virtual_time() {
    let link = costs(Switching::CutThrough);
    let m = machine("ring:8", TimeMode::Virtual, link);
    // P0 sends 1000 bytes to P2 (via P1), P1 sends 1000 bytes to P2 at the same time: both
    // need the link 1 → 2. Both let go at 20 µs; P1's message reaches that link first (at
    // 20 µs; P0's header at 22 µs, after its first hop) and holds it to 30 µs, so P0's
    // transfer starts at 30 µs. (Reserving whole routes at send, P0's message, sent first by
    // processor order, took the link from 22 µs and P1's waited until 32 µs.)
    let record = m
        .run(|p: &mut Processor<Vec<u8>>| {
            match p.id() {
                0 | 1 => p.send_to(2, vec![0u8; 1000])?,
                2 => {
                    let (a, _) = p.recv_routed(None)?;
                    let t1 = p.now();
                    let (b, _) = p.recv_routed(None)?;
                    assert_eq!((a, b), (1, 0));
                    return Ok(vec![t1, p.now()]);
                }
                _ => {}
            }
            Ok(vec![])
        })
        .unwrap();
    // P1's: 20 + 10 + 2 = 32 µs, taken by 35 µs. P0's: 30 + 10 + 2 = 42 µs, taken by 45 µs.
    assert_eq!(record.results[2], vec![us(35), us(45)]);
}

#[test]
fn a_routed_receive_nobody_answers_is_a_deadlock_naming_it_in_dilated_and_virtual_time() {
    for mode in MODES {
        let m = machine("torus:3x3", mode, LinkCost::default());
        let err = m
            .run(|p: &mut Processor<u64>| {
                if p.id() == 4 {
                    p.recv_routed(Some(8))?;
                }
                Ok(())
            })
            .unwrap_err();
        match &err {
            RunError::Deadlock { waits } => {
                assert_eq!(waits.len(), 1, "{err}");
                assert_eq!(waits[0].processor, 4);
                assert_eq!(waits[0].waiting, Waiting::Routed { from: Some(8) });
            }
            other => panic!("{other} in {mode:?}"),
        }
        assert!(
            err.to_string()
                .contains("P4 waits to receive a routed message from P8"),
            "{err}"
        );
    }
}
