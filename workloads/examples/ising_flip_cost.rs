//! What an Ising sample costs per attempted flip, measured and as model charging charges it
//! (issue 22, item 6): `calibrate` fits two units, an attempted flip and an accepted one
//! (`unit_costs.rs`), and model charging charges a sample both counts at their costs. This
//! prints, for the lattices the README runs and the ones the fit uses, the acceptance, the
//! measured CPU time per attempted flip (median of nine samples, the thread's CPU clock) and
//! the charge per attempted flip under this host's fitted costs and under the reference costs.
//!
//! ```text
//! cargo run --release -p multicomputer-workloads --example ising_flip_cost
//! ```

use multicomputer_runtime::{Work, WorkClock, WorkCosts};
use multicomputer_workloads::ising::{
    ACCEPTED_FLIP, ATTEMPTED_FLIP, DEFAULT_SWEEPS, DEFAULT_TEMPERATURE, Dimension, IsingConfig,
    run_sample,
};
use multicomputer_workloads::speedup::Spread;
use multicomputer_workloads::unit_costs::{measure_unit_costs, reference_unit_costs};

fn config(dimension: Dimension, size: usize, temperature: f64) -> IsingConfig {
    let mut c = IsingConfig::new(dimension, size, temperature).expect("a valid Ising config");
    c.thermalisation_sweeps = DEFAULT_SWEEPS;
    c.measurement_sweeps = DEFAULT_SWEEPS;
    c
}

/// CPU time per attempted flip (median of nine samples), and a sample's declared work.
fn measured(c: &IsingConfig) -> (f64, Work) {
    let mut work = Work::default();
    let times: Vec<f64> = (0..9)
        .map(|k| {
            let (r, took) =
                WorkClock::ThreadCpu.time(|| std::hint::black_box(run_sample(c, k).expect("ok")));
            if k == 0 {
                r.declare(&mut work);
            }
            took.as_nanos() as f64 / r.attempts as f64
        })
        .collect();
    (Spread::of(&times).map_or(f64::NAN, |s| s.median), work)
}

fn main() {
    let fitted = measure_unit_costs(5).costs;
    let reference = WorkCosts {
        ns_per_unit: reference_unit_costs(),
        ..WorkCosts::default()
    };
    let cost = |c: &WorkCosts, u| c.unit_ns(u).unwrap_or(f64::NAN);
    println!(
        "fitted on this host: attempted flip {:.2} ns, accepted flip {:.2} ns; reference: \
         {:.2} ns, {:.2} ns\n",
        cost(&fitted, ATTEMPTED_FLIP),
        cost(&fitted, ACCEPTED_FLIP),
        cost(&reference, ATTEMPTED_FLIP),
        cost(&reference, ACCEPTED_FLIP)
    );
    println!(
        "| lattice | T | acceptance | measured ns/attempt | charged (fitted) | charged/measured \
         | charged (reference) |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (d, size, t) in [
        (Dimension::Three, 8, DEFAULT_TEMPERATURE),
        (Dimension::Three, 8, 3.0),
        (Dimension::Two, 32, 1.5),
        (Dimension::Two, 32, DEFAULT_TEMPERATURE),
    ] {
        let c = config(d, size, t);
        let (ns, work) = measured(&c);
        let attempts = work.count(ATTEMPTED_FLIP) as f64;
        let charged =
            |costs: &WorkCosts| costs.charge_ns(&work).map_or(f64::NAN, |ns| ns as f64) / attempts;
        println!(
            "| {}-D {size} | {t} | {:.3} | {ns:.2} | {:.2} | {:.3} | {:.2} |",
            d.d(),
            work.count(ACCEPTED_FLIP) as f64 / attempts,
            charged(&fitted),
            charged(&fitted) / ns,
            charged(&reference)
        );
    }
}
