//! The gallery: every chart kind rendered from fixed data, checked for structure, and written
//! to a folder so that `scripts/render-plots.sh` can turn it into the PNGs of `docs/plots/`
//! (beside the Figures 4 and 5 that `predict farm --figures` draws, which the script renders
//! from the command itself).
//!
//! The folder is `$PLOT_GALLERY_DIR` when set, else a temporary folder removed afterwards.
//! The checks are structural (texts, tick labels, element counts by colour), never pixels, so
//! a change of font or layout does not break them but a lost label, tick or error bar does.

use std::path::PathBuf;

use super::svg_check::{assert_svg, coloured, has_text, texts};
use super::{
    Bar, BarChart, BarGroup, ErrorBar, LineChart, Point, Reference, ResidualSeries, Residuals,
    Scale, Ticks, Timeline, TimelineInterval, TimelineMessage,
};
use crate::plot::axis::AxisSpec;

/// Where the gallery goes, and whether to remove it afterwards.
struct Folder {
    path: PathBuf,
    keep: bool,
}

impl Folder {
    fn new() -> Self {
        match std::env::var_os("PLOT_GALLERY_DIR") {
            Some(dir) => Self {
                path: PathBuf::from(dir),
                keep: true,
            },
            None => Self {
                path: std::env::temp_dir().join(format!("plot-gallery-{}", std::process::id())),
                keep: false,
            },
        }
    }

    fn write(&self, name: &str, svg: &str) {
        std::fs::create_dir_all(&self.path).unwrap();
        std::fs::write(self.path.join(name), svg).unwrap();
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// A fixed speedup model: `S(P) = P / (1 + a (P − 1))`.
fn amdahl(p: f64, a: f64) -> f64 {
    p / (1.0 + a * (p - 1.0))
}

/// A fixed, reproducible wobble in `[-1, 1]` (measured = model × (1 + small wobble)).
fn wobble(i: usize) -> f64 {
    [0.3, -0.6, 0.9, -0.2, 0.5, -0.8, 0.1, -0.4, 0.7, -0.1][i % 10]
}

/// Speedup against processors: three measured/model pairs with ± sd, the ideal line, log–log.
fn speedup() -> (String, LineChart) {
    let ps: Vec<f64> = (1..=8).map(|i| 2f64.powi(i)).collect();
    let mut chart = LineChart::new(
        "Speedup against processors, measured (mean ± sd) and model (illustrative data)",
        "processors P",
        "speedup S(P)",
    )
    .x_scale(Scale::Log10)
    .y_scale(Scale::Log10);
    for (k, (name, a)) in [
        ("chain", 0.02),
        ("binary tree", 0.008),
        ("ternary tree", 0.004),
    ]
    .into_iter()
    .enumerate()
    {
        let measured = ps.iter().enumerate().map(|(i, &p)| {
            let s = amdahl(p, a) * (1.0 + 0.03 * wobble(i + 3 * k));
            Point::with_error(p, s, ErrorBar::PlusMinus(0.06 * s))
        });
        chart = chart.pair(name, measured, ps.iter().map(|&p| (p, amdahl(p, a))));
    }
    (
        "speedup.svg".into(),
        chart.reference(Reference::ideal_speedup()),
    )
}

/// Speedup against granularity (Figure 5's shape), measured points beside their models:
/// log x at g = 1 … 128.
fn granularity() -> (String, LineChart) {
    let gs = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0];
    let mut chart = LineChart::new(
        "Speedup against granularity g, tasks per message (illustrative data)",
        "granularity g",
        "speedup",
    )
    .x_scale(Scale::Log10);
    for (k, n) in [3.0, 15.0, 255.0].into_iter().enumerate() {
        let model = |g: f64| n * g / (g + 2.0 + 0.004 * n * g * g / 8.0);
        let measured = gs
            .iter()
            .enumerate()
            .map(|(i, &g)| Point::new(g, model(g) * (1.0 + 0.04 * wobble(i + k))));
        chart = chart.pair(
            format!("N = {n}"),
            measured,
            gs.iter().map(|&g| (g, model(g))),
        );
    }
    ("granularity.svg".into(), chart.scattered())
}

/// The scalability fit: run time against P per loop count, the measured points beside their
/// fitted curves, and the residual plot of the same fit.
fn fit() -> (String, LineChart, String, Residuals) {
    let ps = [2.0, 4.0, 8.0, 16.0, 32.0, 64.0];
    let fitted = |p: f64, l: f64| 0.8 + (0.02 + 0.0004 * l) * p + 0.3 / p;
    let mut chart = LineChart::new(
        "Run time against processors, fitted with Φ(P) = a + bP + c/P (illustrative data)",
        "processors P",
        "run time (s)",
    )
    .x_scale(Scale::Log10);
    let mut residuals = Vec::new();
    for (k, l) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        let measured: Vec<Point> = ps
            .iter()
            .enumerate()
            .map(|(i, &p)| Point::new(p, fitted(p, l) + 0.04 * wobble(i + 2 * k)))
            .collect();
        residuals.push(ResidualSeries {
            label: format!("loop_count {l}"),
            points: measured
                .iter()
                .map(|m| Point::new(m.x, m.y - fitted(m.x, l)))
                .collect(),
        });
        let curve = (0..=60).map(|i| {
            let p = 2.0 * 32f64.powf(f64::from(i) / 60.0);
            (p, fitted(p, l))
        });
        chart = chart.pair(format!("loop_count {l}"), measured, curve);
    }
    let res = Residuals {
        title: "Residuals of the fit Φ(P) = a + bP + c/P".into(),
        x: AxisSpec::new("processors P", Scale::Log10),
        y_label: "residual: measured − fit (s)".into(),
        series: residuals,
        sigma: Some(0.031),
        sigma_label: None,
    };
    (
        "fit.svg".into(),
        chart.scattered(),
        "fit-residuals.svg".into(),
        res,
    )
}

