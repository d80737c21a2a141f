//! The command line's tuning constants, in one place: what each step of a command costs in
//! wall time, for its estimate, and the thresholds at which a measurement taken on the host is
//! called disturbed or unreliable.
//!
//! # Estimates
//!
//! The estimates' costs per step: what one event, row, message, byte copied or
//! report costs in wall time, measured on the development host (2 vCPUs; release build;
//! docs/results/edges.md, "Estimates at their causes" and "Estimates by kind and size"). The
//! estimates multiply them by the steps a command's plan will take; the announced range then
//! allows for the host's load. `scripts/measure-estimate-constants.sh` measures every one of
//! them on a host (the minimum of a few repetitions) and prints them in this form.
//!
//! # Noise
//!
//! The busy-host and replicate-scatter thresholds (`report/host_noise.rs`). Besides the
//! spread, one outlier among the replicates makes a figure unreliable, as in hyperfine: a
//! value more than `OUTLIER_MODIFIED_Z` (14.826) median absolute deviations from the median,
//! a threshold defined beside the measure (`multicomputer_workloads::repetitions`). Beside
//! them, the agreement of a model-charged ising sample with a native one, beyond which the
//! report says why they differ (`report/bodies/ising.rs`).
//!
//! # Memory over MPI ranks
//!
//! What each rank of a partitioned run over MPI holds besides its part, for the memory plan
//! (`plan/budget.rs`, `Footprint::ranks`; the rest of the memory model's bytes are there).

/// Wall time of one of the runtime's own events in virtual time (a message delivered or a
/// timed wait ended) while the machine's processors fit the caches: `emulate -t chain:1024
/// --pattern reduce --occupy 10us --mode virtual`, 10.65 M events/s on the quiet host
/// (docs/results/virtual-time.md). `scripts/measure-estimate-constants.sh` measures it.
/// Quiet host, `scripts/measure-estimate-constants.sh`, 2026-11-26 20:17 UTC (load 1.5–1.8):
/// `emulate -t chain:1024 --pattern reduce --occupy 10us`, min of 3: 79.8 ns an event.
pub(crate) const ENGINE_EVENT_S: f64 = 0.080e-6;

/// Wall time of one event of a farm or divide and conquer as the tree engine's model counts
/// them (its requests, packets and queues in them) while the processors fit the caches: the
/// quiet host's `farm --runs 10000 --warmup 10000` (binary:3), 1.88 ms a run for the 5 800
/// events a run its model counts (docs/results/edges.md, "The quiet re-take").
/// Quiet host, `scripts/measure-estimate-constants.sh`, 2026-11-26 20:17 UTC (load 1.5–1.8):
/// `farm` (binary:3) `--runs 200`, min of 3: 275.5 ns an event.
pub(crate) const TREE_EVENT_S: f64 = 0.28e-6;

/// Wall time of one of the OCL pipeline's events (five a process a step) while the processes
/// fit the caches: the quiet host's `ocl --window 500 --transform m1:10 --length 10000`,
/// 0.26 s for its 2.5 M events (docs/results/edges.md, "The quiet re-take").
/// Quiet host, `scripts/measure-estimate-constants.sh`, 2026-11-26 20:17 UTC (load 1.5–1.8):
/// `ocl --window 500 --transform m1:10 --length 10000`, min of 3: 92.3 ns an event.
pub(crate) const PIPELINE_EVENT_S: f64 = 0.092e-6;

/// How many times an event costs its kind's cost when no processor stays in the caches
/// (each resume touches cold stacks and books): binary:14's 0.35 µs against chain:1024's
/// 0.094 µs on the quiet host (docs/results/virtual-time.md), with [`CACHED_PROCESSORS`].
/// Quiet host, `scripts/measure-estimate-constants.sh`, 2026-11-26 20:17 UTC (load 1.5–1.8):
/// binary:12 107 ns and binary:14 421 ns an event, fitted with `CACHED_PROCESSORS`: 6.58.
pub(crate) const COLD_EVENT_FACTOR: f64 = 6.6;

/// Processors whose coroutines the CPU's caches hold (32 MiB of L3 on the development
/// host): fitted to `emulate --pattern reduce` on binary:10 to binary:14, whose cost an
/// event grows from about 1 500 processors and nearly saturates at 16 383. /// Quiet host, `scripts/measure-estimate-constants.sh`, 2026-11-26 20:17 UTC (load 1.5–1.8):
/// fitted with `COLD_EVENT_FACTOR`: 3 846.
pub(crate) const CACHED_PROCESSORS: f64 = 3850.0;

/// How many times a tree event costs [`TREE_EVENT_S`] when no processor stays in the caches:
/// the model counts several events a resume (a hop forwarded is three), so the cold resume
/// is shared and the factor is smaller than the runtime's own. Quiet host, 2026-11-26 20:30
/// UTC (load 1.0): `farm --tasks 1000000` in virtual time took 8.27 s on binary:10 (295 ns
/// for each of the 28.0 M events the estimate counts), 14.43 s on binary:12 (424 ns) and
/// 22.68 s on binary:14 (567 ns), fitted on the last two with [`TREE_CACHED_PROCESSORS`];
/// `scripts/measure-estimate-constants.sh` measures both.
pub(crate) const TREE_COLD_EVENT_FACTOR: f64 = 2.2;

