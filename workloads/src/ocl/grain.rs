//! The grain of an OCL program — window length `N`, cell size `M`, packet size `K` — validated
//! once, and the typed errors of the whole OCL module.

use serde::Serialize;
use thiserror::Error;

use crate::analysis::FitError;

/// Why an OCL configuration, step or fit was refused.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum OclError {
    /// The window length `N` is 0; the paper requires `N ≥ 1`.
    #[error("window length N must be at least 1, got 0")]
    ZeroWindow,
    /// A grain parameter (`M` or `K`) is 0.
    #[error("{name} must be at least 1, got 0")]
    ZeroParameter {
        /// The parameter, e.g. "cell size M".
        name: &'static str,
    },
    /// A parameter does not divide another one (the transformations need `M | N`, `K | M`).
    #[error("{param} = {value} does not divide {of} = {of_value}")]
    NotADivisor {
        /// The parameter that should divide, e.g. "cell size M".
        param: &'static str,
        /// Its value.
        value: usize,
        /// The parameter it should divide, e.g. "window length N".
        of: &'static str,
        /// That parameter's value.
        of_value: usize,
    },
    /// A cell received a packet of the wrong length or with inconsistent `b`, `c`, `d` arrays.
    #[error(
        "packet arrays have lengths b = {b}, c = {c}, d = {d}; the cell expects K = {expected}"
    )]
    PacketLength {
        /// The packet size `K` the cell was built for.
        expected: usize,
        /// Length of the `b` array received.
        b: usize,
        /// Length of the `c` array received.
        c: usize,
        /// Length of the `d` array received.
        d: usize,
    },
    /// A timing row cannot be used in a fit.
    #[error("timing row {index}: {reason}")]
    InvalidRow {
        /// Index of the row in the table.
        index: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// The least-squares fit itself failed.
    #[error(transparent)]
    Fit(#[from] FitError),
}

pub(crate) const N_NAME: &str = "window length N";
pub(crate) const M_NAME: &str = "cell size M";
pub(crate) const K_NAME: &str = "packet size K";

/// Which of the paper's programs a grain corresponds to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Transformation {
    /// `M = K = 1`: the fine-grained array of §2.2.
    Fine,
    /// `K = 1 < M`: the `[M,1]`-transformation of §3.1.
    M1,
    /// `M = K > 1`: the `[K,K]`-transformation of §3.2.
    Kk,
    /// `1 < K < M`: the general `[M,K]`-transformation (§5, derived in this module).
    Mk,
}

/// A validated grain: window length `N`, `M` fine-grained cells composed into one process, `K`
/// communications packed into one message; `M | N` and `K | M` (hence `K | N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Grain {
    n: usize,
    m: usize,
    k: usize,
}

impl Grain {
    /// The general `[M,K]`-transformation of a window of length `n`.
    ///
    /// Errors: [`OclError::ZeroWindow`], [`OclError::ZeroParameter`], and
    /// [`OclError::NotADivisor`] naming `M` (not dividing `N`) or `K` (not dividing `M`).
    pub fn new(n: usize, m: usize, k: usize) -> Result<Self, OclError> {
        if n == 0 {
            return Err(OclError::ZeroWindow);
        }
        if m == 0 {
            return Err(OclError::ZeroParameter { name: M_NAME });
        }
        if k == 0 {
            return Err(OclError::ZeroParameter { name: K_NAME });
        }
        if n % m != 0 {
            return Err(OclError::NotADivisor {
                param: M_NAME,
                value: m,
                of: N_NAME,
                of_value: n,
            });
        }
        if m % k != 0 {
            return Err(OclError::NotADivisor {
                param: K_NAME,
                value: k,
                of: M_NAME,
                of_value: m,
            });
        }
        Ok(Self { n, m, k })
    }

    /// The fine-grained array of `n` processes (`[1,1]`).
    pub fn fine(n: usize) -> Result<Self, OclError> {
        Self::new(n, 1, 1)
    }

    /// The `[M,1]`-transformation: `n/m` processes with a local window of `m`.
    pub fn m1(n: usize, m: usize) -> Result<Self, OclError> {
        Self::new(n, m, 1)
    }

    /// The `[K,K]`-transformation: `n/k` processes exchanging packets of `k` values.
    ///
    /// A `k` that does not divide `n` is reported as [`OclError::NotADivisor`] with `K` and `N`.
    pub fn kk(n: usize, k: usize) -> Result<Self, OclError> {
        if n != 0 && k != 0 && n % k != 0 {
            return Err(OclError::NotADivisor {
                param: K_NAME,
                value: k,
                of: N_NAME,
                of_value: n,
            });
        }
        Self::new(n, k, k)
    }

    /// Window length `N`.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Cell size `M` (fine-grained cells per process).
    pub fn m(&self) -> usize {
        self.m
    }

    /// Packet size `K` (values of each channel per communication).
    pub fn k(&self) -> usize {
        self.k
    }

    /// Number of processes `N/M`.
    pub fn processes(&self) -> usize {
        self.n / self.m
    }

    /// Number of packets needed to carry `l` stream elements: `⌈l/K⌉`.
    pub fn packets_for(&self, l: u64) -> u64 {
        l.div_ceil(self.k as u64)
    }

    /// Which of the paper's programs this grain is.
    pub fn transformation(&self) -> Transformation {
        match (self.m, self.k) {
            (1, _) => Transformation::Fine,
            (_, 1) => Transformation::M1,
            (m, k) if m == k => Transformation::Kk,
            _ => Transformation::Mk,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_grains_and_their_transformation() {
        assert_eq!(
            Grain::fine(7).unwrap().transformation(),
            Transformation::Fine
        );
        assert_eq!(
            Grain::m1(50, 5).unwrap().transformation(),
            Transformation::M1
        );
        assert_eq!(
            Grain::kk(50, 5).unwrap().transformation(),
            Transformation::Kk
        );
        let g = Grain::new(48, 12, 4).unwrap();
        assert_eq!(g.transformation(), Transformation::Mk);
        assert_eq!((g.n(), g.m(), g.k(), g.processes()), (48, 12, 4, 4));
        assert_eq!(g.packets_for(0), 0);
        assert_eq!(g.packets_for(9), 3);
    }

    #[test]
    fn zero_and_indivisible_parameters_are_named() {
        assert_eq!(Grain::fine(0), Err(OclError::ZeroWindow));
        assert_eq!(
            Grain::m1(10, 0),
            Err(OclError::ZeroParameter { name: M_NAME })
        );
        assert_eq!(
            Grain::new(10, 5, 0),
            Err(OclError::ZeroParameter { name: K_NAME })
        );
        let e = Grain::m1(10, 3).unwrap_err();
        assert_eq!(
            e.to_string(),
            "cell size M = 3 does not divide window length N = 10"
        );
        let e = Grain::new(12, 6, 4).unwrap_err();
        assert_eq!(
            e.to_string(),
            "packet size K = 4 does not divide cell size M = 6"
        );
        let e = Grain::kk(10, 4).unwrap_err();
        assert_eq!(
            e.to_string(),
            "packet size K = 4 does not divide window length N = 10"
        );
    }
}
