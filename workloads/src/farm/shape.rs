//! The farm model's view of a machine topology: its tree shape ([`TreeShape::of`]) when it
//! has one, or any tree as its parent relation.

use multicomputer_runtime::Topology;

use super::config::FarmTopology;
use crate::tree::TreeShape;

impl FarmTopology {
    /// The model's topology for a machine topology: its tree shape when it has one, else its
    /// parent relation with identical processors.
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
    }
}
