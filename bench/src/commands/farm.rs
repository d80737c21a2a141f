//! `multicomputer farm` and `predict farm`: a processor farm measured beside its model.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use clap::{Args, ValueEnum};
use multicomputer_runtime::{Fidelity, Machine, Topology, TopologyKind, thread_cpu_time};
use multicomputer_workloads::farm::{
    self, FarmModel, FarmSpec, FarmTopology, Kernel, Prediction, ProcessorCosts, TaskTimes,
    TreeShape, flood_fill_tree,
};
use multicomputer_workloads::tree::EngineConfig;
use serde::Serialize;

use crate::UsageError;
use crate::cli::{MachineArgs, parse_duration};
use crate::config;
use crate::output::{human_ns, print_json, table, write_atomic};
use crate::plot::{Chart, Scale, Series, Style};

/// Distribution of synthetic task times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize)]
pub(crate) enum TimesArg {
    /// Every task takes T_e.
    Constant,
    /// Uniform on [0, 2 T_e].
    Uniform,
    /// Exponential with mean T_e.
    Exponential,
}

impl From<TimesArg> for TaskTimes {
    fn from(t: TimesArg) -> Self {
        match t {
            TimesArg::Constant => TaskTimes::Constant,
            TimesArg::Uniform => TaskTimes::Uniform,
            TimesArg::Exponential => TaskTimes::Exponential,
        }
    }
}

/// What the tasks compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize)]
pub(crate) enum KernelArg {
    /// Emulated work of T_e per task.
    Synthetic,
    /// Real work: count the primes in --grain integers per task (charged by CPU time).
    Primes,
}

/// The engine's overheads and flow control, shared by farm and dnc.
#[derive(Debug, Clone, Args)]
pub(crate) struct EngineArgs {
    /// β_e: start-up overhead per locally executed task (message), e.g. 50us.
    #[arg(long, value_parser = parse_duration, default_value = "50us", value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) beta_e: Duration,
    /// β_f: start-up overhead per forwarded (split) task, e.g. 100us.
    #[arg(long, value_parser = parse_duration, default_value = "100us", value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) beta_f: Duration,
    /// Queue of unprocessed tasks per processor (flood fill); the paper used 1–2.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) queue: u64,
    /// Model-guided flow control (for small M): processor i forwards no more than the model's
    /// share of its subtree, F_{i−1}·M.
    #[arg(long)]
    pub(crate) guided: bool,
}

/// `multicomputer farm`.
#[derive(Debug, Clone, Args)]
pub(crate) struct FarmArgs {
    #[command(flatten)]
    pub(crate) machine: MachineArgs,
    #[command(flatten)]
    pub(crate) engine: EngineArgs,
    #[command(flatten)]
    pub(crate) work: FarmWorkArgs,
    /// Print one JSON object on stdout instead of tables.
    #[arg(long)]
    pub(crate) json: bool,
}

/// The farm's tasks.
#[derive(Debug, Clone, Args)]
pub(crate) struct FarmWorkArgs {
    /// M, the number of tasks.
    #[arg(long, short = 'm', default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) tasks: u64,
    /// T_e, the (mean) execution time of a task.
    #[arg(long, value_parser = parse_duration, default_value = "1ms", value_name = "DURATION", allow_hyphen_values = true)]
    pub(crate) te: Duration,
    /// Distribution of task times around T_e (synthetic kernel).
    #[arg(long, value_enum, default_value_t = TimesArg::Constant)]
    pub(crate) times: TimesArg,
    /// What tasks compute.
    #[arg(long, value_enum, default_value_t = KernelArg::Synthetic)]
    pub(crate) kernel: KernelArg,
    /// Integers examined per task by the prime kernel (its grain).
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) grain: u64,
    /// g, tasks packed into one message.
    #[arg(long, short = 'g', default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) granularity: u32,
    /// Bytes of one task in a message (its transfer time is bytes × --per-byte).
    #[arg(long, default_value_t = 64)]
    pub(crate) task_bytes: u64,
    /// Bytes of one task's result.
    #[arg(long, default_value_t = 8)]
    pub(crate) result_bytes: u64,
    /// Seed of the task-time draws.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
}

