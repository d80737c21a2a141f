//! The *ising* program on the emulated multicomputer, under the two control mechanisms of the
//! scalability paper's §5: a poor, centralized one (the paper's PCM: "certain control messages
//! were used excessively, and there were hot spots") and a good, distributed one (the MCM: "does
//! not make excessive use of control messages and has a fairly uniform distribution of control
//! mechanism work").
//!
//! # The mechanisms
//!
//! * [`Mechanism::Centralized`] — a star: processor 0 is linked to every other processor and all
//!   distribution and collection goes through it. It hands out **one sample per control
//!   message** (`Unit`) and collects **one result message per sample** (`SampleDone`), then
//!   sends each worker a `Stop`. Processor 0 also computes samples itself, in the gaps: before
//!   taking a sample for itself it serves every result that has already arrived, but a sample,
//!   once started, is not interrupted (real compute cannot be pre-empted), so a worker whose
//!   result arrives meanwhile waits. Every message costs its sender the link's start-up cost
//!   and the `loop_count` busy loop, and processor 0 sends one message per sample of the whole
//!   run: its message work grows as `P × samples per processor`, a hot spot whose cost is
//!   linear in P once it exceeds a sample's time.
//! * [`Mechanism::Tree`] — any tree rooted at 0, by default a **binomial tree**
//!   (φ(i) = i with its highest bit cleared: the children of 0 are 1, 2, 4, …, P/2, the children
//!   of 1 are 3, 5, 9, …). The work description (`Work`: the total number of samples) is
//!   broadcast down the tree, each processor runs its contiguous block of samples
//!   ([`sample_range`]) and the partial sums ([`SummaryAccumulator`]) are reduced up the tree
//!   (`Partial`). Each processor sends at most `children + 1` messages. A processor sends to its
//!   children largest subtree first, so for `P = 2^k` processor `i` has the work after
//!   `(⌊log₂ i⌋ + 1)` sends, the broadcast takes `k` message times and the reduction `k` more:
//!   `T = c + 2k·β` with `c` the compute time of a processor's block and `β` the time of one
//!   send, exactly the paper's candidate (6) `a + b·log P` with `a = c` independent of `β`.
//!   (A binary tree numbered breadth first, φ(i) = (i−1)/2, is also a tree, but the sends on its
//!   critical path alternate between first and second children and its depth grows by one only
//!   at each power of two: the critical path costs `2, 4, 6, 9, 12, …` message times for
//!   `P = 2, 4, 8, 16, 32`, not proportional to `log P`, and a fit of `a + b·log P` then moves
//!   `a` by a multiple of `β`, which the consistency test rightly reads as a wrong candidate.)
//!
//! Both mechanisms compute real samples with [`Processor::compute`] (charged by thread CPU time)
//! and return exactly [`run_sequential`](super::run_sequential)'s summary: every accumulator is
//! an integer and each sample's stream depends only on `(seed, sample)` (see [`sample_rng`]
//! (super::sample_rng)), so neither the processor that runs a sample nor the order of merging
//! changes a bit of the result.

use multicomputer_runtime::{
    Machine, Payload, Processor, ProcessorError, RunError, RunReport, Topology, TopologyError,
    Trace,
};
use serde::Serialize;
use thiserror::Error;

use super::metropolis::{SampleResult, run_sample};
use super::reference::{SUMMARY_MERGE, Summary, SummaryAccumulator};
use super::{IsingConfig, IsingError, Workload, sample_range};

/// Bytes of the work description (the configuration's fields and the number of samples).
pub const WORK_BYTES: u64 = 64;
/// Bytes of a control message naming one sample (centralized mechanism) or a stop.
pub const UNIT_BYTES: u64 = 8;
/// Bytes of one sample's result (its integer sums and counts).
pub const SAMPLE_RESULT_BYTES: u64 = 96;
/// Bytes of a partial summary (six 128-bit and six 64-bit accumulators).
pub const PARTIAL_BYTES: u64 = 144;

/// How work is distributed and results collected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mechanism {
    /// All distribution and collection through processor 0, one control message per sample
    /// (the paper's PCM: a hot spot and excess control messages).
    Centralized,
    /// Broadcast of the work down a tree (binomial by default), reduction of partial sums up
    /// it (the paper's MCM).
    Tree,
}

