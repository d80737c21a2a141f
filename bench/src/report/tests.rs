//! Snapshots of what users and scripts read: the terminal tables, the CSV and the JSON
//! schema, from reports built in process with fixed numbers. A changed output changes a
//! snapshot, and the test fails until the change is reviewed (`cargo insta review`).

use multicomputer_runtime::{Fidelity, WaitStrategy};
use multicomputer_workloads::farm::{
    Bound, Drain, Errors, FarmComparison, FloodFillDrain, Measured, Prediction,
};
use multicomputer_workloads::tree::Comparison;
use serde_json::Value;

use super::bodies::{CellInputs, SweepReport, sweep_rows};
use super::{Body, FarmReport, Meta, ProfileUse, Report, csv, markdown, text};
use crate::exec::Runs;
use crate::plan::{Format, Inputs, MachinePlan, Repeat};

/// The shape of a JSON value: every leaf replaced by its type, arrays by their first element.
fn schema(v: &Value) -> Value {
    match v {
        Value::Null => "null".into(),
        Value::Bool(_) => "bool".into(),
        Value::Number(_) => "number".into(),
        Value::String(_) => "string".into(),
        Value::Array(a) => Value::Array(a.first().map(schema).into_iter().collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), schema(v))).collect()),
    }
}

fn meta(command: &str) -> Meta {
    let mut inputs = Inputs::new();
    inputs.add("topology", "tree:2:2").add("te", "1.000 ms");
    let mut m = Meta::new(command, inputs, ProfileUse::NotUsed)
        .seed(1)
        .ran(
            &MachinePlan::from_parts(
                multicomputer_runtime::TimeMode::Auto,
                crate::args::WaitArg::Sleep,
                None,
                std::path::Path::new("/nonexistent-out"),
            )
            .unwrap(),
            &dilated_4(),
        )
        .fidelity(&fidelity());
    m.date = "2026-01-02T03:04:05Z".into();
    m.command_line = vec!["multicomputer".into(), command.into()];
    m.host.name = "host".into();
    m.host.cores = 2;
    m
}

/// How a machine dilated 4 times, sleeping, charging by measurement runs.
fn dilated_4() -> multicomputer_runtime::RunSpec {
    multicomputer_runtime::MachineConfig {
        mode: multicomputer_runtime::TimeMode::Dilated(4.0),
        wait: WaitStrategy::Sleep,
        ..multicomputer_runtime::MachineConfig::default()
    }
    .resolve(&"tree:2:2".parse().unwrap())
    .unwrap()
}

fn fidelity() -> Fidelity {
    Fidelity {
        exact: false,
        dilation: Some(4.0),
        strategy: Some(WaitStrategy::Sleep),
        waits: 100,
        late_waits: 2,
        tolerance_ns: 5000,
        mean_lateness_ns: 1200.0,
        p99_lateness_ns: 8000,
        max_lateness_ns: 9000,
        warning: None,
        cut_links: None,
    }
}

fn comparison(speedup: f64) -> FarmComparison {
    let measured = Measured {
        throughput_per_s: 2400.0,
        steady_throughput_per_s: 2450.0,
        speedup,
        makespan_s: 0.4,
        fractions_by_level: vec![0.7, 0.3],
        startup_s: 0.0011,
    };
    let predicted = Prediction {
        throughput_per_s: 2500.0,
        speedup: 2.5,
        makespan_s: 0.396,
        fractions_by_level: vec![0.72, 0.28],
        startup_s: 0.0011,
        bound: Bound::Processors,
    };
    let errors_pct = Errors::between(&measured, &predicted);
    FarmComparison {
        comparison: Comparison {
            topology: "tree:2:2".into(),
            processors: 3,
            error_pct: errors_pct.speedup,
            errors_pct,
            measured,
            predicted,
            missing_terms: Vec::new(),
            fidelity: fidelity(),
            mode: "dilated",
            dilation: Some(4.0),
            wall_s: 1.6,
            parts: None,
            trace: None,
        },
        drain: Some(Drain {
            busy_processors: 3,
            drain_s: 0.0005,
            speedup_error_floor_pct: -0.126,
            flood_fill: Some(FloodFillDrain {
                drain_s: 0.0009,
                drain_sd_s: 0.0004,
                error_pct: -0.226,
                error_sd_pct: 0.1,
                samples: 4000,
                speedup: 2.494,
            }),
        }),
    }
}

pub(super) fn sweep() -> Report<SweepReport> {
    let cell = |t: &str| CellInputs {
        topology: t.parse().unwrap(),
        te_s: 0.001,
        times: "exponential",
        granularity: 1,
        tasks: 1000,
        tau_s: 0.0,
        beta_e_s: 50e-6,
        beta_f_s: 100e-6,
        queue: 1,
        guided: false,
    };
    let ran = dilated_4();
    let runs = vec![
        Runs {
            runs: vec![comparison(2.4), comparison(2.44)],
            ran: ran.clone(),
            seeds: Vec::new(),
            ties: None,
        },
        Runs {
            runs: vec![comparison(2.5)],
            ran,
            seeds: Vec::new(),
            ties: None,
        },
    ];
    let cells = [cell("tree:2:2"), cell("tree:3:2")];
    Report::new(
        meta("sweep farm"),
        SweepReport {
            kind: "farm",
            rows: sweep_rows(&cells, &runs),
        },
    )
}

