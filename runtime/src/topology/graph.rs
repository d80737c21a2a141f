//! The network as an undirected graph: every processor's links in their documented order, the
//! link that comes back, connectivity, and the breadth-first spanning tree.
//!
//! Links are kept in one flat table (compressed rows): processor `i`'s links are entries
//! `offsets[i]..offsets[i + 1]`, each naming the processor at its far end and the entry of the
//! same link seen from there. Everything here takes time linear in the links (the reverse
//! table sorts each processor's own links, O(E log degree)), so networks of 10⁶ processors
//! build in about a second.

use crate::error::TopologyError;

/// An undirected graph in compressed rows, with every link's reverse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Graph {
    offsets: Vec<usize>,
    targets: Vec<u32>,
    reverse: Vec<u32>,
}

impl Graph {
    /// The graph whose processor `i` has links to `rows[i]`, in that order. Each link must be
    /// listed at both ends, once; no processor links to itself.
    ///
    /// `rows` is a function so that families can generate their rows without holding them all.
    pub(crate) fn from_rows(
        n: usize,
        mut row: impl FnMut(usize, &mut Vec<u32>),
    ) -> Result<Self, TopologyError> {
        let mut offsets = Vec::with_capacity(n + 1);
        let mut targets = Vec::new();
        offsets.push(0);
        for i in 0..n {
            row(i, &mut targets);
            offsets.push(targets.len());
        }
        if targets.len() > u32::MAX as usize {
            return Err(TopologyError::TooManyLinks {
                links: targets.len() as u64 / 2,
                max: MAX_LINKS,
            });
        }
        let reverse = reverse_table(&offsets, &targets)?;
        Ok(Self {
            offsets,
            targets,
            reverse,
        })
    }

    /// Number of processors.
    pub(crate) fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Number of undirected links.
    pub(crate) fn links(&self) -> usize {
        self.targets.len() / 2
    }

