//! `multicomputer`: the command line of the `multicomputer` library (see its crate docs).

fn main() -> std::process::ExitCode {
    multicomputer::cli::main()
}
