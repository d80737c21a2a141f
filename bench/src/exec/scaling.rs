//! `scaling`'s sweep: the ising program at every loop count × P × repeat, with progress.

use anyhow::Result;
use multicomputer_runtime::RunSpec;
use multicomputer_workloads::analysis::Measurement;
use multicomputer_workloads::ising::{IsingExperiment, Mechanism, median};
use serde::Serialize;

use super::estimate::{EventKind, Events};
use super::runs::time_flags;
use super::{Estimate, Progress, admit, check_emulated, describe};
use crate::plan::{ArgError, ScalingSweep, scaling_topology};

/// A run in which some processor was charged more than this many native sample times per
/// sample is run again (up to [`MAX_ATTEMPTS`] times): on a virtual machine the thread CPU
/// clock keeps running while the virtual CPU is descheduled, and such a stall, charged as
/// compute, is not the program's. Ordinary noise of a loaded host is ±30 %. (Measured compute
/// charging only: model charging cannot stall.)
pub(crate) const STALL_FACTOR: f64 = 3.0;

/// Attempts per run before a stalled run is kept anyway (and counted).
pub(crate) const MAX_ATTEMPTS: u32 = 4;

/// One measured run (a row of the CSV; `P`, `time_s`, `loop_count` are what `--csv` reads).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ScalingRow {
    #[serde(rename = "P")]
    pub(crate) processors: u32,
    pub(crate) loop_count: u64,
    pub(crate) repeat: u32,
    pub(crate) time_s: f64,
    /// The ideal run time `C·W_p(P)/P`: samples per processor × the time of one sample (the
    /// model's in model charging, else the native one measured around this run).
    pub(crate) ideal_s: f64,
    pub(crate) mechanism: Mechanism,
    pub(crate) samples: u64,
    pub(crate) messages_sent: u64,
    pub(crate) root_messages_sent: u64,
    pub(crate) emulated_sample_s: f64,
    pub(crate) native_sample_s: f64,
    pub(crate) sample_time_error_pct: f64,
    pub(crate) mode: &'static str,
    pub(crate) dilation: Option<f64>,
    pub(crate) late_waits: u64,
    pub(crate) waits: u64,
    pub(crate) wall_s: f64,
    /// Runs discarded before this one because the host stalled a processor in the middle of a
    /// sample (see [`STALL_FACTOR`]).
    pub(crate) stalled_runs: u32,
    /// How its machine ran.
    #[serde(skip)]
    pub(crate) spec: RunSpec,
}

impl ScalingRow {
    /// The run as the analysis reads it: `Φ_s = T/ideal`.
    pub(crate) fn measurement(&self) -> Measurement {
        Measurement::run(self.processors, self.loop_count as f64, self.time_s)
            .with_ideal(self.ideal_s)
    }
}

/// Runs the sweep. Every pass runs the cells in its own random order (fixed seed), so that a
/// drift of the host's speed (it changes the CPU time charged for real compute and for the busy
/// loop in measured charging) shows as scatter between replicates, not as a trend in P or in
/// loop_count. Rows come back sorted by loop count, P and repeat. The announcement adds
/// `overhead_s`, the command's seconds besides its runs.
pub(crate) fn scaling_runs(sweep: &ScalingSweep, overhead_s: f64) -> Result<Vec<ScalingRow>> {
    admit_sweep(sweep, overhead_s)?;
    let cells: Vec<(usize, usize)> = (0..sweep.loop_counts.len())
        .flat_map(|l| (0..sweep.processors.len()).map(move |i| (l, i)))
        .collect();
    let total = cells.len() as u64 * u64::from(sweep.repeats);
    let mut progress = Progress::new("scaling", total, "runs");
    let mut rows = Vec::with_capacity(total as usize);
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    for repeat in 0..sweep.repeats {
        let mut order = cells.clone();
        for k in (1..order.len()).rev() {
            // xorshift64: enough to decorrelate the order from P and loop_count.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            order.swap(k, (state % (k as u64 + 1)) as usize);
        }
        for &(l, i) in &order {
            let (loop_count, p) = (sweep.loop_counts[l], sweep.processors[i]);
            progress.set_message(format!(
                "{} loop_count {loop_count} P = {p}",
                sweep.mechanism
            ));
            let row = run_cell(sweep, loop_count, p, repeat)?;
            rows.push(((l, i, repeat), row));
            progress.inc();
        }
    }
    drop(progress);
    rows.sort_by_key(|(key, _)| *key);
    Ok(rows.into_iter().map(|(_, row)| row).collect())
}

