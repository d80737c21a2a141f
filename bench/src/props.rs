//! Property tests over every command-line value parser (durations, sizes, unit costs,
//! topologies, lists and ranges, transforms) and every file reader (CSV tables and the two
//! CSV kinds the fits read, parent files, OCL streams): never a panic, errors name the flag
//! or the file, row and line, accepted values round-trip.
//!
//! Cases per property: `PROPTEST_CASES` if set, else 64 (fast on a 2-core CI);
//! `scripts/fuzz.sh` runs them with many more.

use std::path::Path;
use std::time::Duration;

use multicomputer_runtime::Topology;
use proptest::prelude::*;
use proptest::test_runner::Config;

use crate::args::{MAX_DURATION, parse_bytes, parse_duration, parse_unit_cost};
use crate::files::{Columns, read_text};
use crate::plan::{counts, durations, parse_transform, read_stream, read_table, topologies};

fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(64);
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

/// Strings built from the characters these parsers care about, plus anything at all.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[0-9a-z:,.\\- =#\u{feff}]{0,24}",
        any::<String>(),
        (any::<u64>(), "(ns|us|ms|s|min|h|d|KiB|MiB|GiB|K|)").prop_map(|(n, u)| format!("{n}{u}")),
    ]
}

fn temp_file(dir: &Path, bytes: &[u8]) -> std::path::PathBuf {
    let p = dir.join("input");
    std::fs::write(&p, bytes).unwrap();
    p
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn durations_never_panic_stay_within_the_limit_and_round_trip(s in text(), ns in 0..=MAX_DURATION.as_nanos() as u64) {
        match parse_duration(&s) {
            Ok(d) => prop_assert!(d <= MAX_DURATION),
            Err(e) => prop_assert!(e.contains(&format!("'{s}'")), "{e}"),
        }
        let d = Duration::from_nanos(ns);
        prop_assert_eq!(parse_duration(&format!("{ns}ns")), Ok(d));
        prop_assert_eq!(parse_duration(&humantime::format_duration(d).to_string()), Ok(d));
    }

    #[test]
    fn sizes_and_unit_costs_never_panic_and_round_trip(s in text(), n in 0u64..1024, unit in 0usize..4, cost in 0.0..3.6e12f64) {
        let _ = parse_bytes(&s);
        let _ = parse_unit_cost(&s);
        let (name, scale) = [("B", 1), ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30)][unit];
        let size = parse_bytes(&format!("{n}{name}"));
        if n * scale <= 1 << 30 {
            prop_assert_eq!(size, Ok((n * scale) as usize));
        } else {
            prop_assert!(size.unwrap_err().contains("at most 1GiB"));
        }
        prop_assert_eq!(parse_unit_cost(&format!("key_move={cost}")), Ok(("key_move".to_string(), cost)));
    }

    #[test]
    fn topologies_never_panic_and_round_trip(s in text(), p in 1usize..2000, k in 1usize..6, l in 1u32..6, huge in (multicomputer_runtime::tuning::MAX_PROCESSORS as u64 + 1)..=u64::MAX) {
        if !s.starts_with("parents:") {
            let _ = Topology::parse(&s);
        }
        for t in [Topology::chain(p).unwrap(), Topology::array(p).unwrap(), Topology::kary_tree(k, l).unwrap()] {
            prop_assert_eq!(Topology::parse(&t.to_string()).unwrap(), t);
        }
        let e = Topology::parse(&format!("chain:{huge}")).unwrap_err().to_string();
        prop_assert!(e.contains("at most 2097152"), "{}", e);
    }

    #[test]
    fn lists_and_ranges_never_panic_name_the_flag_and_round_trip(s in text(), lo in 0u64..50, len in prop_oneof![0u64..20, 4095u64..10_000], gs in prop::collection::vec(1u64..=1000, 1..8), ns in prop::collection::vec(0u64..3_600_000_000_000, 1..8)) {
        for r in [topologies("--topologies", &s).err(), counts("--granularity", &s, 1..=1000).err(), durations("--te", &s).err()].into_iter().flatten() {
            prop_assert!(r.flag == "--topologies" || r.flag == "--granularity" || r.flag == "--te");
        }
        let range = format!("chain:{lo}-{}", lo.saturating_add(len));
        match topologies("--topologies", &range) {
            Ok(t) => {
                prop_assert_eq!(t.len() as u64, len + 1);
                prop_assert!(t.len() <= 4096);
            }
            Err(e) => {
                prop_assert_eq!(&e.flag, "--topologies");
                prop_assert!(lo == 0 || len >= 4096, "{}", e);
            }
        }
        let joined: Vec<String> = gs.iter().map(u64::to_string).collect();
        prop_assert_eq!(counts("--granularity", &joined.join(","), 1..=1000).unwrap(), gs);
        let joined: Vec<String> = ns.iter().map(|n| format!("{n}ns")).collect();
        let back: Vec<u64> = durations("--te", &joined.join(",")).unwrap().iter().map(|d| d.as_nanos() as u64).collect();
        prop_assert_eq!(back, ns);
    }

    #[test]
    fn transforms_never_panic_and_round_trip(s in text(), n in 0usize..5000, m in 1usize..50, k in 1usize..10) {
        if let Err(e) = parse_transform(&s, n) {
            prop_assert!(e.flag == "--transform" || e.flag == "--window", "{}", e);
        }
        let n = m * k * 3;
        for g in [multicomputer_workloads::ocl::Grain::new(n, m * k, k).unwrap(), multicomputer_workloads::ocl::Grain::m1(n, m).unwrap()] {
            let label = multicomputer_workloads::ocl::transform_label(g);
            prop_assert_eq!(parse_transform(&label, n).unwrap(), g);
        }
    }

    #[test]
    fn csv_tables_never_panic_and_their_numbers_round_trip(bytes in prop::collection::vec(any::<u8>(), 0..200), rows in prop::collection::vec(prop::collection::vec(any::<f64>(), 3), 1..6)) {
        if let Ok(t) = Columns::parse(&bytes) {
            for name in ["k", "a", ""] {
                if let Err(e) = t.numbers(name) {
                    prop_assert!(e.0.contains("column"), "{}", e);
                }
            }
        }
        let mut text = String::from("\u{feff}A, b ,C\n");
        for r in &rows {
            text.push_str(&format!("{},{},{}\n", r[0], r[1], r[2]));
        }
        let t = Columns::parse(text.as_bytes()).unwrap();
        let back = t.numbers("a").unwrap();
        for (r, v) in rows.iter().zip(back) {
            prop_assert!(r[0].to_bits() == v.to_bits() || r[0].is_nan() && v.is_nan());
        }
    }

    #[test]
    fn the_fits_tables_never_panic_and_errors_name_file_row_and_column(cells in prop::collection::vec(prop_oneof![Just("1".to_string()), Just("2.5".to_string()), Just("-1".to_string()), Just("NaN".to_string()), Just("x".to_string()), Just("".to_string()), Just("1e300".to_string()), "[0-9]{1,12}"], 7..42)) {
        let dir = tempfile::tempdir().unwrap();
        let mut text = String::from("k,levels,te_s,tau_s,steady_throughput_per_s,n,l\n");
        let rows: Vec<String> = cells.chunks(7).filter(|c| c.len() == 7).map(|c| c.join(",")).collect();
        text.push_str(&rows.join("\n"));
        let path = temp_file(dir.path(), text.as_bytes());
        let flag = format!("--csv {}", path.display());
        let args = crate::args::FitFarmArgs {
            csv: path.clone(),
            column: "steady_throughput_per_s".into(),
            output: Default::default(),
        };
        match crate::plan::FitFarmPlan::new(&args, dir.path()) {
            Ok(plan) => prop_assert_eq!(plan.observations.len() + plan.skipped.len(), rows.len()),
            Err(e) => prop_assert_eq!(&e.flag, &flag),
        }
        for table in [multicomputer_workloads::ocl::OclTable::M1, multicomputer_workloads::ocl::OclTable::Kk] {
            let renamed = text.replacen("k,levels,te_s,tau_s,steady_throughput_per_s", "m,k,elapsed_s,alpha0_s,beta_s", 1);
            let p = temp_file(dir.path(), renamed.as_bytes());
            match read_table(&p, table) {
                Ok(read) => prop_assert_eq!(read.rows.len(), rows.len()),
                Err(e) => {
                    prop_assert_eq!(&e.flag, &flag);
                    if let Some(r) = e.message.strip_prefix("row ") {
                        let row: usize = r.split(' ').next().unwrap().parse().unwrap();
                        prop_assert!((2..=rows.len() + 1).contains(&row), "{}", e);
                    }
                }
            }
        }
    }

    #[test]
    fn parent_relations_never_panic_and_round_trip(s in text(), parents in prop::collection::vec(any::<prop::sample::Index>(), 0..60), bad_line in 0usize..60) {
        let _ = Topology::parse_parents(&s);
        // A random tree: processor i's parent is one of 0..i.
        let relation: Vec<Option<usize>> = std::iter::once(None)
            .chain(parents.iter().enumerate().map(|(i, ix)| Some(ix.index(i + 1))))
            .collect();
        let lines: Vec<String> = relation.iter().map(|p| p.map_or("-".into(), |p| p.to_string())).collect();
        let t = Topology::parse_parents(&format!("\u{feff}{}\n", lines.join("\n"))).unwrap();
        prop_assert_eq!(t.parents(), &relation[..]);
        // A bad entry in a file names the file and its line.
        let dir = tempfile::tempdir().unwrap();
        let mut with_bad = lines.clone();
        let at = bad_line % with_bad.len();
        with_bad[at] = "p?".into();
        let path = temp_file(dir.path(), with_bad.join("\n").as_bytes());
        let e = Topology::parse(&format!("parents:{}", path.display())).unwrap_err().to_string();
        let needle = format!("{}: line {}: entry {at} is 'p?'", path.display(), at + 1);
        prop_assert!(e.contains(&needle), "{}", e);
    }

    #[test]
    fn ocl_streams_never_panic_and_round_trip(bytes in prop::collection::vec(any::<u8>(), 0..200), values in prop::collection::vec(any::<i64>(), 1..50), bad_line in 0usize..50) {
        let dir = tempfile::tempdir().unwrap();
        let path = temp_file(dir.path(), &bytes);
        if let Err(e) = read_stream(&path) {
            prop_assert!(e.flag.starts_with("--input"), "{}", e);
        }
        let _ = read_text(&path);
        let lines: Vec<String> = values.iter().map(i64::to_string).collect();
        let path = temp_file(dir.path(), format!("\u{feff}{}\n\n", lines.join("\n")).as_bytes());
        prop_assert_eq!(read_stream(&path).unwrap(), values.clone());
        let mut bad = lines.clone();
        let at = bad_line % bad.len();
        bad[at] = "1.5".into();
        let path = temp_file(dir.path(), bad.join("\n").as_bytes());
        let e = read_stream(&path).unwrap_err();
        let needle = format!("line {}: '1.5' is not an integer", at + 1);
        prop_assert!(e.message.contains(&needle), "{}", e);
    }
}
