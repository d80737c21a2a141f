//! The partitioned virtual-time engine (`parts`, `--partitions K`): any K gives the results,
//! report and trace of K = 1, bit for bit; failures across parts are reported as one part
//! reports them; the configurations it cannot run are refused.

use std::num::NonZeroUsize;
use std::time::Duration;

use multicomputer_runtime::{
    ConfigError, LinkCost, Machine, MachineConfig, Processor, ProcessorError, RunError, RunRecord,
    Switching, TimeMode, Topology, Waiting,
};
use proptest::prelude::*;

mod common;

use common::{subtree_sum, us};

/// A virtual-time machine on `topology` in `k` parts, links of latency `latency` and
/// capacity `capacity`, tracing.
fn parts_machine(topology: &Topology, k: usize, latency: Duration, capacity: usize) -> Machine {
    let config = MachineConfig {
        mode: TimeMode::Virtual,
        link: LinkCost {
            send_overhead: us(3),
            recv_overhead: us(1),
            latency,
            per_byte_ns: 0.5,
            ..LinkCost::default()
        },
        capacity,
        trace: true,
        partitions: NonZeroUsize::new(k),
        ..MachineConfig::default()
    };
    Machine::new(topology.clone(), config).unwrap()
}

/// A run's record as text, without what may differ between K: its wall clock and how it was
/// shared out.
fn fingerprint<R: std::fmt::Debug>(record: &RunRecord<R>) -> String {
    assert!(
        record.report.parts.is_some(),
        "a partitioned run reports its parts"
    );
    record_text(record)
}

/// A run's record as text, without its wall clock and how it was shared out (if it was).
fn record_text<R: std::fmt::Debug>(record: &RunRecord<R>) -> String {
    let mut report = serde_json::to_value(&record.report).unwrap();
    let fields = report.as_object_mut().unwrap();
    fields.remove("wall");
    fields.remove("parts");
    // The trace as its file holds it: where each record sits in the spill file depends on
    // when the parts' threads spilled, not on what was recorded.
    let trace = record.trace.as_ref().map(|t| {
        let mut json = Vec::new();
        t.write_chrome_json(&mut json, record.results.len())
            .unwrap();
        String::from_utf8(json).unwrap()
    });
    format!(
        "{:?}\n{}\n{:?}",
        record.results,
        serde_json::to_string(&report).unwrap(),
        trace
    )
}

/// A deterministic pseudo-random number from a processor, a round and a salt.
fn mix(a: u64, b: u64, salt: u64) -> u64 {
    let mut z = a
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(b.wrapping_mul(0xBF58_476D_1CE4_E5B9))
        ^ salt;
    z = (z ^ (z >> 31)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 29)
}

/// Rounds of neighbour exchange with uneven work: each round a processor computes a while,
/// sends to every neighbour (blocking on full links), then takes as many messages as it has
/// links in arrival order, folding in who sent what when. The result depends on every
/// arrival and its order.
fn gossip(
    rounds: u64,
    salt: u64,
) -> impl Fn(&mut Processor<Vec<u64>>) -> Result<u64, ProcessorError> + Sync {
    move |p| {
        let id = p.id() as u64;
        let mut digest = id;
        for round in 0..rounds {
            p.occupy(Duration::from_nanos(mix(id, round, salt) % 20_000));
            for l in p.links().to_vec() {
                let bytes = (mix(id, round + 7, salt) % 5) as usize;
                p.send(l, vec![digest; bytes + 1])?;
            }
            for _ in 0..p.links().len() {
                let (l, m) = p.recv_any()?;
                digest = mix(digest, m[0] ^ p.peer(l) as u64, p.now().as_nanos() as u64);
            }
        }
        Ok(digest)
    }
}

/// A random connected graph on `n` processors: a random tree plus `extra` random links.
fn random_graph(n: usize, extra: usize, seed: u64) -> Topology {
    let mut edges = std::collections::BTreeSet::new();
    for i in 1..n {
        let j = (mix(i as u64, 1, seed) % i as u64) as usize;
        edges.insert((j, i));
    }
    for e in 0..extra as u64 {
        let a = (mix(e, 2, seed) % n as u64) as usize;
        let b = (mix(e, 3, seed) % n as u64) as usize;
        if a != b {
            edges.insert((a.min(b), a.max(b)));
        }
    }
    let text: String = edges.iter().map(|(a, b)| format!("{a} {b}\n")).collect();
    Topology::parse_edges(&text, "random").unwrap()
}

