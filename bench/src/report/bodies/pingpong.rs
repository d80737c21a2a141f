//! `pingpong`: the runtime's per-message cost against a bare ping-pong.

use multicomputer_workloads::repetitions::Summary;
use serde::Serialize;

use crate::report::{Block, Body, Section, Table};
use crate::units::human_ns;

/// What `pingpong` reports.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PingpongReport {
    /// Round trips per measurement.
    pub(crate) round_trips: u64,
    /// Measurements of each.
    pub(crate) repeat: u32,
    /// Discarded measurements before them.
    pub(crate) warmup: u32,
    /// Median one-way time of a bare crossbeam bounded(1) ping-pong, ns.
    pub(crate) bare_one_way_ns: f64,
    /// Median one-way time of a runtime send/receive (native, spinning, no emulated cost), ns.
    pub(crate) runtime_one_way_ns: f64,
    /// runtime / bare.
    pub(crate) ratio: f64,
    /// Every bare measurement, ns.
    pub(crate) bare_samples_ns: Vec<f64>,
    /// Every runtime measurement, ns.
    pub(crate) runtime_samples_ns: Vec<f64>,
    /// Mean ± sd, min, max of the bare measurements.
    pub(crate) bare: Option<Summary>,
    /// Mean ± sd, min, max of the runtime measurements.
    pub(crate) runtime: Option<Summary>,
}

fn spread(s: Option<Summary>) -> [String; 2] {
    match s {
        Some(s) => [
            match s.sd {
                Some(sd) => format!("{} ± {}", human_ns(s.mean), human_ns(sd)),
                None => human_ns(s.mean),
            },
            format!("{} – {}", human_ns(s.min), human_ns(s.max)),
        ],
        None => ["n/a".into(), "n/a".into()],
    }
}

impl Body for PingpongReport {
    fn title(&self) -> String {
        "Per-message cost: runtime against bare crossbeam".into()
    }

    fn results(&self) -> Vec<Section> {
        let mut t = Table::new(&[
            "one-way message",
            "median",
            "mean ± sd",
            "min – max",
            "ratio",
        ]);
        let [bm, br] = spread(self.bare);
        let [rm, rr] = spread(self.runtime);
        t.row(vec![
            "bare crossbeam bounded(1), spinning".into(),
            human_ns(self.bare_one_way_ns),
            bm,
            br,
            "1.00".into(),
        ])
        .row(vec![
            "runtime send/recv, native spin".into(),
            human_ns(self.runtime_one_way_ns),
            rm,
            rr,
            format!("{:.2}", self.ratio),
        ]);
        vec![Section::results(
            "One-way message time",
            vec![
                Block::Table(t),
                Block::Text(format!(
                    "{} measurements of {} round trips each, alternating, after {} warm-up; \
                     times depend on this host's load.",
                    self.repeat, self.round_trips, self.warmup
                )),
            ],
        )]
    }
}