#[test]
fn sweep_table_csv_and_json_schema() {
    let r = sweep();
    insta::assert_snapshot!("sweep_table", text::render(&r.document().unwrap()));
    insta::assert_snapshot!(
        "sweep_csv",
        String::from_utf8(csv::rows(&r.body.rows).unwrap()).unwrap()
    );
    let json: Value = serde_json::from_slice(&r.export(Format::Json).unwrap()).unwrap();
    insta::assert_snapshot!(
        "sweep_json_schema",
        serde_json::to_string_pretty(&schema(&json)).unwrap()
    );
}

#[test]
fn farm_table_and_json_schema() {
    let runs = [comparison(2.4), comparison(2.44)];
    let body =
        FarmReport::of_runs("Processor farm", &runs, Repeat { runs: 2, warmup: 1 }, &[]).unwrap();
    let r = Report::new(meta("farm"), body);
    insta::assert_snapshot!("farm_table", text::render(&r.document().unwrap()));
    let json: Value = serde_json::from_slice(&r.export(Format::Json).unwrap()).unwrap();
    insta::assert_snapshot!(
        "farm_json_schema",
        serde_json::to_string_pretty(&schema(&json)).unwrap()
    );
    // The JSON carries every metadata item a reader of a saved report needs.
    for key in [
        "tool",
        "version",
        "command_line",
        "date",
        "inputs",
        "seed",
        "host",
        "time",
        "fidelity",
    ] {
        assert!(!json["meta"][key].is_null(), "meta.{key}");
    }
    assert_eq!(json["meta"]["time"]["dilation"], 4.0);
}

#[test]
fn every_format_has_the_report_and_its_metadata() {
    let runs = [comparison(2.4)];
    let r = Report::new(
        meta("farm"),
        FarmReport::of_runs("Processor farm", &runs, Repeat::ONCE, &[]).unwrap(),
    );
    let doc = r.document().unwrap();
    let md = markdown::render(&doc);
    assert!(md.starts_with("# Processor farm on tree:2:2"), "{md}");
    assert!(md.contains("| speedup | 2.400 | 2.500 | -4.00 % |"), "{md}");
    assert!(
        md.contains("## Inputs") && md.contains("| te | 1.000 ms |"),
        "{md}"
    );
    assert!(md.contains("![Per-level task fractions"), "{md}");
    let html = String::from_utf8(r.export(Format::Html).unwrap()).unwrap();
    assert!(html.contains("<h2>Run</h2>") && html.contains("dilated (D = 4)"));
    assert_eq!(
        html.matches("<svg").count(),
        r.body.figures().unwrap().len()
    );
    let csv = String::from_utf8(r.export(Format::Csv).unwrap()).unwrap();
    assert!(csv.starts_with("field,value\n"), "{csv}");
    // Numbers, not the tables' display strings.
    assert!(csv.contains("\nmeasured.speedup,2.4"), "{csv}");
    assert!(!csv.contains(" ms") && !csv.contains('%'), "{csv}");
    // A single run reports no spread.
    assert!(r.body.repetitions.is_none());
}

#[test]
fn a_farm_plots_its_speedup_against_processors_with_the_model_and_the_ideal() {
    use crate::plot::svg_check::{assert_svg, coloured, elements, has_text, texts};
    let runs = [comparison(2.4), comparison(2.44)];
    let mut body =
        FarmReport::of_runs("Processor farm", &runs, Repeat { runs: 2, warmup: 1 }, &[]).unwrap();
    let svg_of = |body: &FarmReport| {
        let figures = body.figures().unwrap();
        let f = figures.iter().find(|f| f.file == "speedup.svg").unwrap();
        assert_svg(&f.svg);
        f.svg.clone()
    };
    // A real kernel's model: its value at the run's P, an open circle in the plot and in the
    // legend (no dash that the plot does not draw).
    let svg = svg_of(&body);
    for t in [
        "ideal (S = P)",
        "model (g)",
        "tree:2:2 (P = 3)",
        "processors P",
    ] {
        assert!(has_text(&svg, t), "no {t:?} in {:?}", texts(&svg));
    }
    let open = |svg: &str, colour: &str| {
        elements(svg, "circle")
            .into_iter()
            .filter(|e| e.contains(&format!("stroke=\"{colour}\"")) && e.contains("fill=\"none\""))
            .count()
    };
    // The key's, the pair's, the point's.
    assert_eq!(open(&svg, "#3C3C3C") + open(&svg, "#1F77B4"), 3, "{svg}");
    // The family's curve, through the run's P, dashed; its P on the axis.
    body.family = vec![(1.0, 1.0), (3.0, 2.5), (7.0, 4.0), (15.0, 5.0)];
    let svg = svg_of(&body);
    assert_eq!(open(&svg, "#1F77B4"), 0);
    let dashes = coloured(&svg, "polyline", "stroke", "#1F77B4").len();
    assert!(dashes > 10, "{dashes}");
    assert!(has_text(&svg, "10"), "{:?}", texts(&svg));
    // The spread of the two runs as an error bar (stem and two caps).
    let vertical = |e: &&str| {
        let pts: Vec<&str> = e
            .split("points=\"")
            .nth(1)
            .and_then(|p| p.split('"').next())
            .unwrap_or("")
            .split_whitespace()
            .collect();
        let x = |p: &str| p.split(',').next().map(str::to_owned);
        pts.len() == 2 && x(pts[0]) == x(pts[1]) && pts[0] != pts[1]
    };
    let stems = coloured(&svg, "polyline", "stroke", "#1F77B4")
        .into_iter()
        .filter(vertical)
        .count();
    assert_eq!(stems, 1);
}
