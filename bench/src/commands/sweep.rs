//! `multicomputer sweep farm`: a grid of farm runs (topologies × T_e × g × task-time
//! distributions), each measured beside its model, written as CSV, JSON and SVG plots.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use multicomputer_runtime::{Topology, TopologyKind};
use serde::Serialize;

use crate::UsageError;
use crate::cli::{MachineArgs, parse_duration};
use crate::commands::dnc::{self, DncArgs, DncKernelArg, DncWorkArgs, SplitArg};
use crate::commands::farm::{self, Comparison, EngineArgs, FarmArgs, FarmWorkArgs, TimesArg};
use crate::output::{human_ns, in_out, print_json, table, write_atomic, write_json};
use crate::plot::{Bars, Chart, Scale, Series, Style};

/// What `sweep` sweeps.
#[derive(Debug, Subcommand)]
pub(crate) enum SweepCommand {
    /// Processor farms over a grid of topologies, task times and granularities.
    Farm(Box<SweepFarmArgs>),
    /// Divide and conquer over a grid of trees, whole-task times and split kinds.
    Dnc(Box<SweepDncArgs>),
    /// The OCL arrays over the grain-size paper's grid (its two tables, §4.1 and §4.2): time
    /// against M or K for N = 50 and 500, beside the model.
    Ocl(Box<crate::commands::ocl::SweepOclArgs>),
}

/// `multicomputer sweep dnc`.
#[derive(Debug, Clone, Args)]
pub(crate) struct SweepDncArgs {
    /// Trees, comma-separated, with ranges: `binary:1-5,tree:3:1-3`.
    #[arg(long, default_value = "binary:1-4", value_name = "LIST")]
    pub(crate) topologies: String,
    /// Whole-task times T_e(N), comma-separated.
    #[arg(long, default_value = "8ms", value_name = "LIST")]
    pub(crate) te: String,
    /// Split kinds, comma-separated: equal, random.
    #[arg(long, default_value = "equal", value_name = "LIST")]
    pub(crate) split: String,
    /// T_s(N): time to split a whole task.
    #[arg(long, value_parser = parse_duration, default_value = "200us", value_name = "DURATION")]
    pub(crate) ts: Duration,
    /// T_j(N): time to join a whole task.
    #[arg(long, value_parser = parse_duration, default_value = "200us", value_name = "DURATION")]
    pub(crate) tj: Duration,
    #[command(flatten)]
    pub(crate) machine: MachineArgs,
    #[command(flatten)]
    pub(crate) engine: EngineArgs,
    /// M, tasks per run.
    #[arg(long, short = 'm', default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) tasks: u64,
    /// Seed of random splits.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Name of the output files in the results folder.
    #[arg(long, default_value = "sweep-dnc")]
    pub(crate) name: String,
    /// Print the rows as one JSON object on stdout as well.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Runs the divide-and-conquer grid.
pub(crate) fn sweep_dnc(args: &SweepDncArgs, out: &Path) -> Result<Vec<SweepRow>> {
    let topologies = parse_topologies(&args.topologies)?;
    let tes = parse_durations("--te", &args.te)?;
    let splits: Vec<SplitArg> = split_list("--split", &args.split)?
        .into_iter()
        .map(|s| match s {
            "equal" => Ok(SplitArg::Equal),
            "random" => Ok(SplitArg::Random),
            other => Err(UsageError(format!(
                "--split: unknown split '{other}' (equal, random)"
            ))),
        })
        .collect::<Result<_, _>>()?;
    let bar = progress(topologies.len() * tes.len() * splits.len());
    let mut rows = Vec::new();
    for t in &topologies {
        for &te in &tes {
            for &split in &splits {
                bar.set_message(format!(
                    "{t} T_e={} {split:?}",
                    human_ns(te.as_nanos() as f64)
                ));
                let mut machine = args.machine.clone();
                machine.topology = t.clone();
                let dnc_args = DncArgs {
                    machine,
                    engine: args.engine.clone(),
                    work: DncWorkArgs {
                        tasks: args.tasks,
                        te,
                        ts: args.ts,
                        tj: args.tj,
                        split,
                        kernel: DncKernelArg::Synthetic,
                        keys: 2,
                        task_bytes: 1024,
                        seed: args.seed,
                    },
                    json: false,
                };
                let c = dnc::compare(&dnc_args, out)?;
                let cell = Cell {
                    topology: t,
                    te,
                    times: format!("{split:?}").to_lowercase(),
                    granularity: 1,
                    tasks: args.tasks,
                    tau_s: crate::config::transfer_s(&dnc_args.machine, 1024),
                    engine: &args.engine,
                };
                rows.push(cell.row(&c));
                bar.inc(1);
            }
        }
    }
    bar.finish_and_clear();
    Ok(rows)
}

/// `multicomputer sweep farm`.
#[derive(Debug, Clone, Args)]
pub(crate) struct SweepFarmArgs {
    /// Topologies, comma-separated; a range of sizes is written lo-hi: `chain:1-16,binary:1-5`.
    #[arg(long, default_value = "chain:1-8,binary:1-4", value_name = "LIST")]
    pub(crate) topologies: String,
    /// Mean task times T_e, comma-separated.
    #[arg(long, default_value = "1ms,5ms", value_name = "LIST")]
    pub(crate) te: String,
    /// Granularities g (tasks per message), comma-separated.
    #[arg(long, default_value = "1", value_name = "LIST")]
    pub(crate) granularity: String,
    /// Task-time distributions, comma-separated: constant, uniform, exponential.
    #[arg(long, default_value = "constant", value_name = "LIST")]
    pub(crate) times: String,
    #[command(flatten)]
    pub(crate) machine: MachineArgs,
    #[command(flatten)]
    pub(crate) engine: EngineArgs,
    /// M, tasks per run.
    #[arg(long, short = 'm', default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) tasks: u64,
    /// Bytes of one task in a message.
    #[arg(long, default_value_t = 64)]
    pub(crate) task_bytes: u64,
    /// Seed of the task-time draws.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Name of the output files in the results folder (<name>.csv, .json, -*.svg).
    #[arg(long, default_value = "sweep-farm")]
    pub(crate) name: String,
    /// Print the rows as one JSON object on stdout as well.
    #[arg(long)]
    pub(crate) json: bool,
}

/// One cell of a sweep: a flat row for CSV.
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
    pub(crate) measured_throughput_per_s: f64,
    pub(crate) steady_throughput_per_s: f64,
    pub(crate) predicted_throughput_per_s: f64,
    pub(crate) measured_speedup: f64,
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

/// The parameters of one cell of a sweep.
struct Cell<'a> {
    topology: &'a Topology,
    te: Duration,
    times: String,
    granularity: u32,
    tasks: u64,
    tau_s: f64,
    engine: &'a EngineArgs,
}

