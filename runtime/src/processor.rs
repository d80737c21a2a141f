//! The handle a program sees: its links, its emulated clock, and the costs it can charge.
//!
//! A program is a function run once on every processor with a [`Processor`] handle. It sends
//! and receives messages on the links to its neighbours, charges emulated costs with
//! [`occupy`](Processor::occupy) and [`occupy_comm`](Processor::occupy_comm), runs real work
//! with [`compute`](Processor::compute) (charged by the thread's CPU time), and reports the
//! tasks it executed or forwarded.
//!
//! A receive returns the message with the earliest emulated arrival among those that have
//! arrived; if the earliest is still in transit (its overlapped transfer time not yet over), the
//! processor waits for it in real time and looks once more, so that a message that arrives
//! earlier on another link is taken first.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Select, TryRecvError, TrySendError};
use parking_lot::Mutex;

use crate::clock::{LatenessStats, TimeBase, thread_cpu_time};
use crate::error::ProcessorError;
use crate::link::{Envelope, InLink, LinkCost, OutLink, Payload};
use crate::trace::{Accounting, Activity, TraceEvent};

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

pub(crate) const RUNNING: u8 = 0;
pub(crate) const BLOCKED_RECV: u8 = 1;
pub(crate) const BLOCKED_SEND: u8 = 2;
pub(crate) const DONE: u8 = 3;

/// Polls a spinning receiver makes before it tells the deadlock monitor it is blocked.
const SPIN_BEFORE_ANNOUNCE: u32 = 4096;

/// What the deadlock monitor can see of one processor (on its own cache line).
#[repr(align(128))]
#[derive(Debug, Default)]
pub(crate) struct Status {
    pub(crate) state: AtomicU8,
    /// Link indices the processor is blocked on.
    pub(crate) waiting: Mutex<Vec<usize>>,
    /// Messages sent plus received so far.
    pub(crate) progress: AtomicU64,
}

/// State shared by all processors of a run.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) aborted: AtomicBool,
    pub(crate) status: Vec<Status>,
}

/// What [`Processor::occupy_or_recv`] ended with.
#[derive(Debug)]
pub enum Interrupt<M> {
    /// The whole duration was spent; no message arrived in it.
    Completed,
    /// A message arrived part-way through; `remaining` of the duration was not spent.
    Message {
        /// The link it came on.
        link: LinkId,
        /// The message.
        message: M,
        /// The part of the duration still to do.
        remaining: Duration,
    },
}

/// One emulated processor, as its program sees it.
pub struct Processor<M> {
    id: usize,
    level: u32,
    processors: usize,
    peers: Vec<usize>,
    parent: Option<LinkId>,
    children: Vec<LinkId>,
    all_links: Vec<LinkId>,
    out: Vec<OutLink<M>>,
    inl: Vec<InLink<M>>,
    cost: LinkCost,
    free: bool,
    time: TimeBase,
    spin: bool,
    clock_ns: u64,
    tolerance_ns: u64,
    pub(crate) acct: Accounting,
    pub(crate) lateness: LatenessStats,
    pub(crate) trace: Option<Vec<TraceEvent>>,
    shared: Arc<Shared>,
    abort_rx: Receiver<()>,
}

/// Everything [`Processor::new`] needs from the machine.
pub(crate) struct ProcessorParts<M> {
    pub(crate) id: usize,
    pub(crate) level: u32,
    pub(crate) processors: usize,
    pub(crate) peers: Vec<usize>,
    pub(crate) has_parent: bool,
    pub(crate) out: Vec<OutLink<M>>,
    pub(crate) inl: Vec<InLink<M>>,
    pub(crate) cost: LinkCost,
    pub(crate) time: TimeBase,
    pub(crate) spin: bool,
    pub(crate) tolerance_ns: u64,
    pub(crate) trace: bool,
    pub(crate) shared: Arc<Shared>,
    pub(crate) abort_rx: Receiver<()>,
}

