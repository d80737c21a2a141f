//! Inputs at the edges (issue 14): every value that once panicked, aborted, wrapped or hung now
//! exits with code 2 before any work, naming its flag (or file, row and column) and the limit,
//! and writes nothing. Each case is refused before a run starts, so each is fast.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const MAX: &str = "18446744073709551615";

/// A results folder of its own for one invocation (not yet made), in a temporary folder
/// removed when dropped.
struct Out(PathBuf, #[allow(dead_code)] tempfile::TempDir);

impl Out {
    fn new(tag: &str) -> Self {
        let dir = tempfile::Builder::new()
            .prefix("mc-edges-")
            .tempdir()
            .unwrap_or_else(|e| panic!("a temporary folder for {tag}: {e}"));
        Self(dir.path().join("results"), dir)
    }
}

/// Starts the binary with `args` and `--out out`, its stderr piped, and waits for its
/// announcement (made after the signal handlers are installed, so a signal from now on is
/// the program's to handle): the child, its stderr, and what it has said so far.
fn spawn_announced(
    args: &[&str],
    out: &Out,
) -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStderr>,
    String,
) {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_multicomputer"))
        .args(args)
        .arg("--out")
        .arg(&out.0)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut err = String::new();
    stderr.read_line(&mut err).unwrap();
    assert!(err.contains("expected to take"), "{err}");
    (child, stderr, err)
}

fn run(args: &[&str], out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_multicomputer"))
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .expect("the binary runs")
}

/// The command exits 2, its error names every one of `needles`, it prints nothing on stdout
/// and writes nothing in its results folder.
#[track_caller]
fn refused(args: &[&str], needles: &[&str]) {
    let out = Out::new(&args.join("_").replace(['/', ':', ' '], "-"));
    let o = run(args, &out.0);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: expected '{n}' in: {err}");
    }
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(o.stdout.is_empty(), "{args:?} printed to stdout on error");
    let written: Vec<_> = std::fs::read_dir(&out.0)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(written.is_empty(), "{args:?} wrote {written:?}");
}

#[test]
fn counts_of_u64_max_exit_2_naming_the_flag_and_the_limit() {
    refused(&["farm", "--tasks", MAX], &["--tasks", "1..=100000000"]);
    refused(&["dnc", "--tasks", MAX], &["--tasks", "1..=100000000"]);
    refused(
        &["dnc", "--kernel", "mergesort", "--keys", MAX],
        &["--keys", "2..=1000000000"],
    );
    refused(
        &["ocl", "-n", "10", "--length", MAX],
        &["--length", "1000000000"],
    );
    refused(
        &["emulate", "--capacity", MAX],
        &["--capacity", "1..=65536"],
    );
    refused(&["farm", "--capacity", MAX], &["--capacity", "1..=65536"]);
    refused(&["farm", "--queue", MAX], &["--queue", "1..=65536"]);
    refused(
        &["emulate", "--loop-count", MAX],
        &["--loop-count", "1000000000"],
    );
    refused(&["ising", "--samples", MAX], &["--samples", "1000000000"]);
    refused(
        &["farm", "--per-byte", "1s", "--task-bytes", MAX],
        &["--task-bytes", "1073741824"],
    );
    refused(
        &["calibrate", "--samples", "4294967295"],
        &["--samples", "5..=100000"],
    );
    refused(&["emulate", "--rounds", MAX], &["--rounds"]);
    refused(&["farm", "--runs", "4294967295"], &["--runs", "10000"]);
    refused(
        &["sweep", "farm", "--topologies", &format!("chain:1-{MAX}")],
        &["--topologies", "more than 4096 sizes"],
    );
    refused(&["emulate", "-t", &format!("chain:{MAX}")], &["--topology"]);
    refused(
        &["scaling", "--loop-counts", MAX],
        &["--loop-counts", "0..=1000000000"],
    );
    refused(
        &["scaling", "--processors", &format!("2,{MAX}")],
        &["--processors"],
    );
    refused(
        &["scaling", "--samples-per-processor", MAX],
        &["--samples-per-processor"],
    );
}

