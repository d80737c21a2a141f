//! The scheduler's state: the event queue, the links' queues, and what each processor waits
//! on; and how each simcall is carried out (steps 4 and 5 of the protocol in `sim/`).
//!
//! The scheduler is generic over its [`Semantics`], one type per set of rules: today's
//! sequential rules (`Today`, `today.rs`: a blocked sender goes on when its receiver takes, a
//! closure is seen at once, equal arrivals go to the message sent first in the run) or one
//! part's side of the partitioned ones (`Lookahead`, `lookahead.rs`: every effect that crosses
//! a link is seen one lookahead L later, equal arrivals go by (send time, sender)). The
//! scheduler is compiled once for each, so neither carries the other's branches.
//!
//! It holds tables for its own processors only: under the partitioned semantics a part's
//! scheduler knows its members (by a *local* index, 0 to its size), their out-links, and the
//! cut links that come in to them from other parts. Every index below is local: processors
//! `k` are its members in increasing processor order (all of them, in the identity order,
//! for the sequential engine), links `g` its members' out-links, processor by processor in
//! their link order, then the cut in-links.

use std::collections::VecDeque;

use super::hops::{Hops, routed_key};
use super::queue::EventQueue;
use crate::TieOrder;

use crate::error::{WaitReport, Waiting};
use crate::link::Envelope;
use crate::link::flavors::scheduled::{LinkSet, Reply, Simcall};
use crate::topology::Topology;

/// A link's end in another part (its sender or receiver is not here).
pub(super) const ELSEWHERE: u32 = u32::MAX;

/// What a processor is doing, as the scheduler sees it.
#[derive(Clone, Copy)]
pub(super) enum Wait {
    /// Not started yet: its program begins with its first event, at time 0.
    Start,
    /// Running (or about to be resumed with a reply).
    Running,
    /// Sleeping until `until_ns`.
    Sleep { until_ns: u64 },
    /// Blocked sending on its out-link `link` (its own link index), which is full.
    Send { link: usize },
    /// Blocked receiving on `links`.
    Recv { links: LinkSet },
    /// Occupied until `end_ns` unless a message arrives on `links` before.
    Occupy { links: LinkSet, end_ns: u64 },
    /// Blocked receiving a routed message (from `from`, or any).
    Routed { from: Option<usize> },
    /// Its program has returned.
    Done,
}

pub(super) struct Proc {
    pub(super) wait: Wait,
    /// The (time, sequence number) of its one live event in the queue, if any.
    pending: Option<(u64, u64)>,
}

/// One directed link: a bounded queue owned by the scheduler of its receiver's part, with
/// its semantics' books `B` (whether its sender may send, whether it is closed) beside it,
/// so that a send, a take or a look at the link reads one record.
pub(super) struct Link<M, B> {
    /// The receiver (local index; [`ELSEWHERE`] if in another part).
    pub(super) to: u32,
    /// This link's index among the receiver's links.
    pub(super) at_receiver: u32,
    /// Messages sent and not yet taken, oldest first, each with its send sequence number.
    /// Transfers on a link are serialised, so arrivals never decrease along the queue.
    pub(super) queue: VecDeque<(u64, Envelope<M>)>,
    /// The semantics' books of this link ([`Semantics::Book`]).
    pub(super) book: B,
}

/// Which message a receive can take, by the tie-break rule.
enum Pick {
    /// The earliest message has arrived: take it from in-link `link` (the receiver's index).
    Ready { link: usize },
    /// The earliest message arrives at this time.
    Later(u64),
    /// Nothing on the links; some are open.
    Empty,
    /// Nothing on the links, and all are closed.
    Closed,
}

/// Whether a receive's links can still bring anything, as far as it can see now.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Open {
    /// All are closed and drained.
    No,
    /// The last of them will be seen closed at this time (partitioned semantics).
    Until(u64),
    /// Some may bring a message.
    Yes,
}

/// A link whose other end is in another part, found when a part's scheduler is built.
pub(super) struct CutLink {
    /// Its local index.
    pub(super) local: usize,
    /// Its global out-link index (the sender's links in the topology's order, processor by
    /// processor): how effects name it between parts.
    pub(super) global: usize,
}

/// The rules a scheduler carries out where the sequential and partitioned semantics differ.
/// Processor and link indices are the scheduler's own (local) ones.
pub(crate) trait Semantics<M>: Sized {
    /// The order of equal arrivals on a receive: the message whose key is smallest first.
    type Key: Ord + Copy;

