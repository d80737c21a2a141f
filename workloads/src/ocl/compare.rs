//! OCL measured beside the paper's sequence-function models: one run compared with its
//! prediction ([`OclComparison`]), the paper's grid ([`OclTable`], [`OclTable::paper_grains`])
//! and a fit of a timing table compared with the constants it was made with
//! ([`OclFitComparison`]).

use std::collections::BTreeMap;

use serde::Serialize;

use super::fit::{
    self, FitQuality, PAPER_ALPHA_S, PAPER_ALPHA0_S, PAPER_ALPHA1_S, PAPER_BETA_KK_S,
    PAPER_BETA_M1_S, PAPER_KK_TABLE, PAPER_M1_TABLE, TimingRow, Weighting,
};
use super::grain::{Grain, OclError};
use super::model::{self, Costs};
use super::pipeline::{PipelineCosts, PipelineRun};
use crate::estimate::Interval;
use crate::repetitions::Quantities;

/// Which of the paper's two tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OclTable {
    /// `[M,1]` (§4.1): grain column `m`.
    M1,
    /// `[K,K]` (§4.2): grain column `k`.
    Kk,
}

impl OclTable {
    /// The grain column's name in a table: `m` or `k`.
    pub fn column(self) -> &'static str {
        match self {
            Self::M1 => "m",
            Self::Kk => "k",
        }
    }

    /// `m1` or `kk`.
    pub fn name(self) -> &'static str {
        match self {
            Self::M1 => "m1",
            Self::Kk => "kk",
        }
    }

    /// The paper's section.
    pub fn section(self) -> &'static str {
        match self {
            Self::M1 => "§4.1",
            Self::Kk => "§4.2",
        }
    }

    /// The grain of this table's transformation with window `n` and grain `g` (M or K).
    pub fn grain(self, n: usize, g: usize) -> Result<Grain, OclError> {
        match self {
            Self::M1 => Grain::m1(n, g),
            Self::Kk => Grain::kk(n, g),
        }
    }

    /// The paper's published table.
    pub fn paper_table(self) -> &'static [TimingRow] {
        match self {
            Self::M1 => &PAPER_M1_TABLE,
            Self::Kk => &PAPER_KK_TABLE,
        }
    }

    /// The paper's published constants (`α1 = 0` for `[M,1]`).
    pub fn paper_costs(self) -> Costs {
        match self {
            Self::M1 => Costs::single(PAPER_ALPHA_S, PAPER_BETA_M1_S),
            Self::Kk => Costs {
                alpha0_s: PAPER_ALPHA0_S,
                alpha1_s: PAPER_ALPHA1_S,
                beta_s: PAPER_BETA_KK_S,
            },
        }
    }

    /// The paper's grains for window `n`, or every divisor of `n` for a window it did not run.
    pub fn paper_grains(self, n: usize) -> Vec<usize> {
        let from_paper: Vec<usize> = self
            .paper_table()
            .iter()
            .filter(|r| r.n == n)
            .map(|r| r.grain)
            .collect();
        if from_paper.is_empty() {
            (1..=n).filter(|g| n % g == 0).collect()
        } else {
            from_paper
        }
    }

    /// The model's consumption time for every grain that divides `n`, `(grain, seconds)`.
    pub fn model_curve(self, n: usize, costs: Costs, l: u64) -> Vec<(usize, f64)> {
        (1..=n)
            .filter(|g| n % g == 0)
            .filter_map(|g| self.grain(n, g).ok())
            .map(|grain| (grain.m(), model::consumption_time_s(grain, costs, l)))
            .collect()
    }

    /// The constants fitted to `rows` (relative weighting), if the fit succeeds.
    pub fn fitted_costs(self, rows: &[TimingRow]) -> Option<Costs> {
        match self {
            Self::M1 => fit::fit_m1(rows, Weighting::Relative)
                .ok()
                .map(|f| f.costs()),
            Self::Kk => fit::fit_kk(rows, Weighting::Relative)
                .ok()
                .map(|f| f.costs()),
        }
    }
}

