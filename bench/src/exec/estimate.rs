//! How long a run will take, checked before it starts: a run expected to take more than
//! [`ANNOUNCE_S`] says so (with its time mode and the mode that would be faster, if one would
//! be); one expected to take more than [`MAX_WALL_S`] is refused, naming the flags that make
//! it long; and a run whose emulated time, summed over its processors, would leave the range
//! of the runtime's clocks ([`MAX_PROCESSOR_EMULATED_S`]) is refused too.
//!
//! An estimate covers the whole command: its runs, and what it does besides them (its start,
//! a calibration, copies of its data, its report: [`overhead`]), each step at its measured
//! cost ([`super::tuning`]).
//!
//! With [`ANNOUNCE_ALL`] set in the environment, every estimate is announced, short runs'
//! too, so that `scripts/readme-tour.sh` can hold each against the command's wall time.

use crate::args::{MAX_PROCESSOR_EMULATED_S, MAX_WALL_S};
use crate::plan::{ArgError, OutputPlan};
use crate::tuning::{
    CACHED_PROCESSORS, CALIBRATION_FIXED_S, CALIBRATION_SAMPLE_S, COLD_EVENT_FACTOR,
    ENGINE_EVENT_S, PAGE_S, PIPELINE_EVENT_S, PROCESS_S, TREE_CACHED_PROCESSORS,
    TREE_COLD_EVENT_FACTOR, TREE_EVENT_S, UNIT_COSTS_S,
};
use crate::units::wall_time;

/// Runs expected to take longer than this (wall time, seconds) are announced.
pub(crate) const ANNOUNCE_S: f64 = 10.0;

/// The environment variable that has every estimate announced, however short.
pub(crate) const ANNOUNCE_ALL: &str = "MULTICOMPUTER_ANNOUNCE_ALL";

/// A wall time for an estimate: `under a second`, `45 s`, `3 min 20 s`.
fn about(s: f64) -> String {
    if s < 1.0 {
        "under a second".into()
    } else {
        format!("about {}", wall_time(s))
    }
}

/// What a program counts as its events in virtual time, each kind at its own measured cost
/// ([`event_s`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EventKind {
    /// The runtime's own events, counted as it counts them (a message delivered, a timed
    /// wait ended): `emulate`'s patterns, the collectives, ising.
    Engine,
    /// The events the tree engine's model expects of a farm or a divide and conquer
    /// (`engine_events_per_s`: a task executed, three a hop forwarded), with the engine's
    /// requests, packets and queues besides.
    Tree,
    /// The OCL pipeline's five a process a step.
    Pipeline,
}

/// The wall time of one event of `kind` in virtual time on a machine of `processors`: its
/// kind's cost while every processor's coroutine stays in the CPU's caches, up to its cold
/// factor times that as the share of the processors beyond those that fit (each resume then
/// touching cold memory) grows. The runtime's own events and the pipeline's resume a
/// coroutine each ([`COLD_EVENT_FACTOR`], [`CACHED_PROCESSORS`]); the tree engine's model
/// counts several events a resume and its nodes hold more, so it has its own
/// ([`TREE_COLD_EVENT_FACTOR`], [`TREE_CACHED_PROCESSORS`]).
pub(crate) fn event_s(kind: EventKind, processors: usize) -> f64 {
    let (hot, cold_factor, cached) = match kind {
        EventKind::Engine => (ENGINE_EVENT_S, COLD_EVENT_FACTOR, CACHED_PROCESSORS),
        EventKind::Tree => (TREE_EVENT_S, TREE_COLD_EVENT_FACTOR, TREE_CACHED_PROCESSORS),
        EventKind::Pipeline => (PIPELINE_EVENT_S, COLD_EVENT_FACTOR, CACHED_PROCESSORS),
    };
    let cold_share = (1.0 - cached / processors.max(1) as f64).max(0.0);
    hot * (1.0 + (cold_factor - 1.0) * cold_share)
}

/// A run's events in virtual time: how many an emulated second, and the wall time of each.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Events {
    /// Events per emulated second.
    pub(crate) per_s: f64,
    /// Wall time of one, seconds ([`event_s`]).
    pub(crate) cost_s: f64,
}

