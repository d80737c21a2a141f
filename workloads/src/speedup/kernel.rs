//! The real kernels a speedup experiment runs, their sizes and grains, their inputs and the
//! results every variant must reproduce.

use serde::Serialize;
use thiserror::Error;

use multicomputer_runtime::{Topology, TopologyError};

use crate::dnc::mergesort_keys;
use crate::ising::{Dimension, IsingConfig, IsingError, Mechanism, Summary};
use crate::ocl::random_stream;

/// A real kernel, and the parallel program that runs it on the runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kernel {
    /// Counting primes by trial division, a range of `grain` integers a task, on the farm's
    /// tree engine over a chain of P processors.
    PrimesChain,
    /// The same farm over a complete binary tree of P processors (heap order: the parent of
    /// `i` is `(i − 1)/2`).
    PrimesTree,
    /// Top-down mergesort of lists of `grain` keys, divide and conquer on the tree engine: the
    /// root splits a list into P − 1 pieces for P − 1 leaves (`tree:(P−1):2`) and merges them.
    Mergesort,
    /// Ising samples (Metropolis, 8³ lattice at T = 4.5, `grain` sweeps each) under the
    /// scalability paper's tree mechanism (a binomial tree, static blocks of samples).
    Ising,
    /// The OCL stream on a linear array of P processes, `[N/P, K]` cells, `K = grain` values a
    /// packet.
    Ocl,
}

impl Kernel {
    /// Every kernel, in the order reports list them.
    pub const ALL: [Kernel; 5] = [
        Kernel::PrimesChain,
        Kernel::PrimesTree,
        Kernel::Mergesort,
        Kernel::Ising,
        Kernel::Ocl,
    ];

    /// Its name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::PrimesChain => "primes-chain",
            Kernel::PrimesTree => "primes-tree",
            Kernel::Mergesort => "mergesort",
            Kernel::Ising => "ising",
            Kernel::Ocl => "ocl",
        }
    }

    /// The kernel named `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// What `tasks` counts.
    pub fn tasks_unit(self) -> &'static str {
        match self {
            Kernel::PrimesChain | Kernel::PrimesTree => "tasks",
            Kernel::Mergesort => "lists",
            Kernel::Ising => "samples",
            Kernel::Ocl => "stream values L",
        }
    }

    /// What `grain` counts.
    pub fn grain_unit(self) -> &'static str {
        match self {
            Kernel::PrimesChain | Kernel::PrimesTree => "integers a task",
            Kernel::Mergesort => "keys a list",
            Kernel::Ising => "sweeps a sample",
            Kernel::Ocl => "values a packet (K)",
        }
    }

    /// The default size: about a third of a second of sequential work on the development
    /// host, so that a default run (P = 1, 2; 5 rounds after a warm-up) takes about 15 s.
    pub fn default_tasks(self) -> u64 {
        match self {
            Kernel::PrimesChain | Kernel::PrimesTree => 200,
            Kernel::Mergesort => 40,
            Kernel::Ising => 640,
            Kernel::Ocl => 30_000,
        }
    }

    /// The default grain (the farm command's prime grain; mergesort's 100 000 keys; 100
    /// sweeps; 16 values a packet).
    pub fn default_grain(self) -> u64 {
        match self {
            Kernel::PrimesChain | Kernel::PrimesTree => 20_000,
            Kernel::Mergesort => 100_000,
            Kernel::Ising => 100,
            Kernel::Ocl => 16,
        }
    }

    /// The grains of a grain sweep: from tasks of a few microseconds to milliseconds.
    pub fn default_grains(self) -> Vec<u64> {
        match self {
            Kernel::PrimesChain | Kernel::PrimesTree => {
                vec![20, 50, 200, 500, 2_000, 5_000, 20_000, 50_000]
            }
            Kernel::Mergesort => vec![100, 300, 1_000, 3_000, 10_000, 30_000, 100_000],
            Kernel::Ising => vec![1, 2, 5, 10, 20, 50, 100, 200],
            Kernel::Ocl => vec![1, 2, 4, 8, 16, 32, 64, 128],
        }
    }

    /// The runtime's topology for P processors.
    pub fn topology(self, processors: usize) -> Result<Topology, TopologyError> {
        match self {
            Kernel::PrimesChain | Kernel::Ocl => Topology::chain(processors),
            Kernel::PrimesTree if processors <= 1 => Topology::chain(processors),
            Kernel::PrimesTree => Topology::from_parents(
                (0..processors)
                    .map(|i| i.checked_sub(1).map(|j| j / 2))
                    .collect(),
            ),
            Kernel::Mergesort if processors <= 1 => Topology::chain(processors),
            Kernel::Mergesort => Topology::kary_tree(processors - 1, 2),
            Kernel::Ising if processors <= 1 => Topology::chain(processors),
            Kernel::Ising => Mechanism::Tree.topology(processors),
        }
    }
}

