//! `multicomputer sweep farm`: a grid of farms, each measured beside its model, published as
//! one run folder (CSV, JSON, plots, an HTML report).

use std::path::Path;

use anyhow::Result;

use crate::args::SweepFarmArgs;
use crate::exec::cells;
use crate::files::Publication;
use crate::plan::SweepFarmPlan;
use crate::report::{CellInputs, publish_sweep};

pub(crate) fn run(a: &SweepFarmArgs, out: &Path) -> Result<()> {
    let plan = SweepFarmPlan::farm(a, out)?;
    let cells = cells(&plan, "sweep farm")?;
    let inputs: Vec<CellInputs> = plan.cells.iter().map(CellInputs::farm).collect();
    let profile = plan.machine.profile.as_ref();
    publish_sweep(
        "sweep farm",
        "farm",
        &plan,
        &inputs,
        &cells,
        profile,
        a.seed,
    )?
    .finish(&plan.output, Publication::new())
}
