//! The farm model as one configuration, and its prediction.

use serde::{Deserialize, Serialize};

use super::model::{FarmCosts, saturating_level_fractions, saturating_unchecked};
use super::tree::{ProcessorCosts, flood_fill_tree};
use super::{ModelError, check_duration, check_work};
use crate::tree::{Bound, Prediction};
use crate::tree::{Tree, TreeShape};

/// The processor topology of a farm.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum FarmTopology {
    /// A balanced `k`-ary tree (`k = 1`: a chain) of identical processors.
    Tree(TreeShape),
    /// Any tree, as a parent relation (index = processor, `None` = root).
    Parents {
        /// `parents[i]`: the parent of processor `i`.
        parents: Vec<Option<usize>>,
        /// Per-processor task time `T_e(p)` (seconds) for heterogeneous processors; `None`:
        /// every processor takes the model's `te_s`.
        #[serde(default)]
        processor_te_s: Option<Vec<f64>>,
    },
}

/// A processor farm: topology, costs and workload. All durations in seconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FarmModel {
    /// The processors and their parent relation.
    pub topology: FarmTopology,
    /// `T_e`: compute time of one task (the sequential reference of the speedup).
    pub te_s: f64,
    /// `β_e`: non-overlapped start-up per message executed locally.
    pub beta_e_s: f64,
    /// `β_f`: non-overlapped start-up per message forwarded (and its result returned).
    pub beta_f_s: f64,
    /// `T_τ`: overlapped transfer time of one task's data over a link.
    pub tau_s: f64,
    /// `M`: number of tasks.
    pub tasks_m: u64,
    /// Tasks per message `g` (§5); 1 = the paper's §3 model.
    pub granularity: u32,
}

impl FarmModel {
    /// Checks every parameter.
    pub fn validate(&self) -> Result<(), ModelError> {
        check_work("te_s", self.te_s)?;
        check_duration("beta_e_s", self.beta_e_s)?;
        check_duration("beta_f_s", self.beta_f_s)?;
        check_duration("tau_s", self.tau_s)?;
        if self.tasks_m == 0 {
            return Err(ModelError::ZeroTasks);
        }
        if self.granularity == 0 {
            return Err(ModelError::ZeroGranularity);
        }
        match &self.topology {
            FarmTopology::Tree(shape) => shape.validate(),
            FarmTopology::Parents {
                parents,
                processor_te_s,
            } => {
                Tree::new(parents)?;
                if let Some(te) = processor_te_s {
                    if te.len() != parents.len() {
                        return Err(ModelError::LengthMismatch(format!(
                            "{} processor times for {} processors",
                            te.len(),
                            parents.len()
                        )));
                    }
                    for t in te {
                        check_work("processor_te_s", *t)?;
                    }
                }
                Ok(())
            }
        }
    }

    /// Number of messages `⌈M/g⌉`.
    pub fn messages(&self) -> u64 {
        self.tasks_m.div_ceil(u64::from(self.granularity.max(1)))
    }

