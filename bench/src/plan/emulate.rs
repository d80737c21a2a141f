//! `emulate`'s plan.

use std::path::Path;

use multicomputer_workloads::synthetic::{Pattern, SyntheticSpec};

use super::{ArgError, Inputs, RunPlan};
use crate::args::{EmulateArgs, PatternArg};

/// A synthetic program on an emulated machine.
pub(crate) type EmulatePlan = RunPlan<SyntheticSpec>;

/// Validates `emulate`'s flags.
pub(crate) fn emulate(a: &EmulateArgs, out: &Path) -> Result<EmulatePlan, ArgError> {
    RunPlan::new(&a.run, out, |_, _| {
        Ok(SyntheticSpec {
            rounds: a.rounds,
            occupy: a.occupy,
            pattern: match a.pattern {
                PatternArg::Independent => Pattern::Independent,
                PatternArg::Reduce => Pattern::Reduce,
            },
        })
    })
}

/// The program's inputs.
pub(crate) fn synthetic_inputs(s: &SyntheticSpec) -> Inputs {
    let mut i = Inputs::new();
    i.add("rounds", s.rounds)
        .duration("occupy", s.occupy)
        .add("pattern", s.pattern.name());
    i
}
