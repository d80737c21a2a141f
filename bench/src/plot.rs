//! SVG plots for sweeps: line/scatter charts, grouped bar charts and processor timelines.
//!
//! Everything renders to an in-memory `String` (via plotters' [`SVGBackend::with_string`]) so
//! callers can write the file atomically.
//!
//! # Text without font files
//!
//! plotters is built with `default-features = false` and neither `ttf` nor `ab_glyph`, so it
//! uses its "naive" font module: text *sizes* are estimated from the character count (good
//! enough for layout) and the SVG backend writes every string as an SVG `<text>` element
//! (escaped, `font-family="sans-serif"`). The viewer picks the actual font; no font files or
//! system font libraries are needed. Do not enable plotters' `ab_glyph` feature for these plots:
//! it would require registering an embedded font and breaks criterion's own plots.
//!
//! # Robustness rules
//!
//! - Points with a NaN or infinite coordinate are skipped, and so are points with a coordinate
//!   `<= 0` on a logarithmic axis. Lines are broken at skipped points rather than joined across
//!   them. When anything was skipped, a small footnote at the bottom of the image says how many.
//! - A chart, bar chart or timeline with nothing left to draw is **not** an error: it renders a
//!   valid SVG that still has its title, axis labels and legend, plus a centred "no data" note.
//!   This keeps a sweep from failing on its plotting step; the note says why the chart is empty.
//! - Errors are returned for caller bugs only: an image smaller than [`MIN_WIDTH`] x
//!   [`MIN_HEIGHT`], a bar group whose length differs from the number of categories, a timeline
//!   interval on a processor `>= processors`, or a data range too wide to represent.
//! - Axis ranges are automatic: the data range plus 5% padding (in log space on a log axis),
//!   widened around single values. Bar charts always include 0 on the value axis.
//! - Series colours come from a fixed palette (Tableau 10), assigned by series index.

use std::ops::Range;

use anyhow::{Context as _, bail, ensure};
use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, ValueFormatter};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Smallest accepted image width in pixels.
pub(crate) const MIN_WIDTH: u32 = 200;
/// Smallest accepted image height in pixels.
pub(crate) const MIN_HEIGHT: u32 = 150;

/// The series palette (Tableau 10): blue, orange, green, red, purple, brown, pink, grey,
/// olive, cyan. Series `i` gets `PALETTE[i % 10]`.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Font family of every text element.
const FONT: &str = "sans-serif";
/// Title font size (plotters size; the SVG `font-size` is this / 1.24).
const TITLE_SIZE: f64 = 22.0;
/// Axis description font size.
const DESC_SIZE: f64 = 16.0;
/// Tick label, legend and category label font size.
const LABEL_SIZE: f64 = 14.0;
/// Estimated width in pixels of one character at [`LABEL_SIZE`], for layout decisions.
const CHAR_W: f64 = 7.0;
/// Colour of notes ("no data", skipped points).
const NOTE_COLOUR: RGBColor = RGBColor(110, 110, 110);

/// How an axis maps values to positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scale {
    /// Linear axis.
    Linear,
    /// Base-10 logarithmic axis; values `<= 0` cannot be shown and are skipped.
    Log10,
}

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Style {
    /// Solid line through the points, in the given order (isolated points get a marker).
    Line,
    /// Markers only.
    Points,
    /// Solid line with a marker on each point.
    LinePoints,
    /// Dashed line, meant for model (predicted) curves.
    Dashed,
}

/// One named data series of a [`Chart`].
#[derive(Clone, Debug)]
pub(crate) struct Series {
    /// Name shown in the legend.
    pub(crate) name: String,
    /// `(x, y)` points; lines join them in this order, so sort by `x` for a curve.
    pub(crate) points: Vec<(f64, f64)>,
    /// How the series is drawn.
    pub(crate) style: Style,
}

/// An x/y chart of several series with a legend.
#[derive(Clone, Debug)]
pub(crate) struct Chart {
    /// Title above the plot.
    pub(crate) title: String,
    /// Description of the x axis.
    pub(crate) x_label: String,
    /// Description of the y axis.
    pub(crate) y_label: String,
    /// Scale of the x axis.
    pub(crate) x_scale: Scale,
    /// Scale of the y axis.
    pub(crate) y_scale: Scale,
    /// The series, coloured by index from a fixed palette.
    pub(crate) series: Vec<Series>,
}

/// A grouped bar chart (e.g. error % per cell, per-level task fractions measured vs predicted).
///
/// Each group is one bar colour (and one legend entry) with one value per category; bars may
/// be negative and the value axis always includes 0. Non-finite values draw no bar.
#[derive(Clone, Debug)]
pub(crate) struct Bars {
    /// Title above the plot.
    pub(crate) title: String,
    /// Description of the value (y) axis.
    pub(crate) y_label: String,
    /// Category names along the x axis, in order.
    pub(crate) categories: Vec<String>,
    /// `(group name, one value per category)`; every vector must have `categories.len()` values.
    pub(crate) groups: Vec<(String, Vec<f64>)>,
}

/// Errors from plotters' drawing calls carry the backend error; keep the message short.
fn draw_err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow::anyhow!("drawing the SVG failed: {e:?}")
}

/// Rejects image sizes too small to lay out a chart.
fn check_size(width: u32, height: u32) -> anyhow::Result<()> {
    ensure!(
        width >= MIN_WIDTH && height >= MIN_HEIGHT,
        "plot size {width}x{height} is too small (at least {MIN_WIDTH}x{MIN_HEIGHT} pixels)"
    );
    Ok(())
}

