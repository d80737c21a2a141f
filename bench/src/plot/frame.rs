//! What every chart kind shares: size checks, the page (white ground, wrapped title, legend
//! strip), markers, text, and the notes under a chart.

use std::ops::Range;

use anyhow::ensure;
use plotters::chart::MeshStyle;
use plotters::coord::Shift;
use plotters::coord::cartesian::Cartesian2d;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axis::Axis;
use super::palette::{self, Shape};
use super::text::{self, Metrics};

/// Smallest accepted image width in pixels.
pub(crate) const MIN_WIDTH: u32 = 200;
/// Smallest accepted image height in pixels.
pub(crate) const MIN_HEIGHT: u32 = 150;

/// Marker radius in pixels (a disc 10 px across; other shapes of about the same area).
pub(super) const MARKER_R: f64 = 5.0;

/// A plotting area in pixels: its x range and its y range.
pub(super) type PixelArea = (Range<i32>, Range<i32>);

/// The root drawing area of every plot.
pub(super) type Root<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Errors from plotters' drawing calls carry the backend error; keep the message short.
pub(super) fn draw_err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow::anyhow!("drawing the SVG failed: {e:?}")
}

/// Rejects image sizes too small to lay out a chart.
pub(super) fn check_size(width: u32, height: u32) -> anyhow::Result<()> {
    ensure!(
        width >= MIN_WIDTH && height >= MIN_HEIGHT,
        "plot size {width}x{height} is too small (at least {MIN_WIDTH}x{MIN_HEIGHT} pixels)"
    );
    Ok(())
}

/// The key drawn before a legend entry's label.
#[derive(Clone, Copy, Debug)]
pub(super) enum Glyph {
    /// A filled square (bars, timeline kinds, bands).
    Box(RGBAColor),
    /// A marker alone.
    Marker(RGBColor, Shape),
    /// A solid line with a marker on it.
    LineMarker(RGBColor, Shape),
    /// A dashed line (models).
    Dashed(RGBColor),
    /// A dotted line of the given dash and gap (reference lines, [`reference_style`]).
    Dotted(RGBColor, (u32, u32)),
    /// A line of sparse dashes (a model extrapolated), [`SPARSE_DASH`].
    Sparse(RGBColor),
    /// An open circle (a model's value at a single point).
    Hollow(RGBColor),
    /// An arrow (timeline messages).
    Arrow(RGBColor),
}

/// One legend entry: its glyphs side by side, then its label.
#[derive(Clone, Debug)]
pub(super) struct LegendEntry {
    /// The keys drawn before the label.
    pub(super) glyphs: Vec<Glyph>,
    /// The label.
    pub(super) label: String,
}

/// Dash and gap, in pixels, of a model's line (the legend draws what the plot draws).
pub(super) const MODEL_DASH: (u32, u32) = (9, 5);
/// Dash and gap, in pixels, of a reference line.
pub(super) const DOTTED_DASH: (u32, u32) = (2, 4);

/// The colour and dash pattern of reference line `i` of a chart: dotted ink, then grey
/// dashes, then sparse ink dots, so that two references (50 % and 90 %) read apart.
pub(super) fn reference_style(i: usize) -> (RGBColor, (u32, u32)) {
    [
        (palette::INK, DOTTED_DASH),
        (palette::NOTE, (6, 4)),
        (palette::INK, (1, 7)),
    ][i % 3]
}
/// Dash and gap, in pixels, of a model's extrapolated part.
pub(super) const SPARSE_DASH: (u32, u32) = (4, 9);

/// Width of one glyph in a legend entry, in pixels.
const GLYPH_W: i32 = 26;

/// Starts an SVG: white ground, the title (wrapped to the width), the legend strip under it.
/// Returns the whole image and the area below the legend.
pub(super) fn page<'a>(
    svg: &'a mut String,
    (width, height): (u32, u32),
    title: &str,
    legend: &[LegendEntry],
    m: &Metrics,
) -> anyhow::Result<(Root<'a>, Root<'a>)> {
    let root = SVGBackend::with_string(svg, (width, height)).into_drawing_area();
    root.fill(&WHITE).map_err(draw_err)?;
    let mut y = 8.0;
    if !title.trim().is_empty() {
        let lines = m.wrap(title, text::TITLE, f64::from(width) - 24.0);
        for line in &lines {
            let pos = (width as i32 / 2, y as i32);
            label(
                &root,
                line,
                pos,
                text::TITLE,
                &BLACK,
                (HPos::Center, VPos::Top),
            )?;
            y += text::line_height(text::TITLE);
        }
        y += 4.0;
    }
    y += legend_strip(&root, y, legend, m)?;
    let (_, body) = root.split_vertically(y.ceil() as i32);
    Ok((root, body))
}

