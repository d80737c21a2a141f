//! The command line: clap's definition of the commands, their dispatch, and how a signal
//! stops a run.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::{args, exec, files, launch, plan, run};

/// Emulate a message-passing multicomputer (a transputer-style network) on this machine's
/// threads, run parallel programs on it and compare them with analytic performance models.
///
/// With no command, runs a short tour: calibrates this host, emulates a few machines, and
/// writes its results to the results folder.
#[derive(Debug, Parser)]
#[command(name = "multicomputer", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// Folder for result files (profiles, run folders with CSV, JSON, SVG, HTML); a run's
    /// files are published together at its end.
    #[arg(long, global = true, default_value = "results", value_name = "DIR")]
    out: PathBuf,
}

// Doc comments here are `--help` text too (see `mod args`).
#[allow(rustdoc::broken_intra_doc_links)]
#[derive(Debug, Subcommand)]
enum Command {
    /// Measure this host's own costs (message, wake-up, occupy error, clock) and save them as a
    /// machine profile that `auto` mode and the models use.
    Calibrate(args::CalibrateArgs),
    /// Run a synthetic program on an emulated machine: every processor occupies itself for a
    /// set time each round, optionally reducing to the root between rounds. Shows emulated
    /// against wall time, the dilation factor and the run's fidelity.
    Emulate(Box<args::EmulateArgs>),
    /// Run a collective operation (broadcast, reduce, all-reduce, scatter, gather,
    /// all-gather, reduce-scatter, all-to-all, barrier) by one of the literature's algorithms
    /// on any network, check it against the sequential reference, and print its time beside
    /// its α–β–γ model.
    Collective(Box<args::CollectiveArgs>),
    /// Compare the runtime's per-message cost with a bare crossbeam ping-pong, in one run.
    Pingpong(args::PingpongArgs),
    /// Run a processor farm on the tree task engine and print measured beside predicted
    /// (throughput, speedup, makespan, per-level task fractions f_i).
    Farm(Box<args::FarmArgs>),
    /// Run divide and conquer on a k-ary tree (synthetic T_s, T_e, T_j per level, or real
    /// mergesort), or synthetic tasks on the breadth-first spanning tree of any network from
    /// --root, and print measured beside predicted.
    Dnc(Box<args::DncArgs>),
    /// Run the OCL (Occurrence Count Last) systolic array of the grain-size paper — fine
    /// grained, [M,1], [K,K] or [M,K] — one process per emulated processor, and print measured
    /// beside predicted time; the output is checked against the sequential reference.
    Ocl(Box<args::OclArgs>),
    /// Print a model's prediction alone (no run).
    #[command(subcommand)]
    Predict(PredictCommand),
    /// Run a grid of configurations with progress; publish CSV, JSON, SVG plots and an HTML
    /// report in a folder of its own.
    #[command(subcommand)]
    Sweep(args::SweepCommand),
    /// Fit a model's cost parameters to measurements (a sweep's CSV or your own table).
    #[command(subcommand)]
    Fit(args::FitCommand),
    /// Run the scalability paper's ising program (Metropolis Monte Carlo, samples over
    /// processors) once, under the centralized or the tree control mechanism.
    Ising(Box<args::IsingArgs>),
    /// The scalability paper's method: ising over P × loop_counts, fit a + b·log P per
    /// loop_count, test the candidate's consistency; or the same analysis on your own table
    /// (--csv).
    Scaling(Box<args::ScalingArgs>),
    /// Real speedup of a real kernel natively on 1…P cores, beside rayon, scoped threads and
    /// the kernel's model; optionally efficiency against grain.
    Speedup(Box<args::SpeedupArgs>),
    /// The default tour (what running with no command does).
    Tour(args::TourArgs),
}

/// What `predict` predicts.
#[derive(Debug, Subcommand)]
enum PredictCommand {
    /// The processor-farm model (steady state, start-up, speedup, f_i, drain, peak).
    Farm(Box<args::PredictFarmArgs>),
    /// The divide-and-conquer model (recurrence (j), S_max (k), start-up, speedup).
    Dnc(Box<args::PredictDncArgs>),
}

