//! Divide and conquer measured beside its model: one experiment ([`DncExperiment`]) runs the
//! synthetic program (or a real mergesort) on a balanced tree, or the synthetic program on the
//! breadth-first spanning tree of any other network, checks it, measures what the model
//! predicts and compares, with the tree engine's measurement and error types
//! ([`DncComparison`] is the tree engine's [`Comparison`]).

use std::time::Duration;

use multicomputer_runtime::{Charging, LinkCost, Machine, Payload, Topology, Work};
use serde::Serialize;
use thiserror::Error;

use super::DncModel;
use super::model::{DncLevelCosts, even_split_levels};
use super::program::{
    COMPARISON, DncError, DncSpec, KEY_MOVE, Keys, MergeSort, Splitting, mergesort, run_mergesort,
    run_synthetic,
};
use super::tree::DncTreeModel;
use crate::hints::{Hints, smallest_nonzero};
use crate::tree::{
    Bound, Comparison, EngineConfig, Job, Measured, Message, MissingTerm, ModelError, Prediction,
    Tree, TreeShape, engine_events_per_s,
};

/// A divide-and-conquer run measured beside its model.
pub type DncComparison = Comparison;

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

/// What a run's model is built from, level by level, for sizing the terms it leaves out:
/// the same on a balanced tree (the level model) and on the spanning tree of any other
/// network (the per-processor model, whose split and join costs are those of its levels).
struct ModelInputs<'a> {
    /// The program's costs by level (element `i − 1` = level `i`, 1 + a subtree's height).
    levels: &'a [DncLevelCosts],
    /// `β_e`, seconds.
    beta_e_s: f64,
    /// `β_f`, seconds.
    beta_f_s: f64,
    /// `M`.
    tasks_m: u64,
    /// A queue of one piece a processor on a tree whose siblings absorb unequally
    /// ([`DncTreeModel::uneven_demand`]).
    starves: bool,
}

/// The terms the run paid that its model leaves out, each with its size: the one list every
/// divide-and-conquer comparison reports, on any tree.
fn missing_terms(
    inputs: &ModelInputs<'_>,
    predicted: &Prediction,
    measured: &Measured,
) -> Vec<MissingTerm> {
    forwarding_level_execution(inputs, predicted, measured)
        .into_iter()
        .chain(idle_level_execution(inputs, predicted, measured))
        .chain(steady_state_starvation(inputs, predicted, measured))
        .collect()
}

/// The time a forwarding-bound level spent executing tasks itself, which the model leaves out.
///
/// When forwarding bounds the throughput (the paper's `S_max` (k)), the model lets no
/// intermediate level execute: "the intermediate nodes should not be used for processing
/// subtasks as this will not increase the throughput" (§3.3.1). The engine's flood fill does
/// let them execute whenever no child is asking for work, and on the level whose
/// `T_s(i) + T_j(i)` is largest — the one that sets `t_max` — that time is taken from
/// forwarding, so it adds to the makespan: each of its processors executes its part of
/// `(f_b − f̂_b) M` tasks at `T_e(b) + β_e` each (every task visits every processor of a level
/// once; on another network's spanning tree the level with the largest `T_s + T_j` is the
/// root's, alone on its level). `None` when the bound is not forwarding or the level executed
/// no more than predicted.
fn forwarding_level_execution(
    inputs: &ModelInputs<'_>,
    predicted: &Prediction,
    measured: &Measured,
) -> Option<MissingTerm> {
    if predicted.bound != Bound::Forwarding || inputs.levels.len() < 2 {
        return None;
    }
    let i = forwarding_bound_level(inputs.levels)?;
    let level = &inputs.levels[i];
    let excess = measured.fractions_by_level.get(i)? - predicted.fractions_by_level.get(i)?;
    if excess <= 0.0 {
        return None;
    }
    let time_s = excess * inputs.tasks_m as f64 * (level.te_s + inputs.beta_e_s);
    Some(MissingTerm::new(
        format!(
            "execution on forwarding level {} ({:.1} % of the tasks)",
            i + 1,
            100.0 * excess
        ),
        time_s,
        predicted,
    ))
}

/// Idle time in the steady state, which the model assumes away: "processors are never idle
/// as long as there are unprocessed tasks in the system" (§3.1), kept in the paper's runs by
/// a queue "large enough to supply a steady stream of tasks" (§4.1).
///
/// On a tree whose siblings absorb unequally, a child takes more than one part of each of
/// its parent's splits; with a queue of one piece the parent holds one split's parts and
/// asks for its next piece only when it splits this one, so the fast child drains the parts
/// and waits for the next piece's way down. (A split's join waits for its slowest part, but
/// holds up nothing: a processor splits its next piece meanwhile.) With a queue of two the
/// steady state is the model's within 0.15 % on the same trees (docs/results/user-programs.md).
/// The term is the measured steady rate's shortfall over the `M − 1` intervals of (g):
/// `(M − 1)(1/S_steady − 1/S)`. Only when processors bound the throughput (under a
/// forwarding bound the forwarding level's own execution is the term); `None` when the
/// steady state keeps up with the model.
fn steady_state_starvation(
    inputs: &ModelInputs<'_>,
    predicted: &Prediction,
    measured: &Measured,
) -> Option<MissingTerm> {
    if !inputs.starves || predicted.bound != Bound::Processors {
        return None;
    }
    let shortfall_s = 1.0 / measured.steady_throughput_per_s - 1.0 / predicted.throughput_per_s;
    // (NaN, from a run too short for a steady rate, is no shortfall.)
    if shortfall_s.is_nan() || shortfall_s <= 0.0 {
        return None;
    }
    Some(MissingTerm::new(
        format!(
            "idling in the steady state, {:.1} % below the model's rate (a queue of 1 \
             on uneven fan-outs; try --queue 2)",
            100.0 * (1.0 - measured.steady_throughput_per_s / predicted.throughput_per_s)
        ),
        inputs.tasks_m.saturating_sub(1) as f64 * shortfall_s,
        predicted,
    ))
}

