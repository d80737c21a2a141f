//! A run's processor timeline as files: Chrome trace-event JSON (`--trace`, opened in
//! Perfetto) and an SVG timeline (`--timeline`).

use std::collections::BinaryHeap;

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
use crate::plot::{
    TIMELINE_WIDTH, Timeline, TimelineInterval, TimelineMessage, held_messages, held_per_row,
};

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
        let title = format!("{what}: processors against emulated time");
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
/// to its arrival; drawn from what [`timeline_of`] holds.
pub(crate) fn timeline_svg(trace: &Trace, processors: usize, title: &str) -> Result<String> {
    timeline_of(trace, processors, title)?.to_svg(
        TIMELINE_WIDTH,
        Timeline::height_for(processors.min(MOST_LABELLED_ROWS)),
    )
}

/// What a timeline holds of `trace`, read as it streams from the run's spill (twice): every
/// interval when there are at most [`held_per_row`] a processor, else each processor's
/// merged to two a pixel column (what a pixel shows: an interval within columns already
/// drawn extends the last one of its kind, or is hidden); the earliest [`held_messages`]
/// messages, the others counted. What it holds is bounded by the machine and the image
/// ([`most_held`]), whatever the trace's length.
pub(crate) fn timeline_of(
    trace: &Trace,
    processors: usize,
    title: &str,
) -> Result<Timeline<'static>> {
    // 1. The span, the intervals' count, and the earliest messages.
    let (mut end_ns, mut count) = (0u64, 0usize);
    trace.visit_events(|e| {
        end_ns = end_ns.max(e.start_ns.saturating_add(e.duration_ns));
        count += 1;
    })?;
    let keep = held_messages(TIMELINE_WIDTH);
    let mut earliest = BinaryHeap::with_capacity(keep + 1);
    let mut messages = 0usize;
    trace.visit_messages(|m| {
        end_ns = end_ns.max(m.arrive_ns);
        messages += 1;
        earliest.push((m.sent_ns, m.arrive_ns, m.from, m.to));
        if earliest.len() > keep {
            earliest.pop();
        }
    })?;
    // 2. The intervals, merged to columns of `column_ns` when there are many.
    let per_row = held_per_row(TIMELINE_WIDTH);
    let exact = count <= processors.saturating_mul(per_row);
    let column_ns = (end_ns / (per_row as u64 - 1)).max(1);
    // Per processor: the columns its held intervals cover, and its last held interval.
    let mut covered = vec![0u64; if exact { 0 } else { processors }];
    let mut last: Vec<Option<usize>> = vec![None; covered.len()];
    let mut intervals: Vec<TimelineInterval<'static>> = Vec::new();
    trace.visit_events(|e| {
        let iv = TimelineInterval {
            processor: e.processor,
            start_ns: e.start_ns,
            end_ns: e.start_ns.saturating_add(e.duration_ns),
            kind: match e.activity {
                Activity::Compute => "compute",
                Activity::Communication => "communication",
                Activity::Idle => "idle",
            },
        };
        let p = e.processor;
        let (Some(done), Some(last)) = (covered.get_mut(p), last.get_mut(p)) else {
            // Exact, or a processor past the machine (which the drawing refuses).
            intervals.push(iv);
            return;
        };
        let first = iv.start_ns / column_ns;
        let after = iv.end_ns.div_ceil(column_ns).max(first + 1);
        let same = last.filter(|&i| intervals[i].kind == iv.kind);
        match same {
            Some(i) if first <= *done => {
                intervals[i].end_ns = intervals[i].end_ns.max(iv.end_ns);
            }
            _ if after <= *done => {}
            _ => {
                let start_ns = iv.start_ns.max(*done * column_ns);
                intervals.push(TimelineInterval { start_ns, ..iv });
                *last = Some(intervals.len() - 1);
            }
        }
        *done = (*done).max(after);
    })?;
    let held = earliest.into_sorted_vec();
    Ok(Timeline {
        title: title.to_owned(),
        processors,
        intervals,
        unheld_messages: messages - held.len(),
        messages: held
            .into_iter()
            .map(|(sent_ns, arrive_ns, from, to)| TimelineMessage {
                from,
                to,
                sent_ns,
                arrive_ns,
            })
            .collect(),
        time_label: "emulated time".into(),
        ..Timeline::default()
    })
}

#[cfg(test)]
mod tests {
    use multicomputer_runtime::{MessageEvent, TraceEvent};

    use super::*;
    use crate::plot::most_held;

    /// A trace of `processors` each alternating `n` compute and communication intervals of
    /// 1 µs, and `m` messages to processor 0, one every 3 µs.
    fn long_trace(processors: usize, n: u64, m: u64) -> Trace {
        let events: Vec<TraceEvent> = (0..processors)
            .flat_map(|p| {
                (0..n).map(move |i| TraceEvent {
                    processor: p,
                    activity: if i % 2 == 0 {
                        Activity::Compute
                    } else {
                        Activity::Communication
                    },
                    start_ns: i * 1000,
                    duration_ns: 1000,
                    peer: None,
                })
            })
            .collect();
        let messages: Vec<MessageEvent> = (0..m)
            .map(|i| MessageEvent {
                from: 1 + (i as usize % (processors - 1)),
                to: 0,
                sent_ns: i * 3000,
                arrive_ns: i * 3000 + 500,
                received_ns: i * 3000 + 500,
                bytes: 8,
            })
            .collect();
        Trace::from_records(&events, &messages)
    }

    #[test]
    fn a_long_traces_timeline_holds_what_its_image_shows_within_its_plan() {
        let (p, n, m) = (4, 60_000, 5_000);
        let trace = long_trace(p, n, m);
        let records = trace.records() as usize;
        assert_eq!(records, p * n as usize + m as usize);
        let t = timeline_of(&trace, p, "long").unwrap();
        let held = t.intervals.len() + t.messages.len();
        // What the memory plan counts (`Footprint::trace`), far below the records.
        assert!(held <= most_held(p, TIMELINE_WIDTH), "{held} held");
        assert!(held * 20 < records, "{held} of {records} held");
        assert!(t.intervals.len() <= p * held_per_row(TIMELINE_WIDTH));
        assert_eq!(t.messages.len(), held_messages(TIMELINE_WIDTH));
        assert_eq!(t.messages.len() + t.unheld_messages, m as usize);
        // The earliest messages, in order; every processor's row still spans the whole run.
        assert!(
            t.messages
                .iter()
                .enumerate()
                .all(|(i, msg)| msg.sent_ns == i as u64 * 3000)
        );
        for q in 0..p {
            let row = t.intervals.iter().filter(|iv| iv.processor == q);
            assert_eq!(row.clone().map(|iv| iv.start_ns).min(), Some(0));
            assert_eq!(row.map(|iv| iv.end_ns).max(), Some(n * 1000));
        }
        let svg = timeline_svg(&trace, p, "long").unwrap();
        assert!(
            svg.contains(&format!("note: {m} messages")),
            "the note counts them all"
        );
    }

    #[test]
    fn a_short_traces_timeline_holds_every_record() {
        let trace = long_trace(3, 100, 40);
        let t = timeline_of(&trace, 3, "short").unwrap();
        assert_eq!(t.intervals.len(), 300);
        assert_eq!((t.messages.len(), t.unheld_messages), (40, 0));
        assert!(t.intervals.iter().all(|iv| iv.end_ns - iv.start_ns == 1000));
    }
}
