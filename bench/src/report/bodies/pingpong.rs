//! `pingpong`: the runtime's per-message cost against a bare ping-pong.

use anyhow::Result;
use multicomputer_workloads::repetitions::{Scatter, Summary};
use serde::Serialize;

use crate::plot::{LineChart, Point, Scale};
use crate::report::host_noise::scatter_warning;
use crate::report::{Block, Body, Figure, Section, Table};
use crate::units::human_ns;

/// What `pingpong` reports.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PingpongReport {
    /// Round trips per measurement.
    pub(crate) round_trips: u64,
    /// Measurements of each.
    pub(crate) repeat: u32,
    /// Discarded measurements before them.
    pub(crate) warmup: u32,
    /// Median one-way time of a bare crossbeam bounded(1) ping-pong, ns.
    pub(crate) bare_one_way_ns: f64,
    /// Median one-way time of a runtime send/receive (native, spinning, no emulated cost), ns.
    pub(crate) runtime_one_way_ns: f64,
    /// runtime / bare.
    pub(crate) ratio: f64,
    /// Every bare measurement, ns.
    pub(crate) bare_samples_ns: Vec<f64>,
    /// Every runtime measurement, ns.
    pub(crate) runtime_samples_ns: Vec<f64>,
    /// Mean ± sd, min, max of the bare measurements.
    pub(crate) bare: Option<Summary>,
    /// Mean ± sd, min, max of the runtime measurements.
    pub(crate) runtime: Option<Summary>,
}

fn spread(s: Option<Summary>) -> [String; 2] {
    match s {
        Some(s) => [
            match s.sd {
                Some(sd) => format!("{} ± {}", human_ns(s.mean), human_ns(sd)),
                None => human_ns(s.mean),
            },
            format!("{} – {}", human_ns(s.min), human_ns(s.max)),
        ],
        None => ["n/a".into(), "n/a".into()],
    }
}

/// What makes a pingpong figure unreliable, and what to do: replicates too scattered to trust
/// (the one rule of every command that times the host), or the runtime, which does more per
/// message, measured faster than the bare channel.
pub(crate) fn noise_warnings(r: &PingpongReport) -> Vec<String> {
    let figures: Vec<(&str, Scatter)> = [
        ("bare one-way time", &r.bare_samples_ns),
        ("runtime one-way time", &r.runtime_samples_ns),
    ]
    .into_iter()
    .filter_map(|(what, samples)| Some((what, Scatter::of(samples)?)))
    .collect();
    let mut w: Vec<String> = scatter_warning(&figures, "--runs").into_iter().collect();
    if r.ratio < 1.0 {
        w.push(format!(
            "the runtime measured {:.2}× the bare channel, faster than the channel it is built \
             on: host noise, not a real difference. Re-run on a quiet host before quoting it",
            r.ratio
        ));
    }
    w
}

