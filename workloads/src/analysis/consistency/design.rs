//! The models the tests compare, as weighted least-squares designs over the cells: how the
//! candidate's coefficients may vary with the loop count.

use super::super::basis::BasisTerm;
use super::super::error::{ScalabilityError, processors_f64};
use super::super::fit::{LinearFit, fit_linear};
use super::super::measurements::Cell;
use super::super::overhead_model::OverheadModel;

/// How a model's coefficients may vary across loop counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Structure {
    /// `a` shared, every other coefficient linear in the loop count: the paper's hypothesis.
    Constrained,
    /// `a` shared, every other coefficient free at each loop count.
    SharedConstant,
    /// As [`Structure::SharedConstant`], plus `a` linear in the loop count.
    DriftingConstant,
}

/// The loop counts of a table and the scaled loop count `L̂ = (L − L_min)/(L_max − L_min)`
/// used as a regressor (0 at the smallest loop count, 1 at the largest: well conditioned).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct LoopCounts {
    /// Distinct loop counts, ascending.
    pub(super) values: Vec<f64>,
}

impl LoopCounts {
    pub(super) fn of(cells: &[Cell]) -> Self {
        let mut values: Vec<f64> = cells.iter().map(|c| c.loop_count).collect();
        values.sort_by(f64::total_cmp);
        values.dedup();
        LoopCounts { values }
    }

    pub(super) fn smallest(&self) -> f64 {
        self.values[0]
    }

    pub(super) fn range(&self) -> f64 {
        self.values[self.values.len() - 1] - self.values[0]
    }

    /// `L̂` of a loop count.
    pub(super) fn scaled(&self, loop_count: f64) -> f64 {
        (loop_count - self.smallest()) / self.range()
    }

    fn index(&self, loop_count: f64) -> usize {
        self.values
            .iter()
            .position(|l| *l == loop_count)
            .unwrap_or(0)
    }
}

/// Number of parameters of `model` under `structure` with `k` loop counts.
pub(super) fn parameters(model: &OverheadModel, structure: Structure, k: usize) -> usize {
    let others = model.len() - 1;
    match structure {
        Structure::Constrained => 1 + 2 * others,
        Structure::SharedConstant => 1 + k * others,
        Structure::DriftingConstant => 2 + k * others,
    }
}

/// The design rows, one per cell. Column order: `a` first; then, per non-constant term, its
/// intercept and slope in `L̂` (constrained) or its value at each loop count (free); the drift
/// of `a` in `L̂` last.
pub(super) fn rows(
    model: &OverheadModel,
    structure: Structure,
    cells: &[Cell],
    loops: &LoopCounts,
) -> Result<Vec<Vec<f64>>, ScalabilityError> {
    let k = loops.values.len();
    let others: Vec<BasisTerm> = model
        .terms()
        .iter()
        .copied()
        .filter(|t| *t != BasisTerm::One)
        .collect();
    cells
        .iter()
        .map(|c| {
            let p = processors_f64(c.processors)?;
            let l = loops.scaled(c.loop_count);
            let mut row = vec![1.0];
            match structure {
                Structure::Constrained => {
                    for t in &others {
                        row.extend([t.eval(p), t.eval(p) * l]);
                    }
                }
                Structure::SharedConstant | Structure::DriftingConstant => {
                    let at = loops.index(c.loop_count);
                    for t in &others {
                        row.extend((0..k).map(|i| if i == at { t.eval(p) } else { 0.0 }));
                    }
                    if structure == Structure::DriftingConstant {
                        row.push(l);
                    }
                }
            }
            Ok(row)
        })
        .collect()
}

/// Weighted least squares of `y` (one value per cell) on `rows`.
pub(super) fn fit(rows: &[Vec<f64>], y: &[f64], w: &[f64]) -> Result<LinearFit, ScalabilityError> {
    Ok(fit_linear(rows, y, Some(w))?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Measurement, cells};

    #[test]
    fn designs_have_the_stated_columns() {
        let c = cells(&[
            Measurement::run(2, 0.0, 1.0),
            Measurement::run(4, 100.0, 1.0),
            Measurement::run(8, 200.0, 1.0),
        ])
        .unwrap();
        let loops = LoopCounts::of(&c);
        assert_eq!(loops.values, vec![0.0, 100.0, 200.0]);
        let m = OverheadModel::log();
        let l4 = 4f64.ln();
        let r = rows(&m, Structure::Constrained, &c, &loops).unwrap();
        assert_eq!(r[1], vec![1.0, l4, l4 * 0.5]);
        let r = rows(&m, Structure::SharedConstant, &c, &loops).unwrap();
        assert_eq!(r[1], vec![1.0, 0.0, l4, 0.0]);
        let r = rows(&m, Structure::DriftingConstant, &c, &loops).unwrap();
        assert_eq!(r[2], vec![1.0, 0.0, 0.0, 8f64.ln(), 1.0]);
        for s in [
            Structure::Constrained,
            Structure::SharedConstant,
            Structure::DriftingConstant,
        ] {
            assert_eq!(
                rows(&m, s, &c, &loops).unwrap()[0].len(),
                parameters(&m, s, 3)
            );
        }
    }
}
