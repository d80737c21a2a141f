//! Repeated runs of one experiment: build its machine once, announce a long run, run the
//! warm-up runs and discard them, run the measured ones with progress.

use std::time::Instant;

use anyhow::Result;
use multicomputer_runtime::{Machine, Resolved, RunSpec, Topology};
use multicomputer_workloads::ising::{IsingExperiment, IsingMeasurement, median};
use multicomputer_workloads::ocl::{
    OclComparison, PipelineError, PipelineRun, ocl_reference, run_pipeline,
};

use super::estimate::{EventKind, Events};
use super::ties::{TieSpread, extra_runs, tie_spread};
use super::{Estimate, Experiment, Progress, Ticker, admit, check_emulated, overhead};
use crate::plan::{
    ArgError, IsingPlan, MachinePlan, OclPlan, Repeat, pipeline_costs, pipeline_machine, table_of,
    wait_name,
};
use crate::units::human_s;

/// The measured runs of one experiment and how its machine ran.
pub(crate) struct Runs<T> {
    /// The measured runs (warm-up runs are not kept).
    pub(crate) runs: Vec<T>,
    /// How the machine ran, as it resolved its run.
    pub(crate) ran: RunSpec,
    /// The seed of each measured run's random draws (empty if the program draws none).
    pub(crate) seeds: Vec<u64>,
    /// The headline figures over other tie orders (virtual time, where cheap).
    pub(crate) ties: Option<TieSpread>,
}

/// The seed of measured run `k` (from 0) of a program seeded with `seed`: `seed + k`, so that
/// repeated runs draw afresh and each can be re-run alone with `--seed`. Warm-up runs draw
/// from `seed`.
pub(crate) fn run_seed(seed: u64, r: Repeat, i: u32) -> u64 {
    seed.wrapping_add(u64::from(i.saturating_sub(r.warmup)))
}

/// Runs `f` `warmup` times, discarding the results, then `runs` times; shows progress over
/// the runs, and over each run expected to take long (`per_run_s`), unless `what` is empty
/// (a sweep's cell: the sweep shows its own).
pub(crate) fn repeat<T>(
    what: &str,
    r: Repeat,
    per_run_s: f64,
    mut f: impl FnMut(u32) -> Result<T>,
) -> Result<Vec<T>> {
    let steps = if what.is_empty() {
        1
    } else {
        u64::from(r.total())
    };
    let mut progress = Progress::new(what, steps, "runs");
    let mut kept = Vec::with_capacity(r.runs as usize);
    for i in 0..r.total() {
        let warm = i < r.warmup;
        progress.set_message(if warm { "warm-up" } else { "measured" }.into());
        let _ticker = Ticker::start(what, if what.is_empty() { 0.0 } else { per_run_s });
        let result = f(i)?;
        if !warm {
            kept.push(result);
        }
        progress.inc();
    }
    Ok(kept)
}

fn detail(ran: &RunSpec, r: Repeat) -> String {
    format!("{}, {} run(s)", describe(ran), r.total())
}

/// `native, spin waits`, `dilated (D = 4), sleep waits` or `virtual (exact given its tie order)`,
/// with the compute charging: how a machine resolved its run, for announcements.
pub(crate) fn describe(spec: &RunSpec) -> String {
    let mode = spec.time.name();
    let time = match (spec.time, spec.waits()) {
        (Resolved::Native, Some(w)) => format!("native, {} waits", wait_name(w)),
        (Resolved::Dilated(d), Some(w)) => format!("{mode} (D = {d}), {} waits", wait_name(w)),
        _ => format!("{mode} (exact given its tie order)"),
    };
    format!("{time}; compute {}", spec.charging.charge().name())
}

/// The flags that make runs long, `flags`, with `--dilation` first if it was given.
pub(crate) fn time_flags(machine: &MachinePlan, flags: &str) -> String {
    if machine.dilation_given() {
        format!("--dilation, {flags}")
    } else {
        flags.to_string()
    }
}

/// An experiment's machine on `topology` and the estimate of one run on it, with the run's
/// emulated time checked against the emulator's range.
pub(crate) fn prepare<E: Experiment>(
    machine: &MachinePlan,
    topology: &Topology,
    e: &E,
) -> Result<(Machine, Estimate)> {
    let m = machine.machine(topology.clone(), &e.hints(topology)?)?;
    // (In virtual time the dilation is none and the estimate counts events.)
    let per_run = e.estimate(&m);
    check_emulated(E::TIME_FLAGS, per_run.emulated_s, topology.len())?;
    Ok((m, per_run))
}

