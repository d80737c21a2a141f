//! `collective`'s plan.

use std::path::Path;
use std::time::Duration;

use multicomputer_workloads::collectives::{
    Algorithm, CollectiveSpec, Costs, ELEMENT_BYTES, Operation, check, model_ns, sent_bytes,
};

use multicomputer_runtime::{TimeMode, Topology};

use super::{ArgError, Footprint, Inputs, MachinePlan, OutputPlan, RunPlan, trace_for_report};
use crate::args::{AlgorithmArg, CollectiveArgs, OperationArg};
use crate::units::human_ns;

/// A collective on an emulated machine.
pub(crate) type CollectivePlan = RunPlan<CollectiveExperiment>;

/// The collective, with what an estimate of its run needs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CollectiveExperiment {
    /// What runs.
    pub(crate) spec: CollectiveSpec,
    /// The model's makespan on the planned machine, seconds.
    pub(crate) predicted_s: f64,
    /// Messages the run sends (an estimate of its events).
    pub(crate) messages: f64,
    /// Bytes of vectors a run and its check write ([`written_bytes`]).
    pub(crate) copied_bytes: f64,
}

fn algorithm(a: AlgorithmArg) -> Algorithm {
    match a {
        AlgorithmArg::BinomialTree => Algorithm::BinomialTree,
        AlgorithmArg::Ring => Algorithm::Ring,
        AlgorithmArg::RecursiveDoubling => Algorithm::RecursiveDoubling,
        AlgorithmArg::RecursiveHalving => Algorithm::RecursiveHalving,
        AlgorithmArg::Rabenseifner => Algorithm::Rabenseifner,
        AlgorithmArg::Pairwise => Algorithm::Pairwise,
        AlgorithmArg::Dissemination => Algorithm::Dissemination,
        AlgorithmArg::DimensionOrdered => Algorithm::DimensionOrdered,
    }
}

/// Validates `collective`'s flags: the algorithm is one of the operation's and suits the
/// number of processors; the vector is whole 8-byte values.
///
/// An HTML or Markdown report draws the run's processor timeline, so a run that writes one
/// records its trace when the trace fits the page ([`trace_for_report`]).
pub(crate) fn collective(a: &CollectiveArgs, out: &Path) -> Result<CollectivePlan, ArgError> {
    let output = OutputPlan::new(&a.run.output)?;
    RunPlan::new(&a.run, out, |topology, machine| {
        if machine.partitions.is_some()
            && matches!(
                machine.mode,
                TimeMode::Native | TimeMode::Dilated(_) | TimeMode::DilatedChosen
            )
        {
            return Err(ArgError::new(
                "--partitions",
                "collectives send routed messages, which do not cross MPI ranks in native or \
                 dilated time yet: use --mode virtual, or leave --partitions out",
            ));
        }
        machine.host_links();
        let op = operation(a.operation);
        let p = topology.len();
        let alg = match a.algorithm {
            Some(alg) => algorithm(alg),
            None => *op
                .algorithms()
                .iter()
                .find(|alg| !alg.needs_power_of_two() || p.is_power_of_two())
                .ok_or_else(|| {
                    ArgError::new(
                        "--algorithm",
                        format!("{} has no algorithm for {p} processors", op.name()),
                    )
                })?,
        };
        if trace_for_report(&output, TRACE_RECORDS_PER_MESSAGE * messages(alg, p)) {
            machine.trace = true;
        }
        let e = experiment(
            (op, alg),
            topology,
            machine,
            a.bytes,
            a.gamma,
            ["--algorithm", "--bytes"],
        )?;
        e.1.check()?;
        Ok(e)
    })
}

/// The collective `op` by `alg` on `topology` with vectors of `bytes` and γ = `gamma` per
/// byte, its model's prediction on `machine`, and the memory its run holds; a choice that
/// does not suit the network names `flags[0]`, bytes that are not whole 8-byte values
/// `flags[1]`.
pub(crate) fn experiment(
    (op, alg): (Operation, Algorithm),
    topology: &Topology,
    machine: &MachinePlan,
    bytes: usize,
    gamma: Duration,
    flags: [&str; 2],
) -> Result<(CollectiveExperiment, Footprint), ArgError> {
    let p = topology.len();
    if bytes % ELEMENT_BYTES != 0 {
        return Err(ArgError::new(
            flags[1],
            format!("the vector holds 8-byte values: {bytes} is not a multiple of 8"),
        ));
    }
    let root = topology.root();
    let on = |e| ArgError::new(flags[0], format!("{e} (on {topology})"));
    check(op, alg, p, root).map_err(on)?;
    let spec = CollectiveSpec {
        operation: op,
        algorithm: alg,
        root,
        elements: bytes / ELEMENT_BYTES,
        gamma_ns_per_byte: gamma.as_nanos() as f64,
    };
    let costs = Costs::of(&machine.link, spec.gamma_ns_per_byte);
    let predicted_ns = model_ns(
        op,
        alg,
        topology,
        root,
        spec.elements,
        ELEMENT_BYTES,
        &costs,
    )
    .map_err(on)?;
    let messages = messages(alg, p);
    let records = TRACE_RECORDS_PER_MESSAGE * messages;
    let memory = footprint(topology, machine, &spec, (bytes, records), flags[1])?;
    let sent = sent_bytes(op, alg, topology, root, spec.elements, ELEMENT_BYTES).map_err(on)?;
    let experiment = CollectiveExperiment {
        spec,
        predicted_s: predicted_ns as f64 * 1e-9,
        messages,
        copied_bytes: written_bytes(op, p, bytes, sent),
    };
    Ok((experiment, memory))
}

