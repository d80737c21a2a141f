//! `sweep farm`'s and `sweep dnc`'s plans: a grid of cells, each an experiment on its
//! topology, all checked before the first runs.

use std::path::Path;

use multicomputer_runtime::Topology;
use multicomputer_workloads::dnc::{DncExperiment, DncKernel, Splitting};
use multicomputer_workloads::farm::{FarmExperiment, FarmSpec, Kernel, TaskTimes};

use multicomputer_workloads::collectives::{Algorithm, Operation};

use super::collective::{CollectiveExperiment, experiment, operation};
use super::lists::{
    byte_sizes, choices, counts, durations, parse_topologies, split_list, topology_specs,
};
use super::machine::transfer_link;
use super::{ArgError, Inputs, MachinePlan, OutputPlan, Repeat, RunFolderPlan, available_memory};
use crate::args::{
    DncWorkArgs, MAX_SWEEP_CELLS, MAX_TASKS, MessageArgs, SweepCollectiveArgs, SweepDncArgs,
    SweepFarmArgs, TimeArgs, TransferArgs,
};

/// One cell of a sweep: an experiment on its topology.
#[derive(Debug, Clone)]
pub(crate) struct Cell<E> {
    /// Its topology.
    pub(crate) topology: Topology,
    /// What runs on it.
    pub(crate) experiment: E,
}

/// A grid of experiments (`E`: farms or divide and conquer), checked before the first runs.
#[derive(Debug, Clone)]
pub(crate) struct SweepPlan<E> {
    /// The cells, in order.
    pub(crate) cells: Vec<Cell<E>>,
    /// How each machine is built.
    pub(crate) machine: MachinePlan,
    /// Repetitions per cell.
    pub(crate) repeat: Repeat,
    /// The run's folder.
    pub(crate) folder: RunFolderPlan,
    /// Output.
    pub(crate) output: OutputPlan,
    /// The grid as given.
    pub(crate) grid: Inputs,
}

impl<E> SweepPlan<E> {
    /// Every input.
    pub(crate) fn inputs(&self) -> Inputs {
        let mut i = self.grid.clone();
        i.add("cells", self.cells.len())
            .extend(self.machine.inputs())
            .extend(self.repeat.inputs())
            .add("name", &self.folder.name);
        i
    }
}

/// One cell of a farm sweep.
pub(crate) type FarmCell = Cell<FarmExperiment>;
/// `sweep farm`: a grid of farms.
pub(crate) type SweepFarmPlan = SweepPlan<FarmExperiment>;
/// One cell of a divide-and-conquer sweep.
pub(crate) type DncCell = Cell<DncExperiment>;
/// `sweep dnc`: a grid of divide-and-conquer runs.
pub(crate) type SweepDncPlan = SweepPlan<DncExperiment>;

/// One cell of a collective sweep.
pub(crate) type CollectiveCell = Cell<CollectiveExperiment>;
/// `sweep collective`: an operation's algorithms over networks and sizes.
pub(crate) type SweepCollectivePlan = SweepPlan<CollectiveExperiment>;

/// The machine of every cell of a sweep over `topologies`: one time mode for all, sizes
/// refused naming `--topologies`.
fn sweep_machine(
    time: &TimeArgs,
    transfer: &TransferArgs,
    messages: &MessageArgs,
    out: &Path,
    topologies: &[Topology],
) -> Result<MachinePlan, ArgError> {
    let mut machine = MachinePlan::new(time, out)?
        .transfer(transfer)
        .messages(messages);
    machine.size_flag = "--topologies";
    machine.one_mode_for(topologies);
    Ok(machine)
}

/// Refuses a grid of more than [`MAX_SWEEP_CELLS`] cells, before any is built: `lists` are
/// the flags and their lengths, whose product is the number of cells.
fn check_cells(lists: &[(&str, usize)]) -> Result<(), ArgError> {
    let cells = lists
        .iter()
        .fold(1usize, |n, (_, len)| n.saturating_mul(*len));
    if cells <= MAX_SWEEP_CELLS {
        return Ok(());
    }
    let flags: Vec<&str> = lists.iter().map(|(f, _)| *f).collect();
    let sizes: Vec<String> = lists.iter().map(|(_, n)| n.to_string()).collect();
    Err(ArgError::new(
        flags.join(", "),
        format!(
            "the grid has {} = {cells} cells, more than the limit of {MAX_SWEEP_CELLS}; sweep \
             fewer values",
            sizes.join(" × ")
        ),
    ))
}

