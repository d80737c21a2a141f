//! Every collective algorithm against its model in virtual time, over a grid of networks
//! (2 to MAX_P processors), vector sizes (8 B to MAX_BYTES, ×64 a step, and MAX_BYTES) and
//! both switching models; prints one Markdown row per cell (measured, model, difference in
//! ns, contents) and a summary. Run by `scripts/validate-interconnects.sh`, recorded in
//! docs/results/interconnects.md.
//!
//! ```text
//! cargo run --release -p multicomputer-workloads --example collectives_grid -- \
//!     [MAX_P] [MAX_BYTES] [FULL_BYTES_PER_COPY] [NETWORKS]
//! ```
//!
//! NETWORKS (default: all of the grid's up to MAX_P) is a comma-separated list of the grid's
//! networks to run, in the grid's order, to take the grid in parts: `… 1024 16777216
//! 67108864 ring:256,torus:32x32`.
//!
//! Every cell runs the algorithm on the emulated network and checks every processor's
//! result against the sequential reference. A cell whose vectors, on all its processors,
//! hold at most FULL_BYTES_PER_COPY (default 64 MiB; a run holds about 8 copies) runs with
//! its full contents. A larger one runs with stand-in contents
//! ([`CollectiveSpec::stand_in`]): 1/k of the elements, the smallest power of two k that
//! fits, on links k times slower per byte with a reduction k times slower per byte, so
//! every message and combination takes the full size's time; the row says `1/k`, and the
//! reference check is of the stand-in's contents. The model is always the full size's.
//!
//! Costs: β = 10 µs start-up, 1 µs receive overhead, t_h = 500 ns per hop, τ = 1 ns/B,
//! γ = 0.5 ns/B; root 0.

use std::time::Duration;

use multicomputer_runtime::{LinkCost, Machine, MachineConfig, Switching, TimeMode, Topology};
use multicomputer_workloads::collectives::{CollectiveSpec, Costs, ELEMENT_BYTES, Operation};

/// The networks of the grid up to `max_p` processors.
fn networks(max_p: usize) -> Vec<String> {
    let mut out = Vec::new();
    for d in [1, 3, 5, 7, 9, 10] {
        if (1usize << d) <= max_p {
            out.push(format!("hypercube:{d}"));
        }
    }
    for p in [4, 16, 64, 256, 1024] {
        if p <= max_p {
            out.push(format!("ring:{p}"));
        }
    }
    for q in [4, 8, 32] {
        if q * q <= max_p {
            out.push(format!("torus:{q}x{q}"));
            out.push(format!("mesh:{q}x{q}"));
        }
    }
    out
}

/// The sizes of the grid: 8 B, ×64 a step while below `max_bytes`, and `max_bytes`.
fn sizes(max_bytes: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut b = 8;
    while b < max_bytes {
        out.push(b);
        b *= 64;
    }
    out.push(max_bytes);
    out
}

fn main() {
    let mut args = std::env::args().skip(1);
    let max_p: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1024);
    let max_bytes: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(16 << 20);
    let full_bytes: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(64 << 20);
    let only: Option<Vec<String>> = args
        .next()
        .map(|a| a.split(',').map(str::to_string).collect());
    let grid = networks(max_p);
    if let Some(bad) = only.iter().flatten().find(|n| !grid.contains(n)) {
        eprintln!("NETWORKS: {bad} is not one of the grid's networks up to {max_p} processors");
        std::process::exit(2);
    }
    let chosen: Vec<String> = grid
        .into_iter()
        .filter(|n| only.as_ref().is_none_or(|o| o.contains(n)))
        .collect();
    println!(
        "| network | P | bytes | switching | operation | algorithm | measured ns | model ns | measured − model ns | contents |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let (mut cells, mut exact, mut stand_ins) = (0, 0, 0);
    for switching in [Switching::CutThrough, Switching::StoreAndForward] {
        let link = LinkCost {
            send_overhead: Duration::from_micros(10),
            recv_overhead: Duration::from_micros(1),
            latency: Duration::from_nanos(500),
            per_byte_ns: 1.0,
            switching,
            ..LinkCost::default()
        };
        for net in &chosen {
            let topology = Topology::parse(net).unwrap();
            let p = topology.len();
            for bytes in sizes(max_bytes) {
                for op in Operation::ALL {
                    for &alg in op.algorithms() {
                        if alg.needs_power_of_two() && !p.is_power_of_two() {
                            continue;
                        }
                        let full = CollectiveSpec {
                            operation: op,
                            algorithm: alg,
                            root: 0,
                            elements: bytes / ELEMENT_BYTES,
                            gamma_ns_per_byte: 0.5,
                        };
                        let mut factor = 1;
                        while p * bytes / factor > full_bytes {
                            factor *= 2;
                        }
                        let (spec, cell_link) = full
                            .stand_in(&link, factor, p)
                            .expect("powers of two throughout the grid");
                        let config = MachineConfig {
                            mode: TimeMode::Virtual,
                            link: cell_link,
                            ..MachineConfig::default()
                        };
                        let machine = Machine::new(topology.clone(), config).unwrap();
                        let c = spec.run(&machine).unwrap();
                        // The model of the full vectors on the real links.
                        let model = multicomputer_workloads::collectives::model_ns(
                            op,
                            alg,
                            &topology,
                            0,
                            full.elements,
                            ELEMENT_BYTES,
                            &Costs::of(&link, full.gamma_ns_per_byte),
                        )
                        .unwrap();
                        assert_eq!(model, c.predicted.makespan_ns, "stand-in model");
                        let measured = c.report.makespan().as_nanos() as i64;
                        let diff = measured - model as i64;
                        cells += 1;
                        exact += usize::from(diff == 0);
                        stand_ins += usize::from(factor > 1);
                        println!(
                            "| {net} | {p} | {bytes} | {} | {} | {} | {measured} | {model} | {diff} | {} |",
                            switching.name(),
                            op.name(),
                            alg.name(),
                            if factor == 1 {
                                "full".to_string()
                            } else {
                                format!("1/{factor}")
                            }
                        );
                    }
                }
            }
        }
    }
    println!();
    println!(
        "{exact} of {cells} cells equal their model to the nanosecond; {stand_ins} ran with \
         stand-in contents."
    );
}
