//! The machine: builds processors and links from a topology, runs one program on all of them,
//! watches for panics and deadlocks, joins every thread and returns a run record.
//!
//! # Protocol of a run
//!
//! 1. **Build.** For every tree edge two directed links (bounded channels) are made; each
//!    processor gets its links in neighbour order (parent first, then children).
//! 2. **Start-up.** One named OS thread (`P0`, `P1`, …) per processor is spawned. In native mode
//!    each is pinned to its own core; in sleeping modes each minimises its timer slack. Every
//!    thread then waits for the common start instant, which the machine sends once all threads
//!    exist, so that emulated time 0 is the same wall instant everywhere.
//! 3. **Run.** Each thread runs the program with its [`Processor`] handle, under
//!    `catch_unwind`.
//! 4. **Watch.** Meanwhile the calling thread collects outcomes. If a program panics or returns
//!    an error, it aborts the run: every blocked send or receive returns
//!    [`ProcessorError::Aborted`]. Every few milliseconds it checks for deadlock: every live
//!    processor blocked (receiving on empty links, or sending on full ones) and no message moved
//!    between two checks. A deadlock is reported with what each processor waits on, then
//!    aborted.
//! 5. **Shutdown.** All threads are joined before `run` returns, whatever happened; no thread
//!    outlives its run.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError};
use serde::Serialize;

use crate::clock::{
    AUTO_LATENESS_SHARE, DilationInputs, Fidelity, LatenessStats, TimeBase, TimeMode, WaitStrategy,
    choose_dilation, minimise_timer_slack,
};
use crate::error::{ConfigError, ProcessorError, RunError, WaitReport, Waiting};
use crate::link::{Envelope, InLink, LinkCost, OutLink, Payload, directed_link};
use crate::processor::{
    BLOCKED_RECV, BLOCKED_SEND, DONE, Processor, ProcessorParts, Shared, Status,
};
use crate::topology::Topology;
use crate::trace::{Accounting, Trace};

/// Host wake-up latency assumed by `auto` mode when no calibrated profile is given.
pub const DEFAULT_WAKEUP: Duration = Duration::from_micros(60);

/// CPU time of one sleep/wake cycle assumed by `auto` mode when no profile is given.
pub const DEFAULT_WAKE_CPU: Duration = Duration::from_micros(5);

/// How a machine runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MachineConfig {
    /// Native, dilated or auto.
    pub mode: TimeMode,
    /// How processors wait for deadlines.
    pub wait: WaitStrategy,
    /// The costs of the message system.
    pub link: LinkCost,
    /// Messages a link buffers before its sender blocks (≥ 1).
    pub capacity: usize,
    /// Record an event trace.
    pub trace: bool,
    /// A wait that ends later than this (emulated) counts as late in the fidelity report;
    /// `None`: [`AUTO_LATENESS_SHARE`] of the smallest emulated cost (at least 1 µs), or 10 µs
    /// if none is known.
    pub tolerance: Option<Duration>,
    /// How often the deadlock monitor looks (wall time).
    pub deadlock_check: Duration,
    /// Report a stall when no message moves for this long (wall time); `None` = never.
    pub stall_timeout: Option<Duration>,
    /// For `auto`: the fraction of each processor's time spent in real compute (0 to 1).
    pub compute_share: f64,
    /// For `auto`: the smallest emulated cost the program charges besides the link costs.
    pub smallest_cost: Option<Duration>,
    /// For `auto`: expected wake-ups (messages to sleeping processors, deadlines) per emulated
    /// second over the whole machine, if known.
    pub events_per_s: Option<f64>,
    /// For `auto`: the host's wake-up latency (from `calibrate`).
    pub wakeup: Duration,
    /// For `auto`: the CPU time of one sleep/wake cycle (from `calibrate`).
    pub wake_cpu: Duration,
}

impl Default for MachineConfig {
    fn default() -> Self {
        Self {
            mode: TimeMode::Auto,
            wait: WaitStrategy::Auto,
            link: LinkCost::default(),
            capacity: 2,
            trace: false,
            tolerance: None,
            deadlock_check: Duration::from_millis(20),
            stall_timeout: None,
            compute_share: 0.0,
            smallest_cost: None,
            events_per_s: None,
            wakeup: DEFAULT_WAKEUP,
            wake_cpu: DEFAULT_WAKE_CPU,
        }
    }
}

