//! Emulated time: the three time modes, deadline waits, thread CPU time and the fidelity
//! record of how well real time kept up with emulated time.
//!
//! In **virtual** mode emulated time has no wall clock at all: a discrete-event scheduler
//! runs the processors as coroutines in emulated-time order (see `sim/`), so the order of
//! events is exact by construction and wall time depends only on the work done. The rest of
//! this module is about the two real-time modes, native and dilated.
//!
//! Each processor keeps its own emulated clock (nanoseconds since the start of the run). Every
//! emulated cost advances that clock by exactly the cost, and then the processor waits until
//! the wall-clock instant that corresponds to its new emulated time:
//!
//! ```text
//! wall deadline = start + D × emulated time
//! ```
//!
//! Deadlines are absolute, so a late wake-up never accumulates: the next cost is still measured
//! from the emulated time, not from when the thread woke. Messages carry the sender's emulated
//! time, and a receiver's clock jumps to a message's arrival stamp if that is later than its own,
//! so the emulated times of a run do not depend on host noise at all. Waiting in real time keeps
//! the *order* of events (which request reaches a parent first) faithful; how well it did is the
//! run's [`Fidelity`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::tuning::{AUTO_LATENESS_SHARE, AUTO_UTILISATION, HYBRID_MARGIN, STOP_POLL};

/// How emulated time relates to wall time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case", tag = "mode", content = "dilation")]
pub enum TimeMode {
    /// One processor per free core, pinned, spinning: D = 1 and wall time is real time.
    Native,
    /// More processors than cores: every emulated cost and compute interval takes D times as
    /// long in wall time, and reported times are divided by D.
    Dilated(f64),
    /// Dilated time with the factor D chosen by the machine for fidelity (see
    /// [`choose_dilation`]).
    DilatedChosen,
    /// Every processor a coroutine under a sequential discrete-event scheduler: events in
    /// exact emulated-time order, the same on every run and host; wall time independent of
    /// emulated time.
    Virtual,
    /// Native when the processors leave a core free for the host (or there is one processor),
    /// else virtual. [`TimeMode::Native`] uses every core.
    #[default]
    Auto,
}

impl TimeMode {
    /// `native`, `dilated`, `virtual` or `auto`.
    pub fn name(self) -> &'static str {
        match self {
            TimeMode::Native => "native",
            TimeMode::Dilated(_) | TimeMode::DilatedChosen => "dilated",
            TimeMode::Virtual => "virtual",
            TimeMode::Auto => "auto",
        }
    }
}

/// How a processor waits for a deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum WaitStrategy {
    /// Busy-wait on the clock: exact to ~0.1 µs, but needs a core per processor.
    Spin,
    /// Sleep to the deadline with timer slack minimised: ~30–120 µs late, no CPU used.
    Sleep,
    /// Sleep until shortly before the deadline, then spin: exact, some CPU.
    Hybrid,
    /// Spin in native mode, hybrid when dilated and processors leave a core free, else sleep.
    #[default]
    Auto,
}

impl WaitStrategy {
    /// The concrete strategy for a run (never `Auto`).
    pub fn resolve(self, native: bool, processors: usize, cores: usize) -> WaitStrategy {
        match self {
            WaitStrategy::Auto if native => WaitStrategy::Spin,
            WaitStrategy::Auto if processors < cores => WaitStrategy::Hybrid,
            WaitStrategy::Auto => WaitStrategy::Sleep,
            s => s,
        }
    }
}

/// What `auto` mode knows when it picks a dilation factor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DilationInputs {
    /// Emulated processors.
    pub processors: usize,
    /// Host cores available.
    pub cores: usize,
    /// The smallest emulated cost whose timing decides the order of events.
    pub smallest_cost: Duration,
    /// Fraction of each processor's emulated time spent in real compute (0 to 1).
    pub compute_share: f64,
    /// The host's wake-up latency.
    pub wakeup: Duration,
    /// The host CPU time of one wake-up (a message received by a sleeping processor).
    pub wake_cpu: Duration,
    /// Expected wake-ups per emulated second over the whole machine, if the program knows
    /// (a model can tell); `None`: assume every processor wakes at once at each deadline.
    pub events_per_s: Option<f64>,
    /// A native or dilated run over MPI ranks: what its cut links must cover.
    pub crossing: Option<Crossing>,
}