#[test]
fn durations_that_would_wrap_or_hang_exit_2() {
    for (flag, value) in [
        ("--occupy", "18446744074s"),
        ("--occupy", "1000000h"),
        ("--send-overhead", "18446744074s"),
        ("--send-overhead", "1000h"),
    ] {
        refused(&["emulate", flag, value], &[flag, "limit of 1h"]);
    }
    refused(&["farm", "--te", "1000000h"], &["--te", "limit of 1h"]);
    refused(&["farm", "--beta-f", "2h"], &["--beta-f", "limit of 1h"]);
    refused(&["dnc", "--ts", "2h"], &["--ts", "limit of 1h"]);
    refused(
        &["sweep", "farm", "--te", "1ms,2h"],
        &["--te", "limit of 1h"],
    );
    refused(
        &["farm", "--per-byte", "1s", "--task-bytes", "1000000000"],
        &["--per-byte", "limit of 1h"],
    );
    refused(
        &["emulate", "--unit-cost", "attempted_flip=1e300"],
        &["--unit-cost", "one hour"],
    );
}

#[test]
fn memory_no_host_has_is_refused_before_allocating() {
    refused(&["ising", "--size", "10000"], &["--size", "of memory"]);
    refused(&["emulate", "--capacity", "1000000000"], &["--capacity"]);
    refused(
        &["ocl", "-n", "10", "--length", "10000000000"],
        &["--length", "1000000000"],
    );
    refused(
        &["dnc", "--kernel", "mergesort", "--keys", "1000000000"],
        &["--keys", "of memory"],
    );
    refused(
        &[
            "farm",
            "--mode",
            "dilated",
            "-t",
            "chain:16384",
            "--capacity",
            "65536",
        ],
        &["--capacity", "of memory"],
    );
    // 10⁸ lists of 10⁶ keys: 2.2 PiB.
    refused(
        &[
            "speedup",
            "--kernel",
            "mergesort",
            "-P",
            "1",
            "--tasks",
            "100000000",
            "--grain",
            "1000000",
        ],
        &["--tasks", "of memory"],
    );
}

#[test]
fn meaningless_or_endless_runs_are_refused() {
    refused(
        &["farm", "-g", "1000000", "--tasks", "10"],
        &["--granularity", "g ≤ M"],
    );
    refused(
        &["sweep", "farm", "--granularity", "1,20", "--tasks", "10"],
        &["--granularity", "g ≤ M"],
    );
    refused(
        &["emulate", "--mode", "dilated", "--dilation", "1e308"],
        &["--dilation", "1..=1e6", "1e308"],
    );
    refused(&["ocl", "-n", "10", "--dilation", "inf"], &["--dilation"]);
    // 1 s of emulated time at D = 10⁶: 11.6 days.
    refused(
        &["emulate", "--mode", "dilated", "--dilation", "1000000"],
        &["--dilation", "limit of 24 h", "--mode virtual"],
    );
    // 10⁹ rounds of an hour: beyond the runtime's clocks in every mode.
    refused(
        &[
            "emulate",
            "--mode",
            "virtual",
            "--rounds",
            "1000000000",
            "--occupy",
            "1h",
        ],
        &["--rounds, --occupy", "emulator's range"],
    );
    refused(
        &[
            "farm",
            "--mode",
            "virtual",
            "--tasks",
            "100000000",
            "--te",
            "1h",
        ],
        &["--tasks"],
    );
    refused(&["ocl", "-n", "100000000"], &["--window", "1..=2097152"]);
    // 10⁶ Ising samples of 10⁹ sweeps: refused by the rough estimate, before any sample runs.
    refused(
        &[
            "speedup",
            "--kernel",
            "ising",
            "-P",
            "1",
            "--tasks",
            "1000000",
            "--grain",
            "1000000000",
        ],
        &["--tasks, --grain", "limit of 24 h"],
    );
    refused(&["speedup", "--tasks", MAX], &["--tasks", "1..=100000000"]);
    refused(
        &["speedup", "--grains", MAX],
        &["--grains", "1..=1000000000"],
    );
}

