//! Virtual time partitioned over threads (`--partitions K`): the topology cut into K parts
//! ([`Partition`]), each part's processors run as coroutines by the sequential scheduler of
//! `sim/` on a thread of its own, the parts handing each other the effects of cut links at
//! window boundaries through an [`Exchange`] (conservative parallel discrete-event
//! simulation with a fixed lookahead, as SST and ns-3's distributed simulator run).
//!
//! # The partitioned semantics
//!
//! Each effect that crosses a link is seen at its other end at least the link latency L (the
//! lookahead) after it happened:
//!
//! - a message arrives at its stamped arrival, ≥ its send + L (the sender goes on at once,
//!   whatever the link holds);
//! - a take frees room on the link for its sender L later: a sender that has sent more
//!   messages than the link's capacity beyond the takes it has seen blocks until it sees one;
//! - a link closes (its sender's program returned) for its receiver L later;
//! - a routed message travels hop by hop ([`routing`](crate::routing)'s "Contention"): the
//!   part that holds a link reserves it when the message (store-and-forward) or its header
//!   (cut-through) reaches it, and the message reaches the next processor one hop later, at
//!   least the per-hop latency, which is L. Hops due at one time are taken by (send time,
//!   sender, the sender's message number), before the processors' events at that time; a
//!   message is held at its destination from its arrival, as in the sequential engine.
//!
//! Equal arrivals on a receive are taken in (arrival, send time, sender) order (routed
//! messages: then the sender's message number), a key no part's order of events can change; events at one emulated time are taken by the tie order
//! within a part, which cannot change results: with L > 0 nothing one processor does at time
//! t reaches another before t + L. `--partitions 1` is the sequential reference of these
//! semantics; without `--partitions` the sequential engine keeps today's rules (`sim/`: a
//! blocked sender goes on when its receiver takes, a closure is seen at once, equal arrivals
//! of neighbour messages to the message sent first); its routed messages go hop by hop as
//! here (`sim/routed.rs`).
//!
//! # Protocol (each part, on its own thread)
//!
//! 1. **Build** ([`run_part`]): the part's scheduler ([`Lookahead::scheduler`]), with tables
//!    for the part's processors and links only, its processors' coroutines on its thread
//!    (coroutines are not `Send`).
//! 2. **Exchange** ([`exchange_step`]): the effects owed to other parts and a [`Summary`] (a lower
//!    bound of the next event, the first failure, whether all the part's processors returned)
//!    go to every part; the effects received are handed to the scheduler.
//! 3. **Decide** ([`decide`]), the same in every part from the same summaries: a failure
//!    anywhere ends the run (step 5); every processor returned ends it with results; nothing
//!    pending anywhere is a deadlock (step 5); else the next window is [T, T + L) with T the
//!    smallest next event (one part runs to the end in one window).
//! 4. **Run the window** ([`run_window`]): events before its end, as `sim/` takes them; an
//!    effect created in it is seen no earlier than its end, so no part can need it sooner.
//!    A failure stops the part once the events of its instant are taken. Back to step 2.
//! 5. **End** ([`end_failed`], [`end_deadlock`]): one last exchange carries the report: the
//!    failure with the smallest (time, processor), from its part; or every waiting processor,
//!    from every part, in processor order. Every coroutine is unwound before the part
//!    returns.
//!
//! The parts' records are joined by [`assemble_parts`], processor by processor, into the
//! same report and trace for any K.

use std::num::NonZeroUsize;
use std::sync::Arc;
use std::time::Instant;

use super::effect::{Effect, Ending, Failed};
use super::sim::{self, Co, Lookahead, Scheduler, Watchdog};
use super::{Engine, Run};
use crate::clock::Fidelity;
use crate::error::{ProcessorError, RunError, WaitReport};
use crate::link::Payload;
use crate::processor::Processor;
use crate::report::{Outcome, PartsReport, RunRecord, SimStats, WallClock, assemble};
use crate::routing::{Convention, Network};
use crate::topology::Partition;
use crate::transport::threads::connect;
use crate::transport::{Exchange, Summary, TransportError};

/// Partitioned virtual time on threads.
pub(crate) struct Parts;

