//! What a run returns: each processor's result and accounting, the run's report (emulated
//! times, fidelity, how work was charged), and the trace. Both engines (OS threads, the
//! virtual-time scheduler) collect one [`Outcome`] per processor and `assemble` them here.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

use crate::clock::{Fidelity, LatenessStats};
use crate::error::{ProcessorError, RunError};
use crate::processor::{Processor, WorkTally};
use crate::spec::{Resolved, RunSpec};
use crate::topology::Topology;
use crate::trace::{Accounting, Recorded, Trace, TraceSink};
use crate::work::{ComputeCharge, WorkCosts};

/// One processor's part of a run report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProcessorReport {
    /// Index.
    pub id: usize,
    /// Level (1 = leaf).
    pub level: u32,
    /// Its accounting.
    #[serde(flatten)]
    pub accounting: Accounting,
}

/// How real work was charged in a run, and what the programs declared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkReport {
    /// `measured` (thread CPU time) or `model` (declared units × cost per unit).
    pub charge: ComputeCharge,
    /// Compute blocks run, over all processors.
    pub blocks: u64,
    /// Blocks that declared no unit of work (charged nothing in model charging).
    pub undeclared_blocks: u64,
    /// Units declared, by unit, over all processors.
    pub units: BTreeMap<String, u64>,
    /// Degradation-loop iterations, over all processors.
    pub loop_iterations: u64,
    /// The costs used in model charging (per unit, per loop iteration).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub costs: Option<WorkCosts>,
}

/// What the virtual-time scheduler did (virtual mode only). Every field is a pure function
/// of the configuration: two runs give the same.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SimStats {
    /// Events: messages delivered plus timed waits that ran to their end (occupations,
    /// start-up costs).
    pub events: u64,
    /// Messages delivered.
    pub messages_delivered: u64,
    /// Timed waits that ran to their end.
    pub timed_waits: u64,
    /// Simcalls handled (every operation of the processor API that reached the scheduler).
    pub simcalls: u64,
    /// Entries taken from the event queue (each resumes a processor or looks again at its
    /// wait). In partitioned virtual time (`--partitions`), only those that resumed a
    /// processor: how often a processor looks again at its wait depends on when cut-link
    /// effects reach its part, and so on K.
    pub queue_pops: u64,
    /// Stack reserved per processor, bytes (mapped lazily: only touched pages use memory).
    pub stack_bytes: usize,
}

/// The wall-clock side of a run: the only part of a report that depends on the host's speed
/// and load, kept apart from the emulated figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WallClock {
    /// Wall time of the run (start to last outcome), seconds.
    pub run_s: f64,
    /// Wall time to set the processors up (threads or coroutines, stacks, links), seconds.
    pub setup_s: f64,
    /// Virtual time only: events ([`SimStats::events`]) per second of wall time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events_per_s: Option<f64>,
}

/// How a partitioned run (`--partitions`) was shared out: the only part of a virtual-time
/// report besides the wall clock that depends on K.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartsReport {
    /// The parts K.
    pub parts: usize,
    /// Links between processors of different parts.
    pub cut_links: usize,
    /// Windows run (each ends with an exchange between the parts).
    pub windows: u64,
    /// Events ([`SimStats::events`]) per window.
    pub events_per_window: f64,
}

impl std::fmt::Display for PartsReport {
    /// `4 parts (3 cut links), 12345 windows, 81.2 events per window`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} part{} ({} cut link{}), {} window{}, {:.1} events per window",
            self.parts,
            if self.parts == 1 { "" } else { "s" },
            self.cut_links,
            if self.cut_links == 1 { "" } else { "s" },
            self.windows,
            if self.windows == 1 { "" } else { "s" },
            self.events_per_window
        )
    }
}

