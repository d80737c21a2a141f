//! Executing plans on machines: repeated runs of one experiment, the cells of a sweep, an
//! estimate of the wall time before a long run, and progress while it runs. Shared by the
//! commands that run (and by the tour), so that no command calls another.

mod estimate;
mod experiment;
mod family;
mod grid;
mod progress;
mod runs;
mod scaling;
mod ties;

pub(crate) use estimate::{
    Estimate, admit, announce, calibration, check_emulated, host_load, overhead, refuse_endless,
};
pub(crate) use experiment::Experiment;
pub(crate) use family::{FAMILY_GROWTH, family_speedups};
pub(crate) use grid::{cells, ocl_cells};
pub(crate) use progress::{Progress, Ticker, completed};
pub(crate) use runs::{Runs, describe, ising_runs, ocl_runs, repeat, runs};
pub(crate) use scaling::{ScalingRow, scaling_runs};
pub(crate) use ties::TieSpread;
