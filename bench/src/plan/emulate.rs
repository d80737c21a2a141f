//! `emulate`'s plan.

use std::path::Path;

use multicomputer_runtime::Topology;
use multicomputer_workloads::synthetic::{Pattern, SyntheticSpec};

use super::{ArgError, Footprint, Inputs, MachinePlan, RunPlan};
use crate::args::{EmulateArgs, PatternArg};

/// A synthetic program on an emulated machine.
pub(crate) type EmulatePlan = RunPlan<SyntheticSpec>;

/// Validates `emulate`'s flags.
pub(crate) fn emulate(a: &EmulateArgs, out: &Path) -> Result<EmulatePlan, ArgError> {
    RunPlan::new(&a.run, out, |topology, machine| {
        let spec = SyntheticSpec {
            rounds: a.rounds,
            occupy: a.occupy,
            pattern: match a.pattern {
                PatternArg::Independent => Pattern::Independent,
                PatternArg::Reduce => Pattern::Reduce,
            },
        };
        let memory = footprint(topology, &spec, machine)?;
        memory.check()?;
        Ok((spec, memory))
    })
}

/// Trace records a processor makes per round: its occupy interval; reducing, also its
/// send's start-up, its wait for its children and the message.
fn records_per_round(pattern: Pattern) -> f64 {
    match pattern {
        Pattern::Independent => 1.0,
        Pattern::Reduce => 4.0,
    }
}

/// What an `emulate` run holds (the memory model): its processors, their links' buffers on
/// threads, and its trace.
pub(crate) fn footprint(
    topology: &Topology,
    s: &SyntheticSpec,
    machine: &MachinePlan,
) -> Result<Footprint, ArgError> {
    let mut f = Footprint::new();
    f.machine(topology, machine, &s.hints())?;
    if f.traced() {
        f.trace(s.rounds as f64 * topology.len() as f64 * records_per_round(s.pattern));
    }
    Ok(f)
}

/// The program's inputs.
pub(crate) fn synthetic_inputs(s: &SyntheticSpec) -> Inputs {
    let mut i = Inputs::new();
    i.add("rounds", s.rounds)
        .duration("occupy", s.occupy)
        .add("pattern", s.pattern.name());
    i
}
