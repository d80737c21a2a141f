//! What an Ising sample costs per attempted flip, measured and as model charging charges it
//! (issue 22, item 6): `calibrate` fits three units, an attempted flip, an accepted one and a
//! neighbour spin read into an attempt's sum (`unit_costs.rs`), and model charging charges a
//! sample its three counts at their costs. This fits them here, in the same process (as
//! `calibrate` does), then prints for 2D 32² at T = 1.5, 2.27 and 4 and 3D 8³ at T = 3, 4, 4.5
//! and 6 the acceptance, the measured CPU time per attempted flip (median of nine samples, the
//! thread's CPU clock) and the charge per attempted flip under the fitted costs (and their
//! ratio) and under the reference costs. Run it on a quiet host: the ratio is what counts.
//!
//! ```text
//! cargo run --release -p multicomputer-workloads --example ising_flip_cost
//! ```

use multicomputer_runtime::{Work, WorkClock, WorkCosts};
use multicomputer_workloads::ising::{
    ACCEPTED_FLIP, ATTEMPTED_FLIP, DEFAULT_TEMPERATURE, Dimension, run_sample,
};
use multicomputer_workloads::speedup::Spread;
use multicomputer_workloads::unit_costs::{
    FLIP_UNITS, flip_sample_config, measure_unit_costs, reference_unit_costs,
};

/// CPU time per attempted flip (median of nine samples), and a sample's declared work.
fn measured(c: (Dimension, usize, f64)) -> (f64, Work) {
    let c = flip_sample_config(c);
    let mut work = Work::default();
    let times: Vec<f64> = (0..9)
        .map(|k| {
            let (r, took) =
                WorkClock::ThreadCpu.time(|| std::hint::black_box(run_sample(&c, k).expect("ok")));
            if k == 0 {
                r.declare(&mut work);
            }
            took.as_nanos() as f64 / r.attempts as f64
        })
        .collect();
    (Spread::of(&times).map_or(f64::NAN, |s| s.median), work)
}

fn main() {
    let fitted = measure_unit_costs(10).costs;
    let reference = WorkCosts {
        ns_per_unit: reference_unit_costs(),
        ..WorkCosts::default()
    };
    let costs = |c: &WorkCosts| {
        FLIP_UNITS
            .map(|u| format!("{u} {:.2} ns", c.unit_ns(u).unwrap_or(f64::NAN)))
            .join(", ")
    };
    println!(
        "fitted on this host: {}\nreference: {}\n",
        costs(&fitted),
        costs(&reference)
    );
    println!(
        "| lattice | T | acceptance | measured ns/attempt | charged (fitted) | \
         charged/measured | charged (reference) |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (d, size, t) in [
        (Dimension::Two, 32, 1.5),
        (Dimension::Two, 32, 2.27),
        (Dimension::Two, 32, 4.0),
        (Dimension::Three, 8, 3.0),
        (Dimension::Three, 8, DEFAULT_TEMPERATURE),
        (Dimension::Three, 8, 4.5),
        (Dimension::Three, 8, 6.0),
    ] {
        let (ns, work) = measured((d, size, t));
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