#[test]
fn more_threads_than_the_host_allows_name_the_size_flag() {
    refused(
        &["emulate", "--mode", "dilated", "-t", "chain:16385"],
        &["--topology", "16384"],
    );
    refused(&["ising", "-P", "16385"], &["--processors", "1..=16384"]);
    refused(
        &[
            "sweep",
            "farm",
            "--mode",
            "dilated",
            "--topologies",
            "chain:16385",
        ],
        &["--topologies", "16384"],
    );
    refused(
        &["ocl", "-n", "16385", "--dilation", "2"],
        &["--window", "16385 processes"],
    );
}

#[test]
fn files_at_the_edges_name_the_file_row_and_line() {
    let dir = Out::new("files");
    std::fs::create_dir_all(&dir.0).unwrap();
    let file = |name: &str, text: &[u8]| {
        let p = dir.0.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    // Not a regular file: a FIFO of our own (never a system path such as /dev/zero); it is
    // refused on its type, before anything opens it (opening would wait for a writer).
    let fifo = dir.0.join("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo reads the zero-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let fifo = fifo.display().to_string();
    refused(
        &["fit", "farm", "--csv", &fifo],
        &[&format!("--csv {fifo}"), "not a regular file"],
    );
    refused(
        &["ocl", "-n", "4", "--input", &fifo],
        &[&format!("--input {fifo}"), "not a regular file"],
    );
    refused(
        &["scaling", "--csv", &fifo],
        &[&format!("--csv {fifo}"), "not a regular file"],
    );
    let head = "k,levels,te_s,tau_s,steady_throughput_per_s\n";
    let frac = file(
        "frac.csv",
        format!("{head}2,3,0.001,0,900\n2.5,3,0.001,0,800\n").as_bytes(),
    );
    refused(
        &["fit", "farm", "--csv", &frac],
        &["row 3 column 'k'", "not a whole number"],
    );
    let huge = file(
        "huge.csv",
        format!("{head}2,1000000000,0.001,0,900\n").as_bytes(),
    );
    refused(
        &["fit", "farm", "--csv", &huge],
        &["row 2 column 'levels'", "0..=4096"],
    );
    let twice = file(
        "twice.csv",
        b"k,levels,K,te_s,tau_s,steady_throughput_per_s\n",
    );
    refused(&["fit", "farm", "--csv", &twice], &["appears twice"]);
    let garbage = file(
        "ocl.csv",
        b"n,k,l,elapsed_s,alpha0_s,alpha1_s,beta_s\n12,2,60,0.001,1e-6,oops,1e-6\n",
    );
    refused(
        &["fit", "ocl", "--transform", "kk", "--csv", &garbage],
        &["row 2 column 'alpha1_s'", "'oops'"],
    );
    let tiny = file(
        "tiny.csv",
        b"n,k,l,elapsed_s\n12,2,60,1e-300\n12,3,60,0.001\n12,4,60,0.002\n",
    );
    refused(
        &["fit", "ocl", "--transform", "kk", "--csv", &tiny],
        &["row 2 column 'elapsed_s'", "1e-12..=1e12"],
    );
    let parents = file("parents.txt", "\u{feff}-\n0\n0 x\n".as_bytes());
    refused(
        &["emulate", "-t", &format!("parents:{parents}")],
        &["--topology", &format!("{parents}: line 3: entry 3 is 'x'")],
    );
    let stream = file("a.txt", "\u{feff}1\n2\nthree\n".as_bytes());
    let o = run(&["ocl", "-n", "2", "--input", &stream], &dir.0.join("x"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("line 3: 'three' is not an integer"), "{err}");
    assert!(!err.contains('\u{feff}'), "an invisible character: {err}");
}

/// Every file and folder under `dir` whose name marks it temporary.
fn temporaries(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with(".mc-tmp-") {
                found.push(p.clone());
            }
            if p.is_dir() && !p.is_symlink() {
                stack.push(p);
            }
        }
    }
    found
}

/// Whatever moment SIGTERM comes, the run ends with 128 + 15 (or 0 if it had finished), leaves
/// no temporary file, and the results folder holds nothing of it or its whole set.
#[test]
fn a_terminated_sweep_leaves_its_folder_as_it_was_or_complete() {
    let out = Out::new("sigterm");
    let child = Command::new(env!("CARGO_BIN_EXE_multicomputer"))
        .args([
            "sweep",
            "farm",
            "--topologies",
            "chain:1-8,binary:1-4",
            "--tasks",
            "4000",
            "--mode",
            "virtual",
            "--out",
        ])
        .arg(&out.0)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // Any moment will do: the checks below hold whenever the signal lands.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    use std::os::unix::process::ExitStatusExt;
    match (o.status.code(), o.status.signal()) {
        (Some(143), _) => assert!(err.contains("stopped by SIGTERM"), "{err}"),
        (Some(0), _) => {}
        // Killed before it could install its handler: it had written nothing yet.
        (None, Some(15)) => {}
        other => panic!("exit {other:?}: {err}"),
    }
    assert_eq!(temporaries(&out.0), Vec::<PathBuf>::new());
    let runs = out.0.join("sweep-farm");
    for run in std::fs::read_dir(&runs).into_iter().flatten().flatten() {
        let p = run.path();
        assert!(
            p.join("manifest.json").exists(),
            "{} is incomplete",
            p.display()
        );
    }
    let nothing = err.contains("nothing of this run was published") || o.status.signal().is_some();
    if nothing {
        assert!(
            !out.0.exists(),
            "the results folder was not there before: {err}"
        );
    }
}

/// Issue 21, items 1–5: one rule for every output path. A device or FIFO is written into, never
/// replaced; a published run folder is never changed; one file never holds two outputs; a
/// name too long is refused before the run; a FIFO is not read as an input file.
#[test]
fn output_paths_follow_one_rule() {
    use std::os::unix::fs::FileTypeExt;
    let out = Out::new("paths");
    std::fs::create_dir_all(&out.0).unwrap();
    let mkfifo = |p: &Path| {
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo reads the zero-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    };
    // 1. A private null device (root only) and a FIFO stay what they are.
    let nul = out.0.join("nul");
    let c = std::ffi::CString::new(nul.to_str().unwrap()).unwrap();
    // SAFETY: mknod reads the zero-terminated path; it fails (and the case is skipped) unless
    // the test runs as root.
    let device =
        unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 3)) } == 0;
    if device {
        for flag in ["--trace", "--timeline"] {
            small_farm(flag, &nul, &out.0);
            let t = std::fs::symlink_metadata(&nul).unwrap().file_type();
            assert!(t.is_char_device(), "{flag} replaced the device with {t:?}");
        }
    }
    let fifo = out.0.join("pipe");
    mkfifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    small_farm("--report", &fifo, &out.0);
    assert!(
        !reader.join().unwrap().is_empty(),
        "the report went into the FIFO"
    );
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    // 2. A published run folder (its manifest) is never written in, through `latest` or not.
    let run_dir = out.0.join("sweep-farm/2026-run");
    std::fs::create_dir_all(&run_dir).unwrap();
    std::fs::write(run_dir.join("rows.csv"), "published").unwrap();
    std::fs::write(run_dir.join("manifest.json"), "{}").unwrap();
    std::os::unix::fs::symlink("2026-run", out.0.join("sweep-farm/latest")).unwrap();
    let latest = out.0.join("sweep-farm/latest");
    let rows = latest.join("rows.csv");
    for args in [
        vec!["farm", "--report", rows.to_str().unwrap()],
        vec![
            "calibrate",
            "--samples",
            "5",
            "--profile",
            rows.to_str().unwrap(),
        ],
    ] {
        let o = run(&args, &out.0);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("published run folder"), "{args:?}: {err}");
    }
    let o = Command::new(env!("CARGO_BIN_EXE_multicomputer"))
        .args(["sweep", "farm", "--out", latest.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--out") && err.contains("published run folder"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&rows).unwrap(), "published");
    assert_eq!(
        std::fs::read_dir(&run_dir).unwrap().count(),
        2,
        "nothing nested"
    );
    // 3. Two outputs, one file.
    let same = out.0.join("same.json");
    let s = same.to_str().unwrap();
    refused_in(
        &["farm", "--trace", s, "--report", s],
        &["--trace and --report", "same.json"],
        &out.0,
    );
    // 4. A name the file system cannot hold.
    let long = out.0.join(format!("{}.json", "r".repeat(300)));
    refused_in(
        &["farm", "--report", long.to_str().unwrap()],
        &["--report", "allows 255"],
        &out.0,
    );
    // 5. A FIFO is not a parent file: refused at once, not read for ever.
    let parents = out.0.join("parents");
    mkfifo(&parents);
    let spec = format!("parents:{}", parents.display());
    refused_in(
        &["emulate", "-t", &spec],
        &["--topology", "not a regular file"],
        &out.0,
    );
    assert!(!same.exists() && !long.exists());
}

/// A small farm writing its `flag` output to `path`; it succeeds.
#[track_caller]
/// `--report` naming the file stdout writes into (`/dev/stdout`; here the FIFO stdout was sent
/// to): the report alone fills it, never followed by the tables.
#[test]
fn a_report_sent_to_stdout_replaces_the_tables() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("stdout");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo reads the zero-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let stdout = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_multicomputer"))
        .args(["farm", "-t", "chain:2", "--te", "1ms", "--report"])
        .arg(&fifo)
        .arg("--out")
        .arg(dir.path().join("results"))
        .stdout(stdout)
        .output()
        .expect("the binary runs");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let bytes = reader.join().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_else(|e| {
        panic!(
            "stdout holds more than the report ({e}): {}",
            String::from_utf8_lossy(&bytes)
        )
    });
    assert_eq!(report["meta"]["command"], "farm");
}

