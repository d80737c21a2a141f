//! `ocl`, `sweep ocl` and `fit ocl`: the grain-size paper's arrays beside its models.

use anyhow::Result;
use multicomputer_runtime::Fidelity;
use multicomputer_workloads::ocl::fit::TimingRow;
use multicomputer_workloads::ocl::model::{self, Costs};
use multicomputer_workloads::ocl::{Grain, OclComparison, OclFitComparison, OclTable};
use serde::Serialize;

use crate::plot::{AxisSpec, ErrorBar, LineChart, Point, ResidualSeries, Residuals, Scale};
use crate::report::{Block, Body, Figure, Repetitions, Section, Table};
use crate::units::{human_s, signed_pct};

/// What `ocl` reports.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct OclReport {
    /// The (last) run beside the model.
    #[serde(flatten)]
    pub(crate) comparison: OclComparison,
    /// `native` or `dilated`.
    pub(crate) mode: &'static str,
    /// The dilation factor (none in virtual time).
    pub(crate) dilation: Option<f64>,
    /// Wall time of the run, seconds.
    pub(crate) wall_s: f64,
    /// The run's fidelity.
    pub(crate) fidelity: Fidelity,
    /// Mean ± sd, min and max over the runs, for several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) repetitions: Option<Repetitions>,
}

/// Points along a model's curve of time against stream length.
const STREAM_CURVE_POINTS: u64 = 200;

impl OclReport {
    /// Time against stream length ℓ: the run's times at ℓ = L (outputs produced, inputs
    /// consumed, and the sequential program's when it was timed) beside the model's
    /// `t(ℓ)`, consumption time and `s(ℓ) = ℓNβ`, whose slopes are the throughputs.
    fn stream_figure(&self) -> Result<Figure> {
        let r = &self.comparison;
        let p = r.predicted.as_ref();
        let costs = p.map(|p| Costs {
            alpha0_s: p.alpha0_s,
            alpha1_s: p.alpha1_s,
            beta_s: p.beta_s,
        });
        let grain = Grain::new(r.n, r.m, r.k).ok();
        let (unit_s, unit) = if r.output_s.max(r.sequential_s.unwrap_or(0.0)) < 1.0 {
            (1e-3, "ms")
        } else {
            (1.0, "s")
        };
        // ℓ from one packet to L, evenly on the log axis.
        let first = r.k.max(1) as f64;
        let mut ls: Vec<u64> = (0..=STREAM_CURVE_POINTS)
            .map(|i| {
                let f = i as f64 / STREAM_CURVE_POINTS as f64;
                (first * (r.l as f64 / first).powf(f)).round() as u64
            })
            .filter(|&l| l >= 1)
            .collect();
        ls.dedup();
        let curve = |f: &dyn Fn(Grain, Costs, u64) -> f64| -> Vec<(f64, f64)> {
            match (grain, costs) {
                (Some(g), Some(c)) => ls
                    .iter()
                    .map(|&l| (l as f64, f(g, c, l) / unit_s))
                    .collect(),
                _ => Vec::new(),
            }
        };
        let at_l = |t: f64| [Point::new(r.l as f64, t / unit_s)];
        let mut chart = LineChart::new(
            format!(
                "Time to produce and to consume the first ℓ values of the stream, OCL {} on \
                 N = {} ({} processes)",
                r.transform, r.n, r.processes
            ),
            "stream length ℓ (values)",
            format!("time ({unit})"),
        )
        .x_scale(Scale::Log10)
        .y_scale(Scale::Log10)
        .pair(
            "produce ℓ outputs, t(ℓ)",
            at_l(r.output_s),
            curve(&model::output_time_s),
        )
        .pair(
            "consume ℓ inputs (§4)",
            at_l(r.consumption_s),
            curve(&model::consumption_time_s),
        );
        // The sequential program's time is measured with native costs; else it is s(L).
        let sequential: Vec<Point> = match r.sequential_s {
            Some(t) if r.native_costs() => at_l(t).to_vec(),
            _ => Vec::new(),
        };
        chart = chart.pair(
            "sequential program, s(ℓ) = ℓNβ",
            sequential,
            curve(&|g: Grain, c: Costs, l| model::sequential_time_s(g.n(), l, c.beta_s)),
        );
        // The run's produce and consume times at L nearly coincide: dodged, both seen.
        let mut chart = chart.scattered();
        chart.dodge_markers = true;
        Ok(Figure {
            file: "stream.svg".into(),
            caption: format!(
                "Time against stream length, log–log: the run at ℓ = L = {} beside the \
                 model's curves (dashed). Time grows as ℓ over a throughput, so the vertical \
                 gap between the array's curve and the sequential program's is the \
                 speedup.{}",
                r.l,
                if costs.is_none() {
                    " No model: native costs without constants (give them to draw it)."
                } else {
                    ""
                }
            ),
            svg: chart.to_svg(960, 560)?,
        })
    }
}

