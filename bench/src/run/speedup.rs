//! `multicomputer speedup`: a real kernel natively on 1…P cores beside rayon, scoped threads
//! and its model, published as one run folder (speedup.csv, grain.csv, plots, report.json,
//! report.html).

use std::path::Path;

use anyhow::Result;

use crate::args::SpeedupArgs;
use crate::exec::{Estimate, Progress, announce};
use crate::files::Publication;
use crate::plan::SpeedupCommandPlan;
use crate::report::{Meta, SpeedupReport};

pub(crate) fn run(a: &SpeedupArgs, out: &Path) -> Result<()> {
    let plan = SpeedupCommandPlan::new(a, out)?;
    let e = &plan.experiment;
    let prepared = e.prepare()?;
    announce(
        "speedup",
        Estimate {
            wall_s: prepared.estimate_s(),
        },
        &format!(
            "{} rounds after {} warm-up, P = 1 to {}, three variants each{}",
            e.rounds,
            e.warmup,
            e.max_processors(),
            if e.grains.is_some() {
                ", and the grain sweep"
            } else {
                ""
            }
        ),
    );
    let mut progress = Progress::new("speedup", e.measurements() as u64, "measurements");
    let result = prepared.run(&mut |step| {
        progress.set_message(step.what.to_string());
        progress.inc();
    })?;
    drop(progress);
    let (mut report, files) =
        SpeedupReport::report(Meta::new("speedup", plan.inputs(), None), result)?;
    report.publish_folder(&plan.folder, files)?;
    report.finish(&plan.output, Publication::new())
}
