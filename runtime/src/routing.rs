//! Routed messages: deterministic shortest routes through the network, the time they take
//! under two switching models, and the links they share.
//!
//! [`Processor::send_to`](crate::Processor::send_to) sends to any processor; the message
//! travels along a route fixed by the topology, and
//! [`Processor::recv_routed`](crate::Processor::recv_routed) takes it at the other end.
//!
//! # Routes
//!
//! Deterministic shortest paths: **dimension order** on rings, meshes, tori and hypercubes
//! (x₀ first, the shorter way round a wrapping dimension, + on a tie; see
//! [`Grid`]), **breadth first** on every other network: from each processor the
//! next hop is its first link, in link order, that leads one hop closer to the destination.
//!
//! # Switching
//!
//! With β the start-up cost (`send_overhead`), τ the time per byte, t_h the per-hop `latency`
//! and a route of h hops for m bytes, without contention:
//!
//! - **store-and-forward** ([`Switching::StoreAndForward`]): the whole message crosses each
//!   link before it goes on, and each processor on the way pays the start-up again to forward
//!   it, as transputers' software routers did: h·(β + m·τ + t_h). The forwarding start-up
//!   delays the message; it is not taken from the program running on the forwarding
//!   processor (as if its router ran on a processor of its own).
//! - **cut-through** ([`Switching::CutThrough`]): start-up once, the header t_h per hop, the
//!   body pipelined behind it: β + h·t_h + m·τ (Kumar et al., *Introduction to Parallel
//!   Computing*, 2nd ed., §2.5.1, eqs. 2.2 and 2.3, with t_s = β, t_w = τ).
//!
//! On one hop both are a neighbour send: β + m·τ + t_h. The receiver pays its
//! `recv_overhead` as for any message.
//!
//! # Contention
//!
//! Every directed link is reserved for each transfer over it (routed or a neighbour
//! [`send`](crate::Processor::send)), from when the transfer is ready or the link is free,
//! whichever is later; so messages whose routes share a link at the same time queue on it.
//! When a routed message reserves the links of its route is one convention per engine
//! (decided once, from the run's spec):
//!
//! - **Hop by hop** (virtual time, with or without `--partitions`): a message travels as one
//!   event per hop. The scheduler that holds a link reserves it when the message
//!   (store-and-forward) or its header (cut-through) reaches it, so on every link messages
//!   are served in the order they *reach* it, and a message waits only for those that
//!   reached the link before it and are still crossing it. Hops are taken in the scheduler's
//!   exact order: by time, equal times by (send time, sender, the sender's message number),
//!   a key no partitioning changes, and before the processors' own events at that time;
//!   routed messages held at their destination are taken, among equal arrivals, by the same
//!   key. So today's engine (no `--partitions`) and `--partitions K` reserve every link in
//!   the same order, and their routed results, reports and traces are identical, except
//!   where the two engines' rules for *neighbour* messages differ (`engines/sim`'s
//!   tie-break rule): equal arrivals of neighbour messages from different senders on one
//!   receive, a sender blocked on a full link (it sees the room at once in today's engine,
//!   one latency later under `--partitions`), and a link's closure (seen at once, or one
//!   latency later). Under `--partitions` a hop into the next processor is an effect that
//!   crosses a link, and so takes at least the per-hop latency, which is the lookahead L: no
//!   part needs another's hop sooner than a window allows; each link's free time is written
//!   only by the part that holds its sender. Since every reservation is made at the time the
//!   message reaches the link, in time order, a link's book needs only its free time.
//! - **At send** (native and dilated time in one process): no router runs between the
//!   processors' threads, so a message reserves every link of its route when its sender lets
//!   it go, each from the time the message will reach that link. Each link's book keeps its
//!   busy intervals, so a transfer takes the *earliest idle stretch it fits in*, at or after
//!   it reaches the link: messages are booked in the order they are *sent* (the order in
//!   which the host ran the senders, so contended timings there depend on the host), and an
//!   idle link never holds a message behind a later reservation. The one difference left
//!   from hop by hop: a message that reaches a link before one booked earlier, but does not
//!   fit in the idle stretch before that one's reservation, waits until it has left the link
//!   (hop by hop it would go first and push the other back). A book forgets the intervals
//!   that end before every processor's clock (no transfer can be ready earlier), so it stays
//!   small; it is kept under a short lock of its own.
//!
//! Without contention both give the closed forms above, to the nanosecond. Routed messages
//! are not carried across MPI ranks in native and dilated time
//! ([`ProcessorError::RoutedAcrossRanks`](crate::ProcessorError::RoutedAcrossRanks)).
//!
//! # Buffers
//!
//! A routed message is held at its destination until taken, however many there are: the
//! routers' buffers are not emulated, so routed traffic never blocks its sender and cannot
//! deadlock in the network. Real wormhole networks with bounded buffers can: dimension-order
//! routing on a torus deadlocks when every link of a ring holds a packet waiting for the next
//! (Dally & Seitz 1987), which is why they add virtual channels. A deadlock this runtime
//! reports is one of the program's own receives, never of the network.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;

