//! `multicomputer dnc` and `predict dnc`: divide and conquer measured beside its model.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use clap::{Args, ValueEnum};
use multicomputer_runtime::{Topology, TopologyKind, thread_cpu_time};
use multicomputer_workloads::dnc::{
    self, DncLevelCosts, DncModel, DncSpec, Prediction, Splitting, even_split_levels,
};
use serde::Serialize;

use crate::UsageError;
use crate::cli::{MachineArgs, parse_duration};
use crate::commands::farm::{Comparison, EngineArgs, Measured, engine_config, steady_rate};
use crate::config;
use crate::output::{human_ns, print_json, table};

/// How tasks are split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize)]
pub(crate) enum SplitArg {
    /// k equal parts.
    Equal,
    /// Random parts (the paper's robustness test).
    Random,
}

/// What the tasks are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize)]
pub(crate) enum DncKernelArg {
    /// Emulated split, execute and join times.
    Synthetic,
    /// Real mergesort of --keys random integers per task, checked against the sequential sort.
    Mergesort,
}

/// The divide-and-conquer tasks.
#[derive(Debug, Clone, Args)]
pub(crate) struct DncWorkArgs {
    /// M, the number of tasks.
    #[arg(long, short = 'm', default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) tasks: u64,
    /// T_e(N): sequential time of a whole task; level i executes its k^{N−i}-th part.
    #[arg(long, value_parser = parse_duration, default_value = "8ms", value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) te: Duration,
    /// T_s(N): time to split a whole task (level i: its k^{N−i}-th part).
    #[arg(long, value_parser = parse_duration, default_value = "200us", value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) ts: Duration,
    /// T_j(N): time to join a whole task's results (level i: its k^{N−i}-th part).
    #[arg(long, value_parser = parse_duration, default_value = "200us", value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) tj: Duration,
    /// Equal or random splits.
    #[arg(long, value_enum, default_value_t = SplitArg::Equal)]
    pub(crate) split: SplitArg,
    /// Synthetic costs or real mergesort.
    #[arg(long, value_enum, default_value_t = DncKernelArg::Synthetic)]
    pub(crate) kernel: DncKernelArg,
    /// Keys per task for mergesort.
    #[arg(long, default_value_t = 50_000, value_parser = clap::value_parser!(u64).range(2..))]
    pub(crate) keys: u64,
    /// Bytes of a whole task in a message (subtasks carry their share).
    #[arg(long, default_value_t = 1024)]
    pub(crate) task_bytes: u64,
    /// Seed of random splits and of mergesort's keys.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
}

/// `multicomputer dnc`.
#[derive(Debug, Clone, Args)]
pub(crate) struct DncArgs {
    #[command(flatten)]
    pub(crate) machine: MachineArgs,
    #[command(flatten)]
    pub(crate) engine: EngineArgs,
    #[command(flatten)]
    pub(crate) work: DncWorkArgs,
    /// Print one JSON object on stdout instead of tables.
    #[arg(long)]
    pub(crate) json: bool,
}

/// `multicomputer predict dnc`.
#[derive(Debug, Clone, Args)]
pub(crate) struct PredictDncArgs {
    #[command(flatten)]
    pub(crate) machine: MachineArgs,
    #[command(flatten)]
    pub(crate) engine: EngineArgs,
    #[command(flatten)]
    pub(crate) work: DncWorkArgs,
    /// Print the prediction as one JSON object.
    #[arg(long)]
    pub(crate) json: bool,
}

fn arity_and_levels(t: &Topology) -> Result<(u32, u32), UsageError> {
    match t.kind() {
        TopologyKind::Tree { arity, levels } => Ok((*arity as u32, *levels)),
        TopologyKind::Chain { processors } | TopologyKind::Array { processors } => {
            Ok((1, *processors as u32))
        }
        TopologyKind::Parents => Err(UsageError(
            "--topology: divide and conquer needs a balanced tree (tree:K:LEVELS) or a chain"
                .into(),
        )),
    }
}

/// The model's per-level costs and the whole model for these arguments.
pub(crate) fn model(
    machine: &MachineArgs,
    engine: &EngineArgs,
    work: &DncWorkArgs,
) -> Result<DncModel, UsageError> {
    let (k, levels) = arity_and_levels(&machine.topology)?;
    let whole = DncLevelCosts {
        te_s: work.te.as_secs_f64(),
        ts_s: work.ts.as_secs_f64(),
        tj_s: work.tj.as_secs_f64(),
        tau_s: config::transfer_s(machine, work.task_bytes),
    };
    let levels = even_split_levels(k, levels, whole).map_err(|e| UsageError(e.to_string()))?;
    Ok(DncModel {
        levels,
        beta_e_s: engine.beta_e.as_secs_f64(),
        beta_f_s: engine.beta_f.as_secs_f64(),
        tasks_m: work.tasks,
        sequential_task_s: None,
    })
}

fn predict_model(m: &DncModel) -> Result<Prediction, UsageError> {
    m.predict().map_err(|e| UsageError(e.to_string()))
}

