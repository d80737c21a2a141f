//! `scaling`'s flags, validated: the candidate and the test's options, and the data — a user's
//! table (read and checked here, every bad cell named by row and column) or a sweep of ising
//! runs (every P's machine checked against the host before the first run).

use std::path::{Path, PathBuf};

use multicomputer_runtime::Hints;
use multicomputer_runtime::{ComputeCharge, TimeMode, Topology};
use multicomputer_workloads::analysis::{
    ConsistencyOptions, DEFAULT_EXACT_TOLERANCE, EXACT_PRECISION, MOST_RESAMPLES, Measurement,
    OverheadModel, SMALLEST_SIGNIFICANCE, Weighting,
};
use multicomputer_workloads::ising::{IsingConfig, Mechanism, Workload};

use super::ising::{check_samples, lattice_config, lattice_inputs, mechanism_of, message_system};
use super::lists::{counts, split_list};
use super::{ArgError, Inputs, MachinePlan, OutputPlan, RunFolderPlan};
use crate::args::{MAX_LOOP_COUNT, ScalingArgs, ScalingWeightingArg};
use crate::files::{Columns, ColumnsError};

/// What a scaling analysis fits against P.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fitted {
    /// The system overhead `Φ_s = time_s / ideal_s`, when the ideal run time is known: a
    /// number.
    PhiS,
    /// The run time itself, when only run times are known: seconds.
    RunTime,
}

impl Fitted {
    /// As reports write it.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Fitted::PhiS => "Φ_s = time_s / ideal_s",
            Fitted::RunTime => "run time (s)",
        }
    }
}

impl serde::Serialize for Fitted {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.label())
    }
}

impl std::fmt::Display for Fitted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// The sweep of ising runs: every loop count × P × repeat.
#[derive(Debug, Clone)]
pub(crate) struct ScalingSweep {
    /// The physics of a sample.
    pub(crate) config: IsingConfig,
    /// The control mechanism.
    pub(crate) mechanism: Mechanism,
    /// The processor counts.
    pub(crate) processors: Vec<u32>,
    /// The loop counts.
    pub(crate) loop_counts: Vec<u64>,
    /// Samples per processor (work ∝ P).
    pub(crate) workload: Workload,
    /// Runs per (P, loop_count).
    pub(crate) repeats: u32,
    /// The machine (its loop count set per cell); always emulated, so that every P runs
    /// alike.
    pub(crate) machine: MachinePlan,
    /// Whether every run is deterministic (virtual time, model compute charging): one run per
    /// point, and the consistency test is exact.
    pub(crate) deterministic: bool,
}

/// Where the measurements come from.
#[derive(Debug, Clone)]
pub(crate) enum ScalingSource {
    /// A user's table, read.
    Table {
        /// Its file.
        path: PathBuf,
        /// Its rows.
        measurements: Vec<Measurement>,
        /// `Φ_s` with an `ideal_s` column, else the run time.
        fitted: Fitted,
    },
    /// A sweep to run.
    Sweep(Box<ScalingSweep>),
}

/// `scaling`, validated.
#[derive(Debug, Clone)]
pub(crate) struct ScalingPlan {
    /// The data.
    pub(crate) source: ScalingSource,
    /// The candidate.
    pub(crate) model: OverheadModel,
    /// Candidates fitted alongside.
    pub(crate) alternatives: Vec<OverheadModel>,
    /// The consistency test's options.
    pub(crate) options: ConsistencyOptions,
    /// The run's folder.
    pub(crate) folder: RunFolderPlan,
    /// Output.
    pub(crate) output: OutputPlan,
}

fn parse_model(flag: &str, s: &str) -> Result<OverheadModel, ArgError> {
    let m = s
        .parse::<OverheadModel>()
        .map_err(|e| ArgError::new(flag, format!("{s}: {e}")))?;
    if !m.has_constant() {
        return Err(ArgError::new(
            flag,
            format!("{s}: the candidate needs a constant term (1), the paper's a"),
        ));
    }
    Ok(m)
}

fn weighting(w: ScalingWeightingArg) -> Weighting {
    match w {
        ScalingWeightingArg::Auto => Weighting::Auto,
        ScalingWeightingArg::Uniform => Weighting::Uniform,
        ScalingWeightingArg::Relative => Weighting::Relative,
    }
}

