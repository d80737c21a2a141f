//! Validated plans, one per command: every check that clap cannot do alone, with errors that
//! name the flag ([`ArgError`]), made before anything runs or is written. Sweeps and the tour
//! build plans too, never clap structures.
//!
//! Each flag is validated in one place: its value parser in [`crate::args`] for its syntax,
//! and the one function here that reads it into a plan for its meaning (its range, its
//! relation to other flags, the files it names). The machine's configuration is built in one
//! place, [`MachinePlan::config`].

mod budget;
mod calibrate;
mod collective;
mod dnc;
mod emulate;
mod error;
mod farm;
mod fit;
mod inputs;
mod ising;
mod lists;
mod machine;
mod ocl;
mod output;
mod pingpong;
mod repeat;
mod run;
mod scaling;
mod speedup;
mod sweep;
mod topology;
mod tour;

pub(crate) use budget::{Footprint, available_memory};
pub(crate) use calibrate::CalibratePlan;
pub(crate) use collective::{CollectiveExperiment, collective, collective_inputs};
pub(crate) use dnc::{PredictDncPlan, dnc, dnc_inputs, splitting_name};
pub(crate) use emulate::{EmulatePlan, emulate, synthetic_inputs};
pub(crate) use error::{ArgError, model_error};
pub(crate) use farm::{PredictFarmPlan, farm, farm_inputs, times_name};
pub(crate) use fit::{FitFarmPlan, SkippedRow};
pub(crate) use inputs::Inputs;
pub(crate) use ising::IsingPlan;
#[cfg(test)]
pub(crate) use lists::{counts, durations, topologies};
pub(crate) use machine::{
    LoadedProfile, MachinePlan, default_profile_path, load_profile, wait_name,
};
pub(crate) use ocl::{
    FitOclPlan, OclPlan, SweepOclPlan, pipeline_costs, pipeline_machine, table_of,
};
#[cfg(test)]
pub(crate) use ocl::{parse_transform, read_stream, read_table};
#[cfg(test)]
pub(crate) use output::ReportFile;
pub(crate) use output::{
    Format, MOST_TIMELINE_RECORDS_IN_REPORT, OutputPlan, RunFolderPlan, TracePlan,
    distinct_outputs, trace_for_report,
};
pub(crate) use pingpong::PingpongPlan;
pub(crate) use repeat::Repeat;
pub(crate) use run::{RunPlan, admit_experiment};
pub(crate) use scaling::{Fitted, ScalingPlan, ScalingSource, ScalingSweep, scaling_topology};
pub(crate) use speedup::SpeedupCommandPlan;
pub(crate) use sweep::{
    DncCell, FarmCell, SweepCollectivePlan, SweepDncPlan, SweepFarmPlan, SweepPlan,
};
pub(crate) use topology::topology_inputs;
pub(crate) use tour::TourPlan;