impl Events {
    /// `per_s` events an emulated second (none: unknown) of `kind` on `processors`.
    pub(crate) fn of(kind: EventKind, processors: usize, per_s: Option<f64>) -> Option<Self> {
        per_s.map(|per_s| Self {
            per_s,
            cost_s: event_s(kind, processors),
        })
    }
}

/// An estimate of the wall time of one or more runs, in the time mode they will use and in
/// the others.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Estimate {
    /// Seconds of wall time in the run's own mode, or NaN when nothing is known; with
    /// `fixed_s`.
    pub(crate) wall_s: f64,
    /// The part of `wall_s` that is the same in every time mode and does not stretch with
    /// the spread of events' costs: the command's start and report, copies of its data, a
    /// calibration.
    pub(crate) fixed_s: f64,
    /// The same runs in virtual time (their events, and any real work done on the
    /// scheduler's thread), or NaN.
    pub(crate) virtual_s: f64,
    /// The runs' emulated time: their wall time on threads at D = 1, or NaN.
    pub(crate) emulated_s: f64,
    /// Whether the runs are in virtual time.
    pub(crate) in_virtual: bool,
    /// The events the runs would take in virtual time, as their programs count them, or NaN.
    pub(crate) events: f64,
}

impl Estimate {
    /// Nothing known.
    pub(crate) const UNKNOWN: Self = Self {
        wall_s: f64::NAN,
        fixed_s: 0.0,
        virtual_s: f64::NAN,
        emulated_s: f64::NAN,
        in_virtual: false,
        events: f64::NAN,
    };

    /// A native run's: `wall_s` of wall time, and no other time mode to compare.
    pub(crate) fn native(wall_s: f64) -> Self {
        Self {
            wall_s,
            ..Self::UNKNOWN
        }
    }

    /// A native run's, from `wall_s` timed on this host under its load `host` (average,
    /// over its cores) just now: the quiet host's time is that over the load's
    /// [slow-down](load_slowdown), since the announced range allows for the load once
    /// ([`range_s`]) and a timing taken under load holds it already.
    pub(crate) fn timed(wall_s: f64, (load, cores): (f64, usize)) -> Self {
        Self::native(wall_s / load_slowdown(load, cores))
    }

    /// Nothing yet: the start of a sum.
    pub(crate) const ZERO: Self = Self {
        wall_s: 0.0,
        fixed_s: 0.0,
        virtual_s: 0.0,
        emulated_s: 0.0,
        in_virtual: false,
        events: 0.0,
    };

    /// The wall time of a run of emulated time `emulated_s`, `times` times: D × that on
    /// threads (`dilation` some); in virtual time (`dilation` none), its `events` — their
    /// expected rate (emulated) over the emulated time — each at its cost, unknown without
    /// them.
    pub(crate) fn emulated(
        emulated_s: f64,
        dilation: Option<f64>,
        events: Option<Events>,
        times: u32,
    ) -> Self {
        let count = events.map_or(f64::NAN, |e| emulated_s * e.per_s);
        let virtual_s = events.map_or(f64::NAN, |e| count * e.cost_s);
        Self {
            wall_s: dilation.map_or(virtual_s, |d| emulated_s * d.max(1.0)),
            fixed_s: 0.0,
            virtual_s,
            emulated_s,
            in_virtual: dilation.is_none(),
            events: count,
        }
        .times(times)
    }

    /// With `real_s` seconds of real work that virtual time does on its one thread, and
    /// threads in parallel within their emulated time, but no faster than the host's `cores`
    /// can do it.
    pub(crate) fn with_real_work(mut self, real_s: f64, cores: usize) -> Self {
        self.virtual_s += real_s;
        if self.in_virtual {
            self.wall_s = self.virtual_s;
        } else {
            self.wall_s = self.wall_s.max(real_s / cores.max(1) as f64);
        }
        self
    }

    /// With `s` seconds of wall time that every time mode spends alike (see
    /// [`fixed_s`](Self::fixed_s)).
    pub(crate) fn with_fixed(mut self, s: f64) -> Self {
        self.fixed_s += s;
        self.wall_s += s;
        self
    }

