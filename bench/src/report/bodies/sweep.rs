//! `sweep farm` and `sweep dnc`: one row per cell, every column in the CSV, and the plots of
//! `sweep_plots`.

use anyhow::Result;
use multicomputer_runtime::Topology;
use multicomputer_workloads::farm::TreeShape;
use multicomputer_workloads::repetitions::Summary;
use multicomputer_workloads::tree::Comparison;
use serde::Serialize;

use super::farm::{TreeRun, bound_name};
use super::sweep_plots::SweepPlots;
use super::sweep_row::SweepRow;
use crate::exec::Runs;
use crate::plan::SweepPlan;
use crate::report::{
    Block, Body, Figure, FolderFiles, Meta, ProfileUse, Report, Section, Table, Traced, csv, worst,
};
use crate::units::human_s;

/// What a sweep's cell was run with.
#[derive(Debug, Clone)]
pub(crate) struct CellInputs {
    /// The topology.
    pub(crate) topology: Topology,
    /// T_e (whole task for dnc), seconds.
    pub(crate) te_s: f64,
    /// Task-time distribution (farm) or split kind (dnc).
    pub(crate) times: &'static str,
    /// Tasks per message.
    pub(crate) granularity: u32,
    /// M.
    pub(crate) tasks: u64,
    /// T_τ, seconds.
    pub(crate) tau_s: f64,
    /// β_e, seconds.
    pub(crate) beta_e_s: f64,
    /// β_f, seconds.
    pub(crate) beta_f_s: f64,
    /// Queue per processor.
    pub(crate) queue: u64,
    /// Model-guided flow control.
    pub(crate) guided: bool,
}

impl CellInputs {
    /// A farm cell's inputs.
    pub(crate) fn farm(c: &crate::plan::FarmCell) -> Self {
        let e = &c.experiment;
        Self {
            topology: c.topology.clone(),
            te_s: e.spec.te.as_secs_f64(),
            times: crate::plan::times_name(e.spec.times),
            granularity: e.spec.granularity as u32,
            tasks: e.spec.tasks as u64,
            tau_s: e.tau_s,
            beta_e_s: e.beta_e.as_secs_f64(),
            beta_f_s: e.beta_f.as_secs_f64(),
            queue: e.queue as u64,
            guided: e.guided,
        }
    }

    /// A divide-and-conquer cell's inputs (its split kind in `times`).
    pub(crate) fn dnc(c: &crate::plan::DncCell) -> Self {
        let e = &c.experiment;
        Self {
            topology: c.topology.clone(),
            te_s: e.te.as_secs_f64(),
            times: match e.kernel {
                multicomputer_workloads::dnc::DncKernel::Synthetic { splitting } => {
                    crate::plan::splitting_name(splitting)
                }
                multicomputer_workloads::dnc::DncKernel::Mergesort { .. } => "mergesort",
            },
            granularity: 1,
            tasks: e.tasks as u64,
            tau_s: e.tau_s,
            beta_e_s: e.beta_e.as_secs_f64(),
            beta_f_s: e.beta_f.as_secs_f64(),
            queue: e.queue as u64,
            guided: false,
        }
    }
}

/// The rows of a sweep: each cell's mean measurement beside its prediction, with the
/// spread of its runs.
pub(crate) fn sweep_rows<T: TreeRun>(cells: &[CellInputs], runs: &[Runs<T>]) -> Vec<SweepRow> {
    cells
        .iter()
        .zip(runs)
        .filter_map(|(cell, r)| {
            let c = Comparison::combine(r.runs.iter().map(TreeRun::comparison))?;
            let drain = r.runs.last()?.drain();
            let speedups: Vec<f64> = r
                .runs
                .iter()
                .map(|x| x.comparison().measured.speedup)
                .collect();
            let steady: Vec<f64> = r
                .runs
                .iter()
                .map(|x| x.comparison().measured.steady_throughput_per_s)
                .collect();
            let s = Summary::of(&speedups);
            let (k, levels) = match TreeShape::of(&cell.topology) {
                Some(t) => (t.k, t.levels),
                None => (0, cell.topology.levels()),
            };
            let flood_fill = drain.and_then(|d| d.flood_fill.as_ref());
            Some(SweepRow {
                topology: cell.topology.to_string(),
                k,
                levels,
                processors: cell.topology.len(),
                te_s: cell.te_s,
                times: cell.times.into(),
                granularity: cell.granularity,
                tasks: cell.tasks,
                tau_s: cell.tau_s,
                beta_e_s: cell.beta_e_s,
                beta_f_s: cell.beta_f_s,
                queue: cell.queue,
                guided: cell.guided,
                runs: r.runs.len(),
                measured_throughput_per_s: c.measured.throughput_per_s,
                steady_throughput_per_s: c.measured.steady_throughput_per_s,
                steady_throughput_sd_per_s: Summary::of(&steady).and_then(|s| s.sd),
                predicted_throughput_per_s: c.predicted.throughput_per_s,
                measured_speedup: c.measured.speedup,
                measured_speedup_sd: s.and_then(|s| s.sd),
                measured_speedup_min: s.map_or(f64::NAN, |s| s.min),
                measured_speedup_max: s.map_or(f64::NAN, |s| s.max),
                predicted_speedup: c.predicted.speedup,
                measured_makespan_s: c.measured.makespan_s,
                predicted_makespan_s: c.predicted.makespan_s,
                error_pct: c.error_pct,
                drain_s: drain.map_or(0.0, |d| d.drain_s),
                speedup_error_floor_pct: drain.map_or(0.0, |d| d.speedup_error_floor_pct),
                flood_fill_drain_s: flood_fill.map(|f| f.drain_s),
                flood_fill_error_pct: flood_fill.map(|f| f.error_pct),
                flood_fill_error_sd_pct: flood_fill.map(|f| f.error_sd_pct),
                steady_throughput_error_pct: c.errors_pct.steady_throughput,
                max_fraction_error_pct_of_m: c.errors_pct.max_fraction_of_m(),
                bound: bound_name(c.predicted.bound).into(),
                dilation: c.dilation,
                late_waits: c.fidelity.late_waits,
                waits: c.fidelity.waits,
                wall_s: c.wall_s,
            })
        })
        .collect()
}

