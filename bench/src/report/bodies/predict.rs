//! `predict farm` and `predict dnc`: a model's prediction alone, and the farm paper's
//! Figures 4 and 5 (every curve the model's, so dashed, as the model is in every chart).

use anyhow::Result;
use multicomputer_workloads::farm::{
    Drain, GranularityCurve, PeakOperatingPoint, Prediction, SpeedupCurve,
};
use serde::Serialize;

use super::farm::{LevelRow, bound_name, drain_rows, level_rows, omitted_levels_row};
use crate::plot::{LineChart, Reference, Scale, Ticks};
use crate::report::{Block, Body, Figure, Section, Table};
use crate::units::human_s;

fn prediction_table(p: &Prediction) -> Table {
    let mut t = Table::new(&["quantity", "predicted"]);
    t.row(vec![
        "throughput (tasks/s)".into(),
        format!("{:.2}", p.throughput_per_s),
    ])
    .row(vec!["speedup".into(), format!("{:.3}", p.speedup)])
    .row(vec!["makespan".into(), human_s(p.makespan_s)])
    .row(vec!["start-up".into(), human_s(p.startup_s)]);
    for row in level_rows(p.fractions_by_level.len()) {
        match row {
            LevelRow::Level(i) => t.row(vec![
                format!("f_{}", i + 1),
                format!("{:.4}", p.fractions_by_level[i]),
            ]),
            LevelRow::Omitted(n) => t.row(omitted_levels_row(n, 2)),
        };
    }
    t.row(vec!["bound".into(), bound_name(p.bound).into()]);
    t
}

/// What `predict farm` reports (the prediction's keys at the top level).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PredictFarmReport {
    /// The topology.
    pub(crate) topology: String,
    /// Throughput, speedup, makespan, fractions, start-up, bound.
    #[serde(flatten)]
    pub(crate) predicted: Prediction,
    /// The drain of random task times.
    pub(crate) drain: Option<Drain>,
    /// The peak operating point of the tree family.
    pub(crate) peak: Option<PeakOperatingPoint>,
    /// Its criterion: the marginal efficiency below which growing stops.
    pub(crate) min_marginal_efficiency: f64,
    /// Figure 4's data (with `--figures`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) figure4: Option<Vec<SpeedupCurve>>,
    /// Figure 5's data (with `--figures`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) figure5: Option<Vec<GranularityCurve>>,
    /// `chain` or `K-ary tree`.
    #[serde(skip)]
    pub(crate) family: String,
}

