//! `farm` and `dnc`: a run measured beside its model, with residuals.

use anyhow::Result;
use multicomputer_workloads::farm::{Bound, Drain, FarmComparison};
use multicomputer_workloads::repetitions::Summary;
use multicomputer_workloads::tree::Comparison;
use serde::Serialize;

use crate::exec::FAMILY_GROWTH;
use crate::plan::Repeat;
use crate::plot::{Bar, BarChart, BarGroup, ErrorBar, LineChart, Point, Reference, Scale};
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
/// Tables list every level up to this many; a deeper tree or a longer chain shows its first
/// [`HEAD_LEVELS`] and last [`TAIL_LEVELS`], and says how many are left out (`--json` keeps
/// every one).
const MAX_LEVEL_ROWS: usize = 24;
const HEAD_LEVELS: usize = 16;
const TAIL_LEVELS: usize = 4;

/// A row of a per-level table: a level (0-based), or the levels left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LevelRow {
    Level(usize),
    Omitted(usize),
}

/// The rows a per-level table of `levels` levels lists.
pub(crate) fn level_rows(levels: usize) -> Vec<LevelRow> {
    if levels <= MAX_LEVEL_ROWS {
        return (0..levels).map(LevelRow::Level).collect();
    }
    (0..HEAD_LEVELS)
        .map(LevelRow::Level)
        .chain([LevelRow::Omitted(levels - HEAD_LEVELS - TAIL_LEVELS)])
        .chain((levels - TAIL_LEVELS..levels).map(LevelRow::Level))
        .collect()
}

/// The row that stands for `omitted` levels left out, `columns` wide.
pub(crate) fn omitted_levels_row(omitted: usize, columns: usize) -> Vec<String> {
    let mut row = vec![format!("… {omitted} more levels (every one in --json)")];
    row.resize(columns, String::new());
    row
}

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

/// A run on the tree engine as `farm` and `dnc` report it: measured beside predicted, and
/// the drain the model leaves out (a farm's, with random task times).
pub(crate) trait TreeRun {
    /// Measured beside predicted.
    fn comparison(&self) -> &Comparison;
    /// The drain at the end that (g) leaves out.
    fn drain(&self) -> Option<&Drain>;
}

impl TreeRun for FarmComparison {
    fn comparison(&self) -> &Comparison {
        &self.comparison
    }
    fn drain(&self) -> Option<&Drain> {
        self.drain.as_ref()
    }
}

/// Divide and conquer: no drain.
impl TreeRun for Comparison {
    fn comparison(&self) -> &Comparison {
        self
    }
    fn drain(&self) -> Option<&Drain> {
        None
    }
}

/// What `farm` and `dnc` report.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FarmReport {
    /// `processor farm` or `divide and conquer`.
    #[serde(skip)]
    pub(crate) what: &'static str,
    /// Measured (the mean, for several runs) beside predicted.
    #[serde(flatten)]
    pub(crate) comparison: Comparison,
    /// The drain at the end that (g) leaves out (the last run's: a farm's, synthetic kernel).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) drain: Option<Drain>,
    /// Mean ± sd, min and max over the runs, for several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) repetitions: Option<Repetitions>,
    /// Each level's task fraction over the runs (mean ± sd, min, max), for several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) fractions_by_level_runs: Option<Vec<Option<Summary>>>,
    /// The model's speedup over the family of the run's network (chains or k-ary trees of
    /// one level to a few more), as (processors, speedup), for the speedup plot; empty where
    /// the model needs what only the run measures.
    #[serde(skip)]
    pub(crate) family: Vec<(f64, f64)>,
}

