//! The OCL arrays on the emulated multicomputer: one process per emulated processor, connected
//! as a linear array ([`Topology::array`]), each process a [`Cell`] of the chosen grain.
//!
//! # Layout
//!
//! Processor `h` runs process `h` of the paper (`0 ≤ h < N/M`): processor 0 is the output end
//! (it produces `B`), processor `N/M − 1` the input end. Each step a process receives one
//! communication `(b, c, d)` from its right neighbour `h + 1`, steps its cell and sends one
//! communication to its left neighbour `h − 1` — the behaviour `(D̄_{h+1}; τ; D̄_h)*` of §2.3
//! and §3.3.
//!
//! The **environment** is not a processor of its own: the model (§2.3, §4) takes it as always
//! ready — it offers `A` to process `N/M − 1` whenever that process wants it, and takes `B` from
//! process 0 whenever offered. So the input end reads its packet from the environment
//! ([`Packet::source`]) and the output end writes `B` to it, each paying one communication
//! `α0 + Kα1`, on their own processors. The array then needs exactly `N/M` processors, as on the
//! paper's transputers (the 51st transputer was the host).
//!
//! # Emulated costs (how the model is reproduced)
//!
//! The paper's channels are occam channels: a communication is a *rendezvous*. It starts when
//! both the sender and the receiver are ready and takes `γ = α0 + Kα1` of *both* (§2.3: "as a
//! complexity measure for a (concurrent) communication statement … we take α"; the max-plus form
//! is [`model::schedule`]). The runtime's links are buffered, so a rendezvous is built on top:
//!
//! 1. the receiver, when ready, sends a zero-cost `Ready` to its right neighbour and waits for
//!    the data;
//! 2. the sender, when ready, takes the `Ready` (its clock moves to
//!    `max(sender ready, receiver ready)`, the start of the communication), sends the data
//!    (stamped with that start) and is busy for `γ` ([`Processor::occupy_comm`]);
//! 3. the receiver takes the data (its clock moves to the same start) and is busy for `γ`.
//!
//! Both end the communication at `γ + max(ready to send, ready to receive)`, which is the
//! recurrence of [`model::schedule`]. (In these uniform arrays the two ready times tie exactly:
//! `σ(D̄_{h+1}, i) + KMβ = σ(D̄_{h−1}, i−1)` by the closed form, so nobody ever waits for a
//! partner and a buffered channel would give the same times; the rendezvous keeps the
//! emulation right for arrays whose processes would not tie (cells of unequal cost).)
//!
//! A step's comparisons cost `β` each, `KM` per step
//! ([`StepCost::comparisons`](super::StepCost::comparisons), charged with
//! [`Processor::occupy`]); the cell's real work is done but not charged. Link costs are zero.
//! Hence the emulated time at which the input end has consumed its last packet is
//! `σ(D̄_{N/M}, ⌈L/K⌉ − 1)` — §4.1's `(2L−1)α + M(L−1)β` and §4.2's
//! `(2L/K−1)(α0+Kα1) + K²(L/K−1)β` ([`model::consumption_time_s`]) — and process 0 finishes at
//! `t_{M,K}(L)` ([`model::output_time_s`]), up to the rounding of each cost to whole
//! nanoseconds. Emulated times come from message stamps, not from the host, and every receive
//! names its link (no race decides an outcome), so they are exact whatever the dilation.
//!
//! # Native costs
//!
//! With [`PipelineCosts::Native`] nothing is emulated: the cells' real work runs under
//! [`Processor::compute`], the real runtime channels carry the packets (no handshake; the
//! links buffer), and the times reported are wall-clock times measured by the processors
//! themselves. Run it in [`TimeMode::Native`](multicomputer_runtime::TimeMode) (a pinned core
//! per process) for the times to mean anything.
//!
//! Every run's output is checked against [`ocl_reference`]; a difference is an error.

use std::time::{Duration, Instant};

use multicomputer_runtime::{
    Hints, LinkCost, Machine, MachineConfig, Payload, Processor, ProcessorError, RunError,
    RunReport, Topology, TopologyError, Trace,
};
use serde::Serialize;
use thiserror::Error;

