//! `multicomputer scaling`: the measurement method of Zorbas, Reble and VanKooten, "Measuring
//! the scalability of parallel computer systems" (1989), §4–5. Runs the *ising* program for a
//! list of P and several `loop_count`s (the busy loop per message send that slows the message
//! system down), fits the candidate overhead function (default (6), `Φ(P) = a + b·log P`) to the
//! system overhead of each loop count by least squares, and applies the consistency test: `a` must
//! stay constant and `b` grow linearly with `loop_count` (Table 2), else the candidate is
//! refuted (Table 1).
//!
//! With `--csv FILE` the same analysis runs on any table of (P, run time[, loop_count]): the
//! user's own measurements.
//!
//! What is fitted is the system overhead function `Φ_s(P) = T / (C·[W_s(P) + W_p(P)/P])` (§2,
//! and §4: "we divide the actual run times by the corresponding ideal run times and obtain a
//! least squares fit"). *ising* is completely parallel with work ∝ P, so the ideal run time is
//! `samples per processor × C` with `C` the time of one sample; the sweep measures `C` natively
//! just before and after every run (column `ideal_s`), which also divides out a drift of the
//! host's speed: on a shared virtual machine the CPU time charged for real compute and for the
//! busy loop changes by tens of percent over minutes, and a constant ideal time would turn
//! that drift into a spurious trend. A user's table is fitted as `Φ_s = time_s/ideal_s` when it
//! has an `ideal_s` column, else the run times themselves are fitted, as in the paper's
//! Tables 1–2 (equivalent when the ideal run time is constant).

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use multicomputer_workloads::analysis::{
    ConsistencyOptions, ConsistencyReport, LoopCountTable, Observation, OverheadFit, OverheadModel,
    Verdict, consistency_test, fit_overhead,
};
use multicomputer_workloads::ising::{Mechanism, Workload};
use serde::Serialize;

use crate::UsageError;
use crate::commands::fit::Columns;
use crate::commands::ising::{LatticeArgs, MechanismArg, MessageSystemArgs, run_ising};
use crate::commands::sweep::{split_list, write_csv};
use crate::output::{human_ns, in_out, print_json, table, write_atomic, write_json};
use crate::plot::{Chart, Scale, Series, Style};

/// `multicomputer scaling`.
#[derive(Debug, Clone, Args)]
pub(crate) struct ScalingArgs {
    /// Analyse this table instead of running: columns `P` and `time_s`, optional `loop_count`
    /// (one fit per value; the consistency test needs two or more) and `ideal_s` (then
    /// Φ_s = time_s/ideal_s is fitted).
    #[arg(long, value_name = "FILE")]
    pub(crate) csv: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) lattice: LatticeArgs,
    /// Processor counts P, comma-separated (at most 16384 each).
    #[arg(long, default_value = "2,4,8,16,32,64,128,256", value_name = "LIST")]
    pub(crate) processors: String,
    /// Busy-loop iterations per message send, comma-separated (the paper used four).
    #[arg(long, default_value = "0,200000,400000,600000", value_name = "LIST")]
    pub(crate) loop_counts: String,
    /// Control mechanism.
    #[arg(long, value_enum, default_value_t = MechanismArg::Tree)]
    pub(crate) mechanism: MechanismArg,
    /// Samples per processor (work ∝ P, the paper's scaled workload).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) samples_per_processor: u64,
    /// Runs per (P, loop_count): replicates give the fit its pure-error uncertainty (the paper
    /// §4: "repeating the measurement of each data point").
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) repeats: u32,
    #[command(flatten)]
    pub(crate) messages: MessageSystemArgs,
    /// Candidate overhead function: basis terms joined by '+' from 1, log, sqrt, P, PlogP, P2
    /// (the paper's (6) is 1+log).
    #[arg(long, default_value = "1+log", value_name = "TERMS")]
    pub(crate) model: String,
    /// Other candidates fitted alongside, for comparison (comma-separated).
    #[arg(long, default_value = "1+P,1+log+P", value_name = "LIST")]
    pub(crate) alternatives: String,
    /// Overall significance of the consistency test (chance of refuting a correct candidate).
    #[arg(long, default_value_t = 0.01)]
    pub(crate) significance: f64,
    /// Name of the output files in the results folder (<name>.csv, .json, -time.svg, -b.svg).
    #[arg(long, default_value = "scaling")]
    pub(crate) name: String,
    /// Print one JSON object on stdout instead of tables.
    #[arg(long)]
    pub(crate) json: bool,
}

