//! `multicomputer scaling`: the measurement method of Zorbas, Reble and VanKooten, "Measuring
//! the scalability of parallel computer systems" (1989), §4–5. Runs the *ising* program for a
//! list of P and several `loop_count`s (the busy loop per message send that slows the message
//! system down), fits the candidate overhead function (default (6), `Φ(P) = a + b·log P`) to the
//! system overhead of each loop count by least squares, and decides whether the candidate is
//! `consistent`, `refuted` or `inconclusive` by the consistency test of
//! [`multicomputer_workloads::analysis::consistency_test`] (whose docs derive the rule): a trend
//! test of `a` against the loop count and a pooled lack-of-fit test, both against the noise of
//! the replicates pooled over all cells, at an overall level; `--against` adds a nested test
//! against a richer model, which can refute without replicates.
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
//!
//! This command only renders: every number it shows comes from the analysis.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use multicomputer_workloads::analysis::{
    AppliedWeighting, ConsistencyOptions, ConsistencyReport, InconclusiveReason, Measurement,
    NestedTest, NoiseEstimate, NoiseSource, OverheadFit, OverheadModel, TestKind, Verdict, Warning,
    Weighting, WeightingChoice, WeightingRule, consistency_test, fit_loop_counts,
};
use multicomputer_workloads::ising::{Mechanism, Workload};
use serde::Serialize;

use crate::UsageError;
use crate::args::parse_duration;
use crate::commands::ising::{LatticeArgs, MechanismArg, MessageSystemArgs, run_ising};
use crate::commands::sweep::{split_list, write_csv};
use crate::output::{human_ns, in_out, print_json, table, write_atomic, write_json};
use crate::plot::{Chart, Scale, Series, Style};

/// How the cells are weighted (`--weighting`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum WeightingArg {
    /// Relative, unless the replicates reject scatter proportional to the run time (then
    /// uniform).
    Auto,
    /// Constant noise: ordinary least squares, as in the paper.
    Uniform,
    /// Noise proportional to the run time (weights 1/T²): timing noise over a wide range of
    /// run times.
    Relative,
}

impl WeightingArg {
    fn weighting(self) -> Weighting {
        match self {
            WeightingArg::Auto => Weighting::Auto,
            WeightingArg::Uniform => Weighting::Uniform,
            WeightingArg::Relative => Weighting::Relative,
        }
    }
}