use crate::link::LinkCost;
pub use crate::link::Switching;
use crate::spec::RunSpec;
use crate::topology::{Graph, Grid, Topology};

/// When a routed message reserves the links of its route (see "Contention" above).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Convention {
    /// Every link when the sender lets it go (native and dilated time in one process).
    AtSend,
    /// Each link when the message reaches it, by the scheduler that holds the link (virtual
    /// time, with or without `--partitions`).
    HopByHop,
    /// Not carried: native and dilated time across MPI ranks.
    Unsupported,
}

impl Convention {
    /// The convention of a run of `spec`: one decision, taken with the engine.
    pub(crate) fn of(spec: &RunSpec) -> Self {
        match (spec.partitions, spec.time.is_virtual()) {
            (_, true) => Convention::HopByHop,
            (None, false) => Convention::AtSend,
            (Some(_), false) => Convention::Unsupported,
        }
    }
}

/// Breadth-first distance tables kept per destination (on networks without a grid).
const CACHED_DESTINATIONS: usize = 64;

/// What every processor of a run shares about the network: routes and each directed link's
/// book of reservations.
pub(crate) struct Network {
    graph: Graph,
    grid: Option<Grid>,
    /// Per directed link (by [`Graph::entry`]): its reservations, as the run's convention
    /// needs them.
    books: Books,
    /// Hop distances to recent destinations (breadth-first routes).
    distances: Mutex<HashMap<usize, Arc<Vec<u32>>>>,
}

/// Every directed link's reservations, kept as the convention needs.
enum Books {
    /// Hop by hop every reservation is made when the message reaches the link, in time
    /// order: no later one can start in an earlier gap, so each link keeps only when its
    /// last transfer leaves it.
    Free(Vec<AtomicU64>),
    /// At send a link is reserved ahead, from when the message will reach it: each link
    /// keeps its busy intervals ([`Gaps`]), pruned below the earliest time any processor
    /// can still send at (the least of `clocks`).
    Gaps {
        links: Vec<Mutex<Gaps>>,
        /// Per processor: its emulated clock, as it last published it ([`Network::at`]);
        /// it never sends from an earlier time.
        clocks: Vec<Clock>,
    },
}

/// A processor's published clock, on a cache line of its own (each is written by its own
/// processor's thread).
#[repr(align(64))]
struct Clock(AtomicU64);

/// One directed link's reservations at send: its busy intervals [start, end), sorted and
/// disjoint, those touching merged. A transfer takes the earliest idle stretch, at or after
/// it is ready, that it fits in.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Gaps {
    busy: Vec<(u64, u64)>,
    /// Prune when this many intervals are held.
    prune_at: usize,
}

impl Gaps {
    /// Pruning is not tried below this many intervals.
    const PRUNE_FROM: usize = 8;

    /// Books `transfer_ns` that is ready at `ready_ns` into the earliest idle stretch it
    /// fits in; returns when it starts. A transfer of no time starts when the link is idle.
    pub(crate) fn reserve(&mut self, ready_ns: u64, transfer_ns: u64) -> u64 {
        // Intervals that end by `ready_ns` cannot be in the way.
        let mut i = self.busy.partition_point(|&(_, end)| end <= ready_ns);
        let mut start = ready_ns;
        // In the way: an interval that starts before the transfer would end (or, for a
        // transfer of no time, by its start) and ends after it starts.
        while let Some(&(s, e)) = self.busy.get(i) {
            if s < start.saturating_add(transfer_ns.max(1)) && start < e {
                start = e;
                i += 1;
            } else {
                break;
            }
        }
        let end = start.saturating_add(transfer_ns);
        if end > start {
            let before = i > 0 && self.busy[i - 1].1 == start;
            let after = self.busy.get(i).is_some_and(|&(s, _)| s == end);
            match (before, after) {
                (true, true) => {
                    self.busy[i - 1].1 = self.busy[i].1;
                    self.busy.remove(i);
                }
                (true, false) => self.busy[i - 1].1 = end,
                (false, true) => self.busy[i].0 = start,
                (false, false) => self.busy.insert(i, (start, end)),
            }
        }
        start
    }

