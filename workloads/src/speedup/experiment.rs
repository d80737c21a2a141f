//! The speedup experiment: a kernel at P = 1, 2, … on the runtime, rayon and scoped threads,
//! interleaved, beside the best sequential program and the kernel's model.
//!
//! # Protocol
//!
//! 1. **Describe the host** ([`Host::before`]): cores, processor, whether pinning works, load
//!    average, the cores free of other work over half a second.
//! 2. **Prepare** ([`SpeedupPlan::prepare`]): the inputs, the reference result (a first,
//!    unmeasured sequential run, which also tells how long the rest will take), a rayon pool of
//!    exactly P threads for every P; the runtime's machine for every P is the caller's, built
//!    once beforehand ([`crate::speedup::machine_config`]).
//! 3. **Rounds**: `warmup` discarded, then `rounds` measured; each runs the sequential program
//!    and, for every P, the runtime, rayon and scoped threads in an order rotated by the round
//!    (see `rounds`). Every result is checked against the reference.
//! 4. **Summarise**: per P and variant the median wall time with its range, the speedup round
//!    by round against that round's sequential time (the *real* speedup), the runtime's
//!    *rough* speedup against its own run on one processor (the scalability paper's), the
//!    efficiency, and the runtime/rayon ratio.
//! 5. **Grain** (optional): the same at P = the largest, over a range of grains
//!    ([`crate::speedup::GrainSweep`]).
//! 6. **Model**: the kernel's costs measured ([`WorkCosts::measure`]), its overheads fitted to
//!    all the runtime's median times, the grain sweep's included ([`fit`]), and the predicted
//!    time and speedup at every P and efficiency at every grain.
//! 7. **Describe the host again**: the load average after.

use std::cell::OnceCell;

use multicomputer_runtime::{CutLinkFidelity, Machine, RunSpec};
use rayon::ThreadPool;
use serde::Serialize;

use crate::speedup::baselines::rayon as with_rayon;
use crate::speedup::error::SpeedupError;
use crate::speedup::grain::{GrainSweep, sweep_grains};
use crate::speedup::host::Host;
use crate::speedup::kernel::{Inputs, Kernel, Output};
use crate::speedup::model::{ModelFit, Observation, WorkCosts, fit, predict_s};
use crate::speedup::plan::SpeedupPlan;
use crate::speedup::rounds::{
    Bench, Round, Timing, cut_links_of, machine, ratios, time_sequential,
};
use crate::speedup::spread::Spread;

/// Where the experiment is, for a progress display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step<'a> {
    /// Measurements done.
    pub done: usize,
    /// Measurements in all.
    pub total: usize,
    /// The one just done.
    pub what: &'a str,
}

/// The model's prediction at one P.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Predicted {
    /// Wall time, seconds.
    pub wall_s: f64,
    /// The median sequential time over it.
    pub speedup: f64,
    /// The speedup error of the runtime's median time against it, percent:
    /// `(T_seq/T_runtime) / (T_seq/T_model) − 1 = T_model/T_runtime − 1`.
    pub error_pct: f64,
}

/// Everything measured at one P.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    /// P.
    pub processors: usize,
    /// The runtime's topology.
    pub topology: String,
    /// The runtime: wall time, real speedup, efficiency.
    pub runtime: Timing,
    /// The runtime's time on one processor over its time on P, round by round.
    pub rough_speedup: Spread,
    /// The runtime's set-up (threads spawned and pinned) before each run, seconds; not in its
    /// wall time, as a rayon pool's construction is not in rayon's.
    pub setup_s: Spread,
    /// Rayon on a pool of P threads.
    pub rayon: Timing,
    /// Scoped threads with static chunks.
    pub scoped: Timing,
    /// The runtime's speedup over rayon's (rayon's time over the runtime's), round by round.
    pub runtime_over_rayon: Spread,
    /// The model's prediction.
    pub model: Option<Predicted>,
    /// Over MPI ranks (`--partitions`), the runtime's messages across ranks in the measured
    /// rounds together: how many arrived within the tolerance of their emulated arrival.
    /// `None` where the runtime ran in one process.
    pub cut_links: Option<CutLinkFidelity>,
}

/// A finished experiment.
#[derive(Debug, Clone, Serialize)]
pub struct SpeedupResult {
    /// The plan it ran.
    pub plan: SpeedupPlan,
    /// The sequential program's wall time, seconds.
    pub sequential_s: Spread,
    /// Per P.
    pub points: Vec<Point>,
    /// The kernel's costs, as measured for the model.
    pub costs: WorkCosts,
    /// The model's overheads fitted to the runtime's times.
    pub fit: Option<ModelFit>,
    /// The grain sweep, if asked for.
    pub grain: Option<GrainSweep>,
    /// The host, before and after.
    pub host: Host,
    /// How the runtime's machines resolved their runs (native, spinning, measured charging).
    #[serde(skip)]
    pub runtime: Option<RunSpec>,
}

