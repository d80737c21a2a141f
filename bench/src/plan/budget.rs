//! The memory model: the bytes a run will hold, planned before anything is allocated, from
//! bytes measured per processor, per task, per buffered message and per trace event
//! (docs/results/edges.md, "The memory model"). A run that would need more than
//! [`MEMORY_SHARE`] of the memory available now is refused, naming the flag whose value takes
//! the most. Every command that builds a machine is admitted by it.
//!
//! The constants were measured as differences of peak resident memory between runs that
//! differ in one count only (release build, this project's 2-core VM), rounded up.

use multicomputer_runtime::tuning::{
    LOOKAHEAD_BYTES_PER_LINK, RESIDENT_BYTES_PER_COROUTINE, TRACE_FLOW_CACHE_CHUNKS,
};
use multicomputer_runtime::{Hints, HostLimits, Topology, trace_buffer_bytes};

use super::{ArgError, MachinePlan};
use crate::args::MEMORY_SHARE;
use crate::plot::{TIMELINE_WIDTH, most_held};
use crate::tuning::{
    RANK_BYTES, RANK_GATHER_BYTES_PER_PROCESSOR, RANK_MACHINE_BYTES_PER_PROCESSOR,
};
use crate::units::human_bytes;

/// Bytes one buffered message takes in a thread link's channel (a crossbeam array slot:
/// the message, its arrival stamp and the slot's own stamp), rounded up.
pub(crate) const SLOT_BYTES: f64 = 128.0;

/// Bytes per task of the farm's and divide and conquer's task and result vectors (task
/// times, packets, results, their keys and result times, the reference's copy): 196 B
/// measured (`farm -t binary:3`, 10⁵ against 4 × 10⁵ tasks, virtual time).
pub(crate) const TASK_BYTES: f64 = 200.0;

/// Bytes per task of a run's outcome that stays held while the same experiment runs again
/// under the other tie orders (virtual time, `exec::ties`: when the estimate calls the extra
/// runs cheap, which is decided after the plan, so every virtual-time run counts it): 16 MiB
/// more peak RSS for `farm -t binary:3 --tasks 300000 --mode virtual` with the tie orders'
/// runs than without (83.1 against 67.2 MiB), 56 B a task.
pub(crate) const HELD_OUTCOME_TASK_BYTES: f64 = 56.0;

/// Bytes per task of divide and conquer (its tasks are split as they go, not held as a
/// vector of packets): 88 B measured per task on `binary:4`, hops included, rounded down to
/// leave the hops to [`TASK_HOP_BYTES`].
pub(crate) const DNC_TASK_BYTES: f64 = 64.0;

/// Bytes per task and level it descends that divide and conquer holds while the task is
/// out: each level keeps its split (the parent's key and a slot per part) until the parts'
/// results are back to be joined. 81 B was measured per hop when the farm kept such a record
/// too (`farm -t chain:2000`, 10³ against 2 × 10³ tasks, a task descending 1 000 levels on
/// average), rounded up. The farm forwards its tasks whole and keeps none
/// (`Job::forwards_whole`): 0.6 MiB more for twice the tasks on that chain.
pub(crate) const TASK_HOP_BYTES: f64 = 88.0;

/// Bytes a task engine's node holds per processor besides its coroutine or thread (its
/// queues and pending splits): 29 KB measured (`farm -t chain:1000` to `chain:4000`, 10³
/// tasks, less the hops), rounded down to what a short run touches.
pub(crate) const ENGINE_NODE_BYTES: f64 = 16.0 * 1024.0;

/// Bytes a traced run holds per processor besides its three trace buffers (which are
/// `trace_buffer_bytes` each, spilled to disk when full): its recording's heads and its
/// outcome's share, about 200 B, rounded up. A trace's records are spilled to disk as the run
/// goes, so nothing here grows with the trace's length.
pub(crate) const TRACE_PROCESSOR_BYTES: f64 = 256.0;

/// Bytes per trace record that `--timeline` holds: the record as the plot takes it, twice,
/// and its element in the SVG text, about 90 B. It holds at most `plot::most_held` records,
/// however long the trace.
pub(crate) const TIMELINE_RECORD_BYTES: f64 = 256.0;

