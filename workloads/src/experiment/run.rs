//! An experiment on a user's program: its machine per processor count, warm-up and measured
//! runs with their seeds, each point measured beside the model, and a sweep over P.

use multicomputer_runtime::{Machine, MachineConfig, RunReport, Topology, TopologyError};
use serde::Serialize;

use super::{ExperimentError, Model, Parameter, ProgramError};
use crate::repetitions::Summary;
use crate::tree::error_pct;

/// The topology of `P` processors.
type Network<'a> = dyn Fn(usize) -> Result<Topology, TopologyError> + 'a;

/// The program: one run on the machine, drawing from the seed; it checks its own results
/// against its sequential reference and returns the machine's run report.
type Program<'a> = dyn Fn(&Machine, u64) -> Result<RunReport, ProgramError> + 'a;

/// A user's program with its model, run as the built-in programs are: per processor count,
/// `warmup` discarded runs and `runs` measured ones, each measured beside the model.
///
/// Run `k` (from 0) of the measured runs draws from `seed + k`, so that repeated runs draw
/// afresh and each can be re-run alone; warm-up runs draw from `seed`.
pub struct Experiment<'a> {
    name: String,
    network: Box<Network<'a>>,
    config: MachineConfig,
    program: Box<Program<'a>>,
    model: Model<'a>,
    runs: u32,
    warmup: u32,
    seed: u64,
}

impl std::fmt::Debug for Experiment<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Experiment")
            .field("name", &self.name)
            .field("model", &self.model)
            .field("runs", &self.runs)
            .field("warmup", &self.warmup)
            .field("seed", &self.seed)
            .finish_non_exhaustive()
    }
}

/// One processor count measured beside the model.
#[derive(Debug, Clone, Serialize)]
pub struct Point {
    /// P.
    pub processors: usize,
    /// The topology, as it is written on the command line.
    pub topology: String,
    /// The time mode the machine ran in (`native`, `dilated` or `virtual`).
    pub mode: &'static str,
    /// The seed of each measured run.
    pub seeds: Vec<u64>,
    /// Each measured run's emulated makespan, seconds.
    pub makespans_s: Vec<f64>,
    /// Their mean ± sd, minimum and maximum.
    pub measured: Summary,
    /// The model's makespan with the parameters' given values, seconds.
    pub predicted_s: f64,
    /// `100 (measured mean − predicted)/predicted`.
    pub error_pct: f64,
    /// The machine the point ran on (the model's input).
    #[serde(skip)]
    pub machine: Machine,
    /// The measured runs' reports.
    #[serde(skip)]
    pub reports: Vec<RunReport>,
}

/// An experiment's points, over the processor counts of a sweep.
#[derive(Debug, Clone, Serialize)]
pub struct Sweep {
    /// The experiment's name.
    pub name: String,
    /// The model's parameters with their given values.
    pub parameters: Vec<Parameter>,
    /// Measured runs per point.
    pub runs: u32,
    /// Discarded warm-up runs per point.
    pub warmup: u32,
    /// The seed of the first measured run.
    pub seed: u64,
    /// The points, in the order swept.
    pub points: Vec<Point>,
}

impl<'a> Experiment<'a> {
    /// The experiment `name` of `program` on `network(P)` machines configured by `config`,
    /// beside `model`; one measured run, no warm-up, seed 1 until said otherwise.
    pub fn new(
        name: &str,
        network: impl Fn(usize) -> Result<Topology, TopologyError> + 'a,
        config: MachineConfig,
        program: impl Fn(&Machine, u64) -> Result<RunReport, ProgramError> + 'a,
        model: Model<'a>,
    ) -> Self {
        Self {
            name: name.to_string(),
            network: Box::new(network),
            config,
            program: Box::new(program),
            model,
            runs: 1,
            warmup: 0,
            seed: 1,
        }
    }

    /// With `runs` measured runs per point (at least 1).
    pub fn runs(mut self, runs: u32) -> Self {
        self.runs = runs;
        self
    }

    /// With `warmup` discarded runs before the measured ones.
    pub fn warmup(mut self, warmup: u32) -> Self {
        self.warmup = warmup;
        self
    }

    /// With the seed of the first measured run.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The experiment's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The model.
    pub fn model(&self) -> &Model<'a> {
        &self.model
    }

    /// The seed of run `i` of a point (warm-up runs first): `seed` for warm-up runs,
    /// `seed + k` for measured run `k`.
    fn run_seed(&self, i: u32) -> u64 {
        self.seed
            .wrapping_add(u64::from(i.saturating_sub(self.warmup)))
    }

    /// Runs the program on `processors` processors: the warm-up runs, then the measured
    /// ones, beside the model.
    pub fn point(&self, processors: usize) -> Result<Point, ExperimentError> {
        if self.runs == 0 {
            return Err(ExperimentError::NoRuns);
        }
        let topology = (self.network)(processors)
            .map_err(|source| ExperimentError::Topology { processors, source })?;
        let machine = Machine::new(topology, self.config.clone())
            .map_err(|source| ExperimentError::Machine { processors, source })?;
        let predicted_s = self.model.predict_s(&machine, &self.model.values());
        if !(predicted_s.is_finite() && predicted_s > 0.0) {
            return Err(ExperimentError::Prediction {
                processors,
                value: predicted_s,
            });
        }
        let mut reports = Vec::with_capacity(self.runs as usize);
        let mut seeds = Vec::with_capacity(self.runs as usize);
        for i in 0..self.warmup.saturating_add(self.runs) {
            let seed = self.run_seed(i);
            let report =
                (self.program)(&machine, seed).map_err(|source| ExperimentError::Program {
                    processors,
                    seed,
                    source,
                })?;
            if i >= self.warmup {
                reports.push(report);
                seeds.push(seed);
            }
        }
        let makespans_s: Vec<f64> = reports.iter().map(|r| r.makespan_s).collect();
        let measured =
            Summary::of(&makespans_s).ok_or(ExperimentError::NoMakespan { processors })?;
        Ok(Point {
            processors: machine.topology().len(),
            topology: machine.topology().to_string(),
            mode: machine.spec().time.name(),
            seeds,
            error_pct: error_pct(measured.mean, predicted_s),
            makespans_s,
            measured,
            predicted_s,
            machine,
            reports,
        })
    }

    /// Runs every processor count of `processors` in turn ([`Experiment::point`]).
    pub fn sweep(
        &self,
        processors: impl IntoIterator<Item = usize>,
    ) -> Result<Sweep, ExperimentError> {
        let points = processors
            .into_iter()
            .map(|p| self.point(p))
            .collect::<Result<Vec<_>, _>>()?;
        if points.is_empty() {
            return Err(ExperimentError::EmptySweep);
        }
        Ok(Sweep {
            name: self.name.clone(),
            parameters: self.model.parameters().to_vec(),
            runs: self.runs,
            warmup: self.warmup,
            seed: self.seed,
            points,
        })
    }
}
