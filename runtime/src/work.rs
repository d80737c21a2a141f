//! Real work and how it is charged to the emulated clock.
//!
//! A program runs real work through [`Processor::compute`](crate::Processor::compute) and
//! declares what it did in [`WorkUnit`]s on the [`Work`] meter it is handed: trial divisions
//! of the prime kernel, spin flips of a Metropolis sweep, comparisons and keys moved by a
//! mergesort. The machine then charges the block in one of two ways ([`ComputeCharge`]):
//!
//! - **measured**: the time the block took on the machine's [`WorkClock`](crate::WorkClock):
//!   its wall time natively (one pinned processor per core), its thread CPU time
//!   (`CLOCK_THREAD_CPUTIME_ID`, as SimGrid's SMPI charges online) in dilated and virtual time.
//!   Real, but it varies with the host's state from run to run.
//! - **model**: Σ units × cost per unit, with the costs of [`WorkCosts`] (measured natively by
//!   `calibrate`, or given). Emulated times are then a pure function of the program and its
//!   inputs: two runs give the same times bit for bit, on any host. The work is still really
//!   done, and its results are still checked.
//!
//! The same rule converts the scalability paper's degradation loop (`loop_count` iterations
//! per send): spun and measured, or charged at [`WorkCosts::loop_iteration_ns`] each.
//!
//! A workload declares the units it uses in its [`Hints`](crate::Hints); the machine resolves
//! them into a [`CostTable`] when it is built, so that a unit without a cost is a
//! configuration error before anything runs, and looks a unit's cost up by its place in the
//! table, not by its name in a map. [`Charging`] is the one charging path: processors use it
//! for every compute block, and sequential references use the same one
//! ([`Machine::charging`](crate::Machine::charging)) so that both sides of a speedup are
//! charged alike.
//!
//! ```
//! use multicomputer_runtime::{Work, WorkCosts, WorkUnit};
//!
//! const FLIP: WorkUnit = WorkUnit("spin_flip");
//! let mut work = Work::default();
//! work.add(FLIP, 1_000);
//! let costs = WorkCosts::default().with_unit(FLIP, 12.5);
//! assert_eq!(costs.charge_ns(&work), Ok(12_500));
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::clock::WorkClock;
pub use crate::error::UnknownUnit;

/// A kind of real work, named by the program that does it (`"trial_division"`,
/// `"spin_flip"`, `"comparison"`, `"key_move"`, …). The runtime knows no unit by itself: the
/// costs come with the machine's [`WorkCosts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct WorkUnit(pub &'static str);

impl WorkUnit {
    /// Its name, as written in profiles and on the command line.
    pub fn name(self) -> &'static str {
        self.0
    }
}

/// A unit read back from another MPI rank: its name interned, each name once per process
/// (units are a program's few constants).
#[cfg(feature = "mpi")]
impl<'de> Deserialize<'de> for WorkUnit {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        static NAMES: parking_lot::Mutex<Vec<&'static str>> = parking_lot::Mutex::new(Vec::new());
        let name = String::deserialize(d)?;
        let mut names = NAMES.lock();
        let interned = match names.iter().find(|n| **n == name) {
            Some(n) => *n,
            None => {
                let n: &'static str = Box::leak(name.into_boxed_str());
                names.push(n);
                n
            }
        };
        Ok(WorkUnit(interned))
    }
}

impl fmt::Display for WorkUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// The units of work one compute block declared.
#[cfg_attr(feature = "mpi", derive(serde::Serialize, serde::Deserialize))]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Work {
    counts: Vec<(WorkUnit, u64)>,
}

impl Work {
    /// Declares `n` more units of `unit`.
    #[inline]
    pub fn add(&mut self, unit: WorkUnit, n: u64) {
        if n == 0 {
            return;
        }
        match self.counts.iter_mut().find(|(u, _)| *u == unit) {
            Some((_, c)) => *c = c.saturating_add(n),
            None => self.counts.push((unit, n)),
        }
    }

    /// Adds everything `other` declared.
    pub fn absorb(&mut self, other: &Work) {
        for &(u, n) in &other.counts {
            self.add(u, n);
        }
    }

    /// The declared counts, in the order the units were first declared.
    pub fn counts(&self) -> &[(WorkUnit, u64)] {
        &self.counts
    }

    /// How many units of `unit` were declared.
    pub fn count(&self, unit: WorkUnit) -> u64 {
        self.counts
            .iter()
            .find(|(u, _)| *u == unit)
            .map_or(0, |&(_, n)| n)
    }