/// Execution on the intermediate levels that do not bound the throughput, which the model's
/// fractions leave out (it puts every task below the forwarding level that bounds it).
///
/// The engine's flood fill lets a processor execute a piece whenever none of its children asks
/// for work. On a level that forwarding does not bound, that happens in the time it would
/// otherwise wait, so it moves work between levels without lengthening the run: each such level
/// is named with its share of the tasks and how busy it was, forwarding the pieces executed
/// below it (`T_s(i) + T_j(i) + β_f` each) and executing its own (`T_e(i) + β_e` each), over
/// the measured makespan. Only where that exceeds the makespan does the excess add to it.
/// Empty when the bound is not forwarding.
fn idle_level_execution(
    inputs: &ModelInputs<'_>,
    predicted: &Prediction,
    measured: &Measured,
) -> Vec<MissingTerm> {
    if predicted.bound != Bound::Forwarding {
        return Vec::new();
    }
    let bound = forwarding_bound_level(inputs.levels);
    let m = inputs.tasks_m as f64;
    let f = &measured.fractions_by_level;
    let mut terms = Vec::new();
    for (i, level) in inputs.levels.iter().enumerate().skip(1) {
        let (Some(&measured_f), Some(&predicted_f)) =
            (f.get(i), predicted.fractions_by_level.get(i))
        else {
            continue;
        };
        let excess = measured_f - predicted_f;
        if Some(i) == bound || excess <= 0.0 {
            continue;
        }
        let forwarded: f64 = f[..i].iter().sum();
        let busy_s = m
            * (forwarded * (level.ts_s + level.tj_s + inputs.beta_f_s)
                + measured_f * (level.te_s + inputs.beta_e_s));
        let share = busy_s / measured.makespan_s;
        terms.push(MissingTerm::new(
            format!(
                "execution on level {} {} ({:.1} % of the tasks; busy {:.0} % of the run)",
                i + 1,
                if share <= 1.0 {
                    "in its idle time"
                } else {
                    "beyond its idle time"
                },
                100.0 * excess,
                100.0 * share,
            ),
            (busy_s - measured.makespan_s).max(0.0),
            predicted,
        ));
    }
    terms
}

/// The intermediate level whose `T_s(i) + T_j(i)` is largest: under forwarding, the one that
/// sets `t_max`.
fn forwarding_bound_level(levels: &[DncLevelCosts]) -> Option<usize> {
    levels
        .iter()
        .enumerate()
        .skip(1)
        .max_by(|a, b| (a.1.ts_s + a.1.tj_s).total_cmp(&(b.1.ts_s + b.1.tj_s)))
        .map(|(i, _)| i)
}

/// Lists shorter than this are sorted where they are, not split.
pub const MIN_SPLIT: usize = 2;

/// The fewest lists whose pieces [`mergesort_levels`] times.
const SAMPLE_LISTS: usize = 3;

/// Keys [`mergesort_levels`] samples at least (more lists than [`SAMPLE_LISTS`] when they are
/// short): about 20 ms of sorting on the development host.
const SAMPLE_KEYS: usize = 1 << 18;

