//! The exchange between parts that are threads of one process: effects move by value through
//! one mailbox per (sender, receiver) pair, and a barrier closes each round.
//!
//! Each round writes the mailboxes and summaries of its parity (round r uses buffer r mod 2):
//! a part can only begin round r + 2, and write that buffer again, after every part has
//! arrived at the barrier of round r + 1, that is after each has read round r. One barrier
//! per window is all the synchronisation there is.
//!
//! A part that leaves the exchange (its end dropped: a part that returned early, a thread that
//! could not start or that unwound from a bug in the engine, a processor's panic being caught
//! long before) marks it lost; every other part's exchange then returns
//! [`TransportError::PartLost`] naming it instead of waiting for it forever.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::{Condvar, Mutex};

#[cfg(test)]
use crossbeam_channel::{Receiver, Sender, TryRecvError};

#[cfg(test)]
use super::Post;
use super::{Exchange, Summary, TransportError};

/// Partitioned virtual time: how many times a part looks at the window barrier before it
/// sleeps on it (the other parts usually arrive within microseconds), when there are no
/// more parts than cores (else it sleeps at once).
pub const EXCHANGE_SPINS: u32 = 4_096;

/// One part's end of the exchange.
pub(crate) struct ThreadsExchange<E> {
    part: usize,
    round: u64,
    shared: Arc<Shared<E>>,
}

struct Shared<E> {
    parts: usize,
    /// How many times a part looks at the barrier before it sleeps on it: spinning pays only
    /// when every part has a core.
    spins: u32,
    /// `mail[parity][from * parts + to]`.
    mail: [Vec<Mutex<Vec<E>>>; 2],
    summaries: [Mutex<Vec<Summary>>; 2],
    barrier: Mutex<Barrier>,
    /// Rounds completed, readable without the lock (for spinning).
    generation: AtomicU64,
    released: Condvar,
}

struct Barrier {
    arrived: usize,
    /// The part whose thread ended without finishing, if any.
    lost: Option<usize>,
}

/// The ends of an exchange between `parts` threads, one per part (index = part).
pub(crate) fn connect<E>(parts: usize) -> Vec<ThreadsExchange<E>> {
    let mailboxes = || (0..parts * parts).map(|_| Mutex::new(Vec::new())).collect();
    let summaries = || Mutex::new(vec![Summary::default(); parts]);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let shared = Arc::new(Shared {
        parts,
        spins: if parts <= cores { EXCHANGE_SPINS } else { 0 },
        mail: [mailboxes(), mailboxes()],
        summaries: [summaries(), summaries()],
        barrier: Mutex::new(Barrier {
            arrived: 0,
            lost: None,
        }),
        generation: AtomicU64::new(0),
        released: Condvar::new(),
    });
    (0..parts)
        .map(|part| ThreadsExchange {
            part,
            round: 0,
            shared: Arc::clone(&shared),
        })
        .collect()
}