/// A topology and a configuration, resolved against this host.
#[derive(Debug, Clone)]
pub struct Machine {
    topology: Topology,
    config: MachineConfig,
    native: bool,
    dilation: f64,
    strategy: WaitStrategy,
    tolerance: Duration,
    cores: Vec<core_affinity::CoreId>,
}

/// One processor's part of a run report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProcessorReport {
    /// Index.
    pub id: usize,
    /// Level (1 = leaf).
    pub level: u32,
    /// Its accounting.
    #[serde(flatten)]
    pub accounting: Accounting,
}

/// What a run measured, without the programs' results (serialisable as JSON).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunReport {
    /// The topology, as written on the command line.
    pub topology: String,
    /// Number of processors.
    pub processors: usize,
    /// `native` or `dilated`.
    pub mode: &'static str,
    /// Emulated makespan: the latest processor finish time, in seconds.
    pub makespan_s: f64,
    /// Wall time of the run (start instant to last outcome), in seconds.
    pub wall_s: f64,
    /// Per-processor accounting.
    pub per_processor: Vec<ProcessorReport>,
    /// Sums over all processors.
    pub totals: Accounting,
    /// How faithful the run was.
    pub fidelity: Fidelity,
}

impl RunReport {
    /// The emulated makespan.
    pub fn makespan(&self) -> Duration {
        Duration::from_secs_f64(self.makespan_s)
    }
}

/// The outcome of a successful run.
#[derive(Debug)]
pub struct RunRecord<R> {
    /// Each processor's result, by processor index.
    pub results: Vec<R>,
    /// What was measured.
    pub report: RunReport,
    /// The event trace, if one was asked for.
    pub trace: Option<Trace>,
}

struct Outcome<R> {
    id: usize,
    result: Result<R, Failure>,
    accounting: Accounting,
    lateness: LatenessStats,
    trace: Option<Vec<crate::trace::TraceEvent>>,
}

enum Failure {
    Panic(String),
    Error(ProcessorError),
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".to_string()
    }
}

impl Machine {
    /// Resolves a configuration for a topology on this host (mode, dilation, wait strategy).
    pub fn new(topology: Topology, config: MachineConfig) -> Result<Self, ConfigError> {
        config.link.validate()?;
        if config.capacity == 0 {
            return Err(ConfigError::ZeroCapacity);
        }
        let cores = core_affinity::get_core_ids().unwrap_or_default();
        let ncores = if cores.is_empty() {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            cores.len()
        };
        let p = topology.len();
        let smallest = [config.link.smallest_cost(), config.smallest_cost]
            .into_iter()
            .flatten()
            .min();
        let (native, dilation) = match config.mode {
            TimeMode::Native => {
                if p > ncores {
                    return Err(ConfigError::NotEnoughCores {
                        processors: p,
                        cores: ncores,
                    });
                }
                (true, 1.0)
            }
            TimeMode::Dilated(d) => {
                if !(d.is_finite() && d >= 1.0) {
                    return Err(ConfigError::BadDilation(d));
                }
                (false, d)
            }
            TimeMode::Auto => {
                // Native only with a core to spare: a processor spinning on every core shares
                // its core with the OS, the harness and anything else the host runs, and each
                // preemption goes straight into emulated time. Ask for `Native` to use them all.
                if p < ncores || p == 1 {
                    (true, 1.0)
                } else {
                    let d = choose_dilation(&DilationInputs {
                        processors: p,
                        cores: ncores,
                        smallest_cost: smallest.unwrap_or(Duration::ZERO),
                        compute_share: config.compute_share,
                        wakeup: config.wakeup,
                        wake_cpu: config.wake_cpu,
                        events_per_s: config.events_per_s,
                    });
                    (false, d)
                }
            }
        };
        let tolerance = config.tolerance.unwrap_or_else(|| {
            smallest.map_or(Duration::from_micros(10), |s| {
                s.mul_f64(AUTO_LATENESS_SHARE).max(Duration::from_micros(1))
            })
        });
        let strategy = config.wait.resolve(native, p, ncores);
        Ok(Self {
            topology,
            config,
            native,
            dilation,
            strategy,
            tolerance,
            cores,
        })
    }

    /// The topology.
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// The configuration as given.
    pub fn config(&self) -> &MachineConfig {
        &self.config
    }

