//! # multicomputer-runtime
//!
//! An emulated message-passing multicomputer — a transputer-style network of processors with
//! point-to-point links — built from OS threads on a multicore host.
//!
//! ## The model
//!
//! - A **processor** is an OS thread running one program with a [`Processor`] handle. It has its
//!   own emulated clock.
//! - A **link** joins two neighbouring processors of a [`Topology`] (chains, balanced k-ary
//!   trees, linear arrays, any tree given as a parent relation). Each direction is a bounded
//!   crossbeam channel.
//! - **Costs** follow the farm paper's categories: a non-overlapped start-up cost β per message
//!   (the sender is busy), an overlapped transfer time τ per byte (the message arrives later, the
//!   sender is free), and an optional busy loop of `loop_count` iterations per send that degrades
//!   the message system as the scalability paper did ([`LinkCost`]). Programs charge their own
//!   costs with [`Processor::occupy`] and real work with [`Processor::compute`] (charged by the
//!   thread's CPU time).
//! - **Time.** Every cost advances the processor's emulated clock exactly, and the processor then
//!   waits until the matching wall-clock deadline `start + D × emulated time`. Messages carry
//!   emulated arrival stamps, so emulated times do not depend on host noise; waiting in real time
//!   keeps the order of events faithful. In **native** mode (processors ≤ cores) D = 1,
//!   processors are pinned and spin: wall time is real speedup. In **dilated** mode (more
//!   processors than cores) every cost and compute interval is stretched by D and reported times
//!   are emulated ones. `auto` runs natively only when a core is left for the host (a spinning
//!   processor that shares its core with anything else turns every preemption into emulated
//!   time), else dilated. Each run reports its [`Fidelity`]: how many waits overran their deadline
//!   and by how much.
//! - **Failures.** A panic in a processor ends the run with [`RunError::Panic`] naming it; a
//!   deadlock is detected and reported with what each processor waits on
//!   ([`RunError::Deadlock`]). All threads are joined before [`Machine::run`] returns.
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
//!     mode: TimeMode::Dilated(1.0),
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
mod error;
mod link;
mod machine;
mod processor;
mod topology;
mod trace;

pub use calibrate::{CalibrateOptions, MachineProfile, OccupyError, bare_pingpong, calibrate};
pub use clock::{
    AUTO_LATENESS_SHARE, AUTO_UTILISATION, DilationInputs, Fidelity, HYBRID_MARGIN, LatenessStats,
    TimeMode, WaitStrategy, choose_dilation, minimise_timer_slack, thread_cpu_time,
};
pub use error::{ConfigError, ProcessorError, RunError, TopologyError, WaitReport, Waiting};
pub use link::{LinkCost, Payload};
pub use machine::{
    DEFAULT_WAKE_CPU, DEFAULT_WAKEUP, Machine, MachineConfig, ProcessorReport, RunRecord, RunReport,
};
pub use processor::{Interrupt, LinkId, Processor, busy_loop};
pub use topology::{MAX_PROCESSORS, Topology, TopologyKind};
pub use trace::{Accounting, Activity, Trace, TraceEvent};
