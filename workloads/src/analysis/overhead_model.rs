//! Candidate overhead functions (paper §4): linear combinations of basis functions of P, such
//! as the paper's (6) `Φ(P) = a + b·log P`.
//!
//! The basis ([`BasisTerm`]) is `1, log P, √P, P, P log P, P²`, in order of growth; `log` is the
//! natural logarithm (the paper does not state its base, which only rescales the log
//! coefficient and leaves every test unchanged). Coefficients are named `a, b, c, …` in that
//! order, so the constant, when present, is `a`.
//!
//! ```
//! use multicomputer_workloads::analysis::OverheadModel;
//!
//! let m: OverheadModel = "1+log+P".parse()?;
//! assert_eq!(m.to_string(), "a + b·log P + c·P");
//! assert!(m.contains(&OverheadModel::log()));
//! assert_eq!(m.evaluate(&[1.0, 2.0, 0.5], 8.0), 1.0 + 2.0 * 8f64.ln() + 4.0);
//! # Ok::<(), multicomputer_workloads::analysis::ScalabilityError>(())
//! ```

use std::fmt;
use std::str::FromStr;

use serde::{Serialize, Serializer};

use super::basis::BasisTerm;
use super::error::ScalabilityError;

impl FromStr for BasisTerm {
    type Err = ScalabilityError;

    /// Case-insensitive, blanks and `*` ignored: `1`/`const`; `log`/`logP`/`ln`/`log(P)`;
    /// `sqrt`/`sqrtP`/`√P`/`P^0.5`; `P`; `PlogP`/`P*log(P)`/`plog`; `P2`/`P^2`/`P²`/`P*P`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let key: String = s
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '*' && *c != '·')
            .collect::<String>()
            .to_lowercase()
            .replace(['(', ')'], "");
        Ok(match key.as_str() {
            "1" | "const" | "constant" | "one" => BasisTerm::One,
            "log" | "logp" | "ln" | "lnp" => BasisTerm::Log,
            "sqrt" | "sqrtp" | "√p" | "p^0.5" | "p^1/2" => BasisTerm::Sqrt,
            "p" => BasisTerm::P,
            "plog" | "plogp" | "plnp" | "pln" | "logpp" => BasisTerm::PLogP,
            "p2" | "p^2" | "p²" | "pp" => BasisTerm::P2,
            _ => return Err(ScalabilityError::UnknownTerm(s.trim().to_string())),
        })
    }
}

/// A candidate overhead function `Φ(P) = Σⱼ θⱼ·fⱼ(P)`, terms in order of growth; coefficients
/// are named `a, b, c, …` in that order (so the constant, when present, is `a`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OverheadModel {
    terms: Vec<BasisTerm>,
}

impl OverheadModel {
    /// A model from terms (any order; sorted by growth; no duplicates, at least one).
    pub fn new(terms: &[BasisTerm]) -> Result<Self, ScalabilityError> {
        if terms.is_empty() {
            return Err(ScalabilityError::EmptyModel);
        }
        let mut sorted = terms.to_vec();
        sorted.sort();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(ScalabilityError::DuplicateTerm(w[0]));
        }
        Ok(OverheadModel { terms: sorted })
    }

    /// The paper's (6): `a + b·log P`.
    pub fn log() -> Self {
        OverheadModel {
            terms: vec![BasisTerm::One, BasisTerm::Log],
        }
    }

    /// `a + b·P`.
    pub fn linear() -> Self {
        OverheadModel {
            terms: vec![BasisTerm::One, BasisTerm::P],
        }
    }

    /// The paper's "correct" alternative `a + b·log P + c·P`.
    pub fn log_linear() -> Self {
        OverheadModel {
            terms: vec![BasisTerm::One, BasisTerm::Log, BasisTerm::P],
        }
    }

    /// The terms, in order of growth.
    pub fn terms(&self) -> &[BasisTerm] {
        &self.terms
    }

    /// Number of parameters.
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    /// Always false (a model has at least one term).
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Name of coefficient `j`: `a, b, c, …`.
    pub fn name(&self, j: usize) -> String {
        char::from(b'a' + j as u8).to_string()
    }

    /// `Φ(P)` under coefficients `params` (one per term).
    pub fn evaluate(&self, params: &[f64], processors: f64) -> f64 {
        self.terms
            .iter()
            .zip(params)
            .map(|(t, c)| c * t.eval(processors))
            .sum()
    }

    /// Whether every term of `other` is also a term of this model (this model encompasses it).
    pub fn contains(&self, other: &OverheadModel) -> bool {
        other.terms.iter().all(|t| self.terms.contains(t))
    }

    /// Whether the model has the constant term `1` (the paper's `a`).
    pub fn has_constant(&self) -> bool {
        self.terms.contains(&BasisTerm::One)
    }

    /// The basis functions' values at P, in model order.
    pub(super) fn row(&self, processors: f64) -> Vec<f64> {
        self.terms.iter().map(|t| t.eval(processors)).collect()
    }
}

impl fmt::Display for OverheadModel {
    /// E.g. `a + b·log P + c·P`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (j, t) in self.terms.iter().enumerate() {
            if j > 0 {
                f.write_str(" + ")?;
            }
            match t {
                BasisTerm::One => write!(f, "{}", self.name(j))?,
                _ => write!(f, "{}·{}", self.name(j), t)?,
            }
        }
        Ok(())
    }
}

impl FromStr for OverheadModel {
    type Err = ScalabilityError;

    /// Terms separated by `+`, e.g. `"1+log+P"`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let terms = s
            .split('+')
            .filter(|t| !t.trim().is_empty())
            .map(str::parse)
            .collect::<Result<Vec<BasisTerm>, _>>()?;
        OverheadModel::new(&terms)
    }
}

impl Serialize for OverheadModel {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_parse_and_print() {
        let m: OverheadModel = "1+log+P".parse().unwrap();
        assert_eq!(m, OverheadModel::log_linear());
        assert_eq!(m.to_string(), "a + b·log P + c·P");
        assert_eq!(
            "P + 1".parse::<OverheadModel>().unwrap(),
            OverheadModel::linear()
        );
        assert_eq!(
            "1 + ln(P)".parse::<OverheadModel>().unwrap(),
            OverheadModel::log()
        );
        let all: OverheadModel = "P^2 + P*log(P) + sqrt + P + logP + const".parse().unwrap();
        assert_eq!(all.terms(), BasisTerm::ALL);
        for t in BasisTerm::ALL {
            assert_eq!(t.symbol().parse::<BasisTerm>().unwrap(), t);
        }
        assert!(matches!(
            "1+cube".parse::<OverheadModel>(),
            Err(ScalabilityError::UnknownTerm(s)) if s == "cube"
        ));
        assert_eq!(
            "1+log+ln".parse::<OverheadModel>(),
            Err(ScalabilityError::DuplicateTerm(BasisTerm::Log))
        );
        assert_eq!(
            "".parse::<OverheadModel>(),
            Err(ScalabilityError::EmptyModel)
        );
        assert!(OverheadModel::log_linear().contains(&OverheadModel::log()));
        assert!(!OverheadModel::log().contains(&OverheadModel::linear()));
        assert!(OverheadModel::log().has_constant());
        assert!(!"log".parse::<OverheadModel>().unwrap().has_constant());
    }
}
