//! `fit farm`: β_e and β_f with their confidence intervals and residuals.

use anyhow::Result;
use multicomputer_workloads::estimate::Interval;
use multicomputer_workloads::farm::{BetaFit, ThroughputObservation, TreeShape};
use serde::Serialize;

use crate::plan::SkippedRow;
use crate::plot::{AxisSpec, LineChart, Point, ResidualSeries, Residuals, Scale, Ticks};
use crate::report::{Block, Body, Figure, Section, Table};
use crate::units::{human_s, signed_pct};

/// What `fit farm` reports.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FitFarmReport {
    /// β_e, seconds.
    pub(crate) beta_e_s: f64,
    /// β_f, seconds.
    pub(crate) beta_f_s: f64,
    /// Its standard error.
    pub(crate) beta_e_std_error_s: f64,
    /// Its standard error.
    pub(crate) beta_f_std_error_s: f64,
    /// β_e with its 95 % interval.
    pub(crate) beta_e: Interval,
    /// β_f with its 95 % interval.
    pub(crate) beta_f: Interval,
    /// Injected values, if the table has them (mean of the column).
    pub(crate) injected_beta_e_s: Option<f64>,
    /// Injected β_f.
    pub(crate) injected_beta_f_s: Option<f64>,
    /// (fitted − injected)/injected, percent.
    pub(crate) beta_e_error_pct: Option<f64>,
    /// (fitted − injected)/injected, percent.
    pub(crate) beta_f_error_pct: Option<f64>,
    /// The host's per-message floor (calibrated one-way message with a parked receiver), s.
    pub(crate) host_message_floor_s: Option<f64>,
    /// Rows fitted.
    pub(crate) observations: usize,
    /// Rows left out, with why.
    pub(crate) skipped_rows: Vec<SkippedRow>,
    /// The fit itself (residuals per row fitted).
    pub(crate) fit: BetaFit,
    /// The rows fitted, in the order of the residuals (for the residual plot).
    #[serde(skip)]
    pub(crate) rows: Vec<ThroughputObservation>,
    /// The table.
    pub(crate) source: String,
}

/// How far the fitted curve goes beyond the largest tree measured: up to this many times its
/// processors (and at least one level more).
const EXTRAPOLATE_P: u64 = 4;

impl FitFarmReport {
    /// Each row's legend label: its tree family, and its task time when the rows have several.
    fn labels(&self) -> Vec<String> {
        let family = |o: &ThroughputObservation| match o.shape.k {
            1 => "chain".to_owned(),
            2 => "binary".to_owned(),
            k => format!("tree:{k}"),
        };
        let te = |o: &ThroughputObservation| human_s(o.te_s);
        let first_te = self.rows.first().map(te).unwrap_or_default();
        let several_te = self.rows.iter().any(|o| te(o) != first_te);
        self.rows
            .iter()
            .map(|o| {
                if several_te {
                    format!("{}, T_e = {}", family(o), te(o))
                } else {
                    family(o)
                }
            })
            .collect()
    }

    /// Throughput against processors: every row fitted, and through each family's rows the
    /// fitted model (β_e, β_f) over the trees measured, then extrapolated to deeper trees.
    fn data_figure(&self) -> Result<Figure> {
        let labels = self.labels();
        let mut chart = LineChart::new(
            format!(
                "Throughput against processors: the rows and the fitted model (β_e = {}, \
                 β_f = {})",
                human_s(self.beta_e_s),
                human_s(self.beta_f_s)
            ),
            "processors P",
            "throughput (tasks/s)",
        )
        .key("measured (one row each)", "fitted model");
        let mut every_p = Vec::new();
        let mut every_y = Vec::new();
        let mut done: Vec<&str> = Vec::new();
        for (i, label) in labels.iter().enumerate() {
            if done.contains(&label.as_str()) {
                continue;
            }
            done.push(label);
            let first = &self.rows[i];
            let rows: Vec<&ThroughputObservation> = self
                .rows
                .iter()
                .zip(&labels)
                .filter(|(_, l)| *l == label)
                .map(|(o, _)| o)
                .collect();
            let deepest = rows.iter().map(|o| o.shape.levels).max().unwrap_or(1);
            let largest = rows.iter().map(|o| o.shape.processors()).max().unwrap_or(1);
            let at = |levels: u32| {
                let shape = TreeShape {
                    k: first.shape.k,
                    levels,
                };
                let o = ThroughputObservation { shape, ..*first };
                (
                    shape.processors() as f64,
                    o.predict_per_s(self.beta_e_s, self.beta_f_s),
                )
            };
            let model: Vec<(f64, f64)> = (1..=deepest).map(at).collect();
            let mut beyond = vec![at(deepest)];
            for levels in deepest + 1.. {
                let shape = TreeShape {
                    k: first.shape.k,
                    levels,
                };
                if levels > deepest + 1 && shape.processors() > EXTRAPOLATE_P * largest {
                    break;
                }
                beyond.push(at(levels));
            }
            let measured: Vec<Point> = rows
                .iter()
                .map(|o| Point::new(o.shape.processors() as f64, o.throughput_per_s))
                .collect();
            every_p.extend(beyond.iter().map(|b| b.0));
            every_y.extend(measured.iter().map(|m| m.y));
            every_y.extend(model.iter().chain(&beyond).map(|m| m.1));
            chart = chart
                .pair(label.as_str(), measured, model)
                .extrapolated(beyond);
        }
        let chart = chart
            .x_scale(Scale::spanning(every_p.iter().copied().chain([1.0])))
            .y_scale(Scale::spanning(every_y))
            .scattered();
        Ok(Figure {
            file: "fit.svg".into(),
            caption: format!(
                "The rows fitted (markers) and the fitted model through them (dashed), by tree \
                 family; beyond the largest tree measured the model is extrapolated (sparse \
                 dashes, shaded) to {EXTRAPOLATE_P}× its processors: a prediction, not a \
                 measurement."
            ),
            svg: chart.to_svg(960, 600)?,
        })
    }
}