impl Body for OclReport {
    fn title(&self) -> String {
        let r = &self.comparison;
        format!("OCL {} on N = {}, L = {}", r.transform, r.n, r.l)
    }

    fn results(&self) -> Vec<Section> {
        let r = &self.comparison;
        let p = r.predicted.as_ref();
        let mut t = Table::new(&["quantity", "measured", "predicted", "error"]);
        for (name, m, pr, e) in [
            (
                "consume L inputs (§4)",
                r.consumption_s,
                p.map(|p| p.consumption_s),
                r.consumption_error_pct,
            ),
            (
                "produce L outputs t(L)",
                r.output_s,
                p.map(|p| p.output_s),
                r.output_error_pct,
            ),
        ] {
            t.row(vec![
                name.into(),
                human_s(m),
                pr.map_or("—".into(), human_s),
                e.map_or("—".into(), |e| signed_pct(e, 3)),
            ]);
        }
        let mut blocks = vec![
            Block::Text(format!(
                "OCL {} on N = {}, L = {}: {} processes, {} packets, {} costs",
                r.transform, r.n, r.l, r.processes, r.packets, r.costs
            )),
            Block::Table(t),
        ];
        if let Some(p) = p {
            let alpha = if p.alpha1_s == 0.0 {
                format!("α = {}", human_s(p.alpha0_s))
            } else {
                format!("α0 = {}, α1 = {}", human_s(p.alpha0_s), human_s(p.alpha1_s))
            };
            blocks.push(Block::Text(format!(
                "model: {alpha}, β = {}; overhead 2(α0+Kα1)/(KMβ) = {:.3}; efficiency {:.3} \
                 (L → ∞: {:.3}); speedup {:.2} (L → ∞: {:.2}); optimal K = √(2α0/β) = {:.2}",
                human_s(p.beta_s),
                p.communication_overhead,
                p.efficiency,
                p.asymptotic_efficiency,
                p.speedup,
                p.asymptotic_speedup,
                p.optimal_k
            )));
        }
        if let (Some(s), Some(e)) = (r.speedup, r.efficiency) {
            blocks.push(Block::Text(format!(
                "measured speedup {s:.2}, efficiency {e:.3}"
            )));
        }
        blocks.push(Block::Text(if r.native_costs() {
            "output equals the sequential reference; native costs: wall-clock times, \
             sequential = the O(LN) reference on this host"
                .into()
        } else {
            format!(
                "output equals the sequential reference; {}, wall {:.3} s{}",
                crate::units::time_text(self.mode, self.dilation),
                self.wall_s,
                if self.fidelity.exact {
                    String::new()
                } else {
                    format!(
                        ", {} of {} waits late (emulated times do not depend on it: every \
                         receive names its link)",
                        self.fidelity.late_waits, self.fidelity.waits
                    )
                }
            )
        }));
        if !r.native_costs() && self.fidelity.exact {
            blocks.push(Block::Text(SELF_CHECK.into()));
        }
        if let Some(rep) = &self.repetitions {
            blocks.extend(rep.blocks("measured over"));
        }
        vec![Section::results("Measured beside predicted", blocks)]
    }

    fn figures(&self) -> Result<Vec<Figure>> {
        Ok(vec![self.stream_figure()?])
    }
}

/// What an error of an emulated-cost run in virtual time means: the cells charge the model's
/// own constants and the scheduler takes events in exact order, so agreement is a self-check of
/// the emulator against the model, not a validation of the model.
const SELF_CHECK: &str = "a self-check, not a validation: the cells charged the model's own \
     constants in virtual time, so the model's times are reproduced by construction and an error \
     near 0 % says the emulator implements the model. Run --costs native to test the model \
     against real execution";

/// What a fit of a table emulated in virtual time means (see [`SELF_CHECK`]).
const FIT_SELF_CHECK: &str = "a self-check, not a validation: every row was emulated with the \
     reference constants (every receive names its link, so its times are the model's by \
     construction in any time mode), and the fit recovers the constants exactly (± 0, residuals \
     0 %): it says the emulator and the fit implement the model. Sweep with --costs native to fit \
     the constants of real execution";