/// Measured quantities, with the same keys as the prediction.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Measured {
    /// (results − 1) / (last result − first result), tasks/s: the rate of (g).
    pub(crate) throughput_per_s: f64,
    /// Rate over the middle half of the results (steady state, no start-up or wind-down),
    /// tasks/s: the quantity β_e and β_f are fitted to.
    pub(crate) steady_throughput_per_s: f64,
    pub(crate) speedup: f64,
    pub(crate) makespan_s: f64,
    pub(crate) fractions_by_level: Vec<f64>,
    pub(crate) startup_s: f64,
}

/// Relative errors of measured against predicted, in percent.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Errors {
    pub(crate) speedup: f64,
    pub(crate) throughput: f64,
    pub(crate) makespan: f64,
    /// Per level: (measured − predicted) fraction, in percent of M.
    pub(crate) fractions_of_m: Vec<f64>,
}

/// What `farm --json` (and `dnc --json`) prints.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Comparison {
    pub(crate) topology: String,
    pub(crate) processors: usize,
    pub(crate) measured: Measured,
    pub(crate) predicted: Prediction,
    /// Speedup error, percent.
    pub(crate) error_pct: f64,
    pub(crate) errors_pct: Errors,
    pub(crate) fidelity: Fidelity,
    /// `native`, `dilated` or `virtual`.
    pub(crate) mode: &'static str,
    /// D (none in virtual time).
    pub(crate) dilation: Option<f64>,
    /// How real work was charged.
    pub(crate) compute: &'static str,
    /// How the machine kept time, for people.
    #[serde(skip)]
    pub(crate) mode_line: String,
    pub(crate) wall_s: f64,
    /// The drain at the end that (g) leaves out (farms with random task times).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) drain: Option<Drain>,
}

/// The end of a farm with random task times (`farm::drain_s`): what (g) leaves out.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Drain {
    /// Processors that execute tasks (those that only forward hold none at the end).
    pub(crate) busy_processors: u64,
    /// Expected excess of the makespan over (g): `E[max_i R_i] − E[R]`.
    pub(crate) drain_s: f64,
    /// The speedup error against (g) of a run that has nothing but this drain, in percent (≤ 0).
    pub(crate) speedup_error_floor_pct: f64,
    /// The flood-fill protocol's own drain, sampled (`farm::flood_fill_drain`): random times,
    /// flood fill without model guidance.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) flood_fill: Option<FloodFillDrain>,
}

/// The flood-fill protocol's drain and the speedup error it implies against (g).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FloodFillDrain {
    /// Expected drain.
    pub(crate) drain_s: f64,
    /// Standard deviation of a single run's drain.
    pub(crate) drain_sd_s: f64,
    /// Expected speedup error against (g), percent.
    pub(crate) error_pct: f64,
    /// Standard deviation of a single run's speedup error, percent (to first order).
    pub(crate) error_sd_pct: f64,
    /// Samples behind the estimate (its standard error is `drain_sd_s/√samples`).
    pub(crate) samples: u32,
    /// Speedup predicted by (g) plus this drain: `M T_e / (T + drain)`.
    pub(crate) speedup: f64,
}

/// Samples for the flood-fill drain: 4000 (a standard error near 1.6 % of a run's scatter)
/// where the machine is small, fewer on deep machines, where each sample costs about
/// `slots × depth` steps, down to 200.
fn drain_samples(topology: &Topology) -> u32 {
    const BUDGET_STEPS: f64 = 2e8;
    let slots = 2 * topology.len();
    // The root's level is the longest path's length in processors.
    let path = topology.levels() as usize;
    (BUDGET_STEPS / (slots * path) as f64).clamp(200.0, 4000.0) as u32
}

