//! `multicomputer ising`: one run of the scalability paper's *ising* program (§5) on the
//! emulated multicomputer, under the centralized (hot spot) or the tree control mechanism.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Result;
use clap::{Args, ValueEnum};
use multicomputer_runtime::{Fidelity, Machine, MachineConfig, TimeMode};
use multicomputer_workloads::ising::{
    Dimension, Estimate, IsingConfig, Mechanism, ParallelRun, Start, Workload, exact, run_parallel,
    run_sample, run_sequential,
};
use serde::Serialize;

use crate::UsageError;
use crate::cli::{MachineArgs, ModeArg, TimeArgs, parse_duration};
use crate::config;
use crate::output::{human_ns, print_json, table};

/// Lattice dimension on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum DimensionArg {
    /// Square lattice L×L (exact solution known: Onsager).
    #[value(name = "2")]
    Two,
    /// Simple cubic lattice L×L×L (the paper's (x, y, z)).
    #[value(name = "3")]
    Three,
}

/// Initial state of each sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum StartArg {
    /// All spins up.
    Cold,
    /// Random spins.
    Hot,
}

/// Control mechanism on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum MechanismArg {
    /// All distribution and collection through processor 0, one control message per sample
    /// (the paper's PCM: a hot spot).
    Centralized,
    /// Broadcast down a binomial tree, reduction up it (the paper's MCM).
    Tree,
}

impl MechanismArg {
    pub(crate) fn mechanism(self) -> Mechanism {
        match self {
            MechanismArg::Centralized => Mechanism::Centralized,
            MechanismArg::Tree => Mechanism::Tree,
        }
    }
}

/// The physics of one sample: lattice, temperature, sweeps, seed.
#[derive(Debug, Clone, Args)]
pub(crate) struct LatticeArgs {
    /// Lattice dimension (2 for validation against the exact solution, 3 as in the paper).
    #[arg(long, value_enum, default_value_t = DimensionArg::Three)]
    pub(crate) dimension: DimensionArg,
    /// Linear size L of the periodic lattice (L^d spins).
    #[arg(long, short = 'L', default_value_t = 8)]
    pub(crate) size: usize,
    /// Temperature T in units of J/k_B (T_c ≈ 2.269 in 2D, ≈ 4.512 in 3D).
    #[arg(long, default_value_t = 4.0, allow_hyphen_values = true)]
    pub(crate) temperature: f64,
    /// Sweeps per sample before measuring.
    #[arg(long, default_value_t = 20)]
    pub(crate) thermalisation: u32,
    /// Measured sweeps per sample.
    #[arg(long, default_value_t = 20)]
    pub(crate) sweeps: u32,
    /// Seed of every sample's random stream.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Initial state of each sample.
    #[arg(long, value_enum, default_value_t = StartArg::Cold)]
    pub(crate) start: StartArg,
}

impl LatticeArgs {
    /// The validated configuration; errors name the argument.
    pub(crate) fn config(&self) -> Result<IsingConfig, UsageError> {
        let dimension = match self.dimension {
            DimensionArg::Two => Dimension::Two,
            DimensionArg::Three => Dimension::Three,
        };
        let config = IsingConfig {
            dimension,
            size: self.size,
            temperature: self.temperature,
            thermalisation_sweeps: self.thermalisation,
            measurement_sweeps: self.sweeps,
            seed: self.seed,
            start: match self.start {
                StartArg::Cold => Start::Cold,
                StartArg::Hot => Start::Hot,
            },
        };
        config.validate().map_err(|e| {
            let arg = match e {
                multicomputer_workloads::ising::IsingError::BadTemperature(_) => "--temperature",
                multicomputer_workloads::ising::IsingError::ZeroMeasurementSweeps => "--sweeps",
                _ => "--size",
            };
            UsageError(format!("{arg}: {e}"))
        })?;
        Ok(config)
    }
}

/// The emulated message system and clock of an Ising run (the topology follows from the
/// mechanism and the number of processors).
#[derive(Debug, Clone, Args)]
pub(crate) struct MessageSystemArgs {
    #[command(flatten)]
    pub(crate) time: TimeArgs,
    /// Start-up cost of every message, charged to the sender, besides its busy loop (by
    /// default a message costs only its loop_count iterations, nothing at loop_count 0).
    #[arg(long, value_parser = parse_duration, default_value = "0s", value_name = "DURATION")]
    pub(crate) send_overhead: Duration,
    /// Overlapped transfer time per byte.
    #[arg(long, value_parser = parse_duration, default_value = "0s", value_name = "DURATION")]
    pub(crate) per_byte: Duration,
    /// Machine profile from `calibrate` [default: <out>/machine-profile.json if it exists].
    #[arg(long, value_name = "FILE")]
    pub(crate) profile: Option<PathBuf>,
}

