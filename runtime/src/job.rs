//! The processes of this job on this host: this process alone, or, under `mpirun`, every
//! rank started on the same host (node), found once when MPI is initialised
//! (`Ranks::initialize`, feature `mpi`).
//!
//! What a command's watch of the host (`speedup`'s busy-host warnings) counts as its own
//! work: the CPU time of these processes, not other processes'.

use std::sync::OnceLock;

/// The process ids of the job's ranks on this host, in rank order, once MPI has gathered them.
static ON_THIS_HOST: OnceLock<Vec<u32>> = OnceLock::new();

/// The process ids of this job's processes on this host: every rank on this host (this
/// process's included) under `mpirun`, else this process alone.
pub fn job_processes() -> Vec<u32> {
    ON_THIS_HOST
        .get()
        .cloned()
        .unwrap_or_else(|| vec![std::process::id()])
}

/// Records the job's ranks, each as its (host, process id) in rank order: those on `host`
/// are this host's (set once; a later call changes nothing).
#[cfg(feature = "mpi")]
pub(crate) fn set_ranks(host: &str, ranks: Vec<(String, u32)>) {
    let here = ranks
        .into_iter()
        .filter(|(h, _)| h == host)
        .map(|(_, pid)| pid)
        .collect();
    let _ = ON_THIS_HOST.set(here);
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_process_not_started_by_mpirun_is_its_job_alone() {
        assert_eq!(super::job_processes(), vec![std::process::id()]);
    }
}