/// The test's options from the flags (`exact` is set once the data are known).
fn options(a: &ScalingArgs, model: &OverheadModel) -> Result<ConsistencyOptions, ArgError> {
    let against = match &a.against {
        None => None,
        Some(s) => {
            let r = parse_model("--against", s)?;
            if !r.contains(model) || r.len() == model.len() {
                return Err(ArgError::new(
                    "--against",
                    format!("{s}: must contain every term of the candidate {model} and more"),
                ));
            }
            Some(r)
        }
    };
    if !(SMALLEST_SIGNIFICANCE..1.0).contains(&a.significance) {
        return Err(ArgError::new(
            "--significance",
            format!(
                "must be in [{SMALLEST_SIGNIFICANCE}, 1), got {} (the verdict resamples the \
                 table, and a smaller one needs more than {MOST_RESAMPLES} resamples)",
                a.significance
            ),
        ));
    }
    if !(a.detectable.is_finite() && a.detectable > 0.0) {
        return Err(ArgError::new(
            "--detectable",
            format!(
                "must be a fraction > 0 (e.g. 0.1 for 10 %), got {}",
                a.detectable
            ),
        ));
    }
    if !(a.power > 0.0 && a.power < 1.0) {
        return Err(ArgError::new(
            "--power",
            format!("must be in (0, 1), got {}", a.power),
        ));
    }
    let timer_resolution = match a.timer_resolution {
        Some(d) if d.is_zero() => {
            return Err(ArgError::new(
                "--timer-resolution",
                "must be > 0 (e.g. 1us)",
            ));
        }
        d => d.map(|d| d.as_secs_f64()),
    };
    Ok(ConsistencyOptions {
        significance: a.significance,
        weighting: weighting(a.weighting),
        against,
        timer_resolution,
        detectable_fraction: a.detectable,
        required_power: a.power,
        exact: None,
    })
}

/// The sweep from the flags, with every P's machine checked against the host.
fn sweep(a: &ScalingArgs, out: &Path) -> Result<ScalingSweep, ArgError> {
    let config = lattice_config(&a.lattice)?;
    let mechanism = mechanism_of(a.mechanism);
    let processors: Vec<u32> = counts("--processors", &a.processors, 1..=u64::from(u32::MAX))?
        .into_iter()
        .map(|p| p as u32)
        .collect();
    let loop_counts = counts("--loop-counts", &a.loop_counts, 0..=MAX_LOOP_COUNT)?;
    let workload = Workload::Scaled {
        samples_per_processor: a.samples_per_processor,
    };
    let mut machine = message_system(&a.messages, 0, out)?;
    machine.emulate = true;
    // Every P's machine, built (not run) now: a P the host cannot hold is refused before the
    // first run, naming the limit.
    for &p in &processors {
        check_samples(&config, workload, p, "--samples-per-processor")?;
        let topology = mechanism
            .topology(p as usize)
            .map_err(|e| ArgError::new("--processors", e))?;
        machine.machine(topology, &Hints::default())?;
    }
    let deterministic = deterministic(&machine);
    Ok(ScalingSweep {
        config,
        mechanism,
        processors,
        loop_counts,
        workload,
        repeats: if deterministic { 1 } else { a.repeats },
        machine,
        deterministic,
    })
}

/// `--tolerance`, checked: no finer than the data's precision, and below 100 %.
fn tolerance(t: f64) -> Result<f64, ArgError> {
    if t.is_finite() && (EXACT_PRECISION..1.0).contains(&t) {
        Ok(t)
    } else {
        Err(ArgError::new(
            "--tolerance",
            format!("must be a fraction in [{EXACT_PRECISION:e}, 1) (e.g. 0.01 for 1 %), got {t}"),
        ))
    }
}

/// `--against` on exact data: refused, there is no noise for the F test.
fn exact_against() -> ArgError {
    ArgError::new(
        "--against",
        "exact data (virtual time with model charging, or --csv with --tolerance) are judged \
         against the candidate's deviation, not an F test (use --compute measured for noisy \
         runs and a statistical test)",
    )
}

/// Whether a sweep's runs are all the same run after run: in virtual time (which `auto`
/// gives a sweep at every P) with model compute charging.
fn deterministic(machine: &MachinePlan) -> bool {
    let virtual_time = matches!(machine.mode, TimeMode::Virtual | TimeMode::Auto);
    virtual_time && machine.compute != Some(ComputeCharge::Measured)
}