/// How a grain is written on the command line: `fine`, `m1:M`, `kk:K` or `mk:M,K`.
pub fn transform_label(grain: Grain) -> String {
    match (grain.m(), grain.k()) {
        (1, 1) => "fine".into(),
        (m, 1) => format!("m1:{m}"),
        (m, k) if m == k => format!("kk:{k}"),
        (m, k) => format!("mk:{m},{k}"),
    }
}

/// The model's predictions beside a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Predicted {
    /// `α0` used (`α` for single values).
    pub alpha0_s: f64,
    /// `α1` used.
    pub alpha1_s: f64,
    /// `β` used.
    pub beta_s: f64,
    /// `σ(D̄_{N/M}, ⌈L/K⌉ − 1)`: time to consume L inputs (§4.1, §4.2).
    pub consumption_s: f64,
    /// `t_{M,K}(L)`: time to produce L outputs (§2.3, §3.3).
    pub output_s: f64,
    /// `s(L) = LNβ` (§2.3).
    pub sequential_s: f64,
    /// `s(L)/t(L)`.
    pub speedup: f64,
    /// Speedup over processes.
    pub efficiency: f64,
    /// Speedup as `L → ∞`.
    pub asymptotic_speedup: f64,
    /// Efficiency as `L → ∞`.
    pub asymptotic_efficiency: f64,
    /// `2(α0 + Kα1)/(KMβ)` (§3.3).
    pub communication_overhead: f64,
    /// `√(2α0/β)` (§4.2); for K = 1 programs `α0 = α`.
    pub optimal_k: f64,
    /// `(N/M)(M + 3K)` (§3.3).
    pub variables: usize,
}

/// The prediction of `grain` with constants `c` for a stream of `l` values.
pub fn predicted(grain: Grain, c: Costs, l: u64) -> Predicted {
    let p = model::predict(grain, c, l);
    Predicted {
        alpha0_s: c.alpha0_s,
        alpha1_s: c.alpha1_s,
        beta_s: c.beta_s,
        consumption_s: p.consumption_time_s,
        output_s: p.output_time_s,
        sequential_s: p.sequential_time_s,
        speedup: p.speedup,
        efficiency: p.efficiency,
        asymptotic_speedup: p.asymptotic_speedup,
        asymptotic_efficiency: p.asymptotic_efficiency,
        communication_overhead: p.communication_overhead,
        optimal_k: model::optimal_packet_size(c),
        variables: p.variables,
    }
}

fn pct(measured: f64, predicted: f64) -> f64 {
    100.0 * (measured - predicted) / predicted
}

/// The measured times of one run (the quantities repeated runs summarise).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct OclMeasured {
    /// Time to consume the L inputs (emulated, or wall clock for native costs), seconds.
    pub consumption_s: f64,
    /// Time to produce the L outputs, seconds.
    pub output_s: f64,
}

impl Quantities for OclMeasured {
    fn quantities(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("consumption_s", self.consumption_s),
            ("output_s", self.output_s),
        ]
    }
}

/// One OCL run measured beside its model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OclComparison {
    /// `fine`, `m1:M`, `kk:K` or `mk:M,K`.
    pub transform: String,
    /// Window length N.
    pub n: usize,
    /// Cell size M.
    pub m: usize,
    /// Packet size K.
    pub k: usize,
    /// Stream length L.
    pub l: u64,
    /// Processes N/M.
    pub processes: usize,
    /// Packets fed, ⌈L/K⌉.
    pub packets: u64,
    /// `emulated` or `native`.
    pub costs: &'static str,
    /// Measured time to consume the L inputs.
    pub consumption_s: f64,
    /// Measured time to produce the L outputs.
    pub output_s: f64,
    /// The model (absent for native costs unless constants were given).
    pub predicted: Option<Predicted>,
    /// (measured − predicted)/predicted of the consumption time, percent.
    pub consumption_error_pct: Option<f64>,
    /// (measured − predicted)/predicted of the output time, percent.
    pub output_error_pct: Option<f64>,
    /// Native: wall time of the sequential reference on this host; emulated: `s(L) = LNβ`.
    pub sequential_s: Option<f64>,
    /// `sequential_s / output_s`.
    pub speedup: Option<f64>,
    /// Speedup over processes.
    pub efficiency: Option<f64>,
    /// The output equals the sequential reference (a run that differs is an error).
    pub output_matches_reference: bool,
}

