//! The thread engine (native and dilated time): one OS thread per processor, waiting for
//! emulated time in real time.
//!
//! # Protocol of a run
//!
//! 1. **Build.** For every tree edge two directed links (bounded channels) are made; each
//!    processor gets its links in neighbour order (parent first, then children).
//! 2. **Start-up.** One named OS thread (`P0`, `P1`, …) per processor is spawned. In native mode
//!    each is pinned to its own core; in sleeping modes each minimises its timer slack. Each
//!    then says it is ready and waits for the common start instant, which the machine sends
//!    once every thread is ready: [`START_MARGIN`] later than that, time enough for the
//!    instant to reach a thread that has gone to sleep waiting for it, so that emulated time 0
//!    is the same wall instant everywhere.
//! 3. **Run.** Each thread runs the processor's body (`machine/body.rs`: its [`Processor`]
//!    handle, the program under `catch_unwind`, its outcome sent to the watcher).
//! 4. **Watch.** Meanwhile the calling thread collects outcomes. If a program panics or returns
//!    an error, it aborts the run: every blocked send or receive returns
//!    [`ProcessorError::Aborted`]. Every few milliseconds it checks for deadlock: every live
//!    processor blocked (receiving on empty links, or sending on full ones) and no message moved
//!    between two checks. A deadlock is reported with what each processor waits on, then
//!    aborted.
//! 5. **Shutdown.** All threads are joined before `run` returns, whatever happened; no thread
//!    outlives its run.
//!
//! Across MPI ranks (`run_rank`, `cut.rs`) a rank runs these steps for its part's
//! processors only: the links cut between ranks are built with credits and carried by a
//! proxy thread; the start instant is agreed with the other ranks; and the watcher, instead
//! of deciding a deadlock itself, reports what its processors wait on to the proxy, which
//! decides with the other ranks' reports.

#[cfg(any(feature = "mpi", test))]
pub(crate) mod crossing;
mod cut;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError};
use parking_lot::Mutex;

use super::{Engine, Run, run_body};
use crate::clock::{Fidelity, LatenessStats, TimeBase, WaitStrategy, minimise_timer_slack};
use crate::error::{ProcessorError, RunError, WaitReport, Waiting};
use crate::link::flavors::Port;
use crate::link::flavors::channel::{
    BLOCKED_RECV, BLOCKED_ROUTED, BLOCKED_SEND, ChannelPort, DONE, InLink, OutLink, Shared, Status,
    directed_link,
};
use crate::link::{Envelope, Payload};
use crate::processor::Processor;
use crate::report::{Outcome, RunRecord, WallClock, assemble, failure_of};
use crate::routing::{Convention, Network};
use crate::topology::Partition;
use crate::transport::{Post, TransportError};
use crate::tuning::START_MARGIN;
use cut::{Board, CutLinks, InCut, OutCut, ProxyTerms, agree_start, run_proxy};
pub(crate) use cut::{Note, ProxyRecord};

/// The thread engine.
pub(crate) struct Threads;

