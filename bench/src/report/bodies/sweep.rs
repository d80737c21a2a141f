//! `sweep farm` and `sweep dnc`: one row per cell, every column in the CSV, plots of
//! speedup against processors (one series per tree family, task time, task-time
//! distribution or split kind, and granularity), the error of every cell, and speedup
//! against granularity.

use anyhow::Result;
use multicomputer_runtime::{Topology, TopologyKind};
use multicomputer_workloads::farm::{FarmComparison, TreeShape};
use multicomputer_workloads::repetitions::Summary;
use serde::Serialize;

use super::farm::bound_name;
use crate::exec::Runs;
use crate::plan::{LoadedProfile, SweepPlan};
use crate::plot::{Bar, BarChart, BarGroup, ErrorBar, LineChart, Point, Reference, Scale, Ticks};
use crate::report::{Block, Body, Figure, Meta, Report, Section, Table, csv};
use crate::units::human_s;

/// What a sweep's cell was run with.
#[derive(Debug, Clone)]
pub(crate) struct CellInputs {
    /// The topology.
    pub(crate) topology: Topology,
    /// T_e (whole task for dnc), seconds.
    pub(crate) te_s: f64,
    /// Task-time distribution (farm) or split kind (dnc).
    pub(crate) times: &'static str,
    /// Tasks per message.
    pub(crate) granularity: u32,
    /// M.
    pub(crate) tasks: u64,
    /// T_τ, seconds.
    pub(crate) tau_s: f64,
    /// β_e, seconds.
    pub(crate) beta_e_s: f64,
    /// β_f, seconds.
    pub(crate) beta_f_s: f64,
    /// Queue per processor.
    pub(crate) queue: u64,
    /// Model-guided flow control.
    pub(crate) guided: bool,
}

impl CellInputs {
    /// A farm cell's inputs.
    pub(crate) fn farm(c: &crate::plan::FarmCell) -> Self {
        let e = &c.experiment;
        Self {
            topology: c.topology.clone(),
            te_s: e.spec.te.as_secs_f64(),
            times: crate::plan::times_name(e.spec.times),
            granularity: e.spec.granularity as u32,
            tasks: e.spec.tasks as u64,
            tau_s: e.tau_s,
            beta_e_s: e.beta_e.as_secs_f64(),
            beta_f_s: e.beta_f.as_secs_f64(),
            queue: e.queue as u64,
            guided: e.guided,
        }
    }

    /// A divide-and-conquer cell's inputs (its split kind in `times`).
    pub(crate) fn dnc(c: &crate::plan::DncCell) -> Self {
        let e = &c.experiment;
        Self {
            topology: c.topology.clone(),
            te_s: e.te.as_secs_f64(),
            times: match e.kernel {
                multicomputer_workloads::dnc::DncKernel::Synthetic { splitting } => {
                    crate::plan::splitting_name(splitting)
                }
                multicomputer_workloads::dnc::DncKernel::Mergesort { .. } => "mergesort",
            },
            granularity: 1,
            tasks: e.tasks as u64,
            tau_s: e.tau_s,
            beta_e_s: e.beta_e.as_secs_f64(),
            beta_f_s: e.beta_f.as_secs_f64(),
            queue: e.queue as u64,
            guided: false,
        }
    }
}

