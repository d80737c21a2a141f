//! The exchange between parts that are MPI ranks (feature `mpi`): rank r runs part r, and
//! each window's cut-link effects cross ranks serialised.
//!
//! # Protocol, per round
//!
//! 1. [`MpiExchange::post_sends`]: serialise, for every other part q, this part's summary
//!    with the effects for q, and start a non-blocking send of it to rank q (MPI keeps the
//!    messages between two ranks in order, so one tag serves every round).
//! 2. [`MpiExchange::take_packets`]: poll every other rank for its packet of this round
//!    (a non-blocking matched probe, then the receive), until each has answered or the
//!    timeout has passed since the round began.
//! 3. [`MpiExchange::finish_sends`]: wait, within the same deadline, for this part's sends to
//!    complete.
//!
//! # A rank that dies or hangs
//!
//! A rank that has not answered by the deadline ([`MPI_EXCHANGE_TIMEOUT`], or the
//! `MULTICOMPUTER_MPI_TIMEOUT` environment variable in seconds) is named in
//! [`TransportError::PartLost`]; the caller then ends the whole job with
//! [`Ranks::abort`] rather than waiting for it (MPI cannot finalise with a rank gone). If
//! this part's own sends cannot complete either, MPI still holds their buffers, so the
//! exchange itself aborts the job after saying which rank it lost. A window of a live
//! run never lasts the timeout: a rank is quiet that long only if it died, hangs, or
//! computes for that long in one window.
//!

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use mpi::Rank;
use mpi::environment::Universe;
use mpi::point_to_point::MatchedReceiveVec;
use mpi::request::Request;
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, Destination, Source};
use serde::Serialize;
use serde::de::DeserializeOwned;

use std::collections::VecDeque;

use mpi::point_to_point::Status;

use super::{Exchange, Post, Summary, TransportError};

/// The MPI tag of the cut-link proxies' notes (the window exchange uses the default tag 0),
/// so that neither takes the other's messages.
const POST_TAG: mpi::Tag = 7;

/// How long a rank waits for another's packet in one window before it names it lost and the
/// job ends (`MULTICOMPUTER_MPI_TIMEOUT` overrides it, in seconds). Far above any window of a
/// live run; a dead or hung rank is found this late.
pub const MPI_EXCHANGE_TIMEOUT: Duration = Duration::from_secs(120);

/// The pause between two polls of the other ranks while a rank waits for their packets
/// (short: windows are microseconds apart on one host).
pub const MPI_POLL_INTERVAL: Duration = Duration::from_micros(20);

/// Set when an exchange lost a rank: MPI cannot be finalised after that.
static LOST_A_RANK: AtomicBool = AtomicBool::new(false);

/// This process's place among the MPI ranks it was started with; MPI is finalised when it is
/// dropped. Make one per process, first thing ([`Ranks::initialize`]).
pub struct Ranks {
    universe: Universe,
}

impl Ranks {
    /// Initialises MPI; `None` if it was initialised before. Any thread may call MPI, one at
    /// a time (a native run over ranks calls it from its proxy thread while the main thread
    /// waits).
    ///
    /// Every rank then tells the others its host and process id, so that each knows the
    /// job's processes on its host ([`job_processes`](crate::job_processes)); a rank that
    /// does not answer within the exchange's timeout leaves each rank knowing only itself.
    pub fn initialize() -> Option<Self> {
        let (universe, _) = mpi::initialize_with_threading(mpi::Threading::Serialized)?;
        if universe.world().size() > 1 {
            let host = mpi::environment::processor_name().unwrap_or_default();
            let me = (host.clone(), std::process::id());
            if let Ok(ranks) = all_gather(&mut MpiExchange::new(exchange_timeout()), me) {
                crate::job::set_ranks(&host, ranks);
            }
        }
        Some(Self { universe })
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.universe.world().rank() as usize
    }

    /// The number of ranks.
    pub fn size(&self) -> usize {
        self.universe.world().size() as usize
    }

    /// Whether an exchange lost a rank (then end the job with [`Ranks::abort`]: MPI cannot
    /// be finalised).
    pub fn lost_a_rank(&self) -> bool {
        LOST_A_RANK.load(Ordering::Relaxed)
    }

    /// Ends every rank of the job with exit code `code` (after a rank was lost, when MPI
    /// cannot be finalised).
    pub fn abort(&self, code: i32) -> ! {
        self.universe.world().abort(code)
    }
}

/// Marks a rank lost (a native run's proxy found one silent for the timeout): the job is
/// then ended ([`Ranks::abort`]) rather than finalised.
pub(crate) fn note_lost() {
    LOST_A_RANK.store(true, Ordering::Relaxed);
}

