//! The reports' plots: each capability of the plot module wired where a report has its data
//! (pairs and error bars in sweeps, the ideal line, residual plots of fits, Figure 4's marked
//! peaks, timelines with every processor and message). Structural checks, never pixels.

use multicomputer_runtime::{Activity, MessageEvent, Trace, TraceEvent};
use multicomputer_workloads::estimate::Interval;
use multicomputer_workloads::farm::{
    FarmModel, FarmTopology, ThroughputObservation, TreeShape, figure4, fit_betas,
};
use multicomputer_workloads::ocl::fit::Weighting;
use multicomputer_workloads::ocl::{OclTable, fit_table};

use super::bodies::{FitFarmReport, FitOclReport, PredictFarmReport, SweepOclReport, SweepOclRow};
use super::tests::sweep;
use super::{Body, Figure};
use crate::plot::svg_check::{assert_svg, attr, coloured, elements, has_text, texts};

/// The colours of the first two curves, and of reference lines and error bars on bars.
const BLUE: &str = "#1F77B4";
const ORANGE: &str = "#FF7F0E";
const INK: &str = "#3C3C3C";

fn figure<'f>(figures: &'f [Figure], file: &str) -> &'f str {
    let f = figures
        .iter()
        .find(|f| f.file == file)
        .unwrap_or_else(|| panic!("no {file}"));
    assert_svg(&f.svg);
    &f.svg
}

#[test]
fn sweep_speedup_pairs_each_family_with_its_model_and_shows_the_spread_and_the_ideal() {
    // Two cells: binary (P = 3, two runs: 2.4 and 2.44) and tree:3 (P = 4, one run).
    let figures = sweep().body.figures().unwrap();
    let svg = figure(&figures, "speedup.svg");
    for t in [
        "binary",
        "tree:3",
        "measured (mean ± sd of the runs)",
        "model",
        "ideal (S = P)",
        // Ticks at the processor counts used.
        "3",
        "4",
    ] {
        assert!(has_text(svg, t), "no {t:?} in {:?}", texts(svg));
    }
    // What every cell shares is in the title, not repeated in each label.
    assert!(
        texts(svg)
            .iter()
            .any(|t| t.contains("(T_e = 1.000 ms, exponential times)")),
        "{:?}",
        texts(svg)
    );
    // binary: its legend glyphs (marker, dash), its model's dashes, one error bar (stem and
    // two caps); tree:3, one run: no error bar.
    let blue = coloured(svg, "polyline", "stroke", BLUE).len();
    let orange = coloured(svg, "polyline", "stroke", ORANGE).len();
    assert_eq!(blue - orange, 3, "one error bar on binary's point");
    // The error chart: one ± sd bar (in ink), for the cell with two runs.
    let svg = figure(&figures, "error.svg");
    assert_eq!(coloured(svg, "polyline", "stroke", INK).len(), 3);
    assert!(has_text(svg, "tree:2:2") && has_text(svg, "tree:3:2"));
}

#[test]
fn a_timeline_labels_every_processor_in_ms_and_draws_every_message() {
    let processors = 40;
    let (mut events, mut messages) = (Vec::new(), Vec::new());
    for p in 0..processors {
        events.push(TraceEvent {
            processor: p,
            activity: Activity::Compute,
            start_ns: 1_000_000,
            duration_ns: 2_000_000 + 10_000 * p as u64,
            peer: None,
        });
        if p > 0 {
            messages.push(MessageEvent {
                from: p - 1,
                to: p,
                sent_ns: 100_000 * p as u64,
                arrive_ns: 100_000 * p as u64 + 50_000,
                received_ns: 4_000_000,
                bytes: 8,
            });
        }
    }
    let trace = Trace::from_records(&events, &messages);
    let svg = super::trace::timeline_svg(
        &trace,
        processors,
        "a chain: processors against emulated time",
    )
    .unwrap();
    assert_svg(&svg);
    for p in 0..processors {
        assert!(has_text(&svg, &format!("P{p}")), "P{p} unlabelled");
    }
    assert!(has_text(&svg, "emulated time (ms)") && has_text(&svg, "message (send → arrival)"));
    // Milliseconds: the axis runs to about 2.4 ms, not 0.0024 s.
    assert!(has_text(&svg, "2.0"), "{:?}", texts(&svg));
    // The legend's arrow, then one per message.
    let arrows = coloured(&svg, "polyline", "stroke", "#1E1E1E").len();
    assert_eq!(arrows, processors);
}

