//! Step 4d when the weighting was chosen from the replicates: each test's p-value from a
//! parametric bootstrap of `H₀` that re-estimates the noise's shape in every resample.
//!
//! # Why
//!
//! Each test's F ratio is weighted by the noise's shape, `σ_c ∝ μ_c^γ`, and `γ` is estimated
//! from the very replicates whose pure error is the F ratio's denominator. The exact
//! distribution of the ratio ([`calibration`](super::calibration)) is exact only for a known
//! `γ`: taken at the estimate `γ̂` it refuted 2.2 % of correct candidates at a nominal 1 %
//! (two runs per point over a 7× range of run times under noise ∝ T²; docs/results/trust.md,
//! fifth round), because `γ̂`'s error moves the weights and the tail probability is convex in
//! that error. The rule before this one took the largest p-value over every shape the
//! replicates could not rule out (Berger & Boos 1994), which holds the level but, where the
//! replicates cannot tell the shapes apart (a narrow range of run times), pays for it in power.
//! Resampling the whole procedure, `γ̂` included, puts `γ̂`'s error into the reference
//! distribution instead of taking the worst shape.
//!
//! # The protocol
//!
//! 1. **The null** ([`null_of`]): `H₀`'s fitted value `μ̂_c` of each cell (by the verdict's
//!    iteratively reweighted least squares), the replicates' exponent `γ̂` and their pure error
//!    under it, `σ̂² = Σ_c SS_c·μ̂_c^{−2γ̂} / D`; each run of cell `c` has variance
//!    `v_c = σ̂²·μ̂_c^{2γ̂}`.
//! 2. **A resample** ([`draw`]): the table's own layout of runs, drawn from the null. For
//!    normal noise a cell's mean and its sum of squares are sufficient and independent, so they
//!    are drawn directly, `ȳ*_c ~ N(μ̂_c, v_c/n_c)` and `SS*_c ~ v_c·χ²_{n_c−1}`. When the runs
//!    show tails (excess kurtosis `κ̂ > 0`, [`calibration`](super::calibration)'s step 2), each
//!    run is drawn from Student's t on `ν = 4 + 6/κ̂` degrees of freedom (whose excess kurtosis
//!    is `κ̂`), scaled to variance `v_c`.
//! 3. **Judged as the table was** ([`judge`]): the replicates' scatter checked, the weighting
//!    chosen and `γ̂*` estimated again, the levels found again, and every test's `F*` computed.
//! 4. **Counted** ([`tally`]): each test counts the resamples with `F* ≥ F`. A test at level `α`
//!    draws up to `B = ⌈K/α⌉` resamples (`K` = [`EXCEEDANCES`]; `B` = 1000 at 0.5 %), enough to
//!    reject when fewer than `K` of them reach its F. Resampling stops once every test has seen
//!    `K` (Besag & Clifford 1991), which cannot change a decision: a table that is not refuted
//!    typically ends after tens of resamples, a refuted one draws all `B`. A resample the
//!    procedure cannot judge (a fit that fails) counts as reaching every test's F, which can
//!    only make a refutation rarer.
//! 5. **The p-value** ([`p_value_of`]): `K/l` for a test stopped at the `l`-th resample (Besag &
//!    Clifford's sequential p-value), else `(1 + k)/(B + 1)` for `k` exceedances in `B`. Both
//!    are valid p-values. The test rejects when it is below `α`: with fewer than `K`
//!    exceedances in `B`, or, where `K/α` is not a whole number, with the `K`-th at the
//!    `B`-th resample (`K/B < α`).
//! 6. **Tails** (in [`super::run_tests`]): a symmetric t does not reproduce delays that only
//!    ever lengthen a run, and normal or t resamples refuted up to 3.45 % of correct candidates
//!    with one-sided outliers (docs/results/trust.md, sixth round). Where the runs show tails,
//!    each p-value is therefore no smaller than the exact one at `γ̂` widened for them, the
//!    allowance [`calibration`](super::calibration) makes.
//!
//! The resamples are seeded by a hash of the table ([`seed_of`]), so the same table gives the
//! same p-values and the same report with the same build on the same platform (another
//! platform's mathematical functions may round differently in the last digit).
//!
//! Its level and power over 8000 random tables a setting are in docs/results/trust.md ("The
//! verdict's power: the bootstrap adopted", seventh round), summarised in the module docs of
//! [`consistency`](super).
//!
//! References: J. Besag and P. Clifford, "Sequential Monte Carlo p-values", Biometrika 78
//! (1991) 301–304; A. C. Davison and D. V. Hinkley, *Bootstrap Methods and their Application*
//! (Cambridge, 1997), §4.2 (parametric bootstrap tests); R. L. Berger and D. D. Boos,
//! "P values maximized over a confidence set for the nuisance parameter", JASA 89 (1994)
//! 1012–1016.

