//! The scheduler's state: the event queue, the links' queues, and what each processor waits
//! on; and how each simcall is carried out (steps 4 and 5 of the protocol in `sim/`).

use std::collections::VecDeque;

use super::lookahead::{Lookahead, OPEN};
use super::queue::EventQueue;
use crate::TieOrder;
use crate::engines::effect::Effect;

use crate::error::{WaitReport, Waiting};
use crate::link::Envelope;
use crate::link::flavors::scheduled::{LinkSet, Reply, Simcall};
use crate::topology::Topology;

/// What a processor is doing, as the scheduler sees it.
#[derive(Clone, Copy)]
enum Wait {
    /// Not started yet: its program begins with its first event, at time 0.
    Start,
    /// Running (or about to be resumed with a reply).
    Running,
    /// Sleeping until `until_ns`.
    Sleep { until_ns: u64 },
    /// Blocked sending on its out-link `link` (local index), which is full.
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

struct Proc {
    wait: Wait,
    /// The (time, sequence number) of its one live event in the queue, if any.
    pending: Option<(u64, u64)>,
}

/// One directed link: a bounded queue owned by the scheduler.
struct Link<M> {
    /// The receiver.
    to: u32,
    /// This link's index among the receiver's links.
    at_receiver: u32,
    /// Messages sent and not yet taken, oldest first, each with its send sequence number.
    /// Transfers on a link are serialised, so arrivals never decrease along the queue.
    queue: VecDeque<(u64, Envelope<M>)>,
    /// A sender's message waiting for room.
    blocked: Option<Envelope<M>>,
    /// The sender has finished: nothing more will come.
    sender_done: bool,
}

/// Which message a receive can take, by the tie-break rule.
enum Pick {
    /// The earliest message has arrived: take it from in-link `link` (local index).
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
enum Open {
    /// All are closed and drained.
    No,
    /// The last of them will be seen closed at this time (partitioned semantics).
    Until(u64),
    /// Some may bring a message.
    Yes,
}

/// The scheduler's state.
pub(crate) struct Scheduler<M> {
    /// The current emulated time, ns.
    pub(crate) now_ns: u64,
    /// Events: (time, processor, sequence number), smallest first.
    queue: EventQueue,
    next_seq: u64,
    procs: Vec<Proc>,
    links: Vec<Link<M>>,
    /// Per processor: routed messages delivered and not yet taken, each with its sequence
    /// number (`routing`: held without bound).
    inbox: Vec<Vec<(u64, Envelope<M>)>>,
    capacity: usize,
    /// `first_link[i]..first_link[i + 1]`: the global indices of processor i's out-links, in
    /// its local link order.
    first_link: Vec<u32>,
    /// For each global out-link, the global index of the link in the opposite direction.
    reverse: Vec<u32>,
    /// For each global out-link, the processor at its far end.
    peer: Vec<u32>,
    /// Each processor's rank among simultaneous events ([`TieOrder`]), and its inverse.
    rank: Vec<u32>,
    by_rank: Vec<u32>,
    /// The partitioned semantics (`--partitions`), if this scheduler runs one part of them.
    la: Option<Box<Lookahead<M>>>,
    /// Queue entries taken, simcalls handled, messages delivered, timed waits completed.
    pub(crate) queue_pops: u64,
    pub(crate) simcalls: u64,
    pub(crate) delivered: u64,
    pub(crate) timed_waits: u64,
}

impl<M> Scheduler<M> {
    /// The links of `topology` as bounded queues of `capacity`, every processor ready to start
    /// at time 0 (step 1).
    pub(crate) fn new(topology: &Topology, capacity: usize, ties: TieOrder) -> Self {
        let mut s = Self::build(topology, capacity, ties, None);
        for i in 0..topology.len() {
            s.schedule(i, 0);
        }
        s
    }

    /// As [`Scheduler::new`], for the processors of one part under the partitioned semantics
    /// (`la`); the others' links are seen only through the effects they send.
    pub(crate) fn partitioned(
        topology: &Topology,
        capacity: usize,
        ties: TieOrder,
        la: Lookahead<M>,
    ) -> Self {
        let mut s = Self::build(topology, capacity, ties, Some(Box::new(la)));
        for i in 0..topology.len() {
            if s.la.as_ref().is_some_and(|la| la.is_here(i)) {
                s.schedule(i, 0);
            } else {
                s.procs[i].wait = Wait::Done;
            }
        }
        s
    }

