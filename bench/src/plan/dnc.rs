//! `dnc`'s and `predict dnc`'s plans, and the checks every cell of `sweep dnc` passes.

use std::path::Path;

use multicomputer_runtime::Topology;
use multicomputer_workloads::dnc::{DncExperiment, DncKernel, Splitting};

use super::budget::{DNC_TASK_BYTES, TASK_HOP_BYTES, TRACE_RECORDS_PER_TASK_HOP};
use super::machine::transfer_link;
use super::{
    ArgError, Footprint, Inputs, MachinePlan, OutputPlan, RunPlan, admit_experiment, model_error,
    topology_inputs,
};
use crate::args::{
    DEFAULT_KEYS, DncArgs, DncKernelArg, DncWorkArgs, EngineArgs, PredictDncArgs, SplitArg,
};

/// The model's parameter names and the flags that set them.
const FLAGS: &[(&str, &str)] = &[
    ("te_s", "--te"),
    ("ts_s", "--ts"),
    ("tj_s", "--tj"),
    ("beta_e_s", "--beta-e"),
    ("beta_f_s", "--beta-f"),
    ("tau_s", "--per-byte"),
    ("sequential_task_s", "--te"),
];

/// The splitting a `--split` names.
pub(crate) fn splitting(s: SplitArg, seed: u64) -> Splitting {
    match s {
        SplitArg::Equal => Splitting::Equal,
        SplitArg::Random => Splitting::Random { seed },
    }
}

/// A splitting's name.
pub(crate) fn splitting_name(s: Splitting) -> &'static str {
    match s {
        Splitting::Equal => "equal",
        Splitting::Random { .. } => "random",
    }
}

/// The experiment these flags describe.
pub(crate) fn experiment(
    engine: &EngineArgs,
    work: &DncWorkArgs,
    kernel: DncKernel,
    seed: u64,
    tau_s: f64,
) -> Result<DncExperiment, ArgError> {
    if engine.guided {
        return Err(ArgError::new(
            "--guided",
            "model-guided flow control is for farms",
        ));
    }
    if work.te.is_zero() {
        return Err(ArgError::new("--te", "T_e(N) must be > 0"));
    }
    Ok(DncExperiment {
        tasks: usize::try_from(work.tasks)
            .map_err(|_| ArgError::new("--tasks", "too many tasks for this host"))?,
        te: work.te,
        ts: work.ts,
        tj: work.tj,
        kernel,
        task_bytes: work.task_bytes,
        seed,
        beta_e: engine.beta_e,
        beta_f: engine.beta_f,
        queue: usize::try_from(engine.queue).unwrap_or(usize::MAX),
        tau_s,
    })
}

/// Bytes per key of a mergesort run: every task's keys, the sequential reference's sorted
/// copy, the splits' copies and the merge's scratch.
const KEY_BYTES: f64 = 4.0 * 8.0;

/// A model refusing to give a workload's hints, naming the topology.
fn hints_error(e: multicomputer_workloads::farm::ModelError) -> ArgError {
    super::model_error(&e, &[], "--topology")
}

/// What a divide-and-conquer run allocates: its tasks (and their keys, for mergesort) and,
/// on threads, its links' buffers.
pub(crate) fn footprint(
    topology: &Topology,
    e: &DncExperiment,
    machine: &MachinePlan,
) -> Result<Footprint, ArgError> {
    let mut f = Footprint::new();
    let hints = DncExperiment::hints(e, topology).map_err(hints_error)?;
    // Splits and joins: twice the farm's trace records per level.
    f.machine(topology, machine, &hints)?.tasks(
        (e.tasks, DNC_TASK_BYTES, TASK_HOP_BYTES),
        topology,
        machine.size_flag,
        2.0 * TRACE_RECORDS_PER_TASK_HOP,
    );
    if let DncKernel::Mergesort { keys } = e.kernel {
        f.add(
            "--keys",
            format!("{} tasks × {keys} keys", e.tasks),
            e.tasks as f64 * keys as f64 * KEY_BYTES,
        );
    }
    Ok(f)
}