use super::cell::{Cell, CellCounters, OCL_COMPARISON, OCL_VALUE, Packet, SystolicCell};
use super::grain::{Grain, OclError};
use super::model::{self, Costs};
use super::reference::ocl_reference;

/// What the pipeline charges for communication and computation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum PipelineCosts {
    /// The model's costs, emulated: `α0 + Kα1` per communication, `β` per comparison.
    Emulated(Costs),
    /// Real compute and real channels, timed by the wall clock.
    Native,
}

/// Why a pipeline run failed.
#[derive(Debug, Error)]
pub enum PipelineError {
    /// The grain or a cell refused.
    #[error(transparent)]
    Ocl(#[from] OclError),
    /// The array could not be built.
    #[error(transparent)]
    Topology(#[from] TopologyError),
    /// The run failed (configuration, deadlock, a processor's error).
    #[error(transparent)]
    Run(#[from] RunError),
    /// The machine is not a pipeline's array (see [`pipeline_machine`]).
    #[error(
        "a pipeline of {processes} processes cannot run on a machine of {processors} processors"
    )]
    Machine {
        /// The machine's processors.
        processors: usize,
        /// The pipeline's processes.
        processes: usize,
    },
    /// An emulated cost is negative or not finite.
    #[error("emulated {name} must be a finite number ≥ 0 s, got {value_s}")]
    BadCost {
        /// Which constant.
        name: &'static str,
        /// Its value in seconds.
        value_s: f64,
    },
    /// The array's output differs from the sequential reference.
    #[error("output B({index}) = {got} differs from the sequential reference {want}")]
    Mismatch {
        /// First differing index.
        index: usize,
        /// The array's value.
        got: u64,
        /// The reference's value.
        want: u64,
    },
}

/// A finished, verified pipeline run.
#[derive(Debug)]
pub struct PipelineRun {
    /// The grain that ran.
    pub grain: Grain,
    /// `"emulated"` or `"native"`.
    pub costs: &'static str,
    /// The output stream `B` (equal to [`ocl_reference`]).
    pub output: Vec<u64>,
    /// Stream length `L`.
    pub l: u64,
    /// Packets fed into the array, `⌈L/K⌉`.
    pub packets: u64,
    /// Time at which the input end had consumed its last packet, seconds (emulated, or wall
    /// clock in native mode): the quantity the paper measured (§4).
    pub consumption_s: f64,
    /// Time at which process 0 had delivered the last output, seconds: `t_{M,K}(L)`.
    pub output_s: f64,
    /// Per process `h`: steps, communications and comparisons.
    pub cells: Vec<CellCounters>,
    /// The runtime's report (makespan, wall time, fidelity, per-processor accounting).
    pub report: RunReport,
    /// The event trace, if the machine was configured to record one.
    pub trace: Option<Trace>,
}

/// A message on a link of the array.
#[derive(serde::Serialize, serde::Deserialize)]
enum Message {
    /// The receiver is ready for the next communication (emulated rendezvous only).
    Ready,
    /// One communication `(b, c, d)`.
    Data(Packet),
}

impl Payload for Message {
    fn size_bytes(&self) -> u64 {
        match self {
            Self::Ready => 0,
            Self::Data(p) => 8 * (p.b.len() + p.c.len() + p.d.len()) as u64,
        }
    }
}

/// What one processor returns.
#[derive(serde::Serialize, serde::Deserialize)]
struct ProcessOutcome {
    /// `B`, from process 0 only.
    output: Vec<u64>,
    /// When the last input was consumed (the input end only), seconds.
    consumed_s: Option<f64>,
    /// When the process finished, seconds.
    finished_s: f64,
    counters: CellCounters,
}

/// Emulated costs in whole nanoseconds: per communication and per step's comparisons.
#[derive(Debug, Clone, Copy)]
struct StepNs {
    communication: Duration,
    compute: Duration,
}

fn checked_ns(name: &'static str, value_s: f64) -> Result<f64, PipelineError> {
    if value_s.is_finite() && value_s >= 0.0 {
        Ok(value_s * 1e9)
    } else {
        Err(PipelineError::BadCost { name, value_s })
    }
}

impl PipelineCosts {
    /// `emulated` or `native`, as runs and comparisons write it.
    pub fn name(self) -> &'static str {
        match self {
            PipelineCosts::Emulated(_) => "emulated",
            PipelineCosts::Native => "native",
        }
    }
}

