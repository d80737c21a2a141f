//! The one place where the time mode, the dilation, the wait strategy, the host's profile, the
//! compute charging and the link costs become a machine configuration
//! ([`MachinePlan::config`]).
//!
//! Commands build a [`MachinePlan`] from their flags; a workload adds its hints ([`Hints`]:
//! real-compute share, smallest cost, event rate, link capacity, units of work); the plan puts
//! both into a `MachineConfig`, and the runtime's `Machine` resolves it (the time mode `auto`,
//! a dilation chosen for fidelity, the wait strategy, the charging): the plan asks the machine
//! what it decided and never works it out itself. A new machine setting is a field here, set
//! in [`MachinePlan::new`] and copied in [`MachinePlan::config`].
//!
//! Model compute charging needs a cost per unit of declared work: `--unit-cost` first, then
//! the profile's (measured by `calibrate`), then the development host's reference costs, which
//! the report names as such.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::time::Duration;

use multicomputer_runtime::tuning::{DEFAULT_STACK_BYTES, DEFAULT_WAKE_CPU, DEFAULT_WAKEUP};
use multicomputer_runtime::{
    ComputeCharge, ConfigError, Hints, LinkCost, Machine, MachineConfig, MachineProfile, RunSpec,
    Switching, TieOrder, TimeMode, Topology, WaitStrategy, WorkCosts, WorkUnit,
};
use multicomputer_workloads::unit_costs::{
    REFERENCE_LOOP_ITERATION_NS, profile_over_reference, reference_unit_costs,
};

use super::budget::SLOT_BYTES;
use super::{ArgError, Inputs, TracePlan};
use crate::args::{
    ComputeArg, MAX_DILATION, MAX_DURATION, MessageArgs, ModeArg, SwitchingArg, TimeArgs,
    TransferArgs, WaitArg, check_unit_cost,
};

/// The default place of the machine profile.
pub(crate) fn default_profile_path(out: &Path) -> PathBuf {
    out.join("machine-profile.json")
}

/// The link costs of `--latency` and `--per-byte` (the rest free): what the models charge as
/// `T_τ` ([`LinkCost::transfer_s`]).
pub(crate) fn transfer_link(t: &TransferArgs) -> LinkCost {
    LinkCost {
        latency: t.latency,
        per_byte_ns: t.per_byte.as_nanos() as f64,
        switching: match t.switching {
            SwitchingArg::StoreAndForward => Switching::StoreAndForward,
            SwitchingArg::CutThrough => Switching::CutThrough,
        },
        ..LinkCost::default()
    }
}

/// A machine profile and where it came from.
#[derive(Debug, Clone)]
pub(crate) struct LoadedProfile {
    /// The file it was read from.
    pub(crate) path: PathBuf,
    /// The profile.
    pub(crate) profile: MachineProfile,
}

/// The machine profile to use: the one named (`--profile`, which must exist), else the
/// default one if it exists.
pub(crate) fn load_profile(
    named: Option<&Path>,
    out: &Path,
) -> Result<Option<LoadedProfile>, ArgError> {
    let (path, profile) = match named {
        Some(p) => (
            p.to_path_buf(),
            MachineProfile::load(p)
                .map_err(|e| ArgError::new(format!("--profile {}", p.display()), e))?,
        ),
        None => {
            let path = default_profile_path(out);
            match MachineProfile::load(&path) {
                Ok(profile) => (path, profile),
                Err(_) => return Ok(None),
            }
        }
    };
    check_profile(&profile).map_err(|e| {
        ArgError::new(
            "--profile",
            format!(
                "{}: {e}; measure this host again with `multicomputer calibrate`",
                path.display()
            ),
        )
    })?;
    Ok(Some(LoadedProfile { path, profile }))
}

