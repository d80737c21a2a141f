//! The command line as a user meets it: exit codes, messages naming the argument, JSON output.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{folder, json, ok, refused, run_in};

/// The output folder of the commands whose files no test reads.
fn scratch() -> PathBuf {
    std::env::temp_dir().join(format!("mc-cli-{}", std::process::id()))
}

/// Runs the command line `line` (then `extra`, kept whole).
fn run(line: &str, extra: &[&str]) -> Output {
    run_in(&scratch(), line, extra)
}

/// `line` is refused with exit code 2 and a message holding `needle`.
#[track_caller]
fn usage_error(line: &str, needle: &str) {
    refused(&run(line, &[]), needle);
}

/// A path as an argument.
fn arg(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temporary path")
}

#[test]
fn bad_input_exits_2_naming_the_argument() {
    usage_error("emulate --topology lattice:4", "--topology");
    usage_error(
        "emulate --topology lattice:4",
        "unknown topology kind 'lattice'",
    );
    usage_error("emulate --topology tree:0:3", "arity");
    usage_error("emulate --occupy -1ms", "negative");
    usage_error("farm --tasks -1", "--tasks");
    usage_error("farm --tasks -1", "must be non-negative");
    usage_error("emulate --occupy 250", "no unit");
    usage_error("emulate --rounds 0", "--rounds");
    usage_error("emulate --mode virtual --dilation 2", "--dilation");
    usage_error("emulate --stack-size 1KiB -t chain:4", "--stack-size");
    usage_error("emulate --stack-size big", "--stack-size");
    usage_error("emulate --unit-cost flip", "--unit-cost");
    usage_error("emulate --compute guess", "--compute");
    usage_error("emulate --mode dilated --dilation 0.5", "--dilation");
    usage_error("emulate --mode native -t chain:4096", "--mode native");
    usage_error("emulate --profile /nonexistent/profile.json", "--profile");
    usage_error("frobnicate", "unrecognized subcommand");
}

#[test]
fn emulate_json_reports_exact_emulated_makespan() {
    let v = json(&run(
        "emulate -t binary:3 --rounds 5 --occupy 1ms --mode dilated --dilation 1 --json",
        &[],
    ));
    assert_eq!(v["processors"], 7);
    assert_eq!(v["makespan_s"], 0.005);
    assert_eq!(v["error_pct"], 0.0);
    assert_eq!(v["dilation"], 1.0);
    assert!(v["report"]["fidelity"]["waits"].as_u64().unwrap() >= 35);
}

#[test]
fn phold_flags_belong_to_phold_and_phold_refuses_costs_it_cannot_check() {
    usage_error("emulate --pattern reduce --remote 0.5", "--remote");
    usage_error("emulate --horizon 1ms", "--horizon");
    usage_error("emulate --pattern phold --remote 1.5", "--remote");
    usage_error("emulate --pattern phold --rounds 3", "--rounds");
    usage_error("emulate --pattern phold --occupy 1ms", "--occupy");
    usage_error(
        "emulate --pattern phold --send-overhead 1us",
        "--send-overhead",
    );
    usage_error("emulate --pattern phold --per-byte 1ns", "--per-byte");
    usage_error("emulate --pattern phold --mean-delay 0s", "--mean-delay");
}

#[test]
fn phold_executes_the_sequential_references_events_and_conserves_its_population() {
    let line = "emulate -t torus:4x4 --pattern phold --remote 0.8 --mean-delay 20us \
                --population 2 --horizon 2ms --latency 5us --mode virtual --json";
    let v = json(&run(line, &[]));
    let p = &v["phold"];
    assert_eq!(v["pattern"], "phold");
    assert_eq!(p["matches_reference"], true);
    assert_eq!(p["conserved"], true);
    assert_eq!(p["left"], 32);
    assert_eq!(p["late"], 0);
    assert!(p["events"].as_u64().unwrap() > 1000);
    assert_eq!(p["events"], p["reference_events"]);
    assert_eq!(p["digest"], p["reference_digest"]);
    // Another seed, other events.
    let w = json(&run(line, &["--seed", "2"]));
    assert_ne!(w["phold"]["digest"], p["digest"]);
}

