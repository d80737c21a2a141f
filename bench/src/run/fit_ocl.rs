//! `multicomputer fit ocl`: α, β (\[M,1\], §4.1) or α0, α1, β (\[K,K\], §4.2) fitted to a timing
//! table, as the paper fitted its transputer tables.

use anyhow::Result;
use multicomputer_workloads::ocl::fit_table;

use crate::args::FitOclArgs;
use crate::files::Publication;
use crate::plan::{ArgError, FitOclPlan};
use crate::report::{FitOclReport, Meta, ProfileUse, Report};

pub(crate) fn run(a: &FitOclArgs) -> Result<()> {
    let plan = FitOclPlan::new(a)?;
    let fit = fit_table(plan.table, &plan.rows, plan.weighting, plan.reference)
        .map_err(|e| ArgError::new(plan.data_flag(), e))?;
    let body = FitOclReport {
        fit,
        source: plan.source.clone(),
        weighting: plan.weighting_name(),
        self_check: plan.self_check,
    };
    Report::new(
        Meta::new("fit ocl", plan.inputs(), ProfileUse::NotUsed).analysing(match &plan.csv {
            Some(_) => plan.data_flag(),
            None => format!("{}, the paper's table", plan.data_flag()),
        }),
        body,
    )
    .finish(&plan.output, Publication::new())
}