impl Engine for Threads {
    fn run<M, R, F>(run: &Run<'_>, program: &F) -> Result<RunRecord<R>, RunError>
    where
        M: Payload,
        R: Send,
        F: Fn(&mut Processor<M>) -> Result<R, ProcessorError> + Sync,
    {
        run_threads(run, program)
    }
}

/// Runs `program` on one OS thread per processor of the run.
fn run_threads<M, R, F>(run: &Run<'_>, program: &F) -> Result<RunRecord<R>, RunError>
where
    M: Payload,
    R: Send,
    F: Fn(&mut Processor<M>) -> Result<R, ProcessorError> + Sync,
{
    let ran = run_here::<M, R, F, NoPost>(run, program, None)?;
    if let Some(err) = ran.failure {
        return Err(err);
    }
    let (spec, topo) = (run.spec, run.topology);
    let dilation = spec.time.dilation().unwrap_or(1.0);
    let tolerance_ns = crate::processor::nanos(spec.tolerance);
    assemble(
        spec,
        run.trace,
        topo,
        ran.outcomes,
        ran.wall,
        |lateness| Fidelity::from_stats(lateness, dilation, spec.wait, tolerance_ns, run.seats),
        None,
    )
}

#[cfg(any(feature = "mpi", test))]
/// Why one rank's part of a run across ranks failed, besides its processors' own failures
/// (which its outcomes carry), as it crosses to the other ranks.
#[cfg_attr(feature = "mpi", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug)]
enum RankFailure {
    Deadlock(Vec<WaitReport>),
    Stalled(f64, Vec<WaitReport>),
    Spawn(usize, String),
    Exchange(TransportError),
}

#[cfg(any(feature = "mpi", test))]
impl RankFailure {
    /// The rank's failure, unless its processors' outcomes tell it (a panic, an error).
    fn of(error: RunError) -> Option<Self> {
        match error {
            RunError::Deadlock { waits } => Some(Self::Deadlock(waits)),
            RunError::Stalled { seconds, waits } => Some(Self::Stalled(seconds, waits)),
            RunError::Spawn { processor, message } => Some(Self::Spawn(processor, message)),
            RunError::Exchange(e) => Some(Self::Exchange(e)),
            _ => None,
        }
    }

    fn into_error(self) -> RunError {
        match self {
            Self::Deadlock(waits) => RunError::Deadlock { waits },
            Self::Stalled(seconds, waits) => RunError::Stalled { seconds, waits },
            Self::Spawn(processor, message) => RunError::Spawn { processor, message },
            Self::Exchange(e) => RunError::Exchange(e),
        }
    }
}

#[cfg(any(feature = "mpi", test))]
/// One rank's share of a native or dilated run across ranks, gathered on every rank.
#[cfg_attr(feature = "mpi", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct RankRecord<R> {
    /// Its processors' outcomes.
    outcomes: Vec<Outcome<R>>,
    failure: Option<RankFailure>,
    proxy: ProxyRecord,
    run_s: f64,
    setup_s: f64,
}

#[cfg(any(feature = "mpi", test))]
impl<R> RankRecord<R> {
    /// What each of the rank's processors recorded of the trace, in its outcomes' order.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn traces(&self) -> impl Iterator<Item = Option<&crate::trace::Recorded>> {
        self.outcomes.iter().map(|o| o.trace.as_ref())
    }

    /// The processors' trace slots, in the order of [`RankRecord::traces`].
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn traces_mut(
        &mut self,
    ) -> impl Iterator<Item = Option<&mut Option<crate::trace::Recorded>>> {
        self.outcomes.iter_mut().map(|o| Some(&mut o.trace))
    }
}

#[cfg(any(feature = "mpi", test))]
/// Runs this rank's part of a run across ranks (its processors on threads, its cut links
/// through `rank`'s post); what it left, for [`assemble_ranks`]. A rank lost is an error
/// here: the others cannot be gathered.
pub(crate) fn run_rank<M, R, F, P>(
    run: &Run<'_>,
    program: &F,
    rank: Rank<'_, P>,
) -> Result<RankRecord<R>, RunError>
where
    M: Payload,
    R: Send,
    F: Fn(&mut Processor<M>) -> Result<R, ProcessorError> + Sync,
    P: Post<Note<M>> + Send,
{
    let ran = run_here(run, program, Some(rank))?;
    if let Some(RunError::Exchange(lost @ TransportError::PartLost { .. })) = ran.failure {
        return Err(lost.into());
    }
    Ok(RankRecord {
        outcomes: ran.outcomes.into_iter().flatten().collect(),
        failure: ran.failure.and_then(RankFailure::of),
        proxy: ran.proxy.unwrap_or_default(),
        run_s: ran.wall.run_s,
        setup_s: ran.wall.setup_s,
    })
}

