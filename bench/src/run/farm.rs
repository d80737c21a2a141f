//! `multicomputer farm`: a processor farm measured beside its model.

use std::path::Path;

use anyhow::{Context, Result};
use multicomputer_workloads::speedup::OtherLoad;

use crate::args::FarmArgs;
use crate::exec::{family_speedups, overhead, runs};
use crate::files::Publication;
use crate::plan::{farm, farm_inputs};
use crate::report::{FarmReport, Meta, Report, last, worst};

pub(crate) fn run(a: &FarmArgs, out: &Path) -> Result<()> {
    let plan = farm(a, out)?;
    let e = &plan.experiment;
    let watch = OtherLoad::start();
    let runs = runs(
        &plan.machine,
        &plan.topology,
        e,
        plan.repeat,
        Some(overhead(&plan.output, false)),
    )?;
    let inputs = plan.inputs(farm_inputs(e));
    let mut meta = Meta::for_run("farm", inputs, &plan.machine, &runs.ran, worst(&runs.runs)?)
        .ties(runs.ties.as_ref());
    meta.memory_plan_bytes = Some(plan.memory.bytes());
    let mut body = FarmReport::of_runs("Processor farm", &runs.runs, plan.repeat, &runs.seeds)
        .context("no run")?;
    body.family = family_speedups(e, &plan.topology);
    meta = meta.watched(&runs.ran, &watch, body.repetitions.as_ref());
    let what = format!("farm on {}", plan.topology);
    let meta = match e.seed() {
        Some(seed) => meta.seed(seed),
        None => meta,
    };
    Report::new(meta, body).finish_run(
        &plan.output,
        &plan.trace,
        (last(&runs)?, &what),
        Publication::new(),
    )
}
