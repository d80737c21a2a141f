//! Interconnection networks as graphs: trees (chains, balanced k-ary trees, linear arrays,
//! any tree given as a parent relation φ), rings, meshes, tori, hypercubes, and any connected
//! graph read from an edge list.
//!
//! Every link joins two processors and carries messages both ways. Each processor has its
//! links in a documented **link order** (its [`LinkId`](crate::LinkId)s 0, 1, …):
//!
//! - trees: the parent first (if any), then the children in increasing index;
//! - rings, meshes, tori and hypercubes: dimension by dimension, the − link then the + link
//!   (see [`Grid`]); these families also give each processor its coordinates and the link in
//!   a given [`Direction`];
//! - `edges:FILE`: in the order the edges appear in the file.
//!
//! **The spanning tree.** Every topology carries a spanning tree, breadth first from its
//! root: a processor's parent is the first processor, in breadth-first order, with a link to
//! it, and children are found in their parent's link order. On a tree family this is the tree
//! itself, rooted where the family roots it (processor 0, or the parent relation's root);
//! elsewhere the root is processor 0 unless [`Topology::rooted_at`] picks another. Programs
//! that work on trees (the farm and divide-and-conquer engines) use it through
//! [`Processor::parent`](crate::Processor::parent) and
//! [`Processor::children`](crate::Processor::children); the other links stay idle for them.
//!
//! Levels follow the farm paper: level 1 holds the leaves and the root has the highest level.
//! For an unbalanced tree the level of a processor is its height (1 + the largest level among
//! its children), so every leaf is at level 1; on balanced trees this equals the paper's levels.
//!
//! # Limits
//!
//! At most [`MAX_PROCESSORS`] processors and [`MAX_LINKS`] links; grids have one to three
//! dimensions (meshes and tori) or up to [`MAX_DIMENSIONS`] (hypercubes), so a processor of a
//! regular family has at most 6 links, of a hypercube at most 21; a tree or an edge list
//! bounds a processor's links only by the processors there are. Topology files are at most
//! [`MAX_FILE_BYTES`]. All of this is checked while parsing, before any run; each time mode
//! then checks what the host can hold ([`HostLimits`](crate::HostLimits)). Every family
//! builds in time linear in its links (a million processors in about a second).

mod files;
mod graph;
mod grid;
mod partition;

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::error::TopologyError;
pub(crate) use graph::Graph;
use graph::SpanningTree;

pub use files::MAX_FILE_BYTES;
pub use graph::MAX_LINKS;
pub use grid::{Direction, Grid, MAX_DIMENSIONS};
pub use partition::Partition;

/// The most processors a topology may have. Each time mode has its own, lower limit, set by
/// the host (see [`HostLimits`](crate::HostLimits)): OS threads in native and dilated time,
/// memory maps and memory in virtual time.
pub const MAX_PROCESSORS: usize = 1 << 21;

/// The family a topology was built from (for reports; the structure is in [`Topology`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum TopologyKind {
    /// A linear chain rooted at processor 0: φ(i) = i − 1.
    Chain {
        /// Number of processors.
        processors: usize,
    },
    /// A balanced k-ary tree, breadth-first numbered from the root 0: φ(i) = (i − 1) / k.
    Tree {
        /// Children per internal processor.
        arity: usize,
        /// Levels, 1 = leaves only.
        levels: u32,
    },
    /// A linear array for pipelines: processor i is linked to i − 1 and i + 1; data enters at 0.
    Array {
        /// Number of processors.
        processors: usize,
    },
    /// An arbitrary tree given by its parent relation.
    Parents,
    /// A ring: processor i is linked to i − 1 and i + 1 modulo P.
    Ring {
        /// Number of processors.
        processors: usize,
    },
    /// A mesh of one to three dimensions, without wrap-around links.
    Mesh {
        /// Processors along each dimension, x first.
        sizes: Vec<usize>,
    },
    /// A torus of one to three dimensions: a mesh whose rows and columns wrap around.
    Torus {
        /// Processors along each dimension, x first.
        sizes: Vec<usize>,
    },
    /// A hypercube of 2^D processors: i is linked to i with one bit flipped.
    Hypercube {
        /// Its dimension D.
        dimensions: u32,
    },
    /// Any connected graph, read from an edge list.
    Edges {
        /// The file it was read from.
        file: String,
    },
}

/// A network of processors: its links, in each processor's link order, and a spanning tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topology {
    kind: TopologyKind,
    graph: Graph,
    grid: Option<Grid>,
    tree: SpanningTree,
}

/// The links of a processor's spanning tree, as its link indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TreeLinks {
    /// The link to the parent.
    pub(crate) parent: Option<usize>,
    /// The links to the children.
    pub(crate) children: TreeChildren,
}

