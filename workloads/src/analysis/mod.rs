//! Analysis shared by every workload: least-squares fitting with residuals and parameter
//! uncertainty. Pure functions; nothing here touches threads.

mod fit;

pub use fit::{FitError, LinearFit, NonlinearFit, fit_linear, fit_nonlinear};