impl FarmReport {
    /// The report of `runs`: their mean beside the model, and each quantity's spread.
    pub(crate) fn of_runs<T: TreeRun>(
        what: &'static str,
        runs: &[T],
        r: Repeat,
        seeds: &[u64],
    ) -> Option<Self> {
        let measured: Vec<_> = runs
            .iter()
            .map(|r| r.comparison().measured.clone())
            .collect();
        let comparison = Comparison::combine(runs.iter().map(TreeRun::comparison))?;
        let drain = runs.last()?.drain().cloned();
        let levels = comparison.measured.fractions_by_level.len();
        let level = |i: usize| -> Vec<f64> {
            measured
                .iter()
                .filter_map(|m| m.fractions_by_level.get(i).copied())
                .collect()
        };
        let repetitions = Repetitions::of(r, &measured, seeds);
        Some(Self {
            what,
            comparison,
            drain,
            fractions_by_level_runs: repetitions
                .is_some()
                .then(|| (0..levels).map(|i| Summary::of(&level(i))).collect()),
            repetitions,
            family: Vec::new(),
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
        let levels = m
            .fractions_by_level
            .len()
            .min(p.fractions_by_level.len())
            .min(e.fractions_of_m.len());
        for row in level_rows(levels) {
            let i = match row {
                LevelRow::Level(i) => i,
                LevelRow::Omitted(n) => {
                    t.row(omitted_levels_row(n, 4));
                    continue;
                }
            };
            t.row(vec![
                format!("f_{} (level {})", i + 1, i + 1),
                format!("{:.4}", m.fractions_by_level[i]),
                format!("{:.4}", p.fractions_by_level[i]),
                format!("{:+.2} % of M", e.fractions_of_m[i]),
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
            ]);
            // A term that costs no time leaves the model's speedup as it was.
            if term.time_s > 0.0 {
                t.row(vec![
                    "speedup, model + that term".into(),
                    format!("{:.3}", m.speedup),
                    format!("{:.3}", term.speedup),
                    signed_pct(err, 2),
                ]);
            }
        }
        if let Some(d) = &self.drain {
            for [quantity, predicted, error] in drain_rows(d) {
                t.row(vec![quantity, String::new(), predicted, error]);
            }
            if let (Some(f), Some(err)) = (&d.flood_fill, d.error_with_flood_fill_pct(m.speedup)) {
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
        if let Some(parts) = &c.parts {
            blocks.push(Block::Text(format!("partitioned virtual time: {parts}")));
        }
        if let Some(r) = &self.repetitions {
            blocks.extend(r.blocks("measured: the mean of"));
        }
        vec![Section::results("Measured beside predicted", blocks)]
    }

    fn figures(&self) -> Result<Vec<Figure>> {
        let c = &self.comparison;
        let levels = c.measured.fractions_by_level.len();
        let sd = |s: Option<Summary>| s.and_then(|s| s.sd).map(ErrorBar::PlusMinus);
        let fraction_sd = |i: usize| {
            self.fractions_by_level_runs
                .as_ref()
                .and_then(|f| f.get(i).copied().flatten())
        };
        let speedup_sd = self
            .repetitions
            .as_ref()
            .and_then(|r| r.quantities.iter().find(|q| q.name == "speedup"))
            .and_then(|q| q.summary);
        let spread = (0..levels)
            .map(fraction_sd)
            .chain([speedup_sd])
            .any(|s| s.and_then(|s| s.sd).is_some_and(|sd| sd > 0.0));
        let measured = match self.repetitions.as_ref().map_or(1, |r| r.runs) {
            1 => "measured".to_owned(),
            runs if spread => format!("measured (mean ± sd of {runs} runs)"),
            runs => format!("measured ({runs} runs, all alike)"),
        };
        // The levels the tables list: every one, or the first and the last of a long chain.
        let shown: Vec<usize> = level_rows(levels)
            .into_iter()
            .filter_map(|r| match r {
                LevelRow::Level(i) => Some(i),
                LevelRow::Omitted(_) => None,
            })
            .filter(|&i| i < c.predicted.fractions_by_level.len())
            .collect();
        let title = if shown.len() < levels {
            format!(
                "Share of the tasks executed per level, measured and predicted (levels \
                 1–{HEAD_LEVELS} and {}–{levels} of {levels})",
                levels - TAIL_LEVELS + 1
            )
        } else {
            "Share of the tasks executed per level, measured and predicted".into()
        };
        let fractions = BarChart {
            title,
            x_label: "level (1 = leaves)".into(),
            y_label: "fraction of M".into(),
            categories: shown.iter().map(|i| format!("level {}", i + 1)).collect(),
            groups: vec![
                BarGroup {
                    name: measured.clone(),
                    bars: shown
                        .iter()
                        .map(|&i| Bar {
                            value: c.measured.fractions_by_level[i],
                            error: sd(fraction_sd(i)),
                        })
                        .collect(),
                },
                BarGroup::of(
                    "model f_i",
                    &shown
                        .iter()
                        .map(|&i| c.predicted.fractions_by_level[i])
                        .collect::<Vec<_>>(),
                ),
            ],
        };
        let p = c.processors as f64;
        let run = match sd(speedup_sd) {
            Some(e) => Point::with_error(p, c.measured.speedup, e),
            None => Point::new(p, c.measured.speedup),
        };
        // The model over the network's family where it needs only the run's inputs, else
        // its value at the run's P.
        let model = if self.family.is_empty() {
            vec![(p, c.predicted.speedup)]
        } else {
            self.family.clone()
        };
        let xs = || model.iter().map(|m| m.0).chain([p]);
        let mut speedup = LineChart::new(
            format!(
                "Speedup against processors: the run on {} beside the model",
                c.topology
            ),
            "processors P",
            "speedup S(P)",
        )
        .x_scale(Scale::spanning(xs()))
        .y_include(0.0)
        .key(measured, "model (g)")
        .pair(
            format!("{} (P = {})", c.topology, c.processors),
            [run],
            model,
        )
        .scattered()
        .reference(Reference::ideal_speedup());
        if let Some(f) = self.drain.as_ref().and_then(|d| d.flood_fill.as_ref()) {
            speedup = speedup.model("model (g) + drain", [(p, f.speedup)]);
        }
        let family = if self.family.is_empty() {
            "at the run's P (a real kernel's model needs the task time the run measured)".into()
        } else {
            format!(
                "over the chains or trees of its kind, from one level to {FAMILY_GROWTH}× the \
                 run's processors"
            )
        };
        Ok(vec![
            Figure {
                file: "fractions.svg".into(),
                caption: "Per-level task fractions f_i: measured beside the model's.".into(),
                svg: fractions.to_svg((120 * levels as u32).clamp(640, 960), 420)?,
            },
            Figure {
                file: "speedup.svg".into(),
                caption: format!(
                    "Speedup against processors: the run (its P) beside the model (g) {family}, \
                     and the ideal S = P."
                ),
                svg: speedup.to_svg(800, 480)?,
            },
        ])
    }
}

#[cfg(test)]
mod level_row_tests {
    use super::*;

    #[test]
    fn long_chains_list_their_first_and_last_levels() {
        assert_eq!(
            level_rows(3),
            vec![LevelRow::Level(0), LevelRow::Level(1), LevelRow::Level(2)]
        );
        assert_eq!(level_rows(MAX_LEVEL_ROWS).len(), MAX_LEVEL_ROWS);
        let rows = level_rows(1000);
        assert_eq!(rows.len(), HEAD_LEVELS + 1 + TAIL_LEVELS);
        assert_eq!(rows[HEAD_LEVELS - 1], LevelRow::Level(HEAD_LEVELS - 1));
        assert_eq!(
            rows[HEAD_LEVELS],
            LevelRow::Omitted(1000 - HEAD_LEVELS - TAIL_LEVELS)
        );
        assert_eq!(rows[HEAD_LEVELS + 1], LevelRow::Level(1000 - TAIL_LEVELS));
        assert_eq!(*rows.last().unwrap(), LevelRow::Level(999));
    }
}
