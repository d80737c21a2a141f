//! `multicomputer sweep dnc`: a grid of divide-and-conquer runs, published as one run
//! folder.

use std::path::Path;

use anyhow::Result;

use crate::args::SweepDncArgs;
use crate::exec::cells;
use crate::files::Publication;
use crate::plan::SweepDncPlan;
use crate::report::{CellInputs, Meta, Report, SweepReport, csv, sweep_rows};

pub(crate) fn run(a: &SweepDncArgs, out: &Path) -> Result<()> {
    let plan = SweepDncPlan::dnc(a, out)?;
    let cells = cells(&plan, "sweep dnc")?;
    let inputs: Vec<CellInputs> = plan.cells.iter().map(CellInputs::dnc).collect();
    let body = SweepReport {
        kind: "dnc",
        rows: sweep_rows(&inputs, &cells),
    };
    let meta = Meta::new("sweep dnc", plan.inputs(), plan.machine.profile.as_ref())
        .seed(a.seed)
        .cells(plan.machine.mode_name(), cells.iter().map(|c| &c.ran));
    let mut report = Report::new(meta, body);
    let rows = csv::rows(&report.body.rows)?;
    report.publish_folder(&plan.folder, vec![("rows.csv".into(), rows)])?;
    report.finish(&plan.output, Publication::new())
}
