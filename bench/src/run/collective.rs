//! `multicomputer collective`: one collective operation on an emulated machine, checked
//! against the sequential reference and measured beside its α–β–γ model.

use std::path::Path;

use anyhow::Result;
use multicomputer_workloads::speedup::OtherLoad;

use crate::args::CollectiveArgs;
use crate::exec::{overhead, runs};
use crate::files::Publication;
use crate::plan::{collective, collective_inputs};
use crate::report::{CollectiveReport, Meta, Repetitions, Report, last, worst};

pub(crate) fn run(a: &CollectiveArgs, out: &Path) -> Result<()> {
    let plan = collective(a, out)?;
    let e = &plan.experiment;
    let watch = OtherLoad::start();
    let runs = runs(
        &plan.machine,
        &plan.topology,
        e,
        plan.repeat,
        Some(overhead(&plan.output, false)),
    )?;
    let inputs = plan.inputs(collective_inputs(&e.spec));
    let meta = Meta::for_run(
        "collective",
        inputs,
        &plan.machine,
        &runs.ran,
        worst(&runs.runs)?,
    );
    let measured: Vec<_> = runs.runs.iter().map(|r| r.measured).collect();
    let body = CollectiveReport {
        run: last(&runs)?.clone(),
        repetitions: Repetitions::of(plan.repeat, &measured, &runs.seeds),
    };
    let meta = meta.watched(&runs.ran, &watch, body.repetitions.as_ref());
    let what = format!(
        "{} by {} on {}",
        e.spec.operation.name(),
        e.spec.algorithm.name(),
        plan.topology
    );
    Report::new(meta, body).finish_run(
        &plan.output,
        &plan.trace,
        (last(&runs)?, &what),
        Publication::new(),
    )
}
