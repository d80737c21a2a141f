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

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A kind of real work, named by the program that does it (`"trial_division"`,
/// `"spin_flip"`, `"comparison"`, `"key_move"`, …). The runtime knows no unit by itself: the
/// costs come with the machine's [`WorkCosts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WorkUnit(pub &'static str);

impl WorkUnit {
    /// Its name, as written in profiles and on the command line.
    pub fn name(self) -> &'static str {
        self.0
    }
}

impl fmt::Display for WorkUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// The units of work one compute block declared.
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

/// A declared unit with no known cost.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error(
    "no cost per unit is known for work unit '{0}': run `multicomputer calibrate`, or give one \
     (--unit-cost {0}=<ns>)"
)]
pub struct UnknownUnit(pub String);

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
        let mut total = 0.0;
        for &(unit, n) in work.counts() {
            let per = self
                .unit_ns(unit)
                .ok_or_else(|| UnknownUnit(unit.0.to_string()))?;
            total += per * n as f64;
        }
        Ok(round_ns(total))
    }

    /// The emulated time of `iterations` of the degradation loop, rounded to whole ns.
    pub fn loop_ns(&self, iterations: u64) -> u64 {
        round_ns(self.loop_iteration_ns * iterations as f64)
    }
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
    fn huge_charges_saturate_instead_of_wrapping() {
        let costs = WorkCosts::default().with_unit(A, 1e12);
        let mut w = Work::default();
        w.add(A, u64::MAX);
        assert_eq!(costs.charge_ns(&w), Ok(u64::MAX));
        assert_eq!(round_ns(-1.0), 0);
        assert_eq!(round_ns(f64::NAN), 0);
    }
}