impl MessageSystemArgs {
    /// The machine arguments of one run: this message system with `loop_count` on the
    /// mechanism's topology of `processors`.
    pub(crate) fn machine_args(
        &self,
        mechanism: Mechanism,
        processors: usize,
        loop_count: u64,
    ) -> Result<MachineArgs, UsageError> {
        let topology = mechanism
            .topology(processors)
            .map_err(|e| UsageError(format!("--processors: {e}")))?;
        Ok(MachineArgs {
            topology,
            time: self.time.clone(),
            send_overhead: self.send_overhead,
            recv_overhead: Duration::ZERO,
            per_byte: self.per_byte,
            latency: Duration::ZERO,
            loop_count,
            capacity: 2,
            trace: None,
            timeline: None,
            profile: self.profile.clone(),
        })
    }
}

/// `multicomputer ising`.
#[derive(Debug, Clone, Args)]
pub(crate) struct IsingArgs {
    #[command(flatten)]
    pub(crate) lattice: LatticeArgs,
    /// Processors P.
    #[arg(long, short = 'P', default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=16384))]
    pub(crate) processors: u32,
    /// Control mechanism.
    #[arg(long, value_enum, default_value_t = MechanismArg::Tree)]
    pub(crate) mechanism: MechanismArg,
    /// Busy-loop iterations per message send (degrades the message system, as the paper).
    #[arg(long, default_value_t = 0)]
    pub(crate) loop_count: u64,
    /// Scaled workload (the paper's): this many samples per processor, work ∝ P.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) samples_per_processor: u64,
    /// Fixed workload (strong scaling): this many samples in all, whatever P.
    #[arg(long, conflicts_with = "samples_per_processor", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) samples: Option<u64>,
    #[command(flatten)]
    pub(crate) messages: MessageSystemArgs,
    /// Also run the sequential reference and check the result bit for bit.
    #[arg(long)]
    pub(crate) verify: bool,
    /// Write the run's processor timeline as Chrome trace-event JSON.
    #[arg(long, value_name = "FILE")]
    pub(crate) trace: Option<PathBuf>,
    /// Draw the run's processor timeline as an SVG.
    #[arg(long, value_name = "FILE")]
    pub(crate) timeline: Option<PathBuf>,
    /// Print one JSON object on stdout instead of tables.
    #[arg(long)]
    pub(crate) json: bool,
}

impl IsingArgs {
    fn workload(&self) -> Workload {
        match self.samples {
            Some(samples) => Workload::Fixed { samples },
            None => Workload::Scaled {
                samples_per_processor: self.samples_per_processor,
            },
        }
    }
}

/// Exact values of the infinite square lattice at the run's temperature (Onsager).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ExactValues {
    pub(crate) abs_magnetisation: f64,
    pub(crate) energy: f64,
}

/// What `ising --json` prints.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct IsingReport {
    pub(crate) mechanism: Mechanism,
    pub(crate) processors: usize,
    pub(crate) dimension: Dimension,
    pub(crate) size: usize,
    pub(crate) temperature: f64,
    pub(crate) critical_temperature: f64,
    pub(crate) thermalisation_sweeps: u32,
    pub(crate) measurement_sweeps: u32,
    pub(crate) workload: Workload,
    pub(crate) samples: u64,
    pub(crate) loop_count: u64,
    /// The emulated makespan T.
    pub(crate) run_time_s: f64,
    /// ⟨|m|⟩ per spin.
    pub(crate) abs_magnetisation: Estimate,
    /// ⟨m⟩ per spin.
    pub(crate) magnetisation: Estimate,
    /// ⟨e⟩ per spin.
    pub(crate) energy: Estimate,
    /// 2D only: Onsager's exact values (infinite lattice).
    pub(crate) exact_2d: Option<ExactValues>,
    pub(crate) acceptance_ratio: f64,
    pub(crate) delta_magnetisation: i64,
    /// Messages sent by all processors, and by processor 0 alone (the hot spot).
    pub(crate) messages_sent: u64,
    pub(crate) root_messages_sent: u64,
    /// Emulated compute time per sample (CPU time charged, merges included).
    pub(crate) emulated_sample_s: f64,
    /// Wall time of one sample run natively on this thread: the median of up to five samples
    /// run just before the emulated run and five just after (the host's speed drifts).
    pub(crate) native_sample_s: f64,
    /// (emulated − native)/native per sample, percent.
    pub(crate) sample_time_error_pct: f64,
    /// The largest compute time per sample charged to one processor (CPU time; a host stall in
    /// the middle of a sample, such as a virtual CPU descheduled, shows here).
    pub(crate) max_processor_sample_s: f64,
    /// Ideal run time C·W_p(P)/P (paper §2) with C from the native sample: the busiest
    /// processor's share of samples × native sample time.
    pub(crate) ideal_run_time_s: f64,
    /// Φ_s(P) = T / ideal run time (paper, after (1)).
    pub(crate) system_overhead: f64,
    /// Speedup against the samples run one after the other natively (`samples × native
    /// sample`), the paper's rough (scaled) speedup.
    pub(crate) speedup: f64,
    /// Checked against the sequential reference (`--verify`): true if equal, null if not run.
    pub(crate) verified: Option<bool>,
    pub(crate) mode: &'static str,
    /// D (none in virtual time).
    pub(crate) dilation: Option<f64>,
    /// How the machine kept time, for people.
    #[serde(skip)]
    pub(crate) mode_line: String,
    pub(crate) wall_s: f64,
    pub(crate) fidelity: Fidelity,
}

