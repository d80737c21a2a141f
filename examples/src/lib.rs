//! Programs a user would write for the emulated multicomputer: `ring_allreduce` (a
//! hand-written ring all-reduce beside its model), `jacobi_torus` (a 2-D Jacobi stencil with
//! halo exchange on a torus), `odd_even_sort` (odd-even transposition sort on a linear
//! array) and `reduce_experiment` (a binomial-tree reduction on a hypercube run through the
//! `multicomputer` library's experiment API: a sweep over P beside its own model, a fit of
//! the model's parameters, and the published report). Each is an example target checked
//! against its sequential reference in native, dilated and virtual time by `cargo test`; run
//! one with `cargo run -p multicomputer-examples --example ring_allreduce`.
//!
//! This library holds only what the examples share: the time modes they are checked in.

use multicomputer_runtime::{MachineConfig, TimeMode, WaitStrategy};

/// Every time mode, each with the most processors an example checks in it: native time
/// needs a core per processor (2 fit any host the tests run on), the others take more.
pub const MODES: [(TimeMode, usize); 3] = [
    (TimeMode::Native, 2),
    (TimeMode::Dilated(1.0), 16),
    (TimeMode::Virtual, 64),
];

/// A machine configuration in `mode` with the default link costs; natively the processors
/// sleep rather than spin while they wait, so that a loaded host still runs them.
pub fn config(mode: TimeMode) -> MachineConfig {
    MachineConfig {
        mode,
        wait: if mode == TimeMode::Native {
            WaitStrategy::Sleep
        } else {
            WaitStrategy::Auto
        },
        ..MachineConfig::default()
    }
}