impl Mechanism {
    /// The default topology of this mechanism on `processors` processors: a star rooted at 0
    /// (centralized) or a binomial tree, φ(i) = i with its highest bit cleared (tree).
    pub fn topology(self, processors: usize) -> Result<Topology, TopologyError> {
        let parents = (0..processors)
            .map(|i| match self {
                Mechanism::Centralized => (i > 0).then_some(0),
                Mechanism::Tree => (i > 0).then(|| i ^ (1 << i.ilog2())),
            })
            .collect();
        Topology::from_parents(parents)
    }

    /// Lower-case name (`centralized`, `tree`).
    pub fn name(self) -> &'static str {
        match self {
            Mechanism::Centralized => "centralized",
            Mechanism::Tree => "tree",
        }
    }
}

impl std::fmt::Display for Mechanism {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A message of the Ising program.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub enum IsingMessage {
    /// Tree: the work description, broadcast down (the total number of samples).
    Work {
        /// Samples in the whole run.
        samples: u64,
    },
    /// Centralized: run this one sample (a control message).
    Unit(u64),
    /// Centralized: one sample's result.
    SampleDone(Box<SampleResult>),
    /// Tree: the partial summary of a subtree.
    Partial(Box<SummaryAccumulator>),
    /// Centralized: no more work.
    Stop,
}

impl Payload for IsingMessage {
    fn size_bytes(&self) -> u64 {
        match self {
            IsingMessage::Work { .. } => WORK_BYTES,
            IsingMessage::Unit(_) | IsingMessage::Stop => UNIT_BYTES,
            IsingMessage::SampleDone(_) => SAMPLE_RESULT_BYTES,
            IsingMessage::Partial(_) => PARTIAL_BYTES,
        }
    }
}

/// Why a parallel Ising run failed.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ParallelError {
    /// Bad configuration or workload.
    #[error(transparent)]
    Ising(#[from] IsingError),
    /// The centralized mechanism needs every processor linked to processor 0.
    #[error(
        "the centralized mechanism needs a star rooted at processor 0 (processor {processor} is \
         not linked to it)"
    )]
    NotAStar {
        /// The first processor that is not a child of 0.
        processor: usize,
    },
    /// Processor 0 must be the root (it starts and ends the run).
    #[error("processor 0 must be the root of the topology, the root is {root}")]
    RootNotZero {
        /// The topology's root.
        root: usize,
    },
    /// The machine failed (panic, deadlock, link error).
    #[error(transparent)]
    Run(#[from] RunError),
    /// A protocol violation (a message the mechanism does not expect); a bug.
    #[error("processor {processor}: unexpected message {message}")]
    Protocol {
        /// Where.
        processor: usize,
        /// What arrived.
        message: String,
    },
}

/// A parallel run of the Ising program.
#[derive(Debug)]
pub struct ParallelRun {
    /// The physics and counts: equal to `run_sequential(config, samples)`.
    pub summary: Summary,
    /// Samples in the run.
    pub samples: u64,
    /// Samples each processor computed.
    pub samples_by_processor: Vec<u64>,
    /// The machine's report: emulated makespan (the run time), accounting, fidelity.
    pub report: RunReport,
    /// The event trace, if the machine recorded one.
    pub trace: Option<Trace>,
}

impl ParallelRun {
    /// The run time: the emulated makespan, in seconds.
    pub fn run_time_s(&self) -> f64 {
        self.report.makespan_s
    }

    /// Emulated compute time per sample, in seconds: all processors' charged CPU time of real
    /// work over the samples (merges included, a few µs).
    pub fn compute_per_sample_s(&self) -> f64 {
        self.report.totals.compute_ns as f64 / 1e9 / self.samples as f64
    }
}

/// What one processor returns.
#[derive(serde::Serialize, serde::Deserialize)]
struct Part {
    /// The merged result (only processor 0's is complete).
    acc: Option<SummaryAccumulator>,
    executed: u64,
}

fn protocol(p: &Processor<IsingMessage>, m: &IsingMessage) -> ProcessorError {
    ProcessorError::Program(format!("processor {}: unexpected message {m:?}", p.id()))
}

fn compute_sample(
    p: &mut Processor<IsingMessage>,
    config: &IsingConfig,
    k: u64,
) -> Result<SampleResult, ProcessorError> {
    p.record_executed(1);
    p.compute(|w| {
        let r = run_sample(config, k);
        if let Ok(r) = &r {
            r.declare(w);
        }
        r
    })
    .map_err(|e| ProcessorError::Program(e.to_string()))
}

