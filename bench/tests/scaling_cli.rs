//! `multicomputer scaling --csv` as a user meets it: bad tables exit 2 naming the row and
//! column, column names in any case, the three verdicts with the deciding test's numbers, the
//! standard-error and runs columns, the timer-resolution warning.

use std::path::Path;
use std::process::{Command, Output};

use tempfile::TempDir;

/// A fresh folder for one test's tables and outputs, removed when it is dropped (even when the
/// test fails).
fn folder(test: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("mc-scaling-cli-{test}-"))
        .tempdir()
        .unwrap()
}

/// Runs `scaling --csv <table> <args> --out <dir>/out`.
fn scaling(dir: &Path, table: &str, args: &[&str]) -> Output {
    let csv = dir.join("table.csv");
    std::fs::write(&csv, table).unwrap();
    Command::new(env!("CARGO_BIN_EXE_multicomputer"))
        .arg("scaling")
        .arg("--csv")
        .arg(&csv)
        .args(args)
        .arg("--out")
        .arg(dir.join("out"))
        .output()
        .expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[track_caller]
fn json(dir: &Path, table: &str, args: &[&str]) -> serde_json::Value {
    let mut all = args.to_vec();
    all.push("--json");
    let o = scaling(dir, table, &all);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).expect("one JSON object")
}

/// Exit code 2, `needles` in the message, nothing on stdout and nothing written.
#[track_caller]
fn rejected(dir: &Path, table: &str, args: &[&str], needles: &[&str]) {
    let o = scaling(dir, table, args);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    for n in needles {
        assert!(stderr(&o).contains(n), "expected '{n}' in: {}", stderr(&o));
    }
    assert!(o.stdout.is_empty());
    assert!(!dir.join("out").exists(), "output written before the error");
}

/// A table shaped like the paper's Table 2 (a = 78, b = 1.2 + 0.00157·L, P = 2…256, four loop
/// counts) plus `c_per_loop·L·P`, each point run once per `wobble` entry as `T·(1 ± w)`, the
/// sign alternating with P. `header` names the columns P, time_s, loop_count.
fn table(header: &str, c_per_loop: f64, wobble: &[f64]) -> String {
    let mut text = format!("{header}\n");
    for l in [0.0, 2000.0, 4000.0, 6000.0] {
        for k in 1..=8 {
            let p = f64::from(1u32 << k);
            let t = 78.0 + (1.2 + 0.00157 * l) * p.ln() + c_per_loop * l * p;
            let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
            for w in wobble {
                text.push_str(&format!("{p},{},{l}\n", t * (1.0 + sign * w)));
            }
        }
    }
    text
}

const HEADER: &str = "P,time_s,loop_count";
const REPLICATES: [f64; 3] = [-0.004, 0.001, 0.003];

