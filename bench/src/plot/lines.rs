//! Line charts: measured series beside their models, reference lines (the ideal speedup),
//! bands, error bars and marked points.
//!
//! A [`LineChart`] holds [`Pair`]s; pair `i` gets colour and marker shape `i`. A pair is a
//! measured series and its model in **one** colour: the measured points as markers (joined by
//! a thin solid line unless `markers_only`), with error bars where known, and the model as a
//! dashed line without markers. Either half may be empty: a model alone
//! ([`LineChart::model`]: a prediction), measurements alone (a residual plot). The legend
//! gives a pair one entry (its marker and dash, then its label) after a key that says, once,
//! which is which ("● measured  – – model"), shown when some pair has both halves.
//!
//! A model may go on beyond the measured range ([`LineChart::extrapolated`]): that part is
//! drawn with sparse dashes over a shaded stretch of the x axis, and the legend's key names it
//! ("– · – extrapolated").
//!
//! Pairs measured at the same x are **dodged**: their markers, error bars and joining lines
//! are shifted apart by [`DODGE_PX`] pixels around the x, so that no error bar hides another
//! (the x axis still reads the shared value).
//!
//! Drawing order, bottom to top: bands (the extrapolated stretch among them), reference lines,
//! model lines, measured lines, error bars, markers (with a white halo, so a dashed line
//! passing through a marker visibly stops at it), marks.

use std::collections::HashMap;

use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::{Axis, AxisSpec, Scale, Ticks};
use super::frame::{self, Glyph, LegendEntry};
use super::palette::{self, Shape};
use super::point::Point;
use super::text::{self, Metrics};

/// A measured series and its model, drawn in one colour; either may be empty.
#[derive(Clone, Debug, Default)]
pub(crate) struct Pair {
    /// Legend label of the pair (what distinguishes it from the other pairs: "tree:2").
    pub(crate) label: String,
    /// Measured points, drawn as markers with their error bars; lines join them in this order.
    pub(crate) measured: Vec<Point>,
    /// The model's curve, drawn dashed without markers, joined in this order.
    pub(crate) model: Vec<(f64, f64)>,
    /// Draw the measured points as markers only, not joined (scattered replicates).
    pub(crate) markers_only: bool,
    /// The model beyond the measured range, drawn with sparse dashes (its first point
    /// should be the model's last, so that the two join).
    pub(crate) extrapolated: Vec<(f64, f64)>,
}

/// A straight reference line `y = intercept + slope · x` over the data's x range, dotted: the
/// ideal speedup `S = P`, an efficiency of 1. It spans the data's x range (no ideal speedup
/// drawn at P < 1 because the axis is padded); the y axis takes it in whole unless that would
/// flatten the data (see [`REFERENCE_STRETCH`]), and clips it then.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Reference {
    /// Legend label: "ideal (S = P)".
    pub(crate) label: String,
    /// Value at `x = 0`.
    pub(crate) intercept: f64,
    /// Increase of `y` per unit of `x`.
    pub(crate) slope: f64,
}

impl Reference {
    /// The ideal speedup `S = P` (for speedup against processors).
    pub(crate) fn ideal_speedup() -> Self {
        Self {
            label: "ideal (S = P)".into(),
            intercept: 0.0,
            slope: 1.0,
        }
    }

    /// A horizontal line at `y` (an ideal efficiency of 1, a residual of 0).
    pub(crate) fn horizontal(label: impl Into<String>, y: f64) -> Self {
        Self {
            label: label.into(),
            intercept: y,
            slope: 0.0,
        }
    }
}

/// How far a reference line may stretch the y axis beyond the data's span: the ideal
/// speedup over a few processors is drawn whole, over thousands (where the data reach a
/// fraction of it) it is clipped rather than flatten the data.
const REFERENCE_STRETCH: f64 = 4.0;

/// The values of the reference lines at the ends of the x range that the y axis should include
/// so that they are not clipped: all of them, unless the span they make exceeds
/// [`REFERENCE_STRETCH`] times the data's span or largest value (`ys`).
fn reference_ends(references: &[Reference], xs: impl Iterator<Item = f64>, ys: &[f64]) -> Vec<f64> {
    let (x0, x1) = xs
        .filter(|x| x.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
    let (y0, y1) = ys
        .iter()
        .filter(|y| y.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &y| {
            (a.min(y), b.max(y))
        });
    if !(x0.is_finite() && y0.is_finite()) {
        return Vec::new();
    }
    let ends: Vec<f64> = references
        .iter()
        .flat_map(|r| [r.intercept + r.slope * x0, r.intercept + r.slope * x1])
        .filter(|v| v.is_finite())
        .collect();
    let lo = ends.iter().copied().fold(y0, f64::min);
    let hi = ends.iter().copied().fold(y1, f64::max);
    let span = (y1 - y0).max(y1.abs()).max(f64::MIN_POSITIVE);
    if hi - lo <= REFERENCE_STRETCH * span {
        ends
    } else {
        Vec::new()
    }
}

/// A shaded horizontal band from `low` to `high` (e.g. ±σ of residuals), behind the data.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Band {
    /// Legend label: "±σ = 0.12 ms".
    pub(crate) label: String,
    /// Lower edge.
    pub(crate) low: f64,
    /// Upper edge.
    pub(crate) high: f64,
}

/// A point singled out with a ring and a label (a peak, an optimum); the axes include it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Mark {
    /// Position along x.
    pub(crate) x: f64,
    /// Position along y.
    pub(crate) y: f64,
    /// What it is: "peak: N = 157, S = 41.2".
    pub(crate) label: String,
}

/// A line chart of measured/model pairs, with reference lines, bands and marks. Fields are
/// public; the builder methods fill them in order.
#[derive(Clone, Debug, Default)]
pub(crate) struct LineChart {
    /// Title above the plot (wrapped when longer than the image is wide).
    pub(crate) title: String,
    /// The x axis.
    pub(crate) x: AxisSpec,
    /// The y axis.
    pub(crate) y: AxisSpec,
    /// The pairs; pair `i` gets colour and marker shape `i`.
    pub(crate) curves: Vec<Pair>,
    /// Reference lines (dotted, dark grey).
    pub(crate) references: Vec<Reference>,
    /// Shaded bands (behind everything).
    pub(crate) bands: Vec<Band>,
    /// Marked points.
    pub(crate) marks: Vec<Mark>,
    /// The legend key's words for the two halves of a pair; `None`: "measured", "model".
    pub(crate) key: Option<(String, String)>,
    /// Dodge the markers of pairs sharing an x even without error bars (a residual plot,
    /// where two series' residuals at one P may coincide).
    pub(crate) dodge_markers: bool,
}

/// Pixels between the markers of pairs measured at one x (see the module docs).
pub(crate) const DODGE_PX: i32 = 9;

/// The legend key's words for a model's extrapolated part.
const EXTRAPOLATED: &str = "extrapolated (beyond the measured range)";

impl LineChart {
    /// An empty chart with a title and linear axes described by `x_label` and `y_label`.
    pub(crate) fn new(
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
    ) -> Self {
        Self {
            title: title.into(),
            x: AxisSpec::new(x_label, Scale::Linear),
            y: AxisSpec::new(y_label, Scale::Linear),
            ..Self::default()
        }
    }

    /// Sets the x axis scale.
    pub(crate) fn x_scale(mut self, scale: Scale) -> Self {
        self.x.scale = scale;
        self
    }

    /// Sets the y axis scale.
    pub(crate) fn y_scale(mut self, scale: Scale) -> Self {
        self.y.scale = scale;
        self
    }

    /// Sets where the x axis puts its labelled ticks (e.g. [`Ticks::Data`]).
    pub(crate) fn x_ticks(mut self, ticks: Ticks) -> Self {
        self.x.ticks = ticks;
        self
    }

