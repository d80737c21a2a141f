//! `speedup`: a real kernel's speedup on 1…P cores on the runtime, rayon and scoped threads,
//! beside the model; the grain sweep's efficiencies and thresholds; the host and how shared
//! it was.

use anyhow::Result;
use multicomputer_workloads::speedup::{
    GrainPoint, Host, Point, SpeedupResult, Spread, Threshold, native_config,
};
use serde::Serialize;

use crate::plot::{ErrorBar, LineChart, Point as PlotPoint, Reference, Scale, Ticks};
use crate::report::host_noise;

use crate::report::{Block, Body, Figure, Meta, Report, Section, Table, csv, cut_links_text};
use crate::units::{human_s, signed_pct};

/// A median with its range: `1.93 [1.90, 1.95]`.
fn spread(s: &Spread, digits: usize) -> String {
    format!(
        "{:.d$} [{:.d$}, {:.d$}]",
        s.median,
        s.min,
        s.max,
        d = digits
    )
}

/// A time's median with its range.
fn time_spread(s: &Spread) -> String {
    format!(
        "{} [{}, {}]",
        human_s(s.median),
        human_s(s.min),
        human_s(s.max)
    )
}

/// A measured point with its range as an error bar.
fn point(x: f64, s: &Spread) -> PlotPoint {
    PlotPoint::with_error(
        x,
        s.median,
        ErrorBar::Range {
            low: s.min,
            high: s.max,
        },
    )
}

/// A file of a run's folder: its name and bytes.
type FolderFile = (String, Vec<u8>);

/// One row of `speedup.csv`: a P, every variant.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SpeedupRow {
    kernel: &'static str,
    processors: usize,
    topology: String,
    tasks: u64,
    grain: u64,
    rounds: usize,
    sequential_s: f64,
    runtime_s: f64,
    runtime_s_min: f64,
    runtime_s_max: f64,
    runtime_speedup: f64,
    runtime_speedup_min: f64,
    runtime_speedup_max: f64,
    runtime_efficiency: f64,
    rough_speedup: f64,
    runtime_setup_s: f64,
    rayon_s: f64,
    rayon_speedup: f64,
    rayon_speedup_min: f64,
    rayon_speedup_max: f64,
    rayon_efficiency: f64,
    scoped_s: f64,
    scoped_speedup: f64,
    scoped_speedup_min: f64,
    scoped_speedup_max: f64,
    scoped_efficiency: f64,
    runtime_over_rayon: f64,
    runtime_over_rayon_min: f64,
    runtime_over_rayon_max: f64,
    model_s: Option<f64>,
    model_speedup: Option<f64>,
    model_error_pct: Option<f64>,
}

/// One row of `grain.csv`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct GrainRow {
    processors: usize,
    grain: u64,
    tasks: u64,
    task_s: f64,
    sequential_s: f64,
    runtime_efficiency: f64,
    rayon_efficiency: f64,
    scoped_efficiency: f64,
    model_efficiency: Option<f64>,
}

/// What `speedup` reports.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SpeedupReport {
    /// Everything measured.
    #[serde(flatten)]
    pub(crate) result: SpeedupResult,
}

