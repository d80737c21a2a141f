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
//! 1. **Run the part**, as the threads engine runs a machine; a traced run's records are
//!    spilled to a file of this rank's. Its emulated times count from the time zero the ranks
//!    agreed (rank 0's start, moved onto this rank's clock by the measured offset), so every
//!    rank's records are on rank 0's clock, to within the skew.
//! 2. **Carry the trace** ([`carry`]), as in virtual time.
//! 3. **Gather** the parts' records, serialised, on every rank ([`all_gather`]), the others'
//!    trace records landed in this rank's file ([`land`]), each rank assembling the run's
//!    record ([`assemble_ranks`]).
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
use crate::routing::{Convention, Network};
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

/// Runs this rank's part of `program` in native or dilated time (steps 1 to 3).
pub(crate) fn run_native<M, R, F>(run: &Run<'_>, program: &F) -> Result<RunRecord<R>, RunError>
where
    M: Payload,
    R: Send + Wire,
    F: Fn(&mut Processor<M>) -> Result<R, ProcessorError> + Sync,
{
    let timeout = exchange_timeout();
    let k = run.spec.partitions.map_or(1, NonZeroUsize::get);
    // Step 1.
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
    // Step 2.
    let carried = carry(run.trace, record.traces())?;
    // Step 3.
    let gathered = all_gather(&mut MpiExchange::new(timeout), (record, carried))?;
    let me = SimpleCommunicator::world().rank() as usize;
    let records = gathered
        .into_iter()
        .enumerate()
        .map(|(q, (mut record, carried))| {
            if q != me {
                land(run.trace, record.traces_mut(), carried);
            }
            record
        })
        .collect();
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
    let network = Arc::new(Network::new(run.topology, Convention::of(run.spec)));
    let me = SimpleCommunicator::world().rank() as usize;
    let record = run_part(run, &partition, &network, program, exchange)?;
    // Step 2.
    let carried = carry(
        run.trace,
        record
            .outcomes
            .iter()
            .map(|(_, o)| o.as_ref().and_then(|o| o.trace.as_ref())),
    )?;
    // Step 3.
    let gathered = all_gather(&mut MpiExchange::new(timeout), (record, carried))?;
    let parts = gathered
        .into_iter()
        .enumerate()
        .map(|(q, (mut record, carried))| {
            if q != me {
                let slots = record.outcomes.iter_mut().map(|(_, o)| o.as_mut());
                land(run.trace, slots.map(|o| o.map(|o| &mut o.trace)), carried);
            }
            record
        })
        .collect();
    assemble_parts(run, &partition, parts)
}

/// Step 2, traced: what each of the part's processors recorded (`recorded`, one a
/// processor of the part, `None` where it has no outcome), read back from this rank's spill
/// to cross to the others (nothing when the run is not traced).
fn carry<'a>(
    trace: Option<&TraceSink>,
    recorded: impl Iterator<Item = Option<&'a Recorded>>,
) -> Result<Vec<Option<Carried>>, RunError> {
    let Some(sink) = trace else {
        return Ok(Vec::new());
    };
    recorded
        .map(|t| t.map(|t| t.carry(sink)).transpose())
        .collect::<Result<_, _>>()
        .map_err(|e| {
            TransportError::Failed(format!("reading this rank's trace back to send it: {e}")).into()
        })
}

/// Step 3, traced: another part's recordings, spilled into this rank's trace as if recorded
/// here, so that every rank reads back the whole run's trace; `slots` are the part's
/// processors' trace slots in the order carried (`None` where one has no outcome).
fn land<'a>(
    trace: Option<&TraceSink>,
    slots: impl Iterator<Item = Option<&'a mut Option<Recorded>>>,
    carried: Vec<Option<Carried>>,
) {
    let Some(sink) = trace else {
        return;
    };
    for (slot, c) in slots.zip(carried) {
        if let Some(slot) = slot {
            *slot = c.map(|c| Recorded::land(c, sink));
        }
    }
}

