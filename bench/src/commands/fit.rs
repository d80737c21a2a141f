//! `multicomputer fit farm --csv FILE`: β_e and β_f from measured throughputs, by nonlinear
//! least squares over many configurations (the paper's §4.2 method, made a regression).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::{Args, Subcommand};
use multicomputer_workloads::farm::{BetaFit, ThroughputObservation, TreeShape, fit_betas};
use serde::Serialize;

use crate::UsageError;
use crate::config::load_profile;
use crate::output::{human_ns, print_json, table};

/// What `fit` fits.
#[derive(Debug, Subcommand)]
pub(crate) enum FitCommand {
    /// β_e and β_f of a processor farm, from a `sweep farm` CSV (or any CSV with its columns).
    Farm(FitFarmArgs),
    /// α, β ([M,1], §4.1) or α0, α1, β ([K,K], §4.2) of the OCL arrays, from a `sweep ocl` CSV,
    /// your own table, or the paper's published one (--paper).
    Ocl(crate::commands::ocl::FitOclArgs),
}

/// `multicomputer fit farm`.
#[derive(Debug, Args)]
pub(crate) struct FitFarmArgs {
    /// The table: columns k, levels, te_s, tau_s and a throughput column (tasks/s); optional
    /// beta_e_s and beta_f_s (injected values, shown beside the fit).
    #[arg(long, value_name = "FILE")]
    pub(crate) csv: PathBuf,
    /// The throughput column to fit.
    #[arg(long, default_value = "steady_throughput_per_s")]
    pub(crate) column: String,
    /// Print one JSON object on stdout instead of a table.
    #[arg(long)]
    pub(crate) json: bool,
}

/// A CSV read as named columns of numbers.
pub(crate) struct Columns {
    path: PathBuf,
    headers: HashMap<String, usize>,
    rows: Vec<csv::StringRecord>,
}

impl Columns {
    /// Reads a CSV file with a header row.
    pub(crate) fn read(path: &Path) -> Result<Self, UsageError> {
        let err = |e: &dyn std::fmt::Display| UsageError(format!("--csv {}: {e}", path.display()));
        let mut r = csv::Reader::from_path(path).map_err(|e| err(&e))?;
        let headers = r
            .headers()
            .map_err(|e| err(&e))?
            .iter()
            .enumerate()
            .map(|(i, h)| (h.trim().to_string(), i))
            .collect();
        let rows = r
            .records()
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| err(&e))?;
        if rows.is_empty() {
            return Err(err(&"no data rows"));
        }
        Ok(Self {
            path: path.to_path_buf(),
            headers,
            rows,
        })
    }

    /// Whether a column exists.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.headers.contains_key(name)
    }

    /// A column of numbers; a missing column or a cell that is not a number names itself.
    pub(crate) fn numbers(&self, name: &str) -> Result<Vec<f64>, UsageError> {
        let Some(&i) = self.headers.get(name) else {
            return Err(UsageError(format!(
                "--csv {}: missing column '{name}' (columns: {})",
                self.path.display(),
                {
                    let mut h: Vec<&String> = self.headers.keys().collect();
                    h.sort();
                    h.into_iter().cloned().collect::<Vec<_>>().join(", ")
                }
            )));
        };
        self.rows
            .iter()
            .enumerate()
            .map(|(r, rec)| {
                let cell = rec.get(i).unwrap_or("").trim();
                cell.parse::<f64>().map_err(|_| {
                    UsageError(format!(
                        "--csv {}: row {} column '{name}': '{cell}' is not a number",
                        self.path.display(),
                        r + 2
                    ))
                })
            })
            .collect()
    }
}