    /// Nothing but `s` seconds of [fixed](Self::fixed_s) wall time.
    pub(crate) fn fixed(s: f64) -> Self {
        Self::ZERO.with_fixed(s)
    }

    /// The same run `n` times.
    pub(crate) fn times(self, n: u32) -> Self {
        let n = f64::from(n);
        Self {
            wall_s: self.wall_s * n,
            fixed_s: self.fixed_s * n,
            virtual_s: self.virtual_s * n,
            emulated_s: self.emulated_s * n,
            in_virtual: self.in_virtual,
            events: self.events * n,
        }
    }

    /// The sum of two estimates: unknown wall times count as nothing; an unknown
    /// alternative makes the sum's unknown.
    pub(crate) fn plus(self, other: Self) -> Self {
        let v = |x: f64| if x.is_finite() { x } else { 0.0 };
        Self {
            wall_s: v(self.wall_s) + v(other.wall_s),
            fixed_s: self.fixed_s + other.fixed_s,
            virtual_s: self.virtual_s + other.virtual_s,
            emulated_s: self.emulated_s + other.emulated_s,
            in_virtual: self.in_virtual || other.in_virtual,
            events: self.events + other.events,
        }
    }

    /// Whether the run is long enough to announce.
    pub(crate) fn is_long(&self) -> bool {
        self.wall_s.is_finite() && self.wall_s > ANNOUNCE_S
    }

    /// The time mode that would take less than half the wall time, in words, if there is
    /// one.
    pub(crate) fn faster(&self) -> Option<String> {
        let half = self.wall_s / 2.0;
        let (in_virtual, dilated) = (
            self.virtual_s + self.fixed_s,
            self.emulated_s + self.fixed_s,
        );
        if !self.in_virtual && in_virtual < half {
            Some(format!("--mode virtual would take {}", about(in_virtual)))
        } else if self.in_virtual && dilated < half {
            Some(format!(
                "--mode dilated --dilation 1 would take {} (with more processors than cores, \
                 its order of events is less faithful)",
                about(dilated)
            ))
        } else {
            None
        }
    }
}

/// How much longer than its estimate a run on threads may take: deadlines are wall time, but
/// a host that cannot keep up makes waits end late.
const THREADS_SPREAD: f64 = 1.5;

/// How much longer than its estimate a run in virtual time may take: the cost of an event
/// varies about twofold with the machine's size and the program (docs/results/virtual-time.md:
/// 2–9 M events/s; 1.6 × the estimate's 0.5 µs was measured on `farm -t binary:14`).
const VIRTUAL_SPREAD: f64 = 2.0;

/// The share of a core the run's busiest thread may get on a host whose load average is
/// `load` over `cores` cores, as a slow-down: 1 on a quiet host, (load + 1) / cores on a
/// busy one (the run adds itself to the load).
pub(crate) fn load_slowdown(load: f64, cores: usize) -> f64 {
    ((load.max(0.0) + 1.0) / cores.max(1) as f64).max(1.0)
}

/// The host's load now: its load average over the last minute (0 where unknown) and its
/// cores.
pub(crate) fn host_load() -> (f64, usize) {
    let load = multicomputer_workloads::speedup::LoadAverage::now().map_or(0.0, |l| l.one);
    (load, multicomputer_runtime::host_cores())
}

/// The range an estimate is announced as, seconds: from the estimate itself to what the
/// spread of its runs' cost and the host's `load` (average, over `cores`) may make of it
/// (the load stretches its fixed part too).
pub(crate) fn range_s(e: &Estimate, load: f64, cores: usize) -> (f64, f64) {
    let spread = if e.in_virtual {
        VIRTUAL_SPREAD
    } else {
        THREADS_SPREAD
    };
    let runs_s = e.wall_s - e.fixed_s;
    let high = (runs_s * spread + e.fixed_s) * load_slowdown(load, cores);
    (e.wall_s, high)
}

