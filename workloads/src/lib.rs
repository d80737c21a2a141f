//! Parallel programs for the emulated multicomputer, each with its sequential reference and its
//! analytic model, and the analysis (least squares) shared by all of them.

pub mod analysis;
pub mod dnc;
pub mod farm;
pub mod ising;
pub mod ocl;
pub mod tree;
pub mod unit_costs;