impl OclComparison {
    /// Whether the run had native costs (wall-clock times; the sequential reference timed on
    /// this host).
    pub fn native_costs(&self) -> bool {
        self.costs == PipelineCosts::Native.name()
    }

    /// Compares `measured` times of `grain` on `l` values (`packets` of them) with the model of
    /// constants `model`; `sequential_wall_s` is the native reference's wall time (native
    /// costs), else `s(L)` of the model is the speedup's numerator.
    pub fn new(
        grain: Grain,
        l: u64,
        packets: u64,
        costs: &'static str,
        measured: OclMeasured,
        model: Option<Costs>,
        sequential_wall_s: Option<f64>,
    ) -> Self {
        let predicted = model.map(|c| predicted(grain, c, l));
        let sequential_s = sequential_wall_s.or(predicted.as_ref().map(|p| p.sequential_s));
        let speedup = sequential_s.map(|s| s / measured.output_s);
        Self {
            transform: transform_label(grain),
            n: grain.n(),
            m: grain.m(),
            k: grain.k(),
            l,
            processes: grain.processes(),
            packets,
            costs,
            consumption_s: measured.consumption_s,
            output_s: measured.output_s,
            consumption_error_pct: predicted
                .as_ref()
                .map(|p| pct(measured.consumption_s, p.consumption_s)),
            output_error_pct: predicted
                .as_ref()
                .map(|p| pct(measured.output_s, p.output_s)),
            predicted,
            sequential_s,
            speedup,
            efficiency: speedup.map(|s| s / grain.processes() as f64),
            output_matches_reference: true,
        }
    }

    /// The comparison of a verified pipeline run.
    pub fn of_run(run: &PipelineRun, model: Option<Costs>, sequential_wall_s: Option<f64>) -> Self {
        Self::new(
            run.grain,
            run.l,
            run.packets,
            run.costs,
            OclMeasured {
                consumption_s: run.consumption_s,
                output_s: run.output_s,
            },
            model,
            sequential_wall_s,
        )
    }
}

/// One row of a fitted table with its residual.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Residual {
    /// Window N.
    pub n: usize,
    /// M or K.
    pub grain: usize,
    /// Stream length.
    pub l: u64,
    /// Measured time, seconds.
    pub elapsed_s: f64,
    /// The fitted model's time, seconds.
    pub predicted_s: f64,
    /// `elapsed − predicted`.
    pub residual_s: f64,
    /// `(elapsed − predicted)/elapsed`.
    pub relative: f64,
}

/// One fitted constant with its 95 % confidence interval and, where known, the value the
/// table was made with.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FittedConstant {
    /// `alpha_s`, `alpha0_s`, `alpha1_s` or `beta_s`.
    pub name: &'static str,
    /// `α`, `α0`, `α1` or `β`.
    pub symbol: &'static str,
    /// The estimate with its standard error and interval, seconds.
    pub interval: Interval,
    /// The reference value, seconds.
    pub reference_s: Option<f64>,
    /// `(fitted − reference)/reference`, percent.
    pub error_pct: Option<f64>,
}

