//! The thread transport: each directed link is a bounded crossbeam channel between two OS
//! threads, and a processor waits for emulated time in real time (`start + D × emulated`).
//!
//! A receive takes the message with the earliest emulated arrival among those that have
//! reached the receiver's channels; if the earliest is still in transit (its overlapped
//! transfer time not yet over), the processor waits for it in real time and looks once more,
//! so that a message that arrives earlier on another link is taken first. How faithfully real
//! time kept up is recorded as lateness ([`LatenessStats`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::time::Instant;

use crossbeam_channel::{Receiver, Select, Sender, TryRecvError, TrySendError};
use parking_lot::Mutex;

use crate::clock::{LatenessStats, TimeBase};
use crate::link::{Envelope, LinkId, Occupied, Stop, Transport};

pub(crate) const RUNNING: u8 = 0;
pub(crate) const BLOCKED_RECV: u8 = 1;
pub(crate) const BLOCKED_SEND: u8 = 2;
pub(crate) const DONE: u8 = 3;
/// Blocked receiving a routed message; `waiting` holds the sender waited for, or nothing for
/// any.
pub(crate) const BLOCKED_ROUTED: u8 = 4;

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

/// State shared by all processors of a threaded run.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) aborted: AtomicBool,
    pub(crate) status: Vec<Status>,
}

/// State shared by the two ends of one directed link.
#[derive(Debug, Default)]
pub(crate) struct LinkShared {
    /// Emulated time of the receiver's latest take (a blocked sender resumes no earlier).
    pub(crate) last_take_ns: AtomicU64,
}

/// The sending end of a directed link, owned by one processor.
pub(crate) struct OutLink<M> {
    pub(crate) tx: Sender<Envelope<M>>,
    pub(crate) shared: Arc<LinkShared>,
    /// A link cut between MPI ranks (`engines/threads/cut.rs`): its channel to the rank's
    /// proxy is unbounded, and the sender holds `capacity` credits instead, each the
    /// emulated time of the receiver's take that returned it (0 for the first ones). A
    /// full cut link is one with no credit left: its sender blocks as on a full channel.
    pub(crate) credits: Option<Receiver<u64>>,
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
            credits: None,
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

/// One processor's end of the thread transport.
pub(crate) struct ChannelPort<M> {
    pub(crate) id: usize,
    pub(crate) out: Vec<OutLink<M>>,
    pub(crate) inl: Vec<InLink<M>>,
    pub(crate) time: TimeBase,
    /// Spin (native mode) rather than block while waiting for messages.
    pub(crate) spin: bool,
    pub(crate) tolerance_ns: u64,
    pub(crate) lateness: LatenessStats,
    pub(crate) shared: Arc<Shared>,
    pub(crate) abort_rx: Receiver<()>,
    /// Routed messages for this processor, as they reach it.
    pub(crate) inbox: Receiver<Envelope<M>>,
    /// Routed messages taken off the inbox and not yet received.
    pub(crate) held: Vec<Envelope<M>>,
    /// Every processor's inbox, by processor.
    pub(crate) inboxes: Arc<Vec<Sender<Envelope<M>>>>,
}

impl<M> ChannelPort<M> {
    fn status(&self) -> &Status {
        &self.shared.status[self.id]
    }

    fn set_blocked(&self, state: u8, links: &[LinkId]) {
        let status = self.status();
        {
            let mut w = status.waiting.lock();
            w.clear();
            w.extend(links.iter().map(|l| l.0));
        }
        status.state.store(state, Ordering::Release);
    }

    fn set_running(&self) {
        self.status().state.store(RUNNING, Ordering::Release);
    }

    /// Marks the processor finished for the deadlock monitor.
    pub(crate) fn finish(&self) {
        self.status().state.store(DONE, Ordering::Release);
    }

    fn aborted(&self) -> bool {
        crate::clock::park_if_halted();
        self.shared.aborted.load(Ordering::Relaxed)
    }

