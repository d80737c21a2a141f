use std::sync::Mutex;
use std::time::Duration;

use multicomputer_runtime::{
    LinkCost, Machine, MachineConfig, RunReport, TimeMode, Topology, TopologyError,
};

use super::*;

/// Virtual time, messages of 20 µs start-up and 1 µs latency: one message costs α = 21 µs.
fn config() -> MachineConfig {
    MachineConfig {
        mode: TimeMode::Virtual,
        link: LinkCost {
            send_overhead: Duration::from_micros(20),
            latency: Duration::from_micros(1),
            ..LinkCost::default()
        },
        ..MachineConfig::default()
    }
}

/// Every processor occupies `work_us / P` µs, then all but 0 send it one message on a
/// hypercube, in the order of a binomial tree: `T = work/P + log₂ P · α`. Returns each
/// processor's count of the processors whose messages reached it, itself included.
fn binomial(machine: &Machine, work_us: u64) -> Result<RunReport, ProgramError> {
    let record = machine.run(|p| {
        let n = p.processors();
        p.occupy(Duration::from_micros(work_us / n as u64));
        let mut count = 1u64;
        let mut bit = 1;
        while bit < n {
            let peer = p.id() ^ bit;
            let link = p.link_to(peer).expect("a hypercube");
            if p.id() & bit != 0 {
                p.send(link, count)?;
                return Ok(count);
            }
            count += p.recv(link)?;
            bit <<= 1;
        }
        Ok(count)
    })?;
    if record.results[0] != machine.topology().len() as u64 {
        return Err("processor 0 did not hear from every processor".into());
    }
    Ok(record.report)
}

fn model<'a>(t: f64, alpha: f64) -> Model<'a> {
    Model::new(&[("work_s", t), ("alpha_s", alpha)], |machine, theta| {
        let p = machine.topology().len() as f64;
        theta[0] / p + p.log2() * theta[1]
    })
    .unwrap()
}

fn hypercube(p: usize) -> Result<Topology, TopologyError> {
    Topology::hypercube(p.trailing_zeros())
}

#[test]
fn a_fit_from_wrong_values_recovers_the_machines_parameters() {
    let e = Experiment::new(
        "binomial",
        hypercube,
        config(),
        |m, _| binomial(m, 4096),
        model(1e-3, 50e-6),
    );
    let sweep = e.sweep([1, 2, 4, 8, 16]).unwrap();
    // With the given (wrong) values the model is off; fitted, it is exact.
    assert!(sweep.points[4].error_pct.abs() > 10.0);
    let fit = e.fit(&sweep).unwrap();
    assert_eq!(fit.observations, 5);
    let [work, alpha] = [&fit.parameters[0], &fit.parameters[1]];
    assert!((work.value - 4096e-6).abs() < 1e-12, "{work:?}");
    assert!((alpha.value - 21e-6).abs() < 1e-12, "{alpha:?}");
    assert!((alpha.change_pct - 100.0 * (21.0 - 50.0) / 50.0).abs() < 1e-6);
    assert!(fit.max_relative_residual < 1e-9);
    for (p, f) in sweep.points.iter().zip(&fit.fitted_s) {
        assert!((p.measured.mean - f).abs() < 1e-12, "P = {}", p.processors);
    }
    // Given the machine's own values, the model equals every measurement to the nanosecond.
    let exact = Experiment::new(
        "binomial",
        hypercube,
        config(),
        |m, _| binomial(m, 4096),
        model(4096e-6, 21e-6),
    );
    for p in exact.sweep([1, 4, 32]).unwrap().points {
        assert!((p.measured.mean - p.predicted_s).abs() < 1e-12, "{p:?}");
    }
}

#[test]
fn warm_up_runs_are_discarded_and_run_k_draws_from_seed_plus_k() {
    let seen = Mutex::new(Vec::new());
    let e = Experiment::new(
        "seeds",
        hypercube,
        config(),
        |m, seed| {
            seen.lock().unwrap().push(seed);
            binomial(m, 64 * (1 + seed))
        },
        model(1e-3, 21e-6),
    )
    .runs(3)
    .warmup(2)
    .seed(10);
    let point = e.point(2).unwrap();
    assert_eq!(*seen.lock().unwrap(), vec![10, 10, 10, 11, 12]);
    assert_eq!(point.seeds, vec![10, 11, 12]);
    // Each measured run's own work: 64 (1 + seed) µs over 2 processors, plus one message.
    let want: Vec<f64> = [10.0, 11.0, 12.0]
        .iter()
        .map(|s| 64e-6 * (1.0 + s) / 2.0 + 21e-6)
        .collect();
    for (m, w) in point.makespans_s.iter().zip(&want) {
        assert!((m - w).abs() < 1e-12, "{m} against {w}");
    }
    assert_eq!(point.measured.runs, 3);
    assert_eq!(point.reports.len(), 3);
}

#[test]
fn failures_name_the_processor_count_and_the_seed() {
    let failing = Experiment::new(
        "fails",
        hypercube,
        config(),
        |_, _| Err("result differs from the reference".into()),
        model(1e-3, 21e-6),
    )
    .seed(7);
    let e = failing.point(4).unwrap_err();
    assert!(matches!(
        e,
        ExperimentError::Program {
            processors: 4,
            seed: 7,
            ..
        }
    ));
    assert!(e.to_string().contains("differs"), "{e}");
    let ring = Experiment::new(
        "ring",
        Topology::ring,
        config(),
        |m, _| binomial(m, 1),
        model(1e-3, 21e-6),
    );
    assert!(matches!(
        ring.point(0),
        Err(ExperimentError::Topology { processors: 0, .. })
    ));
    assert!(matches!(ring.sweep([]), Err(ExperimentError::EmptySweep)));
    let none = Experiment::new(
        "none",
        hypercube,
        config(),
        |m, _| binomial(m, 1),
        model(1.0, 1.0),
    )
    .runs(0);
    assert!(matches!(none.point(1), Err(ExperimentError::NoRuns)));
    let negative = Experiment::new(
        "negative",
        hypercube,
        config(),
        |m, _| binomial(m, 1),
        Model::new(&[("a", 1.0)], |_, theta| -theta[0]).unwrap(),
    );
    assert!(matches!(
        negative.point(1),
        Err(ExperimentError::Prediction { processors: 1, .. })
    ));
    for bad in [&[("a", 1.0), ("a", 2.0)][..], &[("", 1.0)][..]] {
        assert!(matches!(
            Model::new(bad, |_, _| 1.0),
            Err(ExperimentError::ParameterName(_))
        ));
    }
    assert!(matches!(
        Model::new(&[("a", f64::NAN)], |_, _| 1.0),
        Err(ExperimentError::ParameterValue { .. })
    ));
}
