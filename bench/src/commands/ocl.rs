//! `multicomputer ocl`, `sweep ocl` and `fit ocl`: the OCL systolic arrays of the grain-size
//! paper (Struik, TU Eindhoven CSN 91/32) run on the emulator, measured beside the paper's
//! sequence-function models (§2.3, §3.3, §4), swept over the paper's grid (§4.1, §4.2) and
//! fitted as the paper fitted its transputer tables.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Result;
use clap::{Args, ValueEnum};
use multicomputer_runtime::{
    ConfigError, Fidelity, MachineConfig, RunError, TimeMode, WaitStrategy,
};
use multicomputer_workloads::ocl::fit::{
    self, KkFit, M1Fit, PAPER_ALPHA_S, PAPER_ALPHA0_S, PAPER_ALPHA1_S, PAPER_BETA_KK_S,
    PAPER_BETA_M1_S, PAPER_KK_TABLE, PAPER_M1_TABLE, TimingRow, Weighting,
};
use multicomputer_workloads::ocl::model::{self, Costs};
use multicomputer_workloads::ocl::{
    Grain, OclError, PipelineCosts, PipelineError, PipelineRun, ocl_reference, random_stream,
    run_pipeline,
};
use serde::Serialize;

use crate::UsageError;
use crate::cli::{WaitArg, parse_duration};
use crate::commands::fit::Columns;
use crate::commands::sweep::{progress, split_list};
use crate::config::{load_profile, wake_costs};
use crate::output::{human_ns, in_out, print_json, table, write_atomic, write_json};
use crate::plot::{Chart, Scale, Series, Style};

/// Whether costs are emulated or real.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum CostsArg {
    /// The model's costs, emulated: α0 + Kα1 per communication (a rendezvous), β per comparison.
    Emulated,
    /// Real compute and real channels, timed by the wall clock (a core per process).
    Native,
}

/// The machine and cost options shared by `ocl` and `sweep ocl`.
#[derive(Debug, Clone, Args)]
pub(crate) struct OclMachineArgs {
    /// Emulated costs (the model's α, β; times are exact) or native (real work, wall clock).
    #[arg(long, value_enum, default_value_t = CostsArg::Emulated)]
    pub(crate) costs: CostsArg,
    /// α, time of one communication of the single-value programs (fine, m1)
    /// [default: §4.1's 12.33us].
    #[arg(long, value_parser = parse_duration, value_name = "DURATION", conflicts_with_all = ["alpha0", "alpha1"])]
    pub(crate) alpha: Option<Duration>,
    /// α0, set-up time of a communication of a packet (kk, mk) [default: §4.2's 5.77us].
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    pub(crate) alpha0: Option<Duration>,
    /// α1, time per value of a packet (kk, mk) [default: §4.2's 7.42us].
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    pub(crate) alpha1: Option<Duration>,
    /// β, time of one comparison [default: 2.88us for fine and m1 (§4.1), 2.45us for kk and mk
    /// (§4.2)].
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    pub(crate) beta: Option<Duration>,
    /// Dilation factor D (≥ 1) for emulated costs. Emulated times do not depend on it (every
    /// receive names its link); it only sets how closely wall time follows emulated time.
    /// [default: 1 if the processes leave a core free for the host, else chosen from the expected message
    /// rate so that the host keeps up]
    #[arg(long, value_name = "D")]
    pub(crate) dilation: Option<f64>,
    /// How processors wait for deadlines.
    #[arg(long, value_enum, default_value_t = WaitArg::Auto)]
    pub(crate) wait: WaitArg,
}

