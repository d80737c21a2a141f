//! A run's processor timeline as files: Chrome trace-event JSON (`--trace`, opened in
//! Perfetto) and an SVG timeline (`--timeline`).

use std::path::PathBuf;

use anyhow::Result;
use multicomputer_runtime::{Activity, Trace};

use super::Meta;
use crate::files::Publication;
use crate::plan::TracePlan;
use crate::plot::{Timeline, TimelineInterval, TimelineMessage};

/// The trace files `plan` asks for, staged for publication and listed in `meta`.
pub(crate) fn stage_trace(
    meta: &mut Meta,
    plan: &TracePlan,
    trace: Option<&Trace>,
    processors: usize,
    title: &str,
) -> Result<Publication> {
    let mut files = Publication::new();
    for (path, bytes) in trace_files(plan, trace, processors, title)? {
        files.stage(&path, &bytes)?;
        meta.files.push(path.display().to_string());
    }
    Ok(files)
}

/// The files `plan` asks for, rendered from `trace` of a run on `processors`: `(path,
/// bytes)` to publish with the run's other files.
fn trace_files(
    plan: &TracePlan,
    trace: Option<&Trace>,
    processors: usize,
    title: &str,
) -> Result<Vec<(PathBuf, Vec<u8>)>> {
    let Some(trace) = trace else {
        return Ok(Vec::new());
    };
    let mut files = Vec::new();
    if let Some(path) = &plan.trace {
        let mut buf = Vec::new();
        trace.write_chrome_json(&mut buf, processors)?;
        files.push((path.clone(), buf));
    }
    if let Some(path) = &plan.timeline {
        files.push((
            path.clone(),
            timeline_svg(trace, processors, title)?.into_bytes(),
        ));
    }
    Ok(files)
}

/// The tallest timeline drawn: every row labelled up to this many processors; beyond, every
/// k-th, and the image says so.
const MOST_LABELLED_ROWS: usize = 1024;

/// The processor timeline as SVG: what each processor did (compute, communication, idle)
/// in emulated milliseconds, every processor labelled, every message an arrow from its send
/// to its arrival.
pub(crate) fn timeline_svg(trace: &Trace, processors: usize, title: &str) -> Result<String> {
    let intervals = trace
        .events
        .iter()
        .map(|e| TimelineInterval {
            processor: e.processor,
            start_ns: e.start_ns,
            end_ns: e.start_ns.saturating_add(e.duration_ns),
            kind: match e.activity {
                Activity::Compute => "compute",
                Activity::Communication => "communication",
                Activity::Idle => "idle",
            },
        })
        .collect();
    let messages = trace
        .messages
        .iter()
        .map(|m| TimelineMessage {
            from: m.from,
            to: m.to,
            sent_ns: m.sent_ns,
            arrive_ns: m.arrive_ns,
        })
        .collect();
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
