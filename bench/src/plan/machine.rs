//! The one place where the time mode, the dilation, the wait strategy, the host's profile, the
//! compute charging and the link costs become a machine configuration
//! ([`MachinePlan::config`]).
//!
//! Commands build a [`MachinePlan`] from their flags; a workload adds its hints
//! ([`MachineHints`]: real-compute share, smallest cost, event rate, link capacity); the plan
//! resolves both into a `MachineConfig` and a `Machine`. A new time mode or a new machine
//! setting is a field here, set in [`MachinePlan::new`] and copied in [`MachinePlan::config`].
//!
//! Model compute charging needs a cost per unit of declared work: `--unit-cost` first, then
//! the profile's (measured by `calibrate`), then the development host's reference costs, which
//! the report names as such.

use std::path::{Path, PathBuf};

use multicomputer_runtime::{
    ComputeCharge, ConfigError, DEFAULT_STACK_BYTES, DEFAULT_WAKE_CPU, DEFAULT_WAKEUP, LinkCost,
    Machine, MachineConfig, MachineProfile, TieOrder, TimeMode, Topology, WaitStrategy, WorkCosts,
};
use multicomputer_workloads::hints::MachineHints;
use multicomputer_workloads::unit_costs::{REFERENCE_LOOP_ITERATION_NS, reference_unit_costs};

use super::budget::SLOT_BYTES;
use super::{ArgError, Inputs};
use crate::args::{
    ComputeArg, MAX_DILATION, MessageArgs, ModeArg, TimeArgs, TransferArgs, WaitArg,
};

/// The default place of the machine profile.
pub(crate) fn default_profile_path(out: &Path) -> PathBuf {
    out.join("machine-profile.json")
}

