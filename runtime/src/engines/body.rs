//! One processor's body, the same in every engine: its handle built from the run's spec, its
//! program run under `catch_unwind`, and its outcome handed to where the engine keeps it.
//!
//! 1. **Handle** (`handle`): the processor's links, costs and charging, over the engine's
//!    transport.
//! 2. **Program**: run to its end; a panic is caught and becomes the outcome, named after the
//!    processor.
//! 3. **Outcome**: the program's result, its accounting, its tally of work and its trace,
//!    with the lateness its transport measured, handed to the engine's `deliver` — before
//!    the handle is dropped, so that a neighbour failing because this processor's links closed
//!    reports after the cause (a panic here), not before it.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use super::Run;
use crate::error::ProcessorError;
use crate::link::Payload;
use crate::link::flavors::Port;
use crate::processor::{Processor, ProcessorParts};
use crate::report::{Failure, Outcome, panic_message};
use crate::routing::{Convention, Network};

/// Step 1: processor `id`'s handle over `port`, with its trace's recorder if the run is
/// traced.
fn handle<M: Payload>(
    run: &Run<'_>,
    id: usize,
    network: Arc<Network>,
    port: Port<M>,
) -> Processor<M> {
    let (spec, topology) = (run.spec, run.topology);
    Processor::new(ProcessorParts {
        id,
        level: topology.level(id),
        processors: topology.len(),
        peers: topology.neighbours(id),
        tree: topology.tree_links_of(id),
        grid: topology.grid().copied(),
        network,
        cost: spec.link,
        charging: spec.charging.clone(),
        convention: Convention::of(spec),
        recorder: run.trace.map(|sink| sink.recorder()),
        port,
    })
}

/// Runs processor `id` of `run` over `port`: steps 1 to 3. `network` is the run's routes and
/// link clocks, shared by all its processors. `ready` is called with the handle before the
/// program starts (an engine that must wait for its start instant does it there); `deliver`
/// takes the outcome.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_body<M, R, F>(
    run: &Run<'_>,
    id: usize,
    network: Arc<Network>,
    port: Port<M>,
    program: &F,
    ready: impl FnOnce(&mut Processor<M>),
    deliver: impl FnOnce(Outcome<R>),
) where
    M: Payload,
    F: Fn(&mut Processor<M>) -> Result<R, ProcessorError>,
{
    let mut proc = handle(run, id, network, port);
    ready(&mut proc);
    // Step 2: the program.
    let result = match catch_unwind(AssertUnwindSafe(|| program(&mut proc))) {
        Ok(Ok(r)) => Ok(r),
        Ok(Err(e)) => Err(Failure::Error(e)),
        Err(payload) => Err(Failure::Panic(panic_message(&*payload))),
    };
    // Step 3: the outcome, then the handle (and its links) dropped.
    let lateness = proc.port.finish();
    deliver(Outcome::of(&mut proc, result, lateness));
    drop(proc);
}