/// Draws the legend as centred lines of entries starting at `top`; returns its height.
///
/// The legend sits outside the plot so it never hides data. (plotters' own series legend is
/// not used: its composed glyphs need a `'static` backend, which `SVGBackend::with_string`
/// borrowing a local `String` is not.)
fn legend_strip(
    root: &Root<'_>,
    top: f64,
    entries: &[LegendEntry],
    m: &Metrics,
) -> anyhow::Result<f64> {
    if entries.is_empty() {
        return Ok(0.0);
    }
    let (w, _) = root.dim_in_pixel();
    let avail = f64::from(w) - 24.0;
    let widths: Vec<f64> = entries
        .iter()
        .map(|e| {
            let glyphs = GLYPH_W * e.glyphs.len() as i32;
            f64::from(glyphs) + 6.0 + m.width(&e.label, text::LABEL)
        })
        .collect();
    // Lines of entries, 22 px between entries.
    let mut lines: Vec<Vec<usize>> = vec![Vec::new()];
    let mut used = 0.0;
    for (i, &ew) in widths.iter().enumerate() {
        let need = if used > 0.0 { ew + 22.0 } else { ew };
        if used > 0.0 && used + need > avail {
            lines.push(Vec::new());
            used = 0.0;
        }
        used += if used > 0.0 { ew + 22.0 } else { ew };
        if let Some(line) = lines.last_mut() {
            line.push(i);
        }
    }
    let line_h = (text::line_height(text::LABEL) + 6.0).max(22.0);
    for (row, line) in lines.iter().enumerate() {
        let total: f64 =
            line.iter().map(|&i| widths[i]).sum::<f64>() + 22.0 * (line.len() - 1) as f64;
        let mut x = ((f64::from(w) - total) / 2.0).max(12.0);
        let mid = (top + row as f64 * line_h + line_h / 2.0) as i32;
        for &i in line {
            let e = &entries[i];
            let mut gx = x as i32;
            for glyph in &e.glyphs {
                draw_glyph(root, *glyph, gx, mid)?;
                gx += GLYPH_W;
            }
            label(
                root,
                &e.label,
                (gx + 6, mid),
                text::LABEL,
                &BLACK,
                (HPos::Left, VPos::Center),
            )?;
            x += widths[i] + 22.0;
        }
    }
    Ok(lines.len() as f64 * line_h + 6.0)
}

/// Draws one legend glyph in the 26-px cell starting at `x`, centred on `mid`.
fn draw_glyph(root: &Root<'_>, glyph: Glyph, x: i32, mid: i32) -> anyhow::Result<()> {
    let segment = |colour: RGBColor, x0: i32, x1: i32| {
        PathElement::new(vec![(x0, mid), (x1, mid)], colour.stroke_width(2))
    };
    let centre = (x + 11, mid);
    match glyph {
        Glyph::Box(c) => root
            .draw(&Rectangle::new(
                [(x + 4, mid - 7), (x + 18, mid + 7)],
                c.filled(),
            ))
            .map_err(draw_err),
        Glyph::Marker(c, s) => marker(root, centre, s, c),
        Glyph::LineMarker(c, s) => {
            root.draw(&segment(c, x, x + 22)).map_err(draw_err)?;
            marker(root, centre, s, c)
        }
        Glyph::Dashed(c) => root
            .draw(&DashedPathElement::new(
                vec![(x, mid), (x + 22, mid)],
                MODEL_DASH.0,
                MODEL_DASH.1,
                c.stroke_width(2),
            ))
            .map_err(draw_err),
        Glyph::Dotted(c, (dash, gap)) => root
            .draw(&DashedPathElement::new(
                vec![(x, mid), (x + 22, mid)],
                dash,
                gap,
                c.stroke_width(2),
            ))
            .map_err(draw_err),
        Glyph::Sparse(c) => root
            .draw(&DashedPathElement::new(
                vec![(x, mid), (x + 22, mid)],
                SPARSE_DASH.0,
                SPARSE_DASH.1,
                c.stroke_width(2),
            ))
            .map_err(draw_err),
        Glyph::Hollow(c) => hollow_marker(root, centre, c),
        Glyph::Arrow(c) => {
            root.draw(&PathElement::new(
                vec![(x, mid), (x + 16, mid)],
                c.stroke_width(1),
            ))
            .map_err(draw_err)?;
            arrowhead(root, (x, mid), (x + 22, mid), 6.0, c)
        }
    }
}

