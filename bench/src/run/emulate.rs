//! `multicomputer emulate`: a synthetic program that shows what the emulator does with time.

use std::path::Path;

use anyhow::{Context, Result};

use crate::args::EmulateArgs;
use crate::exec::runs;
use crate::plan::{emulate, synthetic_inputs};
use crate::report::{EmulateReport, Meta, Repetitions, Report, stage_trace};

pub(crate) fn run(a: &EmulateArgs, out: &Path) -> Result<()> {
    let plan = emulate(a, out)?;
    let runs = runs(
        &plan.machine,
        &plan.topology,
        &plan.experiment,
        plan.repeat,
        true,
    )?;
    let last = runs.runs.last().context("no run")?;
    let mut meta = Meta::for_run(
        "emulate",
        plan.inputs(synthetic_inputs(&plan.experiment)),
        &plan.machine,
        &runs.ran,
        &last.report.fidelity,
    );
    let title = format!("{} — emulated time (s)", plan.topology);
    let files = stage_trace(
        &mut meta,
        &plan.trace,
        last.trace.as_ref(),
        last.processors,
        &title,
    )?;
    let measured: Vec<_> = runs.runs.iter().map(|r| r.measured()).collect();
    let body = EmulateReport {
        run: last.clone(),
        repetitions: Repetitions::of(plan.repeat, &measured),
    };
    Report::new(meta, body).finish(&plan.output, files)
}