impl Cell<'_> {
    fn row(&self, c: &Comparison) -> SweepRow {
        let (k, levels) = shape(self.topology);
        let flood_fill = c.drain.as_ref().and_then(|d| d.flood_fill.as_ref());
        SweepRow {
            topology: self.topology.to_string(),
            k,
            levels,
            processors: self.topology.len(),
            te_s: self.te.as_secs_f64(),
            times: self.times.clone(),
            granularity: self.granularity,
            tasks: self.tasks,
            tau_s: self.tau_s,
            beta_e_s: self.engine.beta_e.as_secs_f64(),
            beta_f_s: self.engine.beta_f.as_secs_f64(),
            queue: self.engine.queue,
            guided: self.engine.guided,
            measured_throughput_per_s: c.measured.throughput_per_s,
            steady_throughput_per_s: c.measured.steady_throughput_per_s,
            predicted_throughput_per_s: c.predicted.throughput_per_s,
            measured_speedup: c.measured.speedup,
            predicted_speedup: c.predicted.speedup,
            measured_makespan_s: c.measured.makespan_s,
            predicted_makespan_s: c.predicted.makespan_s,
            error_pct: c.error_pct,
            drain_s: c.drain.as_ref().map_or(0.0, |d| d.drain_s),
            speedup_error_floor_pct: c.drain.as_ref().map_or(0.0, |d| d.speedup_error_floor_pct),
            flood_fill_drain_s: flood_fill.map(|f| f.drain_s),
            flood_fill_error_pct: flood_fill.map(|f| f.error_pct),
            flood_fill_error_sd_pct: flood_fill.map(|f| f.error_sd_pct),
            steady_throughput_error_pct: 100.0
                * (c.measured.steady_throughput_per_s - c.predicted.throughput_per_s)
                / c.predicted.throughput_per_s,
            max_fraction_error_pct_of_m: c
                .errors_pct
                .fractions_of_m
                .iter()
                .fold(0.0_f64, |m, e| m.max(e.abs())),
            bound: format!("{:?}", c.predicted.bound).to_lowercase(),
            dilation: c.dilation,
            late_waits: c.fidelity.late_waits,
            waits: c.fidelity.waits,
            wall_s: c.wall_s,
        }
    }
}

