//! A user's own program published as the commands publish theirs: its sweep and fit become a
//! report (JSON, CSV, an HTML page and SVG plots) in a run folder of its own.

use std::path::{Path, PathBuf};

use multicomputer_workloads::experiment::{Fit, Sweep};
use multicomputer_workloads::tree::worst_fidelity;
use thiserror::Error;

use crate::plan::{Inputs, RunFolderPlan};
use crate::report::{Meta, ProfileUse, ProgramReport, Report};

/// Why a report could not be published; nothing of it was written.
#[derive(Debug, Error)]
pub enum PublishError {
    /// The experiment's name or the folder cannot hold a run folder.
    #[error("{0}")]
    Refused(String),
    /// Rendering or writing the report failed.
    #[error("publishing the report: {0:#}")]
    Write(#[from] anyhow::Error),
}

/// Publishes `sweep` (and its `fit`, if made) as the run folder `<out>/<name>/<run>/`, the
/// name being the experiment's: `report.json` (the sweep's points, every run's makespan, the
/// fit), `report.csv` (a row per point), `report.html` (a page with the tables and plots),
/// `makespan.svg` (measured beside the model against P) and, with a fit, `residuals.svg`.
///
/// The folder is written under a temporary name and renamed whole, with `<out>/<name>/latest`
/// pointing at it, so a reader never sees part of a run. The experiment's name must be a
/// plain file name (letters, digits, `-`, `_`, `.`). Returns the published folder.
pub fn publish(out: &Path, sweep: &Sweep, fit: Option<&Fit>) -> Result<PathBuf, PublishError> {
    let folder = RunFolderPlan::new(out, &sweep.name).map_err(|e| {
        let what = if e.flag == "--name" {
            "the experiment's name"
        } else {
            "the results folder"
        };
        PublishError::Refused(format!("{what}: {}", e.message))
    })?;
    let mut report = Report::new(
        meta(sweep),
        ProgramReport {
            sweep: sweep.clone(),
            fit: fit.cloned(),
        },
    );
    let csv = report.export(crate::plan::Format::Csv)?;
    Ok(report.publish_folder(&folder, vec![("report.csv".into(), csv)])?)
}

/// The report's metadata: the sweep's inputs, how its first machine ran, the worst fidelity
/// of its runs.
fn meta(sweep: &Sweep) -> Meta {
    let mut inputs = Inputs::new();
    let processors: Vec<String> = sweep
        .points
        .iter()
        .map(|p| p.processors.to_string())
        .collect();
    inputs
        .add("program", &sweep.name)
        .add("processors", processors.join(","))
        .add("runs", sweep.runs)
        .add("warmup", sweep.warmup);
    let topologies: Vec<&str> = sweep.points.iter().map(|p| p.topology.as_str()).collect();
    inputs.add("topologies", topologies.join(","));
    for p in &sweep.parameters {
        inputs.add(&p.name, format!("{:e}", p.value));
    }
    let mut meta = Meta::new("program", inputs, ProfileUse::NotUsed).seed(sweep.seed);
    if let Some(first) = sweep.points.first() {
        meta = meta.resolved("as configured", first.machine.spec(), "");
    }
    let reports = sweep.points.iter().flat_map(|p| &p.reports);
    if let Some(f) = worst_fidelity(reports.map(|r| &r.fidelity)) {
        meta = meta.fidelity(f);
    }
    meta
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use multicomputer_runtime::{MachineConfig, Processor, TimeMode, Topology};
    use multicomputer_workloads::experiment::{Experiment, Model};

    use super::*;

    /// A chain of P processors, each occupying 1 ms, in virtual time: `T = 1 ms`.
    fn sweep(name: &str) -> Sweep {
        let config = MachineConfig {
            mode: TimeMode::Virtual,
            ..MachineConfig::default()
        };
        let model = Model::new(&[("t_s", 1e-3)], |_, theta| theta[0]).unwrap();
        let program = |machine: &multicomputer_runtime::Machine, _| {
            let record = machine.run(|p: &mut Processor<()>| {
                p.occupy(Duration::from_millis(1));
                Ok(())
            })?;
            Ok(record.report)
        };
        Experiment::new(name, Topology::chain, config, program, model)
            .sweep([1, 2])
            .unwrap()
    }

    #[test]
    fn a_sweep_is_published_whole_with_its_report_and_plots() {
        let out = tempfile::tempdir().unwrap();
        let folder = publish(out.path(), &sweep("occupy"), None).unwrap();
        assert_eq!(folder.parent().unwrap(), out.path().join("occupy"));
        for file in ["report.json", "report.csv", "report.html", "makespan.svg"] {
            assert!(folder.join(file).is_file(), "{file}");
        }
        // No fit: no residuals.
        assert!(!folder.join("residuals.svg").exists());
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(folder.join("report.json")).unwrap()).unwrap();
        assert_eq!(json["meta"]["command"], "program");
        assert_eq!(json["sweep"]["points"][1]["processors"], 2);
        assert_eq!(json["sweep"]["points"][1]["error_pct"], 0.0);
        let csv = std::fs::read_to_string(folder.join("report.csv")).unwrap();
        assert!(csv.starts_with("processors,topology,mode,runs,"), "{csv}");
    }

    #[test]
    fn a_name_that_is_no_plain_file_name_is_refused_and_nothing_is_written() {
        let out = tempfile::tempdir().unwrap();
        for name in ["my program", "../up", ".hidden", ""] {
            let e = publish(out.path(), &sweep(name), None).unwrap_err();
            assert!(matches!(e, PublishError::Refused(_)), "{name}: {e}");
            assert!(e.to_string().starts_with("the experiment's name"), "{e}");
        }
        assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);
    }
}
