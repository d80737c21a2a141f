//! `farm`'s and `predict farm`'s plans, and the checks every farm cell of a sweep passes.

use std::path::Path;

use multicomputer_runtime::Topology;
use multicomputer_workloads::farm::{FarmExperiment, FarmSpec, Kernel, TaskTimes};

use super::budget::{TASK_BYTES, TRACE_RECORDS_PER_TASK_HOP};
use super::machine::transfer_link;
use super::{
    ArgError, Footprint, Inputs, MachinePlan, OutputPlan, RunFolderPlan, RunPlan, admit_experiment,
    model_error, topology_inputs,
};
use crate::args::{DEFAULT_GRAIN, MAX_DURATION};
use crate::args::{
    EngineArgs, FarmArgs, FarmRunArgs, FarmWorkArgs, KernelArg, PredictFarmArgs, TimesArg,
};

/// The model's parameter names and the flags that set them.
const FLAGS: &[(&str, &str)] = &[
    ("te_s", "--te"),
    ("beta_e_s", "--beta-e"),
    ("beta_f_s", "--beta-f"),
    ("tau_s", "--per-byte"),
    ("min_marginal_efficiency", "--min-marginal-efficiency"),
];

pub(crate) fn task_times(t: TimesArg) -> TaskTimes {
    match t {
        TimesArg::Constant => TaskTimes::Constant,
        TimesArg::Uniform => TaskTimes::Uniform,
        TimesArg::Exponential => TaskTimes::Exponential,
    }
}

/// A task-time distribution's name.
pub(crate) fn times_name(t: TaskTimes) -> &'static str {
    match t {
        TaskTimes::Constant => "constant",
        TaskTimes::Uniform => "uniform",
        TaskTimes::Exponential => "exponential",
    }
}

/// The experiment these flags describe; `run` is `None` for a prediction (synthetic tasks).
pub(crate) fn experiment(
    engine: &EngineArgs,
    work: &FarmWorkArgs,
    run: Option<&FarmRunArgs>,
    tau_s: f64,
) -> Result<FarmExperiment, ArgError> {
    let kernel = match run.map(|r| (r.kernel, r.grain)) {
        Some((KernelArg::Primes, grain)) => Kernel::Primes {
            grain: grain.unwrap_or(DEFAULT_GRAIN),
        },
        Some((KernelArg::Synthetic, Some(_))) => {
            return Err(ArgError::new(
                "--grain",
                "is only used with --kernel primes (synthetic tasks take --te)",
            ));
        }
        _ => Kernel::Synthetic,
    };
    if kernel == Kernel::Synthetic && work.te.is_zero() {
        return Err(ArgError::new("--te", "T_e must be > 0"));
    }
    Ok(FarmExperiment {
        spec: FarmSpec {
            tasks: usize::try_from(work.tasks)
                .map_err(|_| ArgError::new("--tasks", "too many tasks for this host"))?,
            te: work.te,
            times: task_times(work.times),
            kernel,
            granularity: work.granularity as usize,
            task_bytes: work.task_bytes,
            result_bytes: run.map_or(8, |r| r.result_bytes),
            seed: run.map_or(1, |r| r.seed),
        },
        beta_e: engine.beta_e,
        beta_f: engine.beta_f,
        queue: usize::try_from(engine.queue).unwrap_or(usize::MAX),
        guided: engine.guided,
        tau_s,
    })
}

/// Checks that a message carries no more tasks than there are (`g ≤ M`), and that its
/// transfer time `g × (--latency + --per-byte × --task-bytes)` stays within an emulated cost's
/// limit.
pub(crate) fn check_messages(e: &FarmExperiment) -> Result<(), ArgError> {
    let (g, m) = (e.spec.granularity, e.spec.tasks);
    if g > m {
        return Err(ArgError::new(
            "--granularity",
            format!(
                "g = {g} tasks per message is more than the M = {m} tasks of the run: a message \
                 cannot carry more tasks than there are (give g ≤ M)"
            ),
        ));
    }
    check_transfer(g as f64 * e.tau_s)
}

/// Checks that one message's transfer time (seconds) stays within an emulated cost's limit.
pub(crate) fn check_transfer(tau_s: f64) -> Result<(), ArgError> {
    if tau_s <= MAX_DURATION.as_secs_f64() {
        return Ok(());
    }
    Err(ArgError::new(
        "--per-byte",
        format!(
            "a message would take {} to transfer (--latency + --per-byte × --task-bytes, per \
             task of the message), more than the limit of 1h for an emulated cost",
            crate::units::human_s(tau_s)
        ),
    ))
}

/// A model refusing to give a workload's hints, naming the topology.
fn hints_error(e: multicomputer_workloads::farm::ModelError) -> ArgError {
    super::model_error(&e, &[], "--topology")
}