/// The empirical distribution function of `samples` in units of `unit_ns`: each sample `t`
/// at the fraction of samples `≤ t`, in increasing order.
fn distribution(samples: &[f64], unit_ns: f64) -> Vec<Point> {
    let mut v: Vec<f64> = samples.iter().copied().filter(|t| t.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len() as f64;
    v.iter()
        .enumerate()
        .map(|(i, &t)| Point::new(t / unit_ns, (i + 1) as f64 / n))
        .collect()
}

impl PingpongReport {
    /// The distribution of the one-way times, bare and runtime, each measurement a marker,
    /// their medians marked; in µs from a median of 1 µs up, else ns; on a log axis when the
    /// slowest is over 10× the fastest (an outlier), else linear.
    fn latency_figure(&self) -> Result<Figure> {
        let all = || {
            self.bare_samples_ns
                .iter()
                .chain(&self.runtime_samples_ns)
                .copied()
                .filter(|t| t.is_finite() && *t > 0.0)
        };
        let lo = all().fold(f64::INFINITY, f64::min);
        let hi = all().fold(0.0, f64::max);
        let scale = if hi > 10.0 * lo {
            Scale::Log10
        } else {
            Scale::Linear
        };
        let (unit_ns, unit) = if self.bare_one_way_ns.max(self.runtime_one_way_ns) >= 1e3 {
            (1e3, "µs")
        } else {
            (1.0, "ns")
        };
        let chart = LineChart::new(
            format!(
                "One-way message time: the distribution of {} measurements of {} round trips \
                 each",
                self.repeat, self.round_trips
            ),
            format!("one-way message time ({unit})"),
            "fraction of measurements ≤ time",
        )
        .x_scale(scale)
        .y_include(0.0)
        .y_include(1.0)
        .pair(
            "bare crossbeam bounded(1), spinning",
            distribution(&self.bare_samples_ns, unit_ns),
            [],
        )
        .pair(
            "runtime send/recv, native spin",
            distribution(&self.runtime_samples_ns, unit_ns),
            [],
        )
        .scattered()
        .mark(
            self.bare_one_way_ns / unit_ns,
            0.5,
            format!("bare median {}", human_ns(self.bare_one_way_ns)),
        )
        .mark(
            self.runtime_one_way_ns / unit_ns,
            0.5,
            format!("runtime median {}", human_ns(self.runtime_one_way_ns)),
        );
        Ok(Figure {
            file: "latency.svg".into(),
            caption: "The one-way message time of every measurement (its empirical \
                      distribution function: each measurement at the fraction of measurements \
                      as fast or faster), bare channel and runtime, medians ringed; \
                      measurements far right of their median are host noise."
                .into(),
            svg: chart.to_svg(960, 520)?,
        })
    }
}

impl Body for PingpongReport {
    fn title(&self) -> String {
        "Per-message cost: runtime against bare crossbeam".into()
    }

    fn results(&self) -> Vec<Section> {
        let mut t = Table::new(&[
            "one-way message",
            "median",
            "mean ± sd",
            "min – max",
            "ratio",
        ]);
        let [bm, br] = spread(self.bare);
        let [rm, rr] = spread(self.runtime);
        t.row(vec![
            "bare crossbeam bounded(1), spinning".into(),
            human_ns(self.bare_one_way_ns),
            bm,
            br,
            "1.00".into(),
        ])
        .row(vec![
            "runtime send/recv, native spin".into(),
            human_ns(self.runtime_one_way_ns),
            rm,
            rr,
            format!("{:.2}", self.ratio),
        ]);
        let mut blocks = vec![
            Block::Table(t),
            Block::Text(format!(
                "{} measurements of {} round trips each, alternating, after {} warm-up; \
                 times depend on this host's load.",
                self.repeat, self.round_trips, self.warmup
            )),
        ];
        blocks.extend(noise_warnings(self).into_iter().map(Block::Warning));
        vec![Section::results("One-way message time", blocks)]
    }

    fn figures(&self) -> Result<Vec<Figure>> {
        Ok(vec![self.latency_figure()?])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(bare: &[f64], runtime: &[f64]) -> PingpongReport {
        let median = |v: &[f64]| {
            let mut v = v.to_vec();
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        PingpongReport {
            round_trips: 1000,
            repeat: bare.len() as u32,
            warmup: 0,
            bare_one_way_ns: median(bare),
            runtime_one_way_ns: median(runtime),
            ratio: median(runtime) / median(bare),
            bare_samples_ns: bare.to_vec(),
            runtime_samples_ns: runtime.to_vec(),
            bare: Summary::of(bare),
            runtime: Summary::of(runtime),
        }
    }

    #[test]
    fn the_latency_plot_draws_every_measurement_and_marks_the_medians() {
        use crate::plot::svg_check::{assert_svg, coloured, has_text, texts};
        let r = report(&[100.0, 101.0, 99.0], &[150.0, 152.0, 149.0, 151.0]);
        let f = r.latency_figure().unwrap();
        assert_eq!(f.file, "latency.svg");
        assert_svg(&f.svg);
        for t in [
            "bare crossbeam bounded(1), spinning",
            "runtime send/recv, native spin",
            "one-way message time (ns)",
            "runtime median 151.0 ns",
            "fraction of measurements ≤ time",
            "bare median 100.0 ns",
        ] {
            assert!(has_text(&f.svg, t), "no {t:?} in {:?}", texts(&f.svg));
        }
        // Every measurement a marker, and one in the legend: bare 3 + 1 blue circles,
        // runtime 4 + 1 orange squares.
        assert_eq!(coloured(&f.svg, "circle", "fill", "#1F77B4").len(), 4);
        assert_eq!(coloured(&f.svg, "polygon", "fill", "#FF7F0E").len(), 5);
        let d = distribution(&[3000.0, 1000.0, 2000.0, f64::NAN], 1e3);
        assert_eq!(
            d,
            vec![
                Point::new(1.0, 1.0 / 3.0),
                Point::new(2.0, 2.0 / 3.0),
                Point::new(3.0, 1.0)
            ]
        );
    }

    #[test]
    fn a_quiet_measurement_has_no_warning() {
        let r = report(&[100.0, 101.0, 99.0], &[150.0, 152.0, 149.0]);
        assert!(noise_warnings(&r).is_empty());
    }

    #[test]
    fn spread_outliers_and_an_impossible_ratio_are_warned_about() {
        // The run: sd 4.54 µs over a median of 2.32 µs, runtime 0.72× bare.
        let r = report(&[3200.0, 3300.0, 3250.0], &[2320.0, 2300.0, 12_000.0]);
        let w = noise_warnings(&r);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("runtime one-way time over 3 runs: sd") && w[0].contains("Quiet"));
        assert!(!w[0].contains("bare"), "{w:?}");
        assert!(w[1].contains("faster than the channel"));
        // One slow measurement among nine steady ones: an outlier, and an sd over 10 %.
        let r = report(
            &[100.0; 9],
            &[
                150.0, 150.0, 150.0, 150.0, 150.0, 150.0, 150.0, 150.0, 600.0,
            ],
        );
        assert!(
            noise_warnings(&r)[0].contains("outliers: 1 of 9 runs"),
            "{:?}",
            noise_warnings(&r)
        );
    }
}
