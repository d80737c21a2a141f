//! `multicomputer speedup`: a real kernel natively on 1…P cores beside rayon, scoped threads
//! and its model, published as one run folder (speedup.csv, grain.csv, plots, report.json,
//! report.html).

use std::path::Path;

use anyhow::Result;

use crate::args::SpeedupArgs;
use crate::exec::{Estimate, Progress, admit, host_load, overhead, refuse_endless};
use crate::plan::SpeedupCommandPlan;
use crate::report::{Meta, ProfileUse, SpeedupReport};

pub(crate) fn run(a: &SpeedupArgs, out: &Path) -> Result<()> {
    let plan = SpeedupCommandPlan::new(a, out)?;
    let machines = plan.machines()?;
    let e = &plan.experiment;
    let detail = format!(
        "{} rounds after {} warm-up, P = 1 to {}, three variants each{}",
        e.rounds,
        e.warmup,
        e.max_processors(),
        if e.grains.is_some() {
            ", and the grain sweep"
        } else {
            ""
        }
    );
    // Step 0, before the inputs are made: a rough estimate from the kernel's operation
    // count refuses a run of days; once the first sequential run is timed, the estimate
    // from it is admitted (and announced if long). That run was timed under the host's
    // load, which the announced range adds again: the estimate is the quiet host's.
    let flags = "--tasks, --grain, --rounds, --processors, --grains";
    refuse_endless(
        flags,
        Estimate::native(e.estimate_s(e.workload.rough_sequential_s())),
        &format!("{detail}; rough, before the first sequential run"),
    )?;
    let prepared = e.prepare(&machines)?;
    admit(
        "speedup",
        flags,
        Estimate::timed(prepared.estimate_s(), host_load())
            .with_fixed(overhead(&plan.output, true)),
        &detail,
    )?;
    let mut progress = Progress::new("speedup", e.measurements() as u64, "measurements");
    let result = prepared.run(&mut |step| {
        progress.set_message(step.what.to_string());
        progress.inc();
    })?;
    drop(progress);
    let (report, files) = SpeedupReport::report(
        Meta::new("speedup", plan.inputs(), ProfileUse::NotUsed),
        result,
    )?;
    report.finish_in_folder(&plan.output, &plan.folder, files)
}
