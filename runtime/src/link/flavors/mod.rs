//! The transports, one per file:
//!
//! - [`channel`]: bounded crossbeam channels between OS threads, waiting in real time
//!   (native and dilated time);
//! - [`scheduled`]: the discrete-event scheduler's queues, waiting in emulated time (virtual
//!   time).
//!
//! [`Port`] is the one a processor was given.

pub(crate) mod channel;
pub(crate) mod scheduled;

use super::{Envelope, LinkId, Occupied, Stop, Transport};

/// A processor's transport.
pub(crate) enum Port<M> {
    /// OS threads and crossbeam channels.
    Channel(channel::ChannelPort<M>),
    /// A coroutine under the discrete-event scheduler.
    Scheduled(scheduled::ScheduledPort<M>),
}

impl<M> Port<M> {
    /// The program has returned: marks the processor finished for its transport, and gives
    /// back how late its waits in real time ended (nothing waits in virtual time).
    pub(crate) fn finish(&mut self) -> crate::clock::LatenessStats {
        match self {
            Port::Channel(port) => {
                port.finish();
                std::mem::take(&mut port.lateness)
            }
            Port::Scheduled(_) => crate::clock::LatenessStats::default(),
        }
    }
}

macro_rules! each_port {
    ($self:ident, $port:ident => $body:expr) => {
        match $self {
            Port::Channel($port) => $body,
            Port::Scheduled($port) => $body,
        }
    };
}

impl<M: super::Payload> Transport<M> for Port<M> {
    #[inline]
    fn wait_until(&mut self, at_ns: u64) {
        each_port!(self, p => p.wait_until(at_ns))
    }

    #[inline]
    fn send(&mut self, link: usize, envelope: Envelope<M>, clock_ns: u64) -> Result<u64, Stop> {
        each_port!(self, p => p.send(link, envelope, clock_ns))
    }

    #[inline]
    fn recv(&mut self, links: &[LinkId], clock_ns: u64) -> Result<(usize, Envelope<M>), Stop> {
        each_port!(self, p => p.recv(links, clock_ns))
    }

    #[inline]
    fn try_recv(
        &mut self,
        links: &[LinkId],
        clock_ns: u64,
    ) -> Result<Option<(usize, Envelope<M>)>, Stop> {
        each_port!(self, p => p.try_recv(links, clock_ns))
    }

    #[inline]
    fn occupy_or_recv(
        &mut self,
        links: &[LinkId],
        clock_ns: u64,
        end_ns: u64,
    ) -> Result<Occupied<M>, Stop> {
        each_port!(self, p => p.occupy_or_recv(links, clock_ns, end_ns))
    }

    #[inline]
    fn is_closed(&mut self, link: usize) -> bool {
        each_port!(self, p => p.is_closed(link))
    }

    #[inline]
    fn note_take(&mut self, link: usize, at_ns: u64) {
        each_port!(self, p => p.note_take(link, at_ns))
    }

    #[inline]
    fn note_progress(&self, messages: u64) {
        each_port!(self, p => p.note_progress(messages))
    }

    #[inline]
    fn is_aborted(&self) -> bool {
        each_port!(self, p => p.is_aborted())
    }
}
