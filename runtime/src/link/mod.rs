//! Links: bounded channels between neighbouring processors, with the costs of the emulated
//! message system.
//!
//! A message from processor `s` to its neighbour `r` costs, following Stone's categories as
//! used by the farm paper (Table 1):
//!
//! 1. **start-up, non-overlapped** (β): the sender is busy for `send_overhead` before the
//!    message leaves, and the receiver for `recv_overhead` after it arrives;
//! 2. **degradation** (`loop_count`): the sender runs a real busy loop of that many iterations
//!    per send, charged by its CPU time, as the scalability paper slowed its message system;
//! 3. **transfer, overlapped** (τ per byte, plus a fixed `latency`): the message arrives that
//!    much later, but the sender is free meanwhile. Transfers on one link are serialised: a
//!    message cannot start crossing a link before the previous one has left it.
//!
//! Each directed link buffers `capacity` messages (default 2): sent and not yet received,
//! whether still in transit or arrived. A sender whose link is full blocks until the receiver
//! takes a message; its clock then moves to the receiver's emulated time of that take.
//!
//! # Transports
//!
//! The costs and stamps above are the same whatever carries the messages; a transport moves
//! envelopes and makes a blocked processor wait. Each is one file of `flavors/`: bounded
//! crossbeam channels between OS threads (native and dilated time), and the discrete-event
//! scheduler's own queues (virtual time). A transport across machines (MPI) would be a third.

pub(crate) mod flavors;

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::ConfigError;

/// Per-message costs of the emulated message system.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct LinkCost {
    /// Non-overlapped start-up cost charged to the sender per message (β).
    pub send_overhead: Duration,
    /// Non-overlapped cost charged to the receiver per message.
    pub recv_overhead: Duration,
    /// Fixed overlapped delay before a message arrives.
    pub latency: Duration,
    /// Overlapped transfer time per byte (τ), in nanoseconds (may be fractional).
    pub per_byte_ns: f64,
    /// Iterations of a real busy loop the sender runs per message (message-system degradation).
    pub loop_count: u64,
    /// How routed messages cross the processors between their ends
    /// ([`routing`](crate::routing)).
    #[serde(default)]
    pub switching: Switching,
}

impl LinkCost {
    /// Checks that the costs are usable.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(self.per_byte_ns.is_finite() && self.per_byte_ns >= 0.0) {
            return Err(ConfigError::BadPerByte(self.per_byte_ns));
        }
        Ok(())
    }

    /// The overlapped transfer time T_τ of a message of `bytes` bytes, in ns: the time it
    /// occupies its link ([`occupancy_ns`](Self::occupancy_ns)) plus the latency. The one
    /// formula the processors charge and the models predict with.
    #[inline]
    pub fn transfer_ns(&self, bytes: u64) -> u64 {
        self.latency_ns().saturating_add(self.occupancy_ns(bytes))
    }

    /// T_τ in seconds, for the models.
    pub fn transfer_s(&self, bytes: u64) -> f64 {
        self.transfer_ns(bytes) as f64 * 1e-9
    }

    /// How long a message of `bytes` bytes occupies its link: τ × bytes, rounded to whole ns.
    #[inline]
    pub fn occupancy_ns(&self, bytes: u64) -> u64 {
        (self.per_byte_ns * bytes as f64).round() as u64
    }

    /// Whether any cost is charged per message (the fast path skips all timing otherwise).
    pub fn is_free(&self) -> bool {
        self.send_overhead.is_zero()
            && self.recv_overhead.is_zero()
            && self.latency.is_zero()
            && self.per_byte_ns == 0.0
            && self.loop_count == 0
    }

    /// The smallest non-zero emulated cost (for choosing a dilation factor).
    pub fn smallest_cost(&self) -> Option<Duration> {
        [self.send_overhead, self.recv_overhead, self.latency]
            .into_iter()
            .filter(|d| !d.is_zero())
            .min()
    }
}

/// How a routed message crosses the processors between its ends ([`routing`](crate::routing)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Switching {
    /// Each hop receives the whole message, then pays the start-up to send it on.
    #[default]
    StoreAndForward,
    /// The start-up once; the header advances one hop per `latency`, the body pipelined.
    CutThrough,
}

