//! Every report kind draws its plots (issue 22): the processor timeline of an `emulate` run
//! and of any run with `--trace`, the latency distribution of `pingpong`, the physics of
//! `ising` against its exact values, the stream of `ocl` against its model. Structural
//! checks of the HTML page's inline SVG, never pixels.

// Each test file uses some of the shared helpers.
#[allow(dead_code)]
mod common;

use std::path::Path;

use common::{ok, run_in};

/// Runs `line` with `--report <dir>/<name>` and returns the page.
fn page(dir: &Path, line: &str, name: &str) -> String {
    let report = dir.join(name);
    ok(&run_in(dir, line, &["--report", report.to_str().unwrap()]));
    std::fs::read_to_string(report).unwrap()
}

/// The inline SVG documents of a page.
fn svgs(page: &str) -> Vec<&str> {
    page.split("<svg")
        .skip(1)
        .map(|s| s.split_once("</svg>").map_or(s, |(svg, _)| svg))
        .collect()
}

/// The one SVG of `page` that holds the text `title` (its title's start).
#[track_caller]
fn plot<'p>(page: &'p str, title: &str) -> &'p str {
    let found: Vec<&str> = svgs(page)
        .into_iter()
        .filter(|s| s.contains(title))
        .collect();
    assert_eq!(found.len(), 1, "{title:?}: {} plots", found.len());
    found[0]
}

/// Whether `svg` has a `<text>` element reading exactly `want` (XML-escaped).
fn has_text(svg: &str, want: &str) -> bool {
    svg.split("<text").skip(1).any(|t| {
        t.split_once('>')
            .and_then(|(_, b)| b.split_once("</text>"))
            .is_some_and(|(b, _)| b.trim() == want)
    })
}

#[test]
fn an_emulate_report_draws_its_timeline_and_a_traced_run_too() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // emulate records its trace for the page, unasked; every processor has its row.
    let html = page(
        dir,
        "emulate -t binary:3 --pattern reduce --rounds 4 --occupy 1ms --mode virtual",
        "e.html",
    );
    let svg = plot(&html, "reduce pattern on ");
    for p in 0..7 {
        assert!(has_text(svg, &format!("P{p}")), "P{p} has no row");
    }
    assert!(has_text(svg, "emulated time (ms)") && has_text(svg, "message (send → arrival)"));
    // A farm draws one only with --trace (its trace is what the page draws).
    let line = "farm -t chain:3 --te 1ms --tasks 20 --mode virtual";
    assert!(!page(dir, line, "f.html").contains("processors against emulated time"));
    let trace = dir.join("t.json");
    let traced = page(
        dir,
        &format!("{line} --trace {}", trace.display()),
        "ft.html",
    );
    plot(&traced, "processors against emulated time");
    // A JSON report has no plots, so emulate records no trace for it.
    let json = page(
        dir,
        "emulate -t binary:3 --rounds 4 --occupy 1ms --mode virtual",
        "e.json",
    );
    assert!(!json.contains("<svg"));
}

#[test]
fn a_collective_report_draws_its_timeline() {
    let tmp = tempfile::tempdir().unwrap();
    let html = page(
        tmp.path(),
        "collective all-reduce --algorithm ring -t ring:4 --bytes 64 --mode virtual",
        "c.html",
    );
    let svg = plot(&html, "processors against emulated time");
    for p in 0..4 {
        assert!(has_text(svg, &format!("P{p}")), "P{p} has no row");
    }
    assert!(has_text(svg, "message (send → arrival)"));
}

#[test]
fn a_trace_too_long_for_a_page_is_left_to_its_own_file_and_the_page_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let trace = dir.join("t.json");
    let html = page(
        dir,
        &format!(
            "emulate -t chain:100 --rounds 300 --occupy 1ms --mode virtual --trace {}",
            trace.display()
        ),
        "e.html",
    );
    assert!(!html.contains("processors against emulated time"));
    assert!(html.contains("left out of this page"), "{html}");
    assert!(html.contains("--timeline FILE"));
    // Without --trace, a run that long records none for the page.
    let html = page(
        dir,
        "emulate -t chain:100 --rounds 300 --occupy 1ms --mode virtual",
        "plain.html",
    );
    assert!(!html.contains("emulated time (ms)"));
}

#[test]
fn ising_draws_magnetisation_and_energy_beside_the_exact_values() {
    let tmp = tempfile::tempdir().unwrap();
    let html = page(
        tmp.path(),
        "ising --dimension 2 --size 8 --temperature 1.5 -P 2 --mode virtual",
        "i.html",
    );
    for title in [
        "⟨|m|⟩ per spin against temperature, 2D",
        "⟨e⟩ per spin (J) against temperature, 2D",
    ] {
        let svg = plot(&html, title);
        for t in ["exact, L = ∞ (Onsager)", "T_c = 2.269"] {
            assert!(has_text(svg, t), "{title}: no {t:?}");
        }
        assert!(svg.contains("this run (± standard error): 2D, L = 8"));
    }
    // 3D has no exact value: the series expansions where they hold, said so.
    let html = page(tmp.path(), "ising --size 4 -P 2 --mode virtual", "i3.html");
    let svg = plot(&html, "⟨e⟩ per spin (J) against temperature, 3D");
    for t in [
        "low-temperature series, L = ∞",
        "high-temperature series, L = ∞",
    ] {
        assert!(has_text(svg, t), "no {t:?}");
    }
    assert!(html.contains("no exact 3D value"));
}

#[test]
fn ocl_draws_its_stream_against_the_model() {
    let tmp = tempfile::tempdir().unwrap();
    let html = page(
        tmp.path(),
        "ocl --window 20 --transform m1:4 --length 200",
        "o.html",
    );
    let svg = plot(&html, "Time to produce and to consume the first");
    for t in [
        "produce ℓ outputs, t(ℓ)",
        "consume ℓ inputs (§4)",
        "sequential program, s(ℓ) = ℓNβ",
        "stream length ℓ (values)",
        "measured",
        "model",
    ] {
        assert!(has_text(svg, t), "no {t:?}");
    }
}

#[test]
fn pingpong_draws_the_distribution_of_its_measurements() {
    let tmp = tempfile::tempdir().unwrap();
    let html = page(
        tmp.path(),
        "pingpong --round-trips 100 --runs 3 --warmup 0",
        "p.html",
    );
    let svg = plot(
        &html,
        "One-way message time: the distribution of 3 measurements",
    );
    assert!(has_text(svg, "fraction of measurements ≤ time"));
    assert!(svg.contains("bare median ") && svg.contains("runtime median "));
}
