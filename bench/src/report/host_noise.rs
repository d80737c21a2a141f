//! Whether other processes disturbed a measurement in real time, and what to do about it
//! (issue 22: every command that times real execution warns when the host was busy, or when
//! its replicates scatter too much to trust the headline figure, as hyperfine does).
//!
//! A run touches the host's clock when it runs natively or dilated, or in virtual time with
//! measured compute charging; a virtual-time run with model charging owes nothing to the host
//! and never gets these warnings (its replicates differ only by the seeds they draw).
//!
//! The thresholds are in [`crate::tuning`].

use multicomputer_runtime::{ComputeCharge, RunSpec};
use multicomputer_workloads::repetitions::{OUTLIER_MODIFIED_Z, Scatter};
use multicomputer_workloads::speedup::OtherLoad;

use crate::tuning::{BUSY_CORES, SCATTER_IQR_OVER_MEDIAN, SCATTER_RELATIVE_SD};

/// Whether a run that ran as `ran` timed anything on the host.
pub(crate) fn times_the_host(ran: &RunSpec) -> bool {
    !ran.time.is_virtual() || ran.charging.charge() == ComputeCharge::Measured
}

/// The warning for `others` of `cores` kept busy by other processes during `what`, if more than
/// [`BUSY_CORES`]; `virtual_hint` adds that virtual time does not depend on the host.
pub(crate) fn busy_host(
    others: Option<f64>,
    cores: usize,
    what: &str,
    virtual_hint: bool,
) -> Option<String> {
    let others = others.filter(|o| *o > BUSY_CORES)?;
    Some(format!(
        "other processes kept {others:.1} of the {cores} cores busy on average during {what}: \
         its times shared the host, so they are longer and noisier than a quiet host's. Rerun \
         on an idle host (stop builds and other jobs){}",
        if virtual_hint {
            ", or run in virtual time (--mode virtual), whose emulated times do not depend on \
             the host"
        } else {
            ""
        }
    ))
}

/// The busy-host warning for a run that ran as `ran`, watched by `watch` since it started;
/// none where the run timed nothing on the host.
pub(crate) fn run_warning(ran: &RunSpec, watch: &OtherLoad) -> Option<String> {
    if !times_the_host(ran) {
        return None;
    }
    busy_host(
        watch.cores_busy(),
        watch.cpus(),
        "the run",
        !ran.time.is_virtual(),
    )
}

/// What makes `s` too scattered to trust its median or mean, each reason in words; empty when
/// the replicates agree (the thresholds of [`crate::tuning`]). As in hyperfine, one outlier
/// is enough: a replicate interrupted by another process is one whatever the number of
/// replicates, while the modified Z-score's bound leaves quiet replicates alone (normal noise:
/// one sample in 30 of five replicates, one in 500 of ten; see the tests).
fn scatter_reasons(s: &Scatter) -> Vec<String> {
    let mut why = Vec::new();
    if let Some(r) = s.relative_sd.filter(|r| *r > SCATTER_RELATIVE_SD) {
        why.push(format!(
            "sd {:.1} % of the mean (over {:.0} %)",
            100.0 * r,
            100.0 * SCATTER_RELATIVE_SD
        ));
    }
    if let Some(r) = s.iqr_over_median.filter(|r| *r > SCATTER_IQR_OVER_MEDIAN) {
        why.push(format!(
            "interquartile range {:.1} % of the median (over {:.0} %)",
            100.0 * r,
            100.0 * SCATTER_IQR_OVER_MEDIAN
        ));
    }
    if s.outliers > 0 {
        why.push(format!(
            "outliers: {} of {} runs more than {OUTLIER_MODIFIED_Z:.1} median absolute \
             deviations from the median",
            s.outliers, s.runs
        ));
    }
    why
}

/// The warning for replicates too scattered to trust, as hyperfine gives it: `figures` are
/// each measured figure's name and scatter, `runs_flag` the flag that asks for more
/// replicates (`--runs`, `--rounds`). `None` when every figure's replicates agree.
pub(crate) fn scatter_warning(figures: &[(&str, Scatter)], runs_flag: &str) -> Option<String> {
    scatter_warning_then(
        figures,
        &format!(
            "take more runs ({runs_flag}) and discard the first ones (--warmup), then compare \
             the medians"
        ),
    )
}