/// `multicomputer ocl`.
#[derive(Debug, Args)]
pub(crate) struct OclArgs {
    /// Window length N (the fine-grained array has N processes).
    #[arg(long, short = 'n', value_name = "N")]
    pub(crate) window: usize,
    /// The program: fine (N processes), m1:M (N/M processes, a window of M each), kk:K (N/K
    /// processes, packets of K), mk:M,K (K divides M).
    #[arg(long, default_value = "fine", value_name = "fine|m1:M|kk:K|mk:M,K")]
    pub(crate) transform: String,
    /// Stream length L of the random stream.
    #[arg(long, short = 'l', default_value_t = 10_000, conflicts_with = "input", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) length: u64,
    /// Seed of the random stream.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Random values are drawn uniformly from 0..=V (small V: many repeats to count).
    #[arg(long, default_value_t = 9, value_name = "V")]
    pub(crate) values: i64,
    /// Read the stream A from FILE instead: one integer per line (blank lines ignored).
    #[arg(long, value_name = "FILE")]
    pub(crate) input: Option<PathBuf>,
    /// Write the output stream B to FILE, one count per line.
    #[arg(long, value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) machine: OclMachineArgs,
    /// Draw the run's processor timeline (compute, communication, idle) as an SVG.
    #[arg(long, value_name = "FILE")]
    pub(crate) timeline: Option<PathBuf>,
    /// Print one JSON object on stdout instead of tables.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Parses `fine`, `m1:M`, `kk:K` or `mk:M,K` for window `n`; errors name `--transform` (or
/// `--window` for N = 0).
pub(crate) fn parse_transform(spec: &str, n: usize) -> Result<Grain, UsageError> {
    let bad = |why: String| UsageError(format!("--transform: {why}"));
    let num = |s: &str| {
        s.trim().parse::<usize>().map_err(|_| {
            bad(format!(
                "'{s}' in '{spec}' is not a whole number (fine, m1:M, kk:K, mk:M,K)"
            ))
        })
    };
    let grain = match spec.trim().split_once(':') {
        None if spec.trim() == "fine" => Grain::fine(n),
        Some(("m1", m)) => Grain::m1(n, num(m)?),
        Some(("kk", k)) => Grain::kk(n, num(k)?),
        Some(("mk", mk)) => {
            let (m, k) = mk
                .split_once(',')
                .ok_or_else(|| bad(format!("'{spec}' needs two numbers, mk:M,K")))?;
            Grain::new(n, num(m)?, num(k)?)
        }
        _ => {
            return Err(bad(format!(
                "unknown transform '{spec}' (fine, m1:M, kk:K, mk:M,K)"
            )));
        }
    };
    grain.map_err(|e| match e {
        OclError::ZeroWindow => UsageError(format!("--window: {e}")),
        e => bad(e.to_string()),
    })
}

/// The constants a run uses: the given ones, else the paper's — §4.1's `α, β` for the
/// single-value programs (fine, m1), §4.2's `α0, α1, β` for the packet programs (kk, mk).
fn resolve_costs(m: &OclMachineArgs, packets: bool) -> Result<Costs, UsageError> {
    let s = |d: Option<Duration>, default: f64| d.map_or(default, |d| d.as_secs_f64());
    let single = m.alpha0.is_none() && m.alpha1.is_none();
    if !packets && single {
        return Ok(Costs::single(
            s(m.alpha, PAPER_ALPHA_S),
            s(m.beta, PAPER_BETA_M1_S),
        ));
    }
    if m.alpha.is_some() {
        return Err(UsageError(
            "--alpha: packets are charged α0 + Kα1; give --alpha0 and --alpha1".into(),
        ));
    }
    Ok(Costs {
        alpha0_s: s(m.alpha0, PAPER_ALPHA0_S),
        alpha1_s: s(m.alpha1, PAPER_ALPHA1_S),
        beta_s: s(m.beta, PAPER_BETA_KK_S),
    })
}

/// The constants of the model beside a run: always for emulated costs, for native ones only
/// if the user named some.
fn model_costs(m: &OclMachineArgs, packets: bool) -> Result<Option<Costs>, UsageError> {
    match m.costs {
        CostsArg::Native if !constants_given(m) => Ok(None),
        _ => resolve_costs(m, packets).map(Some),
    }
}

/// Whether the user named any constant (a native run is only predicted then).
fn constants_given(m: &OclMachineArgs) -> bool {
    m.alpha.is_some() || m.alpha0.is_some() || m.alpha1.is_some() || m.beta.is_some()
}

fn machine_config(m: &OclMachineArgs, out: &Path, trace: bool) -> Result<MachineConfig> {
    let mode = match (m.costs, m.dilation) {
        (CostsArg::Native, Some(_)) => {
            return Err(UsageError("--dilation: native costs run at D = 1".into()).into());
        }
        (CostsArg::Native, None) => TimeMode::Native,
        (CostsArg::Emulated, Some(d)) if d.is_finite() && d >= 1.0 => TimeMode::Dilated(d),
        (CostsArg::Emulated, Some(d)) => {
            return Err(UsageError(format!("--dilation must be a number ≥ 1, got {d}")).into());
        }
        (CostsArg::Emulated, None) => TimeMode::Auto,
    };
    let wait = WaitStrategy::from(m.wait);
    let (wakeup, wake_cpu) = wake_costs(load_profile(None, out)?.as_ref());
    Ok(MachineConfig {
        mode,
        wait,
        trace,
        wakeup,
        wake_cpu,
        ..MachineConfig::default()
    })
}

/// Runs one pipeline; configuration errors become usage errors naming the option.
fn run_grain(
    grain: Grain,
    a: &[i64],
    model: Option<Costs>,
    m: &OclMachineArgs,
    config: &MachineConfig,
) -> Result<PipelineRun> {
    let costs = match (m.costs, model) {
        (CostsArg::Emulated, Some(c)) => PipelineCosts::Emulated(c),
        _ => PipelineCosts::Native,
    };
    run_pipeline(grain, a, costs, config).map_err(|e| match e {
        PipelineError::Run(RunError::Config(c @ ConfigError::NotEnoughCores { .. })) => {
            UsageError(format!(
                "--costs native: {c} ({} processes for this transform)",
                grain.processes()
            ))
            .into()
        }
        PipelineError::Run(RunError::Config(c)) => UsageError(format!("--dilation: {c}")).into(),
        PipelineError::BadCost { .. } => UsageError(format!("--alpha/--beta: {e}")).into(),
        e => anyhow::Error::from(e),
    })
}

/// The model's predictions beside a run.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Predicted {
    /// Constants used.
    pub(crate) alpha0_s: f64,
    pub(crate) alpha1_s: f64,
    pub(crate) beta_s: f64,
    /// σ(D̄_{N/M}, ⌈L/K⌉ − 1): time to consume L inputs (§4.1, §4.2).
    pub(crate) consumption_s: f64,
    /// t_{M,K}(L): time to produce L outputs (§2.3, §3.3).
    pub(crate) output_s: f64,
    /// s(L) = LNβ (§2.3).
    pub(crate) sequential_s: f64,
    pub(crate) speedup: f64,
    pub(crate) efficiency: f64,
    pub(crate) asymptotic_speedup: f64,
    pub(crate) asymptotic_efficiency: f64,
    /// 2(α0 + Kα1)/(KMβ): 2α/(Mβ) for [M,1], 2(α0+Kα1)/(K²β) for [K,K] (§3.3).
    pub(crate) communication_overhead: f64,
    /// √(2α0/β) (§4.2); for K = 1 programs α0 = α.
    pub(crate) optimal_k: f64,
    /// (N/M)(M + 3K) (§3.3).
    pub(crate) variables: usize,
}

fn predicted(grain: Grain, c: Costs, l: u64) -> Predicted {
    let p = model::predict(grain, c, l);
    Predicted {
        alpha0_s: c.alpha0_s,
        alpha1_s: c.alpha1_s,
        beta_s: c.beta_s,
        consumption_s: p.consumption_time_s,
        output_s: p.output_time_s,
        sequential_s: p.sequential_time_s,
        speedup: p.speedup,
        efficiency: p.efficiency,
        asymptotic_speedup: p.asymptotic_speedup,
        asymptotic_efficiency: p.asymptotic_efficiency,
        communication_overhead: p.communication_overhead,
        optimal_k: model::optimal_packet_size(c),
        variables: p.variables,
    }
}

