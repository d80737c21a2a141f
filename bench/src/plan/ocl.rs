//! `ocl`'s, `sweep ocl`'s and `fit ocl`'s plans: the transform, the constants (given or the
//! paper's), the stream, the grid, the timing table.

use std::path::{Path, PathBuf};
use std::time::Duration;

use multicomputer_runtime::{ConfigError, Hints, Machine, TimeMode, Topology};
use multicomputer_workloads::ocl::fit::{TimingRow, Weighting, multi_process_rows};
use multicomputer_workloads::ocl::model::Costs;
use multicomputer_workloads::ocl::{
    Grain, OclError, OclTable, PipelineCosts, pipeline_config, pipeline_hints, pipeline_topology,
    random_stream, transform_label,
};

use super::lists::{choices, counts, split_list};
use super::output::optional_file;
use super::{
    ArgError, Footprint, Inputs, MachinePlan, OutputPlan, Repeat, RunFolderPlan, TracePlan,
};
use crate::args::{
    CostsArg, FitOclArgs, OclArgs, OclMachineArgs, SweepOclArgs, TableArg, WeightingArg,
};
use crate::files::{Columns, read_text};

/// Parses `fine`, `m1:M`, `kk:K` or `mk:M,K` for window `n`; errors name `--transform` (or
/// `--window` for N = 0).
pub(crate) fn parse_transform(spec: &str, n: usize) -> Result<Grain, ArgError> {
    let bad = |why: String| ArgError::new("--transform", why);
    let num = |s: &str| {
        s.trim().parse::<usize>().map_err(|_| {
            bad(format!(
                "'{s}' in '{spec}' is not a whole number (fine, m1:M, kk:K, mk:M,K)"
            ))
        })
    };
    let grain = match spec.trim().split_once(':') {
        None if spec.trim() == "fine" => Grain::fine(n),
        Some(("m1", m)) => Grain::m1(n, num(m)?),
        Some(("kk", k)) => Grain::kk(n, num(k)?),
        Some(("mk", mk)) => {
            let (m, k) = mk
                .split_once(',')
                .ok_or_else(|| bad(format!("'{spec}' needs two numbers, mk:M,K")))?;
            Grain::new(n, num(m)?, num(k)?)
        }
        _ => {
            return Err(bad(format!(
                "unknown transform '{spec}' (fine, m1:M, kk:K, mk:M,K)"
            )));
        }
    };
    grain.map_err(|e| match e {
        OclError::ZeroWindow => ArgError::new("--window", e),
        e => bad(e.to_string()),
    })
}

/// The constants a run uses: the given ones, else the paper's — §4.1's `α, β` for the
/// single-value programs (fine, m1), §4.2's `α0, α1, β` for the packet programs (kk, mk).
fn resolve_costs(m: &OclMachineArgs, packets: bool) -> Result<Costs, ArgError> {
    let s = |d: Option<Duration>, default: f64| d.map_or(default, |d| d.as_secs_f64());
    let single = m.alpha0.is_none() && m.alpha1.is_none();
    if !packets && single {
        let paper = OclTable::M1.paper_costs();
        return Ok(Costs::single(
            s(m.alpha, paper.alpha0_s),
            s(m.beta, paper.beta_s),
        ));
    }
    if m.alpha.is_some() {
        return Err(ArgError::new(
            "--alpha",
            "packets are charged α0 + Kα1; give --alpha0 and --alpha1",
        ));
    }
    let paper = OclTable::Kk.paper_costs();
    Ok(Costs {
        alpha0_s: s(m.alpha0, paper.alpha0_s),
        alpha1_s: s(m.alpha1, paper.alpha1_s),
        beta_s: s(m.beta, paper.beta_s),
    })
}

/// The constants of the model beside a run: always for emulated costs, for native ones only
/// if the user named some.
fn model_costs(m: &OclMachineArgs, packets: bool) -> Result<Option<Costs>, ArgError> {
    let given = m.alpha.is_some() || m.alpha0.is_some() || m.alpha1.is_some() || m.beta.is_some();
    match m.costs {
        CostsArg::Native if !given => Ok(None),
        _ => resolve_costs(m, packets).map(Some),
    }
}

