//! `multicomputer ocl`: one OCL array run beside the grain-size paper's model.

use std::path::Path;

use anyhow::Result;
use multicomputer_workloads::ocl::OclMeasured;
use multicomputer_workloads::speedup::OtherLoad;

use crate::args::OclArgs;
use crate::exec::ocl_runs;
use crate::files::Publication;
use crate::plan::OclPlan;
use crate::report::{Meta, OclReport, Repetitions, Report, last, worst};

pub(crate) fn run(a: &OclArgs, out: &Path) -> Result<()> {
    let plan = OclPlan::new(a, out)?;
    let watch = OtherLoad::start();
    let runs = ocl_runs(&plan)?;
    let last = last(&runs)?;
    let fidelity = worst(runs.runs.iter().map(|r| &r.run))?.clone();
    let mut meta = Meta::for_run("ocl", plan.inputs(), &plan.machine, &runs.ran, &fidelity);
    meta.memory_plan_bytes = Some(plan.memory.bytes());
    if a.input.is_none() {
        meta = meta.seed(a.seed);
    }
    let mut files = Publication::new();
    if let Some(path) = &plan.output_stream {
        let text: String = last.run.output.iter().map(|b| format!("{b}\n")).collect();
        files.stage(path, text.as_bytes())?;
        meta.files.push(path.display().to_string());
    }
    let measured: Vec<OclMeasured> = runs
        .runs
        .iter()
        .map(|r| OclMeasured {
            consumption_s: r.comparison.consumption_s,
            output_s: r.comparison.output_s,
        })
        .collect();
    let c = &last.comparison;
    let what = format!("OCL {} N = {}", c.transform, c.n);
    let body = OclReport {
        comparison: c.clone(),
        mode: last.run.report.time.name(),
        dilation: last.run.report.fidelity.dilation,
        wall_s: last.run.report.wall_s(),
        fidelity,
        repetitions: Repetitions::of(plan.repeat, &measured, &runs.seeds),
    };
    let meta = meta.watched(&runs.ran, &watch, body.repetitions.as_ref());
    Report::new(meta, body).finish_run(&plan.output, &plan.trace, (&last.run, &what), files)
}
