//! Parallel programs for the emulated multicomputer, each with its sequential reference and its
//! analytic model, and the analysis (least squares) shared by all of them.
//!
//! Every workload has the same shape: a spec of what runs, a model that predicts it from the
//! same spec (pure functions, citing their paper), the program (with its sequential
//! reference), and a `compare` module that runs the program on a machine, checks it and
//! measures what the model predicts. Every number a report shows is computed here.
//!
//! ## The programs
//!
//! - [`farm`]: the processor farm of the farm paper on a tree ([`tree`] is its task engine:
//!   flood fill, priorities, results to the root); synthetic tasks or real ones (primes).
//! - [`dnc`]: divide and conquer on the same engine: synthetic `T_s`, `T_e`, `T_j` per level, or
//!   a real mergesort.
//! - [`ising`]: the 3D (or 2D) Ising model's Metropolis samples, farmed out centrally or over
//!   a tree, as the scalability paper measured them.
//! - [`ocl`]: the OCL systolic array of the grain-size paper, one process per processor.
//! - [`synthetic`]: rounds of occupation and messages, for the emulator itself.
//! - [`speedup`]: real speedup of real kernels on the runtime, rayon and scoped threads.
//!
//! A user's own program gets the same through [`experiment`]: runs with warm-up and seeds
//! beside its own model, a sweep over P and a fit of the model's parameters.
//!
//! Around them: [`analysis`] (least squares, the scalability analysis), [`repetitions`]
//! (repeated runs summarised), [`estimate`] (confidence intervals of fitted parameters),
//! [`hints`] (what a workload tells its machine), [`unit_costs`] (the costs of declared work).
//!
//! ## A farm beside its model
//!
//! Forty tasks of 1 ms on a chain of two processors, in virtual time (exact and repeatable):
//! the run's speedup is measured, and the farm model predicts it from the same spec.
//!
//! ```
//! use std::time::Duration;
//! use multicomputer_runtime::{Machine, MachineConfig, TimeMode, Topology};
//! use multicomputer_workloads::farm::{FarmExperiment, FarmSpec};
//!
//! let experiment = FarmExperiment {
//!     spec: FarmSpec { tasks: 40, te: Duration::from_millis(1), ..FarmSpec::default() },
//!     beta_e: Duration::from_micros(50),
//!     beta_f: Duration::from_micros(100),
//!     queue: 1,
//!     guided: false,
//!     tau_s: 0.0,
//! };
//! let topology = Topology::chain(2)?;
//! let config = MachineConfig {
//!     mode: TimeMode::Virtual,
//!     hints: experiment.hints(&topology)?,
//!     ..MachineConfig::default()
//! };
//! let c = experiment.run(&Machine::new(topology, config)?)?.comparison;
//! println!("speedup {:.3} measured, {:.3} predicted", c.measured.speedup, c.predicted.speedup);
//! assert!(c.errors_pct.speedup.abs() < 5.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod analysis;
pub mod collectives;
pub mod dnc;
pub mod estimate;
pub mod experiment;
pub mod farm;
pub mod hints;
pub mod ising;
pub mod ocl;
pub mod repetitions;
pub mod speedup;
pub mod synthetic;
pub mod tree;
pub mod unit_costs;
