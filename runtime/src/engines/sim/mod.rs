//! Virtual time: every processor's program runs as a stackful coroutine under one sequential
//! discrete-event scheduler, as SimGrid's maestro runs its actors.
//!
//! Programs are the same closures, through the same [`Processor`] API, as in native and
//! dilated time; only their transport differs (`link/flavors/scheduled.rs`). A processor
//! runs only at the scheduler's current emulated time, and hands every operation that moves
//! a message or lets time pass to the scheduler as a *simcall*. Emulated time is therefore
//! never waited for: wall time depends on the work done, not on the time emulated, and the
//! order of events is exact by construction.
//!
//! # Protocol
//!
//! 1. **Build** ([`Scheduler::new`], [`build`]): each directed link becomes a bounded queue of
//!    the machine's capacity, owned by the scheduler; each processor gets a coroutine on its
//!    own lazily mapped stack, and an event at time 0.
//! 2. **Pick the next event** ([`Scheduler::next_event`]): the live event with the smallest
//!    (time, processor index); the clock moves to its time. A processor has at most one live
//!    event (an earlier one supersedes it), so the order is total.
//! 3. **Wake** ([`Scheduler::wake`]): look again at what the processor waits on, at the new
//!    time: a sleep is over; a receive finds its message (or keeps waiting); room appeared on
//!    a full link.
//! 4. **Run until the next simcall** ([`step`]): resume the coroutine with the reply; it runs
//!    its program until its next operation that needs the scheduler, or returns.
//! 5. **Carry out the simcall** ([`Scheduler::handle`]): a simcall that can be answered now
//!    (a send with room, a receive with an arrived message, a non-blocking look) is answered
//!    at once and step 4 repeats; one that must wait records what it waits on and queues its
//!    event (a sleep's end, a message's arrival), or waits for another processor (a message
//!    not sent yet, room on a full link). Back to step 2.
//! 6. **Finish** ([`run`]): when no event is left, every processor has returned (the run's
//!    results) or the rest are blocked for good: a deadlock, reported at once with what each
//!    one waits on. After a failure (a panic, an error, a stack overflow) no further event is
//!    taken; every coroutine left is unwound (its destructors run) and every stack unmapped
//!    before `run` returns.
//!
//! # Tie-break rule
//!
//! Events at the same emulated time are taken in increasing processor index. A receive takes,
//! among the messages that have arrived on the links it waits on, the one with the earliest
//! arrival; equal arrivals go to the one sent first (the scheduler numbers messages as they are
//! sent). With model compute charging ([`ComputeCharge::Model`](crate::ComputeCharge)) a
//! configuration therefore gives one event sequence, bit for bit, on any host.
//!
//! The rules that differ between the two semantics are the scheduler's [`Semantics`]: this
//! engine's are `Today`'s (`today.rs`), a part's under `--partitions` are [`Lookahead`]'s; each is a type
//! the scheduler is compiled for, so this engine's scheduler carries no lookahead branch.
//! Under the partitioned semantics (`--partitions`, the scheduler of one part of `parts/`),
//! equal arrivals go instead by (send time, sender): "sent first in the run" would depend on
//! the order in which the parts' events were taken. The processor order among simultaneous
//! events stays, but there it cannot change a result: every effect crossing a link then takes
//! at least the lookahead L > 0, so nothing one processor does at time t reaches another
//! before t + L.
//!
//! Routed messages follow one rule under both semantics (`routed.rs`): they travel hop by hop,
//! each link reserved when the message reaches it, hops at equal times and equal routed
//! arrivals taken by (send time, sender, the sender's message number)
//! ([`routing`](crate::routing)'s "Contention").
//!
//! # What a program must not do in virtual time
//!
//! All processors share one OS thread, and a processor runs until its next simcall. So a
//! program must not block outside the API: no `std::thread::sleep`, no lock held across an
//! operation of the API or waited for from another processor, no channels of its own between
//! processors (it would wait forever: the processor that should answer cannot run). A
//! watchdog says on stderr when one processor has run for [`STALL_WARNING`] of wall time
//! without a simcall. Thread-local variables are shared by all processors. A stack overflow is
//! caught ([`RunError::StackOverflow`]); raise the stack size if a program needs more.

mod hops;
mod lookahead;
mod queue;
mod routed;
mod scheduler;
mod stack;
mod today;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use corosensei::{Coroutine, CoroutineResult};

use super::{Engine, Run, run_body};
use crate::clock::Fidelity;
use crate::error::{ProcessorError, RunError};
use crate::link::Payload;
use crate::link::flavors::Port;
use crate::link::flavors::scheduled::{Reply, ScheduledPort, SimYielder, Simcall};
use crate::processor::Processor;
use crate::report::{Outcome, RunRecord, SimStats, WallClock, assemble, failure_of};
use crate::routing::{Convention, Network};
use crate::spec::RunSpec;
use crate::tuning::STALL_WARNING;

