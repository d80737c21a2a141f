//! Native and dilated runs across ranks: the links cut between ranks, carried by one proxy
//! thread per rank.
//!
//! Rank r runs the processors of part r (`topology/partition.rs`) on threads, as the thread
//! engine runs a whole machine; links inside a part stay bounded channels. A cut link from a
//! local sender ends in an unbounded channel to the proxy, and the sender holds `capacity`
//! credits instead of channel slots; a cut link to a local receiver is an ordinary bounded
//! channel that the proxy fills. Everything else crosses ranks as [`Note`]s, in order
//! between any two ranks, through a [`Post`] (MPI, or threads in tests).
//!
//! # Time zero ([`agree_start`])
//!
//! 1. **Ping.** Every rank but 0 sends rank 0 [`CLOCK_PINGS`] pings, one at a time, and
//!    keeps each round trip: its clock at the ping, rank 0's clock at the answer, its clock at
//!    the answer's arrival.
//! 2. **Offset.** The round trip with the shortest time gives the offset of rank 0's clock
//!    from this one's, to within half that time ([`best_offset`], Cristian's algorithm): that
//!    half is the rank's *skew*, reported with the run.
//! 3. **Start.** When every rank has its offset, rank 0 names a start instant
//!    [`RANKS_START_MARGIN`] ahead on its clock; each rank turns it into its own.
//!
//! # The proxy's round ([`run_proxy`]), until every rank is done
//!
//! 1. **Forward.** Messages that local senders put on cut links go to their receivers'
//!    ranks, with their emulated stamps (sent, arrival, bytes); a closed cut link (its
//!    sender finished) goes as [`Note::Closed`].
//! 2. **Credit.** For each cut link into this rank: the messages its receiver has taken off
//!    the channel since the last round go back to the sender's rank as a credit, with the
//!    emulated time of the receiver's latest take (a sender that waited for the credit goes
//!    on from that time, as after a full local link).
//! 3. **Report.** Every [`deadlock_check`](crate::MachineConfig::deadlock_check), the rank's
//!    view (which of its processors are blocked, its progress and counts of notes) goes to
//!    every other rank; when every processor of the rank has finished and its cut links are
//!    closed, [`Note::Done`] goes instead, the last note the rank sends. A local failure sends
//!    [`Note::Abort`].
//! 4. **Deliver.** Notes from other ranks: a message into its receiver's channel (and its
//!    arrival checked against its emulated deadline: a late one counts in the cut links'
//!    lateness), a credit to its sender, a closure closes the channel.
//! 5. **Decide.** The whole machine is deadlocked when every rank that is not done reports
//!    all its live processors blocked, no message or credit is between ranks (as many sent
//!    as received), at least one processor waits, and nothing changed since the last report
//!    ([`deadlocked`]): the rank that sees it stops the run with every waiting processor
//!    listed, and tells the others. A rank not heard from for the MPI timeout is named lost.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, TryRecvError, TrySendError};
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

use crate::clock::{LatenessStats, TimeBase};
use crate::error::WaitReport;
use crate::link::Envelope;
use crate::link::flavors::channel::OutLink;
use crate::transport::{Post, TransportError};
use crate::tuning::{CLOCK_PINGS, PROXY_IDLE, RANKS_START_MARGIN};

/// What one rank's proxy posts to another.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Note<M> {
    /// Time zero, step 1: ping number n, to rank 0.
    Ping(u32),
    /// Rank 0's answer to ping `n`: its clock, ns since its anchor.
    Pong { n: u32, clock_ns: u64 },
    /// Time zero, step 2: the sending rank has its offset.
    Synced,
    /// Time zero, step 3: the start, on rank 0's clock (ns since its anchor).
    Start { clock_ns: u64 },
    /// A message on cut link `link` (the machine's directed-link index).
    Message { link: usize, envelope: Envelope<M> },
    /// `count` messages taken off cut link `link`, the latest at emulated `take_ns`.
    Credit {
        link: usize,
        count: u32,
        take_ns: u64,
    },
    /// Cut link `link`'s sender has finished: nothing more comes on it.
    Closed { link: usize },
    /// The sending rank's view, for deadlock detection.
    Status(RankStatus),
    /// Stop the run: a processor failed on the sending rank, or (with what every blocked
    /// processor waits on) the whole machine is deadlocked.
    Abort { deadlock: Option<Vec<WaitReport>> },
    /// Every processor of the sending rank has finished and its cut links are closed; its
    /// last view. The last note a rank sends.
    Done(RankStatus),
}

