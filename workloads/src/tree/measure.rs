//! What a run on the tree engine measures, with the same keys as a model's prediction, and
//! its errors against that prediction.

use std::time::Duration;

use multicomputer_runtime::Topology;
use serde::Serialize;

use super::model::Prediction;
use super::{EngineRun, steady_throughput_per_s, throughput_per_s};
use crate::repetitions::{Quantities, mean_vector};

/// Measured quantities of a tree-engine run, with the same keys as the prediction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measured {
    /// (results − 1) / (last result − first result), tasks/s: the rate of (g).
    pub throughput_per_s: f64,
    /// Rate over the middle half of the results (steady state, no start-up or wind-down),
    /// tasks/s: the quantity `β_e` and `β_f` are fitted to.
    pub steady_throughput_per_s: f64,
    /// Sequential time over the makespan.
    pub speedup: f64,
    /// Emulated makespan, seconds.
    pub makespan_s: f64,
    /// Share of the tasks executed per level (index 0 = level 1, the leaves).
    pub fractions_by_level: Vec<f64>,
    /// Time of the first result at the root, seconds.
    pub startup_s: f64,
}

impl Measured {
    /// The measurement of an engine run on `topology`, with `g` tasks per result and a
    /// sequential time of `sequential_s` (the speedup's numerator).
    pub fn of<R>(run: &EngineRun<R>, topology: &Topology, g: f64, sequential_s: f64) -> Self {
        let times = &run.result_times;
        Self {
            throughput_per_s: throughput_per_s(times, g),
            steady_throughput_per_s: steady_throughput_per_s(times, g),
            speedup: sequential_s / run.report.makespan_s,
            makespan_s: run.report.makespan_s,
            fractions_by_level: run.fractions_by_level(topology),
            startup_s: times.first().map_or(f64::NAN, Duration::as_secs_f64),
        }
    }

    /// The mean of several runs' measurements, quantity by quantity (fractions level by
    /// level); `None` for no runs.
    pub fn mean(runs: &[Measured]) -> Option<Self> {
        if runs.is_empty() {
            return None;
        }
        let n = runs.len() as f64;
        let avg = |f: fn(&Measured) -> f64| runs.iter().map(f).sum::<f64>() / n;
        let fractions: Vec<&[f64]> = runs
            .iter()
            .map(|r| r.fractions_by_level.as_slice())
            .collect();
        Some(Self {
            throughput_per_s: avg(|m| m.throughput_per_s),
            steady_throughput_per_s: avg(|m| m.steady_throughput_per_s),
            speedup: avg(|m| m.speedup),
            makespan_s: avg(|m| m.makespan_s),
            fractions_by_level: mean_vector(&fractions),
            startup_s: avg(|m| m.startup_s),
        })
    }
}

impl Quantities for Measured {
    fn quantities(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("throughput_per_s", self.throughput_per_s),
            ("steady_throughput_per_s", self.steady_throughput_per_s),
            ("speedup", self.speedup),
            ("makespan_s", self.makespan_s),
            ("startup_s", self.startup_s),
        ]
    }
}

/// `100 (measured − predicted)/predicted`.
pub fn error_pct(measured: f64, predicted: f64) -> f64 {
    100.0 * (measured - predicted) / predicted
}

/// Relative errors of measured against predicted, in percent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Errors {
    /// Speedup.
    pub speedup: f64,
    /// Throughput of (g).
    pub throughput: f64,
    /// Steady-state throughput against the model's throughput.
    pub steady_throughput: f64,
    /// Makespan.
    pub makespan: f64,
    /// Per level: (measured − predicted) fraction, in percent of M.
    pub fractions_of_m: Vec<f64>,
}

impl Errors {
    /// The errors of `measured` against `predicted`.
    pub fn between(measured: &Measured, predicted: &Prediction) -> Self {
        Self {
            speedup: error_pct(measured.speedup, predicted.speedup),
            throughput: error_pct(measured.throughput_per_s, predicted.throughput_per_s),
            steady_throughput: error_pct(
                measured.steady_throughput_per_s,
                predicted.throughput_per_s,
            ),
            makespan: error_pct(measured.makespan_s, predicted.makespan_s),
            fractions_of_m: measured
                .fractions_by_level
                .iter()
                .zip(&predicted.fractions_by_level)
                .map(|(m, p)| 100.0 * (m - p))
                .collect(),
        }
    }

    /// The largest |fraction error|, percent of M.
    pub fn max_fraction_of_m(&self) -> f64 {
        self.fractions_of_m
            .iter()
            .fold(0.0_f64, |m, e| m.max(e.abs()))
    }
}

/// A cost the run paid on its critical path that the model does not have: its name, its size
/// and the speedup the model predicts with it added to the makespan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MissingTerm {
    /// What it is, in words.
    pub name: String,
    /// Its size: time added to the predicted makespan, seconds.
    pub time_s: f64,
    /// The model's speedup with it: `M T_e / (makespan + time_s)`.
    pub speedup: f64,
}

impl MissingTerm {
    /// The term `name` of `time_s` beside `predicted`.
    pub fn new(name: String, time_s: f64, predicted: &Prediction) -> Self {
        Self {
            name,
            time_s,
            speedup: predicted.speedup * predicted.makespan_s / (predicted.makespan_s + time_s),
        }
    }
}
