//! The handle a program sees: its links, its emulated clock, and the costs it can charge.
//!
//! A program is a function run once on every processor with a [`Processor`] handle. It sends
//! and receives messages on the links to its neighbours, charges emulated costs with
//! [`occupy`](Processor::occupy) and [`occupy_comm`](Processor::occupy_comm), runs real work
//! with [`compute`](Processor::compute) (charged by CPU time or by its declared units, see
//! [`ComputeCharge`]), and reports the tasks it executed or forwarded.
//!
//! The handle keeps the processor's clock and books the same way in every time mode; only
//! its transport (a crossbeam channel per link in native and dilated time, the scheduler's
//! queues in virtual time) differs. A receive returns the message with the earliest emulated
//! arrival among those that have arrived by the processor's time.

use std::sync::Arc;
use std::time::Duration;

use crate::error::ProcessorError;
use crate::link::flavors::Port;
use crate::link::{Envelope, LinkCost, LinkId, Occupied, Payload, Stop, Transport};
use crate::routing::{Convention, Network};
use crate::topology::{Direction, Grid, TreeChildren, TreeLinks};
use crate::trace::{Accounting, Activity, MessageEvent, Recorder, TraceEvent};
use crate::work::{Charging, ComputeCharge, Work};

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

/// What one processor's compute blocks declared and were charged.
#[cfg_attr(feature = "mpi", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct WorkTally {
    /// Compute blocks run.
    pub(crate) blocks: u64,
    /// Blocks that declared no unit of work.
    pub(crate) undeclared_blocks: u64,
    /// Units declared over all blocks.
    pub(crate) units: Work,
    /// Degradation-loop iterations run or charged.
    pub(crate) loop_iterations: u64,
}

/// Everything [`Processor::new`] needs.
pub(crate) struct ProcessorParts<M> {
    pub(crate) id: usize,
    pub(crate) level: u32,
    pub(crate) processors: usize,
    pub(crate) peers: Vec<usize>,
    /// Its links in the topology's spanning tree.
    pub(crate) tree: TreeLinks,
    /// The grid of a regular family.
    pub(crate) grid: Option<Grid>,
    /// Routes and link clocks, shared by every processor of the run.
    pub(crate) network: Arc<Network>,
    pub(crate) cost: LinkCost,
    pub(crate) charging: Charging,
    /// When routed messages reserve their links, if they may be sent.
    pub(crate) convention: Convention,
    /// Its trace's recorder, if the run is traced.
    pub(crate) recorder: Option<Recorder>,
    pub(crate) port: Port<M>,
}

/// Link ids 0, 1, 2, …: every processor with at most this many links lends its link lists
/// from one shared table, hot in the cache, instead of owning them.
const SHARED_LINK_IDS: usize = 256;

static LINK_IDS: [LinkId; SHARED_LINK_IDS] = {
    let mut ids = [LinkId(0); SHARED_LINK_IDS];
    let mut i = 0;
    while i < SHARED_LINK_IDS {
        ids[i] = LinkId(i);
        i += 1;
    }
    ids
};

/// A processor's links 0..n.
enum LinkList {
    /// The first `n` of the shared table.
    Shared(&'static [LinkId]),
    /// More links than the table holds.
    Owned(Vec<LinkId>),
}

impl LinkList {
    fn new(n: usize) -> Self {
        if n <= SHARED_LINK_IDS {
            LinkList::Shared(&LINK_IDS[..n])
        } else {
            LinkList::Owned((0..n).map(LinkId).collect())
        }
    }