/// `multicomputer scaling`.
#[derive(Debug, Clone, Args)]
pub(crate) struct ScalingArgs {
    /// Analyse this table instead of running. Columns (names in any case): `P` and `time_s`;
    /// optional `loop_count` (one fit per value; the consistency test needs two or more),
    /// `ideal_s` (then Φ_s = time_s/ideal_s is fitted), `std_error` (of time_s, when a row is a
    /// mean) and `runs` (how many runs each mean has; without it the standard errors are taken
    /// as exact). Rows with the same P and loop_count are replicates.
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
    /// Runs per (P, loop_count): the replicates estimate the noise for the consistency test (the
    /// paper §4: "repeating the measurement of each data point"); with one run the verdict is
    /// inconclusive unless --against refutes.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) repeats: u32,
    #[command(flatten)]
    pub(crate) messages: MessageSystemArgs,
    /// Candidate overhead function: basis terms joined by '+' from 1, log, sqrt, P, PlogP, P2
    /// (the paper's (6) is 1+log).
    #[arg(long, default_value = "1+log", value_name = "TERMS")]
    pub(crate) model: String,
    /// A richer model containing the candidate (e.g. 1+log+P): a nested F test of the candidate
    /// against it, which can refute even without replicates (it can never confirm).
    #[arg(long, value_name = "TERMS")]
    pub(crate) against: Option<String>,
    /// Other candidates fitted and judged alongside, for comparison (comma-separated).
    #[arg(long, default_value = "1+P,1+log+P", value_name = "LIST")]
    pub(crate) alternatives: String,
    /// Weighting of the fits: relative suits timing noise over a wide range of run times,
    /// uniform constant noise (e.g. a coarse clock); auto is relative unless the replicates reject it.
    #[arg(long, value_enum, default_value_t = WeightingArg::Auto)]
    pub(crate) weighting: WeightingArg,
    /// The timer's resolution (e.g. 1us): replicate scatter at or below it is not used as noise.
    /// Without it, identical replicates reveal the resolution.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub(crate) timer_resolution: Option<Duration>,
    /// Overall significance of the consistency test (chance of refuting a correct candidate).
    #[arg(long, default_value_t = 0.01)]
    pub(crate) significance: f64,
    /// A `consistent` verdict needs the tests to find, with --power, a missing c·P term (c
    /// growing with loop_count) this large at the largest P, as a fraction of the largest value.
    #[arg(long, default_value_t = 0.1, value_name = "FRACTION")]
    pub(crate) detectable: f64,
    /// The power the tests need against that term for a `consistent` verdict.
    #[arg(long, default_value_t = 0.8)]
    pub(crate) power: f64,
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
    /// Where the standard errors come from: replicates, std errors or residuals (the last for
    /// orientation only; the verdict never uses them).
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

/// Another candidate, fitted and judged by the same rule.
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
    /// What was fitted: `run time (s)` or `Φ_s = time_s / ideal_s`.
    pub(crate) fitted: String,
    pub(crate) model: String,
    /// The richer model of `--against`, if any.
    pub(crate) against: Option<String>,
    /// The weighting applied, and why.
    pub(crate) weighting: String,
    /// Per loop count: a, b (the paper's Tables 1–2).
    pub(crate) loop_counts: Vec<LoopCountRow>,
    /// `consistent`, `refuted` or `inconclusive`; null with a single loop count (nothing to
    /// compare).
    pub(crate) verdict: Option<Verdict>,
    /// The verdict in words: the test that decided, its statistic, degrees of freedom and
    /// p-value, or why the data cannot decide.
    pub(crate) explanation: String,
    /// What the user should know about the data, and what to do about it.
    pub(crate) warnings: Vec<String>,
    /// The whole consistency test (tests, noise, power, fits).
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
    let m = s
        .parse::<OverheadModel>()
        .map_err(|e| UsageError(format!("{arg} {s}: {e}")))?;
    if !m.has_constant() {
        return Err(UsageError(format!(
            "{arg} {s}: the candidate needs a constant term (1), the paper's a"
        )));
    }
    Ok(m)
}

/// The candidate, its richer model, the alternatives and the test's options, checked before any
/// work.
struct Plan {
    model: OverheadModel,
    alternatives: Vec<OverheadModel>,
    options: ConsistencyOptions,
}

fn plan(args: &ScalingArgs) -> Result<Plan, UsageError> {
    let model = parse_model("--model", &args.model)?;
    let against = match &args.against {
        None => None,
        Some(s) => {
            let r = parse_model("--against", s)?;
            if !r.contains(&model) || r.len() == model.len() {
                return Err(UsageError(format!(
                    "--against {s}: must contain every term of the candidate {model} and more"
                )));
            }
            Some(r)
        }
    };
    let alternatives = split_list("--alternatives", &args.alternatives)?
        .into_iter()
        .map(|s| parse_model("--alternatives", s))
        .collect::<Result<_, _>>()?;
    if !(args.significance > 0.0 && args.significance < 1.0) {
        return Err(UsageError(format!(
            "--significance must be in (0, 1), got {}",
            args.significance
        )));
    }
    if !(args.detectable.is_finite() && args.detectable > 0.0) {
        return Err(UsageError(format!(
            "--detectable must be a fraction > 0 (e.g. 0.1 for 10 %), got {}",
            args.detectable
        )));
    }
    if !(args.power > 0.0 && args.power < 1.0) {
        return Err(UsageError(format!(
            "--power must be in (0, 1), got {}",
            args.power
        )));
    }
    let timer_resolution = match args.timer_resolution {
        Some(d) if d.is_zero() => {
            return Err(UsageError(
                "--timer-resolution must be > 0 (e.g. 1us)".into(),
            ));
        }
        d => d.map(|d| d.as_secs_f64()),
    };
    Ok(Plan {
        model,
        alternatives,
        options: ConsistencyOptions {
            significance: args.significance,
            weighting: args.weighting.weighting(),
            against,
            timer_resolution,
            detectable_fraction: args.detectable,
            required_power: args.power,
        },
    })
}

