//! The plots of a farm or divide-and-conquer sweep: speedup against processors (one chart per
//! task-time distribution or split when several were swept), the error of every cell, and
//! speedup against granularity when several granularities were swept.
//!
//! Each series is one tree family (or topology) and each input that varies: measured (the
//! mean of the runs, ± their sd where they differ) against the model, in one colour. What all
//! cells of a chart share goes in its title, not in every label.

use std::collections::BTreeSet;

use anyhow::Result;

use super::sweep_row::{SweepRow, family};
use crate::plot::{Bar, BarChart, BarGroup, ErrorBar, LineChart, Point, Reference, Scale, Ticks};
use crate::report::Figure;
use crate::units::human_s;

/// Which cell inputs (besides the topology) vary between rows: those name a series or a bar.
struct Varying {
    te: bool,
    times: bool,
    granularity: bool,
}

impl Varying {
    fn of(rows: &[&SweepRow]) -> Self {
        let differs = |f: &dyn Fn(&SweepRow) -> String| {
            rows.iter().map(|r| f(r)).collect::<BTreeSet<_>>().len() > 1
        };
        Self {
            te: differs(&|r| human_s(r.te_s)),
            times: differs(&|r| r.times.clone()),
            granularity: differs(&|r| r.granularity.to_string()),
        }
    }
}

/// The sd of a row's speedup over its runs, where the runs differ.
fn spread(r: &SweepRow) -> Option<f64> {
    r.measured_speedup_sd.filter(|sd| *sd > 0.0)
}

/// A sweep's rows (or some of them) as charts.
pub(crate) struct SweepPlots<'r> {
    /// `farm` or `dnc`.
    kind: &'static str,
    rows: Vec<&'r SweepRow>,
    vary: Varying,
}

impl<'r> SweepPlots<'r> {
    pub(crate) fn new(kind: &'static str, rows: impl IntoIterator<Item = &'r SweepRow>) -> Self {
        let rows: Vec<&SweepRow> = rows.into_iter().collect();
        Self {
            kind,
            vary: Varying::of(&rows),
            rows,
        }
    }

    /// The figures: speedup (one per distribution or split, if several), error, granularity.
    pub(crate) fn figures(&self) -> Result<Vec<Figure>> {
        let mut figures = Vec::new();
        let caption = format!(
            "Speedup against processors: each series one tree family and each input that \
             varies; measured points{} against the model's dashed line, the ideal S = P dotted.",
            if self.has_spread() {
                " (mean ± sd of the runs; an error bar shorter than a marker is hidden by it)"
            } else {
                ""
            }
        );
        if self.vary.times {
            let mut times: Vec<&str> = Vec::new();
            for r in &self.rows {
                if !times.contains(&r.times.as_str()) {
                    times.push(&r.times);
                }
            }
            for t in times {
                let part = Self::new(
                    self.kind,
                    self.rows.iter().copied().filter(|r| r.times == t),
                );
                figures.push(Figure {
                    file: format!("speedup-{t}.svg"),
                    caption: format!("{caption} Cells with {}.", self.times_words(t)),
                    svg: part.speedup_chart()?,
                });
            }
        } else {
            figures.push(Figure {
                file: "speedup.svg".into(),
                caption,
                svg: self.speedup_chart()?,
            });
        }
        figures.push(Figure {
            file: "error.svg".into(),
            caption: "The speedup error of every cell (the residuals of the model).".into(),
            svg: self.error_chart()?,
        });
        if self.vary.granularity {
            figures.push(Figure {
                file: "granularity.svg".into(),
                caption: "Speedup against granularity, per topology and each input that varies."
                    .into(),
                svg: self.granularity_chart()?,
            });
        }
        Ok(figures)
    }

    /// Words for a task-time distribution (farm) or split (dnc).
    fn times_words(&self, times: &str) -> String {
        match (self.kind, times) {
            (_, "mergesort") => "mergesort".into(),
            ("dnc", split) => format!("{split} split"),
            (_, times) => format!("{times} times"),
        }
    }

    /// A row's label: `what` (its topology or family), then the inputs that vary and that
    /// the x axis (granularity, unless `show_g`) does not already show.
    fn label(&self, r: &SweepRow, what: &str, show_g: bool) -> String {
        let mut parts = vec![what.to_owned()];
        if self.vary.te {
            parts.push(format!("T_e = {}", human_s(r.te_s)));
        }
        if self.vary.times {
            parts.push(self.times_words(&r.times));
        }
        if self.vary.granularity && show_g {
            parts.push(format!("g = {}", r.granularity));
        }
        parts.join(", ")
    }

