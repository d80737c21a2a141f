//! The HTML exporter: one self-contained page (inline style, inline SVG plots, no script, no
//! network), readable in any browser and printable.

use super::document::{Block, Document, Table};

/// Escapes text for HTML.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 2rem auto;
       max-width: 1100px; padding: 0 1rem; color: #1d1d1f; line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; }
h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #ddd; padding-bottom: .2rem; }
table { border-collapse: collapse; margin: .6rem 0 1rem; font-size: .92rem; }
th, td { border: 1px solid #d0d0d0; padding: .25rem .6rem; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td { font-variant-numeric: tabular-nums; }
figure { margin: 1rem 0 1.6rem; }
figure svg { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { color: #555; font-size: .9rem; }
.warning { background: #fff4e5; border-left: 4px solid #f0a030; padding: .5rem .8rem; }
.subtitle { color: #555; margin-top: 0; }
";

fn table(t: &Table) -> String {
    let mut s = String::from("<table>\n<thead><tr>");
    for h in &t.header {
        s.push_str(&format!("<th>{}</th>", escape(h)));
    }
    s.push_str("</tr></thead>\n<tbody>\n");
    for r in &t.rows {
        s.push_str("<tr>");
        for c in r {
            s.push_str(&format!("<td>{}</td>", escape(c)));
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</tbody>\n</table>\n");
    s
}

/// Removes an XML declaration from an SVG document so it can sit inside HTML.
fn inline_svg(svg: &str) -> &str {
    match svg.find("<svg") {
        Some(i) => &svg[i..],
        None => svg,
    }
}

/// The document as a self-contained HTML page; `subtitle` goes under the title.
pub(crate) fn render(doc: &Document, subtitle: &str) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{0}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{0}</h1>\n\
         <p class=\"subtitle\">{1}</p>\n",
        escape(&doc.title),
        escape(subtitle)
    );
    for s in &doc.sections {
        out.push_str(&format!("<section>\n<h2>{}</h2>\n", escape(&s.heading)));
        for b in &s.blocks {
            match b {
                Block::Text(t) => out.push_str(&format!("<p>{}</p>\n", escape(t))),
                Block::Table(t) => out.push_str(&table(t)),
                Block::Figure(f) => out.push_str(&format!(
                    "<figure>\n{}\n<figcaption>{}</figcaption>\n</figure>\n",
                    inline_svg(&f.svg),
                    escape(&f.caption)
                )),
                Block::Warning(w) => out.push_str(&format!(
                    "<p class=\"warning\"><strong>Warning:</strong> {}</p>\n",
                    escape(w)
                )),
            }
        }
        out.push_str("</section>\n");
    }
    out.push_str("</body>\n</html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::document::{Figure, Section};

    #[test]
    fn the_page_is_self_contained_and_escaped() {
        let doc = Document {
            title: "a < b".into(),
            sections: vec![Section::results(
                "S",
                vec![
                    Block::Text("x & y".into()),
                    Block::Figure(Figure {
                        file: "f.svg".into(),
                        caption: "c".into(),
                        svg: "<?xml version=\"1.0\"?>\n<svg width=\"1\"></svg>".into(),
                    }),
                ],
            )],
        };
        let html = render(&doc, "sub");
        assert!(html.contains("<h1>a &lt; b</h1>") && html.contains("<p>x &amp; y</p>"));
        assert!(html.contains("<figure>\n<svg width=\"1\"></svg>"));
        assert!(!html.contains("<?xml") && !html.contains("http://") && !html.contains("<script"));
    }
}