/// What `fit farm --json` prints.
#[derive(Debug, Serialize)]
pub(crate) struct FarmFitReport {
    pub(crate) beta_e_s: f64,
    pub(crate) beta_f_s: f64,
    pub(crate) beta_e_std_error_s: f64,
    pub(crate) beta_f_std_error_s: f64,
    /// Injected values, if the table has them (mean of the column).
    pub(crate) injected_beta_e_s: Option<f64>,
    pub(crate) injected_beta_f_s: Option<f64>,
    /// (fitted − injected)/injected, percent.
    pub(crate) beta_e_error_pct: Option<f64>,
    pub(crate) beta_f_error_pct: Option<f64>,
    /// The host's per-message floor (calibrated one-way message with a parked receiver), s.
    pub(crate) host_message_floor_s: Option<f64>,
    pub(crate) observations: usize,
    pub(crate) fit: BetaFit,
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

pub(crate) fn fit_farm(args: &FitFarmArgs, out: &Path) -> Result<FarmFitReport> {
    let t = Columns::read(&args.csv)?;
    let k = t.numbers("k")?;
    let levels = t.numbers("levels")?;
    let te = t.numbers("te_s")?;
    let tau = t.numbers("tau_s")?;
    let thr = t.numbers(&args.column)?;
    let mut obs = Vec::with_capacity(k.len());
    for i in 0..k.len() {
        if k[i] < 1.0 || levels[i] < 1.0 || !thr[i].is_finite() {
            continue; // parent-relation rows (k = 0) and runs without a steady state
        }
        obs.push(ThroughputObservation {
            shape: TreeShape {
                k: k[i] as u32,
                levels: levels[i] as u32,
            },
            te_s: te[i],
            tau_s: tau[i],
            throughput_per_s: thr[i],
            tasks_m: None,
        });
    }
    let fit =
        fit_betas(&obs).map_err(|e| UsageError(format!("--csv {}: {e}", args.csv.display())))?;
    let injected = |c: &str| -> Result<Option<f64>, UsageError> {
        Ok(if t.has(c) {
            Some(mean(&t.numbers(c)?))
        } else {
            None
        })
    };
    let (ie, ifw) = (injected("beta_e_s")?, injected("beta_f_s")?);
    let err =
        |fitted: f64, inj: Option<f64>| inj.filter(|v| *v > 0.0).map(|v| 100.0 * (fitted - v) / v);
    let profile = load_profile(None, out)?;
    Ok(FarmFitReport {
        beta_e_s: fit.beta_e_s,
        beta_f_s: fit.beta_f_s,
        beta_e_std_error_s: fit.beta_e_std_error_s,
        beta_f_std_error_s: fit.beta_f_std_error_s,
        injected_beta_e_s: ie,
        injected_beta_f_s: ifw,
        beta_e_error_pct: err(fit.beta_e_s, ie),
        beta_f_error_pct: err(fit.beta_f_s, ifw),
        host_message_floor_s: profile.map(|p| p.message_parked_ns / 1e9),
        observations: obs.len(),
        fit,
    })
}

pub(crate) fn run(cmd: &FitCommand, out: &Path) -> Result<()> {
    match cmd {
        FitCommand::Ocl(args) => crate::commands::ocl::run_fit(args),
        FitCommand::Farm(args) => {
            let r = fit_farm(args, out)?;
            if args.json {
                return print_json(&r);
            }
            let mut t = table(&["parameter", "fitted", "± std. error", "injected", "error"]);
            for (name, v, se, inj, e) in [
                (
                    "β_e",
                    r.beta_e_s,
                    r.beta_e_std_error_s,
                    r.injected_beta_e_s,
                    r.beta_e_error_pct,
                ),
                (
                    "β_f",
                    r.beta_f_s,
                    r.beta_f_std_error_s,
                    r.injected_beta_f_s,
                    r.beta_f_error_pct,
                ),
            ] {
                t.add_row(vec![
                    name.to_string(),
                    human_ns(v * 1e9),
                    human_ns(se * 1e9),
                    inj.map_or("—".into(), |x| human_ns(x * 1e9)),
                    e.map_or("—".into(), |x| format!("{x:+.2} %")),
                ]);
            }
            println!("{t}");
            println!(
                "{} observations; largest relative residual {:.2} %{}",
                r.observations,
                100.0 * r.fit.max_relative_residual,
                r.host_message_floor_s
                    .map(|f| format!("; host per-message floor {}", human_ns(f * 1e9)))
                    .unwrap_or_default()
            );
            Ok(())
        }
    }
}