/// One measured run (a row of the CSV; `P`, `time_s`, `loop_count` are what `--csv` reads).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ScalingRow {
    #[serde(rename = "P")]
    pub(crate) processors: u32,
    pub(crate) loop_count: u64,
    pub(crate) repeat: u32,
    pub(crate) time_s: f64,
    /// The ideal run time `C·W_p(P)/P`: samples per processor × the native sample time measured
    /// around this run.
    pub(crate) ideal_s: f64,
    pub(crate) mechanism: Mechanism,
    pub(crate) samples: u64,
    pub(crate) messages_sent: u64,
    pub(crate) root_messages_sent: u64,
    pub(crate) emulated_sample_s: f64,
    pub(crate) native_sample_s: f64,
    pub(crate) sample_time_error_pct: f64,
    pub(crate) dilation: Option<f64>,
    pub(crate) late_waits: u64,
    pub(crate) waits: u64,
    pub(crate) wall_s: f64,
    /// Runs discarded before this one because the host stalled a processor in the middle of a
    /// sample (see [`STALL_FACTOR`]).
    pub(crate) stalled_runs: u32,
}

/// A run in which some processor was charged more than this many native sample times per
/// sample is run again (up to [`MAX_ATTEMPTS`] times): on a virtual machine the thread CPU
/// clock keeps running while the virtual CPU is descheduled, and such a stall, charged as
/// compute, is not the program's. Ordinary noise of a loaded host is ±30 %.
pub(crate) const STALL_FACTOR: f64 = 3.0;

/// What is fitted when the ideal run time is known.
const PHI_S: &str = "Φ_s = time_s / ideal_s";

/// Attempts per run before a stalled run is kept anyway (and counted).
pub(crate) const MAX_ATTEMPTS: u32 = 4;

/// The candidate's coefficients at one loop count (a row of the paper's Tables 1–2).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct LoopCountRow {
    pub(crate) loop_count: f64,
    /// The constant term.
    pub(crate) a: f64,
    pub(crate) a_std_error: f64,
    /// The second term's coefficient (`log P` for the paper's (6)), if the model has one.
    pub(crate) b: Option<f64>,
    pub(crate) b_std_error: Option<f64>,
    pub(crate) r_squared: f64,
    /// Where the uncertainties come from (replicates, residuals or measured).
    pub(crate) uncertainty: String,
    /// Every coefficient, by name.
    pub(crate) coefficients: Vec<Coefficient>,
}

/// One fitted coefficient.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Coefficient {
    pub(crate) name: String,
    pub(crate) term: String,
    pub(crate) value: f64,
    pub(crate) std_error: f64,
}

/// How well another candidate fits each loop count's table.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct AlternativeFit {
    pub(crate) model: String,
    pub(crate) loop_counts: Vec<LoopCountRow>,
    pub(crate) verdict: Option<Verdict>,
}

/// What `scaling --json` prints.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ScalingReport {
    /// The mechanism (null for `--csv`).
    pub(crate) mechanism: Option<Mechanism>,
    /// The table analysed (`--csv`), if any.
    pub(crate) source: Option<String>,
    /// What was fitted: `run time (s)` or `Φ_s = time/ideal`.
    pub(crate) fitted: String,
    pub(crate) model: String,
    /// Per loop count: a, b (the paper's Tables 1–2).
    pub(crate) loop_counts: Vec<LoopCountRow>,
    /// `consistent` or `refuted`; null with a single loop count (nothing to compare).
    pub(crate) verdict: Option<Verdict>,
    /// The verdict in words, with its numbers.
    pub(crate) explanation: String,
    /// The whole consistency test (checks, statistics, p-values).
    pub(crate) test: Option<ConsistencyReport>,
    pub(crate) alternatives: Vec<AlternativeFit>,
    /// The measured runs (empty for `--csv`).
    pub(crate) rows: Vec<ScalingRow>,
    /// Files written.
    pub(crate) files: Vec<String>,
}

fn parse_list<T: std::str::FromStr>(
    arg: &str,
    list: &str,
    what: &str,
) -> Result<Vec<T>, UsageError> {
    split_list(arg, list)?
        .into_iter()
        .map(|s| {
            s.parse::<T>()
                .map_err(|_| UsageError(format!("{arg}: '{s}' is not {what}")))
        })
        .collect()
}

fn parse_model(arg: &str, s: &str) -> Result<OverheadModel, UsageError> {
    s.parse::<OverheadModel>()
        .map_err(|e| UsageError(format!("{arg}: '{s}': {e}")))
}

