//! Partitioned virtual time over MPI ranks (feature `mpi`): rank r runs part r of the run by
//! the protocol of `parts/` ([`run_part`]), its cut-link effects crossing ranks through the
//! MPI exchange (`transport/mpi.rs`).
//!
//! That the run has as many parts as there are ranks was checked with the machine's
//! configuration (`ConfigError::PartsNotRanks`).
//!
//! 1. **Run the part**, as a thread of the threads engine would; a traced run's records are
//!    spilled to a file of this rank's.
//! 2. **Carry the trace** ([`carry`]): a traced run reads its processors' records back
//!    from that file, to go with the part's record.
//! 3. **Gather** the parts' records, serialised, on every rank ([`all_gather`]), the others'
//!    trace records spilled into this rank's file as if recorded here ([`land`]), each rank
//!    assembling the run's record as the threads engine does ([`assemble_parts`]): the same
//!    results, report and trace on every rank, and for any K on threads or ranks. So every
//!    rank goes on through its command alike (a command may run its machine again), and
//!    rank 0 alone prints and writes (the trace file too).
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
use crate::transport::mpi::{MpiExchange, all_gather, exchange_timeout};

/// Whether this process is one of several MPI ranks (MPI initialised, more than one rank):
/// partitioned runs then go over the ranks.
pub(crate) fn started() -> bool {
    mpi::environment::is_initialized()
        && !mpi::environment::is_finalized()
        && SimpleCommunicator::world().size() > 1
}

/// The number of ranks, when this process is one of several (see [`started`]).
pub(crate) fn count() -> Option<usize> {
    started().then(|| SimpleCommunicator::world().size() as usize)
}

/// Runs this rank's part of `program` (steps 1 to 3).
pub(crate) fn run<M, R, F>(run: &Run<'_>, program: &F) -> Result<RunRecord<R>, RunError>
where
    M: Payload,
    R: Send + Wire,
    F: Fn(&mut Processor<M>) -> Result<R, ProcessorError> + Sync,
{
    let timeout = exchange_timeout();
    let exchange = MpiExchange::new(timeout);
    let ranks = exchange.ranks();
    let k = run.spec.partitions.map_or(1, NonZeroUsize::get);
    // The machine's configuration refused any other K (`ConfigError::PartsNotRanks`).
    debug_assert_eq!(k, ranks, "one part per rank");
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

/// Step 3, traced: what each of the part's processors recorded, read back from this rank's
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
