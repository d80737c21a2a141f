//! Text: the embedded font, its registration with plotters, font sizes, and text widths measured
//! with it.
//!
//! plotters is built with its `ab_glyph` feature and no system font library. The font file is
//! DejaVu Sans (`bench/assets/DejaVuSans.ttf`, licence beside it), compiled into the binary and
//! registered once under [`FAMILY`], the very string every SVG `<text>` element carries as its
//! `font-family`: `"DejaVu Sans, sans-serif"`. A browser or `rsvg-convert` with DejaVu Sans
//! installed (Debian: `fonts-dejavu-core`) draws the same glyphs the layout measured; one
//! without falls back to its sans-serif.
//!
//! **Sizes.** plotters' font sizes are not CSS pixels: its SVG backend writes
//! `font-size = size / 1.24`, while its ab_glyph measurement scales the font so that
//! ascent − descent is `size` pixels. [`Metrics::width`] takes plotters' measurement and
//! converts it to the width the SVG renderer draws, with the factor
//! `(ascent − descent) / units_per_em / 1.24` read from the font itself (0.9388 for DejaVu
//! Sans).

use std::sync::OnceLock;

use ab_glyph::Font as _;
use anyhow::anyhow;
use plotters::style::{FontStyle, IntoFont as _};

/// Font family of every text element: the embedded font's name, then the generic fallback.
pub(super) const FAMILY: &str = "DejaVu Sans, sans-serif";

/// DejaVu Sans 2.37 from Debian's `fonts-dejavu-core`, unmodified.
static DEJAVU_SANS: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");

/// Title size (plotters units; the SVG `font-size` is this / 1.24, here 19.4 px).
pub(super) const TITLE: f64 = 24.0;
/// Axis description size (15.3 px).
pub(super) const DESC: f64 = 19.0;
/// Tick label, legend and category label size (13.7 px).
pub(super) const LABEL: f64 = 17.0;
/// Footnote size (11.3 px).
pub(super) const NOTE: f64 = 14.0;
/// Smallest size used for row or category labels shrunk to fit (8.9 px).
pub(super) const MIN_LABEL: f64 = 11.0;

/// Text measurement with the registered font; obtained from [`metrics`].
#[derive(Clone, Copy, Debug)]
pub(super) struct Metrics {
    /// Rendered width per pixel of plotters' measurement.
    scale: f64,
}

/// Registers the embedded font with plotters (once per process) and returns its metrics.
///
/// Every renderer calls this before drawing: without a registered font, plotters' ab_glyph
/// text fails with `FontUnavailable`. Errors only if the embedded font cannot be read, which is
/// a build defect (a test checks it).
pub(super) fn metrics() -> anyhow::Result<Metrics> {
    static METRICS: OnceLock<Result<Metrics, String>> = OnceLock::new();
    METRICS
        .get_or_init(|| {
            let font = ab_glyph::FontRef::try_from_slice(DEJAVU_SANS)
                .map_err(|e| format!("the embedded font DejaVuSans.ttf is unreadable: {e}"))?;
            let units_per_em = font
                .units_per_em()
                .ok_or("the embedded font DejaVuSans.ttf has no units per em")?;
            plotters::style::register_font(FAMILY, FontStyle::Normal, DEJAVU_SANS)
                .map_err(|_| "plotters refused the embedded font DejaVuSans.ttf".to_owned())?;
            Ok(Metrics {
                scale: f64::from(font.height_unscaled()) / f64::from(units_per_em) / 1.24,
            })
        })
        .clone()
        .map_err(|e| anyhow!(e))
}

impl Metrics {
    /// Width in pixels of `text` drawn at plotters size `size`, as the SVG renderer draws it.
    pub(super) fn width(&self, text: &str, size: f64) -> f64 {
        // Measurement fails only for an unregistered family, which `metrics()` rules out.
        (FAMILY, size)
            .into_font()
            .box_size(text)
            .map_or(0.0, |(w, _)| f64::from(w) * self.scale)
    }

    /// The widest of `texts` at `size`, 0 for none.
    pub(super) fn widest<'t>(&self, texts: impl IntoIterator<Item = &'t str>, size: f64) -> f64 {
        texts
            .into_iter()
            .map(|t| self.width(t, size))
            .fold(0.0, f64::max)
    }

    /// Greedy word wrap of `text` into lines no wider than `max_w` pixels at `size`; a single
    /// word wider than `max_w` gets a line of its own (text is never cut).
    pub(super) fn wrap(&self, text: &str, size: f64, max_w: f64) -> Vec<String> {
        let mut lines: Vec<String> = Vec::new();
        let mut line = String::new();
        for word in text.split_whitespace() {
            let candidate = if line.is_empty() {
                word.to_owned()
            } else {
                format!("{line} {word}")
            };
            if line.is_empty() || self.width(&candidate, size) <= max_w {
                line = candidate;
            } else {
                lines.push(std::mem::replace(&mut line, word.to_owned()));
            }
        }
        if !line.is_empty() || lines.is_empty() {
            lines.push(line);
        }
        lines
    }
}

/// The rendered font size (CSS pixels) of plotters size `size`.
pub(super) fn em(size: f64) -> f64 {
    size / 1.24
}

/// The distance between baselines of consecutive lines at plotters size `size`.
pub(super) fn line_height(size: f64) -> f64 {
    em(size) * 1.25
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plot_font_registers_and_measures_like_the_renderer() {
        let m = metrics().unwrap();
        // DejaVu Sans: ascent 1901, descent −483, 2048 units per em; every digit advances
        // 1303 units. At plotters size 124 the SVG font-size is 100 px, so ten digits are
        // 10 · 1303 / 2048 · 100 = 636.2 px wide (plotters' integer measurement loses < 1 px
        // before scaling).
        let w = m.width("0123456789", 124.0);
        assert!((w - 636.2).abs() < 1.5, "{w}");
        // Kerning and proportional glyphs: "W" is wider than "i".
        assert!(m.width("WWW", LABEL) > 2.0 * m.width("iii", LABEL));
        assert_eq!(m.width("", LABEL), 0.0);
    }

    #[test]
    fn plot_wrap_never_cuts_words() {
        let m = metrics().unwrap();
        let text = "tree:2 T_e = 1 ms exponential task times";
        let max = m.width("exponential", LABEL) + 1.0;
        let lines = m.wrap(text, LABEL, max);
        assert_eq!(lines.join(" "), text);
        assert!(lines.iter().all(|l| m.width(l, LABEL) <= max), "{lines:?}");
        // A word wider than the limit stands alone, whole.
        let lines = m.wrap("a supercalifragilistic b", LABEL, 20.0);
        assert_eq!(lines, ["a", "supercalifragilistic", "b"]);
        assert_eq!(m.wrap("", LABEL, 50.0), [""]);
    }
}
