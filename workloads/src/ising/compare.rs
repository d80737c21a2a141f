//! One run of the ising program measured as the scalability paper measures it (§2, §5): the
//! emulated run time `T`, the native time `C` of one sample measured on this host around the
//! run, the ideal run time `C·W_p(P)/P` and the system overhead `Φ_s(P) = T / ideal`, beside
//! the physics (with Onsager's exact values in 2D).
//!
//! `Φ_s` is computed here for one run; the scalability analysis over many runs lives in
//! [`crate::analysis`].

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use multicomputer_runtime::{ComputeCharge, CostTable, Fidelity, Machine, Trace, WorkUnit};
use serde::Serialize;

use super::parallel::{Mechanism, ParallelError, run_parallel};
use super::reference::{Estimate, SUMMARY_MERGE, run_sequential};
use super::{
    ACCEPTED_FLIP, ATTEMPTED_FLIP, Dimension, IsingConfig, IsingError, NEIGHBOUR_READ, Workload,
    exact, run_sample,
};
use crate::hints::Hints;
use crate::repetitions::Quantities;

/// One ising run to measure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IsingExperiment {
    /// The physics of a sample.
    pub config: IsingConfig,
    /// Samples per processor or in all.
    pub workload: Workload,
    /// Centralized or tree control.
    pub mechanism: Mechanism,
    /// Busy-loop iterations per message send (reported; the machine charges it).
    pub loop_count: u64,
}

/// Exact values of the infinite square lattice at the run's temperature (Onsager).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ExactValues {
    /// `⟨|m|⟩` per spin.
    pub abs_magnetisation: f64,
    /// `⟨e⟩` per spin.
    pub energy: f64,
}

/// What model charging charges one sample: its attempted flips, its accepted flips and the
/// neighbour spins its attempts summed, each at the machine's cost per unit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FlipCharge {
    /// Attempted flips per sample (sweeps × spins).
    pub attempted_per_sample: f64,
    /// Accepted flips per sample, the run's mean.
    pub accepted_per_sample: f64,
    /// Neighbour spins read per sample (4 an attempt in 2D, 6 in 3D).
    pub neighbours_per_sample: f64,
    /// The cost of one attempted flip, ns.
    pub attempted_ns: f64,
    /// The cost of one accepted flip besides its attempt, ns.
    pub accepted_ns: f64,
    /// The cost of one neighbour spin read into an attempt's sum, ns.
    pub neighbour_ns: f64,
}

impl FlipCharge {
    /// Each count per sample with its cost per unit, ns: attempted, accepted, neighbours read.
    pub fn terms(&self) -> [(f64, f64); 3] {
        [
            (self.attempted_per_sample, self.attempted_ns),
            (self.accepted_per_sample, self.accepted_ns),
            (self.neighbours_per_sample, self.neighbour_ns),
        ]
    }

    /// The charge of one sample, seconds.
    pub fn sample_s(&self) -> f64 {
        self.terms().iter().map(|(n, ns)| n * ns).sum::<f64>() / 1e9
    }
}

