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

mod chrome;
mod recorder;
mod spill;

use std::io::{self, Write};
use std::sync::Arc;

use serde::Serialize;

use crate::tuning::TRACE_FLOW_CACHE_CHUNKS;
#[cfg(feature = "mpi")]
pub(crate) use recorder::Carried;
pub use recorder::trace_buffer_bytes;
use recorder::{
    EVENT_BYTES, FLOW_BYTES, MESSAGE_BYTES, Stream, decode_event, decode_flow, decode_message,
};
pub(crate) use recorder::{Recorded, Recorder, TraceSink};
use spill::Spill;

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

/// The events of a whole run, as recorded: each processor's intervals and the messages it
/// took, spilled to the run's temporary file as the run went (see `recorder.rs`) and read
/// back from there, so that a trace of any length holds a bounded part in memory.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    /// The spill file (none for a trace made from records in memory).
    spill: Option<Arc<Spill>>,
    /// Bytes of a full chunk of the spill.
    chunk_bytes: usize,
    /// What each processor recorded, by index.
    processors: Vec<Recorded>,
    /// Over MPI ranks in native or dilated time, how the ranks' clocks were made one.
    ranks_clock: Option<RanksClock>,
}

/// How the times of a native or dilated trace over MPI ranks were put on one clock: each
/// rank counts emulated time from the time zero the ranks agreed, rank 0's start moved onto
/// the rank's own clock by the offset its clock pings with rank 0 measured, so every record
/// is on rank 0's clock to within the skew.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RanksClock {
    /// The ranks.
    pub ranks: usize,
    /// The largest uncertainty of a rank's time zero against rank 0's, wall ns.
    pub skew_ns: u64,
}

impl Trace {
    /// The trace of a run from its processors' recordings, by index.
    pub(crate) fn recorded(sink: &TraceSink, processors: Vec<Recorded>) -> Self {
        Self {
            spill: sink.spill().cloned(),
            chunk_bytes: sink.chunk_bytes(),
            processors,
            ranks_clock: None,
        }
    }

    /// This trace, its records taken on several MPI ranks' clocks made one by `clock`.
    #[cfg(any(feature = "mpi", test))]
    pub(crate) fn on_ranks_clock(self, clock: RanksClock) -> Self {
        Self {
            ranks_clock: Some(clock),
            ..self
        }
    }

    /// Over MPI ranks in native or dilated time, how the ranks' clocks were made one (the
    /// skew is the uncertainty of any two ranks' records against each other); `None` when
    /// the trace was taken on one clock (one process, or virtual time).
    pub fn ranks_clock(&self) -> Option<RanksClock> {
        self.ranks_clock
    }

    /// How many records the trace holds: intervals and messages, without reading them back.
    pub fn records(&self) -> u64 {
        self.processors
            .iter()
            .map(|p| p.events.records + p.messages.records)
            .sum()
    }

    /// A trace held in memory, from intervals (grouped by processor, each processor's in time
    /// order) and messages (grouped by receiver, each receiver's in the order taken), as a
    /// run records them.
    pub fn from_records(events: &[TraceEvent], messages: &[MessageEvent]) -> Self {
        let n = events
            .iter()
            .map(|e| e.processor + 1)
            .chain(messages.iter().map(|m| m.from.max(m.to) + 1))
            .max()
            .unwrap_or(0);
        // Each sender's sends in time order; a message's number is its place there.
        let mut sends: Vec<Vec<(u64, usize)>> = vec![Vec::new(); n];
        for (i, m) in messages.iter().enumerate() {
            sends[m.from].push((m.sent_ns, i));
        }
        let mut seq = vec![0u64; messages.len()];
        for s in &mut sends {
            s.sort_by_key(|&(sent_ns, _)| sent_ns);
            for (k, &(_, i)) in s.iter().enumerate() {
                seq[i] = k as u64;
            }
        }
        let sink = TraceSink::in_memory();
        let mut recorders: Vec<_> = (0..n).map(|_| sink.recorder()).collect();
        let mut next_send = vec![0usize; n];
        let mut send_until = |r: &mut Recorder, p: usize, ns: Option<u64>| {
            while let Some(&(sent_ns, _)) = sends[p].get(next_send[p]) {
                if ns.is_some_and(|ns| sent_ns >= ns) {
                    break;
                }
                r.sent(sent_ns);
                next_send[p] += 1;
            }
        };
        for e in events {
            send_until(&mut recorders[e.processor], e.processor, Some(e.start_ns));
            recorders[e.processor].event(e);
        }
        for (p, r) in recorders.iter_mut().enumerate() {
            send_until(r, p, None);
        }
        for (m, &k) in messages.iter().zip(&seq) {
            recorders[m.to].message(m, k);
        }
        Self::recorded(&sink, recorders.into_iter().map(Recorder::finish).collect())
    }

    /// Visits every interval, processor by processor, each processor's in time order.
    pub fn visit_events(&self, mut visit: impl FnMut(&TraceEvent)) -> io::Result<()> {
        self.try_visit_events(|e| {
            visit(e);
            Ok(())
        })
    }

