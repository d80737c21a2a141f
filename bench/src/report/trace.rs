//! A run's processor timeline as files: Chrome trace-event JSON (`--trace`, opened in
//! Perfetto) and an SVG timeline (`--timeline`).

use std::path::PathBuf;

use anyhow::Result;
use multicomputer_runtime::{Activity, Trace};

use super::Meta;
use crate::files::Publication;
use crate::plan::TracePlan;

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

/// The processor timeline (compute, communication, idle) as SVG.
pub(crate) fn timeline_svg(trace: &Trace, processors: usize, title: &str) -> Result<String> {
    let intervals: Vec<(usize, f64, f64, &str)> = trace
        .events
        .iter()
        .map(|e| {
            let kind = match e.activity {
                Activity::Compute => "compute",
                Activity::Communication => "communication",
                Activity::Idle => "idle",
            };
            let start = e.start_ns as f64 / 1e9;
            (e.processor, start, start + e.duration_ns as f64 / 1e9, kind)
        })
        .collect();
    let height = (80 + 22 * processors as u32).clamp(240, 4000);
    // PLOT(lead): timelines in ms with every processor labelled and messages drawn, once
    // plot::timeline_svg takes them (the trace's message events are in `trace.events`).
    crate::plot::timeline_svg(title, processors, &intervals, 1200, height)
}
