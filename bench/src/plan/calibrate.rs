//! `calibrate`'s plan.

use std::path::{Path, PathBuf};

use multicomputer_runtime::{MachineProfile, RankCrossing};

use super::output::{named_file, output_file};
use super::{ArgError, Inputs, OutputPlan, default_profile_path};
use crate::args::CalibrateArgs;

/// Measure the host and save its profile.
#[derive(Debug, Clone)]
pub(crate) struct CalibratePlan {
    /// Samples per quantity.
    pub(crate) samples: u32,
    /// Where the profile goes.
    pub(crate) profile: PathBuf,
    /// The flag that named it (`--profile`, or `--out` for the default).
    pub(crate) profile_flag: &'static str,
    /// Output.
    pub(crate) output: OutputPlan,
}

impl CalibratePlan {
    /// Validates `calibrate`'s flags.
    pub(crate) fn new(a: &CalibrateArgs, out: &Path) -> Result<Self, ArgError> {
        let profile = match &a.profile {
            Some(p) => named_file("--profile", p)?,
            None => output_file("--out", &default_profile_path(out))?,
        };
        let output = OutputPlan::new(&a.output)?;
        let flag = if a.profile.is_some() {
            "--profile"
        } else {
            "--out"
        };
        super::distinct_outputs(None, &output, &[(flag, &profile)])?;
        Ok(Self {
            samples: a.samples,
            profile,
            profile_flag: flag,
            output,
        })
    }

    /// The profile to write: `measured` merged over the profile already at [`Self::profile`]
    /// (if one is there), so that what this command did not measure — the unit costs `tour`
    /// leaves to `calibrate` — survives. The one place a command's profile is prepared.
    pub(crate) fn to_save(&self, measured: MachineProfile) -> MachineProfile {
        match MachineProfile::load(&self.profile) {
            Ok(previous) => measured.merged_over(&previous),
            Err(_) => measured,
        }
    }

    /// Under mpirun: the profile already at [`Self::profile`] with the one-way time between
    /// ranks measured now (the host's own figures need a calibration in one process, which
    /// must have written it: refused, naming the flag, if none is there).
    pub(crate) fn with_crossing(&self, crossing: RankCrossing) -> Result<MachineProfile, ArgError> {
        let mut profile = MachineProfile::load(&self.profile).map_err(|e| {
            ArgError::new(
                self.profile_flag,
                format!(
                    "{}: no machine profile to add the one-way time between ranks to ({e}); \
                     under mpirun `calibrate` measures that alone, as each rank is bound to its \
                     cores there: run `multicomputer calibrate` in one process first",
                    self.profile.display()
                ),
            )
        })?;
        profile.rank_crossing = Some(crossing);
        Ok(profile)
    }

    /// Every input.
    pub(crate) fn inputs(&self) -> Inputs {
        let mut i = Inputs::new();
        i.add("samples", self.samples)
            .add("profile", self.profile.display());
        i
    }
}

#[cfg(test)]
mod tests {
    use multicomputer_runtime::{CalibrateOptions, calibrate};

    use super::*;

    /// The plan of `calibrate --profile DIR/machine-profile.json`.
    fn plan_in(dir: &Path) -> CalibratePlan {
        CalibratePlan {
            samples: 1,
            profile: dir.join("machine-profile.json"),
            profile_flag: "--profile",
            output: OutputPlan::default(),
        }
    }

    #[test]
    fn a_saved_profile_keeps_the_unit_costs_already_there() {
        let dir = tempfile::tempdir().unwrap();
        let plan = plan_in(dir.path());
        let mut calibrated = calibrate(CalibrateOptions { samples: 1 });
        calibrated.unit_costs.insert("prime_candidate".into(), 12.5);
        calibrated.save(&plan.profile).unwrap();
        // What the tour measures: no unit costs.
        let mut tour = calibrated.clone();
        tour.unit_costs.clear();
        let saved = plan.to_save(tour);
        assert_eq!(saved.unit_costs["prime_candidate"], 12.5);
        // Nothing there yet: the measurement as it is.
        let fresh = CalibratePlan {
            profile: dir.path().join("none.json"),
            ..plan
        };
        let mut bare = calibrated;
        bare.unit_costs.clear();
        assert!(fresh.to_save(bare).unit_costs.is_empty());
    }

    #[test]
    fn under_mpirun_the_one_way_time_joins_the_profile_already_there() {
        let dir = tempfile::tempdir().unwrap();
        let plan = plan_in(dir.path());
        let crossing = RankCrossing {
            ranks: 2,
            bytes: 174,
            one_way_ns: 120_000.0,
            spread_ns: 500.0,
            samples: 50,
            measured_unix_s: 1,
        };
        // No profile yet: refused, naming the flag and what to run.
        let e = plan.with_crossing(crossing.clone()).unwrap_err();
        assert_eq!(e.flag, "--profile");
        assert!(e.message.contains("in one process first"), "{e}");
        // A profile from one process: every figure kept, the one-way time added.
        let mut host = calibrate(CalibrateOptions { samples: 1 });
        host.unit_costs.insert("prime_candidate".into(), 12.5);
        host.save(&plan.profile).unwrap();
        let with = plan.with_crossing(crossing.clone()).unwrap();
        assert_eq!(with.rank_crossing.as_ref(), Some(&crossing));
        host.rank_crossing = Some(crossing);
        assert_eq!(with, host);
    }
}
