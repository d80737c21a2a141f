//! The general framework of §3.1 for any tree of (possibly heterogeneous) processors.
//!
//! The topology is a parent relation `φ`: `parents[i] = Some(j)` means processor `j` is the
//! parent of `i`, `None` marks the single root. Processor `p` executes a fraction `f_p` of the
//! `M` tasks and forwards the fraction `Φ_p = Σ_{q ∈ desc(p)} f_q` (its strict descendants'
//! share), so with `σ_p = T_s(p) + T_j(p) + β_f`
//!
//! ```text
//! T_p = f_p M (T_e(p) + β_e) + Φ_p M σ_p,   T_p = T for all p,   Σ f_p = 1
//! ```
//!
//! `N + 1` linear equations in `f_1 … f_N` and `T`.

use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

use super::{ModelError, check_duration, check_work};
use crate::tree::Tree;

/// Per-processor compute costs (seconds) in the general framework.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ProcessorCosts {
    /// `T_e(p)`: time for this processor to execute one task.
    pub te_s: f64,
    /// `T_s(p)`: time to split a task before forwarding it (0 for a farm).
    pub ts_s: f64,
    /// `T_j(p)`: time to join a forwarded task's result (0 for a farm).
    pub tj_s: f64,
}

impl ProcessorCosts {
    /// A farm processor: executes a task in `te_s`, no split or join work.
    pub fn farm(te_s: f64) -> Self {
        Self {
            te_s,
            ts_s: 0.0,
            tj_s: 0.0,
        }
    }

    fn validate(&self) -> Result<(), ModelError> {
        check_work("te_s", self.te_s)?;
        check_duration("ts_s", self.ts_s)?;
        check_duration("tj_s", self.tj_s)
    }
}

/// Level of each processor of a parent relation: `1 + height` of the subtree it roots, so every
/// leaf is level 1 and the root is level `N = 1 + height(tree)`. On balanced trees and chains
/// this is the paper's numbering ("from 1 at the leaves to level N at the root"); on unbalanced
/// trees a shallow leaf is still level 1, and an internal processor sits one level above its
/// highest child.
pub fn processor_levels(parents: &[Option<usize>]) -> Result<Vec<u32>, ModelError> {
    Ok(Tree::new(parents)?.levels)
}

fn check_inputs(
    parents: &[Option<usize>],
    costs: &[ProcessorCosts],
    beta_e_s: f64,
    beta_f_s: f64,
) -> Result<Tree, ModelError> {
    let tree = Tree::new(parents)?;
    if costs.len() != parents.len() {
        return Err(ModelError::LengthMismatch(format!(
            "{} processor costs for {} processors",
            costs.len(),
            parents.len()
        )));
    }
    for c in costs {
        c.validate()?;
    }
    check_duration("beta_e_s", beta_e_s)?;
    check_duration("beta_f_s", beta_f_s)?;
    Ok(tree)
}

/// Solution of the §3.1 linear system.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FrameworkSolution {
    /// `f_p`: fraction of all tasks executed by processor `p` (`Σ = 1`; negative values mean
    /// the equal-busy-time assumption cannot hold, see [`flood_fill_tree`]).
    pub fractions: Vec<f64>,
    /// `T/M`: steady-state time per task of the whole system (seconds).
    pub time_per_task_s: f64,
    /// `S = M/T` (tasks/s).
    pub throughput_per_s: f64,
    /// Level of each processor ([`processor_levels`]).
    pub levels: Vec<u32>,
    /// `f_i` summed over the processors of each level (element `i − 1` = level `i`).
    pub fractions_by_level: Vec<f64>,
}

