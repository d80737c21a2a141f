//! The order in which processors act at one emulated instant.
//!
//! In virtual time, events that fall on the same emulated nanosecond — several processors
//! finishing a compute block together, a message arriving as its receiver starts to wait — are
//! taken one after the other. Every order is a legal execution of the emulated machine; the
//! scheduler's default takes them by increasing processor index. A result that changes with
//! the order depends on that convention: "exact" in virtual time means exact *given* the tie
//! order, and [`TieOrder`] lets a run use another (`--ties reverse`, `--ties shuffle:SEED`) to
//! see how much the headline figures move.
//!
//! ```
//! use multicomputer_runtime::TieOrder;
//!
//! // The rank of each processor among simultaneous events (smaller acts first).
//! assert_eq!(TieOrder::Index.ranks(4), vec![0, 1, 2, 3]);
//! assert_eq!(TieOrder::Reverse.ranks(4), vec![3, 2, 1, 0]);
//! let shuffled = TieOrder::Shuffle(7).ranks(4);
//! let mut sorted = shuffled.clone();
//! sorted.sort();
//! assert_eq!(sorted, vec![0, 1, 2, 3]);
//! assert_eq!(shuffled, TieOrder::Shuffle(7).ranks(4), "reproducible from its seed");
//! ```

use serde::{Deserialize, Serialize};

/// Which processor acts first among events at the same emulated instant (virtual time).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TieOrder {
    /// Increasing processor index (the default).
    #[default]
    Index,
    /// Decreasing processor index.
    Reverse,
    /// A random permutation of the processors, drawn from this seed.
    Shuffle(u64),
}

impl TieOrder {
    /// The rank of each of `n` processors: among simultaneous events, the smaller rank acts
    /// first (a processor's own events keep their order).
    pub fn ranks(self, n: usize) -> Vec<u32> {
        let mut order: Vec<u32> = (0..n as u32).collect();
        match self {
            TieOrder::Index => {}
            TieOrder::Reverse => order.reverse(),
            TieOrder::Shuffle(seed) => {
                // Fisher–Yates with SplitMix64: reproducible from the seed alone.
                let mut x = seed;
                let mut next = || {
                    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
                    let mut z = x;
                    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                    z ^ (z >> 31)
                };
                for i in (1..n).rev() {
                    let j = (next() % (i as u64 + 1)) as usize;
                    order.swap(i, j);
                }
            }
        }
        order
    }
}

impl std::fmt::Display for TieOrder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TieOrder::Index => write!(f, "index"),
            TieOrder::Reverse => write!(f, "reverse"),
            TieOrder::Shuffle(seed) => write!(f, "shuffle:{seed}"),
        }
    }
}
