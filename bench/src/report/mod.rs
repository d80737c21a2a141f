//! Typed reports with their metadata, and one exporter per format.
//!
//! Every command's result is a [`Report`]: its [`Meta`] (tool, version, command line, every
//! input, seed, host and profile, date, time mode, fidelity) and a typed body ([`Body`]),
//! whose numbers all come from the workloads. A body renders itself as a [`Document`]
//! (sections of text, tables, plots); the exporters render that: [`text`] for the terminal,
//! [`markdown`], [`html`] (a self-contained page), [`csv`]; JSON is the report serialised.
//!
//! ```text
//! Report { meta, body } ──serde──▶ JSON (--json, report.json)
//!        └─ document() ──▶ text (stdout) · Markdown · HTML (--report) · CSV
//! ```

mod bodies;
pub(crate) mod csv;
mod document;
mod host_noise;
pub(crate) mod html;
pub(crate) mod markdown;
mod meta;
#[cfg(test)]
mod plot_tests;
mod runs;
#[cfg(test)]
mod tests;
pub(crate) mod text;
mod trace;

use std::path::PathBuf;

use anyhow::Result;
use serde::Serialize;

pub(crate) use bodies::{AlternativeFit, Analysis, LoopCountRow, ScalingReport};
pub(crate) use bodies::{
    CalibrateReport, CellInputs, CollectiveReport, EmulateReport, FarmReport, FitFarmReport,
    FitOclReport, IsingReport, OclReport, PingpongReport, PredictDncReport, PredictFarmReport,
    ProgramReport, SpeedupReport, SweepOclReport, SweepOclRow, TourReport, sweep_collective_report,
    sweep_report,
};
pub(crate) use document::{Block, Document, Figure, Section, Table};
pub(crate) use meta::{Meta, ProfileUse, cut_links_text};
pub(crate) use runs::Repetitions;
pub(crate) use trace::{Traced, last, stage_trace, worst};

use crate::files::{Publication, RunFolder};
use crate::plan::{Format, OutputPlan, RunFolderPlan, TracePlan};

/// What a command reports, besides the metadata.
pub(crate) trait Body: Serialize {
    /// The report's title.
    fn title(&self) -> String;

    /// The results, for people: what the terminal shows.
    fn results(&self) -> Vec<Section>;

    /// The plots (report files and run folders only).
    fn figures(&self) -> Result<Vec<Figure>> {
        Ok(Vec::new())
    }

    /// Whether a page shows the plots before the results (a sweep's table of cells is long).
    fn plots_first(&self) -> bool {
        false
    }

    /// The rows of a CSV export, if the report is a table of cells; else every value of the
    /// body's JSON form is exported as `field,value` ([`csv::fields`]).
    fn csv(&self) -> Result<Option<Vec<u8>>> {
        Ok(None)
    }
}

/// A command's report: metadata and body, serialised side by side (the body's keys at the
/// top level, beside `meta`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Report<B> {
    /// The run's metadata.
    pub(crate) meta: Meta,
    /// The results.
    #[serde(flatten)]
    pub(crate) body: B,
    /// Plots of the run's trace, after the body's: its processor timeline, or a note saying
    /// why the page leaves it out.
    #[serde(skip)]
    pub(crate) trace_plots: Vec<Block>,
}

/// Files a run folder holds besides its plots and report, by name (tables).
pub(crate) type FolderFiles = Vec<(String, Vec<u8>)>;

impl<B: Body> Report<B> {
    /// A report of `body` with `meta`.
    pub(crate) fn new(meta: Meta, body: B) -> Self {
        Self {
            meta,
            body,
            trace_plots: Vec::new(),
        }
    }

    /// The plots: the body's figures, then the trace's.
    fn plots(&self) -> Result<Vec<Block>> {
        let mut plots: Vec<Block> = self
            .body
            .figures()?
            .into_iter()
            .map(Block::Figure)
            .collect();
        plots.extend(self.trace_plots.iter().cloned());
        Ok(plots)
    }

    /// The whole report as a document: results, plots, inputs, host and time.
    pub(crate) fn document(&self) -> Result<Document> {
        let mut sections = self.body.results();
        let plots = self.plots()?;
        if !plots.is_empty() {
            let plots = Section::details("Plots", plots);
            if self.body.plots_first() {
                sections.insert(0, plots);
            } else {
                sections.push(plots);
            }
        }
        sections.extend(self.meta.sections());
        Ok(Document {
            title: self.body.title(),
            sections,
        })
    }

    /// The report in `format`.
    pub(crate) fn export(&self, format: Format) -> Result<Vec<u8>> {
        Ok(match format {
            Format::Json => serde_json::to_vec_pretty(self)?,
            Format::Html => html::render(&self.document()?, &self.meta.subtitle()).into_bytes(),
            Format::Markdown => markdown::render(&self.document()?).into_bytes(),
            Format::Csv => match self.body.csv()? {
                Some(bytes) => bytes,
                None => csv::fields(&serde_json::to_value(&self.body)?)?,
            },
        })
    }