/// A profile's values pass the limits the flags that stand for them have: costs per unit of
/// work as `--unit-cost`, every time at most an hour (`MAX_DURATION`), and the host's cores.
fn check_profile(p: &MachineProfile) -> Result<(), String> {
    for (unit, ns) in &p.unit_costs {
        check_unit_cost(unit, *ns)?;
    }
    let max_ns = MAX_DURATION.as_nanos() as f64;
    let link = p.link.as_ref();
    for (name, ns) in [
        (
            "link.alpha_ns (its size)",
            link.map_or(0.0, |l| l.alpha_ns.abs()),
        ),
        (
            "link.beta_ns_per_byte (its size)",
            link.map_or(0.0, |l| l.beta_ns_per_byte.abs()),
        ),
        ("clock_read_ns", p.clock_read_ns),
        ("cpu_time_read_ns", p.cpu_time_read_ns),
        ("message_spin_ns", p.message_spin_ns),
        ("message_parked_ns", p.message_parked_ns),
        ("wakeup_ns", p.wakeup_ns),
        ("wake_cpu_ns", p.wake_cpu_ns),
        ("loop_ns_per_iteration", p.loop_ns_per_iteration),
        ("coroutine_switch_ns", p.coroutine_switch_ns),
    ] {
        if !(ns.is_finite() && (0.0..=max_ns).contains(&ns)) {
            return Err(format!(
                "{name} = {ns:e} is not a number of ns in 0..=3.6e12 (one hour)"
            ));
        }
    }
    if p.cores == 0 {
        return Err("cores = 0".into());
    }
    Ok(())
}

/// `--dilation D`, checked: a number in `1..=`[`MAX_DILATION`].
pub(crate) fn dilation(d: f64) -> Result<f64, ArgError> {
    if d.is_finite() && (1.0..=MAX_DILATION).contains(&d) {
        Ok(d)
    } else {
        Err(ArgError::new(
            "--dilation",
            format!(
                "must be a number in 1..=1e6 (at 1e6 one second of emulated time takes 11.6 \
                 days), got {}",
                if d.abs() < 1e7 {
                    d.to_string()
                } else {
                    format!("{d:e}")
                }
            ),
        ))
    }
}

/// `--mode` and `--dilation` as a time mode; `--mode dilated` without `--dilation` asks the
/// machine to choose D for fidelity.
pub(crate) fn time_mode(mode: ModeArg, dilation_given: Option<f64>) -> Result<TimeMode, ArgError> {
    match (mode, dilation_given) {
        (ModeArg::Dilated, Some(d)) => Ok(TimeMode::Dilated(dilation(d)?)),
        (ModeArg::Dilated, None) => Ok(TimeMode::DilatedChosen),
        (_, Some(_)) => Err(ArgError::new(
            "--dilation",
            "is only used with --mode dilated",
        )),
        (ModeArg::Native, None) => Ok(TimeMode::Native),
        (ModeArg::Virtual, None) => Ok(TimeMode::Virtual),
        (ModeArg::Auto, None) => Ok(TimeMode::Auto),
    }
}

/// Refuses a flag that cannot apply to the time mode given: `--wait` in virtual time (no
/// processor waits for a real deadline there), `--stack-size` in native or dilated time
/// (threads' stacks are the system's; the flag sizes coroutines' stacks).
fn applicable(time: &TimeArgs) -> Result<(), ArgError> {
    if time.mode == ModeArg::Virtual && time.wait != WaitArg::Auto {
        return Err(ArgError::new(
            "--wait",
            "does not apply in virtual time (--mode virtual): no processor waits for a real \
             deadline there; leave it out, or use --mode native, dilated or auto",
        ));
    }
    if matches!(time.mode, ModeArg::Native | ModeArg::Dilated) && time.stack_size.is_some() {
        return Err(ArgError::new(
            "--stack-size",
            "sizes the stacks of virtual-time processors; native and dilated time run OS \
             threads with the system's stacks: leave it out, or use --mode virtual or auto",
        ));
    }
    Ok(())
}

/// The costs for model compute charging, where they came from, and the units the profile's
/// `calibrate` did not fit (charged 0 ns: [`profile_over_reference`]): `--unit-cost` over the
/// profile's over the reference costs of the development host; the degradation loop's from
/// the profile, else the reference.
pub(crate) fn work_costs(
    profile: Option<&MachineProfile>,
    given: &[(String, f64)],
) -> (WorkCosts, &'static str, Vec<WorkUnit>) {
    let mut costs = WorkCosts {
        ns_per_unit: reference_unit_costs(),
        loop_iteration_ns: REFERENCE_LOOP_ITERATION_NS,
    };
    let mut unfitted = Vec::new();
    let mut source = "reference costs of the development host (run `calibrate` for this host's)";
    if let Some(p) = profile {
        if !p.unit_costs.is_empty() {
            (costs.ns_per_unit, unfitted) = profile_over_reference(&p.unit_costs);
            source = "the machine profile";
        }
        costs.loop_iteration_ns = p.loop_ns_per_iteration;
    }
    if !given.is_empty() {
        costs.ns_per_unit.extend(given.iter().cloned());
        unfitted.retain(|u| given.iter().all(|(g, _)| g != u.name()));
        source = "--unit-cost, the rest from the profile or the reference costs";
    }
    (costs, source, unfitted)
}