/// What `ocl --json` prints.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct OclReport {
    pub(crate) transform: String,
    pub(crate) n: usize,
    pub(crate) m: usize,
    pub(crate) k: usize,
    pub(crate) l: u64,
    pub(crate) processes: usize,
    pub(crate) packets: u64,
    pub(crate) costs: CostsArg,
    /// Measured time to consume the L inputs (emulated, or wall clock for native costs).
    pub(crate) consumption_s: f64,
    /// Measured time to produce the L outputs.
    pub(crate) output_s: f64,
    /// The model (absent for native costs unless constants were given).
    pub(crate) predicted: Option<Predicted>,
    /// (measured − predicted)/predicted of the consumption time, percent.
    pub(crate) consumption_error_pct: Option<f64>,
    /// (measured − predicted)/predicted of the output time, percent.
    pub(crate) output_error_pct: Option<f64>,
    /// Native: wall time of the sequential reference on this host; emulated: s(L) = LNβ.
    pub(crate) sequential_s: Option<f64>,
    /// sequential_s / output_s.
    pub(crate) speedup: Option<f64>,
    /// speedup / processes.
    pub(crate) efficiency: Option<f64>,
    /// The output equals the sequential reference (a run that differs is an error).
    pub(crate) output_matches_reference: bool,
    pub(crate) mode: &'static str,
    pub(crate) dilation: Option<f64>,
    pub(crate) wall_s: f64,
    pub(crate) fidelity: Fidelity,
}

fn pct(measured: f64, predicted: f64) -> f64 {
    100.0 * (measured - predicted) / predicted
}

fn label(grain: Grain) -> String {
    match (grain.m(), grain.k()) {
        (1, 1) => "fine".into(),
        (m, 1) => format!("m1:{m}"),
        (m, k) if m == k => format!("kk:{k}"),
        (m, k) => format!("mk:{m},{k}"),
    }
}

fn report(
    grain: Grain,
    run: &PipelineRun,
    model: Option<Costs>,
    m: &OclMachineArgs,
    sequential_wall_s: Option<f64>,
) -> OclReport {
    let predicted = model.map(|c| predicted(grain, c, run.l));
    let sequential_s = match m.costs {
        CostsArg::Native => sequential_wall_s,
        CostsArg::Emulated => predicted.as_ref().map(|p| p.sequential_s),
    };
    let speedup = sequential_s.map(|s| s / run.output_s);
    OclReport {
        transform: label(grain),
        n: grain.n(),
        m: grain.m(),
        k: grain.k(),
        l: run.l,
        processes: grain.processes(),
        packets: run.packets,
        costs: m.costs,
        consumption_s: run.consumption_s,
        output_s: run.output_s,
        consumption_error_pct: predicted
            .as_ref()
            .map(|p| pct(run.consumption_s, p.consumption_s)),
        output_error_pct: predicted.as_ref().map(|p| pct(run.output_s, p.output_s)),
        predicted,
        sequential_s,
        speedup,
        efficiency: speedup.map(|s| s / grain.processes() as f64),
        output_matches_reference: true,
        mode: run.report.mode,
        dilation: run.report.fidelity.dilation,
        wall_s: run.report.wall_s(),
        fidelity: run.report.fidelity.clone(),
    }
}

fn read_stream(path: &Path) -> Result<Vec<i64>, UsageError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError(format!("--input {}: {e}", path.display())))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            l.trim().parse::<i64>().map_err(|_| {
                UsageError(format!(
                    "--input {}: line {}: '{}' is not an integer",
                    path.display(),
                    i + 1,
                    l.trim()
                ))
            })
        })
        .collect::<Result<Vec<i64>, UsageError>>()
        .and_then(|a| {
            if a.is_empty() {
                Err(UsageError(format!(
                    "--input {}: no integers in the file",
                    path.display()
                )))
            } else {
                Ok(a)
            }
        })
}

/// `multicomputer ocl`.
pub(crate) fn run(args: &OclArgs, out: &Path) -> Result<()> {
    let grain = parse_transform(&args.transform, args.window)?;
    if args.values < 0 {
        return Err(UsageError(format!("--values must be ≥ 0, got {}", args.values)).into());
    }
    let a = match &args.input {
        Some(path) => read_stream(path)?,
        None => random_stream(args.length as usize, 0, args.values, args.seed),
    };
    let packets = grain.k() > 1
        || ["kk", "mk"]
            .iter()
            .any(|p| args.transform.trim().starts_with(p));
    let model = model_costs(&args.machine, packets)?;
    let config = machine_config(&args.machine, out, args.timeline.is_some())?;
    let run = run_grain(grain, &a, model, &args.machine, &config)?;
    let sequential_wall_s = (args.machine.costs == CostsArg::Native).then(|| {
        let t = Instant::now();
        let b = ocl_reference(&a, grain.n());
        std::hint::black_box(b).ok();
        t.elapsed().as_secs_f64()
    });
    let r = report(grain, &run, model, &args.machine, sequential_wall_s);
    if let Some(path) = &args.output {
        let text: String = run.output.iter().map(|b| format!("{b}\n")).collect();
        write_atomic(path, text.as_bytes())?;
    }
    if let (Some(path), Some(trace)) = (&args.timeline, &run.trace) {
        let title = format!("OCL {} N = {} — emulated time (s)", r.transform, r.n);
        crate::config::write_timeline(path, trace, grain.processes(), &title)?;
    }
    if args.json {
        return print_json(&r);
    }
    print_report(&r);
    Ok(())
}

fn print_report(r: &OclReport) {
    let mut t = table(&["quantity", "measured", "predicted", "error"]);
    let row = |t: &mut comfy_table::Table, name: &str, m: f64, p: Option<f64>, e: Option<f64>| {
        t.add_row(vec![
            name.to_string(),
            human_ns(m * 1e9),
            p.map_or("—".into(), |p| human_ns(p * 1e9)),
            e.map_or("—".into(), |e| format!("{e:+.3} %")),
        ]);
    };
    let p = r.predicted.as_ref();
    row(
        &mut t,
        "consume L inputs (§4)",
        r.consumption_s,
        p.map(|p| p.consumption_s),
        r.consumption_error_pct,
    );
    row(
        &mut t,
        "produce L outputs t(L)",
        r.output_s,
        p.map(|p| p.output_s),
        r.output_error_pct,
    );
    println!(
        "OCL {} on N = {}, L = {}: {} processes, {} packets, {} costs",
        r.transform,
        r.n,
        r.l,
        r.processes,
        r.packets,
        match r.costs {
            CostsArg::Emulated => "emulated",
            CostsArg::Native => "native",
        }
    );
    println!("{t}");
    if let Some(p) = p {
        let alpha = if p.alpha1_s == 0.0 {
            format!("α = {}", human_ns(p.alpha0_s * 1e9))
        } else {
            format!(
                "α0 = {}, α1 = {}",
                human_ns(p.alpha0_s * 1e9),
                human_ns(p.alpha1_s * 1e9)
            )
        };
        println!(
            "model: {alpha}, β = {}; overhead 2(α0+Kα1)/(KMβ) = {:.3}; efficiency {:.3} \
             (L → ∞: {:.3}); speedup {:.2} (L → ∞: {:.2}); optimal K = √(2α0/β) = {:.2}",
            human_ns(p.beta_s * 1e9),
            p.communication_overhead,
            p.efficiency,
            p.asymptotic_efficiency,
            p.speedup,
            p.asymptotic_speedup,
            p.optimal_k
        );
    }
    if let (Some(s), Some(e)) = (r.speedup, r.efficiency) {
        println!("measured speedup {s:.2}, efficiency {e:.3}");
    }
    match r.costs {
        CostsArg::Emulated => println!(
            "output equals the sequential reference; {} mode{}, wall {:.3} s{}",
            r.mode,
            r.dilation.map_or(String::new(), |d| format!(", D = {d}")),
            r.wall_s,
            if r.fidelity.exact {
                String::new()
            } else {
                format!(
                    ", {} of {} waits late (emulated times do not depend on it: every \
                     receive names its link)",
                    r.fidelity.late_waits, r.fidelity.waits
                )
            }
        ),
        CostsArg::Native => println!(
            "output equals the sequential reference; native costs: wall-clock times, \
             sequential = the O(LN) reference on this host"
        ),
    }
}

