//! Reports, repeated runs and files as a user meets them: `--report` in every format, the
//! metadata of `--json`, `--runs`/`--warmup`, run folders that never overwrite each other,
//! flags checked (and nothing written) before a run.

mod common;

use std::path::Path;
use std::process::Output;

use common::{folder, json, ok, refused, run_in};

/// A quick farm on three processors at D = 1, with `extra` (kept whole: paths).
fn farm(out: &Path, line: &str, extra: &[&str]) -> Output {
    run_in(
        out,
        &format!("farm -t binary:2 --tasks 40 --te 400us --mode dilated --dilation 1 {line}"),
        extra,
    )
}

#[test]
fn a_report_file_in_every_format_carries_results_inputs_and_host() {
    let dir = folder("reports-formats");
    std::fs::create_dir_all(&dir).unwrap();
    for ext in ["html", "md", "json", "csv"] {
        let file = dir.join(format!("farm.{ext}"));
        ok(&farm(&dir, "--report", &[file.to_str().unwrap()]));
        let text = std::fs::read_to_string(&file).unwrap();
        match ext {
            "html" => {
                assert!(text.starts_with("<!DOCTYPE html>"));
                assert!(text.contains("<svg") && text.contains("<h2>Inputs</h2>"));
                assert!(!text.contains("<script") && !text.contains("src=\"http"));
            }
            "md" => assert!(text.contains("## Inputs") && text.contains("| speedup |")),
            "json" => {
                let v: serde_json::Value = serde_json::from_str(&text).unwrap();
                assert_eq!(v["meta"]["command"], "farm");
                assert_eq!(v["meta"]["inputs"]["tasks"], "40");
                assert!(v["measured"]["speedup"].is_number());
            }
            _ => assert!(text.starts_with("field,value\n") && text.contains("\nmeasured.speedup,")),
        }
    }
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn json_has_metadata_and_repeated_runs_have_a_spread() {
    let dir = folder("reports-runs");
    let v = json(&farm(&dir, "--runs 3 --warmup 1 --json", &[]));
    let m = &v["meta"];
    assert_eq!(m["tool"], "multicomputer");
    assert!(m["version"].is_string() && m["date"].is_string());
    assert!(m["command_line"].as_array().unwrap().len() > 5);
    // Constant task times draw nothing at random: no seed is reported.
    assert!(m["seed"].is_null());
    assert_eq!(m["time"]["mode"], "dilated");
    assert_eq!(m["time"]["dilation"], 1.0);
    assert!(m["host"]["cores"].as_u64().unwrap() >= 1);
    let r = &v["repetitions"];
    assert_eq!(
        (r["runs"].as_u64(), r["warmup"].as_u64()),
        (Some(3), Some(1))
    );
    let speedup = r["quantities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["name"] == "speedup")
        .unwrap();
    let s = &speedup["summary"];
    assert_eq!(s["runs"], 3);
    let (lo, mean, hi) = (
        s["min"].as_f64().unwrap(),
        s["mean"].as_f64().unwrap(),
        s["max"].as_f64().unwrap(),
    );
    assert!(lo <= mean && mean <= hi && s["sd"].is_number());
    // The headline is the mean of the runs.
    assert!((v["measured"]["speedup"].as_f64().unwrap() - mean).abs() < 1e-12);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn runs_never_overwrite_each_other_and_latest_is_the_newest() {
    let dir = folder("reports-folders");
    let sweep = |seed: &str| {
        run_in(
            &dir,
            "sweep farm --topologies chain:1-2 --te 300us --tasks 30 --mode dilated \
             --dilation 1 --name s --seed",
            &[seed],
        )
    };
    // A stale temporary folder from a killed run (no process has this id) is cleaned up.
    let stale = dir.join("s/.mc-tmp-999999999-x");
    std::fs::create_dir_all(&stale).unwrap();
    ok(&sweep("1"));
    assert!(
        !stale.exists(),
        "a killed run's temporary folder is removed"
    );
    ok(&sweep("2"));
    let runs: Vec<String> = std::fs::read_dir(dir.join("s"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n != "latest")
        .collect();
    assert_eq!(runs.len(), 2, "{runs:?}");
    for r in &runs {
        let m: serde_json::Value = serde_json::from_slice(
            &std::fs::read(dir.join("s").join(r).join("manifest.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(m["run"], r.as_str());
        for f in m["files"].as_array().unwrap() {
            let name = f["name"].as_str().unwrap();
            let len = std::fs::metadata(dir.join("s").join(r).join(name))
                .unwrap()
                .len();
            assert_eq!(f["bytes"].as_u64(), Some(len), "{name}");
        }
    }
    let latest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("s/latest/report.json")).unwrap()).unwrap();
    assert_eq!(latest["meta"]["seed"], 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn flags_are_checked_before_anything_runs_or_is_written() {
    let dir = folder("reports-flags");
    for (line, needle) in [
        ("sweep farm --name .hidden", "--name"),
        ("sweep farm --name a/b", "--name"),
        ("sweep farm -t chain:2", "unexpected argument '-t'"),
        ("predict farm --mode native", "unexpected argument '--mode'"),
        (
            "predict farm --trace t.json",
            "unexpected argument '--trace'",
        ),
        ("farm --report r.pdf", "--report r.pdf"),
        ("farm --report /proc/no/r.html", "--report /proc/no/r.html"),
        ("farm --te 0s", "--te: T_e must be > 0"),
        ("farm --runs 0", "--runs"),
        ("dnc -t tree:2:2 --te 0s", "--te"),
        ("emulate --trace /proc/no/t.json", "--trace /proc/no/t.json"),
        (
            "sweep dnc --topologies binary:2 --split random --guided",
            "--guided",
        ),
        (
            "predict farm --min-marginal-efficiency 0",
            "--min-marginal-efficiency",
        ),
    ] {
        refused(&run_in(&dir, line, &[]), needle);
    }
    // An empty name, as typed.
    refused(
        &run_in(&dir, "sweep farm --name", &[""]),
        "--name: must not be empty",
    );
    assert!(!dir.exists(), "a rejected run writes nothing");
}

#[test]
fn csv_columns_match_ignoring_case_and_left_out_rows_are_named() {
    let dir = folder("reports-csv");
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("t.csv");
    let mut text = String::from("K,Levels,TE_S,tau_s,Steady_Throughput_Per_S\n");
    // Throughputs of the farm model with T_e = 1 ms, β_e = 50 µs, β_f = 100 µs (`predict farm`).
    for (k, n, thr) in [
        (1, 1, 952.380952),
        (1, 2, 1814.058957),
        (1, 3, 2593.672390),
        (2, 2, 2675.736961),
        (2, 3, 5794.190692),
        (0, 3, 100.0),
    ] {
        text.push_str(&format!("{k},{n},0.001,0,{thr}\n"));
    }
    text.push_str("1,4,0.001,0,nan\n");
    std::fs::write(&csv, &text).unwrap();
    let v = json(&run_in(
        &dir,
        "fit farm --json --csv",
        &[csv.to_str().unwrap()],
    ));
    let skipped: Vec<u64> = v["skipped_rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["row"].as_u64().unwrap())
        .collect();
    assert_eq!(skipped, vec![7, 8]);
    assert_eq!(v["observations"], 5);
    assert!(v["beta_e"]["low"].as_f64().unwrap() <= v["beta_e_s"].as_f64().unwrap());
    std::fs::write(
        &csv,
        "k,levels,te_s,tau_s,steady_throughput_per_s\n2.5,2,0.001,0,100\n",
    )
    .unwrap();
    refused(
        &run_in(&dir, "fit farm --csv", &[csv.to_str().unwrap()]),
        "row 2 column 'k': 2.5 is not a whole number",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_tour_takes_json_and_links_its_files() {
    let dir = folder("reports-tour");
    let v = json(&run_in(&dir, "tour --json", &[]));
    assert_eq!(v["meta"]["command"], "tour");
    assert!(v["profile"]["message_spin_ns"].is_number());
    assert_eq!(v["farm"]["rows"].as_array().unwrap().len(), 9);
    assert!(v["emulate"]["makespan_s"].is_number());
    let folder = v["farm_folder"].as_str().unwrap();
    assert!(Path::new(folder).join("report.html").exists(), "{folder}");
    assert!(dir.join("machine-profile.json").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
