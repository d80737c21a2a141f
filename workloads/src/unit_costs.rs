//! What each unit of real work the programs declare costs on this host.
//!
//! In virtual time with model compute charging, a compute block is charged the units it
//! declares times their cost ([`WorkCosts`]). The costs are measured here, natively, by running
//! each kernel on inputs of its own kind and timing it by thread CPU time:
//!
//! | unit | declared by | measured on |
//! |---|---|---|
//! | `prime_candidate`, `trial_division` | the farm's prime kernel | four ranges from 10³ to 10⁹ (least squares: t = a·candidates + b·divisions) |
//! | `comparison`, `key_move` | mergesort (split, leaf sort, merges) | random and presorted lists (least squares) |
//! | `attempted_flip`, `accepted_flip`, `neighbour_read` | an Ising sample (its attempted flips, its accepted flips, the neighbour spins its attempts summed) | samples of 20 + 20 sweeps, cold start, that accept 1.4–66 % of their flips: 2D 32² at T = 1.5, 2.27 and 4, 3D 8³ at T = 3, 4 and 6 (least squares, costs ≥ 0) |
//! | `summary_merge` | adding a sample to, or merging, Ising summaries | 100 000 adds |
//! | `ocl_comparison`, `ocl_value` | an OCL cell step | four grains (least squares) |
//!
//! Each measurement is repeated and the median kept. A unit's cost on other inputs differs
//! (caches, branch prediction): the model is a linear approximation of the real program, which
//! `--compute measured` avoids at the price of repeatability. The largest such difference is
//! the spin flip's: a Metropolis attempt costs more the more often it is accepted (the
//! accept-or-reject branch is mispredicted more often; the flip's own writes cost next to
//! nothing) and the more neighbours it sums (four in 2D, six in 3D),
//! so a sample is charged its attempted flips, its accepted ones and its neighbours read, each
//! at its own cost, fitted over samples from ordered to disordered in both dimensions. The
//! random draw of an uphill attempt is not a unit of its own: the draws of every sample lie
//! close to `attempts − 0.72 × accepted`, so no fit over these samples can tell its cost from
//! an attempt's and an accepted flip's, which carry it (docs/results/trust.md). An attempt's
//! own cost and a neighbour's are told apart only by the two dimensions, so their split is
//! known less well than each dimension's whole attempt, which is what a sample is charged.
//! A misprediction is no count: its cost per accepted flip falls as acceptance rises and is
//! higher in 3D, so the linear charge leaves a residue, largest on a mostly rejecting 3D
//! sample (T = 3: 13 % over; docs/results/trust.md, "3-D ising at T = 3").
//! Every Ising run reports its modelled sample time against a native sample, which says how
//! far it is off, and why where it is off by more than the fitted samples agree.

use std::collections::BTreeMap;

use multicomputer_runtime::{Work, WorkClock, WorkCosts, WorkUnit};

use crate::analysis::fit_linear;
use crate::dnc::{COMPARISON, KEY_MOVE, mergesort};
use crate::farm::{PRIME_CANDIDATE, TRIAL_DIVISION, count_primes_metered};
use crate::ising::{
    ACCEPTED_FLIP, ATTEMPTED_FLIP, DEFAULT_SWEEPS, DEFAULT_TEMPERATURE, Dimension, IsingConfig,
    NEIGHBOUR_READ, SUMMARY_MERGE, SummaryAccumulator, run_sample,
};
use crate::ocl::{
    CellChoice, Grain, OCL_COMPARISON, OCL_VALUE, random_stream, run_systolic, transform_label,
};
use crate::speedup::Spread;

/// Every unit a program of this crate declares.
pub const UNITS: [WorkUnit; 10] = [
    PRIME_CANDIDATE,
    TRIAL_DIVISION,
    COMPARISON,
    KEY_MOVE,
    ATTEMPTED_FLIP,
    ACCEPTED_FLIP,
    NEIGHBOUR_READ,
    SUMMARY_MERGE,
    OCL_COMPARISON,
    OCL_VALUE,
];