    /// What these rules keep for each link (in its [`Link`] record), as a new link has it.
    type Book: Default;

    /// The global index of processor `k`.
    fn global(&self, k: usize) -> usize;

    /// The index here of processor `pid`, if this scheduler holds it.
    fn local(&self, pid: usize) -> Option<usize>;

    /// The key of message `envelope`, the `seq`-th the scheduler queued (with its arrival
    /// first: the earliest arrival is taken first).
    fn key(seq: u64, envelope: &Envelope<M>) -> Self::Key;

    /// Processor `k` sends `envelope` on its out-link `local` (link `g`): the reply it goes
    /// on with, or `None` if it now waits.
    fn send(
        s: &mut Scheduler<M, Self>,
        k: usize,
        local: usize,
        g: usize,
        envelope: Envelope<M>,
    ) -> Option<Reply<M>>;

    /// An event for `k`, blocked sending on its out-link `local`: the reply if it may go on.
    fn send_woken(s: &mut Scheduler<M, Self>, k: usize, local: usize) -> Option<Reply<M>>;

    /// Whether link `g` (its receiver here) is closed, as its receiver sees it now.
    fn closed(s: &Scheduler<M, Self>, g: usize) -> bool;

    /// Whether the empty link `g` (its receiver here) can still bring anything.
    fn open(s: &Scheduler<M, Self>, g: usize) -> Open;

    /// The receiver of link `g` has just taken a message from it: its sender learns of the
    /// room.
    fn taken(s: &mut Scheduler<M, Self>, g: usize);

    /// The sender of link `g` has finished: its receiver learns that it is closed.
    fn close(s: &mut Scheduler<M, Self>, g: usize);

    /// A routed message to `to` (a global index) reaches processor `at`, which another part
    /// holds, at `ready_ns` (`routed.rs`, step 2): it is handed to that part.
    fn elsewhere(
        s: &mut Scheduler<M, Self>,
        at: usize,
        to: usize,
        ready_ns: u64,
        envelope: Envelope<M>,
    );
}

/// The scheduler's state, under semantics `S`.
pub(crate) struct Scheduler<M, S: Semantics<M>> {
    /// The current emulated time, ns.
    pub(crate) now_ns: u64,
    /// Events: (time, processor, sequence number), smallest first.
    queue: EventQueue,
    next_seq: u64,
    pub(super) procs: Vec<Proc>,
    pub(super) links: Vec<Link<M, S::Book>>,
    /// Per processor: routed messages delivered and not yet taken (`routing`: held without
    /// bound).
    inbox: Vec<Vec<Envelope<M>>>,
    pub(super) capacity: usize,
    /// `first_link[k]..first_link[k + 1]`: the indices of processor k's out-links, in its
    /// link order.
    first_link: Vec<u32>,
    /// For each link, the index of the link in the opposite direction.
    pub(super) reverse: Vec<u32>,
    /// For each out-link, the processor at its far end (a global index).
    pub(super) peer: Vec<u32>,
    /// Each processor's rank among simultaneous events ([`TieOrder`]), and its inverse.
    rank: Vec<u32>,
    by_rank: Vec<u32>,
    /// The semantics' own state.
    pub(super) sem: S,
    /// Routed messages on their way, hop by hop (`hops.rs`).
    pub(super) hops: Hops<M>,
    /// Queue entries taken, simcalls handled, messages delivered, timed waits completed.
    pub(crate) queue_pops: u64,
    pub(crate) simcalls: u64,
    pub(crate) delivered: u64,
    pub(crate) timed_waits: u64,
}

