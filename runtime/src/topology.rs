//! Interconnection topologies: chains, balanced k-ary trees, linear arrays and arbitrary trees
//! given as a parent relation φ.
//!
//! Every topology here is a tree: processor `i` has at most one parent φ(i) and any number of
//! children, and each tree edge is one bidirectional link. Processor 0 is the root of chains,
//! k-ary trees and linear arrays; a parent relation names its own root.
//!
//! Levels follow the farm paper: level 1 holds the leaves and the root has the highest level.
//! For an unbalanced tree the level of a processor is its height (1 + the largest level among
//! its children), so every leaf is at level 1; on balanced trees this equals the paper's levels.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use serde::Serialize;

use crate::error::TopologyError;

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
}

/// A tree-shaped network of processors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Topology {
    kind: TopologyKind,
    parent: Vec<Option<usize>>,
    #[serde(skip)]
    children: Vec<Vec<usize>>,
    #[serde(skip)]
    level: Vec<u32>,
    #[serde(skip)]
    root: usize,
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
        Self::build(TopologyKind::Chain { processors: p }, parent)
    }

    /// A linear array of `processors` for pipelines (same links as a chain).
    pub fn array(processors: usize) -> Result<Self, TopologyError> {
        let p = check_size(processors as u64)?;
        let parent = (0..p).map(|i| i.checked_sub(1)).collect();
        Self::build(TopologyKind::Array { processors: p }, parent)
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
        Self::build(TopologyKind::Tree { arity, levels }, parent)
    }

    /// Any tree, from its parent relation: `parents[i]` is φ(i), `None` for the single root.
    pub fn from_parents(parents: Vec<Option<usize>>) -> Result<Self, TopologyError> {
        check_size(parents.len() as u64)?;
        Self::build(TopologyKind::Parents, parents)
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
    pub const MAX_PARENT_FILE_BYTES: u64 = 64 << 20;

    /// Reads a parent file: at most [`Self::MAX_PARENT_FILE_BYTES`], UTF-8; errors name the
    /// file and the line.
    fn read_parents(file: &str) -> Result<Self, TopologyError> {
        use std::io::Read;
        let err = |reason: String| TopologyError::Parse {
            spec: format!("parents:{file}"),
            reason,
        };
        // Asked before opening: opening a FIFO (`/dev/stdin` on a pipe) waits for a writer,
        // and reading one may never end. A parent relation is a file.
        match std::fs::metadata(Path::new(file)) {
            Ok(m) if !m.is_file() => {
                return Err(err(format!(
                    "'{file}' is not a regular file (a FIFO, device or socket is not read: \
                     it could block or never end); save the parent relation to a file"
                )));
            }
            _ => {}
        }
        let mut bytes = Vec::new();
        std::fs::File::open(Path::new(file))
            .and_then(|f| {
                f.take(Self::MAX_PARENT_FILE_BYTES + 1)
                    .read_to_end(&mut bytes)
            })
            .map_err(|e| err(format!("cannot read parent file '{file}': {e}")))?;
        if bytes.len() as u64 > Self::MAX_PARENT_FILE_BYTES {
            return Err(err(format!(
                "parent file '{file}' is larger than {} MiB",
                Self::MAX_PARENT_FILE_BYTES >> 20
            )));
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            let line = 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            err(format!("{file}: line {line}: not UTF-8 text"))
        })?;
        Self::parse_parents(&text).map_err(|e| match e {
            TopologyError::Parse { reason, .. } => err(format!("{file}: {reason}")),
            e => e,
        })
    }

    /// Parses a topology description: `chain:P`, `array:P`, `tree:K:LEVELS` (`binary:LEVELS`
    /// for K = 2), or `parents:FILE` where FILE holds a parent relation (see
    /// [`Topology::parse_parents`]).
    pub fn parse(spec: &str) -> Result<Self, TopologyError> {
        let err = |reason: &str| TopologyError::Parse {
            spec: spec.to_string(),
            reason: format!(
                "{reason}; expected chain:P, array:P, tree:K:LEVELS, binary:LEVELS or parents:FILE"
            ),
        };
        let (kind, rest) = spec.split_once(':').ok_or_else(|| err("missing ':'"))?;
        let number = |s: &str, what: &str| -> Result<u64, TopologyError> {
            s.trim()
                .parse::<u64>()
                .map_err(|_| err(&format!("{what} '{s}' is not a whole number")))
        };
        let small = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
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
            "parents" => Self::read_parents(rest),
            other => Err(err(&format!("unknown topology kind '{other}'"))),
        }
    }

    fn build(kind: TopologyKind, parent: Vec<Option<usize>>) -> Result<Self, TopologyError> {
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
                children[p].push(i);
            }
        }
        // Breadth-first from the root must reach everyone; whoever it misses sits on a cycle
        // (every processor has one parent, so an unreachable one leads up into a loop).
        let mut order = Vec::with_capacity(n);
        order.push(root);
        let mut next = 0;
        while next < order.len() {
            let v = order[next];
            next += 1;
            order.extend_from_slice(&children[v]);
        }
        if order.len() != n {
            let mut seen = vec![false; n];
            for &v in &order {
                seen[v] = true;
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
        let mut level = vec![1u32; n];
        for &v in order.iter().rev() {
            if let Some(p) = parent[v] {
                level[p] = level[p].max(level[v] + 1);
            }
        }
        Ok(Self {
            kind,
            parent,
            children,
            level,
            root,
        })
    }

    /// The family this topology was built from.
    pub fn kind(&self) -> &TopologyKind {
        &self.kind
    }

    /// Number of processors.
    pub fn len(&self) -> usize {
        self.parent.len()
    }

    /// Always false: a topology has at least one processor.
    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// The root processor (where tasks enter, or where a pipeline's data enters).
    pub fn root(&self) -> usize {
        self.root
    }

    /// φ(i), the parent of processor `i` (`None` for the root).
    pub fn parent(&self, i: usize) -> Option<usize> {
        self.parent[i]
    }

    /// The whole parent relation.
    pub fn parents(&self) -> &[Option<usize>] {
        &self.parent
    }

    /// The children of processor `i`, in increasing index order.
    pub fn children(&self, i: usize) -> &[usize] {
        &self.children[i]
    }

    /// The level of processor `i`: 1 for leaves, 1 + the largest child level otherwise.
    pub fn level(&self, i: usize) -> u32 {
        self.level[i]
    }

    /// The number of levels (the root's level).
    pub fn levels(&self) -> u32 {
        self.level[self.root]
    }

    /// The neighbours of processor `i`: its parent first (if any), then its children.
    pub fn neighbours(&self, i: usize) -> Vec<usize> {
        self.parent[i]
            .into_iter()
            .chain(self.children[i].iter().copied())
            .collect()
    }

    /// Number of processors at each level, index 0 = level 1 (the leaves).
    pub fn processors_per_level(&self) -> Vec<usize> {
        let mut counts = vec![0; self.levels() as usize];
        for &l in &self.level {
            counts[l as usize - 1] += 1;
        }
        counts
    }

    /// Number of links (tree edges).
    pub fn links(&self) -> usize {
        self.len() - 1
    }
}