/// Where a processor's links to its children are among its links.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TreeChildren {
    /// Every link from this index on (tree families: the parent's link comes first).
    From(usize),
    /// These links, in the children's order.
    Listed(Vec<usize>),
}

fn check_size(requested: u64) -> Result<usize, TopologyError> {
    if requested == 0 {
        return Err(TopologyError::Empty);
    }
    if requested > MAX_PROCESSORS as u64 {
        return Err(TopologyError::TooLarge {
            requested,
            max: MAX_PROCESSORS,
        });
    }
    Ok(requested as usize)
}

impl Topology {
    /// A linear chain of `processors`, rooted at processor 0.
    pub fn chain(processors: usize) -> Result<Self, TopologyError> {
        let p = check_size(processors as u64)?;
        let parent = (0..p).map(|i| i.checked_sub(1)).collect();
        Self::tree_family(TopologyKind::Chain { processors: p }, parent)
    }

    /// A linear array of `processors` for pipelines (same links as a chain).
    pub fn array(processors: usize) -> Result<Self, TopologyError> {
        let p = check_size(processors as u64)?;
        let parent = (0..p).map(|i| i.checked_sub(1)).collect();
        Self::tree_family(TopologyKind::Array { processors: p }, parent)
    }

    /// A balanced k-ary tree of `levels` levels (binary: `arity` 2), numbered breadth first.
    ///
    /// It has (k^levels − 1)/(k − 1) processors (`levels` when k = 1, a chain).
    pub fn kary_tree(arity: usize, levels: u32) -> Result<Self, TopologyError> {
        if arity == 0 {
            return Err(TopologyError::ZeroArity);
        }
        if levels == 0 {
            return Err(TopologyError::ZeroLevels);
        }
        let mut total: u64 = 0;
        let mut width: u64 = 1;
        for _ in 0..levels {
            total = total.saturating_add(width);
            width = width.saturating_mul(arity as u64);
        }
        let p = check_size(total)?;
        let parent = (0..p)
            .map(|i| i.checked_sub(1).map(|j| j / arity))
            .collect();
        Self::tree_family(TopologyKind::Tree { arity, levels }, parent)
    }

    /// Any tree, from its parent relation: `parents[i]` is φ(i), `None` for the single root.
    pub fn from_parents(parents: Vec<Option<usize>>) -> Result<Self, TopologyError> {
        check_size(parents.len() as u64)?;
        Self::tree_family(TopologyKind::Parents, parents)
    }

    /// A ring of `processors` (one link when P = 2, none when P = 1).
    pub fn ring(processors: usize) -> Result<Self, TopologyError> {
        let p = check_size(processors as u64)?;
        Self::grid_family(TopologyKind::Ring { processors: p }, Grid::new(&[p], true))
    }

    /// A mesh of `sizes` processors along each dimension (one to three dimensions, x first).
    pub fn mesh(sizes: &[usize]) -> Result<Self, TopologyError> {
        Self::check_grid(sizes, 3)?;
        Self::grid_family(
            TopologyKind::Mesh {
                sizes: sizes.to_vec(),
            },
            Grid::new(sizes, false),
        )
    }

    /// A torus of `sizes` processors along each dimension (one to three dimensions, x first).
    pub fn torus(sizes: &[usize]) -> Result<Self, TopologyError> {
        Self::check_grid(sizes, 3)?;
        Self::grid_family(
            TopologyKind::Torus {
                sizes: sizes.to_vec(),
            },
            Grid::new(sizes, true),
        )
    }

    /// A hypercube of dimension `dimensions` (2^D processors; at most [`MAX_DIMENSIONS`]).
    pub fn hypercube(dimensions: u32) -> Result<Self, TopologyError> {
        if dimensions as usize > MAX_DIMENSIONS {
            return Err(TopologyError::TooLarge {
                requested: 1u64.checked_shl(dimensions).unwrap_or(u64::MAX),
                max: MAX_PROCESSORS,
            });
        }
        let sizes = vec![2; dimensions as usize];
        Self::grid_family(
            TopologyKind::Hypercube { dimensions },
            Grid::new(&sizes, true),
        )
    }

    fn check_grid(sizes: &[usize], max_dims: usize) -> Result<(), TopologyError> {
        if sizes.is_empty() || sizes.len() > max_dims {
            return Err(TopologyError::Dimensions {
                given: sizes.len(),
                max: max_dims,
            });
        }
        let total = sizes.iter().fold(1u64, |t, &s| t.saturating_mul(s as u64));
        check_size(total)?;
        Ok(())
    }