fn step_ns(grain: Grain, costs: Costs) -> Result<StepNs, PipelineError> {
    let a0 = checked_ns("α0", costs.alpha0_s)?;
    let a1 = checked_ns("α1", costs.alpha1_s)?;
    let b = checked_ns("β", costs.beta_s)?;
    let comparisons = (grain.k() * grain.m()) as f64;
    Ok(StepNs {
        communication: Duration::from_nanos((a0 + grain.k() as f64 * a1).round() as u64),
        compute: Duration::from_nanos((b * comparisons).round() as u64),
    })
}

/// Expected wake-ups per emulated second of an emulated run (for choosing a dilation): per
/// step each process sends two messages (a `Ready` and the data) and waits for three deadlines
/// (two communications, one computation); a step takes `2(α0 + Kα1) + KMβ` (§3.3).
pub fn expected_events_per_s(grain: Grain, costs: Costs) -> f64 {
    let step_s = 2.0 * costs.packet_s(grain.k()) + model::step_compute_s(grain, costs);
    grain.processes() as f64 * 5.0 / step_s
}

/// The array a pipeline of `grain` runs on: a linear array of `N/M` processors.
pub fn pipeline_topology(grain: Grain) -> Result<Topology, TopologyError> {
    Topology::array(grain.processes())
}

/// What a pipeline of `grain` tells its machine: with emulated costs, the rate of
/// [`expected_events_per_s`] (for a dilation chosen for fidelity); the units its cells declare.
pub fn pipeline_hints(grain: Grain, costs: PipelineCosts) -> Hints {
    Hints {
        events_per_s: match costs {
            PipelineCosts::Emulated(c) => Some(expected_events_per_s(grain, c)),
            PipelineCosts::Native => None,
        },
        units: vec![OCL_COMPARISON, OCL_VALUE],
        ..Hints::default()
    }
}

/// The configuration of a pipeline's machine from `config` (time mode, wait strategy,
/// charging, trace): its link costs and capacity replaced (links are free, capacity 2: every
/// cost is charged by the program, see the module documentation), its hints
/// ([`pipeline_hints`]) put in.
pub fn pipeline_config(
    grain: Grain,
    costs: PipelineCosts,
    config: &MachineConfig,
) -> MachineConfig {
    MachineConfig {
        link: LinkCost::default(),
        capacity: 2,
        hints: pipeline_hints(grain, costs),
        ..config.clone()
    }
}

/// The machine a pipeline of `grain` runs on: [`pipeline_topology`] under
/// [`pipeline_config`].
pub fn pipeline_machine(
    grain: Grain,
    costs: PipelineCosts,
    config: &MachineConfig,
) -> Result<Machine, PipelineError> {
    let config = pipeline_config(grain, costs, config);
    Ok(Machine::new(pipeline_topology(grain)?, config).map_err(RunError::from)?)
}

/// Runs the array for `grain` on the stream `a` on `machine` (a linear array of `N/M`
/// processors, see [`pipeline_machine`]), and checks its output against [`ocl_reference`].
///
/// ```
/// use multicomputer_runtime::{MachineConfig, TimeMode, WaitStrategy};
/// use multicomputer_workloads::ocl::model::Costs;
/// use multicomputer_workloads::ocl::{Grain, PipelineCosts, pipeline_machine, run_pipeline};
///
/// // [M,1] = [2,1] on a window of 4: two processors, α = 10 µs, β = 1 µs.
/// let config = MachineConfig {
///     mode: TimeMode::Dilated(1.0),
///     wait: WaitStrategy::Sleep,
///     ..MachineConfig::default()
/// };
/// let costs = PipelineCosts::Emulated(Costs::single(10e-6, 1e-6));
/// let grain = Grain::m1(4, 2)?;
/// let machine = pipeline_machine(grain, costs, &config)?;
/// let run = run_pipeline(grain, &[1, 2, 1, 1, 3], costs, &machine)?;
/// assert_eq!(run.output, vec![1, 1, 2, 3, 1]);
/// // §4.1: consuming L = 5 inputs takes (2L − 1)α + M(L − 1)β = 90 + 8 µs.
/// assert!((run.consumption_s - 98e-6).abs() < 1e-12);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn run_pipeline(
    grain: Grain,
    a: &[i64],
    costs: PipelineCosts,
    machine: &Machine,
) -> Result<PipelineRun, PipelineError> {
    run_pipeline_against(grain, a, costs, machine, &ocl_reference(a, grain.n())?)
}

