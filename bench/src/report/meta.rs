//! What every report carries besides its results: the tool and its version, the command
//! line, every input, the seed, the host and its profile, the date, the time mode and the
//! fidelity of the run.

use multicomputer_runtime::{ComputeCharge, CutLinkFidelity, Fidelity, RunSpec, WorkClock};
use multicomputer_workloads::speedup::OtherLoad;
use serde::Serialize;

use super::document::{Block, Section, Table};
use super::host_noise;
use super::runs::Repetitions;
use crate::exec::TieSpread;
use crate::plan::{Inputs, LoadedProfile, MachinePlan, wait_name};
use crate::units::{human_bytes, human_ns};

/// The host a run ran on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Host {
    /// Its name.
    pub(crate) name: String,
    /// Cores this process may use.
    pub(crate) cores: usize,
    /// The machine profile: used, missing (defaults used), written, or not a thing the
    /// command uses.
    pub(crate) profile: ProfileState,
}

/// What a command did with a machine profile, as it passed it to [`Meta::new`].
#[derive(Debug, Clone, Copy)]
pub(crate) enum ProfileUse<'a> {
    /// The command uses no profile (a model, a fit of given data, a measurement of its own).
    NotUsed,
    /// The command uses the profile it found, or the defaults if there was none.
    Read(Option<&'a LoadedProfile>),
    /// The command measured the host and wrote this profile.
    Written(&'a LoadedProfile),
}

/// The machine profile in a report.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ProfileState {
    /// The command uses none.
    NotUsed,
    /// The command would use one; there was none, so it used the defaults.
    Missing,
    /// The profile it used.
    Used(ProfileSummary),
    /// The profile it measured and wrote.
    Written(ProfileSummary),
}

impl ProfileSummary {
    fn of(p: &LoadedProfile) -> Self {
        Self {
            path: p.path.display().to_string(),
            message_parked_ns: p.profile.message_parked_ns,
            wakeup_ns: p.profile.wakeup_ns,
            wake_cpu_ns: p.profile.wake_cpu_ns,
            warning: p.profile.other_host().map(|why| {
                format!(
                    "the machine profile {} was measured {why}: its costs may not be this \
                     host's; run `multicomputer calibrate` here",
                    p.path.display()
                )
            }),
        }
    }

    fn describe(&self) -> String {
        format!(
            "{}: message (parked) {}, wake-up {}, wake CPU {}",
            self.path,
            human_ns(self.message_parked_ns),
            human_ns(self.wakeup_ns),
            human_ns(self.wake_cpu_ns)
        )
    }
}

impl ProfileState {
    /// The profile used or written, if any.
    pub(crate) fn summary(&self) -> Option<&ProfileSummary> {
        match self {
            Self::Used(p) | Self::Written(p) => Some(p),
            Self::NotUsed | Self::Missing => None,
        }
    }
}

impl From<ProfileUse<'_>> for ProfileState {
    fn from(u: ProfileUse<'_>) -> Self {
        match u {
            ProfileUse::NotUsed => Self::NotUsed,
            ProfileUse::Read(None) => Self::Missing,
            ProfileUse::Read(Some(p)) => Self::Used(ProfileSummary::of(p)),
            ProfileUse::Written(p) => Self::Written(ProfileSummary::of(p)),
        }
    }
}

/// The parts of a machine profile that shape a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ProfileSummary {
    /// The file.
    pub(crate) path: String,
    /// One-way message with a parked receiver, ns.
    pub(crate) message_parked_ns: f64,
    /// Wake-up lateness of a sleep, ns.
    pub(crate) wakeup_ns: f64,
    /// CPU time of a sleep/wake cycle, ns.
    pub(crate) wake_cpu_ns: f64,
    /// Why the profile may not fit this host: measured on another host or core count.
    pub(crate) warning: Option<String>,
}

