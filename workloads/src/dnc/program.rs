//! Divide and conquer as a program on the tree engine: synthetic tasks with per-level split,
//! execute and join times `T_s(i)`, `T_e(i)`, `T_j(i)`, split equally or at random (the paper's
//! robustness test, §4.3), and a real program, mergesort, whose output equals the sequential
//! sort.

use std::time::Duration;

use multicomputer_runtime::{Machine, Payload, Work, WorkUnit};
use rand_xoshiro::SplitMix64;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use serde::Serialize;
use thiserror::Error;

use crate::tree::{self, EngineConfig, EngineError, EngineRun, Job};

/// Work units of one top-level task: every split divides them exactly, so the units executed
/// for a task add up to this if and only if each piece was executed exactly once.
pub const TASK_UNITS: u64 = 1 << 40;

/// How a task is divided among the children.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Splitting {
    /// k equal parts.
    Equal,
    /// Random parts (uniform break points), drawn reproducibly from the seed and the task.
    Random {
        /// Seed of the draws.
        seed: u64,
    },
}

/// Per-level times of a synthetic divide-and-conquer program; index 0 is level 1 (leaves).
/// A list shorter than the tree repeats its last entry upwards.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DncSpec {
    /// M, the number of top-level tasks.
    pub tasks: usize,
    /// T_e(i): time to execute a level-i task locally, for an equal share of the work.
    pub te: Vec<Duration>,
    /// T_s(i): time to split a level-i task.
    pub ts: Vec<Duration>,
    /// T_j(i): time to join a level-i task's results.
    pub tj: Vec<Duration>,
    /// Equal or random splits.
    pub splitting: Splitting,
    /// Bytes of a top-level task in a message (subtasks carry their share).
    pub task_bytes: u64,
    /// Bytes of a result.
    pub result_bytes: u64,
}

/// Bad divide-and-conquer parameters.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum DncError {
    /// M = 0.
    #[error("the number of tasks must be at least 1")]
    NoTasks,
    /// An empty per-level list.
    #[error("{0} needs at least one value")]
    EmptyLevels(&'static str),
    /// The engine failed.
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// A synthetic task: which top-level task it belongs to, its level and its work units.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Piece {
    task: u64,
    level: u32,
    units: u64,
    bytes: u64,
}

impl Payload for Piece {
    fn size_bytes(&self) -> u64 {
        self.bytes
    }
}

/// A synthetic result: the work units executed for a piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Units(pub u64);

impl Payload for Units {
    fn size_bytes(&self) -> u64 {
        8
    }
}

fn at_level(list: &[Duration], level: u32) -> Duration {
    let i = (level as usize)
        .saturating_sub(1)
        .min(list.len().saturating_sub(1));
    list.get(i).copied().unwrap_or_default()
}

struct SyntheticDnc<'a> {
    spec: &'a DncSpec,
    arity: usize,
    /// N, the levels of the tree: top-level tasks enter at level N.
    levels: u32,
}

impl Job for SyntheticDnc<'_> {
    type Task = Piece;
    type Output = Units;

    fn is_real(&self) -> bool {
        false
    }

    fn execute_time(&self, piece: &Piece, _level: u32) -> Duration {
        // T_e of the piece's level, scaled by its size against an equal split's piece there.
        let depth = self.levels.saturating_sub(piece.level) as i32;
        let equal = TASK_UNITS as f64 / (self.arity.max(1) as f64).powi(depth);
        at_level(&self.spec.te, piece.level).mul_f64(piece.units as f64 / equal)
    }

    fn execute(&self, piece: Piece, _: &mut Work) -> Units {
        Units(piece.units)
    }

    fn split(&self, piece: Piece, children: usize, _: &mut Work) -> Result<Vec<Piece>, Piece> {
        if piece.level <= 1 || children == 0 {
            return Err(piece);
        }
        let k = children as u64;
        let parts: Vec<u64> = match self.spec.splitting {
            Splitting::Equal => (0..k)
                .map(|i| piece.units / k + u64::from(i < piece.units % k))
                .collect(),
            Splitting::Random { seed } => {
                let mut rng = SplitMix64::seed_from_u64(
                    seed ^ piece.task.rotate_left(17) ^ u64::from(piece.level) ^ piece.units,
                );
                let mut cuts: Vec<u64> =
                    (1..k).map(|_| rng.next_u64() % (piece.units + 1)).collect();
                cuts.sort_unstable();
                let mut last = 0;
                let mut parts = Vec::with_capacity(children);
                for c in cuts {
                    parts.push(c - last);
                    last = c;
                }
                parts.push(piece.units - last);
                parts
            }
        };
        let bytes = piece.bytes / k;
        Ok(parts
            .into_iter()
            .map(|units| Piece {
                task: piece.task,
                level: piece.level - 1,
                units,
                bytes,
            })
            .collect())
    }

    fn split_time(&self, level: u32) -> Duration {
        at_level(&self.spec.ts, level)
    }

    fn join_time(&self, level: u32) -> Duration {
        at_level(&self.spec.tj, level)
    }

    fn join(&self, parts: Vec<Units>, _: &mut Work) -> Units {
        Units(parts.iter().map(|u| u.0).sum())
    }

    fn share(&self, piece: &Piece) -> f64 {
        piece.units as f64 / TASK_UNITS as f64
    }
}

