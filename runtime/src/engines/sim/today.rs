//! Today's semantics (the sequential engine, see the tie-break rule in `sim/`): a blocked
//! sender goes on when its receiver takes, a closure is seen at once, equal arrivals go to
//! the message sent first in the run.

use std::sync::Arc;

use super::hops::Hops;
use super::scheduler::{Open, Scheduler, Semantics, Wait};
use crate::TieOrder;
use crate::link::flavors::scheduled::Reply;
use crate::link::{Envelope, LinkCost};
use crate::routing::Network;
use crate::topology::Topology;

/// The sequential engine's semantics: one scheduler holds every processor (local index =
/// processor index), and effects are seen at once.
pub(crate) struct Today;

/// A link's books under today's rules.
pub(crate) struct Book<M> {
    /// A sender's message waiting for room.
    blocked: Option<Envelope<M>>,
    /// The sender has finished: nothing more will come.
    sender_done: bool,
}

impl<M> Default for Book<M> {
    fn default() -> Self {
        Self {
            blocked: None,
            sender_done: false,
        }
    }
}

impl<M> Scheduler<M, Today> {
    /// The links of `topology` as bounded queues of `capacity`, every processor ready to start
    /// at time 0 (step 1); routed messages go hop by hop over `network`'s links of cost `cost`.
    pub(crate) fn new(
        topology: &Topology,
        capacity: usize,
        ties: TieOrder,
        cost: LinkCost,
        network: Arc<Network>,
    ) -> Self {
        let hops = Hops::new(network, cost);
        Self::build(topology, capacity, ties, Today, hops, topology.len()).0
    }
}

impl<M> Semantics<M> for Today {
    /// (arrival, the order the scheduler queued them in): the message sent first in the run.
    type Key = (u64, u64);

    type Book = Book<M>;

    #[inline]
    fn global(&self, k: usize) -> usize {
        k
    }

    #[inline]
    fn local(&self, pid: usize) -> Option<usize> {
        Some(pid)
    }

    #[inline]
    fn key(seq: u64, envelope: &Envelope<M>) -> Self::Key {
        (envelope.arrive_ns, seq)
    }

    /// The message goes on the link if it has room; else it waits beside it, and its sender
    /// with it, until the receiver takes one.
    fn send(
        s: &mut Scheduler<M, Self>,
        k: usize,
        local: usize,
        g: usize,
        envelope: Envelope<M>,
    ) -> Option<Reply<M>> {
        if s.links[g].queue.len() < s.capacity {
            s.enqueue(g, envelope);
            Some(Reply::Go { now_ns: s.now_ns })
        } else {
            let book = &mut s.links[g].book;
            assert!(
                book.blocked.is_none(),
                "P{k} overwrote a blocked message on link {g}"
            );
            book.blocked = Some(envelope);
            s.procs[k].wait = Wait::Send { link: local };
            None
        }
    }

    fn send_woken(s: &mut Scheduler<M, Self>, k: usize, local: usize) -> Option<Reply<M>> {
        if s.links[s.out_link(k, local)].book.blocked.is_some() {
            None
        } else {
            Some(s.go(k))
        }
    }

    #[inline]
    fn closed(s: &Scheduler<M, Self>, g: usize) -> bool {
        s.links[g].book.sender_done
    }

    #[inline]
    fn open(s: &Scheduler<M, Self>, g: usize) -> Open {
        let link = &s.links[g];
        if !link.book.sender_done || link.book.blocked.is_some() {
            Open::Yes
        } else {
            Open::No
        }
    }

    /// A sender blocked on the link gets the freed room, and goes on now.
    fn taken(s: &mut Scheduler<M, Self>, g: usize) {
        if let Some(waiting) = s.links[g].book.blocked.take() {
            s.enqueue(g, waiting);
            let sender = s.sender(g) as usize;
            s.schedule(sender, s.now_ns);
        }
    }

    fn close(s: &mut Scheduler<M, Self>, g: usize) {
        let link = &mut s.links[g];
        link.book.sender_done = true;
        let (to, at) = (link.to as usize, link.at_receiver as usize);
        s.notify(to, at, s.now_ns);
    }

    fn elsewhere(
        _s: &mut Scheduler<M, Self>,
        at: usize,
        _to: usize,
        _ready_ns: u64,
        _envelope: Envelope<M>,
    ) {
        unreachable!("the sequential engine holds every processor, P{at} too")
    }
}