/// Processor 0 under the centralized mechanism: dispatcher, collector and worker in the gaps.
fn centralized_root(
    p: &mut Processor<IsingMessage>,
    config: &IsingConfig,
    total: u64,
) -> Result<Part, ProcessorError> {
    let workers: Vec<_> = p.children().to_vec();
    let mut acc = SummaryAccumulator::new();
    let mut next = 0u64;
    let mut outstanding = 0usize;
    let mut executed = 0u64;
    // Every worker's first unit (or its stop, when there are fewer samples than workers).
    for &w in &workers {
        if next < total {
            p.send(w, IsingMessage::Unit(next))?;
            next += 1;
            outstanding += 1;
        } else {
            p.send(w, IsingMessage::Stop)?;
        }
    }
    loop {
        // Serve every result that has arrived, then work on a sample of our own if any is
        // left; wait only when there is nothing else to do.
        let arrived = if next < total {
            p.try_recv_from(&workers)?
        } else if outstanding > 0 {
            Some(p.recv_from(&workers)?)
        } else {
            break;
        };
        match arrived {
            Some((link, IsingMessage::SampleDone(r))) => {
                p.compute(|w| {
                    w.add(SUMMARY_MERGE, 1);
                    acc.add(&r)
                });
                outstanding -= 1;
                if next < total {
                    p.send(link, IsingMessage::Unit(next))?;
                    next += 1;
                    outstanding += 1;
                } else {
                    p.send(link, IsingMessage::Stop)?;
                }
            }
            Some((_, m)) => return Err(protocol(p, &m)),
            None => {
                let k = next;
                next += 1;
                let r = compute_sample(p, config, k)?;
                executed += 1;
                p.compute(|w| {
                    w.add(SUMMARY_MERGE, 1);
                    acc.add(&r)
                });
            }
        }
    }
    Ok(Part {
        acc: Some(acc),
        executed,
    })
}

/// A worker under the centralized mechanism: one sample per control message until `Stop`.
fn centralized_worker(
    p: &mut Processor<IsingMessage>,
    config: &IsingConfig,
) -> Result<Part, ProcessorError> {
    let Some(up) = p.parent() else {
        return Err(ProcessorError::Program("worker without a parent".into()));
    };
    let mut executed = 0u64;
    loop {
        match p.recv(up)? {
            IsingMessage::Unit(k) => {
                let r = compute_sample(p, config, k)?;
                executed += 1;
                p.send(up, IsingMessage::SampleDone(Box::new(r)))?;
            }
            IsingMessage::Stop => break,
            m => return Err(protocol(p, &m)),
        }
    }
    Ok(Part {
        acc: None,
        executed,
    })
}

/// Any processor under the tree mechanism: receive the work description from the parent
/// (the root knows it), pass it on to the children, run this processor's block of samples,
/// merge the children's partial sums and send the total up.
fn tree_node(
    p: &mut Processor<IsingMessage>,
    config: &IsingConfig,
    total: u64,
) -> Result<Part, ProcessorError> {
    let samples = match p.parent() {
        None => total,
        Some(up) => match p.recv(up)? {
            IsingMessage::Work { samples } => samples,
            m => return Err(protocol(p, &m)),
        },
    };
    let children = p.children().to_vec();
    for &c in &children {
        p.send(c, IsingMessage::Work { samples })?;
    }
    let processors = u32::try_from(p.processors())
        .map_err(|_| ProcessorError::Program("too many processors".into()))?;
    let id = u32::try_from(p.id()).unwrap_or(u32::MAX);
    let mut acc = SummaryAccumulator::new();
    let mut executed = 0u64;
    for k in sample_range(id, processors, samples) {
        let r = compute_sample(p, config, k)?;
        executed += 1;
        p.compute(|w| {
            w.add(SUMMARY_MERGE, 1);
            acc.add(&r)
        });
    }
    for &c in &children {
        match p.recv(c)? {
            IsingMessage::Partial(part) => p.compute(|w| {
                w.add(SUMMARY_MERGE, 1);
                acc.merge(&part)
            }),
            m => return Err(protocol(p, &m)),
        }
    }
    match p.parent() {
        Some(up) => {
            p.send(up, IsingMessage::Partial(Box::new(acc)))?;
            Ok(Part {
                acc: None,
                executed,
            })
        }
        None => Ok(Part {
            acc: Some(acc),
            executed,
        }),
    }
}

