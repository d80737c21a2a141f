//! The processes of the OCL arrays as runtime-agnostic state machines.
//!
//! A cell is driven by [`SystolicCell::step`]: one received packet in (the channels `b`, `c`, `d`
//! of the right neighbour, carried together as one communication), one packet out (to the left
//! neighbour). No cell knows its position in the array: with the environment feeding
//! [`Packet::source`] as if it were process `N/M`, every process runs the same program, so a
//! runtime adapter wraps one cell per emulated processor and connects them in a chain.

use multicomputer_runtime::{Work, WorkUnit};
use serde::Serialize;

use super::grain::{Grain, OclError};

/// One communication between neighbours: the arrays of channels `b`, `c`, `d` (length `K`; 1
/// for the fine-grained and `[M,1]` programs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Packet {
    /// Partial occurrence counts (`b̄(i)[p]`).
    pub b: Vec<u64>,
    /// The delayed stream (`c̄(i)[p]`).
    pub c: Vec<i64>,
    /// The current stream elements (`d̄(i)[p] = A(iK+p)`).
    pub d: Vec<i64>,
}

impl Packet {
    /// The packet the environment sends into the array for stream elements `values`: it plays
    /// process `N/M`, whose channels are `b = 0` (an empty window), `c = d = A(iK..iK+K)`.
    pub fn source(values: &[i64]) -> Self {
        Self {
            b: vec![0; values.len()],
            c: values.to_vec(),
            d: values.to_vec(),
        }
    }

    /// Number of values per channel (`K`).
    pub fn len(&self) -> usize {
        self.d.len()
    }

    /// True for a packet without values.
    pub fn is_empty(&self) -> bool {
        self.d.is_empty()
    }

    fn check(&self, expected: usize) -> Result<(), OclError> {
        if self.b.len() == expected && self.c.len() == expected && self.d.len() == expected {
            Ok(())
        } else {
            Err(OclError::PacketLength {
                expected,
                b: self.b.len(),
                c: self.c.len(),
                d: self.d.len(),
            })
        }
    }
}

/// One comparison `A(j) = A(i)` of an OCL cell.
pub const OCL_COMPARISON: WorkUnit = WorkUnit("ocl_comparison");

/// One value (`b`, `c` or `d`) a cell takes in or passes on.
pub const OCL_VALUE: WorkUnit = WorkUnit("ocl_value");

/// What one step of a cell costs, the quantities the model charges: `α` (or `α0 + Kα1`) per
/// communication and `β` per comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct StepCost {
    /// Communications per step: one receive and one send, each carrying `b`, `c`, `d`.
    pub communications: u64,
    /// Values received per step (`3K`).
    pub values_in: u64,
    /// Values sent per step (`3K`).
    pub values_out: u64,
    /// Comparisons `A(j) = A(i)` per step: 1, `M`, `K²` or `KM`.
    pub comparisons: u64,
}

/// Totals a cell has accumulated over its steps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct CellCounters {
    /// Steps taken (packets processed).
    pub steps: u64,
    /// Communications (receives + sends).
    pub communications: u64,
    /// Values received and sent.
    pub values_moved: u64,
    /// Comparisons made.
    pub comparisons: u64,
}

impl StepCost {
    /// Declares this step's comparisons and values moved on `work`.
    pub fn declare(&self, work: &mut Work) {
        work.add(OCL_COMPARISON, self.comparisons);
        work.add(OCL_VALUE, self.values_in + self.values_out);
    }
}

impl CellCounters {
    /// Declares the comparisons and values moved of every step so far on `work`, as
    /// [`StepCost::declare`] does step by step.
    pub fn declare(&self, work: &mut Work) {
        work.add(OCL_COMPARISON, self.comparisons);
        work.add(OCL_VALUE, self.values_moved);
    }

    fn add(&mut self, cost: StepCost) {
        self.steps += 1;
        self.communications += cost.communications;
        self.values_moved += cost.values_in + cost.values_out;
        self.comparisons += cost.comparisons;
    }
}

/// A process of an OCL array, as a state machine.
pub trait SystolicCell {
    /// The packet size `K` this cell receives and sends.
    fn packet_len(&self) -> usize;

    /// One step: receive `input` from the right neighbour, compute, return the packet for the
    /// left neighbour. Errors: [`OclError::PacketLength`] if `input` has the wrong shape (the
    /// state is then unchanged).
    fn step(&mut self, input: Packet) -> Result<Packet, OclError>;

    /// The (constant) cost of one step.
    fn step_cost(&self) -> StepCost;

    /// The totals so far.
    fn counters(&self) -> CellCounters;
}

