//! Value parsers clap calls for typed flags: durations with units, sizes, unit costs and
//! topologies. Each refuses what it cannot represent and what exceeds its documented limit
//! ([`super::limits`]), so that clap exits with code 2 naming the flag.

use std::time::Duration;

use multicomputer_runtime::{TieOrder, Topology};
use multicomputer_workloads::unit_costs::UNITS;

use super::limits::MAX_DURATION;

/// Parses a duration with a unit (`250us`, `1ms`, `2s`, `500ns`), at most
/// [`MAX_DURATION`] (one hour).
pub(crate) fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    if t.starts_with('-') {
        return Err(format!("'{s}' is negative; durations must be ≥ 0"));
    }
    if !t.is_empty() && t.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return Err(format!(
            "'{s}' has no unit; write e.g. {t}us, {t}ms or {t}s"
        ));
    }
    let d = humantime::parse_duration(t)
        .map_err(|e| format!("'{s}' is not a duration ({e}); write e.g. 250us, 1ms, 1.5s"))?;
    if d > MAX_DURATION {
        return Err(format!(
            "'{s}' is longer than the limit of 1h for an emulated cost (no time mode finishes \
             such runs; give a shorter duration)"
        ));
    }
    Ok(d)
}

/// Parses `UNIT=NS`, a cost per unit of work in nanoseconds, of a unit the programs declare.
pub(crate) fn parse_unit_cost(s: &str) -> Result<(String, f64), String> {
    let (unit, ns) = s
        .split_once('=')
        .ok_or_else(|| format!("'{s}' is not UNIT=NS (e.g. trial_division=7.5)"))?;
    let unit = unit.trim();
    if unit.is_empty() {
        return Err(format!("'{s}' names no unit (e.g. trial_division=7.5)"));
    }
    if !UNITS.iter().any(|u| u.name() == unit) {
        let names: Vec<&str> = UNITS.iter().map(|u| u.name()).collect();
        return Err(format!(
            "'{unit}' is no unit of work the programs declare: give one of {}",
            names.join(", ")
        ));
    }
    let ns: f64 = ns
        .trim()
        .parse()
        .map_err(|_| format!("'{}' is not a number of nanoseconds", ns.trim()))?;
    check_unit_cost(unit, ns)?;
    Ok((unit.to_string(), ns))
}

/// The limit on a cost per unit of work, wherever it comes from (`--unit-cost`, a profile):
/// a number of ns in 0..=3.6e12 (one hour).
pub(crate) fn check_unit_cost(unit: &str, ns: f64) -> Result<(), String> {
    if ns.is_finite() && (0.0..=MAX_DURATION.as_nanos() as f64).contains(&ns) {
        Ok(())
    } else {
        Err(format!(
            "the cost of '{unit}' must be a number of ns in 0..=3.6e12 (one hour), got {ns:e}"
        ))
    }
}

/// Parses a size in bytes: a whole number with an optional unit (B, KiB, MiB, GiB; K, M, G),
/// at most 1 GiB.
/// `--ties`: `index`, `reverse` or `shuffle:SEED`.
pub(crate) fn parse_ties(s: &str) -> Result<TieOrder, String> {
    match s {
        "index" => Ok(TieOrder::Index),
        "reverse" => Ok(TieOrder::Reverse),
        _ => match s.strip_prefix("shuffle:") {
            Some(seed) => seed
                .parse()
                .map(TieOrder::Shuffle)
                .map_err(|_| format!("shuffle:SEED needs a whole number ≥ 0, got '{seed}'")),
            None => Err(format!(
                "'{s}' is not a tie order: give index, reverse or shuffle:SEED"
            )),
        },
    }
}