/// One cell of a sweep: a flat row for CSV (what `fit farm` reads back).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SweepRow {
    pub(crate) topology: String,
    pub(crate) k: u32,
    pub(crate) levels: u32,
    pub(crate) processors: usize,
    pub(crate) te_s: f64,
    pub(crate) times: String,
    pub(crate) granularity: u32,
    pub(crate) tasks: u64,
    pub(crate) tau_s: f64,
    pub(crate) beta_e_s: f64,
    pub(crate) beta_f_s: f64,
    pub(crate) queue: u64,
    pub(crate) guided: bool,
    /// Measured runs of the cell.
    pub(crate) runs: usize,
    pub(crate) measured_throughput_per_s: f64,
    pub(crate) steady_throughput_per_s: f64,
    /// Standard deviation of the steady throughput over the runs (empty for one run).
    pub(crate) steady_throughput_sd_per_s: Option<f64>,
    pub(crate) predicted_throughput_per_s: f64,
    /// The mean over the runs.
    pub(crate) measured_speedup: f64,
    /// Standard deviation over the runs (empty for one run).
    pub(crate) measured_speedup_sd: Option<f64>,
    pub(crate) measured_speedup_min: f64,
    pub(crate) measured_speedup_max: f64,
    pub(crate) predicted_speedup: f64,
    pub(crate) measured_makespan_s: f64,
    pub(crate) predicted_makespan_s: f64,
    pub(crate) error_pct: f64,
    /// The drain at the end that (g) leaves out (random task times; 0 otherwise).
    pub(crate) drain_s: f64,
    /// Speedup error against (g) of a run with nothing but that drain, percent (≤ 0).
    pub(crate) speedup_error_floor_pct: f64,
    /// The flood-fill protocol's drain, sampled (random times, flood fill; empty otherwise).
    pub(crate) flood_fill_drain_s: Option<f64>,
    /// The speedup error against (g) that it implies, percent (empty otherwise).
    pub(crate) flood_fill_error_pct: Option<f64>,
    /// Standard deviation of a single run's error from that drain, percent (empty otherwise).
    pub(crate) flood_fill_error_sd_pct: Option<f64>,
    pub(crate) steady_throughput_error_pct: f64,
    pub(crate) max_fraction_error_pct_of_m: f64,
    pub(crate) bound: String,
    pub(crate) dilation: Option<f64>,
    pub(crate) late_waits: u64,
    pub(crate) waits: u64,
    pub(crate) wall_s: f64,
}

/// The rows of a sweep: each cell's mean measurement beside its prediction, with the
/// spread of its runs.
pub(crate) fn sweep_rows(cells: &[CellInputs], runs: &[Runs<FarmComparison>]) -> Vec<SweepRow> {
    cells
        .iter()
        .zip(runs)
        .filter_map(|(cell, r)| {
            let c = multicomputer_workloads::farm::combine_runs(&r.runs)?;
            let speedups: Vec<f64> = r.runs.iter().map(|x| x.measured.speedup).collect();
            let steady: Vec<f64> = r
                .runs
                .iter()
                .map(|x| x.measured.steady_throughput_per_s)
                .collect();
            let s = Summary::of(&speedups);
            let (k, levels) = match TreeShape::of(&cell.topology) {
                Some(t) => (t.k, t.levels),
                None => (0, cell.topology.levels()),
            };
            let flood_fill = c.drain.as_ref().and_then(|d| d.flood_fill.as_ref());
            Some(SweepRow {
                topology: cell.topology.to_string(),
                k,
                levels,
                processors: cell.topology.len(),
                te_s: cell.te_s,
                times: cell.times.into(),
                granularity: cell.granularity,
                tasks: cell.tasks,
                tau_s: cell.tau_s,
                beta_e_s: cell.beta_e_s,
                beta_f_s: cell.beta_f_s,
                queue: cell.queue,
                guided: cell.guided,
                runs: r.runs.len(),
                measured_throughput_per_s: c.measured.throughput_per_s,
                steady_throughput_per_s: c.measured.steady_throughput_per_s,
                steady_throughput_sd_per_s: Summary::of(&steady).and_then(|s| s.sd),
                predicted_throughput_per_s: c.predicted.throughput_per_s,
                measured_speedup: c.measured.speedup,
                measured_speedup_sd: s.and_then(|s| s.sd),
                measured_speedup_min: s.map_or(f64::NAN, |s| s.min),
                measured_speedup_max: s.map_or(f64::NAN, |s| s.max),
                predicted_speedup: c.predicted.speedup,
                measured_makespan_s: c.measured.makespan_s,
                predicted_makespan_s: c.predicted.makespan_s,
                error_pct: c.error_pct,
                drain_s: c.drain.as_ref().map_or(0.0, |d| d.drain_s),
                speedup_error_floor_pct: c
                    .drain
                    .as_ref()
                    .map_or(0.0, |d| d.speedup_error_floor_pct),
                flood_fill_drain_s: flood_fill.map(|f| f.drain_s),
                flood_fill_error_pct: flood_fill.map(|f| f.error_pct),
                flood_fill_error_sd_pct: flood_fill.map(|f| f.error_sd_pct),
                steady_throughput_error_pct: c.errors_pct.steady_throughput,
                max_fraction_error_pct_of_m: c.errors_pct.max_fraction_of_m(),
                bound: bound_name(c.predicted.bound).into(),
                dilation: c.dilation,
                late_waits: c.fidelity.late_waits,
                waits: c.fidelity.waits,
                wall_s: c.wall_s,
            })
        })
        .collect()
}