/// Bytes an OS thread (native and dilated time) holds: its touched stack pages, its signal
/// stack and its share of the machine.
pub(crate) const THREAD_BYTES: f64 = 24.0 * 1024.0;

/// Resident memory of the process before its run: the binary, its libraries and allocator.
pub(crate) const PROCESS_BYTES: f64 = 8.0 * 1024.0 * 1024.0;

/// Trace records one task makes per level it descends in a task engine (its request, task
/// and result messages, their start-up intervals and the waits between): 7–10 measured for
/// the farm, up to 20 for divide and conquer's splits and joins.
pub(crate) const TRACE_RECORDS_PER_TASK_HOP: f64 = 10.0;

/// The mean depth of `topology`'s processors (the root at 0): how far a task travels on
/// average when every processor executes a like share.
pub(crate) fn mean_depth(topology: &Topology) -> f64 {
    let levels = topology.levels();
    let sum: f64 = (0..topology.len())
        .map(|i| f64::from(levels.saturating_sub(topology.level(i))))
        .sum();
    sum / topology.len().max(1) as f64
}

/// What a run will allocate, part by part, each with the flag that sets it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Footprint {
    parts: Vec<Part>,
    /// The machine runs in virtual time (noted by [`Footprint::machine`]).
    virtual_time: bool,
    /// The machine records a trace (noted by [`Footprint::machine`]).
    tracing: bool,
    /// It draws a timeline from it (noted by [`Footprint::machine`]).
    timeline: bool,
    /// Its processors (noted by [`Footprint::machine`]).
    processors: usize,
}

#[derive(Debug, Clone)]
struct Part {
    flag: String,
    what: String,
    bytes: f64,
}

/// The memory available now (`MemAvailable`), bytes, if it can be read.
pub(crate) fn available_memory() -> Option<u64> {
    HostLimits::read().memory_available
}

impl Footprint {
    /// Nothing yet.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Adds `bytes` that `flag` sets, described by `what` (e.g. `4 lattices of 10000³
    /// spins`).
    pub(crate) fn add(&mut self, flag: &str, what: impl Into<String>, bytes: f64) -> &mut Self {
        self.parts.push(Part {
            flag: flag.to_string(),
            what: what.into(),
            bytes,
        });
        self
    }

    /// The process itself, the machine's processors on `topology` (a coroutine each in
    /// virtual time, an OS thread each otherwise, as the machine resolves the run with
    /// `hints`) and, on threads, its links' buffers; a partitioned run started as one of
    /// several MPI ranks also holds what each rank holds besides its part
    /// ([`Footprint::ranks`]). Notes the time mode and the trace for [`Footprint::tasks`].
    pub(crate) fn machine(
        &mut self,
        topology: &Topology,
        machine: &MachinePlan,
        hints: &Hints,
    ) -> Result<&mut Self, ArgError> {
        let spec = machine.spec(topology, hints)?;
        self.virtual_time = spec.time.is_virtual();
        self.tracing = spec.trace;
        self.timeline = machine.timeline;
        self.processors = topology.len();
        let p = topology.len() as f64;
        let (each, what) = if self.virtual_time {
            (RESIDENT_BYTES_PER_COROUTINE as f64, "coroutines")
        } else {
            (THREAD_BYTES, "threads")
        };
        let buffers = machine.channel_bytes(topology, hints)?;
        // A partitioned run started as several MPI ranks has a part per rank (the runtime
        // refuses any other count), each rank a process of its own.
        if spec.partitions.is_some() {
            self.ranks(crate::launch::rank_count(), topology.len(), each);
        }
        // The parts' schedulers hold one machine's tables between them (in each coroutine's
        // share), and the partitioned semantics' books of every link once.
        if spec.partitions.is_some() {
            self.add(
                "--partitions",
                format!(
                    "the partitioned semantics' books of {} links",
                    2 * topology.links()
                ),
                2.0 * topology.links() as f64 * LOOKAHEAD_BYTES_PER_LINK as f64,
            );
        }
        Ok(self
            .add("the program", "the process itself", PROCESS_BYTES)
            .add(
                machine.size_flag,
                format!("{} {what}", topology.len()),
                p * each,
            )
            .add(
                "--capacity",
                format!("the buffers of {} links", topology.links()),
                buffers,
            ))
    }

