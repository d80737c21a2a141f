//! `multicomputer`: run, predict, sweep, fit and report on an emulated multicomputer.

mod cli;
mod commands;
mod config;
mod output;
mod plot;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command, PredictCommand};

/// Bad input found after parsing: reported with the argument it concerns, exit code 2.
#[derive(Debug)]
pub(crate) struct UsageError(pub(crate) String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

fn run(cli: &Cli) -> anyhow::Result<()> {
    match &cli.command {
        None | Some(Command::Tour) => commands::tour::run(&cli.out),
        Some(Command::Calibrate(a)) => commands::calibrate::run(a, &cli.out),
        Some(Command::Emulate(a)) => commands::emulate::run(a, &cli.out),
        Some(Command::Pingpong(a)) => commands::pingpong::run(a),
        Some(Command::Farm(a)) => commands::farm::run(a, &cli.out),
        Some(Command::Predict(PredictCommand::Farm(a))) => commands::farm::predict(a, &cli.out),
        Some(Command::Dnc(a)) => commands::dnc::run(a, &cli.out),
        Some(Command::Predict(PredictCommand::Dnc(a))) => commands::dnc::predict(a),
        Some(Command::Ocl(a)) => commands::ocl::run(a, &cli.out),
        Some(Command::Sweep(c)) => commands::sweep::run(c, &cli.out),
        Some(Command::Fit(c)) => commands::fit::run(c, &cli.out),
        Some(Command::Ising(a)) => commands::ising::run(a, &cli.out),
        Some(Command::Scaling(a)) => commands::scaling::run(a, &cli.out),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.downcast_ref::<UsageError>().is_some() => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