    /// Parses a parent relation written as one entry per processor, separated by commas,
    /// spaces or newlines: a processor index, or `-` (also `root`, `none`) for the root.
    /// `#` starts a comment; a UTF-8 byte-order mark is ignored. Errors give the line (and for
    /// a wrong parent or a cycle, the line of the processor's entry).
    pub fn parse_parents(text: &str) -> Result<Self, TopologyError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let err = |reason: String| TopologyError::Parse {
            spec: "a parent relation".into(),
            reason,
        };
        let mut parents = Vec::new();
        let mut lines = Vec::new();
        for (number, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("");
            for token in line.split(|c: char| c == ',' || c.is_whitespace()) {
                let token = token.trim();
                if token.is_empty() {
                    continue;
                }
                if parents.len() >= MAX_PROCESSORS {
                    return Err(TopologyError::TooLarge {
                        requested: parents.len() as u64 + 1,
                        max: MAX_PROCESSORS,
                    });
                }
                let entry = match token {
                    "-" | "root" | "none" => None,
                    t => Some(t.parse::<usize>().map_err(|_| {
                        err(format!(
                            "line {}: entry {} is '{}': expected a processor index or '-' for \
                             the root",
                            number + 1,
                            parents.len(),
                            t.escape_default()
                        ))
                    })?),
                };
                parents.push(entry);
                lines.push(number + 1);
            }
        }
        Self::from_parents(parents).map_err(|e| match e {
            TopologyError::BadParent { processor, .. } | TopologyError::Cycle(processor) => {
                err(format!("line {}: {e}", lines[processor]))
            }
            e => e,
        })
    }

    /// The largest parent file [`Topology::parse`] reads: 64 MiB.
    pub const MAX_PARENT_FILE_BYTES: u64 = MAX_FILE_BYTES;

    /// Parses an edge list: one link a line, two processor indices separated by spaces or a
    /// comma (`0 1`); `#` starts a comment. The processors are 0 to the largest index named;
    /// the graph must be connected, without a link from a processor to itself or a link
    /// listed twice. `name` (the file) prefixes nothing; errors give the line.
    pub fn parse_edges(text: &str, name: &str) -> Result<Self, TopologyError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let edges = files::parse_edge_lines(text)?;
        let err = |reason: String| TopologyError::Parse {
            spec: "an edge list".into(),
            reason,
        };
        let n = edges
            .iter()
            .map(|e| e.a.max(e.b) as usize + 1)
            .max()
            .ok_or(TopologyError::Empty)?;
        // Rows in file order: count, then place.
        let mut offsets = vec![0usize; n + 1];
        for e in &edges {
            offsets[e.a as usize + 1] += 1;
            offsets[e.b as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut targets = vec![0u32; offsets[n]];
        for e in &edges {
            targets[fill[e.a as usize]] = e.b;
            fill[e.a as usize] += 1;
            targets[fill[e.b as usize]] = e.a;
            fill[e.b as usize] += 1;
        }
        let graph = Graph::from_rows(n, |i, out| {
            out.extend_from_slice(&targets[offsets[i]..offsets[i + 1]])
        })
        .map_err(|e| match e {
            TopologyError::Duplicate { a, b } => {
                let pair = (a.min(b) as u32, a.max(b) as u32);
                let lines: Vec<usize> = edges
                    .iter()
                    .filter(|e| (e.a.min(e.b), e.a.max(e.b)) == pair)
                    .map(|e| e.line)
                    .collect();
                err(format!(
                    "line {}: the link {}–{} is listed again (first on line {})",
                    lines.get(1).copied().unwrap_or(0),
                    pair.0,
                    pair.1,
                    lines.first().copied().unwrap_or(0)
                ))
            }
            e => e,
        })?;
        graph.check_connected().map_err(|e| {
            err(format!(
                "{e} (every processor from 0 to the largest index named must be linked)"
            ))
        })?;
        Ok(Self::with_graph(
            TopologyKind::Edges {
                file: name.to_string(),
            },
            graph,
            None,
            0,
        ))
    }

    /// Parses a topology description: `chain:P`, `array:P`, `tree:K:LEVELS` (`binary:LEVELS`
    /// for K = 2), `parents:FILE` where FILE holds a parent relation (see
    /// [`Topology::parse_parents`]), `ring:P`, `mesh:AxB`, `mesh:AxBxC`, `torus:AxB`,
    /// `torus:AxBxC`, `hypercube:D`, or `edges:FILE` (see [`Topology::parse_edges`]).
    pub fn parse(spec: &str) -> Result<Self, TopologyError> {
        let err = |reason: &str| TopologyError::Parse {
            spec: spec.to_string(),
            reason: format!(
                "{reason}; expected chain:P, array:P, tree:K:LEVELS, binary:LEVELS, \
                 parents:FILE, ring:P, mesh:AxB, mesh:AxBxC, torus:AxB, torus:AxBxC, \
                 hypercube:D or edges:FILE"
            ),
        };
        let (kind, rest) = spec.split_once(':').ok_or_else(|| err("missing ':'"))?;
        let number = |s: &str, what: &str| -> Result<u64, TopologyError> {
            s.trim()
                .parse::<u64>()
                .map_err(|_| err(&format!("{what} '{s}' is not a whole number")))
        };
        let small = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        let sizes = |rest: &str| -> Result<Vec<usize>, TopologyError> {
            let sizes = rest
                .split('x')
                .map(|s| number(s, "size").map(small))
                .collect::<Result<Vec<_>, _>>()?;
            if sizes.len() < 2 || sizes.len() > 3 {
                return Err(err(&format!(
                    "{} dimension{} given; a mesh or torus has 2 or 3 (AxB or AxBxC)",
                    sizes.len(),
                    if sizes.len() == 1 { "" } else { "s" }
                )));
            }
            if sizes.contains(&0) {
                return Err(TopologyError::Empty);
            }
            Ok(sizes)
        };
        match kind.trim() {
            "chain" => {
                let p = number(rest, "processor count")?;
                Self::chain(check_size(p)?)
            }
            "array" => {
                let p = number(rest, "processor count")?;
                Self::array(check_size(p)?)
            }
            "tree" => {
                let (k, l) = rest
                    .split_once(':')
                    .ok_or_else(|| err("tree needs K and LEVELS"))?;
                let levels = number(l, "levels")?;
                let levels = u32::try_from(levels).map_err(|_| err("too many levels"))?;
                Self::kary_tree(small(number(k, "arity")?), levels)
            }
            "binary" => {
                let levels = number(rest, "levels")?;
                let levels = u32::try_from(levels).map_err(|_| err("too many levels"))?;
                Self::kary_tree(2, levels)
            }
            "parents" => files::read_parents(rest),
            "ring" => {
                let p = number(rest, "processor count")?;
                Self::ring(check_size(p)?)
            }
            "mesh" => Self::mesh(&sizes(rest)?),
            "torus" => Self::torus(&sizes(rest)?),
            "hypercube" => {
                let d = number(rest, "dimension")?;
                Self::hypercube(u32::try_from(d).unwrap_or(u32::MAX))
            }
            "edges" => files::read_edges(rest),
            other => Err(err(&format!("unknown topology kind '{other}'"))),
        }
    }

    /// A tree family: the parent relation checked (one root, parents in range, no cycle),
    /// then its links (parent first, children in index order).
    fn tree_family(kind: TopologyKind, parent: Vec<Option<usize>>) -> Result<Self, TopologyError> {
        let n = parent.len();
        let roots: Vec<usize> = (0..n).filter(|&i| parent[i].is_none()).collect();
        if roots.len() != 1 {
            return Err(TopologyError::Roots(roots.len()));
        }
        let root = roots[0];
        let mut children = vec![Vec::new(); n];
        for (i, p) in parent.iter().enumerate() {
            if let Some(p) = *p {
                if p >= n || p == i {
                    return Err(TopologyError::BadParent {
                        processor: i,
                        parent: p,
                    });
                }
                children[p].push(i as u32);
            }
        }
        // Breadth-first from the root must reach everyone; whoever it misses sits on a cycle
        // (every processor has one parent, so an unreachable one leads up into a loop).
        let mut order = Vec::with_capacity(n);
        order.push(root as u32);
        let mut next = 0;
        while next < order.len() {
            let v = order[next] as usize;
            next += 1;
            order.extend_from_slice(&children[v]);
        }
        if order.len() != n {
            let mut seen = vec![false; n];
            for &v in &order {
                seen[v as usize] = true;
            }
            let first = (0..n).find(|&i| !seen[i]).unwrap_or(0);
            // Walk up from `first` until a processor repeats: that one is on the cycle.
            let mut on_path = vec![false; n];
            let mut v = first;
            while !on_path[v] {
                on_path[v] = true;
                v = parent[v].unwrap_or(v);
            }
            return Err(TopologyError::Cycle(v));
        }
        drop(order);
        let graph = Graph::from_rows(n, |i, out| {
            out.extend(parent[i].map(|p| p as u32));
            out.extend_from_slice(&children[i]);
        })?;
        Ok(Self::with_graph(kind, graph, None, root))
    }

    /// A regular family: its links from the grid.
    fn grid_family(kind: TopologyKind, grid: Grid) -> Result<Self, TopologyError> {
        let graph = Graph::from_rows(grid.len(), |i, out| grid.row(i, out))?;
        Ok(Self::with_graph(kind, graph, Some(grid), 0))
    }

    fn with_graph(kind: TopologyKind, graph: Graph, grid: Option<Grid>, root: usize) -> Self {
        let tree = SpanningTree::breadth_first(&graph, root);
        Self {
            kind,
            graph,
            grid,
            tree,
        }
    }

    /// The same network with its spanning tree grown breadth first from `root`.
    pub fn rooted_at(&self, root: usize) -> Result<Self, TopologyError> {
        if root >= self.len() {
            return Err(TopologyError::BadRoot {
                root,
                processors: self.len(),
            });
        }
        if root == self.tree.root {
            return Ok(self.clone());
        }
        Ok(Self {
            kind: self.kind.clone(),
            graph: self.graph.clone(),
            grid: self.grid,
            tree: SpanningTree::breadth_first(&self.graph, root),
        })
    }

    /// The family this topology was built from.
    pub fn kind(&self) -> &TopologyKind {
        &self.kind
    }

    /// Number of processors.
    pub fn len(&self) -> usize {
        self.graph.len()
    }

    /// Always false: a topology has at least one processor.
    pub fn is_empty(&self) -> bool {
        self.graph.len() == 0
    }

    /// The root of the spanning tree (where tasks enter, or where a pipeline's data enters).
    pub fn root(&self) -> usize {
        self.tree.root
    }

    /// φ(i), the parent of processor `i` in the spanning tree (`None` for the root).
    pub fn parent(&self, i: usize) -> Option<usize> {
        self.tree.parent[i]
    }

    /// The spanning tree's whole parent relation.
    pub fn parents(&self) -> &[Option<usize>] {
        &self.tree.parent
    }

    /// The children of processor `i` in the spanning tree, in its link order (increasing
    /// index on tree families).
    pub fn children(&self, i: usize) -> &[usize] {
        &self.tree.children[i]
    }

    /// The level of processor `i` in the spanning tree: 1 for leaves, 1 + the largest child
    /// level otherwise.
    pub fn level(&self, i: usize) -> u32 {
        self.tree.level[i]
    }

    /// The number of levels (the root's level).
    pub fn levels(&self) -> u32 {
        self.tree.level[self.tree.root]
    }

    /// The neighbours of processor `i`, in its link order (on a tree: its parent first, if
    /// any, then its children).
    pub fn neighbours(&self, i: usize) -> Vec<usize> {
        self.graph.row(i).iter().map(|&j| j as usize).collect()
    }

    /// The number of links of processor `i`.
    pub fn degree(&self, i: usize) -> usize {
        self.graph.degree(i)
    }

    /// The most links any processor has.
    pub fn max_degree(&self) -> usize {
        self.graph.max_degree()
    }

    /// Number of processors at each level, index 0 = level 1 (the leaves).
    pub fn processors_per_level(&self) -> Vec<usize> {
        let mut counts = vec![0; self.levels() as usize];
        for &l in &self.tree.level {
            counts[l as usize - 1] += 1;
        }
        counts
    }

    /// Number of links.
    pub fn links(&self) -> usize {
        self.graph.links()
    }

    /// Whether the network is a tree (its spanning tree uses every link).
    pub fn is_tree(&self) -> bool {
        self.links() + 1 == self.len()
    }

    /// The links the spanning tree uses, as (parent, child) pairs in breadth-first order of
    /// the child.
    pub fn tree_links(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::with_capacity(self.len().saturating_sub(1));
        let mut order = vec![self.tree.root];
        let mut next = 0;
        while next < order.len() {
            let v = order[next];
            next += 1;
            for &c in &self.tree.children[v] {
                out.push((v, c));
                order.push(c);
            }
        }
        out
    }

    /// The grid of a ring, mesh, torus or hypercube (coordinates, directions, routes).
    pub fn grid(&self) -> Option<&Grid> {
        self.grid.as_ref()
    }

    /// The coordinates of processor `i` on a ring, mesh, torus or hypercube.
    pub fn coordinates(&self, i: usize) -> Option<Vec<usize>> {
        self.grid.as_ref().map(|g| g.coordinates(i))
    }

    /// The index among `i`'s links of the one going one step in `direction` along
    /// `dimension`, on a ring, mesh, torus or hypercube, if it exists.
    pub fn link_in(&self, i: usize, dimension: usize, direction: Direction) -> Option<usize> {
        let j = self.grid.as_ref()?.neighbour(i, dimension, direction)?;
        self.link_to(i, j)
    }

    /// The index among `i`'s links of the one to `j`, if they are neighbours.
    pub fn link_to(&self, i: usize, j: usize) -> Option<usize> {
        self.graph.row(i).iter().position(|&x| x as usize == j)
    }

    /// The network's links.
    pub(crate) fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The index, among the links of the neighbour at `i`'s link `k`, of the link back to `i`.
    pub(crate) fn back(&self, i: usize, k: usize) -> usize {
        self.graph.back(i, k)
    }

    /// The spanning tree's links of processor `i`, as its link indices.
    pub(crate) fn tree_links_of(&self, i: usize) -> TreeLinks {
        let parent = self.tree.parent[i].map(|_| self.tree.parent_link[i] as usize);
        let skip = usize::from(parent.is_some());
        let contiguous = parent.is_none_or(|l| l == 0)
            && self.tree.children[i].len() + skip == self.graph.degree(i)
            && self.tree.children[i]
                .iter()
                .zip(&self.graph.row(i)[skip..])
                .all(|(&c, &j)| c == j as usize);
        let children = if contiguous {
            TreeChildren::From(skip)
        } else {
            TreeChildren::Listed(
                self.tree.children[i]
                    .iter()
                    .map(|&c| self.link_to(i, c).unwrap_or(0))
                    .collect(),
            )
        };
        TreeLinks { parent, children }
    }
}

