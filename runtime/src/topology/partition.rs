//! Cutting a topology into K parts for partitioned virtual time: connected parts of about
//! n/K processors each, with few links between them.
//!
//! The rules, by family:
//!
//! - **chains and linear arrays**: K consecutive segments, of ⌊n/K⌋ or ⌈n/K⌉ processors;
//! - **rings, meshes, tori and hypercubes**: blocks, by recursive coordinate bisection: K
//!   parts split into ⌊K/2⌋ and ⌈K/2⌉, the box cut across its longest dimension in that
//!   proportion (rounded, at least one slice each side), each side cut again. A dimension of
//!   size 2 (a hypercube's) can only be halved, so K that is not a power of two gives
//!   unequal blocks there;
//! - **trees and every other graph** (a parent relation, an edge list): subtrees of the
//!   spanning tree, cut bottom-up. Processors are taken in post-order; each carries the part
//!   of its subtree not yet cut off; one whose carried subtree holds at least ⌊n/K⌋
//!   processors is cut off with it as a part, until K − 1 parts are cut; the rest, with the
//!   root, is the last part. A part is a subtree less the subtrees cut below it: connected in
//!   the spanning tree, hence in the graph. On balanced trees the parts are the subtrees of
//!   one level with the processors above joining the last. Where this yields fewer than K
//!   parts (a star has no subtree of n/K processors) the processors are dealt in
//!   breadth-first order into K consecutive blocks of ⌊n/K⌋ or ⌈n/K⌉, which need not be
//!   connected.
//!
//! A cut never changes a run's results ([`--partitions`](crate::MachineConfig::partitions)):
//! only how the work is shared between threads.

use super::{Topology, TopologyKind};

/// Which part each processor of a topology runs in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    part_of: Vec<u32>,
    parts: usize,
}

impl Partition {
    /// `topology` cut into `parts` parts (1 ≤ `parts` ≤ its processors), by the rules of the
    /// module docs.
    ///
    /// # Panics
    ///
    /// If `parts` is 0 or more than the processors (the machine's configuration rejects it).
    pub fn of(topology: &Topology, parts: usize) -> Self {
        let n = topology.len();
        assert!((1..=n).contains(&parts), "{parts} parts of {n} processors");
        let part_of = if parts == 1 {
            vec![0; n]
        } else {
            match topology.kind() {
                TopologyKind::Chain { .. } | TopologyKind::Array { .. } => {
                    dealt((0..n).collect(), parts)
                }
                _ => match topology.grid() {
                    Some(grid) => blocks(&grid.sizes(), parts),
                    None => subtrees(topology, parts)
                        .unwrap_or_else(|| dealt(breadth_first(topology), parts)),
                },
            }
        };
        Self { part_of, parts }
    }

    /// The number of parts K.
    pub fn parts(&self) -> usize {
        self.parts
    }

    /// The part processor `i` runs in.
    #[inline]
    pub fn part_of(&self, i: usize) -> usize {
        self.part_of[i] as usize
    }

    /// The processors of part `p`, in increasing index.
    pub fn members(&self, p: usize) -> Vec<usize> {
        (0..self.part_of.len())
            .filter(|&i| self.part_of[i] as usize == p)
            .collect()
    }

    /// The number of processors in each part.
    pub fn sizes(&self) -> Vec<usize> {
        let mut sizes = vec![0; self.parts];
        for &p in &self.part_of {
            sizes[p as usize] += 1;
        }
        sizes
    }

    /// The links whose ends are in different parts.
    pub fn cut_links(&self, topology: &Topology) -> usize {
        (0..topology.len())
            .map(|i| {
                topology
                    .graph()
                    .row(i)
                    .iter()
                    .filter(|&&j| (j as usize) > i && self.part_of[j as usize] != self.part_of[i])
                    .count()
            })
            .sum()
    }
}

