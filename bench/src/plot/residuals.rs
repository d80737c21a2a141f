//! Residual plots: what a fit leaves unexplained, against x, with the zero line and a ±σ band.
//!
//! Every fitted chart should have one: a model that fits shows residuals scattered evenly
//! around zero within about ±σ; a trend or a funnel shows what the model misses. Series
//! sharing an x are dodged apart (`LineChart::dodge_markers`), so that no residual hides
//! another.

use super::axis::format_number;
use super::axis::{AxisSpec, Scale, Ticks};
use super::lines::{Band, LineChart, Pair, Reference};
use super::point::Point;

/// One series of residuals (measured − fitted), e.g. one loop count of a scalability fit.
#[derive(Clone, Debug, Default)]
pub(crate) struct ResidualSeries {
    /// Legend label.
    pub(crate) label: String,
    /// `(x, residual)` points, with error bars where the measurement has them.
    pub(crate) points: Vec<Point>,
}

/// A residual plot. The y axis is linear and symmetric about zero.
#[derive(Clone, Debug, Default)]
pub(crate) struct Residuals {
    /// Title above the plot.
    pub(crate) title: String,
    /// The x axis: use the fitted chart's, so the two line up.
    pub(crate) x: AxisSpec,
    /// Description of the residual, with its unit: "residual: measured − fit (ms)".
    pub(crate) y_label: String,
    /// The residuals; series `i` gets colour and marker `i`, as curve `i` of the fitted chart.
    pub(crate) series: Vec<ResidualSeries>,
    /// The fit's residual standard deviation, drawn as a ±σ band (none if `None` or not
    /// finite and positive).
    pub(crate) sigma: Option<f64>,
    /// The band's legend label when σ is some other spread (the rms of relative residuals:
    /// "±rms, rms = 0.12 %"); `None`: "±σ, σ = …".
    pub(crate) sigma_label: Option<String>,
}

impl Residuals {
    /// The residual plot as a line chart: markers per series, a dotted zero line, the band.
    pub(crate) fn to_line_chart(&self) -> LineChart {
        let sigma = self.sigma.filter(|s| s.is_finite() && *s > 0.0);
        let widest = self
            .series
            .iter()
            .flat_map(|s| &s.points)
            .map(|p| p.y.abs())
            .filter(|r| r.is_finite())
            .chain(sigma)
            .fold(0.0f64, f64::max);
        let mut chart = LineChart {
            title: self.title.clone(),
            x: self.x.clone(),
            y: AxisSpec {
                label: self.y_label.clone(),
                scale: Scale::Linear,
                ticks: Ticks::Nice,
                include: vec![-widest, 0.0, widest],
            },
            curves: self
                .series
                .iter()
                .map(|s| Pair {
                    label: s.label.clone(),
                    measured: s.points.clone(),
                    markers_only: true,
                    ..Pair::default()
                })
                .collect(),
            dodge_markers: true,
            ..LineChart::default()
        }
        .reference(Reference::horizontal("the fit (residual 0)", 0.0));
        if let Some(s) = sigma {
            chart = chart.band(Band {
                label: self
                    .sigma_label
                    .clone()
                    .unwrap_or_else(|| format!("±σ, σ = {}", format_number(s))),
                low: -s,
                high: s,
            });
        }
        chart
    }

    /// Renders to an SVG string; see [`LineChart::to_svg`] for skipped points and errors.
    pub(crate) fn to_svg(&self, width: u32, height: u32) -> anyhow::Result<String> {
        self.to_line_chart().to_svg(width, height)
    }
}

#[cfg(test)]
mod tests {
    use super::super::svg_check::{assert_svg, elements, has_text, texts};
    use super::*;

    #[test]
    fn plot_residuals_have_zero_line_band_and_a_symmetric_axis() {
        let r = Residuals {
            title: "Residuals".into(),
            x: AxisSpec::new("processors P", Scale::Log10),
            y_label: "residual (ms)".into(),
            series: vec![ResidualSeries {
                label: "loop_count 0".into(),
                points: [(2.0, 0.3), (4.0, -0.1), (8.0, 0.05), (16.0, -0.2)]
                    .map(Point::from)
                    .to_vec(),
            }],
            sigma: Some(0.25),
            sigma_label: None,
        };
        let svg = r.to_svg(800, 400).unwrap();
        assert_svg(&svg);
        for t in [
            "the fit (residual 0)",
            "±σ, σ = 0.25",
            "loop_count 0",
            "2",
            "16",
            "0",
        ] {
            assert!(has_text(&svg, t), "no {t:?} in {:?}", texts(&svg));
        }
        // Symmetric about zero: the largest residual is 0.3, so ±0.2 are both ticks.
        assert!(
            has_text(&svg, "0.2") && has_text(&svg, "−0.2"),
            "{:?}",
            texts(&svg)
        );
        // The band is one translucent rectangle.
        let band = elements(&svg, "rect")
            .into_iter()
            .filter(|e| e.contains("fill=\"#AAAAAA\""))
            .count();
        assert_eq!(band, 2, "the band and its legend box");
        // No σ (or a useless one): no band.
        let none = Residuals {
            sigma: Some(f64::NAN),
            ..r
        };
        assert!(!none.to_svg(800, 400).unwrap().contains("±σ"));
        // Another spread names itself.
        let rms = Residuals {
            sigma: Some(0.25),
            sigma_label: Some("±rms, rms = 0.25 %".into()),
            ..none
        };
        let svg = rms.to_svg(800, 400).unwrap();
        assert!(has_text(&svg, "±rms, rms = 0.25 %") && !svg.contains("±σ"));
    }
}
