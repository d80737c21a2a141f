//! `multicomputer`: run, predict, sweep, fit and report on an emulated multicomputer.
//!
//! The crate is the `multicomputer` command line ([`cli`]) and a small library for a user's
//! own program: [`experiment`] runs it as the commands run the built-in programs (warm-up
//! and measured runs with their seeds, beside its own model, a sweep over P, a fit of the
//! model's parameters), and [`publish`] writes the result as the commands write theirs: a
//! run folder with the report as JSON, CSV and an HTML page, and its SVG plots.
//!
//! # Example
//!
//! A chain passes a partial sum towards processor 0 after each processor has worked
//! 256 µs / P; its model is `T(P) = W/P + (P − 1)·α`. The sweep over P is published in a
//! folder of its own and the fit recovers `α`, one message's start-up (10 µs, the default
//! link has no latency):
//!
//! ```
//! use std::time::Duration;
//! use multicomputer::experiment::{Experiment, Model};
//! use multicomputer_runtime::{LinkCost, MachineConfig, TimeMode, Topology};
//!
//! let config = MachineConfig {
//!     mode: TimeMode::Virtual,
//!     link: LinkCost { send_overhead: Duration::from_micros(10), ..LinkCost::default() },
//!     ..MachineConfig::default()
//! };
//! let model = Model::new(&[("work_s", 256e-6), ("alpha_s", 1e-6)], |machine, theta| {
//!     let p = machine.topology().len() as f64;
//!     theta[0] / p + (p - 1.0) * theta[1]
//! })?;
//! let experiment = Experiment::new("chain", Topology::chain, config, |machine, _seed| {
//!     let record = machine.run(|p| {
//!         p.occupy(Duration::from_micros(256 / p.processors() as u64));
//!         let mut sum = 1u64;
//!         if let Some(next) = p.link_to(p.id() + 1) {
//!             sum += p.recv(next)?;
//!         }
//!         if let Some(parent) = p.parent() {
//!             p.send(parent, sum)?;
//!         }
//!         Ok(sum)
//!     })?;
//!     assert_eq!(record.results[0], machine.topology().len() as u64);
//!     Ok(record.report)
//! }, model).runs(2);
//! let sweep = experiment.sweep([1, 2, 4, 8])?;
//! let fit = experiment.fit(&sweep)?;
//! assert!((fit.parameters[1].value - 10e-6).abs() < 1e-12);
//!
//! let out = tempfile::tempdir()?;
//! let folder = multicomputer::publish(out.path(), &sweep, Some(&fit))?;
//! assert!(folder.join("report.html").is_file() && folder.join("makespan.svg").is_file());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Inside, the command line is built in layers, each depending only on those after it:
//! `args` (clap) → `plan` (validated plans, flag-named errors, the machine's configuration) →
//! `exec` (runs, sweeps, estimates, progress) on the workloads and the runtime → `report`
//! (typed reports, one exporter per format) → `plot` and `files` (publishing a run's files
//! as one set). The commands (`run`) sit on top; none calls another.

// The arguments' doc comments are the `--help` text (clap), written for a terminal:
// `[M,1]` and `<out>` there are not links or HTML.
#[allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]
mod args;
pub mod cli;
mod exec;
mod files;
mod launch;
mod plan;
mod plot;
#[cfg(test)]
mod props;
mod publish;
mod report;
mod run;
mod tuning;
mod units;

pub use multicomputer_workloads::experiment;
pub use publish::{PublishError, publish};