#[test]
fn bad_tables_exit_2_naming_row_and_column() {
    let tmp = folder("bad");
    let dir = tmp.path().to_path_buf();
    let good = "P,time_s,loop_count\n2,1.0,0\n4,1.1,0\n8,1.2,0\n";
    rejected(
        &dir,
        "P,seconds\n2,1.0\n",
        &[],
        &["missing column 'time_s'"],
    );
    rejected(&dir, "time_s\n1.0\n", &[], &["missing column 'P'"]);
    rejected(
        &dir,
        "P,time_s\n2,1.0\n4,fast\n",
        &[],
        &["row 3 column 'time_s'", "'fast' is not a number"],
    );
    rejected(&dir, "P,time_s\n0,1.0\n", &[], &["row 2 column 'P'"]);
    rejected(&dir, "P,time_s\n2.5,1.0\n", &[], &["row 2 column 'P'"]);
    rejected(
        &dir,
        "P,time_s\n2,1.0\n4,-1\n",
        &[],
        &["row 3 column 'time_s'"],
    );
    rejected(
        &dir,
        "P,time_s,loop_count\n2,1.0,NaN\n",
        &[],
        &["row 2 column 'loop_count'"],
    );
    rejected(
        &dir,
        "P,time_s,ideal_s\n2,1.0,0\n",
        &[],
        &["row 2 column 'ideal_s'"],
    );
    rejected(
        &dir,
        "P,time_s,std_error\n2,1.0,0.1\n4,1.1,-0.1\n",
        &[],
        &["row 3 column 'std_error'"],
    );
    rejected(
        &dir,
        "P,time_s,std_error,runs\n2,1.0,0.1,3\n4,1.1,0.1,0\n",
        &[],
        &["row 3 column 'runs'"],
    );
    rejected(
        &dir,
        "P,time_s,runs\n2,1.0,3\n",
        &[],
        &["column 'runs' needs a column 'std_error'"],
    );
    rejected(
        &dir,
        "P,time_s,p\n2,1.0,2\n",
        &[],
        &["column 'p' appears twice"],
    );
    rejected(&dir, "P,time_s\n", &[], &["no data rows"]);
    // Two P values cannot give a + b·log P an uncertainty without replicates.
    rejected(
        &dir,
        "P,time_s\n2,1.0\n4,1.1\n",
        &[],
        &["--csv", "distinct processor counts"],
    );
    // Flags, checked before the table is fitted.
    rejected(
        &dir,
        good,
        &["--against", "1+P"],
        &["--against: 1+P", "must contain"],
    );
    rejected(&dir, good, &["--against", "1+log"], &["--against"]);
    rejected(
        &dir,
        good,
        &["--model", "log"],
        &["--model", "constant term"],
    );
    rejected(&dir, good, &["--detectable", "0"], &["--detectable"]);
    rejected(&dir, good, &["--tolerance", "0"], &["--tolerance"]);
    rejected(
        &dir,
        good,
        &["--tolerance", "0.01", "--against", "1+log+P"],
        &["--against", "exact data"],
    );
    rejected(&dir, good, &["--power", "1"], &["--power"]);
    rejected(&dir, good, &["--significance", "0"], &["--significance"]);
    // Below 1e-4 a test would need more than 150 000 resamples of the table.
    rejected(
        &dir,
        good,
        &["--significance", "5e-5"],
        &["--significance", "resamples"],
    );
    rejected(
        &dir,
        good,
        &["--timer-resolution", "0s"],
        &["--timer-resolution"],
    );
    rejected(&dir, good, &["--timer-resolution", "5"], &["no unit"]);
    rejected(&dir, good, &["--weighting", "log"], &["--weighting"]);
}

#[test]
fn column_names_are_matched_in_any_case() {
    let tmp = folder("case");
    let dir = tmp.path().to_path_buf();
    let lower = json(&dir, &table(HEADER, 0.0, &REPLICATES), &[]);
    let mixed = json(&dir, &table("p,TIME_S,Loop_Count", 0.0, &REPLICATES), &[]);
    assert_eq!(lower["verdict"], "consistent", "{}", lower["explanation"]);
    assert_eq!(mixed["verdict"], lower["verdict"]);
    assert_eq!(mixed["loop_counts"], lower["loop_counts"]);
}

