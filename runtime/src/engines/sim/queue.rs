//! The event queue: events `(time, processor, sequence number)` taken smallest first.
//!
//! Emulated time never goes back: every event is scheduled at or after the time of the last
//! one taken. That makes a *radix heap* (Ahuja, Mehlhorn, Orlin and Tarjan, 1990) the right
//! structure. Bucket `b` holds the events whose time differs from the current time first in
//! bit `b − 1`; taking the next time empties the lowest non-empty bucket, redistributing its
//! events into lower buckets. Each event moves down at most 64 times, and every move is an
//! append to a vector: no comparisons along a tree of cold cache lines, as in a binary heap.
//!
//! The events of one time form a *batch*, taken in increasing (processor, sequence): sorted
//! once when the time is reached; events scheduled at that same time while the batch runs (a
//! message with no transfer time) wait in a small heap beside it.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// An event: a processor to look at, with the sequence number that tells whether it is still
/// the processor's live event.
type Entry = (u32, u64);

#[derive(Default)]
pub(crate) struct EventQueue {
    /// The current time: that of the batch being taken.
    now: u64,
    /// `buckets[b]`, b ≥ 1: events whose time first differs from `now` in bit b − 1.
    buckets: Vec<Vec<(u64, u32, u64)>>,
    /// The batch at `now`, sorted by (processor, sequence) from the back: the next is last.
    batch: Vec<Entry>,
    /// Events at `now` scheduled while its batch runs.
    late: BinaryHeap<Reverse<Entry>>,
}

impl EventQueue {
    pub(crate) fn new() -> Self {
        Self {
            buckets: (0..=64).map(|_| Vec::new()).collect(),
            ..Self::default()
        }
    }

    /// Schedules processor `pid` at `time` (≥ the current time) with sequence number `seq`.
    #[inline]
    pub(crate) fn push(&mut self, time: u64, pid: u32, seq: u64) {
        debug_assert!(
            time >= self.now,
            "an event in the past: {time} < {}",
            self.now
        );
        if time == self.now {
            self.late.push(Reverse((pid, seq)));
        } else {
            let bucket = 64 - (time ^ self.now).leading_zeros() as usize;
            self.buckets[bucket].push((time, pid, seq));
        }
    }

    /// The next event, smallest (time, processor, sequence) first.
    pub(crate) fn pop(&mut self) -> Option<(u64, u32, u64)> {
        if self.batch.is_empty() && self.late.is_empty() && !self.next_batch() {
            return None;
        }
        let from_batch = match (self.batch.last(), self.late.peek()) {
            (Some(b), Some(Reverse(l))) => b < l,
            (Some(_), None) => true,
            _ => false,
        };
        let (pid, seq) = if from_batch {
            self.batch.pop()?
        } else {
            self.late.pop()?.0
        };
        Some((self.now, pid, seq))
    }

    /// The time of the next event (a lower bound, where superseded entries are queued), if
    /// any.
    pub(crate) fn next_time(&self) -> Option<u64> {
        if !self.batch.is_empty() || !self.late.is_empty() {
            return Some(self.now);
        }
        let b = (1..=64).find(|&b| !self.buckets[b].is_empty())?;
        self.buckets[b].iter().map(|e| e.0).min()
    }

    /// Moves to the next time that has events: empties the lowest non-empty bucket into the
    /// new batch and the buckets below. Returns false if no event is left.
    fn next_batch(&mut self) -> bool {
        let Some(b) = (1..=64).find(|&b| !self.buckets[b].is_empty()) else {
            return false;
        };
        let events = std::mem::take(&mut self.buckets[b]);
        self.now = events.iter().map(|e| e.0).min().unwrap_or(self.now);
        for &(time, pid, seq) in &events {
            if time == self.now {
                self.batch.push((pid, seq));
            } else {
                let bucket = 64 - (time ^ self.now).leading_zeros() as usize;
                debug_assert!(bucket < b);
                self.buckets[bucket].push((time, pid, seq));
            }
        }
        // Keep the emptied bucket's allocation for later.
        self.buckets[b] = events;
        self.buckets[b].clear();
        self.batch.sort_unstable_by(|a, b| b.cmp(a));
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The queue agrees with a binary heap of (time, pid, seq) on a long random run in which
    /// every push is at or after the last time taken, with many equal times.
    #[test]
    fn events_come_out_in_time_processor_sequence_order() {
        let mut q = EventQueue::new();
        let mut reference = BinaryHeap::new();
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut now = 0u64;
        let mut seq = 0u64;
        for _ in 0..20_000 {
            // Push 0–3 events at now or a little (or much) later, then pop one.
            for _ in 0..(next() % 4) {
                let r = next();
                let delta = match r % 5 {
                    0 | 1 => 0,
                    2 => r % 16,
                    3 => r % 100_000,
                    _ => r % (1 << 40),
                };
                let pid = (next() % 50) as u32;
                q.push(now + delta, pid, seq);
                reference.push(Reverse((now + delta, pid, seq)));
                seq += 1;
            }
            let got = q.pop();
            let want = reference.pop().map(|Reverse(e)| e);
            assert_eq!(got, want);
            if let Some((t, _, _)) = got {
                now = t;
            }
        }
        while let Some(Reverse(want)) = reference.pop() {
            assert_eq!(q.pop(), Some(want));
        }
        assert_eq!(q.pop(), None);
    }

    #[test]
    fn a_batch_takes_late_arrivals_in_processor_order() {
        let mut q = EventQueue::new();
        for pid in [5, 1, 3] {
            q.push(10, pid, u64::from(pid));
        }
        assert_eq!(q.pop(), Some((10, 1, 1)));
        // Scheduled at the current time while its batch runs: 2 before 3, 7 after 5.
        q.push(10, 7, 8);
        q.push(10, 2, 9);
        let rest: Vec<u32> = std::iter::from_fn(|| q.pop()).map(|e| e.1).collect();
        assert_eq!(rest, vec![2, 3, 5, 7]);
    }
}
