//! Each kernel's model of its native run time, fed with the costs of the program that runs and
//! with the runtime's own overheads fitted from the same runs.
//!
//! | kernel | model | measured | fitted |
//! |---|---|---|---|
//! | primes (chain, tree) | the farm, (g) with (f) or the framework of §3.1 on any tree | `T_e` = sequential time / M | `β_e`, `β_f` |
//! | mergesort | divide and conquer, (g) with (j)/(k), per-level `T_e(i)`, `T_s(i)`, `T_j(i)` of its pieces ([`mergesort_levels`]) | the levels, by CPU time | `β_e`, `β_f` |
//! | Ising | the tree mechanism, `T = ⌈n/P⌉ (t_s + δ) + 2⌈log₂ P⌉ β` (the scalability paper's candidate (6), `Φ(P) = a₁ + b₁ log P`, with its constant term `a₁ = 1 + δ/t_s`) | `t_s` = sequential time / n | `β`, one message; `δ`, the runtime's cost per sample |
//! | OCL | `t_{M,K}(L) = γ(N/M + 2L/K − 1) + β(NK + LM − KM)` (grain-size paper §3.3) | `β` = sequential time / (L N) | `γ = α0 + Kα1` (both, over a grain sweep) |
//!
//! Times are the runtime's wall times (its processors' common start to the last one's end);
//! every fit weighs relative errors (weights `1/T²`).

use serde::Serialize;

use multicomputer_runtime::LinkCost;

use crate::analysis::fit_linear;
use crate::dnc::{DncLevelCosts, DncModel, mergesort_levels};
use crate::farm::{FarmModel, FarmTopology, ModelError, TreeShape, fit_overheads, grid_overheads};
use crate::ocl::Grain;
use crate::ocl::model::{Costs, output_time_s};
use crate::speedup::error::SpeedupError;
use crate::speedup::kernel::{Inputs, Kernel, Workload};

/// What a kernel's model knows of one workload besides the fitted overheads: the costs of
/// its work, measured on this host.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WorkCosts {
    /// The farm: the mean time of a task, `T_e`.
    Farm {
        /// Seconds.
        te_s: f64,
    },
    /// Mergesort: the per-level costs on each P's tree, and the sequential time of a list.
    Dnc {
        /// `(P, levels)`, level 1 first.
        levels: Vec<(usize, Vec<DncLevelCosts>)>,
        /// Sequential time of one list, seconds.
        sequential_task_s: f64,
    },
    /// Ising: the time of one sample.
    Ising {
        /// Seconds.
        sample_s: f64,
    },
    /// OCL: the time of one comparison.
    Ocl {
        /// Seconds.
        comparison_s: f64,
    },
}

impl WorkCosts {
    /// The costs of `workload` with sequential time `sequential_s`, for every P of
    /// `processors` (mergesort times its pieces on each P's tree: a few sorts per level).
    pub fn measure(
        workload: &Workload,
        inputs: &Inputs,
        sequential_s: f64,
        processors: &[usize],
    ) -> Result<Self, SpeedupError> {
        let n = workload.tasks as f64;
        Ok(match (workload.kernel, inputs) {
            (Kernel::Mergesort, Inputs::Lists(lists)) => {
                // Timed as the native run charges its blocks: by the monotonic clock.
                let charger = multicomputer_runtime::Charging::measured(
                    multicomputer_runtime::WorkClock::Monotonic,
                );
                let task_s = sequential_s / n;
                let mut levels = Vec::new();
                for &p in processors {
                    let shape = mergesort_shape(p)?;
                    let sampled = mergesort_levels(lists, shape, &charger, &LinkCost::default());
                    levels.push((p, scaled_to_sequential(&sampled, task_s)));
                }
                WorkCosts::Dnc {
                    levels,
                    sequential_task_s: task_s,
                }
            }
            (Kernel::Ising, _) => WorkCosts::Ising {
                sample_s: sequential_s / n,
            },
            (Kernel::Ocl, _) => WorkCosts::Ocl {
                comparison_s: sequential_s / (n * workload.window as f64),
            },
            _ => WorkCosts::Farm {
                te_s: sequential_s / n,
            },
        })
    }
}

