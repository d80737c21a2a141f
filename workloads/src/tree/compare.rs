//! A run on the tree engine measured beside its model: what every tree program (farm, divide
//! and conquer) reports, and the mean of several runs.

use multicomputer_runtime::{Fidelity, Machine, PartsReport, Trace};
use serde::Serialize;

use super::EngineRun;
use super::measure::{Errors, Measured, MissingTerm, error_pct};
use super::model::Prediction;

/// A tree-engine run measured beside its model.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// The machine's topology, as written on the command line.
    pub topology: String,
    /// Its processors.
    pub processors: usize,
    /// What was measured (the mean over the runs, for several).
    pub measured: Measured,
    /// What the model predicts (with the measured task time for a real kernel).
    pub predicted: Prediction,
    /// Speedup error, percent.
    pub error_pct: f64,
    /// Every error, percent.
    pub errors_pct: Errors,
    /// What the run spent that the model leaves out, by name and size (a real kernel's
    /// divide and conquer: local execution on a level the model has only forwarding).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing_terms: Vec<MissingTerm>,
    /// How faithfully the host kept emulated time.
    pub fidelity: Fidelity,
    /// The time mode the machine ran in: `native`, `dilated` or `virtual`.
    pub mode: &'static str,
    /// The dilation factor D (none in virtual time).
    pub dilation: Option<f64>,
    /// Wall time of the run, seconds.
    pub wall_s: f64,
    /// How a partitioned run was shared out (`--partitions` only; depends on K).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parts: Option<PartsReport>,
    /// The event trace, if the machine recorded one.
    #[serde(skip)]
    pub trace: Option<Trace>,
}

impl Comparison {
    /// The comparison of `run` on `machine`, measured as `measured`, with the model's
    /// `predicted` and the terms it leaves out.
    pub fn of<R>(
        machine: &Machine,
        run: EngineRun<R>,
        measured: Measured,
        predicted: Prediction,
        missing_terms: Vec<MissingTerm>,
    ) -> Self {
        let topology = machine.topology();
        let errors_pct = Errors::between(&measured, &predicted);
        Self {
            topology: topology.to_string(),
            processors: topology.len(),
            error_pct: errors_pct.speedup,
            errors_pct,
            measured,
            predicted,
            missing_terms,
            fidelity: run.report.fidelity.clone(),
            mode: machine.spec().time.name(),
            dilation: machine.spec().time.dilation(),
            wall_s: run.report.wall_s(),
            parts: run.report.parts.clone(),
            trace: run.trace,
        }
    }

    /// The measured speedup's error against the model with each missing term added, percent.
    pub fn errors_with_missing_terms_pct(&self) -> Vec<f64> {
        self.missing_terms
            .iter()
            .map(|t| error_pct(self.measured.speedup, t.speedup))
            .collect()
    }

    /// One comparison standing for several runs of the same experiment: the mean
    /// measurement, its errors against the last run's prediction, the worst fidelity and the
    /// total wall time, without a trace; `None` for no runs.
    pub fn combine<'a>(runs: impl Iterator<Item = &'a Comparison> + Clone) -> Option<Self> {
        let last = runs.clone().last()?;
        let measured =
            Measured::mean(&runs.clone().map(|r| r.measured.clone()).collect::<Vec<_>>())?;
        let errors_pct = Errors::between(&measured, &last.predicted);
        Some(Self {
            topology: last.topology.clone(),
            processors: last.processors,
            error_pct: errors_pct.speedup,
            errors_pct,
            measured,
            predicted: last.predicted.clone(),
            missing_terms: last.missing_terms.clone(),
            fidelity: worst_fidelity(runs.clone().map(|r| &r.fidelity))?.clone(),
            mode: last.mode,
            dilation: last.dilation,
            wall_s: runs.map(|r| r.wall_s).sum(),
            parts: last.parts.clone(),
            trace: None,
        })
    }
}

