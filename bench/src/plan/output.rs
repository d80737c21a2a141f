//! Where a run's results go, checked before it runs: `--json`, `--report FILE` (its format
//! from the extension), files named by other flags, and a run's own folder
//! (`<out>/<name>/<run>/`, with a valid `--name`).

use std::path::{Path, PathBuf};

use super::ArgError;
use crate::args::{ReportArgs, TraceArgs};
use crate::files::{
    Target, check_dir_target, check_file_target, distinct, is_stdout, output_target, staging_folder,
};

/// A report's file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// A self-contained HTML page (inline SVG plots, no network).
    Html,
    /// Markdown (plots as embedded images).
    Markdown,
    /// The JSON that `--json` prints.
    Json,
    /// The report's main table as CSV.
    Csv,
}

impl Format {
    /// The format of a file by its extension.
    pub(crate) fn of(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "html" | "htm" => Some(Self::Html),
            "md" | "markdown" => Some(Self::Markdown),
            "json" => Some(Self::Json),
            "csv" => Some(Self::Csv),
            _ => None,
        }
    }
}

/// `--report FILE`, validated.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ReportFile {
    /// Where.
    pub(crate) path: PathBuf,
    /// In which format.
    pub(crate) format: Format,
    /// Whether it is the file this process's stdout writes into (`/dev/stdout`, or where
    /// stdout was sent): the report then replaces the tables there.
    pub(crate) on_stdout: bool,
}

/// How the result is shown and saved.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct OutputPlan {
    /// One JSON object on stdout instead of tables.
    pub(crate) json: bool,
    /// The whole report to a file.
    pub(crate) report: Option<ReportFile>,
}

/// Checks a file a flag names, before the run.
pub(crate) fn output_file(flag: &str, path: &Path) -> Result<PathBuf, ArgError> {
    check_file_target(path).map_err(|e| ArgError::new(format!("{flag} {}", path.display()), e))?;
    Ok(path.to_path_buf())
}

/// Checks a file the user named: its folder must exist (a run creates no folder but its own
/// results folder, `--out`), and the file must be writable there.
pub(crate) fn named_file(flag: &str, path: &Path) -> Result<PathBuf, ArgError> {
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !folder.is_dir() {
        return Err(ArgError::new(
            format!("{flag} {}", path.display()),
            format!(
                "the folder {} does not exist (create it first, or name a file in an existing \
                 folder)",
                folder.display()
            ),
        ));
    }
    output_file(flag, path)
}

/// Checks an optional file the user named.
pub(crate) fn optional_file(flag: &str, path: Option<&Path>) -> Result<Option<PathBuf>, ArgError> {
    path.map(|p| named_file(flag, p)).transpose()
}

impl OutputPlan {
    /// From `--json` and `--report`.
    pub(crate) fn new(args: &ReportArgs) -> Result<Self, ArgError> {
        let report = match &args.report {
            None => None,
            Some(path) => {
                // A device or FIFO (`/dev/stdout`) has no extension: it gets the JSON.
                let into = matches!(output_target(path), Ok(Target::Into(_)));
                let format = Format::of(path)
                    .or(into.then_some(Format::Json))
                    .ok_or_else(|| {
                        ArgError::new(
                            format!("--report {}", path.display()),
                            "the file's extension gives its format: .html, .md, .json or .csv",
                        )
                    })?;
                Some(ReportFile {
                    path: named_file("--report", path)?,
                    format,
                    on_stdout: is_stdout(path),
                })
            }
        };
        Ok(Self {
            json: args.json,
            report,
        })
    }

    /// Whether the tables (or `--json`'s object) go to stdout: not when the report file is
    /// stdout itself, which the report alone then fills.
    pub(crate) fn tables_on_stdout(&self) -> bool {
        !self.report.as_ref().is_some_and(|r| r.on_stdout)
    }

    /// Whether the report file shows plots (HTML or Markdown).
    pub(crate) fn shows_plots(&self) -> bool {
        self.report
            .as_ref()
            .is_some_and(|r| matches!(r.format, Format::Html | Format::Markdown))
    }
}

/// Refuses two outputs of one run naming one file (`--trace x.json --report x.json`): the
/// rule is [`distinct`]'s; this lists a run's outputs: its trace files, its report and `more`.
pub(crate) fn distinct_outputs(
    trace: Option<&TracePlan>,
    output: &OutputPlan,
    more: &[(&str, &Path)],
) -> Result<(), ArgError> {
    let mut all: Vec<(&str, &Path)> = Vec::new();
    if let Some(t) = trace {
        all.extend(t.trace.as_deref().map(|p| ("--trace", p)));
        all.extend(t.timeline.as_deref().map(|p| ("--timeline", p)));
    }
    all.extend(more.iter().copied());
    all.extend(
        output
            .report
            .as_ref()
            .map(|r| ("--report", r.path.as_path())),
    );
    distinct(&all).map_err(|(flags, why)| ArgError::new(flags, why))
}