/// Runs the Ising program on `machine` under `mechanism`: `workload.samples(P)` samples of
/// `config`, P the machine's processors. Processor 0 must be the root; the centralized
/// mechanism needs a star (see [`Mechanism::topology`]), the tree mechanism takes any tree.
pub fn run_parallel(
    machine: &Machine,
    config: &IsingConfig,
    workload: Workload,
    mechanism: Mechanism,
) -> Result<ParallelRun, ParallelError> {
    config.validate()?;
    let topology = machine.topology();
    let processors = u32::try_from(topology.len()).map_err(|_| IsingError::ZeroProcessors)?;
    let total = workload.samples(processors)?;
    if topology.parent(0).is_some() {
        return Err(ParallelError::RootNotZero {
            root: topology.root(),
        });
    }
    if mechanism == Mechanism::Centralized {
        if let Some(i) = (1..topology.len()).find(|&i| topology.parent(i) != Some(0)) {
            return Err(ParallelError::NotAStar { processor: i });
        }
    }
    let record = machine.run(|p: &mut Processor<IsingMessage>| match mechanism {
        Mechanism::Centralized if p.id() == 0 => centralized_root(p, config, total),
        Mechanism::Centralized => centralized_worker(p, config),
        Mechanism::Tree => tree_node(p, config, total),
    })?;
    let samples_by_processor: Vec<u64> = record.results.iter().map(|r| r.executed).collect();
    let acc = record
        .results
        .into_iter()
        .next()
        .and_then(|r| r.acc)
        .ok_or(ParallelError::Protocol {
            processor: 0,
            message: "no result at the root".into(),
        })?;
    if acc.samples() != total {
        return Err(ParallelError::Protocol {
            processor: 0,
            message: format!("{} of {total} samples collected", acc.samples()),
        });
    }
    Ok(ParallelRun {
        summary: acc.finish()?,
        samples: total,
        samples_by_processor,
        report: record.report,
        trace: record.trace,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ising::{Dimension, Start, run_sequential};
    use multicomputer_runtime::{LinkCost, MachineConfig, TimeMode, WaitStrategy};
    use std::time::Duration;

    fn config(dimension: Dimension, size: usize, temperature: f64) -> IsingConfig {
        let mut c = IsingConfig::new(dimension, size, temperature).unwrap();
        c.thermalisation_sweeps = 3;
        c.measurement_sweeps = 4;
        c.seed = 77;
        c.start = Start::Hot;
        c
    }

    fn machine(mechanism: Mechanism, processors: usize, loop_count: u64) -> Machine {
        machine_with(mechanism, processors, Duration::from_micros(5), loop_count)
    }

    fn machine_with(
        mechanism: Mechanism,
        processors: usize,
        send_overhead: Duration,
        loop_count: u64,
    ) -> Machine {
        let config = MachineConfig {
            mode: TimeMode::Dilated(1.0),
            wait: WaitStrategy::Sleep,
            link: LinkCost {
                send_overhead,
                loop_count,
                ..LinkCost::default()
            },
            ..MachineConfig::default()
        };
        Machine::new(mechanism.topology(processors).unwrap(), config).unwrap()
    }

    #[test]
    fn topologies_are_a_star_and_a_binomial_tree() {
        let star = Mechanism::Centralized.topology(5).unwrap();
        assert!((1..5).all(|i| star.parent(i) == Some(0)));
        let tree = Mechanism::Tree.topology(8).unwrap();
        let parents: Vec<_> = (0..8).map(|i| tree.parent(i)).collect();
        assert_eq!(
            parents,
            vec![
                None,
                Some(0),
                Some(0),
                Some(1),
                Some(0),
                Some(1),
                Some(2),
                Some(3)
            ]
        );
        assert!(Mechanism::Tree.topology(0).is_err());
    }

    #[test]
    fn both_mechanisms_equal_the_sequential_reference_bit_for_bit() {
        for (dimension, size, t) in [(Dimension::Two, 6, 2.0), (Dimension::Three, 4, 4.5)] {
            let c = config(dimension, size, t);
            for mechanism in [Mechanism::Centralized, Mechanism::Tree] {
                for processors in [1usize, 2, 3, 5, 8] {
                    for workload in [
                        Workload::Scaled {
                            samples_per_processor: 2,
                        },
                        Workload::Fixed { samples: 7 },
                    ] {
                        let m = machine(mechanism, processors, 100);
                        let run = run_parallel(&m, &c, workload, mechanism).unwrap();
                        let n = workload.samples(processors as u32).unwrap();
                        assert_eq!(run.samples, n);
                        assert_eq!(
                            run.summary,
                            run_sequential(&c, n).unwrap(),
                            "{mechanism} P={processors} {workload:?} {dimension:?}"
                        );
                        assert_eq!(run.samples_by_processor.iter().sum::<u64>(), n);
                        assert!(run.run_time_s() > 0.0);
                    }
                }
            }
        }
    }

    #[test]
    fn centralized_sends_one_control_message_per_unit_of_work() {
        let c = config(Dimension::Two, 4, 2.0);
        let processors = 5;
        let workload = Workload::Scaled {
            samples_per_processor: 3,
        };
        let run = run_parallel(
            &machine(Mechanism::Centralized, processors, 0),
            &c,
            workload,
            Mechanism::Centralized,
        )
        .unwrap();
        let per = &run.report.per_processor;
        let by_workers: u64 = run.samples_by_processor[1..].iter().sum();
        // The root sends one unit per sample a worker runs, plus one stop per worker; each
        // worker sends one result per sample it ran.
        assert_eq!(
            per[0].accounting.messages_sent,
            by_workers + (processors as u64 - 1)
        );
        assert_eq!(per[0].accounting.messages_received, by_workers);
        for (i, w) in per.iter().enumerate().skip(1) {
            assert_eq!(w.accounting.messages_sent, run.samples_by_processor[i]);
            assert_eq!(w.accounting.tasks_executed, run.samples_by_processor[i]);
        }
        assert!(by_workers > 0);
    }

    #[test]
    fn tree_sends_one_message_per_link_each_way() {
        let c = config(Dimension::Three, 4, 4.5);
        let processors = 8;
        let run = run_parallel(
            &machine(Mechanism::Tree, processors, 0),
            &c,
            Workload::Scaled {
                samples_per_processor: 2,
            },
            Mechanism::Tree,
        )
        .unwrap();
        // 7 links: one work description down and one partial sum up each.
        assert_eq!(run.report.totals.messages_sent, 2 * (processors as u64 - 1));
        assert_eq!(run.samples_by_processor, vec![2; processors]);
    }

    #[test]
    fn binomial_tree_critical_path_is_two_sends_per_doubling() {
        // With 1 ms per send the message times dwarf the µs of real compute: the makespan is
        // 2·log₂P sends plus the compute of one block, T = c + 2k·β (see the module docs).
        let c = config(Dimension::Two, 4, 2.0);
        for k in 1..=4u32 {
            let processors = 1usize << k;
            let m = machine_with(Mechanism::Tree, processors, Duration::from_millis(1), 0);
            let w = Workload::Scaled {
                samples_per_processor: 1,
            };
            let t = run_parallel(&m, &c, w, Mechanism::Tree)
                .unwrap()
                .run_time_s();
            let sends = 2.0 * f64::from(k) * 1e-3;
            assert!(
                t >= sends && t < sends + 0.9e-3,
                "P = {processors}: T = {t}"
            );
        }
    }

    #[test]
    fn centralized_mechanism_rejects_a_tree() {
        let c = config(Dimension::Two, 4, 2.0);
        let m = machine(Mechanism::Tree, 4, 0);
        let e = run_parallel(
            &m,
            &c,
            Workload::Fixed { samples: 4 },
            Mechanism::Centralized,
        )
        .unwrap_err();
        // Binomial tree of 4: φ(3) = 1.
        assert_eq!(e, ParallelError::NotAStar { processor: 3 });
    }

    #[test]
    fn degraded_messages_slow_the_centralized_run_more_than_the_tree() {
        // Emulated costs only (no timing of the host): a large fixed start-up cost per message
        // makes the hot spot visible in the emulated makespan, whatever the compute times.
        let c = config(Dimension::Two, 4, 2.0);
        let slow = |mechanism: Mechanism| {
            let m = machine_with(mechanism, 8, Duration::from_millis(2), 0);
            let w = Workload::Scaled {
                samples_per_processor: 2,
            };
            run_parallel(&m, &c, w, mechanism).unwrap().run_time_s()
        };
        // Centralized: the root sends ≥ 7 units and 7 stops of 2 ms each; tree: 2·log₂8 = 6 sends
        // of 2 ms on the critical path.
        assert!(slow(Mechanism::Centralized) >= 0.028);
        assert!(slow(Mechanism::Tree) < 0.020);
    }
}
