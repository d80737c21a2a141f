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
//! Each link is a bounded crossbeam channel (`capacity` messages, default 2). A sender whose
//! link is full blocks until the receiver takes a message; its clock then moves to the
//! receiver's emulated time of that take.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender};
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
}

impl LinkCost {
    /// Checks that the costs are usable.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(self.per_byte_ns.is_finite() && self.per_byte_ns >= 0.0) {
            return Err(ConfigError::BadPerByte(self.per_byte_ns));
        }
        Ok(())
    }

    /// The overlapped transfer time of a message of `bytes` bytes, in ns.
    #[inline]
    pub fn transfer_ns(&self, bytes: u64) -> u64 {
        self.latency.as_nanos() as u64 + (self.per_byte_ns * bytes as f64).round() as u64
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

/// A message type that can cross a link: it knows its size in bytes, which sets its transfer
/// time (τ per byte).
pub trait Payload: Send + 'static {
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

impl<T: Copy + Send + 'static> Payload for Vec<T> {
    fn size_bytes(&self) -> u64 {
        std::mem::size_of_val(self.as_slice()) as u64
    }
}

impl<A: Payload, B: Payload> Payload for (A, B) {
    fn size_bytes(&self) -> u64 {
        self.0.size_bytes() + self.1.size_bytes()
    }
}

/// A message on a link, stamped with emulated times.
#[derive(Debug)]
pub(crate) struct Envelope<M> {
    pub(crate) payload: M,
    /// Emulated time at which the message is available to the receiver.
    pub(crate) arrive_ns: u64,
    pub(crate) bytes: u64,
}

/// State shared by the two ends of one directed link.
#[derive(Debug, Default)]
pub(crate) struct LinkShared {
    /// Emulated time of the receiver's latest take (a blocked sender resumes no earlier).
    pub(crate) last_take_ns: AtomicU64,
}

impl LinkShared {
    /// Records a take. Only the receiver calls this and its clock never goes back, so a
    /// plain store keeps the value monotonic.
    #[inline]
    pub(crate) fn note_take(&self, emu_ns: u64) {
        self.last_take_ns.store(emu_ns, Ordering::Relaxed);
    }
}

/// The sending end of a directed link, owned by one processor.
pub(crate) struct OutLink<M> {
    pub(crate) tx: Sender<Envelope<M>>,
    pub(crate) shared: Arc<LinkShared>,
    /// Emulated time at which the previous transfer has left the link.
    pub(crate) free_at_ns: u64,
}

/// The receiving end of a directed link, owned by one processor.
pub(crate) struct InLink<M> {
    pub(crate) rx: Receiver<Envelope<M>>,
    pub(crate) shared: Arc<LinkShared>,
    /// One message taken off the channel but not yet delivered (to compare arrival stamps).
    pub(crate) pending: Option<Envelope<M>>,
    pub(crate) closed: bool,
}

/// Both ends of a new directed link, plus a receiver clone for the deadlock monitor.
pub(crate) fn directed_link<M>(capacity: usize) -> (OutLink<M>, InLink<M>, Receiver<Envelope<M>>) {
    let (tx, rx) = crossbeam_channel::bounded(capacity);
    let shared = Arc::new(LinkShared::default());
    let watch = rx.clone();
    (
        OutLink {
            tx,
            shared: Arc::clone(&shared),
            free_at_ns: 0,
        },
        InLink {
            rx,
            shared,
            pending: None,
            closed: false,
        },
        watch,
    )
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
