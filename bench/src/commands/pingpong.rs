//! `multicomputer pingpong`: the runtime's own per-message cost against a bare crossbeam
//! ping-pong between two pinned, spinning threads, measured alternately in the same run.

use std::time::Instant;

use anyhow::{Result, bail};
use multicomputer_runtime::{
    Machine, MachineConfig, TimeMode, Topology, WaitStrategy, bare_pingpong,
};
use serde::Serialize;

use crate::cli::PingpongArgs;
use crate::output::{human_ns, print_json, table};

/// What `pingpong --json` prints.
#[derive(Debug, Serialize)]
pub(crate) struct PingpongResult {
    pub(crate) round_trips: u64,
    pub(crate) repeat: u32,
    /// Median one-way time of a bare crossbeam bounded(1) ping-pong, ns.
    pub(crate) bare_one_way_ns: f64,
    /// Median one-way time of a runtime send/receive (native, spinning, no emulated cost), ns.
    pub(crate) runtime_one_way_ns: f64,
    /// runtime / bare.
    pub(crate) ratio: f64,
    pub(crate) bare_samples_ns: Vec<f64>,
    pub(crate) runtime_samples_ns: Vec<f64>,
}

fn bare(round_trips: u64, cores: &[core_affinity::CoreId]) -> f64 {
    bare_pingpong(round_trips, cores).as_nanos() as f64 / round_trips as f64 / 2.0
}

fn runtime(round_trips: u64) -> Result<f64> {
    let config = MachineConfig {
        mode: TimeMode::Native,
        wait: WaitStrategy::Spin,
        capacity: 1,
        ..MachineConfig::default()
    };
    let machine = Machine::new(Topology::chain(2)?, config)?;
    let record = machine.run(|p| {
        let link = p.links()[0];
        if p.parent().is_none() {
            let t = Instant::now();
            for i in 0..round_trips {
                p.send(link, i)?;
                let _: u64 = p.recv(link)?;
            }
            Ok(t.elapsed().as_nanos() as f64 / round_trips as f64 / 2.0)
        } else {
            for _ in 0..round_trips {
                let v = p.recv(link)?;
                p.send(link, v)?;
            }
            Ok(0.0)
        }
    })?;
    Ok(record.results[0])
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Measures both, alternating, and returns their medians.
pub(crate) fn measure(round_trips: u64, repeat: u32) -> Result<PingpongResult> {
    let cores = core_affinity::get_core_ids().unwrap_or_default();
    if cores.len() < 2 {
        bail!(
            "pingpong needs two cores to pin its two threads; this process may use {}",
            cores.len()
        );
    }
    let mut b = Vec::new();
    let mut r = Vec::new();
    // One warm-up of each, then alternate so both see the same machine state.
    bare(round_trips / 10 + 1, &cores);
    runtime(round_trips / 10 + 1)?;
    for _ in 0..repeat {
        b.push(bare(round_trips, &cores));
        r.push(runtime(round_trips)?);
    }
    let bare_one_way_ns = median(b.clone());
    let runtime_one_way_ns = median(r.clone());
    Ok(PingpongResult {
        round_trips,
        repeat,
        bare_one_way_ns,
        runtime_one_way_ns,
        ratio: runtime_one_way_ns / bare_one_way_ns,
        bare_samples_ns: b,
        runtime_samples_ns: r,
    })
}

pub(crate) fn print(r: &PingpongResult) {
    let mut t = table(&["one-way message", "median", "ratio"]);
    t.add_row(vec![
        "bare crossbeam bounded(1), spinning".into(),
        human_ns(r.bare_one_way_ns),
        "1.00".into(),
    ]);
    t.add_row(vec![
        "runtime send/recv, native spin".into(),
        human_ns(r.runtime_one_way_ns),
        format!("{:.2}", r.ratio),
    ]);
    println!("{t}");
}

pub(crate) fn run(args: &PingpongArgs) -> Result<()> {
    let r = measure(args.round_trips, args.repeat)?;
    if args.json {
        print_json(&r)
    } else {
        print(&r);
        Ok(())
    }
}