/// Runs `gossip` on `topology` with K = 1 and with each of `ks`, and checks every K gives
/// K = 1's fingerprint.
fn same_for_every_k(topology: &Topology, ks: &[usize], capacity: usize, salt: u64) {
    let run = |k: usize| {
        let record = parts_machine(topology, k, us(2), capacity)
            .run(gossip(3, salt))
            .unwrap();
        assert_eq!(record.report.parts.as_ref().unwrap().parts, k);
        fingerprint(&record)
    };
    let reference = run(1);
    for &k in ks {
        same(&run(k), &reference, &format!("{topology} in {k} parts"));
    }
}

/// Asserts two fingerprints are equal, showing where they first differ.
fn same(got: &str, want: &str, what: &str) {
    if let Some(at) = got.bytes().zip(want.bytes()).position(|(a, b)| a != b) {
        let from = at.saturating_sub(300);
        panic!(
            "{what}: first difference at byte {at}:\n got: …{}…\nwant: …{}…",
            &got[from..(at + 100).min(got.len())],
            &want[from..(at + 100).min(want.len())]
        );
    }
    assert_eq!(
        got.len(),
        want.len(),
        "{what}: one is a prefix of the other"
    );
}

#[test]
fn parts_give_the_results_report_and_trace_of_one_part() {
    for spec in [
        "binary:5",
        "ring:12",
        "mesh:4x5",
        "torus:3x3x2",
        "hypercube:4",
        "chain:9",
    ] {
        let topology = Topology::parse(spec).unwrap();
        same_for_every_k(&topology, &[2, 3, 4, 8], 1, 5);
    }
}

#[test]
fn parts_agree_on_a_tree_reduction_and_its_totals() {
    let topology = Topology::kary_tree(3, 5).unwrap();
    let n = topology.len() as u64;
    let mut fingerprints = Vec::new();
    for k in [1, 2, 4, 8] {
        let record = parts_machine(&topology, k, us(5), 2)
            .run(subtree_sum)
            .unwrap();
        assert_eq!(record.results[0], n * (n - 1) / 2);
        assert_eq!(record.report.totals.messages_received, n - 1);
        fingerprints.push(fingerprint(&record));
    }
    assert!(fingerprints.windows(2).all(|w| w[0] == w[1]));
}

/// A full link blocks its sender until it sees the take, one latency L after it: the sender
/// of a capacity-1 link sends three messages; the receiver takes the first two at 100 µs;
/// the sender goes on at 100 µs + L.
#[test]
fn parts_a_sender_sees_room_one_latency_after_the_take() {
    let topology = Topology::chain(2).unwrap();
    for k in [1, 2] {
        let config = MachineConfig {
            mode: TimeMode::Virtual,
            link: LinkCost {
                latency: us(10),
                ..LinkCost::default()
            },
            capacity: 1,
            partitions: NonZeroUsize::new(k),
            ..MachineConfig::default()
        };
        let record = Machine::new(topology.clone(), config)
            .unwrap()
            .run(|p: &mut Processor<u64>| {
                if p.id() == 0 {
                    let down = p.children()[0];
                    p.send(down, 1)?;
                    p.send(down, 2)?;
                    p.send(down, 3)?;
                    Ok(p.now())
                } else {
                    p.occupy(us(100));
                    let up = p.parent().unwrap();
                    let a = p.recv(up)?;
                    let b = p.recv(up)?;
                    let c = p.recv(up)?;
                    assert_eq!((a, b, c), (1, 2, 3));
                    Ok(p.now())
                }
            })
            .unwrap();
        // The first send finds room; the second goes into the link but blocks its sender
        // until it sees P1's first take (at 100 µs) at 110 µs; by then it also sees the
        // second take (at 100 µs too), so the third goes on at once, arriving at 120 µs.
        assert_eq!(record.results[0], us(110), "K = {k}");
        assert_eq!(record.results[1], us(120), "K = {k}");
    }
}

