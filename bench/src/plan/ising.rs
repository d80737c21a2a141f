//! `ising`'s plan, and the lattice and message-system checks `scaling` shares.

use std::path::Path;

use multicomputer_runtime::{Hints, Topology};
use multicomputer_workloads::ising::{
    Dimension, IsingConfig, IsingError, IsingExperiment, Mechanism, Start, Workload,
};

use super::{ArgError, Footprint, Inputs, MachinePlan, OutputPlan, Repeat, TracePlan};
use crate::args::MAX_SAMPLES;
use crate::args::{
    DimensionArg, IsingArgs, LatticeArgs, MechanismArg, MessageSystemArgs, StartArg,
};

/// The mechanism a `--mechanism` names.
pub(crate) fn mechanism_of(m: MechanismArg) -> Mechanism {
    match m {
        MechanismArg::Centralized => Mechanism::Centralized,
        MechanismArg::Tree => Mechanism::Tree,
    }
}

/// The validated physics of a sample; errors name the flag.
pub(crate) fn lattice_config(a: &LatticeArgs) -> Result<IsingConfig, ArgError> {
    let config = IsingConfig {
        dimension: match a.dimension {
            DimensionArg::Two => Dimension::Two,
            DimensionArg::Three => Dimension::Three,
        },
        size: a.size,
        temperature: a.temperature,
        thermalisation_sweeps: a.thermalisation,
        measurement_sweeps: a.sweeps,
        seed: a.seed,
        start: match a.start {
            StartArg::Cold => Start::Cold,
            StartArg::Hot => Start::Hot,
        },
    };
    config.validate().map_err(|e| {
        let flag = match e {
            IsingError::BadTemperature(_) => "--temperature",
            IsingError::ZeroMeasurementSweeps => "--sweeps",
            _ => "--size",
        };
        ArgError::new(flag, e)
    })?;
    Ok(config)
}

/// Bytes one sample's measurements take.
const SAMPLE_BYTES: f64 = 64.0;

/// Checks the samples of `workload` on `processors` against [`MAX_SAMPLES`] (`flag` names
/// them) and what the run allocates: a lattice per busy processor (and the reference's), and
/// every sample's measurements. Returns the samples and that part of the memory model.
pub(crate) fn check_samples(
    config: &IsingConfig,
    workload: Workload,
    processors: u32,
    flag: &str,
) -> Result<(u64, Footprint), ArgError> {
    let samples = workload
        .samples(processors)
        .map_err(|e| ArgError::new(flag, e))?;
    if samples > MAX_SAMPLES {
        return Err(ArgError::new(
            flag,
            format!("{samples} samples in all is more than the limit of 10⁹"),
        ));
    }
    let spins = config.spins().map_err(|e| ArgError::new("--size", e))?;
    let lattices = samples.min(u64::from(processors)) + 1;
    let mut f = Footprint::new();
    f.add(
        "--size",
        format!("{lattices} lattices of {spins} spins"),
        lattices as f64 * spins as f64,
    )
    .add(
        flag,
        format!("{samples} samples' measurements"),
        samples as f64 * SAMPLE_BYTES,
    );
    f.check()?;
    Ok((samples, f))
}

/// Trace records one sample makes per level it travels (its work's interval, the request,
/// the sample's and the result's messages with their start-ups and waits).
const TRACE_RECORDS_PER_SAMPLE_HOP: f64 = 6.0;

/// The machine of an ising run: the message system's costs and `loop_count`, capacity 2.
/// The lattice's inputs (`ising` and `scaling` share them).
pub(crate) fn lattice_inputs(c: &IsingConfig) -> Inputs {
    let mut i = Inputs::new();
    i.add("dimension", c.dimension.d())
        .add("size", c.size)
        .add("temperature", c.temperature)
        .add("thermalisation", c.thermalisation_sweeps)
        .add("sweeps", c.measurement_sweeps)
        .add("seed", c.seed)
        .add(
            "start",
            match c.start {
                Start::Cold => "cold",
                Start::Hot => "hot",
            },
        );
    i
}

pub(crate) fn message_system(
    m: &MessageSystemArgs,
    loop_count: u64,
    out: &Path,
) -> Result<MachinePlan, ArgError> {
    let mut plan = MachinePlan::new(&m.time, out)?;
    plan.size_flag = "--processors";
    plan.link.send_overhead = m.send_overhead;
    plan.link.per_byte_ns = m.per_byte.as_nanos() as f64;
    plan.link.loop_count = loop_count;
    Ok(plan)
}

/// One ising run.
#[derive(Debug, Clone)]
pub(crate) struct IsingPlan {
    /// The program and its workload.
    pub(crate) experiment: IsingExperiment,
    /// The mechanism's topology on P processors.
    pub(crate) topology: Topology,
    /// How the machine is built.
    pub(crate) machine: MachinePlan,
    /// Check against the sequential reference.
    pub(crate) verify: bool,
    /// Trace files.
    pub(crate) trace: TracePlan,
    /// Repetitions.
    pub(crate) repeat: Repeat,
    /// Output.
    pub(crate) output: OutputPlan,
    /// The memory the run will hold, as the memory model plans it.
    pub(crate) memory: Footprint,
}

impl IsingPlan {
    /// Validates `ising`'s flags.
    pub(crate) fn new(a: &IsingArgs, out: &Path) -> Result<Self, ArgError> {
        let config = lattice_config(&a.lattice)?;
        let mechanism = mechanism_of(a.mechanism);
        let topology = mechanism
            .topology(a.processors as usize)
            .map_err(|e| ArgError::new("--processors", e))?;
        let workload = match a.samples {
            Some(samples) => Workload::Fixed { samples },
            None => Workload::Scaled {
                samples_per_processor: a.samples_per_processor,
            },
        };
        let flag = if a.samples.is_some() {
            "--samples"
        } else {
            "--samples-per-processor"
        };
        let (samples, mut memory) = check_samples(&config, workload, a.processors, flag)?;
        let trace = TracePlan::new(&a.trace)?;
        let output = OutputPlan::new(&a.output)?;
        super::distinct_outputs(Some(&trace), &output, &[])?;
        let machine = message_system(&a.messages, a.loop_count, out)?.tracing(&trace);
        // Auto mode's choice between threads and virtual time does not depend on the hints
        // (measured at the run: a sample's native time); the default ones resolve it alike.
        memory.machine(&topology, &machine, &Hints::default())?;
        if memory.traced() {
            let hops = 1.0 + super::budget::mean_depth(&topology);
            memory.trace(samples as f64 * hops * TRACE_RECORDS_PER_SAMPLE_HOP);
        }
        memory.check()?;
        Ok(Self {
            experiment: IsingExperiment {
                config,
                workload,
                mechanism,
                loop_count: a.loop_count,
            },
            topology,
            machine,
            verify: a.verify,
            trace,
            repeat: (&a.repeat).into(),
            output,
            memory,
        })
    }

    /// Every input.
    pub(crate) fn inputs(&self) -> Inputs {
        let mut i = lattice_inputs(&self.experiment.config);
        i.add("processors", self.topology.len())
            .add("mechanism", self.experiment.mechanism)
            .add(
                "workload",
                match self.experiment.workload {
                    Workload::Scaled {
                        samples_per_processor,
                    } => format!("{samples_per_processor} samples per processor"),
                    Workload::Fixed { samples } => format!("{samples} samples"),
                },
            )
            .add("verify", self.verify)
            .extend(self.machine.inputs())
            .extend(self.repeat.inputs());
        i
    }
}