    /// As [`visit_events`](Self::visit_events), stopping at the first error `visit` returns.
    fn try_visit_events(
        &self,
        mut visit: impl FnMut(&TraceEvent) -> io::Result<()>,
    ) -> io::Result<()> {
        for (p, r) in self.processors.iter().enumerate() {
            self.read_stream(&r.events, EVENT_BYTES, |b| visit(&decode_event(p, b)))?;
        }
        Ok(())
    }

    /// Visits every message taken, receiver by receiver, each receiver's in the order taken.
    pub fn visit_messages(&self, mut visit: impl FnMut(&MessageEvent)) -> io::Result<()> {
        for (p, r) in self.processors.iter().enumerate() {
            self.read_stream(&r.messages, MESSAGE_BYTES, |b| {
                visit(&decode_message(p, b).0);
                Ok(())
            })?;
        }
        Ok(())
    }

    /// Visits every message as [`visit_messages`](Self::visit_messages) does, with where its
    /// flow arrow starts (ns; see `recorder.rs`).
    fn visit_flows(
        &self,
        mut visit: impl FnMut(&MessageEvent, f64) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut flows = FlowReader::new(self)?;
        for (p, r) in self.processors.iter().enumerate() {
            self.read_stream(&r.messages, MESSAGE_BYTES, |b| {
                let (m, seq) = decode_message(p, b);
                let start = flows.get(m.from, seq)?;
                visit(&m, start)
            })?;
        }
        Ok(())
    }

    /// Reads one stream's records of `size` bytes: its spilled chunks, then its buffer.
    fn read_stream(
        &self,
        stream: &Stream,
        size: usize,
        mut visit: impl FnMut(&[u8]) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut at = stream.first;
        if at.is_some() || self.spill.is_some() {
            let spill = self.spill()?;
            let mut body = Vec::new();
            while let Some(a) = at {
                at = spill.read(a, &mut body)?;
                body.chunks_exact(size).try_for_each(&mut visit)?;
            }
        }
        stream.tail.chunks_exact(size).try_for_each(visit)
    }

    /// The spill file, checked for a failed write.
    fn spill(&self) -> io::Result<&Spill> {
        let spill = self
            .spill
            .as_deref()
            .ok_or_else(|| io::Error::other("a trace chunk without a spill file"))?;
        spill.check()?;
        Ok(spill)
    }

    /// Writes the trace as Chrome trace-event JSON (`{"traceEvents": [...]}`): one process
    /// named for the emulated machine, one named track per processor, every message as a flow
    /// arrow from its sender (at the send) to its receiver (at the take). Times are emulated
    /// microseconds, as the process name says. Open it in Perfetto or `chrome://tracing`.
    /// Read from the spill and written event by event: it holds one chunk of records at a
    /// time, and a few chunks of flow starts.
    pub fn write_chrome_json<W: Write>(&self, out: W, processors: usize) -> io::Result<()> {
        chrome::write(self, out, processors)
    }
}

/// Random access to the flow starts of every sender: each one's chunks (all full but the
/// last) found once, and the chunks last read kept in a small cache.
struct FlowReader<'a> {
    trace: &'a Trace,
    /// Each sender's spilled chunks of flow starts.
    chunks: Vec<Vec<u64>>,
    /// Flow starts in a full chunk.
    per_chunk: u64,
    /// (sender, chunk, body) of chunks read, by slot.
    cache: Vec<Option<(usize, usize, Vec<u8>)>>,
}

impl<'a> FlowReader<'a> {
    fn new(trace: &'a Trace) -> io::Result<Self> {
        let mut chunks = Vec::with_capacity(trace.processors.len());
        for r in &trace.processors {
            let mut offsets = Vec::new();
            let mut at = r.flows.first;
            while let Some(a) = at {
                offsets.push(a);
                at = trace.spill()?.next_of(a)?;
            }
            chunks.push(offsets);
        }
        Ok(Self {
            trace,
            chunks,
            per_chunk: (trace.chunk_bytes / FLOW_BYTES).max(1) as u64,
            cache: vec![None; TRACE_FLOW_CACHE_CHUNKS],
        })
    }

