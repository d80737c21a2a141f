//! Real speedup on this host's cores: a real kernel run natively on the runtime at
//! P = 1, 2, …, beside what a user would pick instead — rayon on a pool of P threads, and P
//! scoped threads with static chunks — and beside the kernel's model.
//!
//! # Definitions
//!
//! With `T_seq` the wall time of the best sequential program (the kernel's own sequential
//! code, not the parallel program on one processor) and `T(P)` a variant's wall time on P:
//!
//! ```text
//! real speedup   S(P)  = T_seq / T(P)
//! rough speedup  S'(P) = T_runtime(1) / T_runtime(P)     (the scalability paper's)
//! efficiency     E(P)  = S(P) / P
//! runtime/rayon        = S_runtime(P) / S_rayon(P) = T_rayon(P) / T_runtime(P)
//! ```
//!
//! Each is taken round by round (every round runs every variant once, the sequential program
//! first) and reported as the median over the rounds with its range ([`Spread`]).
//!
//! # The kernels
//!
//! | kernel | on the runtime | rayon | scoped threads |
//! |---|---|---|---|
//! | `primes-chain`, `primes-tree` | the farm on a chain / binary tree | `par_iter` over tasks | static chunks of tasks |
//! | `mergesort` | divide and conquer, `tree:(P−1):2` | `join` down to the leaf pieces | static chunks of lists |
//! | `ising` | the tree mechanism | `par_iter` over samples | static blocks of samples |
//! | `ocl` | the linear array, `[N/P, K]` | `par_chunks` of K outputs | static chunks of outputs |
//!
//! Natively the runtime runs pinned, spinning processors at `D = 1` with free links: no
//! emulated cost is added, so the model's overheads (`β_e`, `β_f`, …) are the runtime's own,
//! fitted from the same runs ([`model`]).
//!
//! # Example
//!
//! ```no_run
//! use multicomputer_runtime::Machine;
//! use multicomputer_workloads::speedup::{
//!     Kernel, RuntimeError, SpeedupPlan, Workload, machine_config,
//! };
//!
//! let plan = SpeedupPlan {
//!     workload: Workload::new(Kernel::PrimesChain),
//!     processors: vec![1, 2],
//!     rounds: 3,
//!     warmup: 1,
//!     grains: None,
//! };
//! // One machine per P, built before the rounds (as the rayon pools are).
//! let mut machines = Vec::new();
//! for &p in &plan.processors {
//!     let (topology, config) = machine_config(&plan.workload, p)?;
//!     machines.push(Machine::new(topology, config).map_err(RuntimeError::from)?);
//! }
//! let result = plan.prepare(&machines)?.run(&mut |_| {})?;
//! for p in &result.points {
//!     println!("P = {}: speedup {:.2}, rayon {:.2}", p.processors,
//!              p.runtime.speedup.median, p.rayon.speedup.median);
//! }
//! # Ok::<(), multicomputer_workloads::speedup::SpeedupError>(())
//! ```

mod baselines;
mod error;
mod experiment;
mod grain;
mod host;
mod kernel;
pub mod model;
mod plan;
mod rounds;
mod runtime;
mod spread;

pub use baselines::{rayon, scoped, sequential};
pub use error::SpeedupError;
pub use experiment::{Point, Predicted, Prepared, SpeedupResult, Step};
pub use grain::{EFFICIENCY_TARGETS, GrainPoint, GrainSweep, Threshold, threshold};
pub use host::{Host, LoadAverage, OtherLoad, free_cores, pinning_works, usable_cores};
pub use kernel::{
    DEFAULT_OCL_WINDOW, DEFAULT_SEQUENTIAL_S, Inputs, Kernel, Output, Workload, WorkloadError,
    ising_config,
};
pub use model::{ModelFit, Overheads, Parameter, WorkCosts};
pub use plan::SpeedupPlan;
pub use rounds::Timing;
pub use runtime::{RuntimeError, RuntimeRun, machine_config, native_config, run as run_on_runtime};
pub use spread::Spread;