#[test]
fn parts_a_deadlock_lists_every_waiting_processor_in_order() {
    // Every processor waits to receive from all its neighbours first.
    let topology = Topology::ring(6).unwrap();
    let mut errors = Vec::new();
    for k in [1, 2, 3] {
        let err = parts_machine(&topology, k, us(1), 2)
            .run(|p: &mut Processor<u64>| {
                if p.id() % 2 == 0 {
                    p.occupy(us(7 * p.id() as u64));
                }
                p.recv_any().map(|(_, m)| m)
            })
            .unwrap_err();
        let RunError::Deadlock { waits } = &err else {
            panic!("K = {k}: {err}");
        };
        let who: Vec<usize> = waits.iter().map(|w| w.processor).collect();
        assert_eq!(who, (0..6).collect::<Vec<_>>(), "K = {k}");
        assert!(
            waits
                .iter()
                .all(|w| matches!(&w.waiting, Waiting::Receive { from } if from.len() == 2))
        );
        errors.push(err);
    }
    assert!(errors.windows(2).all(|w| w[0] == w[1]), "{errors:?}");
}

#[test]
fn parts_the_earliest_failure_wins_and_names_its_processor() {
    // P7 panics at 30 µs, P2 at 50 µs, P5 returns an error at 30 µs: (30 µs, P5) is first.
    // The others wait on their links, to be unwound.
    let topology = Topology::chain(8).unwrap();
    for k in [1, 2, 4, 8] {
        let err = parts_machine(&topology, k, us(1), 2)
            .run(|p: &mut Processor<u64>| match p.id() {
                7 => {
                    p.occupy(us(30));
                    panic!("P7 gives up");
                }
                5 => {
                    p.occupy(us(30));
                    Err(ProcessorError::Program("P5 fails".into()))
                }
                2 => {
                    p.occupy(us(50));
                    panic!("P2 gives up");
                }
                _ => p.recv_any().map(|(_, m)| m),
            })
            .unwrap_err();
        assert_eq!(
            err,
            RunError::Processor {
                processor: 5,
                error: ProcessorError::Program("P5 fails".into())
            },
            "K = {k}"
        );
    }
}

#[test]
fn parts_a_panic_in_another_part_is_reported_with_its_message() {
    let topology = Topology::kary_tree(2, 4).unwrap();
    for k in [1, 2, 4] {
        let err = parts_machine(&topology, k, us(1), 2)
            .run(|p: &mut Processor<u64>| {
                if p.id() == 14 {
                    p.occupy(us(10));
                    panic!("leaf 14 breaks");
                }
                subtree_sum(p)
            })
            .unwrap_err();
        assert_eq!(
            err,
            RunError::Panic {
                processor: 14,
                message: "leaf 14 breaks".into()
            },
            "K = {k}"
        );
    }
}

/// A virtual-time machine on `topology` with routed messages switched by `switching`, in
/// `k` parts (`None`: today's engine), tracing.
fn routed_machine(topology: &Topology, k: Option<usize>, switching: Switching) -> Machine {
    let config = MachineConfig {
        mode: TimeMode::Virtual,
        link: LinkCost {
            send_overhead: us(3),
            recv_overhead: us(1),
            latency: us(2),
            per_byte_ns: 0.5,
            switching,
            ..LinkCost::default()
        },
        trace: true,
        partitions: k.and_then(NonZeroUsize::new),
        ..MachineConfig::default()
    };
    Machine::new(topology.clone(), config).unwrap()
}

/// Rounds of routed traffic with contention: each round a processor computes 0 or 10 µs,
/// then sends a message of 2 or 4 KiB to the processors 1 place back and 1, 2 and n/2
/// places on (routes that share links), then takes four routed messages from any, folding
/// in who sent what when. The result depends on every arrival and its order, and the few
/// sizes and times make equal arrivals common (from both neighbours on a ring).
fn routed_gossip(
    rounds: u64,
    salt: u64,
) -> impl Fn(&mut Processor<Vec<u64>>) -> Result<u64, ProcessorError> + Sync {
    move |p| {
        let n = p.processors();
        let id = p.id();
        let shifts = [1, n - 1, 2, n / 2];
        let mut digest = id as u64;
        for round in 0..rounds {
            p.occupy(us(10 * (mix(id as u64, round, salt) % 2)));
            for (j, &s) in shifts.iter().enumerate() {
                let words = 256 * (1 + mix(id as u64, round * 4 + j as u64, salt) % 2) as usize;
                p.send_to((id + s) % n, vec![digest; words])?;
            }
            for _ in shifts {
                let (source, m) = p.recv_routed(None)?;
                digest = mix(digest, m[0] ^ source as u64, p.now().as_nanos() as u64);
            }
        }
        Ok(digest)
    }
}