/// A run over MPI ranks: the emulated time a message has to cross a cut link, and what the
/// crossing takes on this host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Crossing {
    /// The smallest emulated time between a message leaving its sender over a cut link and
    /// its arrival (the latency and τ × bytes: the start-up β is waited for before it
    /// leaves).
    pub cost: Duration,
    /// The measured one-way time of a cut link's message between ranks (the median of
    /// `calibrate` under `mpirun`).
    pub one_way: Duration,
}

/// The dilation factor `auto` chose, and the bound that set it, in words.
#[derive(Debug, Clone, PartialEq)]
pub struct DilationChoice {
    /// D.
    pub factor: f64,
    /// Why this D: the requirement that set it.
    pub reason: String,
}

/// Picks a dilation factor D for `auto` mode, and says which requirement set it.
///
/// Four things must hold for a faithful run:
/// 1. a wake-up must be late by a small share ([`AUTO_LATENESS_SHARE`]) of the smallest
///    emulated cost once stretched: `D ≥ (wakeup + queueing) / (share × smallest)`;
/// 2. the host must keep up with the wake-ups. With an expected rate of `events_per_s`
///    (emulated), the host spends `events_per_s × wake_cpu / D` of CPU per second, which must
///    stay under [`AUTO_UTILISATION`] of the cores. Without a rate, the worst case is assumed:
///    all processors' deadlines fall together, and a wake-up queues behind
///    `⌈P/cores⌉ × wake_cpu` of others (the `queueing` of 1);
/// 3. real compute must fit on the cores: `D ≥ 1.25 × compute_share × P / cores`;
/// 4. over MPI ranks, cut links must keep their emulated costs: a message must reach its
///    receiver's rank by its emulated arrival, so the smallest crossing, stretched, must
///    cover the measured one-way time: `D ≥ one_way / cost`. Its margin is that of 1: the
///    receiver's own wake-up after the arrival is held to the share there.
///
/// The result is at least 1 and rounded up to a whole number.
pub fn choose_dilation(inputs: &DilationInputs) -> DilationChoice {
    let cores = inputs.cores.max(1);
    let wake_cpu = inputs.wake_cpu.as_secs_f64();
    let us = |d: Duration| format!("{:.1} µs", d.as_secs_f64() * 1e6);
    let queueing = match inputs.events_per_s {
        Some(_) => 0.0,
        None => inputs.processors.div_ceil(cores) as f64 * wake_cpu,
    };
    let by_lateness = if inputs.smallest_cost.is_zero() {
        1.0
    } else {
        (inputs.wakeup.as_secs_f64() + queueing)
            / (AUTO_LATENESS_SHARE * inputs.smallest_cost.as_secs_f64())
    };
    let by_load = inputs.events_per_s.map_or(1.0, |rate| {
        rate * wake_cpu / (AUTO_UTILISATION * cores as f64)
    });
    let by_compute =
        1.25 * inputs.compute_share.clamp(0.0, 1.0) * inputs.processors as f64 / cores as f64;
    let by_crossing = inputs.crossing.map_or(1.0, |c| {
        if c.cost.is_zero() {
            f64::INFINITY
        } else {
            c.one_way.as_secs_f64() / c.cost.as_secs_f64()
        }
    });
    let lateness = format!(
        "a wake-up is late by at most {:.0} % of the smallest cost",
        AUTO_LATENESS_SHARE * 100.0
    );
    let bounds = [
        (by_lateness, lateness.as_str()),
        (by_load, "the host keeps up with the wake-ups"),
        (by_compute, "real compute fits on the cores"),
        (by_crossing, "cut links keep their emulated costs"),
    ];
    let (bound, what) = bounds
        .into_iter()
        .fold((1.0, "real time suffices"), |best, b| {
            if b.0 > best.0 { b } else { best }
        });
    let factor = bound.ceil().max(1.0);
    let reason = match inputs.crossing {
        Some(c) if bound == by_crossing && factor > 1.0 => format!(
            "D = {factor}, the smallest at which {what}: the smallest crossing of a cut link \
             ({}, emulated) × D covers the one-way time between MPI ranks ({}, `calibrate` \
             under mpirun)",
            us(c.cost),
            us(c.one_way)
        ),
        _ if factor > 1.0 => format!("D = {factor}, the smallest at which {what}"),
        Some(c) => format!(
            "D = 1: {what}; the smallest crossing of a cut link ({}) already covers the \
             one-way time between MPI ranks ({})",
            us(c.cost),
            us(c.one_way)
        ),
        None => format!("D = 1: {what}"),
    };
    DilationChoice { factor, reason }
}