    /// Predicts throughput, speedup, execution time, per-level fractions and start-up.
    ///
    /// With granularity `g` (§5) the unit of scheduling is a message of `g` tasks: its compute
    /// time is `g T_e`, its transfer time `g T_τ` (transfer grows with message size) and it pays
    /// `β_e` or `β_f` once, so the start-ups are amortised over `g` tasks. The steady state is
    /// the saturating flood-fill model (equal to (d)/(f) whenever all `f_i ≥ 0`), capped by the
    /// link limit `1/(g T_τ + β_e)` messages/s; the start-up is
    /// `(N − 1)(2 g T_τ + β_f) + g T_e + β_e` and the execution time (g) counts `⌈M/g⌉`
    /// messages (a short last message is charged as a full one).
    ///
    /// For a parent relation the start-up is taken along the slowest root-to-leaf path:
    /// `max_leaf [depth(leaf)(2 g T_τ + β_f) + g T_e(leaf) + β_e]`.
    pub fn predict(&self) -> Result<Prediction, ModelError> {
        self.validate()?;
        let g = f64::from(self.granularity);
        let tau_msg_s = g * self.tau_s;
        let (msg_rate, fractions_by_level, startup_s, mut bound) = match &self.topology {
            FarmTopology::Tree(shape) => {
                let costs = FarmCosts {
                    te_s: g * self.te_s,
                    beta_e_s: self.beta_e_s,
                    beta_f_s: self.beta_f_s,
                };
                let (s, fwd) = saturating_unchecked(*shape, &costs);
                let k = f64::from(shape.k);
                let saturated = s
                    .iter()
                    .zip(fwd.iter().skip(1))
                    .any(|(below, f)| k * below > *f * (1.0 + 1e-12));
                let startup = f64::from(shape.levels - 1) * (2.0 * tau_msg_s + self.beta_f_s)
                    + costs.local_s();
                (
                    s[s.len() - 1],
                    saturating_level_fractions(*shape, &costs)?,
                    startup,
                    if saturated {
                        Bound::Forwarding
                    } else {
                        Bound::Processors
                    },
                )
            }
            FarmTopology::Parents {
                parents,
                processor_te_s,
            } => {
                let te: Vec<f64> = match processor_te_s {
                    Some(te) => te.iter().map(|t| g * t).collect(),
                    None => vec![g * self.te_s; parents.len()],
                };
                let costs: Vec<ProcessorCosts> =
                    te.iter().map(|t| ProcessorCosts::farm(*t)).collect();
                let sol = flood_fill_tree(parents, &costs, self.beta_e_s, self.beta_f_s)?;
                let tree = Tree::new(parents)?;
                let startup = (0..parents.len())
                    .filter(|&p| tree.children[p].is_empty())
                    .map(|p| {
                        f64::from(tree.depth[p]) * (2.0 * tau_msg_s + self.beta_f_s)
                            + te[p]
                            + self.beta_e_s
                    })
                    .fold(0.0, f64::max);
                let bound = if sol.saturated.iter().any(|s| *s) {
                    Bound::Forwarding
                } else {
                    Bound::Processors
                };
                (sol.throughput_per_s, sol.fractions_by_level, startup, bound)
            }
        };
        let link_rate = 1.0 / (tau_msg_s + self.beta_e_s);
        let msg_rate = if link_rate < msg_rate {
            bound = Bound::Link;
            link_rate
        } else {
            msg_rate
        };
        let makespan_s = startup_s + (self.messages() - 1) as f64 / msg_rate;
        Ok(Prediction {
            throughput_per_s: g * msg_rate,
            speedup: self.tasks_m as f64 * self.te_s / makespan_s,
            makespan_s,
            fractions_by_level,
            startup_s,
            bound,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::model::{speedup_closed_form, startup_s, throughput_closed_form_per_s};
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * a.abs().max(b.abs()).max(1e-300)
    }

    fn binary(levels: u32) -> FarmModel {
        FarmModel {
            topology: FarmTopology::Tree(TreeShape { k: 2, levels }),
            te_s: 1e-3,
            beta_e_s: 5e-5,
            beta_f_s: 1e-4,
            tau_s: 2e-5,
            tasks_m: 5000,
            granularity: 1,
        }
    }

    #[test]
    fn predict_agrees_with_closed_forms_when_unsaturated() {
        let m = binary(3);
        let p = m.predict().unwrap();
        let costs = FarmCosts {
            te_s: m.te_s,
            beta_e_s: m.beta_e_s,
            beta_f_s: m.beta_f_s,
        };
        let shape = TreeShape { k: 2, levels: 3 };
        assert_eq!(p.bound, Bound::Processors);
        assert!(close(
            p.throughput_per_s,
            throughput_closed_form_per_s(shape, &costs).unwrap(),
            1e-12
        ));
        let t0 = startup_s(3, m.tau_s, &costs).unwrap();
        assert!(close(p.startup_s, t0, 1e-15));
        assert!(close(
            p.speedup,
            speedup_closed_form(shape, &costs, m.tasks_m, t0).unwrap(),
            1e-10
        ));
        // The speedup identity SP = M T_e / (T_startup + (M − 1)/S_N).
        let sp = m.tasks_m as f64 * m.te_s / (p.startup_s + 4999.0 / p.throughput_per_s);
        assert!(close(p.speedup, sp, 1e-12));
        assert!(close(p.fractions_by_level.iter().sum(), 1.0, 1e-12));
    }

    #[test]
    fn parents_topology_equals_tree_shape() {
        let m = binary(4);
        let parents: Vec<Option<usize>> = (0..15)
            .map(|i| if i == 0 { None } else { Some((i - 1) / 2) })
            .collect();
        let q = FarmModel {
            topology: FarmTopology::Parents {
                parents,
                processor_te_s: None,
            },
            ..m.clone()
        };
        let (a, b) = (m.predict().unwrap(), q.predict().unwrap());
        assert!(close(a.throughput_per_s, b.throughput_per_s, 1e-12));
        assert!(close(a.startup_s, b.startup_s, 1e-15));
        assert!(close(a.makespan_s, b.makespan_s, 1e-12));
        for (x, y) in a.fractions_by_level.iter().zip(&b.fractions_by_level) {
            assert!((x - y).abs() < 1e-12);
        }
    }

    #[test]
    fn bounds_are_reported() {
        // A deep binary tree saturates the root's forwarding: throughput ≈ 1/β_f.
        let p = binary(8).predict().unwrap();
        assert_eq!(p.bound, Bound::Forwarding);
        assert!(p.throughput_per_s <= 1.0 / 1e-4 * (1.0 + 1e-12));
        // A slow link caps it at 1/(T_τ + β_e).
        let slow = FarmModel {
            tau_s: 1e-3,
            ..binary(3)
        };
        let p = slow.predict().unwrap();
        assert_eq!(p.bound, Bound::Link);
        assert!(close(p.throughput_per_s, 1.0 / (1e-3 + 5e-5), 1e-12));
    }

    #[test]
    fn granularity_amortises_start_ups() {
        // g = 4: messages of 4 tasks; β paid once per 4 tasks, so throughput per task rises.
        let base = FarmModel {
            topology: FarmTopology::Tree(TreeShape { k: 1, levels: 8 }),
            beta_f_s: 3e-4,
            ..binary(1)
        };
        let g4 = FarmModel {
            granularity: 4,
            ..base.clone()
        };
        let (p1, p4) = (base.predict().unwrap(), g4.predict().unwrap());
        assert!(p4.throughput_per_s > p1.throughput_per_s);
        // Hand check of g = 4 on the chain: message costs T_e' = 4 ms, T_τ' = 80 µs;
        // start-up 7·(160 µs + 300 µs) + 4 ms + 50 µs = 7.27 ms.
        assert!(close(p4.startup_s, 7.0 * 460e-6 + 4.05e-3, 1e-12));
        assert_eq!(g4.messages(), 1250);
        assert!(close(
            p4.makespan_s,
            p4.startup_s + 1249.0 / (p4.throughput_per_s / 4.0),
            1e-12
        ));
    }

    #[test]
    fn heterogeneous_startup_uses_slowest_path() {
        let m = FarmModel {
            topology: FarmTopology::Parents {
                parents: vec![None, Some(0), Some(0), Some(2)],
                processor_te_s: Some(vec![1e-3, 5e-3, 1e-3, 1e-3]),
            },
            ..binary(1)
        };
        // Leaves: 1 at depth 1 (T_e 5 ms), 3 at depth 2 (T_e 1 ms).
        // max(1·(40 + 100) µs + 5.05 ms, 2·140 µs + 1.05 ms) = 5.19 ms.
        let p = m.predict().unwrap();
        assert!(close(p.startup_s, 5.19e-3, 1e-12));
        assert_eq!(p.fractions_by_level.len(), 3);
    }

    #[test]
    fn invalid_configs_are_typed_errors() {
        let mut m = binary(2);
        m.tasks_m = 0;
        assert_eq!(m.predict(), Err(ModelError::ZeroTasks));
        let mut m = binary(2);
        m.granularity = 0;
        assert_eq!(m.predict(), Err(ModelError::ZeroGranularity));
        let mut m = binary(2);
        m.topology = FarmTopology::Tree(TreeShape { k: 0, levels: 2 });
        assert_eq!(m.predict(), Err(ModelError::ZeroArity));
        let mut m = binary(2);
        m.tau_s = -1.0;
        assert!(matches!(
            m.predict(),
            Err(ModelError::InvalidDuration { name: "tau_s", .. })
        ));
        let mut m = binary(2);
        m.topology = FarmTopology::Parents {
            parents: vec![None, Some(0)],
            processor_te_s: Some(vec![1e-3]),
        };
        assert!(matches!(m.predict(), Err(ModelError::LengthMismatch(_))));
    }
}