/// Real divide and conquer: mergesort. A task is a list; splitting cuts it into one run per
/// child, executing sorts it, joining merges the children's sorted runs.
pub struct MergeSort {
    /// Lists shorter than this are not split further.
    pub min_split: usize,
}

/// A list of integers as a message payload.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Keys(pub Vec<i64>);

impl Payload for Keys {
    fn size_bytes(&self) -> u64 {
        8 * self.0.len() as u64
    }
}

/// One comparison of two keys by mergesort.
pub const COMPARISON: WorkUnit = WorkUnit("comparison");

/// One key moved by mergesort (written by a merge, copied back, or copied into a subtask).
pub const KEY_MOVE: WorkUnit = WorkUnit("key_move");

/// Merges sorted `a` and `b` into `out` (of their total length); returns the comparisons made.
/// Stable: on equal keys `a`'s comes first.
fn merge_into(a: &[i64], b: &[i64], out: &mut [i64]) -> u64 {
    debug_assert_eq!(out.len(), a.len() + b.len());
    let (mut i, mut j, mut k) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        if a[i] <= b[j] {
            out[k] = a[i];
            i += 1;
        } else {
            out[k] = b[j];
            j += 1;
        }
        k += 1;
    }
    let comparisons = k as u64;
    let rest_a = a.len() - i;
    out[k..k + rest_a].copy_from_slice(&a[i..]);
    out[k + rest_a..].copy_from_slice(&b[j..]);
    comparisons
}

/// Merges two sorted lists, declaring the comparisons and key moves on `work`.
pub fn merge_metered(a: &[i64], b: &[i64], work: &mut Work) -> Vec<i64> {
    let mut out = vec![0; a.len() + b.len()];
    let comparisons = merge_into(a, b, &mut out);
    work.add(COMPARISON, comparisons);
    work.add(KEY_MOVE, out.len() as u64);
    out
}

/// Merges two sorted lists.
pub fn merge(a: &[i64], b: &[i64]) -> Vec<i64> {
    merge_metered(a, b, &mut Work::default())
}

/// Sorts `keys` in place with a top-down mergesort, declaring its comparisons and key moves
/// on `work`. This is the sequential program that the parallel one distributes: the leaves of
/// the tree run it on their pieces, and it is the speedup's baseline.
pub fn mergesort(keys: &mut [i64], work: &mut Work) {
    fn sort(keys: &mut [i64], scratch: &mut [i64], counts: &mut (u64, u64)) {
        let n = keys.len();
        if n < 2 {
            return;
        }
        let mid = n / 2;
        sort(&mut keys[..mid], &mut scratch[..mid], counts);
        sort(&mut keys[mid..], &mut scratch[mid..], counts);
        counts.0 += merge_into(&keys[..mid], &keys[mid..], &mut scratch[..n]);
        keys.copy_from_slice(&scratch[..n]);
        // Every key is written once by the merge and once back.
        counts.1 += 2 * n as u64;
    }
    let mut scratch = vec![0; keys.len()];
    let mut counts = (0, 0);
    sort(keys, &mut scratch, &mut counts);
    work.add(COMPARISON, counts.0);
    work.add(KEY_MOVE, counts.1);
}