    /// Whether it holds enough intervals to try pruning.
    fn full(&self) -> bool {
        self.busy.len() >= self.prune_at.max(Self::PRUNE_FROM)
    }

    /// Forgets the intervals that end by `floor_ns` (no transfer can be ready before it), and
    /// tries again when it holds twice as many as are left.
    fn prune(&mut self, floor_ns: u64) {
        let gone = self.busy.partition_point(|&(_, end)| end <= floor_ns);
        self.busy.drain(..gone);
        self.prune_at = 2 * self.busy.len();
    }
}

impl Network {
    /// The network of `topology`, every link free at time 0, its books kept as routed
    /// messages reserve links under `convention`.
    pub(crate) fn new(topology: &Topology, convention: Convention) -> Self {
        let graph = topology.graph().clone();
        let links = 2 * graph.links();
        let books = match convention {
            Convention::AtSend => Books::Gaps {
                links: (0..links).map(|_| Mutex::new(Gaps::default())).collect(),
                clocks: (0..graph.len()).map(|_| Clock(AtomicU64::new(0))).collect(),
            },
            Convention::HopByHop | Convention::Unsupported => {
                Books::Free((0..links).map(|_| AtomicU64::new(0)).collect())
            }
        };
        Self {
            graph,
            grid: topology.grid().copied(),
            books,
            distances: Mutex::new(HashMap::new()),
        }
    }

    /// Processor `id`'s clock has reached `now_ns` (`u64::MAX`: it has finished): it will
    /// never send from an earlier time. Kept only where links are reserved ahead (at send).
    #[inline]
    pub(crate) fn at(&self, id: usize, now_ns: u64) {
        if let Books::Gaps { clocks, .. } = &self.books {
            clocks[id].0.store(now_ns, Ordering::Release);
        }
    }

    /// The route from `from` to `to`, as (processor, its link index) for each hop.
    pub(crate) fn route(&self, from: usize, to: usize) -> Vec<(usize, usize)> {
        route(&self.graph, self.grid.as_ref(), from, to, |d| {
            self.distances_to(d)
        })
    }

    fn distances_to(&self, to: usize) -> Arc<Vec<u32>> {
        let mut cache = self.distances.lock();
        if let Some(d) = cache.get(&to) {
            return Arc::clone(d);
        }
        if cache.len() >= CACHED_DESTINATIONS {
            cache.clear();
        }
        let d = Arc::new(self.graph.bfs(to).0);
        cache.insert(to, Arc::clone(&d));
        d
    }

    /// Reserves `at`'s link `k` for a transfer of `transfer_ns` that is ready at `ready_ns`:
    /// hop by hop it starts when the link is free, no earlier; at send, in the earliest idle
    /// stretch it fits in. Returns when it starts.
    pub(crate) fn reserve(&self, at: usize, k: usize, ready_ns: u64, transfer_ns: u64) -> u64 {
        let entry = self.graph.entry(at, k);
        match &self.books {
            Books::Free(free_ns) => {
                let mut start = ready_ns;
                let _ = free_ns[entry].fetch_update(Ordering::AcqRel, Ordering::Acquire, |free| {
                    start = free.max(ready_ns);
                    Some(start.saturating_add(transfer_ns))
                });
                start
            }
            Books::Gaps { links, clocks } => {
                let mut book = links[entry].lock();
                if book.full() {
                    let floor = clocks.iter().map(|c| c.0.load(Ordering::Acquire)).min();
                    book.prune(floor.unwrap_or(u64::MAX));
                }
                book.reserve(ready_ns, transfer_ns)
            }
        }
    }