impl Chart {
    /// Renders to an SVG string (so callers can write it atomically).
    ///
    /// Points that cannot be shown (NaN/inf, or `<= 0` on a log axis) are skipped and counted
    /// in a footnote; a chart with nothing to show renders with a "no data" note instead of
    /// failing. Errors only for an image smaller than [`MIN_WIDTH`] x [`MIN_HEIGHT`] or a data
    /// range too wide to represent.
    pub(crate) fn to_svg(&self, width: u32, height: u32) -> anyhow::Result<String> {
        check_size(width, height)?;
        let x_log = self.x_scale == Scale::Log10;
        let y_log = self.y_scale == Scale::Log10;
        let valid = |(x, y): (f64, f64)| {
            x.is_finite() && y.is_finite() && (!x_log || x > 0.0) && (!y_log || y > 0.0)
        };

        // Each series split into runs of consecutive valid points (lines break at gaps).
        let mut skipped = 0usize;
        let mut runs: Vec<Vec<Vec<(f64, f64)>>> = Vec::with_capacity(self.series.len());
        for s in &self.series {
            let mut series_runs = vec![Vec::new()];
            for &p in &s.points {
                if valid(p) {
                    if let Some(run) = series_runs.last_mut() {
                        run.push(p);
                    }
                } else {
                    skipped += 1;
                    if series_runs.last().is_some_and(|r| !r.is_empty()) {
                        series_runs.push(Vec::new());
                    }
                }
            }
            series_runs.retain(|r| !r.is_empty());
            runs.push(series_runs);
        }
        let all = || runs.iter().flatten().flatten().copied();
        let has_data = all().next().is_some();

        let x_axis =
            Axis::auto(all().map(|p| p.0), self.x_scale, width as f64 / 90.0).context("x axis")?;
        let y_axis =
            Axis::auto(all().map(|p| p.1), self.y_scale, height as f64 / 50.0).context("y axis")?;
        let y_area = y_label_area(&y_axis, width);

        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
            root.fill(&WHITE).map_err(draw_err)?;
            let body = root
                .titled(&self.title, (FONT, TITLE_SIZE))
                .map_err(draw_err)?;
            let entries: Vec<(&str, RGBColor, Glyph)> = self
                .series
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    (
                        s.name.as_str(),
                        PALETTE[i % PALETTE.len()],
                        Glyph::Series(s.style),
                    )
                })
                .collect();
            let body = legend_strip(&body, &entries)?;
            let mut chart = ChartBuilder::on(&body)
                .margin(12)
                .x_label_area_size(48)
                .y_label_area_size(y_area)
                .build_cartesian_2d(x_axis, y_axis)
                .map_err(draw_err)?;
            chart
                .configure_mesh()
                .x_desc(self.x_label.as_str())
                .y_desc(self.y_label.as_str())
                .label_style((FONT, LABEL_SIZE))
                .axis_desc_style((FONT, DESC_SIZE))
                .draw()
                .map_err(draw_err)?;

            for (i, (series, series_runs)) in self.series.iter().zip(&runs).enumerate() {
                let colour = PALETTE[i % PALETTE.len()];
                let line = colour.stroke_width(2);
                let marker = colour.filled();
                let markers = |run: &[(f64, f64)]| -> Vec<Circle<(f64, f64), i32>> {
                    run.iter().map(|&p| Circle::new(p, 3, marker)).collect()
                };
                for run in series_runs {
                    match series.style {
                        Style::Line | Style::LinePoints | Style::Dashed if run.len() == 1 => {
                            chart.draw_series(markers(run)).map_err(draw_err)?;
                        }
                        Style::Line => {
                            chart
                                .draw_series(LineSeries::new(run.iter().copied(), line))
                                .map_err(draw_err)?;
                        }
                        Style::Dashed => {
                            chart
                                .draw_series(DashedLineSeries::new(run.iter().copied(), 8, 5, line))
                                .map_err(draw_err)?;
                        }
                        Style::LinePoints => {
                            chart
                                .draw_series(LineSeries::new(run.iter().copied(), line))
                                .map_err(draw_err)?;
                            chart.draw_series(markers(run)).map_err(draw_err)?;
                        }
                        Style::Points => {
                            chart.draw_series(markers(run)).map_err(draw_err)?;
                        }
                    }
                }
            }
            if !has_data {
                let what = if skipped > 0 {
                    "no data (every point was NaN/inf or <= 0 on a log axis)"
                } else {
                    "no data"
                };
                no_data_note(&root, &chart.plotting_area().get_pixel_range(), what)?;
            } else if skipped > 0 {
                skipped_note(
                    &root,
                    height,
                    skipped,
                    "point",
                    "NaN/inf or <= 0 on a log axis",
                )?;
            }
            root.present().map_err(draw_err)?;
        }
        Ok(svg)
    }
}

