//! `multicomputer sweep farm`: a grid of farms, each measured beside its model, published as
//! one run folder (CSV, JSON, plots, an HTML report).

use std::path::Path;

use anyhow::Result;

use crate::args::SweepFarmArgs;
use crate::exec::{cells, overhead};
use crate::plan::SweepFarmPlan;
use crate::report::{CellInputs, sweep_report};

pub(crate) fn run(a: &SweepFarmArgs, out: &Path) -> Result<()> {
    let plan = SweepFarmPlan::farm(a, out)?;
    let cells = cells(&plan, "sweep farm", overhead(&plan.output, true))?;
    let inputs: Vec<CellInputs> = plan.cells.iter().map(CellInputs::farm).collect();
    let (report, rows) = sweep_report("sweep farm", "farm", &plan, &inputs, &cells, a.seed)?;
    report.finish_in_folder(&plan.output, &plan.folder, rows)
}
