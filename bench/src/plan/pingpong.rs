//! `pingpong`'s plan.

use super::{ArgError, Inputs, OutputPlan, Repeat};
use crate::args::PingpongArgs;

/// The runtime's per-message cost against a bare ping-pong.
#[derive(Debug, Clone)]
pub(crate) struct PingpongPlan {
    /// Round trips per measurement.
    pub(crate) round_trips: u64,
    /// Measurements of each.
    pub(crate) repeat: Repeat,
    /// Output.
    pub(crate) output: OutputPlan,
}

impl PingpongPlan {
    /// Validates `pingpong`'s flags.
    pub(crate) fn new(a: &PingpongArgs) -> Result<Self, ArgError> {
        Ok(Self {
            round_trips: a.round_trips,
            repeat: Repeat {
                runs: a.runs,
                warmup: a.warmup,
            },
            output: OutputPlan::new(&a.output)?,
        })
    }

    /// Every input.
    pub(crate) fn inputs(&self) -> Inputs {
        let mut i = Inputs::new();
        i.add("round-trips", self.round_trips)
            .extend(self.repeat.inputs());
        i
    }
}