/// Which of the paper's two tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum TableArg {
    /// [M,1] (§4.1): grain column `m`.
    M1,
    /// [K,K] (§4.2): grain column `k`.
    Kk,
}

impl TableArg {
    fn column(self) -> &'static str {
        match self {
            Self::M1 => "m",
            Self::Kk => "k",
        }
    }

    fn grain(self, n: usize, g: usize) -> Result<Grain, OclError> {
        match self {
            Self::M1 => Grain::m1(n, g),
            Self::Kk => Grain::kk(n, g),
        }
    }

    fn paper_table(self) -> &'static [TimingRow] {
        match self {
            Self::M1 => &PAPER_M1_TABLE,
            Self::Kk => &PAPER_KK_TABLE,
        }
    }
}

/// `multicomputer sweep ocl`.
#[derive(Debug, Clone, Args)]
pub(crate) struct SweepOclArgs {
    /// The tables to reproduce, comma-separated: m1 (§4.1), kk (§4.2).
    #[arg(long, default_value = "m1,kk", value_name = "LIST")]
    pub(crate) transforms: String,
    /// Window lengths N, comma-separated.
    #[arg(long, default_value = "50,500", value_name = "LIST")]
    pub(crate) windows: String,
    /// M or K values, comma-separated, for every N (each must divide N)
    /// [default: the paper's: 1,2,5,10,25,50 for N = 50 and 10,20,25,50,100,250,500 for N = 500;
    /// for other N, the divisors of N; with native costs only those whose N/M processes fit on
    /// this host's cores].
    #[arg(long, value_name = "LIST")]
    pub(crate) grains: Option<String>,
    /// Explicit cells `N:G` (G = M or K), comma-separated, instead of --windows × --grains,
    /// e.g. `25:25,50:25,100:100,200:100` (native costs need a core per process).
    #[arg(long, value_name = "LIST", conflicts_with_all = ["windows", "grains"])]
    pub(crate) cells: Option<String>,
    /// Stream length L. The paper used 100 000; the default is shortened to 2 000 (a multiple
    /// of every K in the grid) to keep the 500-process emulations short. Emulated times are
    /// exact and their model is linear in L, so a shorter L loses nothing but the paper's
    /// absolute times (its 13 equations hold for any L).
    #[arg(long, short = 'l', default_value_t = 2_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) length: u64,
    /// Seed of the random stream.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Runs per cell; the fastest is kept (for native costs on a shared host, where a run can
    /// only be slowed down by other work; emulated times are the same every run).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) repeat: u32,
    #[command(flatten)]
    pub(crate) machine: OclMachineArgs,
    /// Name of the output files in the results folder (<name>-m1.csv, <name>-kk.csv,
    /// <name>.json, <name>-m1.svg, <name>-kk.svg).
    #[arg(long, default_value = "sweep-ocl")]
    pub(crate) name: String,
    /// Print the rows as one JSON object on stdout as well.
    #[arg(long)]
    pub(crate) json: bool,
}

/// One cell of `sweep ocl`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SweepOclRow {
    pub(crate) table: TableArg,
    pub(crate) n: usize,
    /// M (m1) or K (kk).
    pub(crate) grain: usize,
    pub(crate) l: u64,
    pub(crate) processes: usize,
    pub(crate) elapsed_s: f64,
    pub(crate) predicted_s: Option<f64>,
    pub(crate) error_pct: Option<f64>,
    pub(crate) output_s: f64,
    pub(crate) predicted_output_s: Option<f64>,
    pub(crate) alpha0_s: Option<f64>,
    pub(crate) alpha1_s: Option<f64>,
    pub(crate) beta_s: Option<f64>,
    pub(crate) dilation: Option<f64>,
    pub(crate) late_waits: u64,
    pub(crate) waits: u64,
    pub(crate) wall_s: f64,
}

fn paper_grains(table: TableArg, n: usize) -> Vec<usize> {
    let from_paper: Vec<usize> = table
        .paper_table()
        .iter()
        .filter(|r| r.n == n)
        .map(|r| r.grain)
        .collect();
    if from_paper.is_empty() {
        (1..=n).filter(|g| n % g == 0).collect()
    } else {
        from_paper
    }
}

fn parse_list(arg: &str, list: &str) -> Result<Vec<usize>, UsageError> {
    split_list(arg, list)?
        .into_iter()
        .map(|s| match s.parse::<usize>() {
            Ok(v) if v >= 1 => Ok(v),
            _ => Err(UsageError(format!(
                "{arg}: '{s}' is not a whole number ≥ 1"
            ))),
        })
        .collect()
}

fn parse_cells(list: &str) -> Result<Vec<(usize, usize)>, UsageError> {
    split_list("--cells", list)?
        .into_iter()
        .map(|cell| {
            let parse = |s: &str| s.trim().parse::<usize>().ok().filter(|&v| v >= 1);
            cell.split_once(':')
                .and_then(|(n, g)| Some((parse(n)?, parse(g)?)))
                .ok_or_else(|| {
                    UsageError(format!(
                        "--cells: '{cell}' is not N:G with whole numbers ≥ 1 (e.g. 50:25)"
                    ))
                })
        })
        .collect()
}

