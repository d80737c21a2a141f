//! The noise of a scalability table: how its cells are weighted, how large the noise is (from
//! replicates, pooled over every cell), and whether the replicates can be trusted at all.
//!
//! # Weighting
//!
//! * [`Weighting::Uniform`]: constant noise, ordinary least squares (the paper's).
//! * [`Weighting::Relative`]: noise proportional to the run time (`σ_c = σ·μ_c`), weights
//!   `1/μ_c²` per run with `μ_c` the cell's [`level`](Cell::level) (constant within a cell, so
//!   that the pure error stays a scaled χ²): its mean as grouped, `H₀`'s fitted value in
//!   [`consistency_test`](super::consistency_test), which reweights iteratively so that a
//!   cell's weight does not move with its own noise (its step 2b). Timing noise on a real host
//!   is mostly of this kind: interruptions, frequency changes and cache effects cost a share of
//!   the run, not a fixed amount. With run
//!   times spanning a wide range, uniform weights then let the longest runs decide the fit and
//!   make the F tests' noise an average that is wrong for every cell.
//! * [`Weighting::Auto`] (the default) applies this rule: relative weighting, unless the
//!   replicates reject proportional noise. Their within-cell sums of squares `SS_c` on
//!   `d_c = n_c − 1` degrees of freedom (`D = Σ d_c`) under `σ_c = σ·ȳ_c^γ` have the profile
//!   log-likelihood `ℓ(γ) = −(D/2)·ln(Σ_c SS_c·ȳ_c^{−2γ}/D) − γ·Σ_c d_c·ln ȳ_c`; the
//!   likelihood ratio `2·[ℓ(γ̂) − ℓ(1)]` is χ² on 1 degree of freedom when the noise is
//!   proportional (`ȳ_c` here and below stands for the cell's level). When it rejects at 1 %,
//!   the cells are weighted by the estimated exponent, `1/ȳ_c^{2γ̂}`
//!   ([`AppliedWeighting::Power`]): noise growing as the square of the run time
//!   (γ̂ ≈ 2) is then weighted as such, not as if it were proportional, and constant noise
//!   (γ̂ ≈ 0) nearly uniformly. (Weighting relative whenever `ℓ(0) < ℓ(1)`, as an earlier rule
//!   did, weighted T²-noise as T-noise and refuted a correct candidate in 4 % of tables.)
//!   Relative is the default because timing noise mostly is, and because choosing freely
//!   between the two by whichever fits the scatter better would pick, table by table, the
//!   noise model that happens to make the noise look smaller, and the tests would refute too
//!   often (measured: 2.2 % instead of ≤ 1 % with one duplicated P per loop count over a wide
//!   range, docs/results/scaling-verdict.md). The choice depends on the within-cell scatter
//!   only, which is independent of the cell means that the tests judge. Without replicates the
//!   weighting is relative; where the run times span less than a factor of ~1.5 the two
//!   weightings agree closely anyway.
//! * Standard errors taken as exact fix the weights: `1/se²` ([`AppliedWeighting::StdErrors`]).
//!
//! # Noise
//!
//! The variance is the pure error of the replicates pooled over all cells,
//! `σ̂² = Σ_c w_c·SS_c / D` (`w_c` the per-run weight), on `D` degrees of freedom. It owes
//! nothing to any candidate model, so a missing term cannot hide in it, and it is independent of
//! the cell means (normal noise), which makes the tests' F and t distributions exact.
//!
//! # Replicates at the timer's resolution
//!
//! If the run times are read from a clock whose tick is comparable to their scatter, replicates
//! come out identical or a tick apart: the pure error is then underestimated (zero when all are
//! identical) while the cell means still carry rounding errors of up to half a tick, and every
//! pure-error test refutes far too often. [`check_scatter`] flags this when the pooled replicate
//! standard deviation of the raw run times is at or below the timer's resolution (given, or
//! inferred from identical replicates as the smallest positive difference between two
//! replicates), or when all replicates are identical. The replicates are then not used.

use serde::Serialize;

use super::distributions::chi_square_sf;
use super::measurements::Cell;