/// Processors whose tree-engine nodes the caches hold: fitted with
/// [`TREE_COLD_EVENT_FACTOR`] to the same runs, 2 304.
pub(crate) const TREE_CACHED_PROCESSORS: f64 = 2300.0;

/// Wall time of one row in `fit farm`'s nonlinear fit (every iteration evaluates the model at
/// every row): 64 µs measured on 10⁶ rows (issue 21), 178 µs on 10⁵ rows on a loaded host.
/// Quiet host, `scripts/measure-estimate-constants.sh`, 2026-11-26 20:17 UTC (load 1.5–1.8):
/// `fit farm` on 20 000 rows, min of 2: 57.4 µs a row.
pub(crate) const FIT_ROW_S: f64 = 57e-6;

/// Wall time of one one-way message between two pinned, spinning threads, bare or through the
/// runtime: 161–182 ns on a quiet host (docs/results/runtime.md). A loaded host stretches it
/// several times over; the announced range allows for the load.
/// Quiet host, `scripts/measure-estimate-constants.sh`, 2026-11-26 20:17 UTC (load 1.5–1.8):
/// `pingpong --round-trips 100000 --runs 3`, the runtime's median: 137.7 ns.
pub(crate) const ONE_WAY_MESSAGE_S: f64 = 138e-9;

/// Wall time of a command before its first run and after its last, with its tables or JSON
/// on stdout: the process's start, its plan, and its report's text. The README tour's
/// commands of a few milliseconds took 12–30 ms in all on a quiet host with an HTML report
/// (docs/results/edges.md); 7 ms of CPU.
/// Quiet host, `scripts/measure-estimate-constants.sh`, 2026-11-26 20:17 UTC (load 1.5–1.8):
/// min of 15 runs of `farm -t chain:1 --tasks 1 --te 1us --mode virtual`: 3.56 ms.
pub(crate) const PROCESS_S: f64 = 3.6e-3;

/// Wall time of one step of a farm's drain Monte Carlo (`FarmExperiment::drain_steps`:
/// samples × slots × depth), which every run of a farm with random task times under flood
/// fill takes after the farm: 4000 samples of 2.0 M steps on chain:16, about 0.02 s a run,
/// which the estimate of `farm -t chain:16 --te 10ms --times exponential --runs 5 --warmup 1`
/// lacked (0.067 s announced for 0.23 s on the quiet host, docs/results/trust.md).
/// Taken under load (2-vCPU dev VM shared with other builds, load average 11), thread CPU
/// time of `Drain::new` alone, release build, median of 9, 2026-11-27 00:59 UTC: chain:16
/// 16.6 ms for 2.05 M steps, 8.1 ns a step (chain:4 9.0, chain:64 6.0, binary:4 13.2,
/// binary:6 11.6, tree:3:3 14.7: the step count is a proxy, within a factor of two).
/// `scripts/measure-estimate-constants.sh` re-takes it from `farm --times exponential`
/// against `--times constant`.
pub(crate) const DRAIN_STEP_S: f64 = 8.1e-9;

/// Wall time of a report written as a page or a run folder (HTML, Markdown, JSON and CSV
/// files), with its SVG plots, beyond the tables on stdout: about 10 ms more with
/// `--report x.html` than without, on a small farm.
/// Quiet host, `scripts/measure-estimate-constants.sh`, 2026-11-26 20:17 UTC (load 1.5–1.8):
/// the same with `--report x.html`, less `PROCESS_S`: 1.40 ms.
pub(crate) const PAGE_S: f64 = 1.4e-3;

/// Wall time of one calibration sample: its waits (a parked message after 300 µs, a 1 ms
/// sleep, and three strategies' waits of 10 µs, 100 µs and 1 ms) and its batch of spinning
/// messages.
/// Quiet host, `scripts/measure-estimate-constants.sh`, 2026-11-26 20:17 UTC (load 1.5–1.8):
/// `calibrate --samples 20` in 0.892 s and `--samples 120` in 1.453 s: 5.61 ms a sample.
pub(crate) const CALIBRATION_SAMPLE_S: f64 = 5.6e-3;

/// The calibration's part that does not grow with its samples (from 20 samples on: three
/// strategies' twenty 10 ms waits, and its clock reads). With [`CALIBRATION_SAMPLE_S`] it
/// gives the quiet host's 1.0 s for the tour's 50 samples.
/// Quiet host, `scripts/measure-estimate-constants.sh`, 2026-11-26 20:17 UTC (load 1.5–1.8):
/// the same two runs' intercept less `PROCESS_S` and `UNIT_COSTS_S`: 0.376 s.
pub(crate) const CALIBRATION_FIXED_S: f64 = 0.38;

