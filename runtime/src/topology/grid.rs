//! The regular families: rings, meshes, tori and hypercubes, as grids of one to
//! [`MAX_DIMENSIONS`] dimensions, with or without wrap-around links.
//!
//! A processor's coordinates are (x₀, x₁, …), x₀ varying fastest: processor
//! `x₀ + A·(x₁ + B·x₂)` on an A×B×C grid. A ring of P is a one-dimensional torus of P, and a
//! hypercube of dimension D is a torus 2×2×…×2 whose coordinates are the bits of the
//! processor's index (bit d is x_d).
//!
//! **Link order.** Dimension by dimension from x₀, the link in the − direction then the one
//! in the + direction, each where it exists: a mesh has none past its edges; a dimension of
//! size 2 that wraps has one link (− and + reach the same neighbour); a dimension of size 1
//! has none. So a processor inside a 2-D mesh or torus has links −x, +x, −y, +y, and on a
//! hypercube link d flips bit d.
//!
//! **Routes** go in dimension order (e-cube routing): first along x₀ until it is right, then
//! x₁, and so on; on a wrapping dimension the shorter way round, + when both are as short.

use serde::Serialize;

/// The most dimensions a grid may have (a hypercube of [`MAX_PROCESSORS`](super::MAX_PROCESSORS)).
pub const MAX_DIMENSIONS: usize = 21;

/// A direction along one dimension of a grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Towards smaller coordinates (wrapping on a torus).
    Minus,
    /// Towards larger coordinates (wrapping on a torus).
    Plus,
}

/// The shape of a regular family: sizes per dimension and whether they wrap around.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    sizes: [u32; MAX_DIMENSIONS],
    dimensions: u8,
    wraps: bool,
}

impl Grid {
    /// A grid of `sizes` (each ≥ 1, at most [`MAX_DIMENSIONS`] of them, product checked by the
    /// caller), wrapping around if `wraps`.
    pub(crate) fn new(sizes: &[usize], wraps: bool) -> Self {
        let mut s = [1u32; MAX_DIMENSIONS];
        for (d, &n) in sizes.iter().enumerate() {
            s[d] = n as u32;
        }
        Self {
            sizes: s,
            dimensions: sizes.len() as u8,
            wraps,
        }
    }

    /// The size of each dimension.
    pub fn sizes(&self) -> Vec<usize> {
        self.sizes[..self.dimensions as usize]
            .iter()
            .map(|&s| s as usize)
            .collect()
    }

    /// Number of dimensions.
    pub fn dimensions(&self) -> usize {
        self.dimensions as usize
    }

    /// Whether every dimension wraps around (a torus, ring or hypercube).
    pub fn wraps(&self) -> bool {
        self.wraps
    }

    /// Number of processors.
    pub fn len(&self) -> usize {
        self.sizes[..self.dimensions()]
            .iter()
            .map(|&s| s as usize)
            .product()
    }

    /// Always false: a grid has at least one processor.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The coordinates of processor `i`, x₀ first.
    pub fn coordinates(&self, mut i: usize) -> Vec<usize> {
        self.sizes[..self.dimensions()]
            .iter()
            .map(|&s| {
                let x = i % s as usize;
                i /= s as usize;
                x
            })
            .collect()
    }

    /// The processor at `coordinates` (`None` if outside the grid).
    pub fn processor_at(&self, coordinates: &[usize]) -> Option<usize> {
        if coordinates.len() != self.dimensions() {
            return None;
        }
        let mut index = 0;
        for d in (0..self.dimensions()).rev() {
            let s = self.sizes[d] as usize;
            if coordinates[d] >= s {
                return None;
            }
            index = index * s + coordinates[d];
        }
        Some(index)
    }

    /// The stride of dimension `d` in processor indices.
    fn stride(&self, d: usize) -> usize {
        self.sizes[..d].iter().map(|&s| s as usize).product()
    }

    /// The neighbour of `i` one step in `direction` along `dimension`, if that link exists.
    pub fn neighbour(&self, i: usize, dimension: usize, direction: Direction) -> Option<usize> {
        if dimension >= self.dimensions() {
            return None;
        }
        let s = self.sizes[dimension] as usize;
        if s == 1 {
            return None;
        }
        let stride = self.stride(dimension);
        let x = (i / stride) % s;
        let y = match direction {
            Direction::Minus if x > 0 => x - 1,
            Direction::Minus if self.wraps => s - 1,
            Direction::Plus if x + 1 < s => x + 1,
            Direction::Plus if self.wraps => 0,
            _ => return None,
        };
        Some(i - x * stride + y * stride)
    }

