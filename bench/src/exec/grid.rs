//! The cells of a sweep, run one after the other with the grid's estimate announced first
//! and progress per cell.

use anyhow::Result;
use multicomputer_workloads::ocl::transform_label;

use super::runs::{OclRun, ocl_estimate, run_grain};
use super::runs::{prepare, time_flags};
use super::{Estimate, Experiment, Progress, Runs, admit, check_emulated, overhead, repeat, runs};
use multicomputer_runtime::{Hints, TimeMode};

use crate::plan::{MachinePlan, SweepOclPlan, SweepPlan, pipeline_machine};

/// How a grid's cells keep time, for its announcement: all in virtual time (`--mode
/// virtual`, or `auto` made one mode for the grid), in virtual time where the processors
/// leave no core free (`auto`), or each at its machine's dilation.
fn cells_mode(machine: &MachinePlan, total: &Estimate) -> &'static str {
    match machine.config(&Hints::default()).mode {
        TimeMode::Virtual => "in virtual time",
        TimeMode::Auto if total.in_virtual => {
            "in virtual time where the processors leave no core free"
        }
        _ => "each at its machine's dilation",
    }
}

/// Every cell of a sweep, announced with the estimated wall time of the grid and of the
/// command's `overhead_s` (its seconds besides the runs) first.
pub(crate) fn cells<E: Experiment>(
    plan: &SweepPlan<E>,
    what: &str,
    overhead_s: f64,
) -> Result<Vec<Runs<E::Outcome>>> {
    let mut total = Estimate::ZERO;
    for c in &plan.cells {
        let (_, per_run) = prepare(&plan.machine, &c.topology, &c.experiment)?;
        total = total.plus(per_run.times(plan.repeat.total()));
    }
    let total = total.with_fixed(overhead_s);
    admit(
        what,
        &time_flags(&plan.machine, E::TIME_FLAGS),
        total,
        &format!(
            "{} cells × {} run(s), {}",
            plan.cells.len(),
            plan.repeat.total(),
            cells_mode(&plan.machine, &total)
        ),
    )?;
    let mut progress = Progress::new(what, plan.cells.len() as u64, "cells");
    let mut out = Vec::with_capacity(plan.cells.len());
    for c in &plan.cells {
        progress.set_message(c.experiment.label(&c.topology));
        out.push(runs(
            &plan.machine,
            &c.topology,
            &c.experiment,
            plan.repeat,
            None,
        )?);
        progress.inc();
    }
    Ok(out)
}

/// Every cell of an OCL sweep.
pub(crate) fn ocl_cells(plan: &SweepOclPlan) -> Result<Vec<Runs<OclRun>>> {
    let l = plan.stream.len() as u64;
    let mut total = Estimate::ZERO;
    let flag = "--windows";
    let mut machines = Vec::with_capacity(plan.cells.len());
    for &(table, g) in &plan.cells {
        let m = pipeline_machine(&plan.machine, g, plan.model(table), plan.native, flag)?;
        let per_run = ocl_estimate(&m, g, l, plan.model(table), plan.native);
        machines.push(m);
        check_emulated("--length", per_run.emulated_s, g.processes())?;
        total = total.plus(per_run.times(plan.repeat.total()));
    }
    let total = total.with_fixed(overhead(&plan.output, true));
    admit(
        "sweep ocl",
        &time_flags(&plan.machine, "--length"),
        total,
        &format!(
            "the model's times, {} cells × {} run(s), {}",
            plan.cells.len(),
            plan.repeat.total(),
            cells_mode(&plan.machine, &total)
        ),
    )?;
    let mut progress = Progress::new("sweep ocl", plan.cells.len() as u64, "cells");
    let mut out = Vec::with_capacity(plan.cells.len());
    for (&(table, grain), m) in plan.cells.iter().zip(&machines) {
        progress.set_message(format!(
            "{} N = {} ({} processes)",
            transform_label(grain),
            grain.n(),
            grain.processes()
        ));
        let model = plan.model(table);
        let runs = repeat("", plan.repeat, 0.0, |_| {
            let run = run_grain(m, grain, &plan.stream, model, plan.native)?;
            Ok(OclRun {
                comparison: multicomputer_workloads::ocl::OclComparison::of_run(&run, model, None),
                run,
            })
        })?;
        out.push(Runs {
            runs,
            ran: m.spec().clone(),
            seeds: Vec::new(),
            ties: None,
        });
        progress.inc();
    }
    Ok(out)
}