impl Switching {
    /// `store-and-forward` or `cut-through`.
    pub fn name(self) -> &'static str {
        match self {
            Switching::StoreAndForward => "store-and-forward",
            Switching::CutThrough => "cut-through",
        }
    }

    /// The emulated time of a message of `bytes` over `hops` links without contention, from
    /// the sender starting its send to the message's arrival (the receiver's overhead not
    /// included): the formulas of the [`routing`](crate::routing) docs.
    pub fn uncontended_ns(self, cost: &LinkCost, hops: usize, bytes: u64) -> u64 {
        if hops == 0 {
            return 0;
        }
        let h = hops as u64;
        let start_up = cost.send_overhead_ns();
        let body = cost.occupancy_ns(bytes);
        let hop = cost.latency_ns();
        match self {
            Switching::StoreAndForward => h * (start_up + body + hop),
            Switching::CutThrough => start_up + h * hop + body,
        }
    }
}

impl LinkCost {
    /// The start-up cost β, ns.
    pub fn send_overhead_ns(&self) -> u64 {
        u64::try_from(self.send_overhead.as_nanos()).unwrap_or(u64::MAX)
    }

    /// The per-hop latency t_h, ns.
    pub fn latency_ns(&self) -> u64 {
        u64::try_from(self.latency.as_nanos()).unwrap_or(u64::MAX)
    }
}

/// What a run over MPI ranks sends between them, serialised: with the `mpi` feature, any
/// type that serde can write and read back; without it, any type at all.
#[cfg(feature = "mpi")]
pub trait Wire: serde::Serialize + serde::de::DeserializeOwned {}
#[cfg(feature = "mpi")]
impl<T: serde::Serialize + serde::de::DeserializeOwned> Wire for T {}
/// What a run over MPI ranks sends between them, serialised: with the `mpi` feature, any
/// type that serde can write and read back; without it, any type at all.
#[cfg(not(feature = "mpi"))]
pub trait Wire {}
#[cfg(not(feature = "mpi"))]
impl<T> Wire for T {}

/// A message type that can cross a link: it knows its size in bytes, which sets its transfer
/// time (τ per byte). With the `mpi` feature, it is serialisable too ([`Wire`]), to cross
/// ranks.
pub trait Payload: Send + Wire + 'static {
    /// Size of the message on the wire, in bytes.
    fn size_bytes(&self) -> u64;
}

macro_rules! fixed_size_payload {
    ($($t:ty),*) => {$(
        impl Payload for $t {
            fn size_bytes(&self) -> u64 {
                std::mem::size_of::<$t>() as u64
            }
        }
    )*};
}
fixed_size_payload!(
    (),
    bool,
    u8,
    u16,
    u32,
    u64,
    usize,
    i8,
    i16,
    i32,
    i64,
    isize,
    f32,
    f64
);

impl<T: Copy + Send + Wire + 'static> Payload for Vec<T> {
    fn size_bytes(&self) -> u64 {
        std::mem::size_of_val(self.as_slice()) as u64
    }
}

impl<A: Payload, B: Payload> Payload for (A, B) {
    fn size_bytes(&self) -> u64 {
        self.0.size_bytes() + self.1.size_bytes()
    }
}

/// A link of a processor, named by its position among the processor's neighbours (the parent
/// first, if any, then the children in index order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LinkId(pub(crate) usize);

impl LinkId {
    /// The position of this link among the processor's links.
    pub fn index(self) -> usize {
        self.0
    }
}

/// A message on a link, stamped with emulated times.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Envelope<M> {
    pub(crate) payload: M,
    /// The processor that sent it.
    pub(crate) from: usize,
    /// Emulated time at which the sender let the message go (after its start-up cost).
    pub(crate) sent_ns: u64,
    /// Emulated time at which the message is available to the receiver.
    pub(crate) arrive_ns: u64,
    pub(crate) bytes: u64,
    /// Its number among the messages its sender sent (from 0), by which the trace finds
    /// where its flow arrow starts.
    pub(crate) seq: u64,
}

/// Why a transport operation could not go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The link (or every link waited on) is closed: its peer finished and it is drained.
    Closed,
    /// The run is being stopped.
    Aborted,
}

/// How an interruptible occupation ended ([`Transport::occupy_or_recv`]).
pub(crate) enum Occupied<M> {
    /// The whole duration passed with no message.
    Completed,
    /// A message arrived before the end; the processor noticed it at `at_ns`.
    Interrupted {
        link: usize,
        envelope: Envelope<M>,
        at_ns: u64,
    },
}

