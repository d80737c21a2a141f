//! The partitioned semantics (`--partitions K`, see `parts/`), one part's side: which
//! processors are this part's, the cut-link effects it owes other parts, the two effects
//! that cross a link besides messages, each seen one lookahead L after it happened: room
//! freed on a link (by its sender) and a link's closure (by its receiver); and routed
//! messages, carried hop by hop (`routed.rs`, [`routing`](crate::routing)'s "Contention"): each hop is
//! reserved by the part that holds its link when the message reaches it, and crosses to the
//! next processor as an effect that takes at least the per-hop latency, which is L.

use std::sync::Arc;

use smallvec::SmallVec;

use super::hops::Hops;
use super::scheduler::{CutLink, ELSEWHERE, Open, Scheduler, Semantics, Wait};
use crate::TieOrder;
use crate::engines::effect::Effect;
use crate::link::flavors::scheduled::Reply;
use crate::link::{Envelope, LinkCost};
use crate::routing::Network;
use crate::topology::{Partition, Topology};
use crate::tuning::LOOKAHEAD_ROOM_INLINE;

/// A link's closure not seen yet.
const OPEN: u64 = u64::MAX;

/// One part's side of the partitioned semantics. Links are the part's scheduler's (local)
/// ones; each keeps its own [`Book`].
pub(crate) struct Lookahead<M> {
    /// L, ns: the least time any effect takes to cross a link.
    latency_ns: u64,
    /// Every processor's part.
    partition: Arc<Partition>,
    /// This part's processors, in increasing index (local index → processor).
    members: Vec<u32>,
    /// Per link: its global out-link index, by which effects name it (cut links only).
    global: Vec<u32>,
    /// The cut links, as (global out-link index, link here), by global index.
    local: Vec<(u32, u32)>,
    /// Effects owed to each part, in the order they happened.
    outgoing: Vec<Vec<Effect<M>>>,
    /// Cut-link effects sent to and received from other parts, over the run.
    pub(crate) effects_sent: u64,
    /// See `effects_sent`.
    pub(crate) effects_received: u64,
}

impl<M> Lookahead<M> {
    /// The scheduler of the part of `partition` of `topology` whose processors are
    /// `members` (in increasing index), its links of cost `cost` (the lookahead is their
    /// latency) on `network`: its tables hold the part's processors, their out-links and the
    /// cut links that come in to them.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn scheduler(
        topology: &Topology,
        capacity: usize,
        ties: TieOrder,
        cost: LinkCost,
        network: Arc<Network>,
        members: &[usize],
        partition: Arc<Partition>,
    ) -> Scheduler<M, Self> {
        let members: Vec<u32> = members.iter().map(|&i| i as u32).collect();
        let parts = partition.parts();
        let size = members.len();
        let la = Self {
            latency_ns: cost.latency_ns(),
            partition,
            members,
            global: Vec::new(),
            local: Vec::new(),
            outgoing: (0..parts).map(|_| Vec::new()).collect(),
            effects_sent: 0,
            effects_received: 0,
        };
        let hops = Hops::new(network, cost);
        let (mut s, cuts) = Scheduler::build(topology, capacity, ties, la, hops, size);
        let links = s.links.len();
        for g in 0..links {
            s.links[g].book.sender_elsewhere = s.sender(g) == ELSEWHERE;
        }
        let la = &mut s.sem;
        la.global = vec![ELSEWHERE; links];
        for &CutLink { local, global } in &cuts {
            la.global[local] = global as u32;
        }
        la.local = cuts
            .into_iter()
            .map(|c| (c.global as u32, c.local as u32))
            .collect();
        la.local.sort_unstable();
        s
    }

    /// Owes `effect` on cut link `g` to the part of processor `far` (a global index).
    fn owe(&mut self, far: usize, g: usize, effect: impl FnOnce(u32) -> Effect<M>) {
        let link = self.global[g];
        self.owe_to(far, effect(link));
    }

    /// Owes `effect` to the part of processor `far` (a global index).
    fn owe_to(&mut self, far: usize, effect: Effect<M>) {
        self.effects_sent += 1;
        self.outgoing[self.partition.part_of(far)].push(effect);
    }

    /// The effects owed to each part, handed over (this part's own entry stays empty), and
    /// the earliest time among them.
    pub(crate) fn take_outgoing(&mut self) -> (Vec<Vec<Effect<M>>>, Option<u64>) {
        let parts = self.outgoing.len();
        let out = std::mem::replace(&mut self.outgoing, (0..parts).map(|_| Vec::new()).collect());
        let earliest = out.iter().flatten().filter_map(Effect::at_ns).min();
        (out, earliest)
    }

    /// The link here that effects name `link`.
    fn here(&self, link: u32) -> usize {
        let at = self
            .local
            .binary_search_by_key(&link, |&(global, _)| global)
            .expect("an effect on a link that is not cut into this part");
        self.local[at].1 as usize
    }
}