fn parse_tables(list: &str) -> Result<Vec<TableArg>, UsageError> {
    split_list("--transforms", list)?
        .into_iter()
        .map(|s| match s {
            "m1" => Ok(TableArg::M1),
            "kk" => Ok(TableArg::Kk),
            other => Err(UsageError(format!(
                "--transforms: unknown transform '{other}' (m1, kk)"
            ))),
        })
        .collect()
}

/// Runs the grid.
pub(crate) fn sweep(args: &SweepOclArgs, out: &Path) -> Result<Vec<SweepOclRow>> {
    let tables = parse_tables(&args.transforms)?;
    let windows = parse_list("--windows", &args.windows)?;
    let given = args
        .grains
        .as_deref()
        .map(|g| parse_list("--grains", g))
        .transpose()?;
    let explicit = args.cells.as_deref().map(parse_cells).transpose()?;
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let mut cells = Vec::new();
    for &t in &tables {
        let pairs: Vec<(usize, usize, bool)> = match &explicit {
            Some(pairs) => pairs.iter().map(|&(n, g)| (n, g, true)).collect(),
            None => windows
                .iter()
                .flat_map(|&n| match &given {
                    Some(gs) => gs.iter().map(|&g| (n, g, true)).collect::<Vec<_>>(),
                    None => paper_grains(t, n)
                        .into_iter()
                        .map(|g| (n, g, false))
                        .collect(),
                })
                .collect(),
        };
        for (n, g, named) in pairs {
            let arg = if args.cells.is_some() {
                "--cells"
            } else {
                "--grains"
            };
            let grain = t
                .grain(n, g)
                .map_err(|e| UsageError(format!("{arg}: {e}")))?;
            // With native costs the default grid keeps the cells that fit on the cores.
            if named || args.machine.costs == CostsArg::Emulated || grain.processes() <= cores {
                cells.push((t, grain));
            }
        }
    }
    if let Some((_, g)) = cells.iter().find(|(_, g)| args.length % g.k() as u64 != 0) {
        eprintln!(
            "warning: --length {} is not a multiple of K = {}: the last packet is padded, and \
             §4.2's model (which `fit ocl` uses) takes L/K whole",
            args.length,
            g.k()
        );
    }
    if cells.is_empty() {
        return Err(UsageError(format!(
            "--costs native: no cell of the grid has at most {cores} processes (one per core); \
             name some with --cells N:G"
        ))
        .into());
    }
    let models = [
        model_costs(&args.machine, false)?,
        model_costs(&args.machine, true)?,
    ];
    let config = machine_config(&args.machine, out, false)?;
    let a = random_stream(args.length as usize, 0, 9, args.seed);
    let bar = progress(cells.len());
    let mut rows = Vec::with_capacity(cells.len());
    for (t, grain) in cells {
        bar.set_message(format!(
            "{} N = {} ({} processes)",
            label(grain),
            grain.n(),
            grain.processes()
        ));
        let model = models[usize::from(t == TableArg::Kk)];
        let mut run = run_grain(grain, &a, model, &args.machine, &config)?;
        for _ in 1..args.repeat {
            let again = run_grain(grain, &a, model, &args.machine, &config)?;
            if again.consumption_s < run.consumption_s {
                run = again;
            }
        }
        let r = report(grain, &run, model, &args.machine, None);
        let p = r.predicted.as_ref();
        rows.push(SweepOclRow {
            table: t,
            n: grain.n(),
            grain: match t {
                TableArg::M1 => grain.m(),
                TableArg::Kk => grain.k(),
            },
            l: run.l,
            processes: grain.processes(),
            elapsed_s: run.consumption_s,
            predicted_s: p.map(|p| p.consumption_s),
            error_pct: r.consumption_error_pct,
            output_s: run.output_s,
            predicted_output_s: p.map(|p| p.output_s),
            alpha0_s: p.map(|p| p.alpha0_s),
            alpha1_s: p.map(|p| p.alpha1_s),
            beta_s: p.map(|p| p.beta_s),
            dilation: run.report.fidelity.dilation,
            late_waits: run.report.fidelity.late_waits,
            waits: run.report.fidelity.waits,
            wall_s: run.report.wall_s(),
        });
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(rows)
}

fn opt(v: Option<f64>) -> String {
    v.map_or(String::new(), |v| v.to_string())
}

/// Writes one table's rows as CSV with the grain column named `m` or `k` (what `fit ocl`
/// reads back).
fn write_table_csv(path: &Path, table: TableArg, rows: &[&SweepOclRow]) -> Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "n",
        table.column(),
        "l",
        "elapsed_s",
        "predicted_s",
        "error_pct",
        "processes",
        "output_s",
        "predicted_output_s",
        "alpha0_s",
        "alpha1_s",
        "beta_s",
        "dilation",
        "wall_s",
    ])?;
    for r in rows {
        w.write_record([
            r.n.to_string(),
            r.grain.to_string(),
            r.l.to_string(),
            r.elapsed_s.to_string(),
            opt(r.predicted_s),
            opt(r.error_pct),
            r.processes.to_string(),
            r.output_s.to_string(),
            opt(r.predicted_output_s),
            opt(r.alpha0_s),
            opt(r.alpha1_s),
            opt(r.beta_s),
            r.dilation.map_or(String::new(), |d| d.to_string()),
            r.wall_s.to_string(),
        ])?;
    }
    write_atomic(path, &w.into_inner()?)
}

fn timing_rows(rows: &[&SweepOclRow]) -> Vec<TimingRow> {
    rows.iter()
        .map(|r| TimingRow::new(r.n, r.grain, r.l, r.elapsed_s))
        .collect()
}

/// The constants of a table: fitted (relative weighting), as a cost model.
fn fitted_costs(table: TableArg, rows: &[TimingRow]) -> Option<Costs> {
    match table {
        TableArg::M1 => fit::fit_m1(rows, Weighting::Relative)
            .ok()
            .map(|f| f.costs()),
        TableArg::Kk => fit::fit_kk(rows, Weighting::Relative)
            .ok()
            .map(|f| f.costs()),
    }
}

