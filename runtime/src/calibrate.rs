//! Measuring this host's own costs, saved as a machine profile.
//!
//! The emulator can only be as exact as the host lets it be. `calibrate` measures what a clock
//! read, a message between two threads (spinning and parked), a wake-up from sleep, a deadline
//! wait of each strategy and one iteration of the degradation loop cost here. The profile feeds
//! `auto` mode (its wake-up latency picks the dilation factor) and tells users the floor below
//! which fitted costs (β, α) are the host's, not their program's.

use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::clock::{TimeBase, WaitStrategy, minimise_timer_slack, thread_cpu_time};
use crate::processor::busy_loop;

/// How much to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CalibrateOptions {
    /// Samples per measured quantity (round trips, sleeps, occupies per target).
    pub samples: usize,
}

impl CalibrateOptions {
    /// The most samples per quantity: each wake-up sample sleeps about a millisecond, so
    /// 100 000 already take minutes, and every sample is kept in memory.
    pub const MAX_SAMPLES: usize = 100_000;
}

impl Default for CalibrateOptions {
    fn default() -> Self {
        Self { samples: 200 }
    }
}

/// The error of deadline waits of one strategy at one target duration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OccupyError {
    /// The strategy.
    pub strategy: WaitStrategy,
    /// The requested duration, ns.
    pub target_ns: u64,
    /// Median of (actual − target), ns.
    pub median_error_ns: f64,
    /// 99th percentile of (actual − target), ns.
    pub p99_error_ns: f64,
}

/// Median absolute occupy error per strategy, over all targets, ns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OccupyErrorByStrategy {
    /// Spinning on the clock.
    pub spin: f64,
    /// Sleeping with minimal timer slack.
    pub sleep: f64,
    /// Sleeping, then spinning the last stretch.
    pub hybrid: f64,
}

/// This host's intrinsic costs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MachineProfile {
    /// Host name.
    pub host: String,
    /// The host's CPUs ([`host_cpus`]: online, whatever the calibrating process was bound
    /// to; under `mpirun` a rank is bound to its own cores, but the profile describes the
    /// host).
    pub cores: usize,
    /// When it was measured (seconds since the Unix epoch).
    pub measured_unix_s: u64,
    /// One `Instant::now()`, ns.
    pub clock_read_ns: f64,
    /// One read of the thread CPU-time clock, ns.
    pub cpu_time_read_ns: f64,
    /// One-way message between two spinning threads (bounded(1) crossbeam channel), ns.
    pub message_spin_ns: f64,
    /// One-way message to a receiver parked in a blocking receive, ns.
    pub message_parked_ns: f64,
    /// Lateness of a 1 ms sleep with minimal timer slack (median), ns.
    pub wakeup_ns: f64,
    /// Thread CPU time of one sleep/wake cycle (median), ns.
    pub wake_cpu_ns: f64,
    /// Median absolute occupy error per strategy, ns.
    pub occupy_error_ns: OccupyErrorByStrategy,
    /// Occupy error per strategy and target.
    pub occupy: Vec<OccupyError>,
    /// One iteration of the degradation busy loop, ns.
    pub loop_ns_per_iteration: f64,
    /// One coroutine switch (resume and suspend) of the virtual-time scheduler, ns.
    #[serde(default)]
    pub coroutine_switch_ns: f64,
    /// Cost of each unit of real work the programs declare, ns (for model compute charging;
    /// measured by the programs' own kernels, not by the runtime).
    #[serde(default)]
    pub unit_costs: std::collections::BTreeMap<String, f64>,
    /// The runtime's own cost of a message over a native link, `α + β·m` (measured by
    /// [`crate::calibrate_link`], which `calibrate` runs after the rest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<crate::LinkCalibration>,
    /// The one-way time of a message between two MPI ranks through the cut-link proxies'
    /// post: measured by `calibrate` under `mpirun` with two ranks or more (feature `mpi`);
    /// `auto` dilation over ranks needs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank_crossing: Option<RankCrossing>,
}

/// The one-way time of a cut link's message between two MPI ranks, as a native or dilated
/// run over ranks carries it (`engines/threads/crossing.rs`): the median of the samples and
/// half their interquartile range, as [`LinkPoint`](crate::LinkPoint)s are reported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankCrossing {
    /// The ranks it was measured among (rank 0 with each other in turn).
    pub ranks: usize,
    /// The serialised size of the note that crossed, bytes.
    pub bytes: u64,
    /// Median one-way time (half a round trip), ns.
    pub one_way_ns: f64,
    /// Half the interquartile range of the samples, ns.
    pub spread_ns: f64,
    /// Round trips measured.
    pub samples: usize,
    /// When it was measured (seconds since the Unix epoch).
    pub measured_unix_s: u64,
}

