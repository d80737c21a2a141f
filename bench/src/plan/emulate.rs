//! `emulate`'s plan.

use std::path::Path;

use multicomputer_runtime::Topology;
use multicomputer_workloads::synthetic::{Pattern, SyntheticSpec};

use super::{ArgError, Footprint, Inputs, MachinePlan, OutputPlan, RunPlan, trace_for_report};
use crate::args::{EmulateArgs, PatternArg};

/// A synthetic program on an emulated machine.
pub(crate) type EmulatePlan = RunPlan<SyntheticSpec>;

/// Validates `emulate`'s flags.
/// An HTML or Markdown report draws the run's processor timeline, so a run that writes one
/// records its trace when the trace fits the page ([`trace_for_report`]).
pub(crate) fn emulate(a: &EmulateArgs, out: &Path) -> Result<EmulatePlan, ArgError> {
    let output = OutputPlan::new(&a.run.output)?;
    RunPlan::new(&a.run, out, |topology, machine| {
        let spec = SyntheticSpec {
            rounds: a.rounds,
            occupy: a.occupy,
            pattern: match a.pattern {
                PatternArg::Independent => Pattern::Independent,
                PatternArg::Reduce => Pattern::Reduce,
            },
        };
        if trace_for_report(&output, records(topology, &spec)) {
            machine.trace = true;
        }
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

/// The trace records a run makes.
fn records(topology: &Topology, s: &SyntheticSpec) -> f64 {
    s.rounds as f64 * topology.len() as f64 * records_per_round(s.pattern)
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
        f.trace(records(topology, s));
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
