//! `multicomputer calibrate`: this host's intrinsic costs, as a table or JSON, saved as a profile.

use std::path::Path;

use anyhow::Result;
use multicomputer_runtime::{CalibrateOptions, MachineProfile, calibrate};
use multicomputer_workloads::unit_costs::measure_unit_costs;

use crate::cli::CalibrateArgs;
use crate::output::{human_ns, in_out, print_json, table};

/// The default place of the machine profile.
pub(crate) fn default_profile_path(out: &Path) -> std::path::PathBuf {
    in_out(out, "machine-profile.json")
}

/// Measures, saves and returns the profile: the runtime's own costs, and the cost per unit of
/// each program's declared work (for model compute charging in virtual time).
pub(crate) fn measure(samples: u32, save_to: &Path) -> Result<MachineProfile> {
    let mut profile = calibrate(CalibrateOptions {
        samples: samples as usize,
    });
    profile.unit_costs = measure_unit_costs(5).ns_per_unit;
    profile
        .save(save_to)
        .map_err(|e| anyhow::anyhow!("saving {}: {e}", save_to.display()))?;
    Ok(profile)
}

/// Prints a profile for people.
pub(crate) fn print_table(p: &MachineProfile) {
    let mut t = table(&["quantity", "value"]);
    t.add_row(vec![
        "host".into(),
        format!("{} ({} cores)", p.host, p.cores),
    ]);
    t.add_row(vec![
        "clock read (Instant::now)".into(),
        human_ns(p.clock_read_ns),
    ]);
    t.add_row(vec![
        "thread CPU-time read".into(),
        human_ns(p.cpu_time_read_ns),
    ]);
    t.add_row(vec![
        "message one-way, spinning".into(),
        human_ns(p.message_spin_ns),
    ]);
    t.add_row(vec![
        "message one-way, receiver parked".into(),
        human_ns(p.message_parked_ns),
    ]);
    t.add_row(vec![
        "wake-up lateness of a 1 ms sleep".into(),
        human_ns(p.wakeup_ns),
    ]);
    t.add_row(vec![
        "CPU time of one sleep/wake cycle".into(),
        human_ns(p.wake_cpu_ns),
    ]);
    t.add_row(vec![
        "busy loop, per iteration".into(),
        human_ns(p.loop_ns_per_iteration),
    ]);
    t.add_row(vec![
        "coroutine switch (virtual time)".into(),
        human_ns(p.coroutine_switch_ns),
    ]);
    for (unit, ns) in &p.unit_costs {
        t.add_row(vec![format!("work unit: {unit}"), format!("{ns:.3} ns")]);
    }
    println!("{t}");
    let mut o = table(&["strategy", "target", "median error", "p99 error"]);
    for e in &p.occupy {
        o.add_row(vec![
            format!("{:?}", e.strategy).to_lowercase(),
            human_ns(e.target_ns as f64),
            human_ns(e.median_error_ns),
            human_ns(e.p99_error_ns),
        ]);
    }
    println!("{o}");
}

pub(crate) fn run(args: &CalibrateArgs, out: &Path) -> Result<()> {
    let path = args
        .profile
        .clone()
        .unwrap_or_else(|| default_profile_path(out));
    let profile = measure(args.samples, &path)?;
    if args.json {
        print_json(&profile)?;
    } else {
        print_table(&profile);
        println!("profile saved to {}", path.display());
    }
    Ok(())
}