#[cfg(any(feature = "mpi", test))]
/// Joins the ranks' records (index = rank) into the run's: the same on every rank. The
/// failure reported is the first panic in processor order, else the first error a program
/// returned (a link closed by a failure elsewhere comes last), else a rank's own failure
/// (deadlock, stall, lost rank) in rank order.
pub(crate) fn assemble_ranks<R>(
    run: &Run<'_>,
    records: Vec<RankRecord<R>>,
) -> Result<RunRecord<R>, RunError> {
    let (spec, topo) = (run.spec, run.topology);
    let n = topo.len();
    let ranks = records.len();
    let mut slots: Vec<Option<Outcome<R>>> = (0..n).map(|_| None).collect();
    let mut cut = LatenessStats::default();
    let (mut run_s, mut setup_s, mut skew_ns) = (0.0f64, 0.0f64, 0u64);
    let mut rank_failure = None;
    for record in records {
        for o in record.outcomes {
            let id = o.id;
            slots[id] = Some(o);
        }
        cut.merge(&record.proxy.lateness);
        skew_ns = skew_ns.max(record.proxy.skew_ns);
        run_s = run_s.max(record.run_s);
        setup_s = setup_s.max(record.setup_s);
        if rank_failure.is_none() {
            rank_failure = record.failure;
        }
    }
    let rank = |e: &RunError| match e {
        RunError::Panic { .. } => 0,
        RunError::Processor {
            error: ProcessorError::LinkClosed { .. },
            ..
        } => 3,
        _ => 1,
    };
    let failures = slots.iter().flatten().filter_map(|o| match &o.result {
        Err(f) => failure_of(o.id, f),
        Ok(_) => None,
    });
    let first = failures.min_by_key(|e| rank(e));
    match (first, rank_failure) {
        (Some(e), _) if rank(&e) < 3 => return Err(e),
        (_, Some(f)) => return Err(f.into_error()),
        (Some(e), None) => return Err(e),
        (None, None) => {}
    }
    let dilation = spec.time.dilation().unwrap_or(1.0);
    let tolerance_ns = crate::processor::nanos(spec.tolerance);
    let wall = WallClock {
        run_s,
        setup_s,
        events_per_s: None,
    };
    let record = assemble(
        spec,
        run.trace,
        topo,
        slots,
        wall,
        |lateness| {
            let mut all = lateness.clone();
            all.merge(&cut);
            let mut fidelity =
                Fidelity::from_stats(&all, dilation, spec.wait, tolerance_ns, run.seats);
            fidelity.cut_links = Some(crate::clock::CutLinkFidelity {
                ranks,
                receives: cut.waits,
                late: cut.late,
                max_lateness_ns: cut.max_ns,
                skew_ns,
            });
            fidelity
        },
        None,
    )?;
    // Every rank's emulated times count from the time zero they agreed (`cut.rs`).
    let clock = crate::trace::RanksClock { ranks, skew_ns };
    Ok(RunRecord {
        trace: record.trace.map(|t| t.on_ranks_clock(clock)),
        ..record
    })
}

/// A run of one process: no other rank to post to.
enum NoPost {}

impl<T> Post<T> for NoPost {
    fn rank(&self) -> usize {
        match *self {}
    }
    fn ranks(&self) -> usize {
        match *self {}
    }
    fn send(&mut self, _: Vec<(usize, Vec<T>)>) -> Result<(), TransportError> {
        match *self {}
    }
    fn try_recv(&mut self) -> Result<Option<(usize, Vec<T>)>, TransportError> {
        match *self {}
    }
}

/// This rank's place in a run across ranks: its part of the machine and its post.
pub(crate) struct Rank<'a, P> {
    pub(crate) partition: &'a Partition,
    pub(crate) post: P,
    /// How long a rank may go unheard (`MULTICOMPUTER_MPI_TIMEOUT`).
    pub(crate) timeout: Duration,
}

/// What the processors run here left: an outcome per processor of the machine (`None` for
/// other ranks'), the first failure seen here, the wall clock, and over ranks what the proxy
/// measured.
pub(crate) struct Ran<R> {
    pub(crate) outcomes: Vec<Option<Outcome<R>>>,
    pub(crate) failure: Option<RunError>,
    pub(crate) wall: WallClock,
    /// Read by a run across ranks (feature `mpi`).
    #[cfg_attr(not(any(feature = "mpi", test)), allow(dead_code))]
    pub(crate) proxy: Option<ProxyRecord>,
}

