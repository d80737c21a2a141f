//! A report as a document: sections of text, tables, plots and warnings, which every
//! exporter (terminal, Markdown, HTML, CSV) renders in its own way.

/// A whole report.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Document {
    /// The report's title.
    pub(crate) title: String,
    /// Its sections, in order.
    pub(crate) sections: Vec<Section>,
}

/// One section.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Section {
    /// Its heading.
    pub(crate) heading: String,
    /// Its content.
    pub(crate) blocks: Vec<Block>,
    /// Whether the terminal shows it (results do; inputs, host and plots are for files).
    pub(crate) terminal: bool,
}

impl Section {
    /// A section the terminal shows.
    pub(crate) fn results(heading: &str, blocks: Vec<Block>) -> Self {
        Self {
            heading: heading.into(),
            blocks,
            terminal: true,
        }
    }

    /// A section for report files only.
    pub(crate) fn details(heading: &str, blocks: Vec<Block>) -> Self {
        Self {
            heading: heading.into(),
            blocks,
            terminal: false,
        }
    }
}

/// A piece of content.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Block {
    /// A paragraph.
    Text(String),
    /// A table.
    Table(Table),
    /// A plot.
    Figure(Figure),
    /// Something the user should act on (the terminal prints it on stderr).
    Warning(String),
}

/// A table of strings.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Table {
    /// Column headings.
    pub(crate) header: Vec<String>,
    /// Rows, each as long as the header.
    pub(crate) rows: Vec<Vec<String>>,
}

impl Table {
    /// An empty table with these headings.
    pub(crate) fn new(header: &[&str]) -> Self {
        Self {
            header: header.iter().map(|h| (*h).to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// Adds a row.
    pub(crate) fn row(&mut self, cells: Vec<String>) -> &mut Self {
        self.rows.push(cells);
        self
    }
}

/// A plot, rendered as SVG.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Figure {
    /// Its file name in a run's folder, e.g. `speedup.svg`.
    pub(crate) file: String,
    /// What it shows.
    pub(crate) caption: String,
    /// The SVG document.
    pub(crate) svg: String,
}
