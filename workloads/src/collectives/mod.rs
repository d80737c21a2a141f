//! The classic collective operations, as a library any program can call, each algorithm
//! beside its cost model.
//!
//! Every processor of the machine calls the same operation with its own buffer (the group
//! is the whole machine; ranks are processor indices). Messages travel as routed messages
//! ([`Processor::send_to`], [`Processor::recv_routed`]), so any algorithm runs on any
//! network; on the network it suits (a ring for the ring algorithms, a hypercube for the
//! recursive and binomial ones) every partner is a neighbour.
//!
//! | operation | algorithms |
//! |---|---|
//! | broadcast, reduce, scatter, gather | binomial tree, dimension-ordered (a binomial tree along each dimension of a grid) |
//! | all-reduce | recursive doubling, ring, Rabenseifner (halving + doubling), dimension-ordered (a ring along each dimension of a grid) |
//! | reduce-scatter | recursive halving, ring, dimension-ordered |
//! | all-gather | recursive doubling, ring, dimension-ordered |
//! | all-to-all | pairwise exchange |
//! | barrier | dissemination |
//!
//! # The cost model
//!
//! Each algorithm has a pure function of the network and the costs ([`Costs`]) giving its
//! time, from the α–β–γ model of Thakur, Rabenseifner & Gropp, *Optimization of collective
//! communication operations in MPICH*, IJHPCA 19(1), 2005 (each algorithm's file cites its
//! section and formula). Their α (start-up) is here one message's fixed cost: the sender's
//! start-up β, the hops' latency and the receiver's overhead; their β (per byte) is τ; γ is
//! the reduction's compute cost per byte, charged on the emulated clock. A message of m bytes
//! over h hops costs [`Costs::message_ns`]: the switching model's time
//! ([`Switching::uncontended_ns`](multicomputer_runtime::Switching::uncontended_ns)) plus the receive overhead, which on one hop is
//! α + m·τ. Each step of an algorithm is charged for its farthest pair of partners, as
//! Kumar, Grama, Gupta & Karypis (*Introduction to Parallel Computing*, 2nd ed., ch. 4) do for
//! rings, meshes and hypercubes.
//!
//! Vectors are cut into p blocks of ⌈n/p⌉ elements (the last ones padded), the block size
//! the models use. With p a power of two, and partners whose routes share no link in a step,
//! the virtual-time measurement equals the model to the nanosecond (`tests` check it on
//! rings, tori and hypercubes). Where routes share links (recursive doubling on a ring,
//! all-to-all anywhere but a hypercube) messages queue and the measurement exceeds the model
//! by the queueing; the model leaves contention out on purpose.
//!
//! # Example
//!
//! A ring all-reduce of 8 values on a ring of 4 processors, in virtual time:
//!
//! ```
//! use std::time::Duration;
//! use multicomputer_runtime::{LinkCost, Machine, MachineConfig, TimeMode, Topology};
//! use multicomputer_workloads::collectives::{self, Algorithm, Costs, Operation, Reduction};
//!
//! let link = LinkCost { send_overhead: Duration::from_micros(10), per_byte_ns: 1.0,
//!                       ..LinkCost::default() };
//! let config = MachineConfig { mode: TimeMode::Virtual, link, ..MachineConfig::default() };
//! let machine = Machine::new(Topology::ring(4)?, config)?;
//! let sum = Reduction::sum(0.5);
//! let record = machine.run(|p| {
//!     let mine = vec![p.id() as f64; 8];
//!     collectives::all_reduce(p, mine, &sum, Algorithm::Ring)
//! })?;
//! assert!(record.results.iter().all(|v| v == &vec![6.0; 8]));
//! let costs = Costs::of(&link, 0.5);
//! let model = collectives::model_ns(Operation::AllReduce, Algorithm::Ring,
//!                                   machine.topology(), 0, 8, 8, &costs)?;
//! assert_eq!(record.report.makespan(), Duration::from_nanos(model));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod binomial;
mod blocks;
mod compare;
mod dimensions;
mod exchange;
mod lines;
mod model;
mod recursive;
mod reference;
mod ring;

use multicomputer_runtime::{Processor, ProcessorError};
use thiserror::Error;

pub use blocks::Element;
use blocks::padded;
pub use compare::{
    CollectiveComparison, CollectiveMeasured, CollectivePredicted, CollectiveRunError,
    CollectiveSpec, ELEMENT_BYTES,
};
pub use model::{Costs, model_ns, sent_bytes};
pub use reference::{input, reference};

