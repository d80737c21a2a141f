//! One round of measurements: the sequential reference, then for each P the runtime, rayon and
//! scoped threads, their order rotated from round to round, every result checked. Rounds
//! interleave the variants so that the host's drift (other work, clock speed) affects all
//! alike.

use std::cell::OnceCell;
use std::time::{Duration, Instant};

use multicomputer_runtime::{CutLinkFidelity, Machine, RunSpec};

use rayon::ThreadPool;
use serde::Serialize;

use crate::speedup::baselines::{rayon as with_rayon, scoped, sequential};
use crate::speedup::error::SpeedupError;
use crate::speedup::kernel::{Inputs, Output, Workload};
use crate::speedup::runtime;
use crate::speedup::spread::Spread;

/// A pause between two measurements, so that one variant's threads (rayon's spin before they
/// sleep) are quiet before the next starts.
const SETTLE: Duration = Duration::from_millis(2);

/// The three parallel variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Variant {
    Runtime,
    Rayon,
    Scoped,
}

impl Variant {
    const ALL: [Variant; 3] = [Variant::Runtime, Variant::Rayon, Variant::Scoped];

    fn name(self) -> &'static str {
        match self {
            Variant::Runtime => "runtime",
            Variant::Rayon => "rayon",
            Variant::Scoped => "scoped threads",
        }
    }
}

/// What a workload needs to be measured: its inputs, the reference result, a rayon pool and a
/// runtime machine for every P.
pub(crate) struct Bench<'a> {
    pub(crate) workload: Workload,
    pub(crate) inputs: Inputs,
    pub(crate) reference: Output,
    pub(crate) pools: &'a [(usize, ThreadPool)],
    pub(crate) machines: &'a [Machine],
    /// How the runtime's first machine resolved its run (they all run natively alike).
    pub(crate) runtime: OnceCell<RunSpec>,
}

/// The machine of `machines` with `processors` processors.
pub(crate) fn machine(machines: &[Machine], processors: usize) -> Result<&Machine, SpeedupError> {
    machines
        .iter()
        .find(|m| m.topology().len() == processors)
        .ok_or(SpeedupError::NoMachine { processors })
}

/// Times of one round at one P, seconds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AtP {
    pub(crate) runtime_s: f64,
    pub(crate) setup_s: f64,
    pub(crate) rayon_s: f64,
    pub(crate) scoped_s: f64,
    /// The runtime's messages across MPI ranks (`None` in one process).
    pub(crate) cut_links: Option<CutLinkFidelity>,
}

/// What a variant's run gave: its wall time and the runtime's set-up time, seconds, and the
/// runtime's messages across MPI ranks.
type Timed = (f64, f64, Option<CutLinkFidelity>);

/// Times of one round.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Round {
    pub(crate) sequential_s: f64,
    pub(crate) at: Vec<AtP>,
}

/// The sequential reference, timed: its result and wall time.
pub(crate) fn time_sequential(
    workload: &Workload,
    inputs: &Inputs,
) -> Result<(Output, f64), SpeedupError> {
    let input = inputs.clone();
    let start = Instant::now();
    let out = sequential::run(workload, input)?;
    Ok((out, start.elapsed().as_secs_f64()))
}

