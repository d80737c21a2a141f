//! The default tour: what `cargo run --release` with no arguments shows a new user, in well
//! under a minute.
//!
//! 1. Calibrate this host (its own message, wake-up and wait costs) and save the profile.
//! 2. Run a small processor-farm sweep on chains and binary trees and print measured beside
//!    predicted speedup, writing CSV, JSON and plots to the results folder.
//! 3. Emulate more processors than the host has cores, to show dilation and fidelity.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;

use crate::cli::{EmulateArgs, MachineArgs, PatternArg, TimeArgs};
use crate::commands::farm::EngineArgs;
use crate::commands::sweep::{self, SweepFarmArgs};
use crate::commands::{calibrate, emulate};
use crate::output::{in_out, write_json};

fn machine_args(topology: &str) -> Result<MachineArgs> {
    Ok(MachineArgs {
        topology: topology.parse()?,
        time: TimeArgs::default(),
        send_overhead: Duration::ZERO,
        recv_overhead: Duration::ZERO,
        per_byte: Duration::ZERO,
        latency: Duration::ZERO,
        loop_count: 0,
        capacity: 2,
        trace: None,
        timeline: None,
        profile: None,
    })
}

pub(crate) fn run(out: &Path) -> Result<()> {
    println!("multicomputer tour: an emulated transputer-style network on this host's threads.\n");
    println!("1. Calibrating this host (its own message, wake-up and wait costs) ...");
    let profile_path = calibrate::default_profile_path(out);
    let profile = calibrate::measure(50, &profile_path)?;
    calibrate::print_table(&profile);
    println!("   saved to {}\n", profile_path.display());

    println!(
        "2. Processor farms (the farm paper): M = 300 tasks of T_e = 1 ms, β_e = 50 µs, \
         β_f = 100 µs,\n   on chains of 1–6 processors and binary trees of 1–3 levels, measured \
         beside the model:"
    );
    let sweep_args = SweepFarmArgs {
        topologies: "chain:1-6,binary:1-3".into(),
        te: "1ms".into(),
        granularity: "1".into(),
        times: "constant".into(),
        machine: machine_args("chain:1")?,
        engine: EngineArgs {
            beta_e: Duration::from_micros(50),
            beta_f: Duration::from_micros(100),
            queue: 1,
            guided: true,
        },
        tasks: 300,
        task_bytes: 64,
        seed: 1,
        name: "tour-farm".into(),
        json: false,
    };
    let rows = sweep::sweep_farm(&sweep_args, out)?;
    sweep::report(&rows, out, &sweep_args.name, false)?;
    println!();

    println!("3. 64 emulated processors on this host's cores, each occupying 2 ms × 50 rounds:");
    let emulated = emulate::emulate(
        &EmulateArgs {
            machine: machine_args("chain:64")?,
            rounds: 50,
            occupy: Duration::from_millis(2),
            pattern: PatternArg::Independent,
            json: false,
        },
        out,
    )?;
    emulate::print(&emulated);
    let path = in_out(out, "tour.json");
    write_json(
        &path,
        &serde_json::json!({ "profile": profile, "farm": rows, "emulate": emulated }),
    )?;
    println!("\nResults written to {}.", out.display());
    println!(
        "Next: `multicomputer --help`; `multicomputer farm --help`; \
         `multicomputer sweep farm --topologies chain:1-16 --te 1ms,10ms`."
    );
    Ok(())
}