/// Run under `mpirun -np K` (K ≥ 2), one test thread: `.ci/run`'s MPI stage does.
#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::machine::{Machine, MachineConfig};
    use crate::topology::Topology;
    use crate::transport::mpi::test_ranks;
    use crate::{Processor, ProcessorError};

    /// A dilated machine (D = 1, 50 µs links) over the `k` ranks, with links of `capacity`.
    fn dilated_over(
        k: usize,
        topology: Topology,
        capacity: usize,
        config: MachineConfig,
    ) -> Machine {
        let config = MachineConfig {
            partitions: std::num::NonZeroUsize::new(k),
            ..crate::engines::fixtures::dilated_across_ranks(capacity, config)
        };
        Machine::new(topology, config).unwrap()
    }

    /// A reduce up a tree: every processor returns the sum of the numbers (id + 1) of its
    /// subtree, sending it to its parent.
    fn reduce_up(p: &mut Processor<u64>) -> Result<u64, ProcessorError> {
        let mut sum = p.id() as u64 + 1;
        for c in p.children().to_vec() {
            sum += p.recv(c)?;
        }
        if let Some(up) = p.parent() {
            p.send(up, sum)?;
        }
        Ok(sum)
    }

    #[test]
    fn mpi_native_ranks_trace_every_processor_on_rank_0s_clock() {
        let Some(ranks) = test_ranks() else {
            return;
        };
        let k = ranks.size();
        let dir = tempfile::tempdir().unwrap();
        let traced = MachineConfig {
            trace: true,
            trace_dir: Some(dir.path().to_path_buf()),
            ..MachineConfig::default()
        };
        // A reduce up a binary tree of 15: every processor but the root sends once.
        let tree = Topology::kary_tree(2, 3).unwrap();
        let n = tree.len();
        let record = dilated_over(k, tree, 2, traced)
            .run(|p: &mut Processor<u64>| {
                p.occupy(Duration::from_micros(100));
                reduce_up(p)
            })
            .unwrap();
        let trace = record.trace.expect("traced");
        let clock = trace.ranks_clock().expect("taken over ranks");
        assert_eq!(clock.ranks, k);
        // Every processor's intervals, each processor's in time order.
        let mut last = vec![None::<u64>; n];
        trace
            .visit_events(|e| {
                assert!(last[e.processor] <= Some(e.start_ns), "{e:?} out of order");
                last[e.processor] = Some(e.start_ns);
            })
            .unwrap();
        assert!(last.iter().all(Option::is_some), "{last:?}");
        // Every message, each taken at or after its sending.
        let mut messages = 0;
        trace
            .visit_messages(|m| {
                assert!(
                    m.sent_ns <= m.arrive_ns && m.arrive_ns <= m.received_ns,
                    "{m:?}"
                );
                messages += 1;
            })
            .unwrap();
        assert_eq!(messages, n - 1);
        // The file rank 0 writes: each message's flow starts and ends, and the process says
        // how the ranks' clocks were made one.
        let mut json = Vec::new();
        trace.write_chrome_json(&mut json, n).unwrap();
        let json: serde_json::Value = serde_json::from_slice(&json).unwrap();
        let events = json["traceEvents"].as_array().unwrap();
        let ids = |ph: &str| -> Vec<u64> {
            let mut v: Vec<u64> = events
                .iter()
                .filter(|e| e["ph"] == ph)
                .map(|e| e["id"].as_u64().unwrap())
                .collect();
            v.sort_unstable();
            v
        };
        assert_eq!(ids("s").len(), n - 1);
        assert_eq!(ids("s"), ids("f"));
        let name = events[0]["args"]["name"].as_str().unwrap();
        assert!(name.contains(&format!("over {k} MPI ranks")), "{name}");
        assert!(name.contains("skew"), "{name}");
    }

    #[test]
    fn mpi_native_ranks_name_a_deadlock_with_every_waiting_processor() {
        let Some(ranks) = test_ranks() else {
            return;
        };
        let k = ranks.size();
        // Every processor of a chain of 2K receives first from its first neighbour: all
        // wait, on every rank, with nothing between ranks.
        let n = 2 * k;
        let chain = Topology::chain(n).unwrap();
        let err = dilated_over(k, chain, 2, MachineConfig::default())
            .run(|p: &mut Processor<u64>| {
                let link = p.links()[0];
                p.recv(link)
            })
            .unwrap_err();
        let crate::RunError::Deadlock { waits } = err else {
            panic!("expected a deadlock, got {err}")
        };
        let who: Vec<usize> = waits.iter().map(|w| w.processor).collect();
        assert_eq!(who, (0..n).collect::<Vec<_>>());
        assert!(
            waits
                .iter()
                .all(|w| matches!(w.waiting, crate::Waiting::Receive { .. })),
            "{waits:?}"
        );
    }

    #[test]
    fn mpi_native_ranks_run_dilated_time_as_one_process_does() {
        let Some(ranks) = test_ranks() else {
            return;
        };
        let k = ranks.size();
        let machine =
            |topology, capacity| dilated_over(k, topology, capacity, MachineConfig::default());
        // A reduce up a binary tree, as a sequential sum of each subtree gives it.
        let tree = Topology::kary_tree(2, 3).unwrap();
        let n = tree.len();
        let record = machine(tree.clone(), 2).run(reduce_up).unwrap();
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
            .run(|p: &mut Processor<u64>| match p.id() {
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
