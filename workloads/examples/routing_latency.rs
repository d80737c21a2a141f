//! Latency against hop count on `mesh:16x16` in virtual time, for both switching models:
//! P0 sends 1 KiB to the processor h hops away along x then y; the arrival beside the model
//! (store-and-forward h(β + mτ + t_h), cut-through β + h t_h + mτ). Run by
//! `scripts/validate-interconnects.sh`, recorded in docs/results/interconnects.md.
//!
//! ```text
//! cargo run --release -p multicomputer-workloads --example routing_latency
//! ```

use std::time::Duration;

use multicomputer_runtime::{
    LinkCost, Machine, MachineConfig, Processor, Switching, TimeMode, Topology,
};

fn main() {
    let bytes = 1024;
    println!("| hops | store-and-forward µs | model µs | cut-through µs | model µs |");
    println!("|---|---|---|---|---|");
    for h in [1usize, 2, 4, 8, 15, 22, 30] {
        let (x, y) = (h.min(15), h.saturating_sub(15));
        let to = y * 16 + x;
        let mut row = format!("| {h} |");
        for switching in [Switching::StoreAndForward, Switching::CutThrough] {
            let link = LinkCost {
                send_overhead: Duration::from_micros(10),
                latency: Duration::from_micros(1),
                per_byte_ns: 1.0,
                switching,
                ..LinkCost::default()
            };
            let config = MachineConfig {
                mode: TimeMode::Virtual,
                link,
                ..MachineConfig::default()
            };
            let topology = Topology::mesh(&[16, 16]).unwrap();
            assert_eq!(topology.hops(0, to), h);
            let machine = Machine::new(topology, config).unwrap();
            let record = machine
                .run(|p: &mut Processor<Vec<u8>>| {
                    if p.id() == 0 {
                        p.send_to(to, vec![0; bytes])?;
                    } else if p.id() == to {
                        p.recv_routed(Some(0))?;
                    }
                    Ok(p.now())
                })
                .unwrap();
            let model = switching.uncontended_ns(&link, h, bytes as u64);
            row.push_str(&format!(
                " {:.3} | {:.3} |",
                record.results[to].as_nanos() as f64 / 1e3,
                model as f64 / 1e3
            ));
        }
        println!("{row}");
    }
}
