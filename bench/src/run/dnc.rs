//! `multicomputer dnc`: divide and conquer measured beside its model.

use std::path::Path;

use anyhow::{Context, Result};
use multicomputer_workloads::dnc::{DncKernel, Splitting};
use multicomputer_workloads::farm::worst_fidelity;

use crate::args::DncArgs;
use crate::exec::runs;
use crate::plan::{dnc, dnc_inputs};
use crate::report::{FarmReport, Meta, Report, stage_trace};

pub(crate) fn run(a: &DncArgs, out: &Path) -> Result<()> {
    let plan = dnc(a, out)?;
    let e = &plan.experiment;
    let runs = runs(&plan.machine, &plan.topology, e, plan.repeat, true)?;
    let fidelity = worst_fidelity(runs.runs.iter().map(|r| &r.fidelity)).context("no run")?;
    let mut meta = Meta::for_run(
        "dnc",
        plan.inputs(dnc_inputs(e)),
        &plan.machine,
        &runs.ran,
        fidelity,
    );
    // Only random splits and mergesort's keys are drawn.
    if !matches!(
        e.kernel,
        DncKernel::Synthetic {
            splitting: Splitting::Equal
        }
    ) {
        meta = meta.seed(e.seed);
    }
    let last = runs.runs.last().context("no run")?;
    let title = format!(
        "divide and conquer on {} — emulated time (s)",
        plan.topology
    );
    let files = stage_trace(
        &mut meta,
        &plan.trace,
        last.trace.as_ref(),
        last.processors,
        &title,
    )?;
    let body =
        FarmReport::of_runs("Divide and conquer", &runs.runs, plan.repeat).context("no run")?;
    Report::new(meta, body).finish(&plan.output, files)
}
