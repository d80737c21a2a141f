//! Numbers a user can trust (issue 22): repeated runs draw fresh seeds, a report's metadata
//! says what the run used, bad input is refused, files hold numbers.

mod common;

use std::path::PathBuf;
use std::process::Output;

use common::{folder, json, run_in};

/// The output folder of the commands whose files no test reads.
fn scratch() -> PathBuf {
    std::env::temp_dir().join(format!("mc-trust-{}", std::process::id()))
}

fn run(line: &str) -> Output {
    run_in(&scratch(), line, &[])
}

#[test]
fn repeated_randomised_runs_draw_fresh_recorded_seeds() {
    let v = json(&run(
        "farm -t chain:4 --te 1ms --times exponential --tasks 60 --runs 3 --warmup 1 \
         --mode virtual --seed 7 --json",
    ));
    let r = &v["repetitions"];
    assert_eq!(r["seeds"], serde_json::json!([7, 8, 9]));
    assert_eq!(r["identical"], false);
    let makespan = r["quantities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["name"] == "makespan_s")
        .unwrap();
    let s = &makespan["summary"];
    assert!(s["min"].as_f64() < s["max"].as_f64(), "{s}");
}

#[test]
fn identical_virtual_runs_say_so_once() {
    let dir = folder("trust-identical");
    let report = dir.join("r.md");
    let o = run_in(
        &dir,
        "farm -t chain:4 --te 1ms --tasks 60 --runs 3 --mode virtual --json --report",
        &[report.to_str().unwrap()],
    );
    let v = json(&o);
    assert_eq!(v["repetitions"]["identical"], true);
    assert!(v["repetitions"].get("seeds").is_none());
    let md = std::fs::read_to_string(&report).unwrap();
    assert!(md.contains("are identical"), "{md}");
    assert!(!md.contains("± 0.0000"), "{md}");
}
