//! `emulate`: emulated against wall time, dilation and fidelity.

use multicomputer_workloads::synthetic::{PholdOutcome, SyntheticComparison};
use serde::Serialize;

use crate::plan::wait_name;
use crate::report::{Block, Body, Repetitions, Section, Table};
use crate::units::{human_ns, human_s, time_text};

/// What `emulate` reports (the last run, and every run's times for several).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct EmulateReport {
    /// The (last) run beside its expectation.
    #[serde(flatten)]
    pub(crate) run: SyntheticComparison,
    /// Mean ± sd, min and max over the runs, for several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) repetitions: Option<Repetitions>,
}

impl EmulateReport {
    /// The results table.
    pub(crate) fn table(&self) -> Table {
        let r = &self.run;
        let f = &r.report.fidelity;
        let mut t = Table::new(&["quantity", "value"]);
        t.row(vec![
            "topology".into(),
            format!("{} ({} processors)", r.topology, r.processors),
        ])
        .row(vec![
            "mode".into(),
            match f.strategy {
                Some(w) => format!("{}, {} waits", time_text(&r.mode, r.dilation), wait_name(w)),
                None => time_text(&r.mode, r.dilation),
            },
        ])
        .row(vec!["emulated makespan".into(), human_s(r.makespan_s)]);
        if let Some(p) = &r.phold {
            phold_rows(&mut t, p);
        }
        if let (Some(e), Some(err)) = (r.expected_makespan_s, r.error_pct) {
            t.row(vec![
                "expected (rounds × occupy)".into(),
                format!("{} ({err:+.3} %)", human_s(e)),
            ]);
        }
        t.row(vec!["wall time".into(), human_s(r.wall_s)]);
        if let Some(w) = r.wall_over_dilation_s {
            t.row(vec!["wall time / D".into(), human_s(w)]);
        }
        if let (Some(sim), Some(rate)) = (&r.report.sim, r.report.wall.events_per_s) {
            t.row(vec![
                "events (virtual time)".into(),
                format!(
                    "{} ({} messages, {} timed waits): {:.2} M events/s of wall time",
                    sim.events,
                    sim.messages_delivered,
                    sim.timed_waits,
                    rate / 1e6
                ),
            ]);
        }
        if let Some(parts) = &r.report.parts {
            t.row(vec!["partitioned virtual time".into(), parts.to_string()]);
        }
        if !f.exact {
            t.row(vec![
                "late waits".into(),
                format!(
                    "{} of {} (> {} emulated)",
                    f.late_waits,
                    f.waits,
                    human_ns(f.tolerance_ns as f64)
                ),
            ])
            .row(vec![
                "lateness mean / p99 / max".into(),
                format!(
                    "{} / {} / {}",
                    human_ns(f.mean_lateness_ns),
                    human_ns(f.p99_lateness_ns as f64),
                    human_ns(f.max_lateness_ns as f64)
                ),
            ]);
        }
        t.row(vec![
            "messages".into(),
            r.report.totals.messages_sent.to_string(),
        ]);
        t
    }
}

/// PHOLD's events, rate and checks.
fn phold_rows(t: &mut Table, p: &PholdOutcome) {
    let rate = p.events_per_s.map_or(String::new(), |r| {
        format!(": {:.2} M events/s of wall time", r / 1e6)
    });
    let reference = match p.matches_reference {
        Some(true) => format!(
            "equal: {} events, digest {}",
            p.reference_events, p.reference_digest
        ),
        Some(false) => format!(
            "DIFFERENT: {} events, digest {} (please report this)",
            p.reference_events, p.reference_digest
        ),
        None => format!(
            "not comparable: {} events ran late (a start-up or receive cost, or a full link)",
            p.late
        ),
    };
    t.row(vec![
        "PHOLD events".into(),
        format!("{}{rate} (digest {})", p.events, p.digest),
    ])
    .row(vec!["sequential reference".into(), reference])
    .row(vec![
        "population left at the horizon".into(),
        format!(
            "{} ({})",
            p.left,
            if p.conserved {
                "conserved"
            } else {
                "NOT conserved: events lost"
            }
        ),
    ]);
}

impl Body for EmulateReport {
    fn title(&self) -> String {
        format!(
            "Emulated {} ({} processors), {} pattern",
            self.run.topology, self.run.processors, self.run.pattern
        )
    }

    fn results(&self) -> Vec<Section> {
        let mut blocks = vec![Block::Table(self.table())];
        if let Some(r) = &self.repetitions {
            blocks.extend(r.blocks("measured over"));
        }
        vec![Section::results("Emulated against wall time", blocks)]
    }
}
