//! A kernel on the runtime, natively: P pinned processors that spin while they wait (D = 1),
//! free links (no emulated start-up or transfer cost: what the runtime itself costs is what
//! is measured), real work charged by its wall time (the monotonic clock, as the runtime
//! charges measured work natively).

use std::time::Duration;

use multicomputer_runtime::{
    ComputeCharge, ConfigError, CutLinkFidelity, Machine, MachineConfig, RunError, RunReport,
    RunSpec, TimeMode, Topology, TopologyError, WaitStrategy,
};
use thiserror::Error;

use crate::dnc::{DncError, MIN_SPLIT, run_mergesort};
use crate::farm::{self, FarmError, FarmSpec, Kernel as FarmKernel};
use crate::ising::{Mechanism, ParallelError, Workload as Samples, run_parallel};
use crate::ocl::{
    Grain, OclError, PipelineCosts, PipelineError, pipeline_config, pipeline_topology,
    run_pipeline_against,
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
    /// The machine given is not the workload's (see [`machine_config`]).
    #[error("the machine given is not {kernel}'s on {processors} processors")]
    Shape {
        /// The kernel.
        kernel: &'static str,
        /// The machine's processors.
        processors: usize,
    },
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
    /// Over MPI ranks (`--partitions`), how the messages that crossed ranks kept their
    /// emulated times; `None` in one process.
    pub cut_links: Option<CutLinkFidelity>,
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

/// The machine a run of `workload` on `processors` processors needs: its topology (for OCL
/// the linear array `[N/P, K]`, see [`pipeline_topology`]) and its configuration
/// ([`native_config`]; OCL's with free links and its hints, see [`pipeline_config`]). The
/// caller builds it once per P and hands it to every [`run`]: OCL's array is the same at
/// every packet size K, so one machine serves every grain.
pub fn machine_config(
    workload: &Workload,
    processors: usize,
) -> Result<(Topology, MachineConfig), RuntimeError> {
    let config = native_config(workload.queue);
    Ok(match workload.kernel {
        Kernel::Ocl => {
            let grain = ocl_grain(workload, processors)?;
            let config = pipeline_config(grain, PipelineCosts::Native, &config);
            (pipeline_topology(grain)?, config)
        }
        kernel => (kernel.topology(processors)?, config),
    })
}

/// OCL's grain on P processors: `[N/P, K]`.
fn ocl_grain(workload: &Workload, processors: usize) -> Result<Grain, OclError> {
    let n = workload.window;
    Grain::new(n, n / processors.max(1), workload.grain as usize)
}

/// Runs `workload` on `inputs` on `machine` (see [`machine_config`]), with as many processors
/// as it has. The OCL array checks its output against `reference` itself; the caller checks
/// every other output. A machine of another shape than the workload's on that many
/// processors is refused before it runs.
pub fn run(
    workload: &Workload,
    inputs: Inputs,
    machine: &Machine,
    reference: &Output,
) -> Result<RuntimeRun, RuntimeError> {
    let processors = machine.topology().len();
    let (topology, _) = machine_config(workload, processors)?;
    if *machine.topology() != topology {
        return Err(RuntimeError::Shape {
            kernel: workload.kernel.name(),
            processors,
        });
    }
    let engine = EngineConfig {
        beta_e: Duration::ZERO,
        beta_f: Duration::ZERO,
        queue: workload.queue,
        split_limits: None,
    };
    let (output, report): (Output, RunReport) = match (workload.kernel, inputs) {
        (Kernel::PrimesChain | Kernel::PrimesTree, _) => {
            let spec = FarmSpec {
                tasks: workload.tasks as usize,
                kernel: FarmKernel::Primes {
                    grain: workload.grain,
                },
                ..FarmSpec::default()
            };
            let run = farm::run(machine, &spec, &engine)?;
            (Output::Counts(run.values), run.engine.report)
        }
        (Kernel::Mergesort, Inputs::Lists(lists)) => {
            let run = run_mergesort(machine, lists, MIN_SPLIT, &engine)?;
            let sorted = run.engine.outputs.into_iter().map(|k| k.0).collect();
            (Output::Sorted(sorted), run.engine.report)
        }
        (Kernel::Ising, Inputs::Ising(config_ising)) => {
            let samples = Samples::Fixed {
                samples: workload.tasks,
            };
            let run = run_parallel(machine, &config_ising, samples, Mechanism::Tree)?;
            (Output::Summary(Box::new(run.summary)), run.report)
        }
        (Kernel::Ocl, Inputs::Stream(a)) => {
            let grain = ocl_grain(workload, processors)?;
            let want = match reference {
                Output::Stream(b) => b.as_slice(),
                _ => &[],
            };
            let run = run_pipeline_against(grain, &a, PipelineCosts::Native, machine, want)?;
            (Output::Stream(run.output), run.report)
        }
        (kernel, _) => unreachable!("inputs made for another kernel than {}", kernel.name()),
    };
    Ok(RuntimeRun {
        output,
        wall_s: report.wall.run_s,
        setup_s: report.wall.setup_s,
        topology,
        spec: machine.spec().clone(),
        cut_links: report.fidelity.cut_links,
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

    /// The machine a run of `w` on P processors needs, built.
    fn machine(w: &Workload, p: usize) -> Machine {
        let (topology, config) = machine_config(w, p).unwrap();
        Machine::new(topology, config).unwrap()
    }

    #[test]
    fn every_variant_equals_the_sequential_reference_at_every_p() {
        for kernel in Kernel::ALL {
            let w = small(kernel);
            let inputs = w.inputs().unwrap();
            let reference = sequential::run(&w, inputs.clone()).unwrap();
            // The runtime runs natively: one pinned processor per core at most.
            for p in 1..=usable_cores().min(4) {
                let r = run(&w, inputs.clone(), &machine(&w, p), &reference).unwrap();
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
    fn a_run_uses_the_machine_it_is_given() {
        for kernel in Kernel::ALL {
            let w = small(kernel);
            let inputs = w.inputs().unwrap();
            let reference = sequential::run(&w, inputs.clone()).unwrap();
            // Unlike the workload's own configuration: sleeping waits, a larger capacity.
            let (topology, config) = machine_config(&w, 1).unwrap();
            let own = Machine::new(topology.clone(), config.clone()).unwrap();
            let given = MachineConfig {
                wait: WaitStrategy::Sleep,
                capacity: config.capacity + 5,
                ..config
            };
            let given = Machine::new(topology, given).unwrap();
            assert_eq!(own.spec().wait, WaitStrategy::Spin);
            let r = run(&w, inputs, &given, &reference).unwrap();
            assert_eq!(r.output, reference, "{}", kernel.name());
            assert_eq!(r.spec.wait, WaitStrategy::Sleep, "{}", kernel.name());
            assert_eq!(r.spec.capacity, given.spec().capacity, "{}", kernel.name());
            assert_ne!(r.spec.capacity, own.spec().capacity, "{}", kernel.name());
        }
    }

    #[test]
    fn a_machine_of_another_shape_is_refused_before_it_runs() {
        // OCL's array against the farm's chain, both of one processor.
        let w = small(Kernel::Ocl);
        let inputs = w.inputs().unwrap();
        let reference = sequential::run(&w, inputs.clone()).unwrap();
        let chain = machine(&small(Kernel::PrimesChain), 1);
        let err = run(&w, inputs, &chain, &reference).unwrap_err();
        assert!(
            matches!(err, RuntimeError::Shape { processors: 1, .. }),
            "{err}"
        );
    }
}
