//! A synthetic program that shows what the emulator does with time: every processor occupies
//! itself for a set time each round and, in the `reduce` pattern, children send one message
//! to their parent after each round (a reduction to the root). The `phold` pattern is the
//! standard benchmark of parallel discrete-event simulation instead ([`phold`]).
//!
//! # Model
//!
//! With no messages (`independent`), each processor's occupations are chained by absolute
//! deadlines, so the emulated makespan is exactly `rounds × occupy` whatever the host does:
//! [`SyntheticSpec::expected_makespan_s`]. With `reduce`, the messages' costs add to it and
//! nothing is predicted.
//!
//! ```
//! use std::time::Duration;
//! use multicomputer_runtime::{Machine, MachineConfig, TimeMode};
//! use multicomputer_workloads::synthetic::{Pattern, SyntheticSpec};
//!
//! let spec = SyntheticSpec { rounds: 3, occupy: Duration::from_micros(200), pattern: Pattern::Independent };
//! let config = MachineConfig { mode: TimeMode::Dilated(1.0), ..MachineConfig::default() };
//! let c = spec.run(&Machine::new("binary:2".parse()?, config)?)?;
//! assert!((c.makespan_s - 600e-6).abs() < 1e-12);
//! assert!(c.error_pct.unwrap().abs() < 1e-9);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod compare;
pub mod phold;
mod program;

pub use compare::{SyntheticComparison, SyntheticMeasured};
pub use phold::{Phold, PholdOutcome};
pub use program::program;

use std::time::Duration;

use serde::Serialize;

use crate::hints::Hints;

/// What the program does between occupations.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Pattern {
    /// No messages.
    Independent,
    /// After each round, children send one message to their parent.
    Reduce,
    /// PHOLD: no rounds or occupations, events scheduling events ([`phold`]).
    Phold(Phold),
}

impl Pattern {
    /// `independent`, `reduce` or `phold`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Independent => "independent",
            Self::Reduce => "reduce",
            Self::Phold(_) => "phold",
        }
    }
}

/// The synthetic program.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SyntheticSpec {
    /// Rounds per processor (not used by PHOLD).
    pub rounds: u64,
    /// Emulated occupation per round (not used by PHOLD).
    pub occupy: Duration,
    /// Communication between rounds.
    pub pattern: Pattern,
}

impl SyntheticSpec {
    /// `rounds × occupy` for the independent pattern (exact), else `None`.
    pub fn expected_makespan_s(&self) -> Option<f64> {
        (self.pattern == Pattern::Independent)
            .then_some(self.rounds as f64 * self.occupy.as_secs_f64())
    }

    /// What auto mode should know about a run on `processors`: no real compute, the
    /// occupation (PHOLD: the mean delay) as smallest cost. PHOLD's links buffer its whole
    /// population, so that no send blocks: an event waiting in a link is its chain's one live
    /// event, so no link ever holds more ([`phold`]).
    pub fn hints(&self, processors: usize) -> Hints {
        match self.pattern {
            Pattern::Phold(p) => Hints {
                smallest_cost: Some(p.mean_delay),
                min_capacity: processors.saturating_mul(p.population as usize).max(1),
                ..Hints::default()
            },
            _ => Hints {
                smallest_cost: Some(self.occupy),
                ..Hints::default()
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_independent_pattern_is_predicted() {
        let mut s = SyntheticSpec {
            rounds: 100,
            occupy: Duration::from_millis(10),
            pattern: Pattern::Independent,
        };
        assert_eq!(s.expected_makespan_s(), Some(1.0));
        s.pattern = Pattern::Reduce;
        assert_eq!(s.expected_makespan_s(), None);
    }
}