impl SweepFarmPlan {
    /// Validates `sweep farm`'s flags; every cell is checked as `farm` checks its own.
    pub(crate) fn farm(a: &SweepFarmArgs, out: &Path) -> Result<Self, ArgError> {
        let specs = topology_specs("--topologies", &a.topologies)?;
        let tes = durations("--te", &a.te)?;
        if tes.iter().any(|t| t.is_zero()) {
            return Err(ArgError::new("--te", "every T_e must be > 0"));
        }
        let gs = counts("--granularity", &a.granularity, 1..=MAX_TASKS)?;
        let times = choices(
            "--times",
            &a.times,
            "distribution",
            &[
                ("constant", TaskTimes::Constant),
                ("uniform", TaskTimes::Uniform),
                ("exponential", TaskTimes::Exponential),
            ],
        )?;
        check_cells(&[
            ("--topologies", specs.len()),
            ("--te", tes.len()),
            ("--granularity", gs.len()),
            ("--times", times.len()),
        ])?;
        let topologies = parse_topologies("--topologies", specs)?;
        let mut machine = sweep_machine(&a.time, &a.transfer, &a.messages, out, &topologies)?;
        let tasks = usize::try_from(a.tasks)
            .map_err(|_| ArgError::new("--tasks", "too many tasks for this host"))?;
        let mut cells = Vec::new();
        let memory = available_memory();
        for t in &topologies {
            for &te in &tes {
                for &g in &gs {
                    for &tm in &times {
                        let experiment = FarmExperiment {
                            spec: FarmSpec {
                                tasks,
                                te,
                                times: tm,
                                kernel: Kernel::Synthetic,
                                granularity: g as usize,
                                task_bytes: a.task_bytes,
                                result_bytes: 8,
                                seed: a.seed,
                            },
                            beta_e: a.engine.beta_e,
                            beta_f: a.engine.beta_f,
                            queue: usize::try_from(a.engine.queue).unwrap_or(usize::MAX),
                            guided: a.engine.guided,
                            tau_s: transfer_link(&a.transfer).transfer_s(a.task_bytes),
                        };
                        super::farm::check(t, &experiment)?;
                        if let Ok(hints) = experiment.hints(t) {
                            machine.hold(&hints);
                        }
                        super::farm::footprint(t, &experiment, &machine)?.check_against(memory)?;
                        cells.push(FarmCell {
                            topology: t.clone(),
                            experiment,
                        });
                    }
                }
            }
        }
        let mut grid = Inputs::new();
        grid.add("topologies", &a.topologies)
            .add("te", &a.te)
            .add("granularity", &a.granularity)
            .add("times", &a.times)
            .add("tasks", a.tasks)
            .add("task-bytes", a.task_bytes)
            .add("seed", a.seed)
            .duration("beta-e", a.engine.beta_e)
            .duration("beta-f", a.engine.beta_f)
            .add("queue", a.engine.queue)
            .add("guided", a.engine.guided);
        Ok(Self {
            cells,
            machine,
            repeat: (&a.repeat).into(),
            folder: RunFolderPlan::new(out, &a.name)?,
            output: OutputPlan::new(&a.output)?,
            grid,
        })
    }
}

impl SweepDncPlan {
    /// Validates `sweep dnc`'s flags; every cell is checked as `dnc` checks its own.
    pub(crate) fn dnc(a: &SweepDncArgs, out: &Path) -> Result<Self, ArgError> {
        let specs = topology_specs("--topologies", &a.topologies)?;
        let tes = durations("--te", &a.te)?;
        let splits = choices(
            "--split",
            &a.split,
            "split",
            &[
                ("equal", Splitting::Equal),
                ("random", Splitting::Random { seed: a.seed }),
            ],
        )?;
        check_cells(&[
            ("--topologies", specs.len()),
            ("--te", tes.len()),
            ("--split", splits.len()),
        ])?;
        let topologies = parse_topologies("--topologies", specs)?;
        let mut machine = sweep_machine(&a.time, &a.transfer, &a.messages, out, &topologies)?;
        let mut cells = Vec::new();
        let memory = available_memory();
        for t in &topologies {
            for &te in &tes {
                for &splitting in &splits {
                    let work = DncWorkArgs {
                        tasks: a.tasks,
                        te,
                        ts: a.ts,
                        tj: a.tj,
                        task_bytes: a.task_bytes,
                    };
                    let experiment = super::dnc::experiment(
                        &a.engine,
                        &work,
                        DncKernel::Synthetic { splitting },
                        a.seed,
                        transfer_link(&a.transfer).transfer_s(a.task_bytes),
                    )?;
                    super::dnc::check(t, &experiment).map_err(|e| {
                        if e.flag == "--topology" {
                            ArgError::new("--topologies", e.message)
                        } else {
                            e
                        }
                    })?;
                    if let Ok(hints) = experiment.hints(t) {
                        machine.hold(&hints);
                    }
                    super::dnc::footprint(t, &experiment, &machine)?.check_against(memory)?;
                    cells.push(DncCell {
                        topology: t.clone(),
                        experiment,
                    });
                }
            }
        }
        let mut grid = Inputs::new();
        grid.add("topologies", &a.topologies)
            .add("te", &a.te)
            .add("split", &a.split)
            .duration("ts", a.ts)
            .duration("tj", a.tj)
            .add("tasks", a.tasks)
            .add("task-bytes", a.task_bytes)
            .add("seed", a.seed)
            .duration("beta-e", a.engine.beta_e)
            .duration("beta-f", a.engine.beta_f)
            .add("queue", a.engine.queue);
        Ok(Self {
            cells,
            machine,
            repeat: (&a.repeat).into(),
            folder: RunFolderPlan::new(out, &a.name)?,
            output: OutputPlan::new(&a.output)?,
            grid,
        })
    }
}