impl<M: Payload> Processor<M> {
    pub(crate) fn new(p: ProcessorParts<M>) -> Self {
        let n = p.peers.len();
        let all_links: Vec<LinkId> = (0..n).map(LinkId).collect();
        let (parent, children) = if p.has_parent {
            (Some(LinkId(0)), all_links[1..].to_vec())
        } else {
            (None, all_links.clone())
        };
        Self {
            id: p.id,
            level: p.level,
            processors: p.processors,
            peers: p.peers,
            parent,
            children,
            all_links,
            out: p.out,
            inl: p.inl,
            free: p.cost.is_free(),
            cost: p.cost,
            time: p.time,
            spin: p.spin,
            clock_ns: 0,
            tolerance_ns: p.tolerance_ns,
            acct: Accounting::default(),
            lateness: LatenessStats::default(),
            trace: p.trace.then(Vec::new),
            shared: p.shared,
            abort_rx: p.abort_rx,
        }
    }

    /// This processor's index in the topology.
    pub fn id(&self) -> usize {
        self.id
    }

    /// Its level (1 = leaf).
    pub fn level(&self) -> u32 {
        self.level
    }

    /// Number of processors in the machine.
    pub fn processors(&self) -> usize {
        self.processors
    }

    /// The link to the parent (`None` on the root).
    pub fn parent(&self) -> Option<LinkId> {
        self.parent
    }

    /// The links to the children, in child index order.
    pub fn children(&self) -> &[LinkId] {
        &self.children
    }

    /// All links, the parent's first.
    pub fn links(&self) -> &[LinkId] {
        &self.all_links
    }

    /// The processor at the other end of a link.
    pub fn peer(&self, link: LinkId) -> usize {
        self.peers[link.0]
    }

    /// The link to neighbour `peer`, if it is one.
    pub fn link_to(&self, peer: usize) -> Option<LinkId> {
        self.peers.iter().position(|&p| p == peer).map(LinkId)
    }

    /// The emulated time of this processor since the start of the run.
    pub fn now(&self) -> Duration {
        Duration::from_nanos(self.clock_ns)
    }

    /// The accounting so far.
    pub fn accounting(&self) -> &Accounting {
        &self.acct
    }

    /// Records `n` tasks executed here (for the run's per-processor accounting).
    pub fn record_executed(&mut self, n: u64) {
        self.acct.tasks_executed += n;
    }

    /// Records `n` tasks forwarded from here to other processors.
    pub fn record_forwarded(&mut self, n: u64) {
        self.acct.tasks_forwarded += n;
    }

    /// Whether the run is being aborted (another processor failed); long computations may poll
    /// this and return early.
    pub fn is_aborted(&self) -> bool {
        self.shared.aborted.load(Ordering::Relaxed)
    }

    /// Advances the clock by `ns` charged to `activity`, then waits until that emulated time is
    /// due in real time.
    fn advance(&mut self, ns: u64, activity: Activity, peer: Option<usize>) {
        if ns == 0 {
            return;
        }
        let start = self.clock_ns;
        self.clock_ns += ns;
        match activity {
            Activity::Compute => self.acct.compute_ns += ns,
            Activity::Communication => self.acct.communication_ns += ns,
            Activity::Idle => self.acct.idle_ns += ns,
        }
        if let Some(trace) = &mut self.trace {
            trace.push(TraceEvent {
                processor: self.id,
                activity,
                start_ns: start,
                duration_ns: ns,
                peer,
            });
        }
        self.sync_to_clock();
    }

    /// Waits until the current emulated time is due and records how late that was.
    fn sync_to_clock(&mut self) {
        let late = self.time.wait_until(self.clock_ns);
        self.lateness
            .record(self.time.emulated_of(late), self.tolerance_ns);
    }

    /// Occupies the processor with computation for an emulated duration.
    pub fn occupy(&mut self, duration: Duration) {
        self.advance(duration.as_nanos() as u64, Activity::Compute, None);
    }

    /// Occupies the processor with non-overlapped communication work for an emulated duration
    /// (a software start-up cost such as the farm engine's β_e or β_f).
    pub fn occupy_comm(&mut self, duration: Duration) {
        self.advance(duration.as_nanos() as u64, Activity::Communication, None);
    }

