//! Every collective against the sequential reference, and its virtual time against its model.

use std::time::Duration;

use multicomputer_runtime::{
    LinkCost, Machine, MachineConfig, Switching, TimeMode, Topology, WaitStrategy,
};

use super::*;

const GAMMA: f64 = 0.5;

fn link(switching: Switching) -> LinkCost {
    LinkCost {
        send_overhead: Duration::from_micros(10),
        recv_overhead: Duration::from_micros(1),
        latency: Duration::from_nanos(500),
        per_byte_ns: 2.0,
        switching,
        ..LinkCost::default()
    }
}

/// Runs `operation` by `algorithm` on `topology`; checks every result against the reference
/// and returns the measured makespan and the model's, ns.
fn measure(
    operation: Operation,
    algorithm: Algorithm,
    topology: &str,
    mode: TimeMode,
    root: usize,
    elements: usize,
    switching: Switching,
) -> (u64, u64) {
    let cost = link(switching);
    measure_on(
        operation, algorithm, topology, mode, root, elements, cost, GAMMA,
    )
}

/// As [`measure`], on links of cost `cost`, the reduction costing `gamma` ns a byte.
#[allow(clippy::too_many_arguments)]
fn measure_on(
    operation: Operation,
    algorithm: Algorithm,
    topology: &str,
    mode: TimeMode,
    root: usize,
    elements: usize,
    cost: LinkCost,
    gamma: f64,
) -> (u64, u64) {
    let topology = Topology::parse(topology).unwrap();
    let p = topology.len();
    let config = MachineConfig {
        mode,
        wait: WaitStrategy::Sleep,
        link: cost,
        ..MachineConfig::default()
    };
    let machine = Machine::new(topology, config).unwrap();
    let sum = Reduction::sum(gamma);
    let record = machine
        .run(|proc| {
            let data = input(operation, proc.id(), p, elements);
            run(proc, operation, algorithm, root, data, &sum)
        })
        .unwrap();
    let inputs: Vec<Vec<f64>> = (0..p).map(|i| input(operation, i, p, elements)).collect();
    let want = reference(operation, root, &inputs, &sum);
    for (i, (got, want)) in record.results.iter().zip(&want).enumerate() {
        if let Some(want) = want {
            assert_eq!(got, want, "{operation:?} {algorithm:?} P{i}");
        }
    }
    let costs = Costs::of(&cost, gamma);
    let model = model_ns(
        operation,
        algorithm,
        machine.topology(),
        root,
        elements,
        8,
        &costs,
    )
    .unwrap();
    (record.report.makespan().as_nanos() as u64, model)
}

#[test]
fn every_algorithm_equals_the_reference_and_its_model_on_a_hypercube() {
    for switching in [Switching::StoreAndForward, Switching::CutThrough] {
        for op in Operation::ALL {
            for &alg in op.algorithms() {
                for (root, elements) in [(0, 64), (5, 13), (3, 1)] {
                    let (measured, model) = measure(
                        op,
                        alg,
                        "hypercube:3",
                        TimeMode::Virtual,
                        root,
                        elements,
                        switching,
                    );
                    assert_eq!(
                        measured, model,
                        "{op:?} {alg:?} root {root}, {elements} elements, {switching:?}"
                    );
                }
            }
        }
    }
}

/// Routes that share links but never use one at the same time do not wait for each other:
/// the recursive-doubling all-reduce of 64 KiB on torus:4x4 with only a per-hop latency of
/// 1 µs (`collective all-reduce -t torus:4x4 --bytes 64KiB --latency 1us`) takes its model's
/// 6 µs. (Reserving each route whole at send, a message that reached a link before one sent
/// earlier waited behind that one's later reservation, the link idle: 12 µs.)
#[test]
fn a_routed_collective_on_links_shared_at_other_times_equals_its_model() {
    for switching in [Switching::StoreAndForward, Switching::CutThrough] {
        let cost = LinkCost {
            latency: Duration::from_micros(1),
            switching,
            ..LinkCost::default()
        };
        let (measured, model) = measure_on(
            Operation::AllReduce,
            Algorithm::RecursiveDoubling,
            "torus:4x4",
            TimeMode::Virtual,
            0,
            8192,
            cost,
            0.0,
        );
        assert_eq!((measured, model), (6_000, 6_000), "{switching:?}");
    }
}

