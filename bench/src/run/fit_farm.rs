//! `multicomputer fit farm --csv FILE`: β_e and β_f from measured throughputs, by nonlinear
//! least squares over many configurations (the paper's §4.2 method, made a regression).

use std::path::Path;

use anyhow::Result;
use multicomputer_workloads::estimate::Interval;
use multicomputer_workloads::farm::{error_pct, fit_betas};

use crate::args::FitFarmArgs;
use crate::exec::{Estimate, Ticker, admit, overhead};
use crate::files::Publication;
use crate::plan::{ArgError, FitFarmPlan};
use crate::report::{FitFarmReport, Meta, ProfileUse, Report};
use crate::tuning::FIT_ROW_S;

pub(crate) fn run(a: &FitFarmArgs, out: &Path) -> Result<()> {
    let plan = FitFarmPlan::new(a, out)?;
    let rows = plan.observations.len();
    let estimate_s = rows as f64 * FIT_ROW_S;
    admit(
        "fit farm",
        "--csv",
        Estimate::native(estimate_s).with_fixed(overhead(&plan.output, false)),
        &format!("a nonlinear fit over {rows} rows"),
    )?;
    // The fit's iterations are not visible from here: its progress is elapsed time against
    // the estimate announced above (nothing for a fit too short to be announced).
    let ticker = Ticker::start("fit farm", estimate_s);
    let fit = fit_betas(&plan.observations)
        .map_err(|e| ArgError::new(format!("--csv {}", plan.csv.display()), e))?;
    drop(ticker);
    let err =
        |fitted: f64, inj: Option<f64>| inj.filter(|v| *v > 0.0).map(|v| error_pct(fitted, v));
    let body = FitFarmReport {
        beta_e_s: fit.beta_e_s,
        beta_f_s: fit.beta_f_s,
        beta_e_std_error_s: fit.beta_e_std_error_s,
        beta_f_std_error_s: fit.beta_f_std_error_s,
        beta_e: Interval::student(fit.beta_e_s, fit.beta_e_std_error_s, fit.dof),
        beta_f: Interval::student(fit.beta_f_s, fit.beta_f_std_error_s, fit.dof),
        injected_beta_e_s: plan.injected_beta_e_s,
        injected_beta_f_s: plan.injected_beta_f_s,
        beta_e_error_pct: err(fit.beta_e_s, plan.injected_beta_e_s),
        beta_f_error_pct: err(fit.beta_f_s, plan.injected_beta_f_s),
        host_message_floor_s: plan
            .profile
            .as_ref()
            .map(|p| p.profile.message_parked_ns / 1e9),
        observations: plan.observations.len(),
        skipped_rows: plan.skipped.clone(),
        fit,
        rows: plan.observations.clone(),
        source: plan.csv.display().to_string(),
    };
    Report::new(
        Meta::new(
            "fit farm",
            plan.inputs(),
            ProfileUse::Read(plan.profile.as_ref()),
        )
        .analysing(format!("--csv {}", plan.csv.display())),
        body,
    )
    .finish(&plan.output, Publication::new())
}