impl FromStr for Topology {
    type Err = TopologyError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

fn join_sizes(sizes: &[usize]) -> String {
    sizes
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("x")
}

impl fmt::Display for Topology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            TopologyKind::Chain { processors } => write!(f, "chain:{processors}"),
            TopologyKind::Array { processors } => write!(f, "array:{processors}"),
            TopologyKind::Tree { arity, levels } => write!(f, "tree:{arity}:{levels}"),
            TopologyKind::Parents => write!(f, "parents({} processors)", self.len()),
            TopologyKind::Ring { processors } => write!(f, "ring:{processors}"),
            TopologyKind::Mesh { sizes } => write!(f, "mesh:{}", join_sizes(sizes)),
            TopologyKind::Torus { sizes } => write!(f, "torus:{}", join_sizes(sizes)),
            TopologyKind::Hypercube { dimensions } => write!(f, "hypercube:{dimensions}"),
            TopologyKind::Edges { file } => write!(f, "edges:{file}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_links_each_processor_to_its_predecessor() {
        let t = Topology::chain(4).unwrap();
        assert_eq!(t.parents(), &[None, Some(0), Some(1), Some(2)]);
        assert_eq!(t.children(1), &[2]);
        assert_eq!(t.levels(), 4);
        assert_eq!(
            (0..4).map(|i| t.level(i)).collect::<Vec<_>>(),
            vec![4, 3, 2, 1]
        );
        assert_eq!(t.neighbours(2), vec![1, 3]);
        assert_eq!(t.links(), 3);
    }