    /// Whether nothing was declared.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Forgets every count, keeping the room it had (a processor reuses one meter).
    pub fn clear(&mut self) {
        self.counts.clear();
    }
}

/// How real work (compute blocks and the degradation loop) is charged to the emulated clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ComputeCharge {
    /// The time the work took on the machine's [`WorkClock`](crate::WorkClock).
    #[default]
    Measured,
    /// The declared units times their cost per unit: deterministic.
    Model,
}

impl ComputeCharge {
    /// `measured` or `model`.
    pub fn name(self) -> &'static str {
        match self {
            ComputeCharge::Measured => "measured",
            ComputeCharge::Model => "model",
        }
    }
}

/// The cost of each unit of real work on the emulated processor, in nanoseconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkCosts {
    /// Cost per unit, by unit name, ns.
    pub ns_per_unit: BTreeMap<String, f64>,
    /// One iteration of the degradation loop, ns.
    pub loop_iteration_ns: f64,
}

impl Default for WorkCosts {
    /// No unit costs; one loop iteration at 1 ns.
    fn default() -> Self {
        Self {
            ns_per_unit: BTreeMap::new(),
            loop_iteration_ns: 1.0,
        }
    }
}

impl WorkCosts {
    /// The same costs with `unit` costing `ns` each.
    pub fn with_unit(mut self, unit: WorkUnit, ns: f64) -> Self {
        self.ns_per_unit.insert(unit.0.to_string(), ns);
        self
    }

    /// The cost of one unit of `unit`, if known.
    pub fn unit_ns(&self, unit: WorkUnit) -> Option<f64> {
        self.ns_per_unit.get(unit.0).copied()
    }

    /// The emulated time a block's declared work costs, rounded to whole ns.
    pub fn charge_ns(&self, work: &Work) -> Result<u64, UnknownUnit> {
        charge(work, |unit| self.unit_ns(unit))
    }

    /// The emulated time of `iterations` of the degradation loop, rounded to whole ns.
    pub fn loop_ns(&self, iterations: u64) -> u64 {
        round_ns(self.loop_iteration_ns * iterations as f64)
    }
}

/// The emulated time of `work` at the cost per unit `unit_ns` gives, rounded to whole ns: the
/// one sum behind [`WorkCosts::charge_ns`] and [`CostTable::charge_ns`].
fn charge(work: &Work, unit_ns: impl Fn(WorkUnit) -> Option<f64>) -> Result<u64, UnknownUnit> {
    let mut total = 0.0;
    for &(unit, n) in work.counts() {
        let per = unit_ns(unit).ok_or_else(|| UnknownUnit(unit.0.to_string()))?;
        total += per * n as f64;
    }
    Ok(round_ns(total))
}

/// The costs of one machine's run, resolved before it starts: the units its workload
/// declared, each with its cost, looked up by place (the same `&'static str` is compared by
/// address first); every other cost given is kept for the report and for a unit that was not
/// declared.
#[derive(Debug, Clone, PartialEq)]
pub struct CostTable {
    declared: Vec<(WorkUnit, f64)>,
    costs: WorkCosts,
}

impl CostTable {
    /// The table of `units` under `costs`. With `model` charging, a unit without a cost is an
    /// error (found here, before any run); with measured charging, costs are not needed.
    pub fn new(costs: WorkCosts, units: &[WorkUnit], model: bool) -> Result<Self, UnknownUnit> {
        let mut declared: Vec<(WorkUnit, f64)> = Vec::with_capacity(units.len());
        for &unit in units {
            if declared.iter().any(|&(u, _)| u == unit) {
                continue;
            }
            match costs.unit_ns(unit) {
                Some(ns) => declared.push((unit, ns)),
                None if model => return Err(UnknownUnit(unit.0.to_string())),
                None => {}
            }
        }
        Ok(Self { declared, costs })
    }

    /// The costs as given (per unit, per loop iteration).
    pub fn costs(&self) -> &WorkCosts {
        &self.costs
    }

    /// The cost of one unit of `unit`, if known.
    #[inline]
    pub fn unit_ns(&self, unit: WorkUnit) -> Option<f64> {
        for &(u, ns) in &self.declared {
            if std::ptr::eq(u.0, unit.0) || u == unit {
                return Some(ns);
            }
        }
        self.costs.unit_ns(unit)
    }

    /// The emulated time a block's declared work costs, rounded to whole ns.
    pub fn charge_ns(&self, work: &Work) -> Result<u64, UnknownUnit> {
        charge(work, |unit| self.unit_ns(unit))
    }

