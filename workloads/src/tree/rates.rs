//! Rates measured from a tree-engine run, and the event rate a model predicts for one.
//!
//! The farm paper's throughput is the steady-state rate of results at the root (§3.1, (g)):
//! measured as `(results − 1)/(last − first)` over a whole run, or over the middle half of the
//! results, where neither the start-up nor the wind-down weighs (the quantity `β_e` and `β_f`
//! are fitted to).

use std::time::Duration;

/// `(results − 1) × g / (last − first)`: the rate of (g) in tasks per second, with `g` tasks
/// per result; NaN with fewer than two results or no time between them.
pub fn throughput_per_s(result_times: &[Duration], g: f64) -> f64 {
    let (Some(first), Some(last)) = (result_times.first(), result_times.last()) else {
        return f64::NAN;
    };
    let span = last.saturating_sub(*first).as_secs_f64();
    if result_times.len() > 1 && span > 0.0 {
        (result_times.len() - 1) as f64 * g / span
    } else {
        f64::NAN
    }
}

/// Results per second over the middle half of the result times (from index `n/4` to
/// `3n/4`), times `g` tasks per result; NaN when the middle half is empty or takes no time.
pub fn steady_throughput_per_s(result_times: &[Duration], g: f64) -> f64 {
    let n = result_times.len();
    let (a, b) = (n / 4, 3 * n / 4);
    if b <= a || b >= n {
        return f64::NAN;
    }
    let span = result_times[b]
        .saturating_sub(result_times[a])
        .as_secs_f64();
    if span > 0.0 {
        (b - a) as f64 * g / span
    } else {
        f64::NAN
    }
}

/// Expected wake-ups per emulated second of the tree engine, from a model's prediction: a
/// piece executed on level `i` of `N` has crossed `N − i` links, and each crossing costs three
/// messages (request, task, result), plus one deadline for its execution.
/// `pieces_per_task(i)` is how many pieces a task's share on level `i + 1` is cut into (1 for
/// a farm, `k^{N−i}` for divide and conquer). `None` when the rate is not a positive number.
pub fn engine_events_per_s(
    throughput_per_s: f64,
    fractions_by_level: &[f64],
    pieces_per_task: impl Fn(usize) -> f64,
) -> Option<f64> {
    let n = fractions_by_level.len();
    let per_task: f64 = fractions_by_level
        .iter()
        .enumerate()
        .map(|(i, f)| f * pieces_per_task(i) * (1.0 + 3.0 * (n - 1 - i) as f64))
        .sum();
    let rate = throughput_per_s * per_task;
    (rate.is_finite() && rate > 0.0).then_some(rate)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: &[u64]) -> Vec<Duration> {
        v.iter().map(|&m| Duration::from_millis(m)).collect()
    }

    #[test]
    fn whole_run_rate_counts_intervals_not_results() {
        // 5 results over 8 ms: 4 intervals, 500 results/s, times g = 2 tasks each.
        assert_eq!(throughput_per_s(&ms(&[2, 4, 6, 8, 10]), 2.0), 1000.0);
        assert!(throughput_per_s(&ms(&[3]), 1.0).is_nan());
        assert!(throughput_per_s(&ms(&[3, 3]), 1.0).is_nan());
        assert!(throughput_per_s(&[], 1.0).is_nan());
    }

    #[test]
    fn steady_rate_uses_the_middle_half() {
        // 8 results: indices 2..6; a slow start and end do not count.
        let t = ms(&[0, 10, 20, 21, 22, 23, 24, 60]);
        // (6 − 2) results over 24 − 20 = 4 ms: 1000/s.
        assert!((steady_throughput_per_s(&t, 1.0) - 1000.0).abs() < 1e-9);
        assert!(steady_throughput_per_s(&ms(&[1]), 1.0).is_nan());
        assert!(steady_throughput_per_s(&ms(&[5, 5, 5]), 1.0).is_nan());
    }

    #[test]
    fn events_per_task_grow_with_the_path_length() {
        // Two levels, half the tasks on each: leaves (level 1) cross one link (1 + 3 events),
        // the root executes locally (1 event): 0.5·4 + 0.5·1 = 2.5 events per task.
        let rate = engine_events_per_s(100.0, &[0.5, 0.5], |_| 1.0).unwrap();
        assert!((rate - 250.0).abs() < 1e-12);
        assert_eq!(engine_events_per_s(0.0, &[1.0], |_| 1.0), None);
        assert_eq!(engine_events_per_s(f64::NAN, &[1.0], |_| 1.0), None);
    }
}