/// The sweep's error per cell: long category names, many cells.
fn sweep_errors() -> (String, BarChart) {
    let mut categories = Vec::new();
    let mut values = Vec::new();
    for (i, t) in ["chain:8", "tree:2:3", "tree:3:3", "tree:4:3"]
        .iter()
        .enumerate()
    {
        for (j, te) in ["100 µs", "1.000 ms", "10.000 ms"].iter().enumerate() {
            for (k, times) in ["constant", "exponential"].iter().enumerate() {
                categories.push(format!("{t} {te} {times}"));
                values.push(3.0 * wobble(i * 6 + j * 2 + k) + if k == 1 { 1.0 } else { 0.0 });
            }
        }
    }
    let bars = BarChart {
        title: "Speedup error per cell: (measured − model)/model (illustrative data)".into(),
        y_label: "error (%)".into(),
        categories,
        groups: vec![BarGroup::of("speedup error %", &values)],
        ..BarChart::default()
    };
    ("errors.svg".into(), bars)
}

/// Task fractions per level, measured (mean ± sd) against predicted: a `BarChart`.
fn fractions() -> (String, BarChart) {
    let predicted = [0.6575, 0.2661, 0.0764];
    let measured = [0.641, 0.279, 0.080];
    let sd = [0.012, 0.010, 0.006];
    let chart = BarChart {
        title: "Fraction of tasks per level, binary tree of 3 levels (illustrative data)".into(),
        x_label: "level (1 = leaves)".into(),
        y_label: "fraction of tasks".into(),
        categories: vec![
            "level 1 (4 leaves)".into(),
            "level 2 (2 nodes)".into(),
            "level 3 (root)".into(),
        ],
        groups: vec![
            BarGroup {
                name: "measured (mean ± sd)".into(),
                bars: measured
                    .iter()
                    .zip(&sd)
                    .map(|(&v, &s)| Bar {
                        value: v,
                        error: Some(ErrorBar::PlusMinus(s)),
                    })
                    .collect(),
            },
            BarGroup {
                name: "model f_i".into(),
                bars: predicted.iter().map(|&v| Bar::from(v)).collect(),
            },
        ],
    };
    ("fractions.svg".into(), chart)
}

/// A farm-like timeline on a binary tree of `processors`: the root forwards tasks down,
/// results come back up; times in emulated ns.
fn timeline(processors: usize) -> Timeline<'static> {
    let mut intervals = Vec::new();
    let mut messages = Vec::new();
    let te = 1_000_000u64; // 1 ms per task
    let hop = 60_000u64; // 60 µs per forward
    for p in 0..processors {
        let depth = (p + 1).ilog2() as u64;
        let start = depth * (hop + 20_000);
        if start > 0 {
            intervals.push(TimelineInterval {
                processor: p,
                start_ns: 0,
                end_ns: start,
                kind: "idle",
            });
        }
        let mut t = start;
        for task in 0..4u64 {
            intervals.push(TimelineInterval {
                processor: p,
                start_ns: t,
                end_ns: t + hop,
                kind: "communication",
            });
            t += hop;
            let work = te + (p as u64 * 7919 + task * 104_729) % 400_000;
            intervals.push(TimelineInterval {
                processor: p,
                start_ns: t,
                end_ns: t + work,
                kind: "compute",
            });
            t += work;
        }
        if p > 0 {
            let parent = (p - 1) / 2;
            messages.push(TimelineMessage {
                from: parent,
                to: p,
                sent_ns: start - hop - 20_000,
                arrive_ns: start,
            });
            messages.push(TimelineMessage {
                from: p,
                to: parent,
                sent_ns: t,
                arrive_ns: t + hop,
            });
        }
    }
    Timeline {
        title: format!(
            "Processor timeline, binary tree of {processors} processors (illustrative data)"
        ),
        processors,
        intervals,
        messages,
        time_label: "emulated time".into(),
        ..Timeline::default()
    }
}

