//! Numbers a user can trust (issue 22): repeated runs draw fresh seeds, a report's metadata
//! says what the run used, bad input is refused, files hold numbers.

// Each test file uses some of the shared helpers; this one makes its folders with tempfile.
#[allow(dead_code)]
mod common;

use std::process::Output;

use common::{json, refused, run_in};

/// Runs a command whose files no test reads, in a temporary folder removed after it.
fn run(line: &str) -> Output {
    let scratch = tempfile::tempdir().unwrap();
    run_in(scratch.path(), line, &[])
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
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let report = dir.join("r.md");
    let o = run_in(
        dir,
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

#[test]
fn a_report_says_only_what_the_run_used() {
    // A model uses no profile: the report says nothing about one, and no time mode it
    // did not have.
    let v = json(&run("predict farm -t chain:4 --te 1ms --json"));
    assert_eq!(v["meta"]["host"]["profile"], "not_used");
    // The farm's links hold its queue + 2 messages: the inputs say the capacity it ran with.
    let v = json(&run(
        "farm -t chain:4 --te 1ms --tasks 50 --queue 1 --capacity 2 --mode virtual --json",
    ));
    assert_eq!(v["meta"]["inputs"]["capacity"], "3");
    assert_eq!(v["meta"]["inputs"]["queue"], "1");
}

#[test]
fn flags_the_run_would_ignore_are_refused() {
    refused(&run("farm -t chain:4 --grain 5000"), "--grain");
    refused(&run("dnc -t chain:4 --keys 100000"), "--keys");
    // With their kernel they are taken.
    json(&run(
        "farm -t chain:2 --kernel primes --grain 50 --tasks 4 --mode virtual --json",
    ));
}

#[test]
fn a_named_file_in_a_missing_folder_is_refused_and_nothing_is_created() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let missing = dir.join("no/such");
    let report = missing.join("x.html");
    let o = run_in(
        dir,
        "predict farm -t chain:4 --te 1ms --report",
        &[report.to_str().unwrap()],
    );
    refused(&o, "does not exist");
    assert!(!dir.join("no").exists(), "a refused run created a folder");
}

#[test]
fn the_peak_operating_point_names_its_criterion_apart_from_the_maximum() {
    let text = common::ok(&run("predict farm -t chain:16 --te 10ms"));
    assert!(
        text.contains("peak operating point (marginal efficiency < 0.1)"),
        "{text}"
    );
    assert!(
        text.contains("the speedup's maximum lies further"),
        "{text}"
    );
}

#[test]
fn a_virtual_run_reports_its_spread_over_tie_orders() {
    // Costs on a common grid: several processors finish at the same emulated instant, and
    // which acts first changes the makespan (issue 22, item 10).
    let line = "farm -t chain:4 --te 1ms --beta-e 50us --beta-f 100us --tasks 50 --mode virtual \
                --json";
    let v = json(&run(line));
    let spread = &v["meta"]["tie_spread"];
    assert_eq!(
        spread["orders"],
        serde_json::json!(["index", "reverse", "shuffle:1", "shuffle:2"])
    );
    let makespan = &spread["ranges"][0];
    assert_eq!(makespan["name"], "makespan_s");
    assert!(
        makespan["min"].as_f64() < makespan["max"].as_f64(),
        "{spread}"
    );
    // The reverse order alone gives the largest makespan of the four.
    let reverse = json(&run(&format!("{line} --ties reverse")));
    assert_eq!(reverse["measured"]["makespan_s"], makespan["max"]);
    assert_eq!(reverse["meta"]["inputs"]["ties"], "reverse");
    common::refused(&run("farm -t chain:4 --ties sideways"), "--ties");
}

#[test]
fn an_emulated_ocl_run_says_its_agreement_is_a_self_check() {
    let text = common::ok(&run("ocl --window 8 --transform kk:4"));
    assert!(text.contains("a self-check, not a validation"), "{text}");
}

#[test]
fn an_ocl_sweep_in_auto_mode_runs_every_cell_in_one_mode() {
    // One process (native in auto mode on any host) beside more processes than the host has
    // cores (virtual): the sweep runs both in virtual time, as the farm sweep does.
    let wide = multicomputer_runtime::host_cores() + 1;
    let v = json(&run(&format!(
        "sweep ocl --transforms m1 --cells 5:5,{wide}:1 --length 100 --json"
    )));
    assert_eq!(
        v["meta"]["time"]["mode"], "virtual",
        "{}",
        v["meta"]["time"]
    );
    assert_eq!(v["rows"].as_array().unwrap().len(), 2);
}

/// Keeps `threads` threads of this test process spinning until dropped: other processes'
/// load, as the command it runs meanwhile sees it.
struct Spinners {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Spinners {
    fn start(threads: usize) -> Self {
        use std::sync::atomic::{AtomicBool, Ordering};
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let threads = (0..threads)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        Self { stop, threads }
    }
}

impl Drop for Spinners {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for t in self.threads.drain(..) {
            t.join().unwrap();
        }
    }
}

/// The host warnings of a run's JSON.
fn host_warnings(v: &serde_json::Value) -> Vec<String> {
    v["meta"]["host_warnings"]
        .as_array()
        .map(|w| w.iter().map(|s| s.as_str().unwrap().to_owned()).collect())
        .unwrap_or_default()
}

#[test]
fn ising_ocl_and_collective_warn_of_a_busy_host_in_real_time_only() {
    // Two threads of this process spin through every run: over half a core kept busy by
    // another process, whatever the host.
    let _busy = Spinners::start(2);
    let collective = "collective all-reduce -t ring:4 --bytes 64KiB --per-byte 10ns \
                      --send-overhead 20us --json";
    for (real, virtual_) in [
        (
            "ising -P 2 --mode native --json".to_owned(),
            "ising -P 2 --mode virtual --json".to_owned(),
        ),
        (
            "ocl --window 50 --transform m1:10 --length 2000 --dilation 2 --json".to_owned(),
            "ocl --window 50 --transform m1:10 --length 2000 --json".to_owned(),
        ),
        (
            format!("{collective} --mode dilated"),
            format!("{collective} --mode virtual"),
        ),
    ] {
        let w = host_warnings(&json(&run(&real)));
        assert!(
            w.iter().any(|w| w.contains("other processes kept")),
            "{real}: {w:?}"
        );
        let v = json(&run(&virtual_));
        assert_eq!(v["meta"]["time"]["mode"], "virtual", "{virtual_}");
        assert_eq!(host_warnings(&v), Vec::<String>::new(), "{virtual_}");
    }
}

#[test]
fn scattered_replicates_in_virtual_time_are_the_program_s_not_the_host_s() {
    // Exponential task times: the five runs' throughputs scatter by their seeds, which is
    // no reason to quiet the host.
    let v = json(&run(
        "farm -t chain:4 --te 1ms --times exponential --tasks 20 --runs 5 --mode virtual --json",
    ));
    let scatter = &v["repetitions"]["headline_scatter"];
    assert!(scatter["relative_sd"].as_f64().unwrap() > 0.1, "{scatter}");
    assert_eq!(host_warnings(&v), Vec::<String>::new());
}

/// A machine profile with this host's name and cores and the unit costs `units` (JSON).
fn profile_with_units(units: &str) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!(
        r#"{{"host": "{}", "cores": {cores}, "measured_unix_s": 1795689325,
        "clock_read_ns": 80.0, "cpu_time_read_ns": 800.0, "message_spin_ns": 170.0,
        "message_parked_ns": 13000.0, "wakeup_ns": 30000.0, "wake_cpu_ns": 23000.0,
        "occupy_error_ns": {{"spin": 100.0, "sleep": 34000.0, "hybrid": 260.0}},
        "occupy": [], "loop_ns_per_iteration": 0.6, "coroutine_switch_ns": 100.0,
        "unit_costs": {{{units}}}}}"#,
        host.trim()
    )
}

