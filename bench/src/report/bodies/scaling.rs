//! `scaling`: the candidate's fits per loop count (the paper's Tables 1–2), the consistency
//! verdict in words, the alternatives, and the plots: cell means against P with the fits,
//! b against loop_count with the constrained line, and the residuals.

use anyhow::Result;
use multicomputer_workloads::analysis::{
    AppliedWeighting, ConsistencyReport, ExactCheck, InconclusiveReason, KurtosisSource,
    NestedTest, NoiseAllowance, NoiseEstimate, NoiseSource, OverheadFit, OverheadModel, Resampled,
    TestKind, VarianceLevels, Verdict, Warning, WeightingChoice, WeightingRule,
};
use multicomputer_workloads::ising::Mechanism;
use serde::Serialize;

use crate::exec::ScalingRow;
use crate::plan::Fitted;
use crate::plot::{ErrorBar, LineChart, Point, ResidualSeries, Residuals, Scale, Ticks};
use crate::report::{Block, Body, Figure, Section, Table, csv};
use crate::units::human_s;

/// The candidate's coefficients at one loop count (a row of the paper's Tables 1–2).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct LoopCountRow {
    pub(crate) loop_count: f64,
    /// The constant term.
    pub(crate) a: f64,
    pub(crate) a_std_error: f64,
    /// The second term's coefficient (`log P` for the paper's (6)), if the model has one.
    pub(crate) b: Option<f64>,
    pub(crate) b_std_error: Option<f64>,
    pub(crate) r_squared: f64,
    /// Where the standard errors come from: replicates, std errors or residuals (the last for
    /// orientation only; the verdict never uses them).
    pub(crate) uncertainty: String,
    /// Every coefficient, by name.
    pub(crate) coefficients: Vec<Coefficient>,
}

/// One fitted coefficient.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Coefficient {
    pub(crate) name: String,
    pub(crate) term: String,
    pub(crate) value: f64,
    pub(crate) std_error: f64,
}

impl From<&OverheadFit> for LoopCountRow {
    fn from(fit: &OverheadFit) -> Self {
        let c = &fit.coefficients;
        LoopCountRow {
            loop_count: fit.loop_count,
            a: c[0].value,
            a_std_error: c[0].std_error,
            b: c.get(1).map(|t| t.value),
            b_std_error: c.get(1).map(|t| t.std_error),
            r_squared: fit.r_squared,
            uncertainty: fit.uncertainty.as_str().into(),
            coefficients: c
                .iter()
                .map(|t| Coefficient {
                    name: t.name.clone(),
                    term: t.term.to_string(),
                    value: t.value,
                    std_error: t.std_error,
                })
                .collect(),
        }
    }
}

/// Another candidate, fitted and judged by the same rule.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct AlternativeFit {
    pub(crate) model: String,
    pub(crate) loop_counts: Vec<LoopCountRow>,
    pub(crate) verdict: Option<Verdict>,
}

/// One candidate analysed: its fits, and the consistency test when there are two or more loop
/// counts.
#[derive(Debug, Clone)]
pub(crate) struct Analysis {
    pub(crate) fits: Vec<OverheadFit>,
    pub(crate) test: Option<ConsistencyReport>,
    pub(crate) weighting: WeightingChoice,
    pub(crate) noise: NoiseEstimate,
    pub(crate) warnings: Vec<Warning>,
}

/// What `scaling` reports.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ScalingReport {
    /// The mechanism (null for `--csv`).
    pub(crate) mechanism: Option<Mechanism>,
    /// The table analysed (`--csv`), if any.
    pub(crate) source: Option<String>,
    /// What was fitted: `run time (s)` or `Φ_s = time_s / ideal_s`.
    pub(crate) fitted: Fitted,
    pub(crate) model: String,
    /// The richer model of `--against`, if any.
    pub(crate) against: Option<String>,
    /// The weighting applied, and why; the noise.
    pub(crate) weighting: String,
    /// Per loop count: a, b (the paper's Tables 1–2).
    pub(crate) loop_counts: Vec<LoopCountRow>,
    /// `consistent`, `refuted` or `inconclusive`; null with a single loop count (nothing to
    /// compare).
    pub(crate) verdict: Option<Verdict>,
    /// The verdict in words: the test that decided, its statistic, degrees of freedom and
    /// p-value, or why the data cannot decide.
    pub(crate) explanation: String,
    /// What the user should know about the data, and what to do about it.
    pub(crate) warnings: Vec<String>,
    /// The whole consistency test (tests, noise, power, fits).
    pub(crate) test: Option<ConsistencyReport>,
    pub(crate) alternatives: Vec<AlternativeFit>,
    /// The measured runs (empty for `--csv`).
    pub(crate) rows: Vec<ScalingRow>,
    /// The candidate's fits (for the plots).
    #[serde(skip)]
    pub(crate) fits: Vec<OverheadFit>,
    /// The candidate itself.
    #[serde(skip)]
    pub(crate) candidate: OverheadModel,
}