/// One cell of `sweep ocl`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SweepOclRow {
    pub(crate) table: OclTable,
    pub(crate) n: usize,
    /// M (m1) or K (kk).
    pub(crate) grain: usize,
    pub(crate) l: u64,
    pub(crate) processes: usize,
    /// The fastest run's time to consume the L inputs (what the paper tabulated).
    pub(crate) elapsed_s: f64,
    /// Mean over the runs.
    pub(crate) elapsed_mean_s: f64,
    /// Standard deviation over the runs (empty for one run).
    pub(crate) elapsed_sd_s: Option<f64>,
    /// The slowest run.
    pub(crate) elapsed_max_s: f64,
    pub(crate) runs: usize,
    pub(crate) predicted_s: Option<f64>,
    pub(crate) error_pct: Option<f64>,
    pub(crate) output_s: f64,
    pub(crate) predicted_output_s: Option<f64>,
    pub(crate) alpha0_s: Option<f64>,
    pub(crate) alpha1_s: Option<f64>,
    pub(crate) beta_s: Option<f64>,
    pub(crate) dilation: Option<f64>,
    /// `emulated` (the model's constants charged: the times are the model's by construction,
    /// in any time mode, as every receive names its link) or `native`; `fit ocl` reads it.
    pub(crate) costs: &'static str,
    pub(crate) late_waits: u64,
    pub(crate) waits: u64,
    pub(crate) wall_s: f64,
}

/// What `sweep ocl` reports.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SweepOclReport {
    /// One row per cell.
    pub(crate) rows: Vec<SweepOclRow>,
    /// The constants of each table's model curve (given, or fitted for native costs).
    #[serde(skip)]
    pub(crate) curves: Vec<(OclTable, Option<Costs>)>,
}

impl SweepOclReport {
    /// The rows of one table.
    pub(crate) fn of_table(&self, t: OclTable) -> Vec<&SweepOclRow> {
        self.rows.iter().filter(|r| r.table == t).collect()
    }

    /// The rows of one table as the timing table `fit ocl` reads.
    pub(crate) fn timing_rows(&self, t: OclTable) -> Vec<TimingRow> {
        self.of_table(t)
            .iter()
            .map(|r| TimingRow::new(r.n, r.grain, r.l, r.elapsed_s))
            .collect()
    }

    /// One table's CSV, its grain column named `m` or `k` (what `fit ocl` reads back).
    pub(crate) fn table_csv(&self, t: OclTable) -> Result<Vec<u8>> {
        let opt = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record([
            "n",
            t.column(),
            "l",
            "elapsed_s",
            "elapsed_mean_s",
            "elapsed_sd_s",
            "elapsed_max_s",
            "runs",
            "predicted_s",
            "error_pct",
            "processes",
            "output_s",
            "predicted_output_s",
            "alpha0_s",
            "alpha1_s",
            "beta_s",
            "dilation",
            "costs",
            "wall_s",
        ])?;
        for r in self.of_table(t) {
            w.write_record([
                r.n.to_string(),
                r.grain.to_string(),
                r.l.to_string(),
                r.elapsed_s.to_string(),
                r.elapsed_mean_s.to_string(),
                opt(r.elapsed_sd_s),
                r.elapsed_max_s.to_string(),
                r.runs.to_string(),
                opt(r.predicted_s),
                opt(r.error_pct),
                r.processes.to_string(),
                r.output_s.to_string(),
                opt(r.predicted_output_s),
                opt(r.alpha0_s),
                opt(r.alpha1_s),
                opt(r.beta_s),
                r.dilation.map_or(String::new(), |d| d.to_string()),
                r.costs.to_string(),
                r.wall_s.to_string(),
            ])?;
        }
        Ok(w.into_inner()?)
    }