/// A fit of a timing table: the constants at the top level (`alpha_s`, `beta_s` for m1;
/// `alpha0_s`, `alpha1_s`, `beta_s`, `optimal_k` for kk), then the fit's details.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OclFitComparison {
    /// `α` (\[M,1\]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpha_s: Option<f64>,
    /// `α0` (\[K,K\]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpha0_s: Option<f64>,
    /// `α1` (\[K,K\]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpha1_s: Option<f64>,
    /// `β`.
    pub beta_s: f64,
    /// `√(2α0/β)` (\[K,K\]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub optimal_k: Option<f64>,
    /// Standard errors, in the order of the constants.
    pub std_errors_s: Vec<f64>,
    /// m1: `2α/β` (§4.1 quotes 8.6), the M where computation equals communication.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub two_alpha_over_beta: Option<f64>,
    /// Every constant with its interval and reference.
    pub constants: Vec<FittedConstant>,
    /// Which table.
    pub transform: OclTable,
    /// Rows fitted.
    pub rows: usize,
    /// Largest |relative residual| ("accuracy of more than 99 %" means < 0.01).
    pub max_relative_error: f64,
    /// Root mean square of the relative residuals.
    pub rms_relative_error: f64,
    /// Degrees of freedom of the fit.
    pub dof: usize,
    /// Every row with its residual.
    pub residuals: Vec<Residual>,
    /// The constants the table was made with, by name; `α` for m1 is `α0 + α1`.
    pub reference: Option<BTreeMap<&'static str, f64>>,
    /// `(fitted − reference)/reference` per constant, percent.
    pub error_pct: Option<BTreeMap<&'static str, f64>>,
}

fn residuals(rows: &[TimingRow], q: &FitQuality) -> Vec<Residual> {
    rows.iter()
        .zip(&q.residuals_s)
        .zip(&q.relative_residuals)
        .map(|((r, &res), &rel)| Residual {
            n: r.n,
            grain: r.grain,
            l: r.l,
            elapsed_s: r.elapsed_s,
            predicted_s: r.elapsed_s - res,
            residual_s: res,
            relative: rel,
        })
        .collect()
}