impl ScalingReport {
    /// The report of `main` (the candidate's analysis) and the alternatives' on the data of
    /// `rows` (a sweep) or of `source` (a table).
    pub(crate) fn new(
        main: Analysis,
        candidate: &OverheadModel,
        alternatives: Vec<AlternativeFit>,
        fitted: Fitted,
        mechanism: Option<Mechanism>,
        source: Option<String>,
        rows: Vec<ScalingRow>,
    ) -> Self {
        let units = Units {
            run_time: fitted == Fitted::RunTime,
        };
        ScalingReport {
            mechanism,
            source,
            fitted,
            model: candidate.to_string(),
            against: main
                .test
                .as_ref()
                .and_then(|t| t.against.as_ref().map(|m| m.to_string())),
            weighting: format!(
                "{}; {}{}",
                weighting_text(&main.weighting),
                noise_text(&main.noise, main.weighting.applied, units),
                main.test
                    .as_ref()
                    .and_then(|t| t.allowance.as_ref())
                    .map(|a| format!("; {}", allowance_text(a)))
                    .unwrap_or_default()
            ),
            loop_counts: main.fits.iter().map(LoopCountRow::from).collect(),
            verdict: main.test.as_ref().map(|t| t.verdict),
            explanation: main.test.as_ref().map_or_else(
                || "one loop count only: the consistency test needs two or more".into(),
                |t| explain(t, units),
            ),
            warnings: main.warnings.iter().map(warning_text).collect(),
            test: main.test,
            alternatives,
            rows,
            fits: main.fits,
            candidate: candidate.clone(),
        }
    }

    fn units(&self) -> Units {
        Units {
            run_time: self.fitted == Fitted::RunTime,
        }
    }

    /// The paper's Table 1 or 2: a and b per loop count.
    fn table(&self) -> Table {
        let units = self.units();
        let mut t = Table::new(&["loop_count", "a", "b", "R²", "σ from"]);
        for row in &self.loop_counts {
            t.row(vec![
                format!("{}", row.loop_count),
                format!("{} ± {}", units.show(row.a), units.show(row.a_std_error)),
                match (row.b, row.b_std_error) {
                    (Some(b), Some(s)) => format!("{} ± {}", units.show(b), units.show(s)),
                    _ => "—".into(),
                },
                format!("{:.4}", row.r_squared),
                row.uncertainty.clone(),
            ]);
        }
        t
    }

    /// Cell means against P per loop count, each with its fit, in one colour.
    fn time_chart(&self) -> LineChart {
        let mut chart = LineChart::new(
            format!(
                "{} against processors (cell means), fitted with Φ(P) = {}",
                self.fitted, self.candidate
            ),
            "processors P",
            self.fitted.to_string(),
        )
        .x_scale(Scale::Log10)
        .x_ticks(Ticks::Data);
        chart.key = Some(("cell mean".into(), format!("fit of {}", self.candidate)));
        for f in &self.fits {
            let spread = self.cell_spreads(f.loop_count);
            let measured = f.processors.iter().zip(&f.observed).map(|(&p, &y)| {
                match spread.iter().find(|(q, _)| *q == p) {
                    Some(&(_, sd)) if sd > 0.0 => {
                        Point::with_error(f64::from(p), y, ErrorBar::PlusMinus(sd))
                    }
                    _ => Point::new(f64::from(p), y),
                }
            });
            let (lo, hi) = f
                .processors
                .iter()
                .fold((f64::MAX, 0.0_f64), |(lo, hi), &p| {
                    (lo.min(f64::from(p)), hi.max(f64::from(p)))
                });
            let model = (0..=60).map(|i| {
                let p = lo * (hi / lo).powf(f64::from(i) / 60.0);
                (p, f.predict(p))
            });
            chart = chart.pair(format!("loop_count {}", f.loop_count), measured, model);
        }
        chart
    }