fn cost(k: usize, comparisons: usize) -> StepCost {
    StepCost {
        communications: 2,
        values_in: 3 * k as u64,
        values_out: 3 * k as u64,
        comparisons: comparisons as u64,
    }
}

/// The fine-grained process of §2.2:
///
/// ```text
/// vcc := 0
/// ; ( b_{k+1}?vb, c_{k+1}?vc, d_{k+1}?vd
///   ; vb, vc, vcc := vb + [vc = vd], vcc, vc
///   ; b_k!vb, c_k!vc, d_k!vd )*
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FineCell {
    vcc: i64,
    counters: CellCounters,
}

impl FineCell {
    /// A cell with `vcc = 0` (the padding `A(−1)`).
    pub fn new() -> Self {
        Self::default()
    }
}

impl SystolicCell for FineCell {
    fn packet_len(&self) -> usize {
        1
    }

    fn step(&mut self, mut input: Packet) -> Result<Packet, OclError> {
        input.check(1)?;
        let (vc, vd) = (input.c[0], input.d[0]);
        input.b[0] += u64::from(vc == vd);
        input.c[0] = std::mem::replace(&mut self.vcc, vc);
        self.counters.add(self.step_cost());
        Ok(input)
    }

    fn step_cost(&self) -> StepCost {
        cost(1, 1)
    }

    fn counters(&self) -> CellCounters {
        self.counters
    }
}

/// A process of the `[M,1]`-transformation (§3.1) with its window `V(h) = A(i−N+kM+h)`,
/// `0 ≤ h < M`, kept as a cyclic array (`V(h)` is `window[(head + h) mod M]`).
///
/// The paper's statement list `S` is
///
/// ```text
///   vc, V(0) := V(0), vc
/// ; m := 0; do m ≠ M−1 → V(m), V(m+1) := V(m+1), V(m); m := m+1 od
/// ; vb := vb + (# j : 0 ≤ j < M : V(j) = vd)
/// ```
///
/// (the paper prints `V(m) = vd` in the count, a typo: `m` is the loop variable, equal to `M−1`
/// there; the invariant `V(h) = A(i+1−N+kM+h)` needs the quantified `j`). The swap-and-bubble
/// rotation is done here by advancing `head`, as the paper suggests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct M1Cell {
    window: Vec<i64>,
    head: usize,
    counters: CellCounters,
}

impl M1Cell {
    /// A cell composing `m ≥ 1` fine-grained cells; the window starts as the padding zeros.
    ///
    /// Errors: [`OclError::ZeroParameter`] for `m = 0`.
    pub fn new(m: usize) -> Result<Self, OclError> {
        if m == 0 {
            return Err(OclError::ZeroParameter {
                name: super::grain::M_NAME,
            });
        }
        Ok(Self {
            window: vec![0; m],
            head: 0,
            counters: CellCounters::default(),
        })
    }
}

impl SystolicCell for M1Cell {
    fn packet_len(&self) -> usize {
        1
    }

    fn step(&mut self, mut input: Packet) -> Result<Packet, OclError> {
        input.check(1)?;
        let m = self.window.len();
        // vc, V(0) := V(0), vc and the rotation: the oldest element leaves, the received one
        // becomes V(M−1).
        input.c[0] = std::mem::replace(&mut self.window[self.head], input.c[0]);
        self.head = (self.head + 1) % m;
        let vd = input.d[0];
        input.b[0] += self.window.iter().filter(|&&v| v == vd).count() as u64;
        self.counters.add(self.step_cost());
        Ok(input)
    }

    fn step_cost(&self) -> StepCost {
        cost(1, self.window.len())
    }

    fn counters(&self) -> CellCounters {
        self.counters
    }
}

/// A process of the `[K,K]`-transformation (§3.2):
///
/// ```text
/// p := 0; do p ≠ K → VCC(p) := 0; p := p+1 od
/// ; ( b̄_{h+1}?VB, c̄_{h+1}?VC, d̄_{h+1}?VD
///   ; p := 0
///   ; do p ≠ K → VB[p] := VB[p] + (# j : 0 < j ≤ K ∧ p+j < K : VCC[p+j] = VD[p])
///                               + (# j : 0 < j ≤ K ∧ p+j ≥ K : VC[p+j−K] = VD[p])
///              ; p := p+1 od
///   ; VC, VCC := VCC, VC
///   ; b̄_h!VB, c̄_h!VC, d̄_h!VD )*
/// ```
///
/// (the paper prints the receive as `b̄_{h+1}!VB, c̄_{h+1}!VC, d̄_{h+1}!VD`, a typo for `?`.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KkCell {
    vcc: Vec<i64>,
    counters: CellCounters,
}

