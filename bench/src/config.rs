//! Validation of command-line arguments into runtime configurations (the "high-level" side:
//! every check that clap cannot do alone, with errors that name the argument).

use std::path::Path;
use std::time::Duration;

use multicomputer_runtime::{
    ComputeCharge, DEFAULT_STACK_BYTES, DEFAULT_WAKE_CPU, DEFAULT_WAKEUP, LinkCost, Machine,
    MachineConfig, MachineProfile, TimeMode, WaitStrategy, WorkCosts,
};
use multicomputer_workloads::unit_costs::{REFERENCE_LOOP_ITERATION_NS, reference_unit_costs};

use crate::UsageError;
use crate::cli::{ComputeArg, MachineArgs, ModeArg, WaitArg};
use crate::commands::calibrate::default_profile_path;

/// The machine profile to use: the one named, else the default one if it exists.
pub(crate) fn load_profile(
    named: Option<&Path>,
    out: &Path,
) -> Result<Option<MachineProfile>, UsageError> {
    match named {
        Some(p) => MachineProfile::load(p)
            .map(Some)
            .map_err(|e| UsageError(format!("--profile {}: {e}", p.display()))),
        None => Ok(MachineProfile::load(&default_profile_path(out)).ok()),
    }
}

/// The host's wake-up latency and CPU time per wake-up for `auto` mode: the profile's, else
/// the defaults.
pub(crate) fn wake_costs(profile: Option<&MachineProfile>) -> (Duration, Duration) {
    (
        profile.map_or(DEFAULT_WAKEUP, MachineProfile::wakeup),
        profile.map_or(DEFAULT_WAKE_CPU, MachineProfile::wake_cpu),
    )
}

/// Overlapped transfer time of a message of `bytes` bytes with these link costs, in seconds.
pub(crate) fn transfer_s(args: &MachineArgs, bytes: u64) -> f64 {
    args.latency.as_secs_f64() + args.per_byte.as_secs_f64() * bytes as f64
}

/// Builds a machine for the tree engine: links must buffer a processor's whole flood-fill
/// window (queue + a request + a no-more), so the capacity is raised to `queue + 2` if lower.
pub(crate) fn machine_for_engine(
    args: &MachineArgs,
    out: &Path,
    queue: usize,
    compute_share: f64,
    smallest_cost: Option<Duration>,
    events_per_s: Option<f64>,
) -> Result<Machine, UsageError> {
    build(
        args,
        out,
        compute_share,
        smallest_cost,
        queue + 2,
        events_per_s,
    )
}

/// Expected wake-ups per emulated second of the tree engine, from a model's prediction: a
/// piece executed on level i of N has crossed N − i links, and each crossing costs three
/// messages (request, task, result), plus one deadline for its execution. `pieces_per_task[i]`
/// is how many pieces a task's share on level i + 1 is cut into (1 for a farm, k^{N−i} for
/// divide and conquer).
pub(crate) fn engine_events_per_s(
    throughput_per_s: f64,
    fractions_by_level: &[f64],
    pieces_per_task: impl Fn(usize) -> f64,
) -> Option<f64> {
    let n = fractions_by_level.len();
    let per_task: f64 = fractions_by_level
        .iter()
        .enumerate()
        .map(|(i, f)| f * pieces_per_task(i) * (1.0 + 3.0 * (n - 1 - i) as f64))
        .sum();
    let rate = throughput_per_s * per_task;
    (rate.is_finite() && rate > 0.0).then_some(rate)
}

