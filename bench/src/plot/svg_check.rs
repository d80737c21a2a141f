//! Structural checks on rendered SVGs, for the tests: well-formedness, the texts, elements by
//! tag and colour. plotters writes one element per line.

/// Minimal well-formedness check: one `<svg` root, closed, and balanced `<text>` tags.
pub(crate) fn assert_svg(svg: &str) {
    assert!(svg.contains("<svg"), "no <svg> root:\n{svg}");
    assert!(svg.trim_end().ends_with("</svg>"), "not closed:\n{svg}");
    assert_eq!(
        svg.matches("<text").count(),
        svg.matches("</text>").count(),
        "unbalanced <text>"
    );
}

/// The text contents of all `<text>` elements, trimmed (still XML-escaped).
pub(crate) fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let body = t.split_once('>')?.1;
            Some(body.split_once("</text>")?.0.trim().to_owned())
        })
        .collect()
}

/// Whether some `<text>` element is exactly `want`.
pub(crate) fn has_text(svg: &str, want: &str) -> bool {
    texts(svg).iter().any(|t| t == want)
}

/// The opening tags of all `tag` elements (`"polyline"`, `"circle"`, `"rect"`, `"polygon"`).
pub(crate) fn elements<'s>(svg: &'s str, tag: &str) -> Vec<&'s str> {
    let open = format!("<{tag} ");
    svg.lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with(&open))
        .collect()
}

/// The value of attribute `name` in an opening tag.
pub(crate) fn attr<'e>(element: &'e str, name: &str) -> Option<&'e str> {
    let key = format!(" {name}=\"");
    let start = element.find(&key)? + key.len();
    let len = element[start..].find('"')?;
    Some(&element[start..start + len])
}

/// The `tag` elements whose `attribute` (e.g. `stroke`, `fill`) is `colour` (`#1F77B4`).
pub(crate) fn coloured<'s>(svg: &'s str, tag: &str, attribute: &str, colour: &str) -> Vec<&'s str> {
    elements(svg, tag)
        .into_iter()
        .filter(|e| attr(e, attribute) == Some(colour))
        .collect()
}