impl Bench<'_> {
    fn check(
        &self,
        out: &Output,
        variant: &'static str,
        processors: usize,
    ) -> Result<(), SpeedupError> {
        if *out == self.reference {
            Ok(())
        } else {
            Err(SpeedupError::Mismatch {
                variant,
                processors,
                grain: self.workload.grain,
            })
        }
    }

    fn pool(&self, processors: usize) -> Result<&ThreadPool, SpeedupError> {
        self.pools
            .iter()
            .find(|(p, _)| *p == processors)
            .map(|(_, pool)| pool)
            .ok_or(SpeedupError::Pool {
                threads: processors,
                message: "no pool was built for this P".into(),
            })
    }

    /// Runs `variant` on P processors: its wall time (and the runtime's set-up time and
    /// messages across ranks).
    fn time(&self, variant: Variant, processors: usize) -> Result<Timed, SpeedupError> {
        std::thread::sleep(SETTLE);
        let input = self.inputs.clone();
        let w = &self.workload;
        let (out, timed) = match variant {
            Variant::Runtime => {
                let m = machine(self.machines, processors)?;
                let r = runtime::run(w, input, m, &self.reference)?;
                self.runtime.get_or_init(|| r.spec);
                (r.output, (r.wall_s, r.setup_s, r.cut_links))
            }
            Variant::Rayon => {
                let pool = self.pool(processors)?;
                let start = Instant::now();
                let out = with_rayon::run(w, input, pool)?;
                (out, (start.elapsed().as_secs_f64(), 0.0, None))
            }
            Variant::Scoped => {
                let start = Instant::now();
                let out = scoped::run(w, input, processors)?;
                (out, (start.elapsed().as_secs_f64(), 0.0, None))
            }
        };
        self.check(&out, variant.name(), processors)?;
        Ok(timed)
    }

    /// Round `index` over `processors`: the sequential reference, then each P's three variants
    /// in an order rotated by the round's index. `step` is called after each measurement.
    pub(crate) fn round(
        &self,
        index: usize,
        processors: &[usize],
        step: &mut dyn FnMut(&str),
    ) -> Result<Round, SpeedupError> {
        std::thread::sleep(SETTLE);
        let (out, sequential_s) = time_sequential(&self.workload, &self.inputs)?;
        self.check(&out, "the sequential program", 1)?;
        step("sequential");
        let mut at = Vec::with_capacity(processors.len());
        for &p in processors {
            let mut t = AtP {
                runtime_s: f64::NAN,
                setup_s: f64::NAN,
                rayon_s: f64::NAN,
                scoped_s: f64::NAN,
                cut_links: None,
            };
            for k in 0..Variant::ALL.len() {
                let variant = Variant::ALL[(index + k) % Variant::ALL.len()];
                let (wall_s, setup_s, cut_links) = self.time(variant, p)?;
                match variant {
                    Variant::Runtime => {
                        t.runtime_s = wall_s;
                        t.setup_s = setup_s;
                        t.cut_links = cut_links;
                    }
                    Variant::Rayon => t.rayon_s = wall_s,
                    Variant::Scoped => t.scoped_s = wall_s,
                }
                step(&format!("{} at P = {p}", variant.name()));
            }
            at.push(t);
        }
        Ok(Round { sequential_s, at })
    }
}

/// A variant's times at one P over the rounds, and its speedup against the sequential
/// program of the same round.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Timing {
    /// Wall time, seconds.
    pub wall_s: Spread,
    /// Sequential time over this variant's, round by round.
    pub speedup: Spread,
    /// The median speedup over P.
    pub efficiency: f64,
}

impl Timing {
    /// The timing of `times` (one per round) against `sequential` (the same rounds) on P.
    pub(crate) fn of(times: &[f64], sequential: &[f64], processors: usize) -> Option<Self> {
        let speedups: Vec<f64> = sequential.iter().zip(times).map(|(s, t)| s / t).collect();
        let speedup = Spread::of(&speedups)?;
        Some(Self {
            wall_s: Spread::of(times)?,
            speedup,
            efficiency: speedup.median / processors.max(1) as f64,
        })
    }
}

/// The messages across MPI ranks of several runs together: their receives and late ones
/// summed, the largest lateness and skew; `None` if no run crossed ranks.
pub(crate) fn cut_links_of<'a>(
    runs: impl IntoIterator<Item = &'a Option<CutLinkFidelity>>,
) -> Option<CutLinkFidelity> {
    runs.into_iter()
        .flatten()
        .cloned()
        .reduce(|a, b| CutLinkFidelity {
            ranks: a.ranks.max(b.ranks),
            receives: a.receives + b.receives,
            late: a.late + b.late,
            max_lateness_ns: a.max_lateness_ns.max(b.max_lateness_ns),
            skew_ns: a.skew_ns.max(b.skew_ns),
        })
}

/// The per-round ratios `a/b`.
pub(crate) fn ratios(a: &[f64], b: &[f64]) -> Option<Spread> {
    let r: Vec<f64> = a.iter().zip(b).map(|(a, b)| a / b).collect();
    Spread::of(&r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_across_ranks_add_up_over_the_rounds() {
        let run = |receives, late, max_lateness_ns, skew_ns| {
            Some(CutLinkFidelity {
                ranks: 2,
                receives,
                late,
                max_lateness_ns,
                skew_ns,
            })
        };
        assert_eq!(cut_links_of(&[None, None]), None);
        let all = cut_links_of(&[run(10, 1, 500, 3), None, run(7, 2, 200, 9)]).unwrap();
        assert_eq!((all.ranks, all.receives, all.late), (2, 17, 3));
        assert_eq!((all.max_lateness_ns, all.skew_ns), (500, 9));
    }
}
