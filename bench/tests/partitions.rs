//! `--partitions K` from the command line (the `parts` engine): the JSON report (without its
//! wall-clock fields, the command line and the partitioning) and the trace are the same, byte
//! for byte, for K = 1, 2, 4 and 8; the flag is refused where it cannot apply.

use std::path::Path;

use serde_json::Value;

#[allow(dead_code)] // the shared helpers this file does not use
mod common;

use common::{json, refused, run_in};

/// The report without what may differ between runs of different K: wall-clock times, the
/// date, the command line and the files it names, the partitioning and its input. The memory
/// plan stays: the parts' tables together are one machine's, for any K.
fn without_run_details(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(fields) => {
                for key in ["wall", "wall_s", "parts", "date", "command_line", "files"] {
                    fields.remove(key);
                }
                fields.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    if let Some(inputs) = v.pointer_mut("/meta/inputs").and_then(Value::as_object_mut) {
        assert!(
            inputs.remove("partitions").is_some(),
            "the inputs name --partitions"
        );
    }
    strip(&mut v);
    v
}

/// Runs `line` in virtual time with `--partitions` 1, 2, 4 and 8 and checks every K gives
/// K = 1's report and trace.
fn same_for_every_k(dir: &Path, line: &str) {
    let run = |k: usize| {
        let trace = dir.join(format!("trace-{k}.json"));
        let v = json(&run_in(
            &dir.join(format!("out-{k}")),
            &format!("{line} --mode virtual --json --partitions {k}"),
            &["--trace", trace.to_str().unwrap()],
        ));
        let trace = std::fs::read(&trace).expect("the trace was written");
        (without_run_details(v), trace)
    };
    let (report, trace) = run(1);
    for k in [2, 4, 8] {
        let (r, t) = run(k);
        let (got, want) = (r.to_string(), report.to_string());
        if let Some(at) = got.bytes().zip(want.bytes()).position(|(a, b)| a != b) {
            let from = at.saturating_sub(200);
            panic!(
                "{line}: the report of K = {k} differs from K = 1's at byte {at}:\n got: …{}\nwant: …{}",
                &got[from..(at + 100).min(got.len())],
                &want[from..(at + 100).min(want.len())]
            );
        }
        assert_eq!(got.len(), want.len(), "{line}: the report of K = {k}");
        assert!(
            t == trace,
            "{line}: the trace of K = {k} differs from K = 1's"
        );
    }
}

#[test]
fn parts_farm_reports_the_same_for_every_k() {
    let dir = tempfile::tempdir().unwrap();
    same_for_every_k(
        dir.path(),
        "farm --topology binary:5 --tasks 300 --latency 5us",
    );
}

#[test]
fn parts_farm_with_exponential_times_reports_the_same_for_every_k() {
    let dir = tempfile::tempdir().unwrap();
    same_for_every_k(
        dir.path(),
        "farm --topology binary:4 --tasks 300 --times exponential --seed 3 --latency 5us",
    );
}

#[test]
fn parts_emulate_reduce_reports_the_same_for_every_k() {
    let dir = tempfile::tempdir().unwrap();
    same_for_every_k(
        dir.path(),
        "emulate --topology binary:8 --pattern reduce --rounds 10 --latency 1us",
    );
}

#[test]
fn parts_dnc_reports_the_same_for_every_k() {
    let dir = tempfile::tempdir().unwrap();
    same_for_every_k(
        dir.path(),
        "dnc --topology binary:4 --tasks 64 --latency 5us",
    );
}

/// Routed messages travel hop by hop in partitioned virtual time: the collective's report is
/// the same for every K, and its time the model's, to the nanosecond (recursive doubling's
/// routes on the torus share links, but hop by hop no message reaches a link another is
/// crossing: the links take no time per byte here).
#[test]
fn parts_collective_reports_the_same_for_every_k() {
    let dir = tempfile::tempdir().unwrap();
    let line = "collective all-reduce --topology torus:4x4 --bytes 64KiB --latency 1us";
    same_for_every_k(dir.path(), line);
    let v = json(&run_in(
        &dir.path().join("model"),
        &format!("{line} --mode virtual --json --partitions 2"),
        &[],
    ));
    assert_eq!(v["excess_ns"], 0, "{}", v["measured"]);
    assert_eq!(v["predicted"]["makespan_ns"], 6000);
}

#[test]
fn parts_flag_is_refused_where_it_cannot_apply() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    let o = run_in(
        out,
        "farm --topology binary:3 --mode virtual --partitions 2",
        &[],
    );
    refused(&o, "--latency");
    assert!(common::stderr(&o).contains("--partitions"));
    // Dilated (and native) time is cut into parts only across MPI ranks.
    let o = run_in(
        out,
        "farm --topology binary:3 --mode dilated --partitions 2 --latency 1us",
        &[],
    );
    refused(&o, "run `mpirun -np 2");
    assert!(common::stderr(&o).contains("--mode dilated"));
    assert!(common::stderr(&o).contains("--features mpi"));
    refused(
        &run_in(
            out,
            "farm --topology binary:2 --mode virtual --partitions 4 --latency 1us",
            &[],
        ),
        "--partitions",
    );
    refused(&run_in(out, "farm --partitions 0", &[]), "--partitions");
    // `speedup` runs natively: over ranks only, and at some P over them.
    let o = run_in(out, "speedup --kernel primes-tree --partitions 2", &[]);
    refused(&o, "run `mpirun -np 2");
    assert!(common::stderr(&o).contains("--partitions"));
    refused(
        &run_in(out, "speedup --partitions 2 --processors 1", &[]),
        "--partitions",
    );
    refused(
        &run_in(out, "speedup --partitions 3 --processors 2", &[]),
        "--processors",
    );
    assert!(!out.join("latest").exists(), "nothing was written");
}