/// The flags that make a sweep long.
const SWEEP_FLAGS: &str = "--processors, --loop-counts, --samples-per-processor, --repeats";

/// Step 0: the sweep's wall time, estimated from one native sample before the first run;
/// announced beyond 10 s, refused beyond 24 h (naming [`SWEEP_FLAGS`]). A cell's emulated
/// time is its samples per processor × the sample time, plus the busy loop of the sends on its
/// busiest processor: the centralized root sends twice per sample (work out, result in), a tree
/// processor twice per sample of its own plus once per level.
fn admit_sweep(sweep: &ScalingSweep, overhead_s: f64) -> Result<()> {
    let e = IsingExperiment {
        config: sweep.config.clone(),
        workload: sweep.workload,
        mechanism: sweep.mechanism,
        loop_count: 0,
    };
    let native = median(e.native_sample_times()?);
    let native_s = native.as_secs_f64();
    let loop_s = sweep.machine.work_costs.0.loop_iteration_ns * 1e-9;
    let mut total = Estimate::ZERO;
    let mut ran = None;
    for &p in &sweep.processors {
        let samples = sweep
            .workload
            .samples(p)
            .map_err(|err| ArgError::new("--samples-per-processor", err))?;
        let own = samples.div_ceil(u64::from(p)) as f64;
        let busiest_sends = match sweep.mechanism {
            Mechanism::Centralized => 2.0 * samples as f64,
            Mechanism::Tree => 2.0 * own + f64::from(p).log2().ceil(),
        };
        let hints = e
            .hints(p as usize, native)
            .map_err(|err| ArgError::new("--samples-per-processor", err))?;
        let m = sweep
            .machine
            .machine(scaling_topology(sweep.mechanism, p)?, &hints)?;
        ran.get_or_insert_with(|| m.spec().clone());
        for &l in &sweep.loop_counts {
            let emulated_s = own * native_s + l as f64 * loop_s * busiest_sends;
            check_emulated(SWEEP_FLAGS, emulated_s, p as usize)?;
            total = total.plus(
                Estimate::emulated(
                    emulated_s,
                    m.spec().time.dilation(),
                    Events::of(EventKind::Engine, p as usize, hints.events_per_s),
                    1,
                )
                .with_real_work(
                    samples as f64 * native_s,
                    multicomputer_runtime::host_cores(),
                )
                .times(sweep.repeats),
            );
        }
    }
    let runs = sweep.processors.len() * sweep.loop_counts.len() * sweep.repeats as usize;
    let detail = ran.map_or_else(String::new, |r| format!("{}; {runs} run(s)", describe(&r)));
    admit(
        "scaling",
        &time_flags(&sweep.machine, SWEEP_FLAGS),
        total.with_fixed(overhead_s),
        &detail,
    )?;
    Ok(())
}

/// One (P, loop_count) run, run again (measured charging only) if the host stalled it.
fn run_cell(sweep: &ScalingSweep, loop_count: u64, p: u32, repeat: u32) -> Result<ScalingRow> {
    let e = IsingExperiment {
        config: sweep.config.clone(),
        workload: sweep.workload,
        mechanism: sweep.mechanism,
        loop_count,
    };
    let mut machine = sweep.machine.clone();
    machine.link.loop_count = loop_count;
    let topology = scaling_topology(sweep.mechanism, p)?;
    let mut stalled_runs = 0;
    let (r, spec) = loop {
        let native = e.native_sample_times()?;
        let hints = e
            .hints(p as usize, median(native.clone()))
            .map_err(|err| ArgError::new("--samples-per-processor", err))?;
        let m = machine.machine(topology.clone(), &hints)?;
        let r = e.run(&m, native, false)?;
        let stalled =
            !sweep.deterministic && r.max_processor_sample_s > STALL_FACTOR * r.native_sample_s;
        if !stalled || stalled_runs + 1 >= MAX_ATTEMPTS {
            break (r, m.spec().clone());
        }
        stalled_runs += 1;
    };
    Ok(ScalingRow {
        processors: p,
        loop_count,
        repeat,
        time_s: r.run_time_s,
        ideal_s: r.ideal_run_time_s,
        mechanism: sweep.mechanism,
        samples: r.samples,
        messages_sent: r.messages_sent,
        root_messages_sent: r.root_messages_sent,
        emulated_sample_s: r.emulated_sample_s,
        native_sample_s: r.native_sample_s,
        sample_time_error_pct: r.sample_time_error_pct,
        mode: r.mode,
        dilation: r.dilation,
        late_waits: r.fidelity.late_waits,
        waits: r.fidelity.waits,
        wall_s: r.wall_s,
        stalled_runs,
        spec,
    })
}
