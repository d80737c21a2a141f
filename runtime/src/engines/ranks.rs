//! Partitioned runs over MPI ranks (feature `mpi`), one part a rank: that the run has as
//! many parts as there are ranks was checked when the machine was resolved
//! (`ConfigError::PartitionsNotRanks`). Every rank ends with the same results and report (and
//! trace, in virtual time) as any K on threads gives, so every rank goes on through its
//! command alike (a command may run its machine again), and rank 0 alone prints and writes
//! (the trace file too).
//!
//! In virtual time ([`run`]) rank r runs part r by the protocol of `parts/` ([`run_part`]),
//! its cut-link effects crossing ranks through the MPI exchange (`transport/mpi.rs`):
//!
//! 1. **Run the part**, as a thread of the threads engine would; a traced run's records are
//!    spilled to a file of this rank's.
//! 2. **Carry the trace** ([`carry`]): a traced run reads its processors' records back
//!    from that file, to go with the part's record.
//! 3. **Gather** the parts' records, serialised, on every rank ([`all_gather`]), the others'
//!    trace records spilled into this rank's file as if recorded here ([`land`]), each rank
//!    assembling the run's record as the threads engine does ([`assemble_parts`]).
//!
//! In native and dilated time ([`run_native`]) rank r runs part r on threads, its cut links
//! carried by a proxy thread through the MPI post (`engines/threads/cut.rs`):
//!
//! 1. **Check** that the run is not traced (a native trace does not cross ranks yet).
//! 2. **Run the part**, as the threads engine runs a machine.
//! 3. **Gather** the parts' records, serialised, on every rank ([`all_gather`]), each
//!    assembling the run's record ([`assemble_ranks`]).
//!
//! A failed run fails on every rank with the same error (the parts agree on it, as on
//! threads); a rank lost in an exchange ends the run with [`RunError::Exchange`] naming it.

use std::num::NonZeroUsize;
use std::sync::Arc;

use mpi::topology::SimpleCommunicator;
use mpi::traits::Communicator;

use super::Run;
use super::parts::{PartRecord, assemble_parts, run_part};
use crate::error::{ProcessorError, RunError};
use crate::link::{Payload, Wire};
use crate::processor::Processor;
use crate::report::RunRecord;
use crate::routing::Network;
use crate::topology::Partition;
use crate::trace::{Carried, Recorded, TraceSink};
use crate::transport::TransportError;
use crate::transport::mpi::{MpiExchange, MpiPost, all_gather, exchange_timeout, note_lost};

use super::threads::{Rank, assemble_ranks, crossing, run_rank};
use crate::calibrate::RankCrossing;

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

/// `calibrate` under `mpirun`: the one-way time of a cut link's message between ranks,
/// through the post the cut-link proxies use (`engines/threads/crossing.rs`, rank 0 with each
/// other rank in turn). Every rank calls it with the same `samples` (at least 5); rank 0
/// gets the measurement, the other ranks and a process that is not one of several ranks get
/// `None`. A rank that does not answer within `MULTICOMPUTER_MPI_TIMEOUT` is named lost (end
/// the job with [`Ranks::abort`](crate::Ranks::abort)).
pub fn calibrate_crossing(samples: usize) -> Result<Option<RankCrossing>, TransportError> {
    if !started() {
        return Ok(None);
    }
    let timeout = exchange_timeout();
    let mut post = MpiPost::new(timeout);
    let one_way =
        crossing::one_way_samples(&mut post, samples.max(5), timeout).inspect_err(|e| {
            if matches!(e, TransportError::PartLost { .. }) {
                note_lost();
            }
        })?;
    Ok(RankCrossing::of(count(), crossing::note_bytes(), one_way))
}

/// Native step 1: a native or dilated run over ranks is not traced.
fn check(run: &Run<'_>) -> Result<(), RunError> {
    if run.trace.is_some() {
        return Err(TransportError::Failed(
            "a native or dilated trace does not cross MPI ranks yet: trace the run in one \
             process (without --partitions), or in virtual time, whose traces do cross ranks"
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
    let timeout = exchange_timeout();
    let exchange = MpiExchange::new(timeout);
    // One part a rank: the machine's configuration refused any other K.
    let k = run.spec.partitions.map_or(1, NonZeroUsize::get);
    // Step 1.
    let partition = Arc::new(Partition::of(run.topology, k));
    let network = Arc::new(Network::new(run.topology));
    let me = SimpleCommunicator::world().rank() as usize;
    let record = run_part(run, &partition, &network, program, exchange)?;
    // Step 2.
    let carried = carry(run.trace, &record)?;
    // Step 3.
    let gathered = all_gather(&mut MpiExchange::new(timeout), (record, carried))?;
    let parts = gathered
        .into_iter()
        .enumerate()
        .map(|(q, (mut record, carried))| {
            if q != me {
                land(run.trace, &mut record, carried);
            }
            record
        })
        .collect();
    assemble_parts(run, &partition, parts)
}

/// Step 2, traced: what each of the part's processors recorded, read back from this rank's
/// spill to cross to the others (nothing when the run is not traced).
fn carry<R>(
    trace: Option<&TraceSink>,
    record: &PartRecord<R>,
) -> Result<Vec<Option<Carried>>, RunError> {
    let Some(sink) = trace else {
        return Ok(Vec::new());
    };
    record
        .outcomes
        .iter()
        .map(|(_, o)| o.as_ref().and_then(|o| o.trace.as_ref()))
        .map(|t| t.map(|t| t.carry(sink)).transpose())
        .collect::<Result<_, _>>()
        .map_err(|e| {
            TransportError::Failed(format!("reading this rank's trace back to send it: {e}")).into()
        })
}

/// Step 3, traced: another part's recordings, spilled into this rank's trace as if recorded
/// here, so that every rank reads back the whole run's trace.
fn land<R>(trace: Option<&TraceSink>, record: &mut PartRecord<R>, carried: Vec<Option<Carried>>) {
    let Some(sink) = trace else {
        return;
    };
    for ((_, outcome), c) in record.outcomes.iter_mut().zip(carried) {
        if let Some(o) = outcome {
            o.trace = c.map(|c| Recorded::land(c, sink));
        }
    }
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