/// `order` dealt into `parts` consecutive blocks, the first `n mod K` one larger.
fn dealt(order: Vec<usize>, parts: usize) -> Vec<u32> {
    let n = order.len();
    let mut part_of = vec![0; n];
    let (base, extra) = (n / parts, n % parts);
    let mut at = 0;
    for p in 0..parts {
        let size = base + usize::from(p < extra);
        for &i in &order[at..at + size] {
            part_of[i] = p as u32;
        }
        at += size;
    }
    part_of
}

/// The processors in breadth-first order of the spanning tree.
fn breadth_first(topology: &Topology) -> Vec<usize> {
    let mut order = vec![topology.root()];
    let mut next = 0;
    while next < order.len() {
        order.extend_from_slice(topology.children(order[next]));
        next += 1;
    }
    order
}

/// Blocks of a grid of `sizes` (x first: processor index = x₀ + s₀ (x₁ + s₁ (…))), by
/// recursive coordinate bisection.
fn blocks(sizes: &[usize], parts: usize) -> Vec<u32> {
    let n: usize = sizes.iter().product();
    let mut part_of = vec![0u32; n];
    // Each box: per dimension [lo, hi), its first part, its number of parts.
    let mut boxes = vec![(sizes.iter().map(|&s| (0, s)).collect::<Vec<_>>(), 0, parts)];
    while let Some((bounds, first, k)) = boxes.pop() {
        if k == 1 {
            let mut coords: Vec<usize> = bounds.iter().map(|b| b.0).collect();
            'cells: loop {
                let index = coords
                    .iter()
                    .zip(sizes)
                    .rev()
                    .fold(0, |acc, (&x, &s)| acc * s + x);
                part_of[index] = first as u32;
                for (d, x) in coords.iter_mut().enumerate() {
                    *x += 1;
                    if *x < bounds[d].1 {
                        continue 'cells;
                    }
                    *x = bounds[d].0;
                }
                break;
            }
            continue;
        }
        let (d, &(lo, hi)) = bounds
            .iter()
            .enumerate()
            .max_by_key(|(d, (lo, hi))| (hi - lo, usize::MAX - d))
            .expect("a grid has a dimension");
        let (k1, k2) = (k / 2, k - k / 2);
        let extent = hi - lo;
        if extent < 2 {
            // A single processor cannot hold more parts: the configuration has K ≤ n, so
            // this only happens on boxes the bisection left too small; keep them whole.
            boxes.push((bounds, first, 1));
            continue;
        }
        let cut = ((extent * k1 + k / 2) / k).clamp(1, extent - 1);
        let mut left = bounds.clone();
        left[d] = (lo, lo + cut);
        let mut right = bounds;
        right[d] = (lo + cut, hi);
        boxes.push((left, first, k1));
        boxes.push((right, first + k1, k2));
    }
    part_of
}

