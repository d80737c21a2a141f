//! Grouped bar charts (error % per cell, per-level task fractions measured against predicted),
//! with error bars, and category labels that are never cut.
//!
//! Category labels are laid out with their measured widths, trying in turn at the label size
//! and then at smaller sizes down to 8.9 px: one horizontal line each; wrapped at spaces onto
//! up to three lines; rotated to read bottom to top, the label area as tall as the longest
//! label; rotated and wrapped onto two lines. Only when categories are too many for the width
//! even then is every k-th labelled, and a footnote says so.

use anyhow::ensure;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::Axis;
use super::frame::{self, Glyph, LegendEntry};
use super::palette;
use super::point::ErrorBar;
use super::text::{self, Metrics};

/// One bar: a value and optionally its error bar.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Bar {
    /// Height of the bar (may be negative).
    pub(crate) value: f64,
    /// Its uncertainty, if known.
    pub(crate) error: Option<ErrorBar>,
}

impl From<f64> for Bar {
    fn from(value: f64) -> Self {
        Self { value, error: None }
    }
}

/// One group of bars: one colour, one value per category.
#[derive(Clone, Debug, Default)]
pub(crate) struct BarGroup {
    /// Legend label.
    pub(crate) name: String,
    /// One bar per category.
    pub(crate) bars: Vec<Bar>,
}

/// A grouped bar chart with error bars.
///
/// Each group is one bar colour (and one legend entry) with one bar per category; bars may
/// be negative and the value axis always includes 0. Non-finite values draw no bar.
#[derive(Clone, Debug, Default)]
pub(crate) struct BarChart {
    /// Title above the plot.
    pub(crate) title: String,
    /// Description under the category labels (none when empty).
    pub(crate) x_label: String,
    /// Description of the value (y) axis.
    pub(crate) y_label: String,
    /// Category names along the x axis, in order.
    pub(crate) categories: Vec<String>,
    /// The groups; every one must have `categories.len()` bars.
    pub(crate) groups: Vec<BarGroup>,
}

impl BarGroup {
    /// A group of bars without error bars: `values`, one per category.
    pub(crate) fn of(name: impl Into<String>, values: &[f64]) -> Self {
        Self {
            name: name.into(),
            bars: values.iter().map(|&v| Bar::from(v)).collect(),
        }
    }
}

/// How the category labels are set.
#[derive(Debug)]
struct CategoryLayout {
    /// Font size (plotters units).
    size: f64,
    /// Whether labels read bottom to top.
    rotated: bool,
    /// Each category's label lines.
    lines: Vec<Vec<String>>,
    /// Height of the label area in pixels.
    area: f64,
    /// Label every `every`-th category (1: all).
    every: usize,
}

/// Lays out category labels for slots `slot` pixels wide, the label area at most `max_area`
/// pixels tall (see the module documentation for the order of attempts).
fn layout_categories(m: &Metrics, cats: &[String], slot: f64, max_area: f64) -> CategoryLayout {
    let room = slot - 6.0;
    let sizes = [
        text::LABEL,
        text::LABEL - 2.0,
        text::LABEL - 4.0,
        text::MIN_LABEL,
    ];
    for size in sizes {
        let lh = text::line_height(size);
        let fits = |lines: &[Vec<String>], limit: f64| {
            lines.iter().flatten().all(|l| m.width(l, size) <= limit)
        };
        let single: Vec<Vec<String>> = cats.iter().map(|c| vec![c.clone()]).collect();
        let tallest = |lines: &[Vec<String>]| lines.iter().map(Vec::len).max().unwrap_or(1);
        // 1. Horizontal, one line each.
        if fits(&single, room) {
            return CategoryLayout {
                size,
                rotated: false,
                area: lh + 8.0,
                lines: single,
                every: 1,
            };
        }
        // 2. Horizontal, wrapped onto up to three lines.
        let wrapped: Vec<Vec<String>> = cats.iter().map(|c| m.wrap(c, size, room)).collect();
        let n = tallest(&wrapped);
        if n <= 3 && fits(&wrapped, room) && f64::from(n as u32) * lh + 8.0 <= max_area {
            return CategoryLayout {
                size,
                rotated: false,
                area: n as f64 * lh + 8.0,
                lines: wrapped,
                every: 1,
            };
        }
        // 3. Rotated, one line each.
        let widest = m.widest(cats.iter().map(String::as_str), size);
        if slot >= lh && widest + 12.0 <= max_area {
            return CategoryLayout {
                size,
                rotated: true,
                area: widest + 12.0,
                lines: single,
                every: 1,
            };
        }
        // 4. Rotated, wrapped onto two lines.
        let limit = max_area - 12.0;
        let wrapped: Vec<Vec<String>> = cats.iter().map(|c| m.wrap(c, size, limit)).collect();
        if tallest(&wrapped) <= 2 && slot >= 2.0 * lh && fits(&wrapped, limit) {
            let widest = m.widest(wrapped.iter().flatten().map(String::as_str), size);
            return CategoryLayout {
                size,
                rotated: true,
                area: widest + 12.0,
                lines: wrapped,
                every: 1,
            };
        }
    }
    // Too many or too long for the image even so: rotated at the smallest size, wrapped to the
    // area, every k-th category.
    let size = text::MIN_LABEL;
    let lh = text::line_height(size);
    let lines: Vec<Vec<String>> = cats
        .iter()
        .map(|c| m.wrap(c, size, (max_area - 12.0).max(40.0)))
        .collect();
    let widest = m.widest(lines.iter().flatten().map(String::as_str), size);
    let tallest = lines.iter().map(Vec::len).max().unwrap_or(1) as f64;
    let every = ((tallest * lh) / slot.max(1.0)).ceil().max(1.0) as usize;
    CategoryLayout {
        size,
        rotated: true,
        area: widest + 12.0,
        lines,
        every,
    }
}