/// The fidelity with the largest share of late waits.
pub fn worst_fidelity<'a>(all: impl Iterator<Item = &'a Fidelity>) -> Option<&'a Fidelity> {
    let share = |f: &Fidelity| {
        if f.waits == 0 {
            0.0
        } else {
            f.late_waits as f64 / f.waits as f64
        }
    };
    all.max_by(|a, b| share(a).total_cmp(&share(b)))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::tree::Bound;

    /// A prediction bound by processors, with these fractions, makespan and speedup.
    pub(crate) fn prediction(fractions: Vec<f64>, makespan_s: f64, speedup: f64) -> Prediction {
        Prediction {
            throughput_per_s: 1000.0,
            speedup,
            makespan_s,
            fractions_by_level: fractions,
            startup_s: 0.001,
            bound: Bound::Processors,
        }
    }

    #[test]
    fn errors_are_relative_and_fractions_in_percent_of_m() {
        let m = Measured {
            throughput_per_s: 1100.0,
            steady_throughput_per_s: 900.0,
            speedup: 2.0,
            makespan_s: 0.5,
            fractions_by_level: vec![0.6, 0.4],
            startup_s: 0.002,
        };
        let e = Errors::between(&m, &prediction(vec![0.5, 0.5], 0.4, 2.5));
        assert!((e.speedup + 20.0).abs() < 1e-12);
        assert!((e.throughput - 10.0).abs() < 1e-12);
        assert!((e.steady_throughput + 10.0).abs() < 1e-12);
        assert!((e.makespan - 25.0).abs() < 1e-12);
        assert!((e.fractions_of_m[0] - 10.0).abs() < 1e-12);
        assert!((e.fractions_of_m[1] + 10.0).abs() < 1e-12);
        assert!((e.max_fraction_of_m() - 10.0).abs() < 1e-12);
    }

    #[test]
    fn the_mean_of_runs_is_taken_quantity_by_quantity() {
        let run = |s: f64, f: f64| Measured {
            throughput_per_s: 10.0 * s,
            steady_throughput_per_s: 10.0 * s,
            speedup: s,
            makespan_s: 1.0 / s,
            fractions_by_level: vec![f, 1.0 - f],
            startup_s: 0.1,
        };
        let m = Measured::mean(&[run(1.0, 0.2), run(3.0, 0.4)]).unwrap();
        assert_eq!(m.speedup, 2.0);
        assert!((m.makespan_s - (1.0 + 1.0 / 3.0) / 2.0).abs() < 1e-15);
        assert!((m.fractions_by_level[0] - 0.3).abs() < 1e-15);
        assert!(Measured::mean(&[]).is_none());
    }

    #[test]
    fn runs_combine_into_their_mean_and_worst_fidelity() {
        let run = |speedup: f64, late_waits: u64| {
            let measured = Measured {
                throughput_per_s: 100.0 * speedup,
                steady_throughput_per_s: 100.0 * speedup,
                speedup,
                makespan_s: 1.0 / speedup,
                fractions_by_level: vec![0.5, 0.5],
                startup_s: 0.001,
            };
            let predicted = prediction(vec![0.5, 0.5], 0.5, 2.5);
            let errors_pct = Errors::between(&measured, &predicted);
            Comparison {
                topology: "chain:2".into(),
                processors: 2,
                error_pct: errors_pct.speedup,
                errors_pct,
                measured,
                predicted,
                missing_terms: Vec::new(),
                parts: None,
                fidelity: Fidelity {
                    exact: false,
                    dilation: Some(2.0),
                    strategy: None,
                    waits: 10,
                    late_waits,
                    tolerance_ns: 1000,
                    mean_lateness_ns: 0.0,
                    p99_lateness_ns: 0,
                    max_lateness_ns: 0,
                    warning: None,
                    cut_links: None,
                },
                mode: "dilated",
                dilation: Some(2.0),
                wall_s: 1.5,
                trace: None,
            }
        };
        let runs = [run(2.0, 1), run(3.0, 4), run(1.0, 0)];
        let c = Comparison::combine(runs.iter()).unwrap();
        assert_eq!(c.measured.speedup, 2.0);
        assert!((c.error_pct + 20.0).abs() < 1e-12);
        assert_eq!(c.fidelity.late_waits, 4);
        assert_eq!(c.wall_s, 4.5);
        assert!(Comparison::combine([].iter()).is_none());
    }
}