    /// Where the `seq`-th message `sender` sent starts its arrow.
    fn get(&mut self, sender: usize, seq: u64) -> io::Result<f64> {
        let missing = || {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("the trace has no send {seq} of P{sender}"),
            )
        };
        let chunks = self.chunks.get(sender).ok_or_else(missing)?;
        let chunk = (seq / self.per_chunk) as usize;
        let at = |i: u64| (i as usize) * FLOW_BYTES..(i as usize + 1) * FLOW_BYTES;
        let Some(&offset) = chunks.get(chunk) else {
            let i = seq - chunks.len() as u64 * self.per_chunk;
            let tail = &self.trace.processors[sender].flows.tail;
            return tail.get(at(i)).map(decode_flow).ok_or_else(missing);
        };
        let slot = (sender.wrapping_mul(0x9E37_79B9) ^ chunk) % self.cache.len();
        let hit = matches!(&self.cache[slot], Some((s, c, _)) if *s == sender && *c == chunk);
        if !hit {
            let mut body = self.cache[slot]
                .take()
                .map(|(_, _, b)| b)
                .unwrap_or_default();
            self.trace.spill()?.read(offset, &mut body)?;
            self.cache[slot] = Some((sender, chunk, body));
        }
        let body = &self.cache[slot].as_ref().expect("filled above").2;
        body.get(at(seq % self.per_chunk))
            .map(decode_flow)
            .ok_or_else(missing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chrome_trace_has_one_named_track_per_processor_and_microsecond_times() {
        let trace = Trace::from_records(
            &[TraceEvent {
                processor: 1,
                activity: Activity::Compute,
                start_ns: 2_000,
                duration_ns: 500,
                peer: None,
            }],
            &[MessageEvent {
                from: 0,
                to: 1,
                sent_ns: 1_000,
                arrive_ns: 1_500,
                received_ns: 2_500,
                bytes: 8,
            }],
        );
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
        let trace = Trace::from_records(
            &[
                slice(Activity::Compute, 0, 1_000),
                slice(Activity::Communication, 1_000, 500),
                slice(Activity::Compute, 1_500, 1_000),
            ],
            &[MessageEvent {
                from: 0,
                to: 1,
                sent_ns: 1_500,
                arrive_ns: 1_500,
                received_ns: 3_000,
                bytes: 8,
            }],
        );
        let mut out = Vec::new();
        trace.write_chrome_json(&mut out, 2).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let events = v["traceEvents"].as_array().unwrap();
        let start = events.iter().find(|e| e["ph"] == "s").unwrap();
        assert_eq!(start["ts"].as_f64(), Some(1.25));
    }
}

#[cfg(test)]
mod flow_tests {
    use super::*;

    /// The flow-start rule as the writer applied it before traces were streamed, over a whole
    /// sender's slices in memory: the reference the recorder's incremental rule must equal.
    fn reference_flow_start_ns(own: &[TraceEvent], sent_ns: u64) -> f64 {
        let upto = own.partition_point(|e| e.start_ns <= sent_ns);
        own[upto.saturating_sub(3)..upto]
            .iter()
            .rev()
            .find(|e| {
                e.activity == Activity::Communication
                    && e.duration_ns > 0
                    && sent_ns <= e.start_ns + e.duration_ns
            })
            .map_or(sent_ns as f64, |e| {
                e.start_ns as f64 + e.duration_ns as f64 / 2.0
            })
    }

    /// Random slices on one sender (zero-length and touching ones among them) and sends at
    /// random slice boundaries and inside slices, several at one time: every arrow starts
    /// where the reference puts it.
    #[test]
    fn flow_starts_resolved_as_the_run_goes_equal_the_whole_trace_rule() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for _ in 0..200 {
            let (mut events, mut messages, mut clock) = (Vec::new(), Vec::new(), 0u64);
            for _ in 0..next(12) + 1 {
                let activity =
                    [Activity::Compute, Activity::Communication, Activity::Idle][next(3) as usize];
                let duration_ns = [0, 1, 5, 10][next(4) as usize];
                events.push(TraceEvent {
                    processor: 0,
                    activity,
                    start_ns: clock,
                    duration_ns,
                    peer: None,
                });
                for _ in 0..next(3) {
                    messages.push(MessageEvent {
                        from: 0,
                        to: 1,
                        sent_ns: clock + next(duration_ns + 1),
                        arrive_ns: 0,
                        received_ns: 0,
                        bytes: 0,
                    });
                }
                clock += duration_ns;
            }
            messages.sort_by_key(|m| m.sent_ns);
            let trace = Trace::from_records(&events, &messages);
            let mut got = Vec::new();
            trace
                .visit_flows(|_, start| {
                    got.push(start);
                    Ok(())
                })
                .unwrap();
            let want: Vec<f64> = messages
                .iter()
                .map(|m| reference_flow_start_ns(&events, m.sent_ns))
                .collect();
            assert_eq!(got, want, "{events:?} {messages:?}");
        }
    }

    /// A recorder spilling to a file holds at most one buffer per stream while it records,
    /// nothing once finished, and its trace reads back every record in order.
    #[test]
    fn a_spilling_recorder_holds_one_buffer_and_reads_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let sink = TraceSink::spilling_in(dir.path(), 1).unwrap();
        let mut r = sink.recorder();
        let events: Vec<TraceEvent> = (0..20_000u64)
            .map(|i| TraceEvent {
                processor: 0,
                activity: Activity::Communication,
                start_ns: 10 * i,
                duration_ns: 10,
                peer: Some(1),
            })
            .collect();
        for e in &events {
            r.event(e);
            r.sent(e.start_ns + 10);
            assert!(r.held_bytes() <= 3 * sink.chunk_bytes());
        }
        let recorded = r.finish();
        assert!(recorded.events.first.is_some() && recorded.events.tail.is_empty());
        let trace = Trace::recorded(&sink, vec![recorded, sink.recorder().finish()]);
        let mut back = Vec::new();
        trace.visit_events(|e| back.push(e.clone())).unwrap();
        assert_eq!(back, events);
    }
}
