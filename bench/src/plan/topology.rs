//! The network a run uses: `-t/--topology` rooted at `--root`, and what a report says of its
//! spanning tree.

use multicomputer_runtime::Topology;

use super::{ArgError, Inputs};
use crate::args::TopologyArg;

/// The most spanning-tree links a report lists by name; the rest are counted.
const LISTED_TREE_LINKS: usize = 64;

impl TopologyArg {
    /// The topology, its spanning tree grown from `--root` when one is given.
    pub(crate) fn resolve(&self) -> Result<Topology, ArgError> {
        match self.root {
            None => Ok(self.topology.clone()),
            Some(root) => self
                .topology
                .rooted_at(root)
                .map_err(|e| ArgError::new("--root", e)),
        }
    }
}

/// The topology's inputs: its description and, unless it is a tree used from its own root,
/// the root and the links its spanning tree uses.
pub(crate) fn topology_inputs(topology: &Topology) -> Inputs {
    let mut i = Inputs::new();
    i.add("topology", topology);
    let own_root = Topology::parse(&topology.to_string())
        .map(|t| t.root())
        .unwrap_or(0);
    if topology.is_tree() && topology.root() == own_root {
        return i;
    }
    i.add("root", topology.root());
    i.add("spanning tree", spanning_tree(topology));
    i
}

/// `breadth first from P0: 8 of 12 links: 0–1 0–3 …`.
fn spanning_tree(topology: &Topology) -> String {
    let links = topology.tree_links();
    let mut text = format!(
        "breadth first from P{}: {} of {} links:",
        topology.root(),
        links.len(),
        topology.links()
    );
    for (a, b) in links.iter().take(LISTED_TREE_LINKS) {
        text.push_str(&format!(" {a}–{b}"));
    }
    if links.len() > LISTED_TREE_LINKS {
        text.push_str(&format!(" and {} more", links.len() - LISTED_TREE_LINKS));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arg(spec: &str, root: Option<usize>) -> TopologyArg {
        TopologyArg {
            topology: Topology::parse(spec).unwrap(),
            root,
        }
    }

    #[test]
    fn trees_from_their_own_root_add_nothing() {
        let t = arg("binary:3", None).resolve().unwrap();
        assert_eq!(topology_inputs(&t).0.len(), 1);
    }

    #[test]
    fn other_networks_name_the_root_and_the_tree_links() {
        let t = arg("mesh:2x2", Some(3)).resolve().unwrap();
        let i = topology_inputs(&t);
        assert_eq!(i.0[1], ("root".to_string(), "3".to_string()));
        assert_eq!(i.0[2].1, "breadth first from P3: 3 of 4 links: 3–2 3–1 2–0");
        let chain = arg("chain:3", Some(2)).resolve().unwrap();
        assert_eq!(topology_inputs(&chain).0.len(), 3);
        let e = arg("ring:4", Some(4)).resolve().unwrap_err();
        assert_eq!(e.flag, "--root");
        assert!(e.message.contains("processors 0 to 3"), "{}", e.message);
    }
}
