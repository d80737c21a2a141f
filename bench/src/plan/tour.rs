//! The tour's plan: built in code from fixed choices, as plans of the commands it shows.

use std::path::Path;
use std::time::Duration;

use multicomputer_runtime::TimeMode;
use multicomputer_runtime::Topology;
use multicomputer_workloads::farm::{FarmExperiment, FarmSpec, Kernel, TaskTimes};
use multicomputer_workloads::synthetic::{Pattern, SyntheticSpec};

use super::lists::topologies;
use super::{
    ArgError, CalibratePlan, EmulatePlan, FarmCell, Inputs, MachinePlan, OutputPlan, Repeat,
    RunFolderPlan, SweepFarmPlan, TracePlan, default_profile_path,
};
use crate::args::{TourArgs, WaitArg};
use crate::plan::output::output_file;

/// The tour: calibrate, a small farm sweep, an emulation of more processors than cores.
#[derive(Debug, Clone)]
pub(crate) struct TourPlan {
    /// Step 1.
    pub(crate) calibrate: CalibratePlan,
    /// Step 2.
    pub(crate) sweep: SweepFarmPlan,
    /// Step 3.
    pub(crate) emulate: EmulatePlan,
    /// Output.
    pub(crate) output: OutputPlan,
}

impl TourPlan {
    /// The tour's steps, writing under `out`.
    pub(crate) fn new(a: &TourArgs, out: &Path) -> Result<Self, ArgError> {
        let calibrate = CalibratePlan {
            samples: 50,
            profile: output_file("--out", &default_profile_path(out))?,
            profile_flag: "--out",
            output: OutputPlan::default(),
        };
        // Auto mode, with the profile this tour's first step writes (read when it runs).
        let machine = MachinePlan::from_parts(TimeMode::Auto, WaitArg::Auto, None, out)?;
        let cells = topologies("--topologies", "chain:1-6,binary:1-3")?
            .into_iter()
            .map(|topology| FarmCell {
                topology,
                experiment: FarmExperiment {
                    spec: FarmSpec {
                        tasks: 300,
                        te: Duration::from_millis(1),
                        times: TaskTimes::Constant,
                        kernel: Kernel::Synthetic,
                        granularity: 1,
                        task_bytes: 64,
                        result_bytes: 8,
                        seed: 1,
                    },
                    beta_e: Duration::from_micros(50),
                    beta_f: Duration::from_micros(100),
                    queue: 1,
                    guided: true,
                    tau_s: 0.0,
                },
            })
            .collect::<Vec<FarmCell>>();
        let mut grid = Inputs::new();
        grid.add("topologies", "chain:1-6,binary:1-3")
            .add("te", "1ms")
            .add("tasks", 300)
            .add("beta-e", "50 µs")
            .add("beta-f", "100 µs")
            .add("guided", true);
        // One mode for every cell, links that hold what the farm needs (as `sweep farm`).
        let mut sweep_machine = machine.clone();
        sweep_machine.one_mode_for(cells.iter().map(|c: &FarmCell| &c.topology));
        for c in &cells {
            if let Ok(hints) = c.experiment.hints(&c.topology) {
                sweep_machine.hold(&hints);
            }
        }
        let sweep = SweepFarmPlan {
            cells,
            machine: sweep_machine,
            repeat: Repeat::ONCE,
            folder: RunFolderPlan::new(out, "tour-farm")?,
            output: OutputPlan::default(),
            grid,
        };
        let topology: Topology = "chain:64"
            .parse()
            .map_err(|e| ArgError::new("--topology", e))?;
        let experiment = SyntheticSpec {
            rounds: 50,
            occupy: Duration::from_millis(2),
            pattern: Pattern::Independent,
        };
        let memory = super::emulate::footprint(&topology, &experiment, &machine)?;
        memory.check()?;
        let emulate = EmulatePlan {
            topology,
            machine,
            experiment,
            trace: TracePlan::default(),
            repeat: Repeat::ONCE,
            output: OutputPlan::default(),
            memory,
        };
        Ok(Self {
            calibrate,
            sweep,
            emulate,
            output: OutputPlan::new(&a.output)?,
        })
    }

    /// Every input.
    pub(crate) fn inputs(&self) -> Inputs {
        let mut i = Inputs::new();
        i.add("calibrate samples", self.calibrate.samples)
            .add(
                "farm sweep",
                "chain:1-6,binary:1-3, T_e = 1 ms, M = 300, guided",
            )
            .add("emulate", "chain:64, 50 rounds of 2 ms");
        i
    }
}