/// One iteration of the runtime's degradation loop on the development host, ns (used when no
/// machine profile gives this host's own).
pub const REFERENCE_LOOP_ITERATION_NS: f64 = 0.6;

/// The reference cost of an attempted flip, ns: the development host's 7.3 ns per attempt of
/// the default 3D sample (21.5 % accepted) split in the ratio of the development host's
/// two-unit fit (3.10 ns an attempt, 16.83 ns an accepted flip, which charge that sample
/// 6.72 ns an attempt; docs/results/trust.md), so that the default sample's reference charge
/// is unchanged: 3.37 + 0.215 × 18.3 = 7.30 ns.
pub const ATTEMPTED_FLIP_REFERENCE_NS: f64 = 3.37;

/// The reference cost of an accepted flip besides its attempt, ns (see
/// [`ATTEMPTED_FLIP_REFERENCE_NS`]).
pub const ACCEPTED_FLIP_REFERENCE_NS: f64 = 18.3;

/// The reference cost of a neighbour spin read, ns: 0, as for a profile of the two-unit
/// `calibrate` ([`profile_over_reference`]). The development host's costs were fitted with
/// two units, whose attempt carries its neighbours; its three-unit costs are to be re-taken on
/// it, quiet (`examples/ising_flip_cost`, docs/results/trust.md).
pub const NEIGHBOUR_READ_REFERENCE_NS: f64 = 0.0;

/// The units of an Ising sample's work, fitted together.
pub const FLIP_UNITS: [WorkUnit; 3] = [ATTEMPTED_FLIP, ACCEPTED_FLIP, NEIGHBOUR_READ];

/// The Ising samples the flips' costs are fitted on: (dimension, L, T), from ordered to
/// disordered in both dimensions: 2D 32² at T = 1.5 (the README's, 1.4 % of the attempts
/// accepted), 2.27 (T_c) and 4 (60 %), 3D 8³ at T = 3 (5 %), 4 (the default, 22 %) and 6
/// (66 %). The two dimensions, at 4 and 6 neighbours an attempt, tell a neighbour's cost from
/// an attempt's; the range of acceptance in each, an accepted flip's.
pub const FLIP_SAMPLES: [(Dimension, usize, f64); 6] = [
    (Dimension::Three, 8, DEFAULT_TEMPERATURE),
    (Dimension::Three, 8, 3.0),
    (Dimension::Three, 8, 6.0),
    (Dimension::Two, 32, 1.5),
    (Dimension::Two, 32, 2.27),
    (Dimension::Two, 32, 4.0),
];

/// The configuration of a fitted sample (dimension, L, T): 20 + 20 sweeps from a cold start,
/// as `calibrate` times it.
pub fn flip_sample_config((dimension, size, temperature): (Dimension, usize, f64)) -> IsingConfig {
    let mut c = IsingConfig::new(dimension, size, temperature).expect("a valid Ising config");
    c.thermalisation_sweeps = DEFAULT_SWEEPS;
    c.measurement_sweeps = DEFAULT_SWEEPS;
    c
}

/// Costs per unit measured on the development host (a 2-vCPU Firecracker VM; see
/// docs/results/virtual-time.md), used when no machine profile gives this host's own.
pub fn reference_unit_costs() -> BTreeMap<String, f64> {
    [
        (PRIME_CANDIDATE, 4.0),
        (TRIAL_DIVISION, 7.5),
        (COMPARISON, 2.5),
        (KEY_MOVE, 0.7),
        (ATTEMPTED_FLIP, ATTEMPTED_FLIP_REFERENCE_NS),
        (ACCEPTED_FLIP, ACCEPTED_FLIP_REFERENCE_NS),
        (NEIGHBOUR_READ, NEIGHBOUR_READ_REFERENCE_NS),
        (SUMMARY_MERGE, 40.0),
        (OCL_COMPARISON, 0.5),
        (OCL_VALUE, 0.3),
    ]
    .into_iter()
    .map(|(u, ns)| (u.name().to_string(), ns))
    .collect()
}