/// Set once the process is about to end (see [`halt_waits`]).
static HALTED: AtomicBool = AtomicBool::new(false);

/// Makes every emulated processor that waits — for a deadline in native or dilated time, or
/// spinning for a message or for room on a link — stop using the CPU and sleep until the
/// process exits. For a signal handler that is about to end the process: with thousands of
/// processors spinning on a few cores, the thread that ends it would otherwise wait seconds
/// for its turn. Async-signal-safe (one atomic store); not undone.
pub fn halt_waits() {
    HALTED.store(true, Ordering::Relaxed);
}

/// Sleeps for ever once [`halt_waits`] was called; returns at once otherwise.
#[inline]
pub(crate) fn park_if_halted() {
    while HALTED.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// The shared time base of one run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TimeBase {
    pub(crate) start: Instant,
    pub(crate) dilation: f64,
    pub(crate) strategy: WaitStrategy,
}

impl TimeBase {
    /// The wall instant at which emulated time `emu_ns` is due.
    #[inline]
    pub(crate) fn deadline(&self, emu_ns: u64) -> Instant {
        let wall_ns = if self.dilation == 1.0 {
            emu_ns
        } else {
            (emu_ns as f64 * self.dilation) as u64
        };
        self.start + Duration::from_nanos(wall_ns)
    }

    /// Emulated nanoseconds corresponding to a wall-clock interval.
    #[inline]
    pub(crate) fn emulated_of(&self, wall: Duration) -> u64 {
        (wall.as_nanos() as f64 / self.dilation) as u64
    }

    /// Waits until emulated time `emu_ns` is due; returns how late (wall time) the wait ended.
    pub(crate) fn wait_until(&self, emu_ns: u64) -> Duration {
        self.wait_until_unless(emu_ns, &AtomicBool::new(false))
    }

    /// Waits until emulated time `emu_ns` is due, or until `stop` is set (the run is being
    /// aborted: a long wait must not hold it up); returns how late the wait ended (zero when
    /// stopped early).
    ///
    /// Sleeps are cut into pieces of at most [`STOP_POLL`] to look at `stop` between them;
    /// the last piece still sleeps to the deadline itself, so the accuracy is unchanged. A
    /// spin looks at `stop` every few thousand turns.
    pub(crate) fn wait_until_unless(&self, emu_ns: u64, stop: &AtomicBool) -> Duration {
        let deadline = self.deadline(emu_ns);
        let mut now = Instant::now();
        if now >= deadline {
            return now - deadline;
        }
        let stopped = || {
            park_if_halted();
            stop.load(Ordering::Relaxed)
        };
        let sleep_until = |until: Instant, now: &mut Instant| {
            while *now < until {
                if stopped() {
                    return false;
                }
                std::thread::sleep((until - *now).min(STOP_POLL));
                *now = Instant::now();
            }
            true
        };
        let spin_until = |until: Instant, now: &mut Instant| {
            let mut turns = 0u32;
            while *now < until {
                turns = turns.wrapping_add(1);
                if turns % 4096 == 0 && stopped() {
                    return false;
                }
                std::hint::spin_loop();
                *now = Instant::now();
            }
            true
        };
        let reached = match self.strategy {
            WaitStrategy::Spin | WaitStrategy::Auto => spin_until(deadline, &mut now),
            WaitStrategy::Sleep => sleep_until(deadline, &mut now),
            WaitStrategy::Hybrid => {
                let spin_from = deadline.checked_sub(HYBRID_MARGIN).unwrap_or(deadline);
                sleep_until(spin_from, &mut now) && spin_until(deadline, &mut now)
            }
        };
        if reached {
            now - deadline
        } else {
            Duration::ZERO
        }
    }
}

