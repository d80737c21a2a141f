//! Repeated runs: how many are measured and how many warm up first.

use crate::args::{CellRepeatArgs, RepeatArgs};
use crate::plan::Inputs;

/// `--runs` measured runs after `--warmup` discarded ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Repeat {
    /// Measured runs (≥ 1).
    pub(crate) runs: u32,
    /// Discarded runs before them.
    pub(crate) warmup: u32,
}

impl Repeat {
    /// One run, no warm-up.
    pub(crate) const ONCE: Self = Self { runs: 1, warmup: 0 };

    /// Every run, warm-up included.
    pub(crate) fn total(&self) -> u32 {
        self.runs.saturating_add(self.warmup)
    }

    /// `runs` and `warmup` as inputs.
    pub(crate) fn inputs(&self) -> Inputs {
        let mut i = Inputs::new();
        i.add("runs", self.runs).add("warmup", self.warmup);
        i
    }
}

impl From<&RepeatArgs> for Repeat {
    fn from(a: &RepeatArgs) -> Self {
        Self {
            runs: a.runs,
            warmup: a.warmup,
        }
    }
}

impl From<&CellRepeatArgs> for Repeat {
    fn from(a: &CellRepeatArgs) -> Self {
        Self {
            runs: a.runs,
            warmup: a.warmup,
        }
    }
}