fn dispatch(cli: &Cli) -> anyhow::Result<()> {
    let out = &cli.out;
    match &cli.command {
        None => run::tour::run(&args::TourArgs::default(), out),
        Some(Command::Tour(a)) => run::tour::run(a, out),
        Some(Command::Calibrate(a)) => run::calibrate::run(a, out),
        Some(Command::Emulate(a)) => run::emulate::run(a, out),
        Some(Command::Collective(a)) => run::collective::run(a, out),
        Some(Command::Pingpong(a)) => run::pingpong::run(a),
        Some(Command::Farm(a)) => run::farm::run(a, out),
        Some(Command::Predict(PredictCommand::Farm(a))) => run::predict_farm::run(a, out),
        Some(Command::Dnc(a)) => run::dnc::run(a, out),
        Some(Command::Predict(PredictCommand::Dnc(a))) => run::predict_dnc::run(a),
        Some(Command::Ocl(a)) => run::ocl::run(a, out),
        Some(Command::Sweep(args::SweepCommand::Farm(a))) => run::sweep_farm::run(a, out),
        Some(Command::Sweep(args::SweepCommand::Dnc(a))) => run::sweep_dnc::run(a, out),
        Some(Command::Sweep(args::SweepCommand::Ocl(a))) => run::sweep_ocl::run(a, out),
        Some(Command::Sweep(args::SweepCommand::Collective(a))) => {
            run::sweep_collective::run(a, out)
        }
        Some(Command::Fit(args::FitCommand::Farm(a))) => run::fit_farm::run(a, out),
        Some(Command::Fit(args::FitCommand::Ocl(a))) => run::fit_ocl::run(a),
        Some(Command::Ising(a)) => run::ising::run(a, out),
        Some(Command::Scaling(a)) => run::scaling::run(a, out),
        Some(Command::Speedup(a)) => run::speedup::run(a, out),
    }
}

/// How long a signal that comes after the run's first file was published lets the run finish
/// publishing the rest of its set.
const FINISH_PUBLISHING: std::time::Duration = std::time::Duration::from_secs(1);

/// A signal's name.
fn signal_name(signal: i32) -> String {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    match signal {
        SIGINT => "SIGINT".into(),
        SIGTERM => "SIGTERM".into(),
        SIGHUP => "SIGHUP".into(),
        n => format!("signal {n}"),
    }
}

/// What a signal stopped, for the user: what was completed, and the state of the files.
fn stopped_text(signal: i32, completed: Option<String>, s: &files::Stopped) -> String {
    let mut text = format!("stopped by {}", signal_name(signal));
    if let Some(c) = completed {
        text.push_str(&format!(" ({c})"));
    }
    if s.published.is_empty() {
        text.push_str(": nothing of this run was published; the results are as they were");
    } else {
        let paths: Vec<String> = s
            .published
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        text.push_str(&format!(
            ": published before the signal, each whole: {}",
            paths.join(", ")
        ));
    }
    if s.removed > 0 {
        text.push_str(&format!(" ({} temporary file(s) removed)", s.removed));
    }
    text
}

/// Stops the process on SIGINT, SIGTERM or SIGHUP within a second: a publication in
/// progress finishes (a run whose files are being published gets up to
/// [`FINISH_PUBLISHING`] to publish the rest of its set), every temporary file is removed,
/// what was completed is said on stderr, and the process exits with 128 + the signal.
fn stop_on_signals() {
    use std::io::Write;

    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    // In the handler itself, before the thread below is scheduled: every waiting processor
    // stops spinning, so that thread gets a core at once however many processors spin.
    for signal in [SIGINT, SIGTERM, SIGHUP] {
        // SAFETY: the action is one atomic store, which is async-signal-safe.
        let _ =
            unsafe { signal_hook::low_level::register(signal, multicomputer_runtime::halt_waits) };
    }
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            if files::published_any() {
                std::thread::sleep(FINISH_PUBLISHING);
            }
            let stopped = files::on_signal();
            // Not `eprintln!`: it panics when stderr is a closed pipe (`… 2>&1 | head -1`),
            // and this thread's panic would leave the run going with the signal taken.
            let _ = writeln!(
                std::io::stderr(),
                "\n{}",
                stopped_text(signal, exec::completed(), &stopped)
            );
            std::process::exit(128 + signal);
        }
    });
}

/// The command line with every command taking `-1` as a value (for its flag to refuse,
/// naming itself) rather than as an unknown flag.
fn command_line() -> clap::Command {
    fn negatives(mut cmd: clap::Command) -> clap::Command {
        let names: Vec<String> = cmd
            .get_subcommands()
            .map(|s| s.get_name().to_string())
            .collect();
        for n in names {
            cmd = cmd.mut_subcommand(n, negatives);
        }
        cmd.allow_negative_numbers(true)
    }
    negatives(<Cli as clap::CommandFactory>::command())
}