/// How the cells are weighted in the fits (the noise model).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Weighting {
    /// Chosen from the replicates' scatter; relative without replicates (module docs).
    #[default]
    Auto,
    /// Constant noise: ordinary least squares, as in the paper.
    Uniform,
    /// Noise proportional to the value: weights `1/ȳ²`.
    Relative,
}

/// The weighting applied.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AppliedWeighting {
    /// Constant noise.
    Uniform,
    /// Noise proportional to the value.
    Relative,
    /// Noise growing as the value to the power `exponent` (`σ_c = σ·ȳ_c^γ`, weights
    /// `1/ȳ_c^{2γ}`), the exponent estimated from the replicates.
    Power {
        /// `γ`.
        exponent: f64,
    },
    /// Weights `1/se²` from standard errors taken as exact.
    StdErrors,
}

impl AppliedWeighting {
    /// `uniform`, `relative`, `power` or `std errors`.
    pub fn as_str(self) -> &'static str {
        match self {
            AppliedWeighting::Uniform => "uniform",
            AppliedWeighting::Relative => "relative",
            AppliedWeighting::Power { .. } => "power",
            AppliedWeighting::StdErrors => "std errors",
        }
    }

    /// The exponent `γ` of `σ ∝ ȳ^γ` the weights assume (none for standard errors).
    pub fn exponent(self) -> Option<f64> {
        match self {
            AppliedWeighting::Uniform => Some(0.0),
            AppliedWeighting::Relative => Some(1.0),
            AppliedWeighting::Power { exponent } => Some(exponent),
            AppliedWeighting::StdErrors => None,
        }
    }
}

/// Why that weighting.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "rule")]
pub enum WeightingRule {
    /// Asked for.
    Requested,
    /// [`Weighting::Auto`] with replicates: relative unless they reject proportional noise,
    /// else by the exponent they estimate.
    Replicates {
        /// `γ̂`, the maximum-likelihood exponent of `σ ∝ ȳ^γ` (1 proportional, 0 constant).
        exponent: f64,
        /// `2·[ℓ(γ̂) − ℓ(1)]`, the likelihood ratio against proportional noise.
        likelihood_ratio: f64,
        /// Its p-value (χ² on 1 degree of freedom).
        p_value: f64,
        /// Whether proportional noise was rejected (`p_value` below 1 %).
        proportional_rejected: bool,
    },
    /// [`Weighting::Auto`] without (usable) replicates: relative, the usual timing noise.
    NoReplicates,
    /// Standard errors taken as exact fix the weights.
    StdErrors,
}

/// Where each cell's variance function is evaluated for its weight (its
/// [`level`](Cell::level)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "at")]
pub enum VarianceLevels {
    /// The cells' observed means.
    Means,
    /// `H₀`'s fitted values, after this many cycles of iteratively reweighted least squares
    /// ([`consistency_test`](super::consistency_test), step 2b).
    Fitted {
        /// Cycles made.
        cycles: usize,
    },
}

/// The weighting applied, and why.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct WeightingChoice {
    /// The weighting.
    pub applied: AppliedWeighting,
    /// Why.
    #[serde(flatten)]
    pub rule: WeightingRule,
    /// Where the weights' variance function was evaluated.
    pub levels: VarianceLevels,
}

/// Where the noise estimate comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NoiseSource {
    /// Pure error of replicates, pooled over all cells.
    Replicates,
    /// Standard errors taken as exact.
    StdErrors,
    /// No independent estimate (no usable replicates).
    Unavailable,
    /// The data are exact (a deterministic emulation): there is no noise to estimate.
    Exact,
}

/// The noise variance, in the weighted unit (relative² under relative weighting).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct NoiseEstimate {
    /// Where it comes from.
    pub source: NoiseSource,
    /// `σ̂²` (1 for exact standard errors; NaN when unavailable).
    pub variance: f64,
    /// Its degrees of freedom `D`; `None` when exact.
    pub dof: Option<usize>,
    /// Cells with two or more runs.
    pub replicated_cells: usize,
}