impl Kernel {
    /// The runtime's topology for P processors as a report names it: its own name, or for a
    /// tree given by a parent relation, the kind of tree.
    pub fn topology_name(self, processors: usize) -> Result<String, TopologyError> {
        let t = self.topology(processors)?;
        Ok(match (self, processors) {
            (Kernel::PrimesTree, 2..) => format!("binary tree of {processors} (heap order)"),
            (Kernel::Ising, 2..) => format!("binomial tree of {processors}"),
            _ => t.to_string(),
        })
    }
}

/// The default OCL window: 5040 × 16. 5040 is divisible by every P up to 10 and by 12, 14, 15
/// and 16, and the factor 16 keeps every packet size up to 128 a divisor of `N/P` at P = 2.
pub const DEFAULT_OCL_WINDOW: usize = 80_640;

/// The Ising samples' lattice: 3D, `8³` spins, at `T = 4.5` (near `T_c`), cold start, no
/// thermalisation (every sweep is measured): a sample of `g` sweeps is `512 g` spin flips.
pub fn ising_config(sweeps: u64, seed: u64) -> Result<IsingConfig, IsingError> {
    let mut c = IsingConfig::new(Dimension::Three, 8, 4.5)?;
    c.thermalisation_sweeps = 0;
    c.measurement_sweeps = u32::try_from(sweeps).unwrap_or(u32::MAX);
    c.seed = seed;
    c.validate()?;
    Ok(c)
}

/// The sequential wall time of a kernel's default workload on the development host, seconds
/// (see [`Kernel::default_tasks`]).
pub const DEFAULT_SEQUENTIAL_S: f64 = 0.33;

/// What one experiment runs: the kernel, its size and grain.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Workload {
    /// The kernel.
    pub kernel: Kernel,
    /// Tasks, lists, samples, or the stream's length L (see [`Kernel::tasks_unit`]).
    pub tasks: u64,
    /// Integers a task, keys a list, sweeps a sample, or values a packet K (see
    /// [`Kernel::grain_unit`]).
    pub grain: u64,
    /// OCL: the window length N.
    pub window: usize,
    /// The tree engine's queue of unprocessed tasks per processor (farm and mergesort).
    pub queue: usize,
    /// Seed of mergesort's keys, the Ising samples' streams and the OCL stream.
    pub seed: u64,
}

