//! The cost models: each algorithm's time as a pure function of the network, the vector and
//! the costs, step by step as its file describes it (the formulas and their sources are in
//! the algorithm files; this module adds up their steps on the actual network).

use multicomputer_runtime::{LinkCost, Topology};

use super::blocks::{RingOrder, absolute, block_len, combine_ns};
use super::exchange::{barrier_partners, pairwise_partners};
use super::lines::Dims;
use super::{Algorithm, CollectiveError, Operation, check};

/// The costs a model charges: the machine's link costs (α is one message's fixed part, β its
/// per-byte part τ) and the reduction's γ per byte.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Costs {
    /// The link costs, with the switching model of routed messages.
    pub link: LinkCost,
    /// Emulated compute time per byte combined (γ), ns.
    pub gamma_ns_per_byte: f64,
}

impl Costs {
    /// The costs of `link` with γ = `gamma_ns_per_byte`.
    pub fn of(link: &LinkCost, gamma_ns_per_byte: f64) -> Self {
        Self {
            link: *link,
            gamma_ns_per_byte,
        }
    }

    /// One message of `bytes` over `hops`, from the sender's start-up to the receiver's
    /// having taken it: the switching model's time plus the receive overhead. On one hop,
    /// α + m·β with α = start-up + latency + receive overhead.
    pub fn message_ns(&self, hops: usize, bytes: usize) -> u64 {
        self.link
            .switching
            .uncontended_ns(&self.link, hops, bytes as u64)
            + self.link.recv_overhead.as_nanos() as u64
    }

    /// Combining `bytes` (γ per byte).
    pub fn combine_ns(&self, bytes: usize) -> u64 {
        combine_ns(self.gamma_ns_per_byte, bytes)
    }
}

/// One step: the pairs (sender, receiver) exchanging in it, the bytes each sends, and
/// whether the receiver combines them.
struct Step {
    pairs: Vec<(usize, usize)>,
    bytes: usize,
    combines: bool,
}

/// The time of `operation` by `algorithm` on `topology`, rooted at `root`, for vectors of
/// `elements` elements of `element_bytes` bytes, in ns: the sum over the algorithm's steps of
/// the slowest message of the step (its farthest pair), plus the combination where the step
/// reduces. Contention is left out (see the module docs).
pub fn model_ns(
    operation: Operation,
    algorithm: Algorithm,
    topology: &Topology,
    root: usize,
    elements: usize,
    element_bytes: usize,
    costs: &Costs,
) -> Result<u64, CollectiveError> {
    let steps = algorithm_steps(
        operation,
        algorithm,
        topology,
        root,
        elements,
        element_bytes,
    )?;
    Ok(steps
        .iter()
        .map(|s| {
            let hops = s
                .pairs
                .iter()
                .map(|&(a, c)| topology.hops(a, c))
                .max()
                .unwrap_or(0);
            let combine = if s.combines {
                costs.combine_ns(s.bytes)
            } else {
                0
            };
            costs.message_ns(hops, s.bytes) + combine
        })
        .sum())
}

/// Bytes `operation` by `algorithm` sends in all on `topology` (every pair of every step,
/// each message as many bytes as its step's), for vectors of `elements` elements of
/// `element_bytes` bytes: what its messages carry, for an estimate of the run's copying.
pub fn sent_bytes(
    operation: Operation,
    algorithm: Algorithm,
    topology: &Topology,
    root: usize,
    elements: usize,
    element_bytes: usize,
) -> Result<usize, CollectiveError> {
    let steps = algorithm_steps(
        operation,
        algorithm,
        topology,
        root,
        elements,
        element_bytes,
    )?;
    Ok(steps.iter().map(|s| s.pairs.len() * s.bytes).sum())
}

/// The steps of `operation` by `algorithm` on `topology` (the models' one list of them).
fn algorithm_steps(
    operation: Operation,
    algorithm: Algorithm,
    topology: &Topology,
    root: usize,
    elements: usize,
    element_bytes: usize,
) -> Result<Vec<Step>, CollectiveError> {
    let p = topology.len();
    check(operation, algorithm, p, root)?;
    let m = elements * element_bytes;
    let b = block_len(elements, p) * element_bytes;
    let order = RingOrder::new(topology.grid(), p);
    Ok(if algorithm == Algorithm::DimensionOrdered {
        dimension_ordered(operation, topology, root, elements, element_bytes)
    } else {
        steps(operation, algorithm, p, root, m, b, order)
    })
}

/// The steps of an algorithm.
fn steps(
    operation: Operation,
    algorithm: Algorithm,
    p: usize,
    root: usize,
    m: usize,
    b: usize,
    order: RingOrder,
) -> Vec<Step> {
    use Algorithm::*;
    match (operation, algorithm) {
        (Operation::Broadcast, _) => binomial(p, root, |q| q, |_| m, false),
        (Operation::Reduce, _) => binomial(p, root, |q| q, |_| m, true),
        (Operation::Scatter | Operation::Gather, _) => {
            binomial(p, root, |q| q, |units| units * b, false)
        }
        (Operation::AllReduce, Ring) => {
            let mut s = ring(order, b, true);
            s.extend(ring(order, b, false));
            s
        }
        (Operation::AllReduce, Rabenseifner) => {
            let mut s = halving(p, b);
            s.extend(doubling(p, |mask| mask * b, false));
            s
        }
        (Operation::AllReduce, _) => doubling(p, |_| m, true),
        (Operation::ReduceScatter, Ring) => ring(order, b, true),
        (Operation::ReduceScatter, _) => halving(p, b),
        (Operation::AllGather, Ring) => ring(order, b, false),
        (Operation::AllGather, _) => doubling(p, |mask| mask * b, false),
        (Operation::AllToAll, _) => (1..p)
            .map(|k| Step {
                pairs: (0..p).map(|r| (r, pairwise_partners(r, k, p).0)).collect(),
                bytes: b,
                combines: false,
            })
            .collect(),
        (Operation::Barrier, _) => {
            let mut s = Vec::new();
            let mut d = 1;
            while d < p {
                s.push(Step {
                    pairs: (0..p).map(|r| (r, barrier_partners(r, d, p).0)).collect(),
                    bytes: 0,
                    combines: false,
                });
                d <<= 1;
            }
            s
        }
    }
}