fn loop_count_row(loop_count: f64, fit: &OverheadFit) -> LoopCountRow {
    let c = &fit.coefficients;
    LoopCountRow {
        loop_count,
        a: c[0].value,
        a_std_error: c[0].std_error,
        b: c.get(1).map(|t| t.value),
        b_std_error: c.get(1).map(|t| t.std_error),
        r_squared: fit.r_squared,
        uncertainty: format!("{:?}", fit.uncertainty).to_lowercase(),
        coefficients: c
            .iter()
            .map(|t| Coefficient {
                name: t.name.clone(),
                term: t.term.to_string(),
                value: t.value,
                std_error: t.std_error,
            })
            .collect(),
    }
}

/// The paper's method on tables of observations: a fit per loop count and, with two or more
/// loop counts, the consistency test.
///
/// `data` names the argument the tables came from (`--csv FILE` or `--processors`), for errors
/// about the data rather than the model.
fn analyse(
    model: &OverheadModel,
    tables: &[LoopCountTable],
    options: &ConsistencyOptions,
    data: &str,
) -> Result<(Vec<LoopCountRow>, Option<ConsistencyReport>), UsageError> {
    if model.terms()[0] != multicomputer_workloads::analysis::BasisTerm::One {
        return Err(UsageError(format!(
            "--model {model}: the candidate needs a constant term (1)"
        )));
    }
    let bad = |e: &dyn std::fmt::Display| UsageError(format!("{data}: fitting {model}: {e}"));
    if tables.len() >= 2 {
        let test = consistency_test(model, tables, options).map_err(|e| bad(&e))?;
        let rows = tables
            .iter()
            .zip(&test.fits)
            .map(|(t, f)| loop_count_row(t.loop_count, f))
            .collect();
        Ok((rows, Some(test)))
    } else {
        let rows = tables
            .iter()
            .map(|t| {
                // One more point than parameters, so the fit has an uncertainty.
                let needed = model.len() + 1;
                if t.observations.len() < needed {
                    return Err(bad(&format!(
                        "need at least {needed} observations, got {}",
                        t.observations.len()
                    )));
                }
                fit_overhead(model, &t.observations, options.weighting)
                    .map(|f| loop_count_row(t.loop_count, &f))
                    .map_err(|e| bad(&e))
            })
            .collect::<Result<_, _>>()?;
        Ok((rows, None))
    }
}

/// The verdict in words, with the numbers it rests on.
fn explain(test: Option<&ConsistencyReport>) -> String {
    let Some(t) = test else {
        return "one loop count only: the consistency test needs two or more".into();
    };
    let c = &t.constant;
    let mut s = format!(
        "{}: a = {:.4e} ± {:.1e} (weighted mean), largest deviation {:.1} σ, χ² = {:.2} on {} dof, \
         p = {:.3e} (per-check level {:.2e})",
        match t.verdict {
            Verdict::Consistent => "consistent",
            Verdict::Refuted => "refuted",
        },
        c.weighted_mean,
        c.weighted_mean_std_error,
        c.max_deviation_sigmas,
        c.test.chi_square,
        c.test.dof,
        c.test.p_value,
        t.per_check_significance
    );
    for l in &t.linearity {
        s.push_str(&format!(
            "; {} linear in loop_count: slope {:.4e} ± {:.1e} per iteration",
            l.name, l.slope.value, l.slope.std_error
        ));
        if let Some(x) = &l.test {
            s.push_str(&format!(
                ", χ² = {:.2} on {} dof, p = {:.3e}",
                x.chi_square, x.dof, x.p_value
            ));
        }
    }
    if !t.failed.is_empty() {
        let names: Vec<String> = t
            .failed
            .iter()
            .map(|f| match f {
                multicomputer_workloads::analysis::FailedCheck::ConstantVaries => {
                    "a varies with loop_count".to_string()
                }
                multicomputer_workloads::analysis::FailedCheck::NotLinear { name, .. } => {
                    format!("{name} not linear in loop_count")
                }
                multicomputer_workloads::analysis::FailedCheck::PoorFit { loop_count } => {
                    format!("poor fit at loop_count {loop_count}")
                }
            })
            .collect();
        s.push_str(&format!("; failed: {}", names.join(", ")));
    }
    s
}

