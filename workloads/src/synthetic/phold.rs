//! PHOLD, the standard benchmark of parallel discrete-event simulation (Fujimoto 1990; ROSS
//! and SST report their event rates on it), as a program of the emulated machine.
//!
//! # The model
//!
//! Every processor starts with `population` events, each at an exponential delay of mean
//! `mean_delay` from time zero. Executing an event at time t schedules exactly one successor
//! at `t + L + d`, where L is the lookahead (the links' latency, `--latency`) and d an
//! exponential delay of mean `mean_delay` (at least 1 ns): with probability `remote` on a
//! neighbour picked uniformly among the processor's links (sent as a message, which arrives
//! at t + L, before the successor's time), else on the processor itself. Events at or past
//! the `horizon` are not executed; they are the run's leftover population. Events take no
//! emulated time, so that the run measures the engine, as ROSS's PHOLD does.
//!
//! Remote events go to neighbours only, not to any processor as in ROSS's PHOLD: an event for
//! a processor further away would travel as a routed message, whose hops (each a cut-link
//! effect where it crosses parts) would make the benchmark measure routing as well as the
//! engine. On a network where every processor is a neighbour's neighbour's … this is PHOLD
//! with nearest-neighbour traffic, the kind a partitioned run cuts least.
//!
//! Each processor draws from its own stream (seeded by the seed and its index) in the order
//! it executes its events: by time, then by the creating processor and its creation number,
//! a key that does not depend on how the machine is run. So the executed events are a pure
//! function of the topology, the lookahead and these parameters, and [`reference()`] computes
//! them with one priority queue.
//!
//! # Checks
//!
//! - **Conservation:** each executed event creates one, so the events left past the horizon
//!   are exactly the initial population, `processors × population`; an event lost (or run
//!   twice) shows there.
//! - **The reference:** the count of executed events and a digest of their times and
//!   creators, per processor in execution order, equal [`reference()`]'s — when no event ran
//!   late. An event runs late when its processor's clock had passed its time: a send blocked
//!   on a full link (more than `--capacity` events in flight on one link), or a start-up or
//!   receive cost (which PHOLD's flags refuse). Late events are counted and reported.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Duration;

use multicomputer_runtime::{Interrupt, LinkId, Payload, Processor, ProcessorError, Topology};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

/// PHOLD's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Phold {
    /// The share of successors sent to a neighbour, in [0, 1].
    pub remote: f64,
    /// Mean of the exponential delay added to the lookahead.
    pub mean_delay: Duration,
    /// Events each processor starts with.
    pub population: u32,
    /// Emulated time at which the run stops: events at or after it are not executed.
    pub horizon: Duration,
    /// Seed of the processors' random streams.
    pub seed: u64,
}

/// An event in flight: its time, and who created it with which creation number (the
/// tie-break among events of the same time).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PholdEvent {
    /// Emulated time at which it executes, ns.
    pub at_ns: u64,
    /// The processor that created it.
    pub creator: u64,
    /// Its creator's count of events created before it.
    pub number: u64,
}

impl Payload for PholdEvent {
    fn size_bytes(&self) -> u64 {
        std::mem::size_of::<Self>() as u64
    }
}

/// What one processor did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PholdTally {
    /// Events executed.
    pub executed: u64,
    /// Events it created at or past the horizon.
    pub left: u64,
    /// Events executed after their time (see the module's docs).
    pub late: u64,
    /// A digest of its executed events' times and creators, in execution order.
    pub digest: u64,
}

/// A PHOLD run's totals, and its checks.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PholdOutcome {
    /// Events executed over the machine.
    pub events: u64,
    /// Events executed per second of wall time.
    pub events_per_s: Option<f64>,
    /// Events left past the horizon.
    pub left: u64,
    /// Whether the leftover equals the initial population (no event lost or repeated).
    pub conserved: bool,
    /// Events executed after their time (the reference applies only when none did).
    pub late: u64,
    /// The digest of every processor's executed events, as hex.
    pub digest: Digest,
    /// The sequential reference's events and digest.
    pub reference_events: u64,
    /// The reference's digest.
    pub reference_digest: Digest,
    /// Whether the run's events and digest equal the reference's (`None` when events ran
    /// late, which the reference does not model).
    pub matches_reference: Option<bool>,
}