/// A CSV table whose column names are matched case-insensitively.
struct CsvTable {
    path: PathBuf,
    /// Header names, trimmed, lower case.
    names: Vec<String>,
    records: Vec<csv::StringRecord>,
}

impl CsvTable {
    fn error(&self, message: &str) -> UsageError {
        UsageError(format!("--csv {}: {message}", self.path.display()))
    }

    fn read(path: &Path) -> Result<Self, UsageError> {
        let fail = |e: &dyn std::fmt::Display| UsageError(format!("--csv {}: {e}", path.display()));
        let mut reader = csv::Reader::from_path(path).map_err(|e| fail(&e))?;
        let names: Vec<String> = reader
            .headers()
            .map_err(|e| fail(&e))?
            .iter()
            .map(|h| h.trim().to_lowercase())
            .collect();
        if let Some((i, n)) = names
            .iter()
            .enumerate()
            .find(|(i, n)| names[..*i].contains(n))
        {
            return Err(fail(&format!(
                "column {} repeats the name '{n}' (names are matched in any case)",
                i + 1
            )));
        }
        let records = reader
            .records()
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| fail(&e))?;
        if records.is_empty() {
            return Err(fail(&"no data rows"));
        }
        Ok(CsvTable {
            path: path.to_path_buf(),
            names,
            records,
        })
    }

    /// The column named `name` (or one of `aliases`), in any case.
    fn find(&self, name: &str, aliases: &[&str]) -> Option<usize> {
        std::iter::once(name)
            .chain(aliases.iter().copied())
            .find_map(|n| self.names.iter().position(|h| *h == n.to_lowercase()))
    }

    /// The numbers of a column; a cell that is not a number is named by row and column.
    fn numbers(&self, column: usize, name: &str) -> Result<Vec<f64>, UsageError> {
        self.records
            .iter()
            .enumerate()
            .map(|(r, rec)| {
                let cell = rec.get(column).unwrap_or("").trim();
                cell.parse::<f64>().map_err(|_| {
                    self.error(&format!(
                        "row {} column '{name}': '{cell}' is not a number",
                        r + 2
                    ))
                })
            })
            .collect()
    }

    fn required(&self, name: &str) -> Result<Vec<f64>, UsageError> {
        let Some(i) = self.find(name, &[]) else {
            return Err(self.error(&format!(
                "missing column '{name}' (columns: {}; names are matched in any case)",
                self.names.join(", ")
            )));
        };
        self.numbers(i, name)
    }

    fn optional(&self, name: &str, aliases: &[&str]) -> Result<Option<Vec<f64>>, UsageError> {
        self.find(name, aliases)
            .map(|i| self.numbers(i, name))
            .transpose()
    }
}

