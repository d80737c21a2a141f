//! How much a virtual-time run depends on the order of simultaneous events: the experiment
//! re-run under other legal tie orders ([`TieOrder`]), and the spread of its headline figures.
//! On by default where cheap; `--ties` runs the main result under another order.

use anyhow::Result;
use multicomputer_runtime::{TieOrder, Topology};
use serde::Serialize;

use super::Experiment;
use crate::plan::MachinePlan;

/// The orders besides the run's own that the spread is taken over.
const OTHER_ORDERS: [TieOrder; 3] = [
    TieOrder::Reverse,
    TieOrder::Shuffle(1),
    TieOrder::Shuffle(2),
];

/// The most wall time the extra runs may take, seconds (estimated): above it the spread is
/// left out and the report says how to get it.
pub(crate) const CHEAP_S: f64 = 2.0;

/// One headline figure over the tie orders.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct TieRange {
    /// Its name (`makespan_s`, `speedup`).
    pub(crate) name: &'static str,
    /// Smallest value over the orders.
    pub(crate) min: f64,
    /// Largest value.
    pub(crate) max: f64,
}

/// The headline figures over several tie orders.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct TieSpread {
    /// The orders run, the run's own first.
    pub(crate) orders: Vec<String>,
    /// Each headline figure's range over them.
    pub(crate) ranges: Vec<TieRange>,
}

impl TieSpread {
    /// The largest relative spread, `(max − min)/|min|`, over the figures.
    pub(crate) fn largest_relative(&self) -> f64 {
        self.ranges
            .iter()
            .map(|r| (r.max - r.min) / r.min.abs())
            .filter(|x| x.is_finite())
            .fold(0.0, f64::max)
    }
}

/// The runs the spread adds to a run's own (for its estimate): the [`OTHER_ORDERS`] when the
/// run is in virtual time (`in_virtual`) and they are cheap (`per_run_s` each), else none.
pub(crate) fn extra_runs(in_virtual: bool, per_run_s: f64) -> u32 {
    let n = OTHER_ORDERS.len() as u32;
    let cheap = per_run_s.is_finite() && per_run_s * f64::from(n) <= CHEAP_S;
    if in_virtual && cheap { n } else { 0 }
}

/// The spread of `e`'s headline figures on `topology` over its own run (`first`) and the
/// [`OTHER_ORDERS`], each run once with the same seed; `None` unless the machine runs in
/// virtual time and the extra runs are cheap (`per_run_s` each).
pub(crate) fn tie_spread<E: Experiment>(
    machine: &MachinePlan,
    topology: &Topology,
    e: &E,
    first: &E::Outcome,
    per_run_s: f64,
) -> Result<Option<TieSpread>> {
    if extra_runs(true, per_run_s) == 0 {
        return Ok(None);
    }
    let mut values = vec![E::headline(first)];
    let mut orders = vec![machine.ties.to_string()];
    for ties in OTHER_ORDERS.into_iter().filter(|&t| t != machine.ties) {
        let mut plan = machine.clone();
        plan.ties = ties;
        let m = plan.machine(topology.clone(), &e.hints(topology)?)?;
        if !m.spec().time.is_virtual() {
            return Ok(None);
        }
        values.push(E::headline(&e.run(&m)?));
        orders.push(ties.to_string());
    }
    let ranges = values[0]
        .iter()
        .enumerate()
        .map(|(i, &(name, _))| {
            let all = values.iter().filter_map(|v| v.get(i).map(|x| x.1));
            TieRange {
                name,
                min: all.clone().fold(f64::INFINITY, f64::min),
                max: all.fold(f64::NEG_INFINITY, f64::max),
            }
        })
        .collect();
    Ok(Some(TieSpread { orders, ranges }))
}
