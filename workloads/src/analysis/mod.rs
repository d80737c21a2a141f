//! Analysis shared by every workload: least-squares fitting with residuals and parameter
//! uncertainty, and the scalability analysis of Zorbas, Reble and VanKooten, "Measuring the
//! scalability of parallel computer systems" (1989). Pure functions; nothing here touches
//! threads.
//!
//! The scalability analysis, one module per concept:
//!
//! * definitions (§2–3): work, ideal run time, the system overhead `Φ_s = T/ideal`, speedup
//!   ([`system_overhead`], [`ideal_run_time`], …);
//! * overhead models (§4): candidate overhead functions such as (6) `a + b·log P`
//!   ([`OverheadModel`]);
//! * measurements: run times at (P, loop count), grouped into cells with their pure error
//!   ([`Measurement`], [`cells`]);
//! * noise: the weighting (constant or relative noise), the noise pooled from replicates, the
//!   replicates' scatter against the timer's resolution ([`estimate_noise`], [`check_scatter`]);
//! * the fit of the candidate at each loop count, the rows of the paper's Tables 1–2
//!   ([`fit_overhead`]);
//! * the consistency test (§4–5) as a decision rule with a stated level: a trend test of `a`
//!   against the loop count, a pooled lack-of-fit test, optionally a nested test against a richer
//!   model, and a guard on their power; `consistent`, `refuted` or `inconclusive`
//!   ([`consistency_test`], whose docs derive the rule);
//! * the t, F and χ² distributions (from `statrs`) and the F test's power ([`f_sf`],
//!   [`f_test_power`]).

mod basis;
mod consistency;
mod definitions;
mod distributions;
mod error;
mod fit;
mod measurements;
mod noise;
mod overhead_fit;
mod overhead_model;
mod quadratic_form;

pub use basis::BasisTerm;
pub use consistency::{
    CoefficientLine, ConsistencyOptions, ConsistencyReport, ConstrainedFit,
    DEFAULT_EXACT_TOLERANCE, EXACT_PRECISION, EXCEEDANCES, ExactCheck, FEW_REPLICATE_DOF,
    InconclusiveReason, KurtosisSource, LoopCountFits, MOST_RESAMPLES, NestedTest, NoiseAllowance,
    PowerGuard, REWEIGHTING_CYCLES, ResampleCount, Resampled, SMALLEST_SIGNIFICANCE, TestKind,
    Verdict, Warning, consistency_test, fit_loop_counts,
};
pub use definitions::{
    Work, amdahl_bound, ideal_run_time, scaled_speedup, sequential_run_time, speedup,
    speedup_from_overhead, system_overhead,
};
pub use distributions::{chi_square_sf, f_critical, f_sf, f_test_power, t_two_sided_p};
pub use error::ScalabilityError;
pub use fit::{FitError, LinearFit, NonlinearFit, fit_linear, fit_nonlinear};
pub use measurements::{Cell, Measurement, cells};
pub use noise::{
    AppliedWeighting, NoiseEstimate, NoiseSource, ScatterCheck, VarianceLevels, Weighting,
    WeightingChoice, WeightingRule, cell_weights, check_scatter, choose_weighting, estimate_noise,
};
pub use overhead_fit::{
    Estimate, OverheadFit, TermEstimate, UncertaintySource, fit_each_loop_count, fit_overhead,
};
pub use overhead_model::OverheadModel;
