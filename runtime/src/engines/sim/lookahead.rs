//! The scheduler's state under the partitioned semantics (`--partitions K`, see `parts/`):
//! which processors are this part's, the cut-link effects it owes other parts, and the two
//! effects that cross a link besides messages, each seen one lookahead L after it happened:
//! room freed on a link (by its sender) and a link's closure (by its receiver).

use std::collections::VecDeque;
use std::sync::Arc;

use crate::engines::effect::Effect;
use crate::topology::Partition;

/// A link's closure not seen yet.
pub(super) const OPEN: u64 = u64::MAX;

/// One part's side of the partitioned semantics.
pub(crate) struct Lookahead<M> {
    /// L, ns: the least time any effect takes to cross a link.
    pub(super) latency_ns: u64,
    /// This part.
    pub(super) part: usize,
    /// Every processor's part.
    pub(super) partition: Arc<Partition>,
    /// Per global out-link whose sender is here: messages sent on it.
    pub(super) sent: Vec<u64>,
    /// Per global out-link whose sender is here: takes its sender has seen.
    pub(super) seen: Vec<u64>,
    /// Per global out-link whose sender is here: when its sender sees the takes not seen yet,
    /// in order.
    pub(super) room_at: Vec<VecDeque<u64>>,
    /// Per global out-link whose receiver is here: when its receiver sees it closed
    /// ([`OPEN`]: not known yet).
    pub(super) closed_at: Vec<u64>,
    /// Effects owed to each part, in the order they happened.
    pub(super) outgoing: Vec<Vec<Effect<M>>>,
    /// Cut-link effects sent to and received from other parts, over the run.
    pub(crate) effects_sent: u64,
    /// See `effects_sent`.
    pub(crate) effects_received: u64,
}

impl<M> Lookahead<M> {
    /// Part `part` of `partition` with lookahead `latency_ns`, over `links` directed links.
    pub(crate) fn new(
        latency_ns: u64,
        part: usize,
        partition: Arc<Partition>,
        links: usize,
    ) -> Self {
        let parts = partition.parts();
        Self {
            latency_ns,
            part,
            partition,
            sent: vec![0; links],
            seen: vec![0; links],
            room_at: (0..links).map(|_| VecDeque::new()).collect(),
            closed_at: vec![OPEN; links],
            outgoing: (0..parts).map(|_| Vec::new()).collect(),
            effects_sent: 0,
            effects_received: 0,
        }
    }

    /// Whether processor `pid` runs in this part.
    #[inline]
    pub(super) fn is_here(&self, pid: usize) -> bool {
        self.partition.part_of(pid) == self.part
    }

    /// Owes `effect` to the part of processor `pid`.
    pub(super) fn owe(&mut self, pid: usize, effect: Effect<M>) {
        self.effects_sent += 1;
        self.outgoing[self.partition.part_of(pid)].push(effect);
    }

    /// Messages on out-link `g` its sender still counts as taking room at `now_ns`.
    pub(super) fn in_flight(&mut self, g: usize, now_ns: u64) -> u64 {
        let room = &mut self.room_at[g];
        while room.front().is_some_and(|&t| t <= now_ns) {
            room.pop_front();
            self.seen[g] += 1;
        }
        self.sent[g] - self.seen[g]
    }

    /// The effects owed to each part, handed over (this part's own entry stays empty), and
    /// the earliest time among them.
    pub(crate) fn take_outgoing(&mut self) -> (Vec<Vec<Effect<M>>>, Option<u64>) {
        let parts = self.outgoing.len();
        let out = std::mem::replace(&mut self.outgoing, (0..parts).map(|_| Vec::new()).collect());
        let earliest = out.iter().flatten().filter_map(Effect::at_ns).min();
        (out, earliest)
    }
}
