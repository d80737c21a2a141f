//! One processor's trace as it is recorded: three bounded buffers (its intervals, the messages
//! it took, and where the flow arrow of each message it sent starts), each spilled as one
//! chunk to the run's spill file when full, and the rest at the end of its program.
//!
//! This is all an engine sees of tracing: the run's [`TraceSink`], made before the run,
//! gives each processor its [`Recorder`]; the processor's outcome carries what it recorded
//! ([`Recorded`]), and the run's [`Trace`](super::Trace) reads them back.
//!
//! **Where a flow arrow starts.** A message's arrow starts in the middle of the sender's
//! communication slice that ends at (or holds) the send: among the last three slices
//! starting at or before the send, the latest such one; at the send time if there is none.
//! A slice recorded after the send may still start at its time, so a send is resolved only
//! once the sender records a slice starting later, or its program ends. Sends waiting for
//! that are kept as runs of one time (at most two times are ever waiting).

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;

use super::spill::Spill;
use super::{Activity, MessageEvent, TraceEvent};
use crate::tuning::{TRACE_BUFFERS_BYTES, TRACE_CHUNK_MAX_BYTES, TRACE_CHUNK_MIN_BYTES};

/// Bytes of an encoded interval: activity, start, duration, peer (`u64::MAX`: none).
pub(crate) const EVENT_BYTES: usize = 1 + 8 + 8 + 8;
/// Bytes of an encoded message: sender, its sequence number there, sent, arrival, taken, size.
pub(crate) const MESSAGE_BYTES: usize = 6 * 8;
/// Bytes of an encoded flow start (f64, ns).
pub(crate) const FLOW_BYTES: usize = 8;

/// Bytes each of a processor's three trace buffers holds before it spills, for a run of
/// `processors`: the run's buffers share [`TRACE_BUFFERS_BYTES`], each between
/// [`TRACE_CHUNK_MIN_BYTES`] and [`TRACE_CHUNK_MAX_BYTES`] (a whole number of flow starts).
/// A traced run holds at most three such buffers per processor while it runs.
pub fn trace_buffer_bytes(processors: usize) -> usize {
    let share = TRACE_BUFFERS_BYTES / (3 * processors.max(1));
    share.clamp(TRACE_CHUNK_MIN_BYTES, TRACE_CHUNK_MAX_BYTES) / FLOW_BYTES * FLOW_BYTES
}

/// Where a run's processors spill their traces.
#[derive(Debug, Clone)]
pub(crate) struct TraceSink {
    spill: Option<Arc<Spill>>,
    chunk_bytes: usize,
}

impl TraceSink {
    /// A sink spilling to an unnamed temporary file in `dir`, for a run of `processors`.
    pub(crate) fn spilling_in(dir: &Path, processors: usize) -> std::io::Result<Self> {
        Ok(Self {
            spill: Some(Arc::new(Spill::create_in(dir)?)),
            chunk_bytes: trace_buffer_bytes(processors),
        })
    }

    /// A sink that keeps everything in memory (traces made from records).
    pub(crate) fn in_memory() -> Self {
        Self {
            spill: None,
            chunk_bytes: TRACE_CHUNK_MAX_BYTES,
        }
    }

    /// The spill file, if there is one.
    pub(crate) fn spill(&self) -> Option<&Arc<Spill>> {
        self.spill.as_ref()
    }

    /// Bytes of a full chunk.
    pub(crate) fn chunk_bytes(&self) -> usize {
        self.chunk_bytes
    }

    /// A new processor's recorder.
    pub(crate) fn recorder(&self) -> Recorder {
        Recorder {
            sink: self.clone(),
            events: Stream::default(),
            messages: Stream::default(),
            flows: Stream::default(),
            recent: VecDeque::with_capacity(3),
            waiting: VecDeque::new(),
        }
    }
}

/// One stream of records: the chunks spilled (the first's offset) and the buffer not yet
/// spilled.
#[derive(Debug, Clone, Default)]
pub(crate) struct Stream {
    /// The first spilled chunk.
    pub(crate) first: Option<u64>,
    /// The last spilled chunk (where the next is linked).
    last: Option<u64>,
    /// Encoded records not spilled.
    pub(crate) tail: Vec<u8>,
    /// Records appended, spilled or not.
    pub(crate) records: u64,
}

