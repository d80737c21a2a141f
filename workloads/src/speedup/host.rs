//! The host a speedup was measured on: its cores and processor, whether pinning works, and how
//! busy it was (load average before and after, the share of the cores idle just before).
//!
//! A speedup measured on a shared host is lower than the same program's on a quiet one; the
//! description says how shared the host was, so that a reader can tell.

use std::time::Duration;

use serde::Serialize;

/// The load average (processes running or waiting, averaged over 1, 5 and 15 minutes).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LoadAverage {
    /// Over the last minute.
    pub one: f64,
    /// Over five minutes.
    pub five: f64,
    /// Over fifteen minutes.
    pub fifteen: f64,
}

impl LoadAverage {
    /// The host's load average now (`/proc/loadavg`), if it can be read.
    pub fn now() -> Option<Self> {
        Self::parse(&std::fs::read_to_string("/proc/loadavg").ok()?)
    }

    /// The load average in the text of `/proc/loadavg`.
    pub fn parse(text: &str) -> Option<Self> {
        let mut f = text.split_whitespace().map(|s| s.parse::<f64>().ok());
        Some(Self {
            one: f.next()??,
            five: f.next()??,
            fifteen: f.next()??,
        })
    }
}

/// Idle and total CPU time of all cores from the `cpu` line of `/proc/stat` (ticks).
fn cpu_ticks(stat: &str) -> Option<(u64, u64)> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|s| s.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal (guest time is inside user).
    let total: u64 = v.iter().take(8).sum();
    let idle = v.get(3)? + v.get(4).copied().unwrap_or(0);
    Some((idle, total))
}

/// This process's CPU time, user and system, from `/proc/self/stat` (ticks, as `/proc/stat`).
fn own_ticks(stat: &str) -> Option<u64> {
    // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

/// CPU ticks of the whole host (busy, total) and of this process, now.
fn ticks_now() -> Option<(u64, u64, u64)> {
    let (idle, total) = cpu_ticks(&std::fs::read_to_string("/proc/stat").ok()?)?;
    let own = own_ticks(&std::fs::read_to_string("/proc/self/stat").ok()?)?;
    Some((total - idle, total, own))
}

/// The cores that were idle over the next `window`, on average: `cores × idle share` from
/// `/proc/stat` (time stolen by a hypervisor counts as busy). `None` where it cannot be read.
pub fn free_cores(cores: usize, window: Duration) -> Option<f64> {
    let read = || cpu_ticks(&std::fs::read_to_string("/proc/stat").ok()?);
    let (idle0, total0) = read()?;
    std::thread::sleep(window);
    let (idle1, total1) = read()?;
    let total = total1.checked_sub(total0)?;
    (total > 0).then(|| cores as f64 * (idle1.saturating_sub(idle0)) as f64 / total as f64)
}

/// Whether a thread can be pinned to each of the first `cores` usable cores: pinned, a thread
/// may then run on that core alone.
pub fn pinning_works(cores: usize) -> bool {
    let ids = core_affinity::get_core_ids().unwrap_or_default();
    if ids.len() < cores {
        return false;
    }
    ids.into_iter().take(cores).all(|id| {
        std::thread::spawn(move || {
            core_affinity::set_for_current(id)
                && core_affinity::get_core_ids().is_some_and(|now| now == [id])
        })
        .join()
        .unwrap_or(false)
    })
}

/// The host's processor model (`model name` in `/proc/cpuinfo`), or `unknown`.
fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// The cores this process may use.
pub fn usable_cores() -> usize {
    match core_affinity::get_core_ids() {
        Some(ids) if !ids.is_empty() => ids.len(),
        _ => std::thread::available_parallelism().map_or(1, |n| n.get()),
    }
}

/// The host a speedup ran on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Host {
    /// Cores this process may use.
    pub cores: usize,
    /// The processor model.
    pub cpu_model: String,
    /// Whether the runtime's processors can be pinned, one to a core, for the largest P.
    pub pinning: bool,
    /// Load average just before the experiment.
    pub load_before: Option<LoadAverage>,
    /// Load average just after.
    pub load_after: Option<LoadAverage>,
    /// Cores idle, on average, over half a second just before the experiment.
    pub free_cores_before: Option<f64>,
    /// Cores that other processes kept busy, on average, during the experiment: the host's
    /// busy time less this process's, over the elapsed time.
    pub others_cores_during: Option<f64>,
    /// What other processes used since the experiment started.
    #[serde(skip)]
    others: OtherLoad,
}

