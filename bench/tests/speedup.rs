//! `multicomputer speedup` as a user meets it: every kernel's results equal the sequential
//! reference at every P (the command fails otherwise), its report and run folder, and bad
//! input refused with exit code 2, naming the argument, before anything runs or is written.
//! No timing is asserted.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh results folder for one test.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mc-speedup-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn run_in(out: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_multicomputer"))
        .arg("speedup")
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The cores this test process may use (the command's limit for P).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Tiny workloads: a few milliseconds of work each.
fn tiny(kernel: &str) -> Vec<&'static str> {
    let size: &[&str] = match kernel {
        "primes-chain" | "primes-tree" => &["--tasks", "24", "--grain", "400"],
        "mergesort" => &["--tasks", "4", "--grain", "2000"],
        "ising" => &["--tasks", "6", "--grain", "2"],
        _ => &["--tasks", "200", "--grain", "4", "--window", "48"],
    };
    let mut v = vec!["--rounds", "1", "--warmup", "0", "-P", "1-2"];
    v.extend_from_slice(size);
    v
}

#[test]
fn every_kernel_equals_its_reference_at_every_p_and_reports_each_variant() {
    if cores() < 2 {
        return; // P = 2 cannot run natively here; the unit tests cover P = 1.
    }
    for kernel in ["primes-chain", "primes-tree", "mergesort", "ising", "ocl"] {
        let out = folder(kernel);
        let mut args = vec!["--kernel", kernel, "--json"];
        args.extend(tiny(kernel));
        let o = run_in(&out, &args);
        assert!(o.status.success(), "{kernel}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
        let points = v["points"].as_array().unwrap();
        assert_eq!(points.len(), 2, "{kernel}");
        for (i, p) in points.iter().enumerate() {
            assert_eq!(p["processors"], i + 1);
            for variant in ["runtime", "rayon", "scoped"] {
                let s = p[variant]["speedup"]["median"].as_f64().unwrap();
                assert!(s.is_finite() && s > 0.0, "{kernel} {variant}: {s}");
            }
            assert!(p["runtime_over_rayon"]["median"].as_f64().unwrap() > 0.0);
        }
        // The rough speedup at P = 1 is the runtime against itself.
        assert_eq!(points[0]["rough_speedup"]["median"], 1.0);
        assert_eq!(v["meta"]["command"], "speedup");
        // How the runtime's machines resolved their runs, as they report it.
        let time = &v["meta"]["time"];
        assert_eq!(
            (&time["mode"], &time["wait"]),
            (&"native".into(), &"spin".into())
        );
        assert_eq!(
            time["compute_charging"],
            "measured: monotonic (wall) time of each block (wall times reported)"
        );
        assert!(v["host"]["cores"].as_u64().unwrap() >= 2);
        let load = &v["host"]["load_before"];
        assert!(
            load.is_null() || ["one", "five", "fifteen"].iter().all(|k| load[k].is_f64()),
            "{load}"
        );
        // The run's folder: the table, the plot, the report.
        let run = out.join("speedup").join("latest");
        for f in ["speedup.csv", "speedup.svg", "report.json", "report.html"] {
            assert!(run.join(f).is_file(), "{kernel}: {f} missing");
        }
        let csv = std::fs::read_to_string(run.join("speedup.csv")).unwrap();
        assert_eq!(csv.lines().count(), 3, "{kernel}: header and one row per P");
        assert!(csv.starts_with("kernel,processors,topology"));
        let _ = std::fs::remove_dir_all(&out);
    }
}

#[test]
fn a_grain_sweep_reports_efficiencies_and_thresholds() {
    let out = folder("grains");
    let mut args = vec!["--json", "--grains", "100,400", "-P", "1"];
    args.extend([
        "--tasks", "24", "--grain", "400", "--rounds", "1", "--warmup", "0",
    ]);
    let o = run_in(&out, &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let g = &v["grain"];
    let points = g["points"].as_array().unwrap();
    assert_eq!(points.len(), 2);
    // The total work is kept: 24 × 400 integers = 96 tasks of 100.
    assert_eq!(points[0]["grain"], 100);
    assert_eq!(points[0]["tasks"], 96);
    // 50 % and 90 % for the runtime, rayon and scoped threads, and for the model where it
    // predicts every grain; each within the swept grains, or unreached (null).
    let thresholds = g["thresholds"].as_array().unwrap();
    let whos: Vec<&str> = thresholds
        .iter()
        .map(|t| t["who"].as_str().unwrap())
        .collect();
    assert!(whos.len() == 6 || whos.len() == 8, "{whos:?}");
    for (i, who) in ["runtime", "rayon", "scoped threads", "model"]
        .iter()
        .enumerate()
        .take(whos.len() / 2)
    {
        assert_eq!(&whos[2 * i..2 * i + 2], [*who, *who]);
        assert_eq!(thresholds[2 * i]["efficiency"], 0.5);
        assert_eq!(thresholds[2 * i + 1]["efficiency"], 0.9);
    }
    for t in thresholds {
        if let Some(grain) = t["grain"].as_f64() {
            assert!((100.0..=400.0).contains(&grain), "{t}");
        }
    }
    let run = out.join("speedup").join("latest");
    assert!(run.join("grain.csv").is_file());
    assert!(run.join("efficiency-grain.svg").is_file());
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bad_input_exits_2_naming_the_argument_and_writes_nothing() {
    let out = folder("refused");
    let too_many = (cores() + 1).to_string();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["-P", too_many.as_str()], "--processors"),
        (vec!["-P", "0"], "--processors"),
        (vec!["-P", "3-1"], "--processors"),
        (vec!["--kernel", "quicksort"], "--kernel"),
        (vec!["--grain", "0"], "--grain"),
        (vec!["--tasks", "0"], "--tasks"),
        (vec!["--grains", "0,10"], "--grains"),
        (vec!["--rounds", "0"], "--rounds"),
        (vec!["--window", "48"], "--window"),
        (
            vec![
                "--kernel", "ocl", "-P", "1", "--window", "40", "--grain", "16",
            ],
            "--window",
        ),
        (vec!["--name", "../x"], "--name"),
        (vec!["--report", "r.txt"], "--report"),
    ];
    for (args, flag) in cases {
        let o = run_in(&out, &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(flag),
            "{args:?}: expected '{flag}' in: {}",
            stderr(&o)
        );
        assert!(o.stdout.is_empty(), "{args:?} printed to stdout");
    }
    assert!(!out.join("speedup").exists(), "a refused run wrote files");
}