/// Time against grain, log–log: measured points per N, the model's curve over every divisor
/// of N (with the constants used, or those fitted to the table when costs are native).
fn plot_table(table: TableArg, rows: &[&SweepOclRow], costs: Option<Costs>) -> Result<String> {
    let mut series = Vec::new();
    let mut windows: Vec<usize> = rows.iter().map(|r| r.n).collect();
    windows.dedup();
    for n in windows {
        let rs: Vec<&&SweepOclRow> = rows.iter().filter(|r| r.n == n).collect();
        series.push(Series {
            name: format!("N = {n} measured"),
            points: rs.iter().map(|r| (r.grain as f64, r.elapsed_s)).collect(),
            style: Style::Points,
        });
        let (Some(c), Some(l)) = (costs, rs.first().map(|r| r.l)) else {
            continue;
        };
        let curve: Vec<(f64, f64)> = (1..=n)
            .filter(|g| n % g == 0)
            .filter_map(|g| table.grain(n, g).ok())
            .map(|grain| {
                let g = grain.m() as f64;
                (g, model::consumption_time_s(grain, c, l))
            })
            .collect();
        series.push(Series {
            name: format!("N = {n} model"),
            points: curve,
            style: Style::Dashed,
        });
    }
    let (what, symbol) = match table {
        TableArg::M1 => ("[M,1]-transformation (§4.1)", "M"),
        TableArg::Kk => ("[K,K]-transformation (§4.2)", "K"),
    };
    let chart = Chart {
        title: format!("Time to consume L inputs against grain, {what}"),
        x_label: format!("grain {symbol}"),
        y_label: "elapsed time (s)".into(),
        x_scale: Scale::Log10,
        y_scale: Scale::Log10,
        series,
    };
    chart.to_svg(960, 600)
}

fn print_sweep(rows: &[SweepOclRow]) {
    let mut t = table(&[
        "table",
        "N",
        "M or K",
        "L",
        "pr",
        "et measured",
        "et model",
        "error",
        "D",
        "wall",
    ]);
    for r in rows {
        t.add_row(vec![
            format!("{:?}", r.table).to_lowercase(),
            r.n.to_string(),
            r.grain.to_string(),
            r.l.to_string(),
            r.processes.to_string(),
            human_ns(r.elapsed_s * 1e9),
            r.predicted_s.map_or("—".into(), |p| human_ns(p * 1e9)),
            r.error_pct.map_or("—".into(), |e| format!("{e:+.4} %")),
            r.dilation.map_or(String::new(), |d| d.to_string()),
            format!("{:.2} s", r.wall_s),
        ]);
    }
    println!("{t}");
    let errors: Vec<f64> = rows.iter().filter_map(|r| r.error_pct).collect();
    if errors.is_empty() {
        println!(
            "{} cells (native costs, no model given: fit the CSVs with `fit ocl`)",
            rows.len()
        );
    } else {
        let worst = errors.iter().fold(0.0_f64, |m, e| m.max(e.abs()));
        println!(
            "{} cells; largest |error| against the model {worst:.4} %",
            rows.len()
        );
    }
}

/// `multicomputer sweep ocl`: runs, writes CSV (one per table), JSON and SVG, prints.
pub(crate) fn run_sweep(args: &SweepOclArgs, out: &Path) -> Result<()> {
    let rows = sweep(args, out)?;
    let mut written = Vec::new();
    for table in [TableArg::M1, TableArg::Kk] {
        let rs: Vec<&SweepOclRow> = rows.iter().filter(|r| r.table == table).collect();
        if rs.is_empty() {
            continue;
        }
        let tag = format!("{table:?}").to_lowercase();
        let csv = format!("{}-{tag}.csv", args.name);
        write_table_csv(&in_out(out, &csv), table, &rs)?;
        let costs = match model_costs(&args.machine, table == TableArg::Kk)? {
            Some(c) => Some(c),
            None => fitted_costs(table, &timing_rows(&rs)),
        };
        let svg = format!("{}-{tag}.svg", args.name);
        write_atomic(
            &in_out(out, &svg),
            plot_table(table, &rs, costs)?.as_bytes(),
        )?;
        written.push(csv);
        written.push(svg);
    }
    let json = format!("{}.json", args.name);
    write_json(&in_out(out, &json), &rows)?;
    written.push(json);
    if args.json {
        return print_json(&serde_json::json!({ "rows": rows }));
    }
    print_sweep(&rows);
    println!("written in {}: {}", out.display(), written.join(", "));
    Ok(())
}

/// `multicomputer fit ocl`.
#[derive(Debug, Args)]
pub(crate) struct FitOclArgs {
    /// Which model: m1 fits α, β (§4.1); kk fits α0, α1, β (§4.2).
    #[arg(long, value_enum)]
    pub(crate) transform: TableArg,
    /// The table: columns n, m (m1) or k (kk), l, and elapsed_s (or elapsed_ms); a `sweep ocl`
    /// CSV. Column names are matched ignoring case.
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "paper",
        conflicts_with = "paper"
    )]
    pub(crate) csv: Option<PathBuf>,
    /// Fit the paper's own published table (§4.1 or §4.2) instead of a CSV.
    #[arg(long)]
    pub(crate) paper: bool,
    /// Use only the rows run on more than one process (M or K < N). The paper's
    /// single-process rows deviate from its model by 2–5 %.
    #[arg(long)]
    pub(crate) multi_process: bool,
    /// Weighting: relative (w = 1/t², every run counts alike — the tables span two orders of
    /// magnitude) or unweighted (the longest runs decide).
    #[arg(long, value_enum, default_value_t = WeightingArg::Relative)]
    pub(crate) weighting: WeightingArg,
    /// Print one JSON object on stdout instead of a table.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Least-squares weighting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum WeightingArg {
    /// w = 1/t²: minimise relative errors.
    Relative,
    /// w = 1: minimise absolute errors.
    Unweighted,
}

/// One row of the fitted table with its residual.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Residual {
    pub(crate) n: usize,
    pub(crate) grain: usize,
    pub(crate) l: u64,
    pub(crate) elapsed_s: f64,
    pub(crate) predicted_s: f64,
    /// elapsed − predicted.
    pub(crate) residual_s: f64,
    /// (elapsed − predicted)/elapsed.
    pub(crate) relative: f64,
}