/// The OCL machine: native costs run natively at D = 1; emulated ones dilated by `--dilation`
/// or as auto mode chooses.
fn machine(m: &OclMachineArgs, out: &Path, trace: &TracePlan) -> Result<MachinePlan, ArgError> {
    let mode = match (m.costs, m.dilation) {
        (CostsArg::Native, Some(_)) => {
            return Err(ArgError::new("--dilation", "native costs run at D = 1"));
        }
        (CostsArg::Native, None) => TimeMode::Native,
        (CostsArg::Emulated, Some(d)) => TimeMode::Dilated(super::machine::dilation(d)?),
        (CostsArg::Emulated, None) => TimeMode::Auto,
    };
    let mut plan = MachinePlan::from_parts(mode, m.wait, m.profile.as_deref(), out)?.tracing(trace);
    plan.native_flag = "--costs native";
    plan.size_flag = "--window";
    Ok(plan)
}

/// The costs a pipeline runs with: the model's constants emulated, or native costs.
pub(crate) fn pipeline_costs(model: Option<Costs>, native: bool) -> PipelineCosts {
    match (native, model) {
        (false, Some(c)) => PipelineCosts::Emulated(c),
        _ => PipelineCosts::Native,
    }
}

/// The one machine a pipeline of `grain` runs on (the workload's array, free links, its
/// hints: [`pipeline_config`]), built before the run so that the host's limits are checked
/// first. Errors name `flag` (the window or the cells) with the number of processes, or
/// `--costs native` when there are not enough cores.
pub(crate) fn pipeline_machine(
    machine: &MachinePlan,
    grain: Grain,
    model: Option<Costs>,
    native: bool,
    flag: &str,
) -> Result<Machine, ArgError> {
    let config = pipeline_config(
        grain,
        pipeline_costs(model, native),
        &machine.config(&Hints::default()),
    );
    let topology = pipeline_topology(grain).map_err(|e| ArgError::new(flag, e))?;
    Machine::new(topology, config).map_err(|e| match e {
        ConfigError::NotEnoughCores { .. } => ArgError::new(
            "--costs native",
            format!("{e} ({} processes for this transform)", grain.processes()),
        ),
        ConfigError::HostLimit { .. } | ConfigError::TooManyThreads { .. } => ArgError::new(
            flag,
            format!(
                "{e} (N = {} with {} makes {} processes)",
                grain.n(),
                transform_label(grain),
                grain.processes()
            ),
        ),
        e => machine.config_error(&e),
    })
}

/// Whether a pipeline of `grain` runs natively on this host (`Err`: the cores the machine
/// counts, too few).
fn fits_natively(machine: &MachinePlan, grain: Grain) -> Result<(), usize> {
    let config = pipeline_config(
        grain,
        PipelineCosts::Native,
        &machine.config(&Hints::default()),
    );
    match pipeline_topology(grain).map(|t| config.resolve(&t)) {
        Ok(Err(ConfigError::NotEnoughCores { cores, .. })) => Err(cores),
        _ => Ok(()),
    }
}

/// The table whose model a grain follows: packets (\[K,K\]) or single values (\[M,1\]).
pub(crate) fn table_of(grain: Grain) -> OclTable {
    if grain.k() > 1 {
        OclTable::Kk
    } else {
        OclTable::M1
    }
}

/// Bytes per value of a stream: A, B, the reference's B and the pipeline's packets.
const STREAM_VALUE_BYTES: f64 = 4.0 * 8.0;

/// Checks that a stream of `length` values fits in memory.
fn check_stream(length: u64) -> Result<(), ArgError> {
    Footprint::new()
        .add(
            "--length",
            format!("a stream of {length} values"),
            length as f64 * STREAM_VALUE_BYTES,
        )
        .check()
}

/// Trace records one value makes per process it passes (its interval there, its message with
/// its start-up and the wait for it).
const TRACE_RECORDS_PER_VALUE_HOP: f64 = 4.0;

