//! `fit farm`'s plan: the table read and checked, row by row.

use std::path::{Path, PathBuf};

use multicomputer_workloads::farm::{ThroughputObservation, TreeShape};
use serde::Serialize;

use super::{ArgError, Inputs, LoadedProfile, OutputPlan, load_profile};
use crate::args::FitFarmArgs;
use crate::files::Columns;

/// The most levels a row of the table may have (the model works level by level).
const MAX_LEVELS: u64 = 4096;

/// A row left out of the fit, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct SkippedRow {
    /// Its number in the file (the header is row 1).
    pub(crate) row: usize,
    /// Why.
    pub(crate) reason: String,
}

/// `fit farm`: β_e and β_f from a table of throughputs.
#[derive(Debug, Clone)]
pub(crate) struct FitFarmPlan {
    /// The table.
    pub(crate) csv: PathBuf,
    /// The throughput column fitted.
    pub(crate) column: String,
    /// The rows fitted.
    pub(crate) observations: Vec<ThroughputObservation>,
    /// The rows left out.
    pub(crate) skipped: Vec<SkippedRow>,
    /// The injected β_e (mean of the column), if the table has one.
    pub(crate) injected_beta_e_s: Option<f64>,
    /// The injected β_f.
    pub(crate) injected_beta_f_s: Option<f64>,
    /// The host's profile (its per-message floor is shown beside the fit).
    pub(crate) profile: Option<LoadedProfile>,
    /// Output.
    pub(crate) output: OutputPlan,
}

impl FitFarmPlan {
    /// Validates `fit farm`'s flags and reads its table: k and levels must be whole numbers;
    /// rows of parent relations (k = 0) and rows without a steady state (a throughput that is
    /// not a finite number > 0) are left out and reported with their row number.
    pub(crate) fn new(a: &FitFarmArgs, out: &Path) -> Result<Self, ArgError> {
        let flag = format!("--csv {}", a.csv.display());
        let err = |e: &dyn std::fmt::Display| ArgError::new(&flag, e);
        let t = Columns::read(&a.csv).map_err(|e| err(&e))?;
        let col = |name: &str| t.numbers(name).map_err(|e| err(&e));
        let whole = |name: &str, hi: u64| t.whole(name, 0..=hi).map_err(|e| err(&e));
        let (k, levels, te, tau, thr) = (
            whole("k", u64::from(u32::MAX))?,
            whole("levels", MAX_LEVELS)?,
            col("te_s")?,
            col("tau_s")?,
            col(&a.column)?,
        );
        let mut observations = Vec::with_capacity(k.len());
        let mut skipped = Vec::new();
        for i in 0..k.len() {
            let row = i + 2;
            // In range by the reads above.
            let (ki, li) = (k[i] as u32, levels[i] as u32);
            if ki == 0 {
                skipped.push(SkippedRow {
                    row,
                    reason: "a parent relation (k = 0) has no tree shape".into(),
                });
                continue;
            }
            if li == 0 {
                return Err(err(&format!(
                    "row {row} column 'levels': 0 is not in 1..={MAX_LEVELS}"
                )));
            }
            if !(thr[i].is_finite() && thr[i] > 0.0) {
                skipped.push(SkippedRow {
                    row,
                    reason: format!("{} = {} (no steady state)", a.column, thr[i]),
                });
                continue;
            }
            for (name, v) in [("te_s", te[i]), ("tau_s", tau[i])] {
                if !(v.is_finite() && v >= 0.0) {
                    return Err(err(&format!(
                        "row {row} column '{name}': {v} is not a time ≥ 0"
                    )));
                }
            }
            observations.push(ThroughputObservation {
                shape: TreeShape { k: ki, levels: li },
                te_s: te[i],
                tau_s: tau[i],
                throughput_per_s: thr[i],
                tasks_m: None,
            });
        }
        if observations.len() < 2 {
            let left: Vec<String> = skipped
                .iter()
                .map(|s| format!("row {}: {}", s.row, s.reason))
                .collect();
            return Err(err(&format!(
                "{} row(s) to fit, 2 needed; left out: {}",
                observations.len(),
                if left.is_empty() {
                    "none".to_string()
                } else {
                    left.join("; ")
                }
            )));
        }
        let injected = |c: &str| t.mean_time(c).map_err(|e| err(&e));
        Ok(Self {
            csv: a.csv.clone(),
            column: a.column.clone(),
            observations,
            skipped,
            injected_beta_e_s: injected("beta_e_s")?,
            injected_beta_f_s: injected("beta_f_s")?,
            profile: load_profile(None, out)?,
            output: OutputPlan::new(&a.output)?,
        })
    }

    /// Every input.
    pub(crate) fn inputs(&self) -> Inputs {
        let mut i = Inputs::new();
        i.add("csv", self.csv.display())
            .add("column", &self.column)
            .add("rows fitted", self.observations.len())
            .add("rows left out", self.skipped.len());
        i
    }
}