    fn chart(&self, t: OclTable, costs: Option<Costs>) -> Result<String> {
        let rows = self.of_table(t);
        let mut windows: Vec<usize> = rows.iter().map(|r| r.n).collect();
        windows.dedup();
        let spread = rows.iter().any(|r| r.runs > 1);
        let (what, symbol) = match t {
            OclTable::M1 => ("[M,1]-transformation (§4.1)", "M"),
            OclTable::Kk => ("[K,K]-transformation (§4.2)", "K"),
        };
        let mut chart = LineChart::new(
            format!("Time to consume L inputs against grain, {what}"),
            format!("grain {symbol}"),
            "elapsed time (s)",
        )
        .x_scale(Scale::Log10)
        .y_scale(Scale::Log10)
        .key(
            if spread {
                "measured (fastest run; bar: slowest)"
            } else {
                "measured"
            },
            if costs.is_some() && self.rows.iter().any(|r| r.predicted_s.is_none()) {
                "model (constants fitted to the table)"
            } else {
                "model"
            },
        );
        for n in windows {
            let rs: Vec<&&SweepOclRow> = rows.iter().filter(|r| r.n == n).collect();
            // The fastest run, as the paper tabulated it, with the range up to the slowest.
            let measured = rs.iter().map(|r| {
                let x = r.grain as f64;
                if r.runs > 1 {
                    let range = ErrorBar::Range {
                        low: r.elapsed_s,
                        high: r.elapsed_max_s,
                    };
                    Point::with_error(x, r.elapsed_s, range)
                } else {
                    Point::new(x, r.elapsed_s)
                }
            });
            let model = match (costs, rs.first().map(|r| r.l)) {
                (Some(c), Some(l)) => t
                    .model_curve(n, c, l)
                    .into_iter()
                    .map(|(g, s)| (g as f64, s))
                    .collect(),
                _ => Vec::new(),
            };
            chart = chart.pair(format!("N = {n}"), measured, model);
        }
        chart.scattered().to_svg(960, 600)
    }
}

impl Body for SweepOclReport {
    fn title(&self) -> String {
        format!("sweep ocl: {} cells beside the model", self.rows.len())
    }

    fn results(&self) -> Vec<Section> {
        let mut t = Table::new(&[
            "table",
            "N",
            "M or K",
            "L",
            "pr",
            "et measured",
            "et model",
            "error",
            "D",
            "wall",
        ]);
        for r in &self.rows {
            t.row(vec![
                r.table_name().into(),
                r.n.to_string(),
                r.grain.to_string(),
                r.l.to_string(),
                r.processes.to_string(),
                human_s(r.elapsed_s),
                r.predicted_s.map_or("—".into(), human_s),
                r.error_pct.map_or("—".into(), |e| signed_pct(e, 4)),
                r.dilation.map_or(String::new(), |d| d.to_string()),
                format!("{:.2} s", r.wall_s),
            ]);
        }
        let errors: Vec<f64> = self.rows.iter().filter_map(|r| r.error_pct).collect();
        let summary = if errors.is_empty() {
            format!(
                "{} cells (native costs, no model given: fit the CSVs with `fit ocl`)",
                self.rows.len()
            )
        } else {
            let worst = errors.iter().fold(0.0_f64, |m, e| m.max(e.abs()));
            format!(
                "{} cells; largest |error| against the model {worst:.4} %",
                self.rows.len()
            )
        };
        vec![Section::results(
            "Cells",
            vec![Block::Table(t), Block::Text(summary)],
        )]
    }

    fn figures(&self) -> Result<Vec<Figure>> {
        self.curves
            .iter()
            .filter(|(t, _)| !self.of_table(*t).is_empty())
            .map(|&(t, costs)| {
                Ok(Figure {
                    file: format!("{}.svg", t.name()),
                    caption: format!(
                        "Time against grain, {} ({}): measured points, the model dashed{}.",
                        t.name(),
                        t.section(),
                        if self.rows.iter().any(|r| r.predicted_s.is_none()) {
                            " (constants fitted to the table)"
                        } else {
                            ""
                        }
                    ),
                    svg: self.chart(t, costs)?,
                })
            })
            .collect()
    }

    fn plots_first(&self) -> bool {
        true
    }

    fn csv(&self) -> Result<Option<Vec<u8>>> {
        crate::report::csv::rows(&self.rows).map(Some)
    }
}

impl SweepOclRow {
    fn table_name(&self) -> &'static str {
        self.table.name()
    }
}

/// What `fit ocl` reports.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FitOclReport {
    /// The constants, their intervals, residuals and references.
    #[serde(flatten)]
    pub(crate) fit: OclFitComparison,
    /// Where the table came from.
    pub(crate) source: String,
    /// The weighting.
    pub(crate) weighting: &'static str,
    /// Whether the table was emulated with its reference constants, so that the fit recovers
    /// them by construction.
    pub(crate) self_check: bool,
}

impl Body for FitOclReport {
    fn title(&self) -> String {
        format!("fit ocl: {} of {}", self.fit.transform.name(), self.source)
    }