/// What an `ocl` run holds (the memory model): the stream, the pipeline's processes (as its
/// machine resolves them with the pipeline's hints) and its trace.
fn footprint(
    grain: Grain,
    length: usize,
    costs: PipelineCosts,
    machine: &MachinePlan,
) -> Result<Footprint, ArgError> {
    let topology = pipeline_topology(grain).map_err(|e| ArgError::new("--window", e))?;
    let mut f = Footprint::new();
    f.machine(&topology, machine, &pipeline_hints(grain, costs))?
        .add(
            "--length",
            format!("a stream of {length} values"),
            length as f64 * STREAM_VALUE_BYTES,
        );
    if f.traced() {
        let hops = length as f64 * grain.processes() as f64 / grain.k().max(1) as f64;
        f.trace(hops * TRACE_RECORDS_PER_VALUE_HOP);
    }
    Ok(f)
}

fn costs_inputs(i: &mut Inputs, native: bool, c: Option<Costs>) {
    i.add("costs", if native { "native" } else { "emulated" });
    if let Some(c) = c {
        i.duration("alpha0", Duration::from_secs_f64(c.alpha0_s))
            .duration("alpha1", Duration::from_secs_f64(c.alpha1_s))
            .duration("beta", Duration::from_secs_f64(c.beta_s));
    }
}

/// Reads `--input`: one integer per line, blank lines ignored, a byte-order mark allowed.
pub(crate) fn read_stream(path: &Path) -> Result<Vec<i64>, ArgError> {
    let flag = format!("--input {}", path.display());
    let text = read_text(path).map_err(|e| ArgError::new(&flag, e))?;
    let a = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            l.trim().parse::<i64>().map_err(|_| {
                ArgError::new(
                    &flag,
                    format!(
                        "line {}: '{}' is not an integer",
                        i + 1,
                        l.trim().escape_default()
                    ),
                )
            })
        })
        .collect::<Result<Vec<i64>, ArgError>>()?;
    if a.is_empty() {
        return Err(ArgError::new(&flag, "no integers in the file"));
    }
    Ok(a)
}

/// One OCL run beside its model.
#[derive(Debug, Clone)]
pub(crate) struct OclPlan {
    /// The transform.
    pub(crate) grain: Grain,
    /// The stream A.
    pub(crate) stream: Vec<i64>,
    /// Where A came from.
    pub(crate) source: String,
    /// Native (real work, wall clock) or emulated costs.
    pub(crate) native: bool,
    /// The model's constants (emulated: the costs charged).
    pub(crate) model: Option<Costs>,
    /// How the machine is built.
    pub(crate) machine: MachinePlan,
    /// Where B goes, if anywhere.
    pub(crate) output_stream: Option<PathBuf>,
    /// Trace files.
    pub(crate) trace: TracePlan,
    /// Repetitions.
    pub(crate) repeat: Repeat,
    /// Output.
    pub(crate) output: OutputPlan,
    /// The memory the run will hold, as the memory model plans it.
    pub(crate) memory: Footprint,
}

impl OclPlan {
    /// Validates `ocl`'s flags.
    pub(crate) fn new(a: &OclArgs, out: &Path) -> Result<Self, ArgError> {
        let grain = parse_transform(&a.transform, a.window)?;
        if a.values < 0 {
            return Err(ArgError::new(
                "--values",
                format!("must be ≥ 0, got {}", a.values),
            ));
        }
        let packets = grain.k() > 1
            || ["kk", "mk"]
                .iter()
                .any(|p| a.transform.trim().starts_with(p));
        let model = model_costs(&a.machine, packets)?;
        let trace = TracePlan::new(&a.trace)?;
        let native = a.machine.costs == CostsArg::Native;
        let machine = machine(&a.machine, out, &trace)?;
        pipeline_machine(&machine, grain, model, native, "--window")?;
        let output_stream = optional_file("--output", a.output.as_deref())?;
        let output = OutputPlan::new(&a.report)?;
        let stream_flag = output_stream.as_deref().map(|p| ("--output", p));
        super::distinct_outputs(Some(&trace), &output, stream_flag.as_slice())?;
        let (stream, source) = match &a.input {
            Some(path) => (read_stream(path)?, path.display().to_string()),
            None => {
                check_stream(a.length)?;
                (
                    random_stream(a.length as usize, 0, a.values, a.seed),
                    format!("random, seed {}, values 0..={}", a.seed, a.values),
                )
            }
        };
        let memory = footprint(grain, stream.len(), pipeline_costs(model, native), &machine)?;
        memory.check()?;
        Ok(Self {
            grain,
            stream,
            source,
            native,
            model,
            machine,
            output_stream,
            trace,
            repeat: (&a.repeat).into(),
            output,
            memory,
        })
    }

