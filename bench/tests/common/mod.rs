//! What the command-line tests share: the binary run with a command line as typed (its
//! output folder apart), its JSON read, a refusal checked.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh folder for one test, `<tmp>/mc-<name>-<pid>` (removed first if it is there).
pub(crate) fn folder(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mc-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Runs `multicomputer` with the words of `line`, then `extra` (kept whole: paths), with
/// `--out out`.
pub(crate) fn run_in(out: &Path, line: &str, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_multicomputer"))
        .args(line.split_whitespace())
        .args(extra)
        .arg("--out")
        .arg(out)
        .output()
        .expect("the binary runs")
}

/// What the command printed on stderr.
pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The command's stdout; it must have succeeded.
#[track_caller]
pub(crate) fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}", stderr(o));
    String::from_utf8(o.stdout.clone()).expect("UTF-8 on stdout")
}

/// The one JSON object the command printed; it must have succeeded.
#[track_caller]
pub(crate) fn json(o: &Output) -> serde_json::Value {
    serde_json::from_str(&ok(o)).expect("one JSON object on stdout")
}

/// The command was refused as a usage error (exit 2) whose message holds `needle`, with
/// nothing on stdout.
#[track_caller]
pub(crate) fn refused(o: &Output, needle: &str) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains(needle), "expected '{needle}' in: {e}");
    assert!(o.stdout.is_empty(), "printed to stdout on error");
}