#[test]
fn plot_gallery_renders_every_kind() {
    let dir = Folder::new();

    // Speedup: ticks at the P used, error bars on every point, one colour per pair, ideal line.
    let (name, chart) = speedup();
    let svg = chart.to_svg(960, 600).unwrap();
    assert_svg(&svg);
    for p in [
        "2",
        "4",
        "8",
        "16",
        "32",
        "64",
        "128",
        "256",
        "ideal (S = P)",
        "measured",
        "model",
    ] {
        assert!(has_text(&svg, p), "speedup: no {p:?} in {:?}", texts(&svg));
    }
    for colour in ["#1F77B4", "#FF7F0E", "#2CA02C"] {
        // Per pair: the legend's line and dash, the join, 8 × (stem + 2 caps), model dashes.
        let strokes = coloured(&svg, "polyline", "stroke", colour).len();
        assert!(
            strokes > 1 + 1 + 24 + 5,
            "speedup {colour}: {strokes} polylines"
        );
    }
    dir.write(&name, &svg);

    // Figure 5's shape: ticks at g = 1 … 128.
    let (name, chart) = granularity();
    let svg = chart.to_svg(960, 600).unwrap();
    for g in [
        "1", "2", "4", "8", "16", "32", "64", "128", "N = 3", "N = 255",
    ] {
        assert!(
            has_text(&svg, g),
            "granularity: no {g:?} in {:?}",
            texts(&svg)
        );
    }
    dir.write(&name, &svg);

    // A fit and its residuals.
    let (name, chart, res_name, residuals) = fit();
    let svg = chart.to_svg(960, 600).unwrap();
    assert!(has_text(&svg, "loop_count 50") && has_text(&svg, "64"));
    dir.write(&name, &svg);
    let svg = residuals.to_svg(960, 420).unwrap();
    assert_svg(&svg);
    for t in [
        "the fit (residual 0)",
        "±σ, σ = 0.031",
        "loop_count 100",
        "2",
        "64",
    ] {
        assert!(
            has_text(&svg, t),
            "residuals: no {t:?} in {:?}",
            texts(&svg)
        );
    }
    dir.write(&res_name, &svg);

    // Bars: every category label whole (possibly over several lines), none dropped.
    let (name, bars) = sweep_errors();
    let svg = bars
        .to_svg((24 * bars.categories.len() as u32).max(640), 520)
        .unwrap();
    let all = texts(&svg).join(" ");
    for c in &bars.categories {
        assert!(
            all.contains(c.as_str()),
            "errors: {c:?} cut or missing: {all}"
        );
    }
    assert!(!all.contains('…') && !svg.contains("every"), "{all}");
    dir.write(&name, &svg);
    let (name, chart) = fractions();
    let svg = chart.to_svg(800, 500).unwrap();
    let all = texts(&svg).join(" ");
    for c in chart.categories.iter().chain([&chart.x_label]) {
        assert!(all.contains(c.as_str()), "fractions: {c:?} missing: {all}");
    }
    // Error bars on the measured group only: 3 × (stem + 2 caps) in ink.
    assert_eq!(coloured(&svg, "polyline", "stroke", "#3C3C3C").len(), 9);
    dir.write(&name, &svg);

    // Timelines: 8 and 64 processors, every row labelled, every message an arrow.
    for processors in [8, 64] {
        let t = timeline(processors);
        let svg = t.to_svg(1200, Timeline::height_for(processors)).unwrap();
        assert_svg(&svg);
        for p in 0..processors {
            assert!(
                has_text(&svg, &format!("P{p}")),
                "timeline {processors}: no P{p}"
            );
        }
        assert!(has_text(&svg, "emulated time (ms)"));
        let arrows = coloured(&svg, "polyline", "stroke", "#1E1E1E").len();
        // The legend's arrow, then one line per message.
        assert_eq!(arrows, 1 + t.messages.len(), "timeline {processors}");
        dir.write(&format!("timeline-{processors}.svg"), &svg);
    }
    // Too many rows for the height: every k-th labelled, and the footnote says so.
    let t = timeline(512);
    let svg = t.to_svg(1200, 900).unwrap();
    assert!(
        svg.contains("processor labelled (512 rows"),
        "{:?}",
        texts(&svg)
    );
    assert!(has_text(&svg, "P0") && !has_text(&svg, "P1"));
    dir.write("timeline-512.svg", &svg);

    // The robustness rules: skipped points footnoted, no data noted.
    let noisy = [
        (1.0, 1.0),
        (2.0, f64::NAN),
        (3.0, 10.0),
        (4.0, -1.0),
        (5.0, 30.0),
    ];
    let chart = LineChart::new("Skipped points and a log axis", "x", "y")
        .y_scale(Scale::Log10)
        .pair("noisy", noisy.map(Point::from), [])
        .scattered();
    let svg = chart.to_svg(640, 400).unwrap();
    assert!(svg.contains("note: 2 points skipped"));
    dir.write("skipped.svg", &svg);
    let svg = LineChart::new("Nothing measured yet", "processors P", "speedup")
        .x_ticks(Ticks::Data)
        .to_svg(640, 400)
        .unwrap();
    assert!(has_text(&svg, "no data"));
    dir.write("no-data.svg", &svg);
}