    /// The arrival of a routed message of `bytes` whose sender has paid its start-up and is
    /// at `ready_ns`, over `hops`, reserving each link on the way (the at-send convention:
    /// all of them when the sender lets the message go).
    pub(crate) fn transit(
        &self,
        hops: &[(usize, usize)],
        ready_ns: u64,
        bytes: u64,
        cost: &LinkCost,
    ) -> u64 {
        let mut t = ready_ns;
        let mut arrive = ready_ns;
        for (j, &(at, k)) in hops.iter().enumerate() {
            let hop = self.hop(at, k, t, bytes, cost, j + 1 == hops.len());
            (arrive, t) = (hop.arrive_ns, hop.next_ready_ns);
        }
        arrive
    }

    /// One hop of a routed message of `bytes` that reaches `at`'s link `k` at `ready_ns`
    /// (the whole message under store-and-forward, its header under cut-through): reserves
    /// the link from then, and says when the message arrives at the far end and, unless
    /// the hop is the `last`, when it reaches the next link there.
    pub(crate) fn hop(
        &self,
        at: usize,
        k: usize,
        ready_ns: u64,
        bytes: u64,
        cost: &LinkCost,
        last: bool,
    ) -> Hop {
        let body = cost.occupancy_ns(bytes);
        let latency = cost.latency_ns();
        let depart = self.reserve(at, k, ready_ns, body);
        let arrive_ns = depart.saturating_add(body).saturating_add(latency);
        let next_ready_ns = match cost.switching {
            Switching::StoreAndForward if !last => {
                arrive_ns.saturating_add(cost.send_overhead_ns())
            }
            Switching::StoreAndForward => arrive_ns,
            Switching::CutThrough => depart.saturating_add(latency),
        };
        Hop {
            arrive_ns,
            next_ready_ns,
        }
    }

    /// The next hop from `at` towards `to`, as (`at`'s link, the processor at its far end);
    /// `None` at `to`. Routes are memoryless: the rest of a route from any processor on it
    /// is the route from there.
    pub(crate) fn next_hop(&self, at: usize, to: usize) -> Option<(usize, usize)> {
        let toward = match &self.grid {
            Some(grid) => Toward::Grid(grid),
            None if at != to => Toward::Distances(self.distances_to(to)),
            None => return None,
        };
        let k = toward.link(&self.graph, at, to)?;
        Some((k, self.graph.row(at)[k] as usize))
    }
}

/// One hop of a routed message ([`Network::hop`]).
pub(crate) struct Hop {
    /// When the message has crossed the link, ns.
    pub(crate) arrive_ns: u64,
    /// When it reaches the next link (store-and-forward: after the forwarding start-up;
    /// cut-through: its header, one latency after it left).
    pub(crate) next_ready_ns: u64,
}

/// How a route finds its next hop towards one destination.
enum Toward<'a> {
    /// Dimension order.
    Grid(&'a Grid),
    /// Breadth first: every processor's hop count to the destination.
    Distances(Arc<Vec<u32>>),
}

impl Toward<'_> {
    /// The link of `at` that leads one hop closer to `to` by the rule of
    /// [`routing`](crate::routing); `None` at `to`.
    fn link(&self, graph: &Graph, at: usize, to: usize) -> Option<usize> {
        if at == to {
            return None;
        }
        let row = graph.row(at);
        Some(match self {
            Toward::Grid(grid) => {
                let next = grid.next_hop(at, to)?;
                row.iter().position(|&j| j as usize == next).unwrap_or(0)
            }
            Toward::Distances(dist) => {
                let here = dist[at];
                row.iter()
                    .position(|&j| dist[j as usize] + 1 == here)
                    .unwrap_or(0)
            }
        })
    }
}

/// The route from `from` to `to` on `graph`: dimension order on a grid, else breadth first
/// with `distances_to(to)` giving every processor's hop count to `to`.
fn route(
    graph: &Graph,
    grid: Option<&Grid>,
    from: usize,
    to: usize,
    distances_to: impl FnOnce(usize) -> Arc<Vec<u32>>,
) -> Vec<(usize, usize)> {
    let toward = match grid {
        Some(grid) => Toward::Grid(grid),
        None if from != to => Toward::Distances(distances_to(to)),
        None => return Vec::new(),
    };
    let mut hops = Vec::new();
    let mut at = from;
    while let Some(k) = toward.link(graph, at, to) {
        hops.push((at, k));
        at = graph.row(at)[k] as usize;
    }
    hops
}

