//! `multicomputer calibrate`: this host's intrinsic costs, saved as its machine profile.

use std::path::Path;

use anyhow::Result;
use multicomputer_runtime::{CalibrateOptions, calibrate, calibrate_link};
use multicomputer_workloads::speedup::OtherLoad;
use multicomputer_workloads::unit_costs::measure_unit_costs;

use crate::args::CalibrateArgs;
use crate::exec::{announce, calibration, overhead};
use crate::files::Publication;
use crate::plan::{CalibratePlan, LoadedProfile};
use crate::report::{CalibrateReport, Meta, ProfileUse, Report};
use crate::tuning::UNIT_COST_REPEATS;

pub(crate) fn run(a: &CalibrateArgs, out: &Path) -> Result<()> {
    let plan = CalibratePlan::new(a, out)?;
    announce(
        "calibrate",
        calibration(plan.samples, true).with_fixed(overhead(&plan.output, false)),
        &format!(
            "{} samples of each wait, and the kernels' unit costs",
            plan.samples
        ),
    );
    let watch = OtherLoad::start();
    let mut profile = calibrate(CalibrateOptions {
        samples: plan.samples as usize,
    });
    // The cost of each unit of work the programs declare, for model charging in virtual
    // time: measured by the programs' own kernels.
    let units = measure_unit_costs(UNIT_COST_REPEATS);
    profile.unit_costs = units.costs.ns_per_unit;
    // The runtime's own α and β of a message over a native link, for native runs' link costs.
    profile.link = match calibrate_link(plan.samples as usize) {
        Ok(link) => Some(link),
        Err(e) => {
            eprintln!(
                "warning: the link's α and β were not measured ({e}); native runs keep free \
                 links unless given --send-overhead and --per-byte"
            );
            None
        }
    };
    let profile = plan.to_save(profile);
    let mut files = Publication::new();
    files.stage(&plan.profile, &serde_json::to_vec_pretty(&profile)?)?;
    let written = LoadedProfile {
        path: plan.profile.clone(),
        profile: profile.clone(),
    };
    let mut meta = Meta::new("calibrate", plan.inputs(), ProfileUse::Written(&written))
        .native(None)
        .watched_natively("the calibration", &watch)
        .calibration_replicates(&units.replicates);
    meta.files.push(plan.profile.display().to_string());
    Report::new(meta, CalibrateReport { profile }).finish(&plan.output, files)
}
