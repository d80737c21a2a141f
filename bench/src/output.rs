//! Writing results: the results folder (atomic writes), JSON on stdout, tables for people.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use comfy_table::{Table, presets::UTF8_FULL_CONDENSED};
use serde::Serialize;

/// Writes `bytes` to `path` atomically: a temporary file in the same folder, then a rename, so
/// a reader never sees half a file and an interrupted run leaves no partial result.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("creating folder {}", dir.display()))?;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("renaming into {}", path.display()))?;
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

/// How a run kept time, for people: the mode, D and wait strategy (threads), and how real
/// work was charged.
pub(crate) fn mode_line(report: &multicomputer_runtime::RunReport) -> String {
    let f = &report.fidelity;
    let time = match (f.dilation, f.strategy) {
        (Some(d), Some(s)) => format!(
            "{} (D = {d}, {} waits)",
            report.mode,
            serde_json::to_value(s)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        ),
        _ => format!("{} (exact event order)", report.mode),
    };
    format!("{time}; compute charged by {}", report.work.charge.name())
}

/// How a machine keeps time, for people: `virtual (exact event order), compute: model` or
/// `dilated (D = 12), compute: measured`.
pub(crate) fn machine_line(machine: &multicomputer_runtime::Machine) -> String {
    let time = match machine.dilation() {
        Some(d) => format!("{} (D = {d})", machine.mode()),
        None => format!("{} (exact event order)", machine.mode()),
    };
    format!("{time}, compute: {}", machine.compute_charge().name())
}

/// `<out>/<name>`.
pub(crate) fn in_out(out: &Path, name: &str) -> PathBuf {
    out.join(name)
}

/// A duration in ns, printed with a unit a person reads at a glance.
pub(crate) fn human_ns(ns: f64) -> String {
    let a = ns.abs();
    if !ns.is_finite() {
        "n/a".into()
    } else if a >= 1e9 {
        format!("{:.3} s", ns / 1e9)
    } else if a >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if a >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.1} ns")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_leaves_only_the_final_file() {
        let dir = std::env::temp_dir().join(format!("mc-out-{}", std::process::id()));
        let path = dir.join("sub").join("x.json");
        write_json(&path, &serde_json::json!({"a": 1})).unwrap();
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, vec!["x.json".to_string()]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn human_units() {
        assert_eq!(human_ns(450.0), "450.0 ns");
        assert_eq!(human_ns(12_340.0), "12.34 µs");
        assert_eq!(human_ns(1.5e9), "1.500 s");
    }
}
