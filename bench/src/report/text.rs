//! The terminal exporter: the result sections as tables and lines on stdout, warnings on
//! stderr.

use comfy_table::{Table as Comfy, presets::UTF8_FULL_CONDENSED};

use super::document::{Block, Document, Table};

/// A table with the project's look.
pub(crate) fn comfy(t: &Table) -> Comfy {
    let mut c = Comfy::new();
    c.load_preset(UTF8_FULL_CONDENSED);
    c.set_header(t.header.iter());
    for r in &t.rows {
        c.add_row(r.iter());
    }
    c
}

/// The text of the terminal sections (warnings excluded).
pub(crate) fn render(doc: &Document) -> String {
    let mut out = String::new();
    for s in doc.sections.iter().filter(|s| s.terminal) {
        for b in &s.blocks {
            match b {
                Block::Text(t) => {
                    out.push_str(t);
                    out.push('\n');
                }
                Block::Table(t) => {
                    out.push_str(&comfy(t).to_string());
                    out.push('\n');
                }
                Block::Figure(_) | Block::Warning(_) => {}
            }
        }
    }
    out
}

/// The warnings of the terminal sections.
pub(crate) fn warnings(doc: &Document) -> Vec<&str> {
    doc.sections
        .iter()
        .filter(|s| s.terminal)
        .flat_map(|s| &s.blocks)
        .filter_map(|b| match b {
            Block::Warning(w) => Some(w.as_str()),
            _ => None,
        })
        .collect()
}