/// Fits `rows` of `table` with `weighting` and compares the constants with `reference` (the
/// constants the table was made with, if known).
pub fn fit_table(
    table: OclTable,
    rows: &[TimingRow],
    weighting: Weighting,
    reference: Option<Costs>,
) -> Result<OclFitComparison, OclError> {
    let (values, quality, optimal_k, two_alpha_over_beta) = match table {
        OclTable::M1 => {
            let f = fit::fit_m1(rows, weighting)?;
            let r = reference.map(|c| c.alpha0_s + c.alpha1_s);
            (
                vec![
                    ("alpha_s", "α", f.alpha_s, f.alpha_se_s, r),
                    (
                        "beta_s",
                        "β",
                        f.beta_s,
                        f.beta_se_s,
                        reference.map(|c| c.beta_s),
                    ),
                ],
                f.quality,
                None,
                Some(f.two_alpha_over_beta),
            )
        }
        OclTable::Kk => {
            let f = fit::fit_kk(rows, weighting)?;
            (
                vec![
                    (
                        "alpha0_s",
                        "α0",
                        f.alpha0_s,
                        f.alpha0_se_s,
                        reference.map(|c| c.alpha0_s),
                    ),
                    (
                        "alpha1_s",
                        "α1",
                        f.alpha1_s,
                        f.alpha1_se_s,
                        reference.map(|c| c.alpha1_s),
                    ),
                    (
                        "beta_s",
                        "β",
                        f.beta_s,
                        f.beta_se_s,
                        reference.map(|c| c.beta_s),
                    ),
                ],
                f.quality,
                Some(f.optimal_k),
                None,
            )
        }
    };
    let constants: Vec<FittedConstant> = values
        .iter()
        .map(|&(name, symbol, v, se, r)| FittedConstant {
            name,
            symbol,
            interval: Interval::student(v, se, quality.dof),
            reference_s: r,
            error_pct: r.map(|r| pct(v, r)),
        })
        .collect();
    let value = |name: &str| {
        constants
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.interval.value)
    };
    let mut reference_map: Option<BTreeMap<&'static str, f64>> = reference.map(|_| {
        constants
            .iter()
            .filter_map(|c| Some((c.name, c.reference_s?)))
            .collect()
    });
    if let (Some(map), Some(c), OclTable::Kk) = (&mut reference_map, reference, table) {
        map.insert("optimal_k", model::optimal_packet_size(c));
    }
    Ok(OclFitComparison {
        alpha_s: value("alpha_s"),
        alpha0_s: value("alpha0_s"),
        alpha1_s: value("alpha1_s"),
        beta_s: value("beta_s").unwrap_or(f64::NAN),
        optimal_k,
        std_errors_s: constants.iter().map(|c| c.interval.std_error).collect(),
        two_alpha_over_beta,
        error_pct: reference.map(|_| {
            constants
                .iter()
                .filter_map(|c| Some((c.name, c.error_pct?)))
                .collect()
        }),
        reference: reference_map,
        constants,
        transform: table,
        rows: rows.len(),
        max_relative_error: quality.max_relative_error,
        rms_relative_error: quality.rms_relative_error,
        dof: quality.dof,
        residuals: residuals(rows, &quality),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_name_the_transform() {
        assert_eq!(transform_label(Grain::fine(7).unwrap()), "fine");
        assert_eq!(transform_label(Grain::m1(50, 5).unwrap()), "m1:5");
        assert_eq!(transform_label(Grain::kk(50, 5).unwrap()), "kk:5");
        assert_eq!(transform_label(Grain::new(50, 10, 5).unwrap()), "mk:10,5");
    }

    #[test]
    fn paper_grid_is_the_papers_tables() {
        assert_eq!(OclTable::M1.paper_grains(50), vec![1, 2, 5, 10, 25, 50]);
        assert_eq!(
            OclTable::Kk.paper_grains(500),
            vec![10, 20, 25, 50, 100, 250, 500]
        );
        assert_eq!(OclTable::M1.paper_grains(6), vec![1, 2, 3, 6]);
    }

    #[test]
    fn a_comparison_with_its_own_model_has_no_error() {
        let grain = Grain::m1(4, 2).unwrap();
        let c = Costs::single(10e-6, 1e-6);
        let p = predicted(grain, c, 5);
        let m = OclMeasured {
            consumption_s: p.consumption_s,
            output_s: p.output_s * 1.1,
        };
        let cmp = OclComparison::new(grain, 5, 5, "emulated", m, Some(c), None);
        assert_eq!(cmp.consumption_error_pct, Some(0.0));
        assert!((cmp.output_error_pct.unwrap() - 10.0).abs() < 1e-9);
        // Emulated: the speedup's numerator is s(L) = LNβ = 5·4·1 µs.
        assert!((cmp.sequential_s.unwrap() - 20e-6).abs() < 1e-15);
        assert_eq!(cmp.processes, 2);
    }

    #[test]
    fn the_fit_of_a_models_own_table_recovers_its_constants() {
        let c = Costs {
            alpha0_s: 4e-6,
            alpha1_s: 3e-6,
            beta_s: 2e-6,
        };
        let rows: Vec<TimingRow> = [1, 2, 3, 6, 12]
            .iter()
            .map(|&k| {
                let g = Grain::kk(12, k).unwrap();
                TimingRow::new(12, k, 60, model::consumption_time_s(g, c, 60))
            })
            .collect();
        let f = fit_table(OclTable::Kk, &rows, Weighting::Relative, Some(c)).unwrap();
        assert!((f.alpha0_s.unwrap() / 4e-6 - 1.0).abs() < 1e-6);
        assert!((f.beta_s / 2e-6 - 1.0).abs() < 1e-6);
        assert_eq!(f.constants.len(), 3);
        assert!(f.error_pct.unwrap()["alpha1_s"].abs() < 1e-4);
        assert!((f.reference.unwrap()["optimal_k"] - 2.0).abs() < 1e-12);
        assert_eq!(f.residuals.len(), 5);
        assert!(
            f.constants
                .iter()
                .all(|k| k.interval.low <= k.interval.value)
        );
    }
}