/// What a command spends besides its runs, seconds: its start, plan and tables
/// ([`PROCESS_S`]), and, when `output` asks for a report file or the command publishes a run
/// `folder`, that report with its plots ([`PAGE_S`]). Added to an estimate with
/// [`Estimate::with_fixed`], which leaves an unknown one unknown.
pub(crate) fn overhead(output: &OutputPlan, folder: bool) -> f64 {
    let page = folder || output.report.is_some();
    PROCESS_S + if page { PAGE_S } else { 0.0 }
}

/// A calibration of `samples` samples (see `multicomputer_runtime::calibrate`), and with
/// `unit_costs` the measurement of the kernels' unit costs that `calibrate` adds to it.
pub(crate) fn calibration(samples: u32, unit_costs: bool) -> Estimate {
    let samples = f64::from(samples.clamp(5, 100_000));
    let units = if unit_costs { UNIT_COSTS_S } else { 0.0 };
    Estimate::fixed(CALIBRATION_FIXED_S + samples * CALIBRATION_SAMPLE_S + units)
}

/// An estimate's range in words: `about 3 min 20 s to 13 min 20 s`, `under a second`.
fn about_range(e: &Estimate, load: f64, cores: usize) -> String {
    let (low, high) = range_s(e, load, cores);
    if high < 1.0 {
        about(high)
    } else {
        format!("{} to {}", about(low), wall_time(high))
    }
}

/// Says on stderr, before a long run, how long it is expected to take and why (`detail`:
/// the mode, dilation and runs the estimate assumes), and which time mode would be faster.
/// The time is a range: from the estimate to what the spread of its costs and the host's
/// load now may make of it (a single figure ran 2–3 × low on a shared host).
pub(crate) fn announce(what: &str, e: Estimate, detail: &str) {
    let all = std::env::var_os(ANNOUNCE_ALL).is_some();
    if !(e.is_long() || all) {
        return;
    }
    if let Some(line) = announcement(what, &e, detail, host_load(), all) {
        eprintln!("{line}");
    }
}

/// The announcement of `e` on a host of `load` over `cores` cores: for a long run, or for
/// any run whose estimate is known when `all` (then with its range to the millisecond, for
/// the script that checks estimates); none otherwise.
fn announcement(
    what: &str,
    e: &Estimate,
    detail: &str,
    (load, cores): (f64, usize),
    all: bool,
) -> Option<String> {
    if !(e.is_long() || all && e.wall_s.is_finite()) {
        return None;
    }
    let faster = e.faster().map_or(String::new(), |f| format!("; {f}"));
    let exact = if all {
        let (low, high) = range_s(e, load, cores);
        let events = if e.in_virtual && e.events.is_finite() {
            format!(" [events {:.0}]", e.events)
        } else {
            String::new()
        };
        format!(" [estimate {low:.3} s to {high:.3} s]{events}")
    } else {
        String::new()
    };
    Some(format!(
        "{what}: expected to take {} of wall time ({detail}; the longer end allows for \
         slower events and this host's load of {load:.1} on {cores} cores){faster}{exact}",
        about_range(e, load, cores)
    ))
}

/// Refuses runs expected to take more than [`MAX_WALL_S`] (naming `flags`, the values that
/// make them long), else announces them if long.
pub(crate) fn admit(what: &str, flags: &str, e: Estimate, detail: &str) -> Result<(), ArgError> {
    refuse_endless(flags, e, detail)?;
    announce(what, e, detail);
    Ok(())
}

/// Refuses runs expected to take more than [`MAX_WALL_S`], naming `flags`, and says nothing
/// otherwise: the check of a rough estimate, before a better one is announced.
pub(crate) fn refuse_endless(flags: &str, e: Estimate, detail: &str) -> Result<(), ArgError> {
    if e.wall_s.is_nan() || e.wall_s <= MAX_WALL_S {
        return Ok(());
    }
    let faster = e
        .faster()
        .filter(|_| e.virtual_s <= MAX_WALL_S || e.emulated_s <= MAX_WALL_S)
        .map_or_else(
            || "give smaller values".to_string(),
            |f| format!("{f}, or give smaller values"),
        );
    Err(ArgError::new(
        flags,
        format!(
            "the run would take about {} of wall time ({detail}), more than the limit of {}; \
             {faster}",
            wall_time(e.wall_s),
            wall_time(MAX_WALL_S)
        ),
    ))
}

