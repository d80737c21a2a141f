//! The periodic lattice of ±1 spins and one Metropolis sweep over it.

use rand::Rng;

use super::acceptance::AcceptanceTable;
use super::{Dimension, IsingConfig, IsingError};

/// A periodic `L^d` lattice of spins ±1, site `(x, y, z)` at index `x + L·(y + L·z)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lattice {
    dimension: Dimension,
    size: usize,
    spins: Vec<i8>,
}

/// What one sweep changed: accepted flips and the exact changes of `M` and `E`, and how many
/// neighbour spins its attempts summed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct SweepDelta {
    pub(crate) flips: u64,
    pub(crate) neighbours_read: u64,
    pub(crate) delta_magnetisation: i64,
    pub(crate) delta_energy: i64,
}

impl Lattice {
    /// All spins +1.
    pub fn cold(config: &IsingConfig) -> Result<Self, IsingError> {
        config.validate()?;
        Ok(Lattice {
            dimension: config.dimension,
            size: config.size,
            spins: vec![1; config.spins()?],
        })
    }

    /// Each spin ±1 from one bit of `rng` (64 spins per draw, least significant bit first).
    pub fn hot<R: Rng + ?Sized>(config: &IsingConfig, rng: &mut R) -> Result<Self, IsingError> {
        let mut lattice = Self::cold(config)?;
        for chunk in lattice.spins.chunks_mut(64) {
            let bits = rng.next_u64();
            for (k, s) in chunk.iter_mut().enumerate() {
                *s = if (bits >> k) & 1 == 1 { 1 } else { -1 };
            }
        }
        Ok(lattice)
    }

    /// The spins, in index order `x + L·(y + L·z)`.
    pub fn spins(&self) -> &[i8] {
        &self.spins
    }

    /// Number of spins `N`.
    pub fn len(&self) -> usize {
        self.spins.len()
    }

    /// Always false (L ≥ 2).
    pub fn is_empty(&self) -> bool {
        self.spins.is_empty()
    }

    /// Total magnetisation `M = Σ sᵢ`.
    pub fn magnetisation(&self) -> i64 {
        self.spins.iter().map(|&s| i64::from(s)).sum()
    }

    /// Total energy `E = −Σ_⟨ij⟩ sᵢ sⱼ`, each bond once (the +x, +y, +z bond of every site).
    pub fn energy(&self) -> i64 {
        let l = self.size;
        let s = &self.spins;
        let mut e = 0i64;
        match self.dimension {
            Dimension::Two => {
                for y in 0..l {
                    for x in 0..l {
                        let i = x + l * y;
                        let right = s[(x + 1) % l + l * y];
                        let up = s[x + l * ((y + 1) % l)];
                        e -= i64::from(s[i]) * (i64::from(right) + i64::from(up));
                    }
                }
            }
            Dimension::Three => {
                for z in 0..l {
                    for y in 0..l {
                        for x in 0..l {
                            let i = x + l * (y + l * z);
                            let a = s[(x + 1) % l + l * (y + l * z)];
                            let b = s[x + l * ((y + 1) % l + l * z)];
                            let c = s[x + l * (y + l * ((z + 1) % l))];
                            e -= i64::from(s[i]) * (i64::from(a) + i64::from(b) + i64::from(c));
                        }
                    }
                }
            }
        }
        e
    }

    /// One Metropolis sweep in typewriter order (x fastest). A flip of `sᵢ` with neighbour sum
    /// `hᵢ` costs `ΔE = 2 sᵢ hᵢ`; accepted outright when `sᵢhᵢ ≤ 0` (no random number drawn),
    /// else when a fresh `u64` is below the precomputed threshold for `ΔE`.
    pub(crate) fn sweep<R: Rng + ?Sized>(
        &mut self,
        table: &AcceptanceTable,
        rng: &mut R,
    ) -> SweepDelta {
        let l = self.size;
        let up = |c: usize| if c + 1 == l { 0 } else { c + 1 };
        let down = |c: usize| if c == 0 { l - 1 } else { c - 1 };
        let s = &mut self.spins;
        let mut delta = SweepDelta::default();
        // Site `i`, whose `read` neighbours sum to `h`.
        let mut visit = |i: usize, h: i32, read: u64, s: &mut [i8]| {
            delta.neighbours_read += read;
            let si = i32::from(s[i]);
            let sh = si * h;
            if table.accepts(sh, rng) {
                s[i] = -s[i];
                delta.flips += 1;
                delta.delta_magnetisation -= 2 * i64::from(si);
                delta.delta_energy += 2 * i64::from(sh);
            }
        };
        match self.dimension {
            Dimension::Two => {
                for y in 0..l {
                    let (yp, ym) = (up(y) * l, down(y) * l);
                    let row = y * l;
                    for x in 0..l {
                        let (xp, xm) = (up(x), down(x));
                        let h = i32::from(s[xp + row])
                            + i32::from(s[xm + row])
                            + i32::from(s[x + yp])
                            + i32::from(s[x + ym]);
                        visit(x + row, h, 4, s);
                    }
                }
            }
            Dimension::Three => {
                let plane = l * l;
                for z in 0..l {
                    let (zp, zm) = (up(z) * plane, down(z) * plane);
                    let zo = z * plane;
                    for y in 0..l {
                        let (yp, ym) = (up(y) * l, down(y) * l);
                        let row = y * l;
                        for x in 0..l {
                            let (xp, xm) = (up(x), down(x));
                            let h = i32::from(s[xp + row + zo])
                                + i32::from(s[xm + row + zo])
                                + i32::from(s[x + yp + zo])
                                + i32::from(s[x + ym + zo])
                                + i32::from(s[x + row + zp])
                                + i32::from(s[x + row + zm]);
                            visit(x + row + zo, h, 6, s);
                        }
                    }
                }
            }
        }
        delta
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ising::sample_rng;

    #[test]
    fn cold_lattice_has_ground_state_energy() {
        for (dim, d) in [(Dimension::Two, 2i64), (Dimension::Three, 3)] {
            let c = IsingConfig::new(dim, 4, 1.0).unwrap();
            let lat = Lattice::cold(&c).unwrap();
            let n = lat.len() as i64;
            assert_eq!(lat.magnetisation(), n);
            assert_eq!(lat.energy(), -d * n);
        }
    }

    #[test]
    fn sweep_tracks_magnetisation_and_energy_exactly() {
        for dim in [Dimension::Two, Dimension::Three] {
            for t in [1.0, 3.0, 10.0] {
                let mut c = IsingConfig::new(dim, 5, t).unwrap();
                c.seed = 7;
                let mut rng = sample_rng(c.seed, 3);
                let mut lat = Lattice::hot(&c, &mut rng).unwrap();
                let table = AcceptanceTable::new(dim, t).unwrap();
                let (mut m, mut e) = (lat.magnetisation(), lat.energy());
                for _ in 0..5 {
                    let d = lat.sweep(&table, &mut rng);
                    m += d.delta_magnetisation;
                    e += d.delta_energy;
                    assert_eq!(m, lat.magnetisation());
                    assert_eq!(e, lat.energy());
                }
            }
        }
    }
}
