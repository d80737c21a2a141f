//! `calibrate`: this host's costs.

use multicomputer_runtime::MachineProfile;
use serde::Serialize;

use crate::plan::wait_name;
use crate::report::{Block, Body, Section, Table};
use crate::units::human_ns;

/// The host's profile (its keys at the top level, as `calibrate --json` always printed).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CalibrateReport {
    /// The profile.
    #[serde(flatten)]
    pub(crate) profile: MachineProfile,
}

impl CalibrateReport {
    /// The two tables: costs, and occupy errors by strategy.
    pub(crate) fn tables(&self) -> Vec<Block> {
        let p = &self.profile;
        let mut t = Table::new(&["quantity", "value"]);
        for (name, v) in [
            ("clock read (Instant::now)", p.clock_read_ns),
            ("thread CPU-time read", p.cpu_time_read_ns),
            ("message one-way, spinning", p.message_spin_ns),
            ("message one-way, receiver parked", p.message_parked_ns),
            ("wake-up lateness of a 1 ms sleep", p.wakeup_ns),
            ("CPU time of one sleep/wake cycle", p.wake_cpu_ns),
            ("busy loop, per iteration", p.loop_ns_per_iteration),
            ("coroutine switch (virtual time)", p.coroutine_switch_ns),
        ] {
            t.row(vec![name.into(), human_ns(v)]);
        }
        for (unit, ns) in &p.unit_costs {
            t.row(vec![format!("work unit: {unit}"), format!("{ns:.3} ns")]);
        }
        t.rows.insert(
            0,
            vec!["host".into(), format!("{} ({} cores)", p.host, p.cores)],
        );
        let mut o = Table::new(&["strategy", "target", "median error", "p99 error"]);
        for e in &p.occupy {
            o.row(vec![
                wait_name(e.strategy).into(),
                human_ns(e.target_ns as f64),
                human_ns(e.median_error_ns),
                human_ns(e.p99_error_ns),
            ]);
        }
        vec![Block::Table(t), Block::Table(o)]
    }
}

impl Body for CalibrateReport {
    fn title(&self) -> String {
        format!("Costs of host {}", self.profile.host)
    }

    fn results(&self) -> Vec<Section> {
        vec![Section::results("Costs of this host", self.tables())]
    }
}