/// Mergesort's per-level costs scaled so that the root's `T_e(N)`, the sort of a whole list,
/// is the sequential program's time per list measured in the same rounds (`task_s`): the
/// sampled pieces give the costs' shape (how they divide among the levels and among sort,
/// split and join), the sequential program their scale. A sample of a few lists differs from
/// the median of every round by a few per cent, and a model faster than the sequential
/// program divided by P (an efficiency above 1) would follow from that alone.
fn scaled_to_sequential(levels: &[DncLevelCosts], task_s: f64) -> Vec<DncLevelCosts> {
    let root = levels.last().map_or(0.0, |l| l.te_s);
    let c = if root > 0.0 { task_s / root } else { 1.0 };
    levels
        .iter()
        .map(|l| DncLevelCosts {
            te_s: l.te_s * c,
            ts_s: l.ts_s * c,
            tj_s: l.tj_s * c,
            tau_s: l.tau_s,
        })
        .collect()
}

/// Mergesort's tree on P processors as the model sees it.
fn mergesort_shape(processors: usize) -> Result<TreeShape, SpeedupError> {
    Kernel::Mergesort
        .topology(processors)
        .ok()
        .and_then(|t| TreeShape::of(&t))
        .ok_or(SpeedupError::Model(ModelError::NeedsTreeShape("mergesort")))
}

/// The runtime's own costs, fitted: `(β_e, β_f)` for the farm and mergesort, `(β, δ)` (one
/// message on the tree, the runtime's cost per sample) for Ising, `γ` (one packet's communication) for OCL; `α0, α1` when fitted over
/// packet sizes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Overheads {
    /// `β_e`, `β` or `γ` (`α0` over packet sizes), seconds.
    pub first_s: f64,
    /// `β_f` (`δ` for Ising, `α1` over packet sizes), seconds; `None` when not fitted.
    pub second_s: Option<f64>,
}

impl Overheads {
    /// No overhead at all: what the kernel's work alone costs in the model.
    pub const NONE: Overheads = Overheads {
        first_s: 0.0,
        second_s: Some(0.0),
    };
}

/// A fitted parameter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Parameter {
    /// Its name: `β_e`, `β_f`, `β`, `γ`, `α0`, `α1`.
    pub name: &'static str,
    /// Its value, seconds.
    pub value_s: f64,
    /// Its standard error, seconds (none when there were no degrees of freedom left).
    pub std_error_s: Option<f64>,
    /// Whether this is a bounded fit's value: the unbounded one wanted a negative overhead (or
    /// failed), so the best non-negative one is given (0 for a linear parameter).
    pub bounded: bool,
}

/// A fit of a kernel's overheads.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelFit {
    /// The model, in words, with its source.
    pub model: &'static str,
    /// The fitted parameters.
    pub parameters: Vec<Parameter>,
    /// The overheads as the predictions use them.
    #[serde(skip)]
    pub overheads: Overheads,
    /// Largest |relative residual| of the fitted times.
    pub max_relative_residual: f64,
    /// Observations less parameters.
    pub dof: usize,
}

/// The model's name for `kernel`.
pub fn model_name(kernel: Kernel) -> &'static str {
    match kernel {
        Kernel::PrimesChain | Kernel::PrimesTree => {
            "processor farm, T = T_startup + (M − 1)/S (g), S from (f) or the framework of §3.1 \
             (farm paper)"
        }
        Kernel::Mergesort => {
            "divide and conquer, T = T_startup + (M − 1)/S_N with (j) and (k) (farm paper §3.3), \
             per-level costs of mergesort's own pieces"
        }
        Kernel::Ising => {
            "tree mechanism, T = ⌈n/P⌉ (t_s + δ) + 2⌈log₂ P⌉ β (scalability paper, candidate (6) \
             a₁ + b₁ log P with a₁ = 1 + δ/t_s: δ the runtime's cost per sample)"
        }
        Kernel::Ocl => "t_{M,K}(L) = γ(N/M + 2L/K − 1) + β(NK + LM − KM) (grain-size paper §3.3)",
    }
}

