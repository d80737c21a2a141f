//! Comma-separated lists on the command line: durations, whole numbers, names from a fixed
//! set, and topologies with ranges of sizes (`chain:1-16,binary:1-5`).

use std::ops::RangeInclusive;
use std::time::Duration;

use multicomputer_runtime::Topology;

use super::ArgError;
use crate::args::{parse_bytes, parse_duration};

/// Splits a comma-separated list, rejecting empty items.
pub(crate) fn split_list<'a>(flag: &str, list: &'a str) -> Result<Vec<&'a str>, ArgError> {
    let items: Vec<&str> = list.split(',').map(str::trim).collect();
    if items.iter().any(|s| s.is_empty()) {
        return Err(ArgError::new(flag, format!("empty item in '{list}'")));
    }
    Ok(items)
}

/// A list of durations with units.
pub(crate) fn durations(flag: &str, list: &str) -> Result<Vec<Duration>, ArgError> {
    split_list(flag, list)?
        .into_iter()
        .map(|s| parse_duration(s).map_err(|e| ArgError::new(flag, e)))
        .collect()
}

/// A list of whole numbers in `range` (granularities, windows, processor counts, loop
/// counts); an item that is not one names the flag and the range.
pub(crate) fn counts(
    flag: &str,
    list: &str,
    range: RangeInclusive<u64>,
) -> Result<Vec<u64>, ArgError> {
    split_list(flag, list)?
        .into_iter()
        .map(|s| match s.parse::<u64>() {
            Ok(v) if range.contains(&v) => Ok(v),
            _ => Err(ArgError::new(
                flag,
                format!(
                    "'{s}' is not a whole number in {}..={}",
                    range.start(),
                    range.end()
                ),
            )),
        })
        .collect()
}

/// A list of names from `choices`, each mapped to its value.
pub(crate) fn choices<T: Copy>(
    flag: &str,
    list: &str,
    what: &str,
    choices: &[(&str, T)],
) -> Result<Vec<T>, ArgError> {
    split_list(flag, list)?
        .into_iter()
        .map(|s| {
            choices
                .iter()
                .find(|(name, _)| name.eq_ignore_ascii_case(s))
                .map(|(_, v)| *v)
                .ok_or_else(|| {
                    let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
                    ArgError::new(flag, format!("unknown {what} '{s}' ({})", names.join(", ")))
                })
        })
        .collect()
}

