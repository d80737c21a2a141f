//! The documented limits of the command line's values, each checked where the value is parsed
//! (clap exits with code 2 naming the flag and the limit) or, where a limit depends on other
//! flags, in the plan ([`crate::plan`]'s budget: memory, emulated time, wall time).
//!
//! The limits are wide enough for every experiment of the three papers and narrow enough that
//! no product of two of them overflows a 64-bit count of nanoseconds or bytes.

use std::time::Duration;

/// The largest emulated duration one flag may give (a task time, an overhead, an occupation,
/// a link cost): one hour. Emulated costs longer than this make runs that no time mode
/// finishes in reasonable wall time, and sums of them overflow the runtime's nanosecond
/// clocks.
pub(crate) const MAX_DURATION: Duration = Duration::from_secs(3600);

/// The most tasks one run may have (`--tasks`).
pub(crate) const MAX_TASKS: u64 = 100_000_000;

/// The most bytes of one task or result in a message (`--task-bytes`, `--result-bytes`): 1 GiB.
pub(crate) const MAX_TASK_BYTES: u64 = 1 << 30;

/// The longest queue of unprocessed tasks per processor (`--queue`).
pub(crate) const MAX_QUEUE: u64 = 65_536;

/// The most messages one link may buffer (`--capacity`). Threads' links allocate their
/// buffers before the run.
pub(crate) const MAX_CAPACITY: u64 = 65_536;

/// The most busy-loop iterations per send (`--loop-count`): about a second of host time per
/// message at the development host's ~1 ns per iteration.
pub(crate) const MAX_LOOP_COUNT: u64 = 1_000_000_000;

/// The largest dilation factor (`--dilation`): a run of 1 s of emulated time would take 11.6
/// days of wall time.
pub(crate) const MAX_DILATION: f64 = 1e6;

/// The most rounds of `emulate`.
pub(crate) const MAX_ROUNDS: u64 = 1_000_000_000;

/// The most integers examined per task by the prime kernel (`--grain`).
pub(crate) const MAX_GRAIN: u64 = 1_000_000_000;

/// The most keys per mergesort task (`--keys`).
pub(crate) const MAX_KEYS: u64 = 1_000_000_000;

/// The longest OCL stream (`--length`).
pub(crate) const MAX_STREAM: u64 = 1_000_000_000;

/// The most samples of an Ising run (`--samples`, `--samples-per-processor`).
pub(crate) const MAX_SAMPLES: u64 = 1_000_000_000;

/// The largest linear lattice size (`--size`); the memory budget usually binds first.
pub(crate) const MAX_LATTICE: usize = 1 << 20;

/// The most runs (`--runs`, `--warmup`) of one experiment or cell.
pub(crate) const MAX_RUNS: u32 = 10_000;

/// The most cells a sweep runs: counted from its lists before any cell is built, so that a
/// grid too large is refused in milliseconds (a 16 384-cell grid took 23 s and 3.1 GiB to be
/// refused when its cells were built first).
pub(crate) const MAX_SWEEP_CELLS: usize = 4_096;

/// The most round trips of `pingpong` per measurement.
pub(crate) const MAX_ROUND_TRIPS: u64 = 1_000_000_000;

// (The largest input file, 64 MiB, is the readers' own limit: `files::MAX_FILE_BYTES`.)

/// The longest run the tool starts, by its estimate of wall time: 24 hours. Longer runs are
/// refused with the estimate and the time mode that would be faster.
pub(crate) const MAX_WALL_S: f64 = 86_400.0;

/// The most emulated time a run may add up over its processors (processors × emulated
/// makespan), seconds: 10⁹ s keeps every sum of the runtime's nanosecond clocks (2⁶⁴ ns ≈
/// 1.8 × 10¹⁰ s) an order of magnitude inside its range.
pub(crate) const MAX_PROCESSOR_EMULATED_S: f64 = 1e9;

/// The share of the memory available now that a run may plan to use.
pub(crate) const MEMORY_SHARE: f64 = 0.75;