/// Clap's refusal of a negative value for an unsigned flag ("invalid digit found in string")
/// said instead as what it is: the value must be non-negative. Any other error is kept.
fn negative_refused(e: clap::Error, cmd: &mut clap::Command) -> clap::Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let text = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        _ => None,
    };
    let unsigned = std::error::Error::source(&e)
        .and_then(|s| s.downcast_ref::<std::num::ParseIntError>())
        .is_some_and(|p| *p.kind() == std::num::IntErrorKind::InvalidDigit);
    match (
        text(ContextKind::InvalidArg),
        text(ContextKind::InvalidValue),
    ) {
        (Some(arg), Some(value))
            if e.kind() == ErrorKind::ValueValidation && unsigned && value.starts_with('-') =>
        {
            cmd.error(
                ErrorKind::ValueValidation,
                format!("invalid value '{value}' for '{arg}': the value must be non-negative"),
            )
        }
        _ => e,
    }
}

/// The `multicomputer` command line, as its binary runs it: parses the arguments, runs the
/// command, and returns the exit code (2 for bad input, naming the flag).
pub fn main() -> ExitCode {
    // First: a binary without MPI started as one of several ranks stops here.
    let launch = match launch::Launch::start() {
        Ok(launch) => launch,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut cmd = command_line();
    let matches = cmd
        .try_get_matches_from_mut(std::env::args_os())
        .unwrap_or_else(|e| negative_refused(e, &mut cmd).exit());
    let cli =
        <Cli as clap::FromArgMatches>::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    stop_on_signals();
    let ended = dispatch(&cli);
    if let Some(code) = ended.as_ref().err().and_then(|e| launch.ended(e)) {
        return code;
    }
    match ended {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.downcast_ref::<plan::ArgError>().is_some() => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_says_what_was_completed_and_what_was_published() {
        let nothing = files::Stopped {
            removed: 2,
            published: Vec::new(),
        };
        assert_eq!(
            stopped_text(
                15,
                Some("sweep farm: 3 of 10 cells completed".into()),
                &nothing
            ),
            "stopped by SIGTERM (sweep farm: 3 of 10 cells completed): nothing of this run was \
             published; the results are as they were (2 temporary file(s) removed)"
        );
        let some = files::Stopped {
            removed: 0,
            published: vec![PathBuf::from("results/sweep-farm/run")],
        };
        assert_eq!(
            stopped_text(2, None, &some),
            "stopped by SIGINT: published before the signal, each whole: results/sweep-farm/run"
        );
    }

    #[test]
    fn a_negative_count_is_refused_as_negative_naming_its_flag() {
        let mut cmd = command_line();
        for line in [
            "multicomputer farm --tasks -1",
            "multicomputer farm --seed -3",
        ] {
            let e = cmd
                .try_get_matches_from_mut(line.split(' '))
                .expect_err("a negative count");
            let text = negative_refused(e, &mut cmd).to_string();
            let flag = line.split(' ').nth(2).unwrap();
            assert!(text.contains(flag), "{text}");
            assert!(text.contains("must be non-negative"), "{text}");
            assert!(!text.contains("invalid digit"), "{text}");
        }
        // Another bad number keeps clap's own words.
        let e = cmd
            .try_get_matches_from_mut(["multicomputer", "farm", "--tasks", "ten"])
            .expect_err("not a number");
        assert!(
            negative_refused(e, &mut cmd)
                .to_string()
                .contains("invalid digit")
        );
    }

    #[test]
    fn the_command_line_definition_is_consistent() {
        command_line().debug_assert();
    }

    #[test]
    fn a_negative_value_is_refused_by_its_flag() {
        for (args, flag) in [
            (&["farm", "--tasks", "-1"][..], "--tasks"),
            (&["ising", "--seed", "-1"][..], "--seed"),
            (&["emulate", "--dilation", "-1"][..], "--dilation"),
            (&["sweep", "farm", "--runs", "-1"][..], "--runs"),
        ] {
            let argv = std::iter::once("multicomputer").chain(args.iter().copied());
            match command_line().try_get_matches_from(argv) {
                Ok(m) => {
                    // Parsed: the plan refuses it (a float flag), naming the flag.
                    assert!(flag == "--dilation", "{args:?} parsed: {m:?}");
                }
                Err(e) => {
                    let text = e.to_string();
                    assert!(text.contains(flag), "{args:?}: {text}");
                    assert!(!text.contains("unexpected argument"), "{args:?}: {text}");
                }
            }
        }
    }
}
