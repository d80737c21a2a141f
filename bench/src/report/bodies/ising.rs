//! `ising`: one run of the scalability paper's program.

use multicomputer_workloads::ising::{Estimate, IsingMeasurement};
use serde::Serialize;

use crate::report::{Block, Body, Repetitions, Section, Table};
use crate::units::human_s;

/// What `ising` reports (the last run, and every run's times for several).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct IsingReport {
    /// The (last) run.
    #[serde(flatten)]
    pub(crate) run: IsingMeasurement,
    /// Mean ± sd, min and max over the runs, for several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) repetitions: Option<Repetitions>,
}

fn estimate(e: &Estimate) -> String {
    if e.std_error.is_finite() {
        format!("{:.5} ± {:.5}", e.mean, e.std_error)
    } else {
        format!("{:.5}", e.mean)
    }
}

impl Body for IsingReport {
    fn title(&self) -> String {
        let r = &self.run;
        format!(
            "ising {}D L = {} on {} processors, {} mechanism",
            r.dimension.d(),
            r.size,
            r.processors,
            r.mechanism
        )
    }

    fn results(&self) -> Vec<Section> {
        let r = &self.run;
        let exact = |f: fn(&multicomputer_workloads::ising::ExactValues) -> f64| {
            r.exact_2d
                .as_ref()
                .map_or(String::new(), |e| format!("{:.5}", f(e)))
        };
        let mut t = Table::new(&["quantity", "value", "exact (2D, L = ∞)"]);
        t.row(vec![
            "run time T (emulated)".into(),
            human_s(r.run_time_s),
            String::new(),
        ])
        .row(vec![
            "⟨|m|⟩ per spin".into(),
            estimate(&r.abs_magnetisation),
            exact(|e| e.abs_magnetisation),
        ])
        .row(vec![
            "⟨m⟩ per spin".into(),
            estimate(&r.magnetisation),
            String::new(),
        ])
        .row(vec![
            "⟨e⟩ per spin".into(),
            estimate(&r.energy),
            exact(|e| e.energy),
        ])
        .row(vec![
            "acceptance ratio".into(),
            format!("{:.4}", r.acceptance_ratio),
            String::new(),
        ])
        .row(vec!["samples".into(), r.samples.to_string(), String::new()])
        .row(vec![
            "messages (all / processor 0)".into(),
            format!("{} / {}", r.messages_sent, r.root_messages_sent),
            String::new(),
        ])
        .row(vec![
            "sample time emulated / native".into(),
            format!(
                "{} / {} ({:+.2} %)",
                human_s(r.emulated_sample_s),
                human_s(r.native_sample_s),
                r.sample_time_error_pct
            ),
            String::new(),
        ])
        .row(vec![
            "ideal run time, Φ_s, speedup".into(),
            format!(
                "{}, {:.3}, {:.2}",
                human_s(r.ideal_run_time_s),
                r.system_overhead,
                r.speedup
            ),
            String::new(),
        ]);
        let mut blocks = vec![
            Block::Text(format!(
                "ising {}D L={} T={} ({} T_c), {} processors, {} mechanism, loop_count {}",
                r.dimension.d(),
                r.size,
                r.temperature,
                if r.temperature < r.critical_temperature {
                    "below"
                } else {
                    "above"
                },
                r.processors,
                r.mechanism,
                r.loop_count
            )),
            Block::Table(t),
            Block::Text(format!(
                "{}, wall {:.2} s{}{}",
                crate::units::time_text(r.mode, r.dilation),
                r.wall_s,
                crate::units::lateness_text(&r.fidelity),
                match r.verified {
                    Some(true) => "; equal to the sequential reference",
                    _ => "",
                }
            )),
        ];
        if let Some(rep) = &self.repetitions {
            blocks.extend(rep.blocks("the native sample time is measured around each of"));
        }
        vec![Section::results("Run", blocks)]
    }
}