impl SpeedupReport {
    fn rows(&self) -> Vec<SpeedupRow> {
        let r = &self.result;
        let w = &r.plan.workload;
        r.points
            .iter()
            .map(|p: &Point| SpeedupRow {
                kernel: w.kernel.name(),
                processors: p.processors,
                topology: p.topology.clone(),
                tasks: w.tasks,
                grain: w.grain,
                rounds: r.plan.rounds,
                sequential_s: r.sequential_s.median,
                runtime_s: p.runtime.wall_s.median,
                runtime_s_min: p.runtime.wall_s.min,
                runtime_s_max: p.runtime.wall_s.max,
                runtime_speedup: p.runtime.speedup.median,
                runtime_speedup_min: p.runtime.speedup.min,
                runtime_speedup_max: p.runtime.speedup.max,
                runtime_efficiency: p.runtime.efficiency,
                rough_speedup: p.rough_speedup.median,
                runtime_setup_s: p.setup_s.median,
                rayon_s: p.rayon.wall_s.median,
                rayon_speedup: p.rayon.speedup.median,
                rayon_speedup_min: p.rayon.speedup.min,
                rayon_speedup_max: p.rayon.speedup.max,
                rayon_efficiency: p.rayon.efficiency,
                scoped_s: p.scoped.wall_s.median,
                scoped_speedup: p.scoped.speedup.median,
                scoped_speedup_min: p.scoped.speedup.min,
                scoped_speedup_max: p.scoped.speedup.max,
                scoped_efficiency: p.scoped.efficiency,
                runtime_over_rayon: p.runtime_over_rayon.median,
                runtime_over_rayon_min: p.runtime_over_rayon.min,
                runtime_over_rayon_max: p.runtime_over_rayon.max,
                model_s: p.model.map(|m| m.wall_s),
                model_speedup: p.model.map(|m| m.speedup),
                model_error_pct: p.model.map(|m| m.error_pct),
            })
            .collect()
    }

    fn grain_rows(&self) -> Vec<GrainRow> {
        let Some(g) = &self.result.grain else {
            return Vec::new();
        };
        g.points
            .iter()
            .map(|q: &GrainPoint| GrainRow {
                processors: g.processors,
                grain: q.grain,
                tasks: q.tasks,
                task_s: q.task_s,
                sequential_s: q.sequential_s.median,
                runtime_efficiency: q.runtime.efficiency,
                rayon_efficiency: q.rayon.efficiency,
                scoped_efficiency: q.scoped.efficiency,
                model_efficiency: q.model_efficiency,
            })
            .collect()
    }

    /// The table of P.
    fn speedup_table(&self) -> Table {
        let mut t = Table::new(&[
            "P",
            "topology",
            "runtime time",
            "speedup",
            "rough",
            "efficiency",
            "rayon",
            "scoped",
            "runtime/rayon",
            "model",
            "model error",
        ]);
        for p in &self.result.points {
            t.row(vec![
                p.processors.to_string(),
                p.topology.clone(),
                time_spread(&p.runtime.wall_s),
                spread(&p.runtime.speedup, 2),
                format!("{:.2}", p.rough_speedup.median),
                format!("{:.0} %", 100.0 * p.runtime.efficiency),
                spread(&p.rayon.speedup, 2),
                spread(&p.scoped.speedup, 2),
                spread(&p.runtime_over_rayon, 3),
                p.model
                    .map_or("n/a".into(), |m| format!("{:.2}", m.speedup)),
                p.model.map_or("n/a".into(), |m| signed_pct(m.error_pct, 1)),
            ]);
        }
        t
    }

    fn fit_blocks(&self) -> Vec<Block> {
        let Some(f) = &self.result.fit else {
            return vec![Block::Text(
                "model: nothing to fit (its overhead needs P ≥ 2)".into(),
            )];
        };
        let mut t = Table::new(&["parameter", "value", "standard error"]);
        for p in &f.parameters {
            t.row(vec![
                p.name.into(),
                human_s(p.value_s),
                match (p.bounded, p.std_error_s) {
                    (true, _) => "bounded at ≥ 0".into(),
                    (false, Some(se)) => human_s(se),
                    (false, None) => "n/a (no degree of freedom)".into(),
                },
            ]);
        }
        vec![
            Block::Text(format!(
                "model: {}; the runtime's own overheads fitted to its median times{} (largest \
                 relative residual {:.1} %):",
                f.model,
                if self.result.grain.is_some() {
                    ", the grain sweep's included"
                } else {
                    ""
                },
                100.0 * f.max_relative_residual
            )),
            Block::Table(t),
        ]
    }

