//! Partitioned virtual time over MPI ranks (feature `mpi`): rank r runs part r of the run by
//! the protocol of `parts/` ([`run_part`]), its cut-link effects crossing ranks through the
//! MPI exchange (`transport/mpi.rs`).
//!
//! 1. **Check** that the run has as many parts as there are ranks, and is not traced (each
//!    rank spills its records to a file of its own; the same run on threads gives the trace).
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
use crate::transport::mpi::{MpiExchange, all_gather, exchange_timeout};

/// Whether this process is one of several MPI ranks (MPI initialised, more than one rank):
/// partitioned runs then go over the ranks.
pub(crate) fn started() -> bool {
    mpi::environment::is_initialized()
        && !mpi::environment::is_finalized()
        && SimpleCommunicator::world().size() > 1
}

/// Runs this rank's part of `program` (steps 1 to 3).
pub(crate) fn run<M, R, F>(run: &Run<'_>, program: &F) -> Result<RunRecord<R>, RunError>
where
    M: Payload,
    R: Send + Wire,
    F: Fn(&mut Processor<M>) -> Result<R, ProcessorError> + Sync,
{
    // Step 1.
    let timeout = exchange_timeout();
    let exchange = MpiExchange::new(timeout);
    let ranks = exchange.ranks();
    let k = run.spec.partitions.map_or(1, NonZeroUsize::get);
    if run.trace.is_some() {
        return Err(TransportError::Failed(
            "a trace over MPI ranks is not supported yet (each rank spills its processors' \
             records to a file of its own): trace the same run with --partitions on threads, \
             which gives the same trace"
                .to_string(),
        )
        .into());
    }
    if k != ranks {
        return Err(TransportError::Failed(format!(
            "{k} parts (--partitions) on {ranks} MPI ranks: a run over ranks has one part per rank"
        ))
        .into());
    }
    // Step 2.
    let partition = Arc::new(Partition::of(run.topology, k));
    let network = Arc::new(Network::new(run.topology));
    let record = run_part(run, &partition, &network, program, exchange)?;
    // Step 3.
    let parts = all_gather(&mut MpiExchange::new(timeout), record)?;
    assemble_parts(run, &partition, parts)
}