impl ScalingPlan {
    /// Validates `scaling`'s flags, reading `--csv` if given.
    pub(crate) fn new(a: &ScalingArgs, out: &Path) -> Result<Self, ArgError> {
        let model = parse_model("--model", &a.model)?;
        let mut options = options(a, &model)?;
        let alternatives = split_list("--alternatives", &a.alternatives)?
            .into_iter()
            .map(|s| parse_model("--alternatives", s))
            .collect::<Result<_, _>>()?;
        let folder = RunFolderPlan::new(out, &a.name)?;
        let output = OutputPlan::new(&a.output)?;
        let source = match &a.csv {
            Some(path) => {
                options.exact = a.tolerance.map(tolerance).transpose()?;
                if options.exact.is_some() && options.against.is_some() {
                    return Err(exact_against());
                }
                let (measurements, fitted) = read_measurements(path)?;
                ScalingSource::Table {
                    path: path.clone(),
                    measurements,
                    fitted,
                }
            }
            None => {
                let s = sweep(a, out)?;
                if s.deterministic {
                    options.exact =
                        Some(tolerance(a.tolerance.unwrap_or(DEFAULT_EXACT_TOLERANCE))?);
                    if options.against.is_some() {
                        return Err(exact_against());
                    }
                } else if a.tolerance.is_some() {
                    return Err(ArgError::new(
                        "--tolerance",
                        "applies to exact data only (virtual time with model compute \
                         charging); measured runs are judged by the statistical tests \
                         (--significance, --detectable, --power)",
                    ));
                }
                ScalingSource::Sweep(Box::new(s))
            }
        };
        Ok(Self {
            source,
            model,
            alternatives,
            options,
            folder,
            output,
        })
    }

    /// What is fitted.
    pub(crate) fn fitted(&self) -> Fitted {
        match &self.source {
            ScalingSource::Table { fitted, .. } => *fitted,
            ScalingSource::Sweep(_) => Fitted::PhiS,
        }
    }

    /// Where the data come from, for errors about the data rather than the model.
    pub(crate) fn data_flag(&self) -> String {
        match &self.source {
            ScalingSource::Table { path, .. } => format!("--csv {}", path.display()),
            ScalingSource::Sweep(_) => "--processors".into(),
        }
    }

    /// Every input.
    pub(crate) fn inputs(&self) -> Inputs {
        let mut i = Inputs::new();
        match &self.source {
            ScalingSource::Table { path, .. } => {
                i.add("csv", path.display());
            }
            ScalingSource::Sweep(s) => {
                i.add("mechanism", s.mechanism.name())
                    .add(
                        "processors",
                        s.processors
                            .iter()
                            .map(u32::to_string)
                            .collect::<Vec<_>>()
                            .join(","),
                    )
                    .add(
                        "loop-counts",
                        s.loop_counts
                            .iter()
                            .map(u64::to_string)
                            .collect::<Vec<_>>()
                            .join(","),
                    )
                    .extend(lattice_inputs(&s.config))
                    .add(
                        "repeats",
                        if s.deterministic {
                            "1 (deterministic runs)".to_string()
                        } else {
                            s.repeats.to_string()
                        },
                    )
                    .extend(s.machine.inputs());
            }
        }
        i.add("model", &self.model);
        match self.options.exact {
            // Exact data: the tolerance decides; the statistical tests' settings do not apply.
            Some(tolerance) => {
                i.add("tolerance", tolerance);
            }
            None => {
                i.add(
                    "against",
                    self.options
                        .against
                        .as_ref()
                        .map_or("none".into(), |m| m.to_string()),
                )
                .add("significance", self.options.significance)
                .add("detectable", self.options.detectable_fraction)
                .add("power", self.options.required_power);
            }
        }
        i.add("name", &self.folder.name);
        i
    }
}

/// The mechanism's topology on `p` processors (checked by the plan).
pub(crate) fn scaling_topology(mechanism: Mechanism, p: u32) -> Result<Topology, ArgError> {
    mechanism
        .topology(p as usize)
        .map_err(|e| ArgError::new("--processors", e))
}