/// The report of a farm or divide-and-conquer sweep (`kind`) run as `command`, with its run
/// folder published (rows.csv, plots, report.json, report.html, manifest.json).
pub(crate) fn publish_sweep<E>(
    command: &str,
    kind: &'static str,
    plan: &SweepPlan<E>,
    inputs: &[CellInputs],
    cells: &[Runs<FarmComparison>],
    profile: Option<&LoadedProfile>,
    seed: u64,
) -> Result<Report<SweepReport>> {
    let meta = Meta::new(command, plan.inputs(), profile)
        .seed(seed)
        .cells(&plan.machine, cells.iter().map(|c| &c.ran));
    let rows = sweep_rows(inputs, cells);
    let table = csv::rows(&rows)?;
    let mut report = Report::new(meta, SweepReport { kind, rows });
    report.publish_folder(&plan.folder, vec![("rows.csv".into(), table)])?;
    Ok(report)
}

/// The family of a topology as a plot groups it: `chain`, `array`, `binary`, `tree:K`, or
/// the parent relation itself.
pub(crate) fn family(topology: &str) -> String {
    match topology.parse::<Topology>().map(|t| t.kind().clone()) {
        Ok(TopologyKind::Chain { .. }) => "chain".into(),
        Ok(TopologyKind::Array { .. }) => "array".into(),
        Ok(TopologyKind::Tree { arity: 2, .. }) => "binary".into(),
        Ok(TopologyKind::Tree { arity, .. }) => format!("tree:{arity}"),
        _ => topology.into(),
    }
}

/// What `sweep farm` and `sweep dnc` report.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SweepReport {
    /// `farm` or `dnc`.
    #[serde(skip)]
    pub(crate) kind: &'static str,
    /// One row per cell.
    pub(crate) rows: Vec<SweepRow>,
}

impl SweepReport {
    /// The table people read.
    pub(crate) fn table(&self) -> Table {
        let mut t = Table::new(&[
            "topology",
            "P",
            "T_e",
            if self.kind == "dnc" { "split" } else { "times" },
            "g",
            "speedup meas.",
            "pred.",
            "error",
            "f error (% of M)",
            "D",
        ]);
        for r in &self.rows {
            t.row(vec![
                r.topology.clone(),
                r.processors.to_string(),
                human_s(r.te_s),
                r.times.clone(),
                r.granularity.to_string(),
                match r.measured_speedup_sd {
                    Some(sd) => format!("{:.3} ± {sd:.3}", r.measured_speedup),
                    None => format!("{:.3}", r.measured_speedup),
                },
                format!("{:.3}", r.predicted_speedup),
                format!("{:+.2} %", r.error_pct),
                format!("{:.2}", r.max_fraction_error_pct_of_m),
                r.dilation.map_or("virtual".into(), |d| d.to_string()),
            ]);
        }
        t
    }
}

/// Which of a sweep's cell inputs (besides the topology) vary between its rows: those name a
/// series or a bar; the others are the same for all and go in the title.
struct Varying {
    te: bool,
    times: bool,
    granularity: bool,
}

impl Varying {
    fn of(rows: &[SweepRow]) -> Self {
        let differs = |f: &dyn Fn(&SweepRow) -> String| {
            rows.iter()
                .map(f)
                .collect::<std::collections::BTreeSet<_>>()
                .len()
                > 1
        };
        Self {
            te: differs(&|r| human_s(r.te_s)),
            times: differs(&|r| r.times.clone()),
            granularity: differs(&|r| r.granularity.to_string()),
        }
    }
}

