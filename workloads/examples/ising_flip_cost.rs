//! The cost of one attempted spin flip in the 2-D and the 3-D Ising lattice (issue 22, item 6):
//! `calibrate` measures the unit `spin flip` on the 3-D lattice (8³, `unit_costs.rs`), and model
//! charging charges that cost to 2-D flips too. This prints both, per attempted flip, as the
//! median of nine samples each, timed on the thread's CPU clock.
//!
//! ```text
//! cargo run --release -p multicomputer-workloads --example ising_flip_cost
//! ```

use multicomputer_runtime::WorkClock;
use multicomputer_workloads::ising::{
    DEFAULT_SWEEPS, DEFAULT_TEMPERATURE, Dimension, IsingConfig, run_sample,
};
use multicomputer_workloads::speedup::Spread;

fn per_flip_ns(dimension: Dimension, size: usize, temperature: f64) -> f64 {
    let mut c = IsingConfig::new(dimension, size, temperature).expect("a valid Ising config");
    c.thermalisation_sweeps = DEFAULT_SWEEPS;
    c.measurement_sweeps = DEFAULT_SWEEPS;
    let attempts = f64::from(c.thermalisation_sweeps + c.measurement_sweeps)
        * c.spins().expect("spins") as f64;
    let times: Vec<f64> = (0..9)
        .map(|k| {
            let (_, took) = WorkClock::ThreadCpu
                .time(|| std::hint::black_box(run_sample(&c, k).expect("a sample")));
            took.as_nanos() as f64 / attempts
        })
        .collect();
    Spread::of(&times).map_or(f64::NAN, |s| s.median)
}

fn main() {
    let three = per_flip_ns(Dimension::Three, 8, DEFAULT_TEMPERATURE);
    let two_default = per_flip_ns(Dimension::Two, 32, DEFAULT_TEMPERATURE);
    let two_readme = per_flip_ns(Dimension::Two, 32, 1.5);
    let acceptance = |d, size, t| {
        let mut c = IsingConfig::new(d, size, t).expect("a valid Ising config");
        c.thermalisation_sweeps = DEFAULT_SWEEPS;
        c.measurement_sweeps = DEFAULT_SWEEPS;
        {
            let r = run_sample(&c, 0).expect("a sample");
            r.flips as f64 / r.attempts as f64
        }
    };
    println!(
        "acceptance: 3-D {:.4}, 2-D at {DEFAULT_TEMPERATURE} {:.4}, 2-D at 1.5 {:.4}\n",
        acceptance(Dimension::Three, 8, DEFAULT_TEMPERATURE),
        acceptance(Dimension::Two, 32, DEFAULT_TEMPERATURE),
        acceptance(Dimension::Two, 32, 1.5)
    );
    println!("| lattice | temperature | ns per attempted flip | over 3-D |");
    println!("|---|---|---|---|");
    println!("| 3-D 8³ (what calibrate measures) | {DEFAULT_TEMPERATURE} | {three:.2} | 1.000 |");
    println!(
        "| 2-D 32² | {DEFAULT_TEMPERATURE} | {two_default:.2} | {:.3} |",
        two_default / three
    );
    println!(
        "| 2-D 32² (the README's) | 1.5 | {two_readme:.2} | {:.3} |",
        two_readme / three
    );
}
