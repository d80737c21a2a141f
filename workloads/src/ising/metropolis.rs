//! Metropolis acceptance, per-sample random streams, and one sample of the PARDO.

use multicomputer_runtime::{Work, WorkUnit};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Serialize;

use super::acceptance::AcceptanceTable;
use super::lattice::Lattice;
use super::{IsingConfig, IsingError, Start};

/// One attempted spin flip of a Metropolis sweep (a sample attempts N per sweep): picking the
/// spin, the test of `sᵢhᵢ ≤ 0` and, when uphill, the random draw; its neighbours' sum is
/// charged apart ([`NEIGHBOUR_READ`]).
pub const ATTEMPTED_FLIP: WorkUnit = WorkUnit("attempted_flip");

/// What an accepted flip costs besides its attempt: writing the spin and updating the
/// energy and magnetisation. How many are accepted depends on the temperature and the
/// dimension (1.4 % of the attempts in 2D at T = 1.5, 22 % in 3D at T = 4, 60 % in 2D at
/// T = 4), so a sample's cost is charged by its counts.
pub const ACCEPTED_FLIP: WorkUnit = WorkUnit("accepted_flip");

/// One neighbour spin read into an attempt's sum `hᵢ`: 4 an attempt in 2D, 6 in 3D. An
/// attempt's cost grows with its neighbours, so one cost per attempt cannot serve both
/// dimensions; counted apart, where the sweep sums them, the two dimensions' samples tell
/// this unit's cost from the attempt's.
pub const NEIGHBOUR_READ: WorkUnit = WorkUnit("neighbour_read");

