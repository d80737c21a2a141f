//! `multicomputer predict dnc`: the divide-and-conquer model alone.

use anyhow::Result;

use crate::args::PredictDncArgs;
use crate::files::Publication;
use crate::plan::{PredictDncPlan, model_error};
use crate::report::{Meta, PredictDncReport, ProfileUse, Report};

pub(crate) fn run(a: &PredictDncArgs) -> Result<()> {
    let plan = PredictDncPlan::new(a)?;
    let predicted = plan
        .experiment
        .predict(&plan.topology)
        .map_err(|e| model_error(&e, &[], "--topology"))?;
    let body = PredictDncReport {
        topology: plan.topology.to_string(),
        predicted,
    };
    Report::new(
        Meta::new("predict dnc", plan.inputs(), ProfileUse::NotUsed),
        body,
    )
    .finish(&plan.output, Publication::new())
}