impl BarChart {
    /// Renders to an SVG string (so callers can write it atomically).
    ///
    /// The legend (one entry per group) is a strip under the title, so it never hides bars.
    /// Non-finite values draw no bar and are counted in a footnote; no categories or no groups
    /// render a "no data" note. Errors for an image smaller than
    /// [`MIN_WIDTH`](super::frame::MIN_WIDTH) x [`MIN_HEIGHT`](super::frame::MIN_HEIGHT) or a group whose
    /// length differs from the category count.
    pub(crate) fn to_svg(&self, width: u32, height: u32) -> anyhow::Result<String> {
        frame::check_size(width, height)?;
        let m = text::metrics()?;
        let n = self.categories.len();
        for g in &self.groups {
            ensure!(
                g.bars.len() == n,
                "bar group \"{}\" has {} values for {n} categories",
                g.name,
                g.bars.len()
            );
        }
        let bars = || self.groups.iter().flat_map(|g| g.bars.iter());
        let finite = || bars().filter(|b| b.value.is_finite());
        let skipped = bars().count() - finite().count();
        let has_data = finite().next().is_some();

        // Value axis: 0, the bars and their error bars, padded away from 0 only.
        let ends = finite().flat_map(|b| {
            let (lo, hi) = b
                .error
                .and_then(|e| e.ends(b.value))
                .unwrap_or((b.value, b.value));
            [b.value, lo, hi]
        });
        let (mut lo, mut hi) = ends.fold((0.0f64, 0.0f64), |(l, h), v| (l.min(v), h.max(v)));
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

        let entries: Vec<LegendEntry> = self
            .groups
            .iter()
            .enumerate()
            .map(|(i, g)| LegendEntry {
                glyphs: vec![Glyph::Box(palette::colour(i).to_rgba())],
                label: g.name.clone(),
            })
            .collect();

        let mut svg = String::new();
        {
            let (root, body) = frame::page(&mut svg, (width, height), &self.title, &entries, &m)?;
            let (bw, bh) = body.dim_in_pixel();
            let x_desc_h = if self.x_label.is_empty() {
                0.0
            } else {
                text::line_height(text::DESC) + 6.0
            };
            // Notes: skipped values, and possibly thinned labels (decided below; reserve both).
            let notes_h = frame::notes_height(2);
            let avail_h = f64::from(bh) - x_desc_h - notes_h - 30.0;
            // Tick labels at about the final density, for the width of their area.
            let y_area = (m.widest(
                Axis::linear(lo, hi, (avail_h / 2.0 / 45.0).max(4.0))
                    .tick_labels()
                    .iter()
                    .map(String::as_str),
                text::LABEL,
            ) + text::line_height(text::DESC)
                + 24.0)
                .min(f64::from(width) / 3.0);
            let plot_w = (f64::from(bw) - y_area - 36.0).max(20.0);
            let slot = plot_w / n.max(1) as f64;
            let cats = layout_categories(&m, &self.categories, slot, (avail_h * 0.5).max(40.0));
            let plot_h = (avail_h - cats.area).max(20.0);
            let mut y_axis = Axis::linear(lo, hi, (plot_h / 45.0).max(4.0));
            y_axis.thin(plot_h, |_| text::line_height(text::LABEL), 4.0);

            let mut notes = Vec::new();
            if has_data && skipped > 0 {
                notes.push(frame::skipped(skipped, "value", "NaN/inf"));
            }
            if n > 0 && cats.every > 1 {
                notes.push(format!(
                    "note: every {} category labelled (too many for the width; widen the image to label all)",
                    frame::ordinal(cats.every)
                ));
            }
            let (body, _) =
                body.split_vertically((f64::from(bh) - frame::notes_height(notes.len())) as i32);
            let x_axis = Axis::labelled(0.0, n.max(1) as f64, Vec::new());
            let mut chart = ChartBuilder::on(&body)
                .margin_top(12)
                .margin_left(12)
                .margin_right(24)
                .margin_bottom(6)
                .x_label_area_size((cats.area + x_desc_h) as i32)
                .y_label_area_size(y_area as i32)
                .build_cartesian_2d(x_axis, y_axis.clone())
                .map_err(frame::draw_err)?;
            frame::mesh(&mut chart)
                .disable_x_mesh()
                .y_desc(self.y_label.as_str())
                .draw()
                .map_err(frame::draw_err)?;
            let px = |x: f64, y: f64| chart.backend_coord(&(x, y));

            let g = self.groups.len().max(1) as f64;
            let bar_w = 0.8 / g;
            for (gi, group) in self.groups.iter().enumerate() {
                let colour = palette::colour(gi);
                for (ci, b) in group
                    .bars
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| b.value.is_finite())
                {
                    let x0 = ci as f64 + 0.1 + gi as f64 * bar_w;
                    root.draw(&Rectangle::new(
                        [px(x0, b.value), px(x0 + bar_w, 0.0)],
                        colour.filled(),
                    ))
                    .map_err(frame::draw_err)?;
                    if let Some((l, h)) = b.error.and_then(|e| e.ends(b.value)) {
                        let xm = x0 + bar_w / 2.0;
                        let (top, bottom) = (px(xm, h.min(y_axis.hi)), px(xm, l.max(y_axis.lo)));
                        let style = palette::INK.stroke_width(2);
                        let half = ((px(x0 + bar_w, 0.0).0 - px(x0, 0.0).0) / 4).clamp(2, 6);
                        root.draw(&PathElement::new(vec![top, bottom], style))
                            .map_err(frame::draw_err)?;
                        for (x, y) in [top, bottom] {
                            root.draw(&PathElement::new(vec![(x - half, y), (x + half, y)], style))
                                .map_err(frame::draw_err)?;
                        }
                    }
                }
            }
            // Zero baseline, so negative bars read as negative.
            root.draw(&PathElement::new(
                vec![px(0.0, 0.0), px(n.max(1) as f64, 0.0)],
                BLACK.stroke_width(1),
            ))
            .map_err(frame::draw_err)?;

            let lh = text::line_height(cats.size);
            let axis_y = px(0.0, y_axis.lo).1;
            for (ci, lines) in cats.lines.iter().enumerate().step_by(cats.every) {
                let cx = px(ci as f64 + 0.5, y_axis.lo).0;
                let k = lines.len() as f64;
                for (li, line) in lines.iter().enumerate() {
                    if cats.rotated {
                        // Lines side by side, centred on the slot.
                        let x = f64::from(cx) + (li as f64 - (k - 1.0) / 2.0) * lh;
                        frame::label_up(&root, line, (x as i32, axis_y + 6), cats.size)?;
                    } else {
                        let y = f64::from(axis_y) + 6.0 + li as f64 * lh;
                        frame::label(
                            &root,
                            line,
                            (cx, y as i32),
                            cats.size,
                            &BLACK,
                            (HPos::Center, VPos::Top),
                        )?;
                    }
                }
            }
            if !self.x_label.is_empty() {
                let (xr, _) = chart.plotting_area().get_pixel_range();
                let y = f64::from(axis_y) + cats.area + 4.0;
                frame::label(
                    &root,
                    &self.x_label,
                    ((xr.start + xr.end) / 2, y as i32),
                    text::DESC,
                    &BLACK,
                    (HPos::Center, VPos::Top),
                )?;
            }

            frame::finish(&root, &chart, (!has_data).then_some("no data"), &notes)?;
        }
        Ok(svg)
    }
}

