//! What a speedup experiment measures (run by `experiment`, its grain sweep by `grain`).

use serde::Serialize;

use crate::speedup::kernel::Workload;

/// What to measure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpeedupPlan {
    /// The kernel, its size and grain.
    pub workload: Workload,
    /// The processor counts, ascending, 1 first (the rough speedup needs it).
    pub processors: Vec<usize>,
    /// Measured rounds (≥ 1).
    pub rounds: usize,
    /// Discarded rounds before them.
    pub warmup: usize,
    /// The grains of a grain sweep at the largest P, if one is wanted.
    pub grains: Option<Vec<u64>>,
}
