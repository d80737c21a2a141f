//! The processor farm as a program on the tree engine: synthetic tasks of execution time T_e
//! (constant, uniform or exponential with the same mean), a real kernel with an adjustable
//! grain (counting primes), and packetizing (granularity g: tasks carried by one message).

use std::time::Duration;

use multicomputer_runtime::{Machine, Payload, Work, WorkUnit};
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use serde::Serialize;
use thiserror::Error;

use crate::tree::{self, EngineConfig, EngineError, EngineRun, Job};

/// How synthetic task execution times are distributed around their mean T_e.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskTimes {
    /// Every task takes T_e.
    Constant,
    /// Uniform on [0, 2·T_e].
    Uniform,
    /// Exponential with mean T_e.
    Exponential,
}

/// What the farmed tasks compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Kernel {
    /// Emulated work of the drawn execution time.
    Synthetic,
    /// Real work: count the primes in a range of `grain` integers per task (trial division).
    Primes {
        /// Integers examined per task: the task's grain.
        grain: u64,
    },
}

/// A farm to run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FarmSpec {
    /// M, the number of tasks.
    pub tasks: usize,
    /// Mean task execution time T_e (synthetic kernel).
    pub te: Duration,
    /// Distribution of synthetic execution times.
    pub times: TaskTimes,
    /// The kernel.
    pub kernel: Kernel,
    /// g, tasks per message (packet).
    pub granularity: usize,
    /// Bytes a task occupies in a message (sets its transfer time with τ).
    pub task_bytes: u64,
    /// Bytes a task's result occupies.
    pub result_bytes: u64,
    /// Seed of the execution-time draws.
    pub seed: u64,
}

impl Default for FarmSpec {
    fn default() -> Self {
        Self {
            tasks: 1000,
            te: Duration::from_millis(1),
            times: TaskTimes::Constant,
            kernel: Kernel::Synthetic,
            granularity: 1,
            task_bytes: 64,
            result_bytes: 8,
            seed: 1,
        }
    }
}

/// Bad farm parameters.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum FarmError {
    /// M = 0.
    #[error("the number of tasks must be at least 1")]
    NoTasks,
    /// g = 0.
    #[error("granularity must be at least 1 task per message")]
    ZeroGranularity,
    /// A prime kernel of grain 0.
    #[error("the prime kernel's grain must be at least 1")]
    ZeroGrain,
    /// The engine failed.
    #[error(transparent)]
    Engine(#[from] EngineError),
}

/// A packet of g tasks as it travels: the first task's index and each task's work.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Packet {
    first: u64,
    /// Per task: emulated time in ns (synthetic) or range start (primes).
    work: Vec<u64>,
    bytes_per_task: u64,
}

impl Payload for Packet {
    fn size_bytes(&self) -> u64 {
        self.work.len() as u64 * self.bytes_per_task
    }
}

/// A packet's results: per task, its execution time (synthetic) or prime count.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PacketResult {
    first: u64,
    values: Vec<u64>,
    bytes_per_task: u64,
}

impl Payload for PacketResult {
    fn size_bytes(&self) -> u64 {
        self.values.len() as u64 * self.bytes_per_task
    }
}

/// One integer examined by the prime kernel.
pub const PRIME_CANDIDATE: WorkUnit = WorkUnit("prime_candidate");

/// One trial division `n mod d` of the prime kernel (a candidate's cost grows as √n).
pub const TRIAL_DIVISION: WorkUnit = WorkUnit("trial_division");

/// Whether `n` is prime, adding the trial divisions made to `divisions` (deliberately plain
/// trial division: a predictable CPU load).
#[inline]
fn is_prime_counting(n: u64, divisions: &mut u64) -> bool {
    if n < 2 {
        return false;
    }
    if n < 4 {
        return true;
    }
    *divisions += 1;
    if n % 2 == 0 {
        return false;
    }
    let mut d = 3;
    while d * d <= n {
        *divisions += 1;
        if n % d == 0 {
            return false;
        }
        d += 2;
    }
    true
}

/// Whether `n` is prime (trial division).
pub fn is_prime(n: u64) -> bool {
    is_prime_counting(n, &mut 0)
}