#[test]
fn figure4_runs_past_each_peak_and_marks_it_on_a_log_axis_for_a_tree() {
    // A binary tree with costly forwarding: its processors double per level, so the axis
    // is logarithmic, and each curve peaks within a few levels.
    let tree = FarmModel {
        topology: FarmTopology::Tree(TreeShape { k: 2, levels: 1 }),
        te_s: 1e-3,
        beta_e_s: 50e-6,
        beta_f_s: 400e-6,
        tau_s: 20e-6,
        tasks_m: 200,
        granularity: 1,
    };
    let curves = figure4(&tree, &[1.0, 5.0, 10.0]).unwrap();
    let peaks: Vec<(u64, u32)> = curves
        .iter()
        .map(|c| c.peak.expect("a peak inside the range"))
        .map(|p| (p.processors, p.levels))
        .collect();
    let report = PredictFarmReport {
        topology: "binary:1".into(),
        predicted: tree.predict().unwrap(),
        drain: None,
        peak: None,
        min_marginal_efficiency: 0.1,
        figure4: Some(curves),
        figure5: None,
        family: "2-ary tree".into(),
    };
    let figures = report.figures().unwrap();
    let svg = figure(&figures, "figure4.svg");
    for (p, levels) in &peaks {
        // The curve's maximum, named so: not the peak operating point of the table.
        let label = format!("maximum: P = {p} ({levels} levels),");
        assert!(
            texts(svg).iter().any(|t| t.starts_with(&label)),
            "no {label:?} in {:?}",
            texts(svg)
        );
    }
    let rings = elements(svg, "circle")
        .into_iter()
        .filter(|e| attr(e, "r") == Some("10"))
        .count();
    assert_eq!(rings, peaks.len());
    // The axis reaches past the last peak, and is logarithmic: labelled in decades.
    let last = peaks.iter().map(|p| p.0).max().unwrap() as f64;
    let ticks: Vec<f64> = texts(svg).iter().filter_map(|t| t.parse().ok()).collect();
    assert!(ticks.iter().any(|&v| v > last), "{ticks:?}");
    assert!(
        has_text(svg, "10") && has_text(svg, "100"),
        "{:?}",
        texts(svg)
    );
    assert!(has_text(svg, "ideal (S = P)"));
}

#[test]
fn fit_ocl_has_a_residual_plot_with_its_rms_band() {
    let rows = OclTable::Kk.paper_table();
    let fit = fit_table(OclTable::Kk, rows, Weighting::Relative, None).unwrap();
    let rms = 100.0 * fit.rms_relative_error;
    let report = FitOclReport {
        fit,
        source: "the paper's table".into(),
        weighting: "relative",
        self_check: false,
    };
    let figures = report.figures().unwrap();
    let svg = figure(&figures, "residuals.svg");
    for t in [
        "the fit (residual 0)".to_owned(),
        format!("±rms, rms = {rms:.3} %"),
        "relative residual (%)".to_owned(),
        "grain K".to_owned(),
    ] {
        assert!(has_text(svg, &t), "no {t:?} in {:?}", texts(svg));
    }
}