    /// Runs real work and charges its thread CPU time as computation.
    ///
    /// Under dilation the work may take longer in wall time (processors share cores), but it is
    /// charged what it cost the CPU, as if this processor had a core of its own.
    pub fn compute<T>(&mut self, work: impl FnOnce() -> T) -> T {
        let before = thread_cpu_time();
        let out = work();
        let spent = thread_cpu_time().saturating_sub(before);
        self.advance(spent.as_nanos() as u64, Activity::Compute, None);
        out
    }

    /// Sends `message` on `link`.
    ///
    /// Charges the sender the start-up cost and the degradation loop, stamps the message with
    /// its emulated arrival time, and blocks (idle) while the link's buffer is full.
    pub fn send(&mut self, link: LinkId, message: M) -> Result<(), ProcessorError> {
        let l = link.0;
        if l >= self.out.len() {
            return Err(ProcessorError::NoSuchLink(l));
        }
        let peer = self.peers[l];
        let bytes = message.size_bytes();
        let mut arrive_ns = self.clock_ns;
        if !self.free {
            self.advance(
                self.cost.send_overhead.as_nanos() as u64,
                Activity::Communication,
                Some(peer),
            );
            if self.cost.loop_count > 0 {
                let before = thread_cpu_time();
                busy_loop(self.cost.loop_count);
                let spent = thread_cpu_time().saturating_sub(before);
                self.advance(spent.as_nanos() as u64, Activity::Communication, Some(peer));
            }
            let out = &mut self.out[l];
            let depart = self.clock_ns.max(out.free_at_ns);
            let transfer = (self.cost.per_byte_ns * bytes as f64).round() as u64;
            out.free_at_ns = depart + transfer;
            arrive_ns = depart + transfer + self.cost.latency.as_nanos() as u64;
        }
        let envelope = Envelope {
            payload: message,
            arrive_ns,
            bytes,
        };
        match self.out[l].tx.try_send(envelope) {
            Ok(()) => {}
            Err(TrySendError::Full(envelope)) => self.blocked_send(l, envelope)?,
            Err(TrySendError::Disconnected(_)) => return Err(ProcessorError::LinkClosed { peer }),
        }
        self.acct.messages_sent += 1;
        self.acct.bytes_sent += bytes;
        self.note_progress();
        Ok(())
    }

    #[inline]
    fn note_progress(&self) {
        let p = self.acct.messages_sent + self.acct.messages_received;
        self.shared.status[self.id]
            .progress
            .store(p, Ordering::Relaxed);
    }

    fn set_blocked(&self, state: u8, links: &[LinkId]) {
        let status = &self.shared.status[self.id];
        {
            let mut w = status.waiting.lock();
            w.clear();
            w.extend(links.iter().map(|l| l.0));
        }
        status.state.store(state, Ordering::Release);
    }

    fn set_running(&self) {
        self.shared.status[self.id]
            .state
            .store(RUNNING, Ordering::Release);
    }

    fn blocked_send(&mut self, l: usize, mut envelope: Envelope<M>) -> Result<(), ProcessorError> {
        let peer = self.peers[l];
        self.set_blocked(BLOCKED_SEND, &[LinkId(l)]);
        let result = loop {
            if self.is_aborted() {
                break Err(ProcessorError::Aborted);
            }
            if !self.spin {
                let mut sel = Select::new();
                sel.send(&self.out[l].tx);
                sel.recv(&self.abort_rx);
                sel.ready();
            }
            match self.out[l].tx.try_send(envelope) {
                Ok(()) => break Ok(()),
                Err(TrySendError::Full(e)) => {
                    envelope = e;
                    std::hint::spin_loop();
                }
                Err(TrySendError::Disconnected(_)) => {
                    break Err(ProcessorError::LinkClosed { peer });
                }
            }
        };
        self.set_running();
        result?;
        // The slot was freed by the receiver's latest take: we resume no earlier than that.
        let take = self.out[l].shared.last_take_ns.load(Ordering::Relaxed);
        if take > self.clock_ns {
            self.advance(take - self.clock_ns, Activity::Idle, Some(peer));
        }
        Ok(())
    }

