//! The default tour: what `cargo run --release` with no arguments shows a new user, in well
//! under a minute.
//!
//! 1. Calibrate this host (its own message, wake-up and wait costs) and save the profile.
//! 2. Run a small processor-farm sweep on chains and binary trees and print measured beside
//!    predicted speedup, publishing CSV, JSON, plots and an HTML report in a run folder.
//! 3. Emulate more processors than the host has cores, to show dilation and fidelity.

use std::path::Path;

use anyhow::{Context, Result};
use multicomputer_runtime::{CalibrateOptions, calibrate};

use crate::args::TourArgs;
use crate::exec::{announce, calibration, cells, overhead, runs};
use crate::files::Publication;
use crate::plan::{LoadedProfile, TourPlan};
use crate::report::{
    CalibrateReport, CellInputs, EmulateReport, Meta, ProfileUse, Report, TourReport, sweep_report,
};

pub(crate) fn run(a: &TourArgs, out: &Path) -> Result<()> {
    let mut plan = TourPlan::new(a, out)?;
    let quiet = plan.output.json;
    let say = |s: &str| {
        if !quiet {
            eprintln!("{s}");
        }
    };
    say("multicomputer tour: an emulated transputer-style network on this host's threads.");
    // The tour's costs besides its runs (its calibration, start and pages) announced first;
    // its farms and its emulation announce their own.
    announce(
        "tour: calibration",
        calibration(plan.calibrate.samples, false).with_fixed(overhead(&plan.output, true)),
        &format!("{} samples of each wait", plan.calibrate.samples),
    );
    say("1. Calibrating this host ...");
    // Merged over the profile already there: `calibrate`'s unit costs survive the tour.
    let profile = plan.calibrate.to_save(calibrate(CalibrateOptions {
        samples: plan.calibrate.samples as usize,
    }));
    let mut files = Publication::new();
    files.stage(
        &plan.calibrate.profile,
        &serde_json::to_vec_pretty(&profile)?,
    )?;
    files.commit()?;
    // The next steps' auto mode uses the profile just measured.
    let loaded = LoadedProfile {
        path: plan.calibrate.profile.clone(),
        profile: profile.clone(),
    };
    plan.sweep.machine.profile = Some(loaded.clone());
    plan.emulate.machine.profile = Some(loaded.clone());

    say("2. Processor farms on chains and binary trees ...");
    let cells = cells(&plan.sweep, "tour: farms", 0.0)?;
    let inputs: Vec<CellInputs> = plan.sweep.cells.iter().map(CellInputs::farm).collect();
    let (mut farm_report, rows) =
        sweep_report("sweep farm", "farm", &plan.sweep, &inputs, &cells, 1)?;
    let folder = format!(
        "{}/",
        farm_report
            .publish_folder(&plan.sweep.folder, rows)?
            .display()
    );

    say("3. 64 emulated processors on this host's cores ...");
    let e = &plan.emulate;
    let runs = runs(&e.machine, &e.topology, &e.experiment, e.repeat, Some(0.0))?;
    let emulated = runs.runs.last().context("no run")?.clone();
    let mut meta = Meta::new("tour", plan.inputs(), ProfileUse::Written(&loaded))
        .ran(&plan.emulate.machine, &runs.ran)
        .fidelity(&emulated.report.fidelity);
    meta.files
        .push(plan.calibrate.profile.display().to_string());
    meta.files.push(folder.clone());
    let body = TourReport {
        profile: CalibrateReport {
            profile,
            measured_crossing: false,
        },
        farm: farm_report.body,
        emulate: EmulateReport {
            run: emulated,
            repetitions: None,
        },
        farm_folder: folder,
    };
    Report::new(meta, body).finish(&plan.output, Publication::new())
}
