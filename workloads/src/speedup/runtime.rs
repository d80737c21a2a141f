//! A kernel on the runtime, natively: P pinned processors that spin while they wait (D = 1),
//! free links (no emulated start-up or transfer cost: what the runtime itself costs is what
//! is measured), real work charged by its wall time (the monotonic clock, as the runtime
//! charges measured work natively).

use std::time::Duration;

use multicomputer_runtime::{
    ComputeCharge, ConfigError, Machine, MachineConfig, RunError, RunReport, RunSpec, TimeMode,
    Topology, TopologyError, WaitStrategy,
};
use thiserror::Error;

use crate::dnc::{DncError, MIN_SPLIT, run_mergesort};
use crate::farm::{self, FarmError, FarmSpec, Kernel as FarmKernel};
use crate::ising::{Mechanism, ParallelError, Workload as Samples, run_parallel};
use crate::ocl::{
    Grain, OclError, PipelineCosts, PipelineError, pipeline_machine, run_pipeline_against,
};
use crate::speedup::kernel::{Inputs, Kernel, Output, Workload};
use crate::tree::EngineConfig;

/// Why a run on the runtime failed.
#[derive(Debug, Error)]
pub enum RuntimeError {
    /// The topology could not be built.
    #[error(transparent)]
    Topology(#[from] TopologyError),
    /// The machine refused the configuration (more processors than cores).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The farm failed.
    #[error(transparent)]
    Farm(#[from] FarmError),
    /// Mergesort failed.
    #[error(transparent)]
    Dnc(#[from] DncError),
    /// The Ising program failed.
    #[error(transparent)]
    Ising(#[from] ParallelError),
    /// The OCL array failed (or its output differs from the reference).
    #[error(transparent)]
    Ocl(#[from] PipelineError),
    /// The OCL grain was refused.
    #[error(transparent)]
    Grain(#[from] OclError),
    /// The machine failed.
    #[error(transparent)]
    Run(#[from] RunError),
}

/// A finished run on the runtime.
#[derive(Debug)]
pub struct RuntimeRun {
    /// The kernel's result.
    pub output: Output,
    /// Wall time from the common start of the processors to the last one's end, seconds.
    pub wall_s: f64,
    /// Wall time to spawn and pin the processors before that, seconds.
    pub setup_s: f64,
    /// The topology it ran on.
    pub topology: Topology,
    /// How its machine resolved the run (time mode, waits, charging).
    pub spec: RunSpec,
}

/// The native machine configuration of a run: pinned, spinning, free links, measured charging,
/// links that hold the engine's whole flood-fill window (queue + a request + a no-more).
pub fn native_config(queue: usize) -> MachineConfig {
    MachineConfig {
        mode: TimeMode::Native,
        wait: WaitStrategy::Spin,
        compute: Some(ComputeCharge::Measured),
        capacity: queue.saturating_add(2),
        deadlock_check: Duration::from_millis(50),
        ..MachineConfig::default()
    }
}

/// Runs `workload` on `inputs` on the runtime with `processors` processors. The OCL array
/// checks its output against `reference` itself; the caller checks every other output.
pub fn run(
    workload: &Workload,
    inputs: Inputs,
    processors: usize,
    reference: &Output,
) -> Result<RuntimeRun, RuntimeError> {
    let topology = workload.kernel.topology(processors)?;
    let config = native_config(workload.queue);
    let engine = EngineConfig {
        beta_e: Duration::ZERO,
        beta_f: Duration::ZERO,
        queue: workload.queue,
        split_limits: None,
    };
    let (output, report, spec): (Output, RunReport, RunSpec) = match (workload.kernel, inputs) {
        (Kernel::PrimesChain | Kernel::PrimesTree, _) => {
            let machine = Machine::new(topology.clone(), config)?;
            let spec = FarmSpec {
                tasks: workload.tasks as usize,
                kernel: FarmKernel::Primes {
                    grain: workload.grain,
                },
                ..FarmSpec::default()
            };
            let run = farm::run(&machine, &spec, &engine)?;
            (
                Output::Counts(run.values),
                run.engine.report,
                machine.spec().clone(),
            )
        }
        (Kernel::Mergesort, Inputs::Lists(lists)) => {
            let machine = Machine::new(topology.clone(), config)?;
            let run = run_mergesort(&machine, lists, MIN_SPLIT, &engine)?;
            let sorted = run.engine.outputs.into_iter().map(|k| k.0).collect();
            (
                Output::Sorted(sorted),
                run.engine.report,
                machine.spec().clone(),
            )
        }
        (Kernel::Ising, Inputs::Ising(config_ising)) => {
            let machine = Machine::new(topology.clone(), config)?;
            let samples = Samples::Fixed {
                samples: workload.tasks,
            };
            let run = run_parallel(&machine, &config_ising, samples, Mechanism::Tree)?;
            (
                Output::Summary(Box::new(run.summary)),
                run.report,
                machine.spec().clone(),
            )
        }
        (Kernel::Ocl, Inputs::Stream(a)) => {
            let n = workload.window;
            let grain = Grain::new(n, n / processors.max(1), workload.grain as usize)?;
            let want = match reference {
                Output::Stream(b) => b.as_slice(),
                _ => &[],
            };
            let machine = pipeline_machine(grain, PipelineCosts::Native, &config)?;
            let run = run_pipeline_against(grain, &a, PipelineCosts::Native, &machine, want)?;
            (
                Output::Stream(run.output),
                run.report,
                machine.spec().clone(),
            )
        }
        (kernel, _) => unreachable!("inputs made for another kernel than {}", kernel.name()),
    };
    Ok(RuntimeRun {
        output,
        wall_s: report.wall.run_s,
        setup_s: report.wall.setup_s,
        topology,
        spec,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::speedup::host::usable_cores;
    use crate::speedup::{rayon as with_rayon, scoped, sequential};

    /// A small workload of every kernel (OCL's window divisible by P × K for P ≤ 4).
    fn small(kernel: Kernel) -> Workload {
        let mut w = Workload::new(kernel);
        (w.tasks, w.grain) = match kernel {
            Kernel::PrimesChain | Kernel::PrimesTree => (23, 300),
            Kernel::Mergesort => (5, 777),
            Kernel::Ising => (9, 2),
            Kernel::Ocl => (101, 2),
        };
        w.window = 48;
        w
    }

    #[test]
    fn every_variant_equals_the_sequential_reference_at_every_p() {
        for kernel in Kernel::ALL {
            let w = small(kernel);
            let inputs = w.inputs().unwrap();
            let reference = sequential::run(&w, inputs.clone()).unwrap();
            // The runtime runs natively: one pinned processor per core at most.
            for p in 1..=usable_cores().min(4) {
                let r = run(&w, inputs.clone(), p, &reference).unwrap();
                assert_eq!(r.output, reference, "{} runtime, P = {p}", kernel.name());
                assert_eq!(r.topology.len(), p);
            }
            // The baselines need no core of their own.
            for p in 1..=4 {
                let pool = with_rayon::pool(p).unwrap();
                let out = with_rayon::run(&w, inputs.clone(), &pool).unwrap();
                assert_eq!(out, reference, "{} rayon, P = {p}", kernel.name());
                let out = scoped::run(&w, inputs.clone(), p).unwrap();
                assert_eq!(out, reference, "{} scoped, P = {p}", kernel.name());
            }
        }
    }

    #[test]
    fn more_processors_than_cores_are_refused_natively() {
        let w = small(Kernel::PrimesChain);
        let inputs = w.inputs().unwrap();
        let reference = sequential::run(&w, inputs.clone()).unwrap();
        let err = run(&w, inputs, usable_cores() + 1, &reference).unwrap_err();
        assert!(
            matches!(
                err,
                RuntimeError::Config(ConfigError::NotEnoughCores { .. })
            ),
            "{err}"
        );
    }
}