/// Routed messages travel hop by hop under the partitioned semantics: on a ring, a torus, a
/// hypercube and an irregular graph, with both switching models and routes sharing links,
/// every K gives K = 1's results, report and trace.
#[test]
fn parts_routed_messages_give_the_results_report_and_trace_of_one_part() {
    for_each_routed_case(|topology, switching| {
        let run = |k: usize| {
            let record = routed_machine(topology, Some(k), switching)
                .run(routed_gossip(4, 17))
                .unwrap();
            assert_eq!(
                record.report.totals.messages_received,
                16 * topology.len() as u64
            );
            fingerprint(&record)
        };
        let reference = run(1);
        for k in [2, 3, 4, 8] {
            same(
                &run(k),
                &reference,
                &format!("{topology}, {switching:?}, in {k} parts"),
            );
        }
    });
}

/// Calls `check` with a ring, a torus, a hypercube and an irregular graph, each with both
/// switching models.
fn for_each_routed_case(mut check: impl FnMut(&Topology, Switching)) {
    let topologies = [
        Topology::ring(12).unwrap(),
        Topology::torus(&[4, 4]).unwrap(),
        Topology::hypercube(4).unwrap(),
        random_graph(14, 7, 11),
    ];
    for topology in &topologies {
        for switching in [Switching::StoreAndForward, Switching::CutThrough] {
            check(topology, switching);
        }
    }
}

/// Today's engine carries routed messages hop by hop too, reserving every link in the same
/// order as the partitioned semantics (`--partitions 1`): on a ring, a torus, a hypercube and
/// an irregular graph, with both switching models and routes sharing links, its results,
/// report and trace are K = 1's byte for byte (routed messages only: neighbour messages' tie
/// rules differ between the engines).
#[test]
fn parts_todays_engine_gives_one_parts_routed_results_report_and_trace() {
    for_each_routed_case(|topology, switching| {
        let run = |k: Option<usize>| {
            let record = routed_machine(topology, k, switching)
                .run(routed_gossip(4, 17))
                .unwrap();
            assert_eq!(record.report.parts.is_some(), k.is_some());
            record_text(&record)
        };
        same(
            &run(None),
            &run(Some(1)),
            &format!("{topology}, {switching:?}, today's engine against one part"),
        );
    });
}

/// Without contention, a routed message takes the switching model's closed form to the
/// nanosecond, under both conventions: today's engine and the partitioned semantics for any
/// K.
#[test]
fn parts_an_uncontended_routed_message_takes_the_closed_form() {
    for topology in [Topology::torus(&[4, 4]).unwrap(), random_graph(12, 5, 3)] {
        for switching in [Switching::StoreAndForward, Switching::CutThrough] {
            for to in [1, 5, 10, 11] {
                let words = 100 + 37 * to;
                for k in [None, Some(1), Some(2), Some(4)] {
                    let machine = routed_machine(&topology, k, switching);
                    let record = machine
                        .run(|p: &mut Processor<Vec<u64>>| {
                            if p.id() == 0 {
                                p.send_to(to, vec![7; words])?;
                            } else if p.id() == to {
                                p.recv_routed(Some(0))?;
                            }
                            Ok(p.now())
                        })
                        .unwrap();
                    let cost = machine.spec().link;
                    let bytes = 8 * words as u64;
                    let transit = switching.uncontended_ns(&cost, topology.hops(0, to), bytes);
                    assert_eq!(
                        record.results[to],
                        Duration::from_nanos(transit) + us(1),
                        "{topology} to P{to}, {switching:?}, K = {k:?}"
                    );
                }
            }
        }
    }
}