/// A run's own folder in the results folder: `<out>/<name>/<run>/`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RunFolderPlan {
    /// The results folder.
    pub(crate) out: PathBuf,
    /// The name of this kind of run.
    pub(crate) name: String,
}

/// Checks `--name`: a plain, visible file name.
pub(crate) fn run_name(name: &str) -> Result<String, ArgError> {
    let bad = |why: &str| ArgError::new("--name", format!("'{name}' {why}"));
    if name.is_empty() {
        return Err(ArgError::new("--name", "must not be empty"));
    }
    if name.starts_with('.') {
        return Err(bad("starts with a dot (it would be hidden)"));
    }
    if name.len() > 100 {
        return Err(bad("is longer than 100 characters"));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err(bad("may only hold letters, digits, '-', '_' and '.'"));
    }
    Ok(name.to_string())
}

impl RunFolderPlan {
    /// `<out>/<name>`, with `name` checked and `out` writable.
    pub(crate) fn new(out: &Path, name: &str) -> Result<Self, ArgError> {
        let name = run_name(name)?;
        check_dir_target(&out.join(&name))
            .map_err(|e| ArgError::new(format!("--out {}", out.display()), e))?;
        Ok(Self {
            out: out.to_path_buf(),
            name,
        })
    }
}

/// `--trace FILE` and `--timeline FILE`, checked.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct TracePlan {
    /// Chrome trace-event JSON.
    pub(crate) trace: Option<PathBuf>,
    /// An SVG timeline.
    pub(crate) timeline: Option<PathBuf>,
}

impl TracePlan {
    /// From `--trace` and `--timeline`.
    pub(crate) fn new(a: &TraceArgs) -> Result<Self, ArgError> {
        Ok(Self {
            trace: optional_file("--trace", a.trace.as_deref())?,
            timeline: optional_file("--timeline", a.timeline.as_deref())?,
        })
    }

    /// Whether the machine must record a trace.
    pub(crate) fn wanted(&self) -> bool {
        self.trace.is_some() || self.timeline.is_some()
    }

    /// Where the run spills its trace while it runs: beside the trace file (or else the
    /// timeline), on the file system it is written to; `None` (the system's temporary
    /// folder) when that is written into a device, FIFO or socket.
    pub(crate) fn spill_folder(&self) -> Option<PathBuf> {
        self.trace
            .as_deref()
            .or(self.timeline.as_deref())
            .and_then(staging_folder)
    }
}

/// The most trace records (intervals and messages) a report page draws as its processor
/// timeline, one SVG element each (about 2 MiB of SVG); a longer trace is left to
/// `--timeline FILE`, and the page says so.
pub(crate) const MOST_TIMELINE_RECORDS_IN_REPORT: usize = 20_000;

/// Whether a run that records no trace for its files should record one for its report's
/// timeline: when the report shows plots and the trace, about `records` records, fits in
/// the page ([`MOST_TIMELINE_RECORDS_IN_REPORT`]).
pub(crate) fn trace_for_report(output: &OutputPlan, records: f64) -> bool {
    output.shows_plots() && records <= MOST_TIMELINE_RECORDS_IN_REPORT as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_must_be_plain_and_visible() {
        assert_eq!(run_name("sweep-farm_2.v1").unwrap(), "sweep-farm_2.v1");
        for (name, needle) in [
            ("", "must not be empty"),
            (".x", "dot"),
            ("a/b", "letters"),
            ("a b", "letters"),
        ] {
            let e = run_name(name).unwrap_err();
            assert_eq!(e.flag, "--name");
            assert!(e.message.contains(needle), "{name}: {e}");
        }
    }

    #[test]
    fn report_formats_follow_the_extension() {
        let dir = tempfile::tempdir().unwrap();
        let args = |f: &str| ReportArgs {
            json: false,
            report: Some(dir.path().join(f)),
        };
        assert_eq!(
            OutputPlan::new(&args("r.HTML"))
                .unwrap()
                .report
                .unwrap()
                .format,
            Format::Html
        );
        assert_eq!(
            OutputPlan::new(&args("r.md"))
                .unwrap()
                .report
                .unwrap()
                .format,
            Format::Markdown
        );
        let e = OutputPlan::new(&args("r.pdf")).unwrap_err();
        assert!(
            e.flag.starts_with("--report") && e.message.contains(".html"),
            "{e}"
        );
        let e = OutputPlan::new(&ReportArgs {
            json: false,
            report: Some(dir.path().to_path_buf()),
        })
        .unwrap_err();
        assert!(e.flag.starts_with("--report"), "{e}");
    }
}
