//! Divide and conquer measured beside its model: one experiment ([`DncExperiment`]) runs the
//! synthetic program (or a real mergesort) on a balanced tree, checks it, measures what the
//! model predicts and compares, with the farm's measurement and error types
//! ([`DncComparison`] is [`FarmComparison`]: the same quantities, no drain).

use std::time::Duration;

use multicomputer_runtime::{Machine, Topology, thread_cpu_time};
use serde::Serialize;
use thiserror::Error;

use super::DncModel;
use super::model::{DncLevelCosts, even_split_levels};
use super::program::{DncError, DncSpec, Splitting, run_mergesort, run_synthetic};
use crate::farm::{Errors, FarmComparison, Measured, ModelError, TreeShape};
use crate::hints::{MachineHints, smallest_nonzero};
use crate::tree::{EngineConfig, engine_events_per_s};

/// A divide-and-conquer run measured beside its model.
pub type DncComparison = FarmComparison;

/// What the tasks are.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum DncKernel {
    /// Emulated split, execute and join times, split equally or at random.
    Synthetic {
        /// How tasks are divided.
        splitting: Splitting,
    },
    /// Real mergesort of `keys` integers per task, checked against the sequential sort.
    Mergesort {
        /// Keys per task.
        keys: usize,
    },
}

/// One divide-and-conquer experiment: whole-task costs (level `i` gets its `k^{N−i}`-th
/// part), the kernel, the engine's overheads and the link cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DncExperiment {
    /// `M`, the number of tasks.
    pub tasks: usize,
    /// `T_e(N)`: sequential time of a whole task.
    pub te: Duration,
    /// `T_s(N)`: time to split a whole task.
    pub ts: Duration,
    /// `T_j(N)`: time to join a whole task's results.
    pub tj: Duration,
    /// Synthetic or mergesort.
    pub kernel: DncKernel,
    /// Bytes of a whole task in a message (subtasks carry their share).
    pub task_bytes: u64,
    /// Seed of mergesort's keys.
    pub seed: u64,
    /// `β_e`: start-up per locally executed (sub)task.
    pub beta_e: Duration,
    /// `β_f`: start-up per split.
    pub beta_f: Duration,
    /// Queue of unprocessed tasks per processor.
    pub queue: usize,
    /// `T_τ(N)`: overlapped transfer time of a whole task's data, seconds.
    pub tau_s: f64,
}

/// Why an experiment failed.
#[derive(Debug, Error)]
pub enum DncCompareError {
    /// The model refused the parameters (or the topology is not a balanced tree).
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The program refused the parameters, or the machine failed.
    #[error(transparent)]
    Run(#[from] DncError),
    /// Mergesort's output differs from the sequential sort (a bug).
    #[error("mergesort's output differs from the sequential sort")]
    Mismatch,
}

/// Reproducible keys for mergesort, `keys` per task: a SplitMix-style hash of the seed, with
/// repeats and negatives.
pub fn mergesort_keys(tasks: usize, keys: usize, seed: u64) -> Vec<Vec<i64>> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (0..tasks)
        .map(|_| {
            (0..keys)
                .map(|_| {
                    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
                    let mut z = x;
                    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                    (z ^ (z >> 31)) as i64 % 1_000_000
                })
                .collect()
        })
        .collect()
}

impl DncExperiment {
    /// The tree's `(k, levels)`: divide and conquer needs a balanced tree or a chain.
    pub fn shape(topology: &Topology) -> Result<TreeShape, ModelError> {
        TreeShape::of(topology).ok_or(ModelError::NeedsTreeShape("divide and conquer"))
    }

    fn model_with(
        &self,
        topology: &Topology,
        whole: DncLevelCosts,
    ) -> Result<DncModel, ModelError> {
        let shape = Self::shape(topology)?;
        Ok(DncModel {
            levels: even_split_levels(shape.k, shape.levels, whole)?,
            beta_e_s: self.beta_e.as_secs_f64(),
            beta_f_s: self.beta_f.as_secs_f64(),
            tasks_m: self.tasks as u64,
            sequential_task_s: None,
        })
    }

    /// The model of this computation on `topology`, with the given whole-task costs.
    pub fn model(&self, topology: &Topology) -> Result<DncModel, ModelError> {
        self.model_with(
            topology,
            DncLevelCosts {
                te_s: self.te.as_secs_f64(),
                ts_s: self.ts.as_secs_f64(),
                tj_s: self.tj.as_secs_f64(),
                tau_s: self.tau_s,
            },
        )
    }

    fn real(&self) -> bool {
        matches!(self.kernel, DncKernel::Mergesort { .. })
    }

    /// What the machine's auto mode should know (see [`crate::farm::FarmExperiment::hints`]):
    /// a piece executed on level `i` is one of `k^{N−i}` of its task.
    pub fn hints(&self, topology: &Topology) -> Result<MachineHints, ModelError> {
        let model = self.model(topology)?;
        let predicted = model.predict()?;
        let k = Self::shape(topology)?.k;
        let n = model.levels.len();
        Ok(MachineHints {
            compute_share: if self.real() { 1.0 } else { 0.0 },
            smallest_cost: smallest_nonzero(&[
                if self.real() {
                    Duration::ZERO
                } else {
                    Duration::from_secs_f64(model.levels[0].te_s)
                },
                Duration::from_secs_f64(model.levels[n.min(2) - 1].ts_s),
                self.beta_e,
                self.beta_f,
            ]),
            events_per_s: engine_events_per_s(
                predicted.throughput_per_s,
                &predicted.fractions_by_level,
                |i| f64::from(k).powi((n - 1 - i) as i32),
            ),
            min_capacity: self.queue.saturating_add(2),
        })
    }

