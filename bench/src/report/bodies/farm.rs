//! `farm` and `dnc`: a run measured beside its model, with residuals.

use anyhow::Result;
use multicomputer_workloads::farm::{Bound, Drain, FarmComparison, combine_runs};
use serde::Serialize;

use crate::plan::Repeat;
use crate::plot::Bars;
use crate::report::{Block, Body, Figure, Repetitions, Section, Table};
use crate::units::{human_s, signed_pct};

/// A bound's name.
pub(crate) fn bound_name(b: Bound) -> &'static str {
    match b {
        Bound::Processors => "processors",
        Bound::Forwarding => "forwarding",
        Bound::Link => "link",
    }
}

/// Table rows `(quantity, predicted, speedup error)` for a drain: the floor and, for flood
/// fill, the protocol's drain; none for constant times.
pub(crate) fn drain_rows(d: &Drain) -> Vec<[String; 3]> {
    let mut rows = Vec::new();
    if d.drain_s > 0.0 {
        rows.push([
            "drain at the end (not in (g))".into(),
            human_s(d.drain_s),
            format!("{:+.2} % at best", d.speedup_error_floor_pct),
        ]);
    }
    if let Some(f) = &d.flood_fill {
        rows.push([
            "flood-fill drain".into(),
            format!("{} ± {}", human_s(f.drain_s), human_s(f.drain_sd_s)),
            format!("{:+.2} ± {:.2} % expected", f.error_pct, f.error_sd_pct),
        ]);
    }
    rows
}

/// What `farm` and `dnc` report.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FarmReport {
    /// `processor farm` or `divide and conquer`.
    #[serde(skip)]
    pub(crate) what: &'static str,
    /// Measured (the mean, for several runs) beside predicted.
    #[serde(flatten)]
    pub(crate) comparison: FarmComparison,
    /// Mean ± sd, min and max over the runs, for several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) repetitions: Option<Repetitions>,
}

impl FarmReport {
    /// The report of `runs`: their mean beside the model, and each quantity's spread.
    pub(crate) fn of_runs(what: &'static str, runs: &[FarmComparison], r: Repeat) -> Option<Self> {
        let measured: Vec<_> = runs.iter().map(|r| r.measured.clone()).collect();
        Some(Self {
            what,
            comparison: combine_runs(runs)?,
            repetitions: Repetitions::of(r, &measured),
        })
    }

    /// The measured-beside-predicted table, with each residual as an error.
    pub(crate) fn table(&self) -> Table {
        let c = &self.comparison;
        let (m, p, e) = (&c.measured, &c.predicted, &c.errors_pct);
        let mut t = Table::new(&["quantity", "measured", "predicted", "error"]);
        t.row(vec![
            "throughput (tasks/s)".into(),
            format!("{:.1}", m.throughput_per_s),
            format!("{:.1}", p.throughput_per_s),
            signed_pct(e.throughput, 2),
        ])
        .row(vec![
            "steady throughput (tasks/s)".into(),
            format!("{:.1}", m.steady_throughput_per_s),
            format!("{:.1}", p.throughput_per_s),
            signed_pct(e.steady_throughput, 2),
        ])
        .row(vec![
            "speedup".into(),
            format!("{:.3}", m.speedup),
            format!("{:.3}", p.speedup),
            signed_pct(e.speedup, 2),
        ])
        .row(vec![
            "makespan".into(),
            human_s(m.makespan_s),
            human_s(p.makespan_s),
            signed_pct(e.makespan, 2),
        ])
        .row(vec![
            "start-up (first result)".into(),
            human_s(m.startup_s),
            human_s(p.startup_s),
            String::new(),
        ]);
        for (i, ((fm, fp), fe)) in m
            .fractions_by_level
            .iter()
            .zip(&p.fractions_by_level)
            .zip(&e.fractions_of_m)
            .enumerate()
        {
            t.row(vec![
                format!("f_{} (level {})", i + 1, i + 1),
                format!("{fm:.4}"),
                format!("{fp:.4}"),
                format!("{fe:+.2} % of M"),
            ]);
        }
        for (term, err) in c
            .missing_terms
            .iter()
            .zip(c.errors_with_missing_terms_pct())
        {
            t.row(vec![
                format!("not in the model: {}", term.name),
                String::new(),
                human_s(term.time_s),
                String::new(),
            ])
            .row(vec![
                "speedup, model + that term".into(),
                format!("{:.3}", m.speedup),
                format!("{:.3}", term.speedup),
                signed_pct(err, 2),
            ]);
        }
        if let Some(d) = &c.drain {
            for [quantity, predicted, error] in drain_rows(d) {
                t.row(vec![quantity, String::new(), predicted, error]);
            }
            if let (Some(f), Some(err)) = (&d.flood_fill, c.error_with_drain_pct()) {
                t.row(vec![
                    "speedup, (g) + drain".into(),
                    format!("{:.3}", m.speedup),
                    format!("{:.3}", f.speedup),
                    signed_pct(err, 2),
                ]);
            }
        }
        t
    }
}

impl Body for FarmReport {
    fn title(&self) -> String {
        format!(
            "{} on {} ({} processors): measured beside the model",
            self.what, self.comparison.topology, self.comparison.processors
        )
    }

    fn results(&self) -> Vec<Section> {
        let c = &self.comparison;
        let mut blocks = vec![
            Block::Text(format!(
                "{} ({} processors), {}, wall {:.2} s",
                c.topology,
                c.processors,
                crate::units::time_text(c.mode, c.dilation),
                c.wall_s
            )),
            Block::Table(self.table()),
            Block::Text(format!(
                "throughput bound: {}",
                bound_name(c.predicted.bound)
            )),
        ];
        if let Some(r) = &self.repetitions {
            blocks.push(Block::Text(format!(
                "measured: the mean of {} runs after {} warm-up; each quantity:",
                r.runs, r.warmup
            )));
            blocks.push(Block::Table(r.table()));
        }
        vec![Section::results("Measured beside predicted", blocks)]
    }

    fn figures(&self) -> Result<Vec<Figure>> {
        let c = &self.comparison;
        let levels = c.measured.fractions_by_level.len();
        let bars = Bars {
            title: "Share of the tasks executed per level, measured and predicted".into(),
            y_label: "fraction of M".into(),
            categories: (1..=levels).map(|i| format!("level {i}")).collect(),
            groups: vec![
                ("measured".into(), c.measured.fractions_by_level.clone()),
                ("model".into(), c.predicted.fractions_by_level.clone()),
            ],
        };
        let speedup = Bars {
            title: "Speedup, measured and predicted".into(),
            y_label: "speedup".into(),
            categories: vec![c.topology.clone()],
            groups: {
                let mut g = vec![
                    ("measured".into(), vec![c.measured.speedup]),
                    ("model (g)".into(), vec![c.predicted.speedup]),
                ];
                if let Some(f) = c.drain.as_ref().and_then(|d| d.flood_fill.as_ref()) {
                    g.push(("model (g) + drain".into(), vec![f.speedup]));
                }
                g
            },
        };
        Ok(vec![
            Figure {
                file: "fractions.svg".into(),
                caption: "Per-level task fractions f_i: measured beside the model's.".into(),
                svg: bars.to_svg((120 * levels as u32).clamp(640, 960), 420)?,
            },
            Figure {
                file: "speedup.svg".into(),
                caption: "Speedup: measured beside the model's.".into(),
                svg: speedup.to_svg(640, 420)?,
            },
        ])
    }
}
