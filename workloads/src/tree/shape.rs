//! A balanced `k`-ary tree (a chain is `k = 1`) as the tree programs' models see it:
//! `(k, levels)`.

use multicomputer_runtime::{Topology, TopologyKind};
use serde::{Deserialize, Serialize};

use super::model::ModelError;

/// A balanced `k`-ary tree of `levels` levels; `k = 1` is a linear chain of `levels` processors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeShape {
    /// Children per internal processor (1 = chain).
    pub k: u32,
    /// Number of levels `N` (level 1 = leaves, level `N` = root).
    pub levels: u32,
}

impl TreeShape {
    /// `(k, levels)` of a chain, a linear array (`k = 1`, one level per processor) or a
    /// balanced `k`-ary tree; `None` for a tree given by a parent relation.
    ///
    /// ```
    /// use multicomputer_runtime::Topology;
    /// use multicomputer_workloads::tree::TreeShape;
    ///
    /// assert_eq!(TreeShape::of(&Topology::chain(5)?), Some(TreeShape { k: 1, levels: 5 }));
    /// assert_eq!(TreeShape::of(&"tree:3:2".parse()?), Some(TreeShape { k: 3, levels: 2 }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn of(topology: &Topology) -> Option<Self> {
        match topology.kind() {
            TopologyKind::Chain { processors } | TopologyKind::Array { processors } => Some(Self {
                k: 1,
                levels: u32::try_from(*processors).unwrap_or(u32::MAX),
            }),
            TopologyKind::Tree { arity, levels } => Some(Self {
                k: u32::try_from(*arity).unwrap_or(u32::MAX),
                levels: *levels,
            }),
            TopologyKind::Parents => None,
        }
    }

    /// Checks `k ≥ 1` and `levels ≥ 1`.
    pub fn validate(&self) -> Result<(), ModelError> {
        if self.k == 0 {
            return Err(ModelError::ZeroArity);
        }
        if self.levels == 0 {
            return Err(ModelError::ZeroLevels);
        }
        Ok(())
    }

    /// Number of processors, `Σ_{i=0}^{N−1} k^i` (`N` for a chain).
    pub fn processors(&self) -> u64 {
        (0..self.levels).map(|i| u64::from(self.k).pow(i)).sum()
    }

    /// Processors on level `i` (1 = leaves): `k^{N−i}`.
    pub fn processors_on_level(&self, level: u32) -> u64 {
        u64::from(self.k).pow(self.levels - level)
    }
}