/// Solves the general framework of §3.1 as a dense linear system (LU, nalgebra): unknowns
/// `f_1 … f_N` and `T/M`, equations `f_p (T_e(p) + β_e) + Φ_p σ_p − T/M = 0` for every
/// processor and `Σ f_p = 1`, with `Φ_p` the descendants' share and
/// `σ_p = T_s(p) + T_j(p) + β_f`.
///
/// On a balanced `k`-ary tree with identical processors its throughput is (f) and its per-level
/// sums are the `f_i` of §3.2.1.
pub fn framework_linear_system(
    parents: &[Option<usize>],
    costs: &[ProcessorCosts],
    beta_e_s: f64,
    beta_f_s: f64,
) -> Result<FrameworkSolution, ModelError> {
    let tree = check_inputs(parents, costs, beta_e_s, beta_f_s)?;
    let n = parents.len();
    let mut a = DMatrix::<f64>::zeros(n + 1, n + 1);
    let mut b = DVector::<f64>::zeros(n + 1);
    for p in 0..n {
        a[(p, p)] = costs[p].te_s + beta_e_s;
        a[(p, n)] = -1.0;
        a[(n, p)] = 1.0;
        // Every strict ancestor of p forwards p's share.
        let mut q = parents[p];
        while let Some(anc) = q {
            a[(anc, p)] += costs[anc].ts_s + costs[anc].tj_s + beta_f_s;
            q = parents[anc];
        }
    }
    b[n] = 1.0;
    let x = a.lu().solve(&b).ok_or(ModelError::Singular)?;
    if x.iter().any(|v| !v.is_finite()) {
        return Err(ModelError::Singular);
    }
    let fractions: Vec<f64> = x.iter().take(n).copied().collect();
    let time_per_task_s = x[n];
    Ok(FrameworkSolution {
        fractions_by_level: tree.by_level(&fractions),
        fractions,
        time_per_task_s,
        throughput_per_s: 1.0 / time_per_task_s,
        levels: tree.levels,
    })
}

/// Steady state of the flood-fill execution on any tree, solved bottom-up.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TreeSolution {
    /// Throughput of the whole tree (tasks/s).
    pub throughput_per_s: f64,
    /// Capacity of the subtree rooted at each processor (tasks/s).
    pub subtree_throughput_per_s: Vec<f64>,
    /// Fraction of all tasks executed by each processor (`Σ = 1`, all `≥ 0`).
    pub fractions: Vec<f64>,
    /// Whether the processor's forwarding is saturated (`σ_p · Σ_children S_c > 1`).
    pub saturated: Vec<bool>,
    /// Level of each processor ([`processor_levels`]).
    pub levels: Vec<u32>,
    /// Fractions summed by level (element `i − 1` = level `i`).
    pub fractions_by_level: Vec<f64>,
}

/// The framework of §3.1 solved bottom-up, with forwarding allowed to saturate.
///
/// Dividing `T_p = T` by `T` and writing `S_p` for the throughput of the subtree rooted at
/// `p` gives, for every processor, `S_p = F_p + (1 − σ_p F_p)/(T_e(p) + β_e)` where
/// `F_p = Σ_{c child of p} S_c` is what the children absorb — recurrence (d) for an arbitrary
/// tree. A processor cannot forward faster than `1/σ_p`, so `F_p` is capped there (the farm
/// analogue of (k)); without saturation this is exactly [`framework_linear_system`].
///
/// Fractions: a saturated processor divides what it forwards among its children in proportion
/// to their capacities `S_c`, and every processor of an under-fed subtree idles for the same
/// share of time (all its rates scale by one factor).
pub fn flood_fill_tree(
    parents: &[Option<usize>],
    costs: &[ProcessorCosts],
    beta_e_s: f64,
    beta_f_s: f64,
) -> Result<TreeSolution, ModelError> {
    let tree = check_inputs(parents, costs, beta_e_s, beta_f_s)?;
    let n = parents.len();
    let mut s = vec![0.0; n];
    let mut forwarded = vec![0.0; n];
    let mut saturated = vec![false; n];
    for &p in tree.order.iter().rev() {
        let wanted: f64 = tree.children[p].iter().map(|&c| s[c]).sum();
        let sigma = costs[p].ts_s + costs[p].tj_s + beta_f_s;
        let fwd = if sigma > 0.0 && wanted * sigma > 1.0 {
            saturated[p] = true;
            1.0 / sigma
        } else {
            wanted
        };
        forwarded[p] = fwd;
        s[p] = fwd + (1.0 - sigma * fwd) / (costs[p].te_s + beta_e_s);
    }
    let total = s[tree.root];
    let mut rate = vec![0.0; n];
    rate[tree.root] = total;
    let mut fractions = vec![0.0; n];
    for &p in &tree.order {
        // Forwarding has priority (§4.1): of the r tasks/s a processor receives it forwards
        // as many as its children absorb (up to its forwarding capacity) and executes the rest.
        let fwd = rate[p].min(forwarded[p]);
        fractions[p] = (rate[p] - fwd) / total;
        let wanted: f64 = tree.children[p].iter().map(|&c| s[c]).sum();
        for &c in &tree.children[p] {
            rate[c] = fwd * s[c] / wanted;
        }
    }
    Ok(TreeSolution {
        throughput_per_s: total,
        subtree_throughput_per_s: s,
        fractions_by_level: tree.by_level(&fractions),
        fractions,
        saturated,
        levels: tree.levels,
    })
}