pub(crate) fn progress(cells: usize) -> ProgressBar {
    let bar = ProgressBar::new(cells as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40} {pos}/{len} cells, {elapsed} elapsed, ~{eta} left  {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

fn parse_durations(arg: &str, list: &str) -> Result<Vec<Duration>, UsageError> {
    split_list(arg, list)?
        .into_iter()
        .map(|s| parse_duration(s).map_err(|e| UsageError(format!("{arg}: {e}"))))
        .collect()
}

/// Splits a comma-separated list, rejecting empty items.
pub(crate) fn split_list<'a>(arg: &str, list: &'a str) -> Result<Vec<&'a str>, UsageError> {
    let items: Vec<&str> = list.split(',').map(str::trim).collect();
    if items.iter().any(|s| s.is_empty()) {
        return Err(UsageError(format!("{arg}: empty item in '{list}'")));
    }
    Ok(items)
}

/// Expands `chain:1-16,binary:1-5,tree:3:1-3,parents:FILE` into topologies.
pub(crate) fn parse_topologies(list: &str) -> Result<Vec<Topology>, UsageError> {
    let mut out = Vec::new();
    for item in split_list("--topologies", list)? {
        let (head, last) = item.rsplit_once(':').unwrap_or((item, ""));
        let range = last
            .split_once('-')
            .filter(|_| !item.starts_with("parents:"));
        let specs: Vec<String> = match range {
            Some((lo, hi)) => {
                let lo: u64 = lo
                    .parse()
                    .map_err(|_| UsageError(format!("--topologies: bad range in '{item}'")))?;
                let hi: u64 = hi
                    .parse()
                    .map_err(|_| UsageError(format!("--topologies: bad range in '{item}'")))?;
                if lo > hi {
                    return Err(UsageError(format!("--topologies: empty range in '{item}'")));
                }
                (lo..=hi).map(|n| format!("{head}:{n}")).collect()
            }
            None => vec![item.to_string()],
        };
        for spec in specs {
            out.push(Topology::parse(&spec).map_err(|e| UsageError(format!("--topologies: {e}")))?);
        }
    }
    Ok(out)
}

fn shape(t: &Topology) -> (u32, u32) {
    match t.kind() {
        TopologyKind::Chain { processors } | TopologyKind::Array { processors } => {
            (1, *processors as u32)
        }
        TopologyKind::Tree { arity, levels } => (*arity as u32, *levels),
        TopologyKind::Parents => (0, t.levels()),
    }
}

fn parse_times(s: &str) -> Result<TimesArg, UsageError> {
    match s {
        "constant" => Ok(TimesArg::Constant),
        "uniform" => Ok(TimesArg::Uniform),
        "exponential" => Ok(TimesArg::Exponential),
        other => Err(UsageError(format!(
            "--times: unknown distribution '{other}' (constant, uniform, exponential)"
        ))),
    }
}