use rand::{Rng, SeedableRng};
use rand_distr::{ChiSquared, Distribution, StandardNormal, StudentT};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Serialize;

use super::super::error::ScalabilityError;
use super::super::measurements::Cell;
use super::super::overhead_model::OverheadModel;
use super::design::Structure;
use super::{ConsistencyOptions, Table, TestKind, estimate, make_tests};

/// Resamples at or above the observed F that end a test's resampling (step 4); a test at
/// level `α` draws at most `B = ⌈K/α⌉`. With `K = 5` a refuted table costs 1000 resamples at
/// the default 0.5 % a test (about 50 ms on the development host, release build).
pub const EXCEEDANCES: usize = 5;

/// The most resamples a table may need: with three tests, [`SMALLEST_SIGNIFICANCE`] needs
/// this many, and a refuted table then takes some seconds.
pub const MOST_RESAMPLES: usize = 150_000;

/// The smallest overall significance the verdict accepts: `3·K/MOST_RESAMPLES`, so that a
/// test at `α/3` can reject within [`MOST_RESAMPLES`].
pub const SMALLEST_SIGNIFICANCE: f64 = 3.0 * EXCEEDANCES as f64 / MOST_RESAMPLES as f64;

/// What the bootstrap did, for the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Resampled {
    /// The exponent `γ̂` of `σ ∝ T^γ` the resamples were drawn with.
    pub exponent: f64,
    /// Resamples drawn (step 4 stops early once no test can reject).
    pub drawn: usize,
    /// The most that could have been drawn, `B = ⌈K/α⌉` for the tests' level `α`.
    pub planned: usize,
    /// Student's t degrees of freedom the runs were drawn from, when they show tails.
    pub student_dof: Option<f64>,
    /// The seed, a hash of the table's cells (as hexadecimal text: a JSON number would lose
    /// its low digits).
    #[serde(serialize_with = "hexadecimal")]
    pub seed: u64,
    /// Each test's count, in the order of the report's tests.
    pub counts: Vec<ResampleCount>,
}

/// One test's resamples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ResampleCount {
    /// The test.
    pub kind: TestKind,
    /// Resamples at or above its observed F.
    pub at_or_above: usize,
    /// Resamples counted: where it stopped (its `K`-th exceedance), else all drawn.
    pub of: usize,
    /// Whether it stopped at its `K`-th exceedance.
    pub stopped: bool,
    /// Whether its p-value is the exact one at `γ̂` widened for the runs' tails, which was
    /// larger than the resamples' (step 6).
    pub floored: bool,
}