/// What `fit ocl --json` prints: the constants at the top level (`alpha_s`, `beta_s` for m1;
/// `alpha0_s`, `alpha1_s`, `beta_s`, `optimal_k` for kk), then the fit's details.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct OclFitReport {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) alpha_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) alpha0_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) alpha1_s: Option<f64>,
    pub(crate) beta_s: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) optimal_k: Option<f64>,
    /// Standard errors, in the order of the constants.
    pub(crate) std_errors_s: Vec<f64>,
    /// m1: 2α/β (§4.1 quotes 8.6), the M where computation equals communication.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) two_alpha_over_beta: Option<f64>,
    pub(crate) transform: TableArg,
    pub(crate) source: String,
    pub(crate) weighting: &'static str,
    pub(crate) rows: usize,
    /// Largest |relative residual| ("accuracy of more than 99 %" means < 0.01).
    pub(crate) max_relative_error: f64,
    pub(crate) rms_relative_error: f64,
    pub(crate) residuals: Vec<Residual>,
    /// The constants the table was made with (columns alpha0_s, alpha1_s, beta_s of an
    /// emulated sweep) or, with --paper, the published ones; α for m1 is α0 + α1.
    pub(crate) reference: Option<serde_json::Value>,
    /// (fitted − reference)/reference per constant, percent.
    pub(crate) error_pct: Option<serde_json::Value>,
}

/// Reads a timing table; missing columns name themselves.
fn read_table(path: &Path, table: TableArg) -> Result<(Vec<TimingRow>, Option<Costs>)> {
    let t = Columns::read(path)?;
    let pick = |names: &[&str]| -> Option<String> {
        names.iter().find(|n| t.has(n)).map(|n| (*n).to_string())
    };
    let col = |lower: &str| -> Result<Vec<f64>, UsageError> {
        let upper = lower.to_uppercase();
        let name = pick(&[lower, upper.as_str()]).unwrap_or_else(|| lower.to_string());
        t.numbers(&name)
    };
    let n = col("n")?;
    let g = col(table.column())?;
    let l = col("l")?;
    let elapsed = match pick(&["elapsed_s", "ELAPSED_S"]) {
        Some(c) => t.numbers(&c)?,
        None => match pick(&["elapsed_ms", "et_ms", "et"]) {
            Some(c) => t.numbers(&c)?.into_iter().map(|v| v / 1e3).collect(),
            None => t.numbers("elapsed_s")?,
        },
    };
    let whole = |v: f64, name: &str, i: usize| -> Result<u64, UsageError> {
        if v.is_finite() && v >= 1.0 && v.fract() == 0.0 {
            Ok(v as u64)
        } else {
            Err(UsageError(format!(
                "--csv {}: row {} column '{name}': {v} is not a whole number ≥ 1",
                path.display(),
                i + 2
            )))
        }
    };
    let mut rows = Vec::with_capacity(n.len());
    for i in 0..n.len() {
        rows.push(TimingRow::new(
            whole(n[i], "n", i)? as usize,
            whole(g[i], table.column(), i)? as usize,
            whole(l[i], "l", i)?,
            elapsed[i],
        ));
    }
    // The constants an emulated sweep was run with (empty for native runs: no reference).
    let mean = |c: &str| -> Option<f64> {
        let v = t.numbers(c).ok()?;
        Some(v.iter().sum::<f64>() / v.len() as f64)
    };
    let injected = match (mean("alpha0_s"), mean("alpha1_s"), mean("beta_s")) {
        (Some(alpha0_s), Some(alpha1_s), Some(beta_s)) => Some(Costs {
            alpha0_s,
            alpha1_s,
            beta_s,
        }),
        _ => None,
    };
    Ok((rows, injected))
}

fn residuals(rows: &[TimingRow], q: &fit::FitQuality) -> Vec<Residual> {
    rows.iter()
        .zip(&q.residuals_s)
        .zip(&q.relative_residuals)
        .map(|((r, &res), &rel)| Residual {
            n: r.n,
            grain: r.grain,
            l: r.l,
            elapsed_s: r.elapsed_s,
            predicted_s: r.elapsed_s - res,
            residual_s: res,
            relative: rel,
        })
        .collect()
}

fn pct_map(pairs: &[(&str, f64, f64)]) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    for &(name, fitted, reference) in pairs {
        m.insert(name.into(), serde_json::json!(pct(fitted, reference)));
    }
    serde_json::Value::Object(m)
}

/// Fits a table as `fit ocl` asks.
pub(crate) fn fit_table(args: &FitOclArgs) -> Result<OclFitReport> {
    let (mut rows, reference, source) = match (&args.csv, args.paper) {
        (Some(path), _) => {
            let (rows, injected) = read_table(path, args.transform)?;
            (rows, injected, path.display().to_string())
        }
        (None, _) => {
            let published = match args.transform {
                TableArg::M1 => Costs::single(PAPER_ALPHA_S, PAPER_BETA_M1_S),
                TableArg::Kk => Costs {
                    alpha0_s: PAPER_ALPHA0_S,
                    alpha1_s: PAPER_ALPHA1_S,
                    beta_s: PAPER_BETA_KK_S,
                },
            };
            let section = match args.transform {
                TableArg::M1 => "§4.1",
                TableArg::Kk => "§4.2",
            };
            (
                args.transform.paper_table().to_vec(),
                Some(published),
                format!("the paper's published table ({section})"),
            )
        }
    };
    if args.multi_process {
        rows = fit::multi_process_rows(&rows);
    }
    let weighting = match args.weighting {
        WeightingArg::Relative => Weighting::Relative,
        WeightingArg::Unweighted => Weighting::Unweighted,
    };
    let bad = |e: OclError| {
        UsageError(format!(
            "--csv {}: {e}",
            args.csv.as_deref().unwrap_or(Path::new("")).display()
        ))
    };
    let weighting_name = match args.weighting {
        WeightingArg::Relative => "relative (w = 1/t²)",
        WeightingArg::Unweighted => "unweighted",
    };
    Ok(match args.transform {
        TableArg::M1 => {
            let f: M1Fit = fit::fit_m1(&rows, weighting).map_err(bad)?;
            let reference_alpha = reference.map(|c| c.alpha0_s + c.alpha1_s);
            OclFitReport {
                alpha_s: Some(f.alpha_s),
                alpha0_s: None,
                alpha1_s: None,
                beta_s: f.beta_s,
                optimal_k: None,
                std_errors_s: vec![f.alpha_se_s, f.beta_se_s],
                two_alpha_over_beta: Some(f.two_alpha_over_beta),
                transform: args.transform,
                source,
                weighting: weighting_name,
                rows: rows.len(),
                max_relative_error: f.quality.max_relative_error,
                rms_relative_error: f.quality.rms_relative_error,
                residuals: residuals(&rows, &f.quality),
                reference: reference.map(
                    |c| serde_json::json!({"alpha_s": c.alpha0_s + c.alpha1_s, "beta_s": c.beta_s}),
                ),
                error_pct: reference.zip(reference_alpha).map(|(c, a)| {
                    pct_map(&[("alpha_s", f.alpha_s, a), ("beta_s", f.beta_s, c.beta_s)])
                }),
            }
        }
        TableArg::Kk => {
            let f: KkFit = fit::fit_kk(&rows, weighting).map_err(bad)?;
            OclFitReport {
                alpha_s: None,
                alpha0_s: Some(f.alpha0_s),
                alpha1_s: Some(f.alpha1_s),
                beta_s: f.beta_s,
                optimal_k: Some(f.optimal_k),
                std_errors_s: vec![f.alpha0_se_s, f.alpha1_se_s, f.beta_se_s],
                two_alpha_over_beta: None,
                transform: args.transform,
                source,
                weighting: weighting_name,
                rows: rows.len(),
                max_relative_error: f.quality.max_relative_error,
                rms_relative_error: f.quality.rms_relative_error,
                residuals: residuals(&rows, &f.quality),
                reference: reference.map(|c| {
                    serde_json::json!({
                        "alpha0_s": c.alpha0_s, "alpha1_s": c.alpha1_s, "beta_s": c.beta_s,
                        "optimal_k": model::optimal_packet_size(c)
                    })
                }),
                error_pct: reference.map(|c| {
                    pct_map(&[
                        ("alpha0_s", f.alpha0_s, c.alpha0_s),
                        ("alpha1_s", f.alpha1_s, c.alpha1_s),
                        ("beta_s", f.beta_s, c.beta_s),
                    ])
                }),
            }
        }
    })
}