/// Subtrees of the spanning tree, cut bottom-up (module docs); `None` if fewer than `parts`
/// come out.
fn subtrees(topology: &Topology, parts: usize) -> Option<Vec<u32>> {
    let n = topology.len();
    let target = (n / parts).max(1);
    let order = breadth_first(topology);
    // Reverse breadth-first order visits every child before its parent, as post-order does.
    let mut carried = vec![1usize; n];
    let mut cut_at = Vec::with_capacity(parts);
    for &v in order.iter().rev() {
        carried[v] += topology
            .children(v)
            .iter()
            .map(|&c| carried[c])
            .sum::<usize>();
        if carried[v] >= target && cut_at.len() < parts - 1 && v != topology.root() {
            cut_at.push(v);
            carried[v] = 0;
        }
    }
    if cut_at.len() < parts - 1 {
        return None;
    }
    // Each processor joins the part of its nearest cut ancestor (itself included), the root's
    // part (the last) if none.
    let mut part_of = vec![(parts - 1) as u32; n];
    let mut cut = vec![None; n];
    for (p, &v) in cut_at.iter().enumerate() {
        cut[v] = Some(p as u32);
    }
    for &v in &order {
        part_of[v] = match (cut[v], topology.parent(v)) {
            (Some(p), _) => p,
            (None, Some(up)) => part_of[up],
            (None, None) => (parts - 1) as u32,
        };
    }
    Some(part_of)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether every part of `partition` is connected in `topology`.
    fn connected(topology: &Topology, partition: &Partition) -> bool {
        (0..partition.parts()).all(|p| {
            let members = partition.members(p);
            let Some(&start) = members.first() else {
                return false;
            };
            let mut seen = vec![false; topology.len()];
            seen[start] = true;
            let mut stack = vec![start];
            let mut reached = 1;
            while let Some(v) = stack.pop() {
                for j in topology.neighbours(v) {
                    if !seen[j] && partition.part_of(j) == p {
                        seen[j] = true;
                        reached += 1;
                        stack.push(j);
                    }
                }
            }
            reached == members.len()
        })
    }

    #[test]
    fn a_binary_tree_is_cut_into_subtrees_of_one_level() {
        let t = Topology::kary_tree(2, 8).unwrap();
        let p = Partition::of(&t, 4);
        // Three subtrees of 63 cut off, the fourth with the three processors above it.
        assert_eq!(p.sizes(), vec![63, 63, 63, 66]);
        assert!(connected(&t, &p));
        assert_eq!(p.cut_links(&t), 3);
        let p = Partition::of(&t, 2);
        assert_eq!(p.sizes(), vec![127, 128]);
        assert_eq!(p.cut_links(&t), 1);
    }

    #[test]
    fn a_chain_is_cut_into_segments() {
        let t = Topology::chain(10).unwrap();
        let p = Partition::of(&t, 3);
        assert_eq!(
            (0..10).map(|i| p.part_of(i)).collect::<Vec<_>>(),
            vec![0, 0, 0, 0, 1, 1, 1, 2, 2, 2]
        );
        assert_eq!(p.cut_links(&t), 2);
    }

    #[test]
    fn grids_are_cut_into_blocks() {
        // An 8 × 8 mesh in four 4 × 4 blocks: 16 cut links (four slabs would cut 24).
        let t = Topology::mesh(&[8, 8]).unwrap();
        let p = Partition::of(&t, 4);
        assert_eq!(p.sizes(), vec![16; 4]);
        assert!(connected(&t, &p));
        assert_eq!(p.cut_links(&t), 16);
        let cube = Topology::hypercube(4).unwrap();
        let p = Partition::of(&cube, 4);
        assert_eq!(p.sizes(), vec![4; 4]);
        assert!(connected(&cube, &p));
        let ring = Topology::ring(10).unwrap();
        let p = Partition::of(&ring, 3);
        assert!(connected(&ring, &p));
        assert_eq!(p.cut_links(&ring), 3);
    }

    #[test]
    fn a_star_falls_back_to_breadth_first_blocks() {
        let mut parents = vec![Some(0); 9];
        parents[0] = None;
        let t = Topology::from_parents(parents).unwrap();
        let p = Partition::of(&t, 3);
        assert_eq!(p.sizes(), vec![3, 3, 3]);
    }

    #[test]
    fn every_topology_gets_k_non_empty_parts() {
        for spec in [
            "tree:3:4",
            "ring:7",
            "torus:5x3",
            "mesh:3x3x3",
            "hypercube:5",
            "chain:9",
        ] {
            let t = Topology::parse(spec).unwrap();
            for k in 1..=8.min(t.len()) {
                let p = Partition::of(&t, k);
                assert_eq!(p.parts(), k);
                assert!(
                    p.sizes().iter().all(|&s| s > 0),
                    "{spec} K={k}: {:?}",
                    p.sizes()
                );
                assert_eq!(p.sizes().iter().sum::<usize>(), t.len());
            }
        }
    }
}