/// [`run_pipeline`], checked against `want`, the reference's output computed once by the
/// caller (for repeated runs of the same stream).
pub fn run_pipeline_against(
    grain: Grain,
    a: &[i64],
    costs: PipelineCosts,
    machine: &Machine,
    want: &[u64],
) -> Result<PipelineRun, PipelineError> {
    let steps = match costs {
        PipelineCosts::Emulated(c) => Some(step_ns(grain, c)?),
        PipelineCosts::Native => None,
    };
    let procs = grain.processes();
    if machine.topology().len() != procs {
        return Err(PipelineError::Machine {
            processors: machine.topology().len(),
            processes: procs,
        });
    }
    let k = grain.k();
    let packets = grain.packets_for(a.len() as u64);
    // Real costs are timed by the wall clock, except in virtual time, where the emulated clock
    // charges the real work itself.
    let emulated_clock = steps.is_some() || machine.spec().time.is_virtual();
    let record = machine.run(|p: &mut Processor<Message>| {
        let mut cell = Cell::specialised(grain);
        let h = p.id();
        let input_end = h + 1 == procs;
        let start = Instant::now();
        let elapsed_s = |p: &Processor<Message>| {
            if emulated_clock {
                p.now().as_secs_f64()
            } else {
                start.elapsed().as_secs_f64()
            }
        };
        let mut output = Vec::new();
        let mut consumed_s = None;
        for i in 0..packets as usize {
            // Receive D̄_{h+1}(i): from the environment at the input end, else from h + 1.
            let input = if input_end {
                if let Some(s) = steps {
                    p.occupy_comm(s.communication);
                }
                let values = &a[(i * k).min(a.len())..((i + 1) * k).min(a.len())];
                if values.len() == k {
                    Packet::source(values)
                } else {
                    // The last, partial packet: pad with zeros.
                    let mut padded = values.to_vec();
                    padded.resize(k, 0);
                    Packet::source(&padded)
                }
            } else {
                let right = p.children()[0];
                if let Some(s) = steps {
                    p.send(right, Message::Ready)?;
                    let data = expect_data(p.recv(right)?)?;
                    p.occupy_comm(s.communication);
                    data
                } else {
                    expect_data(p.recv(right)?)?
                }
            };
            if input_end && i + 1 == packets as usize {
                consumed_s = Some(elapsed_s(p));
            }
            // τ: KM comparisons.
            let out = match steps {
                Some(s) => {
                    let out = cell.step(input);
                    p.occupy(s.compute);
                    out
                }
                None => p.compute(|w| {
                    cell.step_cost().declare(w);
                    cell.step(input)
                }),
            }
            .map_err(|e| ProcessorError::Program(e.to_string()))?;
            // Send D̄_h(i): to the environment at the output end, else to h − 1.
            match p.parent() {
                None => {
                    output.extend_from_slice(&out.b);
                    if let Some(s) = steps {
                        p.occupy_comm(s.communication);
                    }
                }
                Some(left) => {
                    if let Some(s) = steps {
                        match p.recv(left)? {
                            Message::Ready => {}
                            Message::Data(_) => {
                                return Err(ProcessorError::Program(
                                    "data received from the output side".into(),
                                ));
                            }
                        }
                        p.send(left, Message::Data(out))?;
                        p.occupy_comm(s.communication);
                    } else {
                        p.send(left, Message::Data(out))?;
                    }
                }
            }
        }
        Ok(ProcessOutcome {
            output,
            consumed_s,
            finished_s: elapsed_s(p),
            counters: cell.counters(),
        })
    })?;
    let mut results = record.results;
    let mut output = std::mem::take(&mut results[0].output);
    output.truncate(a.len());
    let len = want.len().max(output.len());
    if let Some(index) = (0..len).find(|&i| output.get(i) != want.get(i)) {
        return Err(PipelineError::Mismatch {
            index,
            got: output.get(index).copied().unwrap_or(0),
            want: want.get(index).copied().unwrap_or(0),
        });
    }
    Ok(PipelineRun {
        grain,
        costs: costs.name(),
        output,
        l: a.len() as u64,
        packets,
        consumption_s: results[procs - 1].consumed_s.unwrap_or(0.0),
        output_s: results[0].finished_s,
        cells: results.iter().map(|r| r.counters).collect(),
        report: record.report,
        trace: record.trace,
    })
}

