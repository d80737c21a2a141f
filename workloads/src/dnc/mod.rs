//! Analytic model of divide and conquer on a tree of processors (Sreekantaswamy, Chanson and
//! Wagner, UBC TR 91-27, §3.3).
//!
//! Pure functions of a configuration: nothing here starts a thread or reads a clock.
//!
//! # The execution model
//!
//! Tasks enter at the root. A processor on level `i` (1 = leaves, `N` = root, as for the
//! farm) either executes the (sub)task it received, taking `T_e(i) + β_e`, or splits it into
//! one part per child (`T_s(i)`), forwards the parts, and later joins their results (`T_j(i)`),
//! paying `β_f` in start-ups. The processor tree has the degree of the task tree, so each
//! task that reaches level `i` visits *every* processor of the level once; throughputs are in
//! whole tasks per second and `f_i` is the fraction of the tasks whose level-`i` parts are
//! executed on level `i`.
//!
//! # Steady state
//!
//! With `S_i` the throughput of levels 1 to `i` (`S_0 = 0`), from the equal busy time of every
//! level, recurrence (j):
//!
//! ```text
//! S_i = S_{i−1} (T_e(i) + β_e − T_s(i) − T_j(i) − β_f)/(T_e(i) + β_e) + 1/(T_e(i) + β_e)   (j)
//! S_max = 1/(t_max + β_f),  t_max = max_{2≤i≤N} (T_s(i) + T_j(i))                          (k)
//! ```
//!
//! There is no closed form; the paper takes `S_N` if `S_1 < S_max` and `S_max` otherwise
//! ([`paper_throughput_per_s`]). The level-by-level *saturating* form
//! ([`saturating_throughput_by_level_per_s`]) caps what each level can pass down at
//! `1/(T_s(i) + T_j(i) + β_f)`; it equals (j) whenever all `f_i ≥ 0` and `S_max` in the
//! regime the paper describes, and is what [`DncModel::predict`] uses.
//!
//! # Any other network
//!
//! On a network that is not a balanced tree used from its root (a mesh, a ring, a tree
//! rooted elsewhere), the program runs on the network's breadth-first spanning tree and
//! [`DncTreeModel`] writes (j) processor by processor: what a processor can split is what
//! its children's subtrees absorb, shared by demand; on a balanced tree it is (j) itself.
//!
//! # Start-up and speedup (§3.3.2)
//!
//! ```text
//! T_startup = Σ_{i=2}^{N} (2 T_τ(i) + T_s(i) + T_j(i) + β_f) + T_e(1) + β_e
//! SP_N      = M T_e / (T_startup + (M − 1)/S_N)
//! ```
//!
//! where `T_e` is the sequential time of one whole task (by default `T_e(N)`).
//!
//! # Example
//!
//! ```
//! use multicomputer_workloads::dnc::{DncLevelCosts, DncModel, even_split_levels};
//!
//! // A 16 ms task halved on each of 4 levels, split and join linear in size.
//! let whole = DncLevelCosts { te_s: 16e-3, ts_s: 0.4e-3, tj_s: 0.4e-3, tau_s: 0.1e-3 };
//! let model = DncModel {
//!     levels: even_split_levels(2, 4, whole)?,
//!     beta_e_s: 50e-6,
//!     beta_f_s: 100e-6,
//!     tasks_m: 1000,
//!     sequential_task_s: None,
//! };
//! let p = model.predict()?;
//! assert!(p.speedup > 1.0 && p.speedup < 15.0);
//! assert!((p.speedup - 1000.0 * 16e-3 / p.makespan_s).abs() < 1e-9);
//! # Ok::<(), multicomputer_workloads::dnc::ModelError>(())
//! ```

mod compare;
mod model;
mod program;
mod tree;

pub use crate::tree::{Bound, ModelError, Prediction};
pub use compare::{
    DncCompareError, DncComparison, DncExperiment, DncKernel, MIN_SPLIT, mergesort_keys,
    mergesort_levels,
};
pub use model::{
    DncLevelCosts, even_split_levels, level_fractions, paper_throughput_per_s,
    saturating_level_fractions, saturating_throughput_by_level_per_s, startup_s,
    throughput_by_level_per_s, throughput_limit_per_s,
};
pub use program::{
    COMPARISON, DncError, DncRun, DncSpec, KEY_MOVE, Keys, MergeSort, Piece, Splitting, TASK_UNITS,
    Units, merge, merge_metered, mergesort, run_mergesort, run_synthetic,
};
pub use tree::DncTreeModel;

use serde::{Deserialize, Serialize};

use crate::tree::check_work;