/// How emulated time related to wall time in the run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct TimeInfo {
    /// The mode asked for (`auto`, `native`, `dilated (D = 4)`, `virtual`).
    pub(crate) requested: String,
    /// The mode the machine ran in: `native`, `dilated` or `virtual` (or `mixed`, over a
    /// sweep's cells).
    pub(crate) mode: String,
    /// The dilation factor D (none in virtual time).
    pub(crate) dilation: Option<f64>,
    /// The wait strategy (none in virtual time).
    pub(crate) wait: Option<String>,
    /// A dilation chosen for fidelity: which requirement set D, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) dilation_chosen: Option<String>,
    /// How real compute was charged to emulated time: `measured` (thread CPU time) or
    /// `model` (declared units × cost per unit), with where the costs came from.
    pub(crate) compute_charging: String,
    /// Every run in virtual time: events in exact emulated-time order.
    #[serde(skip)]
    pub(crate) exact: bool,
    /// The order of simultaneous events in virtual time (`--ties`).
    pub(crate) ties: String,
}

/// The fidelity of a run: how late waits ended against their emulated deadlines (none in
/// virtual time, whose order of events is exact by construction).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct FidelityInfo {
    /// Whether the order of events is exact by construction (virtual time).
    pub(crate) exact: bool,
    /// Deadline waits.
    pub(crate) waits: u64,
    /// Those that ended late beyond the tolerance.
    pub(crate) late_waits: u64,
    /// The tolerance, emulated ns.
    pub(crate) tolerance_ns: u64,
    /// Mean lateness, emulated ns.
    pub(crate) mean_lateness_ns: f64,
    /// Largest lateness, emulated ns.
    pub(crate) max_lateness_ns: u64,
    /// What to do about poor fidelity, if it was poor.
    pub(crate) warning: Option<String>,
    /// A native or dilated run across MPI ranks: its messages between ranks, and the ranks'
    /// agreement on time zero.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) cut_links: Option<CutLinkFidelity>,
}

impl From<&Fidelity> for FidelityInfo {
    fn from(f: &Fidelity) -> Self {
        Self {
            exact: f.exact,
            waits: f.waits,
            late_waits: f.late_waits,
            tolerance_ns: f.tolerance_ns,
            mean_lateness_ns: f.mean_lateness_ns,
            max_lateness_ns: f.max_lateness_ns,
            warning: f.warning.clone(),
            cut_links: f.cut_links.clone(),
        }
    }
}

/// How a run across MPI ranks kept time on its cut links, for a line of text.
pub(crate) fn cut_links_text(c: &CutLinkFidelity, tolerance_ns: u64) -> String {
    let on_time = if c.receives == 0 {
        100.0
    } else {
        100.0 * (c.receives - c.late) as f64 / c.receives as f64
    };
    format!(
        "{} ranks: {} of {} messages between ranks on time ({on_time:.1} %; late: more than {} \
         after their emulated arrival), largest lateness {}; time zero agreed within {} (skew)",
        c.ranks,
        c.receives - c.late,
        c.receives,
        human_ns(tolerance_ns as f64),
        human_ns(c.max_lateness_ns as f64),
        human_ns(c.skew_ns as f64)
    )
}

/// A report's metadata.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Meta {
    /// `multicomputer`.
    pub(crate) tool: &'static str,
    /// The tool's version.
    pub(crate) version: &'static str,
    /// The command, e.g. `sweep farm`.
    pub(crate) command: String,
    /// The command line as typed.
    pub(crate) command_line: Vec<String>,
    /// When the command started (RFC 3339, UTC).
    pub(crate) date: String,
    /// Every input, by flag.
    pub(crate) inputs: Inputs,
    /// The seed of the random draws, if the command draws any.
    pub(crate) seed: Option<u64>,
    /// The host.
    pub(crate) host: Host,
    /// The time mode of the run (none for a prediction or a fit).
    pub(crate) time: Option<TimeInfo>,
    /// The fidelity of the run (the worst of several).
    pub(crate) fidelity: Option<FidelityInfo>,
    /// Files written, besides stdout.
    pub(crate) files: Vec<String>,
    /// The headline figures over other orders of simultaneous events (virtual time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tie_spread: Option<TieSpread>,
    /// Whether the spread was looked for (a run's own report; not a sweep's cells).
    #[serde(skip)]
    pub(crate) ties_looked_for: bool,
    /// The memory the run was planned to hold (the memory model), bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) memory_plan_bytes: Option<f64>,
    /// What disturbed the measurement on the host, and what to do (real-time runs only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) host_warnings: Vec<String>,
    /// The measurements a command analysed without running anything (a fit, or `scaling
    /// --csv`), e.g. `--csv results.csv`; `None` for a run or a model alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) analysed: Option<String>,
}