fn hexadecimal<S: serde::Serializer>(seed: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{seed:#018x}"))
}

/// Step 1: what each cell is resampled from.
struct Null {
    /// `H₀`'s fitted value of each cell.
    mean: Vec<f64>,
    /// The variance of one run of each cell.
    variance: Vec<f64>,
}

/// Step 1: `H₀`'s fitted values and the run variances `σ̂²·μ̂_c^{2γ̂}`.
fn null_of(model: &OverheadModel, table: &Table, exponent: f64) -> Result<Null, ScalabilityError> {
    let null = table.fit(model, Structure::Constrained)?;
    // A fitted value at or below 0 cannot carry a power of the run time: the cell's level
    // (its mean, or its last fitted value) stands in.
    let mean: Vec<f64> = table
        .cells
        .iter()
        .zip(table.y.iter().zip(&null.residuals))
        .map(|(c, (y, r))| if y - r > 0.0 { y - r } else { c.level })
        .collect();
    let dof: usize = table.cells.iter().map(Cell::pure_error_dof).sum();
    let sigma2 = table
        .cells
        .iter()
        .zip(&mean)
        .map(|(c, m)| c.within_ss * m.abs().powf(-2.0 * exponent))
        .sum::<f64>()
        / dof.max(1) as f64;
    let variance = mean
        .iter()
        .map(|m| sigma2 * m.abs().powf(2.0 * exponent))
        .collect();
    Ok(Null { mean, variance })
}

/// Step 2's heavy tails: Student's t on `ν = 4 + 6/κ̂` degrees of freedom, whose excess
/// kurtosis is `6/(ν − 4) = κ̂`, and the factor `√((ν − 2)/ν)` that gives it unit variance.
struct Tails {
    student: StudentT<f64>,
    dof: f64,
    unit: f64,
}

impl Tails {
    /// For runs with excess kurtosis `kurtosis`; `None` for none.
    fn of(kurtosis: f64) -> Option<Tails> {
        if !(kurtosis > 0.0 && kurtosis.is_finite()) {
            return None;
        }
        let dof = 4.0 + 6.0 / kurtosis;
        Some(Tails {
            student: StudentT::new(dof).ok()?,
            dof,
            unit: ((dof - 2.0) / dof).sqrt(),
        })
    }
}

/// Step 2: one resampled table, in the layout of `cells` (whose run values are left out:
/// [`without_runs`]).
fn draw(cells: &[Cell], null: &Null, tails: Option<&Tails>, rng: &mut impl Rng) -> Vec<Cell> {
    cells
        .iter()
        .zip(null.mean.iter().zip(&null.variance))
        .map(|(c, (&m, &v))| {
            let n = f64::from(c.runs);
            let (mean, ss) = match tails {
                None => {
                    let z: f64 = StandardNormal.sample(rng);
                    let ss = match ChiSquared::new(c.pure_error_dof() as f64) {
                        Ok(chi2) if c.runs >= 2 => v * chi2.sample(rng),
                        _ => 0.0,
                    };
                    (m + (v / n).sqrt() * z, ss)
                }
                Some(t) => {
                    let sd = v.sqrt() * t.unit;
                    let runs: Vec<f64> = (0..c.runs)
                        .map(|_| m + sd * t.student.sample(rng))
                        .collect();
                    let mean = runs.iter().sum::<f64>() / n;
                    (mean, runs.iter().map(|y| (y - mean).powi(2)).sum())
                }
            };
            Cell {
                mean,
                level: mean,
                within_ss: ss,
                run_time_within_ss: ss,
                ..c.clone()
            }
        })
        .collect()
}

/// The cells a resample copies: their layout, without the run values (a resample has none of
/// its own, and the copy is made for every resample).
fn without_runs(cells: &[Cell]) -> Vec<Cell> {
    cells
        .iter()
        .map(|c| Cell {
            identical_replicates: false,
            smallest_gap: None,
            values: Vec::new(),
            ..c.clone()
        })
        .collect()
}

/// Step 3: each test's F on a resampled table, by the verdict's own procedure (in the order
/// [`make_tests`] makes them).
fn judge(
    model: &OverheadModel,
    cells: &mut [Cell],
    options: &ConsistencyOptions,
) -> Result<Vec<f64>, ScalabilityError> {
    let (_, weighting, noise) = estimate(cells, Some(model), options);
    let table = Table::new(cells.to_vec(), weighting.applied);
    let made = make_tests(model, &table, &noise, options)?;
    Ok(made.tests.iter().map(|t| t.f).collect())
}

/// Step 4: each test's resamples at or above its observed F, and where it stopped.
#[derive(Debug, Clone, PartialEq)]
struct Tally {
    at_or_above: Vec<usize>,
    stopped_at: Vec<Option<usize>>,
    drawn: usize,
}

/// Steps 2–4: resamples until every test has seen `exceedances` at or above its F, or
/// `planned` are drawn.
#[allow(clippy::too_many_arguments)]
fn tally(
    model: &OverheadModel,
    table: &Table,
    null: &Null,
    tails: Option<&Tails>,
    observed: &[f64],
    planned: usize,
    exceedances: usize,
    options: &ConsistencyOptions,
    rng: &mut impl Rng,
) -> Tally {
    // A resample's runs are not timer ticks: the scatter check must not set them aside.
    let options = ConsistencyOptions {
        timer_resolution: None,
        ..options.clone()
    };
    let mut t = Tally {
        at_or_above: vec![0; observed.len()],
        stopped_at: vec![None; observed.len()],
        drawn: 0,
    };
    let layout = without_runs(&table.cells);
    while t.drawn < planned && t.stopped_at.iter().any(Option::is_none) {
        t.drawn += 1;
        let mut cells = draw(&layout, null, tails, rng);
        // A resample that cannot be judged, or that makes other tests, reaches every F.
        let f = match judge(model, &mut cells, &options) {
            Ok(f) if f.len() == observed.len() => f,
            _ => vec![f64::INFINITY; observed.len()],
        };
        for (i, (f, o)) in f.iter().zip(observed).enumerate() {
            if t.stopped_at[i].is_none() && f >= o {
                t.at_or_above[i] += 1;
                if t.at_or_above[i] == exceedances {
                    t.stopped_at[i] = Some(t.drawn);
                }
            }
        }
    }
    t
}

/// Step 5: a test's p-value from its count.
fn p_value_of(at_or_above: usize, stopped_at: Option<usize>, planned: usize) -> f64 {
    match stopped_at {
        Some(l) => at_or_above as f64 / l as f64,
        None => (1 + at_or_above) as f64 / (planned + 1) as f64,
    }
}

/// A stable hash of the table's cells (FNV-1a over their bits), the resamples' seed.
fn seed_of(cells: &[Cell]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |x: u64| {
        for b in x.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for c in cells {
        eat(u64::from(c.processors));
        eat(c.loop_count.to_bits());
        eat(u64::from(c.runs));
        eat(c.mean.to_bits());
        eat(c.within_ss.to_bits());
    }
    h
}

/// The resamples a test at `level` needs to be able to reject (step 4): `⌈K/level⌉`.
pub(super) fn planned(level: f64) -> usize {
    (EXCEEDANCES as f64 / level).ceil() as usize
}

/// Steps 1–5: the p-value of each test's observed F (`observed`, its kind and F, in the order
/// [`make_tests`] makes them), each test at `level`, the noise of shape `exponent` with excess
/// kurtosis `kurtosis`.
pub(super) fn p_values(
    model: &OverheadModel,
    table: &Table,
    exponent: f64,
    kurtosis: f64,
    observed: &[(TestKind, f64)],
    level: f64,
    options: &ConsistencyOptions,
) -> Result<(Vec<f64>, Resampled), ScalabilityError> {
    let null = null_of(model, table, exponent)?;
    let tails = Tails::of(kurtosis);
    let planned = planned(level);
    let seed = seed_of(&table.cells);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let f: Vec<f64> = observed.iter().map(|(_, f)| *f).collect();
    let t = tally(
        model,
        table,
        &null,
        tails.as_ref(),
        &f,
        planned,
        EXCEEDANCES,
        options,
        &mut rng,
    );
    let p = t
        .at_or_above
        .iter()
        .zip(&t.stopped_at)
        .map(|(&k, &s)| p_value_of(k, s, planned))
        .collect();
    let counts = observed
        .iter()
        .zip(t.at_or_above.iter().zip(&t.stopped_at))
        .map(|(&(kind, _), (&at_or_above, stopped_at))| ResampleCount {
            kind,
            at_or_above,
            of: stopped_at.unwrap_or(t.drawn),
            stopped: stopped_at.is_some(),
            floored: false,
        })
        .collect();
    Ok((
        p,
        Resampled {
            exponent,
            drawn: t.drawn,
            planned,
            student_dof: tails.map(|t| t.dof),
            seed,
            counts,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::super::super::distributions::{f_critical, f_sf};
    use super::super::super::measurements::{Measurement, cells};
    use super::super::super::noise::{AppliedWeighting, NoiseEstimate};
    use super::*;

    /// Four loop counts × P = 2…256, three runs a cell of `truth(P, L)·(1 + sd·z)`, z normal
    /// from a fixed seed, and the table as the verdict sees it.
    fn table_of(
        truth: impl Fn(f64, f64) -> f64,
        sd: impl Fn(f64) -> f64,
    ) -> (OverheadModel, Table, NoiseEstimate) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let mut m = Vec::new();
        for l in [0.0, 2000.0, 4000.0, 6000.0] {
            for k in 1..=8 {
                let mean = truth(f64::from(1u32 << k), l);
                for _ in 0..3 {
                    let z: f64 = StandardNormal.sample(&mut rng);
                    m.push(Measurement::run(1 << k, l, mean + sd(mean) * z));
                }
            }
        }
        let model = OverheadModel::log();
        let mut c = cells(&m).unwrap();
        let (_, weighting, noise) = estimate(&mut c, Some(&model), &ConsistencyOptions::default());
        (model, Table::new(c, weighting.applied), noise)
    }

    #[test]
    fn resamples_of_a_table_without_a_shape_to_estimate_follow_the_f_distribution() {
        // Every run time 100 ± 1 %: `a + b·log P` holds with b = 0 and every level is alike, so
        // no exponent changes the weights and the F ratios are exactly F-distributed. Each
        // test's F at its 5 % point: about 5 % of 4000 resamples (200 ± 14) reach it, if the
        // resampled means, sums of squares and degrees of freedom are right. (A mean drawn
        // with the run's variance over n − 1 instead of n moves the counts to 412 and 1433.)
        let (model, table, noise) = table_of(|_, _| 100.0, |m| 0.01 * m);
        let made = make_tests(&model, &table, &noise, &ConsistencyOptions::default()).unwrap();
        let observed: Vec<f64> = made
            .tests
            .iter()
            .map(|t| f_critical(0.05, t.dof, noise.dof))
            .collect();
        for (t, f) in made.tests.iter().zip(&observed) {
            assert!((f_sf(*f, t.dof, noise.dof) - 0.05).abs() < 1e-9);
        }
        let null = null_of(&model, &table, 1.0).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let n = 4000;
        let t = tally(
            &model,
            &table,
            &null,
            None,
            &observed,
            n,
            usize::MAX,
            &ConsistencyOptions::default(),
            &mut rng,
        );
        assert_eq!(t.drawn, n);
        let sd = (n as f64 * 0.05 * 0.95).sqrt();
        for k in &t.at_or_above {
            assert!((*k as f64 - 200.0).abs() < 4.0 * sd, "{:?}", t.at_or_above);
        }
    }

    #[test]
    fn the_null_carries_the_pooled_noise_at_each_cells_fitted_value() {
        // Run times 10 to 1000 (b = 40 per unit of ln P, a drift with the loop count) with sd
        // ∝ T²: by hand, σ̂² = Σ SS_c·μ̂_c^{−2γ}/D and each run's variance σ̂²·μ̂_c^{2γ}.
        let (model, table, _) =
            table_of(|p, l| 10.0 + (40.0 + 0.01 * l) * p.ln(), |m| 1e-5 * m * m);
        let null = null_of(&model, &table, 2.0).unwrap();
        let fit = table.fit(&model, Structure::Constrained).unwrap();
        let d: usize = table.cells.iter().map(Cell::pure_error_dof).sum();
        let mut sigma2 = 0.0;
        for (i, c) in table.cells.iter().enumerate() {
            let mu = table.y[i] - fit.residuals[i];
            assert!((null.mean[i] - mu).abs() < 1e-12 * mu);
            sigma2 += c.within_ss / mu.powi(4);
        }
        sigma2 /= d as f64;
        for (i, v) in null.variance.iter().enumerate() {
            let want = sigma2 * null.mean[i].powi(4);
            assert!(
                (v - want).abs() < 1e-9 * want,
                "cell {i}: {v} against {want}"
            );
        }
        // The largest cell's run varies 10⁴ times more than the smallest's (levels 100×
        // apart, to the fourth power), about 1e-5·T² each.
        let (lo, hi) = (null.variance[0], null.variance[null.variance.len() - 1]);
        assert!(hi / lo > 1e3, "{lo} {hi}");
    }

    #[test]
    fn each_resample_is_weighted_by_the_shape_it_shows() {
        // The observed table's scatter is proportional (relative weights), but resamples drawn
        // with noise ∝ T² over a 100× range of run times show that shape, and are judged
        // under it: the weighting and its exponent are estimated again in every resample.
        let (model, table, _) = table_of(|p, l| 10.0 + (40.0 + 0.01 * l) * p.ln(), |m| 0.01 * m);
        let null = null_of(&model, &table, 2.0).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let mut cells = draw(&without_runs(&table.cells), &null, None, &mut rng);
        let mut again = cells.clone();
        let (_, weighting, noise) =
            estimate(&mut cells, Some(&model), &ConsistencyOptions::default());
        let AppliedWeighting::Power { exponent } = weighting.applied else {
            panic!("{weighting:?}")
        };
        assert!((exponent - 2.0).abs() < 0.3, "{exponent}");
        // And `judge` gives the tests of that weighting, not of the observed table's.
        let f = judge(&model, &mut again, &ConsistencyOptions::default()).unwrap();
        let resample = Table::new(cells, weighting.applied);
        let made = make_tests(&model, &resample, &noise, &ConsistencyOptions::default()).unwrap();
        let want: Vec<f64> = made.tests.iter().map(|t| t.f).collect();
        assert_eq!(f, want);
    }

    #[test]
    fn heavy_tailed_resamples_have_the_variance_and_kurtosis_asked_for() {
        // Student's t on ν = 4 + 6/κ has excess kurtosis κ and, scaled, unit variance.
        let tails = Tails::of(3.0).unwrap();
        assert_eq!(tails.dof, 6.0);
        assert!(Tails::of(0.0).is_none());
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let n = 400_000;
        let z: Vec<f64> = (0..n)
            .map(|_| tails.unit * tails.student.sample(&mut rng))
            .collect();
        let m2 = z.iter().map(|z| z * z).sum::<f64>() / n as f64;
        assert!((m2 - 1.0).abs() < 0.02, "{m2}");
        // The sample kurtosis of t(6) converges slowly (its eighth moment is infinite): only
        // that it is well above normal's 0 and near 3.
        let m4 = z.iter().map(|z| z.powi(4)).sum::<f64>() / n as f64;
        let kurtosis = m4 / (m2 * m2) - 3.0;
        assert!((1.8..4.5).contains(&kurtosis), "{kurtosis}");
        // Drawn into cells of 3 runs with run variance v: SS/(n − 1) averages v, and the mean
        // varies by v/n, as with normal runs.
        let layout = without_runs(&table_of(|_, _| 100.0, |m| 0.01 * m).1.cells);
        let null = Null {
            mean: vec![50.0; layout.len()],
            variance: (0..layout.len()).map(|i| 1.0 + i as f64).collect(),
        };
        let (mut ss, mut dev, mut count) = (0.0, 0.0, 0.0);
        for _ in 0..2000 {
            for (i, c) in draw(&layout, &null, Some(&tails), &mut rng)
                .iter()
                .enumerate()
            {
                let v = null.variance[i];
                ss += c.within_ss / (2.0 * v);
                dev += (c.mean - 50.0).powi(2) * 3.0 / v;
                count += 1.0;
            }
        }
        assert!((ss / count - 1.0).abs() < 0.03, "{}", ss / count);
        assert!((dev / count - 1.0).abs() < 0.03, "{}", dev / count);
    }

    #[test]
    fn p_values_follow_besag_and_clifford() {
        // Stopped at the 40th resample with 5 at or above: 5/40. Not stopped: (1 + k)/(B + 1).
        assert_eq!(p_value_of(5, Some(40), 1000), 0.125);
        assert_eq!(p_value_of(4, None, 1000), 5.0 / 1001.0);
        // A test at 0.5 % with B = 1000 rejects with 4 exceedances, never once it stopped.
        assert_eq!(planned(0.005), 1000);
        assert!(p_value_of(4, None, planned(0.005)) < 0.005);
        assert!(p_value_of(5, Some(1000), planned(0.005)) >= 0.005);
        // Where K/α is not whole (α = 0.3 %: B = 1667), the K-th exceedance at the B-th
        // resample gives K/B < α, a valid p-value that rejects.
        assert_eq!(planned(0.003), 1667);
        assert!(p_value_of(5, Some(1667), planned(0.003)) < 0.003);
        assert!(p_value_of(5, Some(1666), planned(0.003)) >= 0.003);
    }

    #[test]
    fn the_seed_is_written_as_hexadecimal_text() {
        let r = Resampled {
            exponent: 1.0,
            drawn: 1,
            planned: 1,
            student_dof: None,
            seed: u64::MAX - 1,
            counts: Vec::new(),
        };
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["seed"], "0xfffffffffffffffe");
    }
}
