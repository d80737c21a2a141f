//! One typed report body per command (or kind of command).

mod calibrate;
mod collective;
mod emulate;
mod farm;
mod fit;
mod ising;
mod ocl;
mod pingpong;
mod predict;
mod program;
mod scaling;
mod speedup;
mod sweep;
mod sweep_collective;
mod sweep_plots;
mod sweep_row;
mod tour;

pub(crate) use calibrate::CalibrateReport;
pub(crate) use collective::CollectiveReport;
pub(crate) use emulate::EmulateReport;
pub(crate) use farm::FarmReport;
pub(crate) use fit::FitFarmReport;
pub(crate) use ising::IsingReport;
pub(crate) use ocl::{FitOclReport, OclReport, SweepOclReport, SweepOclRow};
pub(crate) use pingpong::PingpongReport;
pub(crate) use predict::{PredictDncReport, PredictFarmReport};
pub(crate) use program::ProgramReport;
pub(crate) use scaling::{AlternativeFit, Analysis, LoopCountRow, ScalingReport};
pub(crate) use speedup::SpeedupReport;
#[cfg(test)]
pub(crate) use sweep::sweep_rows;
pub(crate) use sweep::{CellInputs, SweepReport, sweep_report};
pub(crate) use sweep_collective::sweep_collective_report;
pub(crate) use tour::TourReport;