    fn threshold_text(t: Option<&Threshold>) -> String {
        let Some(t) = t else {
            return "n/a".into();
        };
        match (t.grain, t.task_s) {
            (Some(g), Some(s)) if t.at_most => format!("≤ {g:.0} ({})", human_s(s)),
            (Some(g), Some(s)) => format!("{g:.0} ({})", human_s(s)),
            _ => "not reached".into(),
        }
    }

    fn grain_blocks(&self) -> Vec<Block> {
        let Some(g) = &self.result.grain else {
            return Vec::new();
        };
        let unit = self.result.plan.workload.kernel.grain_unit();
        let mut t = Table::new(&[
            "grain",
            "tasks",
            "task time",
            "runtime",
            "rayon",
            "scoped",
            "model",
        ]);
        for q in &g.points {
            t.row(vec![
                q.grain.to_string(),
                q.tasks.to_string(),
                human_s(q.task_s),
                format!("{:.0} %", 100.0 * q.runtime.efficiency),
                format!("{:.0} %", 100.0 * q.rayon.efficiency),
                format!("{:.0} %", 100.0 * q.scoped.efficiency),
                q.model_efficiency
                    .map_or("n/a".into(), |e| format!("{:.0} %", 100.0 * e)),
            ]);
        }
        let mut th = Table::new(&["", "50 % efficiency from", "90 % efficiency from"]);
        for who in ["runtime", "rayon", "scoped threads", "model"] {
            let at = |e: f64| {
                g.thresholds
                    .iter()
                    .find(|t| t.who == who && (t.efficiency - e).abs() < 1e-9)
            };
            if at(0.5).is_none() {
                continue;
            }
            th.row(vec![
                who.into(),
                Self::threshold_text(at(0.5)),
                Self::threshold_text(at(0.9)),
            ]);
        }
        vec![
            Block::Text(format!(
                "Efficiency against grain at P = {} ({unit}; the total work kept):",
                g.processors
            )),
            Block::Table(t),
            Block::Text(
                "Where each reaches 50 % and 90 % efficiency: the grain (and the sequential \
                 time of a task there), interpolated between the grains measured:"
                    .into(),
            ),
            Block::Table(th),
        ]
    }

    /// What the user should know about the host.
    fn warnings(&self) -> Vec<Block> {
        let h: &Host = &self.result.host;
        let largest = self.result.plan.max_processors();
        let mut w = Vec::new();
        let shared = h.shared_for(largest);
        let idle_before = h
            .free_cores_before
            .filter(|f| shared && f + 0.5 < largest as f64);
        if let Some(free) = idle_before {
            w.push(Block::Warning(format!(
                "only {free:.1} of {} cores were free of other work just before the run{}: at P above that \
                 the processors shared their cores with other work, so the speedups there are \
                 lower than this host gives when quiet; rerun on an idle host",
                h.cpus,
                h.load_before
                    .map_or(String::new(), |l| format!(" (load average {:.2})", l.one))
            )));
        }
        if let Some(others) = h.others_cores_during.filter(|o| shared && *o > 0.5) {
            w.push(Block::Warning(format!(
                "other processes kept {others:.1} of the {} cores busy on average during the \
                 run: the measurements shared the host, and its speedups and efficiencies are \
                 lower and noisier than a quiet host's; rerun on an idle host",
                h.cpus
            )));
        }
        w.extend(self.scatter_warning().map(Block::Warning));
        if !h.pinning && largest > 1 {
            w.push(Block::Warning(format!(
                "threads could not be pinned one to a core for P = {largest}: the runtime's \
                 processors may migrate and share cores; check the CPU affinity this command \
                 inherits (taskset -p $$ in its shell)"
            )));
        }
        w
    }