/// A rank's view, for deadlock detection across ranks.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RankStatus {
    /// What its processors wait on if every live one is blocked with no way on (empty when
    /// none is live); `None` if one can go on.
    pub(crate) stuck: Option<Vec<WaitReport>>,
    /// Messages its processors have sent and received.
    pub(crate) progress: u64,
    /// Messages and credits its proxy has sent to other ranks.
    pub(crate) sent: u64,
    /// Messages and credits its proxy has received from other ranks.
    pub(crate) received: u64,
}

/// What the rank's watcher and its proxy share.
#[derive(Debug, Default)]
pub(crate) struct Board {
    /// The watcher's view of the rank's processors (the counts are the proxy's).
    pub(crate) local: RankStatus,
    /// Every processor of the rank has delivered its outcome.
    pub(crate) finished: bool,
    /// A processor of the rank failed: the other ranks are to stop.
    pub(crate) failed: bool,
    /// Set by the proxy: the run must stop (with the waits, if the machine deadlocked).
    pub(crate) stop: Option<Option<Vec<WaitReport>>>,
}

/// A cut link from a local sender: the proxy's end.
pub(crate) struct OutCut<M> {
    /// The machine's directed-link index.
    pub(crate) link: usize,
    /// The receiver's rank.
    pub(crate) to: usize,
    /// What the sender puts on the link.
    pub(crate) rx: Receiver<Envelope<M>>,
    /// The sender's credits, returned here.
    pub(crate) credits: Sender<u64>,
    pub(crate) closed: bool,
}

/// A cut link to a local receiver: the proxy's end.
pub(crate) struct InCut<M> {
    /// The sender's rank.
    pub(crate) from: usize,
    /// The receiver's channel (`None` once the sender has finished).
    pub(crate) out: Option<OutLink<M>>,
    /// Messages put in the channel, and credited back.
    pub(crate) delivered: u64,
    pub(crate) credited: u64,
}

/// The cut links of one rank.
pub(crate) struct CutLinks<M> {
    pub(crate) outs: Vec<OutCut<M>>,
    /// By directed-link index.
    pub(crate) ins: HashMap<usize, InCut<M>>,
}

/// What a proxy measured (read by a run across ranks, feature `mpi`).
#[cfg_attr(not(any(feature = "mpi", test)), allow(dead_code))]
#[cfg_attr(feature = "mpi", derive(Serialize, Deserialize))]
#[derive(Debug, Clone, Default)]
pub(crate) struct ProxyRecord {
    /// Messages received over cut links: how late each reached its receiver's channel
    /// against its emulated arrival.
    pub(crate) lateness: LatenessStats,
    /// The rank's uncertainty of time zero, ns (half the best round trip; 0 on rank 0).
    pub(crate) skew_ns: u64,
}

/// One round trip of a clock ping: this rank's clock at the ping and at the answer, and
/// the other's clock in its answer (ns, each since its own anchor).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sample {
    pub(crate) sent_ns: u64,
    pub(crate) remote_ns: u64,
    pub(crate) received_ns: u64,
}

/// The other clock's offset from this one (other − this, ns) and how far it may be off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Offset {
    pub(crate) offset_ns: i64,
    pub(crate) uncertainty_ns: u64,
}