/// The clock that measures a block of real work in measured charging
/// ([`ComputeCharge::Measured`](crate::ComputeCharge::Measured)).
///
/// - **Native time** (`D = 1`, one pinned processor per core): the monotonic clock
///   ([`Instant`], a vDSO read of ~20–30 ns). A pinned processor that spins owns its core, so
///   its wall time is its CPU time except for the host's interruptions, which a native run
///   lives through anyway; and the thread CPU-time clock costs a system call on some hosts
///   (~0.5 µs a read on the development VM: two per block).
/// - **Dilated and virtual time**: the thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), because
///   processors share cores there and a block's wall time is not its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkClock {
    /// The calling thread's CPU time.
    ThreadCpu,
    /// The monotonic clock: wall time.
    Monotonic,
}

impl WorkClock {
    /// `thread CPU time` or `monotonic (wall) time`, for reports.
    pub fn name(self) -> &'static str {
        match self {
            WorkClock::ThreadCpu => "thread CPU time",
            WorkClock::Monotonic => "monotonic (wall) time",
        }
    }

    /// Runs `work` and returns its result with the time this clock saw it take.
    #[inline]
    pub fn time<T>(self, work: impl FnOnce() -> T) -> (T, Duration) {
        match self {
            WorkClock::ThreadCpu => {
                let before = thread_cpu_time();
                let out = work();
                (out, thread_cpu_time().saturating_sub(before))
            }
            WorkClock::Monotonic => {
                let before = Instant::now();
                let out = work();
                (out, before.elapsed())
            }
        }
    }
}

/// CPU time consumed by the calling thread so far.
pub(crate) fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_THREAD_CPUTIME_ID is supported on Linux.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Asks the kernel to wake this thread's sleeps as close to their deadline as it can
/// (`PR_SET_TIMERSLACK` = 1 ns). Returns whether it took effect.
pub(crate) fn minimise_timer_slack() -> bool {
    // SAFETY: prctl with PR_SET_TIMERSLACK takes one unsigned long argument and no pointers.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) == 0 }
}

const BUCKETS: usize = 48;

/// Lateness of deadline waits in emulated nanoseconds, as a log₂ histogram: mergeable, so
/// that the waits of every part of a run (threads, or MPI ranks, whose records cross
/// serialised, the histogram with them) give the whole run's quantiles.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LatenessStats {
    /// Waits that had a deadline (every emulated cost, every delivery wait).
    pub waits: u64,
    /// Waits that ended later than the run's tolerance.
    pub late: u64,
    /// Sum of lateness over all waits, emulated ns.
    pub total_ns: u64,
    /// Largest lateness, emulated ns.
    pub max_ns: u64,
    /// Waits by lateness: bucket b counts those of `b` significant bits (empty before the
    /// first wait).
    #[serde(default)]
    hist: Vec<u64>,
}

impl LatenessStats {
    pub(crate) fn record(&mut self, lateness_ns: u64, tolerance_ns: u64) {
        if self.hist.is_empty() {
            self.hist = vec![0; BUCKETS];
        }
        self.waits += 1;
        if lateness_ns > tolerance_ns {
            self.late += 1;
        }
        self.total_ns = self.total_ns.saturating_add(lateness_ns);
        self.max_ns = self.max_ns.max(lateness_ns);
        let b = (64 - lateness_ns.leading_zeros() as usize).min(BUCKETS - 1);
        self.hist[b] += 1;
    }

    pub(crate) fn merge(&mut self, other: &LatenessStats) {
        if self.hist.is_empty() {
            self.hist = vec![0; BUCKETS];
        }
        self.waits += other.waits;
        self.late += other.late;
        self.total_ns = self.total_ns.saturating_add(other.total_ns);
        self.max_ns = self.max_ns.max(other.max_ns);
        for (a, b) in self.hist.iter_mut().zip(&other.hist) {
            *a += b;
        }
    }