    fn results(&self) -> Vec<Section> {
        let f = &self.fit;
        let mut t = Table::new(&[
            "constant",
            "fitted",
            "± std. error",
            "95 % interval",
            "reference",
            "error",
        ]);
        for c in &f.constants {
            t.row(vec![
                c.symbol.into(),
                human_s(c.interval.value),
                human_s(c.interval.std_error),
                format!("{} – {}", human_s(c.interval.low), human_s(c.interval.high)),
                c.reference_s.map_or("—".into(), human_s),
                c.error_pct.map_or("—".into(), |e| signed_pct(e, 2)),
            ]);
        }
        let mut res = Table::new(&["N", "M or K", "L", "elapsed", "model", "residual"]);
        for x in &f.residuals {
            res.row(vec![
                x.n.to_string(),
                x.grain.to_string(),
                x.l.to_string(),
                human_s(x.elapsed_s),
                human_s(x.predicted_s),
                format!("{:+.3} %", 100.0 * x.relative),
            ]);
        }
        let mut blocks = vec![
            Block::Text(format!(
                "fit of {} ({} rows, {})",
                self.source, f.rows, self.weighting
            )),
            Block::Table(t),
            Block::Table(res),
            Block::Text(format!(
                "largest |relative residual| {:.3} % (accuracy {:.2} %), rms {:.3} %",
                100.0 * f.max_relative_error,
                100.0 * (1.0 - f.max_relative_error),
                100.0 * f.rms_relative_error
            )),
        ];
        if self.self_check {
            blocks.push(Block::Text(FIT_SELF_CHECK.into()));
        }
        match (f.two_alpha_over_beta, f.optimal_k) {
            (Some(x), _) => blocks.push(Block::Text(format!(
                "implied grain: 2α/β = {x:.2} — communication overhead 2α/(Mβ) < 1 \
                 (efficiency > ½) for M > {x:.1}"
            ))),
            (_, Some(k)) => blocks.push(Block::Text(format!(
                "implied grain: optimal packet size K = √(2α0/β) = {k:.2}"
            ))),
            _ => {}
        }
        vec![Section::results("Fitted constants", blocks)]
    }

    fn figures(&self) -> Result<Vec<Figure>> {
        let f = &self.fit;
        let mut windows: Vec<usize> = f.residuals.iter().map(|r| r.n).collect();
        windows.sort_unstable();
        windows.dedup();
        let symbol = match f.transform {
            OclTable::M1 => "M",
            OclTable::Kk => "K",
        };
        let rms_pct = 100.0 * f.rms_relative_error;
        let residuals = Residuals {
            title: format!(
                "Residuals of the fit of the {} table, (elapsed − model)/elapsed",
                f.transform.name()
            ),
            x: AxisSpec::new(
                format!("grain {symbol}"),
                Scale::spanning(f.residuals.iter().map(|r| r.grain as f64)),
            ),
            y_label: "relative residual (%)".into(),
            series: windows
                .into_iter()
                .map(|n| ResidualSeries {
                    label: format!("N = {n}"),
                    points: f
                        .residuals
                        .iter()
                        .filter(|r| r.n == n)
                        .map(|r| Point::new(r.grain as f64, 100.0 * r.relative))
                        .collect(),
                })
                .collect(),
            sigma: Some(rms_pct),
            sigma_label: Some(format!("±rms, rms = {rms_pct:.3} %")),
        };
        Ok(vec![Figure {
            file: "residuals.svg".into(),
            caption: "Residuals of the fit: each row's relative error against the fitted model, \
                      the band their root mean square."
                .into(),
            svg: residuals.to_svg(960, 480)?,
        }])
    }
}

#[cfg(test)]
mod tests {
    use multicomputer_workloads::ocl::fit::Weighting;
    use multicomputer_workloads::ocl::fit_table;

    use super::*;

    /// The texts of a report's result blocks.
    fn texts(r: &FitOclReport) -> Vec<String> {
        r.results()
            .into_iter()
            .flat_map(|s| s.blocks)
            .filter_map(|b| match b {
                Block::Text(t) => Some(t),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_fit_of_a_table_emulated_in_virtual_time_says_it_is_a_self_check() {
        let fit = fit_table(
            OclTable::Kk,
            OclTable::Kk.paper_table(),
            Weighting::Relative,
            None,
        )
        .unwrap();
        let mut r = FitOclReport {
            fit,
            source: "t.csv".into(),
            weighting: "relative",
            self_check: true,
        };
        assert!(texts(&r).iter().any(|t| t.starts_with("a self-check")));
        r.self_check = false;
        assert!(!texts(&r).iter().any(|t| t.contains("self-check")));
    }
}