    /// The standard deviation of the fitted quantity over each P's replicates at a loop
    /// count (a sweep's rows only).
    fn cell_spreads(&self, loop_count: f64) -> Vec<(u32, f64)> {
        let mut out: Vec<(u32, f64)> = Vec::new();
        let rows: Vec<&ScalingRow> = self
            .rows
            .iter()
            .filter(|r| r.loop_count as f64 == loop_count)
            .collect();
        let mut ps: Vec<u32> = rows.iter().map(|r| r.processors).collect();
        ps.dedup();
        for p in ps {
            let ys: Vec<f64> = rows
                .iter()
                .filter(|r| r.processors == p)
                .map(|r| r.time_s / r.ideal_s)
                .collect();
            if ys.len() > 1 {
                let n = ys.len() as f64;
                let mean = ys.iter().sum::<f64>() / n;
                let var = ys.iter().map(|y| (y - mean).powi(2)).sum::<f64>() / (n - 1.0);
                out.push((p, var.sqrt()));
            }
        }
        out
    }

    /// b (the second coefficient) against loop_count: the per-table fits with their standard
    /// errors, and the line of the constrained fit.
    fn coefficient_chart(&self) -> Option<LineChart> {
        let test = self.test.as_ref()?;
        let line = test.constrained.lines.first()?;
        let xs: Vec<f64> = self.fits.iter().map(|f| f.loop_count).collect();
        let (lo, hi) = xs
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
        let measured = self.fits.iter().filter_map(|f| {
            f.coefficient(line.term).map(|c| {
                if c.std_error.is_finite() && c.std_error > 0.0 {
                    Point::with_error(f.loop_count, c.value, ErrorBar::PlusMinus(c.std_error))
                } else {
                    Point::new(f.loop_count, c.value)
                }
            })
        });
        let mut chart = LineChart::new(
            format!(
                "{} against loop_count, with the line of the constrained fit",
                line.name
            ),
            "loop_count (busy-loop iterations per message)",
            format!("{} ({} coefficient)", line.name, line.term),
        )
        .x_ticks(Ticks::Data)
        .pair(
            line.name.clone(),
            measured,
            [lo, hi].map(|x| (x, line.at(x))),
        );
        chart.key = Some((
            "fitted per loop_count".into(),
            format!(
                "{} = {:.3e} + {:.3e} × (loop_count − {})",
                line.name,
                line.at_smallest_loop_count.value,
                line.slope.value,
                line.smallest_loop_count
            ),
        ));
        Some(chart)
    }

    /// Each loop count's relative residuals against P.
    fn residual_chart(&self) -> Residuals {
        Residuals {
            title: format!(
                "Relative residuals of Φ(P) = {} at each loop count",
                self.candidate
            ),
            x: crate::plot::AxisSpec {
                ticks: Ticks::Data,
                ..crate::plot::AxisSpec::new("processors P", Scale::Log10)
            },
            y_label: "(mean − fit) / mean".into(),
            series: self
                .fits
                .iter()
                .map(|f| ResidualSeries {
                    label: format!("loop_count {}", f.loop_count),
                    points: f
                        .processors
                        .iter()
                        .zip(&f.relative_residuals)
                        .map(|(&p, &r)| Point::new(f64::from(p), r))
                        .collect(),
                })
                .collect(),
            sigma: None,
            sigma_label: None,
        }
    }
}

impl Body for ScalingReport {
    fn title(&self) -> String {
        match (&self.mechanism, &self.source) {
            (Some(m), _) => format!("Scalability of ising, {m} mechanism: Φ(P) = {}", self.model),
            (None, Some(s)) => format!("Scalability of {s}: Φ(P) = {}", self.model),
            (None, None) => format!("Scalability: Φ(P) = {}", self.model),
        }
    }

    fn results(&self) -> Vec<Section> {
        let mut blocks = vec![
            Block::Text(format!(
                "{} fitted with Φ(P) = {}; {}",
                self.fitted, self.model, self.weighting
            )),
            Block::Table(self.table()),
        ];
        for a in &self.alternatives {
            let r2: Vec<String> = a
                .loop_counts
                .iter()
                .map(|l| format!("{:.4}", l.r_squared))
                .collect();
            blocks.push(Block::Text(format!(
                "alternative Φ(P) = {}: R² per loop_count {}{}",
                a.model,
                r2.join(", "),
                a.verdict
                    .map(|v| format!(", verdict {}", v.as_str()))
                    .unwrap_or_default()
            )));
        }
        blocks.push(Block::Text(format!(
            "verdict: {}",
            self.verdict.map_or("none", Verdict::as_str)
        )));
        blocks.push(Block::Text(self.explanation.clone()));
        blocks.extend(self.warnings.iter().cloned().map(Block::Warning));
        vec![Section::results("The candidate per loop count", blocks)]
    }