/// Issue 22, item 6: a profile written before `neighbour_read` existed charges the
/// neighbours read nothing (its two flip units were fitted with them) and says to run
/// `calibrate` again; a profile with all three, or the cost given by `--unit-cost`, says
/// nothing.
#[test]
fn a_profile_without_the_neighbour_unit_charges_it_nothing_and_says_to_recalibrate() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let old = dir.join("old.json");
    let new = dir.join("new.json");
    std::fs::write(
        &old,
        profile_with_units(r#""attempted_flip": 3.1, "accepted_flip": 16.8"#),
    )
    .unwrap();
    std::fs::write(
        &new,
        profile_with_units(
            r#""attempted_flip": 0.5, "accepted_flip": 10.0, "neighbour_read": 0.5"#,
        ),
    )
    .unwrap();
    let ising = "ising --dimension 2 --size 8 --thermalisation 2 --sweeps 2 -P 2 --mode virtual \
                 --json --profile";
    let o = run_in(dir, ising, &[old.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let v = json(&o);
    assert_eq!(v["flip_charge"]["neighbour_ns"], 0.0);
    assert_eq!(v["flip_charge"]["attempted_ns"], 3.1);
    let warning = v["charge_warning"].as_str().unwrap_or_default();
    assert!(
        warning.contains("has no cost for neighbour_read")
            && warning.contains("run `multicomputer calibrate` again"),
        "{v}"
    );
    assert!(err.contains("has no cost for neighbour_read"), "{err}");
    for extra in [
        vec![new.to_str().unwrap()],
        vec![old.to_str().unwrap(), "--unit-cost", "neighbour_read=2"],
    ] {
        let v = json(&run_in(dir, ising, &extra));
        assert!(v.get("charge_warning").is_none(), "{extra:?}: {v}");
        assert!(
            v["flip_charge"]["neighbour_ns"].as_f64().unwrap() > 0.0,
            "{extra:?}"
        );
    }
}
