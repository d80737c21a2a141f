//! A sequential, tick-by-tick systolic simulation of an OCL array: no threads, no time, only the
//! data flow — the yardstick the threaded runtime adapter is checked against.

use serde::Serialize;

use super::cell::{Cell, CellCounters, Packet, SystolicCell};
use super::grain::{Grain, OclError};

/// Which program each process runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub enum CellChoice {
    /// The paper's program for the grain ([`Cell::specialised`]).
    #[default]
    Specialised,
    /// The general `[M,K]` cell for every grain ([`Cell::general`]).
    General,
}

/// What a systolic run produced.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SystolicRun {
    /// The grain that ran.
    pub grain: Grain,
    /// The output stream `B` (as long as the input).
    pub output: Vec<u64>,
    /// Packets sent into the array, `⌈L/K⌉` (the last one padded with zeros, which cannot
    /// change earlier outputs: `B(i)` depends on `A(..=i)` only).
    pub packets: u64,
    /// Ticks in which at least one process stepped: `packets + N/M − 1` (0 for an empty
    /// stream). In tick `t` process `h` handles packet `t − (N/M − 1 − h)`.
    pub ticks: u64,
    /// Per process, indexed by `h` (process 0 produces `B`): steps, communications and
    /// comparisons.
    pub cells: Vec<CellCounters>,
}

/// The processes of the array for `grain`, indexed by `h` (`0 ≤ h < N/M`); the environment
/// feeds process `N/M − 1`, process 0 produces `B`.
pub fn build_cells(grain: Grain, choice: CellChoice) -> Vec<Cell> {
    (0..grain.processes())
        .map(|_| match choice {
            CellChoice::Specialised => Cell::specialised(grain),
            CellChoice::General => Cell::general(grain),
        })
        .collect()
}