/// A list of sizes in bytes, each at least 1, with ranges: `LO-HI` is LO, 2·LO, 4·LO, … up
/// to HI (`8-1MiB`, `64,4KiB`); ascending, without repeats.
pub(crate) fn byte_sizes(flag: &str, list: &str) -> Result<Vec<usize>, ArgError> {
    let size = |s: &str| -> Result<usize, ArgError> {
        match parse_bytes(s) {
            Ok(0) => Err(ArgError::new(
                flag,
                format!("'{s}' is 0 bytes; sizes start at 8"),
            )),
            Ok(b) => Ok(b),
            Err(e) => Err(ArgError::new(flag, e)),
        }
    };
    let mut out = Vec::new();
    for item in split_list(flag, list)? {
        match item.split_once('-') {
            Some((lo, hi)) => {
                let (lo, hi) = (size(lo)?, size(hi)?);
                if lo > hi {
                    return Err(ArgError::new(flag, format!("empty range in '{item}'")));
                }
                let mut b = lo;
                while b <= hi {
                    out.push(b);
                    b *= 2;
                }
            }
            None => out.push(size(item)?),
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// Expands `chain:1-16,binary:1-5,tree:3:1-3,parents:FILE` into topologies.
pub(crate) fn topologies(flag: &str, list: &str) -> Result<Vec<Topology>, ArgError> {
    parse_topologies(flag, topology_specs(flag, list)?)
}

/// Builds the topologies `specs` name (see [`topology_specs`]).
pub(crate) fn parse_topologies(flag: &str, specs: Vec<String>) -> Result<Vec<Topology>, ArgError> {
    specs
        .iter()
        .map(|spec| Topology::parse(spec).map_err(|e| ArgError::new(flag, e)))
        .collect()
}

/// Expands a list of topologies with ranges into one spec each (`chain:1-3` into `chain:1`,
/// `chain:2`, `chain:3`), building none: their number is known before any is built.
pub(crate) fn topology_specs(flag: &str, list: &str) -> Result<Vec<String>, ArgError> {
    let mut out = Vec::new();
    for item in split_list(flag, list)? {
        let (head, last) = item.rsplit_once(':').unwrap_or((item, ""));
        let range = last
            .split_once('-')
            .filter(|_| !item.starts_with("parents:"));
        let specs: Vec<String> = match range {
            Some((lo, hi)) => {
                let bad = || ArgError::new(flag, format!("bad range in '{item}'"));
                let lo: u64 = lo.parse().map_err(|_| bad())?;
                let hi: u64 = hi.parse().map_err(|_| bad())?;
                if lo > hi {
                    return Err(ArgError::new(flag, format!("empty range in '{item}'")));
                }
                if hi - lo >= 4096 {
                    return Err(ArgError::new(
                        flag,
                        format!("'{item}' has more than 4096 sizes; sweep fewer"),
                    ));
                }
                (lo..=hi).map(|n| format!("{head}:{n}")).collect()
            }
            None => vec![item.to_string()],
        };
        out.extend(specs);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_expand_and_bad_items_name_the_flag() {
        let t = topologies("--topologies", "chain:1-3,binary:2").unwrap();
        let names: Vec<String> = t.iter().map(ToString::to_string).collect();
        assert_eq!(names, vec!["chain:1", "chain:2", "chain:3", "tree:2:2"]);
        for (list, needle) in [
            ("chain:4-2", "empty range"),
            ("chain:x-2", "bad range"),
            ("chain:1,,2", "empty item"),
            ("lattice:3", "lattice"),
            ("chain:1-18446744073709551615", "more than 4096"),
        ] {
            let e = topologies("--topologies", list).unwrap_err();
            assert_eq!(e.flag, "--topologies");
            assert!(e.message.contains(needle), "{list}: {e}");
        }
    }

    #[test]
    fn byte_ranges_double_from_their_low_end() {
        assert_eq!(
            byte_sizes("--bytes", "8-64,1KiB, 16").unwrap(),
            vec![8, 16, 32, 64, 1024]
        );
        assert_eq!(byte_sizes("--bytes", "24-100").unwrap(), vec![24, 48, 96]);
        for (list, needle) in [
            ("64-8", "empty range"),
            ("0", "0 bytes"),
            ("8,,16", "empty item"),
            ("8-2TiB", "unknown size unit"),
        ] {
            let e = byte_sizes("--bytes", list).unwrap_err();
            assert_eq!(e.flag, "--bytes");
            assert!(e.message.contains(needle), "{list}: {e}");
        }
    }

    #[test]
    fn numbers_names_and_durations() {
        assert_eq!(counts("--g", "1,2, 8", 1..=8).unwrap(), vec![1, 2, 8]);
        for bad in ["0", "9", "-1", "2.5", "18446744073709551616"] {
            let e = counts("--g", bad, 1..=8).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("--g: '{bad}' is not a whole number in 1..=8")
            );
        }
        assert_eq!(
            choices(
                "--split",
                "Equal,random",
                "split",
                &[("equal", 0), ("random", 1)]
            )
            .unwrap(),
            vec![0, 1]
        );
        let e = choices("--split", "thirds", "split", &[("equal", 0)]).unwrap_err();
        assert_eq!(e.to_string(), "--split: unknown split 'thirds' (equal)");
        assert_eq!(
            durations("--te", "1ms,5ms").unwrap(),
            vec![Duration::from_millis(1), Duration::from_millis(5)]
        );
        assert!(
            durations("--te", "5")
                .unwrap_err()
                .message
                .contains("no unit")
        );
    }
}
