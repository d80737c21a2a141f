//! The hops due: routed messages on their way in virtual time, each due at a link of one of
//! the scheduler's processors, in [`HopKey`] order (carried out by `routed.rs`).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::link::{Envelope, LinkCost};
use crate::routing::Network;

/// The order of routed messages' hops: (when the message reaches the link, its send time, its
/// sender, the sender's message number), the same in every partitioning.
pub(super) type HopKey = (u64, u64, usize, u64);

/// The order of equal arrivals among the routed messages held for one processor: (arrival,
/// send time, sender, the sender's message number), as [`HopKey`].
#[inline]
pub(super) fn routed_key<M>(envelope: &Envelope<M>) -> HopKey {
    (
        envelope.arrive_ns,
        envelope.sent_ns,
        envelope.from,
        envelope.seq,
    )
}

/// Routed messages on their way, each due at a link of one of the scheduler's processors.
pub(crate) struct Hops<M> {
    /// Routes, and the free time of the links the scheduler's processors send on.
    pub(super) network: Arc<Network>,
    /// The links' costs and switching model.
    pub(super) cost: LinkCost,
    /// By (when it reaches the link, send time, sender, the sender's message number), with
    /// (that processor, the destination, the message).
    pub(super) due: BTreeMap<HopKey, (u32, u32, Envelope<M>)>,
}

impl<M> Hops<M> {
    /// No message on its way yet, on `network`'s links of cost `cost`.
    pub(crate) fn new(network: Arc<Network>, cost: LinkCost) -> Self {
        Self {
            network,
            cost,
            due: BTreeMap::new(),
        }
    }

    /// The time of the next hop due, if any.
    #[inline]
    pub(super) fn next_ns(&self) -> Option<u64> {
        self.due.first_key_value().map(|(key, _)| key.0)
    }
}