/// Runs the processors of this process: all of them, or over ranks those of this rank's
/// part, their cut links carried by a proxy thread (`cut.rs`).
pub(crate) fn run_here<M, R, F, P>(
    run: &Run<'_>,
    program: &F,
    rank: Option<Rank<'_, P>>,
) -> Result<Ran<R>, RunError>
where
    M: Payload,
    R: Send,
    F: Fn(&mut Processor<M>) -> Result<R, ProcessorError> + Sync,
    P: Post<Note<M>> + Send,
{
    let setup_start = Instant::now();
    let spec = run.spec;
    let topo = run.topology;
    let n = topo.len();
    let native = spec.time.is_native();
    let dilation = spec.time.dilation().unwrap_or(1.0);
    let neighbours: Vec<Vec<usize>> = (0..n).map(|i| topo.neighbours(i)).collect();
    let (members, part_of): (Vec<usize>, Vec<usize>) = match &rank {
        Some(r) => (
            r.partition.members(r.post.rank()),
            (0..n).map(|i| r.partition.part_of(i)).collect(),
        ),
        None => ((0..n).collect(), vec![0; n]),
    };
    let me = rank.as_ref().map_or(0, |r| r.post.rank());
    // Directed link (i, k) is link `first[i] + k` of the machine.
    let first: Vec<usize> = neighbours
        .iter()
        .scan(0, |acc, nb| {
            let f = *acc;
            *acc += nb.len();
            Some(f)
        })
        .collect();

    // Step 1: links. outs[i][k] / ins[i][k] are processor i's ends towards neighbours[i][k].
    let mut outs: Vec<Vec<Option<OutLink<M>>>> = neighbours
        .iter()
        .map(|nb| nb.iter().map(|_| None).collect())
        .collect();
    let mut ins: Vec<Vec<Option<InLink<M>>>> = neighbours
        .iter()
        .map(|nb| nb.iter().map(|_| None).collect())
        .collect();
    let mut watch_in: Vec<Vec<Option<Receiver<Envelope<M>>>>> = neighbours
        .iter()
        .map(|nb| nb.iter().map(|_| None).collect())
        .collect();
    // A cut link's credits as the deadlock monitor sees them, by (sender, k).
    let mut watch_credits: HashMap<(usize, usize), Receiver<u64>> = HashMap::new();
    let mut cuts = CutLinks {
        outs: Vec::new(),
        ins: HashMap::new(),
    };
    for (i, nb) in neighbours.iter().enumerate() {
        for (k, &j) in nb.iter().enumerate() {
            let (here_i, here_j) = (part_of[i] == me, part_of[j] == me);
            if !here_i && !here_j {
                continue;
            }
            let back = topo.back(i, k);
            if here_i && !here_j {
                let (out, cut, credits) =
                    cut_out_link::<M>(spec.capacity, first[i] + k, part_of[j]);
                outs[i][k] = Some(out);
                watch_credits.insert((i, k), credits);
                cuts.outs.push(cut);
                continue;
            }
            let (out, inl, watch) = directed_link::<M>(spec.capacity);
            ins[j][back] = Some(inl);
            watch_in[j][back] = Some(watch);
            if here_i {
                outs[i][k] = Some(out);
            } else {
                cuts.ins.insert(
                    first[i] + k,
                    InCut {
                        from: part_of[i],
                        out: Some(out),
                        delivered: 0,
                        credited: 0,
                    },
                );
            }
        }
    }

    // Routed messages: an unbounded inbox per processor, which every processor can reach.
    let (inbox_tx, inbox_rx): (Vec<_>, Vec<_>) = (0..n)
        .map(|_| crossbeam_channel::unbounded::<Envelope<M>>())
        .unzip();
    let watch_inbox: Vec<Receiver<Envelope<M>>> = inbox_rx.clone();
    let mut inbox_rx: Vec<Option<Receiver<Envelope<M>>>> = inbox_rx.into_iter().map(Some).collect();
    let inboxes = Arc::new(inbox_tx);
    let network = Arc::new(Network::new(topo, Convention::of(spec)));

    let shared = Arc::new(Shared {
        aborted: AtomicBool::new(false),
        status: (0..n).map(|_| Status::default()).collect(),
    });
    let (abort_tx, abort_rx) = crossbeam_channel::bounded::<()>(0);
    let (done_tx, done_rx) = crossbeam_channel::unbounded::<Outcome<R>>();
    let (ready_tx, ready_rx) = crossbeam_channel::bounded::<()>(n);
    let tolerance_ns = crate::processor::nanos(spec.tolerance);
    let board = Mutex::new(Board::default());

    std::thread::scope(|scope| {
        // Step 2: start-up.
        let mut starts = Vec::with_capacity(members.len());
        let mut handles = Vec::with_capacity(members.len());
        let mut spawn_error = None;
        for (place, &i) in members.iter().enumerate() {
            let (start_tx, start_rx) = crossbeam_channel::bounded::<Instant>(1);
            let parts_out: Vec<OutLink<M>> = outs[i].drain(..).flatten().collect();
            let parts_in: Vec<InLink<M>> = ins[i].drain(..).flatten().collect();
            let shared = Arc::clone(&shared);
            let abort_rx = abort_rx.clone();
            let inbox = inbox_rx[i].take();
            let inboxes = Arc::clone(&inboxes);
            let network = Arc::clone(&network);
            let done_tx = done_tx.clone();
            let ready_tx = ready_tx.clone();
            let core = if native {
                run.cores.get(place).copied()
            } else {
                None
            };
            let strategy = spec.wait;
            let spin = native && strategy == WaitStrategy::Spin;
            let spawned = std::thread::Builder::new()
                .name(format!("P{i}"))
                .spawn_scoped(scope, move || {
                    if let Some(core) = core {
                        core_affinity::set_for_current(core);
                    }
                    if strategy != WaitStrategy::Spin {
                        minimise_timer_slack();
                    }
                    let _ = ready_tx.send(());
                    drop(ready_tx);
                    let Ok(start) = start_rx.recv() else { return };
                    let Some(inbox) = inbox else { return };
                    let time = TimeBase {
                        start,
                        dilation,
                        strategy,
                    };
                    let port = ChannelPort {
                        id: i,
                        out: parts_out,
                        inl: parts_in,
                        time,
                        spin,
                        tolerance_ns,
                        lateness: LatenessStats::default(),
                        shared,
                        abort_rx,
                        inbox,
                        held: Vec::new(),
                        inboxes,
                    };
                    // Step 3: run, from emulated time 0; the outcome goes to the watcher.
                    run_body(
                        run,
                        i,
                        network,
                        Port::Channel(Box::new(port)),
                        program,
                        |_| {
                            time.wait_until(0);
                        },
                        |outcome| {
                            let _ = done_tx.send(outcome);
                        },
                    );
                });
            match spawned {
                Ok(handle) => {
                    starts.push(start_tx);
                    handles.push(handle);
                }
                Err(e) => {
                    spawn_error = Some(RunError::Spawn {
                        processor: i,
                        message: e.to_string(),
                    });
                    break;
                }
            }
        }
        drop(done_tx);
        drop(ready_tx);
        if let Some(err) = spawn_error {
            // Threads already spawned see their start channel close and return at once.
            drop(starts);
            join_all(handles);
            return Err(err);
        }
        // Every thread pinned (natively) and waiting: the run can start, over ranks at the
        // instant the ranks agree on.
        for _ in 0..members.len() {
            if ready_rx.recv().is_err() {
                break;
            }
        }
        let mut proxy = None;
        let start = match rank {
            None => Instant::now() + START_MARGIN,
            Some(mut rank) => {
                let agreed = agree_start(&mut rank.post, rank.timeout);
                let (start, skew_ns) = match agreed {
                    Ok(agreed) => agreed,
                    Err(e) => {
                        drop(starts);
                        join_all(handles);
                        return Err(e.into());
                    }
                };
                let terms = ProxyTerms {
                    time: TimeBase {
                        start,
                        dilation,
                        strategy: spec.wait,
                    },
                    tolerance_ns,
                    check: spec.deadlock_check,
                    timeout: rank.timeout,
                    skew_ns,
                };
                let board = &board;
                let cuts = std::mem::replace(
                    &mut cuts,
                    CutLinks {
                        outs: Vec::new(),
                        ins: HashMap::new(),
                    },
                );
                let mut post = rank.post;
                let spawned = std::thread::Builder::new()
                    .name("proxy".into())
                    .spawn_scoped(scope, move || run_proxy(cuts, &mut post, board, &terms));
                match spawned {
                    Ok(handle) => proxy = Some(handle),
                    Err(e) => {
                        drop(starts);
                        join_all(handles);
                        return Err(RunError::Exchange(TransportError::Failed(format!(
                            "cannot start the cut links' proxy thread: {e}"
                        ))));
                    }
                }
                start
            }
        };
        for tx in &starts {
            let _ = tx.send(start);
        }
        drop(starts);

        // Step 4: watch.
        let mut abort = Some(abort_tx);
        let do_abort = |abort: &mut Option<crossbeam_channel::Sender<()>>| {
            shared.aborted.store(true, Ordering::Relaxed);
            abort.take();
        };
        let mut outcomes: Vec<Option<Outcome<R>>> = (0..n).map(|_| None).collect();
        let mut received = 0;
        let mut first_failure: Option<RunError> = None;
        let mut suspect: Option<u64> = None;
        let mut last_progress = (0u64, Instant::now());
        let mut wall_end = start;
        let over_ranks = proxy.is_some();
        let send_stuck = |i: usize, k: usize, j: usize| match watch_credits.get(&(i, k)) {
            Some(credits) => credits.is_empty(),
            None => {
                let back = neighbours[j].iter().position(|&x| x == i).unwrap_or(0);
                let finished = shared.status[j].state.load(Ordering::Acquire) == DONE;
                finished || watch_in[j][back].as_ref().is_none_or(Receiver::is_full)
            }
        };
        while received < members.len() {
            match done_rx.recv_timeout(spec.deadlock_check) {
                Ok(o) => {
                    wall_end = Instant::now();
                    if first_failure.is_none() {
                        if let Err(f) = &o.result {
                            if let Some(e) = failure_of(o.id, f) {
                                first_failure = Some(e);
                                board.lock().failed = true;
                                do_abort(&mut abort);
                            }
                        }
                    }
                    let id = o.id;
                    outcomes[id] = Some(o);
                    received += 1;
                    suspect = None;
                }
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {
                    if first_failure.is_some() {
                        continue;
                    }
                    let progress: u64 = members
                        .iter()
                        .map(|&i| shared.status[i].progress.load(Ordering::Relaxed))
                        .sum();
                    if progress != last_progress.0 {
                        last_progress = (progress, Instant::now());
                    }
                    let stuck = blocked_everywhere(
                        &shared,
                        &members,
                        &neighbours,
                        &watch_in,
                        &watch_inbox,
                        send_stuck,
                    );
                    if over_ranks {
                        // The proxies decide a deadlock across ranks (`cut.rs`, step 5).
                        let mut board = board.lock();
                        board.local.stuck = stuck;
                        board.local.progress = progress;
                        // A proxy that ended before its rank's processors lost a rank
                        // (or failed): stop them; its error is read when it is joined.
                        let proxy_ended = proxy.as_ref().is_some_and(|h| h.is_finished());
                        if proxy_ended && !shared.aborted.load(Ordering::Relaxed) {
                            do_abort(&mut abort);
                        }
                        if let Some(stop) = board.stop.take() {
                            first_failure = Some(stop.map_or(
                                RunError::Exchange(TransportError::Failed(
                                    "another rank stopped the run".into(),
                                )),
                                |waits| RunError::Deadlock { waits },
                            ));
                            do_abort(&mut abort);
                        }
                    } else {
                        match stuck {
                            Some(waits) if suspect == Some(progress) => {
                                first_failure = Some(RunError::Deadlock { waits });
                                do_abort(&mut abort);
                            }
                            Some(_) => suspect = Some(progress),
                            None => suspect = None,
                        }
                    }
                    if let Some(limit) = spec.stall_timeout {
                        let quiet = last_progress.1.elapsed();
                        if first_failure.is_none() && quiet >= limit {
                            first_failure = Some(RunError::Stalled {
                                seconds: quiet.as_secs_f64(),
                                waits: blocked_list(&shared, &members, &neighbours),
                            });
                            do_abort(&mut abort);
                        }
                    }
                }
            }
        }
        board.lock().finished = true;
        drop(abort);
        // Step 5: shutdown: every thread is joined (not merely finished) before we return.
        join_all(handles);
        let proxy = proxy.map(|h| h.join());
        let proxy = match proxy {
            None => None,
            Some(Ok(Ok(record))) => Some(record),
            Some(Ok(Err(lost))) => {
                first_failure = Some(lost.into());
                Some(ProxyRecord::default())
            }
            Some(Err(_)) => {
                first_failure = Some(RunError::Exchange(TransportError::Failed(
                    "the cut links' proxy thread panicked".into(),
                )));
                Some(ProxyRecord::default())
            }
        };
        let wall = WallClock {
            run_s: wall_end.saturating_duration_since(start).as_secs_f64(),
            setup_s: start.saturating_duration_since(setup_start).as_secs_f64(),
            events_per_s: None,
        };
        Ok(Ran {
            outcomes,
            failure: first_failure,
            wall,
            proxy,
        })
    })
}