/// Checks that the model accepts the experiment on `topology`: any network for synthetic
/// tasks (a balanced tree by the paper's levels, any other by its spanning tree), a balanced
/// tree or a chain for mergesort, whose costs are sampled level by level.
pub(crate) fn check(topology: &Topology, e: &DncExperiment) -> Result<(), ArgError> {
    super::farm::check_transfer(e.tau_s)?;
    if matches!(e.kernel, DncKernel::Mergesort { .. }) && DncExperiment::shape(topology).is_err() {
        return Err(ArgError::new(
            "--topology",
            format!(
                "--kernel mergesort needs a balanced tree (tree:K:LEVELS) or a chain used from \
                 its root, not {topology}; synthetic tasks run on the spanning tree of any network"
            ),
        ));
    }
    e.predict(topology)
        .map_err(|err| model_error(&err, FLAGS, "--topology"))?;
    Ok(())
}

/// The experiment's inputs.
pub(crate) fn dnc_inputs(e: &DncExperiment) -> Inputs {
    let mut i = Inputs::new();
    i.add("tasks", e.tasks)
        .duration("te", e.te)
        .duration("ts", e.ts)
        .duration("tj", e.tj)
        .add(
            "kernel",
            match e.kernel {
                DncKernel::Synthetic { splitting } => {
                    format!("synthetic, {} splits", splitting_name(splitting))
                }
                DncKernel::Mergesort { keys } => format!("mergesort ({keys} keys per task)"),
            },
        )
        .add("task-bytes", e.task_bytes)
        .add("seed", e.seed)
        .duration("beta-e", e.beta_e)
        .duration("beta-f", e.beta_f)
        .add("queue", e.queue)
        .add("tau", crate::units::human_s(e.tau_s));
    i
}

/// A divide-and-conquer run beside its model.
pub(crate) type DncPlan = RunPlan<DncExperiment>;

/// Validates `dnc`'s flags.
pub(crate) fn dnc(a: &DncArgs, out: &Path) -> Result<DncPlan, ArgError> {
    RunPlan::new(&a.run, out, |topology, machine| {
        let kernel = match (a.dnc.kernel, a.dnc.keys) {
            (DncKernelArg::Synthetic, Some(_)) => {
                return Err(ArgError::new(
                    "--keys",
                    "is only used with --kernel mergesort (synthetic tasks take --te)",
                ));
            }
            (DncKernelArg::Synthetic, None) => DncKernel::Synthetic {
                splitting: splitting(a.dnc.split, a.dnc.seed),
            },
            (DncKernelArg::Mergesort, keys) => DncKernel::Mergesort {
                keys: usize::try_from(keys.unwrap_or(DEFAULT_KEYS))
                    .map_err(|_| ArgError::new("--keys", "too many keys for this host"))?,
            },
        };
        let e = experiment(
            &a.engine,
            &a.work,
            kernel,
            a.dnc.seed,
            machine.link.transfer_s(a.work.task_bytes),
        )?;
        admit_experiment(topology, machine, e, check, DncExperiment::hints, footprint)
    })
}

/// The divide-and-conquer model alone.
#[derive(Debug, Clone)]
pub(crate) struct PredictDncPlan {
    /// The tree.
    pub(crate) topology: Topology,
    /// The computation (equal splits).
    pub(crate) experiment: DncExperiment,
    /// Output.
    pub(crate) output: OutputPlan,
}

impl PredictDncPlan {
    /// Validates `predict dnc`'s flags.
    pub(crate) fn new(a: &PredictDncArgs) -> Result<Self, ArgError> {
        let tau_s = transfer_link(&a.transfer).transfer_s(a.work.task_bytes);
        let topology = a.topology.resolve()?;
        let experiment = experiment(
            &a.engine,
            &a.work,
            DncKernel::Synthetic {
                splitting: Splitting::Equal,
            },
            1,
            tau_s,
        )?;
        check(&topology, &experiment)?;
        Ok(Self {
            topology,
            experiment,
            output: OutputPlan::new(&a.output)?,
        })
    }

    /// Every input.
    pub(crate) fn inputs(&self) -> Inputs {
        let mut i = Inputs::new();
        i.extend(topology_inputs(&self.topology))
            .extend(dnc_inputs(&self.experiment));
        i
    }
}