    /// Makes the y axis include `y` (e.g. 0).
    pub(crate) fn y_include(mut self, y: f64) -> Self {
        self.y.include.push(y);
        self
    }

    /// Adds a measured series with its model, in one colour.
    pub(crate) fn pair(
        mut self,
        label: impl Into<String>,
        measured: impl IntoIterator<Item = Point>,
        model: impl IntoIterator<Item = (f64, f64)>,
    ) -> Self {
        self.curves.push(Pair {
            label: label.into(),
            measured: measured.into_iter().collect(),
            model: model.into_iter().collect(),
            markers_only: false,
            extrapolated: Vec::new(),
        });
        self
    }

    /// Continues the last pair's model beyond the measured range with `curve` (starting where
    /// the model ends), drawn as extrapolated.
    pub(crate) fn extrapolated(mut self, curve: impl IntoIterator<Item = (f64, f64)>) -> Self {
        if let Some(p) = self.curves.last_mut() {
            p.extrapolated = curve.into_iter().collect();
        }
        self
    }

    /// Adds a model's curve alone, nothing measured beside it (a prediction): dashed, in its
    /// own colour, an isolated point as a hollow circle.
    pub(crate) fn model(
        self,
        label: impl Into<String>,
        model: impl IntoIterator<Item = (f64, f64)>,
    ) -> Self {
        self.pair(label, [], model)
    }

    /// Draws the measured points of every pair as markers only, not joined (each point a
    /// cell of its own: a sweep's, a table's).
    pub(crate) fn scattered(mut self) -> Self {
        for p in &mut self.curves {
            p.markers_only = true;
        }
        self
    }

    /// Adds a reference line.
    pub(crate) fn reference(mut self, reference: Reference) -> Self {
        self.references.push(reference);
        self
    }

    /// Adds a shaded band.
    pub(crate) fn band(mut self, band: Band) -> Self {
        self.bands.push(band);
        self
    }

    /// Names the two halves of every pair in the legend's key ("measured (mean ± sd)",
    /// "model"); by default "measured" and "model".
    pub(crate) fn key(mut self, measured: impl Into<String>, model: impl Into<String>) -> Self {
        self.key = Some((measured.into(), model.into()));
        self
    }

    /// Marks a point with a ring and a label.
    pub(crate) fn mark(mut self, x: f64, y: f64, label: impl Into<String>) -> Self {
        self.marks.push(Mark {
            x,
            y,
            label: label.into(),
        });
        self
    }
}

/// A pair split into runs of drawable points (lines break at skipped points).
struct Prepared {
    /// Colour of the pair.
    colour: RGBColor,
    /// Marker shape of the pair.
    shape: Shape,
    /// Runs of measured points, drawn as markers.
    measured: Vec<Vec<Point>>,
    /// Whether measured runs are joined by a solid line.
    join: bool,
    /// Runs of model points, drawn dashed (an isolated one as a hollow circle).
    lines: Vec<Vec<(f64, f64)>>,
    /// Runs of the model's extrapolated points, drawn with sparse dashes.
    beyond: Vec<Vec<(f64, f64)>>,
    /// Pixels each measured x is shifted by (dodged), by the x's bits; absent: 0.
    dodge: HashMap<u64, i32>,
}

/// Fills every pair's [`Prepared::dodge`]: at an x where `k ≥ 2` pairs have measured points
/// with error bars (any points, with `markers`), the `j`-th of them (in pair order) is
/// shifted by `(j − (k − 1)/2) · DODGE_PX` pixels. Otherwise points without error bars stay
/// on their x (a marker hides less than a bar, and a scattered point off its x may misread).
fn dodge(prepared: &mut [Prepared], markers: bool) {
    let mut at: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, p) in prepared.iter().enumerate() {
        let mut xs: Vec<u64> = p
            .measured
            .iter()
            .flatten()
            .filter(|q| markers || q.error.and_then(|e| e.ends(q.y)).is_some())
            .map(|q| q.x.to_bits())
            .collect();
        xs.sort_unstable();
        xs.dedup();
        for x in xs {
            at.entry(x).or_default().push(i);
        }
    }
    for (x, pairs) in at {
        let k = pairs.len() as i32;
        if k < 2 {
            continue;
        }
        for (j, &i) in pairs.iter().enumerate() {
            let offset = (2 * j as i32 - (k - 1)) * DODGE_PX / 2;
            prepared[i].dodge.insert(x, offset);
        }
    }
}

/// Splits `points` into runs of consecutive valid ones, counting the invalid.
fn runs<T: Copy>(points: &[T], valid: impl Fn(&T) -> bool, skipped: &mut usize) -> Vec<Vec<T>> {
    let mut out: Vec<Vec<T>> = vec![Vec::new()];
    for p in points {
        if valid(p) {
            if let Some(run) = out.last_mut() {
                run.push(*p);
            }
        } else {
            *skipped += 1;
            if out.last().is_some_and(|r| !r.is_empty()) {
                out.push(Vec::new());
            }
        }
    }
    out.retain(|r| !r.is_empty());
    out
}

impl LineChart {
    /// Renders to an SVG string (so callers can write it atomically).
    ///
    /// Points that cannot be shown (NaN/inf, or `<= 0` on a log axis) are skipped and counted
    /// in a footnote; lines break at them. A chart with nothing to show renders with a
    /// "no data" note instead of failing. Errors only for an image smaller than
    /// [`MIN_WIDTH`](super::frame::MIN_WIDTH) x [`MIN_HEIGHT`](super::frame::MIN_HEIGHT) or a data range
    /// too wide to represent.
    pub(crate) fn to_svg(&self, width: u32, height: u32) -> anyhow::Result<String> {
        frame::check_size(width, height)?;
        let m = text::metrics()?;
        let (x_log, y_log) = (self.x.scale == Scale::Log10, self.y.scale == Scale::Log10);
        let ok = |x: f64, y: f64| {
            x.is_finite() && y.is_finite() && (!x_log || x > 0.0) && (!y_log || y > 0.0)
        };

        let mut skipped = 0usize;
        let mut prepared: Vec<Prepared> = self
            .curves
            .iter()
            .enumerate()
            .map(|(i, pair)| Prepared {
                colour: palette::colour(i),
                shape: palette::shape(i),
                measured: runs(&pair.measured, |p| ok(p.x, p.y), &mut skipped),
                join: !pair.markers_only,
                lines: runs(&pair.model, |&(x, y)| ok(x, y), &mut skipped),
                beyond: runs(&pair.extrapolated, |&(x, y)| ok(x, y), &mut skipped),
                dodge: HashMap::new(),
            })
            .collect();
        dodge(&mut prepared, self.dodge_markers);
        let marks: Vec<&Mark> = self.marks.iter().filter(|k| ok(k.x, k.y)).collect();
        let has_data = prepared
            .iter()
            .any(|p| !p.measured.is_empty() || !p.lines.is_empty() || !p.beyond.is_empty());

        // Axis ranges: the data, error bars and marks (reference lines and bands do not widen).
        let measured = || prepared.iter().flat_map(|p| p.measured.iter().flatten());
        let lines = || {
            prepared
                .iter()
                .flat_map(|p| p.lines.iter().chain(&p.beyond).flatten())
        };
        let xs = measured()
            .map(|p| p.x)
            .chain(lines().map(|p| p.0))
            .chain(marks.iter().map(|k| k.x));
        let mut ys: Vec<f64> = measured()
            .flat_map(|p| {
                let (lo, hi) = p.error.and_then(|e| e.ends(p.y)).unwrap_or((p.y, p.y));
                [p.y, lo, hi]
            })
            .chain(lines().map(|p| p.1))
            .chain(marks.iter().map(|k| k.y))
            .collect();
        ys.extend(reference_ends(&self.references, xs.clone(), &ys));
        let data_x: Vec<f64> = measured().map(|p| p.x).collect();

        let legend = self.legend(&prepared);
        let mut notes = Vec::new();
        if has_data && skipped > 0 {
            notes.push(frame::skipped(
                skipped,
                "point",
                "NaN/inf or ≤ 0 on a log axis",
            ));
        }

        let mut svg = String::new();
        {
            let (root, body) = frame::page(&mut svg, (width, height), &self.title, &legend, &m)?;
            let (bw, bh) = body.dim_in_pixel();
            let notes_h = frame::notes_height(notes.len());
            let x_area = text::line_height(text::LABEL) + text::line_height(text::DESC) + 22.0;
            let plot_h = (f64::from(bh) - x_area - notes_h - 20.0).max(20.0);
            let mut y_axis = Axis::new(&self.y, ys.iter().copied(), &[], (plot_h / 45.0).max(4.0))?;
            let y_area = (m.widest(y_axis.tick_labels().iter().map(String::as_str), text::LABEL)
                + text::line_height(text::DESC)
                + 24.0)
                .min(f64::from(width) / 3.0);
            let plot_w = (f64::from(bw) - y_area - 40.0).max(20.0);
            let mut x_axis = Axis::new(&self.x, xs, &data_x, plot_w / 100.0)?;
            x_axis.thin(plot_w, |s| m.width(s, text::LABEL), 12.0);
            y_axis.thin(plot_h, |_| text::line_height(text::LABEL), 4.0);
            let last_half = x_axis
                .bold
                .last()
                .filter(|v| x_axis.fraction(**v) > 0.97)
                .map_or(0.0, |v| m.width(&x_axis.label(*v), text::LABEL) / 2.0);
            let (body, _) = body.split_vertically((f64::from(bh) - notes_h) as i32);
            let mut chart = ChartBuilder::on(&body)
                .margin_top(12)
                .margin_left(12)
                .margin_bottom(6)
                .margin_right((last_half + 6.0).max(20.0) as i32)
                .x_label_area_size(x_area as i32)
                .y_label_area_size(y_area as i32)
                .build_cartesian_2d(x_axis.clone(), y_axis.clone())
                .map_err(frame::draw_err)?;
            frame::mesh(&mut chart)
                .x_desc(self.x.label.as_str())
                .y_desc(self.y.label.as_str())
                .draw()
                .map_err(frame::draw_err)?;
            let data_x = measured()
                .map(|p| p.x)
                .chain(lines().map(|p| p.0))
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                    (lo.min(v), hi.max(v))
                });
            let canvas = Canvas {
                root: &root,
                chart: &chart,
                x: &x_axis,
                y: &y_axis,
                data_x: if data_x.0 <= data_x.1 {
                    data_x
                } else {
                    (x_axis.lo, x_axis.hi)
                },
            };
            canvas.extrapolated_stretch(&prepared)?;
            canvas.bands(&self.bands)?;
            canvas.references(&self.references)?;
            canvas.curves(&prepared)?;
            canvas.marks(&marks, &prepared, &m)?;

