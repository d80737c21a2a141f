//! `multicomputer emulate`: a synthetic program that shows what the emulator does with time.

use std::path::Path;

use anyhow::Result;
use multicomputer_workloads::speedup::OtherLoad;

use crate::args::EmulateArgs;
use crate::exec::{overhead, runs};
use crate::files::Publication;
use crate::plan::{emulate, synthetic_inputs};
use crate::report::{EmulateReport, Meta, Repetitions, Report, last, worst};

pub(crate) fn run(a: &EmulateArgs, out: &Path) -> Result<()> {
    let plan = emulate(a, out)?;
    let e = &plan.experiment;
    let watch = OtherLoad::start();
    let runs = runs(
        &plan.machine,
        &plan.topology,
        e,
        plan.repeat,
        Some(overhead(&plan.output, false)),
    )?;
    let inputs = plan.inputs(synthetic_inputs(e));
    let mut meta = Meta::for_run(
        "emulate",
        inputs,
        &plan.machine,
        &runs.ran,
        worst(&runs.runs)?,
    )
    .ties(runs.ties.as_ref());
    meta.memory_plan_bytes = Some(plan.memory.bytes());
    let measured: Vec<_> = runs.runs.iter().map(|r| r.measured()).collect();
    let body = EmulateReport {
        run: last(&runs)?.clone(),
        repetitions: Repetitions::of(plan.repeat, &measured, &runs.seeds),
    };
    let meta = meta.watched(&runs.ran, &watch, body.repetitions.as_ref());
    let what = format!("{} pattern on {}", last(&runs)?.pattern, plan.topology);
    Report::new(meta, body).finish_run(
        &plan.output,
        &plan.trace,
        (last(&runs)?, &what),
        Publication::new(),
    )
}