impl Bars {
    /// Renders to an SVG string (so callers can write it atomically).
    ///
    /// The legend (one entry per group) is a strip under the title, so it never hides bars.
    /// Category labels are drawn horizontally when they fit and rotated otherwise (truncated
    /// with "…" when very long). Non-finite values draw no bar and are counted in a footnote;
    /// no categories or no groups render a "no data" note. Errors for an image smaller than
    /// [`MIN_WIDTH`] x [`MIN_HEIGHT`] or a group whose length differs from the category count.
    pub(crate) fn to_svg(&self, width: u32, height: u32) -> anyhow::Result<String> {
        check_size(width, height)?;
        let n = self.categories.len();
        for (name, values) in &self.groups {
            ensure!(
                values.len() == n,
                "bar group {name:?} has {} values for {n} categories",
                values.len()
            );
        }
        let finite = || {
            self.groups
                .iter()
                .flat_map(|(_, v)| v.iter().copied())
                .filter(|v| v.is_finite())
        };
        let skipped = self.groups.iter().map(|(_, v)| v.len()).sum::<usize>() - finite().count();
        let has_data = finite().next().is_some();

        // Value axis: always include 0 and pad away from it only.
        let (mut lo, mut hi) = finite().fold((0.0f64, 0.0f64), |(l, h), v| (l.min(v), h.max(v)));
        let span = hi - lo;
        ensure!(span.is_finite(), "bar values span too wide a range to plot");
        if span == 0.0 {
            hi = 1.0;
        } else {
            if lo < 0.0 {
                lo -= 0.05 * span;
            }
            if hi > 0.0 {
                hi += 0.05 * span;
            }
        }
        let y_axis = Axis::linear(lo, hi, height as f64 / 50.0);
        let y_area = y_label_area(&y_axis, width);
        let x_axis = Axis::fixed(0.0, n.max(1) as f64, Vec::new(), Vec::new());

        // Category labels: horizontal if they fit in a slot, else rotated (bottom to top).
        let plot_w = f64::from(width) - f64::from(y_area) - 30.0;
        let slot = plot_w / n.max(1) as f64;
        let longest = self
            .categories
            .iter()
            .map(|c| c.chars().count())
            .max()
            .unwrap_or(0);
        let rotate = longest as f64 * CHAR_W > slot * 0.95;
        let (x_area, max_chars) = if rotate {
            let area = (longest as f64 * CHAR_W + 16.0).min(f64::from(height) * 0.35);
            (area as u32, ((area - 16.0) / CHAR_W).max(3.0) as usize)
        } else {
            (32, usize::MAX)
        };
        // Show every k-th label when even rotated labels (~16 px apart) would collide.
        let every = if rotate {
            (16.0 / slot).ceil().max(1.0) as usize
        } else {
            1
        };

        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
            root.fill(&WHITE).map_err(draw_err)?;
            let body = root
                .titled(&self.title, (FONT, TITLE_SIZE))
                .map_err(draw_err)?;
            let entries: Vec<(&str, RGBColor, Glyph)> = self
                .groups
                .iter()
                .enumerate()
                .map(|(i, (name, _))| (name.as_str(), PALETTE[i % PALETTE.len()], Glyph::Box))
                .collect();
            let body = legend_strip(&body, &entries)?;
            let mut chart = ChartBuilder::on(&body)
                .margin(12)
                .x_label_area_size(x_area)
                .y_label_area_size(y_area)
                .build_cartesian_2d(x_axis, y_axis)
                .map_err(draw_err)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .y_desc(self.y_label.as_str())
                .label_style((FONT, LABEL_SIZE))
                .axis_desc_style((FONT, DESC_SIZE))
                .draw()
                .map_err(draw_err)?;

            let g = self.groups.len().max(1) as f64;
            let bar_w = 0.8 / g;
            for (gi, (_, values)) in self.groups.iter().enumerate() {
                let colour = PALETTE[gi % PALETTE.len()];
                let bars = values
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| v.is_finite())
                    .map(|(ci, &v)| {
                        let x0 = ci as f64 + 0.1 + gi as f64 * bar_w;
                        Rectangle::new([(x0, 0.0), (x0 + bar_w, v)], colour.filled())
                    });
                chart.draw_series(bars).map_err(draw_err)?;
            }
            // Zero baseline, so negative bars read as negative.
            chart
                .draw_series(LineSeries::new(
                    [(0.0, 0.0), (n.max(1) as f64, 0.0)],
                    BLACK.stroke_width(1),
                ))
                .map_err(draw_err)?;

            for (ci, name) in self.categories.iter().enumerate().step_by(every) {
                let (px, py) = chart.backend_coord(&(ci as f64 + 0.5, lo));
                let text = truncate(name, max_chars);
                let style = TextStyle::from((FONT, LABEL_SIZE).into_font()).color(&BLACK);
                let element = if rotate {
                    Text::new(
                        text,
                        (px, py + 6),
                        style
                            .transform(FontTransform::Rotate270)
                            .pos(Pos::new(HPos::Right, VPos::Center)),
                    )
                } else {
                    Text::new(
                        text,
                        (px, py + 6),
                        style.pos(Pos::new(HPos::Center, VPos::Top)),
                    )
                };
                root.draw(&element).map_err(draw_err)?;
            }

            if !has_data {
                no_data_note(&root, &chart.plotting_area().get_pixel_range(), "no data")?;
            } else if skipped > 0 {
                skipped_note(&root, height, skipped, "value", "NaN/inf")?;
            }
            root.present().map_err(draw_err)?;
        }
        Ok(svg)
    }
}

/// Colour of a timeline interval kind; unknown kinds get further palette colours in order of
/// first appearance.
fn kind_colour(kind: &str) -> Option<RGBColor> {
    match kind {
        "compute" => Some(RGBColor(44, 160, 44)),
        "communication" => Some(RGBColor(255, 127, 14)),
        "idle" => Some(RGBColor(205, 205, 205)),
        _ => None,
    }
}

