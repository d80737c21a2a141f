//! The cells of a sweep, run one after the other with the grid's estimate announced first
//! and progress per cell.

use anyhow::Result;
use multicomputer_workloads::ocl::transform_label;

use super::runs::{OclRun, Ran, ocl_estimate, run_grain};
use super::{Estimate, Experiment, Progress, Runs, announce, repeat, runs};
use crate::plan::{SweepOclPlan, SweepPlan};

/// Every cell of a sweep, announced with the grid's estimated wall time first.
pub(crate) fn cells<E: Experiment>(
    plan: &SweepPlan<E>,
    what: &str,
) -> Result<Vec<Runs<E::Outcome>>> {
    let mut total = Estimate { wall_s: 0.0 };
    for c in &plan.cells {
        let hints = c.experiment.hints(&c.topology)?;
        let d = plan.machine.machine(c.topology.clone(), &hints)?.dilation();
        // (`d` is none in virtual time: the estimate counts events instead.)
        total = total.plus(Estimate {
            wall_s: c.experiment.estimate(&c.topology, d).wall_s * f64::from(plan.repeat.total()),
        });
    }
    announce(
        what,
        total,
        &format!(
            "{} cells × {} run(s), each at its machine's dilation",
            plan.cells.len(),
            plan.repeat.total()
        ),
    );
    let mut progress = Progress::new(what, plan.cells.len() as u64, "cells");
    let mut out = Vec::with_capacity(plan.cells.len());
    for c in &plan.cells {
        progress.set_message(c.experiment.label(&c.topology));
        out.push(runs(
            &plan.machine,
            &c.topology,
            &c.experiment,
            plan.repeat,
            false,
        )?);
        progress.inc();
    }
    Ok(out)
}

/// Every cell of an OCL sweep.
pub(crate) fn ocl_cells(plan: &SweepOclPlan) -> Result<Vec<Runs<OclRun>>> {
    let l = plan.stream.len() as u64;
    let total = plan
        .cells
        .iter()
        .fold(Estimate { wall_s: 0.0 }, |t, (table, g)| {
            t.plus(Estimate {
                wall_s: ocl_estimate(&plan.machine, *g, l, plan.model(*table), plan.native).wall_s
                    * f64::from(plan.repeat.total()),
            })
        });
    announce(
        "sweep ocl",
        total,
        &format!(
            "the model's times at each machine's dilation, {} cells × {} run(s)",
            plan.cells.len(),
            plan.repeat.total()
        ),
    );
    let mut progress = Progress::new("sweep ocl", plan.cells.len() as u64, "cells");
    let mut out = Vec::with_capacity(plan.cells.len());
    for &(table, grain) in &plan.cells {
        progress.set_message(format!(
            "{} N = {} ({} processes)",
            transform_label(grain),
            grain.n(),
            grain.processes()
        ));
        let model = plan.model(table);
        let runs = repeat("", plan.repeat, 0.0, |_| {
            let run = run_grain(&plan.machine, grain, &plan.stream, model, plan.native)?;
            Ok(OclRun {
                comparison: multicomputer_workloads::ocl::OclComparison::of_run(&run, model, None),
                run,
            })
        })?;
        let ran = Ran::of_report(&runs[0].run.report);
        out.push(Runs { runs, ran });
        progress.inc();
    }
    Ok(out)
}