/// A binary without MPI, started as one of several ranks (the launcher's variables set in
/// its environment, no mpirun needed), refuses before any work; as one rank of one, it runs.
#[cfg(not(feature = "mpi"))]
#[test]
fn without_mpi_a_process_started_as_one_of_several_ranks_exits_2_saying_so() {
    let out = folder("mpi-refused");
    for variable in ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_multicomputer"))
            .args([
                "emulate", "-t", "chain:2", "--rounds", "1", "--json", "--out",
            ])
            .arg(&out)
            .env(variable, "4")
            .output()
            .expect("the binary runs");
        refused(&o, &format!("one of 4 MPI ranks ({variable}=4)"));
        assert!(common::stderr(&o).contains("--features mpi"));
        assert!(!out.exists(), "nothing written");
    }
    let alone = std::process::Command::new(env!("CARGO_BIN_EXE_multicomputer"))
        .args([
            "emulate", "-t", "chain:2", "--rounds", "1", "--json", "--out",
        ])
        .arg(&out)
        .env("OMPI_COMM_WORLD_SIZE", "1")
        .output()
        .expect("the binary runs");
    assert_eq!(json(&alone)["processors"], 2);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn reduce_pattern_counts_every_message() {
    let v = json(&run(
        "emulate -t tree:3:3 --rounds 4 --occupy 200us --pattern reduce --send-overhead 20us \
         --mode dilated --dilation 1 --json",
        &[],
    ));
    // 13 processors, 12 links, one message per link per round.
    assert_eq!(v["report"]["totals"]["messages_sent"], 48);
    assert_eq!(v["report"]["totals"]["messages_received"], 48);
}

#[test]
fn calibrate_json_has_the_keys_other_tools_rely_on() {
    let dir = folder("cli-profile");
    std::fs::create_dir_all(&dir).unwrap();
    let profile = dir.join("profile.json");
    let v = json(&run(
        "calibrate --samples 5 --json --profile",
        &[arg(&profile)],
    ));
    for key in [
        "message_spin_ns",
        "message_parked_ns",
        "wakeup_ns",
        "clock_read_ns",
    ] {
        assert!(v[key].is_number(), "{key} missing");
    }
    for s in ["spin", "sleep", "hybrid"] {
        assert!(
            v["occupy_error_ns"][s].is_number(),
            "occupy_error_ns.{s} missing"
        );
    }
    assert!(profile.exists());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn trace_and_timeline_files_show_every_processor_and_message() {
    let dir = folder("cli-trace");
    std::fs::create_dir_all(&dir).unwrap();
    let (trace, timeline) = (dir.join("t.json"), dir.join("t.svg"));
    ok(&run_in(
        &dir,
        "emulate -t chain:3 --rounds 2 --occupy 100us --pattern reduce --mode dilated \
         --dilation 1",
        &["--trace", arg(&trace), "--timeline", arg(&timeline)],
    ));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&trace).unwrap()).unwrap();
    assert!(v["traceEvents"].as_array().unwrap().len() > 3);
    // Two links, one message per link per round: four arrows, besides the legend's.
    let svg = std::fs::read_to_string(&timeline).unwrap();
    let texts: Vec<&str> = svg
        .split("<text")
        .filter_map(|t| Some(t.split_once('>')?.1.split_once("</text>")?.0.trim()))
        .collect();
    // Two rounds of 100 µs: under a millisecond, so the axis is in µs.
    for t in ["P0", "P1", "P2", "emulated time (µs)"] {
        assert!(texts.contains(&t), "{t} missing in {texts:?}");
    }
    let arrows = svg
        .lines()
        .filter(|l| l.trim_start().starts_with("<polyline") && l.contains("stroke=\"#1E1E1E\""))
        .count();
    assert_eq!(arrows, 1 + 4);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn farm_bad_input_exits_2_naming_the_argument() {
    usage_error("farm --tasks 0", "--tasks");
    usage_error("farm --te -5ms", "negative");
    usage_error("farm --te 5", "no unit");
    usage_error("farm --topology star:3", "unknown topology kind 'star'");
    usage_error("farm --granularity 0", "--granularity");
    usage_error("dnc --guided", "--guided");
    usage_error("sweep farm --topologies chain:4-2", "empty range");
    usage_error("sweep farm --times gaussian", "unknown distribution");
    usage_error("sweep dnc --split thirds", "unknown split");
}