/// A cut link from a local sender: the sender's end (an unbounded channel to the proxy, and
/// `capacity` credits), the proxy's end, and the credits as the deadlock monitor sees them.
fn cut_out_link<M>(
    capacity: usize,
    link: usize,
    to: usize,
) -> (OutLink<M>, OutCut<M>, Receiver<u64>) {
    let (tx, rx) = crossbeam_channel::unbounded();
    let (credit_tx, credit_rx) = crossbeam_channel::bounded(capacity);
    for _ in 0..capacity {
        let _ = credit_tx.send(0);
    }
    let out = OutLink {
        tx,
        shared: Arc::default(),
        credits: Some(credit_rx.clone()),
    };
    let cut = OutCut {
        link,
        to,
        rx,
        credits: credit_tx,
        closed: false,
    };
    (out, cut, credit_rx)
}

fn join_all<T>(handles: Vec<std::thread::ScopedJoinHandle<'_, T>>) {
    for h in handles {
        // A panic inside a program is caught in the thread; a join error cannot carry news.
        let _ = h.join();
    }
}

/// What a blocked processor waits on, from its status: its state, and the links it waits on
/// (for a routed receive, the sender it waits for, if one).
fn wait_of(status: &Status, peers: &[usize]) -> Option<(u8, Vec<usize>)> {
    let state = status.state.load(Ordering::Acquire);
    if state == BLOCKED_ROUTED {
        return Some((state, status.waiting.lock().clone()));
    }
    if state != BLOCKED_RECV && state != BLOCKED_SEND {
        return None;
    }
    let links = status.waiting.lock().clone();
    Some((
        state,
        links.into_iter().filter(|&l| l < peers.len()).collect(),
    ))
}