    fn build(
        topology: &Topology,
        capacity: usize,
        ties: TieOrder,
        la: Option<Box<Lookahead<M>>>,
    ) -> Self {
        let n = topology.len();
        // Among simultaneous events the queue takes the smallest rank first.
        let rank = ties.ranks(n);
        let mut by_rank = vec![0u32; n];
        for (pid, &r) in rank.iter().enumerate() {
            by_rank[r as usize] = pid as u32;
        }
        let mut first_link = Vec::with_capacity(n + 1);
        let mut peer = Vec::with_capacity(2 * topology.links());
        first_link.push(0u32);
        for i in 0..n {
            peer.extend(topology.neighbours(i).into_iter().map(|j| j as u32));
            first_link.push(peer.len() as u32);
        }
        // The reverse of i → j (at i's local index k) is j → i, at j's local index back(i, k).
        let mut reverse = vec![0u32; peer.len()];
        for i in 0..n {
            let base = first_link[i] as usize;
            for k in 0..(first_link[i + 1] as usize - base) {
                let j = peer[base + k] as usize;
                reverse[base + k] = first_link[j] + topology.back(i, k) as u32;
            }
        }
        let links = (0..peer.len())
            .map(|g| {
                let back = reverse[g] as usize;
                let to = peer[g];
                Link {
                    to,
                    at_receiver: (back - first_link[to as usize] as usize) as u32,
                    queue: VecDeque::new(),
                    blocked: None,
                    sender_done: false,
                }
            })
            .collect();
        Self {
            now_ns: 0,
            queue: EventQueue::new(),
            next_seq: 0,
            procs: (0..n)
                .map(|_| Proc {
                    wait: Wait::Start,
                    pending: None,
                })
                .collect(),
            links,
            inbox: (0..n).map(|_| Vec::new()).collect(),
            capacity,
            first_link,
            reverse,
            peer,
            rank,
            by_rank,
            la,
            queue_pops: 0,
            simcalls: 0,
            delivered: 0,
            timed_waits: 0,
        }
    }

    /// The partitioned semantics' state (a partitioned scheduler only).
    pub(crate) fn lookahead(&mut self) -> Option<&mut Lookahead<M>> {
        self.la.as_deref_mut()
    }

    fn out_link(&self, pid: usize, local: usize) -> usize {
        self.first_link[pid] as usize + local
    }

    fn in_link(&self, pid: usize, local: usize) -> usize {
        self.reverse[self.out_link(pid, local)] as usize
    }