/// Primes in `[start, start + len)`, declaring the candidates and trial divisions on `work`.
pub fn count_primes_metered(start: u64, len: u64, work: &mut Work) -> u64 {
    let mut divisions = 0;
    let end = start.saturating_add(len);
    let count = (start..end)
        .filter(|&n| is_prime_counting(n, &mut divisions))
        .count() as u64;
    work.add(PRIME_CANDIDATE, end - start);
    work.add(TRIAL_DIVISION, divisions);
    count
}

/// Primes in `[start, start + len)`.
pub fn count_primes(start: u64, len: u64) -> u64 {
    count_primes_metered(start, len, &mut Work::default())
}

struct FarmJob {
    kernel: Kernel,
    result_bytes: u64,
}

impl Job for FarmJob {
    type Task = Packet;
    type Output = PacketResult;

    fn is_real(&self) -> bool {
        !matches!(self.kernel, Kernel::Synthetic)
    }

    fn forwarding_is_real(&self) -> bool {
        false
    }

    fn forwards_whole(&self) -> bool {
        true
    }

    fn execute_time(&self, task: &Packet, _level: u32) -> Duration {
        match self.kernel {
            Kernel::Synthetic => Duration::from_nanos(task.work.iter().sum()),
            Kernel::Primes { .. } => Duration::ZERO,
        }
    }

    fn execute(&self, task: Packet, work: &mut Work) -> PacketResult {
        let values = match self.kernel {
            Kernel::Synthetic => task.work,
            Kernel::Primes { grain } => task
                .work
                .iter()
                .map(|&s| count_primes_metered(s, grain, work))
                .collect(),
        };
        PacketResult {
            first: task.first,
            values,
            bytes_per_task: self.result_bytes,
        }
    }

    fn split(&self, task: Packet, _children: usize, _: &mut Work) -> Result<Vec<Packet>, Packet> {
        Ok(vec![task])
    }

    fn join(&self, mut parts: Vec<PacketResult>, _: &mut Work) -> PacketResult {
        parts.pop().unwrap_or(PacketResult {
            first: 0,
            values: vec![],
            bytes_per_task: 0,
        })
    }

    fn share(&self, task: &Packet) -> f64 {
        task.work.len() as f64
    }
}

/// Draws the M task execution times, in ns, reproducibly from the seed.
pub fn task_times_ns(spec: &FarmSpec) -> Vec<u64> {
    let mean = spec.te.as_nanos() as f64;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(spec.seed);
    (0..spec.tasks)
        .map(|_| {
            // A uniform draw in [0, 1) from the top 53 bits.
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            let t = match spec.times {
                TaskTimes::Constant => mean,
                TaskTimes::Uniform => 2.0 * mean * u,
                TaskTimes::Exponential => -mean * (1.0 - u).ln(),
            };
            t.round() as u64
        })
        .collect()
}

/// The sequential reference: each task's value (its execution time for synthetic tasks, its
/// prime count for the prime kernel) and the sequential time Σ T_e (synthetic) in ns.
pub fn sequential(spec: &FarmSpec) -> Vec<u64> {
    sequential_metered(spec, &mut Work::default())
}

/// [`sequential`], declaring the real kernel's work on `work` (nothing for synthetic tasks).
pub fn sequential_metered(spec: &FarmSpec, work: &mut Work) -> Vec<u64> {
    match spec.kernel {
        Kernel::Synthetic => task_times_ns(spec),
        Kernel::Primes { grain } => (0..spec.tasks as u64)
            .map(|i| count_primes_metered(i * grain, grain, work))
            .collect(),
    }
}

/// A verified farm run.
#[derive(Debug)]
pub struct FarmRun {
    /// Each task's value, by task index (equal to [`sequential`]).
    pub values: Vec<u64>,
    /// The engine's run (report, shares, result times).
    pub engine: EngineRun<PacketResult>,
}