/// Refuses a run whose emulated time (`emulated_s`, one run) summed over its `processors`
/// would exceed [`MAX_PROCESSOR_EMULATED_S`], naming `flags`.
pub(crate) fn check_emulated(
    flags: &str,
    emulated_s: f64,
    processors: usize,
) -> Result<(), ArgError> {
    let total = emulated_s * processors as f64;
    if total.is_nan() || total <= MAX_PROCESSOR_EMULATED_S {
        return Ok(());
    }
    Err(ArgError::new(
        flags,
        format!(
            "the run would emulate about {} on each of {processors} processor(s), beyond the \
             emulator's range (processors × emulated time ≤ 10⁹ s); give shorter times or \
             fewer tasks",
            crate::units::human_s(emulated_s)
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `per_s` events an emulated second at 0.5 µs each.
    fn half_us(per_s: f64) -> Option<Events> {
        Some(Events {
            per_s,
            cost_s: 0.5e-6,
        })
    }

    #[test]
    fn an_events_cost_is_its_kinds_and_grows_as_the_processors_leave_the_caches() {
        // Within the caches, each kind's own cost.
        assert_eq!(event_s(EventKind::Engine, 64), ENGINE_EVENT_S);
        assert_eq!(event_s(EventKind::Tree, 7), TREE_EVENT_S);
        assert_eq!(event_s(EventKind::Pipeline, 50), PIPELINE_EVENT_S);
        // Twice the processors that fit: half of the resumes are cold.
        let p = (2.0 * CACHED_PROCESSORS) as usize;
        let want = PIPELINE_EVENT_S * (1.0 + (COLD_EVENT_FACTOR - 1.0) * 0.5);
        assert!((event_s(EventKind::Pipeline, p) - want).abs() < 1e-15);
        // Far beyond, nearly the cold cost.
        let tree = (2.0 * TREE_CACHED_PROCESSORS) as usize;
        let want = TREE_EVENT_S * (1.0 + (TREE_COLD_EVENT_FACTOR - 1.0) * 0.5);
        assert!((event_s(EventKind::Tree, tree) - want).abs() < 1e-15);
        let far = event_s(EventKind::Engine, 1 << 30) / ENGINE_EVENT_S;
        assert!((far - COLD_EVENT_FACTOR).abs() < 1e-3, "{far}");
        // 10⁶ events an emulated second for 2 s: 2·10⁶ events, counted for the script that
        // checks them.
        let e = Estimate::emulated(2.0, None, Events::of(EventKind::Engine, 64, Some(1e6)), 3);
        assert_eq!(e.events, 6e6);
        assert!((e.wall_s - 6e6 * ENGINE_EVENT_S).abs() < 1e-9);
        let said = announcement("emulate", &e, "", (0.0, 2), true).unwrap();
        assert!(said.ends_with(" [events 6000000]"), "{said}");
    }

    #[test]
    fn estimates_scale_with_dilation_and_runs() {
        let e = Estimate::emulated(2.0, Some(4.0), None, 3);
        assert_eq!(e.wall_s, 24.0);
        assert_eq!(e.emulated_s, 6.0);
        assert!(e.is_long());
        assert!(!Estimate::emulated(1.0, Some(1.0), None, 1).is_long());
        // Virtual time: 100 s emulated at 10⁶ events per second, 0.5 µs an event.
        let v = Estimate::emulated(100.0, None, half_us(1e6), 1);
        assert!((v.wall_s - 50.0).abs() < 1e-9);
        assert!(!Estimate::emulated(100.0, None, None, 1).is_long());
        assert!(!Estimate::UNKNOWN.is_long());
        assert_eq!(Estimate::UNKNOWN.plus(e).wall_s, 24.0);
        assert_eq!(Estimate::ZERO.plus(e).wall_s, e.wall_s);
        // Real work runs on virtual time's one thread, in parallel on threads.
        let w = v.with_real_work(10.0, 2);
        assert!((w.wall_s - 60.0).abs() < 1e-9);
        let t = Estimate::emulated(100.0, Some(2.0), half_us(1e6), 1).with_real_work(10.0, 2);
        assert_eq!(t.wall_s, 200.0);
        assert!((t.virtual_s - 60.0).abs() < 1e-9);
        // On threads, 1000 s of real work on 2 cores takes 500 s, whatever the emulated time.
        let r = Estimate::emulated(100.0, Some(1.0), None, 1).with_real_work(1000.0, 2);
        assert_eq!(r.wall_s, 500.0);
    }

    #[test]
    fn announcements_give_a_range_that_widens_with_the_hosts_load() {
        // The farm -t binary:14: about 200 s announced, 635 s of wall time taken on a
        // host with a load of about 3 on its 2 cores.
        let v = Estimate::emulated(400.0, None, half_us(1e6), 1);
        assert!((v.wall_s - 200.0).abs() < 1e-9);
        let (low, high) = range_s(&v, 3.0, 2);
        assert_eq!(low, 200.0);
        assert_eq!(high, 200.0 * 2.0 * 2.0);
        assert!((low..=high).contains(&635.0));
        // A quiet host: the spread alone.
        assert_eq!(range_s(&v, 0.0, 2).1, 400.0);
        let t = Estimate::emulated(100.0, Some(1.0), None, 1);
        assert_eq!(range_s(&t, 0.5, 4), (100.0, 150.0));
        assert_eq!(about_range(&t, 0.5, 4), "about 1 min 40 s to 2 min 30 s");
        assert_eq!(load_slowdown(7.0, 2), 4.0);
        assert_eq!(load_slowdown(f64::NAN, 2), 1.0);
    }

    #[test]
    fn fixed_costs_are_added_once_and_stretched_by_the_load_alone() {
        // 100 s emulated at 10⁶ events a second in virtual time: 50 s; with 10 s fixed.
        let e = Estimate::emulated(100.0, None, half_us(1e6), 1).with_fixed(10.0);
        assert!((e.wall_s - 60.0).abs() < 1e-9);
        assert_eq!(e.fixed_s, 10.0);
        // The runs' 50 s spread to 100 s; the fixed 10 s do not spread.
        let (low, high) = range_s(&e, 0.0, 2);
        assert!((low - 60.0).abs() < 1e-9 && (high - 110.0).abs() < 1e-9);
        // A load of 3 on 2 cores halves the run's share of a core: everything takes twice.
        assert!((range_s(&e, 3.0, 2).1 - 220.0).abs() < 1e-9);
        // Repeated runs repeat their fixed part; a sum adds it.
        assert_eq!(e.times(3).fixed_s, 30.0);
        assert_eq!(e.plus(Estimate::fixed(0.5)).fixed_s, 10.5);
        assert!((e.plus(Estimate::fixed(0.5)).wall_s - 60.5).abs() < 1e-9);
        // An unknown run stays unknown.
        assert!(Estimate::UNKNOWN.with_fixed(1.0).wall_s.is_nan());
    }

    #[test]
    fn a_commands_overhead_is_its_start_and_its_pages() {
        use crate::plan::{Format, ReportFile};
        let tables = OutputPlan::default();
        assert_eq!(overhead(&tables, false), PROCESS_S);
        assert_eq!(overhead(&tables, true), PROCESS_S + PAGE_S);
        // Added to a run whose time is unknown, it leaves it unknown: nothing is announced.
        let unknown = Estimate::UNKNOWN.with_fixed(overhead(&tables, false));
        assert_eq!(announcement("farm", &unknown, "", (0.0, 2), true), None);
        let page = OutputPlan {
            json: false,
            report: Some(ReportFile {
                path: "r.html".into(),
                format: Format::Html,
                on_stdout: false,
            }),
        };
        assert_eq!(overhead(&page, false), PROCESS_S + PAGE_S);
        // The tour's 50 samples; `calibrate`'s 200 and its unit costs.
        let tour = calibration(50, false);
        assert!((tour.wall_s - (CALIBRATION_FIXED_S + 50.0 * CALIBRATION_SAMPLE_S)).abs() < 1e-12);
        let full = calibration(200, true);
        let want = CALIBRATION_FIXED_S + 200.0 * CALIBRATION_SAMPLE_S + UNIT_COSTS_S;
        assert!((full.wall_s - want).abs() < 1e-12);
        // The calibration holds its samples to 5 at least, as it does.
        assert_eq!(calibration(0, false).wall_s, calibration(5, false).wall_s);
    }

    #[test]
    fn long_runs_are_announced_and_short_ones_only_when_all_are_asked_for() {
        let host = (0.0, 2);
        let long = Estimate::emulated(20.0, Some(1.0), None, 1);
        let said = announcement("farm", &long, "native", host, false).unwrap();
        assert!(
            said.starts_with("farm: expected to take about 20 s to 30 s"),
            "{said}"
        );
        assert!(!said.contains("[estimate"), "{said}");
        let short = Estimate::emulated(0.01, Some(1.0), None, 1).with_fixed(0.005);
        assert_eq!(announcement("farm", &short, "", host, false), None);
        let all = announcement("farm", &short, "", host, true).unwrap();
        assert!(all.ends_with("[estimate 0.015 s to 0.020 s]"), "{all}");
        // Nothing known, nothing said, even when all are asked for.
        assert_eq!(announcement("x", &Estimate::UNKNOWN, "", host, true), None);
    }

    #[test]
    fn a_time_taken_under_load_counts_the_load_once() {
        // `speedup` times its sequential run first: 20 s under a load of 3 on 2 cores, where
        // a single thread gets half a core, is 10 s on a quiet host.
        let e = Estimate::timed(20.0, (3.0, 2));
        assert_eq!(e.wall_s, 10.0);
        // The range adds the load back once: 10 s to 10 × 1.5 × 2 = 30 s (it said 20 s to
        // 60 s, the load counted twice).
        assert_eq!(range_s(&e, 3.0, 2), (10.0, 30.0));
        // Timed on a quiet host, the time is the estimate.
        assert_eq!(Estimate::timed(20.0, (0.5, 2)).wall_s, 20.0);
    }

    #[test]
    fn the_faster_mode_is_suggested() {
        // 1000 s emulated at D = 10: 10⁴ s on threads, 5 s in virtual time.
        let d = Estimate::emulated(1000.0, Some(10.0), half_us(1e4), 1);
        assert_eq!(
            d.faster().as_deref(),
            Some("--mode virtual would take about 5 s")
        );
        // 10 s emulated with 10⁸ events a second: 500 s in virtual time, 10 s at D = 1.
        let v = Estimate::emulated(10.0, None, half_us(1e8), 1);
        assert!(
            v.faster()
                .unwrap()
                .starts_with("--mode dilated --dilation 1 would take about 10 s")
        );
        // Nothing faster known.
        assert_eq!(Estimate::emulated(10.0, Some(1.0), None, 1).faster(), None);
    }

    #[test]
    fn endless_runs_are_refused_naming_their_flags() {
        let long = Estimate::emulated(1.0, Some(1e6), half_us(100.0), 1);
        let e = admit("emulate", "--dilation", long, "dilated (D = 1000000)").unwrap_err();
        assert_eq!(e.flag, "--dilation");
        assert!(e.message.contains("about 277 h 46 min"), "{e}");
        assert!(e.message.contains("limit of 24 h"), "{e}");
        assert!(
            e.message
                .contains("--mode virtual would take under a second"),
            "{e}"
        );
        assert!(
            admit(
                "x",
                "--te",
                Estimate::emulated(100.0, Some(1.0), None, 1),
                ""
            )
            .is_ok()
        );
        assert!(admit("x", "--te", Estimate::UNKNOWN, "").is_ok());
        let inf = Estimate::emulated(f64::INFINITY, Some(1.0), None, 1);
        assert!(admit("x", "--te", inf, "").is_err());
    }

    #[test]
    fn emulated_time_beyond_the_clocks_range_is_refused() {
        assert!(check_emulated("--te", 1e3, 1000).is_ok());
        let e = check_emulated("--tasks, --te", 1e7, 1000).unwrap_err();
        assert_eq!(e.flag, "--tasks, --te");
        assert!(check_emulated("--te", f64::INFINITY, 1).is_err());
        assert!(
            check_emulated("--te", f64::NAN, 1).is_ok(),
            "unknown is not refused"
        );
    }
}