    #[test]
    fn binary_tree_has_paper_levels_and_sizes() {
        let t = Topology::kary_tree(2, 3).unwrap();
        assert_eq!(t.len(), 7);
        assert_eq!(t.children(0), &[1, 2]);
        assert_eq!(t.children(2), &[5, 6]);
        assert_eq!(t.level(0), 3);
        assert_eq!(t.level(1), 2);
        assert_eq!(t.level(6), 1);
        assert_eq!(t.processors_per_level(), vec![4, 2, 1]);
        let t3 = Topology::kary_tree(3, 4).unwrap();
        assert_eq!(t3.len(), 1 + 3 + 9 + 27);
        assert_eq!(Topology::kary_tree(1, 5).unwrap().len(), 5);
    }

    #[test]
    fn parent_relation_levels_are_heights() {
        // 0 ─ 1 ─ 3
        //   └ 2
        let t = Topology::from_parents(vec![None, Some(0), Some(0), Some(1)]).unwrap();
        assert_eq!(t.level(3), 1);
        assert_eq!(t.level(2), 1);
        assert_eq!(t.level(1), 2);
        assert_eq!(t.level(0), 3);
        assert_eq!(t.root(), 0);
        let rooted_elsewhere = Topology::from_parents(vec![Some(1), None]).unwrap();
        assert_eq!(rooted_elsewhere.root(), 1);
    }