/// One measured ising run.
#[derive(Debug, Clone, Serialize)]
pub struct IsingMeasurement {
    /// The control mechanism.
    pub mechanism: Mechanism,
    /// Processors P.
    pub processors: usize,
    /// Lattice dimension.
    pub dimension: Dimension,
    /// Linear size L.
    pub size: usize,
    /// Temperature T.
    pub temperature: f64,
    /// `T_c` of the dimension.
    pub critical_temperature: f64,
    /// Sweeps before measuring.
    pub thermalisation_sweeps: u32,
    /// Measured sweeps.
    pub measurement_sweeps: u32,
    /// The workload.
    pub workload: Workload,
    /// Samples in the run.
    pub samples: u64,
    /// Busy-loop iterations per message send.
    pub loop_count: u64,
    /// The emulated makespan T.
    pub run_time_s: f64,
    /// `⟨|m|⟩` per spin.
    pub abs_magnetisation: Estimate,
    /// `⟨m⟩` per spin.
    pub magnetisation: Estimate,
    /// `⟨e⟩` per spin.
    pub energy: Estimate,
    /// 2D only: Onsager's exact values (infinite lattice).
    pub exact_2d: Option<ExactValues>,
    /// Accepted over attempted flips.
    pub acceptance_ratio: f64,
    /// Net change of the magnetisation over all samples.
    pub delta_magnetisation: i64,
    /// Messages sent by all processors.
    pub messages_sent: u64,
    /// Messages sent by processor 0 alone (the hot spot).
    pub root_messages_sent: u64,
    /// Emulated compute time per sample (CPU time charged, merges included).
    pub emulated_sample_s: f64,
    /// With model charging, how a sample's flips were charged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flip_charge: Option<FlipCharge>,
    /// Wall time of one sample run natively on this thread: the median of up to five samples
    /// run just before the emulated run and five just after (the host's speed drifts).
    pub native_sample_s: f64,
    /// (emulated − native)/native per sample, percent.
    pub sample_time_error_pct: f64,
    /// The largest compute time per sample charged to one processor (CPU time; a host stall in
    /// the middle of a sample, such as a virtual CPU descheduled, shows here).
    pub max_processor_sample_s: f64,
    /// Ideal run time `C·W_p(P)/P` (paper §2) with `C` from the native sample: the busiest
    /// processor's share of samples × native sample time.
    pub ideal_run_time_s: f64,
    /// `Φ_s(P) = T / ideal run time` (paper, after (1)).
    pub system_overhead: f64,
    /// Speedup against the samples run one after the other natively (`samples × native
    /// sample`), the paper's rough (scaled) speedup.
    pub speedup: f64,
    /// Checked against the sequential reference: true if equal, null if not run.
    pub verified: Option<bool>,
    /// The time mode the machine ran in.
    pub mode: &'static str,
    /// The dilation factor D (none in virtual time).
    pub dilation: Option<f64>,
    /// Wall time, seconds.
    pub wall_s: f64,
    /// How faithfully the host kept emulated time.
    pub fidelity: Fidelity,
    /// The event trace, if the machine recorded one.
    #[serde(skip)]
    pub trace: Option<Trace>,
}

impl Quantities for IsingMeasurement {
    fn quantities(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("run_time_s", self.run_time_s),
            ("native_sample_s", self.native_sample_s),
            ("emulated_sample_s", self.emulated_sample_s),
            ("system_overhead", self.system_overhead),
            ("speedup", self.speedup),
            ("wall_s", self.wall_s),
        ]
    }
}

/// The median of `times` (the upper one of an even count); zero for none.
pub fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

impl IsingExperiment {
    /// Wall times of up to five samples run natively on this thread, one after the other
    /// (fewer when they are slow: a sample over 200 ms ends the series).
    pub fn native_sample_times(&self) -> Result<Vec<Duration>, IsingError> {
        let mut times = Vec::with_capacity(5);
        for k in 0..5 {
            let start = Instant::now();
            std::hint::black_box(run_sample(&self.config, k)?);
            times.push(start.elapsed());
            if start.elapsed() > Duration::from_millis(200) {
                break;
            }
        }
        Ok(times)
    }

    /// What model charging gives a sample of a run of `samples` whose processors declared
    /// `declared` units of work in all (by unit name, as the run's report counts them): its
    /// share of the attempted flips, the accepted ones and the neighbours read, each at the machine's
    /// cost per unit.
    pub fn flip_charge(
        &self,
        costs: &CostTable,
        samples: u64,
        declared: &BTreeMap<String, u64>,
    ) -> Result<FlipCharge, IsingError> {
        let cost = |unit: WorkUnit| {
            costs
                .unit_ns(unit)
                .ok_or_else(|| IsingError::Model(format!("no cost for the unit '{}'", unit.0)))
        };
        let per_sample = |unit: WorkUnit| {
            declared.get(unit.name()).copied().unwrap_or(0) as f64 / samples.max(1) as f64
        };
        Ok(FlipCharge {
            attempted_per_sample: per_sample(ATTEMPTED_FLIP),
            accepted_per_sample: per_sample(ACCEPTED_FLIP),
            neighbours_per_sample: per_sample(NEIGHBOUR_READ),
            attempted_ns: cost(ATTEMPTED_FLIP)?,
            accepted_ns: cost(ACCEPTED_FLIP)?,
            neighbour_ns: cost(NEIGHBOUR_READ)?,
        })
    }