/// The current time, RFC 3339 in UTC to the second.
pub(crate) fn now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}

impl Meta {
    /// The metadata of `command` with `inputs`, on this host, now, with what the command did
    /// with a machine profile.
    pub(crate) fn new(command: &str, inputs: Inputs, profile: ProfileUse<'_>) -> Self {
        Self {
            tool: "multicomputer",
            version: env!("CARGO_PKG_VERSION"),
            command: command.into(),
            command_line: std::env::args().collect(),
            date: now(),
            inputs,
            seed: None,
            host: Host {
                name: host_name(),
                cores: multicomputer_runtime::host_cores(),
                profile: profile.into(),
            },
            time: None,
            fidelity: None,
            files: Vec::new(),
            tie_spread: None,
            ties_looked_for: false,
            memory_plan_bytes: None,
            host_warnings: Vec::new(),
            analysed: None,
        }
    }

    /// The metadata of a run of `command` on a machine built by `machine`, which ran as
    /// `ran` with `fidelity` (the worst of several runs).
    pub(crate) fn for_run(
        command: &str,
        inputs: Inputs,
        machine: &MachinePlan,
        ran: &RunSpec,
        fidelity: &Fidelity,
    ) -> Self {
        Self::new(command, inputs, ProfileUse::Read(machine.profile.as_ref()))
            .ran(machine, ran)
            .fidelity(fidelity)
    }

    /// With real execution timed by the command itself on the host's threads (pingpong,
    /// calibrate, speedup): native time, no emulation, `wait` the threads' wait strategy.
    /// As a command that ran nothing but analysed the measurements `what` names (e.g.
    /// `--csv results.csv`), so that the report does not call it a model alone.
    pub(crate) fn analysing(mut self, what: impl Into<String>) -> Self {
        self.analysed = Some(what.into());
        self
    }

    pub(crate) fn native(mut self, wait: Option<&str>) -> Self {
        self.time = Some(TimeInfo {
            requested: "native".into(),
            mode: "native".into(),
            dilation: None,
            dilation_chosen: None,
            wait: wait.map(str::to_string),
            compute_charging: "none: real execution timed by the monotonic clock".into(),
            exact: false,
            ties: String::new(),
        });
        self
    }

    /// With what other processes did to a run that ran as `ran`, watched by `watch` from its
    /// start, and how scattered its replicates `runs` are (nothing for a run that timed
    /// nothing on the host).
    pub(crate) fn watched(
        mut self,
        ran: &RunSpec,
        watch: &OtherLoad,
        runs: Option<&Repetitions>,
    ) -> Self {
        self.host_warnings
            .extend(host_noise::run_warning(ran, watch));
        self.host_warnings.extend(host_noise::replicates_warning(
            ran,
            runs.and_then(Repetitions::headline),
        ));
        self
    }

    /// The same for real execution timed by the command itself (`what`, e.g. "calibration").
    pub(crate) fn watched_natively(mut self, what: &str, watch: &OtherLoad) -> Self {
        self.host_warnings.extend(host_noise::busy_host(
            watch.cores_busy(),
            watch.cpus(),
            what,
            false,
        ));
        self
    }

