//! Divide and conquer on the tree engine.

mod program;

pub use program::{
    DncError, DncRun, DncSpec, Keys, MergeSort, Piece, Splitting, TASK_UNITS, Units, merge,
    run_mergesort, run_synthetic,
};