impl Drain {
    /// The drain of a farm on `topology` predicted by `predicted`, with task times `times`.
    pub(crate) fn new(
        topology: &Topology,
        predicted: &Prediction,
        times: TaskTimes,
        te_s: f64,
        engine: &EngineArgs,
    ) -> Result<Self, farm::ModelError> {
        // A processor executes unless its level only forwards (f_i = 0, a saturated level);
        // one that only forwards holds no task in progress at the end.
        let executes: Vec<bool> = (0..topology.len())
            .map(|i| predicted.fractions_by_level[topology.level(i) as usize - 1] > 1e-9)
            .collect();
        let busy_processors = (executes.iter().filter(|&&e| e).count() as u64).max(1);
        let drain_s = farm::drain_s(times, busy_processors, te_s)?;
        let flood_fill = if times != TaskTimes::Constant && !engine.guided {
            let d = farm::flood_fill_drain(
                topology.parents(),
                &executes,
                engine.queue,
                times,
                te_s,
                drain_samples(topology),
                1,
            )?;
            let t = predicted.makespan_s;
            // Error e(d) = 100 (T/(T + d) − 1); its slope 100 T/(T + d)² carries the scatter.
            let mean = d.mean_s.max(0.0);
            Some(FloodFillDrain {
                drain_s: d.mean_s,
                drain_sd_s: d.sd_s,
                error_pct: farm::speedup_error_with_drain_pct(t, mean)?,
                error_sd_pct: 100.0 * t / (t + mean).powi(2) * d.sd_s,
                samples: d.samples,
                speedup: predicted.speedup * t / (t + mean),
            })
        } else {
            None
        };
        Ok(Self {
            busy_processors,
            drain_s,
            speedup_error_floor_pct: farm::speedup_error_with_drain_pct(
                predicted.makespan_s,
                drain_s,
            )?,
            flood_fill,
        })
    }

    /// Table rows `(quantity, predicted, speedup error)` for people: the floor and, for flood
    /// fill, the protocol's drain; none for constant times.
    fn rows(&self) -> Vec<[String; 3]> {
        let mut rows = Vec::new();
        if self.drain_s > 0.0 {
            rows.push([
                "drain at the end (not in (g))".into(),
                human_ns(self.drain_s * 1e9),
                format!("{:+.2} % at best", self.speedup_error_floor_pct),
            ]);
        }
        if let Some(f) = &self.flood_fill {
            rows.push([
                "flood-fill drain".into(),
                format!(
                    "{} ± {}",
                    human_ns(f.drain_s * 1e9),
                    human_ns(f.drain_sd_s * 1e9)
                ),
                format!("{:+.2} ± {:.2} % expected", f.error_pct, f.error_sd_pct),
            ]);
        }
        rows
    }
}

fn pct(measured: f64, predicted: f64) -> f64 {
    100.0 * (measured - predicted) / predicted
}

impl Comparison {
    pub(crate) fn new(
        machine: &Machine,
        measured: Measured,
        predicted: Prediction,
        fidelity: Fidelity,
        wall_s: f64,
    ) -> Self {
        let errors_pct = Errors {
            speedup: pct(measured.speedup, predicted.speedup),
            throughput: pct(measured.throughput_per_s, predicted.throughput_per_s),
            makespan: pct(measured.makespan_s, predicted.makespan_s),
            fractions_of_m: measured
                .fractions_by_level
                .iter()
                .zip(&predicted.fractions_by_level)
                .map(|(m, p)| 100.0 * (m - p))
                .collect(),
        };
        Self {
            topology: machine.topology().to_string(),
            processors: machine.topology().len(),
            error_pct: errors_pct.speedup,
            errors_pct,
            measured,
            predicted,
            fidelity,
            mode: machine.mode(),
            dilation: machine.dilation(),
            compute: machine.compute_charge().name(),
            mode_line: crate::output::machine_line(machine),
            wall_s,
            drain: None,
        }
    }