/// `multicomputer fit ocl`.
pub(crate) fn run_fit(args: &FitOclArgs) -> Result<()> {
    let r = fit_table(args)?;
    if args.json {
        return print_json(&r);
    }
    let mut t = table(&["constant", "fitted", "± std. error", "reference", "error"]);
    let names: Vec<(&str, f64, &str)> = match args.transform {
        TableArg::M1 => vec![
            ("α", r.alpha_s.unwrap_or(f64::NAN), "alpha_s"),
            ("β", r.beta_s, "beta_s"),
        ],
        TableArg::Kk => vec![
            ("α0", r.alpha0_s.unwrap_or(f64::NAN), "alpha0_s"),
            ("α1", r.alpha1_s.unwrap_or(f64::NAN), "alpha1_s"),
            ("β", r.beta_s, "beta_s"),
        ],
    };
    for (i, (name, v, key)) in names.iter().enumerate() {
        let reference = r
            .reference
            .as_ref()
            .and_then(|c| c.get(key))
            .and_then(serde_json::Value::as_f64);
        let err = r
            .error_pct
            .as_ref()
            .and_then(|c| c.get(key))
            .and_then(serde_json::Value::as_f64);
        t.add_row(vec![
            (*name).to_string(),
            human_ns(v * 1e9),
            human_ns(r.std_errors_s[i] * 1e9),
            reference.map_or("—".into(), |x| human_ns(x * 1e9)),
            err.map_or("—".into(), |e| format!("{e:+.2} %")),
        ]);
    }
    println!("fit of {} ({} rows, {})", r.source, r.rows, r.weighting);
    println!("{t}");
    let mut res = table(&["N", "M or K", "L", "elapsed", "model", "residual"]);
    for x in &r.residuals {
        res.add_row(vec![
            x.n.to_string(),
            x.grain.to_string(),
            x.l.to_string(),
            human_ns(x.elapsed_s * 1e9),
            human_ns(x.predicted_s * 1e9),
            format!("{:+.3} %", 100.0 * x.relative),
        ]);
    }
    println!("{res}");
    println!(
        "largest |relative residual| {:.3} % (accuracy {:.2} %), rms {:.3} %",
        100.0 * r.max_relative_error,
        100.0 * (1.0 - r.max_relative_error),
        100.0 * r.rms_relative_error
    );
    match (r.two_alpha_over_beta, r.optimal_k) {
        (Some(x), _) => println!(
            "implied grain: 2α/β = {x:.2} — communication overhead 2α/(Mβ) < 1 (efficiency > ½) \
             for M > {x:.1}"
        ),
        (_, Some(k)) => println!("implied grain: optimal packet size K = √(2α0/β) = {k:.2}"),
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transforms_parse_and_bad_ones_name_the_argument() {
        assert_eq!(parse_transform("fine", 7).unwrap(), Grain::fine(7).unwrap());
        assert_eq!(
            parse_transform("m1:5", 50).unwrap(),
            Grain::m1(50, 5).unwrap()
        );
        assert_eq!(
            parse_transform("kk:5", 50).unwrap(),
            Grain::kk(50, 5).unwrap()
        );
        assert_eq!(
            parse_transform("mk:10,5", 50).unwrap(),
            Grain::new(50, 10, 5).unwrap()
        );
        for (spec, n, needle) in [
            ("kk:3", 10, "does not divide window length N = 10"),
            ("mk:6,4", 12, "does not divide cell size M = 6"),
            ("ring:2", 10, "unknown transform"),
            ("m1:x", 10, "not a whole number"),
            ("mk:4", 12, "two numbers"),
        ] {
            let e = parse_transform(spec, n).unwrap_err().0;
            assert!(e.starts_with("--transform") && e.contains(needle), "{e}");
        }
        assert!(
            parse_transform("fine", 0)
                .unwrap_err()
                .0
                .starts_with("--window")
        );
    }

    #[test]
    fn paper_grid_is_the_papers_tables() {
        assert_eq!(paper_grains(TableArg::M1, 50), vec![1, 2, 5, 10, 25, 50]);
        assert_eq!(
            paper_grains(TableArg::Kk, 500),
            vec![10, 20, 25, 50, 100, 250, 500]
        );
        assert_eq!(paper_grains(TableArg::M1, 6), vec![1, 2, 3, 6]);
    }
}