    /// What `ranks` MPI ranks of a partitioned run on `processors` hold besides their parts,
    /// whose processors take `each` bytes (nothing for one rank, a run in one process). Each
    /// rank is a process of its own with the MPI library in it ([`RANK_BYTES`]; the program's
    /// own part counts one process); each builds and keeps what it needs of the whole machine
    /// ([`RANK_MACHINE_BYTES_PER_PROCESSOR`] a processor of the whole machine); and at the
    /// run's end each gathers every part's record ([`RANK_GATHER_BYTES_PER_PROCESSOR`] a
    /// processor of the whole machine), once its own processors are gone: counted where it
    /// exceeds them.
    pub(crate) fn ranks(&mut self, ranks: usize, processors: usize, each: f64) -> &mut Self {
        if ranks < 2 {
            return self;
        }
        let (k, n) = (ranks as f64, processors as f64);
        let gathered = k * n * RANK_GATHER_BYTES_PER_PROCESSOR;
        self.add(
            "--partitions",
            format!("{ranks} rank processes, the MPI library in each"),
            k * RANK_BYTES - PROCESS_BYTES,
        )
        .add(
            "--partitions",
            format!(
                "what each of {ranks} ranks keeps of the whole machine ({processors} processors)"
            ),
            k * n * RANK_MACHINE_BYTES_PER_PROCESSOR,
        )
        .add(
            "--partitions",
            format!(
                "every part's record gathered on each of {ranks} ranks at the run's end, beyond \
                 its processors' bytes freed by then"
            ),
            (gathered - n * each).max(0.0),
        )
    }

    /// Whether the machine noted by [`Footprint::machine`] records a trace.
    pub(crate) fn traced(&self) -> bool {
        self.tracing
    }

    /// The tasks of a task engine's run (farm, divide and conquer) on the machine noted by
    /// [`Footprint::machine`]: `tasks` of them, of `task_bytes` each (`TASK_BYTES`,
    /// `DNC_TASK_BYTES`), on `topology`, each descending its mean depth and held `hop_bytes`
    /// at each level it passes (`TASK_HOP_BYTES` for split tasks, 0 for tasks forwarded
    /// whole); `trace_per_hop` trace records a task makes per level if the machine traces.
    pub(crate) fn tasks(
        &mut self,
        (tasks, task_bytes, hop_bytes): (usize, f64, f64),
        topology: &Topology,
        size_flag: &str,
        trace_per_hop: f64,
    ) -> &mut Self {
        let m = tasks as f64;
        let hops = m * mean_depth(topology);
        self.add("--tasks", format!("{tasks} tasks"), m * task_bytes)
            .add(
                size_flag,
                format!("the task engine's {} nodes", topology.len()),
                topology.len() as f64 * ENGINE_NODE_BYTES,
            );
        if self.virtual_time {
            self.add(
                "--tasks",
                format!("a run's outcome for {tasks} tasks, held while the tie orders' runs go"),
                m * HELD_OUTCOME_TASK_BYTES,
            );
        }
        if hop_bytes > 0.0 {
            self.add(
                "--tasks",
                format!(
                    "{tasks} tasks' splits through {} processors",
                    topology.len()
                ),
                hops * hop_bytes,
            );
        }
        if self.tracing {
            self.trace(2.0 * m + trace_per_hop * hops);
        }
        self
    }

    /// A trace of about `records` records on the machine noted by [`Footprint::machine`]
    /// (`--trace`, `--timeline`). Streamed to disk, it holds a bounded part: three buffers per
    /// processor while the run goes, its processors' heads after it, and while it is read
    /// back a few chunks of flow starts and each sender's list of them (8 B a chunk: the one
    /// term that grows with the trace, by 1/8 B a record at most). A timeline holds the
    /// trace's records, or at most what its image shows ([`most_held`]) of a long one.
    pub(crate) fn trace(&mut self, records: f64) -> &mut Self {
        let p = self.processors;
        let chunk = trace_buffer_bytes(p) as f64;
        let buffers = p as f64 * (3.0 * chunk + TRACE_PROCESSOR_BYTES);
        let reading = TRACE_FLOW_CACHE_CHUNKS as f64 * chunk + records * 64.0 / chunk;
        self.add(
            "--trace",
            format!(
                "a trace of about {records:.0} records, spilled to disk from 3 buffers of {} \
                 per processor",
                human_bytes(chunk)
            ),
            buffers + reading,
        );
        if self.timeline {
            let held = records.min(most_held(p, TIMELINE_WIDTH) as f64);
            self.add(
                "--timeline",
                format!("a timeline drawn from {held:.0} of {records:.0} trace records"),
                held * TIMELINE_RECORD_BYTES,
            );
        }
        self
    }