    /// Moves whatever has arrived on `links` into their one-message pending slots. Returns the
    /// pending message with the earliest arrival, and whether any link is still open.
    fn poll(&mut self, links: &[LinkId]) -> (Option<(usize, u64)>, bool) {
        let mut best: Option<(usize, u64)> = None;
        let mut open = false;
        for &LinkId(l) in links {
            let inl = &mut self.inl[l];
            if inl.pending.is_none() && !inl.closed {
                match inl.rx.try_recv() {
                    Ok(e) => inl.pending = Some(e),
                    Err(TryRecvError::Empty) => {}
                    Err(TryRecvError::Disconnected) => inl.closed = true,
                }
            }
            if let Some(e) = &inl.pending {
                if best.is_none_or(|(_, t)| e.arrive_ns < t) {
                    best = Some((l, e.arrive_ns));
                }
                open = true;
            } else if !inl.closed {
                open = true;
            }
        }
        (best, open)
    }

    /// Takes the pending message of link `l`, moving the clock to its arrival (idle) and
    /// charging the receive cost.
    fn take(&mut self, l: usize) -> M {
        let Some(e) = self.inl[l].pending.take() else {
            unreachable!("take() is only called on a link with a pending message")
        };
        let peer = self.peers[l];
        if e.arrive_ns > self.clock_ns {
            self.advance(e.arrive_ns - self.clock_ns, Activity::Idle, Some(peer));
        }
        self.inl[l].shared.note_take(self.clock_ns);
        self.acct.messages_received += 1;
        self.acct.bytes_received += e.bytes;
        self.note_progress();
        if !self.free {
            self.advance(
                self.cost.recv_overhead.as_nanos() as u64,
                Activity::Communication,
                Some(peer),
            );
        }
        e.payload
    }

    /// Blocks until one of `links` has something (a message or a closure), or the run aborts.
    /// With `until`, gives up at that wall instant and returns `Ok(false)`.
    fn wait_ready(
        &mut self,
        links: &[LinkId],
        until: Option<Instant>,
    ) -> Result<bool, ProcessorError> {
        // A blocking wait is announced to the deadlock monitor, but a spinning processor first
        // polls for a while unannounced: most waits in native mode are shorter than that.
        let mut announced = false;
        let mut polls: u32 = 0;
        let result = loop {
            if self.is_aborted() {
                break Err(ProcessorError::Aborted);
            }
            if until.is_none() && !announced && (!self.spin || polls >= SPIN_BEFORE_ANNOUNCE) {
                self.set_blocked(BLOCKED_RECV, links);
                announced = true;
            }
            if self.spin {
                let (best, open) = self.poll(links);
                if best.is_some() || !open {
                    break Ok(true);
                }
                if until.is_some_and(|u| Instant::now() >= u) {
                    break Ok(false);
                }
                polls = polls.saturating_add(1);
                std::hint::spin_loop();
            } else {
                let mut sel = Select::new();
                for &LinkId(l) in links {
                    if !self.inl[l].closed {
                        sel.recv(&self.inl[l].rx);
                    }
                }
                sel.recv(&self.abort_rx);
                match until {
                    None => {
                        sel.ready();
                        break Ok(true);
                    }
                    Some(u) => break Ok(sel.ready_deadline(u).is_ok()),
                }
            }
        };
        if announced {
            self.set_running();
        }
        result
    }

    /// Receives the next message on `link`.
    pub fn recv(&mut self, link: LinkId) -> Result<M, ProcessorError> {
        if link.0 >= self.inl.len() {
            return Err(ProcessorError::NoSuchLink(link.0));
        }
        self.recv_from(&[link]).map(|(_, m)| m)
    }

    /// Receives the next message from any link.
    pub fn recv_any(&mut self) -> Result<(LinkId, M), ProcessorError> {
        let links = std::mem::take(&mut self.all_links);
        let r = self.recv_from(&links);
        self.all_links = links;
        r
    }