    /// The dilation factor D this machine runs with (1 in native mode).
    pub fn dilation(&self) -> f64 {
        self.dilation
    }

    /// Whether it runs natively (pinned, D = 1).
    pub fn is_native(&self) -> bool {
        self.native
    }

    /// The resolved wait strategy.
    pub fn strategy(&self) -> WaitStrategy {
        self.strategy
    }

    /// Runs `program` once on every processor and returns their results with the run report.
    ///
    /// The program gets its processor's handle; it returns a result or a [`ProcessorError`]
    /// (which `?` on sends and receives produces).
    pub fn run<M, R, F>(&self, program: F) -> Result<RunRecord<R>, RunError>
    where
        M: Payload,
        R: Send,
        F: Fn(&mut Processor<M>) -> Result<R, ProcessorError> + Sync,
    {
        let topo = &self.topology;
        let n = topo.len();
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
                let back = neighbours[j].iter().position(|&x| x == i).unwrap_or(0);
                let (out, inl, watch) = directed_link::<M>(self.config.capacity);
                outs[i][k] = Some(out);
                ins[j][back] = Some(inl);
                watch_in[j][back] = Some(watch);
            }
        }
        let watch_in: Vec<Vec<Receiver<Envelope<M>>>> = watch_in
            .into_iter()
            .map(|v| v.into_iter().flatten().collect())
            .collect();

        let shared = Arc::new(Shared {
            aborted: AtomicBool::new(false),
            status: (0..n).map(|_| Status::default()).collect(),
        });
        let (abort_tx, abort_rx) = crossbeam_channel::bounded::<()>(0);
        let (done_tx, done_rx) = crossbeam_channel::unbounded::<Outcome<R>>();
        let tolerance_ns = self.tolerance.as_nanos() as u64;
        let program = &program;

        std::thread::scope(|scope| {
            // Step 2: start-up.
            let mut starts = Vec::with_capacity(n);
            let mut handles = Vec::with_capacity(n);
            let mut spawn_error = None;
            for i in 0..n {
                let (start_tx, start_rx) = crossbeam_channel::bounded::<Instant>(1);
                let parts_out: Vec<OutLink<M>> = outs[i].drain(..).flatten().collect();
                let parts_in: Vec<InLink<M>> = ins[i].drain(..).flatten().collect();
                let peers = neighbours[i].clone();
                let has_parent = topo.parent(i).is_some();
                let level = topo.level(i);
                let shared = Arc::clone(&shared);
                let abort_rx = abort_rx.clone();
                let done_tx = done_tx.clone();
                let core = if self.native {
                    self.cores.get(i).copied()
                } else {
                    None
                };
                let cost = self.config.link;
                let strategy = self.strategy;
                let dilation = self.dilation;
                let spin = self.native && strategy == WaitStrategy::Spin;
                let trace = self.config.trace;
                let spawned = std::thread::Builder::new()
                    .name(format!("P{i}"))
                    .spawn_scoped(scope, move || {
                        if let Some(core) = core {
                            core_affinity::set_for_current(core);
                        }
                        if strategy != WaitStrategy::Spin {
                            minimise_timer_slack();
                        }
                        let Ok(start) = start_rx.recv() else { return };
                        let time = TimeBase {
                            start,
                            dilation,
                            strategy,
                        };
                        let mut proc = Processor::new(ProcessorParts {
                            id: i,
                            level,
                            processors: n,
                            peers,
                            has_parent,
                            out: parts_out,
                            inl: parts_in,
                            cost,
                            time,
                            spin,
                            tolerance_ns,
                            trace,
                            shared,
                            abort_rx,
                        });
                        time.wait_until(0);
                        // Step 3: run.
                        let result = match catch_unwind(AssertUnwindSafe(|| program(&mut proc))) {
                            Ok(Ok(r)) => Ok(r),
                            Ok(Err(e)) => Err(Failure::Error(e)),
                            Err(payload) => Err(Failure::Panic(panic_message(payload))),
                        };
                        proc.finish();
                        let outcome = Outcome {
                            id: i,
                            result,
                            accounting: proc.acct.clone(),
                            lateness: std::mem::take(&mut proc.lateness),
                            trace: proc.trace.take(),
                        };
                        // Report first, then close this processor's links by dropping
                        // `proc`: a neighbour that fails because the links closed reports
                        // after this outcome, so the watcher names the cause (a panic here),
                        // not its consequence (`LinkClosed` there).
                        let _ = done_tx.send(outcome);
                        drop(proc);
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
            if let Some(err) = spawn_error {
                // Threads already spawned see their start channel close and return at once.
                drop(starts);
                join_all(handles);
                return Err(err);
            }
            let start = Instant::now() + Duration::from_millis(2);
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
                match done_rx.recv_timeout(self.config.deadlock_check) {
                    Ok(o) => {
                        wall_end = Instant::now();
                        if first_failure.is_none() {
                            match &o.result {
                                Err(Failure::Panic(msg)) => {
                                    first_failure = Some(RunError::Panic {
                                        processor: o.id,
                                        message: msg.clone(),
                                    });
                                    do_abort(&mut abort);
                                }
                                Err(Failure::Error(e)) if *e != ProcessorError::Aborted => {
                                    first_failure = Some(RunError::Processor {
                                        processor: o.id,
                                        error: e.clone(),
                                    });
                                    do_abort(&mut abort);
                                }
                                _ => {}
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
                        match blocked_everywhere(&shared, &neighbours, &watch_in) {
                            Some(waits) if suspect == Some(progress) => {
                                first_failure = Some(RunError::Deadlock { waits });
                                do_abort(&mut abort);
                            }
                            Some(_) => suspect = Some(progress),
                            None => suspect = None,
                        }
                        if let Some(limit) = self.config.stall_timeout {
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
            let mut results = Vec::with_capacity(n);
            let mut per_processor = Vec::with_capacity(n);
            let mut totals = Accounting::default();
            let mut lateness = LatenessStats::default();
            let mut events = Vec::new();
            for (i, o) in outcomes.into_iter().enumerate() {
                let Some(o) = o else {
                    return Err(RunError::Processor {
                        processor: i,
                        error: ProcessorError::Program(
                            "processor thread ended without a result".into(),
                        ),
                    });
                };
                match o.result {
                    Ok(r) => results.push(r),
                    Err(Failure::Panic(message)) => {
                        return Err(RunError::Panic {
                            processor: i,
                            message,
                        });
                    }
                    Err(Failure::Error(error)) => {
                        return Err(RunError::Processor {
                            processor: i,
                            error,
                        });
                    }
                }
                add_accounting(&mut totals, &o.accounting);
                lateness.merge(&o.lateness);
                if let Some(t) = o.trace {
                    events.extend(t);
                }
                per_processor.push(ProcessorReport {
                    id: i,
                    level: topo.level(i),
                    accounting: o.accounting,
                });
            }
            let makespan_ns = per_processor
                .iter()
                .map(|p| p.accounting.finish_ns)
                .max()
                .unwrap_or(0);
            let report = RunReport {
                topology: topo.to_string(),
                processors: n,
                mode: if self.native { "native" } else { "dilated" },
                makespan_s: makespan_ns as f64 / 1e9,
                wall_s: wall_end.saturating_duration_since(start).as_secs_f64(),
                per_processor,
                totals,
                fidelity: Fidelity::from_stats(
                    &lateness,
                    self.dilation,
                    self.strategy,
                    tolerance_ns,
                ),
            };
            Ok(RunRecord {
                results,
                report,
                trace: self.config.trace.then_some(Trace { events }),
            })
        })
    }
}

fn join_all<T>(handles: Vec<std::thread::ScopedJoinHandle<'_, T>>) {
    for h in handles {
        // A panic inside a program is caught in the thread; a join error cannot carry news.
        let _ = h.join();
    }
}

fn add_accounting(total: &mut Accounting, a: &Accounting) {
    total.compute_ns += a.compute_ns;
    total.communication_ns += a.communication_ns;
    total.idle_ns += a.idle_ns;
    total.finish_ns = total.finish_ns.max(a.finish_ns);
    total.messages_sent += a.messages_sent;
    total.bytes_sent += a.bytes_sent;
    total.messages_received += a.messages_received;
    total.bytes_received += a.bytes_received;
    total.tasks_executed += a.tasks_executed;
    total.tasks_forwarded += a.tasks_forwarded;
}

/// What a blocked processor waits on, from its status.
fn wait_of(status: &Status, peers: &[usize]) -> Option<(u8, Vec<usize>)> {
    let state = status.state.load(Ordering::Acquire);
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
    let waiting = if state == BLOCKED_SEND {
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
        let stuck = if state == BLOCKED_RECV {
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
