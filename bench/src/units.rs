//! Numbers with units as people read them: durations (`12.34 µs`) and percentages.

/// A duration in ns, with a unit a person reads at a glance; `n/a` if not finite.
pub(crate) fn human_ns(ns: f64) -> String {
    if !ns.is_finite() {
        return "n/a".into();
    }
    let (per_unit, decimals, unit) = human_scale(ns);
    format!("{:.decimals$} {unit}", ns / per_unit)
}

/// How [`human_ns`] shows `ns`: ns per unit, decimals, the unit.
fn human_scale(ns: f64) -> (f64, usize, &'static str) {
    let a = ns.abs();
    if a >= 1e9 {
        (1e9, 3, "s")
    } else if a >= 1e6 {
        (1e6, 3, "ms")
    } else if a >= 1e3 {
        (1e3, 2, "µs")
    } else {
        (1.0, 1, "ns")
    }
}

/// A sum of charges, `a × x ns + b × y ns = total`, each count and unit cost shown with
/// the decimals that make the shown figures multiply out to the shown total (to within its
/// last digit): a rounded `3.4 ns` under 40 960 attempts would be 1.2 µs off.
pub(crate) fn charge_sum(terms: &[(f64, f64)]) -> String {
    let total: f64 = terms.iter().map(|(count, ns)| count * ns).sum();
    let (per_unit, decimals, _) = human_scale(total);
    // The figures' rounding together may move the total by half its last digit, shared out
    // among the terms' two factors.
    let allowed = 0.5 * per_unit * 10f64.powi(-(decimals as i32)) / (2 * terms.len()) as f64;
    let places = |other: f64, at_least: usize| {
        (at_least..12)
            .find(|&d| other.abs() * 0.5 * 10f64.powi(-(d as i32)) <= allowed)
            .unwrap_or(12)
    };
    let shown: Vec<String> = terms
        .iter()
        .map(|&(count, ns)| {
            let c = if count.fract() == 0.0 {
                0
            } else {
                places(ns, 1)
            };
            format!("{count:.c$} × {ns:.x$} ns", x = places(count, 1))
        })
        .collect();
    format!("{} = {}", shown.join(" + "), human_ns(total))
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
    fn a_charge_sum_multiplies_out_to_its_total() {
        // The README's 2-D sample: a rounded 3.4 ns would give 139.26 µs, not 148.03 µs.
        let shown = charge_sum(&[(40960.0, 3.37), (546.0625, 18.3)]);
        assert_eq!(shown, "40960 × 3.37000 ns + 546.1 × 18.300 ns = 148.03 µs");
        for terms in [
            vec![(40960.0, 3.103_456_7), (546.0625, 16.831_234)],
            vec![(512.0, 6.72), (110.25, 18.3)],
            vec![(3.0, 1_234.567_8)],
            vec![(1e6, 7.123_456_789)],
        ] {
            let shown = charge_sum(&terms);
            let (sum, total) = shown.split_once(" = ").unwrap();
            let multiplied: f64 = sum
                .split(" + ")
                .map(|t| {
                    let (c, x) = t.trim_end_matches(" ns").split_once(" × ").unwrap();
                    c.parse::<f64>().unwrap() * x.parse::<f64>().unwrap()
                })
                .sum();
            let exact: f64 = terms.iter().map(|(c, x)| c * x).sum();
            let (per_unit, decimals, _) = human_scale(exact);
            let last_digit = per_unit * 10f64.powi(-(decimals as i32));
            assert_eq!(total, human_ns(exact));
            assert!(
                (multiplied - exact).abs() <= 0.5 * last_digit,
                "{shown}: the figures give {multiplied} ns"
            );
        }
    }

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
