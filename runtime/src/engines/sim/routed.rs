//! Routed messages in virtual time, carried hop by hop under either semantics
//! ([`routing`](crate::routing)'s "Contention"): each link of a route is reserved when the
//! message (store-and-forward) or its header (cut-through) reaches it, so on every link
//! messages are served in the order they *reach* it.
//!
//! 1. **Route** ([`Scheduler::route`]): the sender's first hop is reserved at once, on its own
//!    link, at the send's time.
//! 2. **Pass** ([`Scheduler::pass`]): the message reaches the next processor of its route at
//!    a time: held there if it is the destination, else due at that processor's next link
//!    then (one of the scheduler's hops), or handed to the part that holds that processor
//!    ([`Semantics::elsewhere`]).
//! 3. **Hop** ([`Scheduler::hop`]): the earliest hop due is carried out at its time, before
//!    the processors' events at that time: its link is reserved, and the message passed on.
//!
//! Hops due at the same time go by `hops::HopKey`: (send time, sender, the sender's message
//! number), a key no partitioning changes and no order of the scheduler's events, so the
//! sequential engine and `--partitions K` (for any K) reserve every link in the same order.
//! Routed messages held at their destination are taken, among equal arrivals, by the same
//! key (`hops::routed_key`).

use super::scheduler::{Scheduler, Semantics};
use crate::link::Envelope;

impl<M, S: Semantics<M>> Scheduler<M, S> {
    /// Step 1: processor `k` sends `envelope` to processor `to` (a global index): its first
    /// hop, reserved now on its own link.
    pub(super) fn route(&mut self, k: usize, to: usize, envelope: Envelope<M>) {
        let from = self.global(k);
        self.forward(from, to, envelope);
    }

    /// Step 2: a routed message to `to` reaches processor `at` (a global index) at
    /// `ready_ns`: held there if it is its destination (`envelope` then stamped with its
    /// arrival), else due at `at`'s next link then, here if `at` is, else in `at`'s part.
    pub(super) fn pass(&mut self, at: usize, to: usize, ready_ns: u64, envelope: Envelope<M>) {
        match self.sem.local(at) {
            Some(here) if at == to => self.hold(here, envelope),
            Some(_) => {
                let key = (ready_ns, envelope.sent_ns, envelope.from, envelope.seq);
                self.hops.due.insert(key, (at as u32, to as u32, envelope));
            }
            None => S::elsewhere(self, at, to, ready_ns, envelope),
        }
    }

    /// Step 3: carries out the earliest hop due (at its time, the scheduler's now).
    pub(super) fn hop(&mut self) {
        if let Some((_, (at, to, envelope))) = self.hops.due.pop_first() {
            self.forward(at as usize, to as usize, envelope);
        }
    }

    /// The routed message at `at` (a global index) reaches `at`'s next link towards `to` at
    /// the scheduler's time: reserves it, and passes the message on to the link's far end,
    /// which it reaches one hop later.
    fn forward(&mut self, at: usize, to: usize, mut envelope: Envelope<M>) {
        let now = self.now_ns;
        let Some((k, next)) = self.hops.network.next_hop(at, to) else {
            return self.pass(to, to, now, envelope);
        };
        let last = next == to;
        let hop = self
            .hops
            .network
            .hop(at, k, now, envelope.bytes, &self.hops.cost, last);
        if last {
            envelope.arrive_ns = hop.arrive_ns;
            self.pass(to, to, hop.arrive_ns, envelope);
        } else {
            self.pass(next, to, hop.next_ready_ns, envelope);
        }
    }
}
