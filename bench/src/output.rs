//! The output helpers `commands/scaling.rs` imports, on the new layers (see
//! [`crate::commands`]); they go when it migrates to a report.

use std::path::{Path, PathBuf};

use anyhow::Result;
use comfy_table::{Table, presets::UTF8_FULL_CONDENSED};
use serde::Serialize;

pub(crate) use crate::units::human_ns;

/// Writes `bytes` to `path` atomically (a temporary file in its folder, then a rename).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    crate::files::write_file(path, bytes)?;
    Ok(())
}

/// Writes a value as pretty JSON, atomically.
pub(crate) fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    write_atomic(path, &serde_json::to_vec_pretty(value)?)
}

/// Prints one JSON object on stdout (the `--json` contract).
pub(crate) fn print_json<T: Serialize>(value: &T) -> Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

/// A table with the project's look.
pub(crate) fn table(header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    t.set_header(header.iter().copied());
    t
}

/// `<out>/<name>`.
pub(crate) fn in_out(out: &Path, name: &str) -> PathBuf {
    out.join(name)
}
