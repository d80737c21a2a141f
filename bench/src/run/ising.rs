//! `multicomputer ising`: one run of the scalability paper's ising program (§5), under the
//! centralized or the tree control mechanism.

use std::path::Path;

use anyhow::{Context, Result, bail};
use multicomputer_workloads::farm::worst_fidelity;

use crate::args::IsingArgs;
use crate::exec::ising_runs;
use crate::plan::IsingPlan;
use crate::report::{IsingReport, Meta, Repetitions, Report, stage_trace};

pub(crate) fn run(a: &IsingArgs, out: &Path) -> Result<()> {
    let plan = IsingPlan::new(a, out)?;
    let runs = ising_runs(&plan)?;
    let verified = runs.runs.first().and_then(|r| r.verified);
    let mut last = runs.runs.last().context("no run")?.clone();
    last.verified = verified;
    let fidelity = worst_fidelity(runs.runs.iter().map(|r| &r.fidelity)).context("no run")?;
    let mut meta = Meta::for_run("ising", plan.inputs(), &plan.machine, &runs.ran, fidelity)
        .seed(plan.experiment.config.seed);
    let title = format!("ising, {} mechanism — emulated time (s)", last.mechanism);
    let files = stage_trace(
        &mut meta,
        &plan.trace,
        last.trace.as_ref(),
        last.processors,
        &title,
    )?;
    let body = IsingReport {
        repetitions: Repetitions::of(plan.repeat, &runs.runs),
        run: last,
    };
    Report::new(meta, body).finish(&plan.output, files)?;
    if verified == Some(false) {
        bail!("the parallel result differs from the sequential reference");
    }
    Ok(())
}