impl Body for FitFarmReport {
    fn title(&self) -> String {
        format!("fit farm: β_e and β_f of {}", self.source)
    }

    fn results(&self) -> Vec<Section> {
        let mut t = Table::new(&[
            "parameter",
            "fitted",
            "± std. error",
            "95 % interval",
            "injected",
            "error",
        ]);
        for (name, i, inj, e) in [
            (
                "β_e",
                &self.beta_e,
                self.injected_beta_e_s,
                self.beta_e_error_pct,
            ),
            (
                "β_f",
                &self.beta_f,
                self.injected_beta_f_s,
                self.beta_f_error_pct,
            ),
        ] {
            t.row(vec![
                name.into(),
                human_s(i.value),
                human_s(i.std_error),
                format!("{} – {}", human_s(i.low), human_s(i.high)),
                inj.map_or("—".into(), human_s),
                e.map_or("—".into(), |x| signed_pct(x, 2)),
            ]);
        }
        let mut blocks = vec![
            Block::Table(t),
            Block::Text(format!(
                "{} observations; largest relative residual {:.2} %{}",
                self.observations,
                100.0 * self.fit.max_relative_residual,
                self.host_message_floor_s
                    .map(|f| format!("; host per-message floor {}", human_s(f)))
                    .unwrap_or_default()
            )),
        ];
        if !self.skipped_rows.is_empty() {
            let rows: Vec<String> = self
                .skipped_rows
                .iter()
                .map(|s| format!("row {}: {}", s.row, s.reason))
                .collect();
            blocks.push(Block::Text(format!(
                "{} rows left out: {}",
                rows.len(),
                rows.join("; ")
            )));
        }
        vec![Section::results("Fitted parameters", blocks)]
    }

    fn figures(&self) -> Result<Vec<Figure>> {
        let mut series: Vec<ResidualSeries> = Vec::new();
        for ((o, r), l) in self
            .rows
            .iter()
            .zip(&self.fit.relative_residuals)
            .zip(self.labels())
        {
            let point = Point::new(o.shape.processors() as f64, 100.0 * r);
            match series.iter_mut().find(|s| s.label == l) {
                Some(s) => s.points.push(point),
                None => series.push(ResidualSeries {
                    label: l,
                    points: vec![point],
                }),
            }
        }
        let sd_pct = 100.0 * self.fit.relative_residual_sd;
        let p = || self.rows.iter().map(|o| o.shape.processors() as f64);
        let residuals = Residuals {
            title: "Residuals of the fit, (measured − fitted)/measured throughput".into(),
            x: AxisSpec {
                ticks: Ticks::at_few(p()),
                ..AxisSpec::new("processors P", Scale::spanning(p()))
            },
            y_label: "relative residual (%)".into(),
            series,
            sigma: Some(sd_pct),
            sigma_label: Some(format!("±σ, σ = {sd_pct:.2} % (the fit's)")),
        };
        Ok(vec![
            self.data_figure()?,
            Figure {
                file: "residuals.svg".into(),
                caption: "Residuals of the fit, one per row fitted, by tree family and task time; \
                      the band is the fit's residual standard deviation."
                    .into(),
                svg: residuals.to_svg(960, 480)?,
            },
        ])
    }
}