impl Engine for Parts {
    fn run<M, R, F>(run: &Run<'_>, program: &F) -> Result<RunRecord<R>, RunError>
    where
        M: Payload,
        R: Send,
        F: Fn(&mut Processor<M>) -> Result<R, ProcessorError> + Sync,
    {
        let k = run.spec.partitions.map_or(1, NonZeroUsize::get);
        let partition = Arc::new(Partition::of(run.topology, k));
        let network = Arc::new(Network::new(run.topology, Convention::of(run.spec)));
        // One part runs on the calling thread, as today's engine does: on a thread of its
        // own `--partitions 1` was measurably slower than here (docs/results/distributed.md,
        // "The regression found, and the gap closed", has the figures and their command).
        let joined: Vec<Result<PartRecord<R>, RunError>> = if k == 1 {
            connect::<Effect<M>>(1)
                .into_iter()
                .map(|end| run_part(run, &partition, &network, program, end))
                .collect()
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = connect::<Effect<M>>(k)
                    .into_iter()
                    .map(|end| {
                        let part = end.part();
                        let (partition, network) = (&partition, &network);
                        let spawned = std::thread::Builder::new()
                            .name(format!("part-{part}"))
                            .spawn_scoped(s, move || {
                                run_part(run, partition, network, program, end)
                            });
                        (part, spawned)
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|(part, h)| {
                        let lost = |reason: String| {
                            RunError::Exchange(TransportError::PartLost { part, reason })
                        };
                        match h {
                            Ok(h) => h.join().unwrap_or_else(|payload| {
                                Err(lost(format!(
                                    "its thread panicked: {}",
                                    crate::report::panic_message(&*payload)
                                )))
                            }),
                            Err(e) => Err(lost(format!("its thread could not start: {e}"))),
                        }
                    })
                    .collect()
            })
        };
        // Every part ends with the run's failure; one that lost the others reports only that.
        let mut records = Vec::with_capacity(k);
        let mut lost = None;
        for r in joined {
            match r {
                Ok(record) => records.push(record),
                Err(e @ RunError::Exchange(_)) => {
                    lost.get_or_insert(e);
                }
                Err(e) => return Err(e),
            }
        }
        if let Some(e) = lost {
            return Err(e);
        }
        assemble_parts(run, &partition, records)
    }
}

/// What one part leaves behind when the run succeeds (serialised as it crosses MPI ranks).
#[cfg_attr(feature = "mpi", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct PartRecord<R> {
    /// Its processors' outcomes, by increasing processor index.
    pub(crate) outcomes: Vec<(usize, Option<Outcome<R>>)>,
    /// Its scheduler's counts (`SimStats`'s, without the stack size; `queue_pops` counts
    /// the events that resumed a processor).
    pub(crate) delivered: u64,
    pub(crate) timed_waits: u64,
    pub(crate) simcalls: u64,
    pub(crate) queue_pops: u64,
    /// Windows run.
    pub(crate) windows: u64,
    /// Wall time of its run and of its set-up, seconds.
    pub(crate) run_s: f64,
    pub(crate) setup_s: f64,
}

/// The first failure of a part: its (time, processor) and what it was.
type FirstFailure = Option<((u64, usize), RunError)>;

/// The state of one part between the steps.
struct Part<'a, M, R> {
    run: &'a Run<'a>,
    partition: &'a Partition,
    /// Its processors, in increasing index: the scheduler's (local) order, the coroutines'
    /// and the slots'.
    members: Vec<usize>,
    scheduler: Scheduler<M, Lookahead<M>>,
    slots: *mut Option<Outcome<R>>,
    coroutines: Vec<Co<M>>,
    guards: Vec<(usize, usize)>,
    finished: usize,
    failure: FirstFailure,
    windows: u64,
    /// Events that resumed a processor.
    resumes: u64,
}

/// What comes after an exchange (step 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    /// Run the events before this time.
    Window(u64),
    /// Every processor has returned.
    Done,
    /// The run failed: this (time, processor) first.
    Failed((u64, usize)),
    /// Nothing is pending anywhere and some processors have not returned.
    Deadlock,
}

