//! Bad input, named: every error a plan returns says which flag (or file, row and column) it
//! concerns, and exits with code 2 before anything runs.

use std::fmt;

use multicomputer_workloads::farm::ModelError;

/// Bad input: the flag it concerns (`--te`, or `--csv FILE` with its row and column) and
/// what is wrong with it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ArgError {
    /// The flag, e.g. `--te`, or `--csv results/s.csv`.
    pub(crate) flag: String,
    /// What is wrong, e.g. `T_e must be > 0`.
    pub(crate) message: String,
}

impl ArgError {
    /// An error about `flag`.
    pub(crate) fn new(flag: impl Into<String>, message: impl fmt::Display) -> Self {
        Self {
            flag: flag.into(),
            message: message.to_string(),
        }
    }
}

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.flag, self.message)
    }
}

impl std::error::Error for ArgError {}

/// A model's refusal as an error naming the flag behind the parameter: `names` maps the
/// model's parameter names (`te_s`, `beta_e_s`, …) to flags; shape errors name
/// `--topology`, a count of zero `--tasks` or `--granularity`; anything else names
/// `fallback`.
pub(crate) fn model_error(e: &ModelError, names: &[(&str, &str)], fallback: &str) -> ArgError {
    let by_name = |name: &str| {
        names
            .iter()
            .find(|(n, _)| name.starts_with(n))
            .map_or(fallback, |(_, f)| f)
    };
    let flag = match e {
        ModelError::InvalidDuration { name, .. }
        | ModelError::NonPositiveWork { name, .. }
        | ModelError::InvalidParameter { name, .. } => by_name(name),
        ModelError::ZeroArity
        | ModelError::ZeroLevels
        | ModelError::InvalidTree(_)
        | ModelError::NeedsTreeShape(_) => "--topology",
        ModelError::ZeroTasks => "--tasks",
        ModelError::ZeroGranularity => "--granularity",
        _ => fallback,
    };
    ArgError::new(flag, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_parameters_map_to_their_flags() {
        let names = [("te_s", "--te"), ("beta_e_s", "--beta-e")];
        let e = ModelError::NonPositiveWork {
            name: "te_s",
            value: 0.0,
        };
        let a = model_error(&e, &names, "--topology");
        assert_eq!(a.flag, "--te");
        assert!(a.to_string().starts_with("--te: te_s must be positive"));
        assert_eq!(
            model_error(&ModelError::ZeroTasks, &names, "--x").flag,
            "--tasks"
        );
        assert_eq!(
            model_error(&ModelError::Singular, &names, "--x").flag,
            "--x"
        );
    }
}
