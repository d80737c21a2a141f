//! Processors in lines: the dimensions of a mesh, torus or hypercube (one dimension of
//! everyone on a network without a grid), and the line along a dimension through a
//! processor, the group the dimension-ordered forms run their one-dimensional algorithm in.

use multicomputer_runtime::Grid;

/// The dimensions of a network: their sizes, x₀ first (one dimension of everyone without a
/// grid).
#[derive(Debug, Clone)]
pub(crate) struct Dims {
    sizes: Vec<usize>,
}

impl Dims {
    /// The dimensions of a network of `p` processors with `grid`.
    pub(crate) fn of(grid: Option<&Grid>, p: usize) -> Self {
        Self {
            sizes: grid.map_or_else(|| vec![p], Grid::sizes),
        }
    }

    /// Number of dimensions.
    pub(crate) fn count(&self) -> usize {
        self.sizes.len()
    }

    /// The size of dimension `d`.
    pub(crate) fn size(&self, d: usize) -> usize {
        self.sizes[d]
    }

    /// Processors (and blocks) between neighbours along dimension `d`: Π_{k<d} s_k.
    pub(crate) fn stride(&self, d: usize) -> usize {
        self.sizes[..d].iter().product()
    }

    /// Processor `id`'s coordinate along dimension `d`.
    pub(crate) fn coordinate(&self, id: usize, d: usize) -> usize {
        (id / self.stride(d)) % self.sizes[d]
    }

    /// Whether processor `id` has `root`'s coordinates along every dimension in `ks`.
    pub(crate) fn agrees(
        &self,
        id: usize,
        root: usize,
        ks: impl IntoIterator<Item = usize>,
    ) -> bool {
        ks.into_iter()
            .all(|k| self.coordinate(id, k) == self.coordinate(root, k))
    }

    /// The line along dimension `d` through processor `id`.
    pub(crate) fn line(&self, id: usize, d: usize) -> Line {
        let stride = self.stride(d);
        let q = self.coordinate(id, d);
        Line {
            base: id - q * stride,
            stride,
            len: self.sizes[d],
            q,
        }
    }
}

/// A group of processors in a line: position q is processor base + q·stride.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Line {
    base: usize,
    stride: usize,
    len: usize,
    /// This processor's position.
    pub(crate) q: usize,
}

impl Line {
    /// Every processor of a machine of `p`, in processor order; this one is `id`.
    pub(crate) fn whole(p: usize, id: usize) -> Self {
        Self {
            base: 0,
            stride: 1,
            len: p,
            q: id,
        }
    }

    /// Processors on the line.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The processor at position `q`.
    pub(crate) fn member(&self, q: usize) -> usize {
        self.base + q * self.stride
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_follow_x_fastest_numbering() {
        // 4 × 3 × 2: processor 17 is (1, 1, 1).
        let dims = Dims {
            sizes: vec![4, 3, 2],
        };
        assert_eq!(
            (0..3).map(|d| dims.coordinate(17, d)).collect::<Vec<_>>(),
            [1, 1, 1]
        );
        let y = dims.line(17, 1);
        assert_eq!(
            (0..3).map(|q| y.member(q)).collect::<Vec<_>>(),
            [13, 17, 21]
        );
        assert_eq!(y.q, 1);
        assert!(dims.agrees(17, 5, [0, 1]));
        assert!(!dims.agrees(17, 5, [2]));
    }
}
