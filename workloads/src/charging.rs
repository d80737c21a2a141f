//! Real work charged as a machine charges it, outside the machine: the sequential reference of
//! a real kernel and the per-level costs of its model must cost what the same work costs
//! inside a run, or the measured speedup and the model compare two different clocks.
//!
//! A machine charges a compute block either by its thread CPU time (`measured`) or by the
//! units of work it declares times their cost per unit (`model`, see
//! [`ComputeCharge`]). A [`Charger`] does the same to work run on the calling thread:
//!
//! ```
//! use multicomputer_runtime::{ComputeCharge, WorkCosts, WorkUnit};
//! use multicomputer_workloads::charging::Charger;
//!
//! const STEP: WorkUnit = WorkUnit("step");
//! let charger = Charger {
//!     charge: ComputeCharge::Model,
//!     costs: WorkCosts::default().with_unit(STEP, 2.5),
//! };
//! let (value, cost_s) = charger.run(|w| {
//!     w.add(STEP, 4);
//!     7
//! });
//! assert_eq!(value, 7);
//! assert!((cost_s - 10e-9).abs() < 1e-18);
//! ```

use multicomputer_runtime::{
    ComputeCharge, Machine, UnknownUnit, Work, WorkCosts, thread_cpu_time,
};

/// How real work is charged: by CPU time, or by declared units at their costs.
#[derive(Debug, Clone, PartialEq)]
pub struct Charger {
    /// `measured` (thread CPU time) or `model` (declared units × cost per unit).
    pub charge: ComputeCharge,
    /// The costs per unit (model charging).
    pub costs: WorkCosts,
}

impl Charger {
    /// Charges as `machine` charges its processors' real work.
    pub fn of(machine: &Machine) -> Self {
        Self {
            charge: machine.compute_charge(),
            costs: machine.config().work_costs.clone(),
        }
    }

    /// Runs `work` on this thread and returns its value with its cost in seconds.
    ///
    /// # Panics
    ///
    /// In model charging, if the work declares a unit without a cost (as a machine does; see
    /// [`Charger::check`]).
    pub fn run<T>(&self, work: impl FnOnce(&mut Work) -> T) -> (T, f64) {
        let mut declared = Work::default();
        match self.charge {
            ComputeCharge::Measured => {
                let before = thread_cpu_time();
                let out = std::hint::black_box(work(&mut declared));
                (out, thread_cpu_time().saturating_sub(before).as_secs_f64())
            }
            ComputeCharge::Model => {
                let out = work(&mut declared);
                let ns = self
                    .costs
                    .charge_ns(&declared)
                    .unwrap_or_else(|e| panic!("{e}"));
                (out, ns as f64 * 1e-9)
            }
        }
    }

    /// Whether every unit `work` declares has a cost (always, in measured charging).
    pub fn check(&self, work: &Work) -> Result<(), UnknownUnit> {
        match self.charge {
            ComputeCharge::Measured => Ok(()),
            ComputeCharge::Model => self.costs.charge_ns(work).map(|_| ()),
        }
    }

    /// The median cost of `repeats` runs of `work` (at least one) on inputs made by `prepare`
    /// (uncharged), seconds: one run is exact in model charging, so only measured charging
    /// repeats.
    pub fn median_s<I, T>(
        &self,
        repeats: usize,
        mut prepare: impl FnMut() -> I,
        mut work: impl FnMut(I, &mut Work) -> T,
    ) -> f64 {
        let n = match self.charge {
            ComputeCharge::Model => 1,
            ComputeCharge::Measured => repeats.max(1),
        };
        let mut costs: Vec<f64> = (0..n)
            .map(|_| {
                let input = prepare();
                self.run(|w| work(input, w)).1
            })
            .collect();
        costs.sort_by(f64::total_cmp);
        costs[costs.len() / 2]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use multicomputer_runtime::WorkUnit;

    const A: WorkUnit = WorkUnit("a");

    #[test]
    fn model_charging_is_units_times_costs() {
        let c = Charger {
            charge: ComputeCharge::Model,
            costs: WorkCosts::default().with_unit(A, 3.0),
        };
        let ((), s) = c.run(|w| w.add(A, 1_000));
        assert!((s - 3e-6).abs() < 1e-15);
        assert!((c.median_s(5, || 10, |n, w| w.add(A, n)) - 30e-9).abs() < 1e-18);
        let mut unknown = Work::default();
        unknown.add(WorkUnit("b"), 1);
        assert!(c.check(&unknown).is_err());
    }

    #[test]
    fn measured_charging_counts_cpu_time() {
        let c = Charger {
            charge: ComputeCharge::Measured,
            costs: WorkCosts::default(),
        };
        let (x, s) = c.run(|_| multicomputer_runtime::busy_loop(2_000_000));
        assert!(x > 0);
        assert!(s > 0.0, "{s}");
        let mut unknown = Work::default();
        unknown.add(WorkUnit("b"), 1);
        assert!(c.check(&unknown).is_ok());
    }
}