    /// Prints the comparison for people.
    pub(crate) fn print(&self) {
        let m = &self.measured;
        let p = &self.predicted;
        println!(
            "{} ({} processors), {}, wall {:.2} s",
            self.topology, self.processors, self.mode_line, self.wall_s
        );
        let mut t = table(&["quantity", "measured", "predicted", "error"]);
        t.add_row(vec![
            "throughput (tasks/s)".into(),
            format!("{:.1}", m.throughput_per_s),
            format!("{:.1}", p.throughput_per_s),
            format!("{:+.2} %", self.errors_pct.throughput),
        ]);
        t.add_row(vec![
            "speedup".into(),
            format!("{:.3}", m.speedup),
            format!("{:.3}", p.speedup),
            format!("{:+.2} %", self.errors_pct.speedup),
        ]);
        t.add_row(vec![
            "makespan".into(),
            human_ns(m.makespan_s * 1e9),
            human_ns(p.makespan_s * 1e9),
            format!("{:+.2} %", self.errors_pct.makespan),
        ]);
        t.add_row(vec![
            "start-up (first result)".into(),
            human_ns(m.startup_s * 1e9),
            human_ns(p.startup_s * 1e9),
            String::new(),
        ]);
        for (i, (fm, fp)) in m
            .fractions_by_level
            .iter()
            .zip(&p.fractions_by_level)
            .enumerate()
        {
            t.add_row(vec![
                format!("f_{} (level {})", i + 1, i + 1),
                format!("{fm:.4}"),
                format!("{fp:.4}"),
                format!("{:+.2} % of M", 100.0 * (fm - fp)),
            ]);
        }
        if let Some(d) = &self.drain {
            for [quantity, predicted, error] in d.rows() {
                t.add_row(vec![quantity, String::new(), predicted, error]);
            }
            if let Some(f) = &d.flood_fill {
                t.add_row(vec![
                    "speedup, (g) + drain".into(),
                    format!("{:.3}", m.speedup),
                    format!("{:.3}", f.speedup),
                    format!("{:+.2} %", pct(m.speedup, f.speedup)),
                ]);
            }
        }
        println!("{t}");
        println!("throughput bound: {:?}", p.bound);
        if let Some(w) = &self.fidelity.warning {
            eprintln!("warning: {w}");
        }
    }
}

/// Results per second over the middle half of the result times, times `g` tasks per result.
pub(crate) fn steady_rate(times: &[Duration], g: f64) -> f64 {
    let (a, b) = (times.len() / 4, 3 * times.len() / 4);
    if b <= a || b >= times.len() {
        return f64::NAN;
    }
    let span = times[b].saturating_sub(times[a]).as_secs_f64();
    if span > 0.0 {
        (b - a) as f64 * g / span
    } else {
        f64::NAN
    }
}

/// The model's topology for a machine topology.
pub(crate) fn model_topology(topology: &Topology) -> FarmTopology {
    match topology.kind() {
        TopologyKind::Chain { processors } | TopologyKind::Array { processors } => {
            FarmTopology::Tree(TreeShape {
                k: 1,
                levels: *processors as u32,
            })
        }
        TopologyKind::Tree { arity, levels } => FarmTopology::Tree(TreeShape {
            k: *arity as u32,
            levels: *levels,
        }),
        TopologyKind::Parents => FarmTopology::Parents {
            parents: topology.parents().to_vec(),
            processor_te_s: None,
        },
    }
}

/// The model for these arguments.
pub(crate) fn model(
    topology: &Topology,
    machine: &MachineArgs,
    engine: &EngineArgs,
    work: &FarmWorkArgs,
) -> FarmModel {
    FarmModel {
        topology: model_topology(topology),
        te_s: work.te.as_secs_f64(),
        beta_e_s: engine.beta_e.as_secs_f64(),
        beta_f_s: engine.beta_f.as_secs_f64(),
        tau_s: config::transfer_s(machine, work.task_bytes),
        tasks_m: work.tasks,
        granularity: work.granularity,
    }
}