/// The per-level costs of mergesort on a balanced `shape`, from the program itself: level `i`
/// receives the first piece of a level-`i + 1` split (the root receives whole lists), and
///
/// - `T_e(i)` is the mergesort of such a piece,
/// - `T_s(i)` its split into `k` pieces (the keys copied into the pieces after the first),
/// - `T_j(i)` the join of the `k` sorted pieces (successive two-way merges), and
/// - `T_τ(i)` the overlapped transfer of its message (a header and 8 bytes a key) under the
///   machine's `link`: latency plus τ per byte. A result has the size of its task, so the
///   model's `2 T_τ(i)` per level is exact.
///
/// Costs are charged as `charger` charges (time on its clock, or declared comparisons and key
/// moves at their costs), averaged over the first lists: at least `SAMPLE_LISTS`, and at
/// least `SAMPLE_KEYS` keys. Each operation is timed once, on its own copy of a distinct
/// list, as the machine runs it: timing the same short list again and again measures warm
/// caches and a branch predictor that has learned the list (1.2–1.8 times too fast below
/// 3000 keys on the development host, against the sequential program's time per list).
/// Level 1 (the leaves) never splits: its `T_s` and `T_j` are zero.
pub fn mergesort_levels(
    lists: &[Vec<i64>],
    shape: TreeShape,
    charger: &Charging,
    link: &LinkCost,
) -> Vec<DncLevelCosts> {
    let n = shape.levels as usize;
    let k = shape.k as usize;
    let job = MergeSort {
        min_split: MIN_SPLIT,
    };
    let mut keys = 0;
    let taken = lists
        .iter()
        .position(|l| {
            keys += l.len();
            keys >= SAMPLE_KEYS
        })
        .map_or(lists.len(), |i| i + 1)
        .max(SAMPLE_LISTS)
        .min(lists.len());
    let sample = &lists[..taken];
    let mut sums = vec![[0.0; 4]; n];
    // Level by level, so that no level is timed on data the one above has just sorted.
    for level in (1..=n).rev() {
        let costs = &mut sums[level - 1];
        for piece in sample
            .iter()
            .filter_map(|l| piece_at(l, n - level, k, &job))
        {
            let mut copy = piece.clone();
            costs[0] += charger.run_s(|w| mergesort(&mut copy, w)).1;
            costs[3] += link.transfer_s(task_message_bytes(piece.len()));
            if level == 1 {
                continue;
            }
            let copy = Keys(piece);
            let (split, ts) = charger.run_s(|w| job.split(copy, k, w));
            costs[1] += ts;
            // Too short to split: it is executed where it is.
            let Ok(mut parts) = split else { continue };
            // The join merges the children's results: the parts, sorted.
            for p in &mut parts {
                mergesort(&mut p.0, &mut Work::default());
            }
            costs[2] += charger.run_s(|w| job.join(parts, w)).1;
        }
    }
    if k == 1 {
        // Split one way, every level receives the whole list: its sort is the root's, and
        // timing it again per level would add only noise (a leaf faster than its root would
        // put the model above the sequential time / P).
        let root = sums[n - 1][0];
        for level in &mut sums {
            level[0] = root;
        }
    }
    let count = sample.len().max(1) as f64;
    sums.into_iter()
        .map(|[te, ts, tj, tau]| DncLevelCosts {
            te_s: te / count,
            ts_s: ts / count,
            tj_s: tj / count,
            tau_s: tau / count,
        })
        .collect()
}

/// The piece of `list` that a processor `splits` levels below the root receives: the first
/// part of each split, as sent (unsorted); `None` if a split above leaves it where it is.
fn piece_at(list: &[i64], splits: usize, k: usize, job: &MergeSort) -> Option<Vec<i64>> {
    let mut piece = list.to_vec();
    for _ in 0..splits {
        let parts = job.split(Keys(piece), k, &mut Work::default()).ok()?;
        piece = parts.into_iter().next()?.0;
    }
    Some(piece)
}