/// Runs the grid and returns its rows (with a progress bar on a terminal).
pub(crate) fn sweep_farm(args: &SweepFarmArgs, out: &Path) -> Result<Vec<SweepRow>> {
    let topologies = parse_topologies(&args.topologies)?;
    let tes = parse_durations("--te", &args.te)?;
    let gs: Vec<u32> = split_list("--granularity", &args.granularity)?
        .into_iter()
        .map(|s| match s.parse::<u32>() {
            Ok(g) if g >= 1 => Ok(g),
            _ => Err(UsageError(format!(
                "--granularity: '{s}' is not a whole number ≥ 1"
            ))),
        })
        .collect::<Result<_, _>>()?;
    let times: Vec<TimesArg> = split_list("--times", &args.times)?
        .into_iter()
        .map(parse_times)
        .collect::<Result<_, _>>()?;
    let cells = topologies.len() * tes.len() * gs.len() * times.len();
    let bar = ProgressBar::new(cells as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40} {pos}/{len} cells, {elapsed} elapsed, ~{eta} left  {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut rows = Vec::with_capacity(cells);
    for t in &topologies {
        for &te in &tes {
            for &g in &gs {
                for &tm in &times {
                    bar.set_message(format!(
                        "{t} T_e={} g={g} {tm:?}",
                        human_ns(te.as_nanos() as f64)
                    ));
                    let mut machine = args.machine.clone();
                    machine.topology = t.clone();
                    let farm_args = FarmArgs {
                        machine,
                        engine: args.engine.clone(),
                        work: FarmWorkArgs {
                            tasks: args.tasks,
                            te,
                            times: tm,
                            kernel: farm::KernelArg::Synthetic,
                            grain: 1,
                            granularity: g,
                            task_bytes: args.task_bytes,
                            result_bytes: 8,
                            seed: args.seed,
                        },
                        json: false,
                    };
                    let c = farm::compare(&farm_args, out)?;
                    let model =
                        farm::model(t, &farm_args.machine, &farm_args.engine, &farm_args.work);
                    let cell = Cell {
                        topology: t,
                        te,
                        times: format!("{tm:?}").to_lowercase(),
                        granularity: g,
                        tasks: args.tasks,
                        tau_s: model.tau_s,
                        engine: &args.engine,
                    };
                    rows.push(cell.row(&c));
                    bar.inc(1);
                }
            }
        }
    }
    bar.finish_and_clear();
    Ok(rows)
}

/// Writes rows as CSV, atomically.
pub(crate) fn write_csv<T: Serialize>(path: &Path, rows: &[T]) -> Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r)?;
    }
    write_atomic(path, &w.into_inner()?)
}

fn print_rows(rows: &[SweepRow]) {
    let mut t = table(&[
        "topology",
        "P",
        "T_e",
        "times",
        "g",
        "speedup meas.",
        "pred.",
        "error",
        "f error (% of M)",
        "D",
    ]);
    for r in rows {
        t.add_row(vec![
            r.topology.clone(),
            r.processors.to_string(),
            human_ns(r.te_s * 1e9),
            r.times.clone(),
            r.granularity.to_string(),
            format!("{:.3}", r.measured_speedup),
            format!("{:.3}", r.predicted_speedup),
            format!("{:+.2} %", r.error_pct),
            format!("{:.2}", r.max_fraction_error_pct_of_m),
            r.dilation.map_or("virtual".into(), |d| d.to_string()),
        ]);
    }
    println!("{t}");
    let worst = rows.iter().fold(0.0_f64, |m, r| m.max(r.error_pct.abs()));
    println!(
        "{} cells; largest |speedup error| {:.2} %",
        rows.len(),
        worst
    );
}

