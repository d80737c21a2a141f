//! `multicomputer calibrate`: this host's intrinsic costs, saved as its machine profile.

use std::path::Path;

use anyhow::Result;
use multicomputer_runtime::{
    CalibrateOptions, MachineProfile, RankCrossing, calibrate, calibrate_link,
};
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
    // Under mpirun: the one-way time between ranks alone, merged into the profile that a
    // calibration in one process wrote. Each rank is bound to its cores and shares the host
    // with the others there, so the host's own figures are not measured under mpirun.
    if let Some(crossing) = rank_crossing(plan.samples)? {
        let profile = plan.with_crossing(crossing)?;
        return publish(&plan, profile, None, true);
    }
    if !crate::launch::reports() {
        return Ok(());
    }
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
    let measured = Measured {
        watch: &watch,
        replicates: &units.replicates,
    };
    publish(&plan, profile, Some(measured), false)
}

/// What a calibration in one process watched while it measured the host.
struct Measured<'a> {
    /// The host's other load over the measurement.
    watch: &'a OtherLoad,
    /// Each timed kernel input's repetitions, which a busy host scatters.
    replicates: &'a [(String, Vec<f64>)],
}

/// Writes `profile` and reports it; `measured` is what watched the host while it was
/// measured (none when only the one-way time between ranks was).
fn publish(
    plan: &CalibratePlan,
    profile: MachineProfile,
    measured: Option<Measured<'_>>,
    measured_crossing: bool,
) -> Result<()> {
    let mut files = Publication::new();
    files.stage(&plan.profile, &serde_json::to_vec_pretty(&profile)?)?;
    let written = LoadedProfile {
        path: plan.profile.clone(),
        profile: profile.clone(),
    };
    let mut meta =
        Meta::new("calibrate", plan.inputs(), ProfileUse::Written(&written)).native(None);
    if let Some(Measured { watch, replicates }) = measured {
        meta = meta
            .watched_natively("the calibration", watch)
            .calibration_replicates(replicates);
    }
    meta.files.push(plan.profile.display().to_string());
    Report::new(
        meta,
        CalibrateReport {
            profile,
            measured_crossing,
        },
    )
    .finish(&plan.output, files)
}

/// The one-way time of a cut link's message between MPI ranks, measured when this process
/// is one of several ranks (rank 0 gets it; `None` elsewhere).
#[cfg(feature = "mpi")]
fn rank_crossing(samples: u32) -> Result<Option<RankCrossing>> {
    Ok(multicomputer_runtime::calibrate_crossing(samples as usize)?)
}

/// Without the `mpi` feature there are no ranks to measure between.
#[cfg(not(feature = "mpi"))]
fn rank_crossing(_: u32) -> Result<Option<RankCrossing>> {
    Ok(None)
}