/// Per-processor split limits from the model (model-guided flow control), in messages.
pub(crate) fn guided_limits(
    topology: &Topology,
    model: &FarmModel,
) -> Result<Vec<u64>, UsageError> {
    let costs =
        vec![ProcessorCosts::farm(model.te_s * f64::from(model.granularity)); topology.len()];
    let solution = flood_fill_tree(topology.parents(), &costs, model.beta_e_s, model.beta_f_s)
        .map_err(|e| UsageError(format!("--guided: {e}")))?;
    let messages = model.messages() as f64;
    // Each processor forwards what its descendants execute.
    let mut subtree = solution.fractions.clone();
    let order = bfs_order(topology);
    for &v in order.iter().rev() {
        if let Some(p) = topology.parent(v) {
            subtree[p] += subtree[v];
        }
    }
    Ok((0..topology.len())
        .map(|v| ((subtree[v] - solution.fractions[v]).max(0.0) * messages).round() as u64)
        .collect())
}

fn bfs_order(topology: &Topology) -> Vec<usize> {
    let mut order = vec![topology.root()];
    let mut i = 0;
    while i < order.len() {
        order.extend_from_slice(topology.children(order[i]));
        i += 1;
    }
    order
}

/// The engine configuration for these arguments.
pub(crate) fn engine_config(engine: &EngineArgs, limits: Option<Vec<u64>>) -> EngineConfig {
    EngineConfig {
        beta_e: engine.beta_e,
        beta_f: engine.beta_f,
        queue: engine.queue as usize,
        split_limits: limits,
    }
}

/// Runs one farm and compares it with the model.
pub(crate) fn compare(args: &FarmArgs, out: &Path) -> Result<Comparison> {
    let work = &args.work;
    let model = model(&args.machine.topology, &args.machine, &args.engine, work);
    let predicted = model.predict().map_err(|e| UsageError(e.to_string()))?;
    let real = work.kernel == KernelArg::Primes;
    let machine = config::machine_for_engine(
        &args.machine,
        out,
        args.engine.queue as usize,
        if real { 1.0 } else { 0.0 },
        config::smallest_nonzero(&[
            if real {
                Duration::ZERO
            } else {
                work.te * work.granularity
            },
            args.engine.beta_e,
            args.engine.beta_f,
        ]),
        config::engine_events_per_s(
            predicted.throughput_per_s / f64::from(work.granularity),
            &predicted.fractions_by_level,
            |_| 1.0,
        ),
    )?;
    let limits = if args.engine.guided {
        Some(guided_limits(machine.topology(), &model)?)
    } else {
        None
    };
    let task_times = TaskTimes::from(work.times);
    let spec = FarmSpec {
        tasks: work.tasks as usize,
        te: work.te,
        times: task_times,
        kernel: if real {
            Kernel::Primes { grain: work.grain }
        } else {
            Kernel::Synthetic
        },
        granularity: work.granularity as usize,
        task_bytes: work.task_bytes,
        result_bytes: work.result_bytes,
        seed: work.seed,
    };
    // The sequential reference: its values to check, its time as the speedup's numerator.
    let before = thread_cpu_time();
    let reference = farm::sequential(&spec);
    let sequential_s = if real {
        thread_cpu_time().saturating_sub(before).as_secs_f64()
    } else {
        reference.iter().sum::<u64>() as f64 / 1e9
    };
    let run = farm::run(&machine, &spec, &engine_config(&args.engine, limits))?;
    anyhow::ensure!(
        run.values == reference,
        "the farm's results differ from the sequential reference"
    );
    let r = &run.engine;
    config::write_trace_files(&args.machine, r.trace.as_ref(), machine.topology().len())?;
    let times = &r.result_times;
    let g = f64::from(work.granularity);
    let span = times
        .last()
        .copied()
        .unwrap_or_default()
        .saturating_sub(times[0])
        .as_secs_f64();
    let throughput_per_s = if times.len() > 1 && span > 0.0 {
        (times.len() - 1) as f64 * g / span
    } else {
        f64::NAN
    };
    let measured = Measured {
        throughput_per_s,
        steady_throughput_per_s: steady_rate(times, g),
        speedup: sequential_s / r.report.makespan_s,
        makespan_s: r.report.makespan_s,
        fractions_by_level: r.fractions_by_level(machine.topology()),
        startup_s: times[0].as_secs_f64(),
    };
    let mut predicted = predicted;
    if real {
        // The model's T_e is the measured mean task time of the real kernel.
        let mut m = model;
        m.te_s = sequential_s / work.tasks as f64;
        predicted = m.predict().map_err(|e| UsageError(e.to_string()))?;
    }
    // A real kernel's task times are whatever they are: no distribution to derive a drain from.
    let drain = if real {
        None
    } else {
        // The unit of scheduling is a message of g tasks (§5).
        let te_msg_s = work.te.as_secs_f64() * g;
        Some(
            Drain::new(
                machine.topology(),
                &predicted,
                task_times,
                te_msg_s,
                &args.engine,
            )
            .map_err(|e| UsageError(e.to_string()))?,
        )
    };
    Ok(Comparison {
        drain,
        ..Comparison::new(
            &machine,
            measured,
            predicted,
            r.report.fidelity.clone(),
            r.report.wall_s(),
        )
    })
}