/// Runs a farm on `machine` with the engine's overheads, and checks every task's value
/// against the sequential reference's.
pub fn run(
    machine: &Machine,
    spec: &FarmSpec,
    engine: &EngineConfig,
) -> Result<FarmRun, FarmError> {
    if spec.tasks == 0 {
        return Err(FarmError::NoTasks);
    }
    if spec.granularity == 0 {
        return Err(FarmError::ZeroGranularity);
    }
    if spec.kernel == (Kernel::Primes { grain: 0 }) {
        return Err(FarmError::ZeroGrain);
    }
    let work: Vec<u64> = match spec.kernel {
        Kernel::Synthetic => task_times_ns(spec),
        Kernel::Primes { grain } => (0..spec.tasks as u64).map(|i| i * grain).collect(),
    };
    let packets: Vec<Packet> = work
        .chunks(spec.granularity)
        .enumerate()
        .map(|(i, w)| Packet {
            first: (i * spec.granularity) as u64,
            work: w.to_vec(),
            bytes_per_task: spec.task_bytes,
        })
        .collect();
    let job = FarmJob {
        kernel: spec.kernel,
        result_bytes: spec.result_bytes,
    };
    let run = tree::run(machine, &job, packets, engine)?;
    let mut values = vec![0; spec.tasks];
    for r in &run.outputs {
        for (k, v) in r.values.iter().enumerate() {
            values[r.first as usize + k] = *v;
        }
    }
    Ok(FarmRun {
        values,
        engine: run,
    })
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

    #[test]
    fn primes_are_counted_correctly() {
        assert_eq!(count_primes(0, 100), 25);
        assert_eq!(count_primes(100, 100), 21);
        assert!(is_prime(7919) && !is_prime(7917) && !is_prime(1));
    }

    #[test]
    fn draws_have_the_requested_mean_and_are_reproducible() {
        for times in [TaskTimes::Uniform, TaskTimes::Exponential] {
            let spec = FarmSpec {
                tasks: 20_000,
                times,
                ..FarmSpec::default()
            };
            let t = task_times_ns(&spec);
            let mean = t.iter().sum::<u64>() as f64 / t.len() as f64;
            // Standard error of the mean is ≤ 1e6/√20000 ≈ 7 µs; allow 4σ.
            assert!((mean - 1e6).abs() < 3e4, "{times:?}: mean {mean}");
            assert_eq!(t, task_times_ns(&spec));
        }
        assert!(
            task_times_ns(&FarmSpec::default())
                .iter()
                .all(|&t| t == 1_000_000)
        );
    }

    #[test]
    fn real_prime_farm_equals_the_sequential_reference() {
        let t = Topology::kary_tree(2, 3).unwrap();
        let spec = FarmSpec {
            tasks: 60,
            kernel: Kernel::Primes { grain: 500 },
            granularity: 4,
            ..FarmSpec::default()
        };
        let run = run(&machine(t.clone()), &spec, &EngineConfig::default()).unwrap();
        assert_eq!(run.values, sequential(&spec));
        assert_eq!(run.values.iter().sum::<u64>(), count_primes(0, 30_000));
        let f: f64 = run.engine.fractions_by_level(&t).iter().sum();
        assert!((f - 1.0).abs() < 1e-12);
    }

    #[test]
    fn packets_carry_g_tasks_and_every_task_comes_back() {
        let t = Topology::chain(3).unwrap();
        let spec = FarmSpec {
            tasks: 103,
            granularity: 10,
            te: Duration::from_micros(200),
            times: TaskTimes::Exponential,
            ..FarmSpec::default()
        };
        let run = run(&machine(t), &spec, &EngineConfig::default()).unwrap();
        assert_eq!(run.values, sequential(&spec));
        // 11 packets (10 of 10 tasks and one of 3) executed, each one result.
        assert_eq!(run.engine.report.totals.tasks_executed, 11);
    }

    #[test]
    fn bad_parameters_are_named() {
        let m = machine(Topology::chain(1).unwrap());
        let e = EngineConfig::default();
        assert_eq!(
            run(
                &m,
                &FarmSpec {
                    tasks: 0,
                    ..FarmSpec::default()
                },
                &e
            )
            .unwrap_err(),
            FarmError::NoTasks
        );
        assert_eq!(
            run(
                &m,
                &FarmSpec {
                    granularity: 0,
                    ..FarmSpec::default()
                },
                &e
            )
            .unwrap_err(),
            FarmError::ZeroGranularity
        );
    }
}