impl From<WaitArg> for WaitStrategy {
    fn from(w: WaitArg) -> Self {
        match w {
            WaitArg::Spin => Self::Spin,
            WaitArg::Sleep => Self::Sleep,
            WaitArg::Hybrid => Self::Hybrid,
            WaitArg::Auto => Self::Auto,
        }
    }
}

/// How a machine is to be built, validated.
#[derive(Debug, Clone)]
pub(crate) struct MachinePlan {
    /// Native, dilated or auto.
    pub(crate) mode: TimeMode,
    /// How processors wait for deadlines.
    pub(crate) wait: WaitStrategy,
    /// The message system's costs.
    pub(crate) link: LinkCost,
    /// Whether [`Self::link`] is this host's own α and β from the profile
    /// ([`Self::host_links`]), not the flags'.
    pub(crate) link_from_profile: bool,
    /// Messages a link buffers (raised to a workload's minimum).
    pub(crate) capacity: usize,
    /// Record an event trace (for `--trace`, `--timeline`).
    pub(crate) trace: bool,
    /// Where a traced run spills its trace (`None`: the system's temporary folder).
    pub(crate) trace_dir: Option<PathBuf>,
    /// A timeline is drawn from the trace (`--timeline`), which holds it whole at once.
    pub(crate) timeline: bool,
    /// The host's profile, if any (its wake-up costs guide auto mode).
    pub(crate) profile: Option<LoadedProfile>,
    /// The flag to name when native mode has too few cores.
    pub(crate) native_flag: &'static str,
    /// The flag to name when the host cannot hold the machine's processors.
    pub(crate) size_flag: &'static str,
    /// In auto mode, ask for virtual time, so that every size of a scalability sweep is
    /// emulated alike (auto would run the small ones natively).
    pub(crate) emulate: bool,
    /// How real work is charged (`None`: model in virtual time, measured otherwise).
    pub(crate) compute: Option<ComputeCharge>,
    /// Costs per unit of declared work, where they came from, and the units the profile
    /// lacked ([`work_costs`]).
    pub(crate) work_costs: (WorkCosts, &'static str, Vec<WorkUnit>),
    /// Stack per processor in virtual time, bytes.
    pub(crate) stack_bytes: usize,
    /// The order of simultaneous events in virtual time (`--ties`).
    pub(crate) ties: TieOrder,
    /// Partitioned virtual time (`--partitions`).
    pub(crate) partitions: Option<NonZeroUsize>,
}

/// The flag behind a configuration the runtime refused: `native` where the processors
/// outnumber the cores, `size` where the host cannot hold the machine.
pub(crate) fn config_flag(
    e: &ConfigError,
    native: &'static str,
    size: &'static str,
) -> &'static str {
    match e {
        ConfigError::NotEnoughCores { .. } => native,
        ConfigError::BadDilation(_)
        | ConfigError::NoRankCrossing
        | ConfigError::FreeCutLinks { .. } => "--dilation",
        ConfigError::ZeroCapacity => "--capacity",
        ConfigError::BadPerByte(_) => "--per-byte",
        ConfigError::TooManyThreads { .. } | ConfigError::HostLimit { .. } => size,
        ConfigError::StackTooSmall { .. } => "--stack-size",
        ConfigError::BadUnitCost { .. } | ConfigError::UnknownUnit(_) => "--unit-cost",
        ConfigError::PartitionsNeedRanks { .. }
        | ConfigError::PartitionsNotRanks { .. }
        | ConfigError::TooManyPartitions { .. }
        | ConfigError::NoLookahead { .. } => "--partitions",
    }
}

