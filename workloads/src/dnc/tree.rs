//! Divide and conquer on any tree: recurrence (j) of §3.3, processor by processor, for the
//! spanning tree of any network (the balanced `k`-ary tree of the paper is the special case
//! whose every level is alike).
//!
//! A processor `p` with `c_p` children splits each piece it receives into `c_p` parts and
//! hands them to whichever children ask (the engine's flood fill), so the children together
//! take `Σ_c S_c` parts per second, `S_c` being what the subtree of `c` absorbs in its own
//! pieces per second; `p` can split `F_p = Σ_c S_c / c_p` pieces per second, at most
//! `1/σ_p` with `σ_p = T_s(p) + T_j(p) + β_f`. With `T_e(p) + β_e` per piece executed,
//!
//! ```text
//! S_p = F_p + (1 − σ_p F_p)/(T_e(p) + β_e)                                   (j, per processor)
//! T_startup = max over root-to-leaf paths of Σ_{internal p} (2 T_τ(p) + σ_p) + T_e(leaf) + β_e
//! ```
//!
//! On a balanced `k`-ary tree every processor of level `i` has `k` children of level `i − 1`,
//! `F = S_{i−1}`, and these are (j) and the start-up of §3.3.2. Work fractions: a processor
//! receiving `r_p` pieces per second splits `min(r_p, F_p)` (forwarding has priority, §4.1),
//! executes the rest, each piece its share `w_p` of a whole task, and its children receive
//! its parts in proportion to their `S_c`.

use serde::Serialize;

use super::model::DncLevelCosts;
use crate::tree::{Bound, ModelError, Prediction, Tree, check_work};

/// Divide and conquer on the tree `parents` (`None` marks the root), each processor with the
/// costs of the pieces it receives. All durations in seconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DncTreeModel {
    /// The parent of each processor.
    pub parents: Vec<Option<usize>>,
    /// The costs of each processor: `T_e(p)` of the piece it receives, `T_s(p)` and `T_j(p)`
    /// of splitting it and joining its parts, `T_τ(p)` of sending it.
    pub costs: Vec<DncLevelCosts>,
    /// `β_e`: non-overlapped start-up per piece executed locally.
    pub beta_e_s: f64,
    /// `β_f`: non-overlapped start-up per piece split, forwarded and joined.
    pub beta_f_s: f64,
    /// `M`: number of tasks.
    pub tasks_m: u64,
    /// Sequential time of one whole task, the reference of the speedup; `None`: the root's
    /// `T_e`.
    pub sequential_task_s: Option<f64>,
}

/// What each processor can absorb and split, bottom up.
struct Capacities {
    /// `S_p`, pieces of `p`'s size per second.
    absorbs: Vec<f64>,
    /// `F_p` as capped, pieces split per second.
    splits: Vec<f64>,
}

impl DncTreeModel {
    fn validate(&self, tree: &Tree) -> Result<(), ModelError> {
        if self.costs.len() != self.parents.len() {
            return Err(ModelError::LengthMismatch(format!(
                "{} processor costs for {} processors",
                self.costs.len(),
                self.parents.len()
            )));
        }
        super::model::validate(&self.costs, self.beta_e_s, self.beta_f_s)?;
        if self.tasks_m == 0 {
            return Err(ModelError::ZeroTasks);
        }
        check_work("sequential_task_s", self.sequential_s(tree))
    }

    fn sequential_s(&self, tree: &Tree) -> f64 {
        self.sequential_task_s.unwrap_or(self.costs[tree.root].te_s)
    }

    /// `σ_p`.
    fn sigma(&self, p: usize) -> f64 {
        self.costs[p].ts_s + self.costs[p].tj_s + self.beta_f_s
    }

    /// `S_p` and `F_p` bottom up, splitting capped at `1/σ_p` when `saturate`.
    fn capacities(&self, tree: &Tree, saturate: bool) -> Capacities {
        let n = self.parents.len();
        let mut absorbs = vec![0.0; n];
        let mut splits = vec![0.0; n];
        for &p in tree.order.iter().rev() {
            let children = &tree.children[p];
            let sigma = self.sigma(p);
            let mut f = if children.is_empty() {
                0.0
            } else {
                children.iter().map(|&c| absorbs[c]).sum::<f64>() / children.len() as f64
            };
            if saturate && sigma > 0.0 {
                f = f.min(1.0 / sigma);
            }
            splits[p] = f;
            absorbs[p] = f + (1.0 - sigma * f) / (self.costs[p].te_s + self.beta_e_s);
        }
        Capacities { absorbs, splits }
    }