/// A link's books under the partitioned semantics: its sender's (when its sender is here)
/// and its receiver's (when its receiver is here).
pub(crate) struct Book {
    /// Messages sent on it whose take its sender has not seen yet (the sender's count of
    /// what takes room; at most `capacity + 1` ≤ 65 537).
    unseen: u32,
    /// Its sender waits on it for room (set when it blocks; a take it sees wakes it).
    sender_waits: bool,
    /// Its sender is in another part (its takes are owed there as effects).
    sender_elsewhere: bool,
    /// When its sender sees the takes it has not seen yet, in order. At most `capacity + 1`
    /// (a sender stops at the first message over its room), so held in the link's own
    /// record for the usual capacities: a send reads no other memory to look at its room.
    room_at: SmallVec<[u64; LOOKAHEAD_ROOM_INLINE]>,
    /// When its receiver sees it closed ([`OPEN`]: not known yet).
    closed_at: u64,
}

impl Default for Book {
    fn default() -> Self {
        Self {
            unseen: 0,
            sender_waits: false,
            sender_elsewhere: false,
            room_at: SmallVec::new(),
            closed_at: OPEN,
        }
    }
}

impl Book {
    /// Messages its sender still counts as taking room at `now_ns`.
    fn in_flight(&mut self, now_ns: u64) -> u32 {
        let held = self.room_at.len();
        let seen = self.room_at.iter().take_while(|&&t| t <= now_ns).count();
        if seen > 0 {
            self.room_at.copy_within(seen..held, 0);
            self.room_at.truncate(held - seen);
            self.unseen -= seen as u32;
        }
        self.unseen
    }
}

impl<M> Scheduler<M, Lookahead<M>> {
    /// The partitioned semantics' state.
    pub(crate) fn lookahead(&mut self) -> &mut Lookahead<M> {
        &mut self.sem
    }

    /// Takes an effect another part sent this one.
    pub(crate) fn apply(&mut self, effect: Effect<M>) {
        self.sem.effects_received += 1;
        match effect {
            Effect::Message { link, envelope } => {
                let g = self.sem.here(link);
                self.enqueue(g, envelope);
            }
            Effect::Room { link, at_ns } => {
                let g = self.sem.here(link);
                self.links[g].book.room_at.push(at_ns);
                self.room_made(g, at_ns);
            }
            Effect::Closed { link, at_ns } => {
                let g = self.sem.here(link);
                self.links[g].book.closed_at = at_ns;
                self.notify_closed(g, at_ns);
            }
            Effect::Routed {
                at,
                to,
                ready_ns,
                envelope,
            } => self.pass(at as usize, to as usize, ready_ns, envelope),
            Effect::Ended(_) => {}
        }
    }

    /// The sender of out-link `g` (here) will see a take at `at_ns`: it looks then if it
    /// waits on that link.
    #[inline]
    fn room_made(&mut self, g: usize, at_ns: u64) {
        if !self.links[g].book.sender_waits {
            return;
        }
        let sender = self.sender(g) as usize;
        if let Wait::Send { link } = self.procs[sender].wait {
            if self.out_link(sender, link) == g {
                self.schedule(sender, at_ns);
            }
        }
    }

    /// Link `g` (its receiver here) will be seen closed at `at_ns`: a receive waiting on it
    /// looks then (an occupation does not care).
    fn notify_closed(&mut self, g: usize, at_ns: u64) {
        let (to, at) = (
            self.links[g].to as usize,
            self.links[g].at_receiver as usize,
        );
        // SAFETY: the processor is suspended in the simcall that lent `links`.
        if let Wait::Recv { links } = self.procs[to].wait {
            if unsafe { links.contains(at) } {
                self.schedule(to, at_ns);
            }
        }
    }
}

impl<M> Semantics<M> for Lookahead<M> {
    /// (arrival, send time, sender): no part's order of events can change it.
    type Key = (u64, u64, usize);

