//! The basis functions of P that overhead models combine (paper §4).

use std::fmt;

use serde::{Serialize, Serializer};

/// A basis function of P, in order of growth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BasisTerm {
    /// `1`.
    One,
    /// `ln P`.
    Log,
    /// `√P`.
    Sqrt,
    /// `P`.
    P,
    /// `P ln P`.
    PLogP,
    /// `P²`.
    P2,
}

impl BasisTerm {
    /// Every term, in order of growth.
    pub const ALL: [BasisTerm; 6] = [
        BasisTerm::One,
        BasisTerm::Log,
        BasisTerm::Sqrt,
        BasisTerm::P,
        BasisTerm::PLogP,
        BasisTerm::P2,
    ];

    /// The function's value at P.
    pub fn eval(self, processors: f64) -> f64 {
        let p = processors;
        match self {
            BasisTerm::One => 1.0,
            BasisTerm::Log => p.ln(),
            BasisTerm::Sqrt => p.sqrt(),
            BasisTerm::P => p,
            BasisTerm::PLogP => p * p.ln(),
            BasisTerm::P2 => p * p,
        }
    }

    /// Canonical spelling, accepted by [`FromStr`](std::str::FromStr).
    pub fn symbol(self) -> &'static str {
        match self {
            BasisTerm::One => "1",
            BasisTerm::Log => "log P",
            BasisTerm::Sqrt => "sqrt P",
            BasisTerm::P => "P",
            BasisTerm::PLogP => "P log P",
            BasisTerm::P2 => "P^2",
        }
    }
}

impl fmt::Display for BasisTerm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

impl Serialize for BasisTerm {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}
