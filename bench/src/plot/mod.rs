//! SVG charts for runs, sweeps and fits, one module per kind:
//!
//! - [`LineChart`] (`lines`): measured series paired with their models in one colour (markers
//!   with error bars against a dashed line), models alone (a prediction), reference lines such
//!   as the ideal speedup, shaded bands, marked points (a peak).
//! - [`BarChart`] (`bars`): grouped bars with error bars; category labels are never cut.
//! - [`Timeline`] (`timeline`): what each processor did when, in ms, every processor
//!   labelled, messages as arrows from sender at send time to receiver at arrival (too many
//!   for the width: the whole run, and under it its start with the arrows).
//! - [`Residuals`] (`residuals`): a fit's residuals against x, zero line, ±σ band.
//!
//! Axes (`axis`) are linear or log10; their ticks are nice 1-2-5 steps or, with
//! [`Ticks::Data`], the values actually used (P = 2, 4, …, 256 labelled 2, 4, …, 256), which
//! is what [`Ticks::Auto`] picks on a log axis of a few measured values ([`Ticks::at_few`]
//! asks for it on a linear axis too). [`Scale::spanning`] picks a log axis for values that
//! grow geometrically over a decade or more. Labels that would overlap are thinned by their
//! measured widths.
//!
//! Everything renders to an in-memory `String` (via plotters' `SVGBackend::with_string`) so
//! callers can write the file atomically.
//!
//! # Example
//!
//! A speedup chart with a measured/model pair, error bars, the ideal line and a marked peak
//! (a test renders this very code):
//!
//! ```ignore
//! use crate::plot::{ErrorBar, LineChart, Point, Reference, Scale};
//!
//! let measured = [(2.0, 1.9, 0.1), (4.0, 3.6, 0.2), (8.0, 6.1, 0.3), (16.0, 7.9, 0.5)]
//!     .map(|(p, s, sd)| Point::with_error(p, s, ErrorBar::PlusMinus(sd)));
//! let model = [(2.0, 1.95), (4.0, 3.7), (8.0, 6.4), (16.0, 8.8)];
//! let svg = LineChart::new("Speedup of the farm", "processors P", "speedup S(P)")
//!     .x_scale(Scale::Log10)
//!     .pair("binary tree", measured, model)
//!     .reference(Reference::ideal_speedup())
//!     .mark(16.0, 8.8, "model: S = 8.8 at P = 16")
//!     .to_svg(960, 600)?;
//! ```
//!
//! # Text
//!
//! plotters measures text with its `ab_glyph` feature and an embedded DejaVu Sans (`text`),
//! so legends, label areas, wrapping and thinning use real glyph widths; every `<text>` says
//! `font-family="DejaVu Sans, sans-serif"`, so a viewer with that font draws what was measured.
//!
//! # Robustness rules
//!
//! - Points with a NaN or infinite coordinate are skipped, and so are points with a coordinate
//!   `<= 0` on a logarithmic axis. Lines are broken at skipped points rather than joined across
//!   them. When anything was skipped, a small footnote at the bottom of the image says how many.
//! - A chart, bar chart or timeline with nothing left to draw is **not** an error: it renders a
//!   valid SVG that still has its title, axis labels and legend, plus a centred "no data" note.
//!   This keeps a sweep from failing on its plotting step; the note says why the chart is empty.
//! - Errors are returned for caller bugs only: an image smaller than `frame::MIN_WIDTH` x
//!   `frame::MIN_HEIGHT` (200 x 150), a bar group whose length differs from the number of categories, a timeline
//!   interval or message on a processor `>= processors`, or a data range too wide to represent.
//! - Axis ranges are automatic: the data range (with error bars and marks) plus 5% padding (in
//!   log space on a log axis), widened around single values. Bar charts always include 0 on
//!   the value axis. Reference lines and bands never widen an axis.
//! - Pair `i` gets colour `i` of Tableau 10 and marker shape `i` of five (`palette`).

mod axis;
mod bars;
mod frame;
mod lines;
mod palette;
mod point;
mod residuals;
mod text;
mod timeline;

#[cfg(test)]
mod gallery;
#[cfg(test)]
pub(crate) mod svg_check;

pub(crate) use axis::{AxisSpec, Scale, Ticks};
pub(crate) use bars::{Bar, BarChart, BarGroup};
pub(crate) use lines::{LineChart, Reference};
pub(crate) use point::{ErrorBar, Point};
pub(crate) use residuals::{ResidualSeries, Residuals};
pub(crate) use timeline::{
    TIMELINE_WIDTH, Timeline, TimelineInterval, TimelineMessage, held_messages, held_per_row,
    most_held,
};
