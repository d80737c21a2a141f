//! `multicomputer dnc`: divide and conquer measured beside its model.

use std::path::Path;

use anyhow::{Context, Result};
use multicomputer_workloads::speedup::OtherLoad;

use crate::args::DncArgs;
use crate::exec::{family_speedups, overhead, runs};
use crate::files::Publication;
use crate::plan::{dnc, dnc_inputs};
use crate::report::{FarmReport, Meta, Report, last, worst};

pub(crate) fn run(a: &DncArgs, out: &Path) -> Result<()> {
    let plan = dnc(a, out)?;
    let e = &plan.experiment;
    let watch = OtherLoad::start();
    let runs = runs(
        &plan.machine,
        &plan.topology,
        e,
        plan.repeat,
        Some(overhead(&plan.output, false)),
    )?;
    let inputs = plan.inputs(dnc_inputs(e));
    let mut meta = Meta::for_run("dnc", inputs, &plan.machine, &runs.ran, worst(&runs.runs)?)
        .ties(runs.ties.as_ref());
    meta.memory_plan_bytes = Some(plan.memory.bytes());
    if let Some(seed) = e.seed() {
        meta = meta.seed(seed);
    }
    let mut body = FarmReport::of_runs("Divide and conquer", &runs.runs, plan.repeat, &runs.seeds)
        .context("no run")?;
    body.family = family_speedups(e, &plan.topology);
    meta = meta.watched(&runs.ran, &watch, body.repetitions.as_ref());
    let what = format!("divide and conquer on {}", plan.topology);
    Report::new(meta, body).finish_run(
        &plan.output,
        &plan.trace,
        (last(&runs)?, &what),
        Publication::new(),
    )
}