/// A processor timeline (Gantt) from intervals: (processor, start_s, end_s, kind) with kind in {"compute","communication","idle"}.
///
/// Processor `p` is row `P{p}`, with `P0` at the top; time runs left to right from
/// `min(0, earliest start)`. The legend strip under the title always lists the three known
/// kinds; any other kind string is accepted, drawn in a further palette colour and added to the
/// legend. Intervals with a non-finite bound or `end < start` are skipped and counted in a
/// footnote; row labels are thinned when rows are too close to label every one. Nothing to
/// draw (no processors or no valid intervals) renders a "no data" note.
///
/// Errors for an image smaller than [`MIN_WIDTH`] x [`MIN_HEIGHT`] or an interval on a
/// processor `>= processors`. Every interval becomes one SVG rectangle: merge adjacent
/// same-kind intervals first when there are hundreds of thousands.
pub(crate) fn timeline_svg(
    title: &str,
    processors: usize,
    intervals: &[(usize, f64, f64, &str)],
    width: u32,
    height: u32,
) -> anyhow::Result<String> {
    check_size(width, height)?;
    if let Some(&(p, ..)) = intervals.iter().find(|iv| iv.0 >= processors) {
        bail!("timeline interval on processor {p}, but there are only {processors} processors");
    }
    let valid =
        |&&(_, s, e, _): &&(usize, f64, f64, &str)| s.is_finite() && e.is_finite() && e >= s;
    let skipped = intervals.len() - intervals.iter().filter(valid).count();
    let has_data = processors > 0 && intervals.iter().any(|iv| valid(&iv));

    let mut entries: Vec<(&str, RGBColor, Glyph)> = ["compute", "communication", "idle"]
        .into_iter()
        .map(|k| (k, kind_colour(k).unwrap_or(BLACK), Glyph::Box))
        .collect();
    for &(_, _, _, kind) in intervals {
        if kind_colour(kind).is_none() && !entries.iter().any(|(k, ..)| *k == kind) {
            let extra = entries.len() - 3;
            // Skip the palette's blue/orange/green-like slots already used by known kinds.
            let colour = PALETTE[(3 + extra) % PALETTE.len()];
            entries.push((kind, colour, Glyph::Box));
        }
    }
    let colour_of = |kind: &str| {
        entries
            .iter()
            .find(|(k, ..)| *k == kind)
            .map_or(BLACK, |(_, c, _)| *c)
    };

    let (t0, t1) = intervals
        .iter()
        .filter(valid)
        .fold((0.0f64, f64::NEG_INFINITY), |(lo, hi), iv| {
            (lo.min(iv.1), hi.max(iv.2))
        });
    let t1 = if t1 > t0 {
        t1 + 0.02 * (t1 - t0)
    } else {
        t0 + 1.0
    };
    ensure!(
        (t1 - t0).is_finite(),
        "timeline spans too wide a range to plot"
    );
    let x_axis = Axis::linear(t0, t1, width as f64 / 90.0);

    // Row r (processor p) is centred on y = rows - 1 - p so that P0 is at the top.
    let rows = processors.max(1);
    let row_y = |p: usize| (rows - 1 - p) as f64;
    let plot_h = f64::from(height) - 140.0;
    let every = ((18.0 * rows as f64) / plot_h.max(1.0)).ceil().max(1.0) as usize;
    let labels: Vec<(f64, String)> = (0..processors)
        .step_by(every)
        .map(|p| (row_y(p), format!("P{p}")))
        .collect();
    let longest = labels.iter().map(|l| l.1.len()).max().unwrap_or(2);
    let mut y_axis = Axis::fixed(
        -0.5,
        rows as f64 - 0.5,
        labels.iter().map(|l| l.0).collect(),
        Vec::new(),
    );
    y_axis.labels = labels;

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        let body = root.titled(title, (FONT, TITLE_SIZE)).map_err(draw_err)?;
        let body = legend_strip(&body, &entries)?;
        let mut chart = ChartBuilder::on(&body)
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size((longest as f64 * CHAR_W + 20.0) as u32)
            .build_cartesian_2d(x_axis, y_axis)
            .map_err(draw_err)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .x_desc("time (s)")
            .label_style((FONT, LABEL_SIZE))
            .axis_desc_style((FONT, DESC_SIZE))
            .draw()
            .map_err(draw_err)?;
        let rects = intervals.iter().filter(valid).map(|&(p, s, e, kind)| {
            let y = row_y(p);
            Rectangle::new([(s, y - 0.4), (e, y + 0.4)], colour_of(kind).filled())
        });
        chart.draw_series(rects).map_err(draw_err)?;

        if !has_data {
            no_data_note(&root, &chart.plotting_area().get_pixel_range(), "no data")?;
        } else if skipped > 0 {
            skipped_note(&root, height, skipped, "interval", "NaN/inf or end < start")?;
        }
        root.present().map_err(draw_err)?;
    }
    Ok(svg)
}

/// The root drawing area of every plot.
type Root<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// The key drawn before a legend entry's name.
#[derive(Clone, Copy, Debug)]
enum Glyph {
    /// A filled square (bars, timeline kinds).
    Box,
    /// A short sample of the series' line and/or marker.
    Series(Style),
}

/// Draws a horizontal legend strip (glyph + name per entry, wrapping onto further lines) at
/// the top of `area` and returns the area below it.
///
/// The legend sits outside the plot so it never hides data. (plotters' own series legend is
/// not used: its composed glyphs require a `'static` backend, which `SVGBackend::with_string`
/// borrowing a local `String` is not.)
fn legend_strip<'a>(
    area: &Root<'a>,
    entries: &[(&str, RGBColor, Glyph)],
) -> anyhow::Result<Root<'a>> {
    if entries.is_empty() {
        return Ok(area.clone());
    }
    let (w, _) = area.dim_in_pixel();
    let line_h = 22;
    let left = 60;
    let mut lines = 1;
    let (mut x, mut y) = (left, 4);
    let mut placed = Vec::with_capacity(entries.len());
    for &(name, colour, glyph) in entries {
        let need = 26 + (name.chars().count() as f64 * CHAR_W) as i32 + 18;
        if x + need > w as i32 && x > left {
            x = left;
            y += line_h;
            lines += 1;
        }
        placed.push((x, y, name, colour, glyph));
        x += need;
    }
    for (x, y, name, colour, glyph) in placed {
        let mid = y + 10;
        let line = colour.stroke_width(2);
        let segment = |x0: i32, x1: i32| PathElement::new(vec![(x0, mid), (x1, mid)], line);
        match glyph {
            Glyph::Box => area
                .draw(&Rectangle::new(
                    [(x + 3, y + 3), (x + 17, y + 17)],
                    colour.filled(),
                ))
                .map_err(draw_err)?,
            Glyph::Series(Style::Line) => area.draw(&segment(x, x + 20)).map_err(draw_err)?,
            Glyph::Series(Style::Dashed) => {
                area.draw(&segment(x, x + 7)).map_err(draw_err)?;
                area.draw(&segment(x + 12, x + 20)).map_err(draw_err)?;
            }
            Glyph::Series(Style::Points) => area
                .draw(&Circle::new((x + 10, mid), 3, colour.filled()))
                .map_err(draw_err)?,
            Glyph::Series(Style::LinePoints) => {
                area.draw(&segment(x, x + 20)).map_err(draw_err)?;
                area.draw(&Circle::new((x + 10, mid), 3, colour.filled()))
                    .map_err(draw_err)?;
            }
        }
        let style = TextStyle::from((FONT, LABEL_SIZE).into_font())
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        area.draw(&Text::new(name, (x + 26, mid), style))
            .map_err(draw_err)?;
    }
    let (_, below) = area.split_vertically(lines * line_h + 6);
    Ok(below)
}

