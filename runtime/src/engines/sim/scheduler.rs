//! The scheduler's state: the event queue, the links' queues, and what each processor waits
//! on; and how each simcall is carried out (steps 4 and 5 of the protocol in `sim/`).

use std::collections::VecDeque;

use super::queue::EventQueue;
use crate::TieOrder;

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
        let mut s = Self {
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
            queue_pops: 0,
            simcalls: 0,
            delivered: 0,
            timed_waits: 0,
        };
        for i in 0..n {
            s.schedule(i, 0);
        }
        s
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
                let l = &self.links[self.in_link(pid, link)];
                Some(Reply::Flag(l.sender_done && l.queue.is_empty()))
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
    unsafe fn earliest(&self, pid: usize, links: LinkSet) -> (Option<(u64, usize)>, bool) {
        let mut best: Option<(u64, u64, usize)> = None;
        let mut open = false;
        let mut look = |l: usize| {
            let link = &self.links[self.in_link(pid, l)];
            if let Some((seq, e)) = link.queue.front() {
                open = true;
                if best.is_none_or(|(t, s, _)| (e.arrive_ns, *seq) < (t, s)) {
                    best = Some((e.arrive_ns, *seq, l));
                }
            } else if !link.sender_done || link.blocked.is_some() {
                open = true;
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
        (best.map(|(t, _, link)| (t, link)), open)
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
            (None, true) => Pick::Empty,
            (None, false) => Pick::Closed,
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
        if let Some(waiting) = self.links[g].blocked.take() {
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
            link.sender_done = true;
            let (to, at) = (link.to as usize, link.at_receiver as usize);
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