fn small_farm(flag: &str, path: &Path, out: &Path) {
    let args = [
        "farm",
        "-t",
        "chain:2",
        "--te",
        "1ms",
        flag,
        path.to_str().unwrap(),
    ];
    let o = run(&args, out);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
}

/// `refused` for a command whose results folder already holds files of the test.
#[track_caller]
fn refused_in(args: &[&str], needles: &[&str], out: &Path) {
    let o = run(args, out);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: expected '{n}' in: {err}");
    }
    assert!(o.stdout.is_empty(), "{args:?} printed to stdout on error");
}

/// Issue 21, item 8: a flag that cannot apply to the time mode is refused, naming why.
#[test]
fn flags_that_cannot_apply_to_the_time_mode_are_refused() {
    refused(
        &["emulate", "--mode", "virtual", "--wait", "spin"],
        &["--wait", "virtual time"],
    );
    refused(
        &["farm", "--mode", "native", "--stack-size", "1MiB"],
        &["--stack-size", "native and dilated"],
    );
    refused(
        &["emulate", "--mode", "dilated", "--stack-size", "1MiB"],
        &["--stack-size"],
    );
}

/// A machine profile as `calibrate` writes it, measured on `host` with `cores`, its cost of
/// trial division `trial_division_ns`.
fn profile_json(host: &str, cores: usize, trial_division_ns: f64) -> String {
    format!(
        r#"{{"host": "{host}", "cores": {cores}, "measured_unix_s": 1795689325,
        "clock_read_ns": 84.7, "cpu_time_read_ns": 860.2, "message_spin_ns": 176.2,
        "message_parked_ns": 13170.0, "wakeup_ns": 31509.0, "wake_cpu_ns": 23074.0,
        "occupy_error_ns": {{"spin": 103.0, "sleep": 34614.0, "hybrid": 263.0}},
        "occupy": [{{"strategy": "spin", "target_ns": 10000, "median_error_ns": 75.0,
        "p99_error_ns": 435.0}}], "loop_ns_per_iteration": 5.9, "coroutine_switch_ns": 100.4,
        "unit_costs": {{"trial_division": {trial_division_ns:e}}}}}"#
    )
}