    type Book = Book;

    #[inline]
    fn global(&self, k: usize) -> usize {
        self.members[k] as usize
    }

    fn local(&self, pid: usize) -> Option<usize> {
        self.members.binary_search(&(pid as u32)).ok()
    }

    #[inline]
    fn key(_seq: u64, envelope: &Envelope<M>) -> Self::Key {
        (envelope.arrive_ns, envelope.sent_ns, envelope.from)
    }

    /// The message goes at once (to its receiver's queue, or to its part); the sender goes
    /// on if the link's room it has seen allows, else waits until it sees a take.
    fn send(
        s: &mut Scheduler<M, Self>,
        k: usize,
        local: usize,
        g: usize,
        envelope: Envelope<M>,
    ) -> Option<Reply<M>> {
        let now = s.now_ns;
        let book = &mut s.links[g].book;
        book.unseen += 1;
        // Fewer unseen than the room: no need to look which takes the sender has seen.
        let full = book.unseen as usize > s.capacity && book.in_flight(now) as usize > s.capacity;
        if s.links[g].to == ELSEWHERE {
            let far = s.peer[g] as usize;
            s.sem.owe(far, g, |link| Effect::Message { link, envelope });
        } else {
            s.enqueue(g, envelope);
        }
        if full {
            s.links[g].book.sender_waits = true;
            s.procs[k].wait = Wait::Send { link: local };
            Self::send_woken(s, k, local)
        } else {
            Some(Reply::Go { now_ns: now })
        }
    }

    /// Goes on if it now sees room; else waits for the next take it will see.
    fn send_woken(s: &mut Scheduler<M, Self>, k: usize, local: usize) -> Option<Reply<M>> {
        let g = s.out_link(k, local);
        let now = s.now_ns;
        let book = &mut s.links[g].book;
        if book.in_flight(now) as usize <= s.capacity {
            book.sender_waits = false;
            return Some(s.go(k));
        }
        if let Some(&at) = book.room_at.first() {
            s.schedule(k, at);
        }
        None
    }

    #[inline]
    fn closed(s: &Scheduler<M, Self>, g: usize) -> bool {
        s.links[g].book.closed_at <= s.now_ns
    }

    fn open(s: &Scheduler<M, Self>, g: usize) -> Open {
        match s.links[g].book.closed_at {
            OPEN => Open::Yes,
            closed if closed > s.now_ns => Open::Until(closed),
            _ => Open::No,
        }
    }

    /// The sender sees the room one lookahead later.
    fn taken(s: &mut Scheduler<M, Self>, g: usize) {
        let at_ns = s.now_ns.saturating_add(s.sem.latency_ns);
        if s.links[g].book.sender_elsewhere {
            let far = s.peer[s.reverse[g] as usize] as usize;
            s.sem.owe(far, g, |link| Effect::Room { link, at_ns });
        } else {
            s.links[g].book.room_at.push(at_ns);
            s.room_made(g, at_ns);
        }
    }

    /// Handed to `at`'s part, as an effect.
    fn elsewhere(
        s: &mut Scheduler<M, Self>,
        at: usize,
        to: usize,
        ready_ns: u64,
        envelope: Envelope<M>,
    ) {
        s.sem.owe_to(
            at,
            Effect::Routed {
                at: at as u32,
                to: to as u32,
                ready_ns,
                envelope,
            },
        );
    }

    /// The receiver sees the closure one lookahead later.
    fn close(s: &mut Scheduler<M, Self>, g: usize) {
        let at_ns = s.now_ns.saturating_add(s.sem.latency_ns);
        if s.links[g].to == ELSEWHERE {
            let far = s.peer[g] as usize;
            s.sem.owe(far, g, |link| Effect::Closed { link, at_ns });
        } else {
            s.links[g].book.closed_at = at_ns;
            s.notify_closed(g, at_ns);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::scheduler::Link;
    use super::super::today;
    use super::*;

    /// The memory plan (`LOOKAHEAD_BYTES_PER_LINK`) counts nothing for a link's books under
    /// the partitioned semantics: they take the place of today's in the link's record.
    #[test]
    fn a_link_under_lookahead_is_no_larger_than_under_todays_rules() {
        assert!(size_of::<Link<(), Book>>() <= size_of::<Link<(), today::Book<()>>>());
        assert!(size_of::<Link<u64, Book>>() <= size_of::<Link<u64, today::Book<u64>>>());
    }
}