fn report(i: usize, state: u8, links: &[usize], peers: &[usize]) -> WaitReport {
    let waiting = if state == BLOCKED_ROUTED {
        Waiting::Routed {
            from: links.first().copied(),
        }
    } else if state == BLOCKED_SEND {
        Waiting::Send {
            to: links.first().map_or(i, |&l| peers[l]),
        }
    } else {
        Waiting::Receive {
            from: links.iter().map(|&l| peers[l]).collect(),
        }
    };
    WaitReport {
        processor: i,
        waiting,
    }
}

/// The blocked processors among `members` and what they wait on (running and finished ones
/// are left out).
fn blocked_list(shared: &Shared, members: &[usize], neighbours: &[Vec<usize>]) -> Vec<WaitReport> {
    members
        .iter()
        .filter_map(|&i| {
            let (state, links) = wait_of(&shared.status[i], &neighbours[i])?;
            Some(report(i, state, &links, &neighbours[i]))
        })
        .collect()
}

/// `Some(waits)` if every live processor among `members` is blocked with no way to proceed:
/// receivers on empty links, senders on full ones (`send_stuck(i, k, j)`: processor i's link
/// k, to j, has no room). A processor still running, or one whose link has something for it,
/// means no deadlock now.
fn blocked_everywhere<T>(
    shared: &Shared,
    members: &[usize],
    neighbours: &[Vec<usize>],
    watch_in: &[Vec<Option<Receiver<T>>>],
    watch_inbox: &[Receiver<T>],
    send_stuck: impl Fn(usize, usize, usize) -> bool,
) -> Option<Vec<WaitReport>> {
    let mut waits = Vec::new();
    let mut live = 0;
    for &i in members {
        let peers = &neighbours[i];
        let status = &shared.status[i];
        if status.state.load(Ordering::Acquire) == DONE {
            continue;
        }
        live += 1;
        let (state, links) = wait_of(status, peers)?;
        let stuck = if state == BLOCKED_ROUTED {
            watch_inbox[i].is_empty()
        } else if state == BLOCKED_RECV {
            links
                .iter()
                .all(|&l| watch_in[i][l].as_ref().is_none_or(Receiver::is_empty))
        } else {
            links.iter().all(|&l| send_stuck(i, l, peers[l]))
        };
        if !stuck {
            return None;
        }
        waits.push(report(i, state, &links, peers));
    }
    (live > 0).then_some(waits)
}