#[test]
fn the_three_verdicts_name_the_deciding_test_and_its_numbers() {
    let tmp = folder("verdicts");
    let dir = tmp.path().to_path_buf();
    // A correct candidate, three runs per point.
    let v = json(&dir, &table(HEADER, 0.0, &REPLICATES), &[]);
    assert_eq!(v["verdict"], "consistent");
    let e = v["explanation"].as_str().unwrap();
    for needle in [
        "trend test",
        "lack-of-fit",
        "dof",
        "p = ",
        "64",
        "level 0.0050",
    ] {
        assert!(e.contains(needle), "'{needle}' missing from: {e}");
    }
    assert_eq!(v["test"]["noise"]["dof"], 64);
    // A hidden c·P growing with the loop count, as in the paper's Table 1.
    let v = json(&dir, &table(HEADER, 2e-5, &REPLICATES), &[]);
    assert_eq!(v["verdict"], "refuted");
    let e = v["explanation"].as_str().unwrap();
    assert!(e.starts_with("refuted by the "), "{e}");
    assert!(e.contains("on 64 dof") || e.contains(", 64) dof"), "{e}");
    let a: Vec<f64> = v["loop_counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["a"].as_f64().unwrap())
        .collect();
    assert!(a.windows(2).all(|w| w[1] < w[0]), "a should fall: {a:?}");
    // One run per point: inconclusive, and said why.
    let single = table(HEADER, 2e-5, &[0.003]);
    let v = json(&dir, &single, &[]);
    assert_eq!(v["verdict"], "inconclusive");
    let e = v["explanation"].as_str().unwrap();
    assert!(e.contains("no (P, loop_count) has two runs"), "{e}");
    assert!(e.contains("--against"), "{e}");
    // ... unless a richer model refutes the candidate.
    let v = json(&dir, &single, &["--against", "1+log+P"]);
    assert_eq!(v["verdict"], "refuted");
    let e = v["explanation"].as_str().unwrap();
    assert!(
        e.contains("nested F test against Φ(P) = a + b·log P + c·P")
            && e.contains("on (2, 27) dof"),
        "{e}"
    );
    assert_eq!(v["against"], "a + b·log P + c·P");
    // Human-readable output says the same.
    let o = scaling(&dir, &single, &["--against", "1+log+P"]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("verdict: refuted"), "{text}");
    assert!(
        !text.contains("Some(") && !text.contains("Refuted"),
        "{text}"
    );
}

#[test]
fn means_with_standard_errors_and_runs_stand_for_their_runs() {
    let tmp = folder("stderr");
    let dir = tmp.path().to_path_buf();
    let runs = table(HEADER, 2e-5, &REPLICATES);
    // The same data as means of three runs with their standard errors.
    let mut means = String::from("P,time_s,loop_count,STD_ERROR,runs\n");
    let rows: Vec<Vec<f64>> = runs
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    for cell in rows.chunks(3) {
        let mean = cell.iter().map(|r| r[1]).sum::<f64>() / 3.0;
        let var = cell.iter().map(|r| (r[1] - mean).powi(2)).sum::<f64>() / 2.0;
        means.push_str(&format!(
            "{},{mean},{},{},3\n",
            cell[0][0],
            cell[0][2],
            (var / 3.0).sqrt()
        ));
    }
    let a = json(&dir, &runs, &[]);
    let b = json(&dir, &means, &[]);
    assert_eq!(a["verdict"], b["verdict"]);
    for (x, y) in a["test"]["tests"]
        .as_array()
        .unwrap()
        .iter()
        .zip(b["test"]["tests"].as_array().unwrap())
    {
        let (fx, fy) = (x["f"].as_f64().unwrap(), y["f"].as_f64().unwrap());
        assert!((fx / fy - 1.0).abs() < 1e-6, "{x} {y}");
    }
    // Without the runs column the standard errors are taken as exact, with a warning.
    let known: String = means
        .lines()
        .map(|l| l.rsplit_once(',').unwrap().0.to_string() + "\n")
        .collect();
    let k = json(&dir, &known, &[]);
    let w = k["warnings"].as_array().unwrap();
    assert!(
        w.iter()
            .any(|w| w.as_str().unwrap().contains("taken as exact")),
        "{w:?}"
    );
}

#[test]
fn replicates_at_the_timer_resolution_are_warned_about() {
    let tmp = folder("resolution");
    let dir = tmp.path().to_path_buf();
    // Every replicate identical, as from a coarse clock.
    let v = json(&dir, &table(HEADER, 0.0, &[0.002, 0.002]), &[]);
    assert_eq!(v["verdict"], "inconclusive");
    let w = v["warnings"][0].as_str().unwrap();
    assert!(w.contains("at or below the timer's resolution"), "{w}");
    assert!(w.contains("longer"), "the warning says what to do: {w}");
    // Real scatter smaller than a given tick.
    let v = json(
        &dir,
        &table(HEADER, 0.0, &REPLICATES),
        &["--timer-resolution", "1s"],
    );
    assert_eq!(v["verdict"], "inconclusive");
    assert!(
        v["warnings"][0].as_str().unwrap().contains("(1"),
        "{}",
        v["warnings"]
    );
    // Without a tick given and with distinct replicates: no warning.
    let v = json(&dir, &table(HEADER, 0.0, &REPLICATES), &[]);
    assert!(v["warnings"].as_array().unwrap().is_empty());
}

#[test]
fn the_weighting_is_reported_and_can_be_chosen() {
    let tmp = folder("weighting");
    let dir = tmp.path().to_path_buf();
    let v = json(
        &dir,
        &table(HEADER, 0.0, &REPLICATES),
        &["--weighting", "uniform"],
    );
    assert_eq!(v["test"]["weighting"]["applied"], "uniform");
    assert!(
        v["weighting"]
            .as_str()
            .unwrap()
            .starts_with("uniform weighting (as asked)")
    );
    // Asked for: its shape is the reference, exactly, and nothing is resampled.
    assert_eq!(v["test"]["allowance"]["exponent"], 0.0);
    assert_eq!(v["test"]["allowance"]["resampled"], serde_json::Value::Null);
    let v = json(&dir, &table(HEADER, 0.0, &REPLICATES), &[]);
    assert_eq!(v["test"]["weighting"]["rule"], "replicates");
    // Which noise the p-values allow for, and how they are computed.
    let said = v["weighting"].as_str().unwrap();
    assert!(
        said.contains(
            "relative weighting (auto: the replicates' scatter grows as the value to the power"
        ),
        "{said}"
    );
    // Where each cell's weight is evaluated, and how.
    assert_eq!(
        v["test"]["weighting"]["levels"],
        serde_json::json!({"at": "fitted", "cycles": 3})
    );
    assert!(
        said.contains(
            "each cell weighted at the candidate's fitted value, not its own mean, whose noise \
             would move its weight (iteratively reweighted least squares, 3 cycles)"
        ),
        "{said}"
    );
    // Chosen from the replicates: a parametric bootstrap at their exponent, seeded by the
    // table, and the report says how many resamples it drew.
    let resampled = &v["test"]["allowance"]["resampled"];
    assert_eq!(
        resampled["exponent"], v["test"]["weighting"]["exponent"],
        "{resampled}"
    );
    let drawn = resampled["drawn"].as_u64().unwrap();
    assert!(drawn >= 5 && drawn <= resampled["planned"].as_u64().unwrap());
    assert!(
        said.contains(&format!(
            "each test's p-value from {drawn} resamples of the candidate's fit"
        )) && said.contains("its weighting and γ̂ estimated again")
            && said.contains("seeded by the table"),
        "{said}"
    );
    // The same table, the same report.
    let again = json(&dir, &table(HEADER, 0.0, &REPLICATES), &[]);
    assert_eq!(again["test"], v["test"]);
}

#[test]
fn one_duplicated_p_is_warned_to_rest_on_normal_noise() {
    let tmp = folder("duplicated");
    let dir = tmp.path().to_path_buf();
    // One run per point, and a second run of P = 8 at every loop count.
    let mut text = table(HEADER, 0.0, &[0.002]);
    for l in [0.0, 2000.0, 4000.0, 6000.0] {
        let t = 78.0 + (1.2 + 0.00157 * l) * 8f64.ln();
        text.push_str(&format!("8,{},{l}\n", t * 1.003));
    }
    let v = json(&dir, &text, &[]);
    let warned: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str())
        .collect();
    assert!(
        warned
            .iter()
            .any(|w| w.contains("4 degrees of freedom of replicates")
                && w.contains("rests on the noise being normal")
                && w.contains("--repeats 2")),
        "{warned:?}"
    );
    // Every P twice: no such warning.
    let v = json(&dir, &table(HEADER, 0.0, &REPLICATES[..2]), &[]);
    assert!(
        !v["warnings"].as_array().unwrap().iter().any(|w| w
            .as_str()
            .unwrap()
            .contains("rests on the noise being normal")),
        "{}",
        v["warnings"]
    );
}
