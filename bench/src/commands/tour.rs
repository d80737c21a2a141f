//! The default tour: what `cargo run --release` with no arguments shows a new user.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;

use crate::cli::{EmulateArgs, MachineArgs, ModeArg, PatternArg, WaitArg};
use crate::commands::{calibrate, emulate};
use crate::output::{in_out, write_json};

fn emulate_args(
    topology: &str,
    pattern: PatternArg,
    send_overhead: Duration,
) -> Result<EmulateArgs> {
    Ok(EmulateArgs {
        machine: MachineArgs {
            topology: topology.parse()?,
            mode: ModeArg::Auto,
            dilation: None,
            wait: WaitArg::Auto,
            send_overhead,
            recv_overhead: Duration::ZERO,
            per_byte: Duration::ZERO,
            latency: Duration::ZERO,
            loop_count: 0,
            capacity: 2,
            trace: None,
            profile: None,
        },
        rounds: 50,
        occupy: Duration::from_millis(2),
        pattern,
        json: false,
    })
}

pub(crate) fn run(out: &Path) -> Result<()> {
    println!("multicomputer tour: an emulated transputer-style network on this host's threads.\n");
    println!("1. Calibrating this host (its own message, wake-up and wait costs) ...");
    let profile_path = calibrate::default_profile_path(out);
    let profile = calibrate::measure(50, &profile_path)?;
    calibrate::print_table(&profile);
    println!("   saved to {}\n", profile_path.display());

    let runs = [
        (
            "2. 64 processors (a chain) occupying 2 ms × 50 rounds, no messages:",
            "chain:64",
            PatternArg::Independent,
            Duration::ZERO,
        ),
        (
            "3. A binary tree of 5 levels reducing to its root every round, β = 50 µs per message:",
            "binary:5",
            PatternArg::Reduce,
            Duration::from_micros(50),
        ),
    ];
    let mut results = Vec::new();
    for (title, topology, pattern, beta) in runs {
        println!("{title}");
        let r = emulate::emulate(&emulate_args(topology, pattern, beta)?, out)?;
        emulate::print(&r);
        println!();
        results.push(r);
    }
    let path = in_out(out, "tour.json");
    write_json(
        &path,
        &serde_json::json!({ "profile": profile, "runs": results }),
    )?;
    println!("Results written to {}.", path.display());
    println!(
        "Next: `multicomputer --help`, `multicomputer emulate --help`, `multicomputer calibrate`."
    );
    Ok(())
}