/// Runs divide and conquer and compares it with the model.
pub(crate) fn compare(args: &DncArgs, out: &Path) -> Result<Comparison> {
    if args.engine.guided {
        return Err(UsageError("--guided: model-guided flow control is for farms".into()).into());
    }
    let model = model(&args.machine, &args.engine, &args.work)?;
    let real = args.work.kernel == DncKernelArg::Mergesort;
    let first_guess = predict_model(&model)?;
    let (k, _) = arity_and_levels(&args.machine.topology)?;
    let n = model.levels.len();
    let leaf = model.levels[0];
    let machine = config::machine_for_engine(
        &args.machine,
        out,
        args.engine.queue as usize,
        if real { 1.0 } else { 0.0 },
        config::smallest_nonzero(&[
            if real {
                Duration::ZERO
            } else {
                Duration::from_secs_f64(leaf.te_s)
            },
            Duration::from_secs_f64(model.levels[n.min(2) - 1].ts_s),
            args.engine.beta_e,
            args.engine.beta_f,
        ]),
        config::engine_events_per_s(
            first_guess.throughput_per_s,
            &first_guess.fractions_by_level,
            |i| f64::from(k).powi((n - 1 - i) as i32),
        ),
    )?;
    let engine = engine_config(&args.engine, None);
    let (run, sequential_s, model) = if real {
        let lists = keys(&args.work);
        let before = thread_cpu_time();
        let expected: Vec<Vec<i64>> = lists
            .iter()
            .map(|l| {
                let mut s = l.clone();
                s.sort_unstable();
                s
            })
            .collect();
        let sequential_s = thread_cpu_time().saturating_sub(before).as_secs_f64();
        let run = dnc::run_mergesort(&machine, lists, 2, &engine)?;
        anyhow::ensure!(
            run.engine.outputs.iter().map(|k| &k.0).eq(expected.iter()),
            "mergesort's output differs from the sequential sort"
        );
        // The model with the measured sequential time of a task as T_e(N); split and join
        // costs of a real mergesort are not known in advance and are taken as zero.
        let mut m = model;
        let (k, n) = arity_and_levels(&args.machine.topology)?;
        let whole = DncLevelCosts {
            te_s: sequential_s / args.work.tasks as f64,
            ts_s: 0.0,
            tj_s: 0.0,
            tau_s: m.levels[m.levels.len() - 1].tau_s,
        };
        m.levels = even_split_levels(k, n, whole).map_err(|e| UsageError(e.to_string()))?;
        (run.engine.map_outputs(), sequential_s, m)
    } else {
        let spec = DncSpec {
            tasks: args.work.tasks as usize,
            te: model
                .levels
                .iter()
                .map(|l| Duration::from_secs_f64(l.te_s))
                .collect(),
            ts: model
                .levels
                .iter()
                .map(|l| Duration::from_secs_f64(l.ts_s))
                .collect(),
            tj: model
                .levels
                .iter()
                .map(|l| Duration::from_secs_f64(l.tj_s))
                .collect(),
            splitting: match args.work.split {
                SplitArg::Equal => Splitting::Equal,
                SplitArg::Random => Splitting::Random {
                    seed: args.work.seed,
                },
            },
            task_bytes: args.work.task_bytes,
            result_bytes: 8,
        };
        let run = dnc::run_synthetic(&machine, &spec, &engine)?;
        (
            run.engine.map_outputs(),
            args.work.tasks as f64 * args.work.te.as_secs_f64(),
            model,
        )
    };
    let predicted = predict_model(&model)?;
    config::write_trace_files(&args.machine, run.trace.as_ref(), machine.topology().len())?;
    let times = &run.result_times;
    let span = times
        .last()
        .copied()
        .unwrap_or_default()
        .saturating_sub(times[0])
        .as_secs_f64();
    let measured = Measured {
        throughput_per_s: if times.len() > 1 && span > 0.0 {
            (times.len() - 1) as f64 / span
        } else {
            f64::NAN
        },
        steady_throughput_per_s: steady_rate(times, 1.0),
        speedup: sequential_s / run.report.makespan_s,
        makespan_s: run.report.makespan_s,
        fractions_by_level: run.fractions_by_level(machine.topology()),
        startup_s: times[0].as_secs_f64(),
    };
    Ok(Comparison::new(
        &machine,
        measured,
        predicted,
        run.report.fidelity.clone(),
        run.report.wall_s(),
    ))
}

fn keys(work: &DncWorkArgs) -> Vec<Vec<i64>> {
    // SplitMix-style integer hash: reproducible keys with repeats and negatives.
    let mut x = work.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (0..work.tasks)
        .map(|_| {
            (0..work.keys)
                .map(|_| {
                    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
                    let mut z = x;
                    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                    (z ^ (z >> 31)) as i64 % 1_000_000
                })
                .collect()
        })
        .collect()
}

pub(crate) fn run(args: &DncArgs, out: &Path) -> Result<()> {
    let c = compare(args, out)?;
    if args.json {
        print_json(&c)
    } else {
        c.print();
        Ok(())
    }
}

pub(crate) fn predict(args: &PredictDncArgs) -> Result<()> {
    let p = predict_model(&model(&args.machine, &args.engine, &args.work)?)?;
    if args.json {
        return print_json(&p);
    }
    let mut t = table(&["quantity", "predicted"]);
    t.add_row(vec![
        "throughput (tasks/s)".into(),
        format!("{:.2}", p.throughput_per_s),
    ]);
    t.add_row(vec!["speedup".into(), format!("{:.3}", p.speedup)]);
    t.add_row(vec!["makespan".into(), human_ns(p.makespan_s * 1e9)]);
    t.add_row(vec!["start-up".into(), human_ns(p.startup_s * 1e9)]);
    for (i, f) in p.fractions_by_level.iter().enumerate() {
        t.add_row(vec![format!("f_{}", i + 1), format!("{f:.4}")]);
    }
    t.add_row(vec!["bound".into(), format!("{:?}", p.bound)]);
    println!("{t}");
    Ok(())
}