/// Runs part `exchange.part()` of a partitioned run of `program` (steps 1 to 5): the entry
/// point of every transport, each part on a thread of its own. `partition` and `network` are
/// the run's, the same in every part. Returns the part's record, or the run's failure (the
/// same in every part).
pub(crate) fn run_part<M, R, F, X>(
    run: &Run<'_>,
    partition: &Arc<Partition>,
    network: &Arc<Network>,
    program: &F,
    mut exchange: X,
) -> Result<PartRecord<R>, RunError>
where
    M: Payload,
    F: Fn(&mut Processor<M>) -> Result<R, ProcessorError> + Sync,
    X: Exchange<Effect<M>>,
{
    // Step 1.
    let setup_start = Instant::now();
    let (spec, topology) = (run.spec, run.topology);
    sim::install_overflow_trap();
    let me = exchange.part();
    let members = partition.members(me);
    // The slots outlive the coroutines (declared first, dropped last), as in `sim/`.
    let mut slots: Vec<Option<Outcome<R>>> = members.iter().map(|_| None).collect();
    let slots_ptr = slots.as_mut_ptr();
    let (coroutines, guards, failure) =
        match sim::build(run, program, members.iter().copied(), slots_ptr, network) {
            Ok((c, g)) => (c, g, None),
            Err(e) => {
                let processor = match &e {
                    RunError::Spawn { processor, .. } => *processor,
                    _ => members.first().copied().unwrap_or(0),
                };
                (Vec::new(), Vec::new(), Some(((0, processor), e)))
            }
        };
    let scheduler = Lookahead::scheduler(
        topology,
        spec.capacity,
        spec.ties,
        spec.link,
        Arc::clone(network),
        &members,
        Arc::clone(partition),
    );
    let mut part = Part {
        run,
        partition,
        scheduler,
        members,
        slots: slots_ptr,
        coroutines,
        guards,
        finished: 0,
        failure,
        windows: 0,
        resumes: 0,
    };
    let setup_s = setup_start.elapsed().as_secs_f64();

    let watchdog = Watchdog::start();
    let run_start = Instant::now();
    let ended = loop {
        let summaries = match exchange_step(&mut part, &mut exchange) {
            Ok(s) => s,
            Err(e) => break Err(e),
        };
        match decide(&summaries, exchange.parts(), spec.link.latency_ns()) {
            Next::Window(until) => run_window(&mut part, until, &watchdog),
            Next::Done => break Ok(()),
            Next::Failed(first) => break Err(end_failed(&mut part, &mut exchange, first)),
            Next::Deadlock => break Err(end_deadlock(&mut part, &mut exchange)),
        }
    };
    let run_s = run_start.elapsed().as_secs_f64();
    drop(watchdog);
    // Step 5: unwind every coroutine left (and unmap every stack) before the slots go.
    let Part {
        scheduler,
        coroutines,
        members,
        windows,
        resumes,
        ..
    } = part;
    drop(coroutines);
    ended?;
    Ok(PartRecord {
        outcomes: members.into_iter().zip(slots).collect(),
        delivered: scheduler.delivered,
        timed_waits: scheduler.timed_waits,
        simcalls: scheduler.simcalls,
        queue_pops: resumes,
        windows,
        run_s,
        setup_s,
    })
}

/// Step 2: hands over the effects owed to other parts with this part's summary; takes the
/// effects the others sent. Returns every part's summary.
fn exchange_step<M, R, X>(
    part: &mut Part<'_, M, R>,
    exchange: &mut X,
) -> Result<Vec<Summary>, RunError>
where
    X: Exchange<Effect<M>>,
{
    let queued = part.scheduler.next_time();
    let la = part.scheduler.lookahead();
    let (outgoing, earliest) = la.take_outgoing();
    let handed: u64 = outgoing.iter().map(|o| o.len() as u64).sum();
    let summary = Summary {
        next_ns: [queued, earliest].into_iter().flatten().min(),
        failure: part.failure.as_ref().map(|(first, _)| *first),
        finished: part.finished == part.members.len(),
        sent: la.effects_sent - handed,
        received: la.effects_received,
    };
    let (incoming, summaries) = exchange.exchange(outgoing, summary)?;
    let sent: u64 = summaries.iter().map(|s| s.sent).sum();
    let received: u64 = summaries.iter().map(|s| s.received).sum();
    if sent != received {
        return Err(TransportError::Failed(format!(
            "{sent} cut-link effects were sent and {received} received"
        ))
        .into());
    }
    for effect in incoming {
        part.scheduler.apply(effect);
    }
    Ok(summaries)
}