    fn figures(&self) -> Result<Vec<Figure>> {
        let mut figures = vec![Figure {
            file: "time.svg".into(),
            caption: format!(
                "{} against P with the fit of each loop count (error bars: sd of the \
                 replicates)",
                self.fitted
            ),
            svg: self.time_chart().to_svg(960, 600)?,
        }];
        if let Some(c) = self.coefficient_chart() {
            figures.push(Figure {
                file: "b.svg".into(),
                caption: "the second coefficient against loop_count, with the constrained line"
                    .into(),
                svg: c.to_svg(800, 520)?,
            });
        }
        figures.push(Figure {
            file: "residuals.svg".into(),
            caption: "relative residuals of each loop count's fit".into(),
            svg: self.residual_chart().to_line_chart().to_svg(960, 480)?,
        });
        Ok(figures)
    }

    fn csv(&self) -> Result<Option<Vec<u8>>> {
        if self.rows.is_empty() {
            Ok(None)
        } else {
            Ok(Some(csv::rows(&self.rows)?))
        }
    }
}

/// How values of the fitted quantity are shown: run times with a unit, `Φ_s` as a number.
#[derive(Clone, Copy)]
struct Units {
    run_time: bool,
}

impl Units {
    fn show(self, v: f64) -> String {
        if self.run_time {
            human_s(v)
        } else if v != 0.0 && v.abs() < 1e-3 {
            // A slope per unit of loop_count: four significant digits, not "0.0000".
            format!("{v:.3e}")
        } else {
            format!("{v:.4}")
        }
    }
}