/// What a transport does for one processor: move envelopes, and make the processor wait
/// (in real time, or in the scheduler's emulated time) until something is due.
///
/// Times are emulated nanoseconds. The processor keeps its own clock and books; the transport
/// only waits and moves messages, so every transport charges the same costs.
pub(crate) trait Transport<M> {
    /// Waits until emulated time `at_ns` is due (the processor's clock has just been moved
    /// there).
    fn wait_until(&mut self, at_ns: u64);

    /// Puts `envelope` on out-link `link`, blocking while the link is full. Returns the
    /// emulated time at which the link accepted it (≥ `clock_ns`: later when it blocked).
    fn send(&mut self, link: usize, envelope: Envelope<M>, clock_ns: u64) -> Result<u64, Stop>;

    /// The message with the earliest arrival on `links`, waiting until one has arrived.
    /// `Err(Stop::Closed)` when every link in `links` is closed and drained.
    fn recv(&mut self, links: &[LinkId], clock_ns: u64) -> Result<(usize, Envelope<M>), Stop>;

    /// The earliest message on `links` that has arrived by `clock_ns`, without waiting.
    fn try_recv(
        &mut self,
        links: &[LinkId],
        clock_ns: u64,
    ) -> Result<Option<(usize, Envelope<M>)>, Stop>;

    /// Waits until `end_ns`, unless a message arriving before `end_ns` on `links` comes
    /// first. On return the processor is at `end_ns` (completed) or at the interruption.
    fn occupy_or_recv(
        &mut self,
        links: &[LinkId],
        clock_ns: u64,
        end_ns: u64,
    ) -> Result<Occupied<M>, Stop>;

    /// Delivers a routed `envelope` to processor `to`, where it waits until taken (never
    /// blocks).
    fn route(&mut self, to: usize, envelope: Envelope<M>) -> Result<(), Stop>;

    /// The routed message with the earliest arrival (from processor `from`, or from any),
    /// waiting until one has arrived.
    fn recv_routed(&mut self, from: Option<usize>, clock_ns: u64) -> Result<Envelope<M>, Stop>;

    /// Whether in-link `link` is closed (its peer finished) with nothing left on it.
    fn is_closed(&mut self, link: usize) -> bool;

    /// The receiver took a message from in-link `link` at `at_ns` (a blocked sender resumes
    /// no earlier).
    fn note_take(&mut self, link: usize, at_ns: u64);

    /// Messages sent plus received so far (for a deadlock monitor).
    fn note_progress(&self, _messages: u64) {}

    /// Whether the run is being stopped.
    fn is_aborted(&self) -> bool;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transfer_time_is_latency_plus_bytes_times_tau() {
        let cost = LinkCost {
            latency: Duration::from_micros(2),
            per_byte_ns: 0.5,
            ..LinkCost::default()
        };
        assert_eq!(cost.transfer_ns(0), 2_000);
        assert_eq!(cost.transfer_ns(1_000), 2_500);
        assert!(!cost.is_free());
        assert!(LinkCost::default().is_free());
    }

    #[test]
    fn payload_sizes_follow_the_data() {
        assert_eq!(7u64.size_bytes(), 8);
        assert_eq!(vec![1u32; 10].size_bytes(), 40);
        assert_eq!((1u8, 2.0f64).size_bytes(), 9);
        assert_eq!(().size_bytes(), 0);
    }

    #[test]
    fn invalid_per_byte_cost_is_rejected() {
        let bad = LinkCost {
            per_byte_ns: -1.0,
            ..LinkCost::default()
        };
        assert_eq!(bad.validate(), Err(ConfigError::BadPerByte(-1.0)));
        let nan = LinkCost {
            per_byte_ns: f64::NAN,
            ..LinkCost::default()
        };
        assert!(nan.validate().is_err());
    }

    #[test]
    fn smallest_cost_ignores_zero_costs() {
        let cost = LinkCost {
            send_overhead: Duration::from_micros(50),
            latency: Duration::from_micros(5),
            ..LinkCost::default()
        };
        assert_eq!(cost.smallest_cost(), Some(Duration::from_micros(5)));
        assert_eq!(LinkCost::default().smallest_cost(), None);
    }
}