impl PredictFarmReport {
    /// The symbol of the processor count: the paper's N on a chain (its levels), else P.
    fn processors_symbol(&self) -> &'static str {
        if self.family == "chain" { "N" } else { "P" }
    }

    fn figure4(&self, curves: &[SpeedupCurve]) -> Result<Figure> {
        let n = self.processors_symbol();
        let x = || {
            curves
                .iter()
                .flat_map(|c| &c.points)
                .map(|p| p.processors as f64)
        };
        let scale = Scale::spanning(x());
        let mut chart = LineChart::new(
            format!("Speedup against processors, {} (Figure 4)", self.family),
            format!("processors {n}"),
            "speedup (start-up included)",
        )
        .x_scale(scale)
        .y_include(0.0)
        .reference(Reference::ideal_speedup());
        for c in curves {
            chart = chart.model(
                format!("T_e = {}", human_s(c.te_s)),
                c.points.iter().map(|p| (p.processors as f64, p.speedup)),
            );
        }
        for p in curves.iter().filter_map(|c| c.peak) {
            let levels = if self.family == "chain" {
                String::new()
            } else {
                format!(" ({} levels)", p.levels)
            };
            chart = chart.mark(
                p.processors as f64,
                p.speedup,
                format!(
                    "maximum: {n} = {}{levels}, S = {:.1}",
                    p.processors, p.speedup
                ),
            );
        }
        let peaks: Vec<String> = curves
            .iter()
            .map(|c| match c.peak {
                Some(p) => format!(
                    "T_e = {}: {n} = {}, speedup {:.2}",
                    human_s(c.te_s),
                    p.processors,
                    p.speedup
                ),
                None => format!("T_e = {}: still rising at the end", human_s(c.te_s)),
            })
            .collect();
        Ok(Figure {
            file: "figure4.svg".into(),
            caption: format!(
                "Figure 4: speedup (start-up included) against processors for T_e, 5 T_e and \
                 10 T_e, drawn past each curve's maximum and marking it: {}. The maximum is not \
                 the peak operating point of the results table, which stops where one more \
                 processor buys less than {} of a processor's worth of speedup.",
                peaks.join("; "),
                self.min_marginal_efficiency
            ),
            svg: chart.to_svg(960, 600)?,
        })
    }

    fn figure5(&self, curves: &[GranularityCurve]) -> Result<Figure> {
        let n = self.processors_symbol();
        let gs: Vec<f64> = curves
            .first()
            .map(|c| c.points.iter().map(|&(g, _)| f64::from(g)).collect())
            .unwrap_or_default();
        let mut chart = LineChart::new(
            format!("Speedup against granularity, {} (Figure 5)", self.family),
            "granularity g (tasks per message)",
            "speedup (start-up included)",
        )
        .x_scale(Scale::spanning(gs.iter().copied()))
        .x_ticks(Ticks::At(gs));
        for c in curves {
            chart = chart.model(
                format!("{n} = {}", c.processors),
                c.points.iter().map(|&(g, s)| (f64::from(g), s)),
            );
        }
        Ok(Figure {
            file: "figure5.svg".into(),
            caption: format!("Figure 5: speedup against the tasks per message g, for several {n}."),
            svg: chart.to_svg(960, 600)?,
        })
    }
}

impl Body for PredictFarmReport {
    fn title(&self) -> String {
        format!(
            "Processor farm on {}: the model's prediction",
            self.topology
        )
    }

    fn results(&self) -> Vec<Section> {
        let mut t = prediction_table(&self.predicted);
        if let Some(d) = &self.drain {
            for [quantity, predicted, error] in drain_rows(d) {
                t.row(vec![quantity, format!("{predicted} (speedup {error})")]);
            }
        }
        if let Some(peak) = &self.peak {
            // The criterion stops before the speedup's maximum (η > 0 there).
            let reached = if peak.next_marginal_efficiency.is_none() {
                " (the search's limit: still growing)"
            } else {
                "; the speedup's maximum lies further (Figure 4 marks it)"
            };
            t.row(vec![
                format!(
                    "peak operating point (marginal efficiency < {})",
                    self.min_marginal_efficiency
                ),
                format!(
                    "{} levels, {} processors, speedup {:.2}{reached}",
                    peak.levels, peak.processors, peak.speedup
                ),
            ]);
        }
        vec![Section::results("Prediction", vec![Block::Table(t)])]
    }

    fn figures(&self) -> Result<Vec<Figure>> {
        let mut v = Vec::new();
        if let Some(c) = &self.figure4 {
            v.push(self.figure4(c)?);
        }
        if let Some(c) = &self.figure5 {
            v.push(self.figure5(c)?);
        }
        Ok(v)
    }
}

/// What `predict dnc` reports.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PredictDncReport {
    /// The tree.
    pub(crate) topology: String,
    /// The prediction.
    #[serde(flatten)]
    pub(crate) predicted: Prediction,
}

impl Body for PredictDncReport {
    fn title(&self) -> String {
        format!(
            "Divide and conquer on {}: the model's prediction",
            self.topology
        )
    }

    fn results(&self) -> Vec<Section> {
        vec![Section::results(
            "Prediction",
            vec![Block::Table(prediction_table(&self.predicted))],
        )]
    }
}