/// Reads `--csv`: every row a measurement, every bad cell named by row and column.
fn read_measurements(path: &Path) -> Result<(Vec<Measurement>, Fitted), ArgError> {
    let flag = format!("--csv {}", path.display());
    let fail = |e: ColumnsError| ArgError::new(&flag, e.to_string());
    let t = Columns::read(path).map_err(fail)?;
    let ps = t.whole("P", 1..=u64::from(u32::MAX)).map_err(fail)?;
    let times = t.numbers("time_s").map_err(fail)?;
    let optional = |name: &str| t.has(name).then(|| t.numbers(name)).transpose();
    let loops = t
        .has("loop_count")
        .then(|| t.whole("loop_count", 0..=MAX_LOOP_COUNT))
        .transpose()
        .map_err(fail)?;
    let ideal = optional("ideal_s").map_err(fail)?;
    let se = match t.first_of(&["std_error", "std_error_s"]) {
        Some(name) => Some(t.numbers(name).map_err(fail)?),
        None => None,
    };
    let runs = t
        .has("runs")
        .then(|| t.whole("runs", 1..=u64::from(u32::MAX)))
        .transpose()
        .map_err(fail)?;
    if runs.is_some() && se.is_none() {
        return Err(ArgError::new(
            &flag,
            "column 'runs' needs a column 'std_error' (of each row's mean)",
        ));
    }
    let bad = |row: usize, column: &str, value: f64, what: &str| {
        ArgError::new(
            &flag,
            format!("row {} column '{column}': {value} is not {what}", row + 2),
        )
    };
    let mut out = Vec::with_capacity(ps.len());
    for i in 0..ps.len() {
        if !(times[i].is_finite() && times[i] > 0.0) {
            return Err(bad(i, "time_s", times[i], "a time > 0"));
        }
        let loop_count = loops.as_ref().map_or(0, |l| l[i]);
        let mut m = Measurement::run(ps[i] as u32, loop_count as f64, times[i]);
        if let Some(ideal) = &ideal {
            if !(ideal[i].is_finite() && ideal[i] > 0.0) {
                return Err(bad(i, "ideal_s", ideal[i], "a time > 0"));
            }
            m = m.with_ideal(ideal[i]);
        }
        if let Some(se) = &se {
            let n = match &runs {
                None => {
                    if !(se[i].is_finite() && se[i] > 0.0) {
                        return Err(bad(
                            i,
                            "std_error",
                            se[i],
                            "a standard error > 0 (taken as exact without a runs column)",
                        ));
                    }
                    None
                }
                Some(runs) => {
                    if !(se[i].is_finite() && se[i] >= 0.0) {
                        return Err(bad(i, "std_error", se[i], "a standard error ≥ 0"));
                    }
                    Some(runs[i] as u32)
                }
            };
            m = m.with_std_error(se[i], n);
        }
        out.push(m);
    }
    Ok((
        out,
        if ideal.is_some() {
            Fitted::PhiS
        } else {
            Fitted::RunTime
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> Result<(Vec<Measurement>, Fitted), ArgError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        std::fs::write(&path, text).unwrap();
        read_measurements(&path)
    }

    #[test]
    fn a_users_table_is_read_with_names_in_any_case() {
        let (m, fitted) = table("p,TIME_S,Loop_Count\n2,1.5,0\n4,1.7,100\n").unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(fitted, Fitted::RunTime);
        let (_, fitted) = table("\u{feff}P,time_s,ideal_s\n2,1.5,1.0\n").unwrap();
        assert_eq!(fitted, Fitted::PhiS);
    }

    #[test]
    fn bad_cells_are_named_by_row_and_column() {
        let e = table("P,time_s\n2,1.5\n3.5,1.7\n").unwrap_err().to_string();
        assert!(e.contains("row 3 column 'P'"), "{e}");
        let e = table("P,time_s,loop_count\n2,1.5,-3\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("row 2 column 'loop_count'"), "{e}");
        let e = table("P,time_s,loop_count\n2,1.5,2.5\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("whole number"), "{e}");
        let e = table("P,time_s,P\n2,1.5,2\n").unwrap_err().to_string();
        assert!(e.contains("column 'P' appears twice"), "{e}");
        let e = table("P,time_s,loop_count\n2,1.5,18446744073709551616\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("row 2 column 'loop_count'"), "{e}");
        let e = table("P,seconds\n2,1.5\n").unwrap_err().to_string();
        assert!(
            e.starts_with("--csv") && e.contains("missing column 'time_s'"),
            "{e}"
        );
    }
}