/// Reads `--csv`: columns P, time_s, optional loop_count and ideal_s.
fn read_tables(path: &Path) -> Result<(Vec<LoopCountTable>, String), UsageError> {
    let t = Columns::read(path)?;
    let ps = t.numbers("P")?;
    let times = t.numbers("time_s")?;
    let loops = if t.has("loop_count") {
        t.numbers("loop_count")?
    } else {
        vec![0.0; ps.len()]
    };
    let ideal = if t.has("ideal_s") {
        Some(t.numbers("ideal_s")?)
    } else {
        None
    };
    let err = |row: usize, msg: String| {
        UsageError(format!("--csv {}: row {}: {msg}", path.display(), row + 2))
    };
    let mut tables: Vec<LoopCountTable> = Vec::new();
    for i in 0..ps.len() {
        let p = ps[i];
        if !(p >= 1.0 && p.fract() == 0.0 && p <= f64::from(u32::MAX)) {
            return Err(err(i, format!("column 'P': {p} is not a whole number ≥ 1")));
        }
        if !(times[i].is_finite() && times[i] > 0.0) {
            return Err(err(
                i,
                format!("column 'time_s': {} is not a time > 0", times[i]),
            ));
        }
        if !loops[i].is_finite() {
            return Err(err(
                i,
                format!("column 'loop_count': {} is not a number", loops[i]),
            ));
        }
        let value = match &ideal {
            Some(ideal) if ideal[i].is_finite() && ideal[i] > 0.0 => times[i] / ideal[i],
            Some(ideal) => {
                return Err(err(
                    i,
                    format!("column 'ideal_s': {} is not a time > 0", ideal[i]),
                ));
            }
            None => times[i],
        };
        let o = Observation::new(p as u32, value);
        match tables.iter_mut().find(|t| t.loop_count == loops[i]) {
            Some(t) => t.observations.push(o),
            None => tables.push(LoopCountTable {
                loop_count: loops[i],
                observations: vec![o],
            }),
        }
    }
    let fitted = if ideal.is_some() {
        PHI_S
    } else {
        "run time (s)"
    };
    Ok((tables, fitted.into()))
}