/// A collective operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operation {
    /// The root's vector to everyone.
    Broadcast,
    /// Everyone's vectors combined, at the root.
    Reduce,
    /// Everyone's vectors combined, everywhere.
    AllReduce,
    /// Block i of the root's vector to processor i.
    Scatter,
    /// Processor i's block to block i of the root's vector.
    Gather,
    /// Processor i's block to block i of everyone's vector.
    AllGather,
    /// Block i of everyone's vectors combined, at processor i.
    ReduceScatter,
    /// Block j of processor i's vector to block i of processor j's.
    AllToAll,
    /// Nobody leaves before everyone has arrived.
    Barrier,
}

/// An algorithm of a collective operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// A binomial tree (broadcast, reduce, scatter, gather).
    BinomialTree,
    /// Neighbours on a ring, p − 1 steps (all-reduce, reduce-scatter, all-gather).
    Ring,
    /// Partners at distance 2^k, doubling the data (all-reduce, all-gather).
    RecursiveDoubling,
    /// Partners at distance p/2, p/4, …, halving the data (reduce-scatter).
    RecursiveHalving,
    /// Recursive-halving reduce-scatter then recursive-doubling all-gather (all-reduce).
    Rabenseifner,
    /// The one-dimensional algorithm along each dimension of a grid in turn: a binomial tree
    /// (broadcast, reduce, scatter, gather) or a ring (all-reduce, reduce-scatter,
    /// all-gather); one dimension of everyone on a network without a grid.
    DimensionOrdered,
    /// p − 1 steps, each exchanging with one partner (all-to-all).
    Pairwise,
    /// ⌈lg p⌉ rounds to the processor 2^k ahead (barrier).
    Dissemination,
}

impl Operation {
    /// Every operation, in the order of the module docs.
    pub const ALL: [Operation; 9] = [
        Operation::Broadcast,
        Operation::Reduce,
        Operation::AllReduce,
        Operation::Scatter,
        Operation::Gather,
        Operation::AllGather,
        Operation::ReduceScatter,
        Operation::AllToAll,
        Operation::Barrier,
    ];

    /// The algorithms this library has for it.
    pub fn algorithms(self) -> &'static [Algorithm] {
        use Algorithm::*;
        match self {
            Operation::Broadcast | Operation::Reduce | Operation::Scatter | Operation::Gather => {
                &[BinomialTree, DimensionOrdered]
            }
            Operation::AllReduce => &[RecursiveDoubling, Ring, Rabenseifner, DimensionOrdered],
            Operation::ReduceScatter => &[RecursiveHalving, Ring, DimensionOrdered],
            Operation::AllGather => &[RecursiveDoubling, Ring, DimensionOrdered],
            Operation::AllToAll => &[Pairwise],
            Operation::Barrier => &[Dissemination],
        }
    }

    /// Its name on the command line (`all-reduce`).
    pub fn name(self) -> &'static str {
        match self {
            Operation::Broadcast => "broadcast",
            Operation::Reduce => "reduce",
            Operation::AllReduce => "all-reduce",
            Operation::Scatter => "scatter",
            Operation::Gather => "gather",
            Operation::AllGather => "all-gather",
            Operation::ReduceScatter => "reduce-scatter",
            Operation::AllToAll => "all-to-all",
            Operation::Barrier => "barrier",
        }
    }
}

impl Algorithm {
    /// Its name on the command line (`recursive-doubling`).
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::BinomialTree => "binomial-tree",
            Algorithm::Ring => "ring",
            Algorithm::RecursiveDoubling => "recursive-doubling",
            Algorithm::RecursiveHalving => "recursive-halving",
            Algorithm::Rabenseifner => "rabenseifner",
            Algorithm::DimensionOrdered => "dimension-ordered",
            Algorithm::Pairwise => "pairwise",
            Algorithm::Dissemination => "dissemination",
        }
    }

    /// Whether it needs a power-of-two number of processors.
    pub fn needs_power_of_two(self) -> bool {
        matches!(
            self,
            Algorithm::RecursiveDoubling | Algorithm::RecursiveHalving | Algorithm::Rabenseifner
        )
    }
}

