//! `speedup`'s plan: the kernel and its workload, the processor counts (no more than the
//! cores: the runtime runs natively, a pinned core per processor), the rounds, the grain
//! sweep, and where the results go.

use std::num::NonZeroUsize;
use std::path::Path;

use multicomputer_runtime::Machine;
use multicomputer_workloads::speedup::{
    DEFAULT_OCL_WINDOW, Kernel, SpeedupPlan, Workload, WorkloadError, machine_config, usable_cores,
};

use super::budget::Footprint;
use super::lists::{counts, split_list};
use super::machine::config_flag;
use super::{ArgError, Inputs, OutputPlan, RunFolderPlan};
use crate::args::{MAX_GRAIN, SpeedupArgs, SpeedupKernelArg};

/// The kernel a `--kernel` names.
fn kernel(k: SpeedupKernelArg) -> Kernel {
    match k {
        SpeedupKernelArg::PrimesChain => Kernel::PrimesChain,
        SpeedupKernelArg::PrimesTree => Kernel::PrimesTree,
        SpeedupKernelArg::Mergesort => Kernel::Mergesort,
        SpeedupKernelArg::Ising => Kernel::Ising,
        SpeedupKernelArg::Ocl => Kernel::Ocl,
    }
}

/// `1,2,4` or `1-16` (or both), ascending without repeats, with 1 added.
fn processor_counts(list: &str) -> Result<Vec<usize>, ArgError> {
    const FLAG: &str = "--processors";
    let mut out = vec![1];
    for item in split_list(FLAG, list)? {
        let (lo, hi) = item.split_once('-').unwrap_or((item, item));
        let bad = || {
            ArgError::new(
                FLAG,
                format!("'{item}' is not a count ≥ 1 or a range lo-hi"),
            )
        };
        let lo: usize = lo.trim().parse().map_err(|_| bad())?;
        let hi: usize = hi.trim().parse().map_err(|_| bad())?;
        if lo == 0 || lo > hi {
            return Err(bad());
        }
        if hi - lo >= 4096 {
            return Err(ArgError::new(FLAG, format!("'{item}' is too long a range")));
        }
        out.extend(lo..=hi);
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// The processor counts measured by default: 1 up to the cores this process may use; over
/// K MPI ranks (`--partitions K`), 1 (each rank alone) and K up to K × those cores (a rank's
/// cores for each part).
fn default_counts(cores: usize, partitions: Option<NonZeroUsize>) -> Vec<usize> {
    match partitions {
        None => (1..=cores).collect(),
        Some(k) => std::iter::once(1)
            .chain(k.get().max(2)..=k.get() * cores)
            .collect(),
    }
}

/// Every P fits: natively a pinned core per processor, so no more than the cores this
/// process may use; over K ranks (`--partitions K`), 1 or K up to K × a rank's cores, and
/// at least one P over the ranks.
fn check_counts(
    processors: &[usize],
    cores: usize,
    partitions: Option<NonZeroUsize>,
) -> Result<(), ArgError> {
    let Some(k) = partitions.map(NonZeroUsize::get) else {
        return match processors.iter().find(|&&p| p > cores) {
            Some(&p) => Err(ArgError::new(
                "--processors",
                format!(
                    "P = {p} is more than the {cores} cores this process may use: the runtime \
                     runs natively here, one pinned core per processor (emulate larger machines \
                     with `farm`, `dnc` or `ising` in virtual time)"
                ),
            )),
            None => Ok(()),
        };
    };
    let most = k * cores;
    if let Some(&p) = processors.iter().find(|&&p| p > most || (p > 1 && p < k)) {
        return Err(ArgError::new(
            "--processors",
            format!(
                "P = {p} over {k} MPI ranks: P is 1 (each rank alone) or {k} to {most} (one \
                 part a rank, each no larger than the {cores} cores a rank may use)"
            ),
        ));
    }
    if !processors.iter().any(|&p| p >= k) {
        return Err(ArgError::new(
            "--partitions",
            format!("{k}: no P of at least {k} to run over the ranks"),
        ));
    }
    Ok(())
}

/// The flag behind a workload's refusal.
fn workload_error(e: &WorkloadError, window_given: bool) -> ArgError {
    let flag = match e {
        WorkloadError::ZeroGrain(_) => "--grain",
        WorkloadError::ZeroTasks(_) => "--tasks",
        WorkloadError::ZeroQueue => "--queue",
        WorkloadError::GrainTooLarge(_) => "--grain",
        WorkloadError::TasksTooLarge(_) => "--tasks",
        WorkloadError::OclDivisibility { .. } if window_given => "--window",
        WorkloadError::OclDivisibility { .. } => "--processors",
        WorkloadError::ZeroWindow => "--window",
        WorkloadError::Ising(_) => "--grain",
    };
    ArgError::new(flag, e)
}

/// `speedup`, validated.
#[derive(Debug, Clone)]
pub(crate) struct SpeedupCommandPlan {
    /// What to measure.
    pub(crate) experiment: SpeedupPlan,
    /// Whether 1 was added to the processor counts given.
    pub(crate) one_added: bool,
    /// P left out of the default counts: OCL arrays that do not fit the window.
    pub(crate) skipped: Vec<usize>,
    /// The cores this process may use.
    pub(crate) cores: usize,
    /// The MPI ranks the runtime runs over at every P but 1 (`--partitions`).
    pub(crate) partitions: Option<NonZeroUsize>,
    /// The run's folder.
    pub(crate) folder: RunFolderPlan,
    /// Output.
    pub(crate) output: OutputPlan,
}

impl SpeedupCommandPlan {
    /// Validates `speedup`'s flags.
    pub(crate) fn new(a: &SpeedupArgs, out: &Path) -> Result<Self, ArgError> {
        let k = kernel(a.kernel);
        let cores = usable_cores();
        let (mut processors, one_added) = match &a.processors {
            Some(list) => {
                let p = processor_counts(list)?;
                let given_one = split_list("--processors", list)?
                    .iter()
                    .any(|s| s.split('-').next().is_some_and(|lo| lo.trim() == "1"));
                (p, !given_one)
            }
            None => (default_counts(cores, a.partitions), false),
        };
        check_counts(&processors, cores, a.partitions)?;
        let mut workload = Workload::new(k);
        workload.tasks = a.tasks.unwrap_or(workload.tasks);
        workload.grain = a.grain.unwrap_or(workload.grain);
        workload.queue = usize::try_from(a.queue).unwrap_or(usize::MAX);
        workload.seed = a.seed;
        if let Some(n) = a.window {
            if k != Kernel::Ocl {
                return Err(ArgError::new("--window", "is only used with --kernel ocl"));
            }
            workload.window = usize::try_from(n).unwrap_or(usize::MAX);
        } else {
            workload.window = DEFAULT_OCL_WINDOW;
        }
        // By default, OCL measures the P whose arrays fit its window (P × K divides N).
        let mut skipped = Vec::new();
        if a.processors.is_none() {
            processors.retain(|&p| {
                let fits = workload.check(&[p]).is_ok();
                if !fits {
                    skipped.push(p);
                }
                fits
            });
        }
        workload
            .check(&processors)
            .map_err(|e| workload_error(&e, a.window.is_some()))?;
        let largest = processors.iter().copied().max().unwrap_or(1);
        let fits = |g: u64| workload.at_grain(g).check(&[largest]);
        let grains = match a.grains.as_deref() {
            None => None,
            // The kernel's grains that fit (OCL: the packets that divide N/P).
            Some("default") => Some(
                k.default_grains()
                    .into_iter()
                    .filter(|&g| fits(g).is_ok())
                    .collect(),
            ),
            Some(list) => Some(counts("--grains", list, 1..=MAX_GRAIN)?),
        };
        if grains.as_ref().is_some_and(Vec::is_empty) {
            return Err(ArgError::new(
                "--grains",
                format!("none of the kernel's grains fits at P = {largest}: give a list"),
            ));
        }
        for &g in grains.iter().flatten() {
            fits(g).map_err(|e| {
                ArgError::new(
                    "--grains",
                    format!("grain {g}: {}", workload_error(&e, false)),
                )
            })?;
        }
        // The inputs, the reference and a result, at the grain that needs the most.
        let bytes = grains
            .iter()
            .flatten()
            .map(|&g| workload.at_grain(g).rough_memory_bytes())
            .fold(workload.rough_memory_bytes(), f64::max);
        Footprint::new()
            .add(
                "--tasks",
                format!("the {} and their results", k.tasks_unit()),
                bytes,
            )
            .check()?;
        Ok(Self {
            experiment: SpeedupPlan {
                workload,
                processors,
                rounds: a.rounds as usize,
                warmup: a.warmup as usize,
                grains,
            },
            one_added,
            skipped,
            cores,
            partitions: a.partitions,
            folder: RunFolderPlan::new(out, &a.name)?,
            output: OutputPlan::new(&a.output)?,
        })
    }

    /// The runtime's machines, one for every P (the grain sweep's included: OCL's array is
    /// the same at every packet size), built once before the inputs are made and the rounds
    /// run, as the rayon pools are; with `--partitions K`, every P from K on is cut over the
    /// K ranks. A machine the host cannot hold names `--processors`; one the ranks cannot
    /// run (no MPI, K ≠ the ranks), `--partitions`.
    pub(crate) fn machines(&self) -> Result<Vec<Machine>, ArgError> {
        let e = &self.experiment;
        e.processors
            .iter()
            .map(|&p| {
                let refused =
                    |why: String| ArgError::new("--processors", format!("P = {p}: {why}"));
                let (topology, mut config) =
                    machine_config(&e.workload, p).map_err(|w| refused(w.to_string()))?;
                config.partitions = self.partitions.filter(|k| p >= k.get());
                Machine::new(topology, config).map_err(|w| {
                    ArgError::new(
                        config_flag(&w, "--processors", "--processors"),
                        format!("P = {p}: {w}"),
                    )
                })
            })
            .collect()
    }

    /// Every input.
    pub(crate) fn inputs(&self) -> Inputs {
        let e = &self.experiment;
        let w = &e.workload;
        let k = w.kernel;
        let list: Vec<String> = e.processors.iter().map(ToString::to_string).collect();
        let mut i = Inputs::new();
        let note = match (self.one_added, self.skipped.is_empty()) {
            (true, _) => " (1 added)".to_string(),
            (false, false) => {
                let s: Vec<String> = self.skipped.iter().map(ToString::to_string).collect();
                format!(" ({} left out: P × K does not divide N)", s.join(","))
            }
            (false, true) => String::new(),
        };
        i.add("kernel", k.name())
            .add("processors", format!("{}{note}", list.join(",")))
            .add("tasks", format!("{} {}", w.tasks, k.tasks_unit()))
            .add("grain", format!("{} {}", w.grain, k.grain_unit()));
        if k == Kernel::Ocl {
            i.add("window", w.window);
        }
        if matches!(
            k,
            Kernel::PrimesChain | Kernel::PrimesTree | Kernel::Mergesort
        ) {
            i.add("queue", w.queue);
        }
        i.add("seed", w.seed)
            .add("rounds", e.rounds)
            .add("warmup", e.warmup)
            .add(
                "grains",
                e.grains.as_ref().map_or("none".into(), |g| {
                    g.iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(",")
                }),
            )
            .add("mode", "native: pinned, spinning, D = 1, free links")
            .add("cores", self.cores);
        if let Some(k) = self.partitions {
            i.add(
                "partitions",
                format!(
                    "{k} MPI ranks for the runtime at P ≥ {k}; the sequential program, rayon, \
                     scoped threads and P = 1 in each rank alone, on its cores"
                ),
            );
        }
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn processor_lists_expand_sort_and_start_at_one() {
        assert_eq!(processor_counts("2,4").unwrap(), vec![1, 2, 4]);
        assert_eq!(processor_counts("3-5,1").unwrap(), vec![1, 3, 4, 5]);
        for bad in ["0", "2-1", "x", "1,,2", "1-100000"] {
            assert_eq!(
                processor_counts(bad).unwrap_err().flag,
                "--processors",
                "{bad}"
            );
        }
    }

    #[test]
    fn over_ranks_p_is_one_or_from_k_to_k_times_a_ranks_cores() {
        let k = NonZeroUsize::new;
        assert_eq!(default_counts(4, None), vec![1, 2, 3, 4]);
        assert_eq!(default_counts(1, k(2)), vec![1, 2]);
        assert_eq!(default_counts(2, k(3)), vec![1, 3, 4, 5, 6]);
        assert!(check_counts(&[1, 2], 2, None).is_ok());
        assert_eq!(
            check_counts(&[1, 3], 2, None).unwrap_err().flag,
            "--processors"
        );
        assert!(check_counts(&[1, 2], 1, k(2)).is_ok());
        assert!(check_counts(&[1, 3, 6], 2, k(3)).is_ok());
        for bad in [&[1, 2][..], &[1, 7]] {
            assert_eq!(
                check_counts(bad, 2, k(3)).unwrap_err().flag,
                "--processors",
                "{bad:?}"
            );
        }
        assert_eq!(
            check_counts(&[1], 2, k(2)).unwrap_err().flag,
            "--partitions"
        );
    }

    #[test]
    fn workload_errors_name_their_flag() {
        let ocl = WorkloadError::OclDivisibility {
            processors: 3,
            packet: 16,
            window: 100,
        };
        assert_eq!(workload_error(&ocl, false).flag, "--processors");
        assert_eq!(workload_error(&ocl, true).flag, "--window");
        assert_eq!(
            workload_error(&WorkloadError::ZeroGrain("keys a list"), false).flag,
            "--grain"
        );
        assert_eq!(
            workload_error(&WorkloadError::GrainTooLarge("sweeps a sample"), false).flag,
            "--grain"
        );
        assert_eq!(
            workload_error(&WorkloadError::TasksTooLarge("the keys"), false).flag,
            "--tasks"
        );
    }
}