/// Runs across ranks without MPI: each rank a thread of the test, its proxy posting through
/// the threads post (`transport/threads.rs`).
#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::error::Waiting;
    use crate::machine::MachineConfig;
    use crate::topology::Topology;
    use crate::transport::threads::post;

    /// Runs `program` on `topology` in dilated time (D = 1) cut into `ranks` parts, a rank a
    /// thread, with links of `capacity`; the run's record as every rank assembles it.
    fn across_ranks<R, F>(
        topology: &Topology,
        ranks: usize,
        capacity: usize,
        program: F,
    ) -> Result<RunRecord<R>, RunError>
    where
        R: Send,
        F: Fn(&mut Processor<u64>) -> Result<R, ProcessorError> + Sync,
    {
        let config =
            crate::engines::fixtures::dilated_across_ranks(capacity, MachineConfig::default());
        let spec = config.resolve(topology).unwrap();
        let run = Run {
            spec: &spec,
            topology,
            cores: &[],
            seats: crate::clock::Seats {
                processors: topology.len(),
                held: topology.len(),
                cores: 2,
                host_cpus: 2,
                ranked: true,
            },
            trace: None,
        };
        let partition = Partition::of(topology, ranks);
        let records: Vec<Result<RankRecord<R>, RunError>> = std::thread::scope(|s| {
            let handles: Vec<_> = post::<Note<u64>>(ranks)
                .into_iter()
                .map(|post| {
                    let (run, partition, program) = (&run, &partition, &program);
                    s.spawn(move || {
                        let rank = Rank {
                            partition,
                            post,
                            timeout: Duration::from_secs(60),
                        };
                        run_rank(run, program, rank)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let records = records.into_iter().collect::<Result<Vec<_>, _>>()?;
        assemble_ranks(&run, records)
    }

    /// Every processor of a chain adds its number (id + 1) to what comes from its right and
    /// passes the sum left: processor i returns the sum over j ≥ i.
    fn chain_sum(p: &mut Processor<u64>) -> Result<u64, ProcessorError> {
        let links = p.links().to_vec();
        let (left, right) = match (p.id(), links.len()) {
            (0, _) => (None, links.first().copied()),
            (_, 1) => (links.first().copied(), None),
            _ => (links.first().copied(), links.get(1).copied()),
        };
        let from_right = match right {
            Some(r) => p.recv(r)?,
            None => 0,
        };
        let sum = from_right + p.id() as u64 + 1;
        if let Some(l) = left {
            p.send(l, sum)?;
        }
        Ok(sum)
    }

    #[test]
    fn threads_across_ranks_a_chain_sum_equals_the_sequential_reference() {
        let chain = Topology::chain(6).unwrap();
        for ranks in [2, 3] {
            let record = across_ranks(&chain, ranks, 2, chain_sum).unwrap();
            let reference: Vec<u64> = (0..6u64).map(|i| (i + 1..=6).sum()).collect();
            assert_eq!(record.results, reference, "{ranks} ranks");
            let cut = record.report.fidelity.cut_links.clone().unwrap();
            assert_eq!(cut.ranks, ranks);
            // Each cut link of the chain carried its one message.
            assert_eq!(cut.receives, ranks as u64 - 1, "{ranks} ranks");
        }
    }

    #[test]
    fn threads_across_ranks_a_full_cut_link_blocks_its_sender_until_the_take() {
        // P1 (the other rank) is busy for 20 ms of emulated time before it takes anything;
        // P0 sends capacity + 2 messages. The third finds the cut link full (no credit), so
        // P0 goes on only from P1's take, at 20 ms or later; with room (no flow control)
        // its sends would all end at about 0.
        let capacity = 2;
        let busy = Duration::from_millis(20);
        let record = across_ranks(&Topology::chain(2).unwrap(), 2, capacity, |p| {
            let link = p.links()[0];
            if p.id() == 0 {
                for m in 0..capacity as u64 + 2 {
                    p.send(link, m)?;
                }
                Ok(p.now().as_nanos() as u64)
            } else {
                p.occupy(busy);
                let mut got = 0;
                for _ in 0..capacity + 2 {
                    got += p.recv(link)?;
                }
                Ok(got)
            }
        })
        .unwrap();
        assert!(
            record.results[0] >= busy.as_nanos() as u64,
            "P0 went on at {} ns, before P1's first take",
            record.results[0]
        );
        assert_eq!(record.results[1], 1 + 2 + 3);
    }

    #[test]
    fn threads_across_ranks_a_deadlock_lists_every_waiting_processor() {
        // Both processors receive first: nothing can ever move.
        let err = across_ranks(&Topology::chain(2).unwrap(), 2, 2, |p| {
            let link = p.links()[0];
            let got = p.recv(link)?;
            p.send(link, got)?;
            Ok(got)
        })
        .unwrap_err();
        let RunError::Deadlock { waits } = err else {
            panic!("expected a deadlock, got {err}")
        };
        let who: Vec<_> = waits.iter().map(|w| (w.processor, &w.waiting)).collect();
        assert_eq!(
            who,
            vec![
                (0, &Waiting::Receive { from: vec![1] }),
                (1, &Waiting::Receive { from: vec![0] })
            ]
        );
    }

    #[test]
    fn threads_across_ranks_a_panic_names_its_processor() {
        let err = across_ranks(&Topology::chain(4).unwrap(), 2, 2, |p| {
            if p.id() == 3 {
                panic!("boom");
            }
            chain_sum(p)
        })
        .unwrap_err();
        assert!(
            matches!(&err, RunError::Panic { processor: 3, message } if message == "boom"),
            "{err}"
        );
    }
}