impl NoiseEstimate {
    /// Whether the noise is known or estimated independently of any model.
    pub fn is_available(&self) -> bool {
        self.source != NoiseSource::Unavailable
    }
}

/// Replicate scatter against the timer's resolution.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ScatterCheck {
    /// Cells with two or more runs.
    pub replicated_cells: usize,
    /// Of them, cells whose runs all have the same run time.
    pub identical_cells: usize,
    /// Pooled replicate standard deviation of the raw run times (NaN without replicates).
    pub pooled_run_time_sd: f64,
    /// The timer's resolution, in the unit of the run times: given, or inferred from identical
    /// replicates (`None` if neither).
    pub resolution: Option<f64>,
    /// Whether `resolution` was inferred rather than given.
    pub resolution_inferred: bool,
    /// The scatter is at or below the resolution, or every replicate identical: the replicates
    /// cannot estimate the noise and are not used.
    pub at_or_below_resolution: bool,
}

/// Checks the replicate scatter of the raw run times against `resolution` (see module docs).
pub fn check_scatter(cells: &[Cell], resolution: Option<f64>) -> ScatterCheck {
    let replicated: Vec<&Cell> = cells
        .iter()
        .filter(|c| c.runs >= 2 && c.known_variance.is_none())
        .collect();
    let identical_cells = replicated.iter().filter(|c| c.identical_replicates).count();
    let dof: usize = replicated.iter().map(|c| c.pure_error_dof()).sum();
    let pooled_run_time_sd = if dof > 0 {
        (replicated.iter().map(|c| c.run_time_within_ss).sum::<f64>() / dof as f64).sqrt()
    } else {
        f64::NAN
    };
    let (resolution, resolution_inferred) = match resolution {
        Some(r) => (Some(r), false),
        None if identical_cells > 0 => (
            replicated
                .iter()
                .filter_map(|c| c.smallest_gap)
                .reduce(f64::min),
            true,
        ),
        None => (None, false),
    };
    let at_or_below_resolution = dof > 0
        && (pooled_run_time_sd == 0.0 || resolution.is_some_and(|r| pooled_run_time_sd <= r));
    ScatterCheck {
        replicated_cells: replicated.len(),
        identical_cells,
        pooled_run_time_sd,
        resolution,
        resolution_inferred,
        at_or_below_resolution,
    }
}

/// Applies [`Weighting`] to these cells (module docs). `use_replicates` is false when the
/// replicates are not usable ([`ScatterCheck::at_or_below_resolution`]).
pub fn choose_weighting(
    cells: &[Cell],
    requested: Weighting,
    use_replicates: bool,
) -> WeightingChoice {
    if cells.iter().any(|c| c.known_variance.is_some()) {
        return WeightingChoice {
            applied: AppliedWeighting::StdErrors,
            rule: WeightingRule::StdErrors,
            levels: VarianceLevels::Means,
        };
    }
    let fixed = |applied| WeightingChoice {
        applied,
        rule: WeightingRule::Requested,
        levels: VarianceLevels::Means,
    };
    match requested {
        Weighting::Uniform => return fixed(AppliedWeighting::Uniform),
        Weighting::Relative => return fixed(AppliedWeighting::Relative),
        Weighting::Auto => {}
    }
    let absolute: f64 = cells
        .iter()
        .filter(|c| c.runs >= 2)
        .map(|c| c.within_ss)
        .sum();
    let (log_likelihood, dof) = exponent_likelihood(cells);
    if !use_replicates || dof == 0 || absolute <= 0.0 {
        return WeightingChoice {
            applied: AppliedWeighting::Relative,
            rule: WeightingRule::NoReplicates,
            levels: VarianceLevels::Means,
        };
    }
    let exponent = golden_section_max(&log_likelihood, EXPONENT_RANGE.0, EXPONENT_RANGE.1);
    let likelihood_ratio = (2.0 * (log_likelihood(exponent) - log_likelihood(1.0))).max(0.0);
    let p_value = chi_square_sf(likelihood_ratio, 1);
    let proportional_rejected = p_value < PROPORTIONAL_REJECTED;
    WeightingChoice {
        // Rejected: weight as the replicates say the noise grows, whether more slowly
        // (towards constant, γ̂ ≈ 0) or faster (γ̂ ≈ 2) than the value.
        applied: if proportional_rejected {
            AppliedWeighting::Power { exponent }
        } else {
            AppliedWeighting::Relative
        },
        rule: WeightingRule::Replicates {
            exponent,
            likelihood_ratio,
            p_value,
            proportional_rejected,
        },
        levels: VarianceLevels::Means,
    }
}