/// Bytes of the engine's message carrying a task of `keys` keys (or its result, as long).
fn task_message_bytes(keys: usize) -> u64 {
    Message::<Keys, Keys>::Task {
        key: 0,
        task: Keys(vec![0; keys]),
    }
    .size_bytes()
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
    /// The seed of this program's random draws, if it draws any: mergesort's keys or random
    /// splitting. (Repeated runs draw afresh from `seed + run index`.)
    pub fn seed(&self) -> Option<u64> {
        match self.kernel {
            DncKernel::Mergesort { .. } => Some(self.seed),
            DncKernel::Synthetic {
                splitting: Splitting::Random { seed },
            } => Some(seed),
            DncKernel::Synthetic {
                splitting: Splitting::Equal,
            } => None,
        }
    }

    /// This program with its draws (keys and random splits) from `seed`.
    pub fn reseeded(&self, seed: u64) -> Self {
        let mut e = self.clone();
        e.seed = seed;
        if let DncKernel::Synthetic {
            splitting: Splitting::Random { seed: s },
        } = &mut e.kernel
        {
            *s = seed;
        }
        e
    }

    /// The tree's `(k, levels)`: divide and conquer needs a balanced tree or a chain.
    pub fn shape(topology: &Topology) -> Result<TreeShape, ModelError> {
        TreeShape::of(topology).ok_or(ModelError::NeedsTreeShape("divide and conquer"))
    }

    /// The whole task's costs.
    fn whole(&self) -> DncLevelCosts {
        DncLevelCosts {
            te_s: self.te.as_secs_f64(),
            ts_s: self.ts.as_secs_f64(),
            tj_s: self.tj.as_secs_f64(),
            tau_s: self.tau_s,
        }
    }

    /// The model of this computation on `topology`, a balanced tree or a chain.
    pub fn model(&self, topology: &Topology) -> Result<DncModel, ModelError> {
        let shape = Self::shape(topology)?;
        Ok(DncModel {
            levels: even_split_levels(shape.k, shape.levels, self.whole())?,
            beta_e_s: self.beta_e.as_secs_f64(),
            beta_f_s: self.beta_f.as_secs_f64(),
            tasks_m: self.tasks as u64,
            sequential_task_s: None,
        })
    }

    /// The largest fan-out of `topology`'s spanning tree (at least 1).
    fn arity(topology: &Topology) -> u32 {
        let most = (0..topology.len())
            .map(|i| topology.children(i).len())
            .max()
            .unwrap_or(0);
        u32::try_from(most).unwrap_or(u32::MAX).max(1)
    }

    /// The synthetic program's per-level costs on `topology`: those of a balanced tree of its
    /// height and its largest fan-out `k` ([`even_split_levels`]). A processor of level `i`
    /// (1 + the height of its subtree) splits in `T_s(i)` and joins in `T_j(i)`; a piece
    /// executes in `T_e(N)` times its share of the task, which on a balanced tree is `T_e(i)`.
    fn program_levels(&self, topology: &Topology) -> Result<Vec<DncLevelCosts>, ModelError> {
        even_split_levels(Self::arity(topology), topology.levels(), self.whole())
    }

    /// The model of the synthetic program on the spanning tree of any `topology`
    /// ([`DncTreeModel`]): each processor's `T_s` and `T_j` those of its level (1 + the height
    /// of its subtree) on a balanced tree of the network's height and largest fan-out
    /// ([`even_split_levels`]), its `T_e` and `T_τ` the whole task's times the share of the
    /// task its pieces carry (a split divides a piece equally among the splitter's children).
    pub fn tree_model(&self, topology: &Topology) -> Result<DncTreeModel, ModelError> {
        let levels = self.program_levels(topology)?;
        let tree = Tree::new(topology.parents())?;
        let whole = self.whole();
        let mut share = vec![1.0; topology.len()];
        for &p in &tree.order {
            for &c in &tree.children[p] {
                share[c] = share[p] / tree.children[p].len() as f64;
            }
        }
        let costs = (0..topology.len())
            .map(|p| {
                let level = levels[tree.levels[p] as usize - 1];
                DncLevelCosts {
                    te_s: whole.te_s * share[p],
                    tau_s: whole.tau_s * share[p],
                    ..level
                }
            })
            .collect();
        Ok(DncTreeModel {
            parents: topology.parents().to_vec(),
            costs,
            beta_e_s: self.beta_e.as_secs_f64(),
            beta_f_s: self.beta_f.as_secs_f64(),
            tasks_m: self.tasks as u64,
            sequential_task_s: None,
        })
    }

    /// The prediction on `topology`: the paper's level model ([`DncModel`]) on a balanced tree
    /// or a chain used from its root, the per-processor model of its spanning tree
    /// ([`DncTreeModel`]) on any other network.
    pub fn predict(&self, topology: &Topology) -> Result<Prediction, ModelError> {
        match Self::shape(topology) {
            Ok(_) => self.model(topology)?.predict(),
            Err(_) => self.tree_model(topology)?.predict(),
        }
    }

    fn real(&self) -> bool {
        matches!(self.kernel, DncKernel::Mergesort { .. })
    }

    /// What the machine's auto mode should know (see [`crate::farm::FarmExperiment::hints`]):
    /// a piece executed on level `i` is one of `k^{N−i}` of its task.
    pub fn hints(&self, topology: &Topology) -> Result<Hints, ModelError> {
        let levels = self.program_levels(topology)?;
        let predicted = self.predict(topology)?;
        let k = Self::arity(topology);
        let n = levels.len();
        Ok(Hints {
            compute_share: if self.real() { 1.0 } else { 0.0 },
            smallest_cost: smallest_nonzero(&[
                if self.real() {
                    Duration::ZERO
                } else {
                    Duration::from_secs_f64(levels[0].te_s)
                },
                Duration::from_secs_f64(levels[n.min(2) - 1].ts_s),
                self.beta_e,
                self.beta_f,
            ]),
            events_per_s: engine_events_per_s(
                predicted.throughput_per_s,
                &predicted.fractions_by_level,
                |i| f64::from(k).powi((n - 1 - i) as i32),
            ),
            min_capacity: self.queue.saturating_add(2),
            units: if self.real() {
                vec![COMPARISON, KEY_MOVE]
            } else {
                Vec::new()
            },
        })
    }

    /// Runs on `machine` and compares with the model.
    ///
    /// A mergesort is modelled by the program that runs: its baseline is the same top-down
    /// mergesort run sequentially, and its per-level `T_e(i)`, `T_s(i)`, `T_j(i)` and
    /// `T_τ(i)` are those of the pieces each level receives ([`mergesort_levels`]), all
    /// charged as the machine charges real work ([`Machine::charging`]).
    pub fn run(&self, machine: &Machine) -> Result<DncComparison, DncCompareError> {
        let topology = machine.topology();
        let engine = EngineConfig {
            beta_e: self.beta_e,
            beta_f: self.beta_f,
            queue: self.queue,
            split_limits: None,
        };
        // The run, its sequential time, the model's costs by level, whether the flow control
        // can starve (queue of one on uneven demand), and the prediction.
        let (run, sequential_s, levels, starves, predicted) = match self.kernel {
            DncKernel::Mergesort { keys } => {
                let shape = TreeShape::of(topology).ok_or(ModelError::NeedsTreeShape(
                    "a mergesort's model (its costs are sampled level by level)",
                ))?;
                let lists = mergesort_keys(self.tasks, keys, self.seed);
                let charger = machine.charging();
                // The baseline: the same mergesort, one list after the other.
                let mut expected = lists.clone();
                let ((), sequential_s) = charger.run_s(|w| {
                    for list in &mut expected {
                        mergesort(list, w);
                    }
                });
                let levels = mergesort_levels(&lists, shape, charger, &machine.spec().link);
                let run = run_mergesort(machine, lists, MIN_SPLIT, &engine)?;
                if !run.engine.outputs.iter().map(|k| &k.0).eq(expected.iter()) {
                    return Err(DncCompareError::Mismatch);
                }
                let model = DncModel {
                    levels,
                    beta_e_s: self.beta_e.as_secs_f64(),
                    beta_f_s: self.beta_f.as_secs_f64(),
                    tasks_m: self.tasks as u64,
                    sequential_task_s: Some(sequential_s / self.tasks as f64),
                };
                let predicted = model.predict()?;
                (
                    run.engine.map_outputs(),
                    sequential_s,
                    model.levels,
                    false,
                    predicted,
                )
            }
            DncKernel::Synthetic { splitting } => {
                let predicted = self.predict(topology)?;
                let levels = self.program_levels(topology)?;
                let per_level = |f: fn(&DncLevelCosts) -> f64| {
                    levels
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
                let starves = self.queue == 1
                    && Self::shape(topology).is_err()
                    && self.tree_model(topology)?.uneven_demand()?;
                (
                    run.engine.map_outputs(),
                    sequential_s,
                    levels,
                    starves,
                    predicted,
                )
            }
        };
        let measured = Measured::of(&run, topology, 1.0, sequential_s);
        let inputs = ModelInputs {
            levels: &levels,
            beta_e_s: self.beta_e.as_secs_f64(),
            beta_f_s: self.beta_f.as_secs_f64(),
            tasks_m: self.tasks as u64,
            starves,
        };
        let missing_terms = missing_terms(&inputs, &predicted, &measured);
        Ok(Comparison::of(
            machine,
            run,
            measured,
            predicted,
            missing_terms,
        ))
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

    fn model_costs(comparison_ns: f64, key_move_ns: f64) -> multicomputer_runtime::WorkCosts {
        multicomputer_runtime::WorkCosts::default()
            .with_unit(COMPARISON, comparison_ns)
            .with_unit(KEY_MOVE, key_move_ns)
    }

    fn model_charger(comparison_ns: f64, key_move_ns: f64) -> Charging {
        Charging::model(model_costs(comparison_ns, key_move_ns))
    }

    #[test]
    fn mergesort_levels_are_the_pieces_each_level_receives() {
        // Eight interleaved keys on a binary tree of two levels. The leaf receives the root's
        // first half as sent, [1, 5, 2, 6], and sorts it with 1 + 1 + 3 = 5 comparisons (4 if
        // it were already sorted); the root sorts all eight with 5 + 5 + 6 = 16 and joins the
        // sorted halves [1, 2, 5, 6] and [3, 4, 7, 8] with 6.
        let lists = vec![vec![1, 5, 2, 6, 3, 7, 4, 8]];
        let shape = TreeShape { k: 2, levels: 2 };
        let link = LinkCost {
            per_byte_ns: 1.0,
            ..LinkCost::default()
        };
        let by_comparisons = mergesort_levels(&lists, shape, &model_charger(1.0, 0.0), &link);
        assert_eq!(by_comparisons.len(), 2);
        let [leaf, root] = [by_comparisons[0], by_comparisons[1]];
        assert!((root.te_s - 16e-9).abs() < 1e-18, "{root:?}");
        assert!((root.tj_s - 6e-9).abs() < 1e-18, "{root:?}");
        assert_eq!(root.ts_s, 0.0);
        assert!((leaf.te_s - 5e-9).abs() < 1e-18, "{leaf:?}");
        assert_eq!((leaf.ts_s, leaf.tj_s), (0.0, 0.0));
        // A header of 8 bytes and 8 bytes a key, at 1 ns a byte.
        assert!((root.tau_s - 72e-9).abs() < 1e-18);
        assert!((leaf.tau_s - 40e-9).abs() < 1e-18);
        // Key moves: a sort writes every key twice per level of its recursion (8 keys,
        // 3 levels: 48), a split copies the second half's 4 keys (the first keeps the list's
        // own memory), a join writes all 8 once.
        let by_moves = mergesort_levels(&lists, shape, &model_charger(0.0, 1.0), &link);
        assert!((by_moves[1].te_s - 48e-9).abs() < 1e-18);
        assert!((by_moves[1].ts_s - 4e-9).abs() < 1e-18);
        assert!((by_moves[1].tj_s - 8e-9).abs() < 1e-18);
        assert!((by_moves[0].te_s - 16e-9).abs() < 1e-18);
    }

    #[test]
    fn split_one_way_every_level_sorts_in_the_roots_time() {
        let lists = mergesort_keys(4, 1000, 3);
        let charger = Charging::measured(multicomputer_runtime::WorkClock::Monotonic);
        let shape = TreeShape { k: 1, levels: 3 };
        let levels = mergesort_levels(&lists, shape, &charger, &LinkCost::default());
        assert!(levels[2].te_s > 0.0);
        assert_eq!(levels[0].te_s, levels[2].te_s);
        assert_eq!(levels[1].te_s, levels[2].te_s);
    }

    #[test]
    fn mergesort_levels_sample_at_least_three_lists_and_2_pow_18_keys() {
        // A top-down mergesort of 2^m keys moves 2 · 2^m · m keys, whatever their order.
        let moves = |m: u32| f64::from(2 * (1 << m) * m);
        let shape = TreeShape { k: 2, levels: 1 };
        let link = LinkCost::default();
        let charger = model_charger(0.0, 1.0);
        let mean = |lists: &[Vec<i64>]| mergesort_levels(lists, shape, &charger, &link)[0].te_s;
        // Two lists of 2^17 keys reach 2^18 keys, but three lists are sampled.
        let mut lists = vec![(0..1 << 17).rev().collect::<Vec<i64>>(); 2];
        lists.extend(vec![(0..1 << 10).collect::<Vec<i64>>(); 5]);
        let want = (2.0 * moves(17) + moves(10)) * 1e-9 / 3.0;
        assert!((mean(&lists) - want).abs() < 1e-15, "{}", mean(&lists));
        // Three lists of 2^11 keys, then lists of 2^10: 6144 + 250 × 1024 ≥ 2^18 keys at the
        // 253rd list, where the sample stops.
        let mut lists = vec![(0..1 << 11).collect::<Vec<i64>>(); 3];
        lists.extend(vec![(0..1 << 10).collect::<Vec<i64>>(); 400]);
        let want = (3.0 * moves(11) + 250.0 * moves(10)) * 1e-9 / 253.0;
        assert!((mean(&lists) - want).abs() < 1e-15, "{}", mean(&lists));
    }

    #[test]
    fn execution_on_the_forwarding_level_is_a_missing_term_of_its_size() {
        // Root-bound: T_s + T_j at level 2 is the largest. The root executed 10 % of M = 100
        // tasks at T_e(2) + β_e = 1.1 ms each: 11 ms more than the predicted 100 ms.
        let level = |te_s, ts_s| DncLevelCosts {
            te_s,
            ts_s,
            tj_s: 0.0,
            tau_s: 0.0,
        };
        let levels = [level(0.5e-3, 0.0), level(1e-3, 2e-3)];
        let model = ModelInputs {
            levels: &levels,
            beta_e_s: 0.1e-3,
            beta_f_s: 0.0,
            tasks_m: 100,
            starves: true,
        };
        let predicted = Prediction {
            throughput_per_s: 500.0,
            speedup: 1.0,
            makespan_s: 0.1,
            fractions_by_level: vec![1.0, 0.0],
            startup_s: 0.0,
            bound: Bound::Forwarding,
        };
        let measured = Measured {
            throughput_per_s: 450.0,
            steady_throughput_per_s: 450.0,
            speedup: 0.9,
            makespan_s: 0.111,
            fractions_by_level: vec![0.9, 0.1],
            startup_s: 0.0,
        };
        let term = forwarding_level_execution(&model, &predicted, &measured).unwrap();
        assert!((term.time_s - 0.011).abs() < 1e-15, "{term:?}");
        assert!((term.speedup - 0.1 / 0.111).abs() < 1e-12);
        assert!(term.name.contains("level 2"), "{}", term.name);
        // Not forwarding-bound: nothing is missing.
        let processors = Prediction {
            bound: Bound::Processors,
            ..predicted.clone()
        };
        assert!(forwarding_level_execution(&model, &processors, &measured).is_none());
        // Forwarding-bound, the steady state's shortfall is not a second term.
        assert_eq!(missing_terms(&model, &predicted, &measured), vec![term]);
    }

    #[test]
    fn a_starved_steady_state_is_a_missing_term_of_its_size() {
        // M = 101: the model's 100 intervals of 1 ms (1000 tasks/s), the steady state's of
        // 1.25 ms (800 tasks/s): 25 ms more.
        let levels = [DncLevelCosts {
            te_s: 1e-3,
            ts_s: 0.0,
            tj_s: 0.0,
            tau_s: 0.0,
        }; 2];
        let inputs = ModelInputs {
            levels: &levels,
            beta_e_s: 0.0,
            beta_f_s: 0.0,
            tasks_m: 101,
            starves: true,
        };
        let predicted = Prediction {
            throughput_per_s: 1000.0,
            speedup: 2.0,
            makespan_s: 0.101,
            fractions_by_level: vec![0.5, 0.5],
            startup_s: 0.001,
            bound: Bound::Processors,
        };
        let measured = Measured {
            throughput_per_s: 790.0,
            steady_throughput_per_s: 800.0,
            speedup: 1.6,
            makespan_s: 0.128,
            fractions_by_level: vec![0.5, 0.5],
            startup_s: 0.001,
        };
        let terms = missing_terms(&inputs, &predicted, &measured);
        assert_eq!(terms.len(), 1, "{terms:?}");
        assert!((terms[0].time_s - 0.025).abs() < 1e-15, "{terms:?}");
        assert!(terms[0].name.contains("20.0 % below"), "{}", terms[0].name);
        assert!((terms[0].speedup - 2.0 * 0.101 / 0.126).abs() < 1e-12);
        // A queue that keeps up, or a steady state as fast as the model: nothing is missing.
        let fed = ModelInputs {
            starves: false,
            ..inputs
        };
        assert!(missing_terms(&fed, &predicted, &measured).is_empty());
        let fast = Measured {
            steady_throughput_per_s: 1000.0,
            ..measured
        };
        assert!(missing_terms(&inputs, &predicted, &fast).is_empty());
    }

    #[test]
    fn other_networks_name_what_their_model_leaves_out() {
        // mesh:8x8 from P27 is forwarding-bound at the root (S_max = 1/(T_s + T_j + β_f) =
        // 2000 tasks/s), which the model keeps from executing; the engine's root executes one
        // whole task of 200: 0.5 % of M at T_e + β_e = 8.05 ms.
        let e = DncExperiment {
            tasks: 200,
            ..experiment()
        };
        let mesh = |q: usize, side: usize, root: usize| {
            let t: Topology = format!("mesh:{side}x{side}").parse().unwrap();
            virtual_run(
                t.rooted_at(root).unwrap(),
                &DncExperiment {
                    queue: q,
                    ..e.clone()
                },
            )
        };
        let c = mesh(1, 8, 27);
        assert_eq!(c.predicted.bound, Bound::Forwarding);
        // The lower levels' execution in their idle time is named too, at no cost.
        let (costly, free): (Vec<_>, Vec<_>) = c.missing_terms.iter().partition(|t| t.time_s > 0.0);
        assert_eq!(costly.len(), 1, "{:?}", c.missing_terms);
        assert!(
            free.iter().all(|t| t.name.contains("in its idle time")),
            "{free:?}"
        );
        let root = costly[0];
        assert!(
            root.name.contains("forwarding level 9 (0.5 %"),
            "{}",
            root.name
        );
        assert!((root.time_s - 8.05e-3).abs() < 1e-9, "{root:?}");
        // mesh:4x4 from P5 (fan-outs 4 to 1, siblings of 1 to 7 processors) with a queue of
        // one: the steady state's shortfall, sized from the run as
        // (M − 1)(1/S_steady − 1/S).
        let c = mesh(1, 4, 5);
        assert_eq!(c.predicted.bound, Bound::Processors);
        assert_eq!(c.missing_terms.len(), 1, "{:?}", c.missing_terms);
        let want =
            199.0 * (1.0 / c.measured.steady_throughput_per_s - 1.0 / c.predicted.throughput_per_s);
        assert!(want > 0.0);
        assert!((c.missing_terms[0].time_s - want).abs() < 1e-12);
        assert!(c.missing_terms[0].name.contains("--queue 2"));
        // With a queue of two nothing is named; nor on a balanced tree.
        assert!(mesh(2, 4, 5).missing_terms.is_empty());
        let balanced = virtual_run("binary:4".parse().unwrap(), &e);
        assert!(balanced.missing_terms.is_empty());
    }

    #[test]
    fn execution_below_the_bound_level_is_named_and_costs_only_beyond_its_idle_time() {
        // Three levels, the root (level 3) bounds forwarding. Level 2 executed 20 % of M = 100
        // tasks at T_e(2) + β_e = 1.1 ms each (22 ms) and forwarded the 70 % executed below it
        // at T_s + T_j + β_f = 0.4 ms each (28 ms): busy 50 ms of a 100 ms run.
        let level = |te_s, ts_s, tj_s| DncLevelCosts {
            te_s,
            ts_s,
            tj_s,
            tau_s: 0.0,
        };
        let levels = [
            level(0.5e-3, 0.0, 0.0),
            level(1e-3, 0.1e-3, 0.2e-3),
            level(3e-3, 1e-3, 1e-3),
        ];
        let model = ModelInputs {
            levels: &levels,
            beta_e_s: 0.1e-3,
            beta_f_s: 0.1e-3,
            tasks_m: 100,
            starves: false,
        };
        let predicted = Prediction {
            throughput_per_s: 1000.0,
            speedup: 3.0,
            makespan_s: 0.1,
            fractions_by_level: vec![1.0, 0.0, 0.0],
            startup_s: 0.0,
            bound: Bound::Forwarding,
        };
        let mut measured = Measured {
            throughput_per_s: 1000.0,
            steady_throughput_per_s: 1000.0,
            speedup: 3.0,
            makespan_s: 0.1,
            fractions_by_level: vec![0.7, 0.2, 0.1],
            startup_s: 0.0,
        };
        let terms = idle_level_execution(&model, &predicted, &measured);
        assert_eq!(terms.len(), 1, "{terms:?}");
        let t = &terms[0];
        assert!(
            t.name
                == "execution on level 2 in its idle time (20.0 % of the tasks; busy 50 % of \
                    the run)",
            "{}",
            t.name
        );
        assert_eq!(t.time_s, 0.0);
        assert!((t.speedup - 3.0).abs() < 1e-12, "{t:?}");
        // In a 40 ms run the same work overruns it by 10 ms.
        measured.makespan_s = 0.04;
        let t = &idle_level_execution(&model, &predicted, &measured)[0];
        assert!(t.name.contains("beyond its idle time"), "{}", t.name);
        assert!((t.time_s - 0.01).abs() < 1e-15, "{t:?}");
        // The bound level's own execution is the other term's, and nothing is named where the
        // level executed no more than predicted or the bound is not forwarding.
        measured.fractions_by_level = vec![0.9, 0.0, 0.1];
        assert!(idle_level_execution(&model, &predicted, &measured).is_empty());
        measured.fractions_by_level = vec![0.7, 0.2, 0.1];
        let processors = Prediction {
            bound: Bound::Processors,
            ..predicted
        };
        assert!(idle_level_execution(&model, &processors, &measured).is_empty());
    }

    #[test]
    fn a_mergesort_is_predicted_from_its_own_costs() {
        use multicomputer_runtime::{ComputeCharge, MachineConfig, TimeMode};
        // Virtual time with model charging: every cost is the declared units at their cost,
        // so the comparison is exact and repeatable.
        let config = MachineConfig {
            mode: TimeMode::Virtual,
            compute: Some(ComputeCharge::Model),
            work_costs: model_costs(2.5, 0.7),
            capacity: 3,
            ..MachineConfig::default()
        };
        let machine = Machine::new("binary:2".parse().unwrap(), config).unwrap();
        let e = DncExperiment {
            tasks: 40,
            kernel: DncKernel::Mergesort { keys: 20_000 },
            beta_e: Duration::from_micros(5),
            beta_f: Duration::from_micros(10),
            ..experiment()
        };
        let c = e.run(&machine).unwrap();
        // Processors bound the throughput (every level computes): nothing is missing, and the
        // model is within the paper's 5 %.
        assert_eq!(c.predicted.bound, Bound::Processors);
        assert!(c.missing_terms.is_empty());
        assert!(c.error_pct.abs() < 5.0, "error {:+.2} %", c.error_pct);
        // Its start-up is the model's: the first result's way down and back.
        assert!((c.measured.startup_s / c.predicted.startup_s - 1.0).abs() < 0.01);
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
    fn parent_relations_have_no_level_model_but_a_spanning_tree_one() {
        let t = Topology::from_parents(vec![None, Some(0), Some(0), Some(1)]).unwrap();
        assert!(matches!(
            experiment().model(&t),
            Err(ModelError::NeedsTreeShape(_))
        ));
        // Processor 2 is a leaf under the root: its pieces are halves, executed in 4 ms; 1
        // splits its halves one way for 3, which executes them whole (4 ms too); the levels'
        // split and join times are those of a binary tree of 3 levels.
        let m = experiment().tree_model(&t).unwrap();
        let te: Vec<f64> = m.costs.iter().map(|c| c.te_s).collect();
        assert_eq!(te, vec![8e-3, 4e-3, 4e-3, 4e-3]);
        assert_eq!(m.costs[1].ts_s, 100e-6);
        assert_eq!(m.costs[0].ts_s, 200e-6);
        assert!(experiment().predict(&t).is_ok());
    }

    /// Runs the synthetic program in virtual time on `topology`.
    fn virtual_run(topology: Topology, e: &DncExperiment) -> DncComparison {
        use multicomputer_runtime::{MachineConfig, TimeMode};
        let config = MachineConfig {
            mode: TimeMode::Virtual,
            hints: e.hints(&topology).unwrap(),
            ..MachineConfig::default()
        };
        e.run(&Machine::new(topology, config).unwrap()).unwrap()
    }

    #[test]
    fn on_balanced_trees_the_program_and_its_prediction_are_the_level_models() {
        for t in ["binary:4", "tree:3:3", "chain:5", "array:3"] {
            let t: Topology = t.parse().unwrap();
            let e = experiment();
            let model = e.model(&t).unwrap();
            assert_eq!(e.program_levels(&t).unwrap(), model.levels, "{t}");
            assert_eq!(e.predict(&t).unwrap(), model.predict().unwrap(), "{t}");
        }
    }

    #[test]
    fn any_network_runs_every_piece_once_on_its_spanning_tree_beside_its_model() {
        let e = DncExperiment {
            tasks: 200,
            ..experiment()
        };
        for (t, root) in [
            ("mesh:3x3", 4),
            ("ring:6", 2),
            ("binary:3", 3),
            ("hypercube:3", 0),
        ] {
            let topology = t.parse::<Topology>().unwrap().rooted_at(root).unwrap();
            // Every task's work units came back whole, or the run is an error.
            let c = virtual_run(topology, &e);
            let f: f64 = c.measured.fractions_by_level.iter().sum();
            assert!((f - 1.0).abs() < 1e-9, "{t}: Σ f = {f}");
            // Deterministic in virtual time: the steady state within 3 % of the model.
            assert!(
                c.errors_pct.steady_throughput.abs() < 3.0,
                "{t} from {root}: {:?}",
                c.errors_pct
            );
        }
    }

    #[test]
    fn mergesort_needs_a_balanced_tree_and_says_so_before_it_runs() {
        use multicomputer_runtime::{MachineConfig, TimeMode};
        let e = DncExperiment {
            kernel: DncKernel::Mergesort { keys: 100 },
            ..experiment()
        };
        let config = MachineConfig {
            mode: TimeMode::Virtual,
            ..MachineConfig::default()
        };
        let machine = Machine::new("mesh:2x2".parse().unwrap(), config).unwrap();
        assert!(matches!(
            e.run(&machine),
            Err(DncCompareError::Model(ModelError::NeedsTreeShape(_)))
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
