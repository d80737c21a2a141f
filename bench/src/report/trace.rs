//! A run's processor timeline as files: Chrome trace-event JSON (`--trace`, opened in
//! Perfetto) and an SVG timeline (`--timeline`).

use anyhow::{Context, Result};
use multicomputer_runtime::{Activity, Fidelity, Trace};
use multicomputer_workloads::collectives::CollectiveComparison;
use multicomputer_workloads::farm::FarmComparison;
use multicomputer_workloads::ising::IsingMeasurement;
use multicomputer_workloads::ocl::PipelineRun;
use multicomputer_workloads::synthetic::SyntheticComparison;
use multicomputer_workloads::tree::{Comparison, worst_fidelity};

use super::{Block, Figure, Meta};
use crate::exec::Runs;
use crate::files::Publication;
use crate::plan::{MOST_TIMELINE_RECORDS_IN_REPORT, TracePlan};
use crate::plot::{Timeline, TimelineInterval, TimelineMessage};

/// A measured run as its report sees it: the fidelity of its waits and its trace.
pub(crate) trait Traced {
    /// How late its waits ended.
    fn fidelity(&self) -> &Fidelity;
    /// Its events, if the machine recorded them.
    fn trace(&self) -> Option<&Trace>;
    /// The processors of its machine.
    fn processors(&self) -> usize;
}

/// `impl Traced for $type`, its fidelity and processor count at the paths given.
macro_rules! traced {
    ($type:ty: $($fidelity:ident).+, $($processors:ident).+) => {
        impl Traced for $type {
            fn fidelity(&self) -> &Fidelity {
                &self.$($fidelity).+
            }
            fn trace(&self) -> Option<&Trace> {
                self.trace.as_ref()
            }
            fn processors(&self) -> usize {
                self.$($processors).+
            }
        }
    };
}

traced!(Comparison: fidelity, processors);
traced!(IsingMeasurement: fidelity, processors);
traced!(SyntheticComparison: report.fidelity, processors);
traced!(CollectiveComparison: report.fidelity, processors);
traced!(PipelineRun: report.fidelity, report.processors);

impl Traced for FarmComparison {
    fn fidelity(&self) -> &Fidelity {
        self.comparison.fidelity()
    }
    fn trace(&self) -> Option<&Trace> {
        self.comparison.trace()
    }
    fn processors(&self) -> usize {
        self.comparison.processors()
    }
}

/// The last of `runs` (the one whose trace is written).
pub(crate) fn last<T>(runs: &Runs<T>) -> Result<&T> {
    runs.runs.last().context("no run")
}

/// The worst fidelity of `runs`.
pub(crate) fn worst<'a, T: Traced + 'a>(
    runs: impl IntoIterator<Item = &'a T>,
) -> Result<&'a Fidelity> {
    worst_fidelity(runs.into_iter().map(Traced::fidelity)).context("no run")
}

/// Stages in `files` the trace files `plan` asks for (`--trace`, `--timeline`), from `run`
/// of `what` ("farm on binary:4"), and lists them in `meta`; returns what the report's plots
/// show of the trace: its processor timeline as a figure, or a note saying why not (a trace
/// too long for a page). Nothing for a run without a trace.
pub(crate) fn stage_trace(
    meta: &mut Meta,
    plan: &TracePlan,
    run: &impl Traced,
    what: &str,
    files: &mut Publication,
) -> Result<Option<Block>> {
    let Some(trace) = run.trace() else {
        return Ok(None);
    };
    let processors = run.processors();
    if let Some(path) = &plan.trace {
        // Streamed into the staged file, never held whole in memory.
        files.stage_with(path, &mut |w| trace.write_chrome_json(w, processors))?;
        meta.files.push(path.display().to_string());
    }
    let records = trace.records() as usize;
    let fits = records <= MOST_TIMELINE_RECORDS_IN_REPORT;
    let svg = if plan.timeline.is_some() || fits {
        let title = format!("{what}: processors against emulated time (ms)");
        Some(timeline_svg(trace, processors, &title)?)
    } else {
        None
    };
    if let (Some(path), Some(svg)) = (&plan.timeline, &svg) {
        files.stage(path, svg.as_bytes())?;
        meta.files.push(path.display().to_string());
    }
    Ok(Some(match svg.filter(|_| fits) {
        Some(svg) => Block::Figure(Figure {
            file: "timeline.svg".into(),
            caption: format!(
                "What each processor did when (compute, communication, idle) in emulated \
                 time; every message an arrow from its send to its arrival. {records} trace \
                 records."
            ),
            svg,
        }),
        None => Block::Text(format!(
            "The processor timeline is left out of this page: its trace has {records} records, \
             over the {MOST_TIMELINE_RECORDS_IN_REPORT} a page draws. `--timeline FILE` writes \
             it as an SVG of its own; `--trace FILE` as JSON for Perfetto."
        )),
    }))
}

/// The tallest timeline drawn: every row labelled up to this many processors; beyond, every
/// k-th, and the image says so.
const MOST_LABELLED_ROWS: usize = 1024;

/// The processor timeline as SVG: what each processor did (compute, communication, idle)
/// in emulated milliseconds, every processor labelled, every message an arrow from its send
/// to its arrival.
pub(crate) fn timeline_svg(trace: &Trace, processors: usize, title: &str) -> Result<String> {
    let mut intervals = Vec::new();
    trace.visit_events(|e| {
        intervals.push(TimelineInterval {
            processor: e.processor,
            start_ns: e.start_ns,
            end_ns: e.start_ns.saturating_add(e.duration_ns),
            kind: match e.activity {
                Activity::Compute => "compute",
                Activity::Communication => "communication",
                Activity::Idle => "idle",
            },
        })
    })?;
    let mut messages = Vec::new();
    trace.visit_messages(|m| {
        messages.push(TimelineMessage {
            from: m.from,
            to: m.to,
            sent_ns: m.sent_ns,
            arrive_ns: m.arrive_ns,
        })
    })?;
    Timeline {
        title: title.to_owned(),
        processors,
        intervals,
        messages,
        time_label: "emulated time (ms)".into(),
        ..Timeline::default()
    }
    .to_svg(
        1200,
        Timeline::height_for(processors.min(MOST_LABELLED_ROWS)),
    )
}
