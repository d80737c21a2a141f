//! # multicomputer-runtime
//!
//! An emulated message-passing multicomputer — a transputer-style network of processors with
//! point-to-point links — built from OS threads on a multicore host.
//!
//! ## The model
//!
//! - A **processor** runs one program with a [`Processor`] handle, and has its own emulated
//!   clock. It is an OS thread in native and dilated time, a coroutine in virtual time: the
//!   same program runs unchanged in every mode.
//! - A **link** joins two neighbouring processors of a [`Topology`] (chains, balanced k-ary
//!   trees, linear arrays, any tree given as a parent relation, rings, meshes, tori,
//!   hypercubes, any connected graph from an edge list). Each direction is a bounded queue: a
//!   crossbeam channel between threads, or the scheduler's own queue in virtual time.
//!   Programs on trees use the topology's spanning tree ([`Processor::parent`],
//!   [`Processor::children`]); grids give coordinates and directions ([`Processor::link_in`]).
//! - **Routed messages** go to any processor ([`Processor::send_to`],
//!   [`Processor::recv_routed`]) along deterministic shortest routes, store-and-forward or
//!   cut-through, queueing on the links they share ([`routing`]).
//! - **Costs** follow the farm paper's categories: a non-overlapped start-up cost β per message
//!   (the sender is busy), an overlapped transfer time τ per byte (the message arrives later, the
//!   sender is free), and an optional busy loop of `loop_count` iterations per send that degrades
//!   the message system as the scalability paper did ([`LinkCost`]). Programs charge their own
//!   costs with [`Processor::occupy`] and real work with [`Processor::compute`], charged by its
//!   CPU time or by the units of work it declares ([`ComputeCharge`], [`WorkCosts`]).
//! - **Time** ([`TimeMode`]). Every cost advances the processor's emulated clock exactly, and
//!   messages carry emulated arrival stamps. In **native** time (processors ≤ cores) processors
//!   are pinned threads that spin until `start + emulated time`: wall time is real speedup. In
//!   **dilated** time they sleep until `start + D × emulated time`, which keeps the order of
//!   events faithful only as far as the host wakes them on time (each run reports its
//!   [`Fidelity`]). In **virtual** time a discrete-event scheduler runs the processors as
//!   coroutines in emulated-time order: the order of events is exact by construction, two runs
//!   are identical, and wall time does not depend on emulated time (100 000 processors on two
//!   cores). `auto` runs natively when a core is left for the host, else virtually. Virtual
//!   time can be **partitioned** over threads ([`MachineConfig::partitions`], a
//!   [`Partition`] of the topology): every effect crossing a link then takes at least the link
//!   latency, and any number of parts gives the same results, bit for bit.
//! - **Failures.** A panic in a processor ends the run with [`RunError::Panic`] naming it; a
//!   deadlock is reported with what each processor waits on ([`RunError::Deadlock`]); in
//!   virtual time a stack overflow is [`RunError::StackOverflow`]. Every thread and coroutine
//!   is gone before [`Machine::run`] returns. The host's limits (threads, memory maps) are
//!   checked before a run ([`HostLimits`]).
//!
//! ## Example
//!
//! A token passed down a chain of four processors and back, each hop costing 50 µs of start-up:
//!
//! ```
//! use std::time::Duration;
//! use multicomputer_runtime::{LinkCost, Machine, MachineConfig, TimeMode, Topology};
//!
//! let config = MachineConfig {
//!     mode: TimeMode::Virtual,
//!     link: LinkCost { send_overhead: Duration::from_micros(50), ..LinkCost::default() },
//!     ..MachineConfig::default()
//! };
//! let machine = Machine::new(Topology::chain(4)?, config)?;
//! let record = machine.run(|p| {
//!     // Receive the token from the parent (the root makes it), pass it on, wait for it back.
//!     let mut token: u64 = match p.parent() {
//!         Some(up) => p.recv(up)?,
//!         None => 0,
//!     };
//!     token += 1;
//!     if let Some(&down) = p.children().first() {
//!         p.send(down, token)?;
//!         token = p.recv(down)?;
//!     }
//!     if let Some(up) = p.parent() {
//!         p.send(up, token)?;
//!     }
//!     Ok(token)
//! })?;
//! assert_eq!(record.results[0], 4);
//! // Six sends of 50 µs each lie on the critical path.
//! assert_eq!(record.report.makespan(), Duration::from_micros(300));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod calibrate;
mod clock;
mod engines;
mod error;
mod job;
mod limits;
mod link;
mod link_calibration;
mod machine;
mod processor;
mod report;
pub mod routing;
mod spec;
mod ties;
mod topology;
mod trace;
mod transport;
pub mod tuning;
mod work;

pub use calibrate::{
    CalibrateOptions, MachineProfile, OccupyError, RankCrossing, bare_pingpong, calibrate,
    coroutine_switch_ns, host_cpus,
};
pub use clock::{
    Crossing, CutLinkFidelity, DilationChoice, DilationInputs, Fidelity, LatenessStats, TimeMode,
    WaitStrategy, WorkClock, choose_dilation, halt_waits,
};
#[cfg(feature = "mpi")]
pub use engines::calibrate_crossing;
pub use error::{ConfigError, ProcessorError, RunError, TopologyError, WaitReport, Waiting};
pub use job::job_processes;
pub use limits::HostLimits;
pub use link::{LinkCost, LinkId, Payload, Wire};
pub use link_calibration::{
    LINK_SIZES, LineFit, LinkCalibration, LinkCalibrationError, LinkPoint, calibrate_link,
    fit_line, pingpong_machine,
};
pub use machine::{Machine, MachineConfig, host_cores};
pub use processor::{Interrupt, Processor, busy_loop};
pub use report::{
    PartsReport, ProcessorReport, RunRecord, RunReport, SimStats, WallClock, WorkReport,
};
pub use routing::Switching;
pub use spec::{Hints, Resolved, RunSpec};
pub use ties::TieOrder;
pub use topology::{Direction, Grid, Partition, Topology, TopologyKind};
pub use trace::{
    Accounting, Activity, MessageEvent, RanksClock, Trace, TraceEvent, trace_buffer_bytes,
};
pub use transport::TransportError;
#[cfg(feature = "mpi")]
pub use transport::mpi::Ranks;
pub use work::{Charging, ComputeCharge, CostTable, UnknownUnit, Work, WorkCosts, WorkUnit};