impl<E> ThreadsExchange<E> {
    /// Waits until every part has arrived at this round's barrier.
    fn wait(&self) -> Result<(), TransportError> {
        let s = &self.shared;
        let lost = |part| TransportError::PartLost {
            part,
            reason: "it left the exchange in the middle of the run".into(),
        };
        let mut b = s.barrier.lock();
        if let Some(p) = b.lost {
            return Err(lost(p));
        }
        b.arrived += 1;
        if b.arrived == s.parts {
            b.arrived = 0;
            s.generation.store(self.round + 1, Ordering::Release);
            s.released.notify_all();
            return Ok(());
        }
        drop(b);
        // The other parts are usually a few microseconds away: spin a little first, letting
        // them have the core now and then (a loaded host may run them on this one).
        for i in 0..s.spins {
            if s.generation.load(Ordering::Acquire) > self.round {
                return Ok(());
            }
            if i % 64 == 63 {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
        let mut b = s.barrier.lock();
        while s.generation.load(Ordering::Acquire) <= self.round {
            if let Some(p) = b.lost {
                return Err(lost(p));
            }
            s.released.wait(&mut b);
        }
        Ok(())
    }
}

impl<E> Exchange<E> for ThreadsExchange<E> {
    fn part(&self) -> usize {
        self.part
    }

    fn parts(&self) -> usize {
        self.shared.parts
    }

    fn exchange(
        &mut self,
        outgoing: Vec<Vec<E>>,
        summary: Summary,
    ) -> Result<(Vec<E>, Vec<Summary>), TransportError> {
        let s = &self.shared;
        let (k, me) = (s.parts, self.part);
        let parity = (self.round % 2) as usize;
        debug_assert_eq!(outgoing.len(), k);
        for (to, effects) in outgoing.into_iter().enumerate() {
            if !effects.is_empty() {
                s.mail[parity][me * k + to].lock().extend(effects);
            }
        }
        s.summaries[parity].lock()[me] = summary;
        self.wait()?;
        let mut incoming = Vec::new();
        for from in 0..k {
            incoming.append(&mut s.mail[parity][from * k + me].lock());
        }
        let summaries = s.summaries[parity].lock().clone();
        self.round += 1;
        Ok((incoming, summaries))
    }
}

impl<E> Drop for ThreadsExchange<E> {
    /// A part leaves the exchange: every part still waiting at a barrier, or arriving at a
    /// new one, is told (after the last round of a run, nobody is).
    fn drop(&mut self) {
        let mut b = self.shared.barrier.lock();
        b.lost.get_or_insert(self.part);
        self.shared.released.notify_all();
    }
}

#[cfg(test)]
/// One rank's end of a [`Post`] between threads standing for ranks (tests of the native
/// engine across ranks without MPI): notes move by value.
pub(crate) struct ThreadsPost<T> {
    rank: usize,
    to: Vec<Sender<(usize, Vec<T>)>>,
    from: Receiver<(usize, Vec<T>)>,
}

/// The ends of a post between `ranks` threads (index = rank).
#[cfg(test)]
pub(crate) fn post<T>(ranks: usize) -> Vec<ThreadsPost<T>> {
    let (to, from): (Vec<_>, Vec<_>) = (0..ranks).map(|_| crossbeam_channel::unbounded()).unzip();
    from.into_iter()
        .enumerate()
        .map(|(rank, from)| ThreadsPost {
            rank,
            to: to.clone(),
            from,
        })
        .collect()
}

#[cfg(test)]
impl<T> Post<T> for ThreadsPost<T> {
    fn rank(&self) -> usize {
        self.rank
    }

    fn ranks(&self) -> usize {
        self.to.len()
    }

    fn send(&mut self, batches: Vec<(usize, Vec<T>)>) -> Result<(), TransportError> {
        for (q, notes) in batches {
            self.to[q]
                .send((self.rank, notes))
                .map_err(|_| TransportError::PartLost {
                    part: q,
                    reason: format!("rank {q}'s thread has ended"),
                })?;
        }
        Ok(())
    }

    fn try_recv(&mut self) -> Result<Option<(usize, Vec<T>)>, TransportError> {
        match self.from.try_recv() {
            Ok(batch) => Ok(Some(batch)),
            // Every end holds a sender to itself: the channel never disconnects.
            Err(TryRecvError::Empty | TryRecvError::Disconnected) => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three parts, two rounds: each gets what the others sent it, in part order, and every
    /// summary.
    #[test]
    fn every_part_gets_its_mail_in_part_order_and_all_summaries() {
        let ends = connect::<(usize, usize, u64)>(3);
        let got: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = ends
                .into_iter()
                .map(|mut end| {
                    s.spawn(move || {
                        let me = end.part();
                        let mut rounds = Vec::new();
                        for round in 0..2u64 {
                            let outgoing = (0..end.parts())
                                .map(|to| {
                                    if to == me {
                                        Vec::new()
                                    } else {
                                        vec![(me, to, round), (me, to, round + 10)]
                                    }
                                })
                                .collect();
                            let summary = Summary {
                                next_ns: Some(100 * me as u64 + round),
                                ..Summary::default()
                            };
                            rounds.push(end.exchange(outgoing, summary).unwrap());
                        }
                        rounds
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (me, rounds) in got.iter().enumerate() {
            for (round, (incoming, summaries)) in rounds.iter().enumerate() {
                let round = round as u64;
                let want: Vec<_> = (0..3)
                    .filter(|&from| from != me)
                    .flat_map(|from| [(from, me, round), (from, me, round + 10)])
                    .collect();
                assert_eq!(incoming, &want, "part {me}, round {round}");
                let next: Vec<_> = summaries.iter().map(|s| s.next_ns).collect();
                assert_eq!(
                    next,
                    vec![Some(round), Some(100 + round), Some(200 + round)]
                );
            }
        }
    }

    /// A part whose thread panics is named by the others, which return instead of waiting.
    #[test]
    fn a_part_that_dies_is_named_by_the_others() {
        let mut ends = connect::<u8>(2);
        let survivor = ends.pop().unwrap();
        let dying = ends.pop().unwrap();
        std::thread::scope(|s| {
            let h = s.spawn(move || {
                let _end = dying;
                panic!("engine bug");
            });
            assert!(h.join().is_err());
            let mut survivor = survivor;
            let err = survivor
                .exchange(vec![Vec::new(), Vec::new()], Summary::default())
                .unwrap_err();
            assert!(
                matches!(err, TransportError::PartLost { part: 0, .. }),
                "{err}"
            );
        });
    }
}
