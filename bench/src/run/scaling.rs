//! `multicomputer scaling`: the measuring method of Zorbas, Reble and VanKooten, "Measuring
//! the scalability of parallel computer systems" (1989), §4–5. Runs the *ising* program for a
//! list of P and several `loop_count`s (the busy loop per message send that slows the message
//! system down), fits the candidate overhead function (default (6), `Φ(P) = a + b·log P`) to
//! the system overhead of each loop count, and decides whether the candidate is `consistent`,
//! `refuted` or `inconclusive` by the consistency test of
//! [`multicomputer_workloads::analysis::consistency_test`] (whose docs derive the rule). With
//! `--csv FILE` the same analysis runs on any table of (P, run time[, loop_count]).
//!
//! What is fitted is the system overhead `Φ_s(P) = T / (C·W_p(P)/P)` (§2 and §4). *ising* is
//! completely parallel with work ∝ P, so the ideal run time is samples per processor × `C`,
//! `C` the time of one sample: what model charging charges a sample in virtual time (then
//! every run is the same, and the test is exact), else the native time measured around each
//! run, which also divides out a drift of the host's speed.
//!
//! This command only renders: every number it shows comes from the analysis.

use std::path::Path;

use anyhow::Result;
use multicomputer_workloads::analysis::{
    ConsistencyOptions, Measurement, OverheadModel, ScalabilityError, consistency_test,
    fit_loop_counts,
};

use crate::args::ScalingArgs;

use crate::exec::{ScalingRow, overhead, scaling_runs};
use crate::plan::{ArgError, ScalingPlan, ScalingSource};
use crate::report::{
    AlternativeFit, Analysis, LoopCountRow, Meta, ProfileUse, Report, ScalingReport, csv,
};

pub(crate) fn run(a: &ScalingArgs, out: &Path) -> Result<()> {
    let plan = ScalingPlan::new(a, out)?;
    let (measurements, rows, mechanism, source) = match &plan.source {
        ScalingSource::Table {
            path, measurements, ..
        } => (
            measurements.clone(),
            Vec::new(),
            None,
            Some(path.display().to_string()),
        ),
        ScalingSource::Sweep(s) => {
            let rows = scaling_runs(s, overhead(&plan.output, true))?;
            let m: Vec<Measurement> = rows.iter().map(ScalingRow::measurement).collect();
            (m, rows, Some(s.mechanism), None)
        }
    };
    let data = plan.data_flag();
    let main = analyse(&plan.model, &measurements, &plan.options, &data)?;
    let alternatives = plan
        .alternatives
        .iter()
        .filter_map(|m| {
            // The richer model applies to an alternative it contains; otherwise none.
            let options = ConsistencyOptions {
                against: plan
                    .options
                    .against
                    .clone()
                    .filter(|r| r.contains(m) && r.len() > m.len()),
                ..plan.options.clone()
            };
            // A candidate that cannot be fitted here (too few P values) is left out.
            analyse(m, &measurements, &options, &data)
                .ok()
                .map(|a| AlternativeFit {
                    model: m.to_string(),
                    loop_counts: a.fits.iter().map(LoopCountRow::from).collect(),
                    verdict: a.test.map(|t| t.verdict),
                })
        })
        .collect();
    let report = ScalingReport::new(
        main,
        &plan.model,
        alternatives,
        plan.fitted(),
        mechanism,
        source,
        rows,
    );
    // A sweep's machines charge with the profile its plan loaded; data from --csv use none.
    let profile = match &plan.source {
        ScalingSource::Sweep(s) => ProfileUse::Read(s.machine.profile.as_ref()),
        _ => ProfileUse::NotUsed,
    };
    let mut meta = Meta::new("scaling", plan.inputs(), profile);
    if let ScalingSource::Table { .. } = &plan.source {
        meta = meta.analysing(plan.data_flag());
    }
    if let ScalingSource::Sweep(s) = &plan.source {
        // How every run's machine ran.
        meta = meta.cells(&s.machine, report.rows.iter().map(|r| &r.spec));
    }
    let report = Report::new(meta, report);
    let mut extra = Vec::new();
    if !report.body.rows.is_empty() {
        extra.push(("rows.csv".to_string(), csv::rows(&report.body.rows)?));
    }
    report.finish_in_folder(&plan.output, &plan.folder, extra)
}

/// The candidate's analysis: the consistency test with two or more loop counts, else its
/// fits alone. `data` names where the data came from, for errors about them.
fn analyse(
    model: &OverheadModel,
    measurements: &[Measurement],
    options: &ConsistencyOptions,
    data: &str,
) -> Result<Analysis, ArgError> {
    let bad = |e: &dyn std::fmt::Display| ArgError::new(data, format!("fitting {model}: {e}"));
    match consistency_test(model, measurements, options) {
        Ok(t) => Ok(Analysis {
            fits: t.fits.clone(),
            weighting: t.weighting,
            noise: t.noise,
            warnings: t.warnings.clone(),
            test: Some(t),
        }),
        Err(ScalabilityError::TooFewLoopCounts(1)) => {
            let f = fit_loop_counts(model, measurements, options).map_err(|e| bad(&e))?;
            Ok(Analysis {
                fits: f.fits,
                test: None,
                weighting: f.weighting,
                noise: f.noise,
                warnings: f.warnings,
            })
        }
        Err(e) => Err(bad(&e)),
    }
}