/// An experiment ready to run: what its first, unmeasured sequential run showed.
pub struct Prepared<'a> {
    plan: &'a SpeedupPlan,
    host: Host,
    inputs: Inputs,
    reference: Output,
    first_sequential_s: f64,
    pools: Vec<(usize, ThreadPool)>,
    machines: &'a [Machine],
}

/// Rayon pools of exactly P threads, one for every P of `processors`.
pub(crate) fn pools(processors: &[usize]) -> Result<Vec<(usize, ThreadPool)>, SpeedupError> {
    processors
        .iter()
        .map(|&p| {
            with_rayon::pool(p)
                .map(|pool| (p, pool))
                .map_err(|e| SpeedupError::Pool {
                    threads: p,
                    message: e.to_string(),
                })
        })
        .collect()
}

impl SpeedupPlan {
    /// The largest P.
    pub fn max_processors(&self) -> usize {
        self.processors.iter().copied().max().unwrap_or(1)
    }

    /// Steps 1 and 2: describes the host, makes the inputs and the reference (timed), builds
    /// the pools. The runtime runs on `machines`, built by the caller once for every P
    /// ([`machine_config`](crate::speedup::machine_config)); a P without one is refused first.
    pub fn prepare<'a>(&'a self, machines: &'a [Machine]) -> Result<Prepared<'a>, SpeedupError> {
        if self.rounds == 0 || !self.processors.contains(&1) {
            return Err(SpeedupError::EmptyPlan);
        }
        self.workload.check(&self.processors)?;
        for &p in &self.processors {
            machine(machines, p)?;
        }
        let host = Host::before(self.max_processors());
        let inputs = self.workload.inputs()?;
        let (reference, first_sequential_s) = time_sequential(&self.workload, &inputs)?;
        let mut all = self.processors.clone();
        if self.grains.is_some() {
            all.push(self.max_processors());
        }
        all.sort_unstable();
        all.dedup();
        Ok(Prepared {
            plan: self,
            host,
            inputs,
            reference,
            first_sequential_s,
            pools: pools(&all)?,
            machines,
        })
    }

    /// The expected wall time of the whole experiment given the sequential program's
    /// `sequential_s`, seconds: each parallel run at a fifth over the sequential time over P;
    /// the grain sweep keeps the work, so each grain costs the same.
    pub fn estimate_s(&self, sequential_s: f64) -> f64 {
        let rounds = (self.rounds + self.warmup) as f64;
        let parallel: f64 = self.processors.iter().map(|&q| 3.0 * 1.2 / q as f64).sum();
        let sweep = self.grains.as_ref().map_or(0.0, |g| {
            g.len() as f64 * (rounds + 1.0) * (1.0 + 3.0 * 1.2 / self.max_processors() as f64)
        });
        sequential_s * (rounds * (1.0 + parallel) + sweep)
    }

    /// Measurements in all: per round, the sequential program and three variants per P; the
    /// grain sweep's the same at one P per grain.
    pub fn measurements(&self) -> usize {
        let rounds = self.rounds + self.warmup;
        let sweep = self.grains.as_ref().map_or(0, |g| g.len() * rounds * 4);
        rounds * (1 + 3 * self.processors.len()) + sweep
    }
}