/// Writes a centred note (e.g. "no data") over the plotting area given by its pixel range.
fn no_data_note(root: &Root<'_>, px: &(Range<i32>, Range<i32>), text: &str) -> anyhow::Result<()> {
    let centre = ((px.0.start + px.0.end) / 2, (px.1.start + px.1.end) / 2);
    let style = TextStyle::from((FONT, DESC_SIZE).into_font())
        .color(&NOTE_COLOUR)
        .pos(Pos::new(HPos::Center, VPos::Center));
    root.draw(&Text::new(text, centre, style)).map_err(draw_err)
}

/// Writes "note: N `what`s skipped (`why`)" in the bottom-left corner.
fn skipped_note(
    root: &Root<'_>,
    height: u32,
    n: usize,
    what: &str,
    why: &str,
) -> anyhow::Result<()> {
    let plural = if n == 1 { "" } else { "s" };
    let text = format!("note: {n} {what}{plural} skipped ({why})");
    let style = TextStyle::from((FONT, 12.0).into_font())
        .color(&NOTE_COLOUR)
        .pos(Pos::new(HPos::Left, VPos::Bottom));
    root.draw(&Text::new(text, (6, height as i32 - 4), style))
        .map_err(draw_err)
}

/// Shortens `s` to at most `max` characters, ending in "…" when cut.
fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// Width of the y label area: room for the longest tick label plus the rotated axis title.
fn y_label_area(axis: &Axis, width: u32) -> u32 {
    let longest = axis
        .bold
        .iter()
        .map(|v| axis.label(*v).chars().count())
        .max()
        .unwrap_or(1);
    let want = longest as f64 * CHAR_W + 40.0;
    want.clamp(50.0, f64::from(width) / 3.0) as u32
}

/// How tick values are written.
#[derive(Clone, Copy, Debug)]
enum TickFormat {
    /// Fixed-point with this many decimals.
    Fixed(usize),
    /// Scientific notation with this many mantissa decimals.
    Sci(usize),
    /// Each value on its own (for log axes: 1-2-5 and decade ticks).
    Auto,
}

/// One axis: a linear or log10 mapping of `lo..hi` with precomputed tick positions.
///
/// Implementing plotters' [`Ranged`] ourselves gives one concrete coordinate type for linear
/// and log axes (no generic chart code), our own tick choice (plotters' log axis shows no tick
/// at all on a range inside one decade) and our own tick labels.
#[derive(Clone, Debug)]
struct Axis {
    /// Lower end of the range (> 0 on a log axis).
    lo: f64,
    /// Upper end of the range (> `lo`).
    hi: f64,
    /// Whether positions are linear in `log10(value)`.
    log: bool,
    /// Labelled ticks with bold grid lines.
    bold: Vec<f64>,
    /// Unlabelled light grid lines.
    light: Vec<f64>,
    /// How to format tick values.
    format: TickFormat,
    /// Fixed labels by position (rows of a timeline); when non-empty, replaces `format`.
    labels: Vec<(f64, String)>,
}

impl Axis {
    /// An axis over the given values with 5% padding, or a default range when there are none.
    /// `target` is the wanted number of labelled ticks.
    fn auto(values: impl Iterator<Item = f64>, scale: Scale, target: f64) -> anyhow::Result<Self> {
        let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
            (l.min(v), h.max(v))
        });
        let empty = lo > hi;
        match scale {
            Scale::Linear => {
                if empty {
                    return Ok(Self::linear(0.0, 1.0, target));
                }
                let span = hi - lo;
                ensure!(span.is_finite(), "values span too wide a range to plot");
                let pad = if span > 0.0 {
                    0.05 * span
                } else if lo != 0.0 {
                    0.1 * lo.abs()
                } else {
                    1.0
                };
                Ok(Self::linear(lo - pad, hi + pad, target))
            }
            Scale::Log10 => {
                if empty {
                    return Ok(Self::log10(1.0, 10.0, target));
                }
                let (a, b) = (lo.log10(), hi.log10());
                let pad = if b > a { 0.05 * (b - a) } else { 0.3 };
                Ok(Self::log10(
                    10f64.powf(a - pad),
                    10f64.powf(b + pad),
                    target,
                ))
            }
        }
    }

    /// A linear axis on `lo..hi` (`lo < hi`) with "nice" 1-2-5 ticks.
    fn linear(lo: f64, hi: f64, target: f64) -> Self {
        let (bold, light, step) = linear_ticks(lo, hi, target);
        let max_abs = lo.abs().max(hi.abs());
        let step_exp = step.log10().floor();
        let format = if max_abs < 1e6 && step >= 1e-4 {
            TickFormat::Fixed((-step_exp).max(0.0) as usize)
        } else {
            let digits = (max_abs.log10().floor() - step_exp).clamp(0.0, 6.0);
            TickFormat::Sci(digits as usize)
        };
        Self {
            lo,
            hi,
            log: false,
            bold,
            light,
            format,
            labels: Vec::new(),
        }
    }

    /// A log10 axis on `lo..hi` (`0 < lo < hi`).
    fn log10(lo: f64, hi: f64, target: f64) -> Self {
        let (bold, light, format) = log_ticks(lo, hi, target);
        Self {
            lo,
            hi,
            log: true,
            bold,
            light,
            format,
            labels: Vec::new(),
        }
    }

    /// A linear axis with explicitly given ticks.
    fn fixed(lo: f64, hi: f64, bold: Vec<f64>, light: Vec<f64>) -> Self {
        Self {
            lo,
            hi,
            log: false,
            bold,
            light,
            format: TickFormat::Auto,
            labels: Vec::new(),
        }
    }

    /// The value in the space where positions are linear.
    fn t(&self, v: f64) -> f64 {
        if self.log { v.log10() } else { v }
    }

    /// Position of `v` along the axis, 0 at `lo` and 1 at `hi`.
    fn fraction(&self, v: f64) -> f64 {
        (self.t(v) - self.t(self.lo)) / (self.t(self.hi) - self.t(self.lo))
    }

    /// The tick label for `v`.
    fn label(&self, v: f64) -> String {
        if !self.labels.is_empty() {
            return self
                .labels
                .iter()
                .find(|(p, _)| (p - v).abs() < 1e-9)
                .map(|(_, l)| l.clone())
                .unwrap_or_default();
        }
        match self.format {
            TickFormat::Fixed(d) => {
                let s = format!("{v:.d$}");
                // Zero (and "-0.0" from rounding) is written "0".
                if s.trim_start_matches('-')
                    .chars()
                    .all(|c| c == '0' || c == '.')
                {
                    "0".to_owned()
                } else {
                    s
                }
            }
            TickFormat::Sci(d) => {
                if v == 0.0 {
                    "0".to_owned()
                } else {
                    format!("{v:.d$e}")
                }
            }
            TickFormat::Auto => format_number(v),
        }
    }
}

