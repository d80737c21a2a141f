//! Analysis shared by every workload: least-squares fitting with residuals and parameter
//! uncertainty, and the scalability analysis (overhead functions, speedup, the consistency test
//! of a candidate overhead model). Pure functions; nothing here touches threads.

mod fit;
mod scalability;

pub use fit::{FitError, LinearFit, NonlinearFit, fit_linear, fit_nonlinear};
pub use scalability::{
    BasisTerm, ChiSquare, CoefficientRow, ConsistencyOptions, ConsistencyReport, ConstancyCheck,
    FailedCheck, FitCheck, LackOfFit, LinearityCheck, LoopCountTable, Observation, OverheadFit,
    OverheadModel, ScalabilityError, TermEstimate, TermlessEstimate, UncertaintySource, Verdict,
    Weighting, Work, amdahl_bound, chi_square_sf, consistency_test, f_sf, fit_overhead,
    ideal_run_time, judge_coefficients, overhead_observations, scaled_speedup, sequential_run_time,
    speedup, speedup_from_overhead, system_overhead,
};