    /// With how scattered `calibrate`'s repeated timings of each kernel input were
    /// (`replicates`: each input and its times).
    pub(crate) fn calibration_replicates(mut self, replicates: &[(String, Vec<f64>)]) -> Self {
        self.host_warnings
            .extend(host_noise::calibration_warning(replicates));
        self
    }

    /// With the spread of the headline figures over tie orders, if measured.
    pub(crate) fn ties(mut self, spread: Option<&TieSpread>) -> Self {
        self.tie_spread = spread.cloned();
        self.ties_looked_for = true;
        self
    }

    /// With the run's seed.
    pub(crate) fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// With how the machine ran, as `machine` asked for.
    pub(crate) fn ran(mut self, machine: &MachinePlan, ran: &RunSpec) -> Self {
        self.time = Some(TimeInfo {
            requested: machine.mode_name(),
            mode: ran.time.name().into(),
            dilation: ran.time.dilation(),
            dilation_chosen: ran.dilation_chosen.clone(),
            wait: ran.waits().map(|w| wait_name(w).to_string()),
            compute_charging: charging(machine.work_costs.1, &[ran]),
            exact: ran.time.is_virtual(),
            ties: ran.ties.to_string(),
        });
        self
    }

    /// With how a machine that no [`MachinePlan`] built ran (`speedup`'s native machines), as
    /// `requested`; `note` is added to its compute charging.
    pub(crate) fn resolved(mut self, requested: &str, ran: &RunSpec, note: &str) -> Self {
        self.time = Some(TimeInfo {
            requested: requested.into(),
            mode: ran.time.name().into(),
            dilation: ran.time.dilation(),
            dilation_chosen: ran.dilation_chosen.clone(),
            wait: ran.waits().map(|w| wait_name(w).to_string()),
            compute_charging: format!("{}{note}", charging("none", &[ran])),
            exact: ran.time.is_virtual(),
            ties: ran.ties.to_string(),
        });
        self
    }

