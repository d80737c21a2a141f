//! Processor farms on the tree engine.

mod program;

pub use program::{
    FarmError, FarmRun, FarmSpec, Kernel, Packet, PacketResult, TaskTimes, count_primes, is_prime,
    run, sequential, task_times_ns,
};