    /// An upper bound of the q-quantile (0 ≤ q ≤ 1) of lateness, emulated ns (to within ×2).
    pub fn quantile_ns(&self, q: f64) -> u64 {
        if self.waits == 0 {
            return 0;
        }
        let target = (q.clamp(0.0, 1.0) * self.waits as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (b, &count) in self.hist.iter().enumerate() {
            seen += count;
            if seen >= target {
                return if b == 0 {
                    0
                } else {
                    ((1u128 << b) - 1).min(self.max_ns as u128) as u64
                };
            }
        }
        self.max_ns
    }

    /// Mean lateness, emulated ns.
    pub fn mean_ns(&self) -> f64 {
        if self.waits == 0 {
            0.0
        } else {
            self.total_ns as f64 / self.waits as f64
        }
    }
}

/// How a real-time run's processors sat on the host's cores: what its lateness can be
/// blamed on, and so what its warning may advise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Seats {
    /// The run's processors (over MPI ranks, on all of them).
    pub(crate) processors: usize,
    /// The processors this host runs (its rank's part over MPI ranks).
    pub(crate) held: usize,
    /// The cores this process may run on.
    pub(crate) cores: usize,
    /// The host's CPUs ([`host_cpus`](crate::host_cpus)), whatever this process is bound to.
    pub(crate) host_cpus: usize,
    /// Whether this process is one of several MPI ranks, which `mpirun` binds to cores of
    /// their own.
    pub(crate) ranked: bool,
}

impl Seats {
    /// What to do about late waits: with more processors than cores, fewer processors is one
    /// cure; with a core for each, the lateness is the host's (its other work, its wake-up
    /// latency), and only more dilation, virtual time or a quieter host help.
    /// An MPI rank bound to fewer cores than the host has could also be given more: mpirun
    /// binds each rank to its own cores by default.
    fn lateness_advice(self, dilation: f64) -> String {
        if self.held > self.cores {
            let unbind = if self.ranked && self.cores < self.host_cpus {
                format!(
                    ", or give each rank more of the host's {} CPUs (mpirun --bind-to none, or \
                     --map-by slot:PE=n for n cores a rank)",
                    self.host_cpus
                )
            } else {
                String::new()
            };
            return format!(
                "use virtual time (--mode virtual), raise the dilation factor (--dilation), \
                 or use fewer processors ({} here on {} cores){unbind}",
                self.held, self.cores
            );
        }
        let dilate = if dilation > 1.0 {
            format!("raise the dilation factor above D = {dilation} (--dilation)")
        } else {
            "dilate the run (--dilation 2 or more)".to_owned()
        };
        format!(
            "each processor had a core of its own ({} on {} cores), so the host's other work \
             or its wake-up latency made them late: use virtual time (--mode virtual), \
             {dilate}, or run on a quieter host",
            self.held, self.cores
        )
    }
}

/// How faithfully a run kept real time in step with emulated time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fidelity {
    /// Whether the order of events is exact by construction (virtual mode), rather than kept
    /// by waiting in real time.
    pub exact: bool,
    /// The dilation factor D of the run (none in virtual mode: wall time is unrelated to
    /// emulated time).
    pub dilation: Option<f64>,
    /// The wait strategy used (none in virtual mode).
    pub strategy: Option<WaitStrategy>,
    /// Deadline waits over all processors.
    pub waits: u64,
    /// Waits that ended more than `tolerance_ns` (emulated) after their deadline.
    pub late_waits: u64,
    /// The tolerance, emulated ns.
    pub tolerance_ns: u64,
    /// Mean lateness, emulated ns.
    pub mean_lateness_ns: f64,
    /// 99th percentile of lateness (upper bound within ×2), emulated ns.
    pub p99_lateness_ns: u64,
    /// Largest lateness, emulated ns.
    pub max_lateness_ns: u64,
    /// A warning when fidelity is poor (more than 5 % of waits late) and more than one
    /// processor ran (alone, a processor's events have no order to lose), else `None`.
    pub warning: Option<String>,
    /// A native or dilated run across MPI ranks: the share of the waits and late ones above
    /// that were messages crossing ranks, and how well the ranks agreed on time zero.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut_links: Option<CutLinkFidelity>,
}

