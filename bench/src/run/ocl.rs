//! `multicomputer ocl`: one OCL array run beside the grain-size paper's model.

use std::path::Path;

use anyhow::{Context, Result};
use multicomputer_workloads::farm::worst_fidelity;
use multicomputer_workloads::ocl::OclMeasured;

use crate::args::OclArgs;
use crate::exec::ocl_runs;
use crate::plan::OclPlan;
use crate::report::{Meta, OclReport, Repetitions, Report, stage_trace};

pub(crate) fn run(a: &OclArgs, out: &Path) -> Result<()> {
    let plan = OclPlan::new(a, out)?;
    let runs = ocl_runs(&plan)?;
    let last = runs.runs.last().context("no run")?;
    let fidelity = worst_fidelity(runs.runs.iter().map(|r| &r.run.report.fidelity))
        .context("no run")?
        .clone();
    let mut meta = Meta::for_run("ocl", plan.inputs(), &plan.machine, &runs.ran, &fidelity);
    if a.input.is_none() {
        meta = meta.seed(a.seed);
    }
    let title = format!(
        "OCL {} N = {} — emulated time (s)",
        last.comparison.transform, last.comparison.n
    );
    let mut files = stage_trace(
        &mut meta,
        &plan.trace,
        last.run.trace.as_ref(),
        plan.grain.processes(),
        &title,
    )?;
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
    let body = OclReport {
        comparison: last.comparison.clone(),
        mode: last.run.report.mode,
        dilation: last.run.report.fidelity.dilation,
        wall_s: last.run.report.wall_s(),
        fidelity,
        repetitions: Repetitions::of(plan.repeat, &measured),
    };
    Report::new(meta, body).finish(&plan.output, files)
}