            let no_data = match (has_data, skipped) {
                (true, _) => None,
                (false, 0) => Some("no data"),
                (false, _) => Some("no data (every point was NaN/inf or ≤ 0 on a log axis)"),
            };
            frame::finish(&root, &chart, no_data, &notes)?;
        }
        Ok(svg)
    }

    /// The legend: the pairs' key (once, if any pair has both halves), then one entry per
    /// pair, reference line and band.
    fn legend(&self, prepared: &[Prepared]) -> Vec<LegendEntry> {
        let mut entries = Vec::new();
        let both_halves = |p: &Pair| !p.measured.is_empty() && !p.model.is_empty();
        // A model drawn as lone points (an open circle each) has that glyph, not a dash.
        let lone = |p: &Prepared| !p.lines.is_empty() && p.lines.iter().all(|r| r.len() == 1);
        if self.curves.iter().any(both_halves) {
            let (measured, model) = self
                .key
                .clone()
                .unwrap_or_else(|| ("measured".into(), "model".into()));
            let joined = self.curves.iter().any(|p| !p.markers_only);
            entries.push(LegendEntry {
                glyphs: vec![if joined {
                    Glyph::LineMarker(palette::INK, Shape::Circle)
                } else {
                    Glyph::Marker(palette::INK, Shape::Circle)
                }],
                label: measured,
            });
            let models: Vec<&Prepared> = prepared.iter().filter(|p| !p.lines.is_empty()).collect();
            entries.push(LegendEntry {
                glyphs: vec![if !models.is_empty() && models.iter().all(|p| lone(p)) {
                    Glyph::Hollow(palette::INK)
                } else {
                    Glyph::Dashed(palette::INK)
                }],
                label: model,
            });
        }
        if self.curves.iter().any(|p| !p.extrapolated.is_empty()) {
            entries.push(LegendEntry {
                glyphs: vec![
                    Glyph::Sparse(palette::INK),
                    Glyph::Box(palette::extrapolated()),
                ],
                label: EXTRAPOLATED.into(),
            });
        }
        for (pair, p) in self.curves.iter().zip(prepared) {
            let (c, s) = (p.colour, p.shape);
            let mut glyphs = Vec::new();
            if !pair.measured.is_empty() {
                glyphs.push(if pair.markers_only {
                    Glyph::Marker(c, s)
                } else {
                    Glyph::LineMarker(c, s)
                });
            }
            if lone(p) {
                glyphs.push(Glyph::Hollow(c));
            } else if !pair.model.is_empty() {
                glyphs.push(Glyph::Dashed(c));
            }
            entries.push(LegendEntry {
                glyphs,
                label: pair.label.clone(),
            });
        }
        for (i, r) in self.references.iter().enumerate() {
            let (colour, dash) = frame::reference_style(i);
            entries.push(LegendEntry {
                glyphs: vec![Glyph::Dotted(colour, dash)],
                label: r.label.clone(),
            });
        }
        for b in &self.bands {
            entries.push(LegendEntry {
                glyphs: vec![Glyph::Box(palette::band())],
                label: b.label.clone(),
            });
        }
        entries
    }
}

/// Where the data are drawn: the image, the chart's coordinates, its axes.
struct Canvas<'c, 'a> {
    /// The whole image (data are drawn in its pixels).
    root: &'c frame::Root<'a>,
    /// The chart, mapping data to pixels.
    chart: &'c frame::AxisChart<'a>,
    /// The x axis.
    x: &'c Axis,
    /// The y axis.
    y: &'c Axis,
    /// The x range of the data (measured points and lines), where reference lines are drawn.
    data_x: (f64, f64),
}

impl Canvas<'_, '_> {
    /// The pixel of a data point.
    fn px(&self, x: f64, y: f64) -> (i32, i32) {
        self.chart.backend_coord(&(x, y))
    }

    /// `y` pinned to the y range (values `<= 0` on a log axis to its bottom).
    fn clamp_y(&self, y: f64) -> f64 {
        if self.y.log && y <= 0.0 {
            self.y.lo
        } else {
            y.clamp(self.y.lo, self.y.hi)
        }
    }

    /// The pixel of a measured point of `pair`, dodged.
    fn px_measured(&self, pair: &Prepared, q: &Point) -> (i32, i32) {
        let (x, y) = self.px(q.x, q.y);
        (x + pair.dodge.get(&q.x.to_bits()).copied().unwrap_or(0), y)
    }

    /// The stretch of the x axis beyond the measured points where some model is
    /// extrapolated, shaded from the last measured x to the axis' end.
    fn extrapolated_stretch(&self, prepared: &[Prepared]) -> anyhow::Result<()> {
        let beyond = prepared.iter().flat_map(|p| p.beyond.iter().flatten());
        let Some(end) = beyond.map(|p| p.0).reduce(f64::max) else {
            return Ok(());
        };
        let measured = prepared.iter().flat_map(|p| {
            p.measured
                .iter()
                .flatten()
                .map(|q| q.x)
                .chain(p.lines.iter().flatten().map(|l| l.0))
        });
        let Some(from) = measured.reduce(f64::max).filter(|&f| f < end) else {
            return Ok(());
        };
        let corners = [self.px(from, self.y.hi), self.px(self.x.hi, self.y.lo)];
        self.root
            .draw(&Rectangle::new(corners, palette::extrapolated().filled()))
            .map_err(frame::draw_err)
    }