impl<M, S: Semantics<M>> Scheduler<M, S> {
    /// Step 1: the processors `sem` holds of `topology` (`sem.local`), with their out-links
    /// and the links coming in to them, as bounded queues of `capacity`; every processor
    /// ready to start at time 0, no routed message on its way (`hops`). Returns it with the
    /// links whose other end is elsewhere.
    pub(super) fn build(
        topology: &Topology,
        capacity: usize,
        ties: TieOrder,
        sem: S,
        hops: Hops<M>,
        members: usize,
    ) -> (Self, Vec<CutLink>) {
        let graph = topology.graph();
        // Among simultaneous events the queue takes the smallest rank first: the members
        // keep the order the tie rule gives them in the whole machine.
        let global_rank = ties.ranks(topology.len());
        let mut by_rank: Vec<u32> = (0..members as u32).collect();
        by_rank.sort_unstable_by_key(|&k| global_rank[sem.global(k as usize)]);
        drop(global_rank);
        let mut rank = vec![0u32; members];
        for (r, &k) in by_rank.iter().enumerate() {
            rank[k as usize] = r as u32;
        }
        let mut first_link = Vec::with_capacity(members + 1);
        let mut peer = Vec::new();
        first_link.push(0u32);
        for k in 0..members {
            peer.extend_from_slice(graph.row(sem.global(k)));
            first_link.push(peer.len() as u32);
        }
        let outs = peer.len();
        // The reverse of i → j (i's link kk) is j → i, at j's link back(i, kk): here if j is,
        // else a cut in-link, numbered after the out-links.
        let mut reverse = vec![0u32; outs];
        let mut links = Vec::with_capacity(outs);
        let mut cut_in = Vec::new();
        let mut cuts = Vec::new();
        let link = |to: u32, at_receiver: usize| Link {
            to,
            at_receiver: at_receiver as u32,
            queue: VecDeque::new(),
            book: S::Book::default(),
        };
        for k in 0..members {
            let i = sem.global(k);
            let base = first_link[k] as usize;
            for kk in 0..graph.degree(i) {
                let g = base + kk;
                let j = peer[g] as usize;
                let back = graph.back(i, kk);
                match sem.local(j) {
                    Some(lj) => {
                        reverse[g] = first_link[lj] + back as u32;
                        links.push(link(lj as u32, back));
                    }
                    None => {
                        let c = outs + cut_in.len();
                        reverse[g] = c as u32;
                        reverse.push(g as u32);
                        links.push(link(ELSEWHERE, back));
                        cut_in.push(link(k as u32, kk));
                        cuts.push(CutLink {
                            local: g,
                            global: graph.entry(i, kk),
                        });
                        cuts.push(CutLink {
                            local: c,
                            global: graph.entry(j, back),
                        });
                    }
                }
            }
        }
        links.extend(cut_in);
        let mut s = Self {
            now_ns: 0,
            queue: EventQueue::new(),
            next_seq: 0,
            procs: (0..members)
                .map(|_| Proc {
                    wait: Wait::Start,
                    pending: None,
                })
                .collect(),
            links,
            inbox: (0..members).map(|_| Vec::new()).collect(),
            capacity,
            first_link,
            reverse,
            peer,
            rank,
            by_rank,
            sem,
            hops,
            queue_pops: 0,
            simcalls: 0,
            delivered: 0,
            timed_waits: 0,
        };
        for k in 0..members {
            s.schedule(k, 0);
        }
        (s, cuts)
    }

    /// The global index of processor `k`.
    #[inline]
    pub(crate) fn global(&self, k: usize) -> usize {
        self.sem.global(k)
    }

    #[inline]
    pub(super) fn out_link(&self, k: usize, local: usize) -> usize {
        self.first_link[k] as usize + local
    }

    #[inline]
    fn in_link(&self, k: usize, local: usize) -> usize {
        self.reverse[self.out_link(k, local)] as usize
    }

    /// The sender of link `g` (local; [`ELSEWHERE`] if in another part).
    #[inline]
    pub(super) fn sender(&self, g: usize) -> u32 {
        self.links[self.reverse[g] as usize].to
    }