impl Stream {
    /// Appends one encoded record, spilling the buffer first if it would overflow.
    fn push(&mut self, sink: &TraceSink, record: &[u8]) {
        if let Some(spill) = &sink.spill {
            if self.tail.len() + record.len() > sink.chunk_bytes {
                self.spill(spill);
            }
            if self.tail.capacity() == 0 {
                self.tail.reserve_exact(sink.chunk_bytes);
            }
        }
        self.tail.extend_from_slice(record);
        self.records += 1;
    }

    /// Appends the buffer to the spill file as one chunk.
    fn spill(&mut self, spill: &Spill) {
        if self.tail.is_empty() {
            return;
        }
        if let Some(at) = spill.append(self.last, &self.tail) {
            self.first.get_or_insert(at);
            self.last = Some(at);
        }
        self.tail.clear();
    }
}

/// A slice, as the flow-start rule needs it.
#[derive(Debug, Clone, Copy)]
struct Slice {
    activity: Activity,
    start_ns: u64,
    duration_ns: u64,
}

/// One processor's recorder.
#[derive(Debug)]
pub(crate) struct Recorder {
    sink: TraceSink,
    events: Stream,
    messages: Stream,
    flows: Stream,
    /// The last three slices recorded.
    recent: VecDeque<Slice>,
    /// Sends not yet resolved: (send time, how many), oldest first.
    waiting: VecDeque<(u64, u64)>,
}

impl Recorder {
    /// Records an interval of this processor (in time order).
    pub(crate) fn event(&mut self, e: &TraceEvent) {
        self.resolve_before(e.start_ns);
        if self.recent.len() == 3 {
            self.recent.pop_front();
        }
        self.recent.push_back(Slice {
            activity: e.activity,
            start_ns: e.start_ns,
            duration_ns: e.duration_ns,
        });
        let mut record = [0u8; EVENT_BYTES];
        record[0] = match e.activity {
            Activity::Compute => 0,
            Activity::Communication => 1,
            Activity::Idle => 2,
        };
        record[1..9].copy_from_slice(&e.start_ns.to_le_bytes());
        record[9..17].copy_from_slice(&e.duration_ns.to_le_bytes());
        record[17..].copy_from_slice(&e.peer.map_or(u64::MAX, |p| p as u64).to_le_bytes());
        self.events.push(&self.sink, &record);
    }

    /// Records that this processor sent its next message at `sent_ns`.
    pub(crate) fn sent(&mut self, sent_ns: u64) {
        match self.waiting.back_mut() {
            Some((t, n)) if *t == sent_ns => *n += 1,
            _ => self.waiting.push_back((sent_ns, 1)),
        }
    }

    /// Records a message this processor took, the `seq`-th its sender sent.
    pub(crate) fn message(&mut self, m: &MessageEvent, seq: u64) {
        let mut record = [0u8; MESSAGE_BYTES];
        for (i, v) in [
            m.from as u64,
            seq,
            m.sent_ns,
            m.arrive_ns,
            m.received_ns,
            m.bytes,
        ]
        .into_iter()
        .enumerate()
        {
            record[8 * i..8 * i + 8].copy_from_slice(&v.to_le_bytes());
        }
        self.messages.push(&self.sink, &record);
    }

    /// Resolves the sends before `ns`: no slice recorded from now on starts at or before them.
    fn resolve_before(&mut self, ns: u64) {
        while let Some(&(sent_ns, n)) = self.waiting.front() {
            if sent_ns >= ns {
                break;
            }
            self.waiting.pop_front();
            self.resolve(sent_ns, n);
        }
    }

    /// The flow starts of `n` sends at `sent_ns`, from the slices recorded so far.
    fn resolve(&mut self, sent_ns: u64, n: u64) {
        let start = self
            .recent
            .iter()
            .rev()
            .find(|e| {
                e.activity == Activity::Communication
                    && e.duration_ns > 0
                    && sent_ns <= e.start_ns + e.duration_ns
            })
            .map_or(sent_ns as f64, |e| {
                e.start_ns as f64 + e.duration_ns as f64 / 2.0
            });
        for _ in 0..n {
            self.flows.push(&self.sink, &start.to_le_bytes());
        }
    }

    /// Bytes of records held in its buffers.
    #[cfg(test)]
    pub(crate) fn held_bytes(&self) -> usize {
        self.events.tail.len() + self.messages.tail.len() + self.flows.tail.len()
    }

