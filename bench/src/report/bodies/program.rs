//! A user's own program: its sweep over P measured beside its model, and the fit of the
//! model's parameters.

use anyhow::Result;
use multicomputer_workloads::experiment::{Fit, Sweep};
use serde::Serialize;

use crate::plot::{AxisSpec, ErrorBar, LineChart, Point, ResidualSeries, Residuals, Scale, Ticks};
use crate::report::{Block, Body, Figure, Section, Table, csv};
use crate::units::{human_s, signed_pct};

/// What a user's program reports: its sweep and, if made, the fit.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ProgramReport {
    /// Every point: P, the runs' makespans and their summary, the model's prediction.
    pub(crate) sweep: Sweep,
    /// The model's parameters fitted to every measured run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) fit: Option<Fit>,
}

/// One row of the CSV table: a point of the sweep.
#[derive(Serialize)]
struct Row<'a> {
    processors: usize,
    topology: &'a str,
    mode: &'a str,
    runs: usize,
    measured_makespan_s: f64,
    measured_sd_s: Option<f64>,
    measured_min_s: f64,
    measured_max_s: f64,
    predicted_makespan_s: f64,
    error_pct: f64,
    fitted_makespan_s: Option<f64>,
}

impl ProgramReport {
    /// The fitted makespan at point `i`, if fitted.
    fn fitted(&self, i: usize) -> Option<f64> {
        self.fit.as_ref().and_then(|f| f.fitted_s.get(i).copied())
    }

    fn rows(&self) -> Vec<Row<'_>> {
        self.sweep
            .points
            .iter()
            .enumerate()
            .map(|(i, p)| Row {
                processors: p.processors,
                topology: &p.topology,
                mode: p.mode,
                runs: p.measured.runs,
                measured_makespan_s: p.measured.mean,
                measured_sd_s: p.measured.sd,
                measured_min_s: p.measured.min,
                measured_max_s: p.measured.max,
                predicted_makespan_s: p.predicted_s,
                error_pct: p.error_pct,
                fitted_makespan_s: self.fitted(i),
            })
            .collect()
    }

    fn points_table(&self) -> Table {
        let mut header = vec![
            "P",
            "topology",
            "measured (mean ± sd)",
            "predicted",
            "error",
        ];
        if self.fit.is_some() {
            header.push("fitted");
        }
        let mut t = Table::new(&header);
        for (i, p) in self.sweep.points.iter().enumerate() {
            let sd = p
                .measured
                .sd
                .map_or(String::new(), |sd| format!(" ± {}", human_s(sd)));
            let mut row = vec![
                p.processors.to_string(),
                p.topology.clone(),
                format!("{}{sd}", human_s(p.measured.mean)),
                human_s(p.predicted_s),
                signed_pct(p.error_pct, 2),
            ];
            if let Some(f) = self.fitted(i) {
                row.push(human_s(f));
            }
            t.row(row);
        }
        t
    }

    fn fit_section(fit: &Fit) -> Section {
        let mut t = Table::new(&["parameter", "given", "fitted", "± std. error", "change"]);
        for p in &fit.parameters {
            t.row(vec![
                p.name.clone(),
                format!("{:.6e}", p.given),
                format!("{:.6e}", p.value),
                format!("{:.2e}", p.std_error),
                signed_pct(p.change_pct, 2),
            ]);
        }
        Section::results(
            "Fitted parameters",
            vec![
                Block::Table(t),
                Block::Text(format!(
                    "{} runs fitted by relative error; largest relative residual {:.3} %",
                    fit.observations,
                    100.0 * fit.max_relative_residual
                )),
            ],
        )
    }

    /// The makespan against P: measured (mean ± sd) beside the model, and the fitted model.
    fn makespan_chart(&self) -> Result<String> {
        let p = || self.sweep.points.iter().map(|p| p.processors as f64);
        let measured = self.sweep.points.iter().map(|p| match p.measured.sd {
            Some(sd) => Point::with_error(
                p.processors as f64,
                p.measured.mean,
                ErrorBar::PlusMinus(sd),
            ),
            None => Point::new(p.processors as f64, p.measured.mean),
        });
        let model = self
            .sweep
            .points
            .iter()
            .map(|p| (p.processors as f64, p.predicted_s));
        let mut chart = LineChart::new(
            format!("{}: makespan against processors", self.sweep.name),
            "processors P",
            "makespan (s)",
        )
        .x_scale(Scale::spanning(p()))
        .x_ticks(Ticks::at_few(p()))
        .key("measured (mean ± sd)", "model")
        .pair(&self.sweep.name, measured, model);
        if let Some(fit) = &self.fit {
            chart = chart.model(
                "model with the fitted parameters",
                p().zip(fit.fitted_s.iter().copied()),
            );
        }
        chart.to_svg(960, 600)
    }

    /// Each run's relative residual against the fitted model.
    fn residuals_chart(&self, fit: &Fit) -> Result<String> {
        let p = || self.sweep.points.iter().map(|p| p.processors as f64);
        let xs = self
            .sweep
            .points
            .iter()
            .flat_map(|p| p.makespans_s.iter().map(move |_| p.processors as f64));
        let points = xs
            .zip(&fit.relative_residuals)
            .map(|(x, r)| Point::new(x, 100.0 * r))
            .collect();
        Residuals {
            title: "Residuals of the fit, (measured − fitted)/measured makespan".into(),
            x: AxisSpec {
                ticks: Ticks::at_few(p()),
                ..AxisSpec::new("processors P", Scale::spanning(p()))
            },
            y_label: "relative residual (%)".into(),
            series: vec![ResidualSeries {
                label: "each measured run".into(),
                points,
            }],
            sigma: None,
            sigma_label: None,
        }
        .to_svg(960, 480)
    }
}

impl Body for ProgramReport {
    fn title(&self) -> String {
        format!("{}: measured beside its model", self.sweep.name)
    }

    fn results(&self) -> Vec<Section> {
        let mut sections = vec![Section::results(
            "Makespan against processors",
            vec![
                Block::Table(self.points_table()),
                Block::Text(format!(
                    "{} measured run(s) per point after {} warm-up run(s); run k draws from seed \
                     {} + k",
                    self.sweep.runs, self.sweep.warmup, self.sweep.seed
                )),
            ],
        )];
        if let Some(fit) = &self.fit {
            sections.push(Self::fit_section(fit));
        }
        sections
    }

    fn figures(&self) -> Result<Vec<Figure>> {
        let mut figures = vec![Figure {
            file: "makespan.svg".into(),
            caption: "Makespan against processors: measured (mean ± sd of the runs) beside the \
                      model with the given parameters, and with the fitted ones."
                .into(),
            svg: self.makespan_chart()?,
        }];
        if let Some(fit) = &self.fit {
            figures.push(Figure {
                file: "residuals.svg".into(),
                caption: "Each measured run's residual against the model with the fitted \
                          parameters."
                    .into(),
                svg: self.residuals_chart(fit)?,
            });
        }
        Ok(figures)
    }

    fn csv(&self) -> Result<Option<Vec<u8>>> {
        csv::rows(&self.rows()).map(Some)
    }
}