impl RankCrossing {
    /// The summary of one-way samples (ns) measured among `ranks` with notes of `bytes`;
    /// `None` without samples.
    #[cfg(any(feature = "mpi", test))]
    pub(crate) fn of(ranks: usize, bytes: u64, one_way_ns: Vec<f64>) -> Option<Self> {
        if one_way_ns.is_empty() {
            return None;
        }
        let samples = one_way_ns.len();
        let sorted = sorted(one_way_ns);
        Some(Self {
            ranks,
            bytes,
            one_way_ns: quantile(&sorted, 0.5),
            spread_ns: (quantile(&sorted, 0.75) - quantile(&sorted, 0.25)) / 2.0,
            samples,
            measured_unix_s: unix_now_s(),
        })
    }

    /// The median one-way time as a duration.
    pub fn one_way(&self) -> Duration {
        Duration::from_nanos(self.one_way_ns.max(0.0) as u64)
    }
}

impl MachineProfile {
    /// Writes the profile as JSON, atomically (a temporary file renamed into place).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = path.with_extension("json.tmp");
        std::fs::write(
            &tmp,
            serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?,
        )?;
        std::fs::rename(&tmp, path)
    }

    /// Reads a saved profile.
    pub fn load(path: &Path) -> std::io::Result<Self> {
        use std::io::Read;
        // Asked before opening: a FIFO would wait for a writer, a device never end.
        if !std::fs::metadata(path)?.is_file() {
            return Err(std::io::Error::other(
                "not a regular file (a FIFO, device or socket is not read as a profile)",
            ));
        }
        let mut bytes = Vec::new();
        std::fs::File::open(path)?
            .take(Self::MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)?;
        if bytes.len() as u64 > Self::MAX_FILE_BYTES {
            return Err(std::io::Error::other(format!(
                "larger than {} MiB: not a machine profile",
                Self::MAX_FILE_BYTES >> 20
            )));
        }
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
        serde_json::from_slice(bytes).map_err(std::io::Error::other)
    }

    /// This profile's measurements over `previous`: every quantity measured here replaces the
    /// old value, and what this measurement did not cover (unit costs of work it did not time,
    /// a link it did not calibrate, the one-way time between MPI ranks of a calibration in one
    /// process) is kept from `previous`, so a command that writes a profile
    /// merges it, never truncates it.
    pub fn merged_over(mut self, previous: &MachineProfile) -> Self {
        for (unit, ns) in &previous.unit_costs {
            self.unit_costs.entry(unit.clone()).or_insert(*ns);
        }
        if self.link.is_none() {
            self.link.clone_from(&previous.link);
        }
        if self.rank_crossing.is_none() {
            self.rank_crossing.clone_from(&previous.rank_crossing);
        }
        self
    }

    /// How this profile's host differs from the one running now (its name, or its CPUs:
    /// [`host_cpus`], not the cores this process is bound to), in words; `None` when it was
    /// measured here.
    pub fn other_host(&self) -> Option<String> {
        self.other_than(&host_name(), host_cpus())
    }

    /// How this profile's host differs from host `here` with `cpus` CPUs, in words.
    fn other_than(&self, here: &str, cpus: usize) -> Option<String> {
        let mut why = Vec::new();
        if self.host != here {
            why.push(format!("on host '{}', not '{here}'", self.host));
        }
        if self.cores != cpus {
            why.push(format!("with {} cores, not {cpus}", self.cores));
        }
        (!why.is_empty()).then(|| why.join(" and "))
    }

    /// The largest profile file [`Self::load`] reads (a profile is a few KiB).
    pub const MAX_FILE_BYTES: u64 = 1 << 20;

    /// The wake-up latency as a duration.
    pub fn wakeup(&self) -> Duration {
        Duration::from_nanos(self.wakeup_ns.max(0.0) as u64)
    }

    /// The costs for model compute charging: the profile's unit costs and loop iteration.
    pub fn work_costs(&self) -> crate::WorkCosts {
        crate::WorkCosts {
            ns_per_unit: self.unit_costs.clone(),
            loop_iteration_ns: self.loop_ns_per_iteration,
        }
    }

    /// The CPU time of one sleep/wake cycle as a duration.
    pub fn wake_cpu(&self) -> Duration {
        Duration::from_nanos(self.wake_cpu_ns.max(0.0) as u64)
    }
}

