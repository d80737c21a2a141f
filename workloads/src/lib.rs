//! Parallel programs for the emulated multicomputer, each with its sequential reference and its
//! analytic model, and the analysis (least squares) shared by all of them.
//!
//! Every workload has the same shape: a spec of what runs, a model that predicts it from the
//! same spec (pure functions, citing their paper), the program (with its sequential
//! reference), and a `compare` module that runs the program on a machine, checks it and
//! measures what the model predicts. Every number a report shows is computed here:
//! [`repetitions`] summarises repeated runs, [`estimate`] gives fitted parameters their
//! confidence intervals, [`hints`] tells the machine's auto mode what a workload does.

pub mod analysis;
pub mod charging;
pub mod collectives;
pub mod dnc;
pub mod estimate;
pub mod farm;
pub mod hints;
pub mod ising;
pub mod ocl;
pub mod repetitions;
pub mod speedup;
pub mod synthetic;
pub mod tree;
pub mod unit_costs;