/// An experiment's runs on `topology`. `standalone`, the command's seconds besides the runs
/// ([`overhead`](super::overhead)) when they are a command's own: refuse runs too long, say
/// beforehand how long the command will take and show the runs' progress (a sweep's cells
/// get `None`: the sweep does all that for its whole grid instead).
pub(crate) fn runs<E: Experiment>(
    machine: &MachinePlan,
    topology: &Topology,
    e: &E,
    r: Repeat,
    standalone: Option<f64>,
) -> Result<Runs<E::Outcome>> {
    let (m, per_run) = prepare(machine, topology, e)?;
    let ran = m.spec().clone();
    let what = if let Some(overhead) = standalone {
        // The tie orders' runs too, where they will be run.
        let ties = extra_runs(ran.time.is_virtual(), per_run.wall_s);
        admit(
            E::NAME,
            &time_flags(machine, E::TIME_FLAGS),
            per_run.times(r.total() + ties).with_fixed(overhead),
            &detail(&ran, r),
        )?;
        E::NAME
    } else {
        ""
    };
    let standalone = standalone.is_some();
    let runs = repeat(what, r, per_run.wall_s, |i| match e.seed() {
        Some(seed) => e.reseeded(run_seed(seed, r, i)).run(&m),
        None => e.run(&m),
    })?;
    let seeds: Vec<u64> = e
        .seed()
        .map(|seed| {
            (r.warmup..r.total())
                .map(|i| run_seed(seed, r, i))
                .collect()
        })
        .unwrap_or_default();
    // Only where the run is a program's own (a sweep's cells are many).
    let ties = match (standalone && ran.time.is_virtual(), runs.first()) {
        (true, Some(first)) => {
            let e = match seeds.first() {
                Some(&seed) => e.reseeded(seed),
                None => e.reseeded(e.seed().unwrap_or(0)),
            };
            tie_spread(machine, topology, &e, first, per_run.wall_s)?
        }
        _ => None,
    };
    Ok(Runs {
        runs,
        ran,
        seeds,
        ties,
    })
}

/// One OCL run: its comparison and the verified pipeline run (output stream, trace, report).
pub(crate) struct OclRun {
    /// Measured beside the model.
    pub(crate) comparison: OclComparison,
    /// The run itself.
    pub(crate) run: PipelineRun,
}

/// Runs one OCL pipeline on `machine` (see [`pipeline_machine`]); a bad cost names its flag.
pub(crate) fn run_grain(
    machine: &Machine,
    grain: multicomputer_workloads::ocl::Grain,
    a: &[i64],
    model: Option<multicomputer_workloads::ocl::model::Costs>,
    native: bool,
) -> Result<PipelineRun> {
    run_pipeline(grain, a, pipeline_costs(model, native), machine).map_err(|e| match e {
        PipelineError::BadCost { .. } => ArgError::new("--alpha/--beta", e).into(),
        e => anyhow::Error::from(e),
    })
}

/// The wall time of one OCL run on `machine`: the model's output time (with the plan's
/// constants, or the paper's for native costs) at the machine's dilation.
pub(crate) fn ocl_estimate(
    machine: &Machine,
    grain: multicomputer_workloads::ocl::Grain,
    l: u64,
    model: Option<multicomputer_workloads::ocl::model::Costs>,
    native: bool,
) -> Estimate {
    let c = model.unwrap_or_else(|| table_of(grain).paper_costs());
    let rate = (!native).then(|| multicomputer_workloads::ocl::expected_events_per_s(grain, c));
    let events = Events::of(EventKind::Pipeline, grain.processes(), rate);
    Estimate::emulated(
        multicomputer_workloads::ocl::model::output_time_s(grain, c, l),
        machine.spec().time.dilation(),
        events,
        1,
    )
}

