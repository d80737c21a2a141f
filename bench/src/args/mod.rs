//! Command-line arguments as clap parses them, and nothing else: each command turns its
//! arguments into a validated plan ([`crate::plan`]) before anything runs.

mod calibrate;
mod collective;
mod common;
mod dnc;
mod emulate;
mod farm;
mod fit;
mod ising;
mod limits;
mod ocl;
mod pingpong;
mod scaling;
mod speedup;
mod sweep;
mod tour;
mod values;

pub(crate) use calibrate::CalibrateArgs;
pub(crate) use collective::{AlgorithmArg, CollectiveArgs, OperationArg};
pub(crate) use common::{
    ComputeArg, MessageArgs, ModeArg, RepeatArgs, ReportArgs, RunArgs, SwitchingArg, TimeArgs,
    TopologyArg, TraceArgs, TransferArgs, WaitArg,
};
pub(crate) use dnc::{DEFAULT_KEYS, DncArgs, DncKernelArg, DncWorkArgs, PredictDncArgs, SplitArg};
pub(crate) use emulate::{EmulateArgs, PatternArg, PholdArgs};
pub(crate) use farm::{
    DEFAULT_GRAIN, EngineArgs, FarmArgs, FarmRunArgs, FarmWorkArgs, KernelArg, PredictFarmArgs,
    TimesArg,
};
pub(crate) use fit::{FitCommand, FitFarmArgs};
pub(crate) use ising::{
    DimensionArg, IsingArgs, LatticeArgs, MechanismArg, MessageSystemArgs, StartArg,
};
pub(crate) use limits::*;
pub(crate) use ocl::{
    CostsArg, FitOclArgs, OclArgs, OclMachineArgs, SweepOclArgs, TableArg, WeightingArg,
};
pub(crate) use pingpong::PingpongArgs;
pub(crate) use scaling::{ScalingArgs, ScalingWeightingArg};
pub(crate) use speedup::{SpeedupArgs, SpeedupKernelArg};
pub(crate) use sweep::{
    CellRepeatArgs, SweepCollectiveArgs, SweepCommand, SweepDncArgs, SweepFarmArgs,
};
pub(crate) use tour::TourArgs;
#[cfg(test)]
pub(crate) use values::parse_unit_cost;
pub(crate) use values::{check_unit_cost, parse_bytes, parse_duration};