#[cfg(test)]
mod tests {
    use super::super::svg_check::{assert_svg, coloured, has_text, texts};
    use super::*;

    #[test]
    fn plot_bars_with_negative_values_include_zero() {
        let b = BarChart {
            title: "Model error per cell".into(),
            y_label: "error (%)".into(),
            categories: vec!["p=2".into(), "p=4".into(), "p=8".into()],
            groups: vec![
                BarGroup::of("farm", &[-4.0, 2.5, f64::NAN]),
                BarGroup::of("dnc", &[1.0, -1.5, 3.0]),
            ],
            ..BarChart::default()
        };
        let svg = b.to_svg(640, 400).unwrap();
        assert_svg(&svg);
        for want in [
            "Model error per cell",
            "error (%)",
            "p=2",
            "p=4",
            "p=8",
            "farm",
            "dnc",
        ] {
            assert!(
                has_text(&svg, want),
                "missing {want:?} in {:?}",
                texts(&svg)
            );
        }
        assert!(has_text(&svg, "0"), "zero tick: {:?}", texts(&svg));
        assert!(
            has_text(&svg, "−4"),
            "negative ticks with a minus sign: {:?}",
            texts(&svg)
        );
        assert!(svg.contains("note: 1 value skipped"), "{svg}");
    }

