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
#[cfg_attr(feature = "mpi", derive(serde::Deserialize))]
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
#[cfg_attr(feature = "mpi", derive(serde::Deserialize))]
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
#[cfg_attr(feature = "mpi", derive(serde::Deserialize))]
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

/// One message as it crossed a link, in emulated nanoseconds.
#[cfg_attr(feature = "mpi", derive(serde::Deserialize))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MessageEvent {
    /// The sender.
    pub from: usize,
    /// The receiver.
    pub to: usize,
    /// When the sender let it go (after its start-up cost).
    pub sent_ns: u64,
    /// When it was available to the receiver (after its transfer time).
    pub arrive_ns: u64,
    /// When the receiver took it (at or after its arrival).
    pub received_ns: u64,
    /// Its size.
    pub bytes: u64,
}

/// The events of a whole run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Trace {
    /// All intervals, grouped by processor, each processor's in time order.
    pub events: Vec<TraceEvent>,
    /// Every message received, grouped by receiver, each receiver's in the order taken.
    pub messages: Vec<MessageEvent>,
}

impl Trace {
    /// Writes the trace as Chrome trace-event JSON (`{"traceEvents": [...]}`): one process
    /// named for the emulated machine, one named track per processor, every message as a flow
    /// arrow from its sender (at the send) to its receiver (at the take). Times are emulated
    /// microseconds, as the process name says. Open it in Perfetto or `chrome://tracing`.
    /// Written event by event: besides the trace itself, it holds one event at a time.
    pub fn write_chrome_json<'a, W: Write>(
        &'a self,
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
            #[serde(skip_serializing_if = "Option::is_none")]
            id: Option<usize>,
            #[serde(skip_serializing_if = "Option::is_none")]
            cat: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            bp: Option<&'a str>,
        }
        let meta = |name: &'a str, tid: usize, args: serde_json::Value| Event {
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
        };
        // Streamed event by event: the file is never held whole in memory.
        let mut first = true;
        let mut put = |out: &mut W, e: &Event| -> std::io::Result<()> {
            out.write_all(if first { b"\n" } else { b",\n" })?;
            first = false;
            serde_json::to_writer(&mut *out, e).map_err(std::io::Error::other)
        };
        out.write_all(b"{\"traceEvents\":[")?;
        put(
            &mut out,
            &meta(
                "process_name",
                0,
                serde_json::json!({ "name": "emulated multicomputer (times are emulated µs)" }),
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
        for e in &self.events {
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
            )?;
        }
        let sends = self.send_slices(processors);
        for (id, m) in self.messages.iter().enumerate() {
            let args = serde_json::json!({
                "from": m.from, "to": m.to, "bytes": m.bytes,
                "arrive_us": m.arrive_ns as f64 / 1e3,
            });
            let start_us = self.flow_start_ns(&sends, m) / 1e3;
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
        }
        out.write_all(b"\n]}\n")?;
        out.flush()
    }
}

impl Trace {
    /// Each processor's range of [`Self::events`] (they are grouped by processor).
    fn send_slices(&self, processors: usize) -> Vec<std::ops::Range<usize>> {
        let mut ranges = vec![0..0; processors];
        let mut i = 0;
        while i < self.events.len() {
            let p = self.events[i].processor;
            let j = i + self.events[i..]
                .iter()
                .take_while(|e| e.processor == p)
                .count();
            if let Some(r) = ranges.get_mut(p) {
                *r = i..j;
            }
            i = j;
        }
        ranges
    }

    /// Where a message's flow arrow starts, ns: the middle of the sender's communication slice
    /// that ends at (or holds) the send, so that a viewer binds the arrow to that slice and not
    /// to the compute slice that starts where it ends; the send time if there is none.
    fn flow_start_ns(&self, ranges: &[std::ops::Range<usize>], m: &MessageEvent) -> f64 {
        let own = ranges
            .get(m.from)
            .map_or(&[][..], |r| &self.events[r.clone()]);
        // The slices starting at or before the send; the one holding it is among the last three
        // (a zero-length slice may start where it ends).
        let upto = own.partition_point(|e| e.start_ns <= m.sent_ns);
        own[upto.saturating_sub(3)..upto]
            .iter()
            .rev()
            .find(|e| {
                e.activity == Activity::Communication
                    && e.duration_ns > 0
                    && m.sent_ns <= e.start_ns + e.duration_ns
            })
            .map_or(m.sent_ns as f64, |e| {
                e.start_ns as f64 + e.duration_ns as f64 / 2.0
            })
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
            messages: vec![MessageEvent {
                from: 0,
                to: 1,
                sent_ns: 1_000,
                arrive_ns: 1_500,
                received_ns: 2_500,
                bytes: 8,
            }],
        };
        let mut out = Vec::new();
        trace.write_chrome_json(&mut out, 2).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let events = v["traceEvents"].as_array().unwrap();
        // A process name, a name and a sort index per processor, one interval, two flow ends.
        assert_eq!(events.len(), 1 + 2 * 2 + 1 + 2);
        assert!(
            events[0]["args"]["name"]
                .as_str()
                .unwrap()
                .contains("emulated")
        );
        let named: Vec<&str> = events
            .iter()
            .filter(|e| e["name"] == "thread_name")
            .map(|e| e["args"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(named, ["P0", "P1"]);
        let interval = events.iter().find(|e| e["ph"] == "X").unwrap();
        assert_eq!(interval["ts"], 2.0);
        assert_eq!(interval["dur"], 0.5);
        assert_eq!(interval["tid"], 1);
        let start = events.iter().find(|e| e["ph"] == "s").unwrap();
        let end = events.iter().find(|e| e["ph"] == "f").unwrap();
        assert_eq!(
            (start["tid"].as_u64(), start["ts"].as_f64()),
            (Some(0), Some(1.0))
        );
        assert_eq!(
            (end["tid"].as_u64(), end["ts"].as_f64()),
            (Some(1), Some(2.5))
        );
        assert_eq!(start["id"], end["id"]);
        assert_eq!(end["bp"], "e");
    }

    #[test]
    fn a_flow_arrow_starts_inside_its_send_slice() {
        let slice = |activity, start_ns, duration_ns| TraceEvent {
            processor: 0,
            activity,
            start_ns,
            duration_ns,
            peer: None,
        };
        // P0 sends from 1.0 to 1.5 µs, then computes from 1.5 µs: the message's send time is
        // the boundary of the two.
        let trace = Trace {
            events: vec![
                slice(Activity::Compute, 0, 1_000),
                slice(Activity::Communication, 1_000, 500),
                slice(Activity::Compute, 1_500, 1_000),
            ],
            messages: vec![MessageEvent {
                from: 0,
                to: 1,
                sent_ns: 1_500,
                arrive_ns: 1_500,
                received_ns: 3_000,
                bytes: 8,
            }],
        };
        let mut out = Vec::new();
        trace.write_chrome_json(&mut out, 2).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let events = v["traceEvents"].as_array().unwrap();
        let start = events.iter().find(|e| e["ph"] == "s").unwrap();
        assert_eq!(start["ts"].as_f64(), Some(1.25));
    }
}