impl Prepared<'_> {
    /// The first sequential run's wall time, seconds.
    pub fn sequential_s(&self) -> f64 {
        self.first_sequential_s
    }

    /// The expected wall time of the rest, seconds: each parallel run at a fifth over the
    /// sequential time over P; the grain sweep keeps the work, so each grain costs the same.
    pub fn estimate_s(&self) -> f64 {
        self.plan.estimate_s(self.first_sequential_s)
    }

    /// Steps 3 to 7.
    pub fn run(self, progress: &mut dyn FnMut(Step)) -> Result<SpeedupResult, SpeedupError> {
        let plan = self.plan;
        let total = plan.measurements();
        let mut done = 0;
        let mut step = |what: &str| {
            done += 1;
            progress(Step { done, total, what });
        };
        let bench = Bench {
            workload: plan.workload.clone(),
            inputs: self.inputs,
            reference: self.reference,
            pools: &self.pools,
            machines: self.machines,
            runtime: OnceCell::new(),
        };
        // Step 3: rounds.
        let mut rounds: Vec<Round> = Vec::with_capacity(plan.rounds);
        for r in 0..plan.warmup + plan.rounds {
            let round = bench.round(r, &plan.processors, &mut step)?;
            if r >= plan.warmup {
                rounds.push(round);
            }
        }
        // Step 4: summarise.
        let sequential: Vec<f64> = rounds.iter().map(|r| r.sequential_s).collect();
        let sequential_s = Spread::of(&sequential).ok_or(SpeedupError::EmptyPlan)?;
        let column = |i: usize, f: fn(&crate::speedup::rounds::AtP) -> f64| -> Vec<f64> {
            rounds.iter().map(|r| f(&r.at[i])).collect()
        };
        let one = plan.processors.iter().position(|&p| p == 1);
        let mut points = Vec::with_capacity(plan.processors.len());
        for (i, &p) in plan.processors.iter().enumerate() {
            let runtime = column(i, |a| a.runtime_s);
            let rayon = column(i, |a| a.rayon_s);
            let scoped = column(i, |a| a.scoped_s);
            let rough = one.map(|j| column(j, |a| a.runtime_s));
            let summary = (|| {
                Some(Point {
                    processors: p,
                    topology: plan.workload.kernel.topology_name(p).ok()?,
                    runtime: Timing::of(&runtime, &sequential, p)?,
                    rough_speedup: ratios(rough.as_deref()?, &runtime)?,
                    setup_s: Spread::of(&column(i, |a| a.setup_s))?,
                    rayon: Timing::of(&rayon, &sequential, p)?,
                    scoped: Timing::of(&scoped, &sequential, p)?,
                    runtime_over_rayon: ratios(&rayon, &runtime)?,
                    model: None,
                    cut_links: cut_links_of(rounds.iter().map(|r| &r.at[i].cut_links)),
                })
            })();
            if let Some(point) = summary {
                points.push(point);
            }
        }
        // Step 5: the grain sweep.
        let (mut grain, grain_observations) = match &plan.grains {
            Some(grains) => {
                let (sweep, obs) =
                    sweep_grains(plan, grains, &self.pools, self.machines, &mut step)?;
                (Some(sweep), obs)
            }
            None => (None, Vec::new()),
        };
        // Step 6: the model, fitted to every median time of the runtime (the grain sweep's
        // too: their range of task times pins the overheads down).
        let costs = WorkCosts::measure(
            &plan.workload,
            &bench.inputs,
            sequential_s.median,
            &plan.processors,
        )?;
        let mut observations: Vec<Observation> = points
            .iter()
            .map(|pt| Observation {
                workload: plan.workload.clone(),
                costs: costs.clone(),
                processors: pt.processors,
                wall_s: pt.runtime.wall_s.median,
            })
            .collect();
        observations.extend(grain_observations.iter().cloned());
        // OCL's communication cost grows with the packet: fit α0 + Kα1 when K varies.
        let over_packets = plan.workload.kernel == Kernel::Ocl && grain.is_some();
        let fitted = fit(plan.workload.kernel, &observations, over_packets)?;
        if let Some(f) = &fitted {
            for pt in &mut points {
                let wall_s = predict_s(&plan.workload, &costs, f.overheads, pt.processors)?;
                pt.model = Some(Predicted {
                    wall_s,
                    speedup: sequential_s.median / wall_s,
                    error_pct: 100.0 * (wall_s / pt.runtime.wall_s.median - 1.0),
                });
            }
            if let Some(g) = &mut grain {
                g.predict(f, &grain_observations)?;
            }
        }
        // Step 7.
        Ok(SpeedupResult {
            plan: plan.clone(),
            sequential_s,
            points,
            costs,
            fit: fitted,
            grain,
            host: self.host.after(),
            runtime: bench.runtime.into_inner(),
        })
    }
}

#[cfg(test)]
mod tests {
    use multicomputer_runtime::{MachineConfig, WaitStrategy};

    use super::*;
    use crate::speedup::kernel::Workload;
    use crate::speedup::machine_config;

    /// A plan of one round at P = 1 of a tiny farm.
    fn tiny() -> SpeedupPlan {
        let mut workload = Workload::new(Kernel::PrimesChain);
        (workload.tasks, workload.grain) = (12, 200);
        SpeedupPlan {
            workload,
            processors: vec![1],
            rounds: 1,
            warmup: 0,
            grains: None,
        }
    }

    #[test]
    fn a_p_without_a_machine_is_refused_before_anything_runs() {
        let err = tiny().prepare(&[]).err().expect("refused");
        assert!(
            matches!(err, SpeedupError::NoMachine { processors: 1 }),
            "{err}"
        );
    }

    #[test]
    fn the_runtime_runs_on_the_machines_it_is_given() {
        let plan = tiny();
        let (topology, config) = machine_config(&plan.workload, 1).unwrap();
        // Sleeping waits: not what the workload's own configuration asks for (spinning).
        assert_eq!(config.wait, WaitStrategy::Spin);
        let given = MachineConfig {
            wait: WaitStrategy::Sleep,
            ..config
        };
        let machines = [Machine::new(topology, given).unwrap()];
        let result = plan.prepare(&machines).unwrap().run(&mut |_| {}).unwrap();
        let ran = result.runtime.expect("the runtime ran");
        assert_eq!(ran.wait, WaitStrategy::Sleep);
        assert_eq!(ran.capacity, machines[0].spec().capacity);
    }
}