    /// Every input.
    pub(crate) fn inputs(&self) -> Inputs {
        let mut i = Inputs::new();
        i.add("window", self.grain.n())
            .add("transform", transform_label(self.grain))
            .add("length", self.stream.len())
            .add("stream", &self.source);
        costs_inputs(&mut i, self.native, self.model);
        i.extend(self.machine.inputs()).extend(self.repeat.inputs());
        i
    }
}

/// The table of a `--transforms` item.
pub(crate) fn table(t: TableArg) -> OclTable {
    match t {
        TableArg::M1 => OclTable::M1,
        TableArg::Kk => OclTable::Kk,
    }
}

/// `sweep ocl`: the paper's grid beside the model.
#[derive(Debug, Clone)]
pub(crate) struct SweepOclPlan {
    /// `(table, grain)` per cell, in order.
    pub(crate) cells: Vec<(OclTable, Grain)>,
    /// The stream every cell runs on.
    pub(crate) stream: Vec<i64>,
    /// Its seed.
    pub(crate) seed: u64,
    /// Native or emulated costs.
    pub(crate) native: bool,
    /// The model's constants for single values (\[M,1\]) and packets (\[K,K\]).
    pub(crate) models: [Option<Costs>; 2],
    /// How the machine is built.
    pub(crate) machine: MachinePlan,
    /// Repetitions per cell.
    pub(crate) repeat: Repeat,
    /// The run's folder.
    pub(crate) folder: RunFolderPlan,
    /// Output.
    pub(crate) output: OutputPlan,
    /// A warning to show before running, if the length does not suit the grid.
    pub(crate) warning: Option<String>,
}

impl SweepOclPlan {
    /// Validates `sweep ocl`'s flags.
    pub(crate) fn new(a: &SweepOclArgs, out: &Path) -> Result<Self, ArgError> {
        let tables = choices(
            "--transforms",
            &a.transforms,
            "transform",
            &[("m1", OclTable::M1), ("kk", OclTable::Kk)],
        )?;
        let most = multicomputer_runtime::tuning::MAX_PROCESSORS as u64;
        let windows: Vec<usize> = counts("--windows", &a.windows, 1..=most)?
            .into_iter()
            .map(|n| n as usize)
            .collect();
        let given: Option<Vec<usize>> = a
            .grains
            .as_deref()
            .map(|g| {
                counts("--grains", g, 1..=most).map(|v| v.into_iter().map(|g| g as usize).collect())
            })
            .transpose()?;
        let explicit = a.cells.as_deref().map(parse_cells).transpose()?;
        let native = a.machine.costs == CostsArg::Native;
        let mut machine = machine(&a.machine, out, &TracePlan::default())?;
        // With native costs the default grid keeps the cells whose machine runs natively
        // here; the cores are the machine's count, from its refusal.
        let mut refused_cores = None;
        let mut cells = Vec::new();
        for &t in &tables {
            let pairs: Vec<(usize, usize, bool)> = match &explicit {
                Some(pairs) => pairs.iter().map(|&(n, g)| (n, g, true)).collect(),
                None => windows
                    .iter()
                    .flat_map(|&n| match &given {
                        Some(gs) => gs.iter().map(|&g| (n, g, true)).collect::<Vec<_>>(),
                        None => t
                            .paper_grains(n)
                            .into_iter()
                            .map(|g| (n, g, false))
                            .collect(),
                    })
                    .collect(),
            };
            let flag = if a.cells.is_some() {
                "--cells"
            } else {
                "--grains"
            };
            for (n, g, named) in pairs {
                let grain = t.grain(n, g).map_err(|e| ArgError::new(flag, e))?;
                if named || !native {
                    cells.push((t, grain));
                    continue;
                }
                match fits_natively(&machine, grain) {
                    Ok(()) => cells.push((t, grain)),
                    Err(cores) => refused_cores = Some(cores),
                }
            }
        }
        if cells.is_empty() {
            return Err(ArgError::new(
                "--costs native",
                format!(
                    "no cell of the grid has at most {} processes (one per core); name some \
                     with --cells N:G",
                    refused_cores.unwrap_or(0)
                ),
            ));
        }
        let topologies: Vec<Topology> = cells
            .iter()
            .filter_map(|&(_, g)| pipeline_topology(g).ok())
            .collect();
        machine.one_mode_for(&topologies);
        let warning = cells
            .iter()
            .find(|(_, g)| a.length % g.k() as u64 != 0)
            .map(|(_, g)| {
                format!(
                    "--length {} is not a multiple of K = {}: the last packet is padded, and \
                     §4.2's model (which `fit ocl` uses) takes L/K whole",
                    a.length,
                    g.k()
                )
            });
        let models = [
            model_costs(&a.machine, false)?,
            model_costs(&a.machine, true)?,
        ];
        let flag = if a.cells.is_some() {
            "--cells"
        } else {
            "--windows"
        };
        for &(t, grain) in &cells {
            pipeline_machine(
                &machine,
                grain,
                models[usize::from(t == OclTable::Kk)],
                native,
                flag,
            )?;
        }
        check_stream(a.length)?;
        Ok(Self {
            cells,
            stream: random_stream(a.length as usize, 0, 9, a.seed),
            seed: a.seed,
            native,
            models,
            machine,
            repeat: Repeat {
                runs: a.runs,
                warmup: a.warmup,
            },
            folder: RunFolderPlan::new(out, &a.name)?,
            output: OutputPlan::new(&a.output)?,
            warning,
        })
    }

