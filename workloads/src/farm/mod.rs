//! Analytic model of a processor farm on a tree of processors (Sreekantaswamy, Chanson and
//! Wagner, *Performance Prediction Modelling of Multicomputers*, UBC TR 91-27, §3.1–§3.2, §5).
//!
//! Pure functions of a configuration: nothing here starts a thread or reads a clock.
//!
//! # The execution model
//!
//! Independent tasks enter at the root processor. Every processor either executes a task
//! locally (compute time `T_e`, non-overlapped communication start-up `β_e`) or forwards it to
//! a child that asks for work (start-up `β_f`). Forwarding runs at high priority, so in steady
//! state no processor is idle and every processor is busy for the same time `T`.
//!
//! # Levels
//!
//! As in the paper, **level 1 is the leaves** and the root of an `N`-level tree is level `N`.
//! For trees given by a parent relation that are not balanced, the level of a processor is
//! `1 + height` of the subtree it roots (its longest path down to a leaf): every leaf is level
//! 1, the root is level `N = 1 + height(tree)`, and on balanced trees and chains this is exactly
//! the paper's numbering. See [`processor_levels`].
//!
//! # Steady state (balanced `k`-ary trees; chains are `k = 1`)
//!
//! With `S_i` the throughput of the subtree rooted at one processor of level `i` (tasks/s),
//! `S_0 = 0`, recurrence (d) reads
//!
//! ```text
//! S_i = k · S_{i-1} · (T_e + β_e − β_f)/(T_e + β_e) + 1/(T_e + β_e)              (d)
//! S_N = [1 − a^N] / [(T_e + β_e) − k (T_e + β_e − β_f)],  a = k (T_e + β_e − β_f)/(T_e + β_e)   (e), (f)
//! ```
//!
//! and the fraction of all tasks executed by the `k^{N−i}` processors of level `i` is
//! `f_i = k^{N−i} (S_i − k S_{i−1}) / S_N` (for `k = 2` the paper's
//! `2^{N−i} (2a^{i−1} − a^i − 1)/(1 − a^N)`), with `Σ f_i = 1`.
//!
//! The recurrence silently assumes that a processor can forward everything its children can
//! absorb. When `k S_{i−1} β_f > 1` that is impossible (the paper's `f_i` turns negative); the
//! *saturating* variants ([`saturating_throughput_by_level_per_s`], [`TreeSolution`]) cap the
//! forwarding rate at `1/β_f`, the analogue for farms of the paper's `S_max` (k). They equal
//! (d)–(f) whenever every `f_i ≥ 0`.
//!
//! For any tree and heterogeneous processors the general framework of §3.1 is a linear system
//! in the per-processor fractions and `T` ([`framework_linear_system`]); its throughput equals
//! (f) on balanced trees.
//!
//! # Start-up, execution time and speedup
//!
//! ```text
//! T_startup = (N − 1)(2 T_τ + β_f) + T_e + β_e           (§3.2.2)
//! T         = T_startup + (M − 1)/S_N                    (g)
//! SP_N      = M T_e / T
//! ```
//!
//! Throughput can never exceed the link limit `1/(T_τ + β_e)` (§3.1).
//!
//! # The end of the run (not in the paper)
//!
//! Equation (g) lets the steady state run to the last result. With constant task times that
//! is what happens; with random ones (§4.3's robustness test) the run ends at the largest of
//! the remaining times, not at their mean: [`drain_s`] derives the excess that no
//! non-preemptive schedule avoids (`(H_P − 1) T_e` for exponential times), and
//! [`chain_flood_fill_drain_s`] the larger one of the paper's own flood fill, whose buffered
//! tasks forwarding moves to the leaves (exact on a chain with exponential times);
//! [`flood_fill_drain`] samples it on any tree, with the scatter of single runs. All are
//! independent of `M`, so their share of the makespan falls as `1/M`.
//!
//! # Example
//!
//! ```
//! use multicomputer_workloads::farm::{FarmCosts, FarmModel, FarmTopology, TreeShape};
//!
//! // A binary tree of 3 levels (7 processors), 1 ms tasks, 50 µs / 100 µs start-ups.
//! let model = FarmModel {
//!     topology: FarmTopology::Tree(TreeShape { k: 2, levels: 3 }),
//!     te_s: 1e-3,
//!     beta_e_s: 50e-6,
//!     beta_f_s: 100e-6,
//!     tau_s: 20e-6,
//!     tasks_m: 10_000,
//!     granularity: 1,
//! };
//! let p = model.predict()?;
//! assert!(p.speedup > 5.0 && p.speedup < 7.0);
//! assert!((p.fractions_by_level.iter().sum::<f64>() - 1.0).abs() < 1e-12);
//! // Execution time (g) and speedup are consistent.
//! assert!((p.speedup - 10_000.0 * 1e-3 / p.makespan_s).abs() < 1e-9);
//! # let _ = FarmCosts { te_s: 1e-3, beta_e_s: 0.0, beta_f_s: 0.0 };
//! # Ok::<(), multicomputer_workloads::farm::ModelError>(())
//! ```

mod compare;
mod config;
mod drain;
mod figures;
mod fit;
mod granularity;
mod model;
mod program;
mod shape;
mod tree;

pub use compare::{
    CompareError, Drain, FarmComparison, FarmExperiment, FloodFillDrain, PEAK_SEARCH_CHAIN_LEVELS,
    PEAK_SEARCH_TREE_LEVELS, combine_runs, drain_samples, guided_limits,
};
pub use config::{FarmModel, FarmTopology};
// The tree engine's types, which the farm's model and comparison use (and dnc's too).
pub use crate::tree::{
    Bound, Errors, Measured, MissingTerm, ModelError, Prediction, TreeShape, error_pct,
};
pub(crate) use crate::tree::{check_duration, check_work};
pub use drain::{
    DrainEstimate, chain_flood_fill_drain_s, drain_s, flood_fill_drain,
    speedup_error_with_drain_pct,
};
pub use figures::{
    CurvePoint, FIGURE_CHAIN_LEVELS, GranularityCurve, SpeedupCurve, figure4, figure5, max_levels,
};
pub use fit::{BetaFit, ThroughputObservation, fit_betas, fit_overheads, grid_overheads};
pub use granularity::{PeakOperatingPoint, peak_operating_point, speedup_surface};
pub use model::{
    FarmCosts, execution_time_s, level_fractions, link_limited_throughput_per_s, ratio_a,
    saturating_level_fractions, saturating_throughput_by_level_per_s, speedup, speedup_closed_form,
    startup_s, subtree_fractions, throughput_by_level_per_s, throughput_closed_form_per_s,
    throughput_recurrence_per_s,
};
pub use program::{
    FarmError, FarmRun, FarmSpec, Kernel, PRIME_CANDIDATE, Packet, PacketResult, TRIAL_DIVISION,
    TaskTimes, count_primes, count_primes_metered, is_prime, run, sequential, sequential_metered,
    task_times_ns,
};
pub use tree::{
    FrameworkSolution, ProcessorCosts, TreeSolution, flood_fill_tree, framework_linear_system,
    processor_levels,
};
