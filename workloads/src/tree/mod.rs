//! The tree-structured task engine of the farm paper (§2.2 and §4.1), on which processor farms
//! and divide-and-conquer programs run.
//!
//! Tasks enter the machine at one root processor. Every other processor requests tasks from its
//! statically assigned parent φ(i). A processor either executes a task locally, or splits it
//! (a farm "splits" a task into one subtask: it forwards it) and hands the subtasks to its
//! children, whose requests compete for them. Results go back to the parent, are joined where a
//! task was split, and reach the root.
//!
//! # Costs (the paper's §3.1)
//!
//! - executing a task locally costs its execution time `T_e(i)` (emulated, or real compute
//!   charged by CPU time) plus the start-up overhead `β_e` (receiving the task and returning its
//!   result);
//! - splitting a task costs `T_s(i)` plus `β_f` (handing the subtasks on and later relaying or
//!   joining their results), and joining its subtasks' results costs `T_j(i)`;
//! - messages cross links with the machine's overlapped transfer time (τ per byte).
//!
//! # Protocol
//!
//! Each processor runs the same loop:
//!
//! 1. **Start-up.** The root holds all M tasks. Every other processor sends its parent one
//!    *request* per free slot of its task queue (capacity `queue`, default 2): this is the flood
//!    fill that keeps every processor supplied. In native and dilated time a processor running
//!    a real job then takes each child's first request before it executes anything: real work
//!    runs before its emulated interval and cannot be pre-empted in real time, so a task
//!    started first would hold the child idle for a whole task. (In virtual time the work's
//!    charge is pre-empted exactly, and nothing waits.)
//! 2. **Messages first.** Whatever has arrived is handled at once: a *request* from a child is
//!    queued (children compete in arrival order); a *task* from the parent enters the queue; a
//!    *no-more* from the parent means the supply is exhausted; a *result* from a child is joined
//!    with its siblings or relayed up; a child's *finished* is counted.
//! 3. **Flood fill.** While the parent's supply lasts, the queue plus outstanding requests are
//!    topped up to `queue` with new requests.
//! 4. **Forwarding before execution.** While a child is waiting, the processor hands it a
//!    subtask, splitting the next queued task if no subtask is ready (`T_s + β_f`). With
//!    model-guided limits (for small M), processor i splits no more than its limit. When the
//!    supply is exhausted and nothing is left to hand out, waiting children are told *no-more*.
//! 5. **Local execution.** Otherwise the processor executes the next queued task. Execution is
//!    low priority: a message arriving part-way pre-empts it (as the transputer's high-priority
//!    forwarding process did); the processor handles it (steps 2–4) and resumes the rest. Real
//!    work is computed first, uncharged, and its CPU time then spent as a pre-emptible emulated
//!    interval, so real tasks are pre-empted at the right emulated instants too.
//! 6. **Result gathering.** A locally executed task's result goes to the parent; subtask
//!    results are joined (`T_j`) once all have returned, then go up; the root collects results.
//! 7. **Termination.** A processor whose supply is exhausted, whose queue, subtasks and
//!    outstanding splits are empty and whose children have all finished sends *finished* to its
//!    parent (after its last result, on the same link, so nothing is lost) and stops. The root
//!    stops when every task's result is in.
//!
//! Every result carries its task's key, and the root checks that each of the M tasks came back
//! exactly once.

mod compare;
mod engine;
mod measure;
mod model;
mod parents;
mod rates;
mod shape;

#[cfg(test)]
pub(crate) use compare::tests::prediction;
pub use compare::{Comparison, worst_fidelity};
pub use engine::{EngineConfig, EngineError, EngineRun, Job, Message, run};
pub use measure::{Errors, Measured, MissingTerm, error_pct};
pub use model::{Bound, ModelError, Prediction};
pub(crate) use model::{check_duration, check_work};
pub(crate) use parents::Tree;
pub use rates::{engine_events_per_s, steady_throughput_per_s, throughput_per_s};
pub use shape::TreeShape;