    /// What auto mode should know on `processors`: real compute on every processor at once
    /// (compute share 1) and the expected wake-up rate, three events per sample (two messages
    /// and a compute interval) over a run no shorter than `samples per processor × native
    /// sample time`.
    pub fn hints(&self, processors: usize, native_sample: Duration) -> Result<Hints, IsingError> {
        let p = u32::try_from(processors).map_err(|_| IsingError::ZeroProcessors)?;
        let samples = self.workload.samples(p)?;
        let shortest_run_s = samples.div_ceil(u64::from(p)) as f64 * native_sample.as_secs_f64();
        let events = 3.0 * samples as f64 + 2.0 * f64::from(p);
        Ok(Hints {
            compute_share: 1.0,
            smallest_cost: None,
            events_per_s: (shortest_run_s > 0.0).then(|| events / shortest_run_s),
            min_capacity: 1,
            units: vec![ATTEMPTED_FLIP, ACCEPTED_FLIP, NEIGHBOUR_READ, SUMMARY_MERGE],
        })
    }

    /// Runs on `machine` and measures. `native_before` are the native sample times measured
    /// before the machine was built ([`Self::native_sample_times`]); as many are measured
    /// after the run, and their median is `C`. With `verify`, the sequential reference runs
    /// too and the physics must equal it bit for bit.
    pub fn run(
        &self,
        machine: &Machine,
        mut native_before: Vec<Duration>,
        verify: bool,
    ) -> Result<IsingMeasurement, ParallelError> {
        let run = run_parallel(machine, &self.config, self.workload, self.mechanism)?;
        native_before.extend(self.native_sample_times()?);
        let native_s = median(native_before).as_secs_f64();
        let processors = machine.topology().len();
        let s = &run.summary;
        let busiest = run.samples.div_ceil(processors as u64);
        // C, the time of one sample: with model charging, what the machine charges a sample
        // on average (so that Φ_s is exact and repeatable); else the native time measured
        // around the run.
        let flip_charge = match machine.charging().charge() {
            ComputeCharge::Model => Some(self.flip_charge(
                machine.charging().costs(),
                run.samples,
                &run.report.work.units,
            )?),
            ComputeCharge::Measured => None,
        };
        let sample_s = flip_charge.map_or(native_s, |f| f.sample_s());
        let ideal = busiest as f64 * sample_s;
        let emulated_sample_s = run.compute_per_sample_s();
        let config = &self.config;
        let verified = if verify {
            Some(run_sequential(config, run.samples)? == run.summary)
        } else {
            None
        };
        Ok(IsingMeasurement {
            mechanism: self.mechanism,
            processors,
            dimension: config.dimension,
            size: config.size,
            temperature: config.temperature,
            critical_temperature: exact::critical_temperature(config.dimension),
            thermalisation_sweeps: config.thermalisation_sweeps,
            measurement_sweeps: config.measurement_sweeps,
            workload: self.workload,
            samples: run.samples,
            loop_count: self.loop_count,
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
            flip_charge,
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
            speedup: run.samples as f64 * sample_s / run.run_time_s(),
            verified,
            mode: run.report.time.name(),
            dilation: run.report.time.dilation(),
            wall_s: run.report.wall_s(),
            fidelity: run.report.fidelity.clone(),
            trace: run.trace,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_takes_the_middle() {
        let ms = Duration::from_millis;
        assert_eq!(median(vec![ms(5), ms(1), ms(3)]), ms(3));
        assert_eq!(median(vec![ms(4), ms(1)]), ms(4));
        assert_eq!(median(Vec::new()), Duration::ZERO);
    }

    #[test]
    fn hints_count_three_events_per_sample_over_the_shortest_run() {
        let e = IsingExperiment {
            config: IsingConfig::new(Dimension::Two, 4, 2.0).unwrap(),
            workload: Workload::Scaled {
                samples_per_processor: 3,
            },
            mechanism: Mechanism::Tree,
            loop_count: 0,
        };
        // 4 processors × 3 samples = 12; (3·12 + 2·4) events over 3 × 10 ms.
        let h = e.hints(4, Duration::from_millis(10)).unwrap();
        assert!((h.events_per_s.unwrap() - 44.0 / 0.03).abs() < 1e-9);
        assert_eq!(h.compute_share, 1.0);
        assert!(e.hints(0, Duration::from_millis(10)).is_err());
    }
}
