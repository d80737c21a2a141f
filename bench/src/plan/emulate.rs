//! `emulate`'s plan.

use std::path::Path;
use std::time::Duration;

use multicomputer_runtime::{LinkCost, Topology};
use multicomputer_workloads::synthetic::{Pattern, Phold, SyntheticSpec};

use super::{ArgError, Footprint, Inputs, MachinePlan, OutputPlan, RunPlan, trace_for_report};
use crate::args::{EmulateArgs, PatternArg, PholdArgs};

/// A synthetic program on an emulated machine.
pub(crate) type EmulatePlan = RunPlan<SyntheticSpec>;

/// Rounds per processor when `--rounds` is not given.
const DEFAULT_ROUNDS: u64 = 100;
/// Occupation per round when `--occupy` is not given.
const DEFAULT_OCCUPY: Duration = Duration::from_millis(10);

/// Validates `emulate`'s flags.
/// An HTML or Markdown report draws the run's processor timeline, so a run that writes one
/// records its trace when the trace fits the page ([`trace_for_report`]).
pub(crate) fn emulate(a: &EmulateArgs, out: &Path) -> Result<EmulatePlan, ArgError> {
    let output = OutputPlan::new(&a.run.output)?;
    RunPlan::new(&a.run, out, |topology, machine| {
        let spec = match a.pattern {
            PatternArg::Phold => phold(a, &machine.link)?,
            rounds => {
                if let Some(flag) = phold_flag(&a.phold) {
                    return Err(ArgError::new(flag, "applies to --pattern phold only"));
                }
                SyntheticSpec {
                    rounds: a.rounds.unwrap_or(DEFAULT_ROUNDS),
                    occupy: a.occupy.unwrap_or(DEFAULT_OCCUPY),
                    pattern: match rounds {
                        PatternArg::Reduce => Pattern::Reduce,
                        _ => Pattern::Independent,
                    },
                }
            }
        };
        if trace_for_report(&output, records(topology, &spec, machine.link.latency)) {
            machine.trace = true;
        }
        let memory = footprint(topology, &spec, machine)?;
        memory.check()?;
        Ok((spec, memory))
    })
}

/// The first PHOLD flag given, if any.
fn phold_flag(p: &PholdArgs) -> Option<&'static str> {
    [
        (p.remote.is_some(), "--remote"),
        (p.mean_delay.is_some(), "--mean-delay"),
        (p.population.is_some(), "--population"),
        (p.horizon.is_some(), "--horizon"),
        (p.seed.is_some(), "--seed"),
    ]
    .into_iter()
    .find_map(|(given, flag)| given.then_some(flag))
}

/// PHOLD's spec: no rounds or occupations, events that take no time, links that cost only
/// their latency (the lookahead), so that the run can equal the sequential reference.
fn phold(a: &EmulateArgs, link: &LinkCost) -> Result<SyntheticSpec, ArgError> {
    let not_phold =
        |flag: &str, why: &str| ArgError::new(flag, format!("not with --pattern phold: {why}"));
    if a.rounds.is_some() {
        return Err(not_phold("--rounds", "its length is --horizon"));
    }
    if a.occupy.is_some() {
        return Err(not_phold("--occupy", "its events take no emulated time"));
    }
    let costs = [
        (!link.send_overhead.is_zero(), "--send-overhead"),
        (!link.recv_overhead.is_zero(), "--recv-overhead"),
        (link.per_byte_ns != 0.0, "--per-byte"),
        (link.loop_count != 0, "--loop-count"),
    ];
    if let Some((_, flag)) = costs.into_iter().find(|(given, _)| *given) {
        return Err(not_phold(
            flag,
            "its links cost only their latency (--latency, the lookahead), so that events run \
             at their times and the run can be checked against the sequential reference",
        ));
    }
    let p = &a.phold;
    let spec = Phold {
        remote: p.remote.unwrap_or(0.25),
        mean_delay: p.mean_delay.unwrap_or(Duration::from_millis(1)),
        population: p.population.unwrap_or(1),
        horizon: p.horizon.unwrap_or(Duration::from_millis(100)),
        seed: p.seed.unwrap_or(1),
    };
    if spec.mean_delay.is_zero() {
        return Err(ArgError::new("--mean-delay", "must be > 0"));
    }
    if spec.horizon.is_zero() {
        return Err(ArgError::new("--horizon", "must be > 0"));
    }
    Ok(SyntheticSpec {
        rounds: 0,
        occupy: Duration::ZERO,
        pattern: Pattern::Phold(spec),
    })
}

/// Trace records a processor makes per round: its occupy interval; reducing, also its
/// send's start-up, its wait for its children and the message.
fn records_per_round(pattern: Pattern) -> f64 {
    match pattern {
        Pattern::Independent => 1.0,
        Pattern::Reduce => 4.0,
        Pattern::Phold(_) => 0.0,
    }
}

/// The trace records a run makes (PHOLD: a wait and a message per event, over the
/// lookahead `latency`).
fn records(topology: &Topology, s: &SyntheticSpec, latency: Duration) -> f64 {
    match s.pattern {
        Pattern::Phold(p) => {
            2.0 * p.events_per_emulated_s(topology.len(), latency) * p.horizon.as_secs_f64()
        }
        pattern => s.rounds as f64 * topology.len() as f64 * records_per_round(pattern),
    }
}

/// What an `emulate` run holds (the memory model): its processors, their links' buffers on
/// threads, and its trace (PHOLD: a wait and a message per event).
pub(crate) fn footprint(
    topology: &Topology,
    s: &SyntheticSpec,
    machine: &MachinePlan,
) -> Result<Footprint, ArgError> {
    let mut f = Footprint::new();
    f.machine(topology, machine, &s.hints(topology.len()))?;
    if f.traced() {
        f.trace(records(topology, s, machine.link.latency));
    }
    Ok(f)
}

/// The program's inputs.
pub(crate) fn synthetic_inputs(s: &SyntheticSpec) -> Inputs {
    let mut i = Inputs::new();
    match s.pattern {
        Pattern::Phold(p) => {
            i.add("pattern", "phold")
                .add("remote", p.remote)
                .duration("mean_delay", p.mean_delay)
                .add("population", p.population)
                .duration("horizon", p.horizon)
                .add("seed", p.seed);
        }
        pattern => {
            i.add("rounds", s.rounds)
                .duration("occupy", s.occupy)
                .add("pattern", pattern.name());
        }
    }
    i
}