#[test]
fn ring_algorithms_equal_their_models_on_a_ring_of_any_size() {
    for p in [2, 5, 8] {
        for (op, alg) in [
            (Operation::AllReduce, Algorithm::Ring),
            (Operation::ReduceScatter, Algorithm::Ring),
            (Operation::AllGather, Algorithm::Ring),
        ] {
            let (measured, model) = measure(
                op,
                alg,
                &format!("ring:{p}"),
                TimeMode::Virtual,
                0,
                40,
                Switching::CutThrough,
            );
            assert_eq!(measured, model, "{op:?} {alg:?} on ring:{p}");
        }
    }
}

#[test]
fn every_algorithm_equals_the_reference_on_other_networks_in_dilated_and_virtual_time() {
    for mode in [TimeMode::Dilated(1.0), TimeMode::Virtual] {
        for topology in ["ring:4", "mesh:2x2", "binary:2"] {
            for op in Operation::ALL {
                for &alg in op.algorithms() {
                    let p = Topology::parse(topology).unwrap().len();
                    if alg.needs_power_of_two() && !p.is_power_of_two() {
                        continue;
                    }
                    measure(op, alg, topology, mode, 1, 9, Switching::CutThrough);
                }
            }
        }
    }
}

#[test]
fn models_are_the_papers_formulas_on_one_hop() {
    // α = 10 + 0.5 + 1 µs, β = 2 ns/B, γ = 0.5 ns/B; p = 8, m = 8 · 64 = 512 B, blocks 64 B.
    let costs = Costs::of(&link(Switching::CutThrough), GAMMA);
    let cube = Topology::hypercube(3).unwrap();
    let alpha = 11_500u64;
    let (m, b) = (512u64, 64u64);
    let model = |op, alg| model_ns(op, alg, &cube, 0, 64, 8, &costs).unwrap();
    // Binomial broadcast: lg p (α + mβ).
    assert_eq!(
        model(Operation::Broadcast, Algorithm::BinomialTree),
        3 * (alpha + 2 * m)
    );
    // Reduce: lg p (α + mβ + mγ).
    assert_eq!(
        model(Operation::Reduce, Algorithm::BinomialTree),
        3 * (alpha + 2 * m + m / 2)
    );
    // Ring all-reduce: 2(p−1)α + 2(p−1)bβ + (p−1)bγ.
    assert_eq!(
        model(Operation::AllReduce, Algorithm::Ring),
        14 * alpha + 14 * 2 * b + 7 * b / 2
    );
    // Rabenseifner: 2 lg p α + 2(p−1)bβ + (p−1)bγ.
    assert_eq!(
        model(Operation::AllReduce, Algorithm::Rabenseifner),
        6 * alpha + 14 * 2 * b + 7 * b / 2
    );
    // Recursive-doubling all-gather: lg p α + (p−1) b β.
    assert_eq!(
        model(Operation::AllGather, Algorithm::RecursiveDoubling),
        3 * alpha + 7 * 2 * b
    );
    // Barrier on a hypercube: the butterfly, three rounds of one hop, no bytes.
    assert_eq!(
        model(Operation::Barrier, Algorithm::Dissemination),
        3 * alpha
    );
}

#[test]
fn bad_choices_are_refused_with_reasons() {
    let e = check(Operation::Broadcast, Algorithm::Ring, 8, 0).unwrap_err();
    assert!(
        e.to_string()
            .contains("broadcast has no ring algorithm (it has: binomial-tree, dimension-ordered)")
    );
    let e = check(Operation::AllReduce, Algorithm::RecursiveDoubling, 6, 0).unwrap_err();
    assert!(e.to_string().contains("power-of-two"), "{e}");
    let e = check(Operation::Reduce, Algorithm::BinomialTree, 4, 4).unwrap_err();
    assert!(e.to_string().contains("root 4"), "{e}");
}