    /// Receives the next message from any of `links` (the earliest emulated arrival first).
    pub fn recv_from(&mut self, links: &[LinkId]) -> Result<(LinkId, M), ProcessorError> {
        if let Some(bad) = links.iter().find(|l| l.0 >= self.inl.len()) {
            return Err(ProcessorError::NoSuchLink(bad.0));
        }
        let mut looked_again = false;
        loop {
            let (best, open) = self.poll(links);
            match best {
                Some((_, arrive)) if arrive > self.clock_ns && !looked_again => {
                    // Still in transit: wait for it, then look once more for an earlier one.
                    self.time.wait_until(arrive);
                    looked_again = true;
                }
                Some((l, _)) => return Ok((LinkId(l), self.take(l))),
                None if !open => {
                    let peer = links.first().map_or(self.id, |l| self.peers[l.0]);
                    return Err(ProcessorError::LinkClosed { peer });
                }
                None => {
                    self.wait_ready(links, None)?;
                }
            }
        }
    }

    /// Receives a message from any of `links` that has already arrived (at or before the
    /// current emulated time), without blocking.
    pub fn try_recv_from(
        &mut self,
        links: &[LinkId],
    ) -> Result<Option<(LinkId, M)>, ProcessorError> {
        if let Some(bad) = links.iter().find(|l| l.0 >= self.inl.len()) {
            return Err(ProcessorError::NoSuchLink(bad.0));
        }
        if self.is_aborted() {
            return Err(ProcessorError::Aborted);
        }
        match self.poll(links).0 {
            Some((l, arrive)) if arrive <= self.clock_ns => Ok(Some((LinkId(l), self.take(l)))),
            _ => Ok(None),
        }
    }

    /// Whether `link` is closed (its peer finished) with nothing left to receive.
    pub fn is_closed(&mut self, link: LinkId) -> bool {
        self.poll(&[link]);
        let inl = &self.inl[link.0];
        inl.closed && inl.pending.is_none()
    }

    /// Computes for an emulated `duration`, unless a message arrives on one of `links` first.
    ///
    /// This is how a low-priority process (local task execution) is pre-empted by a
    /// high-priority one (forwarding) on a transputer: the work done so far is charged, the
    /// message is returned with the part of the duration still to do.
    pub fn occupy_or_recv(
        &mut self,
        duration: Duration,
        links: &[LinkId],
    ) -> Result<Interrupt<M>, ProcessorError> {
        let end_ns = self.clock_ns + duration.as_nanos() as u64;
        let wall_end = self.time.deadline(end_ns);
        loop {
            let (best, _) = self.poll(links);
            if let Some((l, arrive)) = best {
                if arrive < end_ns {
                    let at = arrive.max(self.clock_ns);
                    // Wait for its arrival (if in the future) doing the work meanwhile.
                    self.advance(at - self.clock_ns, Activity::Compute, None);
                    let remaining = Duration::from_nanos(end_ns - self.clock_ns);
                    let message = self.take(l);
                    return Ok(Interrupt::Message {
                        link: LinkId(l),
                        message,
                        remaining,
                    });
                }
            }
            if Instant::now() >= wall_end {
                self.advance(end_ns - self.clock_ns, Activity::Compute, None);
                return Ok(Interrupt::Completed);
            }
            if !self.wait_ready(links, Some(wall_end))? {
                self.advance(end_ns - self.clock_ns, Activity::Compute, None);
                // One last look: something may have landed with a stamp before the end.
                if let (Some((l, arrive)), _) = self.poll(links) {
                    if arrive <= self.clock_ns && arrive < end_ns {
                        // Arrived in time but noticed late: deliver it, the work is done.
                        let message = self.take(l);
                        return Ok(Interrupt::Message {
                            link: LinkId(l),
                            message,
                            remaining: Duration::ZERO,
                        });
                    }
                }
                return Ok(Interrupt::Completed);
            }
        }
    }

    pub(crate) fn finish(&mut self) {
        self.acct.finish_ns = self.clock_ns;
        self.shared.status[self.id]
            .state
            .store(DONE, Ordering::Release);
    }
}

/// A busy loop of `iterations` that the optimiser cannot remove (the message-system degradation
/// of the scalability paper).
#[inline(never)]
pub fn busy_loop(iterations: u64) -> u64 {
    let mut x = 0u64;
    for i in 0..iterations {
        x = std::hint::black_box(x.wrapping_add(i));
    }
    x
}