    /// The emulated time of `iterations` of the degradation loop, rounded to whole ns.
    pub fn loop_ns(&self, iterations: u64) -> u64 {
        self.costs.loop_ns(iterations)
    }
}

/// How real work is charged, the same for the processors of a run and for work run outside
/// one (a sequential reference): by the time it took on a [`WorkClock`], or by its declared
/// units at the costs of a [`CostTable`].
///
/// ```
/// use multicomputer_runtime::{Charging, ComputeCharge, CostTable, WorkClock, WorkCosts, WorkUnit};
///
/// const STEP: WorkUnit = WorkUnit("step");
/// let costs = CostTable::new(WorkCosts::default().with_unit(STEP, 2.5), &[STEP], true)?;
/// let charging = Charging::new(ComputeCharge::Model, WorkClock::ThreadCpu, costs);
/// let (value, cost) = charging.run(|w| {
///     w.add(STEP, 4);
///     7
/// });
/// assert_eq!((value, cost.as_nanos()), (7, 10));
/// # Ok::<(), multicomputer_runtime::UnknownUnit>(())
/// ```
#[derive(Debug, Clone)]
pub struct Charging {
    charge: ComputeCharge,
    clock: WorkClock,
    costs: Arc<CostTable>,
}

impl Serialize for Charging {
    /// How work is charged and on which clock (the costs are in the run's work report).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Charging", 2)?;
        st.serialize_field("charge", &self.charge)?;
        st.serialize_field("clock", &self.clock)?;
        st.end()
    }
}

impl Charging {
    /// Charging by `charge`, timing on `clock` or costing by `costs`.
    pub fn new(charge: ComputeCharge, clock: WorkClock, costs: CostTable) -> Self {
        Self {
            charge,
            clock,
            costs: Arc::new(costs),
        }
    }

    /// Measured charging on `clock`.
    pub fn measured(clock: WorkClock) -> Self {
        let costs = CostTable {
            declared: Vec::new(),
            costs: WorkCosts::default(),
        };
        Self::new(ComputeCharge::Measured, clock, costs)
    }

    /// Model charging at `costs` (no unit declared: each is looked up as it comes).
    pub fn model(costs: WorkCosts) -> Self {
        let costs = CostTable {
            declared: Vec::new(),
            costs,
        };
        Self::new(ComputeCharge::Model, WorkClock::ThreadCpu, costs)
    }

    /// Measured or model.
    pub fn charge(&self) -> ComputeCharge {
        self.charge
    }

    /// The clock of measured charging.
    pub fn clock(&self) -> WorkClock {
        self.clock
    }

    /// The costs of model charging.
    pub fn costs(&self) -> &CostTable {
        &self.costs
    }

    /// Runs `f` on the calling thread with a meter of its own; returns its value with what it
    /// costs.
    ///
    /// # Panics
    ///
    /// In model charging, if the work declares a unit without a cost (a unit its workload did
    /// not declare in its hints).
    pub fn run<T>(&self, f: impl FnOnce(&mut Work) -> T) -> (T, std::time::Duration) {
        let mut work = Work::default();
        let (out, ns) = self.run_on(&mut work, f);
        (out, std::time::Duration::from_nanos(ns))
    }

    /// As [`run`](Self::run), the cost in seconds (the unit the models work in).
    pub fn run_s<T>(&self, f: impl FnOnce(&mut Work) -> T) -> (T, f64) {
        let mut work = Work::default();
        match self.charge {
            ComputeCharge::Measured => {
                let (out, took) = self.clock.time(|| std::hint::black_box(f(&mut work)));
                (out, took.as_secs_f64())
            }
            ComputeCharge::Model => {
                let out = f(&mut work);
                (out, self.model_ns(&work) as f64 * 1e-9)
            }
        }
    }

    /// Runs `f` with `work` as its meter (cleared first, outside the timed block); returns its
    /// value and its cost in ns. Nothing is allocated while the block is timed.
    #[inline]
    pub fn run_on<T>(&self, work: &mut Work, f: impl FnOnce(&mut Work) -> T) -> (T, u64) {
        work.clear();
        match self.charge {
            ComputeCharge::Measured => {
                let (out, took) = self.clock.time(|| std::hint::black_box(f(work)));
                (out, whole_ns(took))
            }
            ComputeCharge::Model => {
                let out = f(work);
                (out, self.model_ns(work))
            }
        }
    }

