//! The model's view of a machine topology: a balanced `k`-ary tree (a chain is `k = 1`) as
//! `(k, levels)`, or any tree as its parent relation.

use multicomputer_runtime::{Topology, TopologyKind};

use super::config::FarmTopology;
use super::model::TreeShape;

impl TreeShape {
    /// `(k, levels)` of a chain, a linear array (`k = 1`, one level per processor) or a
    /// balanced `k`-ary tree used from its own root 0; `None` for a tree given by a parent
    /// relation, a tree re-rooted elsewhere, and the spanning tree of any other network.
    ///
    /// ```
    /// use multicomputer_runtime::Topology;
    /// use multicomputer_workloads::farm::TreeShape;
    ///
    /// assert_eq!(TreeShape::of(&Topology::chain(5)?), Some(TreeShape { k: 1, levels: 5 }));
    /// assert_eq!(TreeShape::of(&"tree:3:2".parse()?), Some(TreeShape { k: 3, levels: 2 }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn of(topology: &Topology) -> Option<Self> {
        if topology.root() != 0 {
            return None;
        }
        match topology.kind() {
            TopologyKind::Chain { processors } | TopologyKind::Array { processors } => Some(Self {
                k: 1,
                levels: u32::try_from(*processors).unwrap_or(u32::MAX),
            }),
            TopologyKind::Tree { arity, levels } => Some(Self {
                k: u32::try_from(*arity).unwrap_or(u32::MAX),
                levels: *levels,
            }),
            _ => None,
        }
    }
}

impl FarmTopology {
    /// The model's topology for a machine topology: its tree shape when it has one, else the
    /// parent relation of its spanning tree with identical processors.
    pub fn of(topology: &Topology) -> Self {
        match TreeShape::of(topology) {
            Some(shape) => Self::Tree(shape),
            None => Self::Parents {
                parents: topology.parents().to_vec(),
                processor_te_s: None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_maps_to_its_shape() {
        let t = |s: &str| s.parse::<Topology>().unwrap();
        assert_eq!(
            TreeShape::of(&t("array:4")),
            Some(TreeShape { k: 1, levels: 4 })
        );
        assert_eq!(
            TreeShape::of(&t("binary:3")),
            Some(TreeShape { k: 2, levels: 3 })
        );
        let parents = Topology::from_parents(vec![None, Some(0), Some(0), Some(1)]).unwrap();
        assert_eq!(TreeShape::of(&parents), None);
        match FarmTopology::of(&parents) {
            FarmTopology::Parents { parents, .. } => {
                assert_eq!(parents, vec![None, Some(0), Some(0), Some(1)]);
            }
            other => panic!("{other:?}"),
        }
        // A re-rooted chain is no longer a chain from 0; a mesh is its spanning tree.
        let rerooted = t("chain:3").rooted_at(1).unwrap();
        assert_eq!(TreeShape::of(&rerooted), None);
        match FarmTopology::of(&t("mesh:2x2")) {
            FarmTopology::Parents { parents, .. } => {
                assert_eq!(parents, vec![None, Some(0), Some(0), Some(1)]);
            }
            other => panic!("{other:?}"),
        }
    }
}