    /// Queues an event for `pid` at `at_ns`, unless it already has one no later.
    fn schedule(&mut self, pid: usize, at_ns: u64) {
        if self.procs[pid].pending.is_some_and(|(t, _)| t <= at_ns) {
            return;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.procs[pid].pending = Some((at_ns, seq));
        self.queue.push(at_ns, self.rank[pid], seq);
    }

    /// Step 5: the next live event, in (time, tie rank) order; the clock moves to its time.
    /// Events superseded by an earlier one for the same processor are skipped.
    pub(crate) fn next_event(&mut self) -> Option<usize> {
        while let Some((t, rank, seq)) = self.queue.pop() {
            let pid = self.by_rank[rank as usize] as usize;
            if self.procs[pid].pending.is_some_and(|(_, s)| s == seq) {
                self.procs[pid].pending = None;
                self.now_ns = t;
                self.queue_pops += 1;
                return Some(pid);
            }
        }
        None
    }

    /// As [`Scheduler::next_event`], for an event before `limit_ns` only (a window's end).
    pub(crate) fn next_event_before(&mut self, limit_ns: u64) -> Option<usize> {
        if limit_ns == u64::MAX {
            return self.next_event();
        }
        loop {
            if self.queue.next_time()? >= limit_ns {
                return None;
            }
            let (t, rank, seq) = self.queue.pop()?;
            let pid = self.by_rank[rank as usize] as usize;
            if self.procs[pid].pending.is_some_and(|(_, s)| s == seq) {
                self.procs[pid].pending = None;
                self.now_ns = t;
                self.queue_pops += 1;
                return Some(pid);
            }
        }
    }

    /// A lower bound of the next event's time (superseded events count), if any is queued.
    pub(crate) fn next_time(&self) -> Option<u64> {
        self.queue.next_time()
    }

    /// The reply that an event wakes `pid` with, or `None` if what it waits on is not there
    /// yet (it stays blocked; a new event has been queued if one is due).
    pub(crate) fn wake(&mut self, pid: usize) -> Option<Reply<M>> {
        match self.procs[pid].wait {
            // Every wait looks again at what it waits for, so that no event can resume a
            // processor early: a sleep until its end, a blocked send until its message left.
            Wait::Sleep { until_ns } if self.now_ns < until_ns => {
                self.schedule(pid, until_ns);
                None
            }
            Wait::Sleep { .. } => {
                self.timed_waits += 1;
                Some(self.go(pid))
            }
            Wait::Start => Some(self.go(pid)),
            Wait::Send { link } if self.la.is_some() => self.room_seen(pid, link),
            Wait::Send { link } if self.links[self.out_link(pid, link)].blocked.is_some() => None,
            Wait::Send { .. } => Some(self.go(pid)),
            Wait::Recv { links } => self.recv(pid, links),
            Wait::Occupy { links, end_ns } => self.occupy(pid, links, end_ns),
            Wait::Routed { from } => self.recv_routed(pid, from),
            Wait::Running | Wait::Done => None,
        }
    }

    fn go(&mut self, pid: usize) -> Reply<M> {
        self.procs[pid].wait = Wait::Running;
        Reply::Go {
            now_ns: self.now_ns,
        }
    }

    /// Step 4: carries out `call` from `pid`. Returns the reply to resume it with at once, or
    /// `None` if it now waits.
    pub(crate) fn handle(&mut self, pid: usize, call: Simcall<M>) -> Option<Reply<M>> {
        self.simcalls += 1;
        match call {
            Simcall::Sleep { until_ns } => {
                self.procs[pid].wait = Wait::Sleep { until_ns };
                self.schedule(pid, until_ns);
                None
            }
            Simcall::Send { link, envelope } => self.send(pid, link, envelope),
            Simcall::Recv { links } => self.recv(pid, links),
            Simcall::TryRecv { links } => {
                // SAFETY: `pid` is suspended in this very simcall.
                Some(match unsafe { self.pick(pid, links) } {
                    Pick::Ready { link } => self.take(pid, link),
                    _ => Reply::Nothing,
                })
            }
            Simcall::OccupyOrRecv { links, end_ns } => self.occupy(pid, links, end_ns),
            Simcall::IsClosed { link } => {
                let g = self.in_link(pid, link);
                let l = &self.links[g];
                let closed = match &self.la {
                    Some(la) => la.closed_at[g] <= self.now_ns,
                    None => l.sender_done,
                };
                Some(Reply::Flag(closed && l.queue.is_empty()))
            }
            Simcall::Route { to, envelope } => {
                self.route(to, envelope);
                Some(Reply::Go {
                    now_ns: self.now_ns,
                })
            }
            Simcall::RecvRouted { from } => self.recv_routed(pid, from),
        }
    }

    /// Holds a routed message at `to` and lets it know, if it waits for one like it.
    fn route(&mut self, to: usize, envelope: Envelope<M>) {
        let arrive = envelope.arrive_ns.max(self.now_ns);
        let due = match self.procs[to].wait {
            Wait::Routed { from } => from.is_none_or(|f| f == envelope.from),
            _ => false,
        };
        let seq = self.next_seq;
        self.next_seq += 1;
        self.inbox[to].push((seq, envelope));
        if due {
            self.schedule(to, arrive);
        }
    }

    /// A routed receive: the earliest arrival (ties to the one sent first) among the
    /// messages held for `pid` from `from` (or any), if it has arrived.
    fn recv_routed(&mut self, pid: usize, from: Option<usize>) -> Option<Reply<M>> {
        let best = self.inbox[pid]
            .iter()
            .enumerate()
            .filter(|(_, (_, e))| from.is_none_or(|f| f == e.from))
            .min_by_key(|(_, (seq, e))| (e.arrive_ns, *seq))
            .map(|(i, (_, e))| (i, e.arrive_ns));
        match best {
            Some((i, t)) if t <= self.now_ns => {
                self.procs[pid].wait = Wait::Running;
                self.delivered += 1;
                let (_, envelope) = self.inbox[pid].swap_remove(i);
                Some(Reply::Routed {
                    now_ns: self.now_ns,
                    envelope,
                })
            }
            Some((_, t)) => {
                self.procs[pid].wait = Wait::Routed { from };
                self.schedule(pid, t);
                None
            }
            None => {
                self.procs[pid].wait = Wait::Routed { from };
                None
            }
        }
    }

    fn send(&mut self, pid: usize, local: usize, envelope: Envelope<M>) -> Option<Reply<M>> {
        let g = self.out_link(pid, local);
        if self.la.is_some() {
            return self.send_ahead(pid, local, g, envelope);
        }
        if self.links[g].queue.len() < self.capacity {
            self.enqueue(g, envelope);
            Some(Reply::Go {
                now_ns: self.now_ns,
            })
        } else {
            assert!(
                self.links[g].blocked.is_none(),
                "P{pid} overwrote a blocked message on link {g}"
            );
            self.links[g].blocked = Some(envelope);
            self.procs[pid].wait = Wait::Send { link: local };
            None
        }
    }

    /// A send under the partitioned semantics: the message goes at once (to its receiver's
    /// queue, or to its part); the sender goes on if the link's room it has seen allows,
    /// else waits until it sees a take.
    fn send_ahead(
        &mut self,
        pid: usize,
        local: usize,
        g: usize,
        envelope: Envelope<M>,
    ) -> Option<Reply<M>> {
        let to = self.links[g].to as usize;
        let now = self.now_ns;
        let la = self.la.as_deref_mut()?;
        la.sent[g] += 1;
        let full = la.in_flight(g, now) > self.capacity as u64;
        if la.is_here(to) {
            self.enqueue(g, envelope);
        } else {
            la.owe(
                to,
                Effect::Message {
                    link: g as u32,
                    envelope,
                },
            );
        }
        if full {
            self.procs[pid].wait = Wait::Send { link: local };
            self.room_seen(pid, local)
        } else {
            Some(Reply::Go { now_ns: now })
        }
    }

    /// A sender blocked on its out-link `local` (partitioned semantics): goes on if it now
    /// sees room; else waits for the next take it will see.
    fn room_seen(&mut self, pid: usize, local: usize) -> Option<Reply<M>> {
        let g = self.out_link(pid, local);
        let now = self.now_ns;
        let la = self.la.as_deref_mut()?;
        if la.in_flight(g, now) <= self.capacity as u64 {
            return Some(self.go(pid));
        }
        if let Some(&at) = la.room_at[g].front() {
            self.schedule(pid, at);
        }
        None
    }

    /// Takes an effect another part sent this one (partitioned semantics).
    pub(crate) fn apply(&mut self, effect: Effect<M>) {
        let Some(la) = self.la.as_deref_mut() else {
            return;
        };
        la.effects_received += 1;
        match effect {
            Effect::Message { link, envelope } => self.enqueue(link as usize, envelope),
            Effect::Room { link, at_ns } => {
                la.room_at[link as usize].push_back(at_ns);
                self.room_made(link as usize, at_ns);
            }
            Effect::Closed { link, at_ns } => {
                la.closed_at[link as usize] = at_ns;
                let l = &self.links[link as usize];
                let (to, at) = (l.to as usize, l.at_receiver as usize);
                self.notify_closed(to, at, at_ns);
            }
            Effect::Ended(_) => {}
        }
    }

    /// The sender of out-link `g` will see a take at `at_ns`: it looks then if it waits on
    /// that link.
    fn room_made(&mut self, g: usize, at_ns: u64) {
        let sender = self.peer[self.reverse[g] as usize] as usize;
        if let Wait::Send { link } = self.procs[sender].wait {
            if self.out_link(sender, link) == g {
                self.schedule(sender, at_ns);
            }
        }
    }

    /// In-link `at` of `pid` will be seen closed at `at_ns` (partitioned semantics): a
    /// receive waiting on it looks then (an occupation does not care).
    fn notify_closed(&mut self, pid: usize, at: usize, at_ns: u64) {
        // SAFETY: the processor is suspended in the simcall that lent `links`.
        if let Wait::Recv { links } = self.procs[pid].wait {
            if unsafe { links.contains(at) } {
                self.schedule(pid, at_ns);
            }
        }
    }

    /// Puts a message on link `g` and lets its receiver know, if it waits for it.
    fn enqueue(&mut self, g: usize, envelope: Envelope<M>) {
        let arrive = envelope.arrive_ns.max(self.now_ns);
        let seq = self.next_seq;
        self.next_seq += 1;
        let link = &mut self.links[g];
        link.queue.push_back((seq, envelope));
        let (to, at) = (link.to as usize, link.at_receiver as usize);
        self.notify(to, at, arrive);
    }

    /// In-link `at` of `pid` has news at `at_ns` (a message arriving then, or its closure):
    /// wake `pid` then if it waits on that link.
    fn notify(&mut self, pid: usize, at: usize, at_ns: u64) {
        let due = match self.procs[pid].wait {
            // SAFETY (both arms): the processor is suspended in the simcall that lent `links`.
            Wait::Recv { links } => unsafe { links.contains(at) },
            Wait::Occupy { links, end_ns } => at_ns < end_ns && unsafe { links.contains(at) },
            _ => false,
        };
        if due {
            self.schedule(pid, at_ns);
        }
    }

    /// The oldest message over `links` with the earliest arrival (ties to the one sent first),
    /// as (arrival, local link), and whether any of the links is still open.
    ///
    /// # Safety
    ///
    /// `pid` is suspended in the simcall that lent `links`.
    unsafe fn earliest(&self, pid: usize, links: LinkSet) -> (Option<(u64, usize)>, Open) {
        let mut best: Option<((u64, u64, u64), usize)> = None;
        let mut open = Open::No;
        let now = self.now_ns;
        let mut look = |l: usize| {
            let g = self.in_link(pid, l);
            let link = &self.links[g];
            if let Some((seq, e)) = link.queue.front() {
                open = Open::Yes;
                // Today's rule: equal arrivals to the message sent first in the run. The
                // partitioned rule needs a key no part's order of events can change.
                let key = match self.la {
                    None => (e.arrive_ns, *seq, 0),
                    Some(_) => (e.arrive_ns, e.sent_ns, e.from as u64),
                };
                if best.is_none_or(|(k, _)| key < k) {
                    best = Some((key, l));
                }
            } else if let Some(la) = &self.la {
                let closed = la.closed_at[g];
                if closed > now {
                    open = open.max(if closed == OPEN {
                        Open::Yes
                    } else {
                        Open::Until(closed)
                    });
                }
            } else if !link.sender_done || link.blocked.is_some() {
                open = Open::Yes;
            }
        };
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
        (best.map(|((t, _, _), link)| (t, link)), open)
    }

    /// Which message a receive on `links` takes now.
    ///
    /// # Safety
    ///
    /// As [`Scheduler::earliest`].
    unsafe fn pick(&self, pid: usize, links: LinkSet) -> Pick {
        // SAFETY: the caller's guarantee.
        match unsafe { self.earliest(pid, links) } {
            (Some((t, link)), _) if t <= self.now_ns => Pick::Ready { link },
            (Some((t, _)), _) => Pick::Later(t),
            (None, Open::Yes) => Pick::Empty,
            // Every link waited on will be seen closed then (partitioned semantics).
            (None, Open::Until(t)) => Pick::Later(t),
            (None, Open::No) => Pick::Closed,
        }
    }

    fn recv(&mut self, pid: usize, links: LinkSet) -> Option<Reply<M>> {
        // SAFETY: `pid` is suspended in the simcall that lent `links`.
        match unsafe { self.pick(pid, links) } {
            Pick::Ready { link } => Some(self.take(pid, link)),
            Pick::Closed => {
                self.procs[pid].wait = Wait::Running;
                Some(Reply::Closed)
            }
            Pick::Later(t) => {
                self.procs[pid].wait = Wait::Recv { links };
                self.schedule(pid, t);
                None
            }
            Pick::Empty => {
                self.procs[pid].wait = Wait::Recv { links };
                None
            }
        }
    }

    fn occupy(&mut self, pid: usize, links: LinkSet, end_ns: u64) -> Option<Reply<M>> {
        // SAFETY: `pid` is suspended in the simcall that lent `links`.
        match unsafe { self.earliest(pid, links) }.0 {
            // A message arriving before the end interrupts the occupation when it arrives.
            Some((t, link)) if t < end_ns && t <= self.now_ns => Some(self.take(pid, link)),
            Some((t, _)) if t < end_ns => {
                self.procs[pid].wait = Wait::Occupy { links, end_ns };
                self.schedule(pid, t);
                None
            }
            _ => self.complete_or_wait(pid, links, end_ns),
        }
    }

    fn complete_or_wait(&mut self, pid: usize, links: LinkSet, end_ns: u64) -> Option<Reply<M>> {
        if self.now_ns >= end_ns {
            self.timed_waits += 1;
            self.procs[pid].wait = Wait::Running;
            return Some(Reply::Completed {
                now_ns: self.now_ns,
            });
        }
        self.procs[pid].wait = Wait::Occupy { links, end_ns };
        self.schedule(pid, end_ns);
        None
    }

    /// Hands `pid` the oldest message of its in-link `local`; a sender blocked on that link
    /// gets the freed room and goes on now.
    fn take(&mut self, pid: usize, local: usize) -> Reply<M> {
        // The taker runs from now on: the message a blocked sender gets in below must not
        // look like news for it (it sees it on its next receive).
        self.procs[pid].wait = Wait::Running;
        self.delivered += 1;
        let g = self.in_link(pid, local);
        let Some((_, envelope)) = self.links[g].queue.pop_front() else {
            unreachable!("take() is only called on a link with a message")
        };
        if let Some(la) = self.la.as_deref_mut() {
            // The sender sees the room one lookahead later.
            let at_ns = self.now_ns.saturating_add(la.latency_ns);
            let sender = self.peer[self.reverse[g] as usize] as usize;
            if la.is_here(sender) {
                la.room_at[g].push_back(at_ns);
                self.room_made(g, at_ns);
            } else {
                la.owe(
                    sender,
                    Effect::Room {
                        link: g as u32,
                        at_ns,
                    },
                );
            }
        } else if let Some(waiting) = self.links[g].blocked.take() {
            self.enqueue(g, waiting);
            let sender = self.peer[self.reverse[g] as usize] as usize;
            self.schedule(sender, self.now_ns);
        }
        Reply::Message {
            now_ns: self.now_ns,
            link: local,
            envelope,
        }
    }

    /// `pid`'s program has returned: its out-links close, and receivers waiting on them look
    /// again.
    pub(crate) fn finish(&mut self, pid: usize) {
        self.procs[pid].wait = Wait::Done;
        self.procs[pid].pending = None;
        let (a, b) = (
            self.first_link[pid] as usize,
            self.first_link[pid + 1] as usize,
        );
        for g in a..b {
            let link = &mut self.links[g];
            let (to, at) = (link.to as usize, link.at_receiver as usize);
            if let Some(la) = self.la.as_deref_mut() {
                // The receiver sees the closure one lookahead later.
                let at_ns = self.now_ns.saturating_add(la.latency_ns);
                if la.is_here(to) {
                    la.closed_at[g] = at_ns;
                    self.notify_closed(to, at, at_ns);
                } else {
                    la.owe(
                        to,
                        Effect::Closed {
                            link: g as u32,
                            at_ns,
                        },
                    );
                }
                continue;
            }
            link.sender_done = true;
            self.notify(to, at, self.now_ns);
        }
    }

    /// What every unfinished processor waits on (a deadlock, when the queue is empty).
    pub(crate) fn waits(&self) -> Vec<WaitReport> {
        let peer_of = |pid: usize, local: usize| self.peer[self.out_link(pid, local)] as usize;
        self.procs
            .iter()
            .enumerate()
            .filter_map(|(pid, p)| {
                let waiting = match p.wait {
                    Wait::Send { link } => Waiting::Send {
                        to: peer_of(pid, link),
                    },
                    // SAFETY (both arms): an unfinished processor is suspended in its simcall.
                    Wait::Recv { links } | Wait::Occupy { links, .. } => Waiting::Receive {
                        from: unsafe { links.links() }
                            .iter()
                            .map(|l| peer_of(pid, l.0))
                            .collect(),
                    },
                    Wait::Routed { from } => Waiting::Routed { from },
                    Wait::Start | Wait::Sleep { .. } | Wait::Running | Wait::Done => return None,
                };
                Some(WaitReport {
                    processor: pid,
                    waiting,
                })
            })
            .collect()
    }

    /// Marks `pid` running (it is about to be resumed).
    pub(crate) fn resuming(&mut self, pid: usize) {
        self.procs[pid].wait = Wait::Running;
    }
}
