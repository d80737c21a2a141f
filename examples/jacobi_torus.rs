//! A 2-D Jacobi stencil on a torus of processors: the (Q·m) × (Q·m) periodic grid is cut
//! into m × m blocks, one per processor of `torus:QxQ`; each iteration every processor sends
//! its edge rows and columns to its four neighbours (the halo exchange), then replaces each
//! value by the mean of its four neighbours. Checked bit for bit against the same iterations
//! on the whole grid.
//!
//! ```text
//! cargo run -p multicomputer-examples --example jacobi_torus
//! ```

use multicomputer_runtime::{Direction, Machine, Processor, ProcessorError, TimeMode, Topology};

/// One processor's block, row-major, m × m.
type Block = Vec<f64>;

/// The initial value of global cell (row, col).
fn initial(row: usize, col: usize) -> f64 {
    ((row * 37 + col * 11) % 17) as f64
}

/// One Jacobi update of cell values given its four neighbours, in one order everywhere.
fn update(up: f64, down: f64, left: f64, right: f64) -> f64 {
    0.25 * (up + down + left + right)
}

/// The sequential reference: `iterations` updates of the whole periodic `size` × `size` grid.
fn reference(size: usize, iterations: usize) -> Vec<f64> {
    let mut g: Vec<f64> = (0..size * size)
        .map(|k| initial(k / size, k % size))
        .collect();
    for _ in 0..iterations {
        let at = |r: usize, c: usize| g[(r % size) * size + c % size];
        g = (0..size * size)
            .map(|k| {
                let (r, c) = (k / size, k % size);
                update(
                    at(r + size - 1, c),
                    at(r + 1, c),
                    at(r, c + size - 1),
                    at(r, c + 1),
                )
            })
            .collect();
    }
    g
}

/// Sends `halo` along `dimension` in `direction`, or keeps it when that neighbour is this
/// processor (a dimension of size 1).
fn exchange(
    p: &mut Processor<Block>,
    dimension: usize,
    to: Direction,
    halo: Block,
    kept: &mut Vec<Block>,
) -> Result<(), ProcessorError> {
    match p.link_in(dimension, to) {
        Some(link) => p.send(link, halo),
        None => {
            kept.push(halo);
            Ok(())
        }
    }
}

/// Receives the halo coming from `from` along `dimension` (or the one kept for itself).
fn halo_from(
    p: &mut Processor<Block>,
    dimension: usize,
    from: Direction,
    kept: &mut Vec<Block>,
) -> Result<Block, ProcessorError> {
    match p.link_in(dimension, from) {
        Some(link) => p.recv(link),
        None => Ok(kept.remove(0)),
    }
}

/// `iterations` Jacobi steps on this processor's m × m block; returns the block.
fn jacobi(p: &mut Processor<Block>, m: usize, iterations: usize) -> Result<Block, ProcessorError> {
    let xy = p.coordinates().expect("a torus");
    let mut b: Block = (0..m * m)
        .map(|k| initial(xy[1] * m + k / m, xy[0] * m + k % m))
        .collect();
    for _ in 0..iterations {
        let row = |b: &Block, r: usize| b[r * m..(r + 1) * m].to_vec();
        let col = |b: &Block, c: usize| (0..m).map(|r| b[r * m + c]).collect::<Block>();
        let mut kept = Vec::new();
        // Rows along y (dimension 1), columns along x (dimension 0): + first, then −.
        exchange(p, 1, Direction::Plus, row(&b, m - 1), &mut kept)?;
        exchange(p, 1, Direction::Minus, row(&b, 0), &mut kept)?;
        let above = halo_from(p, 1, Direction::Minus, &mut kept)?;
        let below = halo_from(p, 1, Direction::Plus, &mut kept)?;
        exchange(p, 0, Direction::Plus, col(&b, m - 1), &mut kept)?;
        exchange(p, 0, Direction::Minus, col(&b, 0), &mut kept)?;
        let west = halo_from(p, 0, Direction::Minus, &mut kept)?;
        let east = halo_from(p, 0, Direction::Plus, &mut kept)?;
        b = (0..m * m)
            .map(|k| {
                let (r, c) = (k / m, k % m);
                let up = if r == 0 { above[c] } else { b[k - m] };
                let down = if r == m - 1 { below[c] } else { b[k + m] };
                let left = if c == 0 { west[r] } else { b[k - 1] };
                let right = if c == m - 1 { east[r] } else { b[k + 1] };
                update(up, down, left, right)
            })
            .collect();
    }
    Ok(b)
}

/// Runs `iterations` on `torus:QxR` with m × m blocks in `mode`, checked against the
/// reference (the grid is square: Q·m = R·m).
fn run(q: usize, m: usize, iterations: usize, mode: TimeMode) {
    let machine = Machine::new(
        Topology::torus(&[q, q]).unwrap(),
        multicomputer_examples::config(mode),
    )
    .unwrap();
    let record = machine.run(|p| jacobi(p, m, iterations)).unwrap();
    let size = q * m;
    let want = reference(size, iterations);
    for (i, block) in record.results.iter().enumerate() {
        let (x, y) = (i % q, i / q);
        for (k, &value) in block.iter().enumerate() {
            let (r, c) = (y * m + k / m, x * m + k % m);
            assert_eq!(
                value,
                want[r * size + c],
                "P{i} cell ({r}, {c}) in {mode:?}"
            );
        }
    }
}

fn main() {
    run(4, 16, 50, TimeMode::Virtual);
    println!("Jacobi, 50 iterations of a 64 × 64 grid on torus:4x4: equal to the sequential run");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equals_the_sequential_iterations_in_every_mode() {
        for (mode, most) in multicomputer_examples::MODES {
            for q in [1, 2, 3, 4].into_iter().filter(|&q| q * q <= most) {
                run(q, 5, 7, mode);
            }
        }
    }
}