/// The time a rank waits for another in one round: [`MPI_EXCHANGE_TIMEOUT`], or
/// `MULTICOMPUTER_MPI_TIMEOUT` seconds if set to a positive number.
pub(crate) fn exchange_timeout() -> Duration {
    std::env::var("MULTICOMPUTER_MPI_TIMEOUT")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map_or(MPI_EXCHANGE_TIMEOUT, Duration::from_secs_f64)
}

/// One part's end of the exchange: the world communicator, part = rank.
pub(crate) struct MpiExchange {
    world: SimpleCommunicator,
    part: usize,
    parts: usize,
    timeout: Duration,
}

/// A send under way: to which rank, its request (`None` once complete).
type Sending<'a, S> = Option<(Rank, Request<'a, [u8], S>)>;

/// Tests every send under way, forgetting those complete; the rank of the first still
/// under way, if one is.
fn first_pending<'a, S: mpi::request::Scope<'a>>(sends: &mut [Sending<'a, S>]) -> Option<Rank> {
    for slot in sends.iter_mut() {
        if let Some((q, request)) = slot.take() {
            if let Err(request) = request.test() {
                *slot = Some((q, request));
            }
        }
    }
    sends.iter().flatten().next().map(|(q, _)| *q)
}

/// This test process's MPI ranks when it is one of several (started by `mpirun -np K`,
/// K ≥ 2), MPI initialised; else `None`, saying so, and the test has nothing to check.
#[cfg(test)]
pub(crate) fn test_ranks() -> Option<Ranks> {
    let several = std::env::var("OMPI_COMM_WORLD_SIZE")
        .or_else(|_| std::env::var("PMI_SIZE"))
        .is_ok_and(|s| s.parse::<usize>().is_ok_and(|k| k > 1));
    if !several {
        eprintln!("not under mpirun with several ranks: nothing to test here");
        return None;
    }
    Some(Ranks::initialize().expect("MPI initialised once"))
}

/// What one rank sends another in a round.
#[derive(serde::Deserialize)]
struct Packet<E> {
    summary: Summary,
    effects: Vec<E>,
}

/// [`Packet`] borrowed, for sending.
#[derive(Serialize)]
struct PacketRef<'a, E> {
    summary: Summary,
    effects: &'a [E],
}

impl MpiExchange {
    /// This rank's end, with the `timeout` of [`exchange_timeout`]. MPI must be initialised
    /// ([`Ranks::initialize`]).
    pub(crate) fn new(timeout: Duration) -> Self {
        let world = SimpleCommunicator::world();
        let part = world.rank() as usize;
        let parts = world.size() as usize;
        Self {
            world,
            part,
            parts,
            timeout,
        }
    }

    fn lost(&self, part: usize, what: &str) -> TransportError {
        LOST_A_RANK.store(true, Ordering::Relaxed);
        TransportError::PartLost {
            part,
            reason: format!(
                "rank {part} {what} within {:.0} s (MULTICOMPUTER_MPI_TIMEOUT); it died or hangs",
                self.timeout.as_secs_f64()
            ),
        }
    }

    /// Step 1: the serialised packet for every other part.
    fn packets<E: Serialize>(
        &self,
        outgoing: &[Vec<E>],
        summary: Summary,
    ) -> Result<Vec<(Rank, Vec<u8>)>, TransportError> {
        (0..self.parts)
            .filter(|&q| q != self.part)
            .map(|q| {
                let effects = outgoing.get(q).map_or(&[][..], Vec::as_slice);
                serde_json::to_vec(&PacketRef { summary, effects })
                    .map(|bytes| (q as Rank, bytes))
                    .map_err(|e| TransportError::Failed(format!("serialising effects: {e}")))
            })
            .collect()
    }