impl Job for MergeSort {
    type Task = Keys;
    type Output = Keys;

    fn is_real(&self) -> bool {
        true
    }

    fn execute_time(&self, _: &Keys, _: u32) -> Duration {
        Duration::ZERO
    }

    fn execute(&self, mut keys: Keys, work: &mut Work) -> Keys {
        mergesort(&mut keys.0, work);
        keys
    }

    fn split(&self, keys: Keys, children: usize, work: &mut Work) -> Result<Vec<Keys>, Keys> {
        if children == 0 || keys.0.len() < self.min_split.max(2) {
            return Err(keys);
        }
        // The pieces of `chunks(chunk)`: the first keeps the list's own allocation, the
        // others are copied out of its tail, the last first. Split one way, the list is sent
        // as it is: nothing is copied.
        let mut first = keys.0;
        let chunk = first.len().div_ceil(children);
        let mut tail = Vec::with_capacity(children - 1);
        while first.len() > chunk {
            let last_start = (first.len() - 1) / chunk * chunk;
            tail.push(Keys(first.split_off(last_start)));
        }
        work.add(KEY_MOVE, tail.iter().map(|k| k.0.len() as u64).sum());
        Ok(std::iter::once(Keys(first))
            .chain(tail.into_iter().rev())
            .collect())
    }

    fn join(&self, parts: Vec<Keys>, work: &mut Work) -> Keys {
        let mut parts = parts.into_iter();
        let first = parts.next().map_or_else(Vec::new, |k| k.0);
        Keys(parts.fold(first, |acc, p| merge_metered(&acc, &p.0, work)))
    }

    fn share(&self, keys: &Keys) -> f64 {
        keys.0.len() as f64
    }
}

/// A verified divide-and-conquer run.
#[derive(Debug)]
pub struct DncRun<R> {
    /// The engine's run.
    pub engine: EngineRun<R>,
}

/// Runs a synthetic divide-and-conquer program and checks that every task's work units came
/// back whole (each piece executed exactly once).
pub fn run_synthetic(
    machine: &Machine,
    spec: &DncSpec,
    engine: &EngineConfig,
) -> Result<DncRun<Units>, DncError> {
    if spec.tasks == 0 {
        return Err(DncError::NoTasks);
    }
    for (name, list) in [("T_e", &spec.te), ("T_s", &spec.ts), ("T_j", &spec.tj)] {
        if list.is_empty() {
            return Err(DncError::EmptyLevels(name));
        }
    }
    let topology = machine.topology();
    let arity = (0..topology.len())
        .map(|i| topology.children(i).len())
        .max()
        .unwrap_or(0);
    let levels = topology.levels();
    let job = SyntheticDnc {
        spec,
        arity,
        levels,
    };
    let tasks = (0..spec.tasks as u64)
        .map(|task| Piece {
            task,
            level: levels,
            units: TASK_UNITS,
            bytes: spec.task_bytes,
        })
        .collect();
    let run = tree::run(machine, &job, tasks, engine)?;
    if let Some(i) = run.outputs.iter().position(|u| u.0 != TASK_UNITS) {
        return Err(DncError::Engine(EngineError::Lost {
            count: 1,
            first: i as u64,
        }));
    }
    Ok(DncRun { engine: run })
}

/// Sorts each list on the machine with mergesort; the outputs are the sorted lists.
pub fn run_mergesort(
    machine: &Machine,
    lists: Vec<Vec<i64>>,
    min_split: usize,
    engine: &EngineConfig,
) -> Result<DncRun<Keys>, DncError> {
    if lists.is_empty() {
        return Err(DncError::NoTasks);
    }
    let run = tree::run(
        machine,
        &MergeSort { min_split },
        lists.into_iter().map(Keys).collect(),
        engine,
    )?;
    Ok(DncRun { engine: run })
}

#[cfg(test)]
mod tests {
    use super::*;
    use multicomputer_runtime::{MachineConfig, TimeMode, Topology, WaitStrategy};

