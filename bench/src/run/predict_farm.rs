//! `multicomputer predict farm`: the farm model alone, with the paper's Figures 4 and 5.

use std::path::Path;

use anyhow::Result;
use multicomputer_workloads::farm::{FarmTopology, figure4, figure5};

use crate::args::PredictFarmArgs;
use crate::files::Publication;
use crate::plan::{PredictFarmPlan, model_error};
use crate::report::{Meta, PredictFarmReport, ProfileUse, Report};

/// Figure 4's task times, in units of T_e.
const FIGURE4_FACTORS: [f64; 3] = [1.0, 5.0, 10.0];
/// Figure 5's granularities.
const FIGURE5_GRANULARITIES: [u32; 8] = [1, 2, 4, 8, 16, 32, 64, 128];

pub(crate) fn run(a: &PredictFarmArgs, out: &Path) -> Result<()> {
    let plan = PredictFarmPlan::new(a, out)?;
    let e = &plan.experiment;
    let t = &plan.topology;
    let invalid = |err| model_error(&err, &[], "--topology");
    let model = e.model(t);
    let predicted = model.predict().map_err(invalid)?;
    let family = match &model.topology {
        FarmTopology::Tree(s) if s.k == 1 => "chain".to_string(),
        FarmTopology::Tree(s) => format!("{}-ary tree", s.k),
        FarmTopology::Parents { .. } => "parent relation".to_string(),
    };
    let (figure4, figure5) = if plan.figures.is_some() {
        (
            Some(figure4(&model, &FIGURE4_FACTORS).map_err(invalid)?),
            Some(figure5(&model, &FIGURE5_GRANULARITIES).map_err(invalid)?),
        )
    } else {
        (None, None)
    };
    let body = PredictFarmReport {
        topology: t.to_string(),
        drain: e.drain(t, &predicted).map_err(invalid)?,
        peak: e
            .peak(t, plan.min_marginal_efficiency)
            .map_err(|err| model_error(&err, &[], "--min-marginal-efficiency"))?,
        min_marginal_efficiency: plan.min_marginal_efficiency,
        predicted,
        figure4,
        figure5,
        family,
    };
    let report = Report::new(
        Meta::new("predict farm", plan.inputs(), ProfileUse::NotUsed),
        body,
    );
    match &plan.figures {
        Some(folder) => report.finish_in_folder(&plan.output, folder, Vec::new()),
        None => report.finish(&plan.output, Publication::new()),
    }
}
