//! One collective run on a machine, checked against the sequential reference and measured
//! beside its model.

use std::time::Duration;

use multicomputer_runtime::{LinkCost, Machine, RunError, RunReport, Trace};
use serde::Serialize;
use thiserror::Error;

use super::{
    Algorithm, CollectiveError, Costs, Operation, Reduction, check, input, model_ns, reference, run,
};
use crate::repetitions::Quantities;
use multicomputer_runtime::Hints;

/// Bytes per element of the vectors a [`CollectiveSpec`] runs with (`f64`).
pub const ELEMENT_BYTES: usize = 8;

/// A collective to run: the operation, its algorithm, the vector and the reduction's cost.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CollectiveSpec {
    /// The operation.
    #[serde(serialize_with = "by_name_op")]
    pub operation: Operation,
    /// Its algorithm.
    #[serde(serialize_with = "by_name_alg")]
    pub algorithm: Algorithm,
    /// The root (broadcast, reduce, scatter, gather).
    pub root: usize,
    /// Elements of each processor's vector (`f64`, [`ELEMENT_BYTES`] each; a gather's and an
    /// all-gather's input is one block of ⌈n/p⌉ of them).
    pub elements: usize,
    /// γ: emulated compute time per byte combined, ns.
    pub gamma_ns_per_byte: f64,
}

fn by_name_op<S: serde::Serializer>(o: &Operation, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(o.name())
}

fn by_name_alg<S: serde::Serializer>(a: &Algorithm, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(a.name())
}

/// The measured quantities of one run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CollectiveMeasured {
    /// Emulated makespan, seconds.
    pub makespan_s: f64,
}

impl Quantities for CollectiveMeasured {
    fn quantities(&self) -> Vec<(&'static str, f64)> {
        vec![("makespan_s", self.makespan_s)]
    }
}

/// What the model predicts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CollectivePredicted {
    /// The model's makespan, seconds.
    pub makespan_s: f64,
    /// The same, in whole nanoseconds (what virtual time must equal).
    pub makespan_ns: u64,
}

/// One collective run beside its model (every result has equalled the sequential reference).
#[derive(Debug, Clone, Serialize)]
pub struct CollectiveComparison {
    /// What ran.
    pub spec: CollectiveSpec,
    /// The machine's topology.
    pub topology: String,
    /// Its processors.
    pub processors: usize,
    /// Bytes of each processor's vector.
    pub bytes: usize,
    /// The switching model of routed messages.
    pub switching: &'static str,
    /// Measured.
    pub measured: CollectiveMeasured,
    /// Modelled.
    pub predicted: CollectivePredicted,
    /// (measured − predicted)/predicted, percent.
    pub error_pct: f64,
    /// Measured minus predicted, ns: in virtual time, 0 unless messages queued on shared
    /// links (which the model leaves out).
    pub excess_ns: i64,
    /// The machine's whole report.
    pub report: RunReport,
    /// The event trace, if the machine recorded one.
    #[serde(skip)]
    pub trace: Option<Trace>,
}

/// Why a collective run failed.
#[derive(Debug, Error)]
pub enum CollectiveRunError {
    /// The choice does not suit the machine.
    #[error(transparent)]
    Choice(#[from] CollectiveError),
    /// The run failed.
    #[error(transparent)]
    Run(#[from] RunError),
    /// A result differed from the sequential reference.
    #[error("P{processor}'s result differs from the sequential reference")]
    Wrong {
        /// The first processor whose result is wrong.
        processor: usize,
    },
}

impl CollectiveSpec {
    /// Bytes of each processor's vector.
    pub fn bytes(&self) -> usize {
        self.elements * ELEMENT_BYTES
    }

    /// What auto mode should know: the combination of one element as the smallest cost.
    pub fn hints(&self) -> Hints {
        let gamma =
            Duration::from_nanos((self.gamma_ns_per_byte * ELEMENT_BYTES as f64).round() as u64);
        Hints {
            smallest_cost: (!gamma.is_zero()).then_some(gamma),
            ..Hints::default()
        }
    }

    /// The same collective with `factor` times fewer elements, for links `link` whose τ, and
    /// a reduction whose γ, are `factor` times larger: every message and every combination
    /// takes the time the full vectors' would, so the virtual times are the full size's while
    /// the contents are small stand-ins (for grids whose full vectors cannot be held).
    /// Exactly so when `factor` is a power of two (τ·bytes and γ·bytes are then the same
    /// floating-point numbers) and every block scales with it (the stand-in's elements a
    /// multiple of the `processors`), and trivially for `factor` 1; `None` otherwise.
    pub fn stand_in(
        &self,
        link: &LinkCost,
        factor: usize,
        processors: usize,
    ) -> Option<(CollectiveSpec, LinkCost)> {
        let elements = self.elements / factor;
        let exact = factor == 1
            || factor.is_power_of_two()
                && self.elements % factor == 0
                && elements % processors == 0;
        exact.then(|| {
            let scale = factor as f64;
            let spec = CollectiveSpec {
                elements,
                gamma_ns_per_byte: self.gamma_ns_per_byte * scale,
                ..*self
            };
            let link = LinkCost {
                per_byte_ns: link.per_byte_ns * scale,
                ..*link
            };
            (spec, link)
        })
    }

    /// The model's makespan on `machine`, ns.
    pub fn model_ns(&self, machine: &Machine) -> Result<u64, CollectiveError> {
        let costs = Costs::of(&machine.config().link, self.gamma_ns_per_byte);
        model_ns(
            self.operation,
            self.algorithm,
            machine.topology(),
            self.root,
            self.elements,
            ELEMENT_BYTES,
            &costs,
        )
    }

    /// Runs the collective on `machine`, checks every result against the sequential
    /// reference and compares the makespan with the model.
    pub fn run(&self, machine: &Machine) -> Result<CollectiveComparison, CollectiveRunError> {
        let p = machine.topology().len();
        check(self.operation, self.algorithm, p, self.root)?;
        let predicted_ns = self.model_ns(machine)?;
        let reduction = Reduction::sum(self.gamma_ns_per_byte);
        let (op, alg, root, n) = (self.operation, self.algorithm, self.root, self.elements);
        let record = machine.run(|proc| {
            let data = input(op, proc.id(), p, n);
            run(proc, op, alg, root, data, &reduction)
        })?;
        let inputs: Vec<Vec<f64>> = (0..p).map(|i| input(op, i, p, n)).collect();
        let want = reference(op, root, &inputs, &reduction);
        if let Some(processor) =
            (0..p).find(|&i| want[i].as_ref().is_some_and(|w| w != &record.results[i]))
        {
            return Err(CollectiveRunError::Wrong { processor });
        }
        let report = record.report;
        let measured_ns = report.makespan().as_nanos() as u64;
        let predicted_s = predicted_ns as f64 * 1e-9;
        Ok(CollectiveComparison {
            spec: *self,
            topology: report.topology.clone(),
            processors: p,
            bytes: self.bytes(),
            switching: machine.config().link.switching.name(),
            measured: CollectiveMeasured {
                makespan_s: report.makespan_s,
            },
            predicted: CollectivePredicted {
                makespan_s: predicted_s,
                makespan_ns: predicted_ns,
            },
            error_pct: if predicted_ns > 0 {
                100.0 * (measured_ns as f64 - predicted_ns as f64) / predicted_ns as f64
            } else {
                0.0
            },
            excess_ns: measured_ns as i64 - predicted_ns as i64,
            report,
            trace: record.trace,
        })
    }
}