/// A collective that cannot run as asked.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum CollectiveError {
    /// An algorithm the operation does not have.
    #[error("{} has no {} algorithm (it has: {})", .operation.name(), .algorithm.name(),
        .operation.algorithms().iter().map(|a| a.name()).collect::<Vec<_>>().join(", "))]
    NoSuchAlgorithm {
        /// The operation.
        operation: Operation,
        /// The algorithm asked for.
        algorithm: Algorithm,
    },
    /// An algorithm for powers of two on another number of processors.
    #[error("{} needs a power-of-two number of processors, not {processors}", .algorithm.name())]
    NotPowerOfTwo {
        /// The algorithm.
        algorithm: Algorithm,
        /// Processors in the machine.
        processors: usize,
    },
    /// A root that is not a processor.
    #[error("root {root} is not a processor (0 to {})", .processors - 1)]
    BadRoot {
        /// The root.
        root: usize,
        /// Processors in the machine.
        processors: usize,
    },
}

/// Checks that `algorithm` is one of `operation`'s and suits `processors`, with `root`.
pub fn check(
    operation: Operation,
    algorithm: Algorithm,
    processors: usize,
    root: usize,
) -> Result<(), CollectiveError> {
    if !operation.algorithms().contains(&algorithm) {
        return Err(CollectiveError::NoSuchAlgorithm {
            operation,
            algorithm,
        });
    }
    if algorithm.needs_power_of_two() && !processors.is_power_of_two() {
        return Err(CollectiveError::NotPowerOfTwo {
            algorithm,
            processors,
        });
    }
    if root >= processors {
        return Err(CollectiveError::BadRoot { root, processors });
    }
    Ok(())
}

/// Combines a value into an accumulator.
type Combine<T> = Box<dyn Fn(&mut T, T) + Sync>;

/// How a reduction combines two values, and what it costs per byte (γ, in ns).
pub struct Reduction<T> {
    combine: Combine<T>,
    /// Emulated compute time per byte combined, ns.
    pub gamma_ns_per_byte: f64,
}

impl<T> Reduction<T> {
    /// Combines with `combine` at `gamma_ns_per_byte` (the op must be associative and
    /// commutative).
    pub fn new(combine: impl Fn(&mut T, T) + Sync + 'static, gamma_ns_per_byte: f64) -> Self {
        Self {
            combine: Box::new(combine),
            gamma_ns_per_byte,
        }
    }

    /// Combines `other` into `into`, element by element.
    pub fn apply(&self, into: &mut [T], other: Vec<T>) {
        for (a, b) in into.iter_mut().zip(other) {
            (self.combine)(a, b);
        }
    }
}

impl<T: std::ops::AddAssign + 'static> Reduction<T> {
    /// The sum, at `gamma_ns_per_byte`.
    pub fn sum(gamma_ns_per_byte: f64) -> Self {
        Self::new(|a: &mut T, b: T| *a += b, gamma_ns_per_byte)
    }
}

/// What a collective's messages carry: vectors of `T`.
pub type Proc<T> = Processor<Vec<T>>;

/// Broadcasts `data` from `root` (binomial tree); every processor returns the root's vector
/// (the others' `data` is ignored, its length must be the root's).
pub fn broadcast<T: Element>(
    p: &mut Proc<T>,
    root: usize,
    data: Vec<T>,
) -> Result<Vec<T>, ProcessorError> {
    binomial::broadcast(p, root, data)
}

/// Reduces everyone's `data` at `root` (binomial tree); the root returns the result, the
/// others what they last held.
pub fn reduce<T: Element>(
    p: &mut Proc<T>,
    root: usize,
    data: Vec<T>,
    reduction: &Reduction<T>,
) -> Result<Vec<T>, ProcessorError> {
    binomial::reduce(p, root, data, reduction)
}

/// Scatters the root's `data` (p blocks) from `root`: processor i returns block i.
pub fn scatter<T: Element>(
    p: &mut Proc<T>,
    root: usize,
    data: Vec<T>,
) -> Result<Vec<T>, ProcessorError> {
    binomial::scatter(p, root, data)
}

/// Gathers every processor's `block` at `root`, in processor order; the root returns the
/// vector, the others an empty one.
pub fn gather<T: Element>(
    p: &mut Proc<T>,
    root: usize,
    block: Vec<T>,
) -> Result<Vec<T>, ProcessorError> {
    binomial::gather(p, root, block)
}

