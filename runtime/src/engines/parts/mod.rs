//! Virtual time partitioned over threads (and MPI ranks): the topology cut into K parts, each
//! run by the sequential scheduler of `sim/` on its own thread, the parts exchanging the
//! effects of cut links at window boundaries.

mod effect;

pub(crate) use effect::{Effect, Ending, Failed};