    fn model_ns(&self, work: &Work) -> u64 {
        self.costs.charge_ns(work).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The emulated cost of `iterations` of the degradation loop: spun and timed, or at the
    /// cost per iteration.
    pub fn loop_ns(&self, iterations: u64) -> u64 {
        match self.charge {
            ComputeCharge::Measured => whole_ns(self.clock.time(|| crate::busy_loop(iterations)).1),
            ComputeCharge::Model => self.costs.loop_ns(iterations),
        }
    }
}

/// `d` in whole nanoseconds, saturating.
fn whole_ns(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// A non-negative f64 of nanoseconds as whole ns, saturating.
fn round_ns(ns: f64) -> u64 {
    if ns.is_nan() || ns <= 0.0 {
        0
    } else if ns >= u64::MAX as f64 {
        u64::MAX
    } else {
        ns.round() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: WorkUnit = WorkUnit("a");
    const B: WorkUnit = WorkUnit("b");

    #[test]
    fn declared_units_accumulate_per_kind() {
        let mut w = Work::default();
        assert!(w.is_empty());
        w.add(A, 3);
        w.add(B, 0);
        w.add(A, 4);
        w.add(B, 2);
        assert_eq!(w.counts(), &[(A, 7), (B, 2)]);
        let mut v = Work::default();
        v.add(B, 1);
        v.absorb(&w);
        assert_eq!(v.count(A), 7);
        assert_eq!(v.count(B), 3);
    }

    #[test]
    fn charge_is_units_times_cost_rounded() {
        let costs = WorkCosts::default().with_unit(A, 2.5).with_unit(B, 0.3);
        let mut w = Work::default();
        w.add(A, 3); // 7.5
        w.add(B, 5); // 1.5
        assert_eq!(costs.charge_ns(&w), Ok(9));
        assert_eq!(costs.charge_ns(&Work::default()), Ok(0));
        let mut unknown = Work::default();
        unknown.add(WorkUnit("c"), 1);
        let err = costs.charge_ns(&unknown).unwrap_err();
        assert!(err.to_string().contains("'c'"), "{err}");
        assert_eq!(
            WorkCosts {
                loop_iteration_ns: 0.75,
                ..WorkCosts::default()
            }
            .loop_ns(1_000),
            750
        );
    }

    #[test]
    fn a_declared_unit_without_a_cost_fails_before_the_run_in_model_charging() {
        let costs = WorkCosts::default().with_unit(A, 2.0);
        let err = CostTable::new(costs.clone(), &[A, B], true).unwrap_err();
        assert_eq!(err, UnknownUnit("b".into()));
        // Measured charging needs no cost; the table still knows A's.
        let table = CostTable::new(costs, &[A, B], false).unwrap();
        assert_eq!(table.unit_ns(A), Some(2.0));
        assert_eq!(table.unit_ns(B), None);
    }

    #[test]
    fn a_reused_meter_starts_empty_and_charges_by_the_table() {
        let table = CostTable::new(WorkCosts::default().with_unit(A, 3.0), &[A], true).unwrap();
        let charging = Charging::new(ComputeCharge::Model, WorkClock::ThreadCpu, table);
        let mut work = Work::default();
        let ((), ns) = charging.run_on(&mut work, |w| w.add(A, 5));
        assert_eq!(ns, 15);
        let ((), ns) = charging.run_on(&mut work, |w| w.add(A, 1));
        assert_eq!((ns, work.count(A)), (3, 1));
        let ((), s) = charging.run_s(|w| w.add(A, 1_000));
        assert!((s - 3e-6).abs() < 1e-15);
        assert_eq!(charging.loop_ns(1_000), 1_000);
    }

    #[test]
    fn measured_charging_counts_the_clock() {
        for clock in [WorkClock::ThreadCpu, WorkClock::Monotonic] {
            let table = CostTable::new(WorkCosts::default(), &[], false).unwrap();
            let charging = Charging::new(ComputeCharge::Measured, clock, table);
            let (x, took) = charging.run(|_| crate::busy_loop(2_000_000));
            assert!(x > 0);
            assert!(took > std::time::Duration::ZERO, "{took:?}");
        }
    }

    #[test]
    fn huge_charges_saturate_instead_of_wrapping() {
        let costs = WorkCosts::default().with_unit(A, 1e12);
        let mut w = Work::default();
        w.add(A, u64::MAX);
        assert_eq!(costs.charge_ns(&w), Ok(u64::MAX));
        assert_eq!(round_ns(-1.0), 0);
        assert_eq!(round_ns(f64::NAN), 0);
    }
}