/// Step 3: what every part does next, from every part's summary.
fn decide(summaries: &[Summary], parts: usize, latency_ns: u64) -> Next {
    if let Some(first) = summaries.iter().filter_map(|s| s.failure).min() {
        return Next::Failed(first);
    }
    if summaries.iter().all(|s| s.finished) {
        return Next::Done;
    }
    match summaries.iter().filter_map(|s| s.next_ns).min() {
        None => Next::Deadlock,
        Some(_) if parts == 1 => Next::Window(u64::MAX),
        Some(t) => Next::Window(t.saturating_add(latency_ns)),
    }
}

/// Step 4: the part's events before `until`, taken as `sim/` takes them.
fn run_window<M: Payload, R>(part: &mut Part<'_, M, R>, mut until: u64, watchdog: &Watchdog) {
    part.windows += 1;
    let latency_ns = part.run.spec.link.latency_ns();
    while let Some(k) = part.scheduler.next_event_before(until) {
        let Some(reply) = part.scheduler.wake(k) else {
            continue;
        };
        part.resumes += 1;
        let Some(exit) = sim::step(
            &mut part.scheduler,
            &mut part.coroutines[k],
            part.guards[k],
            k,
            reply,
            watchdog,
        ) else {
            continue;
        };
        part.scheduler.finish(k);
        let pid = part.members[k];
        part.finished += 1;
        // SAFETY: the coroutine has returned, so it wrote its slot and will not touch it
        // again; nothing else holds a reference to it.
        let slot = unsafe { &*part.slots.add(k) };
        if let Some(error) = sim::failure_at(part.run.spec, pid, exit, slot) {
            let first = (part.scheduler.now_ns, pid);
            if part.failure.as_ref().is_none_or(|(f, _)| first < *f) {
                part.failure = Some((first, error));
            }
            // Failures at this instant may come from processors of smaller index: take them
            // too. Without lookahead (one part, L = 0) they may be this one's consequences.
            if latency_ns == 0 {
                break;
            }
            until = until.min(part.scheduler.now_ns + 1);
        }
    }
}

