//! `calibrate`'s plan.

use std::path::{Path, PathBuf};

use multicomputer_runtime::MachineProfile;

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

    #[test]
    fn a_saved_profile_keeps_the_unit_costs_already_there() {
        let dir = tempfile::tempdir().unwrap();
        let plan = CalibratePlan {
            samples: 1,
            profile: dir.path().join("machine-profile.json"),
            output: OutputPlan::default(),
        };
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
}
