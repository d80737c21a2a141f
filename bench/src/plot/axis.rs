//! Axes: scales, tick choice (nice steps, or the values actually used), tick labels, and
//! thinning labels that would overlap, by their measured widths.

use std::ops::Range;

use anyhow::ensure;
use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, ValueFormatter};
use plotters::prelude::Ranged;

/// How an axis maps values to positions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Scale {
    /// Linear axis.
    #[default]
    Linear,
    /// Base-10 logarithmic axis; values `<= 0` cannot be shown and are skipped.
    Log10,
}

impl Scale {
    /// The scale that shows `values` evenly: [`Scale::Log10`] when they are all positive,
    /// span at least a decade and grow geometrically (neighbours, in order, differ by a
    /// median factor of 1.5 or more: P = 1, 3, 7, 15 …; g = 1, 2, 4 …), else
    /// [`Scale::Linear`] (a chain's N = 1, 2, 3 …). Non-finite values are ignored.
    pub(crate) fn spanning(values: impl IntoIterator<Item = f64>) -> Self {
        let mut v: Vec<f64> = values.into_iter().filter(|x| x.is_finite()).collect();
        v.sort_by(f64::total_cmp);
        v.dedup();
        let (Some(&lo), Some(&hi)) = (v.first(), v.last()) else {
            return Self::Linear;
        };
        if v.len() < 3 || lo <= 0.0 || hi < 10.0 * lo {
            return Self::Linear;
        }
        let mut ratios: Vec<f64> = v.windows(2).map(|w| w[1] / w[0]).collect();
        ratios.sort_by(f64::total_cmp);
        if ratios[ratios.len() / 2] >= 1.5 {
            Self::Log10
        } else {
            Self::Linear
        }
    }
}

/// Where an axis puts its labelled ticks.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) enum Ticks {
    /// [`Ticks::Data`] on a log axis whose measured x values are 2 to 12 distinct values (a
    /// processor count P = 2, 4, …, 256; a grain), [`Ticks::Nice`] otherwise.
    #[default]
    Auto,
    /// Multiples of 1, 2 or 5 times a power of ten (linear); decades, with 2 and 5 between
    /// them when the range holds at most three decades (log).
    Nice,
    /// At the distinct values the measured points use (for category-like numeric axes).
    Data,
    /// At these values (those outside the range are dropped).
    At(Vec<f64>),
}

impl Ticks {
    /// [`Ticks::Data`] for an axis of at most 12 distinct `values` (processor counts P = 1 …
    /// 8, 15; granularities), on a linear axis as on a log one; else [`Ticks::Auto`].
    pub(crate) fn at_few(values: impl IntoIterator<Item = f64>) -> Self {
        let distinct: std::collections::BTreeSet<u64> =
            values.into_iter().map(f64::to_bits).collect();
        if distinct.len() <= 12 {
            Self::Data
        } else {
            Self::Auto
        }
    }
}

/// One axis of a chart: its description, scale, ticks, and values its range must include.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct AxisSpec {
    /// Description drawn along the axis, with the unit: "processors P", "time (ms)".
    pub(crate) label: String,
    /// Linear or logarithmic.
    pub(crate) scale: Scale,
    /// Where the labelled ticks go.
    pub(crate) ticks: Ticks,
    /// Values the range must include besides the data (e.g. 0, or ±σ of residuals).
    pub(crate) include: Vec<f64>,
}

impl AxisSpec {
    /// A described axis with the given scale, automatic ticks and nothing extra to include.
    pub(crate) fn new(label: impl Into<String>, scale: Scale) -> Self {
        Self {
            label: label.into(),
            scale,
            ..Self::default()
        }
    }
}

/// How tick values are written.
#[derive(Clone, Copy, Debug)]
enum TickFormat {
    /// Fixed-point with this many decimals.
    Fixed(usize),
    /// Scientific notation with this many mantissa decimals.
    Sci(usize),
    /// Each value on its own (log axes, data ticks).
    Auto,
}