#[test]
fn every_algorithm_equals_its_model_on_hypercubes_of_2_to_64() {
    for d in 1..=6 {
        for elements in [1, 100, 1000] {
            for op in Operation::ALL {
                for &alg in op.algorithms() {
                    let (measured, model) = measure(
                        op,
                        alg,
                        &format!("hypercube:{d}"),
                        TimeMode::Virtual,
                        (1 << d) - 1,
                        elements,
                        Switching::CutThrough,
                    );
                    assert_eq!(
                        measured, model,
                        "{op:?} {alg:?} on hypercube:{d}, {elements}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_dimension_ordered_forms_equal_their_models_on_tori_and_hypercubes() {
    for topology in [
        "torus:4x4",
        "torus:3x5",
        "torus:2x3x4",
        "hypercube:4",
        "ring:6",
    ] {
        let t = Topology::parse(topology).unwrap();
        let p = t.len();
        let balanced = t
            .grid()
            .unwrap()
            .sizes()
            .iter()
            .all(|s| s.is_power_of_two());
        for op in Operation::ALL {
            if !op.algorithms().contains(&Algorithm::DimensionOrdered) {
                continue;
            }
            for (root, elements) in [(0, 1), (p - 1, 30), (p / 2 + 1, 200)] {
                for switching in [Switching::StoreAndForward, Switching::CutThrough] {
                    let (measured, model) = measure(
                        op,
                        Algorithm::DimensionOrdered,
                        topology,
                        TimeMode::Virtual,
                        root,
                        elements,
                        switching,
                    );
                    // A binomial tree on a line whose length is not a power of two is
                    // unbalanced: its root's first send is to a leaf, which the model charges
                    // as a whole step, so there the model is an upper bound.
                    let tree = matches!(
                        op,
                        Operation::Broadcast
                            | Operation::Reduce
                            | Operation::Scatter
                            | Operation::Gather
                    );
                    let what = format!(
                        "{op:?} on {topology}, root {root}, {elements} elements, {switching:?}"
                    );
                    if tree && !balanced {
                        assert!(measured <= model, "{what}: {measured} > {model}");
                    } else {
                        assert_eq!(measured, model, "{what}");
                    }
                }
            }
        }
    }
}

#[test]
fn the_dimension_ordered_forms_equal_the_reference_on_meshes_and_trees() {
    for mode in [TimeMode::Dilated(1.0), TimeMode::Virtual] {
        for topology in ["mesh:3x3", "mesh:2x3x2", "binary:3"] {
            for op in Operation::ALL {
                if op.algorithms().contains(&Algorithm::DimensionOrdered) {
                    measure(
                        op,
                        Algorithm::DimensionOrdered,
                        topology,
                        mode,
                        4,
                        20,
                        Switching::CutThrough,
                    );
                }
            }
        }
    }
    // On a mesh the binomial forms' steps share no link and are equally far in every line:
    // the measurement is the model.
    for op in [
        Operation::Broadcast,
        Operation::Reduce,
        Operation::Scatter,
        Operation::Gather,
    ] {
        let (measured, model) = measure(
            op,
            Algorithm::DimensionOrdered,
            "mesh:4x4",
            TimeMode::Virtual,
            5,
            64,
            Switching::CutThrough,
        );
        assert_eq!(measured, model, "{op:?} on mesh:4x4");
    }
}

#[test]
fn dimension_ordered_models_are_kumars_formulas_on_a_torus() {
    // torus:4x4, root 0, 128 elements: m = 1024 B, b = 64 B; cut-through, one message of
    // B bytes over h hops = β + h·t_h + B·τ + receive = 11 µs + 500 ns·h + 2 ns·B.
    let costs = Costs::of(&link(Switching::CutThrough), GAMMA);
    let torus = Topology::parse("torus:4x4").unwrap();
    let model = |op| model_ns(op, Algorithm::DimensionOrdered, &torus, 0, 128, 8, &costs).unwrap();
    let msg = |hops: u64, bytes: u64| 11_000 + 500 * hops + 2 * bytes;
    // Broadcast: along x then y, each a binomial tree of 4 (partners 1 then 2 hops apart):
    // Σ_d lg s_d (α + m·β) plus the second hop's t_h.
    assert_eq!(
        model(Operation::Broadcast),
        2 * (msg(1, 1024) + msg(2, 1024))
    );
    assert_eq!(
        model(Operation::Reduce),
        2 * (msg(1, 1024) + msg(2, 1024)) + 4 * 512
    );
    // All-gather (Kumar §4.2, eq. 4.3 unchecked): 2(√p − 1)α + (p − 1)·b·β, a ring along x of 64-B blocks,
    // then along y of 256-B chunks.
    assert_eq!(
        model(Operation::AllGather),
        3 * msg(1, 64) + 3 * msg(1, 256)
    );
    assert_eq!(model(Operation::AllGather), 6 * msg(1, 0) + 15 * 64 * 2);
    // Reduce-scatter, its dual: y first (256-B chunks), then x, each step combining.
    assert_eq!(
        model(Operation::ReduceScatter),
        6 * msg(1, 0) + 15 * 64 * 2 + 15 * 64 / 2
    );
    // Scatter (§4.4): Σ_d lg s_d·α + (p − 1)·b·β with the far partners' t_h: along y units
    // of 4 blocks (1 then 2 of them), then along x single blocks (1 then 2).
    assert_eq!(
        model(Operation::Scatter),
        msg(1, 256) + msg(2, 512) + msg(1, 64) + msg(2, 128)
    );
    assert_eq!(model(Operation::Gather), model(Operation::Scatter));
}

#[test]
fn stand_in_contents_take_the_full_vectors_times_to_the_nanosecond() {
    // Contention included (recursive doubling on a ring, all-to-all on a mesh), both
    // switching models: 1/8 of the contents on links 8 times slower per byte.
    for switching in [Switching::StoreAndForward, Switching::CutThrough] {
        for topology in ["hypercube:3", "ring:8", "mesh:2x4"] {
            let full_link = link(switching);
            let config = |link| MachineConfig {
                mode: TimeMode::Virtual,
                link,
                ..MachineConfig::default()
            };
            for op in Operation::ALL {
                for &alg in op.algorithms() {
                    let full = CollectiveSpec {
                        operation: op,
                        algorithm: alg,
                        root: 3,
                        elements: 512,
                        gamma_ns_per_byte: GAMMA,
                    };
                    let (small, slow_link) = full.stand_in(&full_link, 8, 8).unwrap();
                    assert_eq!(small.elements, 64);
                    let run = |spec: &CollectiveSpec, link| {
                        let t = Topology::parse(topology).unwrap();
                        spec.run(&Machine::new(t, config(link)).unwrap()).unwrap()
                    };
                    let (a, b) = (run(&full, full_link), run(&small, slow_link));
                    let what = format!("{op:?} {alg:?} on {topology}, {switching:?}");
                    assert_eq!(a.report.makespan(), b.report.makespan(), "{what}");
                    assert_eq!(a.predicted.makespan_ns, b.predicted.makespan_ns, "{what}");
                    assert_eq!(a.report.totals.messages_sent, b.report.totals.messages_sent);
                    assert_eq!(a.report.totals.bytes_sent, 8 * b.report.totals.bytes_sent);
                }
            }
        }
    }
    // Not a power of two, or blocks that would not scale: refused.
    let spec = CollectiveSpec {
        operation: Operation::AllReduce,
        algorithm: Algorithm::Ring,
        root: 0,
        elements: 96,
        gamma_ns_per_byte: GAMMA,
    };
    let l = link(Switching::CutThrough);
    assert!(spec.stand_in(&l, 3, 2).is_none());
    assert!(spec.stand_in(&l, 32, 2).is_none());
    assert!(spec.stand_in(&l, 4, 16).is_none());
    assert!(spec.stand_in(&l, 4, 8).is_some());
    assert_eq!(spec.stand_in(&l, 1, 64), Some((spec, l)));
}

#[test]
fn the_bytes_sent_are_every_steps_pairs_times_its_bytes() {
    let sent = |op, alg, t: &str, elements| {
        let topology: Topology = t.parse().unwrap();
        sent_bytes(op, alg, &topology, 0, elements, 8).unwrap()
    };
    // A binomial broadcast of 1 KiB reaches each of the 7 others once.
    let b = sent(
        Operation::Broadcast,
        Algorithm::BinomialTree,
        "hypercube:3",
        128,
    );
    assert_eq!(b, 7 * 1024);
    // Recursive doubling: 3 steps, every processor sends its whole 1 KiB in each.
    let d = sent(
        Operation::AllReduce,
        Algorithm::RecursiveDoubling,
        "hypercube:3",
        128,
    );
    assert_eq!(d, 3 * 8 * 1024);
    // The ring: 2 × 3 steps, each processor one block of 128/4 elements (256 B) a step.
    let r = sent(Operation::AllReduce, Algorithm::Ring, "ring:4", 128);
    assert_eq!(r, 2 * 3 * 4 * 256);
    // A barrier carries nothing.
    assert_eq!(
        sent(Operation::Barrier, Algorithm::Dissemination, "ring:4", 128),
        0
    );
}