/// The wall time of one coroutine switch (a resume and the suspend back), ns: the floor under
/// the cost of one event in virtual time.
pub fn coroutine_switch_ns(switches: u64) -> f64 {
    use corosensei::{Coroutine, CoroutineResult};
    let mut co = Coroutine::new(|yielder, mut n: u64| {
        loop {
            n = yielder.suspend(n.wrapping_add(1));
        }
    });
    let start = Instant::now();
    let mut n = 0u64;
    for _ in 0..switches {
        match co.resume(n) {
            CoroutineResult::Yield(v) => n = std::hint::black_box(v),
            CoroutineResult::Return(()) => break,
        }
    }
    start.elapsed().as_nanos() as f64 / switches.max(1) as f64
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i]
}

fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(f64::total_cmp);
    v
}

fn median(v: Vec<f64>) -> f64 {
    quantile(&sorted(v), 0.5)
}

fn per_call_ns(iterations: u32, f: impl Fn()) -> f64 {
    let t = Instant::now();
    for _ in 0..iterations {
        f();
    }
    t.elapsed().as_nanos() as f64 / f64::from(iterations)
}

/// Seconds since the Unix epoch, now.
fn unix_now_s() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The host's CPUs: those online, whatever this process is bound to (an MPI rank is bound
/// to its own cores, a process under `taskset` to its set). What a machine profile
/// describes, and what it is compared with.
pub fn host_cpus() -> usize {
    // SAFETY: sysconf reads a system value; it has no preconditions.
    let online = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    usize::try_from(online)
        .ok()
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}

/// Wall time of `round_trips` round trips of a bare crossbeam `bounded(1)` ping-pong between
/// two threads spinning on `try_recv`/`try_send`, pinned to the first two of `cores` (if
/// given). The yardstick for the runtime's own per-message cost.
pub fn bare_pingpong(round_trips: u64, cores: &[core_affinity::CoreId]) -> Duration {
    let (ping_tx, ping_rx) = crossbeam_channel::bounded::<u64>(1);
    let (pong_tx, pong_rx) = crossbeam_channel::bounded::<u64>(1);
    let echo_core = cores.get(1).copied();
    let main_core = cores.first().copied();
    std::thread::scope(|s| {
        s.spawn(move || {
            if let Some(c) = echo_core {
                core_affinity::set_for_current(c);
            }
            loop {
                match ping_rx.try_recv() {
                    Ok(v) => {
                        while pong_tx.try_send(v).is_err() {
                            std::hint::spin_loop();
                        }
                    }
                    Err(crossbeam_channel::TryRecvError::Empty) => std::hint::spin_loop(),
                    Err(crossbeam_channel::TryRecvError::Disconnected) => return,
                }
            }
        });
        s.spawn(move || {
            if let Some(c) = main_core {
                core_affinity::set_for_current(c);
            }
            let t = Instant::now();
            for i in 0..round_trips {
                while ping_tx.try_send(i).is_err() {
                    std::hint::spin_loop();
                }
                while pong_rx.try_recv().is_err() {
                    std::hint::spin_loop();
                }
            }
            t.elapsed()
        })
        .join()
        .unwrap_or_default()
    })
}

/// One-way cost of a message between two spinning threads, ns: half the median round trip
/// over batches.
fn message_spin_ns(samples: usize, cores: &[core_affinity::CoreId]) -> f64 {
    const BATCH: u64 = 200;
    let batches = (0..samples.max(5))
        .map(|_| bare_pingpong(BATCH, cores).as_nanos() as f64 / BATCH as f64 / 2.0)
        .collect();
    median(batches)
}

/// One-way cost of a message to a receiver parked in `recv`, ns (median).
fn message_parked_ns(samples: usize) -> f64 {
    let (tx, rx) = crossbeam_channel::bounded::<Instant>(1);
    let receiver = std::thread::spawn(move || {
        let mut v = Vec::new();
        while let Ok(sent) = rx.recv() {
            v.push(sent.elapsed().as_nanos() as f64);
        }
        v
    });
    for _ in 0..samples.max(5) {
        std::thread::sleep(Duration::from_micros(300));
        let _ = tx.send(Instant::now());
    }
    drop(tx);
    receiver.join().map(median).unwrap_or(f64::NAN)
}

/// Median lateness and median thread CPU time of 1 ms sleeps, ns.
fn wakeup_ns(samples: usize) -> (f64, f64) {
    std::thread::scope(|s| {
        s.spawn(move || {
            minimise_timer_slack();
            let mut late = Vec::with_capacity(samples);
            let mut cpu = Vec::with_capacity(samples);
            for _ in 0..samples.max(5) {
                let c = thread_cpu_time();
                let t = Instant::now();
                std::thread::sleep(Duration::from_millis(1));
                late.push(t.elapsed().as_nanos() as f64 - 1e6);
                cpu.push(thread_cpu_time().saturating_sub(c).as_nanos() as f64);
            }
            (median(late), median(cpu))
        })
        .join()
        .unwrap_or((f64::NAN, f64::NAN))
    })
}

