//! `multicomputer sweep ocl`: the grain-size paper's grid beside its model, published as one
//! run folder (one CSV per table, which `fit ocl` reads back).

use std::path::Path;

use anyhow::Result;
use multicomputer_workloads::ocl::OclTable;
use multicomputer_workloads::repetitions::Summary;

use crate::args::SweepOclArgs;
use crate::exec::ocl_cells;
use crate::plan::SweepOclPlan;
use crate::report::{Meta, ProfileUse, Report, SweepOclReport, SweepOclRow};

pub(crate) fn run(a: &SweepOclArgs, out: &Path) -> Result<()> {
    let plan = SweepOclPlan::new(a, out)?;
    if let Some(w) = &plan.warning {
        eprintln!("warning: {w}");
    }
    let cells = ocl_cells(&plan)?;
    let rows: Vec<SweepOclRow> = plan
        .cells
        .iter()
        .zip(&cells)
        .map(|(&(table, grain), runs)| {
            let elapsed: Vec<f64> = runs
                .runs
                .iter()
                .map(|r| r.comparison.consumption_s)
                .collect();
            let s = Summary::of(&elapsed);
            // The fastest run: a run on a shared host can only be slowed down by other work.
            let best = runs
                .runs
                .iter()
                .min_by(|x, y| {
                    x.comparison
                        .consumption_s
                        .total_cmp(&y.comparison.consumption_s)
                })
                .expect("a cell has at least one run");
            let c = &best.comparison;
            let p = c.predicted.as_ref();
            SweepOclRow {
                table,
                n: grain.n(),
                grain: match table {
                    OclTable::M1 => grain.m(),
                    OclTable::Kk => grain.k(),
                },
                l: c.l,
                processes: grain.processes(),
                elapsed_s: c.consumption_s,
                elapsed_mean_s: s.map_or(f64::NAN, |s| s.mean),
                elapsed_sd_s: s.and_then(|s| s.sd),
                elapsed_max_s: s.map_or(f64::NAN, |s| s.max),
                runs: runs.runs.len(),
                predicted_s: p.map(|p| p.consumption_s),
                error_pct: c.consumption_error_pct,
                output_s: c.output_s,
                predicted_output_s: p.map(|p| p.output_s),
                alpha0_s: p.map(|p| p.alpha0_s),
                alpha1_s: p.map(|p| p.alpha1_s),
                beta_s: p.map(|p| p.beta_s),
                dilation: best.run.report.fidelity.dilation,
                costs: if c.native_costs() {
                    "native"
                } else {
                    "emulated"
                },
                late_waits: best.run.report.fidelity.late_waits,
                waits: best.run.report.fidelity.waits,
                wall_s: best.run.report.wall_s(),
            }
        })
        .collect();
    let mut body = SweepOclReport {
        rows,
        curves: Vec::new(),
    };
    body.curves = [OclTable::M1, OclTable::Kk]
        .into_iter()
        .map(|t| {
            let costs = plan
                .model(t)
                .or_else(|| t.fitted_costs(&body.timing_rows(t)));
            (t, costs)
        })
        .collect();
    let mut tables = Vec::new();
    for t in [OclTable::M1, OclTable::Kk] {
        if !body.of_table(t).is_empty() {
            tables.push((format!("{}.csv", t.name()), body.table_csv(t)?));
        }
    }
    let meta = Meta::new(
        "sweep ocl",
        plan.inputs(),
        ProfileUse::Read(plan.machine.profile.as_ref()),
    )
    .seed(plan.seed)
    .cells(&plan.machine, cells.iter().map(|c| &c.ran));
    let report = Report::new(meta, body);
    report.finish_in_folder(&plan.output, &plan.folder, tables)
}