/// `⌈log₂ P⌉`: the depth of the binomial tree of P processors.
fn depth(processors: usize) -> u32 {
    processors.max(1).next_power_of_two().trailing_zeros()
}

/// The OCL grain at P.
fn ocl_grain(workload: &Workload, processors: usize) -> Result<Grain, SpeedupError> {
    let n = workload.window;
    Ok(Grain::new(
        n,
        n / processors.max(1),
        workload.grain as usize,
    )?)
}

/// The model's wall time of `workload` on P processors.
pub fn predict_s(
    workload: &Workload,
    costs: &WorkCosts,
    overheads: Overheads,
    processors: usize,
) -> Result<f64, SpeedupError> {
    let m = workload.tasks;
    let be = overheads.first_s;
    let bf = overheads.second_s.unwrap_or(be);
    match costs {
        WorkCosts::Farm { te_s } => {
            let topology = workload
                .kernel
                .topology(processors)
                .map_err(|e| ModelError::InvalidTree(e.to_string()))?;
            let model = FarmModel {
                topology: FarmTopology::of(&topology),
                te_s: *te_s,
                beta_e_s: be,
                beta_f_s: bf,
                tau_s: 0.0,
                tasks_m: m,
                granularity: 1,
            };
            Ok(model.predict()?.makespan_s)
        }
        WorkCosts::Dnc {
            levels,
            sequential_task_s,
        } => {
            let levels = levels
                .iter()
                .find(|(p, _)| *p == processors)
                .map(|(_, l)| l.clone())
                .ok_or_else(|| {
                    ModelError::LengthMismatch(format!("no mergesort levels for P = {processors}"))
                })?;
            let model = DncModel {
                levels,
                beta_e_s: be,
                beta_f_s: bf,
                tasks_m: m,
                sequential_task_s: Some(*sequential_task_s),
            };
            Ok(model.predict()?.makespan_s)
        }
        WorkCosts::Ising { sample_s } => {
            let per_processor = m.div_ceil(processors.max(1) as u64) as f64;
            let delta = overheads.second_s.unwrap_or(0.0);
            Ok(per_processor * (sample_s + delta) + 2.0 * f64::from(depth(processors)) * be)
        }
        WorkCosts::Ocl { comparison_s } => {
            let grain = ocl_grain(workload, processors)?;
            let c = Costs {
                alpha0_s: be,
                alpha1_s: overheads.second_s.unwrap_or(0.0),
                beta_s: *comparison_s,
            };
            Ok(output_time_s(grain, c, m))
        }
    }
}

/// A measured wall time of one configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    /// The workload (its grain and size).
    pub workload: Workload,
    /// Its costs.
    pub costs: WorkCosts,
    /// Processors.
    pub processors: usize,
    /// The median wall time, seconds.
    pub wall_s: f64,
}

/// A negative fitted overhead is noise around zero (the runtime cannot save time): 0, marked.
fn parameter(name: &'static str, value_s: f64, std_error_s: f64) -> Parameter {
    Parameter {
        name,
        value_s: value_s.max(0.0),
        std_error_s: (std_error_s.is_finite() && value_s >= 0.0).then_some(std_error_s),
        bounded: value_s < 0.0,
    }
}