impl MachinePlan {
    /// From `--mode`, `--dilation`, `--wait`, `--profile`, `--compute`, `--unit-cost` and
    /// `--stack-size`; no link costs yet.
    pub(crate) fn new(time: &TimeArgs, out: &Path) -> Result<Self, ArgError> {
        applicable(time)?;
        let mut plan = Self::from_parts(
            time_mode(time.mode, time.dilation)?,
            time.wait,
            time.profile.as_deref(),
            out,
        )?;
        plan.compute = time.compute.map(|c| match c {
            ComputeArg::Model => ComputeCharge::Model,
            ComputeArg::Measured => ComputeCharge::Measured,
        });
        plan.work_costs = work_costs(plan.profile.as_ref().map(|p| &p.profile), &time.unit_cost);
        plan.stack_bytes = time.stack_size.unwrap_or(DEFAULT_STACK_BYTES);
        plan.ties = time.ties;
        plan.partitions = time.partitions;
        Ok(plan)
    }

    /// From a resolved time mode, a wait strategy and a profile.
    pub(crate) fn from_parts(
        mode: TimeMode,
        wait: WaitArg,
        profile: Option<&Path>,
        out: &Path,
    ) -> Result<Self, ArgError> {
        let profile = load_profile(profile, out)?;
        Ok(Self {
            mode,
            wait: wait.into(),
            link: LinkCost::default(),
            link_from_profile: false,
            capacity: 2,
            trace: false,
            trace_dir: None,
            timeline: false,
            work_costs: work_costs(profile.as_ref().map(|p| &p.profile), &[]),
            profile,
            native_flag: "--mode native",
            size_flag: "--topology",
            emulate: false,
            compute: None,
            stack_bytes: DEFAULT_STACK_BYTES,
            ties: TieOrder::Index,
            partitions: None,
        })
    }

    /// With `--latency` and `--per-byte`.
    pub(crate) fn transfer(mut self, t: &TransferArgs) -> Self {
        let link = transfer_link(t);
        self.link.latency = link.latency;
        self.link.per_byte_ns = link.per_byte_ns;
        self.link.switching = link.switching;
        self
    }

    /// With `--send-overhead`, `--recv-overhead`, `--loop-count` and `--capacity`.
    pub(crate) fn messages(mut self, m: &MessageArgs) -> Self {
        self.link.send_overhead = m.send_overhead;
        self.link.recv_overhead = m.recv_overhead;
        self.link.loop_count = m.loop_count;
        self.capacity = usize::try_from(m.capacity).unwrap_or(usize::MAX);
        self
    }

    /// In native time (`--mode native`), links given no cost at all take this host's own
    /// cost of a message from the profile's link calibration (`calibrate`): `α` as the send
    /// overhead, `β` as the time per byte, so that the run and its model charge what a
    /// message costs here. The one place a run's link costs come from the profile. A fit's
    /// `α` or `β` below zero (noise about a line through the origin) counts as zero.
    pub(crate) fn host_links(&mut self) {
        let free = self.link
            == LinkCost {
                switching: self.link.switching,
                ..LinkCost::default()
            };
        let calibrated = self.profile.as_ref().and_then(|p| p.profile.link.as_ref());
        if let (true, TimeMode::Native, Some(link)) = (free, self.mode, calibrated) {
            self.link.send_overhead = Duration::from_nanos(link.alpha_ns.max(0.0).round() as u64);
            self.link.per_byte_ns = link.beta_ns_per_byte.max(0.0);
            self.link_from_profile = true;
        }
    }

    /// Recording the trace `plan` asks for, if any, spilled beside its file.
    pub(crate) fn tracing(mut self, plan: &TracePlan) -> Self {
        self.trace = plan.wanted();
        self.trace_dir = plan.spill_folder();
        self.timeline = plan.timeline.is_some();
        self
    }

    /// Whether the dilation was given (`--dilation`), so that a run too long names it.
    pub(crate) fn dilation_given(&self) -> bool {
        matches!(self.mode, TimeMode::Dilated(_))
    }