/// SplitMix64 output `i` of the sequence seeded with `seed` (counter form, O(1)).
fn splitmix64_at(seed: u64, i: u64) -> u64 {
    const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut z = seed.wrapping_add(GAMMA.wrapping_mul(i.wrapping_add(1)));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The random stream of sample `sample` under `seed`: a [`Xoshiro256PlusPlus`] whose state
/// words are SplitMix64(`seed`) outputs `4·sample … 4·sample + 3` (Vigna's recommended way to
/// seed xoshiro). O(1) for any sample index, independent of the processor that runs it.
///
/// The four state words are distinct outputs of a bijection of distinct inputs, so at most one
/// is zero and the forbidden all-zero state cannot occur. (Sample indices ≥ 2⁶² would wrap the
/// counter and repeat streams; a run never has that many.)
pub fn sample_rng(seed: u64, sample: u64) -> Xoshiro256PlusPlus {
    let mut bytes = [0u8; 32];
    for (k, chunk) in bytes.chunks_exact_mut(8).enumerate() {
        let word = splitmix64_at(seed, sample.wrapping_mul(4).wrapping_add(k as u64));
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    Xoshiro256PlusPlus::from_seed(bytes)
}

/// What one sample (one independent Markov chain) produced. Integer sums are exact; the `f64`
/// fields are derived from them.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct SampleResult {
    /// Sample index `k` (0-based).
    pub sample: u64,
    /// Number of spins N.
    pub spins: u64,
    /// Measurement sweeps (values summed in the `sum_*` fields).
    pub measurements: u64,
    /// Mean of `M/N` over the measurement sweeps (signed).
    pub magnetisation_per_spin: f64,
    /// Mean of `|M|/N` over the measurement sweeps.
    pub abs_magnetisation_per_spin: f64,
    /// Mean of `E/N` over the measurement sweeps.
    pub energy_per_spin: f64,
    /// Change in magnetisation accumulated flip by flip over all sweeps (`M_final − M_initial`),
    /// the quantity the paper's program "cumulates".
    pub delta_magnetisation: i64,
    /// `M` after the last sweep.
    pub final_magnetisation: i64,
    /// `E` after the last sweep.
    pub final_energy: i64,
    /// Accepted flips over all sweeps.
    pub flips: u64,
    /// Attempted flips over all sweeps (`(thermalisation + measurement) · N`).
    pub attempts: u64,
    /// Neighbour spins summed over all sweeps (4 an attempt in 2D, 6 in 3D). Work accounting
    /// only: the summary does not carry it.
    pub neighbours_read: u64,
    /// `Σ M` over measurement sweeps.
    pub sum_magnetisation: i64,
    /// `Σ |M|` over measurement sweeps.
    pub sum_abs_magnetisation: i64,
    /// `Σ E` over measurement sweeps.
    pub sum_energy: i64,
}

impl SampleResult {
    /// Declares this sample's work on `work`: its attempted flips, its accepted flips and
    /// the neighbour spins its attempts summed.
    pub fn declare(&self, work: &mut Work) {
        work.add(ATTEMPTED_FLIP, self.attempts);
        work.add(ACCEPTED_FLIP, self.flips);
        work.add(NEIGHBOUR_READ, self.neighbours_read);
    }
}

/// Runs sample `sample` of `config`: fresh lattice (cold, or hot from the sample's stream),
/// `thermalisation_sweeps` unmeasured sweeps, then `measurement_sweeps` measured ones.
///
/// Reproducible: the result depends only on `(config, sample)`.
pub fn run_sample(config: &IsingConfig, sample: u64) -> Result<SampleResult, IsingError> {
    config.validate()?;
    let table = AcceptanceTable::new(config.dimension, config.temperature)?;
    let mut rng = sample_rng(config.seed, sample);
    let mut lattice = match config.start {
        Start::Cold => Lattice::cold(config)?,
        Start::Hot => Lattice::hot(config, &mut rng)?,
    };
    let n = lattice.len() as u64;
    let m0 = lattice.magnetisation();
    let (mut m, mut e) = (m0, lattice.energy());
    let (mut flips, mut neighbours_read, mut delta_m) = (0u64, 0u64, 0i64);
    let (mut sum_m, mut sum_abs_m, mut sum_e) = (0i64, 0i64, 0i64);
    let total = config.thermalisation_sweeps as u64 + config.measurement_sweeps as u64;
    for sweep in 0..total {
        let d = lattice.sweep(&table, &mut rng);
        flips += d.flips;
        neighbours_read += d.neighbours_read;
        delta_m += d.delta_magnetisation;
        m += d.delta_magnetisation;
        e += d.delta_energy;
        if sweep >= u64::from(config.thermalisation_sweeps) {
            sum_m += m;
            sum_abs_m += m.abs();
            sum_e += e;
        }
    }
    debug_assert_eq!(m, lattice.magnetisation());
    debug_assert_eq!(e, lattice.energy());
    let measurements = u64::from(config.measurement_sweeps);
    let norm = (measurements * n) as f64;
    Ok(SampleResult {
        sample,
        spins: n,
        measurements,
        magnetisation_per_spin: sum_m as f64 / norm,
        abs_magnetisation_per_spin: sum_abs_m as f64 / norm,
        energy_per_spin: sum_e as f64 / norm,
        delta_magnetisation: delta_m,
        final_magnetisation: m,
        final_energy: e,
        flips,
        attempts: total * n,
        neighbours_read,
        sum_magnetisation: sum_m,
        sum_abs_magnetisation: sum_abs_m,
        sum_energy: sum_e,
    })
}

#[cfg(test)]
mod tests {
    use rand::Rng;

    use super::*;
    use crate::ising::Dimension;

    #[test]
    fn sample_streams_are_distinct_and_reproducible() {
        let mut a = sample_rng(5, 0);
        let mut b = sample_rng(5, 1);
        let mut c = sample_rng(6, 0);
        let (xa, xb, xc) = (a.next_u64(), b.next_u64(), c.next_u64());
        assert!(xa != xb && xa != xc && xb != xc);
        assert_eq!(sample_rng(5, 1).next_u64(), xb);
        // Sample k's state words are SplitMix64 outputs 4k..4k+3: sample 0 of seed s uses the
        // same first output as `seed_from_u64(s)` (rand_xoshiro seeds by SplitMix64).
        let mut std = Xoshiro256PlusPlus::seed_from_u64(5);
        assert_eq!(std.next_u64(), xa);
    }

    #[test]
    fn sample_is_reproducible_and_consistent() {
        let mut c = IsingConfig::new(Dimension::Three, 4, 4.5).unwrap();
        c.thermalisation_sweeps = 3;
        c.measurement_sweeps = 4;
        c.start = Start::Hot;
        let r = run_sample(&c, 9).unwrap();
        assert_eq!(r, run_sample(&c, 9).unwrap());
        assert_ne!(r, run_sample(&c, 10).unwrap());
        assert_eq!(r.attempts, 7 * 64);
        assert!(r.flips > 0 && r.flips <= r.attempts);
        assert_eq!(r.spins, 64);
        assert!(r.delta_magnetisation.abs() <= 128);
        assert!(r.sum_abs_magnetisation >= r.sum_magnetisation.abs());
    }

    /// Attempts, neighbours read and accepted flips of a cold 2×2 (or 2³) lattice over
    /// `sweeps` sweeps at temperature `t`, and what its sample declares.
    fn counts(dimension: Dimension, t: f64, sweeps: u32) -> ([u64; 3], Work) {
        let mut c = IsingConfig::new(dimension, 2, t).unwrap();
        c.thermalisation_sweeps = 0;
        c.measurement_sweeps = sweeps;
        let r = run_sample(&c, 0).unwrap();
        let mut w = Work::default();
        r.declare(&mut w);
        ([r.attempts, r.neighbours_read, r.flips], w)
    }

    #[test]
    fn attempts_neighbours_read_and_accepted_flips_are_counted_exactly() {
        // Cold 2×2 (periodic: each neighbour read twice, 4 reads a site), T so high that
        // every draw accepts (threshold u64::MAX). Sweep 1 in typewriter order: site 0 has
        // h = 4, sᵢhᵢ = 4 > 0: it draws and flips; sites 1 and 2 then see h = 0 and site 3
        // h = −4 against its +1: all flipped. All spins are −1, and sweep 2 repeats sweep 1
        // mirrored: per sweep 4 attempts, 16 neighbours read, 4 accepted.
        let (hot, work) = counts(Dimension::Two, 1e300, 3);
        assert_eq!(hot, [12, 48, 12]);
        assert_eq!(
            [ATTEMPTED_FLIP, NEIGHBOUR_READ, ACCEPTED_FLIP].map(|u| work.count(u)),
            [12, 48, 12]
        );
        // So cold that no draw accepts (threshold 0): every site stays +1 with h = 4, each
        // attempt rejected; its neighbours are read all the same.
        assert_eq!(counts(Dimension::Two, 1e-3, 3).0, [12, 48, 0]);
        // 2³ cold, hot limit (h = 2·(the x, y and z neighbour), flipped sites −1), in order:
        // site 0 h = 6, sites 1, 2 and 4 h = 2, sites 3, 5 and 6 h = −2, site 7 h = −6: all
        // 8 flip, 6 reads each; sweep 2 mirrors it.
        assert_eq!(counts(Dimension::Three, 1e300, 2).0, [16, 96, 16]);
        assert_eq!(counts(Dimension::Three, 1e-3, 2).0, [16, 96, 0]);
    }
}
