//! OCL — *Occurrence Count Last* — as a systolic linear array, with the `[M,1]`, `[K,K]` and
//! general `[M,K]` grain-size transformations of Struik, *Techniques for designing efficient
//! parallel programs* (TU Eindhoven CSN 91/32, 1991), their sequence-function timing models and
//! the fits of the paper's transputer timing tables.
//!
//! # The problem (§2.1)
//!
//! For a window length `N ≥ 1` and an input stream `A` (indexed from 0), the output stream is
//!
//! ```text
//! B(i) = (# j : i−N < j ≤ i : A(j) = A(i))          with A(−j) = 0 for j > 0
//! ```
//!
//! i.e. how often the last element of each window of length `N` occurs in that window. For the
//! first `N−1` outputs the window reaches into the zero padding, which counts as occurrences of
//! the value 0 ([`ocl_reference`]).
//!
//! # The fine-grained array (§2.2)
//!
//! A linear array of `N` processes `k = N−1, …, 0`; values flow from process `N−1` (next to the
//! input) to process 0 (which produces `B`). Process `k` has output channels
//!
//! ```text
//! b_k(i) = (# j : i−N+k < j ≤ i : A(j) = A(i))      (so b_0 = B)
//! c_k(i) = A(i−N+k)                                 (a delayed copy of the stream)
//! d_k(i) = A(i)                                     (the current element)
//! b_k(i) = [c_{k+1}(i) = d_{k+1}(i)] + b_{k+1}(i),  c_k(0) = 0,  c_k(i+1) = c_{k+1}(i)
//! ```
//!
//! The environment feeds the array as if it were a process `N`: `b_N(i) = 0`,
//! `c_N(i) = d_N(i) = A(i)` ([`Packet::source`]). Every cell is then the same program, independent
//! of its position. Each step a cell ([`FineCell`])
//!
//! 1. receives `(vb, vc, vd)` from its right neighbour as **one** communication;
//! 2. adds `[vc = vd]` to `vb` (one comparison, with the *received* `vc`);
//! 3. swaps the received `vc` with the held `vcc` (a one-place delay line, initially 0 — the
//!    padding `A(−j) = 0`);
//! 4. sends `(vb, vc, vd)` — `vc` now being the previously held value — to its left neighbour
//!    as one communication.
//!
//! # The `[M,1]`-transformation (§3.1)
//!
//! `M` adjacent fine-grained cells are composed into one ([`M1Cell`]); the array has `N/M`
//! processes (`M` must divide `N`). Process `k` keeps the window `V(h) = A(i−N+kM+h)`,
//! `0 ≤ h < M`, as a cyclic array. Each step it
//!
//! 1. receives `(vb, vc, vd)` (one communication);
//! 2. takes the oldest window element as the outgoing `vc`, stores the received `vc` in its slot
//!    and advances the cyclic head (the window now is `A(i+1−N+kM+h)`);
//! 3. adds `(# h : 0 ≤ h < M : V(h) = vd)` to `vb` (`M` comparisons);
//! 4. sends `(vb, vc, vd)`.
//!
//! # The `[K,K]`-transformation (§3.2)
//!
//! `K` fine-grained cells are composed *and* `K` successive communications are packed into one
//! message of `K` values ([`KkCell`]); `N/K` processes. With packet index `i` and position `p`:
//!
//! ```text
//! b̄_h(i)[p] = (# j : iK+p−N+hK < j ≤ iK+p : A(j) = A(iK+p))
//! c̄_h(i)[p] = A((i+h)K−N+p),   d̄_h(i)[p] = A(iK+p)
//! ```
//!
//! Each step a process
//!
//! 1. receives the arrays `VB, VC, VD` (one communication of `3K` values);
//! 2. for every `p < K` adds to `VB[p]` the matches of `VD[p]` among `VCC[p+1..K)` (the
//!    previous packet) and `VC[0..p]` (this packet) — `K` comparisons per `p`, `K²` in all;
//! 3. swaps `VC` and `VCC` (the previous packet is forwarded, this one is kept);
//! 4. sends `VB, VC, VD`.
//!
//! # The general `[M,K]`-transformation (§5, derived here)
//!
//! The paper states that `[M,1]` and `[K,K]` are instances of an `[M,K]`-transformation (compose
//! `M` cells, pack `K` communications, `K` a divisor of `M`) but does not give it. Its channels are
//! (our derivation, checked against the reference by the tests)
//!
//! ```text
//! B̄_h(i)[p] = (# j : iK+p−N+hM < j ≤ iK+p : A(j) = A(iK+p))
//! C̄_h(i)[p] = A(iK+p−N+hM),   D̄_h(i)[p] = A(iK+p)
//! B̄_h(i)[p] = B̄_{h+1}(i)[p] + (# q : p < q ≤ p+M : W(q) = D̄(i)[p])
//! ```
//!
//! where `W(q) = A(iK−N+hM+q)`, `0 ≤ q < M+K`: the `M` values the process keeps (the last `M/K`
//! packets) followed by the `K` values just received. Each step a process ([`MkCell`])
//!
//! 1. receives `(VB, VC, VD)` (one communication of `3K` values);
//! 2. for every `p < K` adds the matches of `VD[p]` in `W(p+1 ..= p+M)` (`KM` comparisons);
//! 3. sends on the `K` oldest window values `W(0..K)` and replaces them by the received `VC`
//!    (the window is a cyclic array of `M` values, advanced by `K`);
//! 4. sends `(VB, VC_out, VD)`.
//!
//! `[1,1]` is the fine-grained program, `[M,1]` is §3.1 and `[K,K]` is §3.2.
//!
//! # On the emulated multicomputer
//!
//! [`run_pipeline`] runs a grain as a linear array of `N/M` emulated processors, with the
//! model's costs emulated (communications as rendezvous of `α0 + Kα1`, `β` per comparison) or
//! native (real compute, real channels, wall-clock times); its output is checked against the
//! reference and its emulated times equal the model's.
//!
//! # Models and fits
//!
//! [`model`] holds the sequence functions σ, the output times `t(L)`, `t_M(L)`, `t_K(L)`,
//! `t_{M,K}(L)`, the input-consumption times used in the experiments, speedup, efficiency,
//! communication overhead, the optimal packet size and the variable counts. [`fit`] fits
//! `α, β` and `α0, α1, β` to timing tables, and embeds the paper's two tables.
//!
//! # Example
//!
//! ```
//! use multicomputer_workloads::ocl::{CellChoice, Grain, ocl_reference, run_systolic};
//!
//! let a = [0, 3, 0, 3, 3, 1];
//! // The zero padding A(−3..−1) counts: B(0) = 4, B(2) = 3.
//! assert_eq!(ocl_reference(&a, 4)?, vec![4, 1, 3, 2, 3, 1]);
//! // [M,K] = [2,2] on a window of N = 4: two processes exchanging packets of two values.
//! let grain = Grain::new(4, 2, 2)?;
//! let run = run_systolic(grain, &a, CellChoice::Specialised)?;
//! assert_eq!(run.output, ocl_reference(&a, 4)?);
//! assert_eq!(run.cells.len(), 2);
//! assert_eq!(run.cells[0].comparisons, run.cells[0].steps * 4); // K·M comparisons a step
//!
//! // §4.1: consuming L = 100 000 inputs with [M,1] = [10,1], α = 12.33 µs, β = 2.88 µs:
//! // (2L − 1)α + M(L − 1)β ≈ 5.346 s (measured on the transputers: 5.300 s and 5.301 s).
//! use multicomputer_workloads::ocl::model::{Costs, consumption_time_s};
//! let t = consumption_time_s(Grain::m1(500, 10)?, Costs::single(12.33e-6, 2.88e-6), 100_000);
//! assert!((t - 5.346).abs() < 1e-3);
//! # Ok::<(), multicomputer_workloads::ocl::OclError>(())
//! ```

mod cell;
mod compare;
mod driver;
pub mod fit;
mod grain;
pub mod model;
mod pipeline;
mod reference;

pub use cell::{
    Cell, CellCounters, FineCell, KkCell, M1Cell, MkCell, OCL_COMPARISON, OCL_VALUE, Packet,
    StepCost, SystolicCell,
};
pub use compare::{
    FittedConstant, OclComparison, OclFitComparison, OclMeasured, OclTable, Predicted, Residual,
    fit_table, predicted, transform_label,
};
pub use driver::{CellChoice, SystolicRun, build_cells, run_systolic};
pub use grain::{Grain, OclError, Transformation};
pub use pipeline::{
    PipelineCosts, PipelineError, PipelineRun, expected_events_per_s, pipeline_config,
    pipeline_hints, pipeline_machine, pipeline_topology, random_stream, run_pipeline,
    run_pipeline_against,
};
pub use reference::ocl_reference;
