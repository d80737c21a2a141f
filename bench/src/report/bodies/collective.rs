//! `collective`: one collective operation measured beside its α–β–γ model.

use multicomputer_workloads::collectives::CollectiveComparison;
use serde::Serialize;

use crate::report::{Block, Body, Repetitions, Section, Table};
use crate::units::{human_ns, human_s, time_text};

/// What `collective` reports (the last run, and every run's times for several).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CollectiveReport {
    /// The (last) run beside its model.
    #[serde(flatten)]
    pub(crate) run: CollectiveComparison,
    /// Mean ± sd, min and max over the runs, for several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) repetitions: Option<Repetitions>,
}

impl CollectiveReport {
    /// The results table.
    pub(crate) fn table(&self) -> Table {
        let r = &self.run;
        let mut t = Table::new(&["quantity", "value"]);
        t.row(vec![
            "collective".into(),
            format!(
                "{} by {}, {} B a processor",
                r.spec.operation.name(),
                r.spec.algorithm.name(),
                r.bytes
            ),
        ])
        .row(vec![
            "network".into(),
            format!(
                "{} ({} processors), {} routing",
                r.topology, r.processors, r.switching
            ),
        ])
        .row(vec![
            "mode".into(),
            time_text(r.report.time.name(), r.report.time.dilation()),
        ])
        .row(vec![
            "measured makespan".into(),
            human_s(r.measured.makespan_s),
        ])
        .row(vec![
            "model (α–β–γ)".into(),
            format!(
                "{} ({:+.3} %)",
                human_s(r.predicted.makespan_s),
                r.error_pct
            ),
        ])
        .row(vec![
            "messages".into(),
            r.report.totals.messages_sent.to_string(),
        ]);
        t
    }

    /// Why the measurement differs from the model, when it does.
    fn explanation(&self) -> Option<String> {
        let r = &self.run;
        if r.excess_ns == 0 {
            return None;
        }
        Some(if r.report.fidelity.exact {
            format!(
                "The measurement is {} {} the model: in virtual time the model is exact unless \
                 messages queue on links their routes share (contention, which the model leaves \
                 out), or partners of one step are not all equally far apart (the model charges \
                 each step for its farthest pair). {} by {} suits a network on which every \
                 partner is a neighbour.",
                human_ns(r.excess_ns.unsigned_abs() as f64),
                if r.excess_ns > 0 { "above" } else { "below" },
                r.spec.operation.name(),
                r.spec.algorithm.name()
            )
        } else {
            "In native and dilated time the measurement includes the host's lateness (see the \
             run's fidelity); virtual time gives the model's exact conditions."
                .to_string()
        })
    }
}

impl Body for CollectiveReport {
    fn title(&self) -> String {
        format!(
            "{} by {} on {} ({} processors)",
            self.run.spec.operation.name(),
            self.run.spec.algorithm.name(),
            self.run.topology,
            self.run.processors
        )
    }

    fn results(&self) -> Vec<Section> {
        let mut blocks = vec![Block::Table(self.table())];
        if self.run.predicted.makespan_s == 0.0 && self.run.measured.makespan_s == 0.0 {
            blocks.push(Block::Warning(
                "every cost of this collective is zero (links are free by default), so it takes \
                 0 s and compares nothing: give the machine its costs, e.g. --send-overhead 10us \
                 --per-byte 1ns --latency 500ns --gamma 1ns"
                    .to_string(),
            ));
        }
        if let Some(why) = self.explanation() {
            blocks.push(Block::Text(why));
        }
        if let Some(r) = &self.repetitions {
            blocks.push(Block::Text(format!(
                "{} runs after {} warm-up:",
                r.runs, r.warmup
            )));
            blocks.push(Block::Table(r.table()));
        }
        vec![Section::results("Measured beside the model", blocks)]
    }
}