impl SweepCollectivePlan {
    /// Validates `sweep collective`'s flags; every cell is checked as `collective` checks
    /// its own (the algorithm suits its network, whole 8-byte values, memory), before any
    /// runs.
    pub(crate) fn collective(a: &SweepCollectiveArgs, out: &Path) -> Result<Self, ArgError> {
        let op = operation(a.operation);
        let algorithms = algorithms(op, a.algorithms.as_deref())?;
        let specs = topology_specs("--topologies", &a.topologies)?;
        let sizes = byte_sizes("--bytes", &a.bytes)?;
        check_cells(&[
            ("--algorithms", algorithms.len()),
            ("--topologies", specs.len()),
            ("--bytes", sizes.len()),
        ])?;
        let topologies = parse_topologies("--topologies", specs)?;
        let mut machine = sweep_machine(&a.time, &a.transfer, &a.messages, out, &topologies)?;
        let memory = available_memory();
        let mut cells = Vec::new();
        for t in &topologies {
            for &alg in &algorithms {
                for &bytes in &sizes {
                    let (e, footprint) = experiment(
                        (op, alg),
                        t,
                        &machine,
                        bytes,
                        a.gamma,
                        ["--algorithms", "--bytes"],
                    )?;
                    machine.hold(&e.spec.hints());
                    footprint.check_against(memory)?;
                    cells.push(CollectiveCell {
                        topology: t.clone(),
                        experiment: e,
                    });
                }
            }
        }
        let names: Vec<&str> = algorithms.iter().map(|a| a.name()).collect();
        let mut grid = Inputs::new();
        grid.add("operation", op.name())
            .add("algorithms", names.join(","))
            .add("topologies", &a.topologies)
            .add("bytes", &a.bytes)
            .duration("gamma", a.gamma);
        Ok(Self {
            cells,
            machine,
            repeat: (&a.repeat).into(),
            folder: RunFolderPlan::new(out, &a.name)?,
            output: OutputPlan::new(&a.output)?,
            grid,
        })
    }
}

/// `--algorithms`: names of `op`'s algorithms (all of them when not given), each once, in
/// the order given.
fn algorithms(op: Operation, list: Option<&str>) -> Result<Vec<Algorithm>, ArgError> {
    let Some(list) = list else {
        return Ok(op.algorithms().to_vec());
    };
    let mut out: Vec<Algorithm> = Vec::new();
    for name in split_list("--algorithms", list)? {
        let alg = op
            .algorithms()
            .iter()
            .find(|a| a.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                let names: Vec<&str> = op.algorithms().iter().map(|a| a.name()).collect();
                ArgError::new(
                    "--algorithms",
                    format!(
                        "{} has no algorithm '{name}' (it has: {})",
                        op.name(),
                        names.join(", ")
                    ),
                )
            })?;
        if !out.contains(alg) {
            out.push(*alg);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algorithms_are_the_operations_own() {
        assert_eq!(
            algorithms(Operation::AllReduce, Some("ring,Recursive-Doubling,ring")).unwrap(),
            vec![Algorithm::Ring, Algorithm::RecursiveDoubling]
        );
        assert_eq!(
            algorithms(Operation::Broadcast, None).unwrap(),
            Operation::Broadcast.algorithms()
        );
        let e = algorithms(Operation::Broadcast, Some("ring")).unwrap_err();
        assert_eq!(e.flag, "--algorithms");
        assert!(
            e.message
                .contains("broadcast has no algorithm 'ring' (it has: binomial-tree"),
            "{e}"
        );
    }

    #[test]
    fn a_grid_too_large_is_refused_naming_its_lists() {
        assert!(check_cells(&[("--topologies", 4096), ("--te", 1)]).is_ok());
        let e = check_cells(&[("--topologies", 4096), ("--te", 4)]).unwrap_err();
        assert_eq!(e.flag, "--topologies, --te");
        assert!(e.message.contains("4096 × 4 = 16384 cells"), "{e}");
        let e = check_cells(&[("--topologies", usize::MAX), ("--te", 2)]).unwrap_err();
        assert!(e.message.contains("more than the limit"), "{e}");
    }
}
