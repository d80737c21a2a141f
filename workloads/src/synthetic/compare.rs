//! A synthetic run measured beside its exact expectation.

use multicomputer_runtime::{Machine, RunError, RunReport, Trace};
use serde::Serialize;

use super::{Pattern, PholdOutcome, SyntheticSpec, phold, program};
use crate::repetitions::Quantities;

/// The measured times of one run (the quantities repeated runs summarise).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SyntheticMeasured {
    /// Emulated makespan, seconds.
    pub makespan_s: f64,
    /// Wall time, seconds.
    pub wall_s: f64,
    /// Wall time over D: what a wall-clock emulator would report as the makespan (threads
    /// only; virtual time keeps no wall clock).
    pub wall_over_dilation_s: Option<f64>,
}

impl Quantities for SyntheticMeasured {
    fn quantities(&self) -> Vec<(&'static str, f64)> {
        let mut q = vec![("makespan_s", self.makespan_s), ("wall_s", self.wall_s)];
        if let Some(w) = self.wall_over_dilation_s {
            q.push(("wall_over_dilation_s", w));
        }
        q
    }
}

/// One synthetic run beside its expectation.
#[derive(Debug, Clone, Serialize)]
pub struct SyntheticComparison {
    /// The machine's topology.
    pub topology: String,
    /// Its processors.
    pub processors: usize,
    /// `independent`, `reduce` or `phold`.
    pub pattern: &'static str,
    /// Rounds per processor.
    pub rounds: u64,
    /// Occupation per round, seconds.
    pub occupy_s: f64,
    /// The time mode the machine ran in.
    pub mode: String,
    /// The dilation factor D (none in virtual time).
    pub dilation: Option<f64>,
    /// Emulated makespan, seconds.
    pub makespan_s: f64,
    /// `rounds × occupy` for the independent pattern, else null.
    pub expected_makespan_s: Option<f64>,
    /// (makespan − expected)/expected, percent.
    pub error_pct: Option<f64>,
    /// Wall time, seconds.
    pub wall_s: f64,
    /// Wall time divided by D (threads only).
    pub wall_over_dilation_s: Option<f64>,
    /// PHOLD's events, rate and checks (the `phold` pattern only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phold: Option<PholdOutcome>,
    /// The machine's whole report (accounting, fidelity).
    pub report: RunReport,
    /// The event trace, if the machine recorded one.
    #[serde(skip)]
    pub trace: Option<Trace>,
}

impl SyntheticComparison {
    /// The measured times.
    pub fn measured(&self) -> SyntheticMeasured {
        SyntheticMeasured {
            makespan_s: self.makespan_s,
            wall_s: self.wall_s,
            wall_over_dilation_s: self.wall_over_dilation_s,
        }
    }
}

impl SyntheticSpec {
    /// Runs the program on `machine` and compares its makespan with the expectation.
    pub fn run(&self, machine: &Machine) -> Result<SyntheticComparison, RunError> {
        let (report, trace, phold) = match self.pattern {
            Pattern::Phold(p) => {
                let lookahead = machine.spec().link.latency;
                let record = machine.run(phold::program(p, lookahead))?;
                let reference = phold::reference(&p, machine.topology(), lookahead);
                let outcome = p.outcome(&record.results, &reference, record.report.wall_s());
                (record.report, record.trace, Some(outcome))
            }
            _ => {
                let record = machine.run(program(*self))?;
                (record.report, record.trace, None)
            }
        };
        let expected = self.expected_makespan_s();
        Ok(SyntheticComparison {
            topology: report.topology.clone(),
            processors: report.processors,
            pattern: self.pattern.name(),
            rounds: self.rounds,
            occupy_s: self.occupy.as_secs_f64(),
            mode: report.time.name().to_string(),
            dilation: report.time.dilation(),
            makespan_s: report.makespan_s,
            expected_makespan_s: expected,
            error_pct: expected.map(|e| 100.0 * (report.makespan_s - e) / e),
            wall_s: report.wall_s(),
            wall_over_dilation_s: report.time.dilation().map(|d| report.wall_s() / d),
            phold,
            report,
            trace,
        })
    }
}