    /// The warning for wall times whose rounds scatter too much to trust their medians: the
    /// sequential program's and each variant's at every P.
    fn scatter_warning(&self) -> Option<String> {
        let r = &self.result;
        let mut figures = vec![("sequential time".to_owned(), r.sequential_s.scatter)];
        for p in &r.points {
            for (who, t) in [
                ("runtime", &p.runtime),
                ("rayon", &p.rayon),
                ("scoped threads", &p.scoped),
            ] {
                figures.push((format!("{who} at P = {}", p.processors), t.wall_s.scatter));
            }
        }
        let named: Vec<(&str, _)> = figures.iter().map(|(n, s)| (n.as_str(), *s)).collect();
        host_noise::scatter_warning(&named, "--rounds")
    }

    /// Over MPI ranks (`--partitions`): at each P the runtime ran over the ranks, how its
    /// messages between ranks kept their emulated times, over the measured rounds.
    fn cut_link_blocks(&self) -> Vec<Block> {
        let r = &self.result;
        let tolerance_ns = r.runtime.as_ref().map_or(0, |s| {
            u64::try_from(s.tolerance.as_nanos()).unwrap_or(u64::MAX)
        });
        r.points
            .iter()
            .filter_map(|p| {
                let c = p.cut_links.as_ref()?;
                Some(Block::Text(format!(
                    "runtime at P = {} over {}",
                    p.processors,
                    cut_links_text(c, tolerance_ns)
                )))
            })
            .collect()
    }

    fn host_text(&self) -> String {
        let h = &self.result.host;
        let load = |l: Option<multicomputer_workloads::speedup::LoadAverage>| {
            l.map_or("unknown".into(), |l| {
                format!("{:.2} {:.2} {:.2}", l.one, l.five, l.fifteen)
            })
        };
        format!(
            "host: {} ({} cores{}), pinning {}; load average {} before, {} after; {} cores free \
             just before; other processes kept {} cores busy during the run",
            h.cpu_model,
            h.cpus,
            if h.cores < h.cpus {
                format!(", this process bound to {}", h.cores)
            } else {
                String::new()
            },
            if h.pinning { "works" } else { "failed" },
            load(h.load_before),
            load(h.load_after),
            h.free_cores_before
                .map_or("unknown".into(), |f| format!("{f:.1}")),
            h.others_cores_during
                .map_or("unknown".into(), |f| format!("{f:.1}"))
        )
    }

    fn speedup_figure(&self) -> Result<Figure> {
        let r = &self.result;
        let k = r.plan.workload.kernel;
        let x = |p: &Point| p.processors as f64;
        let chart = LineChart::new(
            format!("Speedup of {} against processors", k.name()),
            "processors P",
            "speedup over the sequential program",
        )
        .x_ticks(Ticks::Data)
        .y_include(0.0)
        .pair(
            "runtime",
            r.points.iter().map(|p| point(x(p), &p.runtime.speedup)),
            r.points
                .iter()
                .filter_map(|p| p.model.map(|m| (x(p), m.speedup))),
        )
        .pair(
            "rayon",
            r.points.iter().map(|p| point(x(p), &p.rayon.speedup)),
            [],
        )
        .pair(
            "scoped threads",
            r.points.iter().map(|p| point(x(p), &p.scoped.speedup)),
            [],
        )
        .reference(Reference::ideal_speedup());
        Ok(Figure {
            file: "speedup.svg".into(),
            caption: format!(
                "Speedup of {} against P: the runtime (the model dashed), rayon on P threads \
                 and P scoped threads, medians over {} rounds with their range; the ideal \
                 S = P dotted.",
                k.name(),
                r.plan.rounds
            ),
            svg: chart.to_svg(960, 600)?,
        })
    }

