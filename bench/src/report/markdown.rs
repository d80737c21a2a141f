//! The Markdown exporter: headings, pipe tables, and plots embedded as SVG data URLs, so the
//! file stands alone.

use std::fmt::Write;

use super::document::{Block, Document, Table};

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn table(t: &Table) -> String {
    let mut s = format!(
        "| {} |\n",
        t.header
            .iter()
            .map(|h| cell(h))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    s.push_str(&format!("|{}\n", " --- |".repeat(t.header.len())));
    for r in &t.rows {
        s.push_str(&format!(
            "| {} |\n",
            r.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | ")
        ));
    }
    s
}

/// `data:image/svg+xml` with the SVG percent-encoded.
pub(crate) fn svg_data_url(svg: &str) -> String {
    let mut url = String::from("data:image/svg+xml;charset=utf-8,");
    for b in svg.bytes() {
        match b {
            b'A'..=b'Z'
            | b'a'..=b'z'
            | b'0'..=b'9'
            | b'-'
            | b'_'
            | b'.'
            | b'~'
            | b'='
            | b':'
            | b'/'
            | b','
            | b';' => url.push(b as char),
            _ => {
                let _ = write!(url, "%{b:02X}");
            }
        }
    }
    url
}

/// The document as Markdown.
pub(crate) fn render(doc: &Document) -> String {
    let mut out = format!("# {}\n", doc.title);
    for s in &doc.sections {
        out.push_str(&format!("\n## {}\n\n", s.heading));
        for b in &s.blocks {
            match b {
                Block::Text(t) => out.push_str(&format!("{t}\n\n")),
                Block::Table(t) => out.push_str(&format!("{}\n", table(t))),
                Block::Figure(f) => out.push_str(&format!(
                    "![{}]({})\n\n*{}*\n\n",
                    cell(&f.caption),
                    svg_data_url(&f.svg),
                    f.caption
                )),
                Block::Warning(w) => out.push_str(&format!("> **Warning:** {w}\n\n")),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_urls_escape_what_a_url_cannot_hold() {
        let u = svg_data_url("<svg a=\"1\">x y</svg>");
        assert_eq!(
            u,
            "data:image/svg+xml;charset=utf-8,%3Csvg%20a=%221%22%3Ex%20y%3C/svg%3E"
        );
    }
}