    /// Shaded bands across the whole width.
    fn bands(&self, bands: &[Band]) -> anyhow::Result<()> {
        for band in bands {
            let lo = self.clamp_y(band.low.min(band.high));
            let hi = self.clamp_y(band.low.max(band.high));
            if lo.is_finite() && hi.is_finite() && hi > lo {
                let corners = [self.px(self.x.lo, hi), self.px(self.x.hi, lo)];
                self.root
                    .draw(&Rectangle::new(corners, palette::band().filled()))
                    .map_err(frame::draw_err)?;
            }
        }
        Ok(())
    }

    /// Reference lines, dotted, clipped to the chart.
    fn references(&self, references: &[Reference]) -> anyhow::Result<()> {
        for (i, r) in references.iter().enumerate() {
            let (colour, (dash, gap)) = frame::reference_style(i);
            for run in reference_runs(r, self.x, self.y, self.data_x) {
                let pts: Vec<(i32, i32)> = run.iter().map(|&(x, y)| self.px(x, y)).collect();
                self.root
                    .draw(&DashedPathElement::new(
                        pts,
                        dash,
                        gap,
                        colour.stroke_width(2),
                    ))
                    .map_err(frame::draw_err)?;
            }
        }
        Ok(())
    }

    /// The pairs, in layers: model lines, measured lines, error bars, markers.
    fn curves(&self, prepared: &[Prepared]) -> anyhow::Result<()> {
        let path = |pts: Vec<(i32, i32)>, colour: RGBColor, dashed: bool| {
            let style = colour.stroke_width(2);
            if dashed {
                let (dash, gap) = frame::MODEL_DASH;
                self.root
                    .draw(&DashedPathElement::new(pts, dash, gap, style))
            } else {
                self.root.draw(&PathElement::new(pts, style))
            }
            .map_err(frame::draw_err)
        };
        for p in prepared {
            for run in p.lines.iter().filter(|r| r.len() > 1) {
                path(
                    run.iter().map(|&(x, y)| self.px(x, y)).collect(),
                    p.colour,
                    true,
                )?;
            }
            for run in p.beyond.iter().filter(|r| r.len() > 1) {
                let pts: Vec<(i32, i32)> = run.iter().map(|&(x, y)| self.px(x, y)).collect();
                let (dash, gap) = frame::SPARSE_DASH;
                self.root
                    .draw(&DashedPathElement::new(
                        pts,
                        dash,
                        gap,
                        p.colour.stroke_width(2),
                    ))
                    .map_err(frame::draw_err)?;
            }
        }
        for p in prepared.iter().filter(|p| p.join) {
            for run in p.measured.iter().filter(|r| r.len() > 1) {
                path(
                    run.iter().map(|q| self.px_measured(p, q)).collect(),
                    p.colour,
                    false,
                )?;
            }
        }
        for p in prepared {
            for q in p.measured.iter().flatten() {
                if let Some((lo, hi)) = q.error.and_then(|e| e.ends(q.y)) {
                    let x = self.px_measured(p, q).0;
                    let top = (x, self.px(q.x, self.clamp_y(hi)).1);
                    let bottom = (x, self.px(q.x, self.clamp_y(lo)).1);
                    error_bar(self.root, top, bottom, p.colour)?;
                }
            }
        }
        for p in prepared {
            for q in p.measured.iter().flatten() {
                frame::marker(self.root, self.px_measured(p, q), p.shape, p.colour)?;
            }
            for run in p.lines.iter().filter(|r| r.len() == 1) {
                frame::hollow_marker(self.root, self.px(run[0].0, run[0].1), p.colour)?;
            }
        }
        Ok(())
    }

    /// The marks, each label where it hides the fewest data pixels.
    fn marks(&self, marks: &[&Mark], prepared: &[Prepared], m: &Metrics) -> anyhow::Result<()> {
        if marks.is_empty() {
            return Ok(());
        }
        // What a label must not hide: every marker, and the lines every 4 px.
        let mut obstacles: Vec<(i32, i32)> = Vec::new();
        for p in prepared {
            let measured = p
                .measured
                .iter()
                .map(|r| r.iter().map(|q| self.px_measured(p, q)).collect());
            let lines = p
                .lines
                .iter()
                .map(|r| r.iter().map(|&(x, y)| self.px(x, y)).collect());
            for run in measured.chain(lines).collect::<Vec<Vec<(i32, i32)>>>() {
                obstacles.extend(sampled(&run, 4.0));
            }
        }
        let area = self.chart.plotting_area().get_pixel_range();
        let mut placed = Vec::new();
        for k in marks {
            let at = self.px(k.x, k.y);
            obstacles.push(at);
            mark(self.root, at, &k.label, (&area, &obstacles), &mut placed, m)?;
        }
        Ok(())
    }
}