    /// The inputs every row shares, for a title: " (T_e = 1 ms, constant times)".
    fn shared(&self, show_g: bool) -> String {
        let Some(r) = self.rows.first() else {
            return String::new();
        };
        let mut parts = Vec::new();
        if !self.vary.te {
            parts.push(format!("T_e = {}", human_s(r.te_s)));
        }
        if !self.vary.times {
            parts.push(self.times_words(&r.times));
        }
        if !self.vary.granularity && show_g && r.granularity != 1 {
            parts.push(format!("g = {}", r.granularity));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!(" ({})", parts.join(", "))
        }
    }

    /// Whether any row's runs differ.
    fn has_spread(&self) -> bool {
        self.rows.iter().any(|r| spread(r).is_some())
    }

    /// The legend's key: the measured half says what its error bars are.
    fn key(&self) -> (&'static str, &'static str) {
        if self.has_spread() {
            ("measured (mean ± sd of the runs)", "model")
        } else {
            ("measured", "model")
        }
    }

    /// `chart` with one measured/model pair per series label against `x`, in the order the
    /// labels first appear.
    fn with_pairs(
        &self,
        mut chart: LineChart,
        label: impl Fn(&SweepRow) -> String,
        x: impl Fn(&SweepRow) -> f64,
    ) -> LineChart {
        let mut labels: Vec<String> = Vec::new();
        for r in &self.rows {
            let l = label(r);
            if !labels.contains(&l) {
                labels.push(l);
            }
        }
        for l in labels {
            let mut rows: Vec<&SweepRow> = self
                .rows
                .iter()
                .copied()
                .filter(|r| label(r) == l)
                .collect();
            rows.sort_by(|a, b| x(a).total_cmp(&x(b)));
            let measured = rows.iter().map(|r| match spread(r) {
                Some(sd) => Point::with_error(x(r), r.measured_speedup, ErrorBar::PlusMinus(sd)),
                None => Point::new(x(r), r.measured_speedup),
            });
            let model: Vec<(f64, f64)> = rows.iter().map(|r| (x(r), r.predicted_speedup)).collect();
            chart = chart.pair(l, measured, model);
        }
        chart.scattered()
    }

    /// Speedup against processors with the ideal S = P; log–log when the processor counts
    /// grow geometrically over a decade or more.
    fn speedup_chart(&self) -> Result<String> {
        let p = || self.rows.iter().map(|r| r.processors as f64);
        let scale = Scale::spanning(p());
        let (measured, model) = self.key();
        let chart = LineChart::new(
            format!("Speedup against processors{}", self.shared(true)),
            "processors P",
            "speedup S(P)",
        )
        .x_scale(scale)
        .y_scale(scale)
        .x_ticks(Ticks::at_few(p()))
        .key(measured, model)
        .reference(Reference::ideal_speedup());
        self.with_pairs(
            chart,
            |r| self.label(r, &family(&r.topology), true),
            |r| r.processors as f64,
        )
        .to_svg(960, 600)
    }

    /// The speedup error of every cell, with ± the sd of the runs where they differ (the sd
    /// of the speedup over the model's, a constant, in percent).
    fn error_chart(&self) -> Result<String> {
        let chart = BarChart {
            title: format!(
                "Speedup error per cell, (measured − model)/model{}",
                self.shared(true)
            ),
            y_label: if self.has_spread() {
                "error (%), mean ± sd of the runs".into()
            } else {
                "error (%)".into()
            },
            categories: self
                .rows
                .iter()
                .map(|r| self.label(r, &r.topology, true))
                .collect(),
            groups: vec![BarGroup {
                name: "speedup error".into(),
                bars: self
                    .rows
                    .iter()
                    .map(|r| Bar {
                        value: r.error_pct,
                        error: spread(r)
                            .map(|sd| ErrorBar::PlusMinus(100.0 * sd / r.predicted_speedup)),
                    })
                    .collect(),
            }],
            ..BarChart::default()
        };
        // Many cells: room under the bars for their labels, rotated.
        let height = if self.rows.len() > 16 { 680 } else { 520 };
        chart.to_svg((24 * self.rows.len() as u32).max(640), height)
    }

    /// Speedup against granularity: one pair per topology and varying input.
    fn granularity_chart(&self) -> Result<String> {
        let g = || self.rows.iter().map(|r| f64::from(r.granularity));
        let (measured, model) = self.key();
        let chart = LineChart::new(
            format!(
                "Speedup against granularity g, start-up included{}",
                self.shared(false)
            ),
            "granularity g (tasks per message)",
            "speedup S",
        )
        .x_scale(Scale::spanning(g()))
        .x_ticks(Ticks::at_few(g()))
        .key(measured, model);
        self.with_pairs(
            chart,
            |r| self.label(r, &r.topology, false),
            |r| f64::from(r.granularity),
        )
        .to_svg(960, 600)
    }
}