    /// The total, bytes.
    pub(crate) fn bytes(&self) -> f64 {
        self.parts.iter().map(|p| p.bytes).sum()
    }

    /// Checks the total against the memory available now.
    pub(crate) fn check(&self) -> Result<(), ArgError> {
        self.check_against(available_memory())
    }

    /// Checks the total against `available` bytes (unknown: not checked).
    pub(crate) fn check_against(&self, available: Option<u64>) -> Result<(), ArgError> {
        let Some(available) = available else {
            return Ok(());
        };
        let total = self.bytes();
        let allowed = available as f64 * MEMORY_SHARE;
        if total <= allowed {
            return Ok(());
        }
        let Some(largest) = self.parts.iter().max_by(|a, b| a.bytes.total_cmp(&b.bytes)) else {
            return Ok(());
        };
        Err(ArgError::new(
            &largest.flag,
            format!(
                "the run would need about {} of memory ({}: {}), more than {:.0} % of the {} \
                 available now; give a smaller value",
                human_bytes(total),
                largest.what,
                human_bytes(largest.bytes),
                MEMORY_SHARE * 100.0,
                human_bytes(available as f64)
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_part_names_the_flag() {
        let mut f = Footprint::new();
        f.add("--tasks", "task vectors", 1e6)
            .add("--size", "lattices", 1e12);
        assert_eq!(f.bytes(), 1e12 + 1e6);
        let e = f.check_against(Some(16 << 30)).unwrap_err();
        assert_eq!(e.flag, "--size");
        assert!(e.message.contains("about 931.3 GiB"), "{e}");
        assert!(e.message.contains("lattices: 931.3 GiB"), "{e}");
        assert!(e.message.contains("16.0 GiB available"), "{e}");
        assert!(f.check_against(Some(2 << 40)).is_ok());
        assert!(f.check_against(None).is_ok());
        let mut inf = Footprint::new();
        inf.add("--keys", "keys", f64::INFINITY);
        assert_eq!(inf.check_against(Some(1 << 30)).unwrap_err().flag, "--keys");
    }

    #[test]
    fn each_mpi_rank_adds_its_process_its_whole_machine_and_its_gather() {
        let coroutine = 10.0 * 1024.0;
        // One rank is one process: nothing more than its part.
        assert_eq!(Footprint::new().ranks(1, 1_000_000, coroutine).bytes(), 0.0);
        // 10⁶ processors on 4 ranks: 4 × 26 MiB − the 8 MiB counted once = 96 MiB =
        // 100 663 296 B; 4 × 10⁶ × 700 B = 2.8 × 10⁹ B; the gather, 4 × 10⁶ × 2048 B =
        // 8.192 × 10⁹ B, is less than the 10⁶ × 10 KiB = 1.024 × 10¹⁰ B of coroutines freed
        // before it: 0.
        let f = Footprint::new().ranks(4, 1_000_000, coroutine).clone();
        assert_eq!(f.bytes(), 100_663_296.0 + 2.8e9);
        // 360 000 processors on 16 ranks (22 500 a rank): 16 × 26 MiB − 8 MiB = 408 MiB =
        // 427 819 008 B; 16 × 360 000 × 700 B = 4.032 × 10⁹ B; the gather 16 × 360 000 ×
        // 2048 B = 11.796 48 × 10⁹ B less 360 000 × 10 240 B = 3.6864 × 10⁹ B of coroutines:
        // 8.110 08 × 10⁹ B.
        let f = Footprint::new().ranks(16, 360_000, coroutine).clone();
        assert_eq!(f.bytes(), 427_819_008.0 + 4.032e9 + 8.110_08e9);
        let e = f.check_against(Some(8 << 30)).unwrap_err();
        assert_eq!(e.flag, "--partitions");
        assert!(e.message.contains("gathered on each of 16 ranks"), "{e}");
    }
}