impl KkCell {
    /// A cell for packets of `k ≥ 1` values; `VCC` starts as the padding zeros.
    ///
    /// Errors: [`OclError::ZeroParameter`] for `k = 0`.
    pub fn new(k: usize) -> Result<Self, OclError> {
        if k == 0 {
            return Err(OclError::ZeroParameter {
                name: super::grain::K_NAME,
            });
        }
        Ok(Self {
            vcc: vec![0; k],
            counters: CellCounters::default(),
        })
    }
}

impl SystolicCell for KkCell {
    fn packet_len(&self) -> usize {
        self.vcc.len()
    }

    fn step(&mut self, mut input: Packet) -> Result<Packet, OclError> {
        let k = self.vcc.len();
        input.check(k)?;
        for p in 0..k {
            let vd = input.d[p];
            let previous = self.vcc[p + 1..].iter().filter(|&&v| v == vd).count();
            let current = input.c[..=p].iter().filter(|&&v| v == vd).count();
            input.b[p] += (previous + current) as u64;
        }
        std::mem::swap(&mut input.c, &mut self.vcc);
        self.counters.add(self.step_cost());
        Ok(input)
    }

    fn step_cost(&self) -> StepCost {
        let k = self.vcc.len();
        cost(k, k * k)
    }

    fn counters(&self) -> CellCounters {
        self.counters
    }
}

/// A process of the general `[M,K]`-transformation (`K | M`): a cyclic window of the last `M`
/// delayed values `W(q) = A(iK−N+hM+q)`, `0 ≤ q < M`, extended by the `K` received ones.
///
/// For `K = 1` it computes what [`M1Cell`] computes, for `M = K` what [`KkCell`] computes, for
/// `M = K = 1` what [`FineCell`] computes (the tests check all three).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MkCell {
    window: Vec<i64>,
    head: usize,
    k: usize,
    counters: CellCounters,
}

impl MkCell {
    /// A cell composing `m` fine-grained cells and exchanging packets of `k` values.
    ///
    /// Errors: [`OclError::ZeroParameter`], or [`OclError::NotADivisor`] if `k` does not divide
    /// `m`.
    pub fn new(m: usize, k: usize) -> Result<Self, OclError> {
        let g = Grain::new(m, m, k)?;
        Ok(Self {
            window: vec![0; g.m()],
            head: 0,
            k,
            counters: CellCounters::default(),
        })
    }
}

impl SystolicCell for MkCell {
    fn packet_len(&self) -> usize {
        self.k
    }

    fn step(&mut self, mut input: Packet) -> Result<Packet, OclError> {
        let (m, k) = (self.window.len(), self.k);
        input.check(k)?;
        // W(0..M+K) is three contiguous runs: the cyclic window from its head, its wrapped
        // start, and the received VC. Counting over slices keeps the inner loop free of
        // index arithmetic (a `% M` per comparison made it ten times slower than the
        // sequential program).
        let (older, newer) = self.window.split_at(self.head);
        let runs = [newer, older, &input.c[..]];
        for p in 0..k {
            let vd = input.d[p];
            // W(p+1 ..= p+M), run by run.
            let (mut lo, mut hi) = (p + 1, p + m + 1);
            let mut matches = 0;
            for run in runs {
                let end = lo.min(run.len())..hi.min(run.len());
                matches += run[end].iter().filter(|&&v| v == vd).count();
                lo = lo.saturating_sub(run.len());
                hi = hi.saturating_sub(run.len());
            }
            input.b[p] += matches as u64;
        }
        // W(0..K) leaves (K ≤ M), the received VC takes its slots, the window advances by K.
        for p in 0..k {
            let slot = (self.head + p) % m;
            input.c[p] = std::mem::replace(&mut self.window[slot], input.c[p]);
        }
        self.head = (self.head + k) % m;
        self.counters.add(self.step_cost());
        Ok(input)
    }

    fn step_cost(&self) -> StepCost {
        cost(self.k, self.k * self.window.len())
    }

    fn counters(&self) -> CellCounters {
        self.counters
    }
}

/// Any of the four cells, so that an array is a `Vec<Cell>` (no boxing; `Send + Clone`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// §2.2.
    Fine(FineCell),
    /// §3.1.
    M1(M1Cell),
    /// §3.2.
    Kk(KkCell),
    /// The general `[M,K]`.
    Mk(MkCell),
}

