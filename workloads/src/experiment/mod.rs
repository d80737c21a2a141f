//! What a user's own program needs to be run as the built-in programs are: repeated runs
//! with warm-up and seeds, each measured beside the program's own model, a sweep over the
//! number of processors, and a fit of the model's cost parameters.
//!
//! A program is a closure run on a [`Machine`](multicomputer_runtime::Machine) (it calls
//! [`Machine::run`](multicomputer_runtime::Machine::run), checks its results
//! against its sequential reference and returns the run's report); its [`Model`] is a pure
//! function of the machine (P, the link costs) and named cost parameters. An [`Experiment`]
//! joins them with the topology of P processors and the machine's configuration:
//!
//! 1. **Point** ([`Experiment::point`]): build the machine of P processors, run the program
//!    `warmup` times and discard the runs, then `runs` times (run `k` draws from `seed + k`),
//!    and put the makespans' mean ± sd beside the model's prediction.
//! 2. **Sweep** ([`Experiment::sweep`]): a point per processor count.
//! 3. **Fit** ([`Experiment::fit`]): the parameters that best fit every measured run, by
//!    relative error, with their standard errors and residuals.
//!
//! Nothing here prints or writes files: the `multicomputer` crate publishes a sweep and its
//! fit as a report (JSON, CSV, HTML, SVG plots), as its commands do.
//!
//! # Example
//!
//! A sum along a chain: each processor adds up its share of the items (1 µs each, emulated),
//! then passes its partial sum towards processor 0. The model, `T(P) = (N/P)·t + (P − 1)·α`,
//! starts from wrong values; in virtual time the fit recovers the machine's: `t` = 1 µs and
//! `α` = the message's start-up and latency, 21 µs.
//!
//! ```
//! use std::time::Duration;
//! use multicomputer_runtime::{LinkCost, MachineConfig, TimeMode, Topology};
//! use multicomputer_workloads::experiment::{Experiment, Model};
//!
//! const ITEMS: u64 = 960;
//! let config = MachineConfig {
//!     mode: TimeMode::Virtual,
//!     link: LinkCost {
//!         send_overhead: Duration::from_micros(20),
//!         latency: Duration::from_micros(1),
//!         ..LinkCost::default()
//!     },
//!     ..MachineConfig::default()
//! };
//! let model = Model::new(&[("t_item_s", 2e-6), ("alpha_s", 5e-6)], |machine, theta| {
//!     let p = machine.topology().len() as f64;
//!     ITEMS as f64 / p * theta[0] + (p - 1.0) * theta[1]
//! })?;
//! let experiment = Experiment::new("chain-sum", Topology::chain, config, |machine, _seed| {
//!     let record = machine.run(|p| {
//!         let (me, n) = (p.id() as u64, p.processors() as u64);
//!         let mine: u64 = (me * ITEMS / n..(me + 1) * ITEMS / n).sum();
//!         p.occupy(Duration::from_micros(ITEMS / n));
//!         let mut sum = mine;
//!         if let Some(next) = p.link_to(p.id() + 1) {
//!             sum += p.recv(next)?;
//!         }
//!         if let Some(previous) = p.id().checked_sub(1).and_then(|i| p.link_to(i)) {
//!             p.send(previous, sum)?;
//!         }
//!         Ok(sum)
//!     })?;
//!     // The sequential reference.
//!     assert_eq!(record.results[0], (0..ITEMS).sum::<u64>());
//!     Ok(record.report)
//! }, model);
//! let sweep = experiment.sweep([1, 2, 4, 8])?;
//! let fit = experiment.fit(&sweep)?;
//! assert!((fit.parameters[0].value - 1e-6).abs() < 1e-12);
//! assert!((fit.parameters[1].value - 21e-6).abs() < 1e-12);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod fit;
mod model;
mod run;

pub use fit::{Fit, FittedParameter};
pub use model::{Model, Parameter};
pub use run::{Experiment, Point, Sweep};

use multicomputer_runtime::{ConfigError, TopologyError};
use thiserror::Error;

use crate::analysis::FitError;

/// Why a user's program failed, as its closure says.
pub type ProgramError = Box<dyn std::error::Error + Send + Sync>;

/// Why an experiment could not be run or fitted.
#[derive(Debug, Error)]
pub enum ExperimentError {
    /// A parameter name is empty or given twice.
    #[error("parameter name '{0}' is empty or given twice")]
    ParameterName(String),
    /// A parameter value is NaN or infinite.
    #[error("parameter {name} = {value} is not a finite number")]
    ParameterValue {
        /// The parameter.
        name: String,
        /// Its value.
        value: f64,
    },
    /// No measured runs were asked for.
    #[error("an experiment needs at least 1 measured run")]
    NoRuns,
    /// A sweep over no processor counts.
    #[error("a sweep needs at least one processor count")]
    EmptySweep,
    /// The network of P processors cannot be built.
    #[error("no topology of {processors} processors: {source}")]
    Topology {
        /// P.
        processors: usize,
        /// Why.
        source: TopologyError,
    },
    /// The machine refused its configuration.
    #[error("the machine of {processors} processors: {source}")]
    Machine {
        /// P.
        processors: usize,
        /// Why.
        source: ConfigError,
    },
    /// The model's prediction is not a positive time.
    #[error("the model predicts {value} s on {processors} processors: not a positive time")]
    Prediction {
        /// P.
        processors: usize,
        /// The prediction.
        value: f64,
    },
    /// The program failed (or found a result that differs from its reference).
    #[error("the program on {processors} processors (seed {seed}): {source}")]
    Program {
        /// P.
        processors: usize,
        /// The run's seed.
        seed: u64,
        /// Why.
        source: ProgramError,
    },
    /// No run gave a finite makespan.
    #[error("no run on {processors} processors gave a finite makespan")]
    NoMakespan {
        /// P.
        processors: usize,
    },
    /// A makespan the fit cannot weigh (zero: the run took no emulated time).
    #[error("a run took {0} s: a fit by relative error needs every makespan > 0")]
    Unfittable(f64),
    /// The least-squares fit failed.
    #[error("the fit: {0}")]
    Fit(#[from] FitError),
}

#[cfg(test)]
mod tests;