    #[test]
    fn invalid_topologies_are_rejected_with_reasons() {
        assert_eq!(Topology::chain(0), Err(TopologyError::Empty));
        assert_eq!(Topology::kary_tree(0, 3), Err(TopologyError::ZeroArity));
        assert_eq!(Topology::kary_tree(2, 0), Err(TopologyError::ZeroLevels));
        assert!(matches!(
            Topology::kary_tree(2, 40),
            Err(TopologyError::TooLarge { .. })
        ));
        assert!(matches!(
            Topology::kary_tree(1000, 1000),
            Err(TopologyError::TooLarge { .. })
        ));
        assert_eq!(
            Topology::from_parents(vec![Some(1), Some(0)]),
            Err(TopologyError::Roots(0))
        );
        assert_eq!(
            Topology::from_parents(vec![None, None]),
            Err(TopologyError::Roots(2))
        );
        assert_eq!(
            Topology::from_parents(vec![None, Some(5)]),
            Err(TopologyError::BadParent {
                processor: 1,
                parent: 5
            })
        );
        assert_eq!(
            Topology::from_parents(vec![None, Some(1)]),
            Err(TopologyError::BadParent {
                processor: 1,
                parent: 1
            })
        );
        // 0 is the root; 1 → 2 → 3 → 1 is a loop detached from it.
        let cycle = Topology::from_parents(vec![None, Some(3), Some(1), Some(2)]);
        assert!(matches!(cycle, Err(TopologyError::Cycle(v)) if (1..=3).contains(&v)));
    }