/// Time zero, step 2: the offset from the round trip of shortest time, the other clock read
/// half-way through it, to within half of it (Cristian, 1989). `None` without samples.
pub(crate) fn best_offset(samples: &[Sample]) -> Option<Offset> {
    let best = samples
        .iter()
        .min_by_key(|s| s.received_ns.saturating_sub(s.sent_ns))?;
    let trip = best.received_ns.saturating_sub(best.sent_ns);
    let middle = best.sent_ns as i128 + trip as i128 / 2;
    Some(Offset {
        offset_ns: (best.remote_ns as i128 - middle) as i64,
        uncertainty_ns: trip / 2,
    })
}

/// Waits for the next batch from any rank, polling, until `deadline` (then `from` is named
/// lost, having not answered `while`); `pause` between polls. The clock pings yield rather
/// than sleep: a sleep would lengthen their round trips, and so the skew, by the host's
/// wake-up latency.
pub(crate) fn recv_by<M, P: Post<Note<M>>>(
    post: &mut P,
    deadline: Instant,
    (from, while_): (usize, &str),
    pause: impl Fn(),
) -> Result<(usize, Vec<Note<M>>), TransportError> {
    loop {
        if let Some(batch) = post.try_recv()? {
            return Ok(batch);
        }
        if Instant::now() >= deadline {
            return Err(TransportError::PartLost {
                part: from,
                reason: format!(
                    "rank {from} did not answer while {while_} (in the time \
                     MULTICOMPUTER_MPI_TIMEOUT allows); it died or hangs"
                ),
            });
        }
        pause();
    }
}

/// Time zero: what the ranks were doing when one did not answer.
const AGREEING: &str = "the ranks agreed on time zero";

/// Time zero, steps 1 to 3: this rank's start instant and its skew (ns). Every rank calls
/// it once every local processor is ready.
pub(crate) fn agree_start<M, P: Post<Note<M>>>(
    post: &mut P,
    timeout: Duration,
) -> Result<(Instant, u64), TransportError> {
    let anchor = Instant::now();
    let clock = || anchor.elapsed().as_nanos() as u64;
    let deadline = anchor + timeout;
    let (me, ranks) = (post.rank(), post.ranks());
    if me == 0 {
        let mut synced = 1;
        while synced < ranks {
            let (q, notes) = recv_by(post, deadline, (1, AGREEING), std::thread::yield_now)?;
            for note in notes {
                match note {
                    Note::Ping(n) => {
                        let clock_ns = clock();
                        post.send(vec![(q, vec![Note::Pong { n, clock_ns }])])?;
                    }
                    Note::Synced => synced += 1,
                    _ => {}
                }
            }
        }
        let start_ns = clock() + RANKS_START_MARGIN.as_nanos() as u64;
        let batches = (1..ranks)
            .map(|q| (q, vec![Note::Start { clock_ns: start_ns }]))
            .collect();
        post.send(batches)?;
        return Ok((anchor + Duration::from_nanos(start_ns), 0));
    }
    // Step 1.
    let mut samples = Vec::with_capacity(CLOCK_PINGS as usize);
    for n in 0..CLOCK_PINGS {
        let sent_ns = clock();
        post.send(vec![(0, vec![Note::Ping(n)])])?;
        'answer: loop {
            let (_, notes) = recv_by(post, deadline, (0, AGREEING), std::thread::yield_now)?;
            for note in notes {
                if let Note::Pong { n: m, clock_ns } = note {
                    if m == n {
                        samples.push(Sample {
                            sent_ns,
                            remote_ns: clock_ns,
                            received_ns: clock(),
                        });
                        break 'answer;
                    }
                }
            }
        }
    }
    // Step 2.
    let offset = best_offset(&samples).unwrap_or(Offset {
        offset_ns: 0,
        uncertainty_ns: 0,
    });
    post.send(vec![(0, vec![Note::Synced])])?;
    // Step 3.
    loop {
        let (_, notes) = recv_by(post, deadline, (0, AGREEING), std::thread::yield_now)?;
        for note in notes {
            if let Note::Start { clock_ns } = note {
                let local = (clock_ns as i128 - offset.offset_ns as i128).max(0) as u64;
                return Ok((anchor + Duration::from_nanos(local), offset.uncertainty_ns));
            }
        }
    }
}

