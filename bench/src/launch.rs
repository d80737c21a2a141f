//! How this process was started: alone, or as one of several MPI ranks (`mpirun -np K`).
//!
//! Launchers tell each process the number of ranks in its environment
//! ([`RANK_COUNT_VARIABLES`]). Without the `mpi` feature a process started as one of
//! several ranks cannot take part in a run over ranks: it exits 2 before any work, saying
//! so, instead of K copies running the whole command side by side. With the feature, MPI is
//! initialised, and every rank but rank 0 writes nothing: its output is discarded, and rank
//! 0 alone prints, writes the report and publishes the run's folder ([`reports`]).

use std::sync::atomic::{AtomicBool, Ordering};

/// The variables that give the number of ranks: OpenMPI's `mpirun`, and PMI's (MPICH's
/// Hydra, Intel MPI, Slurm's `srun`).
pub(crate) const RANK_COUNT_VARIABLES: [&str; 2] = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"];

/// The number of ranks the environment `get` gives this process, with the variable that
/// gives it; `None` when it was not started by an MPI launcher.
pub(crate) fn ranks_in(get: impl Fn(&str) -> Option<String>) -> Option<(&'static str, usize)> {
    RANK_COUNT_VARIABLES
        .iter()
        .find_map(|&v| Some((v, get(v)?.trim().parse().ok()?)))
}

/// The number of ranks this process was started as one of (`None`: not by MPI).
fn ranks() -> Option<(&'static str, usize)> {
    ranks_in(|v| std::env::var(v).ok())
}

/// The number of ranks this process was started as one of: 1 when alone (not by MPI). A
/// partitioned run then has a part per rank, each in its own process.
pub(crate) fn rank_count() -> usize {
    ranks().map_or(1, |(_, k)| k.max(1))
}

/// Why a binary without MPI cannot run as one of `k` ranks.
fn without_mpi(variable: &str, k: usize) -> String {
    format!(
        "started as one of {k} MPI ranks ({variable}={k}), but this multicomputer was built \
         without MPI: build it with `cargo build --release --features mpi`, or run it without \
         mpirun"
    )
}

/// Whether this process prints and writes its command's report: false on every MPI rank but
/// rank 0, which reports for all (every rank computes the same results).
static REPORTS: AtomicBool = AtomicBool::new(true);

/// Whether this process reports (see [`REPORTS`]).
pub(crate) fn reports() -> bool {
    REPORTS.load(Ordering::Relaxed)
}

/// What this process is in a run over ranks.
pub(crate) struct Launch {
    /// MPI, held for the whole process (finalised when dropped).
    #[cfg(feature = "mpi")]
    pub(crate) ranks: Option<multicomputer_runtime::Ranks>,
}

impl Launch {
    /// Finds how this process was started; a refusal (exit 2) if it cannot go on.
    pub(crate) fn start() -> Result<Self, String> {
        let started = ranks();
        #[cfg(not(feature = "mpi"))]
        {
            match started {
                Some((variable, k)) if k > 1 => Err(without_mpi(variable, k)),
                _ => Ok(Self {}),
            }
        }
        #[cfg(feature = "mpi")]
        {
            let _ = without_mpi;
            let ranks = started.and_then(|_| multicomputer_runtime::Ranks::initialize());
            if ranks.as_ref().is_some_and(|r| r.rank() != 0) {
                REPORTS.store(false, Ordering::Relaxed);
                discard_output();
            }
            Ok(Self { ranks })
        }
    }
}

#[cfg(feature = "mpi")]
impl Launch {
    /// After a command that ended with `error`: if an exchange lost a rank, the whole job
    /// ends here (exit code 3), as MPI cannot be finalised with a rank gone.
    pub(crate) fn ended(&self, error: &anyhow::Error) -> Option<std::process::ExitCode> {
        let ranks = self.ranks.as_ref()?;
        if ranks.lost_a_rank() {
            eprintln!("error: rank {}: {error:#}", ranks.rank());
            ranks.abort(3);
        }
        None
    }
}

#[cfg(not(feature = "mpi"))]
impl Launch {
    /// Without MPI, nothing but the command decides the exit code.
    pub(crate) fn ended(&self, _: &anyhow::Error) -> Option<std::process::ExitCode> {
        None
    }
}

/// Points this process's standard output and error at /dev/null (every rank but 0).
#[cfg(feature = "mpi")]
fn discard_output() {
    use std::os::fd::AsRawFd;
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        // SAFETY: dup2 on two open descriptors; 1 and 2 stay open, now on /dev/null.
        unsafe {
            libc::dup2(null.as_raw_fd(), 1);
            libc::dup2(null.as_raw_fd(), 2);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rank_count_comes_from_openmpi_or_pmi() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |v: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == v)
                    .map(|(_, x)| x.to_string())
            }
        };
        assert_eq!(ranks_in(env(&[])), None);
        assert_eq!(
            ranks_in(env(&[("OMPI_COMM_WORLD_SIZE", "4")])),
            Some(("OMPI_COMM_WORLD_SIZE", 4))
        );
        assert_eq!(ranks_in(env(&[("PMI_SIZE", "2")])), Some(("PMI_SIZE", 2)));
        assert_eq!(ranks_in(env(&[("PMI_SIZE", "many")])), None);
        assert!(without_mpi("PMI_SIZE", 2).contains("--features mpi"));
    }
}