/// The parts of a reference line inside the chart over the data's x range `from..=to`, as runs
/// of data points: sampled along x (a straight line is curved on a log axis), clipped to the
/// y range.
fn reference_runs(
    r: &Reference,
    x: &Axis,
    y: &Axis,
    (from, to): (f64, f64),
) -> Vec<Vec<(f64, f64)>> {
    const SAMPLES: usize = 200;
    let n = SAMPLES as f64;
    let (a, b) = (
        x.fraction(from).clamp(0.0, 1.0),
        x.fraction(to).clamp(0.0, 1.0),
    );
    let along = |t: f64| x.value_at(a + (b - a) * t / n);
    let f = |i: usize| y.fraction(r.intercept + r.slope * along(i as f64));
    let flush = |run: &mut Vec<(f64, f64)>, out: &mut Vec<Vec<(f64, f64)>>| {
        if run.len() > 1 {
            out.push(std::mem::take(run));
        } else {
            run.clear();
        }
    };
    let mut out = Vec::new();
    let mut run = Vec::new();
    for i in 0..SAMPLES {
        let (f0, f1) = (f(i), f(i + 1));
        let Some((t0, t1)) = clip_unit(f0, f1) else {
            flush(&mut run, &mut out);
            continue;
        };
        // Interpolate in axis space, so that clipped ends sit on the frame.
        let at = |t: f64| (along(i as f64 + t), y.value_at(f0 + t * (f1 - f0)));
        if t0 > 0.0 {
            flush(&mut run, &mut out);
        }
        if run.is_empty() {
            run.push(at(t0));
        }
        run.push(at(t1));
        if t1 < 1.0 {
            flush(&mut run, &mut out);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// The part `t0..=t1` of `0..=1` where `f0 + t (f1 − f0)` lies in `0..=1`, if any.
fn clip_unit(f0: f64, f1: f64) -> Option<(f64, f64)> {
    if !(f0.is_finite() && f1.is_finite()) {
        return None;
    }
    let df = f1 - f0;
    if df == 0.0 {
        return (0.0..=1.0).contains(&f0).then_some((0.0, 1.0));
    }
    let (ta, tb) = (-f0 / df, (1.0 - f0) / df);
    let (t0, t1) = (ta.min(tb).max(0.0), ta.max(tb).min(1.0));
    (t0 <= t1).then_some((t0, t1))
}

/// An error bar from `top` to `bottom` (pixels) with 10-px caps.
fn error_bar(
    root: &frame::Root<'_>,
    top: (i32, i32),
    bottom: (i32, i32),
    colour: RGBColor,
) -> anyhow::Result<()> {
    let style = colour.stroke_width(2);
    let cap = |(x, y): (i32, i32)| PathElement::new(vec![(x - 5, y), (x + 5, y)], style);
    root.draw(&PathElement::new(vec![top, bottom], style))
        .map_err(frame::draw_err)?;
    root.draw(&cap(top)).map_err(frame::draw_err)?;
    root.draw(&cap(bottom)).map_err(frame::draw_err)
}

/// The points of a pixel polyline, with points added along segments every `step` pixels.
fn sampled(run: &[(i32, i32)], step: f64) -> Vec<(i32, i32)> {
    let mut out: Vec<(i32, i32)> = run.first().copied().into_iter().collect();
    for w in run.windows(2) {
        let (a, b) = (w[0], w[1]);
        let d = f64::from(b.0 - a.0).hypot(f64::from(b.1 - a.1));
        let n = (d / step).ceil().max(1.0) as i32;
        out.extend((1..=n).map(|i| {
            let t = f64::from(i) / f64::from(n);
            (
                a.0 + (t * f64::from(b.0 - a.0)).round() as i32,
                a.1 + (t * f64::from(b.1 - a.1)).round() as i32,
            )
        }));
    }
    out
}

/// A label's box: left, top, right, bottom in pixels.
type LabelBox = (i32, i32, i32, i32);

/// Rings the point at `at` and writes `label` beside it on a white ground, joined by a short
/// leader: of the places around the point (right or left, above or below, near or farther)
/// inside the plot area, the one covering the fewest `obstacles` (data pixels) and no label
/// already `placed`.
fn mark(
    root: &frame::Root<'_>,
    at: (i32, i32),
    label: &str,
    (area, obstacles): (&frame::PixelArea, &[(i32, i32)]),
    placed: &mut Vec<LabelBox>,
    m: &Metrics,
) -> anyhow::Result<()> {
    const RING: i32 = 10;
    root.draw(&Circle::new(at, RING, palette::INK.stroke_width(2)))
        .map_err(frame::draw_err)?;
    let w = m.width(label, text::LABEL).ceil() as i32 + 6;
    let h = text::line_height(text::LABEL).ceil() as i32 + 2;
    let inside = |b: &LabelBox| {
        b.0 >= area.0.start && b.2 <= area.0.end && b.1 >= area.1.start && b.3 <= area.1.end
    };
    let cost = |b: &LabelBox| {
        let hidden = obstacles
            .iter()
            .filter(|p| p.0 >= b.0 - 3 && p.0 <= b.2 + 3 && p.1 >= b.1 - 3 && p.1 <= b.3 + 3)
            .count();
        let clash = placed
            .iter()
            .any(|q| b.0 < q.2 && q.0 < b.2 && b.1 < q.3 && q.1 < b.3);
        hidden + if clash { 100_000 } else { 0 }
    };
    // Candidates in order of preference: up-right first; ties keep the earlier one.
    let mut best: Option<(usize, LabelBox, (i32, i32))> = None;
    for d in [16, 36, 64] {
        for (sx, sy) in [(1, -1), (1, 1), (-1, -1), (-1, 1)] {
            let x0 = if sx > 0 { at.0 + d } else { at.0 - d - w };
            let y0 = if sy < 0 { at.1 - d - h } else { at.1 + d };
            let b = (x0, y0, x0 + w, y0 + h);
            if !inside(&b) {
                continue;
            }
            let corner = (
                if sx > 0 { b.0 } else { b.2 },
                if sy < 0 { b.3 } else { b.1 },
            );
            let c = cost(&b);
            if best.is_none_or(|(bc, ..)| c < bc) {
                best = Some((c, b, corner));
            }
        }
    }
    // No place inside the plot (a tiny image): up-right, clamped to the image.
    let (_, b, corner) = best.unwrap_or_else(|| {
        let b = (at.0 + 16, at.1 - 16 - h, at.0 + 16 + w, at.1 - 16);
        (0, b, (b.0, b.3))
    });
    placed.push(b);
    let (ux, uy) = (f64::from(corner.0 - at.0), f64::from(corner.1 - at.1));
    let d = ux.hypot(uy).max(1.0);
    let start = (
        at.0 + (f64::from(RING) * ux / d).round() as i32,
        at.1 + (f64::from(RING) * uy / d).round() as i32,
    );
    root.draw(&PathElement::new(
        vec![start, corner],
        palette::INK.stroke_width(1),
    ))
    .map_err(frame::draw_err)?;
    root.draw(&Rectangle::new(
        [(b.0, b.1), (b.2, b.3)],
        WHITE.mix(0.9).filled(),
    ))
    .map_err(frame::draw_err)?;
    frame::label(
        root,
        label,
        (b.0 + 3, (b.1 + b.3) / 2),
        text::LABEL,
        &palette::INK,
        (HPos::Left, VPos::Center),
    )
}

#[cfg(test)]
mod tests {
    use super::super::svg_check::{assert_svg, attr, coloured, elements, has_text, texts};
    use super::*;
    use crate::plot::point::ErrorBar;

    const BLUE: &str = "#1F77B4";
    const ORANGE: &str = "#FF7F0E";
    const GREEN: &str = "#2CA02C";
    const INK: &str = "#3C3C3C";

    /// An empty chart with a title, axis labels and the given scales.
    fn chart(x_scale: Scale, y_scale: Scale) -> LineChart {
        LineChart::new("Speedup of farm", "processors p", "speedup S(p)")
            .x_scale(x_scale)
            .y_scale(y_scale)
    }

    /// Points without error bars.
    fn points<const N: usize>(xy: [(f64, f64); N]) -> [Point; N] {
        xy.map(Point::from)
    }

    /// The points of a `<polyline>`.
    fn polyline_points(e: &str) -> Vec<(i32, i32)> {
        attr(e, "points")
            .unwrap_or("")
            .split_whitespace()
            .filter_map(|p| {
                let (x, y) = p.split_once(',')?;
                Some((x.parse().ok()?, y.parse().ok()?))
            })
            .collect()
    }

    #[test]
    fn plot_chart_has_title_labels_and_legend() {
        let c = chart(Scale::Linear, Scale::Linear)
            .pair(
                "farm",
                points([(1.0, 1.0), (2.0, 1.9), (4.0, 3.5), (8.0, 6.1)]),
                [(1.0, 1.0), (8.0, 7.0)],
            )
            .pair("scatter", points([(3.0, 2.0)]), [(1.0, 0.5), (8.0, 4.0)])
            .pair("other", points([(5.0, 2.0)]), [])
            .scattered();
        let svg = c.to_svg(800, 500).unwrap();
        assert_svg(&svg);
        // The key "measured", "model", then one entry per pair; "other" has no model.
        for want in [
            "Speedup of farm",
            "processors p",
            "speedup S(p)",
            "measured",
            "model",
            "farm",
            "scatter",
            "other",
        ] {
            assert!(
                has_text(&svg, want),
                "missing {want:?} in {:?}",
                texts(&svg)
            );
        }
        assert!(has_text(&svg, "4"), "{:?}", texts(&svg));
        assert!(!svg.contains("skipped"));
        // Three curves, three colours: the pairs' models are drawn in their measured colour.
        assert!(!coloured(&svg, "polyline", "stroke", BLUE).is_empty());
        assert!(!coloured(&svg, "polyline", "stroke", ORANGE).is_empty());
        assert!(
            !coloured(&svg, "polygon", "fill", GREEN).is_empty(),
            "other: a square"
        );
        assert!(!svg.contains("#D62728"), "no fourth colour");
    }

    #[test]
    fn plot_measured_and_model_pairs_share_a_colour_and_markers_sit_on_top() {
        // The sweep's shape: per group its measured cells, scattered, and its model.
        let mut c = chart(Scale::Linear, Scale::Linear);
        for (k, factor) in [("tree T_e = 1 ms", 1.0), ("tree T_e = 5 ms", 0.8)] {
            let ps = [1.0, 3.0, 7.0, 15.0];
            c = c.pair(
                k,
                ps.map(|p| Point::new(p, factor * p * 0.8)),
                ps.map(|p| (p, factor * p * 0.85)),
            );
        }
        let svg = c.scattered().to_svg(960, 600).unwrap();
        // Below the title and legend: the plot.
        let in_plot = |e: &&str| match attr(e, "points") {
            Some(_) => polyline_points(e).iter().all(|p| p.1 > 110),
            None => {
                attr(e, "cy")
                    .or(attr(e, "y"))
                    .and_then(|y| y.parse::<f64>().ok())
                    > Some(110.0)
            }
        };
        for colour in [BLUE, ORANGE] {
            let dashes: Vec<&str> = coloured(&svg, "polyline", "stroke", colour)
                .into_iter()
                .filter(in_plot)
                .collect();
            assert!(
                dashes.len() > 3,
                "model of {colour} is dashed: {}",
                dashes.len()
            );
            let markers: Vec<&str> = coloured(&svg, "circle", "fill", colour)
                .into_iter()
                .chain(coloured(&svg, "polygon", "fill", colour))
                .filter(in_plot)
                .collect();
            assert!(markers.len() >= 4, "measured of {colour}: {markers:?}");
            // Every marker comes after (is drawn over) every model dash.
            let last_dash = dashes.iter().map(|d| svg.find(d).unwrap()).max().unwrap();
            let first_marker = markers.iter().map(|e| svg.find(e).unwrap()).min().unwrap();
            assert!(first_marker > last_dash, "{colour}: marker under a dash");
        }
        assert!(
            !svg.contains("#2CA02C") && !svg.contains("#D62728"),
            "two colours only"
        );
        // One legend entry per pair, by its label, after the key given once.
        assert!(has_text(&svg, "tree T_e = 1 ms") && has_text(&svg, "tree T_e = 5 ms"));
        assert_eq!(texts(&svg).iter().filter(|t| *t == "model").count(), 1);
        // Markers are 10 px across.
        let r: f64 = coloured(&svg, "circle", "fill", BLUE)
            .first()
            .and_then(|e| attr(e, "r"))
            .and_then(|r| r.parse().ok())
            .unwrap();
        assert!(r >= 5.0, "{r}");
    }

    #[test]
    fn plot_model_alone_is_dashed_in_its_colour_without_a_key() {
        let svg = LineChart::new("Figure 5", "granularity g", "speedup")
            .model("N = 3", [(1.0, 1.0), (2.0, 1.6), (4.0, 2.1), (8.0, 2.4)])
            .model("N = 15", [(4.0, 5.0)])
            .to_svg(800, 500)
            .unwrap();
        assert_svg(&svg);
        // The legend's dash and the line's dashes, and no marker of its own.
        assert!(coloured(&svg, "polyline", "stroke", BLUE).len() > 3);
        assert!(coloured(&svg, "circle", "fill", BLUE).is_empty());
        // An isolated model point: one hollow circle in its colour, and its legend's glyph.
        assert_eq!(coloured(&svg, "circle", "stroke", ORANGE).len(), 2);
        assert!(coloured(&svg, "polygon", "fill", ORANGE).is_empty());
        // One entry per model, and no measured/model key with nothing measured.
        assert!(has_text(&svg, "N = 3") && has_text(&svg, "N = 15"));
        assert!(
            !has_text(&svg, "measured") && !has_text(&svg, "model"),
            "{:?}",
            texts(&svg)
        );
    }

    #[test]
    fn plot_log_axis_is_ticked_at_the_processor_counts_used() {
        let ps: Vec<f64> = (1..=8).map(|i| 2f64.powi(i)).collect();
        let c = LineChart::new("Efficiency", "processors P", "efficiency E(P)")
            .x_scale(Scale::Log10)
            .pair(
                "ring",
                ps.iter().map(|&p| Point::new(p, 1.0 / (1.0 + 0.01 * p))),
                ps.iter().map(|&p| (p, 1.0 / (1.0 + 0.011 * p))),
            );
        let svg = c.to_svg(960, 600).unwrap();
        for p in ["2", "4", "8", "16", "32", "64", "128", "256"] {
            assert!(has_text(&svg, p), "no tick {p}: {:?}", texts(&svg));
        }
        assert!(
            !has_text(&svg, "10") && !has_text(&svg, "100"),
            "{:?}",
            texts(&svg)
        );
    }

    #[test]
    fn plot_error_bars_are_drawn_with_caps() {
        let pts = [(1.0, 2.0), (2.0, 3.0), (4.0, 3.5), (8.0, 4.0)];
        let plain = LineChart::new("t", "x", "y").pair("a", pts.map(Point::from), []);
        let with = LineChart::new("t", "x", "y").pair(
            "a",
            pts.map(|(x, y)| Point::with_error(x, y, ErrorBar::PlusMinus(0.4))),
            [],
        );
        let count = |c: &LineChart| {
            let svg = c.to_svg(640, 480).unwrap();
            coloured(&svg, "polyline", "stroke", BLUE).len()
        };
        // Per point: a stem and two caps.
        assert_eq!(count(&with) - count(&plain), 4 * 3);
        // A bar reaching below 0 on a log axis is cut at the axis, and nothing is NaN.
        let log = LineChart::new("t", "x", "y").y_scale(Scale::Log10).pair(
            "a",
            [Point::with_error(
                1.0,
                1.0,
                ErrorBar::Range {
                    low: -1.0,
                    high: 3.0,
                },
            )],
            [],
        );
        let svg = log.to_svg(640, 480).unwrap();
        assert!(!svg.contains("NaN"));
        // The legend's line, then stem and caps.
        assert_eq!(coloured(&svg, "polyline", "stroke", BLUE).len(), 1 + 3);
        // The axis covers the bars: 3.0 + the padding is inside.
        let top = LineChart::new("t", "x", "y").pair(
            "a",
            [
                Point::with_error(1.0, 1.0, ErrorBar::PlusMinus(9.0)),
                Point::new(2.0, 1.0),
            ],
            [],
        );
        assert!(has_text(&top.to_svg(640, 480).unwrap(), "10"));
    }

    /// The x pixel of the vertical stems (error bars) of `colour`.
    fn stem_xs(svg: &str, colour: &str) -> Vec<i32> {
        let mut xs: Vec<i32> = coloured(svg, "polyline", "stroke", colour)
            .into_iter()
            .map(polyline_points)
            .filter(|p| p.len() == 2 && p[0].0 == p[1].0 && p[0].1 != p[1].1)
            .map(|p| p[0].0)
            .collect();
        xs.sort_unstable();
        xs.dedup();
        xs
    }

    #[test]
    fn plot_error_bars_of_pairs_sharing_an_x_are_dodged_apart() {
        // Three variants measured at P = 1 and 2, each with a spread: their stems must not
        // sit on one another.
        let with =
            |s: f64| [1.0, 2.0].map(|p| Point::with_error(p, s * p, ErrorBar::PlusMinus(0.1)));
        let svg = LineChart::new("t", "processors P", "speedup")
            .pair("runtime", with(1.0), [])
            .pair("rayon", with(1.0), [])
            .pair("scoped threads", with(1.0), [])
            .to_svg(640, 480)
            .unwrap();
        let [b, o, g] = [BLUE, ORANGE, GREEN].map(|c| stem_xs(&svg, c));
        assert_eq!((b.len(), o.len(), g.len()), (2, 2, 2));
        for i in 0..2 {
            // In pair order, DODGE_PX apart, centred on the shared x.
            assert_eq!(o[i] - b[i], DODGE_PX, "{b:?} {o:?}");
            assert_eq!(g[i] - o[i], DODGE_PX, "{o:?} {g:?}");
        }
        // Without error bars, the markers stay on their x.
        let mut plain = LineChart::new("t", "x", "y")
            .pair("a", points([(1.0, 1.0)]), [])
            .pair("b", points([(1.0, 2.0)]), []);
        let mut prepared: Vec<Prepared> = plain
            .curves
            .drain(..)
            .enumerate()
            .map(|(i, p)| Prepared {
                colour: palette::colour(i),
                shape: palette::shape(i),
                measured: vec![p.measured],
                join: true,
                lines: Vec::new(),
                beyond: Vec::new(),
                dodge: HashMap::new(),
            })
            .collect();
        dodge(&mut prepared, false);
        assert!(prepared.iter().all(|p| p.dodge.is_empty()));
        // A residual plot dodges them all: two residuals at one x both seen.
        dodge(&mut prepared, true);
        let offsets: Vec<i32> = prepared.iter().map(|p| p.dodge[&1f64.to_bits()]).collect();
        assert_eq!(offsets, vec![-DODGE_PX / 2, DODGE_PX / 2]);
    }

    #[test]
    fn plot_an_extrapolated_model_is_shaded_and_named_in_the_key() {
        let model = [(1.0, 1.0), (2.0, 1.9), (4.0, 3.5)];
        let beyond = [(4.0, 3.5), (8.0, 6.0), (16.0, 9.0)];
        let plain = LineChart::new("t", "processors P", "speedup")
            .pair("fit", points(model), model)
            .to_svg(640, 480)
            .unwrap();
        let svg = LineChart::new("t", "processors P", "speedup")
            .pair("fit", points(model), model)
            .extrapolated(beyond)
            .to_svg(640, 480)
            .unwrap();
        assert_svg(&svg);
        assert!(has_text(&svg, EXTRAPOLATED), "{:?}", texts(&svg));
        assert!(!has_text(&plain, EXTRAPOLATED));
        // The axis reaches the extrapolated end.
        assert!(
            has_text(&svg, "15") && !has_text(&plain, "15"),
            "{:?}",
            texts(&svg)
        );
        // The shaded stretch and the legend's box, in the extrapolation's shade.
        let shade = |svg: &str| {
            elements(svg, "rect")
                .into_iter()
                .filter(|e| attr(e, "fill") == Some("#AAAAAA"))
                .filter(|e| attr(e, "opacity") == Some("0.15"))
                .count()
        };
        assert_eq!((shade(&svg), shade(&plain)), (2, 0));
        // The extrapolated part is sparse dashes of the pair's colour: short ones, where a
        // model's dashes are long but for a line's last.
        let sparse = |svg: &str| {
            coloured(svg, "polyline", "stroke", BLUE)
                .into_iter()
                .map(polyline_points)
                .filter(|p| p.len() == 2)
                .map(|p| f64::from(p[1].0 - p[0].0).hypot(f64::from(p[1].1 - p[0].1)))
                .filter(|l| (3.0..=f64::from(frame::SPARSE_DASH.0) + 0.5).contains(l))
                .count()
        };
        assert!(sparse(&svg) > 3 && sparse(&plain) <= 1, "{}", sparse(&svg));
    }

    #[test]
    fn plot_legend_dashes_match_the_lines_drawn() {
        // The legend's model dash and reference dots have the pattern of the lines drawn:
        // one polyline per dash, each as long as the pattern's dash.
        let svg = LineChart::new("t", "processors P", "speedup")
            .model("model", [(1.0, 1.0), (64.0, 1.0)])
            .reference(Reference::horizontal("ideal", 2.0))
            .to_svg(800, 480)
            .unwrap();
        let lengths = |colour: &str| -> Vec<i32> {
            let mut l: Vec<i32> = coloured(&svg, "polyline", "stroke", colour)
                .into_iter()
                .map(polyline_points)
                .filter(|p| p.len() == 2 && p[0].1 == p[1].1)
                .map(|p| (p[1].0 - p[0].0).abs())
                .collect();
            l.sort_unstable();
            l.dedup();
            l
        };
        // Horizontal dashes come in the pattern's length only (a line's last dash may be
        // shorter): the longest is the dash, for the legend's glyph and the plot alike.
        assert_eq!(lengths(BLUE).last(), Some(&(frame::MODEL_DASH.0 as i32)));
        assert_eq!(lengths(INK).last(), Some(&(frame::DOTTED_DASH.0 as i32)));
    }

    #[test]
    fn plot_two_reference_lines_are_drawn_and_keyed_apart() {
        // Efficiency's 90 % and 50 %: the second in grey dashes, in the plot and the legend.
        let svg = LineChart::new("t", "grain", "efficiency")
            .pair("runtime", points([(1.0, 0.3), (100.0, 0.95)]), [])
            .reference(Reference::horizontal("90 %", 0.9))
            .reference(Reference::horizontal("50 %", 0.5))
            .to_svg(800, 480)
            .unwrap();
        let (grey, dash) = frame::reference_style(1);
        let grey = format!("#{:02X}{:02X}{:02X}", grey.0, grey.1, grey.2);
        // A reference line is sampled along x: a dash may have more than two points.
        let lengths: Vec<i32> = coloured(&svg, "polyline", "stroke", &grey)
            .into_iter()
            .map(polyline_points)
            .filter(|p| p.len() >= 2 && p.iter().all(|q| q.1 == p[0].1))
            .map(|p| (p[p.len() - 1].0 - p[0].0).abs())
            .collect();
        // The legend's glyph and the line across the plot: many dashes of one length.
        assert!(lengths.len() > 10, "{lengths:?}");
        assert_eq!(lengths.iter().max(), Some(&(dash.0 as i32)));
        assert!(has_text(&svg, "90 %") && has_text(&svg, "50 %"));
    }

    #[test]
    fn plot_ideal_line_is_clipped_to_the_data() {
        // x: 0 .. 64, y: 0 .. 10 (no padding here): S = P leaves through the top at P = 10.
        let x = Axis::linear(0.0, 64.0, 8.0);
        let y = Axis::linear(0.0, 10.0, 5.0);
        let all = (0.0, 64.0);
        let runs = reference_runs(&Reference::ideal_speedup(), &x, &y, all);
        assert_eq!(runs.len(), 1);
        let (first, last) = (runs[0][0], *runs[0].last().unwrap());
        assert!(first.0.abs() < 1e-9 && first.1.abs() < 1e-9, "{first:?}");
        assert!(
            (last.0 - 10.0).abs() < 1e-9 && (last.1 - 10.0).abs() < 1e-9,
            "{last:?}"
        );
        // On a log x axis the line is sampled (curved), still clipped at y = 10.
        let spec = AxisSpec::new("P", Scale::Log10);
        let x = Axis::new(&spec, [1.0, 64.0].into_iter(), &[], 8.0).unwrap();
        let runs = reference_runs(&Reference::ideal_speedup(), &x, &y, (0.5, 100.0));
        let last = *runs[0].last().unwrap();
        assert!(
            (last.0 - 10.0).abs() < 1e-2 && (last.1 - 10.0).abs() < 1e-9,
            "{last:?}"
        );
        assert!(runs[0].len() > 50);
        // Entirely outside: nothing.
        let above = Reference::horizontal("h", 20.0);
        assert!(reference_runs(&above, &x, &y, (1.0, 64.0)).is_empty());
        // Only over the data: from P = 2 on, not from the axis's padding.
        let x = Axis::linear(-4.0, 64.0, 8.0);
        let runs = reference_runs(&Reference::ideal_speedup(), &x, &y, (2.0, 8.0));
        let (first, last) = (runs[0][0], *runs[0].last().unwrap());
        assert!((first.0 - 2.0).abs() < 1e-9 && (first.1 - 2.0).abs() < 1e-9);
        assert!((last.0 - 8.0).abs() < 1e-9, "{last:?}");
        // In a chart: dotted, in the legend, and it does not widen the axis.
        let c = LineChart::new("Speedup", "processors P", "speedup")
            .x_scale(Scale::Log10)
            .pair(
                "farm",
                [1.0, 16.0, 64.0].map(|p| Point::new(p, p.sqrt())),
                [],
            )
            .reference(Reference::ideal_speedup());
        let svg = c.to_svg(800, 500).unwrap();
        assert!(has_text(&svg, "ideal (S = P)"));
        let dots = coloured(&svg, "polyline", "stroke", INK);
        assert!(dots.len() > 10, "{}", dots.len());
        assert!(
            has_text(&svg, "8") && !has_text(&svg, "10") && !has_text(&svg, "20"),
            "y axis stays at the data: {:?}",
            texts(&svg)
        );
        // Over a few processors the ideal line is drawn whole: the axis reaches S = 4 although
        // the speedups stop at 1.5 (issue 22: a y axis stopping at 1.5 clipped it).
        let few = LineChart::new("Speedup", "processors P", "speedup")
            .pair(
                "farm",
                [(1.0, 0.95), (2.0, 1.3), (3.0, 1.5)].map(|(p, s)| Point::new(p, s)),
                [],
            )
            .reference(Reference::ideal_speedup());
        let svg = few.to_svg(800, 500).unwrap();
        // The y axis's ticks come first: the last of them reaches S = 3.
        let ticks: Vec<f64> = texts(&svg).iter().filter_map(|t| t.parse().ok()).collect();
        let y_top = ticks
            .windows(2)
            .find(|w| w[1] < w[0])
            .map_or(f64::NAN, |w| w[0]);
        assert!(y_top >= 3.0, "{ticks:?}");
    }

    #[test]
    fn plot_mark_rings_and_labels_a_point_the_axes_include() {
        let c = LineChart::new("Figure 4", "processors N", "speedup")
            .pair(
                "T_e",
                (1..=32).map(|n| Point::new(f64::from(n), f64::from(n).sqrt())),
                [],
            )
            .mark(157.0, 12.5, "peak: N = 157");
        let svg = c.to_svg(960, 600).unwrap();
        assert!(has_text(&svg, "peak: N = 157"));
        let ring = elements(&svg, "circle")
            .into_iter()
            .find(|e| attr(e, "r") == Some("10"))
            .expect("a ring");
        let cx: f64 = attr(ring, "cx").unwrap().parse().unwrap();
        assert!(cx > 800.0 && cx < 960.0, "ring near the right edge: {cx}");
        let reach = texts(&svg)
            .iter()
            .filter_map(|t| t.parse::<f64>().ok())
            .fold(0.0, f64::max);
        assert!(reach >= 157.0, "x axis reaches the mark: {:?}", texts(&svg));
    }

    #[test]
    fn plot_log_scale_spans_decades() {
        let pts: Vec<(f64, f64)> = (0..8)
            .map(|i| (2f64.powi(i), 1e-6 * 10f64.powi(i)))
            .collect();
        let c = chart(Scale::Log10, Scale::Log10)
            .pair("time", pts.into_iter().map(Point::from), [])
            .scattered();
        let svg = c.to_svg(640, 480).unwrap();
        assert_svg(&svg);
        // Decade ticks on y (1e-6 .. 10, every other one); on x the values used, 1 .. 128.
        for want in ["10⁻⁶", "10⁻⁴", "0.01", "1", "2", "128"] {
            assert!(has_text(&svg, want), "no {want}: {:?}", texts(&svg));
        }
    }

    #[test]
    fn plot_log_scale_within_one_decade_still_has_ticks() {
        let c = chart(Scale::Linear, Scale::Log10).model("y", [(0.0, 2.0), (1.0, 7.0)]);
        let svg = c.to_svg(640, 480).unwrap();
        assert!(
            has_text(&svg, "2") && has_text(&svg, "5"),
            "{:?}",
            texts(&svg)
        );
    }

    #[test]
    fn plot_nan_inf_and_nonpositive_on_log_are_skipped() {
        let c = chart(Scale::Linear, Scale::Log10).model(
            "noisy",
            [
                (1.0, 1.0),
                (2.0, f64::NAN),
                (3.0, 10.0),
                (f64::INFINITY, 5.0),
                (5.0, 0.0),
                (6.0, -3.0),
                (7.0, 100.0),
            ],
        );
        let svg = c.to_svg(640, 480).unwrap();
        assert_svg(&svg);
        // No NaN/inf coordinates reached the drawing elements (the footnote names them).
        for tag in ["polyline", "circle", "polygon"] {
            for e in elements(&svg, tag) {
                assert!(!e.contains("NaN") && !e.contains("inf"), "{e}");
            }
        }
        assert!(svg.contains("note: 4 points skipped"), "{svg}");
        assert!(has_text(&svg, "noisy"));
    }

    #[test]
    fn plot_empty_and_degenerate_charts_render_no_data() {
        for c in [
            chart(Scale::Linear, Scale::Linear),
            chart(Scale::Linear, Scale::Linear).model("empty", []),
            chart(Scale::Log10, Scale::Log10)
                .pair("neg", points([(-1.0, 0.0), (f64::NAN, 1.0)]), [])
                .scattered(),
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
                let c = chart(scale, scale).model("one", pts.clone());
                let svg = c.to_svg(400, 300).unwrap();
                assert_svg(&svg);
                assert!(has_text(&svg, "one"));
            }
        }
    }

    #[test]
    fn plot_too_small_is_an_error() {
        let c = chart(Scale::Linear, Scale::Linear);
        let e = c.to_svg(10, 10).unwrap_err().to_string();
        assert!(e.contains("too small"), "{e}");
    }

    #[test]
    fn plot_text_is_escaped_and_names_the_embedded_font() {
        let c = chart(Scale::Linear, Scale::Linear).model("a<b & c", [(0.0, 1.0), (1.0, 2.0)]);
        let svg = c.to_svg(400, 300).unwrap();
        assert!(svg.contains("a&lt;b &amp; c"), "{svg}");
        let fonts: Vec<&str> = elements(&svg, "text")
            .into_iter()
            .filter_map(|e| attr(e, "font-family"))
            .collect();
        assert!(!fonts.is_empty());
        assert!(
            fonts.iter().all(|f| *f == "DejaVu Sans, sans-serif"),
            "{fonts:?}"
        );
    }

    #[test]
    fn plot_long_title_wraps_inside_the_image() {
        let m = text::metrics().unwrap();
        let title = "Time to consume L inputs against grain, [M,1]-transformation (§4.1), \
                     measured on the emulator beside the sequence-function model";
        let svg = LineChart::new(title, "processors p", "speedup S(p)")
            .to_svg(400, 300)
            .unwrap();
        let lines: Vec<String> = texts(&svg)
            .into_iter()
            .filter(|t| title.contains(t.as_str()) && t.len() > 3)
            .collect();
        assert!(lines.len() >= 3, "{lines:?}");
        assert!(
            lines.iter().all(|l| m.width(l, text::TITLE) <= 376.0),
            "{lines:?}"
        );
    }

    #[test]
    fn plot_module_example_renders() {
        let measured = [
            (2.0, 1.9, 0.1),
            (4.0, 3.6, 0.2),
            (8.0, 6.1, 0.3),
            (16.0, 7.9, 0.5),
        ]
        .map(|(p, s, sd)| Point::with_error(p, s, ErrorBar::PlusMinus(sd)));
        let model = [(2.0, 1.95), (4.0, 3.7), (8.0, 6.4), (16.0, 8.8)];
        let svg = LineChart::new("Speedup of the farm", "processors P", "speedup S(P)")
            .x_scale(Scale::Log10)
            .pair("binary tree", measured, model)
            .reference(Reference::ideal_speedup())
            .mark(16.0, 8.8, "model: S = 8.8 at P = 16")
            .to_svg(960, 600)
            .unwrap();
        assert_svg(&svg);
        for t in [
            "binary tree",
            "ideal (S = P)",
            "model: S = 8.8 at P = 16",
            "16",
        ] {
            assert!(has_text(&svg, t), "{t}: {:?}", texts(&svg));
        }
    }
}
