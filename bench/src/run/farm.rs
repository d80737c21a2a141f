//! `multicomputer farm`: a processor farm measured beside its model.

use std::path::Path;

use anyhow::{Context, Result};
use multicomputer_workloads::farm::worst_fidelity;

use crate::args::FarmArgs;
use crate::exec::runs;
use crate::plan::{farm, farm_inputs};
use crate::report::{FarmReport, Meta, Report, stage_trace};

pub(crate) fn run(a: &FarmArgs, out: &Path) -> Result<()> {
    let plan = farm(a, out)?;
    let e = &plan.experiment;
    let runs = runs(&plan.machine, &plan.topology, e, plan.repeat, true)?;
    let fidelity = worst_fidelity(runs.runs.iter().map(|r| &r.fidelity)).context("no run")?;
    let mut meta = Meta::for_run(
        "farm",
        plan.inputs(farm_inputs(e)),
        &plan.machine,
        &runs.ran,
        fidelity,
    )
    .seed(e.spec.seed);
    let last = runs.runs.last().context("no run")?;
    let title = format!("farm on {} — emulated time (s)", plan.topology);
    let files = stage_trace(
        &mut meta,
        &plan.trace,
        last.trace.as_ref(),
        last.processors,
        &title,
    )?;
    let body = FarmReport::of_runs("Processor farm", &runs.runs, plan.repeat).context("no run")?;
    Report::new(meta, body).finish(&plan.output, files)
}