impl Ranged for Axis {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let f = self.fraction(*value);
        // Off-range or invalid values are pinned far outside instead of overflowing i32.
        let f = if f.is_nan() {
            0.0
        } else {
            f.clamp(-10.0, 10.0)
        };
        limit.0 + (f64::from(limit.1 - limit.0) * f).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            self.light.clone()
        } else {
            self.bold.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }
}

impl ValueFormatter<f64> for Axis {
    fn format_ext(&self, value: &f64) -> String {
        self.label(*value)
    }
}

/// Bold and light ticks at multiples of a 1-2-5 step giving about `target` bold ticks in
/// `lo..=hi`; also returns the step.
fn linear_ticks(lo: f64, hi: f64, target: f64) -> (Vec<f64>, Vec<f64>, f64) {
    let raw = (hi - lo) / target.max(2.0);
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw * 0.999)
        .unwrap_or(10.0 * mag);
    let multiples = |step: f64| -> Vec<f64> {
        let (first, last) = ((lo / step).ceil(), (hi / step).floor());
        if !(first.is_finite() && last.is_finite()) || last - first > 2000.0 {
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut k = first;
        while k <= last {
            // Snap values like 0.30000000000000004 and -0.
            let v = k * step;
            out.push(if v.abs() < step * 1e-9 { 0.0 } else { v });
            k += 1.0;
        }
        out
    };
    (multiples(step), multiples(step / 5.0), step)
}

/// Ticks for a log10 axis on `lo..hi`: decades (thinned to about `target`) when the range
/// holds at least two, else 1-2-5 or 1..9 times powers of ten, else linear ticks.
fn log_ticks(lo: f64, hi: f64, target: f64) -> (Vec<f64>, Vec<f64>, TickFormat) {
    let (a, b) = (lo.log10(), hi.log10());
    let (d0, d1) = (a.ceil() as i32, b.floor() as i32);
    let in_range = |v: f64| v >= lo * (1.0 - 1e-12) && v <= hi * (1.0 + 1e-12);
    if d1 > d0 {
        let n = (d1 - d0 + 1) as f64;
        let stride = (n / target.max(2.0)).ceil().max(1.0) as i32;
        let bold: Vec<f64> = (d0..=d1)
            .filter(|d| (d - d0) % stride == 0)
            .map(|d| 10f64.powi(d))
            .collect();
        let light: Vec<f64> = if stride == 1 {
            (a.floor() as i32..=d1)
                .flat_map(|d| (2..=9).map(move |m| f64::from(m) * 10f64.powi(d)))
                .filter(|v| in_range(*v))
                .collect()
        } else {
            (d0..=d1)
                .filter(|d| (d - d0) % stride != 0)
                .map(|d| 10f64.powi(d))
                .collect()
        };
        return (bold, light, TickFormat::Auto);
    }
    let mantissas: [&[u32]; 2] = [&[1, 2, 5], &[1, 2, 3, 4, 5, 6, 7, 8, 9]];
    for ms in mantissas {
        let ticks: Vec<f64> = (a.floor() as i32..=b.ceil() as i32)
            .flat_map(|d| ms.iter().map(move |m| f64::from(*m) * 10f64.powi(d)))
            .filter(|v| in_range(*v))
            .collect();
        if ticks.len() >= 3 || (ticks.len() >= 2 && ms.len() > 3) {
            return (ticks, Vec::new(), TickFormat::Auto);
        }
    }
    let (bold, light, _) = linear_ticks(lo, hi, target);
    (bold, light, TickFormat::Auto)
}

/// A short, readable form of `v` for tick labels: fixed-point with up to four significant
/// digits between 1e-3 and 1e5, scientific outside, trailing zeros removed.
fn format_number(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return if v == 0.0 {
            "0".to_owned()
        } else {
            v.to_string()
        };
    }
    let a = v.abs();
    if !(1e-3..1e5).contains(&a) {
        let s = format!("{v:.3e}");
        match s.split_once('e') {
            Some((m, e)) => format!("{}e{e}", trim_zeros(m)),
            None => s,
        }
    } else {
        let decimals = (3 - a.log10().floor() as i32).clamp(0, 6) as usize;
        trim_zeros(&format!("{v:.decimals$}")).to_owned()
    }
}

