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

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crossbeam_channel::{Receiver, RecvTimeoutError};

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
use crate::routing::Network;
use crate::tuning::START_MARGIN;

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
    let setup_start = Instant::now();
    let spec = run.spec;
    let topo = run.topology;
    let n = topo.len();
    let native = spec.time.is_native();
    let dilation = spec.time.dilation().unwrap_or(1.0);
    let neighbours: Vec<Vec<usize>> = (0..n).map(|i| topo.neighbours(i)).collect();

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
    for (i, nb) in neighbours.iter().enumerate() {
        for (k, &j) in nb.iter().enumerate() {
            let back = topo.back(i, k);
            let (out, inl, watch) = directed_link::<M>(spec.capacity);
            outs[i][k] = Some(out);
            ins[j][back] = Some(inl);
            watch_in[j][back] = Some(watch);
        }
    }
    let watch_in: Vec<Vec<Receiver<Envelope<M>>>> = watch_in
        .into_iter()
        .map(|v| v.into_iter().flatten().collect())
        .collect();

    // Routed messages: an unbounded inbox per processor, which every processor can reach.
    let (inbox_tx, inbox_rx): (Vec<_>, Vec<_>) = (0..n)
        .map(|_| crossbeam_channel::unbounded::<Envelope<M>>())
        .unzip();
    let watch_inbox: Vec<Receiver<Envelope<M>>> = inbox_rx.clone();
    let mut inbox_rx: Vec<Option<Receiver<Envelope<M>>>> = inbox_rx.into_iter().map(Some).collect();
    let inboxes = Arc::new(inbox_tx);
    let network = Arc::new(Network::new(topo));

    let shared = Arc::new(Shared {
        aborted: AtomicBool::new(false),
        status: (0..n).map(|_| Status::default()).collect(),
    });
    let (abort_tx, abort_rx) = crossbeam_channel::bounded::<()>(0);
    let (done_tx, done_rx) = crossbeam_channel::unbounded::<Outcome<R>>();
    let (ready_tx, ready_rx) = crossbeam_channel::bounded::<()>(n);
    let tolerance_ns = crate::processor::nanos(spec.tolerance);

    std::thread::scope(|scope| {
        // Step 2: start-up.
        let mut starts = Vec::with_capacity(n);
        let mut handles = Vec::with_capacity(n);
        let mut spawn_error = None;
        for i in 0..n {
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
                run.cores.get(i).copied()
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
        // Every thread pinned (natively) and waiting: the run can start.
        for _ in 0..n {
            if ready_rx.recv().is_err() {
                break;
            }
        }
        let start = Instant::now() + START_MARGIN;
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
        while received < n {
            match done_rx.recv_timeout(spec.deadlock_check) {
                Ok(o) => {
                    wall_end = Instant::now();
                    if first_failure.is_none() {
                        if let Err(f) = &o.result {
                            if let Some(e) = failure_of(o.id, f) {
                                first_failure = Some(e);
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
                    let progress: u64 = shared
                        .status
                        .iter()
                        .map(|s| s.progress.load(Ordering::Relaxed))
                        .sum();
                    if progress != last_progress.0 {
                        last_progress = (progress, Instant::now());
                    }
                    match blocked_everywhere(&shared, &neighbours, &watch_in, &watch_inbox) {
                        Some(waits) if suspect == Some(progress) => {
                            first_failure = Some(RunError::Deadlock { waits });
                            do_abort(&mut abort);
                        }
                        Some(_) => suspect = Some(progress),
                        None => suspect = None,
                    }
                    if let Some(limit) = spec.stall_timeout {
                        let quiet = last_progress.1.elapsed();
                        if first_failure.is_none() && quiet >= limit {
                            first_failure = Some(RunError::Stalled {
                                seconds: quiet.as_secs_f64(),
                                waits: blocked_list(&shared, &neighbours),
                            });
                            do_abort(&mut abort);
                        }
                    }
                }
            }
        }
        drop(abort);
        // Step 5: shutdown: every thread is joined (not merely finished) before we return.
        join_all(handles);
        if let Some(err) = first_failure {
            return Err(err);
        }
        let wall = WallClock {
            run_s: wall_end.saturating_duration_since(start).as_secs_f64(),
            setup_s: start.saturating_duration_since(setup_start).as_secs_f64(),
            events_per_s: None,
        };
        assemble(
            spec,
            run.trace,
            topo,
            outcomes,
            wall,
            |lateness| {
                Fidelity::from_stats(lateness, dilation, spec.wait, tolerance_ns, topo.len())
            },
            None,
        )
    })
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

/// The blocked processors and what they wait on (running and finished ones are left out).
fn blocked_list(shared: &Shared, neighbours: &[Vec<usize>]) -> Vec<WaitReport> {
    (0..neighbours.len())
        .filter_map(|i| {
            let (state, links) = wait_of(&shared.status[i], &neighbours[i])?;
            Some(report(i, state, &links, &neighbours[i]))
        })
        .collect()
}

/// `Some(waits)` if every live processor is blocked with no way to proceed: receivers on empty
/// links, senders on full ones. A processor still running, or one whose link has something for
/// it, means no deadlock now.
fn blocked_everywhere<T>(
    shared: &Shared,
    neighbours: &[Vec<usize>],
    watch_in: &[Vec<Receiver<T>>],
    watch_inbox: &[Receiver<T>],
) -> Option<Vec<WaitReport>> {
    let mut waits = Vec::new();
    let mut live = 0;
    for (i, peers) in neighbours.iter().enumerate() {
        let status = &shared.status[i];
        if status.state.load(Ordering::Acquire) == DONE {
            continue;
        }
        live += 1;
        let (state, links) = wait_of(status, peers)?;
        let stuck = if state == BLOCKED_ROUTED {
            watch_inbox[i].is_empty()
        } else if state == BLOCKED_RECV {
            links.iter().all(|&l| watch_in[i][l].is_empty())
        } else {
            links.iter().all(|&l| {
                let j = peers[l];
                let back = neighbours[j].iter().position(|&x| x == i).unwrap_or(0);
                let finished = shared.status[j].state.load(Ordering::Acquire) == DONE;
                finished || watch_in[j][back].is_full()
            })
        };
        if !stuck {
            return None;
        }
        waits.push(report(i, state, &links, peers));
    }
    (live > 0).then_some(waits)
}