/// Runs the sweep: every loop count × P × repeat, with a progress bar.
fn measure(args: &ScalingArgs, out: &Path) -> Result<Vec<ScalingRow>> {
    let config = args.lattice.config()?;
    let mechanism = args.mechanism.mechanism();
    let ps: Vec<u32> = parse_list("--processors", &args.processors, "a processor count")?;
    if let Some(bad) = ps.iter().find(|&&p| p == 0 || p > 16_384) {
        return Err(UsageError(format!("--processors: {bad} is not in 1..=16384")).into());
    }
    let loops: Vec<u64> = parse_list("--loop-counts", &args.loop_counts, "a whole number ≥ 0")?;
    let workload = Workload::Scaled {
        samples_per_processor: args.samples_per_processor,
    };
    let runs = ps.len() * loops.len() * args.repeats as usize;
    let bar = ProgressBar::new(runs as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40} {pos}/{len} runs, {elapsed} elapsed, ~{eta} left  {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut rows = Vec::with_capacity(runs);
    // Every pass runs the cells in its own random order (fixed seed), so that a drift of the
    // host's speed (it changes the CPU time charged for real compute and for the busy loop)
    // shows as scatter between replicates, not as a trend in P or in loop_count.
    let cells: Vec<(usize, usize)> = (0..loops.len())
        .flat_map(|l| (0..ps.len()).map(move |i| (l, i)))
        .collect();
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    for repeat in 0..args.repeats {
        let mut order = cells.clone();
        for k in (1..order.len()).rev() {
            // xorshift64: enough to decorrelate the order from P and loop_count.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            order.swap(k, (state % (k as u64 + 1)) as usize);
        }
        for &(l, i) in &order {
            let (loop_count, p) = (loops[l], ps[i]);
            let machine_args = args
                .messages
                .machine_args(mechanism, p as usize, loop_count)?;
            bar.set_message(format!("{mechanism} loop_count {loop_count} P = {p}"));
            let mut stalled_runs = 0;
            let r = loop {
                let (r, _) = run_ising(&config, workload, mechanism, &machine_args, out, true)?;
                let stalled = r.max_processor_sample_s > STALL_FACTOR * r.native_sample_s;
                if !stalled || stalled_runs + 1 >= MAX_ATTEMPTS {
                    break r;
                }
                stalled_runs += 1;
            };
            rows.push((
                (l, i, repeat),
                ScalingRow {
                    processors: p,
                    loop_count,
                    repeat,
                    time_s: r.run_time_s,
                    ideal_s: r.ideal_run_time_s,
                    mechanism,
                    samples: r.samples,
                    messages_sent: r.messages_sent,
                    root_messages_sent: r.root_messages_sent,
                    emulated_sample_s: r.emulated_sample_s,
                    native_sample_s: r.native_sample_s,
                    sample_time_error_pct: r.sample_time_error_pct,
                    dilation: r.dilation,
                    late_waits: r.fidelity.late_waits,
                    waits: r.fidelity.waits,
                    wall_s: r.wall_s,
                    stalled_runs,
                },
            ));
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    rows.sort_by_key(|(key, _)| *key);
    Ok(rows.into_iter().map(|(_, row)| row).collect())
}
/// The sweep's observations: `Φ_s = T/ideal` per run, grouped by loop count.
fn tables_of(rows: &[ScalingRow]) -> Vec<LoopCountTable> {
    let mut tables: Vec<LoopCountTable> = Vec::new();
    for r in rows {
        let o = Observation::new(r.processors, r.time_s / r.ideal_s);
        let l = r.loop_count as f64;
        match tables.iter_mut().find(|t| t.loop_count == l) {
            Some(t) => t.observations.push(o),
            None => tables.push(LoopCountTable {
                loop_count: l,
                observations: vec![o],
            }),
        }
    }
    tables
}

/// Run time against P per loop count with the fitted curves; b against loop count with its
/// straight-line fit.
fn write_plots(
    out: &Path,
    name: &str,
    fitted: &str,
    model: &OverheadModel,
    tables: &[LoopCountTable],
    rows: &[LoopCountRow],
    test: Option<&ConsistencyReport>,
) -> Result<Vec<String>> {
    let mut series = Vec::new();
    for (t, row) in tables.iter().zip(rows) {
        series.push(Series {
            name: format!("loop_count {}", t.loop_count),
            points: t
                .observations
                .iter()
                .map(|o| (f64::from(o.processors), o.value))
                .collect(),
            style: Style::Points,
        });
        let (lo, hi) = t
            .observations
            .iter()
            .fold((f64::MAX, 0.0_f64), |(lo, hi), o| {
                let p = f64::from(o.processors);
                (lo.min(p), hi.max(p))
            });
        let params: Vec<f64> = row.coefficients.iter().map(|c| c.value).collect();
        series.push(Series {
            name: format!("fit {model}, loop_count {}", t.loop_count),
            points: (0..=60)
                .map(|i| {
                    let p = lo * (hi / lo).powf(f64::from(i) / 60.0);
                    (p, model.evaluate(&params, p))
                })
                .collect(),
            style: Style::Line,
        });
    }
    let time = Chart {
        title: format!("{fitted} against processors, fitted with Φ(P) = {model}"),
        x_label: "processors P".into(),
        y_label: fitted.into(),
        x_scale: Scale::Log10,
        y_scale: Scale::Linear,
        series,
    };
    let mut files = Vec::new();
    let file = format!("{name}-time.svg");
    write_atomic(&in_out(out, &file), time.to_svg(960, 600)?.as_bytes())?;
    files.push(file);
    if let (Some(t), Some(l)) = (test, test.and_then(|t| t.linearity.first())) {
        let xs = &t.loop_counts;
        let (lo, hi) = xs
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
        let chart = Chart {
            title: format!("{} against loop_count, with its least-squares line", l.name),
            x_label: "loop_count (busy-loop iterations per message)".into(),
            y_label: format!("{} ({} coefficient)", l.name, l.term),
            x_scale: Scale::Linear,
            y_scale: Scale::Linear,
            series: vec![
                Series {
                    name: format!("{} fitted per loop_count", l.name),
                    points: xs.iter().copied().zip(l.values.iter().copied()).collect(),
                    style: Style::Points,
                },
                Series {
                    name: format!(
                        "{} = {:.3e} + {:.3e} × loop_count",
                        l.name, l.intercept.value, l.slope.value
                    ),
                    points: [lo, hi]
                        .iter()
                        .map(|&x| (x, l.intercept.value + l.slope.value * x))
                        .collect(),
                    style: Style::Line,
                },
            ],
        };
        let file = format!("{name}-b.svg");
        write_atomic(&in_out(out, &file), chart.to_svg(800, 520)?.as_bytes())?;
        files.push(file);
    }
    Ok(files)
}

/// Runs (or reads) and analyses.
pub(crate) fn scaling(args: &ScalingArgs, out: &Path) -> Result<ScalingReport> {
    let model = parse_model("--model", &args.model)?;
    let alternatives: Vec<OverheadModel> = split_list("--alternatives", &args.alternatives)?
        .into_iter()
        .map(|s| parse_model("--alternatives", s))
        .collect::<Result<_, _>>()?;
    if !(args.significance > 0.0 && args.significance < 1.0) {
        return Err(UsageError(format!(
            "--significance must be in (0, 1), got {}",
            args.significance
        ))
        .into());
    }
    let options = ConsistencyOptions {
        significance: args.significance,
        ..ConsistencyOptions::default()
    };
    let (tables, fitted, rows, mechanism, source) = match &args.csv {
        Some(path) => {
            let (tables, fitted) = read_tables(path)?;
            (
                tables,
                fitted,
                Vec::new(),
                None,
                Some(path.display().to_string()),
            )
        }
        None => {
            let rows = measure(args, out)?;
            write_csv(&in_out(out, &format!("{}.csv", args.name)), &rows)?;
            (
                tables_of(&rows),
                PHI_S.to_string(),
                rows,
                Some(args.mechanism.mechanism()),
                None,
            )
        }
    };
    let data = match &args.csv {
        Some(path) => format!("--csv {}", path.display()),
        None => "--processors".to_string(),
    };
    let (loop_counts, test) = analyse(&model, &tables, &options, &data)?;
    let mut alt = Vec::new();
    for m in &alternatives {
        // A candidate that cannot be fitted here (too few P values) is left out, not an error.
        if let Ok((rows, t)) = analyse(m, &tables, &options, &data) {
            alt.push(AlternativeFit {
                model: m.to_string(),
                loop_counts: rows,
                verdict: t.map(|t| t.verdict),
            });
        }
    }
    let mut files = write_plots(
        out,
        &args.name,
        &fitted,
        &model,
        &tables,
        &loop_counts,
        test.as_ref(),
    )?;
    let report = ScalingReport {
        mechanism,
        source,
        fitted,
        model: model.to_string(),
        verdict: test.as_ref().map(|t| t.verdict),
        explanation: explain(test.as_ref()),
        loop_counts,
        test,
        alternatives: alt,
        rows,
        files: Vec::new(),
    };
    let json = format!("{}.json", args.name);
    files.push(json.clone());
    if args.csv.is_none() {
        files.insert(0, format!("{}.csv", args.name));
    }
    let report = ScalingReport { files, ..report };
    write_json(&in_out(out, &json), &report)?;
    Ok(report)
}

fn print_report(r: &ScalingReport, out: &Path) {
    let what = match (&r.mechanism, &r.source) {
        (Some(m), _) => format!("ising, {m} mechanism"),
        (None, Some(s)) => s.clone(),
        (None, None) => String::new(),
    };
    println!("{what}: {} fitted with Φ(P) = {}", r.fitted, r.model);
    let mut t = table(&["loop_count", "a", "b", "R²", "σ from"]);
    let show = |v: f64| {
        if r.fitted.starts_with("run time") {
            human_ns(v * 1e9)
        } else {
            format!("{v:.4}")
        }
    };
    for row in &r.loop_counts {
        t.add_row(vec![
            format!("{}", row.loop_count),
            format!("{} ± {}", show(row.a), show(row.a_std_error)),
            match (row.b, row.b_std_error) {
                (Some(b), Some(s)) => format!("{} ± {}", show(b), show(s)),
                _ => "—".into(),
            },
            format!("{:.4}", row.r_squared),
            row.uncertainty.clone(),
        ]);
    }
    println!("{t}");
    for a in &r.alternatives {
        let r2: Vec<String> = a
            .loop_counts
            .iter()
            .map(|l| format!("{:.4}", l.r_squared))
            .collect();
        println!(
            "  alternative Φ(P) = {}: R² per loop_count {}{}",
            a.model,
            r2.join(", "),
            a.verdict
                .map(|v| format!(", verdict {}", format!("{v:?}").to_lowercase()))
                .unwrap_or_default()
        );
    }
    println!("verdict: {}", r.explanation);
    println!(
        "written: {}",
        r.files
            .iter()
            .map(|f| format!("{}/{f}", out.display()))
            .collect::<Vec<_>>()
            .join(", ")
    );
}

pub(crate) fn run(args: &ScalingArgs, out: &Path) -> Result<()> {
    let report = scaling(args, out)?;
    if args.json {
        print_json(&report)
    } else {
        print_report(&report, out);
        Ok(())
    }
}
