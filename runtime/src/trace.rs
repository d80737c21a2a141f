//! Per-processor accounting and optional event traces (Chrome trace-event JSON for Perfetto).
//!
//! Every advance of a processor's emulated clock is charged to exactly one of three accounts,
//! so for each processor `compute + communication + idle = finish time` holds exactly:
//!
//! - **compute**: [`occupy`](crate::Processor::occupy) and real work run through
//!   [`compute`](crate::Processor::compute);
//! - **communication**: message start-up costs, the degradation busy loop, and
//!   [`occupy_comm`](crate::Processor::occupy_comm) (e.g. a task engine's β_e and β_f);
//! - **idle**: waiting for a message to arrive or for room on a full link.

use std::io::Write;

use serde::Serialize;

/// What one processor did during a run, in emulated nanoseconds and counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Accounting {
    /// Busy with computation.
    pub compute_ns: u64,
    /// Busy with non-overlapped communication costs.
    pub communication_ns: u64,
    /// Blocked waiting for messages or link space.
    pub idle_ns: u64,
    /// Emulated time at which the processor's program returned.
    pub finish_ns: u64,
    /// Messages sent.
    pub messages_sent: u64,
    /// Bytes sent.
    pub bytes_sent: u64,
    /// Messages received.
    pub messages_received: u64,
    /// Bytes received.
    pub bytes_received: u64,
    /// Tasks this processor executed (reported by the program).
    pub tasks_executed: u64,
    /// Tasks this processor forwarded to others (reported by the program).
    pub tasks_forwarded: u64,
}

impl Accounting {
    /// Busy time (compute + communication), emulated ns.
    pub fn busy_ns(&self) -> u64 {
        self.compute_ns + self.communication_ns
    }
}

/// The kind of a traced interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Activity {
    /// Computation.
    Compute,
    /// Non-overlapped communication cost.
    Communication,
    /// Waiting for a message or link space.
    Idle,
}

/// One traced interval or event on a processor, in emulated nanoseconds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TraceEvent {
    /// Processor index.
    pub processor: usize,
    /// What the processor was doing.
    pub activity: Activity,
    /// Start, emulated ns.
    pub start_ns: u64,
    /// Duration, emulated ns (0 for instantaneous events).
    pub duration_ns: u64,
    /// The peer processor for communication and idle waits, if any.
    pub peer: Option<usize>,
}

/// The events of a whole run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Trace {
    /// All events, grouped by processor, each processor's in time order.
    pub events: Vec<TraceEvent>,
}

impl Trace {
    /// Writes the trace as Chrome trace-event JSON (`{"traceEvents": [...]}`), one track per
    /// processor, times in emulated microseconds. Open it in Perfetto or `chrome://tracing`.
    pub fn write_chrome_json<W: Write>(
        &self,
        mut out: W,
        processors: usize,
    ) -> std::io::Result<()> {
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
        }
        let mut events = Vec::with_capacity(self.events.len() + processors);
        let names: Vec<String> = (0..processors).map(|p| format!("P{p}")).collect();
        for (p, name) in names.iter().enumerate() {
            events.push(Event {
                name: "thread_name",
                ph: "M",
                pid: 0,
                tid: p,
                ts: None,
                dur: None,
                args: Some(serde_json::json!({ "name": name })),
            });
        }
        for e in &self.events {
            let name = match e.activity {
                Activity::Compute => "compute",
                Activity::Communication => "communication",
                Activity::Idle => "idle",
            };
            events.push(Event {
                name,
                ph: "X",
                pid: 0,
                tid: e.processor,
                ts: Some(e.start_ns as f64 / 1e3),
                dur: Some(e.duration_ns as f64 / 1e3),
                args: e.peer.map(|p| serde_json::json!({ "peer": p })),
            });
        }
        serde_json::to_writer(&mut out, &serde_json::json!({ "traceEvents": events }))
            .map_err(std::io::Error::other)?;
        out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chrome_trace_has_one_named_track_per_processor_and_microsecond_times() {
        let trace = Trace {
            events: vec![TraceEvent {
                processor: 1,
                activity: Activity::Compute,
                start_ns: 2_000,
                duration_ns: 500,
                peer: None,
            }],
        };
        let mut out = Vec::new();
        trace.write_chrome_json(&mut out, 2).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let events = v["traceEvents"].as_array().unwrap();
        assert_eq!(events.len(), 3);
        assert_eq!(events[1]["args"]["name"], "P1");
        assert_eq!(events[2]["ts"], 2.0);
        assert_eq!(events[2]["dur"], 0.5);
        assert_eq!(events[2]["tid"], 1);
    }
}
