//! `scaling`, the one command still on the old layout, and the paths it imports.
//!
//! `scaling.rs` is being rewritten (issue 11) and keeps its old imports until it moves to a
//! plan and a report like the other commands (`crate::run`). The modules below give those
//! imports — `commands::{ising, sweep}`, `crate::output`, `crate::UsageError` — on
//! the new layers; they go when it migrates. Its files can adopt the publisher
//! (`crate::files::RunFolder`, `Report::publish_folder`) to stop overwriting another run's.

pub(crate) mod scaling;

use std::fmt;

/// Bad input found after parsing, in `scaling`'s old form: exit code 2.
#[derive(Debug)]
pub(crate) struct UsageError(pub(crate) String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

impl From<crate::plan::ArgError> for UsageError {
    fn from(e: crate::plan::ArgError) -> Self {
        Self(e.to_string())
    }
}

/// `scaling`'s ising runs, on the ising plan's machine and the workload's experiment.
pub(crate) mod ising {
    use std::path::Path;

    use anyhow::Result;
    use multicomputer_runtime::Topology;
    use multicomputer_workloads::ising::{
        IsingConfig, IsingExperiment, IsingMeasurement, Mechanism, Workload, median,
    };

    use super::UsageError;
    pub(crate) use crate::args::{LatticeArgs, MechanismArg, MessageSystemArgs};
    use crate::plan::{MachinePlan, lattice_config, mechanism_of};

    impl LatticeArgs {
        /// The validated configuration; errors name the flag.
        pub(crate) fn config(&self) -> Result<IsingConfig, UsageError> {
            Ok(lattice_config(self)?)
        }
    }

    impl MechanismArg {
        /// The mechanism.
        pub(crate) fn mechanism(self) -> Mechanism {
            mechanism_of(self)
        }
    }

    /// One run's machine: the mechanism's topology, the message system and the loop count.
    pub(crate) struct MachineArgs {
        topology: Topology,
        messages: MessageSystemArgs,
        loop_count: u64,
    }

    impl MessageSystemArgs {
        /// The machine of one run: this message system with `loop_count` on the mechanism's
        /// topology of `processors`.
        pub(crate) fn machine_args(
            &self,
            mechanism: Mechanism,
            processors: usize,
            loop_count: u64,
        ) -> Result<MachineArgs, UsageError> {
            let topology = mechanism
                .topology(processors)
                .map_err(|e| UsageError(format!("--processors: {e}")))?;
            Ok(MachineArgs {
                topology,
                messages: self.clone(),
                loop_count,
            })
        }
    }

    /// Runs the program and measures it; with `always_dilate`, auto mode dilates at every P.
    pub(crate) fn run_ising(
        config: &IsingConfig,
        workload: Workload,
        mechanism: Mechanism,
        machine: &MachineArgs,
        out: &Path,
        always_dilate: bool,
    ) -> Result<(IsingMeasurement, ())> {
        let mut plan: MachinePlan =
            crate::plan::message_system(&machine.messages, machine.loop_count, out)?;
        plan.always_dilate = always_dilate;
        let e = IsingExperiment {
            config: config.clone(),
            workload,
            mechanism,
            loop_count: machine.loop_count,
        };
        let native = e.native_sample_times()?;
        let hints = e
            .hints(machine.topology.len(), median(native.clone()))
            .map_err(|err| UsageError(format!("--samples-per-processor: {err}")))?;
        let m = plan
            .machine(machine.topology.clone(), &hints)
            .map_err(UsageError::from)?;
        Ok((e.run(&m, native, false)?, ()))
    }
}

/// `scaling`'s list parser and CSV writer.
pub(crate) mod sweep {
    use std::path::Path;

    use anyhow::Result;
    use serde::Serialize;

    use super::UsageError;

    /// Splits a comma-separated list, rejecting empty items.
    pub(crate) fn split_list<'a>(arg: &str, list: &'a str) -> Result<Vec<&'a str>, UsageError> {
        Ok(crate::plan::split_list(arg, list)?)
    }

    /// Writes rows as CSV, atomically.
    pub(crate) fn write_csv<T: Serialize>(path: &Path, rows: &[T]) -> Result<()> {
        crate::files::write_file(path, &crate::report::csv::rows(rows)?)?;
        Ok(())
    }
}