    /// The model's constants for a table.
    pub(crate) fn model(&self, t: OclTable) -> Option<Costs> {
        self.models[usize::from(t == OclTable::Kk)]
    }

    /// Every input.
    pub(crate) fn inputs(&self) -> Inputs {
        let mut i = Inputs::new();
        let cells: Vec<String> = self
            .cells
            .iter()
            .map(|(t, g)| format!("{} N={}:{}", t.name(), g.n(), g.m()))
            .collect();
        i.add("cells", cells.join(", "))
            .add("length", self.stream.len())
            .add("seed", self.seed);
        costs_inputs(&mut i, self.native, self.models[1].or(self.models[0]));
        i.extend(self.machine.inputs())
            .extend(self.repeat.inputs())
            .add("name", &self.folder.name);
        i
    }
}

fn parse_cells(list: &str) -> Result<Vec<(usize, usize)>, ArgError> {
    split_list("--cells", list)?
        .into_iter()
        .map(|cell| {
            let parse = |s: &str| s.trim().parse::<usize>().ok().filter(|&v| v >= 1);
            cell.split_once(':')
                .and_then(|(n, g)| Some((parse(n)?, parse(g)?)))
                .ok_or_else(|| {
                    ArgError::new(
                        "--cells",
                        format!("'{cell}' is not N:G with whole numbers ≥ 1 (e.g. 50:25)"),
                    )
                })
        })
        .collect()
}

/// `fit ocl`: a timing table fitted.
#[derive(Debug, Clone)]
pub(crate) struct FitOclPlan {
    /// Which model.
    pub(crate) table: OclTable,
    /// The rows to fit.
    pub(crate) rows: Vec<TimingRow>,
    /// The constants the table was made with, if known.
    pub(crate) reference: Option<Costs>,
    /// Where the table came from.
    pub(crate) source: String,
    /// Whether the table was emulated with its reference constants.
    pub(crate) self_check: bool,
    /// The CSV's path, for errors about its data.
    pub(crate) csv: Option<PathBuf>,
    /// Least-squares weighting.
    pub(crate) weighting: Weighting,
    /// Output.
    pub(crate) output: OutputPlan,
}

/// A timing table as read.
#[derive(Debug, Clone)]
pub(crate) struct TimingTable {
    /// Its rows.
    pub(crate) rows: Vec<TimingRow>,
    /// The constants an emulated sweep was run with (none for native costs).
    pub(crate) reference: Option<Costs>,
    /// Whether every row was emulated with those constants (its `costs` column says
    /// `emulated`): the model's times are then reproduced by construction.
    pub(crate) self_check: bool,
}

