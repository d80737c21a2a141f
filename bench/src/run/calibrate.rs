//! `multicomputer calibrate`: this host's intrinsic costs, saved as its machine profile.

use std::path::Path;

use anyhow::Result;
use multicomputer_runtime::{CalibrateOptions, calibrate};

use crate::args::CalibrateArgs;
use crate::files::Publication;
use crate::plan::CalibratePlan;
use crate::report::{CalibrateReport, Meta, Report};

pub(crate) fn run(a: &CalibrateArgs, out: &Path) -> Result<()> {
    let plan = CalibratePlan::new(a, out)?;
    let profile = calibrate(CalibrateOptions {
        samples: plan.samples as usize,
    });
    let mut files = Publication::new();
    files.stage(&plan.profile, &serde_json::to_vec_pretty(&profile)?)?;
    let mut meta = Meta::new("calibrate", plan.inputs(), None);
    meta.files.push(plan.profile.display().to_string());
    Report::new(meta, CalibrateReport { profile }).finish(&plan.output, files)
}
