//! The engines that run a machine's processors, one folder each, behind one seam ([`Engine`]).
//!
//! An engine is given the run ([`Run`]: the machine's [`RunSpec`], its topology and cores)
//! and the program. It supplies only what is its own: the transport each processor's handle
//! talks through (a [`Port`](crate::link::flavors::Port)), how processors are started and
//! waited for, and where each processor's outcome goes. Every processor runs the one body of
//! `body.rs` (handle, `catch_unwind`, outcome), and every engine ends with the same
//! `assemble` of outcomes into a run record (`report.rs`).
//!
//! - [`threads`]: one OS thread per processor, waiting in real time (native and dilated time);
//! - [`sim`]: one coroutine per processor under a sequential discrete-event scheduler
//!   (virtual time);
//! - [`parts`]: the processors cut into parts, each part run by `sim`'s scheduler on a thread
//!   of its own, the parts exchanging cut-link effects ([`effect`]) at window boundaries
//!   through an exchange (`transport/`: threads, or MPI ranks) — partitioned virtual time;
//! - `ranks` (feature `mpi`): `parts` with one part per MPI rank, the records gathered on
//!   every rank; and native and dilated time across ranks: `threads` running each rank's
//!   part, the links cut between ranks carried by a proxy thread per rank
//!   (`threads/cut.rs`).
//!
//! A new engine is a folder beside these, an implementation of [`Engine`], and a line in
//! `Machine::run`.

mod body;
pub(crate) mod effect;
pub(crate) mod parts;
#[cfg(feature = "mpi")]
pub(crate) mod ranks;
pub(crate) mod sim;
pub(crate) mod threads;

use crate::clock::Seats;
use crate::error::{ProcessorError, RunError};
use crate::link::Payload;
use crate::processor::Processor;
use crate::report::RunRecord;
use crate::spec::RunSpec;
use crate::topology::Topology;
use crate::trace::TraceSink;

use body::run_body;
pub(crate) use parts::Parts;
#[cfg(feature = "mpi")]
pub use ranks::calibrate_crossing;
pub(crate) use sim::Sim;
pub(crate) use threads::Threads;

/// The number of MPI ranks this process is one of, when it is one of several (feature
/// `mpi`, MPI initialised); `None` otherwise. A partitioned run then has a part per rank.
pub(crate) fn mpi_ranks() -> Option<usize> {
    #[cfg(feature = "mpi")]
    if ranks::started() {
        return Some(ranks::count());
    }
    None
}

/// Everything an engine is given about the run, besides its program.
pub(crate) struct Run<'a> {
    /// How the run goes.
    pub(crate) spec: &'a RunSpec,
    /// The processors and their links.
    pub(crate) topology: &'a Topology,
    /// The host's cores, for pinning natively.
    pub(crate) cores: &'a [core_affinity::CoreId],
    /// How its processors sit on the host's cores (for the lateness warning's advice).
    pub(crate) seats: Seats,
    /// Where its processors record their traces, if it is traced: each processor's body
    /// takes a recorder from it, and `assemble` reads the trace back.
    pub(crate) trace: Option<&'a TraceSink>,
}

/// An engine: runs a program once on every processor of a run.
pub(crate) trait Engine {
    /// Runs `program` on every processor and returns their results with the report, or the
    /// run's first failure. Every thread or coroutine it made is gone when it returns.
    fn run<M, R, F>(run: &Run<'_>, program: &F) -> Result<RunRecord<R>, RunError>
    where
        M: Payload,
        R: Send,
        F: Fn(&mut Processor<M>) -> Result<R, ProcessorError> + Sync;
}

/// Fixtures shared by the engines' tests.
#[cfg(test)]
mod fixtures {
    use std::time::Duration;

    use crate::clock::TimeMode;
    use crate::link::LinkCost;
    use crate::machine::MachineConfig;

    /// The machine configuration of the tests of runs across ranks (`ranks`' under MPI,
    /// `threads`' with a rank a thread): dilated time at D = 1 and links of `capacity` with a
    /// 50 µs latency, the rest `base`'s.
    pub(crate) fn dilated_across_ranks(capacity: usize, base: MachineConfig) -> MachineConfig {
        MachineConfig {
            mode: TimeMode::Dilated(1.0),
            capacity,
            link: LinkCost {
                latency: Duration::from_micros(50),
                ..LinkCost::default()
            },
            ..base
        }
    }
}