/// The units `calibrate` fits together, each group in one least-squares fit.
pub const FITTED_TOGETHER: [&[WorkUnit]; 3] = [
    &[PRIME_CANDIDATE, TRIAL_DIVISION],
    &FLIP_UNITS,
    &[OCL_COMPARISON, OCL_VALUE],
];

/// Model charging's costs per unit: `measured` (a machine profile's) over the reference
/// costs, and the units `measured` lacks from a group it holds others of ([`FITTED_TOGETHER`]),
/// i.e. a profile written by a `calibrate` that did not fit them yet (before
/// `neighbour_read`). Such a unit costs 0 ns: the group's other units were fitted without it
/// and carry its cost, which the reference cost would count twice. Running `calibrate` again
/// fits the whole group.
pub fn profile_over_reference(
    measured: &BTreeMap<String, f64>,
) -> (BTreeMap<String, f64>, Vec<WorkUnit>) {
    let mut costs = reference_unit_costs();
    let mut unfitted = Vec::new();
    for group in FITTED_TOGETHER {
        let (held, missing): (Vec<WorkUnit>, Vec<WorkUnit>) =
            group.iter().partition(|u| measured.contains_key(u.name()));
        if !held.is_empty() {
            for u in missing {
                costs.insert(u.name().to_string(), 0.0);
                unfitted.push(u);
            }
        }
    }
    costs.extend(measured.iter().map(|(u, ns)| (u.clone(), *ns)));
    (costs, unfitted)
}

/// Thread CPU time of `f`, ns, with what it declared.
fn timed<T>(f: impl FnOnce(&mut Work) -> T) -> (f64, Work) {
    let mut work = Work::default();
    let (_, took) = WorkClock::ThreadCpu.time(|| std::hint::black_box(f(&mut work)));
    (took.as_nanos() as f64, work)
}

/// The median of the finite values, NaN without any.
fn median(v: Vec<f64>) -> f64 {
    Spread::of(&v).map_or(f64::NAN, |s| s.median)
}

/// Least squares of `t = Σⱼ cⱼ·xⱼ` through the origin with every cost `cⱼ ≥ 0`, over rows
/// of counts `x` and a time `t`: the unconstrained fit ([`fit_linear`]) on every subset of the
/// units, the best of those whose costs are all non-negative, the units left out costing 0:
/// the exact non-negative least squares, at 2ᴺ − 1 small fits (7 for three units). A negative
/// cost is noise; units that the rows cannot tell apart (collinear counts) are charged to the
/// first of them.
fn non_negative_fit<const N: usize>(rows: &[([f64; N], f64)]) -> [f64; N] {
    let t: Vec<f64> = rows.iter().map(|r| r.1).collect();
    // A later subset must beat an earlier one by more than rounding.
    let margin = 1e-12 * t.iter().map(|t| t * t).sum::<f64>();
    let mut best: Option<(f64, [f64; N])> = None;
    for mask in 1u32..(1 << N) {
        let used: Vec<usize> = (0..N).filter(|j| mask & (1 << j) != 0).collect();
        let design: Vec<Vec<f64>> = rows
            .iter()
            .map(|(x, _)| used.iter().map(|&j| x[j]).collect())
            .collect();
        let Ok(fit) = fit_linear(&design, &t, None) else {
            continue;
        };
        if fit.params.iter().any(|c| *c < 0.0) {
            continue;
        }
        if best.is_none_or(|(rss, _)| fit.weighted_rss < rss - margin) {
            let mut costs = [0.0; N];
            for (&j, c) in used.iter().zip(&fit.params) {
                costs[j] = *c;
            }
            best = Some((fit.weighted_rss, costs));
        }
    }
    best.map_or([0.0; N], |(_, costs)| costs)
}

