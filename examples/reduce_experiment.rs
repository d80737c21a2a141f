//! A user's own program run as the built-in programs are: a sum of squares reduced over a
//! hypercube by a binomial tree, with its own model `T(P) = (N/P)·t + log₂P·α`, given to the
//! library's experiment API. It runs warm-up and measured runs at each P of a sweep (run k
//! draws its items from seed + k, and every run is checked against the sequential sum), fits
//! `t` and `α` from rough guesses, and publishes the report: JSON, CSV, an HTML page and SVG
//! plots in `results/reduce/<run>/`. In virtual time the fit recovers the machine's values:
//! `t` = 1 µs an item, `α` = 20 µs start-up + 1 µs latency + 8 B × 1 ns/B = 21.008 µs.
//!
//! ```text
//! cargo run -p multicomputer-examples --example reduce_experiment
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use multicomputer::experiment::{Experiment, Fit, Model, ProgramError, Sweep};
use multicomputer_runtime::{
    LinkCost, Machine, MachineConfig, Processor, ProcessorError, RunReport, TimeMode, Topology,
};

/// Items summed, in all.
const ITEMS: u64 = 1 << 12;

/// Emulated time to square and add one item.
const PER_ITEM: Duration = Duration::from_micros(1);

/// Item `i` of the run drawing from `seed`.
fn item(seed: u64, i: u64) -> u64 {
    (seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ i) % 1000
}

/// Sums the squares of this processor's share of the items, then reduces the partial sums
/// to processor 0 along a binomial tree: at step d, processors with bit d set send to their
/// neighbour across dimension d and stop; the others receive and add.
fn sum_of_squares(p: &mut Processor<u64>, seed: u64) -> Result<u64, ProcessorError> {
    let (me, n) = (p.id(), p.processors());
    let share = ITEMS / n as u64;
    let first = me as u64 * share;
    let mut sum: u64 = (first..first + share).map(|i| item(seed, i).pow(2)).sum();
    p.occupy(PER_ITEM * share as u32);
    let mut bit = 1;
    while bit < n {
        let link = p.link_to(me ^ bit).expect("a hypercube");
        if me & bit != 0 {
            p.send(link, sum)?;
            return Ok(sum);
        }
        sum += p.recv(link)?;
        bit <<= 1;
    }
    Ok(sum)
}

/// One run on `machine`, checked against the sequential sum.
fn run(machine: &Machine, seed: u64) -> Result<RunReport, ProgramError> {
    let record = machine.run(|p| sum_of_squares(p, seed))?;
    let reference: u64 = (0..ITEMS).map(|i| item(seed, i).pow(2)).sum();
    if record.results[0] != reference {
        return Err(format!("{} ≠ the sequential {reference}", record.results[0]).into());
    }
    Ok(record.report)
}

/// The hypercube of `p` processors (a power of 2).
fn hypercube(p: usize) -> Result<Topology, multicomputer_runtime::TopologyError> {
    Topology::hypercube(p.trailing_zeros())
}

/// Sweeps the program over `processors` in `mode`, fits its model and publishes the
/// report in `out`: returns the sweep, the fit and the run folder.
fn experiment(
    mode: TimeMode,
    processors: &[usize],
    out: &Path,
) -> Result<(Sweep, Fit, PathBuf), Box<dyn std::error::Error>> {
    let link = LinkCost {
        send_overhead: Duration::from_micros(20),
        latency: Duration::from_micros(1),
        per_byte_ns: 1.0,
        ..LinkCost::default()
    };
    let config = MachineConfig {
        link,
        ..multicomputer_examples::config(mode)
    };
    // Rough guesses: the fit finds the machine's values.
    let model = Model::new(
        &[("t_item_s", 2e-6), ("alpha_s", 50e-6)],
        |machine, theta| {
            let p = machine.topology().len() as f64;
            ITEMS as f64 / p * theta[0] + p.log2() * theta[1]
        },
    )?;
    let experiment = Experiment::new("reduce", hypercube, config, run, model)
        .warmup(1)
        .runs(2);
    let sweep = experiment.sweep(processors.iter().copied())?;
    let fit = experiment.fit(&sweep)?;
    let folder = multicomputer::publish(out, &sweep, Some(&fit))?;
    Ok((sweep, fit, folder))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (sweep, fit, folder) = experiment(
        TimeMode::Virtual,
        &[1, 2, 4, 8, 16, 32],
        Path::new("results"),
    )?;
    for p in &sweep.points {
        println!(
            "P = {:<3} {:.3} ms (guessed model {:.3} ms)",
            p.processors,
            1e3 * p.measured.mean,
            1e3 * p.predicted_s
        );
    }
    for p in &fit.parameters {
        println!("{} = {:.6e} ± {:.1e}", p.name, p.value, p.std_error);
    }
    println!("written: {}", folder.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fit_recovers_the_machines_parameters_and_the_report_is_published_whole() {
        let out = tempfile::tempdir().unwrap();
        let (sweep, fit, folder) =
            experiment(TimeMode::Virtual, &[1, 2, 4, 8, 16], out.path()).unwrap();
        assert_eq!(sweep.points.len(), 5);
        assert!(sweep.points.iter().all(|p| p.seeds == vec![1, 2]));
        let [t, alpha] = [&fit.parameters[0], &fit.parameters[1]];
        assert!((t.value - 1e-6).abs() < 1e-12, "{t:?}");
        assert!((alpha.value - 21.008e-6).abs() < 1e-12, "{alpha:?}");
        // One folder, published whole: no temporary folder left beside it.
        assert_eq!(folder.parent().unwrap(), out.path().join("reduce"));
        for file in [
            "report.json",
            "report.csv",
            "report.html",
            "makespan.svg",
            "residuals.svg",
        ] {
            assert!(folder.join(file).is_file(), "{file}");
        }
        let names: Vec<String> = std::fs::read_dir(out.path().join("reduce"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "the run and `latest`: {names:?}");
        let json: String = std::fs::read_to_string(folder.join("report.json")).unwrap();
        assert!(json.contains("\"alpha_s\""), "{json}");
        let csv = std::fs::read_to_string(folder.join("report.csv")).unwrap();
        assert_eq!(csv.lines().count(), 6, "a header and a row per P: {csv}");
    }

    #[test]
    fn equals_the_sequential_sum_in_every_mode() {
        for (mode, most) in multicomputer_examples::MODES {
            let processors: Vec<usize> = [1, 2, 4, 16].into_iter().filter(|&p| p <= most).collect();
            let out = tempfile::tempdir().unwrap();
            let (sweep, _, _) = experiment(mode, &processors, out.path()).unwrap();
            assert_eq!(sweep.points.len(), processors.len(), "{mode:?}");
        }
    }

    #[test]
    fn the_readme_shows_this_experiment() {
        let readme = include_str!("../README.md");
        let source = include_str!("reduce_experiment.rs");
        let start = source.find("    // Rough guesses").unwrap();
        let end = source.find("    Ok((sweep, fit, folder))").unwrap();
        assert!(
            readme.contains(source[start..end].trim_end()),
            "README's \"Write your own program\" must show the experiment as it is here"
        );
    }
}
