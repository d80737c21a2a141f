//! Partitioned runs over MPI ranks (feature `mpi`). In virtual time rank r runs part r of the
//! run by the protocol of `parts/` ([`run_part`]), its cut-link effects crossing ranks
//! through the MPI exchange (`transport/mpi.rs`); in native and dilated time ([`run_native`])
//! it runs part r on threads, its cut links carried by a proxy thread through the MPI post
//! (`engines/threads/cut.rs`). Either way:
//!
//! 1. **Check** that the run is not traced (each rank spills its records to a file of its
//!    own; the same run on threads gives the trace). That it has as many parts as there are
//!    ranks was checked when the machine was resolved.
//! 2. **Run the part**, as a thread of the threads engine would.
//! 3. **Gather** the parts' records, serialised, on every rank ([`all_gather`]), each
//!    assembling the run's record as the threads engine does ([`assemble_parts`]): the same
//!    results and report on every rank, and for any K on threads or ranks. So every
//!    rank goes on through its command alike (a command may run its machine again), and
//!    rank 0 alone prints and writes.
//!
//! A failed run fails on every rank with the same error (the parts agree on it, as on
//! threads); a rank lost in an exchange ends the run with [`RunError::Exchange`] naming it.

use std::num::NonZeroUsize;
use std::sync::Arc;

use mpi::topology::SimpleCommunicator;
use mpi::traits::Communicator;

use super::Run;
use super::parts::{assemble_parts, run_part};
use crate::error::{ProcessorError, RunError};
use crate::link::{Payload, Wire};
use crate::processor::Processor;
use crate::report::RunRecord;
use crate::routing::Network;
use crate::topology::Partition;
use crate::transport::TransportError;
use crate::transport::mpi::{MpiExchange, MpiPost, all_gather, exchange_timeout, note_lost};

use super::threads::{Rank, assemble_ranks, run_rank};

/// Whether this process is one of several MPI ranks (MPI initialised, more than one rank):
/// partitioned runs then go over the ranks.
pub(crate) fn started() -> bool {
    mpi::environment::is_initialized()
        && !mpi::environment::is_finalized()
        && SimpleCommunicator::world().size() > 1
}

/// The number of ranks (MPI initialised).
pub(crate) fn count() -> usize {
    SimpleCommunicator::world().size() as usize
}

/// Step 1: a run over ranks is not traced.
fn check(run: &Run<'_>) -> Result<(), RunError> {
    if run.trace.is_some() {
        return Err(TransportError::Failed(
            "a trace over MPI ranks is not supported yet (each rank spills its processors' \
             records to a file of its own): trace the same run with --partitions on threads, \
             which gives the same trace"
                .to_string(),
        )
        .into());
    }
    Ok(())
}