/// A 64-bit digest, written as 16 hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Digest(pub u64);

impl Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{:016x}", self.0))
    }
}

impl std::fmt::Display for Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// SplitMix64's finaliser over `h ^ x`: one step of a digest.
fn fold(h: u64, x: u64) -> u64 {
    let mut z = (h ^ x).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// One processor's state: its stream, its creation count and its tally.
struct Lp {
    rng: Xoshiro256PlusPlus,
    created: u64,
    tally: PholdTally,
}

/// Where a successor goes.
enum Successor {
    /// Past the horizon: counted, not scheduled.
    Left,
    /// On the processor itself.
    Local(PholdEvent),
    /// On the neighbour behind this link (its position among the processor's links).
    Remote(usize, PholdEvent),
}

impl Lp {
    fn new(phold: &Phold, id: usize) -> Self {
        Self {
            rng: Xoshiro256PlusPlus::seed_from_u64(fold(phold.seed, id as u64)),
            created: 0,
            tally: PholdTally::default(),
        }
    }

    /// An exponential delay of mean `mean_ns`, at least 1 ns.
    fn delay_ns(&mut self, mean_ns: f64) -> u64 {
        let u: f64 = self.rng.random();
        ((-mean_ns * (1.0 - u).ln()).round() as u64).max(1)
    }

    /// A new event of this processor's at `at_ns`.
    fn create(&mut self, id: usize, at_ns: u64) -> PholdEvent {
        let e = PholdEvent {
            at_ns,
            creator: id as u64,
            number: self.created,
        };
        self.created += 1;
        e
    }

    /// The initial events (those before the horizon).
    fn initial(&mut self, phold: &Phold, id: usize) -> Vec<PholdEvent> {
        let mean_ns = phold.mean_delay.as_nanos() as f64;
        let horizon_ns = nanos(phold.horizon);
        let mut events = Vec::new();
        for _ in 0..phold.population {
            let at = self.delay_ns(mean_ns);
            let e = self.create(id, at);
            if at < horizon_ns {
                events.push(e);
            } else {
                self.tally.left += 1;
            }
        }
        events
    }

    /// Executes `event` at `now_ns` on a processor with `degree` links: books it, draws its
    /// successor.
    fn execute(
        &mut self,
        phold: &Phold,
        id: usize,
        degree: usize,
        lookahead_ns: u64,
        event: PholdEvent,
        now_ns: u64,
    ) -> Successor {
        let t = &mut self.tally;
        t.executed += 1;
        t.late += u64::from(now_ns > event.at_ns);
        t.digest = fold(fold(t.digest, event.at_ns), event.creator);
        let d = self.delay_ns(phold.mean_delay.as_nanos() as f64);
        let remote: f64 = self.rng.random();
        let link = (degree > 0 && remote < phold.remote).then(|| self.rng.random_range(0..degree));
        let at = now_ns.saturating_add(lookahead_ns).saturating_add(d);
        let e = self.create(id, at);
        if at >= nanos(phold.horizon) {
            self.tally.left += 1;
            return Successor::Left;
        }
        match link {
            Some(l) => Successor::Remote(l, e),
            None => Successor::Local(e),
        }
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// The program each processor runs, with lookahead `lookahead` (the links' latency): executes
/// its events in time order, taking the messages that arrive before each, until the horizon.
pub fn program(
    phold: Phold,
    lookahead: Duration,
) -> impl Fn(&mut Processor<PholdEvent>) -> Result<PholdTally, ProcessorError> + Sync {
    let lookahead_ns = nanos(lookahead);
    let horizon_ns = nanos(phold.horizon);
    move |p| {
        let id = p.id();
        let links: Vec<LinkId> = p.links().to_vec();
        let mut lp = Lp::new(&phold, id);
        let mut pending: BinaryHeap<Reverse<PholdEvent>> =
            lp.initial(&phold, id).into_iter().map(Reverse).collect();
        loop {
            let now = nanos(p.now());
            let until = pending
                .peek()
                .map_or(horizon_ns, |Reverse(e)| e.at_ns.min(horizon_ns));
            if now < until {
                let wait = Duration::from_nanos(until - now);
                if let Interrupt::Message { message, .. } = p.occupy_or_recv(wait, &links)? {
                    pending.push(Reverse(message));
                    continue;
                }
            }
            // Past the horizon, take what has arrived (only a late processor finds any).
            let Some(Reverse(event)) = pending.pop() else {
                match p.try_recv_from(&links)? {
                    Some((_, message)) => {
                        pending.push(Reverse(message));
                        continue;
                    }
                    None => break,
                }
            };
            let now = nanos(p.now());
            match lp.execute(&phold, id, links.len(), lookahead_ns, event, now) {
                Successor::Left => {}
                Successor::Local(e) => pending.push(Reverse(e)),
                Successor::Remote(l, e) => p.send(links[l], e)?,
            }
        }
        Ok(lp.tally)
    }
}

/// The sequential reference: the same model on one priority queue of every processor's
/// events, each processor drawing from its own stream in its own execution order.
pub fn reference(phold: &Phold, topology: &Topology, lookahead: Duration) -> Vec<PholdTally> {
    let lookahead_ns = nanos(lookahead);
    let n = topology.len();
    let mut lps: Vec<Lp> = (0..n).map(|i| Lp::new(phold, i)).collect();
    let mut queue: BinaryHeap<Reverse<(u64, usize, PholdEvent)>> = BinaryHeap::new();
    for (i, lp) in lps.iter_mut().enumerate() {
        for e in lp.initial(phold, i) {
            queue.push(Reverse((e.at_ns, i, e)));
        }
    }
    while let Some(Reverse((at, i, event))) = queue.pop() {
        let neighbours = topology.neighbours(i);
        match lps[i].execute(phold, i, neighbours.len(), lookahead_ns, event, at) {
            Successor::Left => {}
            Successor::Local(e) => queue.push(Reverse((e.at_ns, i, e))),
            Successor::Remote(l, e) => queue.push(Reverse((e.at_ns, neighbours[l], e))),
        }
    }
    lps.into_iter().map(|lp| lp.tally).collect()
}

/// The digest of a machine's tallies, in processor order.
pub fn digest(tallies: &[PholdTally]) -> Digest {
    Digest(tallies.iter().fold(0, |h, t| fold(h, t.digest)))
}

impl Phold {
    /// A run's totals beside the reference's (`wall_s`: the run's wall time).
    pub fn outcome(
        &self,
        run: &[PholdTally],
        reference: &[PholdTally],
        wall_s: f64,
    ) -> PholdOutcome {
        let events = run.iter().map(|t| t.executed).sum();
        let left = run.iter().map(|t| t.left).sum();
        let late = run.iter().map(|t| t.late).sum();
        let reference_events = reference.iter().map(|t| t.executed).sum();
        let (d, r) = (digest(run), digest(reference));
        PholdOutcome {
            events,
            events_per_s: (wall_s > 0.0).then(|| events as f64 / wall_s),
            left,
            conserved: left == run.len() as u64 * u64::from(self.population),
            late,
            digest: d,
            reference_events,
            reference_digest: r,
            matches_reference: (late == 0).then(|| events == reference_events && d == r),
        }
    }

    /// Events per second of emulated time the machine will execute, about: each of the
    /// `processors × population` chains executes one event every `L + mean_delay`.
    pub fn events_per_emulated_s(&self, processors: usize, lookahead: Duration) -> f64 {
        let period_s = (lookahead + self.mean_delay).as_secs_f64();
        processors as f64 * f64::from(self.population) / period_s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::{Pattern, SyntheticSpec};
    use multicomputer_runtime::{Machine, MachineConfig, TimeMode};

    fn phold(remote: f64) -> Phold {
        Phold {
            remote,
            mean_delay: Duration::from_micros(10),
            population: 3,
            horizon: Duration::from_micros(500),
            seed: 7,
        }
    }

    fn virtual_machine(topology: &str, latency: Duration) -> Machine {
        let topology: Topology = topology.parse().unwrap();
        let spec = SyntheticSpec {
            rounds: 0,
            occupy: Duration::ZERO,
            pattern: Pattern::Phold(phold(0.0)),
        };
        let mut config = MachineConfig {
            mode: TimeMode::Virtual,
            hints: spec.hints(topology.len()),
            ..MachineConfig::default()
        };
        config.link.latency = latency;
        Machine::new(topology, config).unwrap()
    }

    fn run(p: &Phold, m: &Machine) -> PholdOutcome {
        let lookahead = m.spec().link.latency;
        let record = m.run(program(*p, lookahead)).unwrap();
        let reference = reference(p, m.topology(), lookahead);
        p.outcome(&record.results, &reference, 1.0)
    }

    #[test]
    fn the_run_equals_the_sequential_reference_and_conserves_its_population() {
        for (t, remote) in [("binary:4", 0.5), ("torus:4x4", 0.9), ("chain:5", 0.0)] {
            let m = virtual_machine(t, Duration::from_micros(2));
            let p = phold(remote);
            let o = run(&p, &m);
            assert!(o.events > 100, "{t}: {} events", o.events);
            assert_eq!(o.late, 0, "{t}");
            assert!(o.conserved, "{t}: {} left", o.left);
            assert_eq!(o.left, m.topology().len() as u64 * 3);
            assert_eq!(o.matches_reference, Some(true), "{t}");
            assert_eq!(o.events, o.reference_events);
        }
    }

    #[test]
    fn a_link_too_small_for_the_population_makes_events_late_and_the_reference_inapplicable() {
        let mut config = MachineConfig {
            mode: TimeMode::Virtual,
            capacity: 1,
            ..MachineConfig::default()
        };
        config.link.latency = Duration::from_micros(2);
        let m = Machine::new("binary:4".parse().unwrap(), config).unwrap();
        let o = run(&phold(0.5), &m);
        assert!(o.late > 0);
        assert_eq!(o.matches_reference, None);
        assert!(o.conserved);
    }

    #[test]
    fn remote_events_become_messages() {
        let m = virtual_machine("binary:3", Duration::from_micros(1));
        let p = phold(1.0);
        let record = m.run(program(p, Duration::from_micros(1))).unwrap();
        let executed: u64 = record.results.iter().map(|t| t.executed).sum();
        // Every successor went to a neighbour, except the 7 × 3 past the horizon (no initial
        // event is: that takes a delay of 50 means, e⁻⁵⁰).
        assert_eq!(record.report.totals.messages_sent, executed - 7 * 3);
        let local = m
            .run(program(phold(0.0), Duration::from_micros(1)))
            .unwrap();
        assert_eq!(local.report.totals.messages_sent, 0);
    }

    #[test]
    fn the_seed_changes_the_events_and_the_digest_sees_it() {
        let m = virtual_machine("binary:3", Duration::from_micros(1));
        let a = run(&phold(0.5), &m);
        let b = run(
            &Phold {
                seed: 8,
                ..phold(0.5)
            },
            &m,
        );
        assert_ne!(a.digest, b.digest);
        assert_eq!(a.digest, run(&phold(0.5), &m).digest);
    }

    #[test]
    fn a_lost_event_breaks_conservation() {
        let p = phold(0.5);
        let m = virtual_machine("binary:2", Duration::from_micros(1));
        let reference = reference(&p, m.topology(), Duration::from_micros(1));
        let mut run = reference.clone();
        assert!(p.outcome(&run, &reference, 1.0).conserved);
        run[1].left -= 1;
        let o = p.outcome(&run, &reference, 1.0);
        assert!(!o.conserved);
        run[1].left += 1;
        run[1].late = 1;
        assert_eq!(p.outcome(&run, &reference, 1.0).matches_reference, None);
    }
}
