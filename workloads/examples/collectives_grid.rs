//! Every collective algorithm against its model in virtual time, over a grid of networks,
//! processor counts and vector sizes; prints one Markdown row per cell (measured, model,
//! difference in ns). Run by `scripts/validate-interconnects.sh`, recorded in
//! docs/results/interconnects.md.
//!
//! ```text
//! cargo run --release -p multicomputer-workloads --example collectives_grid -- [MAX_P] [MAX_BYTES]
//! ```
//!
//! Costs: β = 10 µs start-up, 1 µs receive overhead, t_h = 500 ns per hop, τ = 1 ns/B,
//! γ = 0.5 ns/B, cut-through and store-and-forward.

use std::time::Duration;

use multicomputer_runtime::{LinkCost, Machine, MachineConfig, Switching, TimeMode, Topology};
use multicomputer_workloads::collectives::{CollectiveSpec, ELEMENT_BYTES, Operation};

fn main() {
    let mut args = std::env::args().skip(1);
    let max_p: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1024);
    let max_bytes: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1 << 16);
    println!(
        "| network | P | bytes | switching | operation | algorithm | measured ns | model ns | measured − model ns |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut cells = 0;
    let mut exact = 0;
    for switching in [Switching::CutThrough, Switching::StoreAndForward] {
        let link = LinkCost {
            send_overhead: Duration::from_micros(10),
            recv_overhead: Duration::from_micros(1),
            latency: Duration::from_nanos(500),
            per_byte_ns: 1.0,
            switching,
            ..LinkCost::default()
        };
        let mut networks = Vec::new();
        let mut d = 1;
        while (1usize << d) <= max_p {
            networks.push(format!("hypercube:{d}"));
            d += 2;
        }
        for p in [4, 16, 64] {
            if p <= max_p {
                networks.push(format!("ring:{p}"));
            }
        }
        for q in [4, 8] {
            if q * q <= max_p {
                networks.push(format!("torus:{q}x{q}"));
                networks.push(format!("mesh:{q}x{q}"));
            }
        }
        for net in &networks {
            let topology = Topology::parse(net).unwrap();
            let p = topology.len();
            let config = MachineConfig {
                mode: TimeMode::Virtual,
                link,
                ..MachineConfig::default()
            };
            let machine = Machine::new(topology, config).unwrap();
            let mut bytes = 8;
            while bytes <= max_bytes {
                for op in Operation::ALL {
                    for &alg in op.algorithms() {
                        if alg.needs_power_of_two() && !p.is_power_of_two() {
                            continue;
                        }
                        let spec = CollectiveSpec {
                            operation: op,
                            algorithm: alg,
                            root: 0,
                            elements: bytes / ELEMENT_BYTES,
                            gamma_ns_per_byte: 0.5,
                        };
                        let c = spec.run(&machine).unwrap();
                        let measured = c.predicted.makespan_ns as i64 + c.excess_ns;
                        cells += 1;
                        exact += usize::from(c.excess_ns == 0);
                        println!(
                            "| {net} | {p} | {bytes} | {} | {} | {} | {measured} | {} | {} |",
                            switching.name(),
                            op.name(),
                            alg.name(),
                            c.predicted.makespan_ns,
                            c.excess_ns
                        );
                    }
                }
                bytes *= 64;
            }
        }
    }
    println!();
    println!("{exact} of {cells} cells equal their model to the nanosecond.");
}
