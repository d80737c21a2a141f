//! Repeated runs in a report: each quantity's mean ± sd, minimum and maximum.

use multicomputer_workloads::repetitions::{Quantities, QuantitySummary, summarise};
use serde::Serialize;

use super::document::Table;
use crate::plan::Repeat;
use crate::units::human_s;

/// The summary of repeated runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Repetitions {
    /// Measured runs.
    pub(crate) runs: u32,
    /// Discarded warm-up runs.
    pub(crate) warmup: u32,
    /// Each quantity over the measured runs.
    pub(crate) quantities: Vec<QuantitySummary>,
}

impl Repetitions {
    /// The summary of `runs`, or `None` for a single run with no warm-up.
    pub(crate) fn of<T: Quantities>(r: Repeat, runs: &[T]) -> Option<Self> {
        (r != Repeat::ONCE).then(|| Self {
            runs: r.runs,
            warmup: r.warmup,
            quantities: summarise(runs),
        })
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