/// Reads a timing table; missing columns and bad cells name the file, row and column.
pub(crate) fn read_table(path: &Path, table: OclTable) -> Result<TimingTable, ArgError> {
    let flag = format!("--csv {}", path.display());
    let err = |e: &dyn std::fmt::Display| ArgError::new(&flag, e);
    let t = Columns::read(path).map_err(|e| err(&e))?;
    // Whole numbers ≥ 1, at most 10¹² (the model's terms stay exact in f64).
    let whole = |c: &str| t.whole(c, 1..=1_000_000_000_000).map_err(|e| err(&e));
    let (n, g, l) = (whole("n")?, whole(table.column())?, whole("l")?);
    let elapsed = match t.first_of(&["elapsed_s"]) {
        Some(c) => t.numbers(c).map_err(|e| err(&e))?,
        None => match t.first_of(&["elapsed_ms", "et_ms", "et"]) {
            Some(c) => t
                .numbers(c)
                .map_err(|e| err(&e))?
                .into_iter()
                .map(|v| v / 1e3)
                .collect(),
            None => t.numbers("elapsed_s").map_err(|e| err(&e))?,
        },
    };
    let mut rows = Vec::with_capacity(n.len());
    for i in 0..n.len() {
        // Within a picosecond and 10¹² s: the relative weights 1/t² stay finite.
        if !(1e-12..=1e12).contains(&elapsed[i]) {
            return Err(err(&format!(
                "row {} column 'elapsed_s': {} is not a time in 1e-12..=1e12 s",
                i + 2,
                elapsed[i]
            )));
        }
        rows.push(TimingRow::new(
            n[i] as usize,
            g[i] as usize,
            l[i],
            elapsed[i],
        ));
    }
    // The constants an emulated sweep was run with (absent for native runs: no reference);
    // a reference column that is present must hold times ≥ 0 in every row.
    let mean = |c: &str| t.mean_time(c).map_err(|e| err(&e));
    let injected = match (mean("alpha0_s")?, mean("alpha1_s")?, mean("beta_s")?) {
        (Some(alpha0_s), Some(alpha1_s), Some(beta_s)) => Some(Costs {
            alpha0_s,
            alpha1_s,
            beta_s,
        }),
        _ => None,
    };
    let self_check = injected.is_some()
        && t.texts("costs")
            .is_some_and(|c| c.iter().all(|&costs| costs == "emulated"));
    Ok(TimingTable {
        rows,
        reference: injected,
        self_check,
    })
}

impl FitOclPlan {
    /// Validates `fit ocl`'s flags and reads its table.
    pub(crate) fn new(a: &FitOclArgs) -> Result<Self, ArgError> {
        let t = table(a.transform);
        let (mut rows, reference, source, self_check) = match &a.csv {
            Some(path) => {
                let read = read_table(path, t)?;
                let source = path.display().to_string();
                (read.rows, read.reference, source, read.self_check)
            }
            None => (
                t.paper_table().to_vec(),
                Some(t.paper_costs()),
                format!("the paper's published table ({})", t.section()),
                false,
            ),
        };
        if a.multi_process {
            rows = multi_process_rows(&rows);
        }
        Ok(Self {
            table: t,
            rows,
            reference,
            source,
            self_check,
            csv: a.csv.clone(),
            weighting: match a.weighting {
                WeightingArg::Relative => Weighting::Relative,
                WeightingArg::Unweighted => Weighting::Unweighted,
            },
            output: OutputPlan::new(&a.output)?,
        })
    }