/// Why a workload cannot run.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum WorkloadError {
    /// A grain of 0.
    #[error("the grain must be at least 1 ({0})")]
    ZeroGrain(&'static str),
    /// No tasks.
    #[error("at least one of the {0} is needed")]
    ZeroTasks(&'static str),
    /// A queue of 0.
    #[error("the engine's queue must hold at least one task")]
    ZeroQueue,
    /// A number of tasks (or a product with it) that does not fit this host's integers.
    #[error("{0} is too large for this host")]
    TasksTooLarge(&'static str),
    /// A grain that does not fit.
    #[error("{0} is too large for this host")]
    GrainTooLarge(&'static str),
    /// OCL: `P · K` does not divide `N`.
    #[error(
        "the OCL array of P = {processors} processes needs P × K = {processors} × {packet} to \
         divide the window N = {window}"
    )]
    OclDivisibility {
        /// P.
        processors: usize,
        /// K.
        packet: u64,
        /// N.
        window: usize,
    },
    /// OCL: a window of 0.
    #[error("the OCL window N must be at least 1")]
    ZeroWindow,
    /// The Ising configuration was refused.
    #[error(transparent)]
    Ising(#[from] IsingError),
}

impl Workload {
    /// The kernel's default workload.
    pub fn new(kernel: Kernel) -> Self {
        Self {
            kernel,
            tasks: kernel.default_tasks(),
            grain: kernel.default_grain(),
            window: DEFAULT_OCL_WINDOW,
            queue: 2,
            seed: 1,
        }
    }

    /// The same workload at grain `grain` with the same total work: `tasks × grain` kept (at
    /// least one task); OCL keeps its stream (the work `L·N` does not depend on K).
    pub fn at_grain(&self, grain: u64) -> Self {
        let tasks = match self.kernel {
            Kernel::Ocl => self.tasks,
            _ => {
                let total = u128::from(self.tasks) * u128::from(self.grain);
                u64::try_from((total + u128::from(grain) / 2) / u128::from(grain.max(1)))
                    .unwrap_or(u64::MAX)
                    .max(1)
            }
        };
        Self {
            grain,
            tasks,
            ..self.clone()
        }
    }

    /// Its units of scheduling: tasks, lists, samples, or OCL packets `⌈L/K⌉` (each the
    /// window's comparisons for K outputs).
    pub fn units(&self) -> u64 {
        match self.kernel {
            Kernel::Ocl => self.tasks.div_ceil(self.grain.max(1)),
            _ => self.tasks,
        }
    }

    /// The kernel's operation count, in its own unit: candidates plus trial divisions
    /// (`N + N^{3/2} / (3 ln N)` for the `N = tasks × grain` integers: about `√n / 2` odd
    /// divisors for each of the `N / ln N` primes, a third of that on average below `N`),
    /// key comparisons (`tasks × grain × log₂ grain`), spin sweeps (`samples × sweeps`), or
    /// window comparisons (`L × N`).
    fn operations(&self) -> f64 {
        let (tasks, grain) = (self.tasks as f64, self.grain as f64);
        match self.kernel {
            Kernel::PrimesChain | Kernel::PrimesTree => {
                let n = (tasks * grain).max(3.0);
                n + n * n.sqrt() / (3.0 * n.ln())
            }
            Kernel::Mergesort => tasks * grain * grain.max(2.0).log2(),
            Kernel::Ising => tasks * grain,
            Kernel::Ocl => tasks * self.window as f64,
        }
    }

    /// A rough sequential wall time before anything has run, seconds: the default
    /// workload's [`DEFAULT_SEQUENTIAL_S`] scaled by the operation counts. Within a small
    /// factor on a host like the development one: good enough to refuse a run of days before
    /// it starts, never a measurement.
    pub fn rough_sequential_s(&self) -> f64 {
        let default = Self {
            window: DEFAULT_OCL_WINDOW,
            ..Self::new(self.kernel)
        };
        DEFAULT_SEQUENTIAL_S * self.operations() / default.operations()
    }

    /// The bytes the inputs, the reference and one variant's result take together (the
    /// variants' results are compared and dropped one at a time): mergesort's keys three
    /// times over, the OCL stream and two outputs, a count a task, an Ising summary a sample.
    pub fn rough_memory_bytes(&self) -> f64 {
        let tasks = self.tasks as f64;
        match self.kernel {
            Kernel::PrimesChain | Kernel::PrimesTree => 2.0 * 8.0 * tasks,
            Kernel::Mergesort => 3.0 * tasks * (8.0 * self.grain as f64 + 24.0),
            Kernel::Ising => 2.0 * 256.0 * tasks,
            Kernel::Ocl => 3.0 * 8.0 * tasks,
        }
    }

    /// Checks the workload for P in `processors`.
    pub fn check(&self, processors: &[usize]) -> Result<(), WorkloadError> {
        let k = self.kernel;
        if self.grain == 0 {
            return Err(WorkloadError::ZeroGrain(k.grain_unit()));
        }
        if self.tasks == 0 {
            return Err(WorkloadError::ZeroTasks(k.tasks_unit()));
        }
        if self.queue == 0 {
            return Err(WorkloadError::ZeroQueue);
        }
        usize::try_from(self.tasks).map_err(|_| WorkloadError::TasksTooLarge(k.tasks_unit()))?;
        usize::try_from(self.grain).map_err(|_| WorkloadError::GrainTooLarge(k.grain_unit()))?;
        match k {
            Kernel::PrimesChain | Kernel::PrimesTree => {
                self.tasks
                    .checked_mul(self.grain)
                    .ok_or(WorkloadError::TasksTooLarge(
                        "the range of integers (tasks × grain)",
                    ))?;
            }
            Kernel::Mergesort => {
                usize::try_from(self.tasks.saturating_mul(self.grain))
                    .map_err(|_| WorkloadError::TasksTooLarge("the keys (lists × keys a list)"))?;
            }
            Kernel::Ising => {
                u32::try_from(self.grain)
                    .map_err(|_| WorkloadError::GrainTooLarge("sweeps a sample"))?;
                ising_config(self.grain, self.seed)?;
            }
            Kernel::Ocl => {
                if self.window == 0 {
                    return Err(WorkloadError::ZeroWindow);
                }
                for &p in processors {
                    let pk = (p as u64).saturating_mul(self.grain);
                    if pk == 0 || self.window as u64 % pk != 0 {
                        return Err(WorkloadError::OclDivisibility {
                            processors: p,
                            packet: self.grain,
                            window: self.window,
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// The inputs every variant shares (made once, outside the timings).
    pub fn inputs(&self) -> Result<Inputs, WorkloadError> {
        Ok(match self.kernel {
            Kernel::PrimesChain | Kernel::PrimesTree => Inputs::Primes,
            Kernel::Mergesort => Inputs::Lists(mergesort_keys(
                self.tasks as usize,
                self.grain as usize,
                self.seed,
            )),
            Kernel::Ising => Inputs::Ising(ising_config(self.grain, self.seed)?),
            Kernel::Ocl => Inputs::Stream(random_stream(self.tasks as usize, 0, 50, self.seed)),
        })
    }
}

/// The inputs of a workload.
#[derive(Debug, Clone, PartialEq)]
pub enum Inputs {
    /// Task `i` counts the primes in `[i·grain, (i+1)·grain)`: nothing to store.
    Primes,
    /// Mergesort's lists.
    Lists(Vec<Vec<i64>>),
    /// The configuration of every Ising sample.
    Ising(IsingConfig),
    /// The OCL input stream `A`.
    Stream(Vec<i64>),
}

/// A kernel's result, which every variant must reproduce exactly.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// Primes per task.
    Counts(Vec<u64>),
    /// The sorted lists.
    Sorted(Vec<Vec<i64>>),
    /// The Ising summary (integer accumulators: exact in any order).
    Summary(Box<Summary>),
    /// The OCL output stream `B`.
    Stream(Vec<u64>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_topologies_have_p_processors() {
        for k in Kernel::ALL {
            assert_eq!(Kernel::from_name(k.name()), Some(k));
            for p in 1..=9 {
                assert_eq!(k.topology(p).unwrap().len(), p, "{} at P = {p}", k.name());
            }
        }
        assert_eq!(Kernel::from_name("quicksort"), None);
        // The tree farm in heap order: 1 and 2 are the root's children, 3 and 4 are 1's.
        let t = Kernel::PrimesTree.topology(5).unwrap();
        assert_eq!(t.children(0), &[1, 2]);
        assert_eq!(t.children(1), &[3, 4]);
        // Mergesort's root splits P − 1 ways.
        assert_eq!(Kernel::Mergesort.topology(4).unwrap().children(0).len(), 3);
        assert_eq!(Kernel::Mergesort.topology_name(4).unwrap(), "tree:3:2");
        assert_eq!(
            Kernel::Ising.topology_name(4).unwrap(),
            "binomial tree of 4"
        );
        assert_eq!(Kernel::Ising.topology_name(1).unwrap(), "chain:1");
    }

    #[test]
    fn a_grain_change_keeps_the_total_work() {
        let w = Workload::new(Kernel::PrimesChain);
        let fine = w.at_grain(500);
        assert_eq!(fine.tasks * 500, w.tasks * w.grain);
        assert_eq!(w.at_grain(u64::MAX).tasks, 1);
        let ocl = Workload::new(Kernel::Ocl);
        assert_eq!(ocl.at_grain(4).tasks, ocl.tasks);
        // 30 000 values in packets of 16.
        assert_eq!(ocl.units(), 1875);
        assert_eq!(w.units(), w.tasks);
    }

    #[test]
    fn bad_workloads_are_refused() {
        let mut w = Workload::new(Kernel::Mergesort);
        w.grain = 0;
        assert_eq!(
            w.check(&[1, 2]),
            Err(WorkloadError::ZeroGrain("keys a list"))
        );
        let mut w = Workload::new(Kernel::Ising);
        w.tasks = 0;
        assert_eq!(w.check(&[1]), Err(WorkloadError::ZeroTasks("samples")));
        let ocl = Workload::new(Kernel::Ocl);
        assert!(
            ocl.check(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 15, 16])
                .is_ok()
        );
        assert_eq!(
            ocl.check(&[11]),
            Err(WorkloadError::OclDivisibility {
                processors: 11,
                packet: 16,
                window: DEFAULT_OCL_WINDOW
            })
        );
        let mut w = Workload::new(Kernel::PrimesChain);
        w.tasks = u64::MAX;
        assert!(matches!(
            w.check(&[1]),
            Err(WorkloadError::TasksTooLarge(_))
        ));
    }

    #[test]
    fn rough_estimates_scale_with_the_kernels_operations() {
        for k in [
            Kernel::PrimesChain,
            Kernel::Mergesort,
            Kernel::Ising,
            Kernel::Ocl,
        ] {
            let w = Workload::new(k);
            assert!((w.rough_sequential_s() - DEFAULT_SEQUENTIAL_S).abs() < 1e-12);
        }
        let mut w = Workload::new(Kernel::Ising);
        w.tasks *= 10;
        assert!((w.rough_sequential_s() - 10.0 * DEFAULT_SEQUENTIAL_S).abs() < 1e-9);
        // Mergesort: 40 lists of 100 000 keys, three copies of 8 bytes a key and 24 a list.
        let m = Workload::new(Kernel::Mergesort);
        assert_eq!(m.rough_memory_bytes(), 3.0 * 40.0 * (800_000.0 + 24.0));
        // Primes: N^{3/2}/ln N dominates, so 100 times the integers (4·10⁶ → 4·10⁸) is
        // 1000 · ln(4·10⁶)/ln(4·10⁸) ≈ 768 times the divisions, 754 with the candidates.
        let mut p = Workload::new(Kernel::PrimesChain);
        p.tasks *= 100;
        let ratio = p.rough_sequential_s() / DEFAULT_SEQUENTIAL_S;
        assert!((750.0..760.0).contains(&ratio), "{ratio}");
    }
}
