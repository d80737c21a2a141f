//! `multicomputer ising`: one run of the scalability paper's ising program (§5), under the
//! centralized or the tree control mechanism.

use std::path::Path;

use anyhow::{Result, bail};
use multicomputer_workloads::speedup::OtherLoad;
use multicomputer_workloads::unit_costs::FLIP_UNITS;

use crate::args::IsingArgs;
use crate::exec::ising_runs;
use crate::files::Publication;
use crate::plan::IsingPlan;
use crate::report::{IsingReport, Meta, Repetitions, Report, last, worst};

pub(crate) fn run(a: &IsingArgs, out: &Path) -> Result<()> {
    let plan = IsingPlan::new(a, out)?;
    let watch = OtherLoad::start();
    let runs = ising_runs(&plan)?;
    let verified = runs.runs.first().and_then(|r| r.verified);
    let mut run = last(&runs)?.clone();
    run.verified = verified;
    let mut meta = Meta::for_run(
        "ising",
        plan.inputs(),
        &plan.machine,
        &runs.ran,
        worst(&runs.runs)?,
    )
    .seed(plan.experiment.config.seed);
    meta.memory_plan_bytes = Some(plan.memory.bytes());
    let what = format!("ising, {} mechanism", run.mechanism);
    let charge_warning = run
        .flip_charge
        .and_then(|_| plan.machine.unfitted_warning(&FLIP_UNITS));
    let body = IsingReport {
        repetitions: Repetitions::of(plan.repeat, &runs.runs, &runs.seeds),
        run,
        charge_warning,
    };
    let meta = meta.watched(&runs.ran, &watch, body.repetitions.as_ref());
    Report::new(meta, body).finish_run(
        &plan.output,
        &plan.trace,
        (last(&runs)?, &what),
        Publication::new(),
    )?;
    if verified == Some(false) {
        bail!("the parallel result differs from the sequential reference");
    }
    Ok(())
}