/// Wall times of up to five samples run natively on this thread, one after the other (fewer
/// when they are slow).
fn native_sample_times(config: &IsingConfig) -> Result<Vec<Duration>> {
    let mut times = Vec::with_capacity(5);
    for k in 0..5 {
        let start = Instant::now();
        std::hint::black_box(run_sample(config, k)?);
        times.push(start.elapsed());
        if start.elapsed() > Duration::from_millis(200) {
            break;
        }
    }
    Ok(times)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// A machine for an Ising run, in the user's mode. `auto` with more processors than cores (or
/// any number, with `always_dilate`, so that every P of a sweep is emulated alike) picks D as
/// `choose_dilation` does for real compute on every processor at once (compute share 1) and
/// the expected wake-up rate: three events per sample (two messages and a compute interval)
/// over a run no shorter than `samples per processor × native sample time`.
pub(crate) fn ising_machine(
    args: &MachineArgs,
    out: &Path,
    samples: u64,
    native_sample: Duration,
    always_dilate: bool,
) -> Result<Machine, UsageError> {
    let p = args.topology.len();
    let shortest_run_s = samples.div_ceil(p as u64) as f64 * native_sample.as_secs_f64();
    let events = 3.0 * samples as f64 + 2.0 * p as f64;
    let events_per_s = (shortest_run_s > 0.0).then(|| events / shortest_run_s);
    let machine = config::build(args, out, 1.0, None, 1, events_per_s)?;
    if !(always_dilate && machine.is_native() && args.time.mode == ModeArg::Auto) {
        return Ok(machine);
    }
    // Auto chose native (a core was left for the host): emulate as it would with more.
    let config = MachineConfig {
        mode: TimeMode::Virtual,
        ..machine.config().clone()
    };
    Machine::new(args.topology.clone(), config).map_err(|e| UsageError(format!("--mode: {e}")))
}

/// Runs the program and builds its report.
pub(crate) fn run_ising(
    config: &IsingConfig,
    workload: Workload,
    mechanism: Mechanism,
    machine_args: &MachineArgs,
    out: &Path,
    always_dilate: bool,
) -> Result<(IsingReport, ParallelRun)> {
    let processors = machine_args.topology.len() as u32;
    let samples = workload
        .samples(processors)
        .map_err(|e| UsageError(format!("--samples: {e}")))?;
    let mut native = native_sample_times(config)?;
    let machine = ising_machine(
        machine_args,
        out,
        samples,
        median(native.clone()),
        always_dilate,
    )?;
    let run = run_parallel(&machine, config, workload, mechanism)?;
    native.extend(native_sample_times(config)?);
    let native_sample = median(native);
    let s = &run.summary;
    let native_s = native_sample.as_secs_f64();
    let busiest = samples.div_ceil(u64::from(processors));
    let ideal = busiest as f64 * native_s;
    let emulated_sample_s = run.compute_per_sample_s();
    let report = IsingReport {
        mechanism,
        processors: processors as usize,
        dimension: config.dimension,
        size: config.size,
        temperature: config.temperature,
        critical_temperature: exact::critical_temperature(config.dimension),
        thermalisation_sweeps: config.thermalisation_sweeps,
        measurement_sweeps: config.measurement_sweeps,
        workload,
        samples,
        loop_count: machine_args.loop_count,
        run_time_s: run.run_time_s(),
        abs_magnetisation: s.abs_magnetisation,
        magnetisation: s.magnetisation,
        energy: s.energy,
        exact_2d: (config.dimension == Dimension::Two).then(|| ExactValues {
            abs_magnetisation: exact::onsager_magnetisation(config.temperature),
            energy: exact::onsager_energy(config.temperature),
        }),
        acceptance_ratio: s.acceptance_ratio,
        delta_magnetisation: s.delta_magnetisation,
        messages_sent: run.report.totals.messages_sent,
        root_messages_sent: run.report.per_processor[0].accounting.messages_sent,
        emulated_sample_s,
        native_sample_s: native_s,
        sample_time_error_pct: 100.0 * (emulated_sample_s - native_s) / native_s,
        max_processor_sample_s: run
            .report
            .per_processor
            .iter()
            .filter(|p| p.accounting.tasks_executed > 0)
            .map(|p| p.accounting.compute_ns as f64 / 1e9 / p.accounting.tasks_executed as f64)
            .fold(0.0, f64::max),
        ideal_run_time_s: ideal,
        system_overhead: run.run_time_s() / ideal,
        speedup: samples as f64 * native_s / run.run_time_s(),
        verified: None,
        mode: run.report.mode,
        dilation: machine.dilation(),
        mode_line: crate::output::machine_line(&machine),
        wall_s: run.report.wall_s(),
        fidelity: run.report.fidelity.clone(),
    };
    Ok((report, run))
}

fn estimate(e: &Estimate) -> String {
    if e.std_error.is_finite() {
        format!("{:.5} ± {:.5}", e.mean, e.std_error)
    } else {
        format!("{:.5}", e.mean)
    }
}

pub(crate) fn run(args: &IsingArgs, out: &Path) -> Result<()> {
    let config = args.lattice.config()?;
    let mechanism = args.mechanism.mechanism();
    let mut machine_args =
        args.messages
            .machine_args(mechanism, args.processors as usize, args.loop_count)?;
    machine_args.trace = args.trace.clone();
    machine_args.timeline = args.timeline.clone();
    let (mut report, run) = run_ising(
        &config,
        args.workload(),
        mechanism,
        &machine_args,
        out,
        false,
    )?;
    config::write_trace_files(&machine_args, run.trace.as_ref(), report.processors)?;
    if args.verify {
        report.verified = Some(run_sequential(&config, report.samples)? == run.summary);
    }
    if args.json {
        print_json(&report)?;
    } else {
        print_report(&report);
    }
    if report.verified == Some(false) {
        anyhow::bail!("the parallel result differs from the sequential reference");
    }
    Ok(())
}

fn print_report(r: &IsingReport) {
    println!(
        "ising {}D L={} T={} ({} T_c), {} processors, {} mechanism, loop_count {}",
        r.dimension_d(),
        r.size,
        r.temperature,
        if r.temperature < r.critical_temperature {
            "below"
        } else {
            "above"
        },
        r.processors,
        r.mechanism,
        r.loop_count
    );
    let mut t = table(&["quantity", "value", "exact (2D, L = ∞)"]);
    t.add_row(vec![
        "run time T (emulated)".into(),
        human_ns(r.run_time_s * 1e9),
        String::new(),
    ]);
    t.add_row(vec![
        "⟨|m|⟩ per spin".into(),
        estimate(&r.abs_magnetisation),
        r.exact_2d
            .as_ref()
            .map_or(String::new(), |e| format!("{:.5}", e.abs_magnetisation)),
    ]);
    t.add_row(vec![
        "⟨m⟩ per spin".into(),
        estimate(&r.magnetisation),
        String::new(),
    ]);
    t.add_row(vec![
        "⟨e⟩ per spin".into(),
        estimate(&r.energy),
        r.exact_2d
            .as_ref()
            .map_or(String::new(), |e| format!("{:.5}", e.energy)),
    ]);
    t.add_row(vec![
        "acceptance ratio".into(),
        format!("{:.4}", r.acceptance_ratio),
        String::new(),
    ]);
    t.add_row(vec!["samples".into(), r.samples.to_string(), String::new()]);
    t.add_row(vec![
        "messages (all / processor 0)".into(),
        format!("{} / {}", r.messages_sent, r.root_messages_sent),
        String::new(),
    ]);
    t.add_row(vec![
        "sample time emulated / native".into(),
        format!(
            "{} / {} ({:+.2} %)",
            human_ns(r.emulated_sample_s * 1e9),
            human_ns(r.native_sample_s * 1e9),
            r.sample_time_error_pct
        ),
        String::new(),
    ]);
    t.add_row(vec![
        "ideal run time, Φ_s, speedup".into(),
        format!(
            "{}, {:.3}, {:.2}",
            human_ns(r.ideal_run_time_s * 1e9),
            r.system_overhead,
            r.speedup
        ),
        String::new(),
    ]);
    println!("{t}");
    let lateness = if r.fidelity.exact {
        String::new()
    } else {
        format!(
            "; {} of {} waits late (mean {:.1} µs emulated)",
            r.fidelity.late_waits,
            r.fidelity.waits,
            r.fidelity.mean_lateness_ns / 1e3
        )
    };
    println!(
        "{}, wall {:.2} s{lateness}{}",
        r.mode_line,
        r.wall_s,
        match r.verified {
            Some(true) => "; equal to the sequential reference",
            _ => "",
        }
    );
    if let Some(w) = &r.fidelity.warning {
        eprintln!("warning: {w}");
    }
}

impl IsingReport {
    fn dimension_d(&self) -> usize {
        self.dimension.d()
    }
}