fn occupy_errors(strategy: WaitStrategy, target: Duration, samples: usize) -> OccupyError {
    let n = if target >= Duration::from_millis(10) {
        samples.clamp(5, 20)
    } else {
        samples.max(5)
    };
    let errors = std::thread::scope(|s| {
        s.spawn(move || {
            minimise_timer_slack();
            let base = TimeBase {
                start: Instant::now(),
                dilation: 1.0,
                strategy,
            };
            let mut emu = 0u64;
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                // Each occupy starts now and must end exactly `target` later.
                emu = emu.max(base.emulated_of(base.start.elapsed()));
                let begin = base.deadline(emu);
                emu += target.as_nanos() as u64;
                let _ = base.wait_until(emu);
                let actual = begin.elapsed();
                v.push(actual.as_nanos() as f64 - target.as_nanos() as f64);
            }
            v
        })
        .join()
        .unwrap_or_default()
    });
    let sorted = sorted(errors);
    OccupyError {
        strategy,
        target_ns: target.as_nanos() as u64,
        median_error_ns: quantile(&sorted, 0.5),
        p99_error_ns: quantile(&sorted, 0.99),
    }
}

/// Measures this host and returns its profile. Takes a few seconds with the default options;
/// `samples` is held to `5..=`[`CalibrateOptions::MAX_SAMPLES`].
pub fn calibrate(options: CalibrateOptions) -> MachineProfile {
    let samples = options.samples.clamp(5, CalibrateOptions::MAX_SAMPLES);
    let cores = core_affinity::get_core_ids().unwrap_or_default();
    let clock_read_ns = per_call_ns(1_000_000, || {
        std::hint::black_box(Instant::now());
    });
    let cpu_time_read_ns = per_call_ns(100_000, || {
        std::hint::black_box(thread_cpu_time());
    });
    let message_spin_ns = message_spin_ns(samples, &cores);
    let message_parked_ns = message_parked_ns(samples);
    let (wakeup_ns, wake_cpu_ns) = wakeup_ns(samples);
    let targets = [10u64, 100, 1_000, 10_000].map(Duration::from_micros);
    let mut occupy = Vec::new();
    for strategy in [
        WaitStrategy::Spin,
        WaitStrategy::Sleep,
        WaitStrategy::Hybrid,
    ] {
        for &t in &targets {
            occupy.push(occupy_errors(strategy, t, samples));
        }
    }
    let by = |s: WaitStrategy| {
        median(
            occupy
                .iter()
                .filter(|o| o.strategy == s)
                .map(|o| o.median_error_ns.abs())
                .collect(),
        )
    };
    let occupy_error_ns = OccupyErrorByStrategy {
        spin: by(WaitStrategy::Spin),
        sleep: by(WaitStrategy::Sleep),
        hybrid: by(WaitStrategy::Hybrid),
    };
    let iterations = 20_000_000;
    let before = thread_cpu_time();
    std::hint::black_box(busy_loop(iterations));
    let loop_ns_per_iteration =
        thread_cpu_time().saturating_sub(before).as_nanos() as f64 / iterations as f64;
    MachineProfile {
        host: host_name(),
        cores: host_cpus(),
        measured_unix_s: unix_now_s(),
        clock_read_ns,
        cpu_time_read_ns,
        message_spin_ns,
        message_parked_ns,
        wakeup_ns,
        wake_cpu_ns,
        occupy_error_ns,
        occupy,
        loop_ns_per_iteration,
        coroutine_switch_ns: coroutine_switch_ns(1_000_000),
        unit_costs: std::collections::BTreeMap::new(),
        link: None,
        rank_crossing: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_round_trips_through_json_file() {
        let profile = calibrate(CalibrateOptions { samples: 5 });
        assert!(profile.cores >= 1);
        assert_eq!(profile.occupy.len(), 12);
        assert!(profile.loop_ns_per_iteration > 0.0);
        let dir = std::env::temp_dir().join(format!("mc-profile-{}", std::process::id()));
        let path = dir.join("profile.json");
        profile.save(&path).unwrap();
        assert_eq!(MachineProfile::load(&path).unwrap(), profile);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_profile_is_compared_with_the_hosts_cpus_not_the_cores_a_process_is_bound_to() {
        let profile = calibrate(CalibrateOptions { samples: 1 });
        // Calibrated here: the same host, whatever this process is bound to.
        assert_eq!(profile.cores, host_cpus());
        assert_eq!(
            profile.other_than(&profile.host.clone(), profile.cores),
            None
        );
        // A thread bound to one core (as an MPI rank is) still finds the profile its host's.
        let here = profile.clone();
        let bound = std::thread::spawn(move || {
            let first = core_affinity::get_core_ids()
                .unwrap_or_default()
                .into_iter()
                .next();
            if let Some(core) = first {
                // Where pinning fails the thread keeps the host's cores: the check still holds.
                let _pinned = core_affinity::set_for_current(core);
            }
            here.other_host()
        })
        .join()
        .unwrap();
        assert_eq!(bound, None);
        let mut profile = profile;
        profile.cores = 2;
        assert_eq!(
            profile.other_than(&profile.host.clone(), 4).as_deref(),
            Some("with 2 cores, not 4")
        );
        assert!(
            profile
                .other_than("elsewhere", 2)
                .unwrap()
                .contains("not 'elsewhere'")
        );
    }

    #[test]
    fn a_merged_profile_keeps_the_unit_costs_it_did_not_measure() {
        let mut previous = calibrate(CalibrateOptions { samples: 1 });
        previous.unit_costs.insert("prime_candidate".into(), 12.5);
        previous.unit_costs.insert("merge_key".into(), 3.0);
        previous.wakeup_ns = 1.0;
        let mut measured = previous.clone();
        measured.wakeup_ns = 2.0;
        measured.unit_costs.clear();
        measured.unit_costs.insert("merge_key".into(), 4.0);
        previous.link = Some(crate::LinkCalibration {
            alpha_ns: 1000.0,
            beta_ns_per_byte: 0.1,
            fit: crate::fit_line(&[(0.0, 1000.0, 1.0), (1.0, 1000.1, 1.0), (2.0, 1000.2, 1.0)])
                .unwrap(),
            points: Vec::new(),
            samples: 5,
        });
        measured.link = None;
        let merged = measured.clone().merged_over(&previous);
        assert_eq!(merged.link, previous.link);
        // A link measured now replaces the old one.
        let mut relinked = measured.clone();
        relinked.link = previous.link.clone().map(|mut l| {
            l.alpha_ns = 900.0;
            l
        });
        assert_eq!(
            relinked.merged_over(&previous).link.map(|l| l.alpha_ns),
            Some(900.0)
        );
        assert_eq!(merged.wakeup_ns, 2.0);
        assert_eq!(merged.unit_costs["prime_candidate"], 12.5);
        assert_eq!(merged.unit_costs["merge_key"], 4.0);
        assert_eq!(merged.unit_costs.len(), 2);
    }

    #[test]
    fn a_profile_from_one_process_keeps_the_one_way_time_between_ranks() {
        let mut previous = calibrate(CalibrateOptions { samples: 1 });
        previous.rank_crossing = RankCrossing::of(2, 180, vec![40_000.0, 50_000.0, 60_000.0]);
        let mut alone = previous.clone();
        alone.rank_crossing = None;
        alone.wakeup_ns = 7.0;
        let merged = alone.merged_over(&previous);
        assert_eq!(merged.rank_crossing, previous.rank_crossing);
        assert_eq!(merged.wakeup_ns, 7.0);
        // Measured again under mpirun: the new one replaces it.
        let mut again = previous.clone();
        again.rank_crossing = RankCrossing::of(4, 180, vec![90_000.0]);
        let merged = again.merged_over(&previous);
        assert_eq!(
            merged.rank_crossing.map(|c| (c.ranks, c.one_way_ns)),
            Some((4, 90_000.0))
        );
    }

    #[test]
    fn a_crossing_is_the_median_of_its_samples_with_half_their_iqr() {
        // Sorted 10, 20, 30, 40, 1000: median 30; quartiles 20 and 40, so ± 10.
        let c = RankCrossing::of(2, 100, vec![40.0, 10.0, 1000.0, 30.0, 20.0]).unwrap();
        assert_eq!((c.one_way_ns, c.spread_ns, c.samples), (30.0, 10.0, 5));
        assert_eq!(c.one_way(), Duration::from_nanos(30));
        assert_eq!(RankCrossing::of(2, 100, Vec::new()), None);
    }

    #[test]
    fn quantiles_pick_from_sorted_samples() {
        let v = sorted(vec![5.0, 1.0, 3.0, 2.0, 4.0]);
        assert_eq!(quantile(&v, 0.5), 3.0);
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert_eq!(quantile(&v, 1.0), 5.0);
        assert!(quantile(&[], 0.5).is_nan());
    }
}