/// The report of a farm or divide-and-conquer sweep (`kind`) run as `command`, with the
/// table its run folder holds beside the plots and the report (`rows.csv`).
pub(crate) fn sweep_report<E, T: TreeRun + Traced>(
    command: &str,
    kind: &'static str,
    plan: &SweepPlan<E>,
    inputs: &[CellInputs],
    cells: &[Runs<T>],
    seed: u64,
) -> Result<(Report<SweepReport>, FolderFiles)> {
    let profile = ProfileUse::Read(plan.machine.profile.as_ref());
    let meta = Meta::new(command, plan.inputs(), profile)
        .seed(seed)
        .cells(&plan.machine, cells.iter().map(|c| &c.ran))
        // The worst cell's fidelity, with its warning if it was poor.
        .fidelity(worst(cells.iter().flat_map(|c| &c.runs))?);
    let rows = sweep_rows(inputs, cells);
    let table = csv::rows(&rows)?;
    let report = Report::new(meta, SweepReport { kind, rows });
    Ok((report, vec![("rows.csv".into(), table)]))
}

/// What `sweep farm` and `sweep dnc` report.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SweepReport {
    /// `farm` or `dnc`.
    #[serde(skip)]
    pub(crate) kind: &'static str,
    /// One row per cell.
    pub(crate) rows: Vec<SweepRow>,
}

impl SweepReport {
    /// The table people read.
    pub(crate) fn table(&self) -> Table {
        let mut t = Table::new(&[
            "topology",
            "P",
            "T_e",
            if self.kind == "dnc" { "split" } else { "times" },
            "g",
            "speedup meas.",
            "pred.",
            "error",
            "f error (% of M)",
            "D",
        ]);
        for r in &self.rows {
            t.row(vec![
                r.topology.clone(),
                r.processors.to_string(),
                human_s(r.te_s),
                r.times.clone(),
                r.granularity.to_string(),
                match r.measured_speedup_sd {
                    Some(sd) => format!("{:.3} ± {sd:.3}", r.measured_speedup),
                    None => format!("{:.3}", r.measured_speedup),
                },
                format!("{:.3}", r.predicted_speedup),
                format!("{:+.2} %", r.error_pct),
                format!("{:.2}", r.max_fraction_error_pct_of_m),
                r.dilation.map_or("virtual".into(), |d| d.to_string()),
            ]);
        }
        t
    }
}

impl Body for SweepReport {
    fn title(&self) -> String {
        format!(
            "sweep {}: {} cells measured beside the model",
            self.kind,
            self.rows.len()
        )
    }

    fn results(&self) -> Vec<Section> {
        let worst = self
            .rows
            .iter()
            .fold(0.0_f64, |m, r| m.max(r.error_pct.abs()));
        vec![Section::results(
            "Cells",
            vec![
                Block::Table(self.table()),
                Block::Text(format!(
                    "{} cells; largest |speedup error| {:.2} %",
                    self.rows.len(),
                    worst
                )),
            ],
        )]
    }

    fn figures(&self) -> Result<Vec<Figure>> {
        SweepPlots::new(self.kind, &self.rows).figures()
    }

    fn plots_first(&self) -> bool {
        true
    }

    fn csv(&self) -> Result<Option<Vec<u8>>> {
        csv::rows(&self.rows).map(Some)
    }
}