    /// With how the machines of a sweep's cells ran: their mode and wait strategy if all
    /// alike (else `mixed`), and the largest dilation.
    pub(crate) fn cells<'a>(
        mut self,
        machine: &MachinePlan,
        rans: impl Iterator<Item = &'a RunSpec>,
    ) -> Self {
        let rans: Vec<&RunSpec> = rans.collect();
        let alike = |f: fn(&RunSpec) -> Option<&'static str>| {
            let first = rans.first().and_then(|r| f(r));
            if rans.iter().all(|r| f(r) == first) {
                first.map(str::to_string)
            } else {
                Some("mixed".to_string())
            }
        };
        let mode = alike(|r| Some(r.time.name())).unwrap_or_else(|| "none".into());
        self.time = Some(TimeInfo {
            requested: machine.mode_name(),
            dilation: rans
                .iter()
                .filter_map(|r| r.time.dilation())
                .reduce(f64::max),
            dilation_chosen: None,
            wait: alike(|r| r.waits().map(wait_name)),
            compute_charging: charging(machine.work_costs.1, &rans),
            exact: !rans.is_empty() && rans.iter().all(|r| r.time.is_virtual()),
            mode,
            ties: machine.ties.to_string(),
        });
        self
    }

    /// With the run's fidelity.
    pub(crate) fn fidelity(mut self, f: &Fidelity) -> Self {
        self.fidelity = Some(f.into());
        self
    }

    /// The subtitle of a page: version, date, command line.
    pub(crate) fn subtitle(&self) -> String {
        format!(
            "{} {} · {} · {}",
            self.tool,
            self.version,
            self.date,
            self.command_line.join(" ")
        )
    }

    /// The sections a report file shows about its run: inputs, host and time, fidelity.
    pub(crate) fn sections(&self) -> Vec<Section> {
        let mut inputs = Table::new(&["input", "value"]);
        for (k, v) in &self.inputs.0 {
            inputs.row(vec![k.clone(), v.clone()]);
        }
        let mut run = Table::new(&["property", "value"]);
        run.row(vec![
            "tool".into(),
            format!("{} {}", self.tool, self.version),
        ])
        .row(vec!["command line".into(), self.command_line.join(" ")])
        .row(vec!["date (UTC)".into(), self.date.clone()])
        .row(vec![
            "host".into(),
            format!("{} ({} cores)", self.host.name, self.host.cores),
        ]);
        if let Some(s) = self.seed {
            run.row(vec!["seed".into(), s.to_string()]);
        }
        let profile = match &self.host.profile {
            ProfileState::NotUsed => None,
            ProfileState::Missing => {
                Some("none (defaults used; run `multicomputer calibrate`)".to_string())
            }
            ProfileState::Used(p) => Some(p.describe()),
            ProfileState::Written(p) => Some(format!("measured by this run, {}", p.describe())),
        };
        if let Some(p) = profile {
            run.row(vec!["machine profile".into(), p]);
        }
        match &self.time {
            Some(t) => {
                let how = match (t.dilation, &t.wait) {
                    (Some(d), Some(w)) => format!(" (D = {d}), {w} waits"),
                    (Some(d), None) => format!(" (D up to {d})"),
                    (None, _) if t.exact => " (exact given its tie order)".into(),
                    (None, Some(w)) => format!(", {w} waits"),
                    (None, None) => String::new(),
                };
                let mode = if t.requested == t.mode {
                    t.mode.clone()
                } else {
                    format!("{} → {}", t.requested, t.mode)
                };
                run.row(vec!["time mode".into(), format!("{mode}{how}")]);
                if let Some(why) = &t.dilation_chosen {
                    run.row(vec!["dilation chosen".into(), why.clone()]);
                }
                run.row(vec!["compute charging".into(), t.compute_charging.clone()]);
            }
            None => {
                let what = match &self.analysed {
                    Some(w) => format!("none: an analysis of the measurements given ({w})"),
                    None => "none: the model alone".into(),
                };
                run.row(vec!["time mode".into(), what]);
            }
        }
        if let Some(f) = self.fidelity.as_ref().filter(|f| f.exact) {
            let _ = f;
            let ties = self.time.as_ref().map_or("index", |t| t.ties.as_str());
            run.row(vec![
                "fidelity".into(),
                format!(
                    "exact given the order of simultaneous events: events taken in emulated-time \
                     order by construction (virtual time), processors acting at one instant in \
                     {ties} order, one of several legal orders (--ties)"
                ),
            ]);
            if self.ties_looked_for {
                run.row(vec!["tie order".into(), tie_text(self.tie_spread.as_ref())]);
            }
        } else if let Some(f) = &self.fidelity {
            run.row(vec![
                "fidelity".into(),
                format!(
                    "{} of {} waits late by more than {} (emulated); mean lateness {}, largest {}",
                    f.late_waits,
                    f.waits,
                    human_ns(f.tolerance_ns as f64),
                    human_ns(f.mean_lateness_ns),
                    human_ns(f.max_lateness_ns as f64)
                ),
            ]);
            if let Some(c) = &f.cut_links {
                run.row(vec![
                    "across ranks".into(),
                    cut_links_text(c, f.tolerance_ns),
                ]);
            }
        }
        if let Some(b) = self.memory_plan_bytes {
            run.row(vec![
                "memory plan".into(),
                format!("{} (the memory model, before the run)", human_bytes(b)),
            ]);
        }
        if !self.files.is_empty() {
            run.row(vec!["files".into(), self.files.join(", ")]);
        }
        let mut blocks = vec![Block::Table(run)];
        if let Some(w) = self.host.profile.summary().and_then(|p| p.warning.clone()) {
            blocks.push(Block::Warning(w));
        }
        if let Some(w) = self.fidelity.as_ref().and_then(|f| f.warning.clone()) {
            blocks.push(Block::Warning(w));
        }
        blocks.extend(self.host_warnings.iter().cloned().map(Block::Warning));
        vec![
            Section::details("Inputs", vec![Block::Table(inputs)]),
            Section::details("Run", blocks),
        ]
    }
}