/// A linear or log10 mapping of `lo..hi` with precomputed ticks; plotters' coordinate type.
///
/// Implementing plotters' [`Ranged`] ourselves gives one concrete coordinate type for linear
/// and log axes, our own tick choice (plotters' log axis shows no tick at all inside one
/// decade, and never the values a sweep used) and our own tick labels.
#[derive(Clone, Debug)]
pub(super) struct Axis {
    /// Lower end of the range (> 0 on a log axis).
    pub(super) lo: f64,
    /// Upper end of the range (> `lo`).
    pub(super) hi: f64,
    /// Whether positions are linear in `log10(value)`.
    pub(super) log: bool,
    /// Labelled ticks with grid lines.
    pub(super) bold: Vec<f64>,
    /// Unlabelled light grid lines.
    light: Vec<f64>,
    /// How to format tick values.
    format: TickFormat,
    /// Fixed labels by position (rows of a timeline); when non-empty, replaces `format`.
    labels: Vec<(f64, String)>,
}

impl Axis {
    /// The axis of `spec` over `values` (5 % padding, in log space on a log axis; a default
    /// range for none). `data` are the values [`Ticks::Data`] labels; `target` is the wanted
    /// number of labelled nice ticks. Errors for a range too wide to represent.
    pub(super) fn new(
        spec: &AxisSpec,
        values: impl Iterator<Item = f64>,
        data: &[f64],
        target: f64,
    ) -> anyhow::Result<Self> {
        let log = spec.scale == Scale::Log10;
        let usable = |v: &f64| v.is_finite() && (!log || *v > 0.0);
        let (lo, hi) = values
            .chain(spec.include.iter().copied())
            .filter(usable)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
                (l.min(v), h.max(v))
            });
        let mut axis = if lo > hi {
            if log {
                Self::log10(1.0, 10.0, target)
            } else {
                Self::linear(0.0, 1.0, target)
            }
        } else if log {
            let (a, b) = (lo.log10(), hi.log10());
            let pad = if b > a { 0.05 * (b - a) } else { 0.3 };
            Self::log10(10f64.powf(a - pad), 10f64.powf(b + pad), target)
        } else {
            let span = hi - lo;
            ensure!(span.is_finite(), "values span too wide a range to plot");
            let pad = if span > 0.0 {
                0.05 * span
            } else if lo != 0.0 {
                0.1 * lo.abs()
            } else {
                1.0
            };
            Self::linear(lo - pad, hi + pad, target)
        };
        let mut used: Vec<f64> = data.iter().copied().filter(usable).collect();
        used.sort_by(f64::total_cmp);
        used.dedup_by(|a, b| (*a - *b).abs() <= 1e-9 * b.abs().max(1e-300));
        let at = match &spec.ticks {
            Ticks::Auto if log && (2..=12).contains(&used.len()) => Some(used),
            Ticks::Data if !used.is_empty() => Some(used),
            Ticks::At(values) => Some(values.iter().copied().filter(usable).collect()),
            Ticks::Auto | Ticks::Nice | Ticks::Data => None,
        };
        if let Some(mut at) = at {
            at.retain(|v| axis.contains(*v));
            at.sort_by(f64::total_cmp);
            axis.bold = at;
            axis.light = Vec::new();
            axis.format = TickFormat::Auto;
        }
        Ok(axis)
    }

    /// A linear axis on `lo..hi` (`lo < hi`) with nice 1-2-5 ticks.
    pub(super) fn linear(lo: f64, hi: f64, target: f64) -> Self {
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

    /// A log10 axis on `lo..hi` (`0 < lo < hi`) with nice ticks.
    fn log10(lo: f64, hi: f64, target: f64) -> Self {
        let (bold, light) = log_ticks(lo, hi, target);
        Self {
            lo,
            hi,
            log: true,
            bold,
            light,
            format: TickFormat::Auto,
            labels: Vec::new(),
        }
    }

    /// A linear axis on `lo..hi` labelled with fixed text at given positions (timeline rows,
    /// bar categories).
    pub(super) fn labelled(lo: f64, hi: f64, labels: Vec<(f64, String)>) -> Self {
        Self {
            lo,
            hi,
            log: false,
            bold: labels.iter().map(|l| l.0).collect(),
            light: Vec::new(),
            format: TickFormat::Auto,
            labels,
        }
    }

    /// Whether `v` lies in the range (with a little tolerance for rounding).
    fn contains(&self, v: f64) -> bool {
        let (a, b, t) = (self.t(self.lo), self.t(self.hi), self.t(v));
        let tol = 1e-9 * (b - a);
        t >= a - tol && t <= b + tol
    }

    /// The value in the space where positions are linear.
    fn t(&self, v: f64) -> f64 {
        if self.log { v.log10() } else { v }
    }

    /// Position of `v` along the axis, 0 at `lo` and 1 at `hi`.
    pub(super) fn fraction(&self, v: f64) -> f64 {
        (self.t(v) - self.t(self.lo)) / (self.t(self.hi) - self.t(self.lo))
    }

    /// The value at position `f` (0 at `lo`, 1 at `hi`).
    pub(super) fn value_at(&self, f: f64) -> f64 {
        let t = self.t(self.lo) + f * (self.t(self.hi) - self.t(self.lo));
        if self.log { 10f64.powf(t) } else { t }
    }

    /// The labels of the labelled ticks, in order.
    pub(super) fn tick_labels(&self) -> Vec<String> {
        self.bold.iter().map(|v| self.label(*v)).collect()
    }

    /// Drops labelled ticks whose labels would overlap on an axis `pixels` long, given each
    /// label's extent along the axis (its measured width on an x axis, its height on a y axis)
    /// and a gap. Greedy from the low end; dropped ticks keep a light grid line.
    pub(super) fn thin(&mut self, pixels: f64, extent: impl Fn(&str) -> f64, gap: f64) {
        let mut kept: Vec<f64> = Vec::with_capacity(self.bold.len());
        let mut last_end = f64::NEG_INFINITY;
        for &v in &self.bold {
            let centre = self.fraction(v) * pixels;
            let half = extent(&self.label(v)) / 2.0;
            if centre - half >= last_end + gap {
                kept.push(v);
                last_end = centre + half;
            } else {
                self.light.push(v);
            }
        }
        self.bold = kept;
    }

    /// The tick label for `v`.
    pub(super) fn label(&self, v: f64) -> String {
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
                    minus(&s)
                }
            }
            TickFormat::Sci(d) => {
                if v == 0.0 {
                    "0".to_owned()
                } else {
                    scientific(&format!("{v:.d$e}"))
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

/// Bold and light ticks for a log10 axis on `lo..hi`: decades (thinned to about `target`),
/// with 2 and 5 times them when the range holds two or three decades; inside one decade 1-2-5
/// or 1..9 times a power of ten; else linear ticks.
fn log_ticks(lo: f64, hi: f64, target: f64) -> (Vec<f64>, Vec<f64>) {
    let (a, b) = (lo.log10(), hi.log10());
    let (d0, d1) = (a.ceil() as i32, b.floor() as i32);
    let in_range = |v: f64| v >= lo * (1.0 - 1e-12) && v <= hi * (1.0 + 1e-12);
    let times = |ms: &'static [u32]| -> Vec<f64> {
        (a.floor() as i32..=b.ceil() as i32)
            .flat_map(|d| ms.iter().map(move |m| f64::from(*m) * 10f64.powi(d)))
            .filter(|v| in_range(*v))
            .collect()
    };
    let minor = |bold: &[f64]| -> Vec<f64> {
        times(&[1, 2, 3, 4, 5, 6, 7, 8, 9])
            .into_iter()
            .filter(|v| !bold.contains(v))
            .collect()
    };
    if d1 > d0 {
        if d1 - d0 <= 2 {
            let bold = times(&[1, 2, 5]);
            let light = minor(&bold);
            return (bold, light);
        }
        let n = f64::from(d1 - d0 + 1);
        let stride = (n / target.max(2.0)).ceil().max(1.0) as i32;
        let bold: Vec<f64> = (d0..=d1)
            .filter(|d| (d - d0) % stride == 0)
            .map(|d| 10f64.powi(d))
            .collect();
        let light = if stride == 1 {
            minor(&bold)
        } else {
            (d0..=d1)
                .filter(|d| (d - d0) % stride != 0)
                .map(|d| 10f64.powi(d))
                .collect()
        };
        return (bold, light);
    }
    for ms in [&[1u32, 2, 5][..], &[1, 2, 3, 4, 5, 6, 7, 8, 9]] {
        let ticks = times(ms);
        if ticks.len() >= 3 || (ticks.len() >= 2 && ms.len() > 3) {
            return (ticks, Vec::new());
        }
    }
    let (bold, light, _) = linear_ticks(lo, hi, target);
    (bold, light)
}

/// A short, readable form of `v` for tick labels: fixed-point with up to four significant
/// digits between 1e-3 and 1e5, else `m×10ⁿ` (`10ⁿ` for a power of ten), trailing zeros
/// removed, negative numbers with a minus sign (−), as typeset.
pub(super) fn format_number(v: f64) -> String {
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
            Some((m, e)) => scientific(&format!("{}e{e}", trim_zeros(m))),
            None => s,
        }
    } else {
        let decimals = (3 - a.log10().floor() as i32).clamp(0, 6) as usize;
        minus(trim_zeros(&format!("{v:.decimals$}")))
    }
}