/// Runs this rank's part of `program` in native or dilated time (steps 1 to 3).
pub(crate) fn run_native<M, R, F>(run: &Run<'_>, program: &F) -> Result<RunRecord<R>, RunError>
where
    M: Payload,
    R: Send + Wire,
    F: Fn(&mut Processor<M>) -> Result<R, ProcessorError> + Sync,
{
    // Step 1.
    check(run)?;
    let timeout = exchange_timeout();
    let k = run.spec.partitions.map_or(1, NonZeroUsize::get);
    // Step 2.
    let partition = Partition::of(run.topology, k);
    let rank = Rank {
        partition: &partition,
        post: MpiPost::new(timeout),
        timeout,
    };
    let record = run_rank(run, program, rank).inspect_err(|e| {
        if matches!(e, RunError::Exchange(TransportError::PartLost { .. })) {
            note_lost();
        }
    })?;
    // Step 3.
    let records = all_gather(&mut MpiExchange::new(timeout), record)?;
    assemble_ranks(run, records)
}

/// Runs this rank's part of `program` in virtual time (steps 1 to 3).
pub(crate) fn run<M, R, F>(run: &Run<'_>, program: &F) -> Result<RunRecord<R>, RunError>
where
    M: Payload,
    R: Send + Wire,
    F: Fn(&mut Processor<M>) -> Result<R, ProcessorError> + Sync,
{
    // Step 1.
    check(run)?;
    let timeout = exchange_timeout();
    let exchange = MpiExchange::new(timeout);
    let k = run.spec.partitions.map_or(1, NonZeroUsize::get);
    // Step 2.
    let partition = Arc::new(Partition::of(run.topology, k));
    let network = Arc::new(Network::new(run.topology));
    let record = run_part(run, &partition, &network, program, exchange)?;
    // Step 3.
    let parts = all_gather(&mut MpiExchange::new(timeout), record)?;
    assemble_parts(run, &partition, parts)
}

/// Run under `mpirun -np K` (K ≥ 2), one test thread: `.ci/run`'s MPI stage does.
#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::clock::TimeMode;
    use crate::link::LinkCost;
    use crate::machine::{Machine, MachineConfig};
    use crate::topology::Topology;
    use crate::transport::mpi::{Ranks, under_mpirun};

    #[test]
    fn mpi_native_ranks_run_dilated_time_as_one_process_does() {
        if !under_mpirun() {
            eprintln!("not under mpirun with several ranks: nothing to test here");
            return;
        }
        let ranks = Ranks::initialize().expect("MPI initialised once");
        let k = ranks.size();
        let machine = |topology: Topology, capacity| {
            let config = MachineConfig {
                mode: TimeMode::Dilated(1.0),
                capacity,
                link: LinkCost {
                    latency: Duration::from_micros(50),
                    ..LinkCost::default()
                },
                partitions: std::num::NonZeroUsize::new(k),
                ..MachineConfig::default()
            };
            Machine::new(topology, config).unwrap()
        };
        // A reduce up a binary tree: every processor returns the sum of the numbers
        // (id + 1) of its subtree, as a sequential sum gives it.
        let tree = Topology::kary_tree(2, 3).unwrap();
        let n = tree.len();
        let record = machine(tree.clone(), 2)
            .run(|p: &mut crate::Processor<u64>| {
                let mut sum = p.id() as u64 + 1;
                for c in p.children().to_vec() {
                    sum += p.recv(c)?;
                }
                if let Some(up) = p.parent() {
                    p.send(up, sum)?;
                }
                Ok(sum)
            })
            .unwrap();
        let subtree = |i: usize| -> u64 {
            let mut stack = vec![i];
            let mut sum = 0;
            while let Some(j) = stack.pop() {
                sum += j as u64 + 1;
                stack.extend(tree.children(j));
            }
            sum
        };
        let reference: Vec<u64> = (0..n).map(subtree).collect();
        assert_eq!(record.results, reference);
        let cut = record.report.fidelity.cut_links.clone().unwrap();
        assert_eq!(cut.ranks, k);
        assert!(cut.receives >= k as u64 - 1, "{cut:?}");
        // A full cut link blocks its sender until the receiver's take: P0 and the last
        // processor of a chain are on different ranks.
        let busy = Duration::from_millis(20);
        let record = machine(Topology::chain(k).unwrap(), 2)
            .run(|p: &mut crate::Processor<u64>| match p.id() {
                0 => {
                    let link = p.links()[0];
                    for m in 0..4 {
                        p.send(link, m)?;
                    }
                    Ok(p.now().as_nanos() as u64)
                }
                1 => {
                    p.occupy(busy);
                    let link = p.links()[0];
                    let mut got = 0;
                    for _ in 0..4 {
                        got += p.recv(link)?;
                    }
                    Ok(got)
                }
                _ => Ok(0),
            })
            .unwrap();
        assert!(
            record.results[0] >= busy.as_nanos() as u64,
            "{:?}",
            record.results
        );
        assert_eq!(record.results[1], 6);
    }
}