/// Issue 21, item 7: a profile's values pass the limits of the flags that stand for them, and
/// a profile from another host is named in a warning.
#[test]
fn a_profile_passes_the_flags_limits_and_one_from_another_host_is_named() {
    let out = Out::new("profile");
    std::fs::create_dir_all(&out.0).unwrap();
    let huge = out.0.join("huge.json");
    std::fs::write(&huge, profile_json("elsewhere", 2, 1e300)).unwrap();
    let args = [
        "farm",
        "--kernel",
        "primes",
        "--mode",
        "virtual",
        "--profile",
        huge.to_str().unwrap(),
    ];
    refused_in(&args, &["--profile", "trial_division", "3.6e12"], &out.0);
    let other = out.0.join("other.json");
    std::fs::write(&other, profile_json("elsewhere", 100_000, 2.0)).unwrap();
    let o = run(
        &[
            "emulate",
            "-t",
            "chain:2",
            "--profile",
            other.to_str().unwrap(),
        ],
        &out.0,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("warning: the machine profile")
            && err.contains("on host 'elsewhere'")
            && err.contains("with 100000 cores"),
        "{err}"
    );
}

/// A run whose stderr is a pipe its reader has closed (`multicomputer … 2>&1 | head -1`)
/// still stops on SIGTERM: saying that it stopped must not fail the thread that ends the
/// process (it panicked in `eprintln!`, and the run went on for minutes).
#[test]
fn a_run_stops_on_sigterm_after_its_stderr_is_closed() {
    let out = Out::new("sigterm-closed-stderr");
    let args = [
        "farm",
        "-t",
        "binary:12",
        "--tasks",
        "10000000",
        "--mode",
        "virtual",
    ];
    // Once the run has announced itself, its stderr's reader goes.
    let (mut child, stderr, _) = spawn_announced(&args, &out);
    drop(stderr);
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    // A guard against a hang, not a speed target: the run itself would take minutes.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("SIGTERM did not stop a run whose stderr was closed");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(143));
}

/// Issue 21, item 15: a dilated run whose processors wait and spin stops on SIGTERM (its
/// waits halted in the signal handler, so the thread that ends the process gets a core), says
/// so and exits 143. How fast is measured by `scripts/sigterm-dilated.sh`, not here.
#[test]
fn a_dilated_run_stops_on_sigterm() {
    let out = Out::new("sigterm-dilated");
    let args = [
        "emulate",
        "-t",
        "chain:200",
        "--rounds",
        "100000",
        "--occupy",
        "1ms",
        "--mode",
        "dilated",
        "--dilation",
        "1",
        "--wait",
        "hybrid",
    ];
    // Waiting for the announcement (not for a fixed time, which a loaded host may overrun)
    // makes sure the signal is the program's to handle. A little more, so that it lands while
    // the processors wait.
    use std::io::Read;
    let (mut child, mut stderr, mut err) = spawn_announced(&args, &out);
    std::thread::sleep(std::time::Duration::from_millis(500));
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    stderr.read_to_string(&mut err).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143), "{err}");
    assert!(err.contains("stopped by SIGTERM"), "{err}");
}