/// The costs of `units` fitted together ([`non_negative_fit`]) over timed points and what
/// each declared.
fn fit_units<const N: usize>(points: &[(f64, Work)], units: [WorkUnit; N]) -> [f64; N] {
    let rows: Vec<([f64; N], f64)> = points
        .iter()
        .map(|(t, w)| (units.map(|u| w.count(u) as f64), *t))
        .collect();
    non_negative_fit(&rows)
}

/// The units' costs measured on this host, with the replicates they come from.
#[derive(Debug, Clone)]
pub struct MeasuredUnitCosts {
    /// The cost of each unit.
    pub costs: WorkCosts,
    /// Every timed input (a kernel on one of its inputs) and its time in each repetition, ns:
    /// replicates of one measurement, which a busy host scatters.
    pub replicates: Vec<(String, Vec<f64>)>,
}

/// The times of `points`, timed repetition after repetition over `inputs` (named), grouped
/// by input: each input's replicates.
fn replicates_of(points: &[(f64, Work)], inputs: &[String]) -> Vec<(String, Vec<f64>)> {
    inputs
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let times = points.iter().skip(i).step_by(inputs.len()).map(|p| p.0);
            (name.clone(), times.collect())
        })
        .collect()
}

/// Measures every unit's cost on this host; `repeats` ≥ 1 repetitions of each measurement (5
/// take about a second of CPU time).
pub fn measure_unit_costs(repeats: usize) -> MeasuredUnitCosts {
    let repeats = repeats.max(1);
    let mut costs = BTreeMap::new();
    let mut replicates = Vec::new();
    let mut set = |u: WorkUnit, ns: f64| {
        costs.insert(u.name().to_string(), ns);
    };

    // Primes: candidates and divisions, pooled over ranges whose divisions per candidate
    // differ by a factor of about a hundred.
    let ranges = [
        (1_000, 20_000),
        (100_000, 5_000),
        (10_000_000, 1_000),
        (1_000_000_000, 200),
    ];
    let points: Vec<(f64, Work)> = (0..repeats)
        .flat_map(|_| ranges)
        .map(|(s, n)| timed(|w| count_primes_metered(s, n, w)))
        .collect();
    let names: Vec<String> = ranges
        .iter()
        .map(|(s, n)| format!("primes: {n} candidates from {s}"))
        .collect();
    replicates.extend(replicates_of(&points, &names));
    let [candidate, division] = fit_units(&points, [PRIME_CANDIDATE, TRIAL_DIVISION]);
    set(PRIME_CANDIDATE, candidate);
    set(TRIAL_DIVISION, division);

    // Mergesort: a key move is what copying a key costs; a comparison, the rest of a sort
    // (its loop also writes the key it picks) per comparison.
    let list = random_stream(50_000, -1_000_000, 1_000_000, 7);
    let mut copy = vec![0; list.len()];
    let copies: Vec<f64> = (0..repeats)
        .map(|_| {
            let (t, _) = timed(|_| {
                for _ in 0..20 {
                    copy.copy_from_slice(std::hint::black_box(&list));
                }
            });
            t
        })
        .collect();
    let move_ns = median(
        copies
            .iter()
            .map(|t| t / (20 * list.len()) as f64)
            .collect(),
    );
    let sorts: Vec<(f64, Work)> = (0..repeats)
        .map(|_| {
            let mut v = list.clone();
            timed(|w| mergesort(&mut v, w))
        })
        .collect();
    let comparison_ns = median(
        sorts
            .iter()
            .map(|(t, w)| {
                (t - move_ns * w.count(KEY_MOVE) as f64).max(0.0) / w.count(COMPARISON) as f64
            })
            .collect(),
    );
    replicates.push((format!("{} key copies", 20 * list.len()), copies));
    replicates.extend(replicates_of(
        &sorts,
        &[format!("mergesort of {} keys", list.len())],
    ));
    set(KEY_MOVE, move_ns);
    set(COMPARISON, comparison_ns);

    // Ising: attempted flips, accepted flips and neighbours read, pooled over samples from
    // ordered to disordered (1.4 % to 66 % of the attempts accepted) in both dimensions.
    let points: Vec<(f64, Work)> = (0..repeats)
        .flat_map(|k| FLIP_SAMPLES.map(|s| (k, flip_sample_config(s))))
        .map(|(k, c)| {
            timed(|w| {
                let r = run_sample(&c, k as u64);
                if let Ok(r) = &r {
                    r.declare(w);
                }
                r
            })
        })
        .collect();
    let names: Vec<String> = FLIP_SAMPLES
        .iter()
        .map(|(d, l, t)| format!("Ising sample: {}D L = {l}, T = {t}", d.d()))
        .collect();
    replicates.extend(replicates_of(&points, &names));
    for (unit, ns) in FLIP_UNITS.iter().zip(fit_units(&points, FLIP_UNITS)) {
        set(*unit, ns);
    }

    let sample = run_sample(&flip_sample_config(FLIP_SAMPLES[0]), 0).expect("a valid Ising config");
    let adds = 100_000u64;
    let merges: Vec<f64> = (0..repeats)
        .map(|_| {
            let (t, _) = timed(|_| {
                let mut acc = SummaryAccumulator::new();
                for _ in 0..adds {
                    acc.add(std::hint::black_box(&sample));
                }
                acc
            });
            t
        })
        .collect();
    let merge_ns = median(merges.iter().map(|t| t / adds as f64).collect());
    replicates.push((format!("{adds} summary adds"), merges));
    set(SUMMARY_MERGE, merge_ns);

    // OCL: comparisons (KM a step) and values (3K in and 3K out a step), pooled over grains
    // whose ratio of the two differs by a factor of sixty.
    let input = random_stream(4_000, 0, 50, 3);
    let grains: Vec<Grain> = [
        Grain::fine(16),
        Grain::m1(64, 16),
        Grain::m1(64, 64),
        Grain::kk(64, 16),
        Grain::new(64, 16, 8),
    ]
    .into_iter()
    .flatten()
    .collect();
    let points: Vec<(f64, Work)> = (0..repeats)
        .flat_map(|_| grains.iter().copied())
        .map(|g| {
            timed(|w| {
                let run = run_systolic(g, &input, CellChoice::Specialised);
                if let Ok(r) = &run {
                    for c in &r.cells {
                        c.declare(w);
                    }
                }
                run
            })
        })
        .collect();
    let names: Vec<String> = grains
        .iter()
        .map(|g| format!("OCL cells: {} on N = {}", transform_label(*g), g.n()))
        .collect();
    replicates.extend(replicates_of(&points, &names));
    let [comparison, value] = fit_units(&points, [OCL_COMPARISON, OCL_VALUE]);
    set(OCL_COMPARISON, comparison);
    set(OCL_VALUE, value);

    MeasuredUnitCosts {
        costs: WorkCosts {
            ns_per_unit: costs,
            ..WorkCosts::default()
        },
        replicates,
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    #[test]
    fn two_unit_fit_recovers_known_costs() {
        // t = 3x + 0.5y exactly, on points of different x:y ratios.
        let pts: Vec<([f64; 2], f64)> = [(10.0, 100.0), (50.0, 20.0), (7.0, 300.0)]
            .iter()
            .map(|&(x, y)| ([x, y], 3.0 * x + 0.5 * y))
            .collect();
        let [a, b] = non_negative_fit(&pts);
        assert!((a - 3.0).abs() < 1e-9 && (b - 0.5).abs() < 1e-9, "{a} {b}");
        // Collinear points cannot separate the units: all goes to x.
        let [a, b] = non_negative_fit(&[([1.0, 2.0], 4.0), ([2.0, 4.0], 8.0)]);
        assert!((a - 4.0).abs() < 1e-12 && b == 0.0, "{a} {b}");
        // A cost the data make negative is noise: that unit costs 0, the other is fitted
        // alone (t = 2x would need y at −1 to fit these exactly).
        let [a, b] = non_negative_fit(&[([1.0, 1.0], 1.0), ([2.0, 1.0], 3.0)]);
        let alone = (1.0 + 2.0 * 3.0) / (1.0 + 4.0);
        assert!((a - alone).abs() < 1e-12 && b == 0.0, "{a} {b}");
    }

    /// What the fitted samples declare: (attempted, accepted, neighbours read), counted by
    /// running each of [`FLIP_SAMPLES`] once.
    fn flip_sample_counts() -> Vec<[f64; 3]> {
        FLIP_SAMPLES
            .iter()
            .map(|&s| {
                let mut w = Work::default();
                run_sample(&flip_sample_config(s), 0)
                    .unwrap()
                    .declare(&mut w);
                FLIP_UNITS.map(|u| w.count(u) as f64)
            })
            .collect()
    }

    #[test]
    fn the_flip_samples_span_ordered_to_disordered_in_both_dimensions() {
        let counts = flip_sample_counts();
        let accepted: Vec<f64> = counts.iter().map(|[a, f, _]| f / a).collect();
        let lowest = accepted.iter().copied().fold(f64::INFINITY, f64::min);
        let highest = accepted.iter().copied().fold(0.0, f64::max);
        assert!(lowest < 0.02 && highest > 0.6, "{accepted:?}");
        // Three samples of each dimension: 6 neighbours an attempt in 3D, 4 in 2D.
        let read: Vec<f64> = counts.iter().map(|[a, _, n]| n / a).collect();
        assert_eq!(read, [6.0, 6.0, 6.0, 4.0, 4.0, 4.0]);
    }

    /// The costs the fit recovers from the fitted samples' counts with each sample's time
    /// `1 + noise[i]` times its true time under `costs`.
    fn recovered(counts: &[[f64; 3]], costs: [f64; 3], noise: &[f64]) -> [f64; 3] {
        let rows: Vec<([f64; 3], f64)> = (counts.iter().zip(noise))
            .map(|(x, e)| {
                let t: f64 = x.iter().zip(costs).map(|(x, c)| x * c).sum();
                (*x, t * (1.0 + e))
            })
            .collect();
        non_negative_fit(&rows)
    }

    #[test]
    fn each_flip_unit_is_recovered_from_the_fitted_samples() {
        let counts = flip_sample_counts();
        // Near what a loaded dev VM measured (an attempt about 1.2 ns, an accepted flip 9, a
        // neighbour 0.4), and each unit alone much dearer than the others, so that no unit
        // is recovered only because it is small.
        let cases = [
            [1.2, 9.0, 0.4],
            [10.0, 1.0, 0.1],
            [0.1, 10.0, 0.1],
            [0.1, 1.0, 3.0],
        ];
        for costs in cases {
            // Noise-free: every unit exactly (to rounding).
            let fitted = recovered(&counts, costs, &[0.0; 6]);
            for (f, c) in fitted.iter().zip(costs) {
                assert!((f - c).abs() < 1e-9 * c, "{costs:?}: {fitted:?}");
            }
        }
        // Each sample 2 % too slow or too fast, in every one of the 64 patterns (the worst
        // case of any noise within ±2 % a sample: the fit is linear in the times), at the
        // costs measured under load: the worst error of each unit's cost, relative to it,
        // and of an attempt's whole cost in 2D (a + 4n) and in 3D (a + 6n), which is what a
        // sample is charged besides its accepted flips. An attempt's own cost and a
        // neighbour's are told apart only by the two dimensions (a = 3·(a + 4n) − 2·(a + 6n)),
        // which magnifies the noise: they are identifiable, but each within 50 % and 35 %
        // (worst found: 45 % and 29 %), while the accepted flip is within 6 % (4.9 %), a 2D
        // attempt within 5 % (3.9 %) and a 3D one within 7 % (6.0 %).
        let costs = cases[0];
        let whole = |c: [f64; 3]| [c[0] + 4.0 * c[2], c[0] + 6.0 * c[2]];
        let mut worst = [0.0f64; 5];
        for pattern in 0..64u32 {
            let noise: Vec<f64> = (0..6)
                .map(|i| if pattern & (1 << i) == 0 { 0.02 } else { -0.02 })
                .collect();
            let fitted = recovered(&counts, costs, &noise);
            let (f, c) = (
                [fitted.as_slice(), &whole(fitted)].concat(),
                [costs.as_slice(), &whole(costs)].concat(),
            );
            for j in 0..5 {
                worst[j] = worst[j].max((f[j] / c[j] - 1.0).abs());
            }
        }
        let tolerance = [0.5, 0.06, 0.35, 0.05, 0.07];
        for j in 0..5 {
            assert!(worst[j] < tolerance[j], "{worst:?}");
        }
    }

    #[test]
    fn a_profile_fitted_without_the_neighbour_unit_charges_it_nothing() {
        // Written by a calibrate of two flip units, with no OCL costs at all.
        let old: BTreeMap<String, f64> = [("attempted_flip", 3.1), ("accepted_flip", 16.8)]
            .into_iter()
            .map(|(u, ns)| (u.to_string(), ns))
            .collect();
        let (costs, unfitted) = profile_over_reference(&old);
        assert_eq!(unfitted, vec![NEIGHBOUR_READ]);
        assert_eq!(costs["neighbour_read"], 0.0);
        assert_eq!(costs["attempted_flip"], 3.1);
        // A group the profile holds none of comes from the reference costs whole.
        let reference = reference_unit_costs();
        assert_eq!(costs["ocl_value"], reference["ocl_value"]);
        assert_eq!(costs.len(), reference.len());
        // A profile of today's calibrate lacks nothing.
        let (costs, unfitted) = profile_over_reference(&reference);
        assert!(unfitted.is_empty());
        assert_eq!(costs, reference);
    }

    #[test]
    fn every_unit_has_a_reference_cost() {
        let reference = reference_unit_costs();
        for u in UNITS {
            // A unit may cost 0 (a neighbour read, which the reference attempt carries).
            assert!(reference.get(u.name()).is_some_and(|&ns| ns >= 0.0), "{u}");
        }
        // The default 3D sample is charged the development host's 7.3 ns an attempt.
        let mut w = Work::default();
        run_sample(&flip_sample_config(FLIP_SAMPLES[0]), 0)
            .unwrap()
            .declare(&mut w);
        let charged: f64 = FLIP_UNITS
            .iter()
            .map(|u| w.count(*u) as f64 * reference[u.name()])
            .sum();
        let per_attempt = charged / w.count(ATTEMPTED_FLIP) as f64;
        assert!((per_attempt - 7.3).abs() < 0.01, "{per_attempt}");
    }

    #[test]
    fn measured_costs_cover_every_unit_and_are_positive() {
        let measured = measure_unit_costs(2);
        let costs = measured.costs;
        for u in UNITS {
            let ns = costs.unit_ns(u).unwrap_or(f64::NAN);
            assert!(ns.is_finite() && ns >= 0.0, "{u}: {ns}");
        }
        // The prime kernel's divisions cost something on any host.
        assert!(costs.unit_ns(TRIAL_DIVISION).unwrap() > 0.0);
        // Every timed input has its two repetitions, each a positive time.
        assert_eq!(
            measured.replicates.len(),
            4 + 2 + FLIP_SAMPLES.len() + 1 + 5
        );
        for (input, times) in &measured.replicates {
            assert!(
                times.len() == 2 && times.iter().all(|t| *t > 0.0),
                "{input}"
            );
        }
    }
}