    /// Waits until `at_ns` is due (unless the run is aborted meanwhile) and records how late
    /// that was.
    fn wait_recorded(&mut self, at_ns: u64) {
        let late = self.time.wait_until_unless(at_ns, &self.shared.aborted);
        self.lateness
            .record(self.time.emulated_of(late), self.tolerance_ns);
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

    fn take_pending(&mut self, l: usize) -> Envelope<M> {
        let Some(e) = self.inl[l].pending.take() else {
            unreachable!("take_pending() is only called on a link with a pending message")
        };
        e
    }

    /// Blocks until one of `links` has something (a message or a closure), or the run aborts.
    /// With `until`, gives up at that wall instant and returns `Ok(false)`.
    fn wait_ready(&mut self, links: &[LinkId], until: Option<Instant>) -> Result<bool, Stop> {
        // A blocking wait is announced to the deadlock monitor, but a spinning processor first
        // polls for a while unannounced: most waits in native mode are shorter than that.
        let mut announced = false;
        let mut polls: u32 = 0;
        let result = loop {
            if self.aborted() {
                break Err(Stop::Aborted);
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

    /// Blocks until a routed message reaches the inbox, or the run aborts.
    fn wait_routed(&mut self, from: Option<usize>) -> Result<(), Stop> {
        {
            let status = self.status();
            let mut w = status.waiting.lock();
            w.clear();
            w.extend(from);
        }
        self.status().state.store(BLOCKED_ROUTED, Ordering::Release);
        let result = loop {
            if self.aborted() {
                break Err(Stop::Aborted);
            }
            if !self.inbox.is_empty() {
                break Ok(());
            }
            if self.spin {
                std::hint::spin_loop();
            } else {
                let mut sel = Select::new();
                sel.recv(&self.inbox);
                sel.recv(&self.abort_rx);
                sel.ready();
            }
        };
        self.set_running();
        result
    }

    fn blocked_send(&mut self, l: usize, mut envelope: Envelope<M>) -> Result<(), Stop> {
        self.set_blocked(BLOCKED_SEND, &[LinkId(l)]);
        let result = loop {
            if self.aborted() {
                break Err(Stop::Aborted);
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
                Err(TrySendError::Disconnected(_)) => break Err(Stop::Closed),
            }
        };
        self.set_running();
        result
    }

    /// Sends on a cut link `l` (one with credits): takes a credit, blocking while there is
    /// none, then hands the message to the proxy. Returns the emulated time the sender goes
    /// on from, as a local send does: its own clock, or the receiver's take that freed the
    /// room if it had to wait for it.
    fn send_cut(&mut self, l: usize, envelope: Envelope<M>, clock_ns: u64) -> Result<u64, Stop> {
        // Taken out while this port waits on it (only this port's thread touches it), and
        // put back on every path: no clone of the receiver per send.
        let Some(credits) = self.out[l].credits.take() else {
            unreachable!("send_cut() is only called on a cut link")
        };
        let credit = match credits.try_recv() {
            Ok(_) => Ok(clock_ns),
            Err(TryRecvError::Disconnected) => Err(Stop::Closed),
            Err(TryRecvError::Empty) => self.wait_credit(l, &credits).map(|t| t.max(clock_ns)),
        };
        self.out[l].credits = Some(credits);
        let resume_ns = credit?;
        self.out[l].tx.send(envelope).map_err(|_| Stop::Closed)?;
        Ok(resume_ns)
    }

    /// Blocks until a credit for cut link `l` returns (the emulated time of the take that
    /// returned it), or the run aborts.
    fn wait_credit(&mut self, l: usize, credits: &Receiver<u64>) -> Result<u64, Stop> {
        self.set_blocked(BLOCKED_SEND, &[LinkId(l)]);
        let result = loop {
            if self.aborted() {
                break Err(Stop::Aborted);
            }
            if !self.spin {
                let mut sel = Select::new();
                sel.recv(credits);
                sel.recv(&self.abort_rx);
                sel.ready();
            }
            match credits.try_recv() {
                Ok(take_ns) => break Ok(take_ns),
                Err(TryRecvError::Empty) => std::hint::spin_loop(),
                Err(TryRecvError::Disconnected) => break Err(Stop::Closed),
            }
        };
        self.set_running();
        result
    }
}

impl<M: crate::Payload> Transport<M> for ChannelPort<M> {
    fn wait_until(&mut self, at_ns: u64) {
        self.wait_recorded(at_ns);
    }

    fn send(&mut self, l: usize, envelope: Envelope<M>, clock_ns: u64) -> Result<u64, Stop> {
        if self.out[l].credits.is_some() {
            return self.send_cut(l, envelope, clock_ns);
        }
        match self.out[l].tx.try_send(envelope) {
            Ok(()) => Ok(clock_ns),
            Err(TrySendError::Full(envelope)) => {
                self.blocked_send(l, envelope)?;
                // The slot was freed by the receiver's latest take: we resume no earlier.
                let take = self.out[l].shared.last_take_ns.load(Ordering::Relaxed);
                Ok(take.max(clock_ns))
            }
            Err(TrySendError::Disconnected(_)) => Err(Stop::Closed),
        }
    }

    fn recv(&mut self, links: &[LinkId], clock_ns: u64) -> Result<(usize, Envelope<M>), Stop> {
        let mut looked_again = false;
        loop {
            let (best, open) = self.poll(links);
            match best {
                Some((_, arrive)) if arrive > clock_ns && !looked_again => {
                    // Still in transit: wait for it, then look once more for an earlier one.
                    self.time.wait_until_unless(arrive, &self.shared.aborted);
                    looked_again = true;
                }
                Some((l, _)) => return Ok((l, self.take_pending(l))),
                None if !open => return Err(Stop::Closed),
                None => {
                    self.wait_ready(links, None)?;
                }
            }
        }
    }

    fn try_recv(
        &mut self,
        links: &[LinkId],
        clock_ns: u64,
    ) -> Result<Option<(usize, Envelope<M>)>, Stop> {
        if self.aborted() {
            return Err(Stop::Aborted);
        }
        match self.poll(links).0 {
            Some((l, arrive)) if arrive <= clock_ns => Ok(Some((l, self.take_pending(l)))),
            _ => Ok(None),
        }
    }

    fn occupy_or_recv(
        &mut self,
        links: &[LinkId],
        clock_ns: u64,
        end_ns: u64,
    ) -> Result<Occupied<M>, Stop> {
        let wall_end = self.time.deadline(end_ns);
        let complete = |port: &mut Self| {
            if end_ns > clock_ns {
                port.wait_recorded(end_ns);
            }
        };
        loop {
            if let (Some((l, arrive)), _) = self.poll(links) {
                if arrive < end_ns {
                    // Wait for its arrival (if in the future), the work going on meanwhile.
                    let at_ns = arrive.max(clock_ns);
                    if at_ns > clock_ns {
                        self.wait_recorded(at_ns);
                    }
                    let envelope = self.take_pending(l);
                    return Ok(Occupied::Interrupted {
                        link: l,
                        envelope,
                        at_ns,
                    });
                }
            }
            if Instant::now() >= wall_end {
                complete(self);
                return Ok(Occupied::Completed);
            }
            if !self.wait_ready(links, Some(wall_end))? {
                complete(self);
                // One last look: something may have landed with a stamp before the end.
                if let (Some((l, arrive)), _) = self.poll(links) {
                    if arrive < end_ns {
                        // Arrived in time but noticed late: deliver it, the work is done.
                        let envelope = self.take_pending(l);
                        return Ok(Occupied::Interrupted {
                            link: l,
                            envelope,
                            at_ns: end_ns,
                        });
                    }
                }
                return Ok(Occupied::Completed);
            }
        }
    }

    fn route(&mut self, to: usize, envelope: Envelope<M>) -> Result<(), Stop> {
        // A processor that has finished takes nothing more: what is routed to it is dropped,
        // as in virtual time it would be held and never taken.
        let _ = self.inboxes[to].send(envelope);
        Ok(())
    }

    fn recv_routed(&mut self, from: Option<usize>, clock_ns: u64) -> Result<Envelope<M>, Stop> {
        let mut looked_again = false;
        loop {
            self.held.extend(self.inbox.try_iter());
            let best = self
                .held
                .iter()
                .enumerate()
                .filter(|(_, e)| from.is_none_or(|f| f == e.from))
                .min_by_key(|(_, e)| e.arrive_ns)
                .map(|(i, e)| (i, e.arrive_ns));
            match best {
                Some((_, arrive)) if arrive > clock_ns && !looked_again => {
                    // Still in transit: wait for it, then look once more for an earlier one.
                    self.time.wait_until_unless(arrive, &self.shared.aborted);
                    looked_again = true;
                }
                Some((i, _)) => return Ok(self.held.remove(i)),
                None => self.wait_routed(from)?,
            }
        }
    }

    fn is_closed(&mut self, link: usize) -> bool {
        self.poll(&[LinkId(link)]);
        let inl = &self.inl[link];
        inl.closed && inl.pending.is_none()
    }

    #[inline]
    fn note_take(&mut self, link: usize, at_ns: u64) {
        // Only the receiver stores and its clock never goes back: the value stays monotonic.
        self.inl[link]
            .shared
            .last_take_ns
            .store(at_ns, Ordering::Relaxed);
    }

    #[inline]
    fn note_progress(&self, messages: u64) {
        self.status().progress.store(messages, Ordering::Relaxed);
    }

    fn is_aborted(&self) -> bool {
        self.aborted()
    }
}
