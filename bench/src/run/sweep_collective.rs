//! `multicomputer sweep collective`: an operation's algorithms over networks and message
//! sizes, each cell checked against the sequential reference and measured beside its model,
//! published as one run folder (CSV, JSON, log–log plots of time against bytes, an HTML
//! report) that names where one algorithm overtakes another.

use std::path::Path;

use anyhow::Result;

use crate::args::SweepCollectiveArgs;
use crate::exec::{cells, overhead};
use crate::plan::SweepCollectivePlan;
use crate::report::sweep_collective_report;

pub(crate) fn run(a: &SweepCollectiveArgs, out: &Path) -> Result<()> {
    let plan = SweepCollectivePlan::collective(a, out)?;
    let cells = cells(&plan, "sweep collective", overhead(&plan.output, true))?;
    let (report, rows) = sweep_collective_report(&plan, &cells)?;
    report.finish_in_folder(&plan.output, &plan.folder, rows)
}