/// The smallest non-zero duration among `costs`.
pub(crate) fn smallest_nonzero(costs: &[Duration]) -> Option<Duration> {
    costs.iter().copied().filter(|d| !d.is_zero()).min()
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

/// Builds a machine from validated arguments.
pub(crate) fn machine(
    args: &MachineArgs,
    out: &Path,
    compute_share: f64,
    smallest_cost: Option<Duration>,
) -> Result<Machine, UsageError> {
    build(args, out, compute_share, smallest_cost, 1, None)
}

/// Builds a machine from validated arguments with everything `auto` mode can use: the
/// compute share, the smallest program cost, a minimum link capacity and the expected wake-up
/// rate.
pub(crate) fn build(
    args: &MachineArgs,
    out: &Path,
    compute_share: f64,
    smallest_cost: Option<Duration>,
    min_capacity: usize,
    events_per_s: Option<f64>,
) -> Result<Machine, UsageError> {
    let mode = match (args.time.mode, args.time.dilation) {
        (ModeArg::Dilated, Some(d)) if d.is_finite() && d >= 1.0 => TimeMode::Dilated(d),
        (ModeArg::Dilated, Some(d)) => {
            return Err(UsageError(format!(
                "--dilation must be a number ≥ 1, got {d}"
            )));
        }
        // Dilated without a factor: the one chosen for fidelity, worked out below.
        (ModeArg::Dilated, None) => TimeMode::Dilated(0.0),
        (_, Some(_)) => {
            return Err(UsageError(
                "--dilation is only used with --mode dilated".into(),
            ));
        }
        (ModeArg::Native, None) => TimeMode::Native,
        (ModeArg::Virtual, None) => TimeMode::Virtual,
        (ModeArg::Auto, None) => TimeMode::Auto,
    };
    let wait = WaitStrategy::from(args.time.wait);
    let profile = load_profile(args.profile.as_deref(), out)?;
    let (wakeup, wake_cpu) = wake_costs(profile.as_ref());
    let link = LinkCost {
        send_overhead: args.send_overhead,
        recv_overhead: args.recv_overhead,
        latency: args.latency,
        per_byte_ns: args.per_byte.as_nanos() as f64,
        loop_count: args.loop_count,
    };
    let config = MachineConfig {
        mode,
        wait,
        link,
        capacity: usize::try_from(args.capacity)
            .unwrap_or(usize::MAX)
            .max(min_capacity),
        trace: args.trace.is_some() || args.timeline.is_some(),
        compute_share,
        smallest_cost,
        events_per_s,
        wakeup,
        wake_cpu,
        compute: args.time.compute.map(|c| match c {
            ComputeArg::Model => ComputeCharge::Model,
            ComputeArg::Measured => ComputeCharge::Measured,
        }),
        work_costs: work_costs(profile.as_ref(), &args.time.unit_cost),
        stack_bytes: args.time.stack_size.unwrap_or(DEFAULT_STACK_BYTES),
        ..MachineConfig::default()
    };
    let config = match config.mode {
        TimeMode::Dilated(0.0) => MachineConfig {
            mode: TimeMode::Dilated(Machine::suggested_dilation(&args.topology, &config)),
            ..config
        },
        _ => config,
    };
    Machine::new(args.topology.clone(), config).map_err(|e| {
        use multicomputer_runtime::ConfigError as E;
        let arg = match e {
            E::NotEnoughCores { .. } => "--mode native",
            E::BadDilation(_) => "--dilation",
            E::ZeroCapacity => "--capacity",
            E::BadPerByte(_) => "--per-byte",
            E::TooManyThreads { .. } | E::HostLimit { .. } => "--topology",
            E::StackTooSmall { .. } => "--stack-size",
            E::BadUnitCost { .. } => "--unit-cost",
        };
        UsageError(format!("{arg}: {e}"))
    })
}

/// The costs for model compute charging: `--unit-cost` over the profile's over the reference
/// costs of the development host; the degradation loop's from the profile, else the reference.
pub(crate) fn work_costs(profile: Option<&MachineProfile>, given: &[(String, f64)]) -> WorkCosts {
    let mut costs = WorkCosts {
        ns_per_unit: reference_unit_costs(),
        loop_iteration_ns: REFERENCE_LOOP_ITERATION_NS,
    };
    if let Some(p) = profile {
        costs.ns_per_unit.extend(p.unit_costs.clone());
        costs.loop_iteration_ns = p.loop_ns_per_iteration;
    }
    costs.ns_per_unit.extend(given.iter().cloned());
    costs
}

/// Writes a run's trace where the arguments ask: Chrome trace-event JSON (`--trace`) and an SVG
/// timeline (`--timeline`), both atomically.
pub(crate) fn write_trace_files(
    args: &MachineArgs,
    trace: Option<&multicomputer_runtime::Trace>,
    processors: usize,
) -> anyhow::Result<()> {
    let Some(trace) = trace else { return Ok(()) };
    if let Some(path) = &args.trace {
        let mut buf = Vec::new();
        trace.write_chrome_json(&mut buf, processors)?;
        crate::output::write_atomic(path, &buf)?;
    }
    if let Some(path) = &args.timeline {
        let title = format!("{} — emulated time (s)", args.topology);
        write_timeline(path, trace, processors, &title)?;
    }
    Ok(())
}

/// Draws a run's processor timeline (compute, communication, idle) as an SVG, atomically.
pub(crate) fn write_timeline(
    path: &Path,
    trace: &multicomputer_runtime::Trace,
    processors: usize,
    title: &str,
) -> anyhow::Result<()> {
    let intervals: Vec<(usize, f64, f64, &str)> = trace
        .events
        .iter()
        .map(|e| {
            let kind = match e.activity {
                multicomputer_runtime::Activity::Compute => "compute",
                multicomputer_runtime::Activity::Communication => "communication",
                multicomputer_runtime::Activity::Idle => "idle",
            };
            let start = e.start_ns as f64 / 1e9;
            (e.processor, start, start + e.duration_ns as f64 / 1e9, kind)
        })
        .collect();
    let height = (80 + 22 * processors as u32).clamp(240, 4000);
    let svg = crate::plot::timeline_svg(title, processors, &intervals, 1200, height)?;
    crate::output::write_atomic(path, svg.as_bytes())
}