    /// How a machine on `topology` for a workload with `hints` would run, as the runtime
    /// resolves it (for plans made before the machine is built).
    pub(crate) fn spec(&self, topology: &Topology, hints: &Hints) -> Result<RunSpec, ArgError> {
        self.config(hints)
            .resolve(topology)
            .map_err(|e| self.config_error(&e))
    }

    /// Raises the links' capacity to what a workload's `hints` need, at plan time: the
    /// capacity its runs use (the machine raises it to the same) is then the plan's, in their
    /// inputs as in their machine.
    pub(crate) fn hold(&mut self, hints: &Hints) {
        self.capacity = self.capacity.max(hints.min_capacity);
    }

    /// One time mode for machines on all these topologies (a sweep's cells): if they would
    /// resolve to different modes (auto: the small ones native, the rest virtual), ask for
    /// virtual time for all, so that the cells are measured alike and none pays real time for
    /// what the others emulate. A mode asked for resolves alike anyway.
    pub(crate) fn one_mode_for<'a>(&mut self, topologies: impl IntoIterator<Item = &'a Topology>) {
        let modes: Vec<Option<&'static str>> = topologies
            .into_iter()
            .map(|t| self.spec(t, &Hints::default()).ok().map(|s| s.time.name()))
            .collect();
        if modes.windows(2).any(|w| w[0] != w[1]) {
            self.emulate = true;
        }
    }

    /// Bytes the links' buffers of a machine on `topology` take before the run: threads'
    /// channels are allocated whole (two directions per link, `capacity` messages each);
    /// virtual time's queues grow as messages come.
    pub(crate) fn channel_bytes(
        &self,
        topology: &Topology,
        hints: &Hints,
    ) -> Result<f64, ArgError> {
        let spec = self.spec(topology, hints)?;
        Ok(if spec.time.is_virtual() {
            0.0
        } else {
            2.0 * topology.links() as f64 * spec.capacity as f64 * SLOT_BYTES
        })
    }

    /// The machine configuration for a workload with `hints`.
    pub(crate) fn config(&self, hints: &Hints) -> MachineConfig {
        let p = self.profile.as_ref().map(|p| &p.profile);
        MachineConfig {
            mode: match self.mode {
                TimeMode::Auto if self.emulate => TimeMode::Virtual,
                mode => mode,
            },
            wait: self.wait,
            link: self.link,
            capacity: self.capacity,
            trace: self.trace,
            trace_dir: self.trace_dir.clone(),
            hints: hints.clone(),
            wakeup: p.map_or(DEFAULT_WAKEUP, MachineProfile::wakeup),
            wake_cpu: p.map_or(DEFAULT_WAKE_CPU, MachineProfile::wake_cpu),
            rank_one_way: p
                .and_then(|p| p.rank_crossing.as_ref())
                .map(|c| c.one_way()),
            compute: self.compute,
            work_costs: self.work_costs.0.clone(),
            stack_bytes: self.stack_bytes,
            ties: self.ties,
            partitions: self.partitions,
            ..MachineConfig::default()
        }
    }

    /// Names the flag behind a configuration the runtime refused.
    pub(crate) fn config_error(&self, e: &ConfigError) -> ArgError {
        ArgError::new(config_flag(e, self.native_flag, self.size_flag), e)
    }

    /// The machine on `topology` for a workload with `hints`.
    pub(crate) fn machine(&self, topology: Topology, hints: &Hints) -> Result<Machine, ArgError> {
        Machine::new(topology, self.config(hints)).map_err(|e| self.config_error(&e))
    }

    /// The time mode as asked for: `native`, `dilated (D = 4)`, `dilated (D chosen)`,
    /// `virtual` or `auto`.
    pub(crate) fn mode_name(&self) -> String {
        match self.mode {
            TimeMode::DilatedChosen => "dilated (D chosen for fidelity)".into(),
            TimeMode::Dilated(d) => format!("dilated (D = {d})"),
            m => m.name().into(),
        }
    }

    /// What to tell the user of a run that charged the units `declared` by the model, when
    /// its profile lacked some of them (written by an older `calibrate`, [`work_costs`]):
    /// which, what they were charged, and to run `calibrate` again.
    pub(crate) fn unfitted_warning(&self, declared: &[WorkUnit]) -> Option<String> {
        let missing: Vec<&str> = (self.work_costs.2.iter())
            .filter(|u| declared.contains(u))
            .map(|u| u.name())
            .collect();
        let path = self.profile.as_ref()?.path.display();
        (!missing.is_empty()).then(|| {
            let (them, its, are) = if missing.len() == 1 {
                ("it", "its", "it is")
            } else {
                ("them", "their", "they are")
            };
            format!(
                "the machine profile {path} has no cost for {}: the `calibrate` that wrote it \
                 fitted the other units of the same kernel without {them}, so they carry {its} \
                 cost, and {are} charged 0 ns; run `multicomputer calibrate` again to fit them \
                 all",
                missing.join(", ")
            )
        })
    }

    /// How real work will be charged, in words: `model (costs: …)` or `measured`.
    pub(crate) fn compute_name(&self) -> String {
        match self.compute {
            Some(ComputeCharge::Measured) => "measured (thread CPU time)".into(),
            Some(ComputeCharge::Model) => format!("model ({})", self.work_costs.1),
            None => format!(
                "model in virtual time ({}), else measured",
                self.work_costs.1
            ),
        }
    }

    /// The plan's inputs.
    pub(crate) fn inputs(&self) -> Inputs {
        let mut i = Inputs::new();
        i.add("mode", self.mode_name())
            .add("compute", self.compute_name())
            .add("wait", wait_name(self.wait))
            .duration("send-overhead", self.link.send_overhead)
            .duration("recv-overhead", self.link.recv_overhead)
            .duration("latency", self.link.latency)
            .add("per-byte", format!("{} ns", self.link.per_byte_ns))
            .add("switching", self.link.switching.name())
            .add("loop-count", self.link.loop_count)
            .add("capacity", self.capacity)
            .add("ties", self.ties)
            .add(
                "profile",
                self.profile
                    .as_ref()
                    .map_or("none (defaults)".into(), |p| p.path.display().to_string()),
            );
        if let Some(k) = self.partitions {
            i.add("partitions", k);
        }
        if self.link_from_profile {
            i.add(
                "link costs",
                "this host's α (as send-overhead) and β (as per-byte), from the profile's link \
                 calibration",
            );
        }
        i
    }
}