    /// Runs on `machine` and compares with the model. A mergesort's model takes the measured
    /// sequential time of a task as `T_e(N)`; its split and join costs are not known in advance
    /// and are taken as zero.
    pub fn run(&self, machine: &Machine) -> Result<DncComparison, DncCompareError> {
        let topology = machine.topology();
        let model = self.model(topology)?;
        let engine = EngineConfig {
            beta_e: self.beta_e,
            beta_f: self.beta_f,
            queue: self.queue,
            split_limits: None,
        };
        let (run, sequential_s, model) = match self.kernel {
            DncKernel::Mergesort { keys } => {
                let lists = mergesort_keys(self.tasks, keys, self.seed);
                let before = thread_cpu_time();
                let expected: Vec<Vec<i64>> = lists
                    .iter()
                    .map(|l| {
                        let mut s = l.clone();
                        s.sort_unstable();
                        s
                    })
                    .collect();
                let sequential_s = thread_cpu_time().saturating_sub(before).as_secs_f64();
                let run = run_mergesort(machine, lists, 2, &engine)?;
                if !run.engine.outputs.iter().map(|k| &k.0).eq(expected.iter()) {
                    return Err(DncCompareError::Mismatch);
                }
                let whole = DncLevelCosts {
                    te_s: sequential_s / self.tasks as f64,
                    ts_s: 0.0,
                    tj_s: 0.0,
                    tau_s: self.tau_s,
                };
                (
                    run.engine.map_outputs(),
                    sequential_s,
                    self.model_with(topology, whole)?,
                )
            }
            DncKernel::Synthetic { splitting } => {
                let per_level = |f: fn(&DncLevelCosts) -> f64| {
                    model
                        .levels
                        .iter()
                        .map(|l| Duration::from_secs_f64(f(l)))
                        .collect()
                };
                let spec = DncSpec {
                    tasks: self.tasks,
                    te: per_level(|l| l.te_s),
                    ts: per_level(|l| l.ts_s),
                    tj: per_level(|l| l.tj_s),
                    splitting,
                    task_bytes: self.task_bytes,
                    result_bytes: 8,
                };
                let run = run_synthetic(machine, &spec, &engine)?;
                let sequential_s = self.tasks as f64 * self.te.as_secs_f64();
                (run.engine.map_outputs(), sequential_s, model)
            }
        };
        let predicted = model.predict()?;
        let measured = Measured::of(&run, topology, 1.0, sequential_s);
        let errors_pct = Errors::between(&measured, &predicted);
        Ok(DncComparison {
            topology: topology.to_string(),
            processors: topology.len(),
            error_pct: errors_pct.speedup,
            errors_pct,
            measured,
            predicted,
            drain: None,
            fidelity: run.report.fidelity.clone(),
            mode: machine.mode(),
            dilation: machine.dilation(),
            wall_s: run.report.wall_s(),
            trace: run.trace,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn experiment() -> DncExperiment {
        DncExperiment {
            tasks: 10,
            te: Duration::from_millis(8),
            ts: Duration::from_micros(200),
            tj: Duration::from_micros(200),
            kernel: DncKernel::Synthetic {
                splitting: Splitting::Equal,
            },
            task_bytes: 1024,
            seed: 1,
            beta_e: Duration::from_micros(50),
            beta_f: Duration::from_micros(100),
            queue: 1,
            tau_s: 0.0,
        }
    }

    #[test]
    fn the_model_splits_whole_task_costs_by_level() {
        let m = experiment().model(&"binary:3".parse().unwrap()).unwrap();
        // Level 1 (leaves) gets a quarter of T_e(3) = 8 ms, the root all of it.
        assert!((m.levels[0].te_s - 2e-3).abs() < 1e-15);
        assert!((m.levels[2].te_s - 8e-3).abs() < 1e-15);
        assert!((m.levels[1].ts_s - 100e-6).abs() < 1e-15);
    }

    #[test]
    fn parent_relations_are_refused() {
        let t = Topology::from_parents(vec![None, Some(0), Some(0), Some(1)]).unwrap();
        assert!(matches!(
            experiment().model(&t),
            Err(ModelError::NeedsTreeShape(_))
        ));
    }

    #[test]
    fn events_count_pieces_per_level() {
        let t: Topology = "binary:2".parse().unwrap();
        let e = experiment();
        let h = e.hints(&t).unwrap();
        let p = e.model(&t).unwrap().predict().unwrap();
        // Leaves execute halves (2 pieces per task) that crossed one link: 1 + 3 events each.
        let want =
            p.throughput_per_s * (p.fractions_by_level[0] * 2.0 * 4.0 + p.fractions_by_level[1]);
        assert!((h.events_per_s.unwrap() - want).abs() < 1e-9 * want);
        assert_eq!(h.min_capacity, 3);
        assert_eq!(h.smallest_cost, Some(Duration::from_micros(50)));
    }

    #[test]
    fn keys_are_reproducible_and_bounded() {
        let a = mergesort_keys(2, 100, 7);
        assert_eq!(a, mergesort_keys(2, 100, 7));
        assert_ne!(a, mergesort_keys(2, 100, 8));
        assert!(a.iter().flatten().all(|k| k.abs() < 1_000_000));
        assert!(a.iter().flatten().any(|k| *k < 0));
    }
}