impl Topology {
    /// The processors along the route from `from` to `to`, both included (see
    /// [`routing`](crate::routing) for the rule).
    pub fn route(&self, from: usize, to: usize) -> Vec<usize> {
        let graph = self.graph();
        let hops = route(graph, self.grid(), from, to, |d| Arc::new(graph.bfs(d).0));
        let mut path: Vec<usize> = hops.iter().map(|&(at, _)| at).collect();
        path.push(to);
        path
    }

    /// The number of hops on the route from `from` to `to`.
    pub fn hops(&self, from: usize, to: usize) -> usize {
        match self.grid() {
            Some(grid) => grid.distance(from, to),
            None => self.graph().bfs(from).0[to] as usize,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn routes_are_dimension_ordered_on_grids_and_breadth_first_elsewhere() {
        let mesh = Topology::mesh(&[4, 4]).unwrap();
        assert_eq!(mesh.route(0, 10), vec![0, 1, 2, 6, 10]);
        assert_eq!(mesh.hops(0, 10), 4);
        let cube = Topology::hypercube(3).unwrap();
        assert_eq!(cube.route(0, 7), vec![0, 1, 3, 7]);
        // A binary tree: up to the common ancestor, then down.
        let tree = Topology::kary_tree(2, 3).unwrap();
        assert_eq!(tree.route(3, 6), vec![3, 1, 0, 2, 6]);
        assert_eq!(tree.hops(3, 6), 4);
        assert_eq!(tree.route(5, 5), vec![5]);
        // Square 0-1-2-3-0: from 0 to 2 both ways are 2 hops; the first link in link order
        // (0's links: 1 then 3) leads.
        let square = Topology::parse_edges("0 1\n1 2\n2 3\n3 0\n", "sq").unwrap();
        assert_eq!(square.route(0, 2), vec![0, 1, 2]);
        assert_eq!(square.route(2, 0), vec![2, 1, 0]);
    }

    #[test]
    fn switching_models_match_the_textbook_formulas() {
        let cost = LinkCost {
            send_overhead: Duration::from_micros(10),
            latency: Duration::from_micros(1),
            per_byte_ns: 2.0,
            ..LinkCost::default()
        };
        // 3 hops, 1000 bytes: SF 3 (10 + 2 + 1) µs; CT 10 + 3·1 + 2 µs.
        assert_eq!(
            Switching::StoreAndForward.uncontended_ns(&cost, 3, 1000),
            39_000
        );
        assert_eq!(Switching::CutThrough.uncontended_ns(&cost, 3, 1000), 15_000);
        for s in [Switching::StoreAndForward, Switching::CutThrough] {
            assert_eq!(s.uncontended_ns(&cost, 1, 1000), 13_000);
            assert_eq!(s.uncontended_ns(&cost, 0, 1000), 0);
        }
    }

    #[test]
    fn transit_equals_the_model_alone_and_queues_on_a_shared_link() {
        let cost = LinkCost {
            send_overhead: Duration::from_micros(10),
            latency: Duration::from_micros(1),
            per_byte_ns: 2.0,
            ..LinkCost::default()
        };
        let ring = Topology::ring(8).unwrap();
        for s in [Switching::StoreAndForward, Switching::CutThrough] {
            let net = Network::new(&ring, Convention::AtSend);
            let hops = net.route(0, 3);
            assert_eq!(hops.len(), 3);
            // The sender paid its start-up (10 µs) before the transit begins.
            let cost = LinkCost {
                switching: s,
                ..cost
            };
            let arrive = net.transit(&hops, 10_000, 1000, &cost);
            assert_eq!(arrive, s.uncontended_ns(&cost, 3, 1000), "{s:?}");
            // A second message over the same first link waits for the first's body.
            let second = net.transit(&net.route(0, 1), 10_000, 1000, &cost);
            assert_eq!(second, 10_000 + 2_000 + 2_000 + 1_000, "{s:?}");
        }
    }

    #[test]
    fn a_links_book_at_send_fills_the_earliest_gap_a_transfer_fits_in() {
        let mut book = Gaps::default();
        assert_eq!(book.reserve(10, 5), 10);
        // Fits before [10, 15).
        assert_eq!(book.reserve(0, 5), 0);
        assert_eq!(book.busy, vec![(0, 5), (10, 15)]);
        // Ready inside [0, 5): from 5, and [5, 9) fits before 10; it joins [0, 5).
        assert_eq!(book.reserve(3, 4), 5);
        assert_eq!(book.busy, vec![(0, 9), (10, 15)]);
        // [9, 11) would overlap [10, 15): after it.
        assert_eq!(book.reserve(8, 2), 15);
        assert_eq!(book.busy, vec![(0, 9), (10, 17)]);
        // [9, 10) fits exactly, and the book is one interval again.
        assert_eq!(book.reserve(9, 1), 9);
        assert_eq!(book.busy, vec![(0, 17)]);
        // A transfer of no time starts when the link is idle, and books nothing.
        assert_eq!(book.reserve(5, 0), 17);
        assert_eq!(book.reserve(20, 0), 20);
        assert_eq!(book.busy, vec![(0, 17)]);
        assert_eq!(book.reserve(30, 3), 30);
        // Pruning forgets only what ends by the floor.
        book.prune(17);
        assert_eq!(book.busy, vec![(30, 33)]);
        book.prune(32);
        assert_eq!(book.busy, vec![(30, 33)]);
    }

    /// At send a message that reaches a link before one sent earlier goes first if it fits
    /// in the idle stretch before that one (the chain of
    /// `parts_a_shared_link_serves_routed_messages_in_the_order_they_reach_it`: P0 sends
    /// 4000 bytes to P2 at 3 µs, store-and-forward, reserving 1 → 2 from 10 µs; P1's, sent
    /// later, reaches 1 → 2 at 7 µs and crosses it by 9 µs: 11 µs, and P0's 14 µs, as hop by
    /// hop). The one difference left: a message that reaches the link at 9 µs does not fit
    /// before P0's reservation and waits behind it, to 12 µs (hop by hop it would go first
    /// and push P0's back).
    #[test]
    fn at_send_a_later_message_takes_an_idle_gap_before_an_earlier_reservation() {
        let cost = LinkCost {
            send_overhead: Duration::from_micros(3),
            latency: Duration::from_micros(2),
            per_byte_ns: 0.5,
            ..LinkCost::default()
        };
        let chain = Topology::chain(3).unwrap();
        let net = Network::new(&chain, Convention::AtSend);
        assert_eq!(net.transit(&net.route(0, 2), 3_000, 4000, &cost), 14_000);
        assert_eq!(net.transit(&net.route(1, 2), 7_000, 4000, &cost), 11_000);
        assert_eq!(net.transit(&net.route(1, 2), 9_000, 4000, &cost), 16_000);
        // Hop by hop the book keeps one free time: the same three, reserved in the order
        // they are asked for here, serve the link in that order.
        let free = Network::new(&chain, Convention::HopByHop);
        assert_eq!(free.transit(&free.route(0, 2), 3_000, 4000, &cost), 14_000);
        assert_eq!(free.transit(&free.route(1, 2), 7_000, 4000, &cost), 16_000);
    }

    /// A link's book forgets what ends before every processor's clock, so it stays small
    /// however long the run; a processor that has not moved holds it back.
    #[test]
    fn at_send_a_links_book_is_pruned_below_every_processors_clock() {
        let cost = LinkCost {
            per_byte_ns: 1.0,
            ..LinkCost::default()
        };
        let chain = Topology::chain(2).unwrap();
        let net = Network::new(&chain, Convention::AtSend);
        let book_len = |net: &Network| match &net.books {
            Books::Gaps { links, .. } => links[net.graph.entry(0, 0)].lock().busy.len(),
            Books::Free(_) => unreachable!(),
        };
        // Transfers of 10 ns every 100 ns: one interval each, gaps between. P1 has not
        // moved: nothing can be forgotten.
        for t in 0..100u64 {
            net.at(0, 100 * t);
            net.transit(&net.route(0, 1), 100 * t, 10, &cost);
        }
        assert_eq!(book_len(&net), 100);
        // P1 has finished: what ends before P0's clock goes.
        net.at(1, u64::MAX);
        for t in 100..1000u64 {
            net.at(0, 100 * t);
            net.transit(&net.route(0, 1), 100 * t, 10, &cost);
        }
        assert!(book_len(&net) <= Gaps::PRUNE_FROM, "{}", book_len(&net));
    }
}