#[test]
fn fit_farm_has_a_residual_plot_by_family_and_task_time() {
    let mut rows = Vec::new();
    for (k, levels) in [(1, 4), (2, 3), (1, 2), (2, 2)] {
        for te_s in [1e-3, 5e-3] {
            // The model's throughput with β_e = 50 µs, β_f = 100 µs, ±1 % off.
            let shape = TreeShape { k, levels };
            let model = FarmModel {
                topology: FarmTopology::Tree(shape),
                te_s,
                beta_e_s: 50e-6,
                beta_f_s: 100e-6,
                tau_s: 0.0,
                tasks_m: 1000,
                granularity: 1,
            };
            let wobble = if rows.len() % 2 == 0 { 1.01 } else { 0.99 };
            rows.push(ThroughputObservation {
                shape,
                te_s,
                tau_s: 0.0,
                throughput_per_s: model.predict().unwrap().throughput_per_s * wobble,
                tasks_m: None,
            });
        }
    }
    let fit = fit_betas(&rows).unwrap();
    let interval = |v, se| Interval::student(v, se, fit.dof);
    let report = FitFarmReport {
        beta_e_s: fit.beta_e_s,
        beta_f_s: fit.beta_f_s,
        beta_e_std_error_s: fit.beta_e_std_error_s,
        beta_f_std_error_s: fit.beta_f_std_error_s,
        beta_e: interval(fit.beta_e_s, fit.beta_e_std_error_s),
        beta_f: interval(fit.beta_f_s, fit.beta_f_std_error_s),
        injected_beta_e_s: None,
        injected_beta_f_s: None,
        beta_e_error_pct: None,
        beta_f_error_pct: None,
        host_message_floor_s: None,
        observations: rows.len(),
        skipped_rows: Vec::new(),
        fit,
        rows,
        source: "rows.csv".into(),
    };
    let figures = report.figures().unwrap();
    let svg = figure(&figures, "residuals.svg");
    for t in [
        "chain, T_e = 1.000 ms",
        "binary, T_e = 5.000 ms",
        "the fit (residual 0)",
        "processors P",
    ] {
        assert!(has_text(svg, t), "no {t:?} in {:?}", texts(svg));
    }
    assert!(
        texts(svg).iter().any(|t| t.starts_with("±σ, σ = ")),
        "{:?}",
        texts(svg)
    );
    // The data beside the fitted curve, extrapolated beyond the largest tree measured (a
    // chain of 4, a binary tree of 3 levels: P = 7) and marked as such.
    let svg = figure(&figures, "fit.svg");
    for t in [
        "measured (one row each)",
        "fitted model",
        "extrapolated (beyond the measured range)",
        "chain, T_e = 5.000 ms",
        "throughput (tasks/s)",
    ] {
        assert!(has_text(svg, t), "no {t:?} in {:?}", texts(svg));
    }
    // Every row a marker of its series' colour (one more in the legend): chain at 1 ms has
    // levels 4 and 2.
    assert_eq!(coloured(svg, "circle", "fill", BLUE).len(), 2 + 1);
    let ticks: Vec<f64> = texts(svg).iter().filter_map(|t| t.parse().ok()).collect();
    assert!(ticks.iter().any(|&p| p > 7.0), "{ticks:?}");
}

#[test]
fn sweep_ocl_shows_the_range_of_native_runs_against_the_fitted_model() {
    // The paper's [M,1] table as if measured natively three times: the fastest run as the
    // paper tabulated, the slowest 5 % above it (none above for M = 1: the runs agreed).
    let rows: Vec<SweepOclRow> = OclTable::M1
        .paper_table()
        .iter()
        .map(|t| SweepOclRow {
            table: OclTable::M1,
            n: t.n,
            grain: t.grain,
            l: t.l,
            processes: t.n / t.grain,
            elapsed_s: t.elapsed_s,
            elapsed_mean_s: t.elapsed_s,
            elapsed_sd_s: None,
            elapsed_max_s: if t.grain == 1 {
                t.elapsed_s
            } else {
                1.05 * t.elapsed_s
            },
            runs: 3,
            predicted_s: None,
            error_pct: None,
            output_s: t.elapsed_s,
            predicted_output_s: None,
            alpha0_s: None,
            alpha1_s: None,
            beta_s: None,
            dilation: None,
            costs: "native",
            late_waits: 0,
            waits: 0,
            wall_s: t.elapsed_s,
        })
        .collect();
    let with_range = rows
        .iter()
        .filter(|r| r.elapsed_max_s > r.elapsed_s)
        .count();
    let chart = |rows: Vec<SweepOclRow>| {
        let mut report = SweepOclReport {
            rows,
            curves: Vec::new(),
        };
        let costs = OclTable::M1.fitted_costs(&report.timing_rows(OclTable::M1));
        assert!(costs.is_some(), "the paper's table fits");
        report.curves = vec![(OclTable::M1, costs)];
        let figures = report.figures().unwrap();
        figure(&figures, "m1.svg").to_owned()
    };
    let agreeing: Vec<SweepOclRow> = rows
        .iter()
        .map(|r| SweepOclRow {
            elapsed_max_s: r.elapsed_s,
            ..r.clone()
        })
        .collect();
    let (svg, plain) = (chart(rows), chart(agreeing));
    for t in [
        "measured (fastest run; bar: slowest)",
        "model (constants fitted to the table)",
    ] {
        assert!(has_text(&svg, t), "no {t:?} in {:?}", texts(&svg));
    }
    // Every range is a stem and two caps more, in its window's colour.
    let strokes = |svg: &str| elements(svg, "polyline").len();
    assert!(with_range > 0);
    assert_eq!(strokes(&svg) - strokes(&plain), 3 * with_range);
}
