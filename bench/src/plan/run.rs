//! The plan every emulated run shares: one experiment on one machine, repeated.

use std::path::Path;

use multicomputer_runtime::{Hints, Topology};

use super::{
    ArgError, Footprint, Inputs, MachinePlan, OutputPlan, Repeat, TracePlan, topology_inputs,
};
use crate::args::RunArgs;

/// One experiment (`E`: a farm, a divide and conquer, a synthetic program) on one machine.
#[derive(Debug, Clone)]
pub(crate) struct RunPlan<E> {
    /// The machine's topology.
    pub(crate) topology: Topology,
    /// How the machine is built.
    pub(crate) machine: MachinePlan,
    /// What runs.
    pub(crate) experiment: E,
    /// Trace files.
    pub(crate) trace: TracePlan,
    /// Repetitions.
    pub(crate) repeat: Repeat,
    /// Output.
    pub(crate) output: OutputPlan,
    /// The memory the run will hold, as the memory model plans it.
    pub(crate) memory: Footprint,
}

impl<E> RunPlan<E> {
    /// Validates the flags every run shares; `experiment` builds the rest from the machine's
    /// plan (its link costs give the models' transfer time), and raises what the plan must
    /// hold for it ([`MachinePlan::hold`]).
    pub(crate) fn new(
        r: &RunArgs,
        out: &Path,
        experiment: impl FnOnce(&Topology, &mut MachinePlan) -> Result<(E, Footprint), ArgError>,
    ) -> Result<Self, ArgError> {
        let trace = TracePlan::new(&r.trace)?;
        let mut machine = MachinePlan::new(&r.time, out)?
            .transfer(&r.transfer)
            .messages(&r.messages)
            .tracing(&trace);
        let topology = r.topology.resolve()?;
        let output = OutputPlan::new(&r.output)?;
        super::distinct_outputs(Some(&trace), &output, &[])?;
        let (experiment, memory) = experiment(&topology, &mut machine)?;
        Ok(Self {
            experiment,
            memory,
            topology,
            machine,
            trace,
            repeat: (&r.repeat).into(),
            output,
        })
    }

    /// Every input: the topology, the experiment's, the machine's and the repetitions.
    pub(crate) fn inputs(&self, experiment: Inputs) -> Inputs {
        let mut i = Inputs::new();
        i.extend(topology_inputs(&self.topology))
            .extend(experiment)
            .extend(self.machine.inputs())
            .extend(self.repeat.inputs());
        i
    }
}

/// Admits experiment `e` (a farm or a divide and conquer on the tree engine) on `topology`:
/// its model accepts it (`check`), the machine's plan holds what its `hints` ask for (where
/// the model gives them), and the memory its run will hold is planned (`footprint`, after
/// the plan holds the hints) and fits.
pub(crate) fn admit_experiment<E, M>(
    topology: &Topology,
    machine: &mut MachinePlan,
    e: E,
    check: impl FnOnce(&Topology, &E) -> Result<(), ArgError>,
    hints: impl FnOnce(&E, &Topology) -> Result<Hints, M>,
    footprint: impl FnOnce(&Topology, &E, &MachinePlan) -> Result<Footprint, ArgError>,
) -> Result<(E, Footprint), ArgError> {
    check(topology, &e)?;
    if let Ok(hints) = hints(&e, topology) {
        machine.hold(&hints);
    }
    let memory = footprint(topology, &e, machine)?;
    memory.check()?;
    Ok((e, memory))
}