/// Removes trailing zeros (and a trailing point) after a decimal point.
fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Minimal well-formedness check: one `<svg` root, closed, and balanced `<text>` tags.
    fn assert_svg(svg: &str) {
        assert!(svg.contains("<svg"), "no <svg> root:\n{svg}");
        assert!(svg.trim_end().ends_with("</svg>"), "not closed:\n{svg}");
        assert_eq!(
            svg.matches("<text").count(),
            svg.matches("</text>").count(),
            "unbalanced <text>"
        );
    }

    /// The text contents of all `<text>` elements, trimmed.
    fn texts(svg: &str) -> Vec<String> {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| {
                let body = t.split_once('>')?.1;
                Some(body.split_once("</text>")?.0.trim().to_owned())
            })
            .collect()
    }

    fn chart(x_scale: Scale, y_scale: Scale, series: Vec<Series>) -> Chart {
        Chart {
            title: "Speedup of farm".into(),
            x_label: "processors p".into(),
            y_label: "speedup S(p)".into(),
            x_scale,
            y_scale,
            series,
        }
    }

    fn series(name: &str, style: Style, points: Vec<(f64, f64)>) -> Series {
        Series {
            name: name.into(),
            points,
            style,
        }
    }

    #[test]
    fn plot_chart_has_title_labels_and_legend() {
        let c = chart(
            Scale::Linear,
            Scale::Linear,
            vec![
                series(
                    "measured",
                    Style::LinePoints,
                    vec![(1.0, 1.0), (2.0, 1.9), (4.0, 3.5), (8.0, 6.1)],
                ),
                series("model", Style::Dashed, vec![(1.0, 1.0), (8.0, 7.0)]),
                series("scatter", Style::Points, vec![(3.0, 2.0)]),
                series("line", Style::Line, vec![(1.0, 0.5), (8.0, 4.0)]),
            ],
        );
        let svg = c.to_svg(800, 500).unwrap();
        assert_svg(&svg);
        let t = texts(&svg);
        for want in [
            "Speedup of farm",
            "processors p",
            "speedup S(p)",
            "measured",
            "model",
            "scatter",
            "line",
        ] {
            assert!(t.iter().any(|s| s == want), "missing {want:?} in {t:?}");
        }
        // Some numeric tick labels, and no "skipped" note.
        assert!(t.iter().any(|s| s == "4"), "{t:?}");
        assert!(!svg.contains("skipped"));
        // Distinct colours for the first two series.
        assert!(svg.contains("#1F77B4") && svg.contains("#FF7F0E"), "{svg}");
    }

    #[test]
    fn plot_log_scale_spans_decades() {
        let pts: Vec<(f64, f64)> = (0..8)
            .map(|i| (2f64.powi(i), 1e-6 * 10f64.powi(i)))
            .collect();
        let c = chart(
            Scale::Log10,
            Scale::Log10,
            vec![series("time", Style::LinePoints, pts)],
        );
        let svg = c.to_svg(640, 480).unwrap();
        assert_svg(&svg);
        let t = texts(&svg);
        // Decade ticks on y (1e-6 .. 10), 1-2-5 or decade ticks on x (1 .. 128).
        assert!(t.iter().any(|s| s == "1e-6"), "{t:?}");
        assert!(t.iter().any(|s| s == "0.01"), "{t:?}");
        assert!(t.iter().any(|s| s == "10"), "{t:?}");
        assert!(t.iter().any(|s| s == "100"), "{t:?}");
    }

    #[test]
    fn plot_log_scale_within_one_decade_still_has_ticks() {
        let c = chart(
            Scale::Linear,
            Scale::Log10,
            vec![series("y", Style::Line, vec![(0.0, 2.0), (1.0, 7.0)])],
        );
        let svg = c.to_svg(640, 480).unwrap();
        let t = texts(&svg);
        assert!(
            t.iter().any(|s| s == "2") && t.iter().any(|s| s == "5"),
            "{t:?}"
        );
    }

    #[test]
    fn plot_nan_inf_and_nonpositive_on_log_are_skipped() {
        let c = chart(
            Scale::Linear,
            Scale::Log10,
            vec![series(
                "noisy",
                Style::Line,
                vec![
                    (1.0, 1.0),
                    (2.0, f64::NAN),
                    (3.0, 10.0),
                    (f64::INFINITY, 5.0),
                    (5.0, 0.0),
                    (6.0, -3.0),
                    (7.0, 100.0),
                ],
            )],
        );
        let svg = c.to_svg(640, 480).unwrap();
        assert_svg(&svg);
        // No NaN/inf coordinates reached the drawing elements (the footnote names them).
        for line in svg
            .lines()
            .filter(|l| l.starts_with("<polyline") || l.starts_with("<circle"))
        {
            assert!(!line.contains("NaN") && !line.contains("inf"), "{line}");
        }
        assert!(svg.contains("note: 4 points skipped"), "{svg}");
        assert!(texts(&svg).iter().any(|s| s == "noisy"));
    }

    #[test]
    fn plot_empty_and_degenerate_charts_render_no_data() {
        for c in [
            chart(Scale::Linear, Scale::Linear, vec![]),
            chart(
                Scale::Linear,
                Scale::Linear,
                vec![series("empty", Style::Line, vec![])],
            ),
            chart(
                Scale::Log10,
                Scale::Log10,
                vec![series(
                    "neg",
                    Style::Points,
                    vec![(-1.0, 0.0), (f64::NAN, 1.0)],
                )],
            ),
        ] {
            let svg = c.to_svg(400, 300).unwrap();
            assert_svg(&svg);
            let t = texts(&svg);
            assert!(t.iter().any(|s| s.starts_with("no data")), "{t:?}");
            assert!(t.iter().any(|s| s == "Speedup of farm"), "{t:?}");
            assert!(t.iter().any(|s| s == "speedup S(p)"), "{t:?}");
        }
    }

    #[test]
    fn plot_single_point_and_constant_series() {
        for pts in [
            vec![(3.0, 3.0)],
            vec![(0.0, 0.0), (0.0, 0.0)],
            vec![(1.0, 5.0), (2.0, 5.0)],
        ] {
            for scale in [Scale::Linear, Scale::Log10] {
                let c = chart(scale, scale, vec![series("one", Style::Line, pts.clone())]);
                let svg = c.to_svg(400, 300).unwrap();
                assert_svg(&svg);
                assert!(texts(&svg).iter().any(|s| s == "one"));
            }
        }
    }

    #[test]
    fn plot_too_small_is_an_error() {
        let c = chart(Scale::Linear, Scale::Linear, vec![]);
        let e = c.to_svg(10, 10).unwrap_err().to_string();
        assert!(e.contains("too small"), "{e}");
    }

    #[test]
    fn plot_text_is_escaped() {
        let c = chart(
            Scale::Linear,
            Scale::Linear,
            vec![series("a<b & c", Style::Line, vec![(0.0, 1.0), (1.0, 2.0)])],
        );
        let svg = c.to_svg(400, 300).unwrap();
        assert!(svg.contains("a&lt;b &amp; c"), "{svg}");
    }

    #[test]
    fn plot_bars_with_negative_values_include_zero() {
        let b = Bars {
            title: "Model error per cell".into(),
            y_label: "error (%)".into(),
            categories: vec!["p=2".into(), "p=4".into(), "p=8".into()],
            groups: vec![
                ("farm".into(), vec![-4.0, 2.5, f64::NAN]),
                ("dnc".into(), vec![1.0, -1.5, 3.0]),
            ],
        };
        let svg = b.to_svg(640, 400).unwrap();
        assert_svg(&svg);
        let t = texts(&svg);
        for want in [
            "Model error per cell",
            "error (%)",
            "p=2",
            "p=4",
            "p=8",
            "farm",
            "dnc",
        ] {
            assert!(t.iter().any(|s| s == want), "missing {want:?} in {t:?}");
        }
        assert!(t.iter().any(|s| s == "0"), "zero tick: {t:?}");
        assert!(svg.contains("note: 1 value skipped"), "{svg}");
    }

    #[test]
    fn plot_bars_positive_only_and_long_categories() {
        let categories: Vec<String> = (0..30)
            .map(|i| format!("level {i} of the divide and conquer tree"))
            .collect();
        let b = Bars {
            title: "Task fractions".into(),
            y_label: "fraction".into(),
            groups: vec![(
                "measured".into(),
                (0..30).map(|i| f64::from(i) / 30.0).collect(),
            )],
            categories,
        };
        let svg = b.to_svg(800, 500).unwrap();
        assert_svg(&svg);
        assert!(svg.contains("rotate(270"), "long labels are rotated");
        assert!(texts(&svg).iter().any(|s| s == "0"));
    }

    #[test]
    fn plot_bars_empty_and_mismatched() {
        let mut b = Bars {
            title: "Empty".into(),
            y_label: "v".into(),
            categories: vec![],
            groups: vec![],
        };
        let svg = b.to_svg(400, 300).unwrap();
        assert_svg(&svg);
        assert!(texts(&svg).iter().any(|s| s == "no data"));
        b.categories = vec!["a".into()];
        b.groups = vec![("g".into(), vec![1.0, 2.0])];
        let e = b.to_svg(400, 300).unwrap_err().to_string();
        assert!(e.contains("2 values for 1 categories"), "{e}");
    }

    #[test]
    fn plot_timeline_has_row_labels_and_kinds() {
        let iv = [
            (0, 0.0, 1.0, "compute"),
            (0, 1.0, 1.2, "communication"),
            (1, 0.0, 0.5, "idle"),
            (1, 0.5, 1.5, "compute"),
            (2, 0.2, 0.9, "compute"),
            (2, 0.9, f64::NAN, "idle"),
        ];
        let svg = timeline_svg("Farm timeline", 3, &iv, 800, 300).unwrap();
        assert_svg(&svg);
        let t = texts(&svg);
        for want in [
            "Farm timeline",
            "P0",
            "P1",
            "P2",
            "compute",
            "communication",
            "idle",
            "time (s)",
        ] {
            assert!(t.iter().any(|s| s == want), "missing {want:?} in {t:?}");
        }
        let rows = t
            .iter()
            .filter(|s| s.starts_with('P') && s.len() == 2)
            .count();
        assert_eq!(rows, 3, "{t:?}");
        assert!(svg.contains("note: 1 interval skipped"), "{svg}");
    }

    #[test]
    fn plot_timeline_errors_and_empty() {
        let e = timeline_svg("t", 2, &[(2, 0.0, 1.0, "compute")], 400, 300)
            .unwrap_err()
            .to_string();
        assert!(e.contains("processor 2"), "{e}");
        let svg = timeline_svg("t", 0, &[], 400, 300).unwrap();
        assert!(texts(&svg).iter().any(|s| s == "no data"));
        let svg = timeline_svg("t", 2, &[(1, 0.0, 1.0, "send")], 400, 300).unwrap();
        assert!(
            texts(&svg).iter().any(|s| s == "send"),
            "unknown kind in legend"
        );
    }

    #[test]
    fn plot_timeline_many_rows_thins_labels() {
        let iv: Vec<(usize, f64, f64, &str)> = (0..256)
            .map(|p| (p, 0.0, p as f64 * 0.01, "compute"))
            .collect();
        let svg = timeline_svg("big", 256, &iv, 800, 400).unwrap();
        let rows = texts(&svg).iter().filter(|s| s.starts_with('P')).count();
        assert!(rows > 3 && rows < 64, "{rows} row labels");
    }

    #[test]
    fn plot_tick_formatting() {
        assert_eq!(format_number(1e-6), "1e-6");
        assert_eq!(format_number(1e6), "1e6");
        assert_eq!(format_number(2.5e-4), "2.5e-4");
        assert_eq!(format_number(0.30000000000000004), "0.3");
        assert_eq!(format_number(1000.0), "1000");
        assert_eq!(format_number(0.0012), "0.0012");
        let a = Axis::linear(-0.1, 1.1, 6.0);
        assert!(a.bold.iter().map(|v| a.label(*v)).any(|s| s == "0"));
        let a = Axis::linear(1000.1, 1000.5, 5.0);
        let labels: Vec<String> = a.bold.iter().map(|v| a.label(*v)).collect();
        assert!(labels.contains(&"1000.2".to_owned()), "{labels:?}");
        let a = Axis::linear(0.0, 3e7, 5.0);
        let labels: Vec<String> = a.bold.iter().map(|v| a.label(*v)).collect();
        assert!(labels.contains(&"1e7".to_owned()), "{labels:?}");
    }
}
