//! Numbers with units as people read them: durations (`12.34 µs`) and percentages.

/// A duration in ns, with a unit a person reads at a glance; `n/a` if not finite.
pub(crate) fn human_ns(ns: f64) -> String {
    let a = ns.abs();
    if !ns.is_finite() {
        "n/a".into()
    } else if a >= 1e9 {
        format!("{:.3} s", ns / 1e9)
    } else if a >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if a >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.1} ns")
    }
}

/// A duration in seconds, as [`human_ns`].
pub(crate) fn human_s(s: f64) -> String {
    human_ns(s * 1e9)
}

/// A signed percentage with `digits` decimals: `+1.25 %`.
pub(crate) fn signed_pct(v: f64, digits: usize) -> String {
    if v.is_finite() {
        format!("{v:+.digits$} %")
    } else {
        "n/a".into()
    }
}

/// A wall time for estimates and progress: `45 s`, `3 min 20 s`, `2 h 5 min`.
pub(crate) fn wall_time(s: f64) -> String {
    if !s.is_finite() {
        return "unknown".into();
    }
    let s = s.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, (s % 3600) / 60),
    }
}

/// How a machine kept time, for a line of text: `native (D = 1)`, `dilated (D = 12)` or
/// `virtual (exact given its tie order)`.
pub(crate) fn time_text(mode: &str, dilation: Option<f64>) -> String {
    match dilation {
        Some(d) => format!("{mode} (D = {d})"),
        None => format!("{mode} (exact given its tie order)"),
    }
}

/// How late a run's waits were, for a line of text; empty in virtual time (none late: it
/// keeps no wall clock).
pub(crate) fn lateness_text(f: &multicomputer_runtime::Fidelity) -> String {
    if f.exact {
        String::new()
    } else {
        format!(
            "; {} of {} waits late (mean {:.1} µs emulated)",
            f.late_waits,
            f.waits,
            f.mean_lateness_ns / 1e3
        )
    }
}

/// A number of bytes as a person reads it: `512 B`, `3.0 MiB`, `1.2 TiB`.
pub(crate) fn human_bytes(b: f64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    if !b.is_finite() {
        return "more than can be counted".into();
    }
    let mut v = b.max(0.0);
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{v:.0} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_units() {
        assert_eq!(human_ns(450.0), "450.0 ns");
        assert_eq!(human_ns(12_340.0), "12.34 µs");
        assert_eq!(human_ns(1.5e9), "1.500 s");
        assert_eq!(human_s(f64::NAN), "n/a");
        assert_eq!(signed_pct(1.254, 2), "+1.25 %");
        assert_eq!(wall_time(45.4), "45 s");
        assert_eq!(wall_time(200.0), "3 min 20 s");
        assert_eq!(wall_time(7500.0), "2 h 5 min");
    }

    #[test]
    fn bytes_read_as_people_read_them() {
        assert_eq!(human_bytes(512.0), "512 B");
        assert_eq!(human_bytes(3.0 * 1024.0 * 1024.0), "3.0 MiB");
        assert_eq!(human_bytes(f64::NAN), "more than can be counted");
    }
}