    /// The share of each processor's executed work in all the work, summed by level
    /// (element `i − 1` = level `i`, 1 + the height of the processor's subtree).
    fn fractions_by_level(&self, tree: &Tree, c: &Capacities) -> Vec<f64> {
        let n = self.parents.len();
        let total = c.absorbs[tree.root];
        let mut rate = vec![0.0; n];
        let mut share = vec![0.0; n];
        rate[tree.root] = total;
        share[tree.root] = 1.0;
        let mut executed = vec![0.0; n];
        for &p in &tree.order {
            let split = rate[p].min(c.splits[p]);
            executed[p] = (rate[p] - split) * share[p] / total;
            let children = &tree.children[p];
            let absorbed: f64 = children.iter().map(|&ch| c.absorbs[ch]).sum();
            for &ch in children {
                rate[ch] = split * children.len() as f64 * c.absorbs[ch] / absorbed;
                share[ch] = share[p] / children.len() as f64;
            }
        }
        tree.by_level(&executed)
    }

    /// The start-up: the first task's slowest path from the root to a leaf and back.
    fn startup_s(&self, tree: &Tree) -> f64 {
        let mut path = vec![0.0_f64; self.parents.len()];
        for &p in tree.order.iter().rev() {
            let cost = &self.costs[p];
            path[p] = match tree.children[p].iter().map(|&c| path[c]).reduce(f64::max) {
                None => cost.te_s + self.beta_e_s,
                Some(below) => 2.0 * cost.tau_s + self.sigma(p) + below,
            };
        }
        path[tree.root]
    }

    /// Whether some processor's children absorb its parts at unequal rates (`S_c` differ):
    /// then a child takes more than one part of a split while a sibling takes fewer, and a
    /// queue of one piece a processor cannot keep it fed (see
    /// [`super::DncExperiment::run`]'s missing terms). False on every balanced tree.
    pub fn uneven_demand(&self) -> Result<bool, ModelError> {
        let tree = Tree::new(&self.parents)?;
        self.validate(&tree)?;
        let c = self.capacities(&tree, true);
        Ok(tree.children.iter().any(|children| {
            let rates = children.iter().map(|&ch| c.absorbs[ch]);
            let (lo, hi) = rates.fold((f64::INFINITY, 0.0_f64), |(lo, hi), s| {
                (lo.min(s), hi.max(s))
            });
            !children.is_empty() && hi - lo > 1e-9 * hi
        }))
    }