/// A filled arrowhead of length `len` at `to`, pointing from `from` to `to`.
pub(super) fn arrowhead(
    root: &Root<'_>,
    from: (i32, i32),
    to: (i32, i32),
    len: f64,
    colour: RGBColor,
) -> anyhow::Result<()> {
    let (dx, dy) = (f64::from(to.0 - from.0), f64::from(to.1 - from.1));
    let d = dx.hypot(dy);
    if d < 1.0 {
        return Ok(());
    }
    let (ux, uy) = (dx / d, dy / d);
    let (bx, by) = (f64::from(to.0) - ux * len, f64::from(to.1) - uy * len);
    let half = len * 0.45;
    let pts = vec![
        to,
        (
            (bx - uy * half).round() as i32,
            (by + ux * half).round() as i32,
        ),
        (
            (bx + uy * half).round() as i32,
            (by - ux * half).round() as i32,
        ),
    ];
    root.draw(&Polygon::new(pts, colour.filled()))
        .map_err(draw_err)
}

/// The outline of a marker of radius `r` centred on `(x, y)` (circles are drawn as circles).
fn outline(shape: Shape, (x, y): (f64, f64), r: f64) -> Vec<(i32, i32)> {
    let p = |dx: f64, dy: f64| ((x + dx).round() as i32, (y + dy).round() as i32);
    match shape {
        Shape::Circle | Shape::Square => {
            let h = r * 0.89;
            vec![p(-h, -h), p(h, -h), p(h, h), p(-h, h)]
        }
        Shape::TriangleUp => vec![
            p(0.0, -1.25 * r),
            p(1.15 * r, 0.8 * r),
            p(-1.15 * r, 0.8 * r),
        ],
        Shape::TriangleDown => vec![
            p(0.0, 1.25 * r),
            p(1.15 * r, -0.8 * r),
            p(-1.15 * r, -0.8 * r),
        ],
        Shape::Diamond => vec![
            p(0.0, -1.2 * r),
            p(1.2 * r, 0.0),
            p(0.0, 1.2 * r),
            p(-1.2 * r, 0.0),
        ],
    }
}

/// Draws a filled marker with a white halo, so that lines under it visibly stop at it.
pub(super) fn marker(
    root: &Root<'_>,
    at: (i32, i32),
    shape: Shape,
    colour: RGBColor,
) -> anyhow::Result<()> {
    let c = (f64::from(at.0), f64::from(at.1));
    for (r, style) in [
        (MARKER_R + 1.5, WHITE.filled()),
        (MARKER_R, colour.filled()),
    ] {
        if shape == Shape::Circle {
            root.draw(&Circle::new(at, r, style)).map_err(draw_err)?;
        } else {
            root.draw(&Polygon::new(outline(shape, c, r), style))
                .map_err(draw_err)?;
        }
    }
    Ok(())
}

/// Draws an open marker (a model value shown at a single point).
pub(super) fn hollow_marker(
    root: &Root<'_>,
    at: (i32, i32),
    colour: RGBColor,
) -> anyhow::Result<()> {
    root.draw(&Circle::new(at, MARKER_R, colour.stroke_width(2)))
        .map_err(draw_err)
}