    /// Step 1: starts the sends of `packets`.
    fn post_sends<'a, S: mpi::request::Scope<'a> + Copy>(
        &self,
        scope: S,
        packets: &'a [(Rank, Vec<u8>)],
    ) -> Vec<Sending<'a, S>> {
        packets
            .iter()
            .map(|(q, bytes)| {
                let request = self
                    .world
                    .process_at_rank(*q)
                    .immediate_send(scope, &bytes[..]);
                Some((*q, request))
            })
            .collect()
    }

    /// Step 2: every other part's packet, in part order, by `deadline`.
    fn take_packets<E: DeserializeOwned>(
        &self,
        deadline: Instant,
    ) -> Result<Vec<Option<Packet<E>>>, TransportError> {
        let mut got: Vec<Option<Packet<E>>> = (0..self.parts).map(|_| None).collect();
        let mut missing = self.parts - 1;
        while missing > 0 {
            let mut progress = false;
            for q in (0..self.parts).filter(|&q| q != self.part) {
                if got[q].is_some() {
                    continue;
                }
                let probe = self
                    .world
                    .process_at_rank(q as Rank)
                    .immediate_matched_probe();
                if let Some(probed) = probe {
                    let (bytes, _) = probed.matched_receive_vec::<u8>();
                    let packet = serde_json::from_slice(&bytes).map_err(|e| {
                        TransportError::Failed(format!("reading the effects of rank {q}: {e}"))
                    })?;
                    got[q] = Some(packet);
                    missing -= 1;
                    progress = true;
                }
            }
            if missing > 0 && !progress {
                if Instant::now() >= deadline {
                    let q = (0..self.parts)
                        .find(|&q| q != self.part && got[q].is_none())
                        .unwrap_or(0);
                    return Err(self.lost(q, "sent nothing"));
                }
                std::thread::sleep(MPI_POLL_INTERVAL);
            }
        }
        Ok(got)
    }

    /// Step 3: waits for this part's sends by `deadline`; a rank that never takes its packet
    /// leaves MPI holding the buffer, so the job is aborted after naming it.
    fn finish_sends<'a, S: mpi::request::Scope<'a>>(
        &self,
        mut sends: Vec<Sending<'a, S>>,
        deadline: Instant,
    ) {
        loop {
            let Some(q) = first_pending(&mut sends) else {
                return;
            };
            if Instant::now() >= deadline {
                eprintln!(
                    "error: rank {}: {}; ending the job",
                    self.part,
                    self.lost(q as usize, "took nothing")
                );
                self.world.abort(3);
            }
            std::thread::sleep(MPI_POLL_INTERVAL);
        }
    }
}

impl<E: Serialize + DeserializeOwned> Exchange<E> for MpiExchange {
    fn part(&self) -> usize {
        self.part
    }

    fn parts(&self) -> usize {
        self.parts
    }

    fn exchange(
        &mut self,
        outgoing: Vec<Vec<E>>,
        summary: Summary,
    ) -> Result<(Vec<E>, Vec<Summary>), TransportError> {
        let deadline = Instant::now() + self.timeout;
        let packets = self.packets(&outgoing, summary)?;
        drop(outgoing);
        let received = mpi::request::scope(|scope| {
            let sends = self.post_sends(scope, &packets);
            let received = self.take_packets::<E>(deadline);
            self.finish_sends(sends, deadline);
            received
        })?;
        let mut summaries = vec![Summary::default(); self.parts];
        let mut incoming = Vec::new();
        for (q, packet) in received.into_iter().enumerate() {
            match packet {
                Some(p) => {
                    summaries[q] = p.summary;
                    incoming.extend(p.effects);
                }
                None => summaries[q] = summary,
            }
        }
        Ok((incoming, summaries))
    }
}

/// One rank's end of the post between the cut-link proxies of a native run over ranks
/// (`engines/threads/cut.rs`): each batch is serialised and sent with [`POST_TAG`]; while
/// a send completes, what other ranks send is taken in, so that two ranks sending to each
/// other never wait on each other.
pub(crate) struct MpiPost {
    rank: usize,
    ranks: usize,
    timeout: Duration,
    /// Batches taken in while sending: (rank, bytes).
    taken: VecDeque<(usize, Vec<u8>)>,
}

impl MpiPost {
    /// This rank's end, with the `timeout` of [`exchange_timeout`]. MPI must be initialised
    /// ([`Ranks::initialize`]).
    pub(crate) fn new(timeout: Duration) -> Self {
        let world = SimpleCommunicator::world();
        Self {
            rank: world.rank() as usize,
            ranks: world.size() as usize,
            timeout,
            taken: VecDeque::new(),
        }
    }

    /// The world communicator (a handle, fetched where it is used: it cannot move between
    /// threads, and the post is made on one thread and used on its proxy's).
    fn world() -> SimpleCommunicator {
        SimpleCommunicator::world()
    }

    /// A batch from any rank, if one has come, into `taken`.
    fn take_one(&mut self) -> bool {
        let probe = Self::world()
            .any_process()
            .immediate_matched_probe_with_tag(POST_TAG);
        let Some(probed) = probe else {
            return false;
        };
        let (bytes, status): (Vec<u8>, Status) = probed.matched_receive_vec();
        self.taken.push_back((status.source_rank() as usize, bytes));
        true
    }
}

impl<T: Serialize + DeserializeOwned> Post<T> for MpiPost {
    fn rank(&self) -> usize {
        self.rank
    }

    fn ranks(&self) -> usize {
        self.ranks
    }