/// Binomial-tree steps among the `n` positions of a line whose position q is processor
/// `at(q)`, rooted at position `root`: at distance `mask` (1, 2, 4, …), relative ranks
/// vr ↔ vr + mask for vr a multiple of 2·mask, each carrying `bytes(units)` where `units`,
/// at most `mask`, is the largest subtree sent in the step (that of vr = 0,
/// min(mask, n − mask)).
fn binomial(
    n: usize,
    root: usize,
    at: impl Fn(usize) -> usize,
    bytes: impl Fn(usize) -> usize,
    combines: bool,
) -> Vec<Step> {
    let abs = |vr: usize| at(absolute(vr, root, n));
    let mut s = Vec::new();
    let mut mask = 1;
    while mask < n {
        let pairs = (0..n)
            .step_by(2 * mask)
            .filter(|vr| vr + mask < n)
            .map(|vr| (abs(vr + mask), abs(vr)))
            .collect();
        s.push(Step {
            pairs,
            bytes: bytes(mask.min(n - mask)),
            combines,
        });
        mask <<= 1;
    }
    s
}

/// The dimension-ordered forms (`dimensions`, Kumar et al. ch. 4): the one-dimensional
/// algorithm's steps along each dimension in turn. A binomial tree's steps are those of the
/// root's line (every line along a dimension is alike); a ring's pair every processor with
/// the next on its line. m bytes a vector, b a block (⌈n/p⌉ elements).
fn dimension_ordered(
    operation: Operation,
    topology: &Topology,
    root: usize,
    elements: usize,
    element_bytes: usize,
) -> Vec<Step> {
    let p = topology.len();
    let dims = Dims::of(topology.grid(), p);
    let (m, b) = (
        elements * element_bytes,
        block_len(elements, p) * element_bytes,
    );
    let tree = |d: usize, bytes: &dyn Fn(usize) -> usize, combines: bool| {
        let line = dims.line(root, d);
        binomial(
            line.len(),
            dims.coordinate(root, d),
            |q| line.member(q),
            bytes,
            combines,
        )
    };
    let rings = |d: usize, bytes: usize, combines: bool, times: usize| {
        let s = dims.size(d);
        let pairs: Vec<(usize, usize)> = (0..p)
            .map(|id| {
                let line = dims.line(id, d);
                (id, line.member((line.q + 1) % s))
            })
            .collect();
        (0..times * (s - 1))
            .map(|i| Step {
                pairs: pairs.clone(),
                bytes,
                combines: combines && (times == 1 || i < s - 1),
            })
            .collect::<Vec<_>>()
    };
    let up = 0..dims.count();
    let down = up.clone().rev();
    match operation {
        Operation::Broadcast => up.flat_map(|d| tree(d, &|_| m, false)).collect(),
        Operation::Reduce => up.flat_map(|d| tree(d, &|_| m, true)).collect(),
        Operation::Scatter => down
            .flat_map(|d| tree(d, &|units| units * dims.stride(d) * b, false))
            .collect(),
        Operation::Gather => up
            .flat_map(|d| tree(d, &|units| units * dims.stride(d) * b, false))
            .collect(),
        Operation::AllGather => up
            .flat_map(|d| rings(d, dims.stride(d) * b, false, 1))
            .collect(),
        Operation::ReduceScatter => down
            .flat_map(|d| rings(d, dims.stride(d) * b, true, 1))
            .collect(),
        // A ring all-reduce of the whole vector along each dimension: a reduce-scatter then
        // an all-gather of blocks ⌈n/s⌉.
        _ => up
            .flat_map(|d| {
                let s = dims.size(d);
                rings(d, block_len(elements, s) * element_bytes, true, 2)
            })
            .collect(),
    }
}

/// p − 1 ring steps of `b` bytes to the right neighbour in `order`.
fn ring(order: RingOrder, b: usize, combines: bool) -> Vec<Step> {
    let p = order.len();
    (1..p)
        .map(|_| Step {
            pairs: (0..p).map(|q| (order.at(q), order.at(q + 1))).collect(),
            bytes: b,
            combines,
        })
        .collect()
}

/// Recursive-doubling steps: partners r XOR mask for mask = 1, 2, …, carrying `bytes(mask)`.
fn doubling(p: usize, bytes: impl Fn(usize) -> usize, combines: bool) -> Vec<Step> {
    let mut s = Vec::new();
    let mut mask = 1;
    while mask < p {
        s.push(Step {
            pairs: (0..p).map(|r| (r, r ^ mask)).collect(),
            bytes: bytes(mask),
            combines,
        });
        mask <<= 1;
    }
    s
}

/// Recursive-halving steps: partners r XOR half for half = p/2, p/4, …, 1, carrying half
/// the blocks held, combined.
fn halving(p: usize, b: usize) -> Vec<Step> {
    let mut s = Vec::new();
    let mut half = p / 2;
    while half >= 1 {
        s.push(Step {
            pairs: (0..p).map(|r| (r, r ^ half)).collect(),
            bytes: half * b,
            combines: true,
        });
        half /= 2;
    }
    s
}