impl FromStr for Topology {
    type Err = TopologyError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl fmt::Display for Topology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            TopologyKind::Chain { processors } => write!(f, "chain:{processors}"),
            TopologyKind::Array { processors } => write!(f, "array:{processors}"),
            TopologyKind::Tree { arity, levels } => write!(f, "tree:{arity}:{levels}"),
            TopologyKind::Parents => write!(f, "parents({} processors)", self.len()),
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
        for spec in ["chain:5", "array:8", "tree:2:4", "tree:3:2"] {
            let t: Topology = spec.parse().unwrap();
            assert_eq!(t.to_string(), spec);
        }
        assert_eq!(Topology::parse("binary:3").unwrap().len(), 7);
        for bad in [
            "ring:4",
            "chain",
            "chain:x",
            "tree:2",
            "tree:0:3",
            "chain:0",
            "parents:/nonexistent",
        ] {
            assert!(Topology::parse(bad).is_err(), "{bad} should be rejected");
        }
        let err = Topology::parse("ring:4").unwrap_err().to_string();
        assert!(err.contains("unknown topology kind 'ring'"), "{err}");
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
        let dir = std::env::temp_dir().join(format!("mc-topology-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("p.txt");
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
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_fifo_is_not_read_as_a_parent_file() {
        let dir = std::env::temp_dir().join(format!("mc-topology-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo reads the zero-terminated path. Nobody writes into the FIFO: reading
        // it would wait for ever.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = Topology::parse(&format!("parents:{}", fifo.display()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a regular file"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