/// Draws `s` at `pos` with the given size, colour and anchor.
pub(super) fn label(
    root: &Root<'_>,
    s: &str,
    pos: (i32, i32),
    size: f64,
    colour: &RGBColor,
    (h, v): (HPos, VPos),
) -> anyhow::Result<()> {
    let style = TextStyle::from((text::FAMILY, size).into_font())
        .color(colour)
        .pos(Pos::new(h, v));
    root.draw(&Text::new(s.to_owned(), pos, style))
        .map_err(draw_err)
}

/// Draws `s` rotated to read bottom to top, its end at `pos` (e.g. under a bar).
pub(super) fn label_up(root: &Root<'_>, s: &str, pos: (i32, i32), size: f64) -> anyhow::Result<()> {
    let style = TextStyle::from((text::FAMILY, size).into_font())
        .color(&BLACK)
        .transform(FontTransform::Rotate270)
        .pos(Pos::new(HPos::Right, VPos::Center));
    root.draw(&Text::new(s.to_owned(), pos, style))
        .map_err(draw_err)
}

/// Writes a centred note (e.g. "no data") over the plotting area given by its pixel range.
pub(super) fn no_data_note(root: &Root<'_>, px: &PixelArea, what: &str) -> anyhow::Result<()> {
    let centre = ((px.0.start + px.0.end) / 2, (px.1.start + px.1.end) / 2);
    label(
        root,
        what,
        centre,
        text::DESC,
        &palette::NOTE,
        (HPos::Center, VPos::Center),
    )
}

/// "N `what`s skipped (`why`)".
pub(super) fn skipped(n: usize, what: &str, why: &str) -> String {
    let plural = if n == 1 { "" } else { "s" };
    format!("note: {n} {what}{plural} skipped ({why})")
}

/// A chart on two [`Axis`] coordinates.
pub(super) type AxisChart<'a> = ChartContext<'a, SVGBackend<'a>, Cartesian2d<Axis, Axis>>;

/// The mesh of every chart kind: label and description fonts, faint grid lines. The caller
/// adds descriptions and label sizes of its own, then draws it.
pub(super) fn mesh<'a, 'c>(
    chart: &'c mut AxisChart<'a>,
) -> MeshStyle<'a, 'c, Axis, Axis, SVGBackend<'a>> {
    let mut mesh = chart.configure_mesh();
    mesh.label_style((text::FAMILY, text::LABEL))
        .axis_desc_style((text::FAMILY, text::DESC))
        .bold_line_style(BLACK.mix(0.13))
        .light_line_style(BLACK.mix(0.05));
    mesh
}

/// Finishes a chart: the "no data" note over its plotting area when there is nothing to
/// show, the footnotes, and the SVG's closing.
pub(super) fn finish(
    root: &Root<'_>,
    chart: &AxisChart<'_>,
    no_data: Option<&str>,
    notes_text: &[String],
) -> anyhow::Result<()> {
    if let Some(what) = no_data {
        no_data_note(root, &chart.plotting_area().get_pixel_range(), what)?;
    }
    let (_, height) = root.dim_in_pixel();
    notes(root, height, notes_text)?;
    root.present().map_err(draw_err)
}

/// `n` as an English ordinal: 2nd, 3rd, 10th, 21st.
pub(super) fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// Writes the notes as lines in the bottom-left corner, the last one lowest.
pub(super) fn notes(root: &Root<'_>, height: u32, notes: &[String]) -> anyhow::Result<()> {
    let line_h = text::line_height(text::NOTE);
    for (i, note) in notes.iter().rev().enumerate() {
        let y = f64::from(height) - 4.0 - i as f64 * line_h;
        label(
            root,
            note,
            (6, y as i32),
            text::NOTE,
            &palette::NOTE,
            (HPos::Left, VPos::Bottom),
        )?;
    }
    Ok(())
}

/// Height to reserve under a chart for `n` notes.
pub(super) fn notes_height(n: usize) -> f64 {
    n as f64 * text::line_height(text::NOTE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plot_ordinals() {
        let got: Vec<String> = [1, 2, 3, 4, 10, 11, 12, 13, 21, 22, 102, 111]
            .map(ordinal)
            .to_vec();
        let want = [
            "1st", "2nd", "3rd", "4th", "10th", "11th", "12th", "13th", "21st", "22nd", "102nd",
            "111th",
        ];
        assert_eq!(got, want);
    }
}