/// A wait strategy's name.
pub(crate) fn wait_name(w: WaitStrategy) -> &'static str {
    match w {
        WaitStrategy::Spin => "spin",
        WaitStrategy::Sleep => "sleep",
        WaitStrategy::Hybrid => "hybrid",
        WaitStrategy::Auto => "auto",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn native_free_links_take_the_hosts_calibrated_alpha_and_beta() {
        use multicomputer_runtime::{CalibrateOptions, LineFit, LinkCalibration, calibrate};
        let dir = tempfile::tempdir().unwrap();
        let mut profile = calibrate(CalibrateOptions { samples: 1 });
        let fit = LineFit {
            intercept: 1234.4,
            slope: 0.25,
            intercept_se: 10.0,
            slope_se: 0.01,
            residual_sd: 0.1,
        };
        profile.link = Some(LinkCalibration {
            alpha_ns: fit.intercept,
            beta_ns_per_byte: fit.slope,
            fit,
            points: Vec::new(),
            samples: 5,
        });
        let path = dir.path().join("machine-profile.json");
        profile.save(&path).unwrap();
        let plan = |mode| MachinePlan::from_parts(mode, WaitArg::Auto, Some(&path), dir.path());
        // Native, no link cost given: α (rounded to the ns) as the send overhead, β per byte.
        let mut native = plan(TimeMode::Native).unwrap();
        native.host_links();
        assert_eq!(native.link.send_overhead, Duration::from_nanos(1234));
        assert_eq!(native.link.per_byte_ns, 0.25);
        assert!(native.link_from_profile);
        assert!(
            native
                .inputs()
                .0
                .iter()
                .any(|(k, v)| k == "link costs" && v.contains("link calibration"))
        );
        // Virtual time, or a cost given by a flag: the flags' links, untouched.
        let mut emulated = plan(TimeMode::Virtual).unwrap();
        emulated.host_links();
        assert_eq!(emulated.link, LinkCost::default());
        let mut given = plan(TimeMode::Native).unwrap();
        given.link.latency = Duration::from_nanos(500);
        given.host_links();
        assert_eq!(given.link.send_overhead, Duration::ZERO);
        assert!(!given.link_from_profile);
        // A fit whose α came out below zero charges none.
        if let Some(l) = &mut profile.link {
            l.alpha_ns = -3.0;
        }
        profile.save(&path).unwrap();
        let mut negative = plan(TimeMode::Native).unwrap();
        negative.host_links();
        assert_eq!(negative.link.send_overhead, Duration::ZERO);
        assert_eq!(negative.link.per_byte_ns, 0.25);
    }

    #[test]
    fn mode_and_dilation_errors_name_their_flag() {
        assert_eq!(
            time_mode(ModeArg::Dilated, Some(2.0)),
            Ok(TimeMode::Dilated(2.0))
        );
        assert_eq!(time_mode(ModeArg::Auto, None), Ok(TimeMode::Auto));
        assert_eq!(
            time_mode(ModeArg::Dilated, None),
            Ok(TimeMode::DilatedChosen)
        );
        assert_eq!(time_mode(ModeArg::Virtual, None), Ok(TimeMode::Virtual));
        assert_eq!(
            time_mode(ModeArg::Dilated, Some(0.5)).unwrap_err().flag,
            "--dilation"
        );
        for huge in [1e308, f64::INFINITY, 1.000_001e6] {
            let e = time_mode(ModeArg::Dilated, Some(huge)).unwrap_err();
            assert!(e.message.contains("1..=1e6"), "{e}");
        }
        assert_eq!(
            time_mode(ModeArg::Dilated, Some(1e6)),
            Ok(TimeMode::Dilated(1e6))
        );
        assert_eq!(
            time_mode(ModeArg::Dilated, Some(f64::NAN))
                .unwrap_err()
                .flag,
            "--dilation"
        );
        assert_eq!(
            time_mode(ModeArg::Native, Some(2.0)).unwrap_err().flag,
            "--dilation"
        );
    }

    #[test]
    fn a_sweep_in_auto_mode_runs_every_size_in_one_mode() {
        let out = Path::new("/nonexistent-out");
        let plan = MachinePlan::from_parts(TimeMode::Auto, WaitArg::Auto, None, out).unwrap();
        let cores = multicomputer_runtime::host_cores();
        let chain = |p: usize| Topology::chain(p).unwrap();
        let virtual_time = |m: &MachinePlan, p: usize| {
            m.spec(&chain(p), &Hints::default())
                .unwrap()
                .time
                .is_virtual()
        };
        // Some sizes native, some not: all in virtual time.
        let mut mixed = plan.clone();
        mixed.one_mode_for(&[chain(1), chain(cores + 1)]);
        assert!(virtual_time(&mixed, 1) && virtual_time(&mixed, cores + 1));
        // All alike: nothing changes.
        let mut large = plan.clone();
        large.one_mode_for(&[chain(cores + 1), chain(cores + 2)]);
        assert!(!large.emulate);
        // A mode asked for is kept.
        let mut native =
            MachinePlan::from_parts(TimeMode::Native, WaitArg::Auto, None, out).unwrap();
        native.one_mode_for(&[chain(1), chain(cores)]);
        assert!(!native.emulate && !virtual_time(&native, 1));
    }

    #[test]
    fn hints_reach_the_config_and_the_machine_raises_the_capacity() {
        let plan = MachinePlan::from_parts(
            TimeMode::Auto,
            WaitArg::Sleep,
            None,
            Path::new("/nonexistent-out"),
        )
        .unwrap();
        let hints = Hints {
            compute_share: 1.0,
            smallest_cost: Some(std::time::Duration::from_micros(5)),
            events_per_s: Some(100.0),
            min_capacity: 7,
            units: Vec::new(),
        };
        let c = plan.config(&hints);
        assert_eq!(c.hints, hints);
        assert_eq!(c.wait, WaitStrategy::Sleep);
        assert_eq!(c.wakeup, DEFAULT_WAKEUP);
        // The machine raises the capacity to the workload's minimum.
        let chain = Topology::chain(2).unwrap();
        assert_eq!(plan.spec(&chain, &hints).unwrap().capacity, 7);
        assert_eq!(plan.spec(&chain, &Hints::default()).unwrap().capacity, 2);
    }
}