    #[test]
    fn descriptions_parse_and_print_back() {
        for spec in [
            "chain:5",
            "array:8",
            "tree:2:4",
            "tree:3:2",
            "ring:6",
            "mesh:4x3",
            "mesh:2x3x4",
            "torus:4x4",
            "torus:3x3x3",
            "hypercube:4",
        ] {
            let t: Topology = spec.parse().unwrap();
            assert_eq!(t.to_string(), spec);
        }
        assert_eq!(Topology::parse("binary:3").unwrap().len(), 7);
        for bad in [
            "ring:0",
            "mesh:4",
            "mesh:2x0",
            "torus:2x2x2x2",
            "hypercube:22",
            "lattice:4",
            "chain",
            "chain:x",
            "tree:2",
            "tree:0:3",
            "chain:0",
            "parents:/nonexistent",
        ] {
            assert!(Topology::parse(bad).is_err(), "{bad} should be rejected");
        }
        let err = Topology::parse("lattice:4").unwrap_err().to_string();
        assert!(err.contains("unknown topology kind 'lattice'"), "{err}");
        let err = Topology::parse("mesh:4").unwrap_err().to_string();
        assert!(err.contains("1 dimension given"), "{err}");
    }

    #[test]
    fn parent_text_accepts_commas_newlines_and_comments() {
        let t = Topology::parse_parents("# a small tree\n-, 0, 0\n1 1 # grandchildren\n").unwrap();
        assert_eq!(t.parents(), &[None, Some(0), Some(0), Some(1), Some(1)]);
        assert!(Topology::parse_parents("-, x").is_err());
        assert_eq!(Topology::parse_parents(""), Err(TopologyError::Empty));
        let bom = Topology::parse_parents("\u{feff}-\n0\n").unwrap();
        assert_eq!(bom.parents(), &[None, Some(0)]);
    }

