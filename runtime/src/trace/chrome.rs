//! A trace as Chrome trace-event JSON, read back from its spill record by record.

use std::io::{self, Write};

use serde::Serialize;

use super::{Activity, Trace};

/// One trace event as Chrome writes it.
#[derive(Serialize)]
struct Event<'a> {
    name: &'a str,
    ph: &'a str,
    pid: u32,
    tid: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    ts: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dur: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    args: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cat: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bp: Option<&'a str>,
}

/// A metadata event.
fn meta(name: &str, tid: usize, args: serde_json::Value) -> Event<'_> {
    Event {
        name,
        ph: "M",
        pid: 0,
        tid,
        ts: None,
        dur: None,
        args: Some(args),
        id: None,
        cat: None,
        bp: None,
    }
}

/// The trace's one process: the emulated machine, and over MPI ranks how their clocks were
/// made one.
fn process_name(trace: &Trace) -> String {
    match trace.ranks_clock() {
        None => "emulated multicomputer (times are emulated µs)".into(),
        Some(c) => format!(
            "emulated multicomputer (times are emulated µs; over {} MPI ranks, each counted \
             from rank 0's time zero, moved onto the rank's clock by the measured offset: \
             records of two ranks agree within the skew, {:.1} µs of wall time)",
            c.ranks,
            c.skew_ns as f64 / 1e3
        ),
    }
}

/// Writes `trace` (see [`Trace::write_chrome_json`]): the process and its `processors`
/// tracks, every interval processor by processor, then every message receiver by receiver,
/// numbered in that order.
pub(super) fn write<W: Write>(trace: &Trace, mut out: W, processors: usize) -> io::Result<()> {
    let mut first = true;
    let mut put = |out: &mut W, e: &Event| -> io::Result<()> {
        out.write_all(if first { b"\n" } else { b",\n" })?;
        first = false;
        serde_json::to_writer(&mut *out, e).map_err(io::Error::other)
    };
    out.write_all(b"{\"traceEvents\":[")?;
    put(
        &mut out,
        &meta(
            "process_name",
            0,
            serde_json::json!({ "name": process_name(trace) }),
        ),
    )?;
    for p in 0..processors {
        put(
            &mut out,
            &meta(
                "thread_name",
                p,
                serde_json::json!({ "name": format!("P{p}") }),
            ),
        )?;
        put(
            &mut out,
            &meta(
                "thread_sort_index",
                p,
                serde_json::json!({ "sort_index": p }),
            ),
        )?;
    }
    trace.try_visit_events(|e| {
        let name = match e.activity {
            Activity::Compute => "compute",
            Activity::Communication => "communication",
            Activity::Idle => "idle",
        };
        put(
            &mut out,
            &Event {
                name,
                ph: "X",
                pid: 0,
                tid: e.processor,
                ts: Some(e.start_ns as f64 / 1e3),
                dur: Some(e.duration_ns as f64 / 1e3),
                args: e.peer.map(|p| serde_json::json!({ "peer": p })),
                id: None,
                cat: None,
                bp: None,
            },
        )
    })?;
    let mut id = 0;
    trace.visit_flows(|m, start_ns| {
        let args = serde_json::json!({
            "from": m.from, "to": m.to, "bytes": m.bytes,
            "arrive_us": m.arrive_ns as f64 / 1e3,
        });
        let start_us = start_ns / 1e3;
        for (ph, tid, us) in [
            ("s", m.from, start_us),
            ("f", m.to, m.received_ns as f64 / 1e3),
        ] {
            put(
                &mut out,
                &Event {
                    name: "message",
                    ph,
                    pid: 0,
                    tid,
                    ts: Some(us),
                    dur: None,
                    args: (ph == "s").then(|| args.clone()),
                    id: Some(id),
                    cat: Some("message"),
                    bp: (ph == "f").then_some("e"),
                },
            )?;
        }
        id += 1;
        Ok(())
    })?;
    out.write_all(b"\n]}\n")?;
    out.flush()
}
