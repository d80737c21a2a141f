//! Networks beyond trees, in every time mode: every link carries messages both ways in its
//! documented order, directions name the right neighbour, and the spanning tree works for
//! tree programs. Emulated times are compared with hand-worked values (exact in every mode).

use std::time::Duration;

use multicomputer_runtime::{
    Direction, LinkCost, Machine, MachineConfig, Processor, ProcessorError, TimeMode, Topology,
    WaitStrategy,
};

mod common;

use common::{subtree_sum, us};

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

/// Every processor sends its id on each of its links, then receives on each: returns the
/// ids it got, in link order.
fn exchange_ids(p: &mut Processor<u64>) -> Result<Vec<u64>, ProcessorError> {
    let links = p.links().to_vec();
    for &l in &links {
        p.send(l, p.id() as u64)?;
    }
    links.iter().map(|&l| p.recv(l)).collect()
}

#[test]
fn every_family_carries_messages_on_every_link_in_link_order_in_dilated_and_virtual_time() {
    for mode in MODES {
        for spec in [
            "ring:5",
            "mesh:3x2",
            "torus:3x3",
            "mesh:2x2x2",
            "hypercube:3",
        ] {
            let m = machine(spec, mode, LinkCost::default());
            let record = m.run(exchange_ids).unwrap();
            for (i, got) in record.results.iter().enumerate() {
                let want: Vec<u64> = m
                    .topology()
                    .neighbours(i)
                    .into_iter()
                    .map(|j| j as u64)
                    .collect();
                assert_eq!(got, &want, "{spec} P{i} in {mode:?}");
            }
        }
    }
}

#[test]
fn a_native_ring_of_two_has_one_link() {
    let m = machine("ring:2", TimeMode::Native, LinkCost::default());
    let record = m.run(exchange_ids).unwrap();
    assert_eq!(record.results, vec![vec![1], vec![0]]);
}

#[test]
fn a_shift_along_x_on_a_torus_follows_the_directions_in_dilated_and_virtual_time() {
    for mode in MODES {
        let m = machine("torus:4x3", mode, LinkCost::default());
        let record = m
            .run(|p: &mut Processor<u64>| {
                let plus = p.link_in(0, Direction::Plus).unwrap();
                let minus = p.link_in(0, Direction::Minus).unwrap();
                let x = p.coordinates().unwrap()[0] as u64;
                p.send(plus, x)?;
                p.recv(minus)
            })
            .unwrap();
        for (i, &got) in record.results.iter().enumerate() {
            let x = i % 4;
            assert_eq!(got as usize, (x + 3) % 4, "P{i} in {mode:?}");
        }
    }
}

#[test]
fn a_token_round_a_ring_takes_one_start_up_per_hop_in_dilated_and_virtual_time() {
    for mode in MODES {
        let link = LinkCost {
            send_overhead: us(40),
            ..LinkCost::default()
        };
        let m = machine("ring:6", mode, link);
        let record = m
            .run(|p: &mut Processor<u64>| {
                let next = p.link_in(0, Direction::Plus).unwrap();
                let prev = p.link_in(0, Direction::Minus).unwrap();
                if p.id() == 0 {
                    p.send(next, 1)?;
                    p.recv(prev)
                } else {
                    let token = p.recv(prev)?;
                    p.send(next, token + 1)?;
                    Ok(token)
                }
            })
            .unwrap();
        assert_eq!(record.results[0], 6);
        assert_eq!(record.report.makespan(), Duration::from_micros(6 * 40));
    }
}

#[test]
fn tree_programs_run_on_the_spanning_tree_of_a_mesh_in_dilated_and_virtual_time() {
    for mode in MODES {
        let link = LinkCost {
            send_overhead: us(10),
            ..LinkCost::default()
        };
        let topology = Topology::mesh(&[3, 3]).unwrap().rooted_at(4).unwrap();
        let config = MachineConfig {
            mode,
            wait: WaitStrategy::Sleep,
            link,
            ..MachineConfig::default()
        };
        let m = Machine::new(topology, config).unwrap();
        let record = m.run(subtree_sum).unwrap();
        assert_eq!(record.results[4], 36);
        // The centre's tree has two levels below it: the corners send at 10 µs, the edge
        // processors at 20 µs, the centre receives the last at 20 µs.
        assert_eq!(record.report.makespan(), Duration::from_micros(20));
        assert_eq!(record.report.totals.messages_sent, 8);
    }
}