/// What a run measured, without the programs' results (serialisable as JSON).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunReport {
    /// The topology, as written on the command line.
    pub topology: String,
    /// Number of processors.
    pub processors: usize,
    /// The time mode it ran in (written as its name: `native`, `dilated` or `virtual`; the
    /// dilation is the fidelity's).
    #[serde(rename = "mode", serialize_with = "Resolved::serialize_name")]
    pub time: Resolved,
    /// Emulated makespan: the latest processor finish time, in seconds.
    pub makespan_s: f64,
    /// Per-processor accounting.
    pub per_processor: Vec<ProcessorReport>,
    /// Sums over all processors.
    pub totals: Accounting,
    /// How faithful the run was.
    pub fidelity: Fidelity,
    /// How real work was charged.
    pub work: WorkReport,
    /// The scheduler's own figures (virtual mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sim: Option<SimStats>,
    /// Wall-clock times: host-dependent, unlike everything else here in virtual time.
    pub wall: WallClock,
    /// How a partitioned run was shared out (`--partitions` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parts: Option<PartsReport>,
}

impl RunReport {
    /// The emulated makespan.
    pub fn makespan(&self) -> Duration {
        Duration::from_secs_f64(self.makespan_s)
    }

    /// The wall time of the run, seconds.
    pub fn wall_s(&self) -> f64 {
        self.wall.run_s
    }
}

/// The outcome of a successful run.
#[derive(Debug)]
pub struct RunRecord<R> {
    /// Each processor's result, by processor index.
    pub results: Vec<R>,
    /// What was measured.
    pub report: RunReport,
    /// The event trace, if one was asked for.
    pub trace: Option<Trace>,
}

/// Why a processor's program did not return a result.
#[cfg_attr(feature = "mpi", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug)]
pub(crate) enum Failure {
    Panic(String),
    Error(ProcessorError),
}

/// What one processor left behind.
#[cfg_attr(feature = "mpi", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Outcome<R> {
    pub(crate) id: usize,
    pub(crate) result: Result<R, Failure>,
    pub(crate) accounting: Accounting,
    pub(crate) tally: WorkTally,
    pub(crate) lateness: LatenessStats,
    /// What it recorded of the trace, all spilled. It crosses MPI ranks apart, read back
    /// from its rank's spill (`engines/ranks.rs`, step 2).
    #[cfg_attr(feature = "mpi", serde(skip))]
    pub(crate) trace: Option<Recorded>,
}

impl<R> Outcome<R> {
    /// The outcome of a processor whose program ended with `result`.
    pub(crate) fn of<M: crate::Payload>(
        proc: &mut Processor<M>,
        result: Result<R, Failure>,
        lateness: LatenessStats,
    ) -> Self {
        proc.finish();
        Self {
            id: proc.id(),
            result,
            accounting: proc.acct.clone(),
            tally: std::mem::take(&mut proc.tally),
            lateness,
            trace: proc.recorder.take().map(|r| r.finish()),
        }
    }
}

/// The message of a panic payload.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".to_string()
    }
}

/// The error a failed outcome stands for, if it is one worth reporting (not a mere
/// consequence of the run being stopped).
pub(crate) fn failure_of(id: usize, failure: &Failure) -> Option<RunError> {
    match failure {
        Failure::Panic(message) => Some(RunError::Panic {
            processor: id,
            message: message.clone(),
        }),
        Failure::Error(ProcessorError::Aborted) => None,
        Failure::Error(error) => Some(RunError::Processor {
            processor: id,
            error: error.clone(),
        }),
    }
}