/// Fits the overheads of `kernel`'s model to `observations`.
///
/// The farm and mergesort fit `(β_e, β_f)` ([`fit_overheads`]); with no P ≥ 2 among the
/// observations, `β_f` does not enter and `β_e` alone is fitted. Ising fits `β` and `δ`, OCL
/// `γ` (or, with `over_packets`, `α0` and `α1`), by linear least squares. `None` when nothing
/// can be fitted (no P ≥ 2 for Ising).
pub fn fit(
    kernel: Kernel,
    observations: &[Observation],
    over_packets: bool,
) -> Result<Option<ModelFit>, SpeedupError> {
    if observations.is_empty() {
        return Ok(None);
    }
    let y: Vec<f64> = observations.iter().map(|o| o.wall_s).collect();
    let w: Vec<f64> = y.iter().map(|t| 1.0 / (t * t)).collect();
    let predict =
        |o: &Observation, overheads| predict_s(&o.workload, &o.costs, overheads, o.processors);
    // The time the overheads must explain: the measured less the work alone.
    let rest = |o: &Observation| -> Result<f64, SpeedupError> {
        Ok(o.wall_s - predict(o, Overheads::NONE)?)
    };
    let (parameters, dof) = match kernel {
        Kernel::PrimesChain | Kernel::PrimesTree | Kernel::Mergesort => {
            let forwarding = observations.iter().any(|o| o.processors >= 2);
            if forwarding && observations.len() >= 2 {
                // The grid spans four decades below the longest time per task.
                let scale = observations
                    .iter()
                    .map(|o| o.wall_s / o.workload.tasks as f64)
                    .fold(0.0, f64::max);
                let model = |i: usize, be: f64, bf: f64| {
                    predict(
                        &observations[i],
                        Overheads {
                            first_s: be.max(0.0),
                            second_s: Some(bf.max(0.0)),
                        },
                    )
                    .unwrap_or(f64::NAN)
                };
                let dof = observations.len() - 2;
                match fit_overheads(&y, scale, model) {
                    Ok(f) if f.beta_e_s >= 0.0 && f.beta_f_s >= 0.0 => (
                        vec![
                            parameter("β_e", f.beta_e_s, f.beta_e_std_error_s),
                            parameter("β_f", f.beta_f_s, f.beta_f_std_error_s),
                        ],
                        dof,
                    ),
                    // Negative or singular: the best non-negative pair instead.
                    _ => {
                        let (be, bf, _) = grid_overheads(&y, scale, model);
                        let bounded = |name, value_s| Parameter {
                            name,
                            value_s,
                            std_error_s: None,
                            bounded: true,
                        };
                        (vec![bounded("β_e", be), bounded("β_f", bf)], dof)
                    }
                }
            } else {
                // One processor: T = M (T_e + β_e) + (no forwarding), linear in β_e.
                let rows: Vec<Vec<f64>> = observations
                    .iter()
                    .map(|o| vec![o.workload.tasks as f64])
                    .collect();
                let shifted: Result<Vec<f64>, SpeedupError> =
                    observations.iter().map(rest).collect();
                let f = fit_linear(&rows, &shifted?, Some(&w))?;
                (vec![parameter("β_e", f.params[0], f.std_errors[0])], f.dof)
            }
        }
        Kernel::Ising => {
            // T − ⌈n/P⌉ t_s = 2⌈log₂ P⌉ β + ⌈n/P⌉ δ, over every observation (P = 1 gives δ).
            if observations.iter().all(|o| o.processors < 2) {
                return Ok(None);
            }
            let rows: Vec<Vec<f64>> = observations
                .iter()
                .map(|o| {
                    let per_processor = o.workload.tasks.div_ceil(o.processors.max(1) as u64);
                    vec![2.0 * f64::from(depth(o.processors)), per_processor as f64]
                })
                .collect();
            let shifted: Result<Vec<f64>, SpeedupError> = observations.iter().map(rest).collect();
            let f = fit_linear(&rows, &shifted?, Some(&w))?;
            (
                vec![
                    parameter("β", f.params[0], f.std_errors[0]),
                    parameter("δ", f.params[1], f.std_errors[1]),
                ],
                f.dof,
            )
        }
        Kernel::Ocl => {
            // t = γ·A + α1·K·A + β·B: A, the communications on the critical path, from the
            // model with γ = 1 and nothing else.
            let unit = |o: &Observation, a0: f64, a1: f64| -> Result<f64, SpeedupError> {
                let grain = ocl_grain(&o.workload, o.processors)?;
                Ok(output_time_s(
                    grain,
                    Costs {
                        alpha0_s: a0,
                        alpha1_s: a1,
                        beta_s: 0.0,
                    },
                    o.workload.tasks,
                ))
            };
            let mut rows = Vec::new();
            let mut shifted = Vec::new();
            for o in observations {
                let mut row = vec![unit(o, 1.0, 0.0)?];
                if over_packets {
                    row.push(unit(o, 0.0, 1.0)?);
                }
                rows.push(row);
                shifted.push(rest(o)?);
            }
            let f = fit_linear(&rows, &shifted, Some(&w))?;
            if over_packets {
                (
                    vec![
                        parameter("α0", f.params[0], f.std_errors[0]),
                        parameter("α1", f.params[1], f.std_errors[1]),
                    ],
                    f.dof,
                )
            } else {
                (vec![parameter("γ", f.params[0], f.std_errors[0])], f.dof)
            }
        }
    };
    let overheads = Overheads {
        first_s: parameters[0].value_s,
        second_s: parameters.get(1).map(|p| p.value_s),
    };
    let mut max_relative_residual = 0.0_f64;
    for o in observations {
        let t = predict(o, overheads)?;
        max_relative_residual = max_relative_residual.max(((o.wall_s - t) / o.wall_s).abs());
    }
    Ok(Some(ModelFit {
        model: model_name(kernel),
        parameters,
        overheads,
        max_relative_residual,
        dof,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn observation(
        kernel: Kernel,
        costs: WorkCosts,
        processors: usize,
        truth: Overheads,
    ) -> Observation {
        let workload = Workload::new(kernel);
        let wall_s = predict_s(&workload, &costs, truth, processors).unwrap();
        Observation {
            workload,
            costs,
            processors,
            wall_s,
        }
    }

    #[test]
    fn the_farm_fit_recovers_its_overheads() {
        let truth = Overheads {
            first_s: 20e-6,
            second_s: Some(35e-6),
        };
        let obs: Vec<Observation> = [1, 2, 3, 4]
            .into_iter()
            .map(|p| {
                observation(
                    Kernel::PrimesChain,
                    WorkCosts::Farm { te_s: 1e-3 },
                    p,
                    truth,
                )
            })
            .collect();
        let f = fit(Kernel::PrimesChain, &obs, false).unwrap().unwrap();
        assert!((f.parameters[0].value_s - 20e-6).abs() < 1e-9, "{f:?}");
        assert!((f.parameters[1].value_s - 35e-6).abs() < 1e-9, "{f:?}");
        assert!(f.max_relative_residual < 1e-9);
        // On one processor only β_e enters: M (T_e + β_e).
        let one = fit(Kernel::PrimesChain, &obs[..1], false).unwrap().unwrap();
        assert_eq!(one.parameters.len(), 1);
        assert!((one.parameters[0].value_s - 20e-6).abs() < 1e-12);
        let m = Workload::new(Kernel::PrimesChain).tasks as f64;
        assert!((obs[0].wall_s - m * (1e-3 + 20e-6)).abs() < 1e-12);
    }

    #[test]
    fn mergesort_levels_take_their_scale_from_the_sequential_program() {
        // Sampled: the root sorts a list in 4 ms, splits in 0.1 ms, joins in 0.2 ms; a leaf
        // sorts its half in 1.8 ms. The sequential program takes 8 ms a list: all twice.
        let level = |te_s, ts_s, tj_s| DncLevelCosts {
            te_s,
            ts_s,
            tj_s,
            tau_s: 1e-6,
        };
        let sampled = [level(1.8e-3, 0.0, 0.0), level(4e-3, 0.1e-3, 0.2e-3)];
        let scaled = scaled_to_sequential(&sampled, 8e-3);
        let want = [level(3.6e-3, 0.0, 0.0), level(8e-3, 0.2e-3, 0.4e-3)];
        for (got, want) in scaled.iter().zip(&want) {
            for (a, b) in [
                (got.te_s, want.te_s),
                (got.ts_s, want.ts_s),
                (got.tj_s, want.tj_s),
                (got.tau_s, want.tau_s),
            ] {
                assert!((a - b).abs() < 1e-15, "{got:?} against {want:?}");
            }
        }
    }

    #[test]
    fn mergesort_on_two_processors_is_below_perfect_efficiency() {
        // tree:1:2: both levels sort whole lists, T_e(1) = T_e(2) = 8 ms = the sequential
        // time of a list, and nothing else costs. S_1 = 1/T_e, S_2 = 2/T_e (j), T_startup =
        // T_e(1): 40 lists take 8 ms + 39 × 4 ms = 164 ms, efficiency 40 × 8/(2 × 164) =
        // 40/41. (Levels timed faster than the sequential program made it exceed 1.)
        let level = DncLevelCosts {
            te_s: 8e-3,
            ts_s: 0.0,
            tj_s: 0.0,
            tau_s: 0.0,
        };
        let costs = WorkCosts::Dnc {
            levels: vec![(2, vec![level; 2])],
            sequential_task_s: 8e-3,
        };
        let w = Workload::new(Kernel::Mergesort);
        assert_eq!(w.tasks, 40);
        let t = predict_s(&w, &costs, Overheads::NONE, 2).unwrap();
        assert!((t - 0.164).abs() < 1e-12, "{t}");
        let efficiency = 40.0 * 8e-3 / (2.0 * t);
        assert!((efficiency - 40.0 / 41.0).abs() < 1e-12);
    }

    #[test]
    fn the_ising_tree_costs_two_messages_a_level_and_delta_a_sample() {
        // 640 samples of 1 ms, δ = 2 µs a sample, β = 50 µs, on 4 processors: 160 samples of
        // 1.002 ms and 2 levels × 2 messages: 160.32 ms + 0.2 ms.
        let costs = WorkCosts::Ising { sample_s: 1e-3 };
        let w = Workload::new(Kernel::Ising);
        let o = Overheads {
            first_s: 50e-6,
            second_s: Some(2e-6),
        };
        assert!((predict_s(&w, &costs, o, 4).unwrap() - (0.16032 + 4.0 * 50e-6)).abs() < 1e-12);
        // 3 processors: ⌈640/3⌉ = 214 samples, still 2 levels.
        assert!(
            (predict_s(&w, &costs, o, 3).unwrap() - (214.0 * 1.002e-3 + 4.0 * 50e-6)).abs() < 1e-12
        );
        // One processor: the samples and their δ, no message.
        assert!((predict_s(&w, &costs, o, 1).unwrap() - 640.0 * 1.002e-3).abs() < 1e-12);
        let obs: Vec<Observation> = [1, 2, 4, 8]
            .into_iter()
            .map(|p| observation(Kernel::Ising, costs.clone(), p, o))
            .collect();
        let f = fit(Kernel::Ising, &obs, false).unwrap().unwrap();
        assert_eq!(f.parameters[0].name, "β");
        assert!((f.parameters[0].value_s - 50e-6).abs() < 1e-12, "{f:?}");
        assert_eq!(f.parameters[1].name, "δ");
        assert!((f.parameters[1].value_s - 2e-6).abs() < 1e-12, "{f:?}");
        assert!(f.max_relative_residual < 1e-9);
        // Two observations, P = 1 and 2, fix both exactly.
        let two = fit(Kernel::Ising, &obs[..2], false).unwrap().unwrap();
        assert!((two.parameters[0].value_s - 50e-6).abs() < 1e-12);
        assert!((two.parameters[1].value_s - 2e-6).abs() < 1e-12);
        assert!(fit(Kernel::Ising, &obs[..1], false).unwrap().is_none());
    }

    #[test]
    fn the_ocl_fit_recovers_gamma_and_a_negative_one_is_clamped() {
        let costs = WorkCosts::Ocl {
            comparison_s: 1e-10,
        };
        let truth = Overheads {
            first_s: 2e-6,
            second_s: None,
        };
        let obs: Vec<Observation> = [1, 2]
            .into_iter()
            .map(|p| observation(Kernel::Ocl, costs.clone(), p, truth))
            .collect();
        let f = fit(Kernel::Ocl, &obs, false).unwrap().unwrap();
        assert!((f.parameters[0].value_s - 2e-6).abs() < 1e-12);
        assert!(!f.parameters[0].bounded);
        // Faster than the comparisons alone: γ < 0 is noise, reported as 0.
        let fast: Vec<Observation> = obs
            .into_iter()
            .map(|mut o| {
                o.wall_s *= 0.5;
                o
            })
            .collect();
        let f = fit(Kernel::Ocl, &fast, false).unwrap().unwrap();
        assert!(f.parameters[0].bounded && f.parameters[0].value_s == 0.0);
    }
}