/// Ticks at the values used when they are few (P = 2, 4, …, 256; g = 1 … 128), else the
/// axis's own.
fn ticks_at_few(values: impl Iterator<Item = f64>) -> Ticks {
    let distinct: std::collections::BTreeSet<u64> = values.map(f64::to_bits).collect();
    if distinct.len() <= 12 {
        Ticks::Data
    } else {
        Ticks::Auto
    }
}

/// Words for a row's task-time distribution (farm) or split (dnc).
fn times_words(kind: &str, times: &str) -> String {
    match (kind, times) {
        (_, "mergesort") => "mergesort".into(),
        ("dnc", split) => format!("{split} split"),
        (_, times) => format!("{times} times"),
    }
}

impl SweepReport {
    /// A row's label: `what` (its topology or family), then the inputs that vary and that
    /// `x` does not already show.
    fn label(&self, r: &SweepRow, what: &str, vary: &Varying, show_g: bool) -> String {
        let mut parts = vec![what.to_owned()];
        if vary.te {
            parts.push(format!("T_e = {}", human_s(r.te_s)));
        }
        if vary.times {
            parts.push(times_words(self.kind, &r.times));
        }
        if vary.granularity && show_g {
            parts.push(format!("g = {}", r.granularity));
        }
        parts.join(", ")
    }

    /// The inputs every row shares, for a title: "T_e = 1 ms, constant times".
    fn shared(&self, vary: &Varying, show_g: bool) -> String {
        let Some(r) = self.rows.first() else {
            return String::new();
        };
        let mut parts = Vec::new();
        if !vary.te {
            parts.push(format!("T_e = {}", human_s(r.te_s)));
        }
        if !vary.times {
            parts.push(times_words(self.kind, &r.times));
        }
        if !vary.granularity && show_g && r.granularity != 1 {
            parts.push(format!("g = {}", r.granularity));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!(" ({})", parts.join(", "))
        }
    }