    fn send(&mut self, batches: Vec<(usize, Vec<T>)>) -> Result<(), TransportError> {
        let packets = batches
            .iter()
            .map(|(q, notes)| {
                serde_json::to_vec(notes)
                    .map(|bytes| (*q as Rank, bytes))
                    .map_err(|e| TransportError::Failed(format!("serialising notes: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let deadline = Instant::now() + self.timeout;
        let world = Self::world();
        mpi::request::scope(|scope| {
            let mut sends: Vec<Sending<'_, _>> = packets
                .iter()
                .map(|(q, bytes)| {
                    let request = world.process_at_rank(*q).immediate_send_with_tag(
                        scope,
                        &bytes[..],
                        POST_TAG,
                    );
                    Some((*q, request))
                })
                .collect();
            loop {
                let Some(q) = first_pending(&mut sends) else {
                    return;
                };
                let q = q as usize;
                if !self.take_one() {
                    if Instant::now() >= deadline {
                        LOST_A_RANK.store(true, Ordering::Relaxed);
                        eprintln!(
                            "error: rank {}: rank {q} took nothing within {:.0} s \
                             (MULTICOMPUTER_MPI_TIMEOUT); it died or hangs; ending the job",
                            self.rank,
                            self.timeout.as_secs_f64()
                        );
                        world.abort(3);
                    }
                    std::thread::sleep(MPI_POLL_INTERVAL);
                }
            }
        });
        Ok(())
    }

    fn try_recv(&mut self) -> Result<Option<(usize, Vec<T>)>, TransportError> {
        if self.taken.is_empty() {
            self.take_one();
        }
        let Some((q, bytes)) = self.taken.pop_front() else {
            return Ok(None);
        };
        let notes = serde_json::from_slice(&bytes)
            .map_err(|e| TransportError::Failed(format!("reading the notes of rank {q}: {e}")))?;
        Ok(Some((q, notes)))
    }
}

/// Gathers `value` from every rank on every rank, serialised, in rank order, through the
/// same exchange: each rank sends its value, written once, to every other.
pub(crate) fn all_gather<T: Serialize + DeserializeOwned>(
    exchange: &mut MpiExchange,
    value: T,
) -> Result<Vec<T>, TransportError> {
    let me = exchange.part;
    let text = serde_json::to_string(&value)
        .map_err(|e| TransportError::Failed(format!("serialising a part's record: {e}")))?;
    let outgoing: Vec<Vec<String>> = (0..exchange.parts)
        .map(|q| {
            if q == me {
                Vec::new()
            } else {
                vec![text.clone()]
            }
        })
        .collect();
    let (incoming, _) = exchange.exchange(outgoing, Summary::default())?;
    let mut all = incoming
        .iter()
        .map(|t| serde_json::from_str(t))
        .collect::<Result<Vec<T>, _>>()
        .map_err(|e| TransportError::Failed(format!("reading a part's record: {e}")))?;
    all.insert(me, value);
    Ok(all)
}

/// Run under `mpirun -np K` (K ≥ 2), one test thread: `.ci/run`'s MPI stage does.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mpi_ranks_exchange_effects_and_summaries_in_part_order() {
        let Some(ranks) = test_ranks() else {
            return;
        };
        let mut x = MpiExchange::new(Duration::from_secs(60));
        let (me, k) = (x.part, x.parts);
        assert_eq!((me, k), (ranks.rank(), ranks.size()));
        for round in 0..50u64 {
            // Part p sends part q the numbers (round, p, q, i) for i < p + q.
            let outgoing: Vec<Vec<(u64, usize, usize, usize)>> = (0..k)
                .map(|q| {
                    if q == me {
                        Vec::new()
                    } else {
                        (0..me + q).map(|i| (round, me, q, i)).collect()
                    }
                })
                .collect();
            let summary = Summary {
                next_ns: Some(round * 1000 + me as u64),
                sent: round,
                ..Summary::default()
            };
            let (incoming, summaries) = x.exchange(outgoing, summary).unwrap();
            let expected: Vec<_> = (0..k)
                .filter(|&p| p != me)
                .flat_map(|p| (0..p + me).map(move |i| (round, p, me, i)))
                .collect();
            assert_eq!(incoming, expected);
            for (p, s) in summaries.iter().enumerate() {
                assert_eq!(s.next_ns, Some(round * 1000 + p as u64));
            }
        }
        let all = all_gather(&mut x, format!("rank {me}")).unwrap();
        let want: Vec<_> = (0..k).map(|r| format!("rank {r}")).collect();
        assert_eq!(all, want);
    }

    #[test]
    fn mpi_job_processes_are_every_rank_on_this_host() {
        let Some(ranks) = test_ranks() else {
            return;
        };
        // `mpirun -np K` on one host: every rank here, in rank order, this one in its place.
        let here = crate::job_processes();
        assert_eq!(here.len(), ranks.size(), "{here:?}");
        assert_eq!(here[ranks.rank()], std::process::id());
        let mut distinct = here.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), here.len(), "{here:?}");
        // The same list on every rank.
        let mut x = MpiExchange::new(Duration::from_secs(60));
        let all = all_gather(&mut x, here.clone()).unwrap();
        assert!(all.iter().all(|h| *h == here), "{all:?}");
    }
}