#[test]
fn farm_json_has_measured_and_predicted_with_the_same_keys() {
    let v = json(&run(
        "farm -t binary:2 --tasks 60 --te 500us --mode dilated --dilation 1 --json",
        &[],
    ));
    assert_eq!(v["processors"], 3);
    for key in [
        "throughput_per_s",
        "speedup",
        "makespan_s",
        "fractions_by_level",
    ] {
        assert!(!v["measured"][key].is_null(), "measured.{key}");
        assert!(!v["predicted"][key].is_null(), "predicted.{key}");
    }
    let levels = v["measured"]["fractions_by_level"].as_array().unwrap();
    assert_eq!(levels.len(), 2);
    assert!(v["error_pct"].is_number());
    assert!(v["fidelity"]["waits"].is_number());
}

#[test]
fn farm_json_reports_the_drain_that_random_task_times_add() {
    let farm = |line: &str| {
        json(&run(
            &format!("farm --tasks 30 --mode dilated --dilation 1 --json {line}"),
            &[],
        ))
    };
    // Exponential times on 3 busy processors: (H_3 − 1)·T_e = (1/2 + 1/3)·600 µs = 500 µs.
    let v = farm("-t binary:2 --te 600us --times exponential");
    assert_eq!(v["drain"]["busy_processors"], 3);
    let drain = v["drain"]["drain_s"].as_f64().unwrap();
    assert!((drain - 500e-6).abs() < 1e-12, "{drain}");
    let makespan = v["predicted"]["makespan_s"].as_f64().unwrap();
    let floor = v["drain"]["speedup_error_floor_pct"].as_f64().unwrap();
    assert!((floor - 100.0 * (makespan / (makespan + drain) - 1.0)).abs() < 1e-9);
    // The flood-fill protocol's own drain is sampled (4000 runs of the end); on two processors with
    // queue 1 it is exactly 9/8·T_e (farm::chain_flood_fill_drain_s, worked by hand), which
    // the sample mean must meet within 4 standard errors.
    assert!(v["drain"]["flood_fill"]["drain_s"].as_f64().unwrap() > drain);
    let chain = farm("-t chain:2 --te 800us --times exponential --queue=1");
    let flood = &chain["drain"]["flood_fill"];
    let samples = flood["samples"].as_f64().unwrap();
    assert_eq!(samples, 4000.0);
    let se = flood["drain_sd_s"].as_f64().unwrap() / samples.sqrt();
    let mean = flood["drain_s"].as_f64().unwrap();
    assert!((mean - 900e-6).abs() < 4.0 * se, "{mean} ± {se}");
    // The speedup of (g) plus the drain: M T_e / (T + drain).
    let t = chain["predicted"]["makespan_s"].as_f64().unwrap();
    let sp = chain["predicted"]["speedup"].as_f64().unwrap() * t / (t + mean);
    assert!((flood["speedup"].as_f64().unwrap() - sp).abs() < 1e-9);
    // Model guidance fixes the shares: no flood-fill drain is predicted for it.
    let guided = farm("-t chain:2 --te 800us --times exponential --guided");
    assert!(guided["drain"]["flood_fill"].is_null());
    // Constant times: the paper's lock step, nothing to add.
    let constant = farm("-t binary:2 --te 600us --times constant");
    assert_eq!(constant["drain"]["drain_s"].as_f64(), Some(0.0));
}

#[test]
fn predict_farm_table_shows_the_drain_of_random_times_and_the_peak() {
    let t = ok(&run(
        "predict farm -t chain:4 --te 1ms --times exponential",
        &[],
    ));
    assert!(
        t.contains("drain at the end") && t.contains("flood-fill drain"),
        "{t}"
    );
    assert!(t.contains("peak operating point"), "{t}");
    let t = ok(&run("predict farm -t binary:3 --te 1ms", &[]));
    assert!(!t.contains("drain"), "constant times have no drain: {t}");
}