/// How the messages of a native or dilated run that crossed MPI ranks kept their emulated
/// times: each counts as a wait whose deadline is its emulated arrival, late if it reached
/// its receiver's rank more than the tolerance after it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CutLinkFidelity {
    /// The ranks (one part a rank).
    pub ranks: usize,
    /// Messages received over links cut between ranks.
    pub receives: u64,
    /// Of those, how many arrived more than the tolerance after their emulated arrival.
    pub late: u64,
    /// Largest lateness of one, emulated ns.
    pub max_lateness_ns: u64,
    /// The largest uncertainty of a rank's time zero against rank 0's, wall ns (half the
    /// shortest clock round trip).
    pub skew_ns: u64,
}

impl Fidelity {
    /// The fidelity of a virtual-time run: exact, no real-time waits.
    pub(crate) fn exact() -> Self {
        Self {
            exact: true,
            dilation: None,
            strategy: None,
            waits: 0,
            late_waits: 0,
            tolerance_ns: 0,
            mean_lateness_ns: 0.0,
            p99_lateness_ns: 0,
            max_lateness_ns: 0,
            warning: None,
            cut_links: None,
        }
    }

    /// The fidelity of a run that waited in real time, its processors seated as `seats`.
    pub(crate) fn from_stats(
        stats: &LatenessStats,
        dilation: f64,
        strategy: WaitStrategy,
        tolerance_ns: u64,
        seats: Seats,
    ) -> Self {
        let late_share = if stats.waits == 0 {
            0.0
        } else {
            stats.late as f64 / stats.waits as f64
        };
        let warning = (late_share > 0.05 && seats.processors > 1).then(|| {
            format!(
                "{:.1} % of {} waits ended more than {:.1} µs (emulated) late; the order of events \
                 may differ from the emulated machine's: {}",
                100.0 * late_share,
                stats.waits,
                tolerance_ns as f64 / 1e3,
                seats.lateness_advice(dilation)
            )
        });
        Self {
            exact: false,
            dilation: Some(dilation),
            strategy: Some(strategy),
            waits: stats.waits,
            late_waits: stats.late,
            tolerance_ns,
            mean_lateness_ns: stats.mean_ns(),
            p99_lateness_ns: stats.quantile_ns(0.99),
            max_lateness_ns: stats.max_ns,
            warning,
            cut_links: None,
        }
    }