    fn machine(t: Topology) -> Machine {
        let config = MachineConfig {
            mode: TimeMode::Dilated(1.0),
            wait: WaitStrategy::Sleep,
            capacity: 4,
            ..MachineConfig::default()
        };
        Machine::new(t, config).unwrap()
    }

    fn us(n: u64) -> Duration {
        Duration::from_micros(n)
    }

    fn spec(splitting: Splitting) -> DncSpec {
        DncSpec {
            tasks: 40,
            te: vec![us(500), us(1000), us(2000)],
            ts: vec![us(0), us(50), us(50)],
            tj: vec![us(0), us(50), us(50)],
            splitting,
            task_bytes: 1024,
            result_bytes: 8,
        }
    }

    #[test]
    fn equal_and_random_splits_execute_every_piece_exactly_once() {
        let t = Topology::kary_tree(2, 3).unwrap();
        for splitting in [Splitting::Equal, Splitting::Random { seed: 7 }] {
            let run = run_synthetic(
                &machine(t.clone()),
                &spec(splitting),
                &EngineConfig::default(),
            )
            .unwrap();
            assert_eq!(run.engine.outputs.len(), 40);
            let f: f64 = run.engine.fractions_by_level(&t).iter().sum();
            assert!((f - 1.0).abs() < 1e-9, "{splitting:?}: Σ f = {f}");
            assert!(run.engine.splits[0] > 0, "the root split some tasks");
        }
    }

    #[test]
    fn a_single_processor_executes_whole_tasks_at_the_top_level_time() {
        let run = run_synthetic(
            &machine(Topology::chain(1).unwrap()),
            &DncSpec {
                tasks: 3,
                ..spec(Splitting::Equal)
            },
            &EngineConfig::default(),
        )
        .unwrap();
        // One level: every task costs T_e(1) = 500 µs.
        assert_eq!(run.engine.report.makespan(), us(1500));
    }

    #[test]
    fn a_split_cuts_equal_runs_and_copies_all_but_the_first() {
        let job = MergeSort { min_split: 2 };
        let mut work = Work::default();
        let parts = job.split(Keys((1..=7).collect()), 3, &mut work).unwrap();
        assert_eq!(
            parts,
            vec![Keys(vec![1, 2, 3]), Keys(vec![4, 5, 6]), Keys(vec![7])]
        );
        assert_eq!(work.counts(), &[(KEY_MOVE, 4)]);
        // One child: the list goes as it is, nothing copied.
        let mut work = Work::default();
        let parts = job.split(Keys(vec![3, 1, 2]), 1, &mut work).unwrap();
        assert_eq!(parts, vec![Keys(vec![3, 1, 2])]);
        assert!(work.is_empty());
    }

    #[test]
    fn mergesort_equals_the_sequential_sort() {
        let lists: Vec<Vec<i64>> = (0..5)
            .map(|t| {
                (0..777)
                    .map(|i| ((i * 7919 + t * 104_729) % 1001) as i64 - 500)
                    .collect()
            })
            .collect();
        let expected: Vec<Keys> = lists
            .iter()
            .map(|l| {
                let mut s = l.clone();
                s.sort();
                Keys(s)
            })
            .collect();
        let run = run_mergesort(
            &machine(Topology::kary_tree(3, 3).unwrap()),
            lists,
            4,
            &EngineConfig::default(),
        )
        .unwrap();
        assert_eq!(run.engine.outputs, expected);
    }

    #[test]
    fn bad_parameters_are_named() {
        let m = machine(Topology::chain(2).unwrap());
        let e = EngineConfig::default();
        assert_eq!(
            run_synthetic(
                &m,
                &DncSpec {
                    tasks: 0,
                    ..spec(Splitting::Equal)
                },
                &e
            )
            .unwrap_err(),
            DncError::NoTasks
        );
        assert_eq!(
            run_synthetic(
                &m,
                &DncSpec {
                    te: vec![],
                    ..spec(Splitting::Equal)
                },
                &e
            )
            .unwrap_err(),
            DncError::EmptyLevels("T_e")
        );
        assert!(matches!(
            run_mergesort(&m, vec![], 2, &e),
            Err(DncError::NoTasks)
        ));
    }
}