/// Step 5: the processors waiting, in processor order, if the whole machine is deadlocked
/// by the ranks' latest views (`views[q]`, `None` if not heard yet).
pub(crate) fn deadlocked(views: &[Option<RankStatus>]) -> Option<Vec<WaitReport>> {
    let mut waits = Vec::new();
    let (mut sent, mut received) = (0, 0);
    for view in views {
        let view = view.as_ref()?;
        waits.extend(view.stuck.clone()?);
        sent += view.sent;
        received += view.received;
    }
    if sent != received || waits.is_empty() {
        return None;
    }
    waits.sort_by_key(|w| w.processor);
    Some(waits)
}

/// The proxy's view of the run, between rounds.
struct Proxy<'a, M> {
    me: usize,
    cuts: CutLinks<M>,
    board: &'a Mutex<Board>,
    time: TimeBase,
    tolerance_ns: u64,
    batches: Vec<Vec<Note<M>>>,
    /// Ranks that sent their last note (this one counts as done once it has sent its own).
    done: Vec<bool>,
    views: Vec<Option<RankStatus>>,
    heard: Vec<Instant>,
    sent: u64,
    received: u64,
    lateness: LatenessStats,
    /// Whether the other ranks were told to stop.
    told_abort: bool,
}

impl<M> Proxy<'_, M> {
    /// Step 1.
    fn forward(&mut self) -> bool {
        let mut busy = false;
        for cut in self.cuts.outs.iter_mut().filter(|c| !c.closed) {
            loop {
                match cut.rx.try_recv() {
                    Ok(envelope) => {
                        busy = true;
                        self.batches[cut.to].push(Note::Message {
                            link: cut.link,
                            envelope,
                        });
                        self.sent += 1;
                    }
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => {
                        busy = true;
                        cut.closed = true;
                        self.batches[cut.to].push(Note::Closed { link: cut.link });
                        break;
                    }
                }
            }
        }
        busy
    }

    /// Step 2.
    fn credit(&mut self) -> bool {
        let mut busy = false;
        if self.done[self.me] {
            return busy;
        }
        for (&link, cut) in &mut self.cuts.ins {
            let Some(out) = &cut.out else { continue };
            let taken = cut.delivered - out.tx.len() as u64;
            if taken > cut.credited {
                busy = true;
                self.batches[cut.from].push(Note::Credit {
                    link,
                    count: (taken - cut.credited) as u32,
                    take_ns: out.shared.last_take_ns.load(Ordering::Relaxed),
                });
                self.sent += 1;
                cut.credited = taken;
            }
        }
        busy
    }

    /// The other ranks. A rank that is done still takes notes (and drops them) until every
    /// rank is: each sends every other its last note.
    fn others(&self) -> Vec<usize> {
        (0..self.done.len()).filter(|&q| q != self.me).collect()
    }

    /// Step 3; returns whether this rank has sent its last note. `report` says whether its
    /// view is due.
    fn report(&mut self, report: bool) -> bool {
        let board = self.board.lock();
        let view = RankStatus {
            sent: self.sent,
            received: self.received,
            ..board.local.clone()
        };
        if board.failed && !self.told_abort {
            self.told_abort = true;
            for q in self.others() {
                self.batches[q].push(Note::Abort { deadlock: None });
            }
        }
        let closed = self.cuts.outs.iter().all(|c| c.closed);
        if board.finished && closed {
            let last = RankStatus {
                stuck: Some(Vec::new()),
                ..view
            };
            for q in self.others() {
                self.batches[q].push(Note::Done(last.clone()));
            }
            self.views[self.me] = Some(last);
            self.done[self.me] = true;
            return true;
        }
        if report {
            for q in self.others() {
                self.batches[q].push(Note::Status(view.clone()));
            }
            self.views[self.me] = Some(view);
        }
        false
    }

    /// Step 4, one batch from rank `q`.
    fn deliver(&mut self, q: usize, notes: Vec<Note<M>>) -> Result<(), TransportError> {
        self.heard[q] = Instant::now();
        for note in notes {
            match note {
                Note::Message { link, envelope } => {
                    self.received += 1;
                    let due = self.time.deadline(envelope.arrive_ns);
                    let late = Instant::now().saturating_duration_since(due);
                    self.lateness
                        .record(self.time.emulated_of(late), self.tolerance_ns);
                    let Some(cut) = self.cuts.ins.get_mut(&link) else {
                        continue;
                    };
                    let Some(out) = &cut.out else { continue };
                    match out.tx.try_send(envelope) {
                        Ok(()) => cut.delivered += 1,
                        Err(TrySendError::Disconnected(_)) => {}
                        Err(TrySendError::Full(_)) => {
                            return Err(TransportError::Failed(format!(
                                "cut link {link} got more messages than its credits"
                            )));
                        }
                    }
                }
                Note::Credit {
                    link,
                    count,
                    take_ns,
                } => {
                    self.received += 1;
                    if let Some(cut) = self.cuts.outs.iter().find(|c| c.link == link) {
                        for _ in 0..count {
                            let _ = cut.credits.try_send(take_ns);
                        }
                    }
                }
                Note::Closed { link } => {
                    if let Some(cut) = self.cuts.ins.get_mut(&link) {
                        cut.out = None;
                    }
                }
                Note::Status(view) => self.views[q] = Some(view),
                Note::Abort { deadlock } => {
                    self.board.lock().stop.get_or_insert(deadlock);
                }
                Note::Done(view) => {
                    self.views[q] = Some(view);
                    self.done[q] = true;
                }
                Note::Ping(_) | Note::Pong { .. } | Note::Synced | Note::Start { .. } => {}
            }
        }
        Ok(())
    }

    /// The batches of this round, taken.
    fn take_batches(&mut self) -> Vec<(usize, Vec<Note<M>>)> {
        self.batches
            .iter_mut()
            .enumerate()
            .filter(|(_, b)| !b.is_empty())
            .map(|(q, b)| (q, std::mem::take(b)))
            .collect()
    }
}