    /// The measured speedups (mean ± sd over the runs) and the model's, against `x`, one
    /// pair per series label, in the order the labels first appear, on `chart`.
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
            let mut rows: Vec<&SweepRow> = self.rows.iter().filter(|r| label(r) == l).collect();
            rows.sort_by(|a, b| x(a).total_cmp(&x(b)));
            let measured = rows.iter().map(|r| match r.measured_speedup_sd {
                Some(sd) => Point::with_error(x(r), r.measured_speedup, ErrorBar::PlusMinus(sd)),
                None => Point::new(x(r), r.measured_speedup),
            });
            let model: Vec<(f64, f64)> = rows.iter().map(|r| (x(r), r.predicted_speedup)).collect();
            chart = chart.pair(l, measured, model);
        }
        chart.scattered()
    }

    /// The legend's key: the measured half says what its error bars are.
    fn key(&self) -> (String, String) {
        let spread = self.rows.iter().any(|r| r.measured_speedup_sd.is_some());
        let measured = if spread {
            "measured (mean ± sd of the runs)"
        } else {
            "measured"
        };
        (measured.into(), "model".into())
    }

    /// Speedup against processors: one pair per tree family and varying input, the ideal
    /// S = P; log–log when the processor counts grow geometrically over a decade or more.
    fn speedup_chart(&self) -> Result<String> {
        let vary = Varying::of(&self.rows);
        let scale = Scale::spanning(self.rows.iter().map(|r| r.processors as f64));
        let (measured, model) = self.key();
        let chart = LineChart::new(
            format!("Speedup against processors{}", self.shared(&vary, true)),
            "processors P",
            "speedup S(P)",
        )
        .x_scale(scale)
        .y_scale(scale)
        .x_ticks(ticks_at_few(self.rows.iter().map(|r| r.processors as f64)))
        .key(measured, model)
        .reference(Reference::ideal_speedup());
        self.with_pairs(
            chart,
            |r| self.label(r, &family(&r.topology), &vary, true),
            |r| r.processors as f64,
        )
        .to_svg(960, 600)
    }

    /// The speedup error of every cell, with ± sd of the runs (the sd of the speedup over
    /// the model's, a constant, in percent).
    fn error_chart(&self) -> Result<String> {
        let vary = Varying::of(&self.rows);
        let spread = self.rows.iter().any(|r| r.measured_speedup_sd.is_some());
        let chart = BarChart {
            title: format!(
                "Speedup error per cell, (measured − model)/model{}",
                self.shared(&vary, true)
            ),
            y_label: if spread {
                "error (%), mean ± sd of the runs".into()
            } else {
                "error (%)".into()
            },
            categories: self
                .rows
                .iter()
                .map(|r| self.label(r, &r.topology, &vary, true))
                .collect(),
            groups: vec![BarGroup {
                name: "speedup error".into(),
                bars: self
                    .rows
                    .iter()
                    .map(|r| Bar {
                        value: r.error_pct,
                        error: r
                            .measured_speedup_sd
                            .map(|sd| ErrorBar::PlusMinus(100.0 * sd / r.predicted_speedup)),
                    })
                    .collect(),
            }],
            ..BarChart::default()
        };
        chart.to_svg((24 * self.rows.len() as u32).max(640), 520)
    }

    /// Speedup against granularity: one pair per topology and varying input.
    fn granularity_chart(&self) -> Result<String> {
        let vary = Varying::of(&self.rows);
        let (measured, model) = self.key();
        let chart = LineChart::new(
            format!(
                "Speedup against granularity g, start-up included{}",
                self.shared(&vary, false)
            ),
            "granularity g (tasks per message)",
            "speedup S",
        )
        .x_scale(Scale::spanning(
            self.rows.iter().map(|r| f64::from(r.granularity)),
        ))
        .x_ticks(ticks_at_few(
            self.rows.iter().map(|r| f64::from(r.granularity)),
        ))
        .key(measured, model);
        self.with_pairs(
            chart,
            |r| self.label(r, &r.topology, &vary, false),
            |r| f64::from(r.granularity),
        )
        .to_svg(960, 600)
    }
}

impl Body for SweepReport {
    fn title(&self) -> String {
        format!(
            "sweep {}: {} cells measured beside the model",
            self.kind,
            self.rows.len()
        )
    }

    fn results(&self) -> Vec<Section> {
        let worst = self
            .rows
            .iter()
            .fold(0.0_f64, |m, r| m.max(r.error_pct.abs()));
        vec![Section::results(
            "Cells",
            vec![
                Block::Table(self.table()),
                Block::Text(format!(
                    "{} cells; largest |speedup error| {:.2} %",
                    self.rows.len(),
                    worst
                )),
            ],
        )]
    }

    fn figures(&self) -> Result<Vec<Figure>> {
        let mut figures = vec![
            Figure {
                file: "speedup.svg".into(),
                caption: "Speedup against processors: each series one tree family and each \
                          input that varies; measured points against the model's dashed line, \
                          the ideal S = P dotted."
                    .into(),
                svg: self.speedup_chart()?,
            },
            Figure {
                file: "error.svg".into(),
                caption: "The speedup error of every cell (the residuals of the model).".into(),
                svg: self.error_chart()?,
            },
        ];
        if Varying::of(&self.rows).granularity {
            figures.push(Figure {
                file: "granularity.svg".into(),
                caption: "Speedup against granularity, per topology and each input that varies."
                    .into(),
                svg: self.granularity_chart()?,
            });
        }
        Ok(figures)
    }

    fn plots_first(&self) -> bool {
        true
    }

    fn csv(&self) -> Result<Option<Vec<u8>>> {
        csv::rows(&self.rows).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_keep_arities_apart() {
        assert_eq!(family("chain:4"), "chain");
        assert_eq!(family("binary:3"), "binary");
        assert_eq!(family("tree:2:3"), "binary");
        assert_eq!(family("tree:3:2"), "tree:3");
    }
}