/// Joins every processor's outcome into the run record: the first failure if any, else the
/// results, the report and the trace (read from `trace`, the run's sink).
pub(crate) fn assemble<R>(
    spec: &RunSpec,
    trace: Option<&TraceSink>,
    topology: &Topology,
    outcomes: Vec<Option<Outcome<R>>>,
    wall: WallClock,
    fidelity: impl FnOnce(&LatenessStats) -> Fidelity,
    sim: Option<SimStats>,
) -> Result<RunRecord<R>, RunError> {
    let n = outcomes.len();
    let mut results = Vec::with_capacity(n);
    let mut per_processor = Vec::with_capacity(n);
    let mut totals = Accounting::default();
    let mut lateness = LatenessStats::default();
    let mut recorded = Vec::with_capacity(if trace.is_some() { n } else { 0 });
    let charge = spec.charging.charge();
    let mut work = WorkReport {
        charge,
        blocks: 0,
        undeclared_blocks: 0,
        units: BTreeMap::new(),
        loop_iterations: 0,
        costs: (charge == ComputeCharge::Model).then(|| spec.charging.costs().costs().clone()),
    };
    for (i, o) in outcomes.into_iter().enumerate() {
        let Some(o) = o else {
            return Err(RunError::Processor {
                processor: i,
                error: ProcessorError::Program("processor ended without a result".into()),
            });
        };
        match o.result {
            Ok(r) => results.push(r),
            Err(f) => {
                return Err(failure_of(i, &f).unwrap_or(RunError::Processor {
                    processor: i,
                    error: ProcessorError::Aborted,
                }));
            }
        }
        add_accounting(&mut totals, &o.accounting);
        lateness.merge(&o.lateness);
        work.blocks += o.tally.blocks;
        work.undeclared_blocks += o.tally.undeclared_blocks;
        work.loop_iterations = work.loop_iterations.saturating_add(o.tally.loop_iterations);
        for &(unit, count) in o.tally.units.counts() {
            let c = work.units.entry(unit.name().to_string()).or_insert(0);
            *c = c.saturating_add(count);
        }
        recorded.extend(o.trace);
        per_processor.push(ProcessorReport {
            id: i,
            level: topology.level(i),
            accounting: o.accounting,
        });
    }
    let makespan_ns = per_processor
        .iter()
        .map(|p| p.accounting.finish_ns)
        .max()
        .unwrap_or(0);
    let report = RunReport {
        topology: topology.to_string(),
        processors: n,
        time: spec.time,
        makespan_s: makespan_ns as f64 / 1e9,
        per_processor,
        totals,
        fidelity: fidelity(&lateness),
        work,
        sim,
        wall,
        parts: None,
    };
    Ok(RunRecord {
        results,
        report,
        trace: trace.map(|sink| Trace::recorded(sink, recorded)),
    })
}

fn add_accounting(total: &mut Accounting, a: &Accounting) {
    // Saturating: totals over 100 000 processors of long runs may pass u64 nanoseconds.
    total.compute_ns = total.compute_ns.saturating_add(a.compute_ns);
    total.communication_ns = total.communication_ns.saturating_add(a.communication_ns);
    total.idle_ns = total.idle_ns.saturating_add(a.idle_ns);
    total.finish_ns = total.finish_ns.max(a.finish_ns);
    total.messages_sent = total.messages_sent.saturating_add(a.messages_sent);
    total.bytes_sent = total.bytes_sent.saturating_add(a.bytes_sent);
    total.messages_received = total.messages_received.saturating_add(a.messages_received);
    total.bytes_received = total.bytes_received.saturating_add(a.bytes_received);
    total.tasks_executed = total.tasks_executed.saturating_add(a.tasks_executed);
    total.tasks_forwarded = total.tasks_forwarded.saturating_add(a.tasks_forwarded);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Totals add up, and saturate instead of wrapping (or panicking in a debug build).
    #[test]
    fn totals_saturate() {
        let mut total = Accounting::default();
        let a = Accounting {
            compute_ns: u64::MAX - 1,
            messages_sent: 3,
            finish_ns: 7,
            ..Accounting::default()
        };
        let b = Accounting {
            compute_ns: 5,
            messages_sent: 4,
            finish_ns: 9,
            ..Accounting::default()
        };
        add_accounting(&mut total, &a);
        add_accounting(&mut total, &b);
        assert_eq!(total.compute_ns, u64::MAX);
        assert_eq!(total.messages_sent, 7);
        assert_eq!(total.finish_ns, 9);
    }
}