/// About how many messages `alg` sends on `p` processors (for its trace's size).
fn messages(alg: Algorithm, p: usize) -> f64 {
    let steps = match alg {
        Algorithm::Ring => 2.0 * p as f64,
        Algorithm::Pairwise => p as f64,
        _ => 2.0 * (p as f64).log2().ceil(),
    };
    p as f64 * steps
}

/// The operation `o` names.
pub(crate) fn operation(o: OperationArg) -> Operation {
    match o {
        OperationArg::Broadcast => Operation::Broadcast,
        OperationArg::Reduce => Operation::Reduce,
        OperationArg::AllReduce => Operation::AllReduce,
        OperationArg::Scatter => Operation::Scatter,
        OperationArg::Gather => Operation::Gather,
        OperationArg::AllGather => Operation::AllGather,
        OperationArg::ReduceScatter => Operation::ReduceScatter,
        OperationArg::AllToAll => Operation::AllToAll,
        OperationArg::Barrier => Operation::Barrier,
    }
}

/// Copies of one processor's vector a run holds at once, per processor: its input, its
/// padded working copy, the blocks in flight, what it receives, and the sequential
/// reference's input and result for it.
const VECTOR_COPIES: f64 = 8.0;

/// Bytes of the vectors a run of `processors` with vectors of `bytes` holds at once.
fn vector_bytes(processors: usize, bytes: usize) -> f64 {
    VECTOR_COPIES * processors as f64 * bytes as f64
}

/// Bytes a run of `op` on `p` processors with vectors of `bytes` writes, its check included,
/// when its messages carry `sent` bytes: every processor's input, made by the run and again
/// by the sequential reference; each message a vector of its own (a clone, a block cut out,
/// or an accumulator handed on: the runtime moves a message from hop to hop, copying
/// nothing); and the reference's results, which the check then compares with the run's.
fn written_bytes(op: Operation, p: usize, bytes: usize, sent: usize) -> f64 {
    let (p, m) = (p as f64, bytes as f64);
    // A block: ⌈n/p⌉ elements.
    let b = (bytes / ELEMENT_BYTES).div_ceil(p as usize) as f64 * ELEMENT_BYTES as f64;
    let input = match op {
        Operation::Gather | Operation::AllGather => b,
        _ => m,
    };
    let results = match op {
        Operation::Broadcast | Operation::AllReduce | Operation::Barrier => p * m,
        Operation::Reduce => m,
        Operation::Scatter | Operation::ReduceScatter | Operation::Gather => p * b,
        Operation::AllGather | Operation::AllToAll => p * p * b,
    };
    2.0 * p * input + sent as f64 + results
}

/// Trace records a message makes: its send's and its receive's intervals, the message, and
/// a wait for it.
const TRACE_RECORDS_PER_MESSAGE: f64 = 4.0;

/// What a collective run holds (the memory model): the machine's processors and link
/// buffers, its processors' vectors, the reference's, and a trace of about `records`
/// records if it records one.
fn footprint(
    topology: &Topology,
    machine: &MachinePlan,
    spec: &CollectiveSpec,
    (bytes, records): (usize, f64),
    flag: &str,
) -> Result<Footprint, ArgError> {
    let processors = topology.len();
    let mut f = Footprint::new();
    f.machine(topology, machine, &spec.hints())?;
    f.add(
        flag,
        format!("{processors} processors' vectors of {bytes} B, {VECTOR_COPIES} copies each"),
        vector_bytes(processors, bytes),
    );
    if f.traced() {
        f.trace(records);
    }
    Ok(f)
}

/// The collective's inputs.
pub(crate) fn collective_inputs(s: &CollectiveSpec) -> Inputs {
    let mut i = Inputs::new();
    i.add("operation", s.operation.name())
        .add("algorithm", s.algorithm.name())
        .add("bytes", s.elements * ELEMENT_BYTES)
        .add(
            "gamma",
            format!("{} per byte", human_ns(s.gamma_ns_per_byte)),
        );
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_writes_its_inputs_twice_its_messages_and_the_references_results() {
        // A broadcast of 1 KiB on 8 processors: 8 inputs made twice, the 7 messages, and
        // 8 results in the reference.
        assert_eq!(
            written_bytes(Operation::Broadcast, 8, 1024, 7 * 1024),
            (16 + 7 + 8) as f64 * 1024.0
        );
        // A gather of 10 elements on 4 processors: blocks of 3 elements (24 B) in, 4 of them
        // gathered at the root.
        assert_eq!(
            written_bytes(Operation::Gather, 4, 80, 72),
            192.0 + 72.0 + 96.0
        );
        // A reduce's reference holds the root's result alone.
        assert_eq!(
            written_bytes(Operation::Reduce, 4, 80, 240),
            640.0 + 240.0 + 80.0
        );
    }
}
