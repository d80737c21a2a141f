//! `calibrate`'s plan.

use std::path::{Path, PathBuf};

use super::output::output_file;
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
            Some(p) => output_file("--profile", p)?,
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

    /// Every input.
    pub(crate) fn inputs(&self) -> Inputs {
        let mut i = Inputs::new();
        i.add("samples", self.samples)
            .add("profile", self.profile.display());
        i
    }
}