/// `--latency + --per-byte × bytes`, seconds: the overlapped transfer time the models
/// charge as `T_τ` for a message of `bytes` bytes.
pub(crate) fn transfer_s(t: &TransferArgs, bytes: u64) -> f64 {
    t.latency.as_secs_f64() + t.per_byte.as_secs_f64() * bytes as f64
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
    match named {
        Some(p) => MachineProfile::load(p)
            .map(|profile| {
                Some(LoadedProfile {
                    path: p.to_path_buf(),
                    profile,
                })
            })
            .map_err(|e| ArgError::new(format!("--profile {}", p.display()), e)),
        None => {
            let path = default_profile_path(out);
            Ok(MachineProfile::load(&path)
                .ok()
                .map(|profile| LoadedProfile { path, profile }))
        }
    }
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

/// `--mode` and `--dilation` as a time mode; `--mode dilated` without `--dilation` is
/// `Dilated(0.0)`, which [`MachinePlan::machine`] replaces by the D chosen for fidelity.
pub(crate) fn time_mode(mode: ModeArg, dilation_given: Option<f64>) -> Result<TimeMode, ArgError> {
    match (mode, dilation_given) {
        (ModeArg::Dilated, Some(d)) => Ok(TimeMode::Dilated(dilation(d)?)),
        (ModeArg::Dilated, None) => Ok(TimeMode::Dilated(CHOOSE_DILATION)),
        (_, Some(_)) => Err(ArgError::new(
            "--dilation",
            "is only used with --mode dilated",
        )),
        (ModeArg::Native, None) => Ok(TimeMode::Native),
        (ModeArg::Virtual, None) => Ok(TimeMode::Virtual),
        (ModeArg::Auto, None) => Ok(TimeMode::Auto),
    }
}

/// The dilation of `--mode dilated` without `--dilation`: chosen per machine for fidelity.
const CHOOSE_DILATION: f64 = 0.0;

/// The costs for model compute charging, and where they came from: `--unit-cost` over the
/// profile's over the reference costs of the development host; the degradation loop's from
/// the profile, else the reference.
pub(crate) fn work_costs(
    profile: Option<&MachineProfile>,
    given: &[(String, f64)],
) -> (WorkCosts, &'static str) {
    let mut costs = WorkCosts {
        ns_per_unit: reference_unit_costs(),
        loop_iteration_ns: REFERENCE_LOOP_ITERATION_NS,
    };
    let mut source = "reference costs of the development host (run `calibrate` for this host's)";
    if let Some(p) = profile {
        if !p.unit_costs.is_empty() {
            costs.ns_per_unit.extend(p.unit_costs.clone());
            source = "the machine profile";
        }
        costs.loop_iteration_ns = p.loop_ns_per_iteration;
    }
    if !given.is_empty() {
        costs.ns_per_unit.extend(given.iter().cloned());
        source = "--unit-cost, the rest from the profile or the reference costs";
    }
    (costs, source)
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
    /// Messages a link buffers (raised to a workload's minimum).
    pub(crate) capacity: usize,
    /// Record an event trace (for `--trace`, `--timeline`).
    pub(crate) trace: bool,
    /// The host's profile, if any (its wake-up costs guide auto mode).
    pub(crate) profile: Option<LoadedProfile>,
    /// The flag to name when native mode has too few cores.
    pub(crate) native_flag: &'static str,
    /// The flag to name when the host cannot hold the machine's processors.
    pub(crate) size_flag: &'static str,
    /// In auto mode, emulate (in virtual time) even when the processors leave a core free,
    /// so that every size of a scalability sweep is emulated alike.
    pub(crate) always_dilate: bool,
    /// How real work is charged (`None`: model in virtual time, measured otherwise).
    pub(crate) compute: Option<ComputeCharge>,
    /// Costs per unit of declared work, and where they came from.
    pub(crate) work_costs: (WorkCosts, &'static str),
    /// Stack per processor in virtual time, bytes.
    pub(crate) stack_bytes: usize,
    /// The order of simultaneous events in virtual time (`--ties`).
    pub(crate) ties: TieOrder,
}

impl MachinePlan {
    /// From `--mode`, `--dilation`, `--wait`, `--profile`, `--compute`, `--unit-cost` and
    /// `--stack-size`; no link costs yet.
    pub(crate) fn new(time: &TimeArgs, out: &Path) -> Result<Self, ArgError> {
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
            capacity: 2,
            trace: false,
            work_costs: work_costs(profile.as_ref().map(|p| &p.profile), &[]),
            profile,
            native_flag: "--mode native",
            size_flag: "--topology",
            always_dilate: false,
            compute: None,
            stack_bytes: DEFAULT_STACK_BYTES,
            ties: TieOrder::Index,
        })
    }

    /// With `--latency` and `--per-byte`.
    pub(crate) fn transfer(mut self, t: &TransferArgs) -> Self {
        self.link.latency = t.latency;
        self.link.per_byte_ns = t.per_byte.as_nanos() as f64;
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

    /// Recording a trace or not.
    pub(crate) fn tracing(mut self, on: bool) -> Self {
        self.trace = on;
        self
    }

    /// Whether the dilation was given (`--dilation`), so that a run too long names it.
    pub(crate) fn dilation_given(&self) -> bool {
        matches!(self.mode, TimeMode::Dilated(d) if d != CHOOSE_DILATION)
    }

    /// Whether a machine on `processors` will run on OS threads (native or dilated time; auto
    /// mode runs natively when a core is left for the host).
    pub(crate) fn threads(&self, processors: usize) -> bool {
        match self.mode {
            TimeMode::Virtual => false,
            TimeMode::Auto => {
                !self.always_dilate
                    && processors < std::thread::available_parallelism().map_or(1, |c| c.get())
            }
            _ => true,
        }
    }

    /// One time mode for machines of all these sizes (a sweep's cells): auto mode that would
    /// run some natively and others in virtual time runs them all in virtual time, so that
    /// the cells are measured alike and none pays real time for what the others emulate.
    pub(crate) fn one_mode_for(&mut self, processors: impl IntoIterator<Item = usize>) {
        if self.mode != TimeMode::Auto {
            return;
        }
        let on_threads: Vec<bool> = processors.into_iter().map(|p| self.threads(p)).collect();
        if on_threads.contains(&true) && on_threads.contains(&false) {
            self.mode = TimeMode::Virtual;
        }
    }

    /// Bytes the links' buffers of a machine on `topology` take before the run: threads'
    /// channels are allocated whole (two directions per link, `capacity` messages each);
    /// virtual time's queues grow as messages come.
    pub(crate) fn channel_bytes(&self, topology: &Topology) -> f64 {
        if self.threads(topology.len()) {
            2.0 * topology.links() as f64 * self.capacity as f64 * SLOT_BYTES
        } else {
            0.0
        }
    }

    /// Overlapped transfer time of a message of `bytes` bytes, seconds: what the models
    /// charge as `T_τ`.
    pub(crate) fn transfer_s(&self, bytes: u64) -> f64 {
        self.link.latency.as_secs_f64() + self.link.per_byte_ns * 1e-9 * bytes as f64
    }

    /// Raises the links' capacity to what a workload's `hints` need, at plan time: the
    /// capacity its runs use is then the plan's, in their inputs and memory plan as in their
    /// machine.
    pub(crate) fn hold(&mut self, hints: &MachineHints) {
        self.capacity = self.capacity.max(hints.min_capacity);
    }

    /// The machine configuration for a workload with `hints`.
    pub(crate) fn config(&self, hints: &MachineHints) -> MachineConfig {
        let p = self.profile.as_ref().map(|p| &p.profile);
        MachineConfig {
            mode: self.mode,
            wait: self.wait,
            link: self.link,
            capacity: self.capacity.max(hints.min_capacity),
            trace: self.trace,
            compute_share: hints.compute_share,
            smallest_cost: hints.smallest_cost,
            events_per_s: hints.events_per_s,
            wakeup: p.map_or(DEFAULT_WAKEUP, MachineProfile::wakeup),
            wake_cpu: p.map_or(DEFAULT_WAKE_CPU, MachineProfile::wake_cpu),
            compute: self.compute,
            work_costs: self.work_costs.0.clone(),
            stack_bytes: self.stack_bytes,
            ties: self.ties,
            ..MachineConfig::default()
        }
    }

    /// Names the flag behind a configuration the runtime refused.
    pub(crate) fn config_error(&self, e: &ConfigError) -> ArgError {
        let flag = match e {
            ConfigError::NotEnoughCores { .. } => self.native_flag,
            ConfigError::BadDilation(_) => "--dilation",
            ConfigError::ZeroCapacity => "--capacity",
            ConfigError::BadPerByte(_) => "--per-byte",
            ConfigError::TooManyThreads { .. } | ConfigError::HostLimit { .. } => self.size_flag,
            ConfigError::StackTooSmall { .. } => "--stack-size",
            ConfigError::BadUnitCost { .. } => "--unit-cost",
        };
        ArgError::new(flag, e)
    }

    /// The machine on `topology` for a workload with `hints`.
    pub(crate) fn machine(
        &self,
        topology: Topology,
        hints: &MachineHints,
    ) -> Result<Machine, ArgError> {
        let mut config = self.config(hints);
        if config.mode == TimeMode::Dilated(CHOOSE_DILATION) {
            config.mode = TimeMode::Dilated(Machine::suggested_dilation(&topology, &config));
        }
        let machine =
            Machine::new(topology.clone(), config.clone()).map_err(|e| self.config_error(&e))?;
        if !(self.always_dilate && machine.is_native() && self.mode == TimeMode::Auto) {
            return Ok(machine);
        }
        // Auto chose native (a core was left for the host): emulate as it would with more.
        let config = MachineConfig {
            mode: TimeMode::Virtual,
            ..config
        };
        Machine::new(topology, config).map_err(|e| self.config_error(&e))
    }

    /// The time mode as asked for: `native`, `dilated (D = 4)`, `dilated (D chosen)`,
    /// `virtual` or `auto`.
    pub(crate) fn mode_name(&self) -> String {
        match self.mode {
            TimeMode::Dilated(CHOOSE_DILATION) => "dilated (D chosen for fidelity)".into(),
            TimeMode::Dilated(d) => format!("dilated (D = {d})"),
            m => m.name().into(),
        }
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
            .add("loop-count", self.link.loop_count)
            .add("capacity", self.capacity)
            .add("ties", self.ties)
            .add(
                "profile",
                self.profile
                    .as_ref()
                    .map_or("none (defaults)".into(), |p| p.path.display().to_string()),
            );
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
    fn mode_and_dilation_errors_name_their_flag() {
        assert_eq!(
            time_mode(ModeArg::Dilated, Some(2.0)),
            Ok(TimeMode::Dilated(2.0))
        );
        assert_eq!(time_mode(ModeArg::Auto, None), Ok(TimeMode::Auto));
        assert_eq!(
            time_mode(ModeArg::Dilated, None),
            Ok(TimeMode::Dilated(CHOOSE_DILATION))
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
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        // Some sizes native, some not: all in virtual time.
        let mut mixed = plan.clone();
        mixed.one_mode_for([1, cores + 1]);
        assert_eq!(mixed.mode, TimeMode::Virtual);
        // All emulated: auto stays (it resolves to virtual time for each).
        let mut large = plan.clone();
        large.one_mode_for([cores + 1, cores + 2]);
        assert_eq!(large.mode, TimeMode::Auto);
        // A mode asked for is kept.
        let mut native =
            MachinePlan::from_parts(TimeMode::Native, WaitArg::Auto, None, out).unwrap();
        native.one_mode_for([1, cores + 1]);
        assert_eq!(native.mode, TimeMode::Native);
    }

    #[test]
    fn hints_raise_the_capacity_and_reach_the_config() {
        let plan = MachinePlan::from_parts(
            TimeMode::Auto,
            WaitArg::Sleep,
            None,
            Path::new("/nonexistent-out"),
        )
        .unwrap();
        let hints = MachineHints {
            compute_share: 1.0,
            smallest_cost: Some(std::time::Duration::from_micros(5)),
            events_per_s: Some(100.0),
            min_capacity: 7,
        };
        let c = plan.config(&hints);
        assert_eq!(c.capacity, 7);
        assert_eq!(c.compute_share, 1.0);
        assert_eq!(c.events_per_s, Some(100.0));
        assert_eq!(c.wait, WaitStrategy::Sleep);
        assert_eq!(c.wakeup, DEFAULT_WAKEUP);
        assert_eq!(plan.config(&MachineHints::default()).capacity, 2);
    }
}