    #[test]
    fn parent_file_errors_name_the_file_and_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("p.txt");
        let spec = format!("parents:{}", file.display());
        std::fs::write(&file, "\u{feff}-\n0\n0 x\n").unwrap();
        let e = Topology::parse(&spec).unwrap_err().to_string();
        assert!(
            e.contains(&format!("{}: line 3: entry 3 is 'x'", file.display())),
            "{e}"
        );
        assert!(!e.contains('\u{feff}'), "{e}");
        std::fs::write(&file, "-\n0\n7\n").unwrap();
        let e = Topology::parse(&spec).unwrap_err().to_string();
        assert!(e.contains("line 3: processor 2"), "{e}");
        std::fs::write(&file, [b'-', b'\n', 0xff, b'\n']).unwrap();
        let e = Topology::parse(&spec).unwrap_err().to_string();
        assert!(e.contains("line 2: not UTF-8"), "{e}");
    }

    #[test]
    fn regular_families_have_their_sizes_links_and_link_order() {
        let ring = Topology::ring(6).unwrap();
        assert_eq!((ring.len(), ring.links()), (6, 6));
        assert_eq!(ring.neighbours(0), vec![5, 1]);
        assert_eq!(Topology::ring(2).unwrap().links(), 1);
        assert_eq!(Topology::ring(1).unwrap().links(), 0);
        let mesh = Topology::mesh(&[4, 3]).unwrap();
        assert_eq!((mesh.len(), mesh.links()), (12, 3 * 3 + 4 * 2));
        assert_eq!(mesh.neighbours(5), vec![4, 6, 1, 9]);
        assert_eq!(mesh.coordinates(5), Some(vec![1, 1]));
        assert_eq!(mesh.link_in(5, 1, Direction::Plus), Some(3));
        assert_eq!(mesh.link_in(0, 0, Direction::Minus), None);
        let torus = Topology::torus(&[3, 3, 3]).unwrap();
        assert_eq!(torus.links(), 27 * 3);
        assert_eq!(torus.max_degree(), 6);
        let cube = Topology::hypercube(4).unwrap();
        assert_eq!((cube.len(), cube.links()), (16, 32));
        assert_eq!(cube.neighbours(0), vec![1, 2, 4, 8]);
        assert_eq!(cube.link_in(6, 2, Direction::Minus), Some(2));
        assert_eq!(Topology::chain(3).unwrap().coordinates(0), None);
    }

    #[test]
    fn spanning_tree_is_breadth_first_from_the_root() {
        // On a tree family it is the tree itself.
        let t = Topology::kary_tree(2, 3).unwrap();
        assert!(t.is_tree());
        assert_eq!(t.tree_links().len(), 6);
        // On a 3×3 mesh from 0: 1 and 3 at level 2 of the tree, found −x, +x, −y, +y.
        let mesh = Topology::mesh(&[3, 3]).unwrap();
        assert!(!mesh.is_tree());
        assert_eq!(mesh.root(), 0);
        assert_eq!(mesh.children(0), &[1, 3]);
        assert_eq!(mesh.children(1), &[2, 4]);
        assert_eq!(mesh.parent(4), Some(1));
        assert_eq!(mesh.levels(), 5);
        assert_eq!(mesh.tree_links().len(), 8);
        let centre = mesh.rooted_at(4).unwrap();
        assert_eq!(centre.root(), 4);
        assert_eq!(centre.children(4), &[3, 5, 1, 7]);
        assert_eq!(centre.levels(), 3);
        assert_eq!(
            mesh.rooted_at(9),
            Err(TopologyError::BadRoot {
                root: 9,
                processors: 9
            })
        );
        // Re-rooting a chain at its far end reverses it.
        let chain = Topology::chain(3).unwrap().rooted_at(2).unwrap();
        assert_eq!(chain.parents(), &[Some(1), Some(2), None]);
    }

    #[test]
    fn tree_families_keep_their_link_order_and_contiguous_children() {
        let t = Topology::kary_tree(3, 3).unwrap();
        for i in 0..t.len() {
            let links = t.tree_links_of(i);
            let skip = usize::from(i != 0);
            assert_eq!(links.children, TreeChildren::From(skip));
            assert_eq!(links.parent, (i != 0).then_some(0));
        }
        let mesh = Topology::mesh(&[3, 3]).unwrap();
        // Processor 4's parent is 1 (its −y link, index 2); its child 7 is its +y link.
        let links = mesh.tree_links_of(4);
        assert_eq!(links.parent, Some(2));
        assert_eq!(links.children, TreeChildren::Listed(vec![3]));
    }

    #[test]
    fn edge_lists_build_graphs_in_file_order() {
        let t = Topology::parse_edges(
            "# a square with a diagonal\n0 1\n1 2\n2 3\n3 0\n0 2\n",
            "sq",
        )
        .unwrap();
        assert_eq!(t.to_string(), "edges:sq");
        assert_eq!((t.len(), t.links()), (4, 5));
        assert_eq!(t.neighbours(0), vec![1, 3, 2]);
        assert_eq!(t.neighbours(2), vec![1, 3, 0]);
        for (text, needle) in [
            (
                "0 1\n2 3\n",
                "processor 2 cannot be reached from processor 0",
            ),
            (
                "0 1\n1 0\n",
                "line 2: the link 0–1 is listed again (first on line 1)",
            ),
            ("", "at least one processor"),
        ] {
            let e = Topology::parse_edges(text, "f").unwrap_err().to_string();
            assert!(e.contains(needle), "{text:?}: {e}");
        }
    }

    #[test]
    fn edge_file_errors_name_the_file_and_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("g.txt");
        let spec = format!("edges:{}", file.display());
        std::fs::write(&file, "0 1\n1 2\n2 two\n").unwrap();
        let e = Topology::parse(&spec).unwrap_err().to_string();
        assert!(
            e.contains(&format!(
                "{}: line 3: 'two' is not a processor index",
                file.display()
            )),
            "{e}"
        );
        std::fs::write(&file, "0 1\n1 2\n2 0\n").unwrap();
        let t = Topology::parse(&spec).unwrap();
        assert_eq!(t.links(), 3);
        let e = Topology::parse("edges:/nonexistent/g.txt")
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot read edge file"), "{e}");
    }

    #[test]
    fn a_million_processors_build() {
        let t = Topology::torus(&[1000, 1000]).unwrap();
        assert_eq!((t.len(), t.links()), (1_000_000, 2_000_000));
        assert_eq!(t.levels(), 1001);
        let cube = Topology::hypercube(20).unwrap();
        assert_eq!(cube.links(), 20 << 19);
    }
}
