//! `multicomputer sweep farm`: a grid of farms, each measured beside its model, published as
//! one run folder (CSV, JSON, plots, an HTML report).

use std::path::Path;

use anyhow::Result;

use crate::args::SweepFarmArgs;
use crate::exec::cells;
use crate::files::Publication;
use crate::plan::SweepFarmPlan;
use crate::report::{CellInputs, Meta, Report, SweepReport, csv, sweep_rows};

pub(crate) fn run(a: &SweepFarmArgs, out: &Path) -> Result<()> {
    let plan = SweepFarmPlan::farm(a, out)?;
    let cells = cells(&plan, "sweep farm")?;
    let inputs: Vec<CellInputs> = plan.cells.iter().map(CellInputs::farm).collect();
    let body = SweepReport {
        kind: "farm",
        rows: sweep_rows(&inputs, &cells),
    };
    let meta = Meta::new("sweep farm", plan.inputs(), plan.machine.profile.as_ref())
        .seed(a.seed)
        .cells(plan.machine.mode_name(), cells.iter().map(|c| &c.ran));
    let mut report = Report::new(meta, body);
    let rows = csv::rows(&report.body.rows)?;
    report.publish_folder(&plan.folder, vec![("rows.csv".into(), rows)])?;
    report.finish(&plan.output, Publication::new())
}