pub(crate) fn run(args: &FarmArgs, out: &Path) -> Result<()> {
    let c = compare(args, out)?;
    if args.json {
        print_json(&c)
    } else {
        c.print();
        Ok(())
    }
}

/// Longest chain searched for the peak operating point (Figure 4).
const PEAK_SEARCH_CHAIN_LEVELS: u32 = 1024;
/// Deepest tree searched for it (a binary tree of 16 levels has 65 535 processors).
const PEAK_SEARCH_TREE_LEVELS: u32 = 16;

/// `multicomputer predict farm`.
#[derive(Debug, Clone, Args)]
pub(crate) struct PredictFarmArgs {
    #[command(flatten)]
    pub(crate) machine: MachineArgs,
    #[command(flatten)]
    pub(crate) engine: EngineArgs,
    #[command(flatten)]
    pub(crate) work: FarmWorkArgs,
    /// Print the prediction as one JSON object (the `predicted` object of `farm --json`).
    #[arg(long)]
    pub(crate) json: bool,
    /// Also draw the paper's Figure 4 (speedup against N for T_e, 5 T_e and 10 T_e: the peak
    /// operating point) and Figure 5 (speedup against granularity g for several N) for this
    /// topology family, into the results folder.
    #[arg(long)]
    pub(crate) figures: bool,
    /// Marginal efficiency (speedup bought per added processor) below which adding levels no
    /// longer pays: defines the peak operating point.
    #[arg(long, default_value_t = 0.1)]
    pub(crate) min_marginal_efficiency: f64,
}

/// Draws Figures 4 and 5 of the farm paper for a model on a k-ary tree or chain.
fn figures(model: &FarmModel, out: &Path) -> Result<Vec<String>> {
    let FarmTopology::Tree(shape) = &model.topology else {
        return Err(UsageError("--figures needs a chain or a k-ary tree".into()).into());
    };
    let max_levels: u32 = if shape.k == 1 {
        32
    } else {
        20 / shape.k.ilog2().max(1)
    };
    let levels: Vec<u32> = (1..=max_levels).collect();
    let processors = |n: u32| {
        TreeShape {
            k: shape.k,
            levels: n,
        }
        .processors() as f64
    };
    let mut fig4 = Vec::new();
    for factor in [1.0, 5.0, 10.0] {
        let m = FarmModel {
            te_s: model.te_s * factor,
            ..model.clone()
        };
        let surface = farm::speedup_surface(&m, &[model.granularity], &levels)
            .map_err(|e| UsageError(e.to_string()))?;
        fig4.push(Series {
            name: format!("T_e = {}", human_ns(m.te_s * 1e9)),
            points: levels
                .iter()
                .zip(&surface[0])
                .map(|(&n, &sp)| (processors(n), sp))
                .collect(),
            style: Style::LinePoints,
        });
    }
    let family = if shape.k == 1 {
        "chain".to_string()
    } else {
        format!("{}-ary tree", shape.k)
    };
    let chart4 = Chart {
        title: format!("Speedup against processors, {family} (Figure 4)"),
        x_label: "processors N".into(),
        y_label: "speedup (start-up included)".into(),
        x_scale: Scale::Linear,
        y_scale: Scale::Linear,
        series: fig4,
    };
    let gs = [1u32, 2, 4, 8, 16, 32, 64, 128];
    let shown: Vec<u32> = levels
        .iter()
        .copied()
        .filter(|n| n.is_power_of_two() || *n == max_levels)
        .collect();
    let surface =
        farm::speedup_surface(model, &gs, &shown).map_err(|e| UsageError(e.to_string()))?;
    let fig5 = shown
        .iter()
        .enumerate()
        .map(|(b, &n)| Series {
            name: format!("N = {}", processors(n)),
            points: gs
                .iter()
                .enumerate()
                .map(|(a, &g)| (f64::from(g), surface[a][b]))
                .collect(),
            style: Style::LinePoints,
        })
        .collect();
    let chart5 = Chart {
        title: format!("Speedup against granularity, {family} (Figure 5)"),
        x_label: "granularity g (tasks per message)".into(),
        y_label: "speedup (start-up included)".into(),
        x_scale: Scale::Log10,
        y_scale: Scale::Linear,
        series: fig5,
    };
    let mut written = Vec::new();
    for (name, chart) in [("farm-figure4.svg", chart4), ("farm-figure5.svg", chart5)] {
        write_atomic(&out.join(name), chart.to_svg(960, 600)?.as_bytes())?;
        written.push(out.join(name).display().to_string());
    }
    Ok(written)
}