    /// The weighting's name.
    pub(crate) fn weighting_name(&self) -> &'static str {
        match self.weighting {
            Weighting::Relative => "relative (w = 1/t²)",
            Weighting::Unweighted => "unweighted",
        }
    }

    /// The flag to name for errors about the table's data.
    pub(crate) fn data_flag(&self) -> String {
        match &self.csv {
            Some(p) => format!("--csv {}", p.display()),
            None => "--paper".into(),
        }
    }

    /// Every input.
    pub(crate) fn inputs(&self) -> Inputs {
        let mut i = Inputs::new();
        i.add("transform", self.table.name())
            .add("source", &self.source)
            .add("rows", self.rows.len())
            .add("weighting", self.weighting_name());
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transforms_parse_and_bad_ones_name_the_flag() {
        assert_eq!(parse_transform("fine", 7).unwrap(), Grain::fine(7).unwrap());
        assert_eq!(
            parse_transform("m1:5", 50).unwrap(),
            Grain::m1(50, 5).unwrap()
        );
        assert_eq!(
            parse_transform("kk:5", 50).unwrap(),
            Grain::kk(50, 5).unwrap()
        );
        assert_eq!(
            parse_transform("mk:10,5", 50).unwrap(),
            Grain::new(50, 10, 5).unwrap()
        );
        for (spec, n, needle) in [
            ("kk:3", 10, "does not divide window length N = 10"),
            ("mk:6,4", 12, "does not divide cell size M = 6"),
            ("ring:2", 10, "unknown transform"),
            ("m1:x", 10, "not a whole number"),
            ("mk:4", 12, "two numbers"),
        ] {
            let e = parse_transform(spec, n).unwrap_err();
            assert!(e.flag == "--transform" && e.message.contains(needle), "{e}");
        }
        assert_eq!(parse_transform("fine", 0).unwrap_err().flag, "--window");
    }

    #[test]
    fn a_stream_file_may_start_with_a_byte_order_mark() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        std::fs::write(&p, "\u{feff}1\n\n2\n").unwrap();
        assert_eq!(read_stream(&p).unwrap(), vec![1, 2]);
        std::fs::write(&p, "1\nx\n").unwrap();
        let e = read_stream(&p).unwrap_err();
        assert!(
            e.to_string().ends_with("line 2: 'x' is not an integer"),
            "{e}"
        );
    }

    #[test]
    fn a_table_with_a_fractional_grain_is_refused_naming_row_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.csv");
        std::fs::write(&p, "N,K,L,Elapsed_S\n12,2,60,0.001\n12,2.5,60,0.002\n").unwrap();
        let e = read_table(&p, OclTable::Kk).unwrap_err();
        assert!(e.message.contains("row 3 column 'k'"), "{e}");
    }

    #[test]
    fn a_table_of_emulated_costs_is_a_self_check() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.csv");
        let head = "n,k,l,elapsed_s,alpha0_s,alpha1_s,beta_s,costs\n";
        let row = "12,2,60,0.001,1e-6,1e-6,1e-6";
        let check = |modes: &[&str]| {
            let rows: String = modes.iter().map(|m| format!("{row},{m}\n")).collect();
            std::fs::write(&p, format!("{head}{rows}")).unwrap();
            read_table(&p, OclTable::Kk).unwrap().self_check
        };
        assert!(check(&["emulated", "emulated"]));
        assert!(!check(&["emulated", "native"]));
        assert!(!check(&["native"]));
        // Without the constants there is nothing the runs could reproduce.
        std::fs::write(&p, "n,k,l,elapsed_s,costs\n12,2,60,0.001,emulated\n").unwrap();
        assert!(!read_table(&p, OclTable::Kk).unwrap().self_check);
    }

    #[test]
    fn garbage_in_a_reference_column_names_its_row_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.csv");
        let head = "n,k,l,elapsed_s,alpha0_s,alpha1_s,beta_s\n";
        std::fs::write(&p, format!("{head}12,2,60,0.001,1e-6,1e-6,1e-6\n")).unwrap();
        let read = read_table(&p, OclTable::Kk).unwrap();
        assert!(read.reference.is_some() && !read.self_check);
        for (bad, needle) in [
            ("12,2,60,0.001,x,1e-6,1e-6", "row 2 column 'alpha0_s': 'x'"),
            (
                "12,2,60,0.001,1e-6,NaN,1e-6",
                "row 2 column 'alpha1_s': NaN",
            ),
            ("12,2,60,0.001,1e-6,1e-6,-1", "row 2 column 'beta_s': -1"),
        ] {
            std::fs::write(&p, format!("{head}{bad}\n")).unwrap();
            let e = read_table(&p, OclTable::Kk).unwrap_err();
            assert!(e.message.contains(needle), "{e}");
        }
    }
}