fn p_text(p: f64) -> String {
    if p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

fn dof_text(d: Option<usize>) -> String {
    d.map_or("∞".into(), |d| d.to_string())
}

fn percent(x: f64) -> String {
    format!("{:.1} %", 100.0 * x)
}

/// A test's p-value, and the F distribution's beside it when allowing for the noise's shape
/// and tails changed it; from `resampled`, how many resamples reached its F, or that the
/// exact p-value widened for the tails was larger.
fn p_both(t: &NestedTest, resampled: Option<&Resampled>) -> String {
    if p_text(t.p_value) == p_text(t.f_p_value) {
        return p_text(t.p_value);
    }
    let count = resampled.and_then(|r| r.counts.iter().find(|c| c.kind == t.kind));
    let how = match count {
        Some(c) if c.floored => format!(
            "the exact p-value for the tails the runs show, above the resamples' {} of {}",
            c.at_or_above, c.of
        ),
        Some(c) => format!(
            "{} of {} resamples of the candidate's fit reached its F",
            c.at_or_above, c.of
        ),
        None => "allowing for the noise's tails".into(),
    };
    format!(
        "{} ({how}; F distribution: {})",
        p_text(t.p_value),
        p_text(t.f_p_value)
    )
}

/// A test's name, statistic, degrees of freedom and p-value.
fn test_text(
    t: &NestedTest,
    against: Option<&OverheadModel>,
    resampled: Option<&Resampled>,
) -> String {
    match t.kind {
        TestKind::Trend => format!(
            "trend test of a against loop_count: t = {:.2} on {} dof, p = {}",
            t.t.unwrap_or(f64::NAN),
            dof_text(t.error_dof),
            p_both(t, resampled)
        ),
        TestKind::LackOfFit => format!(
            "pooled lack-of-fit test (a shared, other coefficients linear in loop_count): \
             F = {:.2} on ({}, {}) dof, p = {}",
            t.f,
            t.dof,
            dof_text(t.error_dof),
            p_both(t, resampled)
        ),
        TestKind::Against => format!(
            "nested F test against Φ(P) = {}: F = {:.2} on ({}, {}) dof, p = {}",
            against.map(|m| m.to_string()).unwrap_or_default(),
            t.f,
            t.dof,
            dof_text(t.error_dof),
            p_both(t, resampled)
        ),
    }
}

fn noise_text(noise: &NoiseEstimate, weighting: AppliedWeighting, units: Units) -> String {
    match noise.source {
        NoiseSource::StdErrors => "the standard errors given, taken as exact".into(),
        NoiseSource::Unavailable => "no independent noise estimate".into(),
        NoiseSource::Exact => {
            "no noise: the data are exact (a deterministic emulation, or --tolerance)".into()
        }
        NoiseSource::Replicates => format!(
            "noise from {} degrees of freedom of replicates in {} cells ({})",
            dof_text(noise.dof),
            noise.replicated_cells,
            match weighting {
                AppliedWeighting::Relative => {
                    format!("relative sd {:.2} %", 100.0 * noise.variance.sqrt())
                }
                AppliedWeighting::Power { exponent } =>
                    format!("sd {:.3} × mean^{exponent:.2}", noise.variance.sqrt()),
                _ => format!("sd {}", units.show(noise.variance.sqrt())),
            }
        ),
    }
}

/// The weighting, why, and where its weights are evaluated.
fn weighting_text(w: &WeightingChoice) -> String {
    let rule = rule_text(w);
    match (w.levels, w.applied) {
        (
            VarianceLevels::Fitted { cycles },
            AppliedWeighting::Relative | AppliedWeighting::Power { .. },
        ) => {
            format!(
                "{rule}; each cell weighted at the candidate's fitted value, not its own mean, \
                 whose noise would move its weight (iteratively reweighted least squares, \
                 {cycles} cycles)"
            )
        }
        _ => rule,
    }
}

/// The weighting and why, with the level each cell's weight is evaluated at.
fn rule_text(w: &WeightingChoice) -> String {
    let name = w.applied.as_str();
    let at = match w.levels {
        VarianceLevels::Means => "mean",
        VarianceLevels::Fitted { .. } => "fitted",
    };
    match w.rule {
        WeightingRule::Requested => format!("{name} weighting (as asked)"),
        WeightingRule::Replicates {
            exponent,
            likelihood_ratio,
            p_value,
            proportional_rejected,
        } => {
            let test = format!(
                "likelihood ratio {likelihood_ratio:.2} on 1 dof, p = {}",
                p_text(p_value)
            );
            if proportional_rejected {
                format!(
                    "weights 1/{at}^{:.2} (auto: the replicates' scatter grows as the value to \
                     the power {exponent:.2}, and they reject noise proportional to the run \
                     time at 1 %: {test}; the cells are weighted by that power)",
                    2.0 * exponent
                )
            } else {
                format!(
                    "{name} weighting (auto: the replicates' scatter grows as the value to the \
                     power {exponent:.2}, which does not reject noise proportional to the run \
                     time at 1 %: {test})"
                )
            }
        }
        WeightingRule::NoReplicates => format!(
            "{name} weighting (auto without usable replicates: timing noise is mostly \
             proportional to the run time)"
        ),
        WeightingRule::StdErrors => "weights 1/std_error² (from the standard errors)".into(),
    }
}

/// The noise each test's p-value allows for: its reference and tails.
fn allowance_text(a: &NoiseAllowance) -> String {
    let gamma = if a.exponent.fract() == 0.0 {
        format!("{:.0}", a.exponent)
    } else {
        format!("{:.2}", a.exponent)
    };
    let from = match a.kurtosis_from {
        KurtosisSource::Replicates => "replicates' deviations",
        _ => "runs' residuals: too few replicates",
    };
    let tails = match (a.kurtosis_from, a.excess_kurtosis > 0.0) {
        (KurtosisSource::Assumed, _) => {
            "normal tails assumed (the table gives means, not runs)".to_string()
        }
        (_, true) => format!(
            "tails with excess kurtosis {:.2} (from the {from})",
            a.excess_kurtosis
        ),
        (_, false) => "the runs show no heavier tails than normal noise does by chance".into(),
    };
    match &a.resampled {
        Some(r) => {
            let runs = match r.student_dof {
                Some(nu) => format!(
                    "runs drawn from Student's t on {nu:.1} degrees of freedom for {tails}, and \
                     no p-value below the exact one at γ̂ widened for them"
                ),
                None => format!("normal runs ({tails})"),
            };
            format!(
                "each test's p-value from {} resamples of the candidate's fit (at most {}; \
                 fewer once no test could reject) with noise sd ∝ mean^γ̂, γ̂ = {gamma} the \
                 replicates' estimate, and {runs}; each resample judged as the table was, its \
                 weighting and γ̂ estimated again, so that the p-value allows for the error in \
                 the noise's estimated shape (a parametric bootstrap, seeded by the table: \
                 {:#018x}, so the same table gives the same p-values with the same build)",
                r.drawn, r.planned, r.seed
            )
        }
        None => {
            let widened = if a.excess_kurtosis > 0.0 {
                format!("widened for {tails}")
            } else {
                tails
            };
            format!(
                "each test's p-value from the exact distribution of its F ratio for noise with \
                 sd ∝ mean^{gamma}, the weighting's (Imhof 1961), {widened}"
            )
        }
    }
}

/// What the user should know, and what to do about it.
fn warning_text(w: &Warning) -> String {
    let s = human_s;
    match *w {
        Warning::ScatterAtResolution {
            pooled_run_time_sd,
            resolution,
            inferred,
        } => format!(
            "the replicates' scatter (pooled sd {}) is at or below the timer's resolution{}: \
             identical replicates make every pure-error test refute far too often, so they were \
             not used as noise. Make each run longer (more work per run, e.g. \
             --samples-per-processor) until replicates differ by many clock ticks, or measure \
             with a finer clock, or give a std_error column",
            s(pooled_run_time_sd),
            match (resolution, inferred) {
                (Some(r), true) => format!(" ({}, inferred from identical replicates)", s(r)),
                (Some(r), false) => format!(" ({})", s(r)),
                (None, _) => String::new(),
            }
        ),
        Warning::IdenticalReplicates { cells, of } => format!(
            "{cells} of {of} replicated (P, loop_count) have identical run times: the clock's \
             tick is close to the noise, which makes the noise look smaller than it is and the \
             tests refute too often. Make each run longer so that it spans many ticks, or give \
             --timer-resolution so that the check is exact"
        ),
        Warning::FewReplicates {
            dof,
            replicated_cells,
        } => format!(
            "the noise rests on {dof} degrees of freedom of replicates ({replicated_cells} \
             replicated (P, loop_count), e.g. one duplicated P per loop_count): the tests' 1 % \
             then rests on the noise being normal, since so few replicates can show neither its \
             tails nor how it grows with the run time (the allowance for them comes from the \
             candidate's own residuals, and one outlier can still refute a correct model). \
             Repeat every P at least twice (--repeats 2, or two rows of every P in --csv) \
             for a verdict that does not rest on that"
        ),
        Warning::RefutedOnlyForAssumedNoise {
            kind,
            f_p_value,
            p_value,
            excess_kurtosis,
            resampled,
        } => {
            let allowed = match (resampled, excess_kurtosis > 0.0) {
                (true, true) => format!(
                    "the error in the noise's estimated shape, and tails with excess kurtosis \
                     {excess_kurtosis:.2}"
                ),
                (true, false) => "the error in the noise's estimated shape".into(),
                (false, _) => format!("tails with excess kurtosis {excess_kurtosis:.2}"),
            };
            format!(
                "the {} refutes for normal noise of the weighting's shape (p = {}), but not once \
                 it allows for the noise the data show (p = {}: {allowed}), so the verdict is \
                 inconclusive. Look for outliers among the runs (a busy host delays some), and \
                 repeat every point more often so that the noise's shape and tails are known",
                kind.describe(),
                p_text(f_p_value),
                p_text(p_value)
            )
        }
        Warning::StdErrorsTakenAsKnown => "standard errors without a runs column are taken as \
             exact; if each comes from a few runs the tests refute too often: add a runs column \
             (the number of runs behind each mean)"
            .into(),
    }
}

/// The exact check in words.
fn exact_text(r: &ConsistencyReport, e: &ExactCheck, units: Units) -> String {
    let drift = r
        .drift
        .map(|d| format!("; a drifts by {:.3e} per unit of loop_count", d.value))
        .unwrap_or_default();
    match r.verdict {
        Verdict::Consistent => {
            let mut s = format!(
                "consistent: the data are exact (no noise to test against), and the candidate \
                 with a shared and every other coefficient linear in loop_count reproduces \
                 every cell to within the {} asked (--tolerance): its largest deviation is \
                 {:.3} %, at P = {}, loop_count {}; a = {}",
                tolerance_text(e.tolerance),
                100.0 * e.largest_relative_deviation,
                e.at_processors,
                e.at_loop_count,
                units.show(r.constrained.a.value)
            );
            for l in &r.constrained.lines {
                s.push_str(&format!(
                    ", {} = {} + {} per unit of loop_count",
                    l.name,
                    units.show(l.at_smallest_loop_count.value),
                    units.show(l.slope.value)
                ));
            }
            s
        }
        _ => format!(
            "refuted: the data are exact (no noise to test against), and the candidate with a \
             shared and every other coefficient linear in loop_count misses the cell at P = {}, \
             loop_count {} by {:.2} %, more than the {} asked (--tolerance){drift}",
            e.at_processors,
            e.at_loop_count,
            100.0 * e.largest_relative_deviation,
            tolerance_text(e.tolerance)
        ),
    }
}

/// A tolerance as a percentage with the digits it needs (0.01 → "1 %", 1e-4 → "0.01 %").
fn tolerance_text(fraction: f64) -> String {
    format!("{} %", 100.0 * fraction)
}

/// The verdict in words: the deciding test with its numbers, or why the data cannot decide.
fn explain(r: &ConsistencyReport, units: Units) -> String {
    if let Some(e) = &r.exact {
        return exact_text(r, e, units);
    }
    let against = r.against.as_ref();
    let resampled = r.allowance.as_ref().and_then(|a| a.resampled.as_ref());
    let tests: Vec<String> = r
        .tests
        .iter()
        .map(|t| test_text(t, against, resampled))
        .collect();
    let level = format!(
        "each at level {:.4}, the overall {} shared by {} test{}",
        r.level_per_test,
        r.significance,
        r.tests.len(),
        if r.tests.len() == 1 { "" } else { "s" }
    );
    let noise = noise_text(&r.noise, r.weighting.applied, units);
    let guard = r.power.map(|g| {
        (
            format!("c·{}", g.reference_term),
            percent(g.fraction),
            percent(g.power),
            g.minimal_detectable_fraction
                .map_or("more than 10 times the largest value".into(), percent),
        )
    });
    match r.verdict {
        Verdict::Refuted => {
            let t = r
                .tests
                .iter()
                .find(|t| Some(t.kind) == r.decided_by)
                .map(|t| test_text(t, against, resampled))
                .unwrap_or_default();
            let mut s = format!(
                "refuted by the {t}, below its level {:.4} ({level})",
                r.level_per_test
            );
            if let (Some(TestKind::Trend), Some(d)) = (r.decided_by, r.drift) {
                s.push_str(&format!(
                    "; a drifts by {:.3e} ± {:.1e} per unit of loop_count",
                    d.value, d.std_error
                ));
            }
            let others: Vec<&str> = r
                .tests
                .iter()
                .zip(&tests)
                .filter(|(t, _)| Some(t.kind) != r.decided_by)
                .map(|(_, s)| s.as_str())
                .collect();
            if !others.is_empty() {
                s.push_str(&format!("; also {}", others.join("; ")));
            }
            s
        }
        Verdict::Consistent => {
            let mut s = format!(
                "consistent: no test refuted ({}; {level}); {noise}",
                tests.join("; ")
            );
            if let Some((term, fraction, power, mdt)) = &guard {
                s.push_str(&format!(
                    "; they find a missing {term} term growing with loop_count to {fraction} of \
                     the largest value with probability {power} ({} power from {mdt})",
                    percent(r.power.map_or(f64::NAN, |g| g.required_power))
                ));
            }
            s.push_str(&format!(
                "; a = {} ± {} at every loop_count",
                units.show(r.constrained.a.value),
                units.show(r.constrained.a.std_error)
            ));
            for l in &r.constrained.lines {
                s.push_str(&format!(
                    ", {} = {} + {} per unit of loop_count{}",
                    l.name,
                    units.show(l.at_smallest_loop_count.value),
                    units.show(l.slope.value),
                    if l.smallest_loop_count == 0.0 {
                        String::new()
                    } else {
                        format!(" above {}", l.smallest_loop_count)
                    }
                ));
            }
            s.push_str(
                ". This cannot verify the candidate (§6): the data could have refuted it and \
                 did not",
            );
            s
        }
        Verdict::Inconclusive => {
            let tail = || {
                r.test(TestKind::Against)
                    .map(|t| format!(". The {} did not refute", test_text(t, against, resampled)))
                    .unwrap_or_else(|| {
                        ". A richer model (e.g. --against 1+log+P) could still refute it".into()
                    })
            };
            match r.inconclusive_because {
                Some(InconclusiveReason::NoReplicates) => format!(
                    "inconclusive: no (P, loop_count) has two runs, so nothing estimates the \
                     noise independently of the models (a candidate's own residuals count its \
                     misfit as noise). Run each point two or more times (--repeats, or repeated \
                     rows in --csv){}",
                    tail()
                ),
                Some(InconclusiveReason::ScatterAtResolution) => format!(
                    "inconclusive: the replicates' scatter is at or below the timer's \
                     resolution (see the warning), so it cannot stand for the noise{}",
                    tail()
                ),
                Some(InconclusiveReason::DependsOnNoiseShape) => format!(
                    "inconclusive: {} under {} ({level}) for normal noise of that shape, but \
                     not once the p-value allows for {} (see the warning). Run more replicates \
                     (--repeats) so that they tell the noise's shape and tails",
                    tests.join("; "),
                    weighting_text(&r.weighting),
                    if resampled.is_some() {
                        "the error in the noise's estimated shape and for the tails the runs show"
                    } else {
                        "the tails the runs show"
                    }
                ),
                _ => {
                    let (term, fraction, power, mdt) = guard.unwrap_or_default();
                    format!(
                        "inconclusive: no test refuted ({}; {level}), but they could not have \
                         told: with {noise} they find a missing {term} term growing with \
                         loop_count to {fraction} of the largest value only with probability \
                         {power}, short of the required {} (reached at {mdt}). Run more \
                         replicates (--repeats), reduce the noise, or widen the range of P",
                        tests.join("; "),
                        percent(r.power.map_or(f64::NAN, |g| g.required_power))
                    )
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use multicomputer_workloads::analysis::{EXCEEDANCES, ResampleCount};

    fn test_with(p_value: f64) -> NestedTest {
        NestedTest {
            kind: TestKind::LackOfFit,
            f: 7.3,
            t: None,
            dof: 29,
            error_dof: Some(64),
            p_value,
            f_p_value: 2.1e-11,
            level: 0.005,
            rejects: p_value < 0.005,
        }
    }

    fn resampled(at_or_above: usize, of: usize, floored: bool) -> Resampled {
        Resampled {
            exponent: 1.0,
            drawn: of,
            planned: 1000,
            student_dof: None,
            seed: 1,
            counts: vec![ResampleCount {
                kind: TestKind::LackOfFit,
                at_or_above,
                of,
                stopped: at_or_above == EXCEEDANCES,
                floored,
            }],
        }
    }

    #[test]
    fn a_resampled_p_value_says_how_many_resamples_reached_the_f() {
        // Every resample drawn, k of them at or above F: p = (1 + k)/(B + 1).
        let none = p_both(&test_with(1.0 / 1001.0), Some(&resampled(0, 1000, false)));
        assert!(none.contains("0 of 1000 resamples"), "{none}");
        // Stopped at the 40th, its fifth: 5 of 40.
        let early = p_both(&test_with(5.0 / 40.0), Some(&resampled(5, 40, false)));
        assert!(early.contains("5 of 40 resamples"), "{early}");
        // The exact p-value for the tails was larger, and decided.
        let floored = p_both(&test_with(0.11), Some(&resampled(5, 226, true)));
        assert!(
            floored.contains("exact p-value for the tails") && floored.contains("5 of 226"),
            "{floored}"
        );
        // Exact at the weighting's shape, widened for tails.
        let exact = p_both(&test_with(1e-3), None);
        assert!(exact.contains("allowing for the noise's tails"), "{exact}");
        // Equal to the F distribution's as printed: one p-value.
        assert_eq!(p_both(&test_with(2.1e-11), None), p_text(2.1e-11));
        assert_eq!(
            p_both(&test_with(2.1e-11 * (1.0 + 1e-12)), None),
            p_text(2.1e-11)
        );
    }

    #[test]
    fn the_allowance_says_what_the_p_values_rest_on() {
        let base = NoiseAllowance {
            exponent: 1.0,
            resampled: Some(resampled(0, 1000, false)),
            excess_kurtosis: 0.0,
            kurtosis_from: KurtosisSource::Replicates,
        };
        let normal = allowance_text(&base);
        assert!(
            normal.contains("1000 resamples") && normal.contains("normal runs"),
            "{normal}"
        );
        // A table of means ± standard errors has no runs to look at.
        let means = allowance_text(&NoiseAllowance {
            kurtosis_from: KurtosisSource::Assumed,
            ..base.clone()
        });
        assert!(means.contains("the table gives means, not runs"), "{means}");
        assert!(!means.contains("the runs show"), "{means}");
        // Tails: Student's t and the exact floor.
        let mut heavy = base.clone();
        heavy.excess_kurtosis = 1.5;
        heavy.resampled.as_mut().unwrap().student_dof = Some(8.0);
        let heavy = allowance_text(&heavy);
        assert!(
            heavy.contains("Student's t on 8.0") && heavy.contains("excess kurtosis 1.50"),
            "{heavy}"
        );
        // The weighting's shape, exact: no resamples.
        let asked = allowance_text(&NoiseAllowance {
            resampled: None,
            ..base
        });
        assert!(
            asked.contains("exact distribution") && !asked.contains("resamples"),
            "{asked}"
        );
    }
}
