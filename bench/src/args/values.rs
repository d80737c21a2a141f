//! Value parsers clap calls for typed flags: durations with units and topologies.

use std::time::Duration;

use multicomputer_runtime::Topology;

/// Parses a duration with a unit (`250us`, `1ms`, `2s`, `500ns`).
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
    humantime::parse_duration(t)
        .map_err(|e| format!("'{s}' is not a duration ({e}); write e.g. 250us, 1ms, 1.5s"))
}

/// Parses a topology (`chain:P`, `array:P`, `tree:K:LEVELS`, `binary:LEVELS`,
/// `parents:FILE`).
pub(crate) fn parse_topology(s: &str) -> Result<Topology, String> {
    Topology::parse(s).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_need_units_and_must_not_be_negative() {
        assert_eq!(parse_duration("250us"), Ok(Duration::from_micros(250)));
        assert_eq!(parse_duration("1ms"), Ok(Duration::from_millis(1)));
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert!(parse_duration("250").unwrap_err().contains("no unit"));
        assert!(parse_duration("-1ms").unwrap_err().contains("negative"));
        assert!(
            parse_duration("fast")
                .unwrap_err()
                .contains("not a duration")
        );
    }
}