    /// Ends the recording: every send resolved, every buffer spilled.
    pub(crate) fn finish(mut self) -> Recorded {
        while let Some((sent_ns, n)) = self.waiting.pop_front() {
            self.resolve(sent_ns, n);
        }
        if let Some(spill) = &self.sink.spill {
            for s in [&mut self.events, &mut self.messages, &mut self.flows] {
                s.spill(spill);
                s.tail = Vec::new();
            }
        }
        Recorded {
            events: self.events,
            messages: self.messages,
            flows: self.flows,
        }
    }
}

/// What one processor recorded.
#[derive(Debug, Clone, Default)]
pub(crate) struct Recorded {
    /// Its intervals, in time order.
    pub(crate) events: Stream,
    /// The messages it took, in the order taken.
    pub(crate) messages: Stream,
    /// The flow starts of the messages it sent, in the order sent.
    pub(crate) flows: Stream,
}

/// A processor's recording as it crosses MPI ranks: each stream's records read back whole
/// from the spill of the rank that recorded them, to be spilled again by the rank that takes
/// them ([`Recorded::land`]), as if recorded there. The trace read back is the same record
/// for record, so its file is the same byte for byte.
#[cfg(feature = "mpi")]
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Carried {
    /// Its intervals, the messages it took and its flow starts, each stream's records in
    /// order.
    streams: [Vec<u8>; 3],
}

#[cfg(feature = "mpi")]
impl Recorded {
    /// The recording, read back from `sink`'s spill (where it was recorded), for another rank.
    pub(crate) fn carry(&self, sink: &TraceSink) -> std::io::Result<Carried> {
        let read = |stream: &Stream| -> std::io::Result<Vec<u8>> {
            let mut all = Vec::new();
            let mut body = Vec::new();
            let mut at = stream.first;
            while let Some(a) = at {
                let spill = sink
                    .spill
                    .as_deref()
                    .ok_or_else(|| std::io::Error::other("a trace chunk without a spill file"))?;
                spill.check()?;
                at = spill.read(a, &mut body)?;
                all.extend_from_slice(&body);
            }
            all.extend_from_slice(&stream.tail);
            Ok(all)
        };
        Ok(Carried {
            streams: [
                read(&self.events)?,
                read(&self.messages)?,
                read(&self.flows)?,
            ],
        })
    }

    /// A recording carried from another rank, spilled to `sink` in chunks as a recorder
    /// here would have spilled it.
    pub(crate) fn land(carried: Carried, sink: &TraceSink) -> Self {
        let [events, messages, flows] = carried.streams;
        let landed = |bytes: Vec<u8>, size: usize| {
            let mut stream = Stream::default();
            for record in bytes.chunks_exact(size) {
                stream.push(sink, record);
            }
            if let Some(spill) = &sink.spill {
                stream.spill(spill);
                stream.tail = Vec::new();
            }
            stream
        };
        Self {
            events: landed(events, EVENT_BYTES),
            messages: landed(messages, MESSAGE_BYTES),
            flows: landed(flows, FLOW_BYTES),
        }
    }
}

/// Decodes an interval of processor `processor`.
pub(crate) fn decode_event(processor: usize, r: &[u8]) -> TraceEvent {
    let word = |i: usize| u64::from_le_bytes(r[i..i + 8].try_into().expect("8 bytes"));
    let peer = word(17);
    TraceEvent {
        processor,
        activity: match r[0] {
            0 => Activity::Compute,
            1 => Activity::Communication,
            _ => Activity::Idle,
        },
        start_ns: word(1),
        duration_ns: word(9),
        peer: (peer != u64::MAX).then_some(peer as usize),
    }
}

/// Decodes a message taken by processor `to`, with its sequence number at its sender.
pub(crate) fn decode_message(to: usize, r: &[u8]) -> (MessageEvent, u64) {
    let word = |i: usize| u64::from_le_bytes(r[8 * i..8 * i + 8].try_into().expect("8 bytes"));
    (
        MessageEvent {
            from: word(0) as usize,
            to,
            sent_ns: word(2),
            arrive_ns: word(3),
            received_ns: word(4),
            bytes: word(5),
        },
        word(1),
    )
}

/// Decodes a flow start.
pub(crate) fn decode_flow(r: &[u8]) -> f64 {
    f64::from_le_bytes(r.try_into().expect("8 bytes"))
}