/// OCL's runs.
pub(crate) fn ocl_runs(plan: &OclPlan) -> Result<Runs<OclRun>> {
    let l = plan.stream.len() as u64;
    let m = pipeline_machine(
        &plan.machine,
        plan.grain,
        plan.model,
        plan.native,
        "--window",
    )?;
    let per_run = ocl_estimate(&m, plan.grain, l, plan.model, plan.native);
    check_emulated("--length", per_run.emulated_s, plan.grain.processes())?;
    admit(
        "ocl",
        &time_flags(&plan.machine, "--length"),
        per_run
            .times(plan.repeat.total())
            .with_fixed(overhead(&plan.output, false)),
        &format!(
            "the model's time at the machine's dilation, {} run(s)",
            plan.repeat.total()
        ),
    )?;
    let runs = repeat("ocl", plan.repeat, per_run.wall_s, |_| {
        let run = run_grain(&m, plan.grain, &plan.stream, plan.model, plan.native)?;
        let sequential_wall_s = plan.native.then(|| {
            let t = Instant::now();
            std::hint::black_box(ocl_reference(&plan.stream, plan.grain.n())).ok();
            t.elapsed().as_secs_f64()
        });
        Ok(OclRun {
            comparison: OclComparison::of_run(&run, plan.model, sequential_wall_s),
            run,
        })
    })?;
    Ok(Runs {
        runs,
        ran: m.spec().clone(),
        seeds: Vec::new(),
        ties: None,
    })
}

/// The ising program's runs: the native sample time is measured around each run; the
/// machine is built once, from the first measurement. `--verify` checks the first measured
/// run against the sequential reference.
pub(crate) fn ising_runs(plan: &IsingPlan) -> Result<Runs<IsingMeasurement>> {
    let e: &IsingExperiment = &plan.experiment;
    let first = e.native_sample_times()?;
    let native = median(first.clone());
    let p = plan.topology.len();
    let hints = e
        .hints(p, native)
        .map_err(|err| ArgError::new("--processors", err))?;
    let m = plan.machine.machine(plan.topology.clone(), &hints)?;
    let ran = m.spec().clone();
    let samples = e
        .workload
        .samples(p as u32)
        .map_err(|err| ArgError::new("--samples", err))?;
    let per_run = Estimate::emulated(
        samples.div_ceil(p as u64) as f64 * native.as_secs_f64(),
        m.spec().time.dilation(),
        Events::of(EventKind::Engine, p, hints.events_per_s),
        1,
    )
    // The lattice sweeps are real work: virtual time does every sample on its one thread.
    .with_real_work(
        samples as f64 * native.as_secs_f64(),
        multicomputer_runtime::host_cores(),
    );
    check_emulated("--samples", per_run.emulated_s, p)?;
    admit(
        "ising",
        &time_flags(&plan.machine, "--samples"),
        per_run
            .times(plan.repeat.total())
            .with_fixed(overhead(&plan.output, false)),
        &format!(
            "{}, native sample {}",
            detail(&ran, plan.repeat),
            human_s(native.as_secs_f64())
        ),
    )?;
    let mut before = Some(first);
    let runs = repeat("ising", plan.repeat, per_run.wall_s, |i| {
        let native_before = match before.take() {
            Some(t) => t,
            None => e.native_sample_times()?,
        };
        let verify = plan.verify && i == plan.repeat.warmup;
        let mut e = e.clone();
        e.config.seed = run_seed(e.config.seed, plan.repeat, i);
        Ok(e.run(&m, native_before, verify)?)
    })?;
    let seeds = (plan.repeat.warmup..plan.repeat.total())
        .map(|i| run_seed(e.config.seed, plan.repeat, i))
        .collect();
    Ok(Runs {
        runs,
        ran,
        seeds,
        ties: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warm_up_runs_are_run_and_discarded() {
        let mut calls = Vec::new();
        let kept = repeat("t", Repeat { runs: 2, warmup: 3 }, 0.0, |i| {
            calls.push(i);
            Ok(i)
        })
        .unwrap();
        assert_eq!(calls, vec![0, 1, 2, 3, 4]);
        assert_eq!(kept, vec![3, 4]);
    }

    #[test]
    fn a_failed_run_stops_the_series() {
        let r = repeat("t", Repeat { runs: 3, warmup: 0 }, 0.0, |i| {
            if i == 1 { anyhow::bail!("boom") } else { Ok(i) }
        });
        assert_eq!(r.unwrap_err().to_string(), "boom");
    }

    #[test]
    fn a_run_is_described_by_what_its_machine_resolved() {
        use multicomputer_runtime::{MachineConfig, TimeMode, Topology, WaitStrategy};
        let spec = |mode, wait| {
            MachineConfig {
                mode,
                wait,
                ..MachineConfig::default()
            }
            .resolve(&Topology::chain(2).unwrap())
            .unwrap()
        };
        assert_eq!(
            describe(&spec(TimeMode::Dilated(4.0), WaitStrategy::Sleep)),
            "dilated (D = 4), sleep waits; compute measured"
        );
        assert_eq!(
            describe(&spec(TimeMode::Virtual, WaitStrategy::Auto)),
            "virtual (exact given its tie order); compute model"
        );
    }
}