impl Cell {
    /// The paper's own program for this grain: [`FineCell`] for `[1,1]`, [`M1Cell`] for
    /// `[M,1]`, [`KkCell`] for `[K,K]`, [`MkCell`] otherwise.
    pub fn specialised(grain: Grain) -> Self {
        use super::grain::Transformation as T;
        let (m, k) = (grain.m(), grain.k());
        match grain.transformation() {
            T::Fine => Self::Fine(FineCell::new()),
            T::M1 => Self::M1(M1Cell::new(m).expect("validated grain")),
            T::Kk => Self::Kk(KkCell::new(k).expect("validated grain")),
            T::Mk => Self::general(grain),
        }
    }

    /// The general [`MkCell`], whatever the grain.
    pub fn general(grain: Grain) -> Self {
        Self::Mk(MkCell::new(grain.m(), grain.k()).expect("validated grain"))
    }

    fn inner(&self) -> &dyn SystolicCell {
        match self {
            Self::Fine(c) => c,
            Self::M1(c) => c,
            Self::Kk(c) => c,
            Self::Mk(c) => c,
        }
    }
}

impl SystolicCell for Cell {
    fn packet_len(&self) -> usize {
        self.inner().packet_len()
    }

    fn step(&mut self, input: Packet) -> Result<Packet, OclError> {
        match self {
            Self::Fine(c) => c.step(input),
            Self::M1(c) => c.step(input),
            Self::Kk(c) => c.step(input),
            Self::Mk(c) => c.step(input),
        }
    }

    fn step_cost(&self) -> StepCost {
        self.inner().step_cost()
    }

    fn counters(&self) -> CellCounters {
        self.inner().counters()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fine_cell_follows_the_program_text() {
        let mut cell = FineCell::new();
        // First step: vc = 4 = vd → vb + 1; outgoing c is the initial vcc = 0.
        let out = cell
            .step(Packet {
                b: vec![2],
                c: vec![4],
                d: vec![4],
            })
            .unwrap();
        assert_eq!(
            out,
            Packet {
                b: vec![3],
                c: vec![0],
                d: vec![4]
            }
        );
        let out = cell
            .step(Packet {
                b: vec![0],
                c: vec![1],
                d: vec![9],
            })
            .unwrap();
        assert_eq!(
            out,
            Packet {
                b: vec![0],
                c: vec![4],
                d: vec![9]
            }
        );
        assert_eq!(
            cell.counters(),
            CellCounters {
                steps: 2,
                communications: 4,
                values_moved: 12,
                comparisons: 2
            }
        );
    }

    #[test]
    fn wrong_packet_is_refused_without_changing_state() {
        let mut cell = KkCell::new(2).unwrap();
        let before = cell.clone();
        let err = cell.step(Packet::source(&[1, 2, 3])).unwrap_err();
        assert_eq!(
            err,
            OclError::PacketLength {
                expected: 2,
                b: 3,
                c: 3,
                d: 3
            }
        );
        assert_eq!(cell, before);
        let bad = Packet {
            b: vec![0],
            c: vec![1, 2],
            d: vec![1, 2],
        };
        assert!(matches!(
            cell.step(bad),
            Err(OclError::PacketLength { b: 1, .. })
        ));
        assert!(FineCell::new().step(Packet::source(&[])).is_err());
    }

    #[test]
    fn cells_refuse_zero_and_indivisible_sizes() {
        assert!(matches!(
            M1Cell::new(0),
            Err(OclError::ZeroParameter { .. })
        ));
        assert!(matches!(
            KkCell::new(0),
            Err(OclError::ZeroParameter { .. })
        ));
        assert!(matches!(
            MkCell::new(6, 4),
            Err(OclError::NotADivisor { value: 4, .. })
        ));
    }

    #[test]
    fn step_costs_are_the_model_counts() {
        let c = |n, m, k| Cell::specialised(Grain::new(n, m, k).unwrap()).step_cost();
        assert_eq!(c(8, 1, 1).comparisons, 1);
        assert_eq!(c(8, 4, 1).comparisons, 4);
        assert_eq!(c(8, 4, 4).comparisons, 16);
        assert_eq!(c(8, 4, 2).comparisons, 8);
        assert_eq!(c(8, 4, 2).communications, 2);
        assert_eq!(c(8, 4, 2).values_in, 6);
        // The general cell charges the same as the specialised one.
        for (n, m, k) in [(8, 1, 1), (8, 4, 1), (8, 4, 4)] {
            let g = Grain::new(n, m, k).unwrap();
            assert_eq!(
                Cell::general(g).step_cost(),
                Cell::specialised(g).step_cost()
            );
        }
    }
}