/// Reads `--csv`: every row a measurement, every bad cell named by row and column.
fn read_measurements(path: &Path) -> Result<(Vec<Measurement>, String), UsageError> {
    let t = CsvTable::read(path)?;
    let ps = t.required("P")?;
    let times = t.required("time_s")?;
    let loops = t.optional("loop_count", &[])?;
    let ideal = t.optional("ideal_s", &[])?;
    let se = t.optional("std_error", &["std_error_s"])?;
    let runs = t.optional("runs", &[])?;
    if runs.is_some() && se.is_none() {
        return Err(t.error("column 'runs' needs a column 'std_error' (of each row's mean)"));
    }
    let bad = |row: usize, column: &str, value: f64, what: &str| {
        t.error(&format!(
            "row {} column '{column}': {value} is not {what}",
            row + 2
        ))
    };
    let mut out = Vec::with_capacity(ps.len());
    for i in 0..ps.len() {
        let p = ps[i];
        if !(p >= 1.0 && p.fract() == 0.0 && p <= f64::from(u32::MAX)) {
            return Err(bad(i, "P", p, "a whole number ≥ 1"));
        }
        if !(times[i].is_finite() && times[i] > 0.0) {
            return Err(bad(i, "time_s", times[i], "a time > 0"));
        }
        let loop_count = loops.as_ref().map_or(0.0, |l| l[i]);
        if !loop_count.is_finite() {
            return Err(bad(i, "loop_count", loop_count, "a number"));
        }
        let mut m = Measurement::run(p as u32, loop_count, times[i]);
        if let Some(ideal) = &ideal {
            if !(ideal[i].is_finite() && ideal[i] > 0.0) {
                return Err(bad(i, "ideal_s", ideal[i], "a time > 0"));
            }
            m = m.with_ideal(ideal[i]);
        }
        if let Some(se) = &se {
            let n = match &runs {
                None => {
                    if !(se[i].is_finite() && se[i] > 0.0) {
                        return Err(bad(
                            i,
                            "std_error",
                            se[i],
                            "a standard error > 0 (taken as exact without a runs column)",
                        ));
                    }
                    None
                }
                Some(runs) => {
                    if !(runs[i] >= 1.0 && runs[i].fract() == 0.0 && runs[i] <= f64::from(u32::MAX))
                    {
                        return Err(bad(i, "runs", runs[i], "a whole number ≥ 1"));
                    }
                    if !(se[i].is_finite() && se[i] >= 0.0) {
                        return Err(bad(i, "std_error", se[i], "a standard error ≥ 0"));
                    }
                    Some(runs[i] as u32)
                }
            };
            m = m.with_std_error(se[i], n);
        }
        out.push(m);
    }
    let fitted = if ideal.is_some() {
        PHI_S
    } else {
        "run time (s)"
    };
    Ok((out, fitted.into()))
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
/// The sweep's measurements: `Φ_s = T/ideal` per run.
fn measurements_of(rows: &[ScalingRow]) -> Vec<Measurement> {
    rows.iter()
        .map(|r| {
            Measurement::run(r.processors, r.loop_count as f64, r.time_s).with_ideal(r.ideal_s)
        })
        .collect()
}

fn loop_count_row(fit: &OverheadFit) -> LoopCountRow {
    let c = &fit.coefficients;
    LoopCountRow {
        loop_count: fit.loop_count,
        a: c[0].value,
        a_std_error: c[0].std_error,
        b: c.get(1).map(|t| t.value),
        b_std_error: c.get(1).map(|t| t.std_error),
        r_squared: fit.r_squared,
        uncertainty: fit.uncertainty.as_str().into(),
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

/// One candidate analysed: its fits, and the consistency test when there are two or more loop
/// counts.
struct Analysis {
    fits: Vec<OverheadFit>,
    test: Option<ConsistencyReport>,
    weighting: WeightingChoice,
    noise: NoiseEstimate,
    warnings: Vec<Warning>,
}

/// The paper's method on the measurements. `data` names where they came from (`--csv FILE` or
/// `--processors`), for errors about the data rather than the model.
fn analyse(
    model: &OverheadModel,
    measurements: &[Measurement],
    options: &ConsistencyOptions,
    data: &str,
) -> Result<Analysis, UsageError> {
    let bad = |e: &dyn std::fmt::Display| UsageError(format!("{data}: fitting {model}: {e}"));
    match consistency_test(model, measurements, options) {
        Ok(t) => Ok(Analysis {
            fits: t.fits.clone(),
            weighting: t.weighting,
            noise: t.noise,
            warnings: t.warnings.clone(),
            test: Some(t),
        }),
        Err(multicomputer_workloads::analysis::ScalabilityError::TooFewLoopCounts(1)) => {
            let f = fit_loop_counts(model, measurements, options).map_err(|e| bad(&e))?;
            Ok(Analysis {
                fits: f.fits,
                test: None,
                weighting: f.weighting,
                noise: f.noise,
                warnings: f.warnings,
            })
        }
        Err(e) => Err(bad(&e)),
    }
}

/// How values of the fitted quantity are shown: run times with a unit, `Φ_s` as a number.
#[derive(Clone, Copy)]
struct Units {
    run_time: bool,
}

impl Units {
    fn show(self, v: f64) -> String {
        if self.run_time {
            human_ns(v * 1e9)
        } else {
            format!("{v:.4}")
        }
    }
}

fn p_text(p: f64) -> String {
    if p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

fn dof_text(d: Option<usize>) -> String {
    d.map_or("∞".into(), |d| d.to_string())
}

fn percent(x: f64) -> String {
    format!("{:.1} %", 100.0 * x)
}

/// A test's name, statistic, degrees of freedom and p-value.
fn test_text(t: &NestedTest, against: Option<&OverheadModel>) -> String {
    match t.kind {
        TestKind::Trend => format!(
            "trend test of a against loop_count: t = {:.2} on {} dof, p = {}",
            t.t.unwrap_or(f64::NAN),
            dof_text(t.error_dof),
            p_text(t.p_value)
        ),
        TestKind::LackOfFit => format!(
            "pooled lack-of-fit test (a shared, other coefficients linear in loop_count): \
             F = {:.2} on ({}, {}) dof, p = {}",
            t.f,
            t.dof,
            dof_text(t.error_dof),
            p_text(t.p_value)
        ),
        TestKind::Against => format!(
            "nested F test against Φ(P) = {}: F = {:.2} on ({}, {}) dof, p = {}",
            against.map(|m| m.to_string()).unwrap_or_default(),
            t.f,
            t.dof,
            dof_text(t.error_dof),
            p_text(t.p_value)
        ),
    }
}

fn noise_text(noise: &NoiseEstimate, weighting: AppliedWeighting, units: Units) -> String {
    match noise.source {
        NoiseSource::StdErrors => "the standard errors given, taken as exact".into(),
        NoiseSource::Unavailable => "no independent noise estimate".into(),
        NoiseSource::Replicates => format!(
            "noise from {} degrees of freedom of replicates in {} cells ({})",
            dof_text(noise.dof),
            noise.replicated_cells,
            if weighting == AppliedWeighting::Relative {
                format!("relative sd {:.2} %", 100.0 * noise.variance.sqrt())
            } else {
                format!("sd {}", units.show(noise.variance.sqrt()))
            }
        ),
    }
}

fn weighting_text(w: &WeightingChoice) -> String {
    let name = w.applied.as_str();
    match w.rule {
        WeightingRule::Requested => format!("{name} weighting (as asked)"),
        WeightingRule::Replicates {
            exponent,
            likelihood_ratio,
            p_value,
        } => format!(
            "{name} weighting (auto: the replicates' scatter grows as the value to the power \
             {exponent:.2}; proportional noise {}: likelihood ratio {likelihood_ratio:.2} on 1 \
             dof, p = {})",
            if w.applied == AppliedWeighting::Relative {
                "not rejected"
            } else {
                "rejected at 1 %"
            },
            p_text(p_value)
        ),
        WeightingRule::NoReplicates => format!(
            "{name} weighting (auto without usable replicates: timing noise is mostly \
             proportional to the run time)"
        ),
        WeightingRule::StdErrors => "weights 1/std_error² (from the standard errors)".into(),
    }
}

/// What the user should know, and what to do about it.
fn warning_text(w: &Warning) -> String {
    let s = |x: f64| human_ns(x * 1e9);
    match *w {
        Warning::ScatterAtResolution {
            pooled_run_time_sd,
            resolution,
            inferred,
        } => format!(
            "the replicates' scatter (pooled sd {}) is at or below the timer's resolution{}: \
             identical replicates make every pure-error test refute far too often, so they were \
             not used as noise. Make each run longer (more work per run, e.g. \
             --samples-per-processor) until replicates differ by many clock ticks, or measure \
             with a finer clock, or give a std_error column",
            s(pooled_run_time_sd),
            match (resolution, inferred) {
                (Some(r), true) => format!(" ({}, inferred from identical replicates)", s(r)),
                (Some(r), false) => format!(" ({})", s(r)),
                (None, _) => String::new(),
            }
        ),
        Warning::IdenticalReplicates { cells, of } => format!(
            "{cells} of {of} replicated (P, loop_count) have identical run times: the clock's \
             tick is close to the noise, which makes the noise look smaller than it is and the \
             tests refute too often. Make each run longer so that it spans many ticks, or give \
             --timer-resolution so that the check is exact"
        ),
        Warning::StdErrorsTakenAsKnown => "standard errors without a runs column are taken as \
             exact; if each comes from a few runs the tests refute too often: add a runs column \
             (the number of runs behind each mean)"
            .into(),
    }
}

/// The verdict in words: the deciding test with its numbers, or why the data cannot decide.
fn explain(r: &ConsistencyReport, units: Units) -> String {
    let against = r.against.as_ref();
    let tests: Vec<String> = r.tests.iter().map(|t| test_text(t, against)).collect();
    let level = format!(
        "each at level {:.4}, the overall {} shared by {} test{}",
        r.level_per_test,
        r.significance,
        r.tests.len(),
        if r.tests.len() == 1 { "" } else { "s" }
    );
    let noise = noise_text(&r.noise, r.weighting.applied, units);
    let guard = r.power.map(|g| {
        (
            format!("c·{}", g.reference_term),
            percent(g.fraction),
            percent(g.power),
            g.minimal_detectable_fraction
                .map_or("more than 10 times the largest value".into(), percent),
        )
    });
    match r.verdict {
        Verdict::Refuted => {
            let t = r
                .tests
                .iter()
                .find(|t| Some(t.kind) == r.decided_by)
                .map(|t| test_text(t, against))
                .unwrap_or_default();
            let mut s = format!(
                "refuted by the {t}, below its level {:.4} ({level})",
                r.level_per_test
            );
            if let (Some(TestKind::Trend), Some(d)) = (r.decided_by, r.drift) {
                s.push_str(&format!(
                    "; a drifts by {:.3e} ± {:.1e} per unit of loop_count",
                    d.value, d.std_error
                ));
            }
            let others: Vec<&String> = r
                .tests
                .iter()
                .zip(&tests)
                .filter(|(t, _)| Some(t.kind) != r.decided_by)
                .map(|(_, s)| s)
                .collect();
            if !others.is_empty() {
                s.push_str(&format!(
                    "; also {}",
                    others
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join("; ")
                ));
            }
            s
        }
        Verdict::Consistent => {
            let mut s = format!(
                "consistent: no test refuted ({}; {level}); {noise}",
                tests.join("; ")
            );
            if let Some((term, fraction, power, mdt)) = &guard {
                s.push_str(&format!(
                    "; they find a missing {term} term growing with loop_count to {fraction} of \
                     the largest value with probability {power} ({} power from {mdt})",
                    percent(r.power.map_or(f64::NAN, |g| g.required_power))
                ));
            }
            s.push_str(&format!(
                "; a = {} ± {} at every loop_count",
                units.show(r.constrained.a.value),
                units.show(r.constrained.a.std_error)
            ));
            for l in &r.constrained.lines {
                s.push_str(&format!(
                    ", {} = {} + {} per unit of loop_count{}",
                    l.name,
                    units.show(l.at_smallest_loop_count.value),
                    units.show(l.slope.value),
                    if l.smallest_loop_count == 0.0 {
                        String::new()
                    } else {
                        format!(" above {}", l.smallest_loop_count)
                    }
                ));
            }
            s.push_str(". This cannot verify the candidate (§6): the data could have refuted it and did not");
            s
        }
        Verdict::Inconclusive => {
            let tail = || {
                r.test(TestKind::Against)
                    .map(|t| format!(". The {} did not refute", test_text(t, against)))
                    .unwrap_or_else(|| {
                        ". A richer model (e.g. --against 1+log+P) could still refute it".into()
                    })
            };
            match r.inconclusive_because {
                Some(InconclusiveReason::NoReplicates) => format!(
                    "inconclusive: no (P, loop_count) has two runs, so nothing estimates the \
                     noise independently of the models (a candidate's own residuals count its \
                     misfit as noise). Run each point two or more times (--repeats, or repeated \
                     rows in --csv){}",
                    tail()
                ),
                Some(InconclusiveReason::ScatterAtResolution) => format!(
                    "inconclusive: the replicates' scatter is at or below the timer's \
                     resolution (see the warning), so it cannot stand for the noise{}",
                    tail()
                ),
                _ => {
                    let (term, fraction, power, mdt) = guard.unwrap_or_default();
                    format!(
                        "inconclusive: no test refuted ({}; {level}), but they could not have \
                         told: with {noise} they find a missing {term} term growing with \
                         loop_count to {fraction} of the largest value only with probability \
                         {power}, short of the required {} (reached at {mdt}). Run more \
                         replicates (--repeats), reduce the noise, or widen the range of P",
                        tests.join("; "),
                        percent(r.power.map_or(f64::NAN, |g| g.required_power))
                    )
                }
            }
        }
    }
}

/// Cell means against P per loop count with the fitted curves; b against loop count with the
/// line of the constrained fit.
fn write_plots(
    out: &Path,
    name: &str,
    fitted: &str,
    model: &OverheadModel,
    fits: &[OverheadFit],
    test: Option<&ConsistencyReport>,
) -> Result<Vec<String>> {
    let mut series = Vec::new();
    for f in fits {
        series.push(Series {
            name: format!("loop_count {}", f.loop_count),
            points: f
                .processors
                .iter()
                .map(|&p| f64::from(p))
                .zip(f.observed.iter().copied())
                .collect(),
            style: Style::Points,
        });
        let (lo, hi) = f
            .processors
            .iter()
            .fold((f64::MAX, 0.0_f64), |(lo, hi), &p| {
                (lo.min(f64::from(p)), hi.max(f64::from(p)))
            });
        series.push(Series {
            name: format!("fit {model}, loop_count {}", f.loop_count),
            points: (0..=60)
                .map(|i| {
                    let p = lo * (hi / lo).powf(f64::from(i) / 60.0);
                    (p, f.predict(p))
                })
                .collect(),
            style: Style::Line,
        });
    }
    let time = Chart {
        title: format!("{fitted} against processors (cell means), fitted with Φ(P) = {model}"),
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
    if let Some(line) = test.and_then(|t| t.constrained.lines.first()) {
        let xs: Vec<f64> = fits.iter().map(|f| f.loop_count).collect();
        let (lo, hi) = xs
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
        let chart = Chart {
            title: format!(
                "{} against loop_count, with the line of the constrained fit",
                line.name
            ),
            x_label: "loop_count (busy-loop iterations per message)".into(),
            y_label: format!("{} ({} coefficient)", line.name, line.term),
            x_scale: Scale::Linear,
            y_scale: Scale::Linear,
            series: vec![
                Series {
                    name: format!("{} fitted per loop_count", line.name),
                    points: fits
                        .iter()
                        .filter_map(|f| f.coefficient(line.term).map(|c| (f.loop_count, c.value)))
                        .collect(),
                    style: Style::Points,
                },
                Series {
                    name: format!(
                        "{} = {:.3e} + {:.3e} × (loop_count − {})",
                        line.name,
                        line.at_smallest_loop_count.value,
                        line.slope.value,
                        line.smallest_loop_count
                    ),
                    points: [lo, hi].iter().map(|&x| (x, line.at(x))).collect(),
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
    let plan = plan(args)?;
    let (measurements, fitted, rows, mechanism, source, data) = match &args.csv {
        Some(path) => {
            let (m, fitted) = read_measurements(path)?;
            let shown = path.display().to_string();
            (
                m,
                fitted,
                Vec::new(),
                None,
                Some(shown.clone()),
                format!("--csv {shown}"),
            )
        }
        None => {
            let rows = measure(args, out)?;
            write_csv(&in_out(out, &format!("{}.csv", args.name)), &rows)?;
            (
                measurements_of(&rows),
                PHI_S.to_string(),
                rows,
                Some(args.mechanism.mechanism()),
                None,
                "--processors".to_string(),
            )
        }
    };
    let units = Units {
        run_time: fitted.starts_with("run time"),
    };
    let main = analyse(&plan.model, &measurements, &plan.options, &data)?;
    let mut alternatives = Vec::new();
    for m in &plan.alternatives {
        // The richer model applies to an alternative it contains; otherwise none.
        let options = ConsistencyOptions {
            against: plan
                .options
                .against
                .clone()
                .filter(|r| r.contains(m) && r.len() > m.len()),
            ..plan.options.clone()
        };
        // A candidate that cannot be fitted here (too few P values) is left out, not an error.
        if let Ok(a) = analyse(m, &measurements, &options, &data) {
            alternatives.push(AlternativeFit {
                model: m.to_string(),
                loop_counts: a.fits.iter().map(loop_count_row).collect(),
                verdict: a.test.map(|t| t.verdict),
            });
        }
    }
    let mut files = write_plots(
        out,
        &args.name,
        &fitted,
        &plan.model,
        &main.fits,
        main.test.as_ref(),
    )?;
    let json = format!("{}.json", args.name);
    files.push(json.clone());
    if args.csv.is_none() {
        files.insert(0, format!("{}.csv", args.name));
    }
    let report = ScalingReport {
        mechanism,
        source,
        fitted,
        model: plan.model.to_string(),
        against: plan.options.against.as_ref().map(|m| m.to_string()),
        weighting: format!(
            "{}; {}",
            weighting_text(&main.weighting),
            noise_text(&main.noise, main.weighting.applied, units)
        ),
        loop_counts: main.fits.iter().map(loop_count_row).collect(),
        verdict: main.test.as_ref().map(|t| t.verdict),
        explanation: main.test.as_ref().map_or_else(
            || "one loop count only: the consistency test needs two or more".into(),
            |t| explain(t, units),
        ),
        warnings: main.warnings.iter().map(warning_text).collect(),
        test: main.test,
        alternatives,
        rows,
        files,
    };
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
    println!("{}", r.weighting);
    let units = Units {
        run_time: r.fitted.starts_with("run time"),
    };
    let mut t = table(&["loop_count", "a", "b", "R²", "σ from"]);
    for row in &r.loop_counts {
        t.add_row(vec![
            format!("{}", row.loop_count),
            format!("{} ± {}", units.show(row.a), units.show(row.a_std_error)),
            match (row.b, row.b_std_error) {
                (Some(b), Some(s)) => format!("{} ± {}", units.show(b), units.show(s)),
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
                .map(|v| format!(", verdict {}", v.as_str()))
                .unwrap_or_default()
        );
    }
    match r.verdict {
        Some(v) => println!("verdict: {}", v.as_str()),
        None => println!("verdict: none"),
    }
    println!("  {}", r.explanation);
    for w in &r.warnings {
        println!("warning: {w}");
    }
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