    /// Predicts throughput (whole tasks/s), speedup, execution time, the work fractions by
    /// level and the start-up, as [`super::DncModel::predict`] does on a balanced tree: the
    /// saturating recurrence, capped by the link limit `1/(T_τ(root) + β_e)`.
    pub fn predict(&self) -> Result<Prediction, ModelError> {
        let tree = Tree::new(&self.parents)?;
        self.validate(&tree)?;
        let capped = self.capacities(&tree, true);
        let plain = self.capacities(&tree, false).absorbs[tree.root];
        let mut throughput = capped.absorbs[tree.root];
        let mut bound = if (throughput - plain).abs() > 1e-12 * plain.abs() {
            Bound::Forwarding
        } else {
            Bound::Processors
        };
        let link = 1.0 / (self.costs[tree.root].tau_s + self.beta_e_s);
        if link < throughput {
            throughput = link;
            bound = Bound::Link;
        }
        let startup_s = self.startup_s(&tree);
        let makespan_s = startup_s + (self.tasks_m - 1) as f64 / throughput;
        Ok(Prediction {
            throughput_per_s: throughput,
            speedup: self.tasks_m as f64 * self.sequential_s(&tree) / makespan_s,
            makespan_s,
            fractions_by_level: self.fractions_by_level(&tree, &capped),
            startup_s,
            bound,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{DncModel, even_split_levels};
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
    }

    fn level(te_s: f64, ts_s: f64) -> DncLevelCosts {
        DncLevelCosts {
            te_s,
            ts_s,
            tj_s: ts_s,
            tau_s: 0.0,
        }
    }

    #[test]
    fn on_balanced_trees_it_is_the_level_model() {
        for (k, n, ts) in [
            (2, 4, 0.2e-3),
            (3, 3, 0.05e-3),
            (2, 5, 0.2e-3),
            (1, 4, 0.1e-3),
        ] {
            let whole = DncLevelCosts {
                te_s: 8e-3,
                ts_s: ts,
                tj_s: ts,
                tau_s: 0.1e-3,
            };
            let levels = even_split_levels(k, n, whole).unwrap();
            let balanced = DncModel {
                levels: levels.clone(),
                beta_e_s: 50e-6,
                beta_f_s: 100e-6,
                tasks_m: 200,
                sequential_task_s: None,
            }
            .predict()
            .unwrap();
            let count: usize = (0..n).map(|i| (k as usize).pow(i)).sum();
            let parents: Vec<Option<usize>> = (0..count)
                .map(|i| (i > 0).then(|| (i - 1) / k as usize))
                .collect();
            let tree = Tree::new(&parents).unwrap();
            let costs = (0..count)
                .map(|p| levels[tree.levels[p] as usize - 1])
                .collect();
            let general = DncTreeModel {
                parents,
                costs,
                beta_e_s: 50e-6,
                beta_f_s: 100e-6,
                tasks_m: 200,
                sequential_task_s: None,
            }
            .predict()
            .unwrap();
            let what = format!("k = {k}, N = {n}");
            assert_eq!(general.bound, balanced.bound, "{what}");
            assert!(
                close(general.throughput_per_s, balanced.throughput_per_s),
                "{what}"
            );
            assert!(close(general.startup_s, balanced.startup_s), "{what}");
            assert!(close(general.makespan_s, balanced.makespan_s), "{what}");
            for (a, b) in general
                .fractions_by_level
                .iter()
                .zip(&balanced.fractions_by_level)
            {
                assert!((a - b).abs() < 1e-12, "{what}: {a} against {b}");
            }
        }
    }

    /// Root 0 with children 1 (a leaf) and 2, whose child 3 is a leaf; T_e + β_e = 1 s and
    /// σ = 0.5 s everywhere, no start-up cost in β, M = 14.
    fn hand_worked(sequential_task_s: Option<f64>) -> DncTreeModel {
        DncTreeModel {
            parents: vec![None, Some(0), Some(0), Some(2)],
            costs: vec![level(1.0, 0.25); 4],
            beta_e_s: 0.0,
            beta_f_s: 0.0,
            tasks_m: 14,
            sequential_task_s,
        }
    }

    #[test]
    fn an_unbalanced_tree_by_hand() {
        // Root 0 with children 1 (a leaf) and 2, whose child 3 is a leaf. T_e + β_e = 1 s
        // everywhere, σ = 0.5 s, no start-up cost in β.
        //   S_3 = 1, S_1 = 1;  F_2 = 1, S_2 = 1 + (1 − 0.5)/1 = 1.5;
        //   F_0 = (1 + 1.5)/2 = 1.25, S_0 = 1.25 + (1 − 0.625)/1 = 1.625 tasks/s.
        let model = hand_worked(Some(2.0));
        let p = model.predict().unwrap();
        assert!(close(p.throughput_per_s, 1.625));
        assert_eq!(p.bound, Bound::Processors);
        // Start-up: 0.5 at the root, 0.5 at 2, 1 at the leaf 3.
        assert!(close(p.startup_s, 2.0));
        assert!(close(p.makespan_s, 2.0 + 13.0 / 1.625));
        assert!(close(p.speedup, 14.0 * 2.0 / p.makespan_s));
        // Work: the root executes 1.625 − 1.25 = 0.375 whole tasks/s and splits 1.25 into
        // 2.5 halves/s, shared as the children absorb: processor 1 takes 1 (0.5 of a task's
        // work), processor 2 takes 1.5, splits 1 of them one way and executes 0.5 (0.25),
        // and processor 3 executes the halves it receives (0.5). Levels: 1 = {1, 3},
        // 2 = {2}, 3 = {0}.
        let f = &p.fractions_by_level;
        assert!(close(f[0], 1.0 / 1.625), "{f:?}");
        assert!(close(f[1], 0.25 / 1.625), "{f:?}");
        assert!(close(f[2], 0.375 / 1.625), "{f:?}");
        assert!(close(f.iter().sum(), 1.0));
    }

    #[test]
    fn demand_is_uneven_where_siblings_absorb_unequally() {
        // The hand-worked tree above: the root's children absorb S_1 = 1 and S_2 = 1.5.
        let uneven = hand_worked(None);
        assert!(uneven.uneven_demand().unwrap());
        // Two leaves under the root, or a chain: every sibling absorbs alike.
        for parents in [vec![None, Some(0), Some(0)], vec![None, Some(0), Some(1)]] {
            let even = DncTreeModel {
                costs: vec![level(1.0, 0.25); 3],
                parents,
                ..uneven.clone()
            };
            assert!(!even.uneven_demand().unwrap());
        }
    }

    #[test]
    fn bad_inputs_are_named() {
        let model = DncTreeModel {
            parents: vec![None, Some(0)],
            costs: vec![level(1.0, 0.0)],
            beta_e_s: 0.0,
            beta_f_s: 0.0,
            tasks_m: 1,
            sequential_task_s: None,
        };
        assert!(matches!(
            model.predict(),
            Err(ModelError::LengthMismatch(_))
        ));
        let model = DncTreeModel {
            costs: vec![level(1.0, 0.0); 2],
            tasks_m: 0,
            ..model
        };
        assert_eq!(model.predict(), Err(ModelError::ZeroTasks));
    }
}