/// The profile log-likelihood `ℓ(γ)` of the replicates' scatter under `σ_c = σ·ȳ_c^γ`
/// (module docs), and the replicated cells' pure-error degrees of freedom.
fn exponent_likelihood(cells: &[Cell]) -> (impl Fn(f64) -> f64 + '_, usize) {
    // Each replicated cell's sum of squares and `ln ȳ_c`, computed once: the search below
    // evaluates ℓ some fifty times, and the consistency test's bootstrap re-estimates γ̂ in
    // every resample.
    let replicated: Vec<(f64, f64)> = cells
        .iter()
        .filter(|c| c.runs >= 2)
        .map(|c| (c.within_ss, c.level.abs().ln()))
        .collect();
    let dof: usize = cells
        .iter()
        .filter(|c| c.runs >= 2)
        .map(Cell::pure_error_dof)
        .sum();
    let levels: f64 = cells
        .iter()
        .filter(|c| c.runs >= 2)
        .map(|c| c.pure_error_dof() as f64 * c.level.abs().ln())
        .sum();
    let d = dof as f64;
    let f = move |gamma: f64| -> f64 {
        let ss: f64 = replicated
            .iter()
            .map(|(ss, ln_level)| ss * (-2.0 * gamma * ln_level).exp())
            .sum();
        -0.5 * d * (ss / d).ln() - gamma * levels
    };
    (f, dof)
}

/// Where the exponent `γ` of `σ ∝ ȳ^γ` is looked for.
const EXPONENT_RANGE: (f64, f64) = (-2.0, 4.0);

/// Level at which the replicates must reject proportional noise before [`Weighting::Auto`]
/// weights by the exponent they estimate instead.
const PROPORTIONAL_REJECTED: f64 = 0.01;

/// The maximum of a concave function on `[lo, hi]` by golden-section search, to an interval
/// of [`EXPONENT_TOLERANCE`].
fn golden_section_max(f: &dyn Fn(f64) -> f64, lo: f64, hi: f64) -> f64 {
    let r = (5f64.sqrt() - 1.0) / 2.0;
    let (mut a, mut b) = (lo, hi);
    let (mut x1, mut x2) = (b - r * (b - a), a + r * (b - a));
    let (mut f1, mut f2) = (f(x1), f(x2));
    while b - a > EXPONENT_TOLERANCE {
        if f1 < f2 {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + r * (b - a);
            f2 = f(x2);
        } else {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - r * (b - a);
            f1 = f(x1);
        }
    }
    0.5 * (a + b)
}

/// The width to which γ̂ is searched: far below its standard error (0.2–0.6 for the tables of
/// docs/results/trust.md), and 51 golden-section steps from [`EXPONENT_RANGE`].
const EXPONENT_TOLERANCE: f64 = 1e-10;

/// The weight of one run of each cell: 1 (uniform), `1/μ_c²` (relative), `1/μ_c^{2γ}`
/// (power), `1/var` (exact standard errors, for the cell's mean); `μ_c` the cell's
/// [`level`](Cell::level).
fn run_weight(cell: &Cell, weighting: AppliedWeighting) -> f64 {
    match weighting {
        AppliedWeighting::Uniform => 1.0,
        AppliedWeighting::Relative => 1.0 / (cell.level * cell.level),
        AppliedWeighting::Power { exponent } => cell.level.abs().powf(-2.0 * exponent),
        AppliedWeighting::StdErrors => 1.0 / cell.known_variance.unwrap_or(f64::NAN),
    }
}