/// A divide-and-conquer computation: per-level costs and workload. All durations in seconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DncModel {
    /// Costs of each level, element `i − 1` = level `i` (1 = leaves); see
    /// [`even_split_levels`].
    pub levels: Vec<DncLevelCosts>,
    /// `β_e`: non-overlapped start-up per (sub)task executed locally.
    pub beta_e_s: f64,
    /// `β_f`: non-overlapped start-up per (sub)task split, forwarded and joined.
    pub beta_f_s: f64,
    /// `M`: number of tasks.
    pub tasks_m: u64,
    /// Sequential time of one whole task, the reference of the speedup; `None`: `T_e(N)`.
    #[serde(default)]
    pub sequential_task_s: Option<f64>,
}

impl DncModel {
    /// Predicts throughput (whole tasks/s), speedup, execution time (g), per-level fractions
    /// and start-up, using the saturating form of (j) capped by the link limit
    /// `1/(T_τ(N) + β_e)` of §3.1 at the root.
    pub fn predict(&self) -> Result<Prediction, ModelError> {
        model::validate(&self.levels, self.beta_e_s, self.beta_f_s)?;
        if self.tasks_m == 0 {
            return Err(ModelError::ZeroTasks);
        }
        let root = self.levels[self.levels.len() - 1];
        let sequential_s = self.sequential_task_s.unwrap_or(root.te_s);
        check_work("sequential_task_s", sequential_s)?;
        let s = saturating_throughput_by_level_per_s(&self.levels, self.beta_e_s, self.beta_f_s)?;
        let plain = throughput_by_level_per_s(&self.levels, self.beta_e_s, self.beta_f_s)?;
        let mut bound = if (s[s.len() - 1] - plain[plain.len() - 1]).abs()
            > 1e-12 * plain[plain.len() - 1].abs()
        {
            Bound::Forwarding
        } else {
            Bound::Processors
        };
        let mut throughput = s[s.len() - 1];
        let link = 1.0 / (root.tau_s + self.beta_e_s);
        if link < throughput {
            throughput = link;
            bound = Bound::Link;
        }
        let startup = startup_s(&self.levels, self.beta_e_s, self.beta_f_s)?;
        let makespan_s = startup + (self.tasks_m - 1) as f64 / throughput;
        Ok(Prediction {
            throughput_per_s: throughput,
            speedup: self.tasks_m as f64 * sequential_s / makespan_s,
            makespan_s,
            fractions_by_level: saturating_level_fractions(
                &self.levels,
                self.beta_e_s,
                self.beta_f_s,
            )?,
            startup_s: startup,
            bound,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hand() -> DncModel {
        DncModel {
            levels: vec![
                DncLevelCosts {
                    te_s: 0.5,
                    ts_s: 0.0,
                    tj_s: 0.0,
                    tau_s: 0.0,
                },
                DncLevelCosts {
                    te_s: 1.0,
                    ts_s: 0.1,
                    tj_s: 0.1,
                    tau_s: 0.05,
                },
            ],
            beta_e_s: 0.1,
            beta_f_s: 0.2,
            tasks_m: 10,
            sequential_task_s: None,
        }
    }

    #[test]
    fn speedup_identity_by_hand() {
        // S_2 = 65/33, T_startup = 1.1, T = 1.1 + 9·33/65 = 5.66923…, SP = 10·1/T = 1.76391…
        let p = hand().predict().unwrap();
        assert_eq!(p.bound, Bound::Processors);
        assert!((p.throughput_per_s - 65.0 / 33.0).abs() < 1e-14);
        assert!((p.startup_s - 1.1).abs() < 1e-15);
        let t = 1.1 + 9.0 * 33.0 / 65.0;
        assert!((p.makespan_s - t).abs() < 1e-13);
        assert!((p.speedup - 10.0 / t).abs() < 1e-13);
        // SP = M T_e / (T_startup + (M − 1)/S_N) with the reported quantities.
        let sp = 10.0 * 1.0 / (p.startup_s + 9.0 / p.throughput_per_s);
        assert!((p.speedup - sp).abs() < 1e-14);
        assert!((p.fractions_by_level.iter().sum::<f64>() - 1.0).abs() < 1e-14);
    }

    #[test]
    fn bounds_and_errors() {
        let mut m = hand();
        m.levels[1].tau_s = 1.0;
        // Link limit 1/(1 + 0.1) < 65/33.
        let p = m.predict().unwrap();
        assert_eq!(p.bound, Bound::Link);
        assert!((p.throughput_per_s - 1.0 / 1.1).abs() < 1e-15);
        let mut m = hand();
        m.levels[1].ts_s = 1.0;
        // σ_2 = 1.3: S_1 σ_2 = 5/3·1.3 > 1, the root can pass on only 1/1.3 tasks/s.
        assert_eq!(m.predict().unwrap().bound, Bound::Forwarding);
        let mut m = hand();
        m.tasks_m = 0;
        assert_eq!(m.predict(), Err(ModelError::ZeroTasks));
        let mut m = hand();
        m.beta_f_s = f64::NAN;
        assert!(matches!(
            m.predict(),
            Err(ModelError::InvalidDuration {
                name: "beta_f_s",
                ..
            })
        ));
    }
}