    /// Stages `--report FILE` in `publication` and records it among the files.
    pub(crate) fn stage(
        &mut self,
        output: &OutputPlan,
        publication: &mut Publication,
    ) -> Result<()> {
        if let Some(r) = &output.report {
            self.meta.files.push(r.path.display().to_string());
            let bytes = self.export(r.format)?;
            publication.stage(&r.path, &bytes)?;
        }
        Ok(())
    }

    /// Shows the report: one JSON object on stdout (`--json`), else the result tables, unless
    /// the report file went to stdout; the warnings on stderr either way.
    pub(crate) fn show(&self, output: &OutputPlan) -> Result<()> {
        let doc = self.document()?;
        if !output.tables_on_stdout() {
            // The report file is stdout: it holds the report alone.
        } else if output.json {
            println!("{}", serde_json::to_string_pretty(self)?);
        } else {
            print!("{}", text::render(&doc));
            for f in &self.meta.files {
                println!("written: {f}");
            }
        }
        for w in text::warnings(&doc) {
            eprintln!("warning: {w}");
        }
        if let Some(w) = self
            .meta
            .host
            .profile
            .summary()
            .and_then(|p| p.warning.as_ref())
        {
            eprintln!("warning: {w}");
        }
        if let Some(w) = self.meta.fidelity.as_ref().and_then(|f| f.warning.as_ref()) {
            eprintln!("warning: {w}");
        }
        Ok(())
    }

    /// Publishes the run's own folder, `<out>/<name>/<run>/` (see [`Report::fill_folder`]),
    /// and returns its path: for a command that goes on after it (the tour).
    pub(crate) fn publish_folder(
        &mut self,
        plan: &RunFolderPlan,
        extra: FolderFiles,
    ) -> Result<PathBuf> {
        let mut folder = self.create_folder(plan)?;
        self.fill_folder(&mut folder, extra)?;
        Ok(folder.publish(&self.meta.command)?)
    }

    /// Finishes a report that has a run folder: stages the report file, writes the folder
    /// (whose report names that file), publishes the folder, commits the report file, then
    /// shows the report. Whatever fails before the folder's rename leaves nothing.
    pub(crate) fn finish_in_folder(
        mut self,
        output: &OutputPlan,
        plan: &RunFolderPlan,
        extra: FolderFiles,
    ) -> Result<()> {
        if !crate::launch::reports() {
            return Ok(());
        }
        let mut folder = self.create_folder(plan)?;
        let mut publication = Publication::new();
        self.stage(output, &mut publication)?;
        self.fill_folder(&mut folder, extra)?;
        folder.publish(&self.meta.command)?;
        publication.commit()?;
        self.show(output)
    }

    /// A fresh run folder under its temporary name, recorded among the report's files.
    fn create_folder(&mut self, plan: &RunFolderPlan) -> Result<RunFolder> {
        let folder = RunFolder::create(&plan.out, &plan.name, &self.meta.date)?;
        self.meta
            .files
            .push(format!("{}/", folder.path().display()));
        Ok(folder)
    }

    /// Writes a run folder's files: `extra` files (tables), every plot as SVG, the report
    /// as JSON and as an HTML page (its manifest comes with the publication).
    fn fill_folder(&self, folder: &mut RunFolder, extra: FolderFiles) -> Result<()> {
        for (name, bytes) in &extra {
            folder.add(name, bytes)?;
        }
        for b in self.plots()? {
            if let Block::Figure(f) = b {
                folder.add(&f.file, f.svg.as_bytes())?;
            }
        }
        folder.add("report.json", &self.export(Format::Json)?)?;
        folder.add("report.html", &self.export(Format::Html)?)?;
        Ok(())
    }

    /// Finishes the report of a run of `what` ("farm on binary:4"): stages the trace files
    /// `plan` asks for from `run` beside `files`, then as [`Report::finish`].
    pub(crate) fn finish_run(
        mut self,
        output: &OutputPlan,
        plan: &TracePlan,
        (run, what): (&impl Traced, &str),
        mut files: Publication,
    ) -> Result<()> {
        if !crate::launch::reports() {
            return Ok(());
        }
        self.trace_plots
            .extend(stage_trace(&mut self.meta, plan, run, what, &mut files)?);
        self.finish(output, files)
    }

    /// Stages the report file, publishes every staged file, then shows the report: nothing
    /// is written unless the whole run succeeded.
    pub(crate) fn finish(
        mut self,
        output: &OutputPlan,
        mut publication: Publication,
    ) -> Result<()> {
        if !crate::launch::reports() {
            return Ok(());
        }
        self.stage(output, &mut publication)?;
        publication.commit()?;
        self.show(output)
    }
}
