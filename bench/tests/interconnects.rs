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