/// [`scatter_warning`] for a command whose replicates are not the user's to choose:
/// `retake` says what to do once the host is quiet.
pub(crate) fn scatter_warning_then(figures: &[(&str, Scatter)], retake: &str) -> Option<String> {
    let scattered: Vec<String> = figures
        .iter()
        .filter_map(|(name, s)| {
            let why = scatter_reasons(s);
            (!why.is_empty()).then(|| format!("{name} over {} runs: {}", s.runs, why.join(", ")))
        })
        .collect();
    if scattered.is_empty() {
        return None;
    }
    Some(format!(
        "the replicates scatter ({}): other processes or the host's speed changed the \
         measurements, so the figure is unreliable. Quiet the host (stop builds and other \
         jobs), {retake}",
        scattered.join("; ")
    ))
}

/// The warning for `calibrate`'s unit costs, fitted over each kernel's repeated timings:
/// `replicates` are each timed input and its times; `None` when every input's agree.
pub(crate) fn calibration_warning(replicates: &[(String, Vec<f64>)]) -> Option<String> {
    let figures: Vec<(&str, Scatter)> = replicates
        .iter()
        .filter_map(|(input, times)| Some((input.as_str(), Scatter::of(times)?)))
        .collect();
    scatter_warning_then(
        &figures,
        "then run `calibrate` again: the work units' costs are fitted over these timings, and \
         model charging in virtual time uses them",
    )
}

/// The scatter warning for the headline figure `name` of a run that ran as `ran`: none where
/// the run timed nothing on the host (its replicates differ by their seeds, not by noise).
pub(crate) fn replicates_warning(
    ran: &RunSpec,
    headline: Option<(&str, Scatter)>,
) -> Option<String> {
    if !times_the_host(ran) {
        return None;
    }
    scatter_warning(&[headline?], "--runs")
}

