//! The virtual-time transport: links are the discrete-event scheduler's own bounded queues,
//! and a processor is a coroutine that waits by handing a *simcall* to the scheduler.
//!
//! The coroutine never touches the scheduler's state: each operation that moves a message or
//! lets emulated time pass suspends the coroutine with a [`Simcall`], the scheduler carries it
//! out in emulated-time order, and resumes the coroutine with a [`Reply`] (see `sim/` for the
//! protocol). A processor therefore only ever runs at the scheduler's current time.

use corosensei::Yielder;

use crate::link::{Envelope, LinkId, Occupied, Stop, Transport};

/// The links a receive waits on, lent to the scheduler for the duration of one simcall.
///
/// The slice belongs to the suspended coroutine; it stays valid and unchanged while the
/// coroutine is suspended in that simcall, which is the only time the scheduler reads it.
/// When every link index is below 64 the set also comes as a bit mask, so the scheduler need
/// not touch the coroutine's memory (a cache miss per look, on large machines).
#[derive(Clone, Copy)]
pub(crate) struct LinkSet {
    ptr: *const LinkId,
    len: usize,
    /// Bit `l` set for each link `l`, if all are below 64.
    pub(crate) mask: Option<u64>,
}

impl LinkSet {
    fn of(links: &[LinkId]) -> Self {
        let mut mask = 0u64;
        let mut small = true;
        for l in links {
            match 1u64.checked_shl(l.0 as u32) {
                Some(bit) if l.0 < 64 => mask |= bit,
                _ => small = false,
            }
        }
        Self {
            ptr: links.as_ptr(),
            len: links.len(),
            mask: small.then_some(mask),
        }
    }

    /// Whether link `l` is in the set.
    ///
    /// # Safety
    ///
    /// As [`LinkSet::links`].
    #[inline]
    pub(crate) unsafe fn contains(self, l: usize) -> bool {
        match self.mask {
            Some(mask) => l < 64 && mask & (1 << l) != 0,
            // SAFETY: the caller's guarantee, passed on.
            None => unsafe { self.links() }.iter().any(|x| x.0 == l),
        }
    }

