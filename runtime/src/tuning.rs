//! The runtime's tuning constants: margins, defaults and limits chosen on the development host,
//! in one place instead of the crate root.
//!
//! The host's limits (threads, memory maps, resident memory per coroutine) and the largest
//! topology are defined beside the code that checks them and listed here.

use std::time::Duration;

pub use crate::limits::{
    MAP_HEADROOM, MAPS_PER_COROUTINE, MAPS_PER_THREAD, MAX_THREADS, RESIDENT_BYTES_PER_COROUTINE,
};
pub use crate::topology::{MAX_DIMENSIONS, MAX_FILE_BYTES, MAX_LINKS, MAX_PROCESSORS};
#[cfg(feature = "mpi")]
pub use crate::transport::mpi::{MPI_EXCHANGE_TIMEOUT, MPI_POLL_INTERVAL};
pub use crate::transport::threads::EXCHANGE_SPINS;

/// Under the partitioned semantics, how many takes a link's record holds its sender's view
/// of without a heap allocation: capacity + 1, so every link up to capacity 3 (the default
/// is 2; the farm raises its links to 3). A larger capacity spills to the heap, costing a
/// memory access per send.
pub(crate) const LOOKAHEAD_ROOM_INLINE: usize = 4;

/// The margin before a deadline at which a hybrid wait stops sleeping and starts spinning.
pub const HYBRID_MARGIN: Duration = Duration::from_micros(100);

/// The longest a sleeping wait goes without looking whether the run is being aborted.
pub const STOP_POLL: Duration = Duration::from_millis(20);

/// The share of the smallest emulated cost that `auto` mode allows a typical late wake-up to
/// take (see [`choose_dilation`](crate::choose_dilation)).
pub const AUTO_LATENESS_SHARE: f64 = 0.1;

/// Host CPU share that `auto` mode lets the emulator's own message handling and wake-ups
/// take (see [`choose_dilation`](crate::choose_dilation)).
pub const AUTO_UTILISATION: f64 = 0.25;

/// Host wake-up latency assumed by dilated `auto` choices when no calibrated profile is given.
pub const DEFAULT_WAKEUP: Duration = Duration::from_micros(60);

/// CPU time of one sleep/wake cycle assumed when no profile is given.
pub const DEFAULT_WAKE_CPU: Duration = Duration::from_micros(5);

/// Partitioned virtual time: bytes the partitioned semantics add per directed link to the
/// scheduler of the part that holds it: its name between parts (4 B) and the buffer of the
/// times of takes its sender has not seen yet (4 times to start, 48 B with the allocator's
/// header; it grows only on a link whose sender has more than 3 unseen takes, at most
/// `--capacity` + 1). The books themselves (messages not seen taken, when the link is seen
/// closed) sit in the link's record in place of today's (a blocked message and a flag),
/// which are no smaller. Each part's tables hold its own processors and links only, so the
/// parts together hold one machine's tables and these bytes once (a cut link in both of its
/// parts).
pub const LOOKAHEAD_BYTES_PER_LINK: u64 = 52;

/// The smallest stack a virtual-time processor may be given, bytes.
pub const MIN_STACK_BYTES: usize = 16 * 1024;

/// The stack a virtual-time processor gets unless told otherwise, bytes (reserved, mapped
/// lazily).
pub const DEFAULT_STACK_BYTES: usize = 256 * 1024;

/// Wall time one virtual-time processor may run without a simcall before the watchdog says so.
pub const STALL_WARNING: Duration = Duration::from_secs(10);

/// How long after the last processor thread is ready a threaded run starts: the start instant
/// must reach every thread before it passes, and a thread that went to sleep waiting for it
/// wakes within 30–100 µs on the development host (a fixed 2 ms before the threads said they
/// were ready).
pub const START_MARGIN: Duration = Duration::from_micros(500);

/// Native runs across ranks: the clock pings each rank sends rank 0 to agree on time zero
/// (the shortest round trip gives the offset; `engines/threads/cut.rs`).
pub const CLOCK_PINGS: u32 = 16;

/// Native runs across ranks: how far ahead of the ranks' agreement time zero is set, time
/// enough for it to reach every rank and every rank's threads.
pub const RANKS_START_MARGIN: Duration = Duration::from_millis(20);

/// Native runs across ranks: the pause of a cut-link proxy between two rounds in which
/// nothing moved.
pub const PROXY_IDLE: Duration = Duration::from_micros(20);

/// Bytes that all the trace buffers of a run share while it runs (each processor has three,
/// spilled to the run's spill file when full): see [`trace_buffer_bytes`](crate::trace_buffer_bytes).
pub const TRACE_BUFFERS_BYTES: usize = 48 << 20;

/// The smallest trace buffer, bytes (a run of many processors has buffers this small).
pub const TRACE_CHUNK_MIN_BYTES: usize = 512;

/// The largest trace buffer, bytes (a run of few processors has buffers this large).
pub const TRACE_CHUNK_MAX_BYTES: usize = 64 << 10;

/// Chunks of flow starts the trace's reader keeps while it writes the messages (a receiver's
/// messages come from a few senders, in the order they sent them).
pub const TRACE_FLOW_CACHE_CHUNKS: usize = 64;