#[cfg(test)]
mod tests {
    use multicomputer_runtime::{MachineConfig, TimeMode};
    use rand::{RngExt, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;

    fn ran(mode: TimeMode, compute: Option<ComputeCharge>) -> RunSpec {
        MachineConfig {
            mode,
            compute,
            ..MachineConfig::default()
        }
        .resolve(&"chain:2".parse().unwrap())
        .unwrap()
    }

    #[test]
    fn only_runs_that_time_the_host_can_be_disturbed() {
        assert!(times_the_host(&ran(TimeMode::Native, None)));
        assert!(times_the_host(&ran(TimeMode::Dilated(2.0), None)));
        let measured = ran(TimeMode::Virtual, Some(ComputeCharge::Measured));
        assert!(times_the_host(&measured));
        // Virtual time with model charging: never a busy-host warning, however busy.
        let model = ran(TimeMode::Virtual, Some(ComputeCharge::Model));
        assert!(!times_the_host(&model));
        assert_eq!(run_warning(&model, &OtherLoad::start()), None);
    }

    fn scatter(values: &[f64]) -> Scatter {
        Scatter::of(values).unwrap()
    }

    /// Ten tight replicates (within ± 1 %) and the same with two runs interrupted.
    const TIGHT: [f64; 10] = [1.00, 1.01, 0.99, 1.00, 1.01, 0.99, 1.00, 1.00, 1.01, 0.99];
    const INTERRUPTED: [f64; 10] = [1.00, 1.01, 0.99, 1.00, 1.01, 0.99, 1.00, 1.00, 1.9, 2.4];

    #[test]
    fn scattered_replicates_are_warned_about_and_tight_ones_are_not() {
        assert_eq!(
            scatter_warning(&[("makespan_s", scatter(&TIGHT))], "--runs"),
            None
        );
        let w = scatter_warning(&[("makespan_s", scatter(&INTERRUPTED))], "--runs").unwrap();
        assert!(w.contains("makespan_s over 10 runs"), "{w}");
        assert!(
            w.contains("outliers: 2 of 10 runs more than 14.8 median absolute deviations"),
            "{w}"
        );
        assert!(
            w.contains("--runs") && w.contains("--warmup") && w.contains("Quiet"),
            "{w}"
        );
        // A steady drift (the host's speed changing) has no outlier but a wide spread.
        let drift = scatter(&[1.0, 1.1, 1.2, 1.3, 1.4, 1.5]);
        assert_eq!(drift.outliers, 0);
        let w = scatter_warning(&[("t", drift)], "--rounds").unwrap();
        assert!(
            w.contains("interquartile range") && w.contains("--rounds"),
            "{w}"
        );
        // Two runs: only the sd can judge them.
        assert!(scatter_warning(&[("t", scatter(&[1.0, 1.5]))], "--runs").is_some());
        assert_eq!(
            scatter_warning(&[("t", scatter(&[1.0, 1.05]))], "--runs"),
            None
        );
    }

    #[test]
    fn calibration_timings_that_scatter_are_warned_about_by_input() {
        // Ten repetitions (calibrate's) within ± 2 %, one of them 2 % off: quiet.
        let tight = |base: f64| {
            [1.0, 1.01, 0.99, 1.005, 1.0, 0.995, 1.002, 0.998, 1.0, 1.02]
                .map(|r| base * r)
                .to_vec()
        };
        let mut replicates = vec![
            ("primes: 20000 candidates from 1000".to_owned(), tight(2e6)),
            ("Ising sample: 2D L = 32, T = 1.5".to_owned(), tight(5e6)),
        ];
        assert_eq!(calibration_warning(&replicates), None);
        // Two Ising repetitions interrupted, twice and 1.4 times as long: the fit's points
        // from that input are unreliable, and the warning names it.
        replicates[1].1[1] = 10e6;
        replicates[1].1[3] = 7e6;
        let w = calibration_warning(&replicates).unwrap();
        assert!(
            w.contains("Ising sample: 2D L = 32, T = 1.5 over 10 runs"),
            "{w}"
        );
        assert!(!w.contains("primes"), "{w}");
        assert!(w.contains("run `calibrate` again"), "{w}");
        assert!(!w.contains("--runs") && !w.contains("--warmup"), "{w}");
    }

    /// `n` quiet replicates: 1 with normal noise of 1 % sd (Box–Muller), from `rng`.
    fn quiet(n: usize, rng: &mut Xoshiro256PlusPlus) -> Vec<f64> {
        (0..n)
            .map(|_| {
                let u: f64 = 1.0 - rng.random::<f64>();
                let v: f64 = rng.random::<f64>();
                1.0 + 0.01 * (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
            })
            .collect()
    }

    /// The rule on a quiet host (simulated, seeded) warns on at most a stated share of samples
    /// of 5, 7 and 10 replicates: 4 %, 1.5 % and 0.5 % (3.3 %, 1.2 % and 0.2 % in a 2 × 10⁵
    /// sample simulation; Tukey's fences with a 10 % outlier share, the rule before, warned on
    /// 33 %, 25 % and 9 %). With one of the replicates interrupted (3 times as long) it always
    /// warns, naming outliers (the interrupted one, and any quiet one that is far from the
    /// median in the MADs of a sample whose MAD is small by chance).
    #[test]
    fn quiet_replicates_rarely_warn_and_one_interrupted_always_does() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(22);
        let samples = 20_000;
        for (n, most) in [(5, 0.04), (7, 0.015), (10, 0.005)] {
            let mut warned = 0;
            for _ in 0..samples {
                let mut v = quiet(n, &mut rng);
                if !scatter_reasons(&scatter(&v)).is_empty() {
                    warned += 1;
                }
                v[n / 2] *= 3.0;
                let why = scatter_reasons(&scatter(&v));
                assert!(
                    why.iter().any(|r| r.starts_with("outliers: ")),
                    "{n} replicates, one interrupted: {v:?} gave {why:?}"
                );
            }
            let share = f64::from(warned) / f64::from(samples);
            assert!(
                share <= most,
                "{n} quiet replicates warned in {share} of samples"
            );
        }
    }

    #[test]
    fn replicates_in_virtual_time_with_model_charging_are_never_called_noisy() {
        let model = ran(TimeMode::Virtual, Some(ComputeCharge::Model));
        let noisy = Some(("makespan_s", scatter(&INTERRUPTED)));
        assert_eq!(replicates_warning(&model, noisy), None);
        assert!(replicates_warning(&ran(TimeMode::Native, None), noisy).is_some());
        assert!(replicates_warning(&ran(TimeMode::Dilated(2.0), None), noisy).is_some());
        let tight = Some(("makespan_s", scatter(&TIGHT)));
        assert_eq!(
            replicates_warning(&ran(TimeMode::Native, None), tight),
            None
        );
        assert_eq!(replicates_warning(&ran(TimeMode::Native, None), None), None);
    }

    #[test]
    fn a_busy_host_is_warned_about_and_a_quiet_one_is_not() {
        let w = busy_host(Some(1.3), 2, "the run", true).unwrap();
        assert!(w.contains("1.3 of the 2 cores"), "{w}");
        assert!(w.contains("--mode virtual"), "{w}");
        assert!(
            !busy_host(Some(1.3), 2, "calibration", false)
                .unwrap()
                .contains("virtual")
        );
        assert_eq!(busy_host(Some(0.4), 2, "the run", true), None);
        assert_eq!(busy_host(None, 2, "the run", true), None);
    }
}