#[test]
fn predict_prints_the_model_alone() {
    let v = json(&run("predict farm -t chain:3 --te 1ms --json", &[]));
    // Recurrence (d) with k = 1: S_1 = 1/1.05 ms, S_2 = S_1·0.95/1.05 + S_1, S_3 likewise.
    let s1 = 1.0 / 1.05e-3;
    let r = 0.95 / 1.05;
    let s3 = s1 * (1.0 + r + r * r);
    let got = v["throughput_per_s"].as_f64().unwrap();
    assert!((got - s3).abs() / s3 < 1e-9, "{got} vs {s3}");
    ok(&run("predict dnc -t binary:3 --json", &[]));
}

#[test]
fn predict_figures_mark_each_peak() {
    let dir = folder("cli-figures");
    ok(&run_in(
        &dir,
        "predict farm -t chain:16 --te 1ms --figures",
        &[],
    ));
    let run = dir.join("predict-farm/latest");
    let svg = std::fs::read_to_string(run.join("figure4.svg")).unwrap();
    // Three curves (T_e, 5 T_e, 10 T_e), each maximum ringed and labelled as such.
    assert_eq!(svg.matches("maximum: N = ").count(), 3, "{svg}");
    assert!(run.join("figure5.svg").exists());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn sweep_writes_csv_that_fit_reads_and_a_missing_column_is_named() {
    let dir = folder("cli-sweep");
    ok(&run_in(
        &dir,
        "sweep farm --topologies chain:1-3,binary:2 --te 500us,1ms --tasks 80 --mode dilated \
         --dilation 1 --name s",
        &[],
    ));
    let run = dir.join("s/latest");
    for f in [
        "rows.csv",
        "report.json",
        "report.html",
        "speedup.svg",
        "error.svg",
        "manifest.json",
    ] {
        assert!(run.join(f).exists(), "{f} not written");
    }
    let csv = run.join("rows.csv");
    let v = json(&run_in(&dir, "fit farm --json --csv", &[arg(&csv)]));
    assert!(v["beta_e_s"].is_number() && v["beta_f_s"].is_number());
    // A table without the throughput column is rejected, naming it.
    let text = std::fs::read_to_string(&csv).unwrap();
    let header = text
        .lines()
        .next()
        .unwrap()
        .replace("steady_throughput_per_s", "other");
    let broken = dir.join("broken.csv");
    let rows: Vec<&str> = text.lines().skip(1).collect();
    std::fs::write(&broken, format!("{header}\n{}", rows.join("\n"))).unwrap();
    refused(
        &run_in(&dir, "fit farm --csv", &[arg(&broken)]),
        "missing column 'steady_throughput_per_s'",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---- OCL (grain-size paper): `ocl`, `sweep ocl`, `fit ocl` ----

#[test]
fn ocl_bad_input_exits_2_naming_the_argument() {
    usage_error(
        "ocl --window 10 --transform kk:4",
        "--transform: packet size K = 4 does not divide window length N = 10",
    );
    usage_error(
        "ocl --window 12 --transform mk:6,4",
        "does not divide cell size M = 6",
    );
    usage_error(
        "ocl --window 10 --transform ring:2",
        "--transform: unknown transform 'ring:2'",
    );
    usage_error("ocl --window 0", "--window");
    usage_error("ocl --window 4 --transform kk:2 --alpha 10us", "--alpha");
    usage_error("ocl --window 4 --input /nonexistent/stream.txt", "--input");
    usage_error("ocl --window 64 --costs native", "--costs native");
    usage_error(
        "sweep ocl --windows 10 --grains 3",
        "--grains: cell size M = 3 does not divide window length N = 10",
    );
    usage_error("sweep ocl --transforms m2", "--transforms");
    usage_error("sweep ocl --cells 50", "--cells: '50' is not N:G");
    usage_error(
        "sweep ocl --cells 50:3",
        "--cells: cell size M = 3 does not divide window length N = 50",
    );
    usage_error("fit ocl --transform mk --paper", "mk");
}

#[test]
fn ocl_json_matches_the_model_and_writes_b() {
    let dir = folder("cli-ocl");
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("a.txt");
    std::fs::write(&input, "1\n1\n\n2\n-3\n1\n").unwrap();
    let output = dir.join("b.txt");
    let v = json(&run_in(
        &dir,
        "ocl --window 2 --transform fine --alpha 10us --beta 1us --json",
        &["--input", arg(&input), "--output", arg(&output)],
    ));
    assert_eq!(v["l"], 5);
    assert_eq!(v["processes"], 2);
    assert_eq!(v["output_matches_reference"], true);
    // (2L − 1)α + (L − 1)β = 90 + 4 µs (§4.1 with M = 1).
    let c = v["consumption_s"].as_f64().unwrap();
    assert!((c - 94e-6).abs() < 1e-12, "{c}");
    assert!(v["consumption_error_pct"].as_f64().unwrap().abs() < 1e-6);
    assert!((v["predicted"]["communication_overhead"].as_f64().unwrap() - 20.0).abs() < 1e-9);
    // B for window 2 of 1, 1, 2, −3, 1 (A(−1) = 0).
    assert_eq!(std::fs::read_to_string(&output).unwrap(), "1\n2\n1\n1\n1\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ocl_sweep_csv_fits_back_to_the_constants_and_a_missing_column_is_named() {
    let dir = folder("cli-ocl-sweep");
    ok(&run_in(
        &dir,
        "sweep ocl --windows 12 --grains 1,2,3,6,12 --length 60 --alpha0 4us --alpha1 3us \
         --beta 2us --name s",
        &[],
    ));
    let run = dir.join("s/latest");
    for f in ["m1.csv", "kk.csv", "report.json", "m1.svg", "kk.svg"] {
        assert!(run.join(f).exists(), "{f} not written");
    }
    let fit = |table: &str| {
        let csv = run.join(format!("{table}.csv"));
        json(&run_in(
            &dir,
            &format!("fit ocl --transform {table} --json --csv"),
            &[arg(&csv)],
        ))
    };
    let v = fit("kk");
    let near = |key: &str, want: f64| {
        let got = v[key].as_f64().unwrap();
        assert!((got / want - 1.0).abs() < 1e-6, "{key}: {got} vs {want}");
    };
    near("alpha0_s", 4e-6);
    near("alpha1_s", 3e-6);
    near("beta_s", 2e-6);
    near("optimal_k", 2.0);
    assert_eq!(v["residuals"].as_array().unwrap().len(), 5);
    // Emulated with these constants: the fit is a self-check, and says so.
    assert_eq!(v["self_check"], true);
    // The m1 table was run with α = α0 + α1 = 7 µs.
    let m1 = run.join("m1.csv");
    let v = fit("m1");
    assert!((v["alpha_s"].as_f64().unwrap() / 7e-6 - 1.0).abs() < 1e-6);
    assert!(v["alpha0_s"].is_null());
    // A kk fit of the m1 table lacks the k column.
    refused(
        &run_in(&dir, "fit ocl --transform kk --csv", &[arg(&m1)]),
        "missing column 'k'",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ocl_fit_of_the_papers_tables_gives_its_constants() {
    let v = json(&run(
        "fit ocl --transform m1 --paper --multi-process --json",
        &[],
    ));
    assert!((v["alpha_s"].as_f64().unwrap() / 12.33e-6 - 1.0).abs() < 0.01);
    assert!((v["beta_s"].as_f64().unwrap() / 2.88e-6 - 1.0).abs() < 0.01);
    assert!(v["max_relative_error"].as_f64().unwrap() < 0.011);
    // A transputer's measurements: a validation, not a self-check.
    assert_eq!(v["self_check"], false);
    let v = json(&run("fit ocl --transform kk --paper --json", &[]));
    for key in ["alpha0_s", "alpha1_s", "beta_s", "optimal_k"] {
        assert!(v[key].is_number(), "{key} missing");
    }
    assert_eq!((v["optimal_k"].as_f64().unwrap() * 10.0).round(), 22.0);
}

// ---- ising and scaling ----------------------------------------------------------------------

/// A table of run times like the paper's: P = 2…256, loop counts 0…6000, three replicates per
/// point with a ±0.3 % wobble, true overhead 78 + (1.2 + 0.0015·L)·ln P, plus `c_per_loop·L·P`.
fn scaling_synthetic_csv(path: &Path, c_per_loop: f64, with_loop_count: bool) {
    let mut text = String::from(if with_loop_count {
        "P,time_s,loop_count\n"
    } else {
        "P,time_s\n"
    });
    for l in [0.0, 2000.0, 4000.0, 6000.0] {
        if !with_loop_count && l > 0.0 {
            break;
        }
        for k in 1..=8 {
            let p = f64::from(1u32 << k);
            let t = 78.0 + (1.2 + 0.0015 * l) * p.ln() + c_per_loop * l * p;
            for w in [-0.003, 0.0, 0.003] {
                let row = format!("{p},{}", t * (1.0 + w));
                text.push_str(&if with_loop_count {
                    format!("{row},{l}\n")
                } else {
                    format!("{row}\n")
                });
            }
        }
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn ising_bad_input_exits_2_naming_the_argument() {
    usage_error("ising --size 1", "--size");
    usage_error("ising --temperature -1", "--temperature");
    usage_error("ising --sweeps 0", "--sweeps");
    usage_error("ising --processors 0", "--processors");
    usage_error("ising --mechanism ring", "--mechanism");
    usage_error(
        "ising --samples 3 --samples-per-processor 2",
        "cannot be used with",
    );
    usage_error("ising --mode dilated --dilation 0.5", "--dilation");
    usage_error("scaling --loop-counts 0,,5", "--loop-counts");
    usage_error("scaling --processors 2,x", "--processors");
    usage_error("scaling --model 1+cube", "--model");
    usage_error("scaling --model log", "constant term");
    usage_error("scaling --csv /nonexistent/t.csv", "--csv");
    // The tolerance is for exact data only, and no finer than their precision.
    usage_error("scaling --tolerance 1e-7", "--tolerance");
    usage_error("scaling --tolerance 1.5", "--tolerance");
    usage_error("scaling --compute measured --tolerance 0.01", "--tolerance");
    usage_error("scaling --against 1+log+P", "--against");
}

#[test]
fn ising_json_has_the_physics_and_equals_the_sequential_reference() {
    let dir = folder("ising");
    for mechanism in ["centralized", "tree"] {
        let v = json(&run_in(
            &dir,
            &format!(
                "ising --dimension 2 --size 8 --temperature 1.0 --thermalisation 20 --sweeps 20 \
                 -P 4 --mechanism {mechanism} --loop-count 1000 --mode dilated --dilation 2 \
                 --verify --json"
            ),
            &[],
        ));
        assert_eq!(v["verified"], true, "{mechanism}");
        assert_eq!(v["samples"], 16);
        assert_eq!(v["processors"], 4);
        assert!(v["run_time_s"].as_f64().unwrap() > 0.0);
        // Far below T_c ≈ 2.269: ordered, and the exact 2D values are given beside.
        assert!(v["abs_magnetisation"]["mean"].as_f64().unwrap() > 0.99);
        let exact_e = v["exact_2d"]["energy"].as_f64().unwrap();
        assert!((v["energy"]["mean"].as_f64().unwrap() - exact_e).abs() < 0.01);
        assert!(v["fidelity"]["waits"].as_u64().unwrap() > 0);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn scaling_csv_verdicts_follow_the_hidden_term() {
    let dir = folder("scaling-csv");
    std::fs::create_dir_all(&dir).unwrap();
    let clean = dir.join("clean.csv");
    let hidden = dir.join("hidden.csv");
    scaling_synthetic_csv(&clean, 0.0, true);
    scaling_synthetic_csv(&hidden, 2e-5, true);
    let verdict = |path: &Path| json(&run_in(&dir, "scaling --json --csv", &[arg(path)]));
    let v = verdict(&clean);
    assert_eq!(v["verdict"], "consistent", "{}", v["explanation"]);
    let rows = v["loop_counts"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    for r in rows {
        assert!((r["a"].as_f64().unwrap() - 78.0).abs() < 0.5, "{r}");
        let l = r["loop_count"].as_f64().unwrap();
        assert!(
            (r["b"].as_f64().unwrap() - (1.2 + 0.0015 * l)).abs() < 0.1,
            "{r}"
        );
    }
    let run = dir.join("scaling/latest");
    for f in ["report.json", "time.svg", "b.svg", "residuals.svg"] {
        assert!(run.join(f).exists(), "{f} not written");
    }
    let v = verdict(&hidden);
    assert_eq!(v["verdict"], "refuted", "{}", v["explanation"]);
    // One loop count: the fit alone, no verdict.
    let single = dir.join("single.csv");
    scaling_synthetic_csv(&single, 0.0, false);
    let v = verdict(&single);
    assert!(v["verdict"].is_null());
    assert_eq!(v["loop_counts"].as_array().unwrap().len(), 1);
    let broken = dir.join("broken.csv");
    let rejected = |table: &str, needle: &str| {
        std::fs::write(&broken, table).unwrap();
        refused(&run_in(&dir, "scaling --csv", &[arg(&broken)]), needle);
    };
    // A table without the run-time column is rejected, naming it.
    rejected("P,seconds\n2,1.0\n4,1.1\n", "missing column 'time_s'");
    // Two P values cannot give a + b·log P an uncertainty: the table is named.
    rejected("P,time_s\n2,1.0\n4,1.1\n", "--csv");
    rejected("P,time_s\n0,1.0\n4,1.1\n", "column 'P'");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A sweep in virtual time with model charging (the default): one run per point, the verdict
/// decided exactly (never inconclusive), the same rows byte for byte on a second run, and the
/// rows read back by `--csv` with `--tolerance` give the same fit and verdict.
#[test]
fn scaling_sweep_writes_a_csv_that_scaling_reads_back() {
    let dir = folder("scaling-run");
    let sweep = |name: &str| {
        json(&run_in(
            &dir,
            "scaling --processors 1,2,4,8 --loop-counts 0,1000 --size 4 --thermalisation 2 \
             --sweeps 2 --mechanism centralized --json --name",
            &[name],
        ))
    };
    let v = sweep("s");
    assert_eq!(v["mechanism"], "centralized");
    assert_eq!(v["meta"]["time"]["mode"], "virtual");
    assert_eq!(v["rows"].as_array().unwrap().len(), 8);
    let lc: Vec<f64> = v["loop_counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["loop_count"].as_f64().unwrap())
        .collect();
    assert_eq!(lc, vec![0.0, 1000.0]);
    let exact = &v["test"]["exact"];
    let deviation = exact["largest_relative_deviation"].as_f64().unwrap();
    assert_eq!(exact["tolerance"], 0.01);
    let expected = if deviation <= 0.01 {
        "consistent"
    } else {
        "refuted"
    };
    assert_eq!(v["verdict"], expected, "{}", v["explanation"]);
    let rows = dir.join("s/latest/rows.csv");
    for f in [
        "rows.csv",
        "report.json",
        "time.svg",
        "b.svg",
        "residuals.svg",
    ] {
        assert!(dir.join("s/latest").join(f).exists(), "{f} not written");
    }
    sweep("again");
    // The emulated columns (P, loop_count, repeat, time_s, ideal_s, mechanism, samples and the
    // message counts) are the same to the digit; the host's own timings beside them are not.
    let emulated = |path: &Path| -> Vec<String> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(|l| l.split(',').take(9).collect::<Vec<_>>().join(","))
            .collect()
    };
    assert_eq!(
        emulated(&rows),
        emulated(&dir.join("again/latest/rows.csv")),
        "a virtual sweep is reproducible"
    );
    let back = json(&run_in(
        &dir,
        "scaling --json --tolerance 0.01 --csv",
        &[arg(&rows)],
    ));
    assert_eq!(back["loop_counts"][1]["a"], v["loop_counts"][1]["a"]);
    assert_eq!(back["verdict"], v["verdict"]);
    std::fs::remove_dir_all(&dir).unwrap();
}
