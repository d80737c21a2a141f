//! `multicomputer sweep dnc`: a grid of divide-and-conquer runs, published as one run
//! folder.

use std::path::Path;

use anyhow::Result;

use crate::args::SweepDncArgs;
use crate::exec::{cells, overhead};
use crate::plan::SweepDncPlan;
use crate::report::{CellInputs, sweep_report};

pub(crate) fn run(a: &SweepDncArgs, out: &Path) -> Result<()> {
    let plan = SweepDncPlan::dnc(a, out)?;
    let cells = cells(&plan, "sweep dnc", overhead(&plan.output, true))?;
    let inputs: Vec<CellInputs> = plan.cells.iter().map(CellInputs::dnc).collect();
    let (report, rows) = sweep_report("sweep dnc", "dnc", &plan, &inputs, &cells, a.seed)?;
    report.finish_in_folder(&plan.output, &plan.folder, rows)
}