/// Writes the sweep's plots: speedup against processors (measured points, model dashed) per
/// family and T_e; the speedup error of every cell; speedup against granularity if several.
pub(crate) fn write_plots(rows: &[SweepRow], out: &Path, name: &str) -> Result<Vec<String>> {
    let mut written = Vec::new();
    let family = |r: &SweepRow| r.topology.split(':').next().unwrap_or("").to_string();
    let first_times = rows.first().map(|r| r.times.clone()).unwrap_or_default();
    let first_g = rows.first().map_or(1, |r| r.granularity);
    let mut groups: Vec<(String, Vec<&SweepRow>)> = Vec::new();
    for r in rows
        .iter()
        .filter(|r| r.times == first_times && r.granularity == first_g)
    {
        let key = format!("{} T_e = {}", family(r), human_ns(r.te_s * 1e9));
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(r),
            None => groups.push((key, vec![r])),
        }
    }
    let mut series = Vec::new();
    for (key, rs) in &groups {
        series.push(Series {
            name: format!("{key} measured"),
            points: rs
                .iter()
                .map(|r| (r.processors as f64, r.measured_speedup))
                .collect(),
            style: Style::Points,
        });
        series.push(Series {
            name: format!("{key} model"),
            points: rs
                .iter()
                .map(|r| (r.processors as f64, r.predicted_speedup))
                .collect(),
            style: Style::Dashed,
        });
    }
    let speedup = Chart {
        title: format!("Speedup against processors ({first_times} task times, g = {first_g})"),
        x_label: "processors N".into(),
        y_label: "speedup".into(),
        x_scale: Scale::Linear,
        y_scale: Scale::Linear,
        series,
    };
    let mut put = |file: String, svg: String| -> Result<()> {
        write_atomic(&in_out(out, &file), svg.as_bytes())?;
        written.push(file);
        Ok(())
    };
    put(format!("{name}-speedup.svg"), speedup.to_svg(960, 600)?)?;
    let errors = Bars {
        title: "Speedup error per cell: (measured − model)/model".into(),
        y_label: "error (%)".into(),
        categories: rows
            .iter()
            .map(|r| format!("{} {} {}", r.topology, human_ns(r.te_s * 1e9), r.times))
            .collect(),
        groups: vec![(
            "speedup error %".into(),
            rows.iter().map(|r| r.error_pct).collect(),
        )],
    };
    put(
        format!("{name}-error.svg"),
        errors.to_svg((24 * rows.len() as u32).max(640), 520)?,
    )?;
    let gs: std::collections::BTreeSet<u32> = rows.iter().map(|r| r.granularity).collect();
    if gs.len() > 1 {
        let mut series = Vec::new();
        let mut keys: Vec<(String, f64)> = Vec::new();
        for r in rows.iter().filter(|r| r.times == first_times) {
            if !keys.iter().any(|(t, te)| *t == r.topology && *te == r.te_s) {
                keys.push((r.topology.clone(), r.te_s));
            }
        }
        for (t, te) in keys {
            let rs: Vec<&SweepRow> = rows
                .iter()
                .filter(|r| r.topology == t && r.te_s == te && r.times == first_times)
                .collect();
            let label = format!("{t} T_e = {}", human_ns(te * 1e9));
            series.push(Series {
                name: format!("{label} measured"),
                points: rs
                    .iter()
                    .map(|r| (f64::from(r.granularity), r.measured_speedup))
                    .collect(),
                style: Style::Points,
            });
            series.push(Series {
                name: format!("{label} model"),
                points: rs
                    .iter()
                    .map(|r| (f64::from(r.granularity), r.predicted_speedup))
                    .collect(),
                style: Style::Dashed,
            });
        }
        let chart = Chart {
            title: "Speedup against granularity g (tasks per message), start-up included".into(),
            x_label: "granularity g".into(),
            y_label: "speedup".into(),
            x_scale: Scale::Log10,
            y_scale: Scale::Linear,
            series,
        };
        put(format!("{name}-granularity.svg"), chart.to_svg(960, 600)?)?;
    }
    Ok(written)
}

pub(crate) fn report(rows: &[SweepRow], out: &Path, name: &str, json: bool) -> Result<()> {
    write_csv(&in_out(out, &format!("{name}.csv")), rows)?;
    write_json(&in_out(out, &format!("{name}.json")), &rows)?;
    let plots = write_plots(rows, out, name)?;
    if json {
        print_json(&serde_json::json!({ "rows": rows }))?;
    } else {
        print_rows(rows);
        println!(
            "written: {0}/{1}.csv, {0}/{1}.json, plots {2}",
            out.display(),
            name,
            plots.join(", ")
        );
    }
    Ok(())
}

pub(crate) fn run(cmd: &SweepCommand, out: &Path) -> Result<()> {
    match cmd {
        SweepCommand::Farm(args) => report(&sweep_farm(args, out)?, out, &args.name, args.json),
        SweepCommand::Dnc(args) => report(&sweep_dnc(args, out)?, out, &args.name, args.json),
        SweepCommand::Ocl(args) => crate::commands::ocl::run_sweep(args, out),
    }
}