    /// Appends processor `i`'s neighbours in link order (see the module docs).
    pub(crate) fn row(&self, i: usize, out: &mut Vec<u32>) {
        for d in 0..self.dimensions() {
            let minus = self.neighbour(i, d, Direction::Minus);
            let plus = self.neighbour(i, d, Direction::Plus);
            out.extend(minus.map(|j| j as u32));
            if plus != minus {
                out.extend(plus.map(|j| j as u32));
            }
        }
    }

    /// The next processor on the dimension-order route from `from` to `to` (`None` when they
    /// are the same).
    pub fn next_hop(&self, from: usize, to: usize) -> Option<usize> {
        let (mut a, mut b) = (from, to);
        for d in 0..self.dimensions() {
            let s = self.sizes[d] as usize;
            let (x, y) = (a % s, b % s);
            a /= s;
            b /= s;
            if x == y {
                continue;
            }
            let direction = if self.wraps {
                // The shorter way round; + when both are as short.
                let up = (y + s - x) % s;
                if up <= s - up {
                    Direction::Plus
                } else {
                    Direction::Minus
                }
            } else if y > x {
                Direction::Plus
            } else {
                Direction::Minus
            };
            return self.neighbour(from, d, direction);
        }
        None
    }

    /// The number of hops on the dimension-order route from `from` to `to`.
    pub fn distance(&self, from: usize, to: usize) -> usize {
        let (mut a, mut b) = (from, to);
        let mut hops = 0;
        for d in 0..self.dimensions() {
            let s = self.sizes[d] as usize;
            let (x, y) = (a % s, b % s);
            a /= s;
            b /= s;
            let straight = x.abs_diff(y);
            hops += if self.wraps {
                straight.min(s - straight)
            } else {
                straight
            };
        }
        hops
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(g: &Grid, i: usize) -> Vec<u32> {
        let mut out = Vec::new();
        g.row(i, &mut out);
        out
    }

    #[test]
    fn coordinates_round_trip_with_x_fastest() {
        let g = Grid::new(&[4, 3, 2], false);
        assert_eq!(g.len(), 24);
        assert_eq!(g.coordinates(0), vec![0, 0, 0]);
        assert_eq!(g.coordinates(5), vec![1, 1, 0]);
        assert_eq!(g.coordinates(23), vec![3, 2, 1]);
        for i in 0..24 {
            assert_eq!(g.processor_at(&g.coordinates(i)), Some(i));
        }
        assert_eq!(g.processor_at(&[4, 0, 0]), None);
        assert_eq!(g.processor_at(&[0, 0]), None);
    }

    #[test]
    fn link_order_is_minus_then_plus_by_dimension() {
        let mesh = Grid::new(&[4, 4], false);
        // Inside: −x, +x, −y, +y.
        assert_eq!(row(&mesh, 5), vec![4, 6, 1, 9]);
        // A corner has only + links.
        assert_eq!(row(&mesh, 0), vec![1, 4]);
        let torus = Grid::new(&[4, 4], true);
        assert_eq!(row(&torus, 0), vec![3, 1, 12, 4]);
        // A wrapping dimension of 2 has one link; a hypercube's link d flips bit d.
        let cube = Grid::new(&[2, 2, 2], true);
        assert_eq!(row(&cube, 5), vec![4, 7, 1]);
        assert_eq!(row(&Grid::new(&[1], true), 0), Vec::<u32>::new());
        assert_eq!(torus.neighbour(0, 1, Direction::Minus), Some(12));
        assert_eq!(mesh.neighbour(0, 1, Direction::Minus), None);
        assert_eq!(mesh.neighbour(0, 2, Direction::Plus), None);
    }

    #[test]
    fn dimension_order_routes_are_shortest_and_correct_x_first() {
        let torus = Grid::new(&[5, 4], true);
        // From (0,0) to (3,2): x the short way round (−, via 4), then y (+).
        let mut path = vec![0];
        let mut at = 0;
        while let Some(next) = torus.next_hop(at, 13) {
            at = next;
            path.push(at);
        }
        assert_eq!(path, vec![0, 4, 3, 8, 13]);
        assert_eq!(torus.distance(0, 13), 4);
        // A tie (2 either way on a ring of 4) goes +.
        let ring = Grid::new(&[4], true);
        assert_eq!(ring.next_hop(0, 2), Some(1));
        let mesh = Grid::new(&[5, 4], false);
        assert_eq!(mesh.distance(0, 13), 5);
        assert_eq!(mesh.next_hop(13, 0), Some(12));
        assert_eq!(mesh.next_hop(7, 7), None);
    }
}