pub(crate) fn predict(args: &PredictFarmArgs, out: &Path) -> Result<()> {
    let model = model(
        &args.machine.topology,
        &args.machine,
        &args.engine,
        &args.work,
    );
    let p = model.predict().map_err(|e| UsageError(e.to_string()))?;
    let written = if args.figures {
        figures(&model, out)?
    } else {
        Vec::new()
    };
    if args.json {
        return print_json(&p);
    }
    let peak = match &model.topology {
        FarmTopology::Tree(shape) => Some(
            farm::peak_operating_point(
                &model,
                if shape.k == 1 {
                    PEAK_SEARCH_CHAIN_LEVELS
                } else {
                    PEAK_SEARCH_TREE_LEVELS
                },
                args.min_marginal_efficiency,
            )
            .map_err(|e| UsageError(format!("--min-marginal-efficiency: {e}")))?,
        ),
        FarmTopology::Parents { .. } => None,
    };
    let mut t = table(&["quantity", "predicted"]);
    t.add_row(vec![
        "throughput (tasks/s)".into(),
        format!("{:.1}", p.throughput_per_s),
    ]);
    t.add_row(vec!["speedup".into(), format!("{:.3}", p.speedup)]);
    t.add_row(vec!["makespan".into(), human_ns(p.makespan_s * 1e9)]);
    t.add_row(vec!["start-up".into(), human_ns(p.startup_s * 1e9)]);
    for (i, f) in p.fractions_by_level.iter().enumerate() {
        t.add_row(vec![format!("f_{}", i + 1), format!("{f:.4}")]);
    }
    t.add_row(vec!["bound".into(), format!("{:?}", p.bound)]);
    if args.work.kernel == KernelArg::Synthetic {
        let te_msg_s = args.work.te.as_secs_f64() * f64::from(args.work.granularity);
        let drain = Drain::new(
            &args.machine.topology,
            &p,
            args.work.times.into(),
            te_msg_s,
            &args.engine,
        )
        .map_err(|e| UsageError(e.to_string()))?;
        for [quantity, predicted, error] in drain.rows() {
            t.add_row(vec![quantity, format!("{predicted} (speedup {error})")]);
        }
    }
    if let Some(peak) = &peak {
        let reached = if peak.next_marginal_efficiency.is_none() {
            " (the search's limit: still growing)"
        } else {
            ""
        };
        t.add_row(vec![
            "peak operating point".into(),
            format!(
                "{} levels, {} processors, speedup {:.2}{reached}",
                peak.levels, peak.processors, peak.speedup
            ),
        ]);
    }
    println!("{t}");
    for w in written {
        println!("written: {w}");
    }
    Ok(())
}