/// `s` with a leading hyphen-minus written as a minus sign.
fn minus(s: &str) -> String {
    match s.strip_prefix('-') {
        Some(rest) => format!("−{rest}"),
        None => s.to_owned(),
    }
}

/// Rust's `1.5e-7` as `1.5×10⁻⁷` (and `1e6` as `10⁶`).
fn scientific(s: &str) -> String {
    let Some((m, e)) = s.split_once('e') else {
        return s.to_owned();
    };
    let exponent: String = e
        .chars()
        .map(|c| match c {
            '-' => '⁻',
            '0' => '⁰',
            '1' => '¹',
            '2' => '²',
            '3' => '³',
            '4' => '⁴',
            '5' => '⁵',
            '6' => '⁶',
            '7' => '⁷',
            '8' => '⁸',
            '9' => '⁹',
            other => other,
        })
        .collect();
    match m {
        "1" => format!("10{exponent}"),
        "-1" => format!("−10{exponent}"),
        _ => format!("{}×10{exponent}", minus(m)),
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

    #[test]
    fn plot_ticks_at_few_values_only() {
        assert_eq!(Ticks::at_few([1.0, 2.0, 3.0, 2.0, 15.0]), Ticks::Data);
        assert_eq!(Ticks::at_few((1..=13).map(f64::from)), Ticks::Auto);
    }

    #[test]
    fn plot_scale_spanning_is_log_for_geometric_values_over_a_decade() {
        let powers = (0..9).map(|i| 2f64.powi(i));
        assert_eq!(Scale::spanning(powers), Scale::Log10);
        let tree = [1.0, 3.0, 7.0, 15.0, 31.0, 63.0];
        assert_eq!(Scale::spanning(tree), Scale::Log10);
        // A chain's 1 … 330: evenly spaced, however wide.
        assert_eq!(Scale::spanning((1..=330).map(f64::from)), Scale::Linear);
        // Less than a decade, a zero, too few values, nothing.
        assert_eq!(Scale::spanning([1.0, 2.0, 4.0, 8.0]), Scale::Linear);
        assert_eq!(Scale::spanning([0.0, 1.0, 10.0, 100.0]), Scale::Linear);
        assert_eq!(Scale::spanning([1.0, 100.0]), Scale::Linear);
        assert_eq!(Scale::spanning([]), Scale::Linear);
        // Repeated values count once; NaN is ignored.
        assert_eq!(
            Scale::spanning([1.0, 1.0, 4.0, 16.0, 64.0, f64::NAN]),
            Scale::Log10
        );
    }

    fn labels(a: &Axis) -> Vec<String> {
        a.tick_labels()
    }

    #[test]
    fn plot_tick_formatting() {
        assert_eq!(format_number(1e-6), "10⁻⁶");
        assert_eq!(format_number(1e6), "10⁶");
        assert_eq!(format_number(2.5e-4), "2.5×10⁻⁴");
        assert_eq!(format_number(-3.5e12), "−3.5×10¹²");
        assert_eq!(format_number(-0.02), "−0.02");
        assert_eq!(format_number(0.30000000000000004), "0.3");
        assert_eq!(format_number(1000.0), "1000");
        assert_eq!(format_number(0.0012), "0.0012");
        let a = Axis::linear(-0.1, 1.1, 6.0);
        assert!(labels(&a).iter().any(|s| s == "0"));
        let a = Axis::linear(1000.1, 1000.5, 5.0);
        assert!(
            labels(&a).contains(&"1000.2".to_owned()),
            "{:?}",
            labels(&a)
        );
        let a = Axis::linear(0.0, 3e7, 5.0);
        assert_eq!(labels(&a), ["0", "10⁷", "2×10⁷", "3×10⁷"]);
        let a = Axis::linear(-1.0, 1.0, 4.0);
        assert!(labels(&a).contains(&"−0.5".to_owned()), "{:?}", labels(&a));
    }

    #[test]
    fn plot_log_ticks_label_between_decades_when_few() {
        // P = 2 … 256 with nice ticks: 2, 5, 10, 20, 50, 100, 200 — not just 10 and 100.
        let spec = AxisSpec {
            ticks: Ticks::Nice,
            ..AxisSpec::new("P", Scale::Log10)
        };
        let a = Axis::new(&spec, [2.0, 256.0].into_iter(), &[], 8.0).unwrap();
        assert_eq!(labels(&a), ["2", "5", "10", "20", "50", "100", "200"]);
        // Eight decades: decades only, thinned.
        let a = Axis::new(&spec, [1e-6, 10.0].into_iter(), &[], 5.0).unwrap();
        let decades = a.bold.iter().all(|v| v.log10().fract().abs() < 1e-9);
        assert!(decades && a.bold.len() >= 3, "{:?}", labels(&a));
    }

    #[test]
    fn plot_data_ticks_are_the_values_used() {
        let ps: Vec<f64> = (1..=8).map(|i| 2f64.powi(i)).collect();
        let auto = AxisSpec::new("P", Scale::Log10);
        let a = Axis::new(&auto, ps.iter().copied(), &ps, 8.0).unwrap();
        assert_eq!(labels(&a), ["2", "4", "8", "16", "32", "64", "128", "256"]);
        // On a linear axis, Auto keeps nice ticks; Data asks for the values.
        let lin = AxisSpec::new("P", Scale::Linear);
        let a = Axis::new(&lin, ps.iter().copied(), &ps, 8.0).unwrap();
        assert!(!labels(&a).contains(&"128".to_owned()), "{:?}", labels(&a));
        let data = AxisSpec {
            ticks: Ticks::Data,
            ..lin.clone()
        };
        let a = Axis::new(&data, ps.iter().copied(), &ps, 8.0).unwrap();
        assert_eq!(a.bold, ps);
        // Given values, outside the range dropped.
        let given = AxisSpec {
            ticks: Ticks::At(vec![3.0, 100.0, 1e6]),
            ..lin
        };
        let a = Axis::new(&given, ps.iter().copied(), &ps, 8.0).unwrap();
        assert_eq!(labels(&a), ["3", "100"]);
        // More than twelve distinct values: Auto goes back to nice ticks.
        let many: Vec<f64> = (1..=20).map(f64::from).collect();
        let a = Axis::new(&auto, many.iter().copied(), &many, 8.0).unwrap();
        assert_eq!(labels(&a), ["1", "2", "5", "10", "20"]);
    }

    #[test]
    fn plot_thinning_keeps_labels_apart() {
        let spec = AxisSpec {
            ticks: Ticks::Data,
            ..AxisSpec::new("x", Scale::Linear)
        };
        let values: Vec<f64> = (0..=100).map(f64::from).collect();
        let mut a = Axis::new(&spec, values.iter().copied(), &values, 8.0).unwrap();
        // 100 labels of 20 px on 400 px with a 4 px gap: one in every six or so survives.
        a.thin(400.0, |_| 20.0, 4.0);
        let kept = a.bold.len();
        assert!((15..=18).contains(&kept), "{kept}");
        let px: Vec<f64> = a.bold.iter().map(|v| a.fraction(*v) * 400.0).collect();
        assert!(px.windows(2).all(|w| w[1] - w[0] >= 24.0), "{px:?}");
    }
}
