//! The consistency test on exact data (the module docs' "Exact data"): no noise, so every misfit
//! of `H₀` is the model's, and the question is whether it stays within the accuracy asked.

use super::design::Structure;
use super::{
    ConsistencyOptions, ConsistencyReport, ExactCheck, Table, Verdict, constrained_estimates,
};
use crate::analysis::error::ScalabilityError;
use crate::analysis::measurements::Cell;
use crate::analysis::noise::{
    NoiseEstimate, NoiseSource, ScatterCheck, Weighting, choose_weighting,
};
use crate::analysis::overhead_fit::{Estimate, fit_each_loop_count};
use crate::analysis::overhead_model::OverheadModel;

/// The relative precision of emulated run times in virtual time with model charging: whole
/// nanoseconds, each compute block rounded to one, over runs of milliseconds and more. No
/// tolerance can be finer than this.
pub const EXACT_PRECISION: f64 = 1e-5;

/// The accuracy asked of a candidate on exact data unless the user says otherwise: 1 % of every
/// cell mean. An overhead function is a model of the machine's costs, not a transcript: a
/// pipeline's start and drain, whole messages and whole samples leave deviations of a few
/// hundredths of a percent that no smooth function of `P` follows, while the failure the paper
/// looks for (a control overhead growing with the loop count) moves cell means by tens of
/// percent.
pub const DEFAULT_EXACT_TOLERANCE: f64 = 0.01;

/// The candidate against exact `cells`.
pub(super) fn test(
    model: &OverheadModel,
    cells: Vec<Cell>,
    tolerance: f64,
    options: &ConsistencyOptions,
) -> Result<ConsistencyReport, ScalabilityError> {
    if !(tolerance.is_finite() && (EXACT_PRECISION..1.0).contains(&tolerance)) {
        return Err(ScalabilityError::InvalidValue {
            what: "exact tolerance".into(),
            value: tolerance,
        });
    }
    // Relative weights: the deviations the check reads are relative.
    let weighting = choose_weighting(&cells, Weighting::Relative, false);
    let noise = NoiseEstimate {
        source: NoiseSource::Exact,
        variance: 0.0,
        dof: None,
        replicated_cells: cells.iter().filter(|c| c.runs > 1).count(),
    };
    let fits = fit_each_loop_count(model, &cells, weighting.applied, &noise)?;
    let table = Table::new(cells, weighting.applied);
    let constrained = table.fit(model, Structure::Constrained)?;
    let (i, deviation) = constrained
        .relative_residuals
        .iter()
        .map(|r| r.abs())
        .enumerate()
        .fold(
            (0, 0.0_f64),
            |(bi, b), (i, r)| if r > b { (i, r) } else { (bi, b) },
        );
    let check = ExactCheck {
        tolerance,
        largest_relative_deviation: deviation,
        at_processors: table.cells[i].processors,
        at_loop_count: table.cells[i].loop_count,
    };
    // The drift of `a` per unit of loop count, exactly (the trend test's estimate).
    let drifting = table.fit(model, Structure::DriftingConstant)?;
    let drift = Estimate {
        value: drifting.params[drifting.params.len() - 1] / table.loops.range(),
        std_error: 0.0,
    };
    let verdict = if deviation <= tolerance {
        Verdict::Consistent
    } else {
        Verdict::Refuted
    };
    Ok(ConsistencyReport {
        verdict,
        decided_by: None,
        inconclusive_because: None,
        model: model.clone(),
        against: None,
        significance: options.significance,
        level_per_test: options.significance,
        loop_counts: table.loops.values.clone(),
        weighting,
        noise,
        scatter: ScatterCheck {
            replicated_cells: noise.replicated_cells,
            identical_cells: noise.replicated_cells,
            pooled_run_time_sd: 0.0,
            resolution: None,
            resolution_inferred: false,
            at_or_below_resolution: false,
        },
        tests: Vec::new(),
        drift: Some(drift),
        constrained: constrained_estimates(model, &table, &constrained, &noise),
        power: None,
        fits,
        exact: Some(check),
        allowance: None,
        warnings: Vec::new(),
    })
}