    /// The processors at the far ends of `i`'s links, in link order.
    pub(crate) fn row(&self, i: usize) -> &[u32] {
        &self.targets[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Number of links of processor `i`.
    pub(crate) fn degree(&self, i: usize) -> usize {
        self.offsets[i + 1] - self.offsets[i]
    }

    /// The largest number of links of one processor.
    pub(crate) fn max_degree(&self) -> usize {
        (0..self.len()).map(|i| self.degree(i)).max().unwrap_or(0)
    }

    /// The position of `i`'s link `k` in the table of all directed links (0 to twice the
    /// links).
    pub(crate) fn entry(&self, i: usize, k: usize) -> usize {
        self.offsets[i] + k
    }

    /// The index, among the links of `i`'s neighbour at link `k`, of the link back to `i`.
    pub(crate) fn back(&self, i: usize, k: usize) -> usize {
        let g = self.offsets[i] + k;
        let j = self.targets[g] as usize;
        self.reverse[g] as usize - self.offsets[j]
    }

    /// Breadth-first distances from `from` (`u32::MAX`: unreachable), and the order visited.
    pub(crate) fn bfs(&self, from: usize) -> (Vec<u32>, Vec<u32>) {
        let mut dist = vec![u32::MAX; self.len()];
        let mut order = Vec::with_capacity(self.len());
        dist[from] = 0;
        order.push(from as u32);
        let mut next = 0;
        while next < order.len() {
            let v = order[next] as usize;
            next += 1;
            for &w in self.row(v) {
                if dist[w as usize] == u32::MAX {
                    dist[w as usize] = dist[v] + 1;
                    order.push(w);
                }
            }
        }
        (dist, order)
    }

    /// Fails with the first processor not reachable from processor 0.
    pub(crate) fn check_connected(&self) -> Result<(), TopologyError> {
        let (dist, order) = self.bfs(0);
        if order.len() == self.len() {
            return Ok(());
        }
        let missing = dist.iter().position(|&d| d == u32::MAX).unwrap_or(0);
        Err(TopologyError::Disconnected { processor: missing })
    }
}

/// The most undirected links a network may have: the link tables index them in 32 bits.
pub const MAX_LINKS: usize = (u32::MAX / 2) as usize;

/// For every directed entry `i → j` (at `g`), the entry of `j → i`. Fails on a link to a
/// missing processor, to itself, listed twice, or listed at one end only.
fn reverse_table(offsets: &[usize], targets: &[u32]) -> Result<Vec<u32>, TopologyError> {
    let n = offsets.len() - 1;
    // Incoming entries of each processor, bucketed in increasing order of their source.
    let mut fill: Vec<usize> = offsets[..n].to_vec();
    let mut incoming = vec![0u32; targets.len()];
    for i in 0..n {
        for (g, &j) in targets
            .iter()
            .enumerate()
            .take(offsets[i + 1])
            .skip(offsets[i])
        {
            let j = j as usize;
            if j >= n || j == i {
                return Err(TopologyError::BadLink { from: i, to: j });
            }
            if fill[j] == offsets[j + 1] {
                // More links into j than j lists: one of them is missing at j.
                return Err(TopologyError::OneSided { from: i, to: j });
            }
            incoming[fill[j]] = g as u32;
            fill[j] += 1;
        }
    }
    let mut reverse = vec![0u32; targets.len()];
    let mut by_peer: Vec<usize> = Vec::new();
    for j in 0..n {
        if fill[j] != offsets[j + 1] {
            let k = fill[j] - offsets[j];
            return Err(TopologyError::OneSided {
                from: j,
                to: targets[offsets[j] + k] as usize,
            });
        }
        // j's own entries in increasing order of the peer: they must pair one to one with
        // the incoming entries, which are in increasing order of their source.
        by_peer.clear();
        by_peer.extend(offsets[j]..offsets[j + 1]);
        by_peer.sort_unstable_by_key(|&g| targets[g]);
        for (t, &own) in by_peer.iter().enumerate() {
            let inc = incoming[offsets[j] + t] as usize;
            let source = source_of(offsets, inc);
            if t > 0 && targets[own] == targets[by_peer[t - 1]] {
                return Err(TopologyError::Duplicate {
                    a: j,
                    b: targets[own] as usize,
                });
            }
            if targets[own] as usize != source {
                let (from, to) = if (targets[own] as usize) < source {
                    (j, targets[own] as usize)
                } else {
                    (source, j)
                };
                return Err(TopologyError::OneSided { from, to });
            }
            reverse[inc] = own as u32;
        }
    }
    Ok(reverse)
}

/// The processor whose row holds entry `g`.
fn source_of(offsets: &[usize], g: usize) -> usize {
    offsets.partition_point(|&o| o <= g) - 1
}

/// A spanning tree of the graph, breadth first from a root: each processor's parent is the
/// first processor, in breadth-first order, with a link to it; children are discovered in
/// their parent's link order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SpanningTree {
    pub(crate) root: usize,
    pub(crate) parent: Vec<Option<usize>>,
    /// The parent's link among the processor's own (`u32::MAX` at the root).
    pub(crate) parent_link: Vec<u32>,
    pub(crate) children: Vec<Vec<usize>>,
    pub(crate) level: Vec<u32>,
}

impl SpanningTree {
    /// The breadth-first tree of `graph` from `root` (the graph is connected).
    pub(crate) fn breadth_first(graph: &Graph, root: usize) -> Self {
        let n = graph.len();
        let mut parent = vec![None; n];
        let mut parent_link = vec![u32::MAX; n];
        let mut children = vec![Vec::new(); n];
        let mut seen = vec![false; n];
        let mut order = Vec::with_capacity(n);
        seen[root] = true;
        order.push(root);
        let mut next = 0;
        while next < order.len() {
            let v = order[next];
            next += 1;
            for (k, &w) in graph.row(v).iter().enumerate() {
                let w = w as usize;
                if !seen[w] {
                    seen[w] = true;
                    parent[w] = Some(v);
                    parent_link[w] = graph.back(v, k) as u32;
                    children[v].push(w);
                    order.push(w);
                }
            }
        }
        let mut level = vec![1u32; n];
        for &v in order.iter().rev() {
            if let Some(p) = parent[v] {
                level[p] = level[p].max(level[v] + 1);
            }
        }
        Self {
            root,
            parent,
            parent_link,
            children,
            level,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(rows: &[&[u32]]) -> Result<Graph, TopologyError> {
        Graph::from_rows(rows.len(), |i, out| out.extend_from_slice(rows[i]))
    }

    #[test]
    fn reverse_links_point_back() {
        // A square 0-1-2-3-0 with rows in an arbitrary order.
        let g = graph(&[&[3, 1], &[0, 2], &[3, 1], &[2, 0]]).unwrap();
        assert_eq!(g.links(), 4);
        for i in 0..4 {
            for (k, &j) in g.row(i).iter().enumerate() {
                assert_eq!(g.row(j as usize)[g.back(i, k)] as usize, i);
            }
        }
        assert_eq!(g.back(0, 0), 1);
        assert_eq!(g.back(0, 1), 0);
    }

    #[test]
    fn malformed_rows_are_rejected() {
        assert_eq!(
            graph(&[&[1], &[]]),
            Err(TopologyError::OneSided { from: 0, to: 1 })
        );
        assert_eq!(
            graph(&[&[0]]),
            Err(TopologyError::BadLink { from: 0, to: 0 })
        );
        assert_eq!(
            graph(&[&[1, 1], &[0, 0]]),
            Err(TopologyError::Duplicate { a: 0, b: 1 })
        );
        assert_eq!(
            graph(&[&[5]]),
            Err(TopologyError::BadLink { from: 0, to: 5 })
        );
        let apart = graph(&[&[1], &[0], &[3], &[2]]).unwrap();
        assert_eq!(
            apart.check_connected(),
            Err(TopologyError::Disconnected { processor: 2 })
        );
    }

    #[test]
    fn breadth_first_tree_follows_link_order() {
        // 0 links to 2 then 1; 1 and 2 both link to 3: 3's parent is 2, found first.
        let g = graph(&[&[2, 1], &[0, 3], &[0, 3], &[1, 2]]).unwrap();
        let t = SpanningTree::breadth_first(&g, 0);
        assert_eq!(t.parent, vec![None, Some(0), Some(0), Some(2)]);
        assert_eq!(t.children[0], vec![2, 1]);
        assert_eq!(t.level, vec![3, 1, 2, 1]);
        assert_eq!(t.parent_link[3], 1);
        let (dist, _) = g.bfs(3);
        assert_eq!(dist, vec![2, 1, 1, 0]);
    }
}
