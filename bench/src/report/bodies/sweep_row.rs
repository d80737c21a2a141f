//! A sweep's cell as one flat row (the CSV that `fit farm` reads back, and what the plots of
//! `sweep_plots` draw), and the family a topology is grouped in.

use multicomputer_runtime::{Topology, TopologyKind};
use serde::Serialize;

/// One cell of a sweep: a flat row for CSV (what `fit farm` reads back).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SweepRow {
    pub(crate) topology: String,
    pub(crate) k: u32,
    pub(crate) levels: u32,
    pub(crate) processors: usize,
    pub(crate) te_s: f64,
    pub(crate) times: String,
    pub(crate) granularity: u32,
    pub(crate) tasks: u64,
    pub(crate) tau_s: f64,
    pub(crate) beta_e_s: f64,
    pub(crate) beta_f_s: f64,
    pub(crate) queue: u64,
    pub(crate) guided: bool,
    /// Measured runs of the cell.
    pub(crate) runs: usize,
    pub(crate) measured_throughput_per_s: f64,
    pub(crate) steady_throughput_per_s: f64,
    /// Standard deviation of the steady throughput over the runs (empty for one run).
    pub(crate) steady_throughput_sd_per_s: Option<f64>,
    pub(crate) predicted_throughput_per_s: f64,
    /// The mean over the runs.
    pub(crate) measured_speedup: f64,
    /// Standard deviation over the runs (empty for one run).
    pub(crate) measured_speedup_sd: Option<f64>,
    pub(crate) measured_speedup_min: f64,
    pub(crate) measured_speedup_max: f64,
    pub(crate) predicted_speedup: f64,
    pub(crate) measured_makespan_s: f64,
    pub(crate) predicted_makespan_s: f64,
    pub(crate) error_pct: f64,
    /// The drain at the end that (g) leaves out (random task times; 0 otherwise).
    pub(crate) drain_s: f64,
    /// Speedup error against (g) of a run with nothing but that drain, percent (≤ 0).
    pub(crate) speedup_error_floor_pct: f64,
    /// The flood-fill protocol's drain, sampled (random times, flood fill; empty otherwise).
    pub(crate) flood_fill_drain_s: Option<f64>,
    /// The speedup error against (g) that it implies, percent (empty otherwise).
    pub(crate) flood_fill_error_pct: Option<f64>,
    /// Standard deviation of a single run's error from that drain, percent (empty otherwise).
    pub(crate) flood_fill_error_sd_pct: Option<f64>,
    pub(crate) steady_throughput_error_pct: f64,
    pub(crate) max_fraction_error_pct_of_m: f64,
    pub(crate) bound: String,
    pub(crate) dilation: Option<f64>,
    pub(crate) late_waits: u64,
    pub(crate) waits: u64,
    pub(crate) wall_s: f64,
}

/// The family of a topology as a plot groups it: `chain`, `array`, `binary`, `tree:K`, or
/// the parent relation itself.
pub(crate) fn family(topology: &str) -> String {
    match topology.parse::<Topology>().map(|t| t.kind().clone()) {
        Ok(TopologyKind::Chain { .. }) => "chain".into(),
        Ok(TopologyKind::Array { .. }) => "array".into(),
        Ok(TopologyKind::Tree { arity: 2, .. }) => "binary".into(),
        Ok(TopologyKind::Tree { arity, .. }) => format!("tree:{arity}"),
        _ => topology.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_keep_arities_apart() {
        assert_eq!(family("chain:4"), "chain");
        assert_eq!(family("binary:3"), "binary");
        assert_eq!(family("tree:2:3"), "binary");
        assert_eq!(family("tree:3:2"), "tree:3");
    }
}