/// How real work was charged in runs that ran as `rans`, in words: measured charging times a
/// block on the clock its machine chose (monotonic natively, thread CPU time otherwise).
/// How `rans` charged real compute, in words; model charging names its costs' source,
/// `model_costs`.
fn charging(model_costs: &str, rans: &[&RunSpec]) -> String {
    let Some(first) = rans.first() else {
        return "none".into();
    };
    let charge = first.charging.charge();
    if rans.iter().any(|r| r.charging.charge() != charge) {
        return "mixed".into();
    }
    let clock = first.charging.clock();
    match charge {
        ComputeCharge::Measured if rans.iter().any(|r| r.charging.clock() != clock) => {
            "measured: monotonic (wall) time natively, thread CPU time otherwise".into()
        }
        ComputeCharge::Measured => match clock {
            WorkClock::Monotonic => "measured: monotonic (wall) time of each block".into(),
            WorkClock::ThreadCpu => "measured: thread CPU time".into(),
        },
        ComputeCharge::Model => format!("model: declared units × cost per unit ({model_costs})"),
    }
}

/// The spread over tie orders in words.
fn tie_text(spread: Option<&TieSpread>) -> String {
    let Some(s) = spread else {
        return "spread over other orders not measured (the runs are too long to repeat \
                cheaply): rerun with --ties reverse or --ties shuffle:1 to compare"
            .into();
    };
    let ranges: Vec<String> = s
        .ranges
        .iter()
        .map(|r| {
            let show = |v: f64| super::runs::value(r.name, v);
            let rel = 100.0 * (r.max - r.min) / r.min.abs();
            format!("{} {} to {} ({rel:.2} %)", r.name, show(r.min), show(r.max))
        })
        .collect();
    let verdict = if s.largest_relative() > 0.0 {
        "the figures depend on the order"
    } else {
        "the figures do not depend on the order"
    };
    format!(
        "over {}: {}; {verdict}",
        s.orders.join(", "),
        ranges.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_table(m: &Meta) -> Table {
        let run = m.sections().pop().unwrap();
        match &run.blocks[0] {
            Block::Table(t) => t.clone(),
            other => panic!("{other:?}"),
        }
    }

    fn row<'a>(t: &'a Table, name: &str) -> Option<&'a str> {
        t.rows.iter().find(|r| r[0] == name).map(|r| r[1].as_str())
    }

    #[test]
    fn the_run_table_has_a_header_and_names_only_the_profile_used() {
        let t = run_table(&Meta::new(
            "predict farm",
            Inputs::new(),
            ProfileUse::NotUsed,
        ));
        assert!(t.header.iter().all(|h| !h.is_empty()), "{:?}", t.header);
        assert_eq!(row(&t, "machine profile"), None);
        assert_eq!(row(&t, "time mode"), Some("none: the model alone"));
        // A fit of a table ran nothing either, but analysed measurements.
        let t = run_table(
            &Meta::new("fit farm", Inputs::new(), ProfileUse::NotUsed).analysing("--csv t.csv"),
        );
        assert_eq!(
            row(&t, "time mode"),
            Some("none: an analysis of the measurements given (--csv t.csv)")
        );
        let t = run_table(&Meta::new("farm", Inputs::new(), ProfileUse::Read(None)));
        assert!(
            row(&t, "machine profile")
                .unwrap()
                .starts_with("none (defaults used")
        );
    }

    #[test]
    fn a_real_measurement_says_it_ran_natively() {
        let m = Meta::new("pingpong", Inputs::new(), ProfileUse::NotUsed).native(Some("spin"));
        let t = run_table(&m);
        assert_eq!(row(&t, "time mode"), Some("native, spin waits"));
    }
}