/// The weight of each cell's mean in a fit to cell means: the run weight times the number of
/// runs (the mean of `n` runs has `1/n` of a run's variance), or `1/var` for exact standard
/// errors.
pub fn cell_weights(cells: &[Cell], weighting: AppliedWeighting) -> Vec<f64> {
    cells
        .iter()
        .map(|c| match weighting {
            AppliedWeighting::StdErrors => run_weight(c, weighting),
            _ => run_weight(c, weighting) * f64::from(c.runs),
        })
        .collect()
}

/// The noise variance pooled over all cells (module docs); unavailable without replicates or
/// when `use_replicates` is false.
pub fn estimate_noise(
    cells: &[Cell],
    weighting: AppliedWeighting,
    use_replicates: bool,
) -> NoiseEstimate {
    let replicated_cells = cells.iter().filter(|c| c.runs >= 2).count();
    if weighting == AppliedWeighting::StdErrors {
        return NoiseEstimate {
            source: NoiseSource::StdErrors,
            variance: 1.0,
            dof: None,
            replicated_cells,
        };
    }
    let dof: usize = cells.iter().map(Cell::pure_error_dof).sum();
    if dof == 0 || !use_replicates {
        return NoiseEstimate {
            source: NoiseSource::Unavailable,
            variance: f64::NAN,
            dof: Some(0),
            replicated_cells,
        };
    }
    let ss: f64 = cells
        .iter()
        .map(|c| run_weight(c, weighting) * c.within_ss)
        .sum();
    NoiseEstimate {
        source: NoiseSource::Replicates,
        variance: ss / dof as f64,
        dof: Some(dof),
        replicated_cells,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Measurement, cells};

    /// Two runs at each of two levels, scatter ±s₁ and ±s₂.
    fn pairs(level_1: f64, s_1: f64, level_2: f64, s_2: f64) -> Vec<Cell> {
        cells(&[
            Measurement::run(2, 0.0, level_1 - s_1),
            Measurement::run(2, 0.0, level_1 + s_1),
            Measurement::run(4, 0.0, level_2 - s_2),
            Measurement::run(4, 0.0, level_2 + s_2),
        ])
        .unwrap()
    }

    /// Three runs at each of five levels from 10 to 1000, scatter `±sd(level)`.
    fn levels(sd: impl Fn(f64) -> f64) -> Vec<Cell> {
        let m: Vec<Measurement> = [10.0, 30.0, 100.0, 300.0, 1000.0]
            .iter()
            .enumerate()
            .flat_map(|(i, &y)| {
                let p = 1u32 << (i + 1);
                let s = sd(y);
                [y - s, y, y + s].map(|t| Measurement::run(p, 0.0, t))
            })
            .collect();
        cells(&m).unwrap()
    }

    #[test]
    fn auto_weighting_is_relative_unless_the_replicates_reject_it() {
        // Scatter ∝ level: relative, with γ̂ = 1 exactly.
        let rel = choose_weighting(&levels(|y| 0.01 * y), Weighting::Auto, true);
        assert_eq!(rel.applied, AppliedWeighting::Relative);
        let WeightingRule::Replicates { exponent, .. } = rel.rule else {
            panic!("{rel:?}")
        };
        assert!((exponent - 1.0).abs() < 1e-6, "{exponent}");
        // The same absolute scatter at every level, over two decades: weighted by γ̂ = 0.
        let abs = choose_weighting(&levels(|_| 0.5), Weighting::Auto, true);
        let WeightingRule::Replicates {
            exponent,
            likelihood_ratio,
            p_value,
            proportional_rejected,
        } = abs.rule
        else {
            panic!("{abs:?}")
        };
        assert!(exponent.abs() < 1e-6, "{exponent}");
        assert!(proportional_rejected);
        assert_eq!(abs.applied, AppliedWeighting::Power { exponent }, "{abs:?}");
        // ℓ(0) − ℓ(1) = Σ d_c·ln ȳ_c − (D/2)·ln(Σ SS_c/Σ(SS_c/ȳ_c²)) with SS_c = 0.5 each.
        let ys = [10.0_f64, 30.0, 100.0, 300.0, 1000.0];
        let want = 2.0
            * (2.0 * ys.iter().map(|y| y.ln()).sum::<f64>()
                - 5.0 * (5.0 / ys.iter().map(|y| 1.0 / (y * y)).sum::<f64>()).ln());
        assert!(
            (likelihood_ratio - want).abs() < 1e-9 * want,
            "{likelihood_ratio} {want}"
        );
        assert!(p_value < 0.01);
        // Scatter growing as the square of the level: weighted by γ̂ = 2, not as relative.
        let square = choose_weighting(&levels(|y| 1e-4 * y * y), Weighting::Auto, true);
        let AppliedWeighting::Power { exponent } = square.applied else {
            panic!("{square:?}")
        };
        assert!((exponent - 2.0).abs() < 1e-6, "{exponent}");
        let c = levels(|y| 1e-4 * y * y);
        let w = cell_weights(&c, square.applied);
        assert!((w[0] / w[4] - (1000.0f64 / 10.0).powf(2.0 * exponent)).abs() < 1e-3 * w[0] / w[4]);
        // Two cells of one run pair each cannot reject proportional noise: relative.
        let few = choose_weighting(&pairs(10.0, 0.4, 70.0, 0.4), Weighting::Auto, true);
        assert_eq!(few.applied, AppliedWeighting::Relative);
        let asked = choose_weighting(&pairs(10.0, 0.1, 70.0, 0.7), Weighting::Uniform, true);
        assert_eq!(
            (asked.applied, asked.rule),
            (AppliedWeighting::Uniform, WeightingRule::Requested)
        );
        let none = choose_weighting(&pairs(10.0, 0.0, 70.0, 0.0), Weighting::Auto, true);
        assert_eq!(none.rule, WeightingRule::NoReplicates);
    }

    #[test]
    fn pure_error_is_pooled_over_cells() {
        let c = pairs(10.0, 0.1, 70.0, 0.7);
        let u = estimate_noise(&c, AppliedWeighting::Uniform, true);
        // SS = 0.02 + 0.98 on 2 dof.
        assert_eq!((u.source, u.dof), (NoiseSource::Replicates, Some(2)));
        assert!((u.variance - 0.5).abs() < 1e-12);
        let r = estimate_noise(&c, AppliedWeighting::Relative, true);
        // Relative: 2·0.01²·… each pair ±1 % gives SS/ȳ² = 2e-4.
        assert!((r.variance - 2e-4).abs() < 1e-12);
        assert_eq!(cell_weights(&c, AppliedWeighting::Uniform), vec![2.0, 2.0]);
        let unused = estimate_noise(&c, AppliedWeighting::Uniform, false);
        assert!(!unused.is_available());
    }

    #[test]
    fn scatter_below_the_resolution_is_caught() {
        // Continuous scatter, no resolution given: fine.
        let ok = check_scatter(&pairs(10.0, 0.1, 70.0, 0.7), None);
        assert!(!ok.at_or_below_resolution && ok.resolution.is_none());
        // The same against a 1.0 tick: at or below.
        let coarse = check_scatter(&pairs(10.0, 0.1, 70.0, 0.7), Some(1.0));
        assert!(coarse.at_or_below_resolution);
        // Identical replicates: every one (sd 0), or some with the rest one tick apart.
        let flat = check_scatter(&pairs(10.0, 0.0, 70.0, 0.0), None);
        assert!(flat.at_or_below_resolution && flat.identical_cells == 2);
        let ticks = cells(&[
            Measurement::run(2, 0.0, 10.0),
            Measurement::run(2, 0.0, 10.0),
            Measurement::run(2, 0.0, 10.0),
            Measurement::run(4, 0.0, 70.0),
            Measurement::run(4, 0.0, 71.0),
            Measurement::run(4, 0.0, 70.0),
        ])
        .unwrap();
        let t = check_scatter(&ticks, None);
        assert_eq!((t.resolution, t.resolution_inferred), (Some(1.0), true));
        assert!(t.at_or_below_resolution, "{t:?}");
    }
}