#[cfg(test)]
mod tests {
    use super::super::model::{
        FarmCosts, level_fractions, saturating_level_fractions,
        saturating_throughput_by_level_per_s, throughput_closed_form_per_s,
    };
    use super::*;
    use crate::tree::TreeShape;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * a.abs().max(b.abs()).max(1e-300)
    }

    /// Balanced k-ary tree in breadth-first numbering: parent of i > 0 is (i − 1)/k.
    fn balanced(k: usize, levels: u32) -> Vec<Option<usize>> {
        let n: usize = (0..levels).map(|i| k.pow(i)).sum();
        (0..n)
            .map(|i| if i == 0 { None } else { Some((i - 1) / k) })
            .collect()
    }

    #[test]
    fn hand_worked_chain_of_two() {
        // T_e = 1, β_e = 0, β_f = 0.5: leaf S_1 = 1, root S_2 = 1 + (1 − 0.5)/1 = 1.5,
        // f_leaf = 1/1.5 = 2/3, f_root = 1/3; check T: root 1/3·1 + 2/3·0.5 = 2/3 = leaf 2/3·1.
        let parents = [None, Some(0)];
        let costs = [ProcessorCosts::farm(1.0); 2];
        let sol = framework_linear_system(&parents, &costs, 0.0, 0.5).unwrap();
        assert!(close(sol.throughput_per_s, 1.5, 1e-14));
        assert!(close(sol.fractions[0], 1.0 / 3.0, 1e-14));
        assert!(close(sol.fractions[1], 2.0 / 3.0, 1e-14));
        assert_eq!(sol.levels, vec![2, 1]);
    }

    #[test]
    fn linear_system_equals_closed_form_on_balanced_trees_and_chains() {
        let costs = FarmCosts {
            te_s: 1e-3,
            beta_e_s: 5e-5,
            beta_f_s: 8e-5,
        };
        for k in 1..=3usize {
            for levels in 1..=5u32 {
                let parents = balanced(k, levels);
                let pc = vec![ProcessorCosts::farm(costs.te_s); parents.len()];
                let sol =
                    framework_linear_system(&parents, &pc, costs.beta_e_s, costs.beta_f_s).unwrap();
                let shape = TreeShape {
                    k: k as u32,
                    levels,
                };
                let closed = throughput_closed_form_per_s(shape, &costs).unwrap();
                assert!(
                    close(sol.throughput_per_s, closed, 1e-9),
                    "k={k} N={levels}"
                );
                let f = level_fractions(shape, &costs).unwrap();
                for (a, b) in sol.fractions_by_level.iter().zip(&f) {
                    assert!((a - b).abs() < 1e-9, "k={k} N={levels}: {a} vs {b}");
                }
                assert!(close(sol.fractions.iter().sum(), 1.0, 1e-12));
                // Flood fill is the same system solved bottom-up where no level saturates
                // (all f_i ≥ 0); where one does, it is capped below the unconstrained value.
                let ff = flood_fill_tree(&parents, &pc, costs.beta_e_s, costs.beta_f_s).unwrap();
                if f.iter().all(|fi| *fi >= 0.0) {
                    assert!(close(ff.throughput_per_s, closed, 1e-9));
                    assert!(ff.saturated.iter().all(|s| !s));
                } else {
                    assert!(ff.saturated[0] && ff.throughput_per_s < closed);
                }
            }
        }
    }

    #[test]
    fn heterogeneous_unbalanced_tree_has_equal_busy_times() {
        //      0
        //    / | \
        //   1  2  3        processor 1 is slow, 3 is a leaf, 2 has a chain below
        //  /    \
        // 4      5 — 6
        let parents = [None, Some(0), Some(0), Some(0), Some(1), Some(2), Some(5)];
        let te = [1.0e-3, 3.0e-3, 1.0e-3, 0.5e-3, 1.0e-3, 2.0e-3, 1.0e-3];
        let pc: Vec<ProcessorCosts> = te.iter().map(|t| ProcessorCosts::farm(*t)).collect();
        let (be, bf) = (4e-5, 6e-5);
        let sol = framework_linear_system(&parents, &pc, be, bf).unwrap();
        assert_eq!(sol.levels, vec![4, 2, 3, 1, 1, 2, 1]);
        assert!(close(sol.fractions.iter().sum(), 1.0, 1e-12));
        // Every processor busy for T/M: f_p(T_e + β_e) + Φ_p β_f.
        for (p, te_p) in te.iter().enumerate() {
            let mut phi = 0.0;
            for q in 0..parents.len() {
                let mut a = parents[q];
                while let Some(x) = a {
                    if x == p {
                        phi += sol.fractions[q];
                    }
                    a = parents[x];
                }
            }
            let busy = sol.fractions[p] * (te_p + be) + phi * bf;
            assert!(close(busy, sol.time_per_task_s, 1e-10), "p={p}");
        }
        let ff = flood_fill_tree(&parents, &pc, be, bf).unwrap();
        assert!(close(ff.throughput_per_s, sol.throughput_per_s, 1e-12));
        for (a, b) in ff.fractions.iter().zip(&sol.fractions) {
            assert!((a - b).abs() < 1e-12);
        }
    }

    #[test]
    fn flood_fill_matches_saturating_balanced_model() {
        // T_e + β_e = 1, β_f = 0.25, binary N = 3: the root saturates (see model tests).
        let costs = FarmCosts {
            te_s: 0.9,
            beta_e_s: 0.1,
            beta_f_s: 0.25,
        };
        let shape = TreeShape { k: 2, levels: 3 };
        let parents = balanced(2, 3);
        let pc = vec![ProcessorCosts::farm(0.9); parents.len()];
        let ff = flood_fill_tree(&parents, &pc, 0.1, 0.25).unwrap();
        assert!(ff.saturated[0]);
        let s = saturating_throughput_by_level_per_s(shape, &costs).unwrap();
        assert!(close(ff.throughput_per_s, s[2], 1e-14));
        let f = saturating_level_fractions(shape, &costs).unwrap();
        for (a, b) in ff.fractions_by_level.iter().zip(&f) {
            assert!((a - b).abs() < 1e-12);
        }
        // The unconstrained linear system gives the root a negative share instead.
        let lin = framework_linear_system(&parents, &pc, 0.1, 0.25).unwrap();
        assert!(lin.fractions[0] < 0.0);
    }

    #[test]
    fn invalid_parent_relations_are_rejected() {
        let c = [ProcessorCosts::farm(1.0); 3];
        for bad in [
            vec![None, None, Some(0)],
            vec![Some(1), Some(0), Some(0)],
            vec![None, Some(5), Some(0)],
            vec![None, Some(1), Some(0)],
            vec![None, Some(2), Some(1)],
        ] {
            assert!(matches!(
                framework_linear_system(&bad, &c, 0.0, 0.0),
                Err(ModelError::InvalidTree(_))
            ));
        }
        assert!(matches!(
            flood_fill_tree(&[None, Some(0)], &c, 0.0, 0.0),
            Err(ModelError::LengthMismatch(_))
        ));
        assert!(matches!(
            processor_levels(&[]),
            Err(ModelError::InvalidTree(_))
        ));
    }
}