/// A shared link serves routed messages in the order they reach it, in every virtual-time
/// engine: on a chain 0 - 1 - 2, P0 sends 4000 bytes to P2 at 0 (store-and-forward: it
/// reaches link 1 → 2 at 10 µs), P1 sends as much to P2 at 4 µs (it reaches that link at
/// 7 µs). The link serves the message that reaches it first: P1's arrives at 11 µs, P0's
/// waits for it and arrives at 14 µs. (Reserving the whole route at send, P0's message took
/// the link from 10 µs before P1's was sent, and P1's waited behind it until 16 µs, the link
/// idle from 9 to 10 µs.)
#[test]
fn parts_a_shared_link_serves_routed_messages_in_the_order_they_reach_it() {
    let topology = Topology::chain(3).unwrap();
    let config = |partitions| MachineConfig {
        mode: TimeMode::Virtual,
        link: LinkCost {
            send_overhead: us(3),
            latency: us(2),
            per_byte_ns: 0.5,
            ..LinkCost::default()
        },
        partitions,
        ..MachineConfig::default()
    };
    let run = |partitions| {
        Machine::new(topology.clone(), config(partitions))
            .unwrap()
            .run(|p: &mut Processor<Vec<u64>>| match p.id() {
                0 => p.send_to(2, vec![0; 500]).map(|()| (p.now(), p.now())),
                1 => {
                    p.occupy(us(4));
                    p.send_to(2, vec![1; 500]).map(|()| (p.now(), p.now()))
                }
                _ => {
                    p.recv_routed(Some(1))?;
                    let first = p.now();
                    p.recv_routed(Some(0))?;
                    Ok((first, p.now()))
                }
            })
            .unwrap()
            .results[2]
    };
    for k in 0..=3 {
        assert_eq!(
            run(NonZeroUsize::new(k)),
            (us(11), us(14)),
            "K = {k} (0: today's engine)"
        );
    }
}

#[test]
fn parts_configurations_that_cannot_run_are_refused() {
    let topology = Topology::chain(4).unwrap();
    let config = |mode, k: usize, latency| MachineConfig {
        mode,
        link: LinkCost {
            latency,
            ..LinkCost::default()
        },
        partitions: NonZeroUsize::new(k),
        ..MachineConfig::default()
    };
    let refuse = |c: MachineConfig| Machine::new(topology.clone(), c).unwrap_err();
    let e = refuse(config(TimeMode::Virtual, 2, Duration::ZERO));
    assert_eq!(e, ConfigError::NoLookahead { partitions: 2 });
    assert!(e.to_string().contains("--latency") && e.to_string().contains("--partitions"));
    // Native and dilated time are cut into parts only across MPI ranks.
    let e = refuse(config(TimeMode::Dilated(1.0), 2, us(1)));
    assert_eq!(
        e,
        ConfigError::PartitionsNeedRanks {
            mode: "dilated",
            partitions: 2
        }
    );
    for flag in ["--partitions", "--mode", "mpirun", "--features mpi"] {
        assert!(e.to_string().contains(flag), "{e}");
    }
    assert_eq!(
        Machine::new(
            Topology::chain(1).unwrap(),
            config(TimeMode::Native, 1, us(1))
        )
        .unwrap_err(),
        ConfigError::PartitionsNeedRanks {
            mode: "native",
            partitions: 1
        }
    );
    assert_eq!(
        refuse(config(TimeMode::Virtual, 5, us(1))),
        ConfigError::TooManyPartitions {
            partitions: 5,
            processors: 4
        }
    );
    // One part needs no lookahead; auto mode runs partitions in virtual time.
    assert!(
        Machine::new(
            topology.clone(),
            config(TimeMode::Virtual, 1, Duration::ZERO)
        )
        .is_ok()
    );
    assert!(Machine::new(topology.clone(), config(TimeMode::Auto, 2, us(1))).is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(12),
        ..ProptestConfig::default()
    })]

    /// Any topology, any K from 1 to 8: the fingerprint of K = 1.
    #[test]
    fn parts_match_one_part_on_random_topologies(
        family in 0..4u8,
        size in 4..24usize,
        seed in any::<u64>(),
        k in 2..=8usize,
        capacity in 1..3usize,
    ) {
        let topology = match family {
            0 => {
                let parents = (0..size)
                    .map(|i| (i > 0).then(|| (mix(i as u64, 9, seed) % i as u64) as usize))
                    .collect();
                Topology::from_parents(parents).unwrap()
            }
            1 => Topology::ring(size).unwrap(),
            2 => Topology::mesh(&[size / 4 + 1, 4]).unwrap(),
            _ => random_graph(size, size / 2, seed),
        };
        let k = k.min(topology.len());
        same_for_every_k(&topology, &[k], capacity, seed);
    }
}