/// What a farm run holds (the memory model): its processors, tasks, trace and, on threads,
/// its links' buffers.
pub(crate) fn footprint(
    topology: &Topology,
    e: &FarmExperiment,
    machine: &MachinePlan,
) -> Result<Footprint, ArgError> {
    let mut f = Footprint::new();
    let hints = FarmExperiment::hints(e, topology).map_err(hints_error)?;
    f.machine(topology, machine, &hints)?.tasks(
        (e.spec.tasks, TASK_BYTES, 0.0),
        topology,
        machine.size_flag,
        TRACE_RECORDS_PER_TASK_HOP,
    );
    Ok(f)
}

/// Checks that the model accepts the experiment on `topology`, and that model guidance can
/// be derived.
pub(crate) fn check(topology: &Topology, e: &FarmExperiment) -> Result<(), ArgError> {
    check_messages(e)?;
    // The drain needs nothing the prediction does not check (it is sampled, so it is left to
    // the run).
    e.model(topology)
        .predict()
        .map_err(|err| model_error(&err, FLAGS, "--topology"))?;
    e.engine_config(topology)
        .map_err(|err| ArgError::new("--guided", err))?;
    Ok(())
}

/// The experiment's inputs.
pub(crate) fn farm_inputs(e: &FarmExperiment) -> Inputs {
    let mut i = Inputs::new();
    i.add("tasks", e.spec.tasks)
        .duration("te", e.spec.te)
        .add("times", times_name(e.spec.times))
        .add(
            "kernel",
            match e.spec.kernel {
                Kernel::Synthetic => "synthetic".to_string(),
                Kernel::Primes { grain } => format!("primes (grain {grain})"),
            },
        )
        .add("granularity", e.spec.granularity)
        .add("task-bytes", e.spec.task_bytes)
        .add("seed", e.spec.seed)
        .duration("beta-e", e.beta_e)
        .duration("beta-f", e.beta_f)
        .add("queue", e.queue)
        .add("guided", e.guided)
        .add("tau", crate::units::human_s(e.tau_s));
    i
}

/// A farm run beside its model.
pub(crate) type FarmPlan = RunPlan<FarmExperiment>;

/// Validates `farm`'s flags.
pub(crate) fn farm(a: &FarmArgs, out: &Path) -> Result<FarmPlan, ArgError> {
    RunPlan::new(&a.run, out, |topology, machine| {
        let e = experiment(
            &a.engine,
            &a.work,
            Some(&a.farm),
            machine.link.transfer_s(a.work.task_bytes),
        )?;
        admit_experiment(
            topology,
            machine,
            e,
            check,
            FarmExperiment::hints,
            footprint,
        )
    })
}

/// The farm model alone.
#[derive(Debug, Clone)]
pub(crate) struct PredictFarmPlan {
    /// The topology.
    pub(crate) topology: Topology,
    /// The farm (synthetic tasks).
    pub(crate) experiment: FarmExperiment,
    /// Where Figures 4 and 5 go, if asked for.
    pub(crate) figures: Option<RunFolderPlan>,
    /// The peak operating point's threshold.
    pub(crate) min_marginal_efficiency: f64,
    /// Output.
    pub(crate) output: OutputPlan,
}

impl PredictFarmPlan {
    /// Validates `predict farm`'s flags.
    pub(crate) fn new(a: &PredictFarmArgs, out: &Path) -> Result<Self, ArgError> {
        let m = a.min_marginal_efficiency;
        if !(m.is_finite() && m > 0.0) {
            return Err(ArgError::new(
                "--min-marginal-efficiency",
                format!("must be a number > 0, got {m}"),
            ));
        }
        let topology = a.topology.resolve()?;
        let tau_s = transfer_link(&a.transfer).transfer_s(a.work.task_bytes);
        let experiment = experiment(&a.engine, &a.work, None, tau_s)?;
        check(&topology, &experiment)?;
        let figures = if a.figures {
            if experiment
                .peak(&topology, m)
                .map_err(|e| model_error(&e, FLAGS, "--topology"))?
                .is_none()
            {
                return Err(ArgError::new(
                    "--figures",
                    "the figures need a chain or a k-ary tree, not a parent relation",
                ));
            }
            Some(RunFolderPlan::new(out, "predict-farm")?)
        } else {
            None
        };
        Ok(Self {
            topology,
            experiment,
            figures,
            min_marginal_efficiency: m,
            output: OutputPlan::new(&a.output)?,
        })
    }

    /// Every input.
    pub(crate) fn inputs(&self) -> Inputs {
        let mut i = Inputs::new();
        i.extend(topology_inputs(&self.topology))
            .extend(farm_inputs(&self.experiment))
            .add("min-marginal-efficiency", self.min_marginal_efficiency)
            .add("figures", self.figures.is_some());
        i
    }
}
