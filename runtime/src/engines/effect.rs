//! What crosses from one part to another: the effects of cut links, and each part's share of
//! the report of a run that failed.

use serde::{Deserialize, Serialize};

use crate::error::{ProcessorError, RunError, WaitReport};
use crate::link::Envelope;

/// A cut-link effect, or a part's share of a failed run's report (the `E` of
/// [`Exchange`](crate::transport::Exchange) for this engine). Links are named by their global
/// out-link index (the sender's links in the topology's order, processor by processor).
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Effect<M> {
    /// A message sent on `link`; it arrives at `envelope.arrive_ns` (≥ its send time + L).
    Message {
        /// The link, by global out-link index.
        link: u32,
        /// The message and its stamps.
        envelope: Envelope<M>,
    },
    /// The receiver of `link` took a message: its sender sees the room at `at_ns` (the take
    /// + L).
    Room {
        /// The link, by global out-link index.
        link: u32,
        /// When the sender sees it.
        at_ns: u64,
    },
    /// The sender of `link` finished: its receiver sees the link closed at `at_ns` (the
    /// finish + L).
    Closed {
        /// The link, by global out-link index.
        link: u32,
        /// When the receiver sees it.
        at_ns: u64,
    },
    /// A routed message reaches processor `at` at `ready_ns` (≥ its previous hop + L): its
    /// next link then, or, when `at` is its destination `to`, its arrival
    /// (`envelope.arrive_ns`), to be held there.
    Routed {
        /// Where it is, by processor index.
        at: u32,
        /// Its destination, by processor index.
        to: u32,
        /// When it reaches `at`.
        ready_ns: u64,
        /// The message and its stamps.
        envelope: Envelope<M>,
    },
    /// The end of a failed run, sent to every part in the last exchange.
    Ended(Ending),
}

impl<M> Effect<M> {
    /// The emulated time at which the effect can first change what its receiver does.
    pub(crate) fn at_ns(&self) -> Option<u64> {
        match self {
            Effect::Message { envelope, .. } => Some(envelope.arrive_ns),
            Effect::Room { at_ns, .. } | Effect::Closed { at_ns, .. } => Some(*at_ns),
            Effect::Routed { ready_ns, .. } => Some(*ready_ns),
            Effect::Ended(_) => None,
        }
    }
}

/// A part's share of the report of a run that failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Ending {
    /// A deadlock: what the part's waiting processors wait on, in processor order.
    Waits(Vec<WaitReport>),
    /// The failure that ended the run, from the part of the processor that failed.
    Failed(Failed),
}

/// A processor's failure, as it crosses between parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Failed {
    /// Its program panicked.
    Panic {
        /// The processor.
        processor: usize,
        /// The panic message.
        message: String,
    },
    /// Its program returned an error.
    Processor {
        /// The processor.
        processor: usize,
        /// The error.
        error: ProcessorError,
    },
    /// Its stack overflowed.
    StackOverflow {
        /// The processor.
        processor: usize,
        /// Its stack, bytes.
        stack_bytes: usize,
    },
    /// It could not be started.
    Spawn {
        /// The processor.
        processor: usize,
        /// Why.
        message: String,
    },
}

impl Failed {
    /// The failure of a run error a part ended with (`None` for errors no processor had).
    pub(crate) fn of(error: &RunError) -> Option<Self> {
        Some(match error.clone() {
            RunError::Panic { processor, message } => Failed::Panic { processor, message },
            RunError::Processor { processor, error } => Failed::Processor { processor, error },
            RunError::StackOverflow {
                processor,
                stack_bytes,
            } => Failed::StackOverflow {
                processor,
                stack_bytes,
            },
            RunError::Spawn { processor, message } => Failed::Spawn { processor, message },
            _ => return None,
        })
    }
}

impl From<Failed> for RunError {
    fn from(f: Failed) -> Self {
        match f {
            Failed::Panic { processor, message } => RunError::Panic { processor, message },
            Failed::Processor { processor, error } => RunError::Processor { processor, error },
            Failed::StackOverflow {
                processor,
                stack_bytes,
            } => RunError::StackOverflow {
                processor,
                stack_bytes,
            },
            Failed::Spawn { processor, message } => RunError::Spawn { processor, message },
        }
    }
}