/// What other processes than this one use of the host's cores from the moment it is started:
/// the host's busy CPU time less this process's (`/proc/stat`, `/proc/self/stat`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct OtherLoad {
    ticks_before: Option<(u64, u64, u64)>,
}

impl OtherLoad {
    /// Starts watching now.
    pub fn start() -> Self {
        Self {
            ticks_before: ticks_now(),
        }
    }

    /// Cores that other processes kept busy, on average, since [`OtherLoad::start`], of
    /// `cores`; `None` where `/proc` cannot be read.
    pub fn cores_busy(&self, cores: usize) -> Option<f64> {
        let (busy0, total0, own0) = self.ticks_before?;
        let (busy1, total1, own1) = ticks_now()?;
        let total = total1.saturating_sub(total0);
        let others = (busy1.saturating_sub(busy0)).saturating_sub(own1.saturating_sub(own0));
        (total > 0).then(|| cores as f64 * others as f64 / total as f64)
    }
}

impl Host {
    /// Describes this host before an experiment whose largest P is `processors`.
    pub fn before(processors: usize) -> Self {
        let cores = usable_cores();
        Self {
            cores,
            cpu_model: cpu_model(),
            pinning: pinning_works(processors.min(cores)),
            load_before: LoadAverage::now(),
            load_after: None,
            free_cores_before: free_cores(cores, Duration::from_millis(500)),
            others_cores_during: None,
            others: OtherLoad::start(),
        }
    }

    /// Adds the load average after the experiment and what other processes used during it.
    pub fn after(mut self) -> Self {
        self.load_after = LoadAverage::now();
        self.others_cores_during = self.others.cores_busy(self.cores);
        self
    }

    /// Whether the host was shared: fewer cores idle before the run than the largest P needs,
    /// or other processes busy during it (each with half a core's slack for the host's own
    /// noise).
    pub fn shared_for(&self, processors: usize) -> bool {
        let before = self
            .free_cores_before
            .is_some_and(|free| free + 0.5 < processors as f64);
        let during = self.others_cores_during.is_some_and(|o| o > 0.5);
        before || during
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_files_are_parsed() {
        let l = LoadAverage::parse("4.93 5.12 4.66 6/124 29442\n").unwrap();
        assert_eq!((l.one, l.five, l.fifteen), (4.93, 5.12, 4.66));
        assert!(LoadAverage::parse("garbage").is_none());
        let stat = "cpu  100 5 20 300 10 0 2 3 0 0\ncpu0 1 2 3 4\n";
        assert_eq!(cpu_ticks(stat), Some((310, 440)));
        assert_eq!(cpu_ticks("intr 1 2"), None);
        // A command with spaces and parentheses; utime 7 and stime 5 are fields 14 and 15.
        let own = "42 (my (odd) cmd) R 1 42 42 0 -1 4194304 100 0 0 0 7 5 0 0 20 0 1 0";
        assert_eq!(own_ticks(own), Some(12));
    }

    #[test]
    fn a_host_is_shared_when_fewer_cores_are_free_than_p() {
        let h = Host {
            cores: 4,
            cpu_model: "test".into(),
            pinning: true,
            load_before: None,
            load_after: None,
            free_cores_before: Some(1.2),
            others_cores_during: Some(0.1),
            others: OtherLoad::default(),
        };
        assert!(!h.shared_for(1));
        assert!(h.shared_for(2));
        let unknown = Host {
            free_cores_before: None,
            others_cores_during: None,
            ..h.clone()
        };
        assert!(!unknown.shared_for(4));
        // Idle before, busy during.
        let busy = Host {
            free_cores_before: Some(4.0),
            others_cores_during: Some(0.9),
            ..h
        };
        assert!(busy.shared_for(1));
    }
}