    #[test]
    fn plot_bars_positive_only_and_long_categories() {
        let categories: Vec<String> = (0..30)
            .map(|i| format!("level {i} of the divide and conquer tree"))
            .collect();
        let b = BarChart {
            title: "Task fractions".into(),
            y_label: "fraction".into(),
            groups: vec![BarGroup::of(
                "measured",
                &(0..30).map(|i| f64::from(i) / 30.0).collect::<Vec<_>>(),
            )],
            categories: categories.clone(),
            ..BarChart::default()
        };
        let svg = b.to_svg(800, 500).unwrap();
        assert_svg(&svg);
        assert_eq!(
            svg.matches("rotate(270").count(),
            1 + 30,
            "long labels are rotated"
        );
        assert!(has_text(&svg, "0"));
        // Never cut: each label whole, on one line or wrapped onto consecutive ones.
        let all = texts(&svg).join(" ");
        for c in &categories {
            assert!(all.contains(c.as_str()), "{c:?} missing in {all}");
        }
        assert!(!all.contains('…'));
    }

    #[test]
    fn plot_bar_labels_wrap_before_they_rotate() {
        let categories = vec![
            "binary tree of three levels, constant task times".to_owned(),
            "binary tree of three levels, exponential task times".to_owned(),
            "chain of eight, constant task times".to_owned(),
        ];
        let b = BarChart {
            title: "Wrapped".into(),
            y_label: "error (%)".into(),
            categories: categories.clone(),
            groups: vec![BarGroup::of("e", &[1.0, 2.0, -1.0])],
            ..BarChart::default()
        };
        let svg = b.to_svg(800, 500).unwrap();
        assert_eq!(
            svg.matches("rotate(270").count(),
            1,
            "only the axis description is rotated"
        );
        let t = texts(&svg);
        assert!(!t.iter().any(|s| categories.contains(s)), "wrapped: {t:?}");
        let all = t.join(" ");
        for c in &categories {
            assert!(all.contains(c.as_str()), "{c:?} missing in {all}");
        }
    }

    #[test]
    fn plot_bars_too_many_for_the_width_label_a_subset_and_say_so() {
        let m = text::metrics().unwrap();
        let cats: Vec<String> = (0..400).map(|i| format!("cell {i}")).collect();
        let layout = layout_categories(&m, &cats, 2.0, 100.0);
        assert!(layout.rotated && layout.every >= 5, "{layout:?}");
        let b = BarChart {
            title: "Many".into(),
            y_label: "v".into(),
            categories: cats,
            groups: vec![BarGroup::of("g", &[1.0; 400])],
            ..BarChart::default()
        };
        let svg = b.to_svg(800, 400).unwrap();
        assert!(
            svg.contains("category labelled (too many for the width"),
            "{:?}",
            texts(&svg)
        );
    }

    #[test]
    fn plot_bar_error_bars() {
        let chart = BarChart {
            title: "t".into(),
            y_label: "v".into(),
            categories: vec!["a".into(), "b".into()],
            groups: vec![BarGroup {
                name: "g".into(),
                bars: vec![
                    Bar {
                        value: 1.0,
                        error: Some(ErrorBar::PlusMinus(0.2)),
                    },
                    Bar::from(2.0),
                ],
            }],
            ..BarChart::default()
        };
        let svg = chart.to_svg(640, 400).unwrap();
        assert_eq!(coloured(&svg, "polyline", "stroke", "#3C3C3C").len(), 3);
    }

    #[test]
    fn plot_bars_empty_and_mismatched() {
        let mut b = BarChart {
            title: "Empty".into(),
            y_label: "v".into(),
            ..BarChart::default()
        };
        let svg = b.to_svg(400, 300).unwrap();
        assert_svg(&svg);
        assert!(has_text(&svg, "no data"));
        b.categories = vec!["a".into()];
        b.groups = vec![BarGroup::of("g", &[1.0, 2.0])];
        let e = b.to_svg(400, 300).unwrap_err().to_string();
        assert!(e.contains("\"g\" has 2 values for 1 categories"), "{e}");
    }
}