    /// The links.
    ///
    /// # Safety
    ///
    /// Only while the coroutine that made the simcall carrying this set is suspended in it.
    pub(crate) unsafe fn links<'a>(self) -> &'a [LinkId] {
        // SAFETY: the caller guarantees the lending coroutine is still suspended in the
        // simcall, so the slice it lent is alive and not mutated.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// What a processor asks of the scheduler.
pub(crate) enum Simcall<M> {
    /// Let emulated time pass until `until_ns` (an occupation, a start-up cost).
    Sleep { until_ns: u64 },
    /// Put a message on out-link `link`; blocks while the link is full.
    Send { link: usize, envelope: Envelope<M> },
    /// Take the earliest-arrived message on `links`; blocks until one has arrived.
    Recv { links: LinkSet },
    /// Take the earliest message on `links` that has arrived by now, if any.
    TryRecv { links: LinkSet },
    /// Let time pass until `end_ns`, unless a message arriving before then on `links` comes.
    OccupyOrRecv { links: LinkSet, end_ns: u64 },
    /// Whether in-link `link` is closed and drained.
    IsClosed { link: usize },
    /// Deliver a routed message to processor `to` (never blocks).
    Route { to: usize, envelope: Envelope<M> },
    /// Take the earliest-arrived routed message (from `from`, or any); blocks until one has
    /// arrived.
    RecvRouted { from: Option<usize> },
}

/// What the scheduler answers.
pub(crate) enum Reply<M> {
    /// Go on; it is now `now_ns` (after a sleep, or a send accepted then).
    Go { now_ns: u64 },
    /// A message from in-link `link`, taken at `now_ns`.
    Message {
        now_ns: u64,
        link: usize,
        envelope: Envelope<M>,
    },
    /// A routed message, taken at `now_ns`.
    Routed { now_ns: u64, envelope: Envelope<M> },
    /// Nothing has arrived (a `TryRecv`).
    Nothing,
    /// The occupation ran to its end, now `now_ns`.
    Completed { now_ns: u64 },
    /// The link, or every link waited on, is closed and drained.
    Closed,
    /// The answer to `IsClosed`.
    Flag(bool),
}

/// The coroutine's handle on the scheduler.
pub(crate) type SimYielder<M> = Yielder<Reply<M>, Simcall<M>>;

/// One processor's end of the virtual-time transport.
pub(crate) struct ScheduledPort<M> {
    yielder: *const SimYielder<M>,
    /// The scheduler's time when it last resumed this processor.
    now_ns: u64,
}

impl<M> ScheduledPort<M> {
    /// A port that makes its simcalls through `yielder`.
    ///
    /// # Safety
    ///
    /// `yielder` must belong to the coroutine the port is used in, and outlive the port.
    pub(crate) unsafe fn new(yielder: &SimYielder<M>) -> Self {
        Self { yielder, now_ns: 0 }
    }

    #[inline]
    fn call(&mut self, call: Simcall<M>) -> Reply<M> {
        // SAFETY: `new`'s contract: the yielder is this coroutine's and outlives the port.
        unsafe { (*self.yielder).suspend(call) }
    }
}

#[cold]
fn protocol_error(call: &str) -> ! {
    unreachable!("virtual-time scheduler answered a {call} simcall out of protocol")
}

impl<M: crate::Payload> Transport<M> for ScheduledPort<M> {
    #[inline]
    fn wait_until(&mut self, at_ns: u64) {
        if at_ns > self.now_ns {
            match self.call(Simcall::Sleep { until_ns: at_ns }) {
                Reply::Go { now_ns } => self.now_ns = now_ns,
                _ => protocol_error("sleep"),
            }
        }
    }

    fn send(&mut self, link: usize, envelope: Envelope<M>, _clock_ns: u64) -> Result<u64, Stop> {
        match self.call(Simcall::Send { link, envelope }) {
            Reply::Go { now_ns } => {
                self.now_ns = now_ns;
                Ok(now_ns)
            }
            Reply::Closed => Err(Stop::Closed),
            _ => protocol_error("send"),
        }
    }

    fn recv(&mut self, links: &[LinkId], _clock_ns: u64) -> Result<(usize, Envelope<M>), Stop> {
        match self.call(Simcall::Recv {
            links: LinkSet::of(links),
        }) {
            Reply::Message {
                now_ns,
                link,
                envelope,
            } => {
                self.now_ns = now_ns;
                Ok((link, envelope))
            }
            Reply::Closed => Err(Stop::Closed),
            _ => protocol_error("recv"),
        }
    }

    fn try_recv(
        &mut self,
        links: &[LinkId],
        _clock_ns: u64,
    ) -> Result<Option<(usize, Envelope<M>)>, Stop> {
        match self.call(Simcall::TryRecv {
            links: LinkSet::of(links),
        }) {
            Reply::Message { link, envelope, .. } => Ok(Some((link, envelope))),
            Reply::Nothing => Ok(None),
            _ => protocol_error("try_recv"),
        }
    }

    fn occupy_or_recv(
        &mut self,
        links: &[LinkId],
        _clock_ns: u64,
        end_ns: u64,
    ) -> Result<Occupied<M>, Stop> {
        match self.call(Simcall::OccupyOrRecv {
            links: LinkSet::of(links),
            end_ns,
        }) {
            Reply::Message {
                now_ns,
                link,
                envelope,
            } => {
                self.now_ns = now_ns;
                Ok(Occupied::Interrupted {
                    link,
                    envelope,
                    at_ns: now_ns,
                })
            }
            Reply::Completed { now_ns } => {
                self.now_ns = now_ns;
                Ok(Occupied::Completed)
            }
            _ => protocol_error("occupy_or_recv"),
        }
    }

    fn route(&mut self, to: usize, envelope: Envelope<M>) -> Result<(), Stop> {
        match self.call(Simcall::Route { to, envelope }) {
            Reply::Go { now_ns } => {
                self.now_ns = now_ns;
                Ok(())
            }
            _ => protocol_error("route"),
        }
    }

    fn recv_routed(&mut self, from: Option<usize>, _clock_ns: u64) -> Result<Envelope<M>, Stop> {
        match self.call(Simcall::RecvRouted { from }) {
            Reply::Routed { now_ns, envelope } => {
                self.now_ns = now_ns;
                Ok(envelope)
            }
            _ => protocol_error("recv_routed"),
        }
    }

    fn is_closed(&mut self, link: usize) -> bool {
        match self.call(Simcall::IsClosed { link }) {
            Reply::Flag(closed) => closed,
            _ => protocol_error("is_closed"),
        }
    }

    #[inline]
    fn note_take(&mut self, _link: usize, _at_ns: u64) {
        // The scheduler handed the message over at its own time and knows it already.
    }

    fn is_aborted(&self) -> bool {
        // An aborted run never resumes its coroutines again: they are unwound.
        false
    }
}