    /// True when no warning was raised.
    pub fn is_good(&self) -> bool {
        self.warning.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dilation_grows_with_processors_and_small_costs() {
        let us = Duration::from_micros;
        let d = |processors, smallest, compute_share, events_per_s| {
            choose_dilation(&DilationInputs {
                processors,
                cores: 2,
                smallest_cost: us(smallest),
                compute_share,
                wakeup: us(50),
                wake_cpu: us(5),
                events_per_s,
                crossing: None,
            })
            .factor
        };
        // 10 ms costs, one processor per core, 50 µs wake-ups: (50 + 5)/1000 < 1 → D = 1.
        assert_eq!(d(2, 10_000, 0.0, None), 1.0);
        // 256 processors on 2 cores: (50 + 128 × 5)/1000 = 0.69 → still 1.
        assert_eq!(d(256, 10_000, 0.0, None), 1.0);
        // 1024 on 2 cores: (50 + 512 × 5)/1000 = 2.61 → 3.
        assert_eq!(d(1024, 10_000, 0.0, None), 3.0);
        // 50 µs costs, 4 processors: (50 + 2 × 5)/5 = 12.
        assert_eq!(d(4, 50, 0.0, None), 12.0);
        // A known event rate replaces the worst-case queueing: 50/5 = 10 from lateness, and
        // 400 000 wake-ups/s × 5 µs / (0.25 × 2 cores) = 4 from load.
        assert_eq!(d(64, 50, 0.0, Some(400_000.0)), 10.0);
        assert_eq!(d(64, 1000, 0.0, Some(400_000.0)), 4.0);
        // All real compute, 16 processors on 2 cores: 1.25 × 16/2 = 10.
        assert_eq!(d(16, 100_000, 1.0, None), 10.0);
        // Zero smallest cost does not divide by zero.
        assert_eq!(d(2, 0, 0.0, None), 1.0);
    }

    #[test]
    fn over_ranks_d_is_the_smallest_at_which_cut_links_keep_their_costs() {
        let us = Duration::from_micros;
        let choose = |smallest, cost, one_way| {
            choose_dilation(&DilationInputs {
                processors: 2,
                cores: 2,
                smallest_cost: us(smallest),
                compute_share: 0.0,
                wakeup: us(50),
                wake_cpu: us(5),
                events_per_s: None,
                crossing: Some(Crossing {
                    cost: us(cost),
                    one_way: us(one_way),
                }),
            })
        };
        // Alone, the lateness rule asks (50 + 5)/100 < 1. A 20 µs crossing against a 230 µs
        // one-way time: 11.5 → D = 12, said to be the cut links' doing.
        let c = choose(1_000, 20, 230);
        assert_eq!(c.factor, 12.0);
        assert!(
            c.reason.contains("cut links") && c.reason.contains("230.0 µs"),
            "{c:?}"
        );
        // Exactly covered: 20 × 10 = 200.
        assert_eq!(choose(1_000, 20, 200).factor, 10.0);
        // A crossing longer than the one-way time needs no dilation.
        let c = choose(1_000, 500, 230);
        assert_eq!(c.factor, 1.0);
        assert!(c.reason.contains("already covers"), "{c:?}");
        // The lateness rule can still ask for more: 1 µs costs want (50 + 5)/0.1 = 550.
        let small = choose(1, 20, 230);
        assert_eq!(small.factor, 550.0);
        assert!(small.reason.contains("wake-up"), "{small:?}");
    }

    #[test]
    fn auto_strategy_spins_only_natively() {
        assert_eq!(WaitStrategy::Auto.resolve(true, 2, 2), WaitStrategy::Spin);
        assert_eq!(
            WaitStrategy::Auto.resolve(false, 1, 2),
            WaitStrategy::Hybrid
        );
        assert_eq!(
            WaitStrategy::Auto.resolve(false, 64, 2),
            WaitStrategy::Sleep
        );
        assert_eq!(WaitStrategy::Sleep.resolve(true, 1, 2), WaitStrategy::Sleep);
    }

    #[test]
    fn deadlines_are_stretched_by_the_dilation_factor() {
        let start = Instant::now();
        let base = TimeBase {
            start,
            dilation: 4.0,
            strategy: WaitStrategy::Sleep,
        };
        assert_eq!(base.deadline(1_000) - start, Duration::from_nanos(4_000));
        assert_eq!(base.emulated_of(Duration::from_nanos(4_000)), 1_000);
        let native = TimeBase {
            start,
            dilation: 1.0,
            strategy: WaitStrategy::Spin,
        };
        assert_eq!(
            native.deadline(123_456) - start,
            Duration::from_nanos(123_456)
        );
    }

    #[test]
    fn lateness_histogram_counts_and_bounds_quantiles() {
        let mut s = LatenessStats::default();
        for _ in 0..99 {
            s.record(100, 1_000);
        }
        s.record(50_000, 1_000);
        assert_eq!(s.waits, 100);
        assert_eq!(s.late, 1);
        assert_eq!(s.max_ns, 50_000);
        // 99 % of waits were 100 ns late: the p99 bound is the top of 100's bucket, [64, 128).
        assert_eq!(s.quantile_ns(0.99), 127);
        assert_eq!(s.quantile_ns(1.0), 50_000);
        let seats = |processors, cores| Seats {
            processors,
            held: processors,
            cores,
            host_cpus: cores,
            ranked: false,
        };
        let f = Fidelity::from_stats(&s, 1.0, WaitStrategy::Spin, 1_000, seats(2, 2));
        assert!(f.is_good());
        let mut bad = LatenessStats::default();
        for i in 0..10 {
            bad.record(if i < 2 { 5_000 } else { 0 }, 1_000);
        }
        assert!(
            !Fidelity::from_stats(&bad, 2.0, WaitStrategy::Sleep, 1_000, seats(2, 2)).is_good()
        );
        // One processor alone: its lateness is recorded, but no order of events can differ.
        let alone = Fidelity::from_stats(&bad, 2.0, WaitStrategy::Sleep, 1_000, seats(1, 2));
        assert!(alone.is_good());
        assert_eq!(alone.late_waits, 2);
    }

    #[test]
    fn lateness_gathered_from_ranks_gives_the_whole_runs_quantiles() {
        // Rank 0: 100 waits 100 ns late. Rank 1: 100 as late and one 1 ms late. Over the
        // whole run the p99 (the 199th of 201) is in 100's bucket, [64, 128).
        let mut zero = LatenessStats::default();
        let mut one = LatenessStats::default();
        let mut whole = LatenessStats::default();
        for _ in 0..100 {
            zero.record(100, 1_000);
            whole.record(100, 1_000);
        }
        for late in std::iter::repeat_n(100, 100).chain([1_000_000]) {
            one.record(late, 1_000);
            whole.record(late, 1_000);
        }
        // Rank 1's record crosses to rank 0 serialised, as a rank's record does.
        let crossed: LatenessStats =
            serde_json::from_str(&serde_json::to_string(&one).unwrap()).unwrap();
        let mut gathered = zero;
        gathered.merge(&crossed);
        assert_eq!(gathered, whole);
        assert_eq!(gathered.quantile_ns(0.99), 127);
        assert_eq!(gathered.quantile_ns(1.0), 1_000_000);
        // Merged in either order, and into an empty record.
        let mut other_way = LatenessStats::default();
        other_way.merge(&crossed);
        other_way.merge(&gathered);
        assert_eq!(other_way.waits, 302);
        assert_eq!(other_way.quantile_ns(0.99), 127);
    }

    #[test]
    fn the_lateness_warning_advises_only_what_can_apply() {
        let mut bad = LatenessStats::default();
        for i in 0..10 {
            bad.record(if i < 2 { 5_000 } else { 0 }, 1_000);
        }
        let on = |dilation, seats| {
            Fidelity::from_stats(&bad, dilation, WaitStrategy::Spin, 1_000, seats)
                .warning
                .unwrap()
        };
        let warn = |dilation, held, cores| {
            let seats = Seats {
                processors: held,
                held,
                cores,
                host_cpus: 4,
                ranked: false,
            };
            on(dilation, seats)
        };
        // A core each, natively: fewer processors cannot help; dilation or a quieter host can.
        let native = warn(1.0, 2, 2);
        assert!(!native.contains("fewer processors"), "{native}");
        assert!(native.contains("--dilation 2 or more"), "{native}");
        assert!(native.contains("quieter host"), "{native}");
        // Dilated already: raise it above what it was.
        let dilated = warn(3.0, 2, 4);
        assert!(dilated.contains("above D = 3 (--dilation)"), "{dilated}");
        assert!(!dilated.contains("fewer processors"), "{dilated}");
        // More processors than cores: fewer processors is one cure.
        let crowded = warn(1.0, 8, 2);
        assert!(
            crowded.contains("use fewer processors (8 here on 2 cores)"),
            "{crowded}"
        );
        assert!(!crowded.contains("quieter host"), "{crowded}");
        // Outside mpirun, a process bound to fewer cores is not told of mpirun's binding.
        assert!(!crowded.contains("--bind-to none"), "{crowded}");
        // An MPI rank bound to 1 of the host's 2 CPUs, with 2 processors of its part: mpirun's
        // binding is one more cure.
        let rank = |cores, host_cpus| Seats {
            processors: 4,
            held: 2,
            cores,
            host_cpus,
            ranked: true,
        };
        let bound = on(1.0, rank(1, 2));
        assert!(bound.contains("(2 here on 1 cores)"), "{bound}");
        assert!(
            bound.contains("the host's 2 CPUs (mpirun --bind-to none"),
            "{bound}"
        );
        assert!(bound.contains("--map-by slot:PE=n"), "{bound}");
        // A rank that has all the host's CPUs: unbinding cannot help.
        let all = on(1.0, rank(1, 1));
        assert!(!all.contains("--bind-to none"), "{all}");
    }

    #[test]
    fn thread_cpu_time_advances_with_work() {
        let before = thread_cpu_time();
        let mut x = 0u64;
        for i in 0..2_000_000u64 {
            x = std::hint::black_box(x.wrapping_add(i * i));
        }
        assert!(thread_cpu_time() > before, "{x}");
    }
}