    /// Queues an event for `k` at `at_ns`, unless it already has one no later.
    pub(super) fn schedule(&mut self, k: usize, at_ns: u64) {
        if self.procs[k].pending.is_some_and(|(t, _)| t <= at_ns) {
            return;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.procs[k].pending = Some((at_ns, seq));
        self.queue.push(at_ns, self.rank[k], seq);
    }

    /// Step 5: the next live event, in (time, tie rank) order; the clock moves to its time.
    /// Events superseded by an earlier one for the same processor are skipped. Hops of
    /// routed messages due by then are carried out first.
    #[inline]
    pub(crate) fn next_event(&mut self) -> Option<usize> {
        loop {
            self.hops_before(u64::MAX);
            let (t, rank, seq) = self.queue.pop()?;
            let k = self.by_rank[rank as usize] as usize;
            if self.procs[k].pending.is_some_and(|(_, s)| s == seq) {
                self.procs[k].pending = None;
                self.now_ns = t;
                self.queue_pops += 1;
                return Some(k);
            }
        }
    }

    /// As [`Scheduler::next_event`], for an event before `limit_ns` only (a window's end).
    #[inline]
    pub(crate) fn next_event_before(&mut self, limit_ns: u64) -> Option<usize> {
        if limit_ns == u64::MAX {
            return self.next_event();
        }
        loop {
            self.hops_before(limit_ns);
            if self.queue.next_time()? >= limit_ns {
                return None;
            }
            let (t, rank, seq) = self.queue.pop()?;
            let k = self.by_rank[rank as usize] as usize;
            if self.procs[k].pending.is_some_and(|(_, s)| s == seq) {
                self.procs[k].pending = None;
                self.now_ns = t;
                self.queue_pops += 1;
                return Some(k);
            }
        }
    }

    /// Carries out the hops of routed messages due before `limit_ns` and no later than the
    /// next queued event: a hop goes before the processors' events at its time.
    #[inline]
    fn hops_before(&mut self, limit_ns: u64) {
        while let Some(h) = self.hops.next_ns() {
            if h >= limit_ns || self.queue.next_time().is_some_and(|t| t < h) {
                return;
            }
            self.now_ns = h;
            self.hop();
        }
    }

    /// A lower bound of the next event's time (superseded events count), if any is queued,
    /// hops of routed messages included.
    pub(crate) fn next_time(&self) -> Option<u64> {
        [self.queue.next_time(), self.hops.next_ns()]
            .into_iter()
            .flatten()
            .min()
    }

    /// The reply that an event wakes `k` with, or `None` if what it waits on is not there
    /// yet (it stays blocked; a new event has been queued if one is due).
    pub(crate) fn wake(&mut self, k: usize) -> Option<Reply<M>> {
        match self.procs[k].wait {
            // Every wait looks again at what it waits for, so that no event can resume a
            // processor early: a sleep until its end, a blocked send until it may go on.
            Wait::Sleep { until_ns } if self.now_ns < until_ns => {
                self.schedule(k, until_ns);
                None
            }
            Wait::Sleep { .. } => {
                self.timed_waits += 1;
                Some(self.go(k))
            }
            Wait::Start => Some(self.go(k)),
            Wait::Send { link } => S::send_woken(self, k, link),
            Wait::Recv { links } => self.recv(k, links),
            Wait::Occupy { links, end_ns } => self.occupy(k, links, end_ns),
            Wait::Routed { from } => self.recv_routed(k, from),
            Wait::Running | Wait::Done => None,
        }
    }

    pub(super) fn go(&mut self, k: usize) -> Reply<M> {
        self.procs[k].wait = Wait::Running;
        Reply::Go {
            now_ns: self.now_ns,
        }
    }

    /// Step 4: carries out `call` from `k`. Returns the reply to resume it with at once, or
    /// `None` if it now waits.
    pub(crate) fn handle(&mut self, k: usize, call: Simcall<M>) -> Option<Reply<M>> {
        self.simcalls += 1;
        match call {
            Simcall::Sleep { until_ns } => {
                self.procs[k].wait = Wait::Sleep { until_ns };
                self.schedule(k, until_ns);
                None
            }
            Simcall::Send { link, envelope } => {
                let g = self.out_link(k, link);
                S::send(self, k, link, g, envelope)
            }
            Simcall::Recv { links } => self.recv(k, links),
            Simcall::TryRecv { links } => {
                // SAFETY: `k` is suspended in this very simcall.
                Some(match unsafe { self.pick(k, links) } {
                    Pick::Ready { link } => self.take(k, link),
                    _ => Reply::Nothing,
                })
            }
            Simcall::OccupyOrRecv { links, end_ns } => self.occupy(k, links, end_ns),
            Simcall::IsClosed { link } => {
                let g = self.in_link(k, link);
                let closed = S::closed(self, g);
                Some(Reply::Flag(closed && self.links[g].queue.is_empty()))
            }
            Simcall::Route { to, envelope } => {
                self.route(k, to, envelope);
                Some(Reply::Go {
                    now_ns: self.now_ns,
                })
            }
            Simcall::RecvRouted { from } => self.recv_routed(k, from),
        }
    }

    /// Holds a routed message at processor `to` (local) and lets it know, if it waits for
    /// one like it.
    pub(super) fn hold(&mut self, to: usize, envelope: Envelope<M>) {
        let arrive = envelope.arrive_ns.max(self.now_ns);
        let due = match self.procs[to].wait {
            Wait::Routed { from } => from.is_none_or(|f| f == envelope.from),
            _ => false,
        };
        self.inbox[to].push(envelope);
        if due {
            self.schedule(to, arrive);
        }
    }

    /// A routed receive: the earliest arrival (ties by [`routed_key`]) among the messages
    /// held for `k` from `from` (or any), if it has arrived.
    fn recv_routed(&mut self, k: usize, from: Option<usize>) -> Option<Reply<M>> {
        let best = self.inbox[k]
            .iter()
            .enumerate()
            .filter(|(_, e)| from.is_none_or(|f| f == e.from))
            .min_by_key(|(_, e)| routed_key(e))
            .map(|(i, e)| (i, e.arrive_ns));
        match best {
            Some((i, t)) if t <= self.now_ns => {
                self.procs[k].wait = Wait::Running;
                self.delivered += 1;
                let envelope = self.inbox[k].swap_remove(i);
                Some(Reply::Routed {
                    now_ns: self.now_ns,
                    envelope,
                })
            }
            Some((_, t)) => {
                self.procs[k].wait = Wait::Routed { from };
                self.schedule(k, t);
                None
            }
            None => {
                self.procs[k].wait = Wait::Routed { from };
                None
            }
        }
    }

    /// Puts a message on link `g` and lets its receiver know, if it waits for it.
    #[inline]
    pub(super) fn enqueue(&mut self, g: usize, envelope: Envelope<M>) {
        let arrive = envelope.arrive_ns.max(self.now_ns);
        let seq = self.next_seq;
        self.next_seq += 1;
        let link = &mut self.links[g];
        link.queue.push_back((seq, envelope));
        let (to, at) = (link.to as usize, link.at_receiver as usize);
        self.notify(to, at, arrive);
    }

    /// In-link `at` of `k` has news at `at_ns` (a message arriving then, or its closure):
    /// wake `k` then if it waits on that link.
    pub(super) fn notify(&mut self, k: usize, at: usize, at_ns: u64) {
        let due = match self.procs[k].wait {
            // SAFETY (both arms): the processor is suspended in the simcall that lent `links`.
            Wait::Recv { links } => unsafe { links.contains(at) },
            Wait::Occupy { links, end_ns } => at_ns < end_ns && unsafe { links.contains(at) },
            _ => false,
        };
        if due {
            self.schedule(k, at_ns);
        }
    }

    /// Calls `look` with each of `links` (the receiver's link indices).
    ///
    /// # Safety
    ///
    /// As [`Scheduler::earliest`].
    unsafe fn each_link(links: LinkSet, mut look: impl FnMut(usize)) {
        match links.mask {
            Some(mut mask) => {
                while mask != 0 {
                    look(mask.trailing_zeros() as usize);
                    mask &= mask - 1;
                }
            }
            // SAFETY: the caller's guarantee.
            None => unsafe { links.links() }.iter().for_each(|l| look(l.0)),
        }
    }

    /// The oldest message over `links` with the earliest arrival (ties by the semantics'
    /// rule), as (arrival, the receiver's link).
    ///
    /// # Safety
    ///
    /// `k` is suspended in the simcall that lent `links`.
    unsafe fn earliest(&self, k: usize, links: LinkSet) -> Option<(u64, usize)> {
        let mut best: Option<(S::Key, u64, usize)> = None;
        let look = |l: usize| {
            let g = self.in_link(k, l);
            if let Some((seq, e)) = self.links[g].queue.front() {
                let key = S::key(*seq, e);
                if best.as_ref().is_none_or(|(b, _, _)| key < *b) {
                    best = Some((key, e.arrive_ns, l));
                }
            }
        };
        // SAFETY: the caller's guarantee.
        unsafe { Self::each_link(links, look) };
        best.map(|(_, t, link)| (t, link))
    }

    /// Whether any of `links`, all of them empty, can still bring anything. Asked only when
    /// a receive finds nothing ([`Scheduler::pick`]), never on the way to a message.
    ///
    /// # Safety
    ///
    /// As [`Scheduler::earliest`].
    unsafe fn open(&self, k: usize, links: LinkSet) -> Open {
        let mut open = Open::No;
        // SAFETY: the caller's guarantee.
        unsafe {
            Self::each_link(links, |l| {
                open = open.max(S::open(self, self.in_link(k, l)))
            })
        };
        open
    }

    /// Which message a receive on `links` takes now.
    ///
    /// # Safety
    ///
    /// As [`Scheduler::earliest`].
    unsafe fn pick(&self, k: usize, links: LinkSet) -> Pick {
        // SAFETY (both): the caller's guarantee.
        match unsafe { self.earliest(k, links) } {
            Some((t, link)) if t <= self.now_ns => Pick::Ready { link },
            Some((t, _)) => Pick::Later(t),
            None => match unsafe { self.open(k, links) } {
                Open::Yes => Pick::Empty,
                // Every link waited on will be seen closed then (partitioned semantics).
                Open::Until(t) => Pick::Later(t),
                Open::No => Pick::Closed,
            },
        }
    }

    fn recv(&mut self, k: usize, links: LinkSet) -> Option<Reply<M>> {
        // SAFETY: `k` is suspended in the simcall that lent `links`.
        match unsafe { self.pick(k, links) } {
            Pick::Ready { link } => Some(self.take(k, link)),
            Pick::Closed => {
                self.procs[k].wait = Wait::Running;
                Some(Reply::Closed)
            }
            Pick::Later(t) => {
                self.procs[k].wait = Wait::Recv { links };
                self.schedule(k, t);
                None
            }
            Pick::Empty => {
                self.procs[k].wait = Wait::Recv { links };
                None
            }
        }
    }

    fn occupy(&mut self, k: usize, links: LinkSet, end_ns: u64) -> Option<Reply<M>> {
        // SAFETY: `k` is suspended in the simcall that lent `links`.
        match unsafe { self.earliest(k, links) } {
            // A message arriving before the end interrupts the occupation when it arrives.
            Some((t, link)) if t < end_ns && t <= self.now_ns => Some(self.take(k, link)),
            Some((t, _)) if t < end_ns => {
                self.procs[k].wait = Wait::Occupy { links, end_ns };
                self.schedule(k, t);
                None
            }
            _ => self.complete_or_wait(k, links, end_ns),
        }
    }

    fn complete_or_wait(&mut self, k: usize, links: LinkSet, end_ns: u64) -> Option<Reply<M>> {
        if self.now_ns >= end_ns {
            self.timed_waits += 1;
            self.procs[k].wait = Wait::Running;
            return Some(Reply::Completed {
                now_ns: self.now_ns,
            });
        }
        self.procs[k].wait = Wait::Occupy { links, end_ns };
        self.schedule(k, end_ns);
        None
    }

    /// Hands `k` the oldest message of its in-link `local`; its sender learns of the freed
    /// room by the semantics' rule.
    fn take(&mut self, k: usize, local: usize) -> Reply<M> {
        // The taker runs from now on: a message a blocked sender gets in must not look like
        // news for it (it sees it on its next receive).
        self.procs[k].wait = Wait::Running;
        self.delivered += 1;
        let g = self.in_link(k, local);
        let Some((_, envelope)) = self.links[g].queue.pop_front() else {
            unreachable!("take() is only called on a link with a message")
        };
        S::taken(self, g);
        Reply::Message {
            now_ns: self.now_ns,
            link: local,
            envelope,
        }
    }

    /// `k`'s program has returned: its out-links close, and their receivers learn of it by
    /// the semantics' rule.
    pub(crate) fn finish(&mut self, k: usize) {
        self.procs[k].wait = Wait::Done;
        self.procs[k].pending = None;
        let (a, b) = (self.first_link[k] as usize, self.first_link[k + 1] as usize);
        for g in a..b {
            S::close(self, g);
        }
    }

    /// What every unfinished processor waits on (a deadlock, when the queue is empty), by
    /// global index.
    pub(crate) fn waits(&self) -> Vec<WaitReport> {
        let peer_of = |k: usize, local: usize| self.peer[self.out_link(k, local)] as usize;
        self.procs
            .iter()
            .enumerate()
            .filter_map(|(k, p)| {
                let waiting = match p.wait {
                    Wait::Send { link } => Waiting::Send {
                        to: peer_of(k, link),
                    },
                    // SAFETY (both arms): an unfinished processor is suspended in its simcall.
                    Wait::Recv { links } | Wait::Occupy { links, .. } => Waiting::Receive {
                        from: unsafe { links.links() }
                            .iter()
                            .map(|l| peer_of(k, l.0))
                            .collect(),
                    },
                    Wait::Routed { from } => Waiting::Routed { from },
                    Wait::Start | Wait::Sleep { .. } | Wait::Running | Wait::Done => return None,
                };
                Some(WaitReport {
                    processor: self.global(k),
                    waiting,
                })
            })
            .collect()
    }

    /// Marks `k` running (it is about to be resumed).
    pub(crate) fn resuming(&mut self, k: usize) {
        self.procs[k].wait = Wait::Running;
    }
}
