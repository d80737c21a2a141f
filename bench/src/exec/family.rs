//! The family of a run's network, for the model's curve of speedup against processors that a
//! report draws beside the run: the chains or balanced k-ary trees of one level up to a few
//! more than the run's.

use multicomputer_runtime::Topology;
use multicomputer_workloads::tree::TreeShape;

use super::Experiment;

/// How far the family goes: up to this many times the run's processors, and at least two
/// levels more.
pub(crate) const FAMILY_GROWTH: u64 = 4;

/// The largest member of a family built for its model (each one is a machine's topology):
/// a run larger than this has no family curve.
const MOST_FAMILY_PROCESSORS: u64 = 1 << 16;

/// The processors of a chain (`k = 1`) or k-ary tree of `levels`, if at most
/// [`MOST_FAMILY_PROCESSORS`].
fn processors(k: u32, levels: u32) -> Option<u64> {
    let mut total: u64 = 0;
    let mut width: u64 = 1;
    for _ in 0..levels {
        total = total.checked_add(width)?;
        width = width.checked_mul(u64::from(k))?;
    }
    (total <= MOST_FAMILY_PROCESSORS).then_some(total)
}

/// The model's speedup of `experiment` over the family of `topology` (a chain or a balanced
/// k-ary tree from its root), as (processors, speedup), from one level up to
/// [`FAMILY_GROWTH`] times the run's processors; empty for any other network, or where the
/// model needs what only the run measures ([`Experiment::predicted`]).
pub(crate) fn family_speedups<E: Experiment>(
    experiment: &E,
    topology: &Topology,
) -> Vec<(f64, f64)> {
    let Some(shape) = TreeShape::of(topology) else {
        return Vec::new();
    };
    let Some(own) = processors(shape.k, shape.levels) else {
        return Vec::new();
    };
    let largest = FAMILY_GROWTH.saturating_mul(own);
    let mut curve = Vec::new();
    for levels in 1.. {
        let Some(p) = processors(shape.k, levels) else {
            break;
        };
        if levels > shape.levels + 2 && p > largest {
            break;
        }
        let built = if shape.k == 1 {
            Topology::chain(levels as usize)
        } else {
            Topology::kary_tree(shape.k as usize, levels)
        };
        let Some(predicted) = built.ok().and_then(|t| experiment.predicted(&t)) else {
            return Vec::new();
        };
        curve.push((p as f64, predicted.speedup));
    }
    curve
}