    fn all(&self) -> &[LinkId] {
        match self {
            LinkList::Shared(ids) => ids,
            LinkList::Owned(ids) => ids,
        }
    }
}

/// One emulated processor, as its program sees it.
pub struct Processor<M> {
    id: usize,
    level: u32,
    processors: usize,
    peers: Vec<usize>,
    parent: Option<LinkId>,
    /// The links to the children when they are not all the links after the parent's.
    children: Option<Vec<LinkId>>,
    child_start: usize,
    grid: Option<Grid>,
    all_links: LinkList,
    cost: LinkCost,
    free: bool,
    charging: Charging,
    /// The meter every compute block declares its work on, reused (never allocated inside a
    /// timed block once it has grown to the program's units).
    work: Work,
    clock_ns: u64,
    /// Routes, and when each link's previous transfer has left it.
    network: Arc<Network>,
    convention: Convention,
    pub(crate) acct: Accounting,
    pub(crate) tally: WorkTally,
    pub(crate) recorder: Option<Recorder>,
    pub(crate) port: Port<M>,
}

/// `d` in whole nanoseconds, saturating (584 years).
#[inline]
pub(crate) fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

impl<M: Payload> Processor<M> {
    pub(crate) fn new(p: ProcessorParts<M>) -> Self {
        let n = p.peers.len();
        Self {
            id: p.id,
            level: p.level,
            processors: p.processors,
            peers: p.peers,
            parent: p.tree.parent.map(LinkId),
            child_start: match &p.tree.children {
                TreeChildren::From(k) => *k,
                TreeChildren::Listed(_) => 0,
            },
            children: match p.tree.children {
                TreeChildren::From(_) => None,
                TreeChildren::Listed(links) => Some(links.into_iter().map(LinkId).collect()),
            },
            grid: p.grid,
            all_links: LinkList::new(n),
            free: p.cost.is_free(),
            cost: p.cost,
            charging: p.charging,
            work: Work::default(),
            clock_ns: 0,
            network: p.network,
            convention: p.convention,
            acct: Accounting::default(),
            tally: WorkTally::default(),
            recorder: p.recorder,
            port: p.port,
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

    /// The link to the parent in the topology's spanning tree (`None` on the root).
    pub fn parent(&self) -> Option<LinkId> {
        self.parent
    }

    /// The links to the children in the topology's spanning tree, in the order the tree
    /// found them (child index order on tree families).
    pub fn children(&self) -> &[LinkId] {
        match &self.children {
            Some(listed) => listed,
            None => &self.all_links.all()[self.child_start..],
        }
    }

    /// All links, in the topology's link order (on a tree: the parent's first, then the
    /// children's).
    pub fn links(&self) -> &[LinkId] {
        self.all_links.all()
    }

    /// This processor's coordinates on a ring, mesh, torus or hypercube (x first; see
    /// [`Grid`]); `None` on other topologies.
    pub fn coordinates(&self) -> Option<Vec<usize>> {
        self.grid.as_ref().map(|g| g.coordinates(self.id))
    }

    /// The grid of a ring, mesh, torus or hypercube.
    pub fn grid(&self) -> Option<&Grid> {
        self.grid.as_ref()
    }

    /// The link one step in `direction` along `dimension` on a ring, mesh, torus or hypercube,
    /// if there is one (none past the edge of a mesh).
    pub fn link_in(&self, dimension: usize, direction: Direction) -> Option<LinkId> {
        let peer = self
            .grid
            .as_ref()?
            .neighbour(self.id, dimension, direction)?;
        self.link_to(peer)
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

    /// Whether this processor keeps time by waiting in real time (native and dilated time)
    /// rather than under the virtual-time scheduler. Real work it runs then takes real time,
    /// during which nothing can pre-empt it; in virtual time it takes no emulated time until
    /// it is charged.
    pub fn in_real_time(&self) -> bool {
        matches!(self.port, Port::Channel(_))
    }

    /// How this run charges real work (`measured` or `model`).
    pub fn compute_charge(&self) -> ComputeCharge {
        self.charging.charge()
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
        self.port.is_aborted()
    }

    /// Moves the clock forward by `ns` charged to `activity`, without waiting.
    fn charge(&mut self, ns: u64, activity: Activity, peer: Option<usize>) {
        let start = self.clock_ns;
        self.clock_ns = self.clock_ns.saturating_add(ns);
        if self.convention == Convention::AtSend {
            // It will never send from an earlier time: the links' books may forget before it.
            self.network.at(self.id, self.clock_ns);
        }
        let ns = self.clock_ns - start;
        match activity {
            Activity::Compute => self.acct.compute_ns += ns,
            Activity::Communication => self.acct.communication_ns += ns,
            Activity::Idle => self.acct.idle_ns += ns,
        }
        if let Some(recorder) = &mut self.recorder {
            recorder.event(&TraceEvent {
                processor: self.id,
                activity,
                start_ns: start,
                duration_ns: ns,
                peer,
            });
        }
    }

    /// Advances the clock by `ns` charged to `activity`, then waits until that emulated time
    /// is due.
    fn advance(&mut self, ns: u64, activity: Activity, peer: Option<usize>) {
        if ns == 0 {
            return;
        }
        self.charge(ns, activity, peer);
        self.port.wait_until(self.clock_ns);
    }

    /// Occupies the processor with computation for an emulated duration.
    pub fn occupy(&mut self, duration: Duration) {
        self.advance(nanos(duration), Activity::Compute, None);
    }

    /// Occupies the processor with non-overlapped communication work for an emulated duration
    /// (a software start-up cost such as the farm engine's β_e or β_f).
    pub fn occupy_comm(&mut self, duration: Duration) {
        self.advance(nanos(duration), Activity::Communication, None);
    }

    /// Runs real work and charges it as computation: the time it took on the machine's
    /// [`WorkClock`](crate::WorkClock) (its wall time natively, its thread CPU time otherwise), or the units it
    /// declares on the [`Work`] meter times their cost ([`ComputeCharge`]).
    ///
    /// Under dilation the work may take longer in wall time (processors share cores), but it is
    /// charged what it cost the CPU, as if this processor had a core of its own.
    ///
    /// # Panics
    ///
    /// In model charging, if the work declares a unit the machine has no cost for: a unit the
    /// workload did not declare in its [`Hints`](crate::Hints), which the machine checks
    /// before the run.
    pub fn compute<T>(&mut self, work: impl FnOnce(&mut Work) -> T) -> T {
        let (out, cost) = self.measure(work);
        self.advance(nanos(cost), Activity::Compute, None);
        out
    }

    /// Runs real work like [`compute`](Self::compute), but charges nothing: returns what it
    /// costs, for the program to charge itself (for example as a pre-emptible
    /// [`occupy_or_recv`](Self::occupy_or_recv)).
    ///
    /// # Panics
    ///
    /// As [`compute`](Self::compute).
    pub fn measure<T>(&mut self, work: impl FnOnce(&mut Work) -> T) -> (T, Duration) {
        let (out, ns) = self.charging.run_on(&mut self.work, work);
        self.tally.blocks += 1;
        if self.work.is_empty() {
            self.tally.undeclared_blocks += 1;
        }
        self.tally.units.absorb(&self.work);
        (out, Duration::from_nanos(ns))
    }

    /// The emulated cost of the degradation loop of one send: spun and measured, or charged
    /// at the profile's cost per iteration.
    fn degradation_ns(&mut self) -> u64 {
        let iterations = self.cost.loop_count;
        self.tally.loop_iterations = self.tally.loop_iterations.saturating_add(iterations);
        self.charging.loop_ns(iterations)
    }

    fn stopped(&self, stop: Stop, link: usize) -> ProcessorError {
        match stop {
            Stop::Aborted => ProcessorError::Aborted,
            Stop::Closed => ProcessorError::LinkClosed {
                peer: self.peers[link],
            },
        }
    }

    fn check_links(&self, links: &[LinkId]) -> Result<(), ProcessorError> {
        match links.iter().find(|l| l.0 >= self.peers.len()) {
            Some(bad) => Err(ProcessorError::NoSuchLink(bad.0)),
            None => Ok(()),
        }
    }

    #[inline]
    fn note_progress(&self) {
        self.port
            .note_progress(self.acct.messages_sent + self.acct.messages_received);
    }

    /// Sends `message` on `link`.
    ///
    /// Charges the sender the start-up cost and the degradation loop, stamps the message with
    /// its emulated arrival time, and blocks (idle) while the link's buffer is full.
    pub fn send(&mut self, link: LinkId, message: M) -> Result<(), ProcessorError> {
        let l = link.0;
        if l >= self.peers.len() {
            return Err(ProcessorError::NoSuchLink(l));
        }
        self.send_on(l, message)
    }

    /// Charges the start-up cost and the degradation loop (waited for once); returns whether
    /// anything was charged.
    fn start_up(&mut self, peer: usize) {
        let before = self.clock_ns;
        let start_up = nanos(self.cost.send_overhead);
        if start_up > 0 {
            self.charge(start_up, Activity::Communication, Some(peer));
        }
        if self.cost.loop_count > 0 {
            let spent = self.degradation_ns();
            if spent > 0 {
                self.charge(spent, Activity::Communication, Some(peer));
            }
        }
        if self.clock_ns > before {
            self.port.wait_until(self.clock_ns);
        }
    }

    /// Sends `message` to processor `to`, anywhere in the network, along its route
    /// ([`routing`](crate::routing)): the sender pays the start-up cost, the message arrives
    /// after the switching model's transit over the route's links (each reserved for it, so
    /// routes that share a link at the same time queue on it; "Contention" there says when). It never blocks: the destination holds routed
    /// messages until it takes them with [`recv_routed`](Self::recv_routed).
    pub fn send_to(&mut self, to: usize, message: M) -> Result<(), ProcessorError> {
        if to >= self.processors {
            return Err(ProcessorError::NoSuchProcessor(to));
        }
        if self.convention == Convention::Unsupported {
            return Err(ProcessorError::RoutedAcrossRanks);
        }
        let bytes = message.size_bytes();
        // Hop by hop, the scheduler stamps the arrival when the last hop is reserved.
        let mut arrive_ns = self.clock_ns;
        if !self.free && to != self.id {
            self.start_up(to);
            if self.convention == Convention::AtSend {
                let hops = self.network.route(self.id, to);
                arrive_ns = self
                    .network
                    .transit(&hops, self.clock_ns, bytes, &self.cost);
            }
        }
        let envelope = self.stamp(message, arrive_ns, bytes);
        let sent_ns = envelope.sent_ns;
        self.port
            .route(to, envelope)
            .map_err(|_| ProcessorError::Aborted)?;
        self.count_sent(bytes, sent_ns);
        Ok(())
    }

    /// A message leaving now, arriving at `arrive_ns`.
    fn stamp(&self, payload: M, arrive_ns: u64, bytes: u64) -> Envelope<M> {
        Envelope {
            payload,
            from: self.id,
            sent_ns: self.clock_ns,
            arrive_ns,
            bytes,
            seq: self.acct.messages_sent,
        }
    }

    /// Books a message sent at `sent_ns`.
    fn count_sent(&mut self, bytes: u64, sent_ns: u64) {
        if let Some(recorder) = &mut self.recorder {
            recorder.sent(sent_ns);
        }
        self.acct.messages_sent += 1;
        self.acct.bytes_sent += bytes;
        self.note_progress();
    }

    /// Receives the routed message (sent with [`send_to`](Self::send_to)) that arrives first,
    /// from processor `from` or, with `None`, from any; returns its sender and the message.
    /// The clock moves to its arrival if that is later, then the receive cost is charged.
    pub fn recv_routed(&mut self, from: Option<usize>) -> Result<(usize, M), ProcessorError> {
        if let Some(f) = from.filter(|&f| f >= self.processors) {
            return Err(ProcessorError::NoSuchProcessor(f));
        }
        if self.convention == Convention::Unsupported {
            return Err(ProcessorError::RoutedAcrossRanks);
        }
        let envelope = self
            .port
            .recv_routed(from, self.clock_ns)
            .map_err(|_| ProcessorError::Aborted)?;
        let source = envelope.from;
        Ok((source, self.take_delivery(source, envelope, Activity::Idle)))
    }

    fn send_on(&mut self, l: usize, message: M) -> Result<(), ProcessorError> {
        let peer = self.peers[l];
        let bytes = message.size_bytes();
        let mut arrive_ns = self.clock_ns;
        if !self.free {
            // The start-up cost and the degradation loop, charged as two intervals and
            // waited for once.
            self.start_up(peer);
            // T_τ (LinkCost::transfer_ns): the link is busy τ × bytes, then the latency.
            let busy = self.cost.occupancy_ns(bytes);
            let depart = self.network.reserve(self.id, l, self.clock_ns, busy);
            arrive_ns = depart
                .saturating_add(busy)
                .saturating_add(nanos(self.cost.latency));
        }
        let envelope = self.stamp(message, arrive_ns, bytes);
        let sent_ns = envelope.sent_ns;
        let accepted = self
            .port
            .send(l, envelope, self.clock_ns)
            .map_err(|s| self.stopped(s, l))?;
        if accepted > self.clock_ns {
            // The link was full: blocked until the receiver made room.
            self.advance(accepted - self.clock_ns, Activity::Idle, Some(peer));
        }
        self.count_sent(bytes, sent_ns);
        Ok(())
    }

    /// Takes delivery of `envelope` from in-link `l`: the clock moves to its arrival if that is
    /// later (charged to `gap`), then the receive cost is charged.
    fn deliver(&mut self, l: usize, envelope: Envelope<M>, gap: Activity) -> M {
        let peer = self.peers[l];
        if envelope.arrive_ns > self.clock_ns {
            self.advance(envelope.arrive_ns - self.clock_ns, gap, Some(peer));
        }
        self.port.note_take(l, self.clock_ns);
        self.take_delivery(peer, envelope, gap)
    }

    /// The books and the receive cost of a message from `peer` the clock has reached.
    fn take_delivery(&mut self, peer: usize, envelope: Envelope<M>, gap: Activity) -> M {
        if envelope.arrive_ns > self.clock_ns {
            self.advance(envelope.arrive_ns - self.clock_ns, gap, Some(peer));
        }
        self.acct.messages_received += 1;
        self.acct.bytes_received += envelope.bytes;
        if let Some(recorder) = &mut self.recorder {
            recorder.message(
                &MessageEvent {
                    from: peer,
                    to: self.id,
                    sent_ns: envelope.sent_ns,
                    arrive_ns: envelope.arrive_ns,
                    received_ns: self.clock_ns,
                    bytes: envelope.bytes,
                },
                envelope.seq,
            );
        }
        self.note_progress();
        if !self.free {
            let cost = nanos(self.cost.recv_overhead);
            self.advance(cost, Activity::Communication, Some(peer));
        }
        envelope.payload
    }

    /// Receives the next message on `link`.
    pub fn recv(&mut self, link: LinkId) -> Result<M, ProcessorError> {
        self.recv_from(&[link]).map(|(_, m)| m)
    }

    /// Receives the next message from any link.
    pub fn recv_any(&mut self) -> Result<(LinkId, M), ProcessorError> {
        match self.all_links {
            LinkList::Shared(links) => self.recv_from(links),
            LinkList::Owned(_) => {
                let links = std::mem::replace(&mut self.all_links, LinkList::Shared(&[]));
                let r = self.recv_from(links.all());
                self.all_links = links;
                r
            }
        }
    }

    /// Receives the next message from any of `links` (the earliest emulated arrival first).
    pub fn recv_from(&mut self, links: &[LinkId]) -> Result<(LinkId, M), ProcessorError> {
        self.check_links(links)?;
        match self.port.recv(links, self.clock_ns) {
            Ok((l, envelope)) => Ok((LinkId(l), self.deliver(l, envelope, Activity::Idle))),
            Err(stop) => {
                let first = links.first().map_or(0, |l| l.0);
                Err(match stop {
                    Stop::Closed if links.is_empty() => {
                        ProcessorError::LinkClosed { peer: self.id }
                    }
                    s => self.stopped(s, first),
                })
            }
        }
    }

    /// Receives a message from any of `links` that has already arrived (at or before the
    /// current emulated time), without blocking.
    pub fn try_recv_from(
        &mut self,
        links: &[LinkId],
    ) -> Result<Option<(LinkId, M)>, ProcessorError> {
        self.check_links(links)?;
        let got = self
            .port
            .try_recv(links, self.clock_ns)
            .map_err(|s| self.stopped(s, links.first().map_or(0, |l| l.0)))?;
        Ok(got.map(|(l, envelope)| (LinkId(l), self.deliver(l, envelope, Activity::Idle))))
    }

    /// Whether `link` is closed (its peer finished) with nothing left to receive.
    pub fn is_closed(&mut self, link: LinkId) -> bool {
        link.0 < self.peers.len() && self.port.is_closed(link.0)
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
        self.check_links(links)?;
        let start = self.clock_ns;
        let end_ns = start.saturating_add(nanos(duration));
        let outcome = self
            .port
            .occupy_or_recv(links, start, end_ns)
            .map_err(|s| self.stopped(s, links.first().map_or(0, |l| l.0)))?;
        match outcome {
            Occupied::Completed => {
                self.charge(end_ns - start, Activity::Compute, None);
                Ok(Interrupt::Completed)
            }
            Occupied::Interrupted {
                link,
                envelope,
                at_ns,
            } => {
                self.charge(at_ns.saturating_sub(start), Activity::Compute, None);
                let remaining = Duration::from_nanos(end_ns.saturating_sub(self.clock_ns));
                let message = self.deliver(link, envelope, Activity::Compute);
                Ok(Interrupt::Message {
                    link: LinkId(link),
                    message,
                    remaining,
                })
            }
        }
    }

    /// The processor's program has returned: its finish time is the clock.
    pub(crate) fn finish(&mut self) {
        self.acct.finish_ns = self.clock_ns;
        // It sends no more.
        self.network.at(self.id, u64::MAX);
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