/// Combines everyone's `data`; everyone returns the result.
pub fn all_reduce<T: Element>(
    p: &mut Proc<T>,
    data: Vec<T>,
    reduction: &Reduction<T>,
    algorithm: Algorithm,
) -> Result<Vec<T>, ProcessorError> {
    let len = data.len();
    match algorithm {
        Algorithm::RecursiveDoubling => return recursive::doubling_all_reduce(p, data, reduction),
        Algorithm::DimensionOrdered => {
            return ring::dimension_ordered_all_reduce(p, data, reduction);
        }
        _ => {}
    }
    let (mut data, b) = padded(data, p.processors());
    if algorithm == Algorithm::Ring {
        let whole = ring::Ring::whole(p);
        ring::reduce_scatter_in_place(p, &whole, &mut data, b, reduction)?;
        ring::all_gather_in_place(p, &whole, &mut data, b)?;
    } else {
        recursive::halving_in_place(p, &mut data, b, reduction)?;
        recursive::doubling_in_place(p, &mut data, b)?;
    }
    data.truncate(len);
    Ok(data)
}

/// Combines block i of everyone's `data` at processor i, which returns it.
pub fn reduce_scatter<T: Element>(
    p: &mut Proc<T>,
    data: Vec<T>,
    reduction: &Reduction<T>,
    algorithm: Algorithm,
) -> Result<Vec<T>, ProcessorError> {
    if algorithm == Algorithm::DimensionOrdered {
        return dimensions::reduce_scatter(p, data, reduction);
    }
    let (n, r) = (p.processors(), p.id());
    let (mut data, b) = padded(data, n);
    if algorithm == Algorithm::Ring {
        let whole = ring::Ring::whole(p);
        ring::reduce_scatter_in_place(p, &whole, &mut data, b, reduction)?;
    } else {
        recursive::halving_in_place(p, &mut data, b, reduction)?;
    }
    Ok(data[r * b..(r + 1) * b].to_vec())
}

/// Every processor's `block`, in processor order, to everyone.
pub fn all_gather<T: Element>(
    p: &mut Proc<T>,
    block: Vec<T>,
    algorithm: Algorithm,
) -> Result<Vec<T>, ProcessorError> {
    if algorithm == Algorithm::DimensionOrdered {
        return dimensions::all_gather(p, block);
    }
    let (n, r) = (p.processors(), p.id());
    let b = block.len();
    let mut data = vec![T::default(); n * b];
    data[r * b..(r + 1) * b].copy_from_slice(&block);
    if algorithm == Algorithm::Ring {
        let whole = ring::Ring::whole(p);
        ring::all_gather_in_place(p, &whole, &mut data, b)?;
    } else {
        recursive::doubling_in_place(p, &mut data, b)?;
    }
    Ok(data)
}

/// Block j of this processor's `data` (p blocks) to processor j; returns the blocks received,
/// block i from processor i.
pub fn all_to_all<T: Element>(p: &mut Proc<T>, data: Vec<T>) -> Result<Vec<T>, ProcessorError> {
    exchange::all_to_all(p, data)
}

/// Returns once every processor has called it (dissemination).
pub fn barrier<T: Element>(p: &mut Proc<T>) -> Result<(), ProcessorError> {
    exchange::barrier(p)
}

/// Runs `operation` by `algorithm` with this processor's `data` (what each operation takes
/// and returns is in its function's docs; a barrier returns `data`). The caller has
/// [`check`]ed the choice. The dimension-ordered broadcast, reduce, scatter and gather are
/// reached here (their binomial-tree forms also by their own functions).
pub fn run<T: Element>(
    p: &mut Proc<T>,
    operation: Operation,
    algorithm: Algorithm,
    root: usize,
    data: Vec<T>,
    reduction: &Reduction<T>,
) -> Result<Vec<T>, ProcessorError> {
    let along_dimensions = algorithm == Algorithm::DimensionOrdered;
    match operation {
        Operation::Broadcast if along_dimensions => dimensions::broadcast(p, root, data),
        Operation::Reduce if along_dimensions => dimensions::reduce(p, root, data, reduction),
        Operation::Scatter if along_dimensions => dimensions::scatter(p, root, data),
        Operation::Gather if along_dimensions => dimensions::gather(p, root, data),
        Operation::Broadcast => broadcast(p, root, data),
        Operation::Reduce => reduce(p, root, data, reduction),
        Operation::AllReduce => all_reduce(p, data, reduction, algorithm),
        Operation::Scatter => scatter(p, root, data),
        Operation::Gather => gather(p, root, data),
        Operation::AllGather => all_gather(p, data, algorithm),
        Operation::ReduceScatter => reduce_scatter(p, data, reduction, algorithm),
        Operation::AllToAll => all_to_all(p, data),
        Operation::Barrier => {
            barrier(p)?;
            Ok(data)
        }
    }
}

#[cfg(test)]
mod tests;
