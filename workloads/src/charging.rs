//! Real work charged as a machine charges it, outside the machine: the sequential reference of
//! a real kernel and the per-level costs of its model must cost what the same work costs
//! inside a run, or the measured speedup and the model compare two different clocks.
//!
//! A machine charges a compute block either by the time it took on its [`WorkClock`]
//! (`measured`: wall time natively, thread CPU time otherwise) or by the units of work it
//! declares times their cost per unit (`model`, see [`ComputeCharge`]). A [`Charger`] does the
//! same to work run on the calling thread:
//!
//! ```
//! use multicomputer_runtime::{ComputeCharge, WorkClock, WorkCosts, WorkUnit};
//! use multicomputer_workloads::charging::Charger;
//!
//! const STEP: WorkUnit = WorkUnit("step");
//! let charger = Charger {
//!     charge: ComputeCharge::Model,
//!     clock: WorkClock::ThreadCpu,
//!     costs: WorkCosts::default().with_unit(STEP, 2.5),
//! };
//! let (value, cost_s) = charger.run(|w| {
//!     w.add(STEP, 4);
//!     7
//! });
//! assert_eq!(value, 7);
//! assert!((cost_s - 10e-9).abs() < 1e-18);
//! ```

use multicomputer_runtime::{ComputeCharge, Machine, Work, WorkClock, WorkCosts};

/// How real work is charged: by CPU time, or by declared units at their costs.
#[derive(Debug, Clone, PartialEq)]
pub struct Charger {
    /// `measured` (time on `clock`) or `model` (declared units × cost per unit).
    pub charge: ComputeCharge,
    /// The clock of measured charging.
    pub clock: WorkClock,
    /// The costs per unit (model charging).
    pub costs: WorkCosts,
}

impl Charger {
    /// Charges as `machine` charges its processors' real work.
    pub fn of(machine: &Machine) -> Self {
        Self {
            charge: machine.compute_charge(),
            clock: machine.work_clock(),
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
                let (out, took) = self
                    .clock
                    .time(|| std::hint::black_box(work(&mut declared)));
                (out, took.as_secs_f64())
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
            clock: WorkClock::ThreadCpu,
            costs: WorkCosts::default().with_unit(A, 3.0),
        };
        let ((), s) = c.run(|w| w.add(A, 1_000));
        assert!((s - 3e-6).abs() < 1e-15);
    }

    #[test]
    fn measured_charging_counts_cpu_time() {
        for clock in [WorkClock::ThreadCpu, WorkClock::Monotonic] {
            let c = Charger {
                charge: ComputeCharge::Measured,
                clock,
                costs: WorkCosts::default(),
            };
            let (x, s) = c.run(|_| multicomputer_runtime::busy_loop(2_000_000));
            assert!(x > 0);
            assert!(s > 0.0, "{s}");
        }
    }
}
