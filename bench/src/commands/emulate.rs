//! `multicomputer emulate`: a synthetic program that shows what the emulator does with time.

use std::path::Path;

use anyhow::Result;
use multicomputer_runtime::{Processor, ProcessorError, RunReport};
use serde::Serialize;

use crate::cli::{EmulateArgs, PatternArg};
use crate::config;
use crate::output::{human_ns, print_json, table};

/// What `emulate --json` prints.
#[derive(Debug, Serialize)]
pub(crate) struct EmulateResult {
    pub(crate) topology: String,
    pub(crate) processors: usize,
    pub(crate) pattern: String,
    pub(crate) rounds: u64,
    pub(crate) occupy_s: f64,
    pub(crate) mode: String,
    /// D (none in virtual time).
    pub(crate) dilation: Option<f64>,
    pub(crate) makespan_s: f64,
    /// rounds × occupy for the independent pattern (no messages), else null.
    pub(crate) expected_makespan_s: Option<f64>,
    pub(crate) error_pct: Option<f64>,
    pub(crate) wall_s: f64,
    /// Wall time divided by D: what a wall-clock emulator would report as the makespan
    /// (threads only).
    pub(crate) wall_over_dilation_s: Option<f64>,
    pub(crate) report: RunReport,
}

fn program(
    rounds: u64,
    occupy: std::time::Duration,
    pattern: PatternArg,
) -> impl Fn(&mut Processor<u64>) -> Result<u64, ProcessorError> + Sync {
    move |p| {
        let children = p.children().to_vec();
        let mut sum = 0;
        for round in 0..rounds {
            p.occupy(occupy);
            if pattern == PatternArg::Reduce {
                let mut s = round;
                for &c in &children {
                    s += p.recv(c)?;
                }
                if let Some(up) = p.parent() {
                    p.send(up, s)?;
                }
                sum += s;
            }
        }
        Ok(sum)
    }
}

/// Runs the synthetic program.
pub(crate) fn emulate(args: &EmulateArgs, out: &Path) -> Result<EmulateResult> {
    let machine = config::machine(&args.machine, out, 0.0, Some(args.occupy))?;
    let record = machine.run(program(args.rounds, args.occupy, args.pattern))?;
    config::write_trace_files(
        &args.machine,
        record.trace.as_ref(),
        machine.topology().len(),
    )?;
    let report = record.report;
    let expected = (args.pattern == PatternArg::Independent)
        .then_some(args.rounds as f64 * args.occupy.as_secs_f64());
    Ok(EmulateResult {
        topology: report.topology.clone(),
        processors: report.processors,
        pattern: format!("{:?}", args.pattern).to_lowercase(),
        rounds: args.rounds,
        occupy_s: args.occupy.as_secs_f64(),
        mode: report.mode.to_string(),
        dilation: machine.dilation(),
        makespan_s: report.makespan_s,
        expected_makespan_s: expected,
        error_pct: expected.map(|e| 100.0 * (report.makespan_s - e) / e),
        wall_s: report.wall_s(),
        wall_over_dilation_s: machine.dilation().map(|d| report.wall_s() / d),
        report,
    })
}

/// Prints an emulation result for people.
pub(crate) fn print(r: &EmulateResult) {
    let f = &r.report.fidelity;
    let mut t = table(&["quantity", "value"]);
    t.add_row(vec![
        "topology".into(),
        format!("{} ({} processors)", r.topology, r.processors),
    ]);
    t.add_row(vec!["mode".into(), crate::output::mode_line(&r.report)]);
    t.add_row(vec![
        "emulated makespan".into(),
        human_ns(r.makespan_s * 1e9),
    ]);
    if let (Some(e), Some(err)) = (r.expected_makespan_s, r.error_pct) {
        t.add_row(vec![
            "expected (rounds × occupy)".into(),
            format!("{} ({err:+.3} %)", human_ns(e * 1e9)),
        ]);
    }
    t.add_row(vec!["wall time".into(), human_ns(r.wall_s * 1e9)]);
    if let Some(w) = r.wall_over_dilation_s {
        t.add_row(vec!["wall time / D".into(), human_ns(w * 1e9)]);
    }
    if let Some(sim) = &r.report.sim {
        t.add_row(vec![
            "events (virtual time)".into(),
            format!(
                "{} in {} of wall time: {:.2} M events/s",
                sim.events,
                human_ns(r.wall_s * 1e9),
                r.report.wall.events_per_s.unwrap_or(0.0) / 1e6
            ),
        ]);
    }
    if !f.exact {
        t.add_row(vec![
            "late waits".into(),
            format!(
                "{} of {} (> {} emulated)",
                f.late_waits,
                f.waits,
                human_ns(f.tolerance_ns as f64)
            ),
        ]);
        t.add_row(vec![
            "lateness mean / p99 / max".into(),
            format!(
                "{} / {} / {}",
                human_ns(f.mean_lateness_ns),
                human_ns(f.p99_lateness_ns as f64),
                human_ns(f.max_lateness_ns as f64)
            ),
        ]);
    }
    t.add_row(vec![
        "messages".into(),
        r.report.totals.messages_sent.to_string(),
    ]);
    println!("{t}");
    if let Some(w) = &f.warning {
        eprintln!("warning: {w}");
    }
}

pub(crate) fn run(args: &EmulateArgs, out: &Path) -> Result<()> {
    let r = emulate(args, out)?;
    if args.json {
        print_json(&r)
    } else {
        print(&r);
        Ok(())
    }
}
