//! Networks beyond trees on the command line: the farm on a spanning tree, `--root`, and the
//! report naming the tree's links.

mod common;

use common::{folder, json, ok, refused, run_in, stderr};

#[test]
fn farm_runs_on_the_spanning_tree_of_a_mesh_and_names_its_links() {
    let dir = folder("farm-mesh");
    let v = json(&run_in(
        &dir,
        "farm -t mesh:3x3 --root 4 --tasks 90 --te 500us --mode virtual --json",
        &[],
    ));
    ran_on_the_tree_of_a_mesh_from_its_centre(&v);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A run on `mesh:3x3 --root 4`: the report names the tree's links, and the model has three
/// levels (the centre, its neighbours, the corners).
fn ran_on_the_tree_of_a_mesh_from_its_centre(v: &serde_json::Value) {
    assert_eq!(v["processors"], 9);
    assert_eq!(v["meta"]["inputs"]["root"], "4");
    let tree = v["meta"]["inputs"]["spanning tree"].as_str().unwrap();
    assert!(
        tree.starts_with("breadth first from P4: 8 of 12 links: 4–3 4–5 4–1 4–7"),
        "{tree}"
    );
    assert_eq!(
        v["predicted"]["fractions_by_level"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert!(v["predicted"]["makespan_s"].as_f64().unwrap() > 0.0);
    assert!(v["measured"]["makespan_s"].as_f64().unwrap() > 0.0);
}

#[test]
fn dnc_runs_on_the_spanning_tree_of_a_mesh_and_names_its_links() {
    let dir = folder("dnc-mesh");
    let v = json(&run_in(
        &dir,
        "dnc -t mesh:3x3 --root 4 --tasks 60 --mode virtual --json",
        &[],
    ));
    ran_on_the_tree_of_a_mesh_from_its_centre(&v);
    // Mergesort's model is sampled level by level on a balanced tree: refused before it runs.
    refused(
        &run_in(&dir, "dnc -t mesh:3x3 --kernel mergesort --keys 1000", &[]),
        "--topology: --kernel mergesort needs a balanced tree",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_root_outside_the_network_is_refused_naming_the_flag() {
    let dir = folder("bad-root");
    refused(
        &run_in(&dir, "farm -t ring:4 --root 4 --tasks 10", &[]),
        "--root: root 4 is not a processor",
    );
    refused(
        &run_in(&dir, "farm -t torus:2x2x2x2 --tasks 10", &[]),
        "a mesh or torus has 2 or 3",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn collective_json_has_measured_and_predicted_and_virtual_time_equals_the_model() {
    let dir = folder("collective");
    let v = json(&run_in(
        &dir,
        "collective all-reduce --algorithm rabenseifner -t hypercube:4 --bytes 4KiB \
         --send-overhead 10us --latency 1us --per-byte 2ns --gamma 1ns --switching cut-through \
         --mode virtual --json",
        &[],
    ));
    assert_eq!(v["processors"], 16);
    assert_eq!(v["switching"], "cut-through");
    assert_eq!(v["spec"]["algorithm"], "rabenseifner");
    // 2 lg p α + 2 (p−1) b τ + (p−1) b γ with α = 11 µs, b = 256 B: 88 + 15.36 + 3.84 µs.
    assert_eq!(v["predicted"]["makespan_ns"], 107_200);
    assert_eq!(v["measured"]["makespan_s"], v["predicted"]["makespan_s"]);
    assert_eq!(v["error_pct"], 0.0);
    assert_eq!(v["meta"]["inputs"]["switching"], "cut-through");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn collective_choices_that_cannot_run_are_refused_naming_the_flag() {
    let dir = folder("collective-bad");
    refused(
        &run_in(&dir, "collective broadcast --algorithm ring -t ring:4", &[]),
        "--algorithm: broadcast has no ring algorithm",
    );
    refused(
        &run_in(
            &dir,
            "collective all-reduce --algorithm recursive-doubling -t ring:6",
            &[],
        ),
        "needs a power-of-two number of processors",
    );
    refused(
        &run_in(&dir, "collective all-reduce -t ring:4 --bytes 12", &[]),
        "--bytes: the vector holds 8-byte values",
    );
    // 8 copies of 1 GiB on each of 4096 processors cannot be held: refused before the run.
    refused(
        &run_in(
            &dir,
            "collective all-reduce -t hypercube:12 --bytes 1GiB --mode virtual",
            &[],
        ),
        "--bytes",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_collective_on_free_links_warns_that_it_compares_nothing() {
    let dir = folder("collective-free");
    let free = run_in(&dir, "collective broadcast -t hypercube:3 --bytes 64", &[]);
    ok(&free);
    assert!(
        stderr(&free).contains("warning: every cost of this collective is zero"),
        "{}",
        stderr(&free)
    );
    let costed = run_in(
        &dir,
        "collective broadcast -t hypercube:3 --bytes 64 --send-overhead 10us",
        &[],
    );
    ok(&costed);
    assert!(
        !stderr(&costed).contains("every cost"),
        "{}",
        stderr(&costed)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sweep_collective_writes_its_run_folder_and_names_the_crossover() {
    let tmp = tempfile::tempdir().unwrap();
    let v = json(&run_in(
        tmp.path(),
        "sweep collective all-reduce --algorithms ring,recursive-doubling \
         --topologies hypercube:2-4 --bytes 8KiB-128KiB --send-overhead 10us \
         --recv-overhead 1us --latency 500ns --per-byte 1ns --gamma 1ns \
         --switching cut-through --mode virtual --json",
        &[],
    ));
    let rows = v["rows"].as_array().unwrap();
    // 3 networks × 2 algorithms × 5 sizes, each equal to its model on a hypercube.
    assert_eq!(rows.len(), 30);
    for r in rows {
        assert_eq!(r["excess_ns"], 0, "{r}");
        assert_eq!(r["error_pct"], 0.0, "{r}");
    }
    // On hypercube:4 the models are 345 µs + 2.8125 ns·m (ring) and 46 µs + 8 ns·m
    // (recursive doubling) with α = 11.5 µs: equal at m = 299 000/5.1875 B, between 32 and
    // 64 KiB; measured there too, the cells equalling their models.
    let c = v["crossovers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["topology"] == "hypercube:4")
        .expect("a crossover on hypercube:4");
    for side in ["predicted", "measured"] {
        assert_eq!(c[side]["below_bytes"], 32768, "{c}");
        assert_eq!(c[side]["above_bytes"], 65536, "{c}");
        let at = c[side]["at_bytes"].as_f64().unwrap();
        assert!((at - 299_000.0 / 5.1875).abs() < 1e-6, "{c}");
    }
    assert_eq!(c["a"], "ring");
    assert_eq!(c["predicted"]["a_faster_above"], true);
    // The run folder: table, report, one log–log plot per network with a curve per algorithm.
    let run = tmp.path().join("sweep-collective").join("latest");
    let csv = std::fs::read_to_string(run.join("rows.csv")).unwrap();
    assert_eq!(csv.lines().count(), 31);
    assert!(
        csv.starts_with("topology,processors,algorithm,bytes,"),
        "{csv}"
    );
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(
        html.contains("ring overtakes recursive-doubling at 56.3 KiB"),
        "crossover"
    );
    assert!(html.contains("interpolated linearly in bytes"));
    let svg = std::fs::read_to_string(run.join("time-hypercube-4.svg")).unwrap();
    for label in ["ring", "recursive-doubling", "measured", "model crossover"] {
        assert!(svg.contains(label), "{label} missing from the plot");
    }
    assert!(run.join("report.json").exists());
}

#[test]
fn sweep_collective_refuses_bad_input_naming_the_flag_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    for (line, needle) in [
        (
            "sweep collective broadcast --algorithms ring",
            "--algorithms: broadcast has no algorithm 'ring'",
        ),
        (
            "sweep collective all-reduce --algorithms recursive-doubling --topologies ring:6",
            "--algorithms: recursive-doubling needs a power-of-two number of processors, not 6 \
             (on ring:6)",
        ),
        (
            "sweep collective all-reduce --bytes 12",
            "--bytes: the vector holds 8-byte values",
        ),
        (
            "sweep collective all-reduce --bytes 1MiB-8",
            "--bytes: empty range",
        ),
        (
            "sweep collective all-reduce --topologies ring:x",
            "--topologies",
        ),
        (
            "sweep collective all-reduce --topologies hypercube:12 --bytes 1GiB --mode virtual",
            "--bytes",
        ),
    ] {
        refused(&run_in(tmp.path(), line, &[]), needle);
    }
    assert!(
        std::fs::read_dir(tmp.path()).unwrap().next().is_none(),
        "a refused sweep wrote something"
    );
}