/// Repetitions of each kernel's timings in `calibrate`'s measurement of the unit costs: the
/// replicates whose scatter it checks. `calibrate` checks about 15 inputs at once, and with
/// normal noise of 1 % one input's replicates show an outlier by chance in 3.3 % of samples
/// of 5, 1.2 % of 7 and 0.2 % of 10 (the rule's test, `report/host_noise.rs`): a quiet host
/// would be warned about in 40 %, 17 % and 3 % of calibrations. Ten it stays.
pub(crate) const UNIT_COST_REPEATS: usize = 10;

/// Wall time of `calibrate`'s measurement of the kernels' unit costs ([`UNIT_COST_REPEATS`]
/// repetitions): with the calibration's 200 samples, the quiet host's 1.8 s for `calibrate`
/// at 5 repetitions, 0.2 s of it the unit costs'; doubled for 10 (not re-timed on a quiet
/// host).
pub(crate) const UNIT_COSTS_S: f64 = 0.4;

/// Bytes a second that a collective's run and its check write: every input twice (the run's
/// and the sequential reference's), each message's vector (the runtime moves a message from
/// hop to hop without copying it) and the reference's results (`plan::collective`'s
/// `written_bytes`). `collective broadcast -t hypercube:10 --bytes 1MiB` writes 4 095 MiB;
/// it took 2.22 s on the quiet host (docs/results/edges.md, "The quiet re-take"), less the
/// process's start.
/// Quiet host, `scripts/measure-estimate-constants.sh`, 2026-11-26 20:17 UTC (load 1.5–1.8):
/// `collective broadcast -t hypercube:8 --bytes 1MiB --mode virtual`, min of 3: 2.71 GB/s.
pub(crate) const COPY_BYTES_PER_S: f64 = 2.7e9;

/// Cores other processes may keep busy before a measurement is called disturbed: half a core,
/// the slack `speedup` allows for the host's own noise.
pub(crate) const BUSY_CORES: f64 = 0.5;

/// Replicates whose standard deviation exceeds this share of their mean make the headline
/// figure unreliable (a quiet host repeats a native run within a few per cent).
pub(crate) const SCATTER_RELATIVE_SD: f64 = 0.10;

/// Replicates whose interquartile range exceeds this share of their median make the headline
/// figure unreliable (the same bound as the standard deviation's, robust to one outlier).
pub(crate) const SCATTER_IQR_OVER_MEDIAN: f64 = 0.10;

/// How far, in per cent, a sample of ising charged by the model may be from a native sample
/// before the report explains the gap: the fitted samples' agreement on the quiet host
/// (0.94–1.03 of their native time, docs/results/trust.md), which only a mostly rejecting
/// 3-D sample exceeds (T = 3: 1.13).
pub(crate) const FLIP_CHARGE_AGREEMENT_PCT: f64 = 6.0;

// Memory over MPI ranks, measured with `BIN=target/release/multicomputer scripts/measure-rank-memory.sh 16`
// (release build with `--features mpi`, OpenMPI 4.1.4, the 2-vCPU dev VM under load,
// 2026-11-26 21:55 and 22:31 UTC; docs/results/distributed.md, "Memory per rank"): PHOLD to 1 ms,
// peak resident memory of each rank.

/// Resident memory of a rank before its machine: the process and the MPI library in it.
/// `emulate -t torus:4x4 --partitions K` under `mpirun -np K`: 19–20 MiB a rank at K = 2,
/// 22–23 at 4 and 8, 25–26 at 16 (11 MiB alone), the largest taken.
pub(crate) const RANK_BYTES: f64 = 26.0 * 1024.0 * 1024.0;

/// Bytes a rank keeps per processor of the whole machine while its part runs: the whole
/// machine's topology, the engine's network and the partition (190–225 B by a reading of the
/// code), and the rest the run holds for the whole machine. A rank's peak less its process
/// and its processors at 10 KiB: 650 B on `torus:300x150` over 2 ranks, 663 B on
/// `torus:300x300` over 4, 452 B on `torus:1000x1000` over 4; rounded up.
pub(crate) const RANK_MACHINE_BYTES_PER_PROCESSOR: f64 = 700.0;

/// Bytes a rank holds per processor of the whole machine at the run's end, when every rank
/// gathers every part's record (`engines::ranks`: each part's record serialised as JSON once
/// for every other rank, and every other part's received and decoded). Measured where it
/// makes the peak (small parts of a large machine): a rank's peak less its process and
/// [`RANK_MACHINE_BYTES_PER_PROCESSOR`], 1.58 KB on `torus:200x200` over 16 ranks, 1.76 KB on
/// `torus:600x600` over 16, 1.9 KB on `torus:600x300` over 8; rounded up.
pub(crate) const RANK_GATHER_BYTES_PER_PROCESSOR: f64 = 2048.0;