pub(super) use lookahead::Lookahead;
pub(super) use scheduler::Scheduler;

use scheduler::Semantics;
pub(super) use stack::{Exit, install_overflow_trap};

use stack::ColouredStack;

/// The virtual-time engine.
pub(crate) struct Sim;

impl Engine for Sim {
    fn run<M, R, F>(run: &Run<'_>, program: &F) -> Result<RunRecord<R>, RunError>
    where
        M: Payload,
        R: Send,
        F: Fn(&mut Processor<M>) -> Result<R, ProcessorError> + Sync,
    {
        run_virtual(run, program)
    }
}

pub(super) type Co<M> = Coroutine<Reply<M>, Simcall<M>, Exit, ColouredStack>;

/// Runs `program` on every processor of `topology` in virtual time.
fn run_virtual<M, R, F>(run: &Run<'_>, program: &F) -> Result<RunRecord<R>, RunError>
where
    M: Payload,
    F: Fn(&mut Processor<M>) -> Result<R, ProcessorError> + Sync,
{
    let (topology, spec) = (run.topology, run.spec);
    let setup_start = Instant::now();
    stack::install_overflow_trap();
    let n = topology.len();
    let network = Arc::new(Network::new(topology, Convention::of(spec)));
    let mut scheduler = Scheduler::<M, today::Today>::new(
        topology,
        spec.capacity,
        spec.ties,
        spec.link,
        Arc::clone(&network),
    );
    // The slots outlive the coroutines (declared first, dropped last): each coroutine writes
    // its own processor's outcome there when its program returns.
    let mut slots: Vec<Option<Outcome<R>>> = (0..n).map(|_| None).collect();
    let slots_ptr = slots.as_mut_ptr();
    let (mut coroutines, guards) = build(run, program, 0..n, slots_ptr, &network)?;
    let setup_wall_s = setup_start.elapsed().as_secs_f64();

    let watchdog = Watchdog::start();
    let run_start = Instant::now();
    let mut failure: Option<RunError> = None;
    let mut finished = 0usize;
    while let Some(pid) = scheduler.next_event() {
        let Some(reply) = scheduler.wake(pid) else {
            continue;
        };
        match step(
            &mut scheduler,
            &mut coroutines[pid],
            guards[pid],
            pid,
            reply,
            &watchdog,
        ) {
            None => {}
            Some(exit) => {
                scheduler.finish(pid);
                finished += 1;
                // SAFETY: the coroutine has returned, so it wrote its slot and will not touch it
                // again; nothing else holds a reference to it.
                let failed = failure_at(spec, pid, exit, unsafe { &*slots_ptr.add(pid) });
                if failed.is_some() {
                    failure = failed;
                    break;
                }
            }
        }
    }
    let wall = run_start.elapsed();
    drop(watchdog);
    if failure.is_none() && finished < n {
        failure = Some(RunError::Deadlock {
            waits: scheduler.waits(),
        });
    }
    // Step 6: unwind every coroutine left (and unmap every stack) before looking at results.
    drop(coroutines);
    if let Some(e) = failure {
        return Err(e);
    }
    let stats = SimStats {
        events: scheduler.delivered + scheduler.timed_waits,
        messages_delivered: scheduler.delivered,
        timed_waits: scheduler.timed_waits,
        simcalls: scheduler.simcalls,
        queue_pops: scheduler.queue_pops,
        stack_bytes: spec.stack_bytes,
    };
    let wall = WallClock {
        run_s: wall.as_secs_f64(),
        setup_s: setup_wall_s,
        events_per_s: Some(stats.events as f64 / wall.as_secs_f64().max(1e-9)),
    };
    assemble(
        spec,
        run.trace,
        topology,
        slots,
        wall,
        |_| Fidelity::exact(),
        Some(stats),
    )
}

/// The failure processor `pid`'s body ended with, if it is one to report: its stack
/// overflowed, or its program failed (its `slot`).
pub(super) fn failure_at<R>(
    spec: &RunSpec,
    pid: usize,
    exit: Exit,
    slot: &Option<Outcome<R>>,
) -> Option<RunError> {
    match exit {
        Exit::StackOverflow => Some(RunError::StackOverflow {
            processor: pid,
            stack_bytes: spec.stack_bytes,
        }),
        Exit::Returned => match slot {
            Some(Outcome { result: Err(f), .. }) => failure_of(pid, f),
            _ => None,
        },
    }
}

/// Step 1: a coroutine for each processor of `members`, each on its own stack, and its guard
/// page's range; `slots` has one slot per member, in the same order.
#[allow(clippy::type_complexity)]
pub(super) fn build<M, R, F>(
    run: &Run<'_>,
    program: &F,
    members: impl ExactSizeIterator<Item = usize>,
    slots: *mut Option<Outcome<R>>,
    network: &Arc<Network>,
) -> Result<(Vec<Co<M>>, Vec<(usize, usize)>), RunError>
where
    M: Payload,
    F: Fn(&mut Processor<M>) -> Result<R, ProcessorError> + Sync,
{
    let spec = run.spec;
    let n = members.len();
    let mut coroutines = Vec::with_capacity(n);
    let mut guards = Vec::with_capacity(n);
    for (k, i) in members.enumerate() {
        let (stack, guard) =
            stack::new_stack(spec.stack_bytes, i).map_err(|e| RunError::Spawn {
                processor: i,
                message: format!(
                    "cannot map its {} KiB stack: {e} (the processors so far hold {} MiB of \
                 address space)",
                    spec.stack_bytes / 1024,
                    (k * spec.stack_bytes) >> 20
                ),
            })?;
        let network = Arc::clone(network);
        // SAFETY: `slots` has `n` elements and outlives the coroutines.
        let slot = unsafe { slots.add(k) };
        let body = move |yielder: &SimYielder<M>, _start: Reply<M>| -> Exit {
            // SAFETY: the yielder is this coroutine's, alive for the whole body, which the
            // processor (and its port) does not outlive.
            let port = Port::Scheduled(unsafe { ScheduledPort::new(yielder) });
            run_body(
                run,
                i,
                network,
                port,
                program,
                |_| {},
                // SAFETY: each coroutine writes only its own slot, and only here; the
                // scheduler reads it only after this coroutine has returned.
                |outcome| unsafe { *slot = Some(outcome) },
            );
            Exit::Returned
        };
        // SAFETY: the body borrows `program` and the slots, which outlive every coroutine:
        // `run` drops the coroutines (completing or unwinding them) before it returns, and
        // never forgets one.
        coroutines.push(unsafe { Coroutine::with_stack_unchecked(stack, body) });
        guards.push(guard);
    }
    Ok((coroutines, guards))
}

/// Steps 4 and 5 for one processor, `k` of the scheduler's: resume it with `reply`, carry
/// out its simcalls that can be answered at once, until it waits (`None`) or its body ends.
#[inline]
pub(super) fn step<M, S: Semantics<M>>(
    scheduler: &mut Scheduler<M, S>,
    coroutine: &mut Co<M>,
    guard: (usize, usize),
    k: usize,
    mut reply: Reply<M>,
    watchdog: &Watchdog,
) -> Option<Exit> {
    watchdog.running(scheduler.global(k));
    loop {
        scheduler.resuming(k);
        stack::entering(guard, coroutine.trap_handler());
        let result = coroutine.resume(reply);
        stack::left();
        watchdog.progress(scheduler.simcalls);
        match result {
            CoroutineResult::Yield(call) => match scheduler.handle(k, call) {
                Some(next) => reply = next,
                None => return None,
            },
            CoroutineResult::Return(exit) => return Some(exit),
        }
    }
}

/// Says on stderr when one processor has run for [`STALL_WARNING`] without a simcall: it
/// cannot be pre-empted, so a program blocked outside the API would hang the run silently.
pub(super) struct Watchdog {
    shared: Arc<(AtomicU64, AtomicU32)>,
    stop: Option<crossbeam_channel::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watchdog {
    pub(super) fn start() -> Self {
        let shared = Arc::new((AtomicU64::new(0), AtomicU32::new(0)));
        let (stop, stopped) = crossbeam_channel::bounded::<()>(0);
        let seen = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("virtual-watchdog".into())
            .spawn(move || {
                let tick = Duration::from_millis(500);
                let mut last = (u64::MAX, Instant::now());
                let mut warned = false;
                while let Err(crossbeam_channel::RecvTimeoutError::Timeout) =
                    stopped.recv_timeout(tick)
                {
                    let progress = seen.0.load(Ordering::Relaxed);
                    if progress != last.0 {
                        last = (progress, Instant::now());
                        warned = false;
                    } else if !warned && last.1.elapsed() >= STALL_WARNING {
                        warned = true;
                        eprintln!(
                            "warning: virtual time: P{} has run for {} s of wall time without \
                             calling the runtime (send, recv, occupy, compute). If it waits \
                             outside the API (a sleep, a lock, a channel of its own), the run \
                             will never go on: all processors share one thread in virtual time.",
                            seen.1.load(Ordering::Relaxed),
                            last.1.elapsed().as_secs()
                        );
                    }
                }
            })
            .ok();
        Self {
            shared,
            stop: Some(stop),
            thread,
        }
    }

    #[inline]
    fn running(&self, pid: usize) {
        self.shared.1.store(pid as u32, Ordering::Relaxed);
    }

    #[inline]
    fn progress(&self, simcalls: u64) {
        self.shared.0.store(simcalls, Ordering::Relaxed);
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.stop.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
