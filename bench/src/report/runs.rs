//! Repeated runs in a report: each quantity's mean ± sd, minimum and maximum.

use multicomputer_workloads::repetitions::{Quantities, QuantitySummary, Scatter, summarise};
use serde::Serialize;

use super::document::{Block, Table};
use crate::plan::Repeat;
use crate::units::human_s;

/// The summary of repeated runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Repetitions {
    /// Measured runs.
    pub(crate) runs: u32,
    /// Discarded warm-up runs.
    pub(crate) warmup: u32,
    /// The seed of each measured run's random draws (`--seed` + run index; empty if the
    /// program draws none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) seeds: Vec<u64>,
    /// Each quantity over the measured runs.
    pub(crate) quantities: Vec<QuantitySummary>,
    /// Whether every run gave the same value of every quantity (virtual time, nothing drawn
    /// at random): the runs then say so once instead of showing ± 0.
    pub(crate) identical: bool,
    /// How scattered the headline figure (the first quantity) is over the measured runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) headline_scatter: Option<Scatter>,
}

impl Repetitions {
    /// The summary of `runs`, whose random draws came from `seeds` (empty if none), or `None`
    /// for a single run with no warm-up.
    pub(crate) fn of<T: Quantities>(r: Repeat, runs: &[T], seeds: &[u64]) -> Option<Self> {
        (r != Repeat::ONCE).then(|| {
            let quantities = summarise(runs);
            let identical = runs.len() > 1
                && quantities
                    .iter()
                    .all(|q| q.summary.is_none_or(|s| s.min == s.max));
            let headline: Vec<f64> = runs
                .iter()
                .filter_map(|run| run.quantities().first().map(|(_, v)| *v))
                .collect();
            Self {
                runs: r.runs,
                warmup: r.warmup,
                seeds: seeds.to_vec(),
                quantities,
                identical,
                headline_scatter: Scatter::of(&headline),
            }
        })
    }

    /// The headline figure's name and its replicates' scatter.
    pub(crate) fn headline(&self) -> Option<(&'static str, Scatter)> {
        Some((self.quantities.first()?.name, self.headline_scatter?))
    }

    /// The report's blocks about the runs: `intro` (e.g. `measured: the mean of`) and the
    /// table of each quantity, or one sentence when the runs are identical.
    pub(crate) fn blocks(&self, intro: &str) -> Vec<Block> {
        let runs = format!("{} runs after {} warm-up", self.runs, self.warmup);
        let seeds = match self.seeds.as_slice() {
            [] => String::new(),
            [first, .., last] => format!(" (seeds {first}..={last}: --seed + run index)"),
            [one] => format!(" (seed {one})"),
        };
        if self.identical {
            return vec![Block::Text(format!(
                "The {runs} are identical{seeds}: in virtual time a run is reproducible \
                 and this one draws nothing at random, so its figures are shown once \
                 (repeat it with --mode native or dilated to measure the host's spread)."
            ))];
        }
        vec![
            Block::Text(format!("{intro} {runs}{seeds}; each quantity:")),
            Block::Table(self.table()),
        ]
    }

    /// `quantity | mean ± sd | min | max`.
    pub(crate) fn table(&self) -> Table {
        let mut t = Table::new(&["quantity", "mean ± sd", "min", "max", "runs"]);
        for q in &self.quantities {
            let Some(s) = q.summary else {
                t.row(vec![
                    q.name.into(),
                    "n/a".into(),
                    String::new(),
                    String::new(),
                    "0".into(),
                ]);
                continue;
            };
            let f = |v: f64| value(q.name, v);
            t.row(vec![
                q.name.into(),
                match s.sd {
                    Some(sd) => format!("{} ± {}", f(s.mean), f(sd)),
                    None => f(s.mean),
                },
                f(s.min),
                f(s.max),
                s.runs.to_string(),
            ]);
        }
        t
    }
}

/// A value by its quantity's name: `…_per_s` a rate, `…_s` a duration, else a number.
pub(crate) fn value(name: &str, v: f64) -> String {
    if name.ends_with("_per_s") {
        format!("{v:.1} /s")
    } else if name.ends_with("_s") {
        human_s(v)
    } else if name.ends_with("_ns") {
        crate::units::human_ns(v)
    } else {
        format!("{v:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_follow_their_names() {
        assert_eq!(value("throughput_per_s", 1234.56), "1234.6 /s");
        assert_eq!(value("makespan_s", 0.0015), "1.500 ms");
        assert_eq!(value("speedup", 2.0), "2.0000");
    }
}