/// A random stream of `len` integers drawn uniformly from `lo..=hi` (seeded, reproducible), for
/// runs without an input file. A small range makes repeated values, which OCL counts, common.
pub fn random_stream(len: usize, lo: i64, hi: i64, seed: u64) -> Vec<i64> {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let (lo, hi) = (lo.min(hi), lo.max(hi));
    (0..len).map(|_| rng.random_range(lo..=hi)).collect()
}

fn expect_data(m: Message) -> Result<Packet, ProcessorError> {
    match m {
        Message::Data(p) => Ok(p),
        Message::Ready => Err(ProcessorError::Program(
            "a Ready arrived from the input side".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use multicomputer_runtime::{TimeMode, WaitStrategy};

    use super::super::model::{consumption_time_s, output_time_s};
    use super::*;

    /// Dilation 1 and sleeping waits: emulated times do not depend on the host.
    fn config() -> MachineConfig {
        MachineConfig {
            mode: TimeMode::Dilated(1.0),
            wait: WaitStrategy::Sleep,
            ..MachineConfig::default()
        }
    }

    fn machine(grain: Grain, costs: PipelineCosts) -> Machine {
        pipeline_machine(grain, costs, &config()).unwrap()
    }

    fn us(x: u64) -> f64 {
        x as f64 * 1e-6
    }

    #[test]
    fn random_streams_are_reproducible_and_in_range() {
        let a = random_stream(200, -3, 3, 7);
        assert_eq!(a, random_stream(200, -3, 3, 7));
        assert_ne!(a, random_stream(200, -3, 3, 8));
        assert!(a.iter().all(|v| (-3..=3).contains(v)));
        assert!(a.contains(&-3) && a.contains(&3));
    }

    fn grains() -> Vec<Grain> {
        [
            (1, 1, 1),
            (4, 1, 1),
            (6, 3, 1),
            (6, 6, 1),
            (6, 2, 2),
            (6, 3, 3),
            (12, 4, 2),
            (12, 6, 3),
            (12, 12, 4),
        ]
        .into_iter()
        .map(|(n, m, k)| Grain::new(n, m, k).unwrap())
        .collect()
    }

    #[test]
    fn every_grain_equals_the_reference_emulated_and_native() {
        let streams: Vec<Vec<i64>> = vec![
            random_stream(40, -3, 3, 1),
            random_stream(37, -100, 100, 2),
            vec![5; 23],                      // repeated values
            vec![-1, -1, 0, 0, -7, 3, -1, 0], // negative values and zeros (the padding)
            vec![9, 9],                       // L < N for most grains
            vec![-3],                         // a single element
        ];
        let costs = PipelineCosts::Emulated(Costs {
            alpha0_s: 3e-6,
            alpha1_s: 1e-6,
            beta_s: 2e-6,
        });
        for g in grains() {
            for a in &streams {
                for c in [costs, PipelineCosts::Native] {
                    let run = run_pipeline(g, a, c, &machine(g, c)).unwrap();
                    assert_eq!(run.output, ocl_reference(a, g.n()).unwrap(), "{g:?} {a:?}");
                    assert_eq!(run.cells.len(), g.processes());
                    let steps = g.packets_for(a.len() as u64);
                    assert!(run.cells.iter().all(|c| c.steps == steps), "{g:?}");
                }
            }
        }
    }

    #[test]
    fn an_empty_stream_gives_an_empty_output() {
        let g = Grain::m1(4, 2).unwrap();
        let run = run_pipeline(
            g,
            &[],
            PipelineCosts::Native,
            &machine(g, PipelineCosts::Native),
        )
        .unwrap();
        assert!(run.output.is_empty());
        assert_eq!(run.packets, 0);
    }

    #[test]
    fn hand_worked_fine_array_of_two() {
        // N = 2, fine grained, α = 10 µs, β = 1 µs, L = 3 (§2.3):
        // σ(d_k, i) = α + (N−k)(α+β) + i(2α+β)
        //   input channel d_2: 10, 31, 52 µs — consumption time 52 µs = (2L−1)α + (L−1)β;
        //   output channel d_0: 32, 53, 74 µs — t(3) = α(N+2L−1) + β(N+L−1) = 70 + 4 = 74 µs.
        let g = Grain::fine(2).unwrap();
        let c = Costs::single(us(10), us(1));
        let run = run_pipeline(
            g,
            &[1, 1, 2],
            PipelineCosts::Emulated(c),
            &machine(g, PipelineCosts::Emulated(c)),
        )
        .unwrap();
        assert_eq!(run.output, vec![1, 2, 1]);
        assert_eq!(
            Duration::from_secs_f64(run.consumption_s),
            Duration::from_micros(52)
        );
        assert_eq!(
            Duration::from_secs_f64(run.output_s),
            Duration::from_micros(74)
        );
        assert_eq!(run.report.makespan(), Duration::from_micros(74));
        // Each process: 3 steps of two communications and one comparison.
        for acct in &run.report.per_processor {
            assert_eq!(acct.accounting.compute_ns, 3_000);
            assert_eq!(acct.accounting.communication_ns, 60_000);
        }
    }

    #[test]
    fn emulated_times_equal_the_model() {
        let c = Costs {
            alpha0_s: 5.77e-6,
            alpha1_s: 7.42e-6,
            beta_s: 2.45e-6,
        };
        for g in grains() {
            for l in [1usize, 5, 24, 30] {
                let a = random_stream(l, -4, 4, l as u64);
                let run = run_pipeline(
                    g,
                    &a,
                    PipelineCosts::Emulated(c),
                    &machine(g, PipelineCosts::Emulated(c)),
                )
                .unwrap();
                // Every cost is a whole number of ns here, so the times agree to rounding.
                let want_in = consumption_time_s(g, c, l as u64);
                let want_out = output_time_s(g, c, l as u64);
                assert!((run.consumption_s - want_in).abs() < 1e-12, "{g:?} L={l}");
                assert!((run.output_s - want_out).abs() < 1e-12, "{g:?} L={l}");
            }
        }
    }

    #[test]
    fn bad_costs_and_grains_are_refused() {
        let e = run_pipeline(
            Grain::fine(2).unwrap(),
            &[1],
            PipelineCosts::Emulated(Costs::single(-1e-6, 1e-6)),
            &machine(Grain::fine(2).unwrap(), PipelineCosts::Native),
        )
        .unwrap_err();
        assert!(
            matches!(e, PipelineError::BadCost { name: "α0", .. }),
            "{e}"
        );
        // A window the parameters do not divide is refused before anything runs.
        assert_eq!(
            Grain::kk(10, 4).unwrap_err().to_string(),
            "packet size K = 4 does not divide window length N = 10"
        );
    }

    #[test]
    fn events_rate_counts_five_per_step_per_process() {
        let g = Grain::m1(10, 5).unwrap();
        let c = Costs::single(1e-6, 1e-6);
        // 2 processes × 5 events per step of 2 + 5 = 7 µs.
        assert!((expected_events_per_s(g, c) - 10.0 / 7e-6).abs() < 1e-3);
    }
}