pub(crate) fn parse_bytes(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let n: u64 = number
        .parse()
        .map_err(|_| format!("'{s}' is not a size (e.g. 256KiB, 1MiB)"))?;
    let scale: u64 = match unit.trim() {
        "" | "B" => 1,
        "K" | "k" | "KiB" => 1 << 10,
        "M" | "MiB" => 1 << 20,
        "G" | "GiB" => 1 << 30,
        other => {
            return Err(format!(
                "unknown size unit '{other}' in '{s}': use KiB, MiB or GiB"
            ));
        }
    };
    n.checked_mul(scale)
        .filter(|&b| b <= MAX_STACK_BYTES)
        .and_then(|b| usize::try_from(b).ok())
        .ok_or_else(|| format!("'{s}' is too large: at most 1GiB"))
}

/// The largest size [`parse_bytes`] accepts: 1 GiB (a stack per processor).
const MAX_STACK_BYTES: u64 = 1 << 30;

/// Parses a topology (`chain:P`, `array:P`, `tree:K:LEVELS`, `binary:LEVELS`,
/// `parents:FILE`, `ring:P`, `mesh:AxB[xC]`, `torus:AxB[xC]`, `hypercube:D`, `edges:FILE`).
pub(crate) fn parse_topology(s: &str) -> Result<Topology, String> {
    Topology::parse(s).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tie_orders_parse_or_say_why_not() {
        assert_eq!(parse_ties("index"), Ok(TieOrder::Index));
        assert_eq!(parse_ties("reverse"), Ok(TieOrder::Reverse));
        assert_eq!(parse_ties("shuffle:42"), Ok(TieOrder::Shuffle(42)));
        assert!(
            parse_ties("shuffle:x")
                .unwrap_err()
                .contains("whole number")
        );
        assert!(
            parse_ties("random")
                .unwrap_err()
                .contains("index, reverse or shuffle:SEED")
        );
    }

    #[test]
    fn sizes_and_unit_costs_parse_or_say_why_not() {
        assert_eq!(parse_bytes("256KiB"), Ok(256 * 1024));
        assert_eq!(parse_bytes("1MiB"), Ok(1 << 20));
        assert_eq!(parse_bytes("4096"), Ok(4096));
        assert!(
            parse_bytes("1TB")
                .unwrap_err()
                .contains("unknown size unit")
        );
        assert!(parse_bytes("lots").unwrap_err().contains("not a size"));
        assert!(
            parse_bytes("99999999999G")
                .unwrap_err()
                .contains("too large")
        );
        assert_eq!(
            parse_unit_cost("attempted_flip=9.5"),
            Ok(("attempted_flip".to_string(), 9.5))
        );
        assert!(
            parse_unit_cost("attempted_flip")
                .unwrap_err()
                .contains("UNIT=NS")
        );
        // The unit an attempted flip had before accepted flips were charged apart.
        assert!(
            parse_unit_cost("spin_flip=9")
                .unwrap_err()
                .contains("give one of prime_candidate")
        );
        assert!(parse_unit_cost("=3").unwrap_err().contains("names no unit"));
        assert!(parse_unit_cost("key_move=-1").unwrap_err().contains("0..="));
        assert!(
            parse_unit_cost("key_move=1e300")
                .unwrap_err()
                .contains("0..=")
        );
        assert!(
            parse_unit_cost("key_move=fast")
                .unwrap_err()
                .contains("not a number")
        );
    }

    #[test]
    fn durations_need_units_and_must_not_be_negative() {
        assert_eq!(parse_duration("250us"), Ok(Duration::from_micros(250)));
        assert_eq!(parse_duration("1ms"), Ok(Duration::from_millis(1)));
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert!(parse_duration("250").unwrap_err().contains("no unit"));
        assert!(parse_duration("-1ms").unwrap_err().contains("negative"));
        assert_eq!(parse_duration("1h"), Ok(MAX_DURATION));
        for long in ["18446744074s", "1000000h", "3601s", "61min"] {
            assert!(
                parse_duration(long).unwrap_err().contains("limit of 1h"),
                "{long}"
            );
        }
        assert!(
            parse_duration("fast")
                .unwrap_err()
                .contains("not a duration")
        );
    }
}