    fn grain_figure(&self) -> Result<Option<Figure>> {
        let r = &self.result;
        let Some(g) = &r.grain else {
            return Ok(None);
        };
        let k = r.plan.workload.kernel;
        let x = |q: &GrainPoint| q.grain as f64;
        let eff = |t: &multicomputer_workloads::speedup::Timing| {
            t.speedup.scaled(1.0 / g.processors as f64)
        };
        let chart = LineChart::new(
            format!(
                "Efficiency of {} against grain at P = {}",
                k.name(),
                g.processors
            ),
            format!("grain ({})", k.grain_unit()),
            "efficiency",
        )
        .x_scale(Scale::Log10)
        .y_include(0.0)
        .pair(
            "runtime",
            g.points.iter().map(|q| point(x(q), &eff(&q.runtime))),
            g.points
                .iter()
                .filter_map(|q| q.model_efficiency.map(|e| (x(q), e))),
        )
        .pair(
            "rayon",
            g.points.iter().map(|q| point(x(q), &eff(&q.rayon))),
            [],
        )
        .pair(
            "scoped threads",
            g.points.iter().map(|q| point(x(q), &eff(&q.scoped))),
            [],
        )
        .reference(Reference::horizontal("90 %", 0.9))
        .reference(Reference::horizontal("50 %", 0.5));
        Ok(Some(Figure {
            file: "efficiency-grain.svg".into(),
            caption: format!(
                "Efficiency against grain at P = {}, the total work kept: the runtime (the \
                 model dashed), rayon and scoped threads; 50 % and 90 % dotted.",
                g.processors
            ),
            svg: chart.to_svg(960, 600)?,
        }))
    }

    /// The report of `result`, with its run folder's files: `speedup.csv` (one row per P)
    /// and `grain.csv` (one per grain).
    pub(crate) fn report(
        meta: Meta,
        result: SpeedupResult,
    ) -> Result<(Report<Self>, Vec<FolderFile>)> {
        let mut meta = meta.seed(result.plan.workload.seed);
        if let Some(ran) = &result.runtime {
            let requested = native_config(result.plan.workload.queue).mode.name();
            meta = meta.resolved(requested, ran, " (wall times reported)");
        }
        let body = Self { result };
        let mut files = vec![("speedup.csv".to_string(), csv::rows(&body.rows())?)];
        if body.result.grain.is_some() {
            files.push(("grain.csv".to_string(), csv::rows(&body.grain_rows())?));
        }
        Ok((Report::new(meta, body), files))
    }
}

impl Body for SpeedupReport {
    fn title(&self) -> String {
        let w = &self.result.plan.workload;
        format!(
            "Speedup of {} on 1 to {} cores: the runtime beside rayon, scoped threads and the \
             model",
            w.kernel.name(),
            self.result.plan.max_processors()
        )
    }

    fn results(&self) -> Vec<Section> {
        let r = &self.result;
        let w = &r.plan.workload;
        let mut blocks = vec![
            Block::Text(format!(
                "{}: {} {}, grain {} {}; sequential program {} (median [range] of {} rounds \
                 after {} warm-up); every result checked against it",
                w.kernel.name(),
                w.tasks,
                w.kernel.tasks_unit(),
                w.grain,
                w.kernel.grain_unit(),
                time_spread(&r.sequential_s),
                r.plan.rounds,
                r.plan.warmup
            )),
            Block::Table(self.speedup_table()),
            Block::Text(format!(
                "speedup: the sequential program's time over each variant's, round by round \
                 (median [range]); rough: the runtime on 1 processor over the runtime on P; \
                 runtime/rayon: rayon's time over the runtime's. The runtime's time runs from \
                 its processors' common start to the last one's end; spawning and pinning them \
                 ({} a run) is left out, as building rayon's pool is.",
                human_s(r.points.first().map_or(f64::NAN, |p| p.setup_s.median))
            )),
            Block::Text(self.host_text()),
        ];
        blocks.extend(self.cut_link_blocks());
        blocks.extend(self.fit_blocks());
        blocks.extend(self.grain_blocks());
        blocks.extend(self.warnings());
        vec![Section::results("Speedup", blocks)]
    }

    fn figures(&self) -> Result<Vec<Figure>> {
        let mut v = vec![self.speedup_figure()?];
        v.extend(self.grain_figure()?);
        Ok(v)
    }

    fn csv(&self) -> Result<Option<Vec<u8>>> {
        Ok(Some(csv::rows(&self.rows())?))
    }
}