/// How the proxy runs: the run's time base, tolerance, deadlock period and MPI timeout.
pub(crate) struct ProxyTerms {
    pub(crate) time: TimeBase,
    pub(crate) tolerance_ns: u64,
    pub(crate) check: Duration,
    pub(crate) timeout: Duration,
    pub(crate) skew_ns: u64,
}

/// The proxy's rounds (steps 1 to 5) until every rank is done; what it measured. A rank
/// lost ends it with [`TransportError::PartLost`] (the run is then stopped).
pub(crate) fn run_proxy<M, P: Post<Note<M>>>(
    cuts: CutLinks<M>,
    post: &mut P,
    board: &Mutex<Board>,
    terms: &ProxyTerms,
) -> Result<ProxyRecord, TransportError> {
    let (me, ranks) = (post.rank(), post.ranks());
    let now = Instant::now();
    let mut proxy = Proxy {
        me,
        cuts,
        board,
        time: terms.time,
        tolerance_ns: terms.tolerance_ns,
        batches: (0..ranks).map(|_| Vec::new()).collect(),
        done: vec![false; ranks],
        views: vec![None; ranks],
        heard: vec![now; ranks],
        sent: 0,
        received: 0,
        lateness: LatenessStats::default(),
        told_abort: false,
    };
    let mut last_report = now;
    let mut suspect: Option<Vec<Option<RankStatus>>> = None;
    loop {
        // Steps 1 to 3.
        let mut busy = proxy.forward();
        busy |= proxy.credit();
        let due = last_report.elapsed() >= terms.check;
        if !proxy.done[me] {
            proxy.report(due);
        }
        let batches = proxy.take_batches();
        if !batches.is_empty() {
            post.send(batches)?;
        }
        // Step 4.
        while let Some((q, notes)) = post.try_recv()? {
            busy = true;
            proxy.deliver(q, notes)?;
        }
        if proxy.done.iter().all(|&d| d) {
            return Ok(ProxyRecord {
                lateness: proxy.lateness,
                skew_ns: terms.skew_ns,
            });
        }
        // Step 5.
        if due {
            last_report = Instant::now();
            let waits = deadlocked(&proxy.views);
            if proxy.done[me] {
                suspect = None;
            } else if waits.is_some() && suspect.as_ref() == Some(&proxy.views) {
                let waits = waits.unwrap_or_default();
                let stop = proxy
                    .others()
                    .into_iter()
                    .map(|q| {
                        let deadlock = Some(waits.clone());
                        (q, vec![Note::Abort { deadlock }])
                    })
                    .collect();
                post.send(stop)?;
                board.lock().stop.get_or_insert(Some(waits));
                proxy.told_abort = true;
                suspect = None;
            } else {
                suspect = waits.map(|_| proxy.views.clone());
            }
            if let Some(q) = (0..ranks)
                .find(|&q| q != me && !proxy.done[q] && proxy.heard[q].elapsed() >= terms.timeout)
            {
                return Err(TransportError::PartLost {
                    part: q,
                    reason: format!(
                        "rank {q} sent nothing for {:.0} s (MULTICOMPUTER_MPI_TIMEOUT); it \
                         died or hangs",
                        terms.timeout.as_secs_f64()
                    ),
                });
            }
        }
        if !busy {
            std::thread::sleep(PROXY_IDLE);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Waiting;

    #[test]
    fn the_offset_is_read_from_the_shortest_round_trip() {
        // Round trips of 100 ns and 1000 ns: the first gives the offset. The other clock
        // read 1050 at this one's 150 (the trip's middle): 900 ahead, give or take 50.
        let samples = [
            Sample {
                sent_ns: 0,
                remote_ns: 5_000,
                received_ns: 1_000,
            },
            Sample {
                sent_ns: 100,
                remote_ns: 1_050,
                received_ns: 200,
            },
        ];
        assert_eq!(
            best_offset(&samples),
            Some(Offset {
                offset_ns: 900,
                uncertainty_ns: 50
            })
        );
        // A clock behind this one gives a negative offset.
        let behind = [Sample {
            sent_ns: 10_000,
            remote_ns: 4_000,
            received_ns: 10_400,
        }];
        assert_eq!(
            best_offset(&behind),
            Some(Offset {
                offset_ns: -6_200,
                uncertainty_ns: 200
            })
        );
        assert_eq!(best_offset(&[]), None);
    }

    fn view(stuck: Option<Vec<usize>>, sent: u64, received: u64) -> Option<RankStatus> {
        Some(RankStatus {
            stuck: stuck.map(|ps| {
                ps.into_iter()
                    .map(|processor| WaitReport {
                        processor,
                        waiting: Waiting::Receive { from: vec![0] },
                    })
                    .collect()
            }),
            progress: 7,
            sent,
            received,
        })
    }

    #[test]
    fn a_deadlock_needs_every_rank_blocked_and_nothing_between_ranks() {
        let ids = |w: Option<Vec<WaitReport>>| {
            w.map(|w| w.into_iter().map(|r| r.processor).collect::<Vec<_>>())
        };
        // Both ranks blocked, as many notes sent as received: processors listed in order.
        let both = [view(Some(vec![5, 3]), 4, 2), view(Some(vec![1]), 2, 4)];
        assert_eq!(ids(deadlocked(&both)), Some(vec![1, 3, 5]));
        // A note still between ranks: its receiver may go on.
        let in_flight = [view(Some(vec![5]), 5, 2), view(Some(vec![1]), 2, 4)];
        assert_eq!(ids(deadlocked(&in_flight)), None);
        // One rank can go on, or has not been heard yet.
        assert_eq!(
            ids(deadlocked(&[view(Some(vec![5]), 0, 0), view(None, 0, 0)])),
            None
        );
        assert_eq!(ids(deadlocked(&[view(Some(vec![5]), 0, 0), None])), None);
        // Every rank done (nothing waits): no deadlock.
        assert_eq!(
            ids(deadlocked(&[
                view(Some(vec![]), 3, 3),
                view(Some(vec![]), 3, 3)
            ])),
            None
        );
    }
}