/// Runs the array for `grain` on the stream `a` as a synchronous systolic array: in each tick
/// every process holding a packet from its right neighbour (registered in the previous tick)
/// steps once, and the packets advance one process per tick.
pub fn run_systolic(grain: Grain, a: &[i64], choice: CellChoice) -> Result<SystolicRun, OclError> {
    let mut cells = build_cells(grain, choice);
    let procs = cells.len();
    let k = grain.k();
    let packets = grain.packets_for(a.len() as u64);
    // reg[h] holds the packet on channel h (output of process h, input of process h − 1); reg[procs]
    // is the environment's channel into the array.
    let mut reg: Vec<Option<Packet>> = vec![None; procs + 1];
    let mut output = Vec::with_capacity(packets as usize * k);
    let mut next = a.chunks(k);
    let mut ticks = 0;
    while output.len() < a.len() {
        // Process 0 first: each process consumes last tick's register before its right neighbour
        // overwrites it.
        let mut stepped = false;
        for h in 0..procs {
            if let Some(input) = reg[h + 1].take() {
                let out = cells[h].step(input)?;
                stepped = true;
                if h == 0 {
                    output.extend_from_slice(&out.b);
                } else {
                    reg[h] = Some(out);
                }
            }
        }
        ticks += u64::from(stepped);
        if let Some(chunk) = next.next() {
            let mut values = chunk.to_vec();
            values.resize(k, 0);
            reg[procs] = Some(Packet::source(&values));
        }
    }
    output.truncate(a.len());
    Ok(SystolicRun {
        grain,
        output,
        packets,
        ticks,
        cells: cells.iter().map(SystolicCell::counters).collect(),
    })
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::super::ocl_reference;
    use super::*;

    /// Every divisor triple (N, M, K) with K | M | N, for N up to `max_n`.
    fn grains(max_n: usize) -> Vec<Grain> {
        let mut v = Vec::new();
        for n in 1..=max_n {
            for m in (1..=n).filter(|m| n % m == 0) {
                for k in (1..=m).filter(|k| m % k == 0) {
                    v.push(Grain::new(n, m, k).unwrap());
                }
            }
        }
        v
    }

    fn check(grain: Grain, a: &[i64]) {
        let want = ocl_reference(a, grain.n()).unwrap();
        for choice in [CellChoice::Specialised, CellChoice::General] {
            let run = run_systolic(grain, a, choice).unwrap();
            assert_eq!(run.output, want, "{grain:?} {choice:?} on {a:?}");
            let packets = grain.packets_for(a.len() as u64);
            assert_eq!(run.packets, packets);
            let expect_ticks = if packets == 0 {
                0
            } else {
                packets + grain.processes() as u64 - 1
            };
            assert_eq!(run.ticks, expect_ticks);
            let cost = Cell::specialised(grain).step_cost();
            for c in &run.cells {
                assert_eq!(c.steps, packets);
                assert_eq!(c.communications, 2 * packets);
                assert_eq!(c.comparisons, packets * cost.comparisons);
                assert_eq!(c.values_moved, packets * 6 * grain.k() as u64);
            }
        }
    }

    fn random_stream(seed: u64, len: usize, lo: i64, hi: i64) -> Vec<i64> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        (0..len).map(|_| rng.random_range(lo..=hi)).collect()
    }

    #[test]
    fn every_small_grain_matches_the_reference_on_random_streams() {
        for (i, g) in grains(12).into_iter().enumerate() {
            for (j, len) in [0, 1, 5, 13, 40].into_iter().enumerate() {
                // A small alphabet with 0 and negatives: many repeats, padding matches.
                let a = random_stream(1000 * i as u64 + j as u64, len, -2, 2);
                check(g, &a);
            }
        }
    }

    #[test]
    fn larger_grains_match_on_wide_value_ranges() {
        for (seed, (n, m, k)) in [
            (60, 12, 4),
            (60, 60, 60),
            (60, 1, 1),
            (48, 16, 8),
            (50, 25, 5),
        ]
        .into_iter()
        .enumerate()
        {
            let g = Grain::new(n, m, k).unwrap();
            check(g, &random_stream(seed as u64, 500, -5, 5));
            check(g, &random_stream(seed as u64 + 99, 300, i64::MIN, i64::MAX));
        }
    }

    #[test]
    fn window_of_one() {
        let g = Grain::fine(1).unwrap();
        let a = [3, -3, 0, 0, 3];
        check(g, &a);
        assert_eq!(
            run_systolic(g, &a, CellChoice::Specialised).unwrap().output,
            vec![1; 5]
        );
    }

    #[test]
    fn stream_shorter_than_window() {
        for g in [
            Grain::fine(10),
            Grain::m1(10, 5),
            Grain::kk(10, 5),
            Grain::new(20, 10, 5),
        ] {
            let g = g.unwrap();
            check(g, &[0, 7, 0]);
            check(g, &[4]);
            check(g, &[]);
        }
    }

    #[test]
    fn repeated_negative_and_all_equal_values() {
        for g in grains(8) {
            check(g, &[-1; 20]);
            check(g, &[0; 20]);
            check(g, &[5; 3]);
            check(g, &[-7, -7, 3, -7, 3, 3, -7, 0, 0, -7, i64::MIN, i64::MIN]);
        }
        // All zeros: the padding makes every count N.
        let run = run_systolic(Grain::kk(6, 3).unwrap(), &[0; 9], CellChoice::Specialised).unwrap();
        assert_eq!(run.output, vec![6; 9]);
    }

    #[test]
    fn intermediate_channels_meet_their_specification() {
        // Drive a [6,2] array of N = 12 by hand and check c̄_h, d̄_h, b̄_h on every channel:
        // B̄_h(i)[p] = (# j : iK+p−N+hM < j ≤ iK+p : A(j) = A(iK+p)), C̄_h(i)[p] = A(iK+p−N+hM).
        let (n, m, k) = (12usize, 6usize, 2usize);
        let g = Grain::new(n, m, k).unwrap();
        let a = random_stream(7, 40, -1, 1);
        let at = |j: isize| if j < 0 { 0 } else { a[j as usize] };
        let mut cells = build_cells(g, CellChoice::Specialised);
        for (i, chunk) in a.chunks(k).enumerate() {
            let mut packet = Packet::source(chunk);
            for h in (0..g.processes()).rev() {
                packet = cells[h].step(packet).unwrap();
                for p in 0..k {
                    let x = (i * k + p) as isize;
                    let lo = x - n as isize + (h * m) as isize;
                    let b = ((lo + 1)..=x).filter(|&j| at(j) == at(x)).count() as u64;
                    assert_eq!(packet.b[p], b, "b h={h} i={i} p={p}");
                    assert_eq!(packet.c[p], at(lo), "c h={h} i={i} p={p}");
                    assert_eq!(packet.d[p], at(x), "d h={h} i={i} p={p}");
                }
            }
        }
    }
}