/// Step 5 after a failure: the part of the processor that failed first sends its failure to
/// every part; each returns it.
fn end_failed<M, R, X>(part: &mut Part<'_, M, R>, exchange: &mut X, first: (u64, usize)) -> RunError
where
    X: Exchange<Effect<M>>,
{
    let me = exchange.part();
    let owner = part.partition.part_of(first.1);
    let mine = part
        .failure
        .take()
        .filter(|(f, _)| *f == first)
        .map(|(_, e)| e);
    let report = mine.as_ref().and_then(Failed::of);
    let outgoing = (0..exchange.parts())
        .map(|q| match &report {
            Some(f) if q != me => vec![Effect::Ended(Ending::Failed(f.clone()))],
            _ => Vec::new(),
        })
        .collect();
    let incoming = match exchange.exchange(outgoing, Summary::default()) {
        Ok((incoming, _)) => incoming,
        Err(e) => return mine.unwrap_or(RunError::Exchange(e)),
    };
    if let Some(e) = mine {
        return e;
    }
    incoming
        .into_iter()
        .find_map(|e| match e {
            Effect::Ended(Ending::Failed(f)) => Some(RunError::from(f)),
            _ => None,
        })
        .unwrap_or_else(|| {
            RunError::Exchange(TransportError::Failed(format!(
                "part {owner} did not report the failure of P{}",
                first.1
            )))
        })
}

/// Step 5 after a deadlock: every part sends what its waiting processors wait on to every
/// part; each returns them all, in processor order.
fn end_deadlock<M, R, X>(part: &mut Part<'_, M, R>, exchange: &mut X) -> RunError
where
    X: Exchange<Effect<M>>,
{
    let me = exchange.part();
    let mut waits: Vec<WaitReport> = part.scheduler.waits();
    let outgoing = (0..exchange.parts())
        .map(|q| {
            if q == me || waits.is_empty() {
                Vec::new()
            } else {
                vec![Effect::Ended(Ending::Waits(waits.clone()))]
            }
        })
        .collect();
    match exchange.exchange(outgoing, Summary::default()) {
        Ok((incoming, _)) => {
            for e in incoming {
                if let Effect::Ended(Ending::Waits(w)) = e {
                    waits.extend(w);
                }
            }
        }
        Err(e) => return RunError::Exchange(e),
    }
    waits.sort_by_key(|w| w.processor);
    RunError::Deadlock { waits }
}

/// Joins the records of every part of a successful run into its run record: outcomes
/// processor by processor (the report and trace of any K are the same), the schedulers'
/// counts summed, the wall time of the slowest part.
pub(crate) fn assemble_parts<R>(
    run: &Run<'_>,
    partition: &Partition,
    records: Vec<PartRecord<R>>,
) -> Result<RunRecord<R>, RunError> {
    let n = run.topology.len();
    let mut slots: Vec<Option<Outcome<R>>> = (0..n).map(|_| None).collect();
    let mut stats = SimStats {
        events: 0,
        messages_delivered: 0,
        timed_waits: 0,
        simcalls: 0,
        queue_pops: 0,
        stack_bytes: run.spec.stack_bytes,
    };
    let (mut run_s, mut setup_s, mut windows) = (0.0f64, 0.0f64, 0);
    for record in records {
        for (i, outcome) in record.outcomes {
            slots[i] = outcome;
        }
        stats.messages_delivered += record.delivered;
        stats.timed_waits += record.timed_waits;
        stats.simcalls += record.simcalls;
        stats.queue_pops += record.queue_pops;
        run_s = run_s.max(record.run_s);
        setup_s = setup_s.max(record.setup_s);
        windows = windows.max(record.windows);
    }
    stats.events = stats.messages_delivered + stats.timed_waits;
    let wall = WallClock {
        run_s,
        setup_s,
        events_per_s: Some(stats.events as f64 / run_s.max(1e-9)),
    };
    let mut record = assemble(
        run.spec,
        run.trace,
        run.topology,
        slots,
        wall,
        |_| Fidelity::exact(),
        Some(stats),
    )?;
    record.report.parts = Some(PartsReport {
        parts: partition.parts(),
        cut_links: partition.cut_links(run.topology),
        windows,
        events_per_window: record.report.sim.as_ref().map_or(0.0, |s| s.events as f64)
            / windows.max(1) as f64,
    });
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(next_ns: Option<u64>, failure: Option<(u64, usize)>, finished: bool) -> Summary {
        Summary {
            next_ns,
            failure,
            finished,
            ..Summary::default()
        }
    }

    #[test]
    fn the_next_window_starts_at_the_earliest_event_and_lasts_the_lookahead() {
        let s = [
            summary(Some(50), None, false),
            summary(Some(30), None, false),
        ];
        assert_eq!(decide(&s, 2, 10), Next::Window(40));
        assert_eq!(decide(&s[..1], 1, 10), Next::Window(u64::MAX));
        let idle = [summary(None, None, true), summary(Some(7), None, false)];
        assert_eq!(decide(&idle, 2, 10), Next::Window(17));
    }

    #[test]
    fn the_earliest_failure_wins_then_completion_then_deadlock() {
        let s = [
            summary(Some(5), Some((20, 9)), false),
            summary(None, Some((20, 3)), false),
        ];
        assert_eq!(decide(&s, 2, 10), Next::Failed((20, 3)));
        let done = [summary(Some(5), None, true), summary(None, None, true)];
        assert_eq!(decide(&done, 2, 10), Next::Done);
        let stuck = [summary(None, None, true), summary(None, None, false)];
        assert_eq!(decide(&stuck, 2, 10), Next::Deadlock);
    }
}
