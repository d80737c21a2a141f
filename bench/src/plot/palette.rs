//! Colours and marker shapes.
//!
//! Curves get colour `i` of Tableau 10 and marker shape `i` of five, by their position in the
//! chart, so that two curves differ in colour *and* (up to five) in shape: a chart stays
//! readable in greyscale and for colour-blind readers. A measured series and its model share
//! one position, hence one colour.

use plotters::style::{Color as _, RGBAColor, RGBColor};

/// Tableau 10: blue, orange, green, red, purple, brown, pink, grey, olive, cyan.
const TABLEAU: [RGBColor; 10] = [
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

/// The colour of curve (or bar group) `i`.
pub(super) fn colour(i: usize) -> RGBColor {
    TABLEAU[i % TABLEAU.len()]
}

/// Marker shapes, cycled by curve position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// A disc.
    Circle,
    /// A square on its side.
    Square,
    /// A triangle pointing up.
    TriangleUp,
    /// A square on its corner.
    Diamond,
    /// A triangle pointing down.
    TriangleDown,
}

/// The marker shape of curve `i`.
pub(super) fn shape(i: usize) -> Shape {
    const SHAPES: [Shape; 5] = [
        Shape::Circle,
        Shape::Square,
        Shape::TriangleUp,
        Shape::Diamond,
        Shape::TriangleDown,
    ];
    SHAPES[i % SHAPES.len()]
}

/// Ink of everything that is not data: reference lines, marks, the legend's key.
pub(super) const INK: RGBColor = RGBColor(60, 60, 60);
/// Colour of notes ("no data", skipped points, thinned labels).
pub(super) const NOTE: RGBColor = RGBColor(110, 110, 110);
/// Fill of a band (e.g. ±σ of residuals), translucent so that grid lines show through.
pub(super) fn band() -> RGBAColor {
    RGBColor(170, 170, 170).mix(0.3)
}
/// The stretch of an axis where a model is extrapolated.
pub(super) fn extrapolated() -> RGBAColor {
    RGBColor(170, 170, 170).mix(0.15)
}
/// Timeline messages.
pub(super) const MESSAGE: RGBColor = RGBColor(30, 30, 30);

/// Colour of a known timeline interval kind.
pub(super) fn kind_colour(kind: &str) -> Option<RGBColor> {
    match kind {
        "compute" => Some(RGBColor(44, 160, 44)),
        "communication" => Some(RGBColor(255, 127, 14)),
        "idle" => Some(RGBColor(215, 215, 215)),
        _ => None,
    }
}
