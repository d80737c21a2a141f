//! The host a speedup was measured on: its cores and processor, whether pinning works, and how
//! busy other work kept it (load average before and after, the cores free of other work just
//! before, the cores other work kept busy during).
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

/// A process's CPU time, user and system, from its `/proc/<pid>/stat` (ticks, as
/// `/proc/stat`).
fn own_ticks(stat: &str) -> Option<u64> {
    // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

/// CPU time of the whole host and of this job at one moment (ticks of `/proc/stat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Ticks {
    /// Busy time of all the host's CPUs together.
    pub(crate) busy: u64,
    /// Busy and idle time of all the host's CPUs together.
    pub(crate) total: u64,
    /// CPU time of this job's processes on this host: this process, or every MPI rank on the
    /// host ([`multicomputer_runtime::job_processes`]).
    pub(crate) job: u64,
}

impl Ticks {
    /// Now; `None` where `/proc` cannot be read. A rank of the job whose `/proc` entry
    /// cannot be read counts nothing.
    pub(crate) fn now() -> Option<Self> {
        let (idle, total) = cpu_ticks(&std::fs::read_to_string("/proc/stat").ok()?)?;
        let job = multicomputer_runtime::job_processes()
            .into_iter()
            .filter_map(|pid| {
                own_ticks(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
            })
            .sum();
        Some(Self {
            busy: total - idle,
            total,
            job,
        })
    }

    /// The cores, of the host's `cpus`, that processes other than this job's kept busy on
    /// average from `before` to `self`: the host's busy time less the job's, over the
    /// host's whole time (all its CPUs); `None` when no time passed.
    pub(crate) fn others_cores_since(&self, before: &Ticks, cpus: usize) -> Option<f64> {
        let total = self.total.saturating_sub(before.total);
        let busy = self.busy.saturating_sub(before.busy);
        let others = busy.saturating_sub(self.job.saturating_sub(before.job));
        (total > 0).then(|| cpus as f64 * others as f64 / total as f64)
    }
}

/// The host's cores that were free for this job over the next `window`, on average: its
/// CPUs ([`multicomputer_runtime::host_cpus`]) less those other processes kept busy (time
/// stolen by a hypervisor counts as busy; this job's own ranks' time as free). `None` where
/// `/proc` cannot be read.
pub fn free_cores(window: Duration) -> Option<f64> {
    let cpus = multicomputer_runtime::host_cpus();
    let before = Ticks::now()?;
    std::thread::sleep(window);
    let others = Ticks::now()?.others_cores_since(&before, cpus)?;
    Some(cpus as f64 - others)
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
    /// The host's CPUs, whatever this process is bound to (an MPI rank is bound to its own):
    /// what the idle and busy cores below are counted of.
    pub cpus: usize,
    /// The processor model.
    pub cpu_model: String,
    /// Whether the runtime's processors can be pinned, one to a core, for the largest P.
    pub pinning: bool,
    /// Load average just before the experiment.
    pub load_before: Option<LoadAverage>,
    /// Load average just after.
    pub load_after: Option<LoadAverage>,
    /// The host's cores free for this job, on average, over half a second just before the
    /// experiment ([`free_cores`]).
    pub free_cores_before: Option<f64>,
    /// Cores that other processes kept busy, on average, during the experiment: the host's
    /// busy time less this job's (its MPI ranks on this host, or this process), over the
    /// elapsed time.
    pub others_cores_during: Option<f64>,
    /// What other processes used since the experiment started.
    #[serde(skip)]
    others: OtherLoad,
}

/// What processes other than this job's use of the host's CPUs from the moment it is
/// started: the host's busy CPU time less the job's (`/proc/stat`, and `/proc/<pid>/stat` of
/// this process or, under `mpirun`, of every rank on this host).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct OtherLoad {
    ticks_before: Option<Ticks>,
    cpus: usize,
}

impl OtherLoad {
    /// Starts watching now.
    pub fn start() -> Self {
        Self {
            ticks_before: Ticks::now(),
            cpus: multicomputer_runtime::host_cpus(),
        }
    }

    /// The host's CPUs, which [`OtherLoad::cores_busy`] counts of.
    pub fn cpus(&self) -> usize {
        self.cpus
    }

    /// Cores that other processes kept busy, on average, since [`OtherLoad::start`], of
    /// the host's [`cpus`](OtherLoad::cpus); `None` where `/proc` cannot be read.
    pub fn cores_busy(&self) -> Option<f64> {
        Ticks::now()?.others_cores_since(self.ticks_before.as_ref()?, self.cpus)
    }
}

impl Host {
    /// Describes this host before an experiment whose largest P is `processors`.
    pub fn before(processors: usize) -> Self {
        let cores = usable_cores();
        Self {
            cores,
            cpus: multicomputer_runtime::host_cpus(),
            cpu_model: cpu_model(),
            pinning: pinning_works(processors.min(cores)),
            load_before: LoadAverage::now(),
            load_after: None,
            free_cores_before: free_cores(Duration::from_millis(500)),
            others_cores_during: None,
            others: OtherLoad::start(),
        }
    }

    /// Adds the load average after the experiment and what other processes used during it.
    pub fn after(mut self) -> Self {
        self.load_after = LoadAverage::now();
        self.others_cores_during = self.others.cores_busy();
        self
    }

    /// Whether the host was shared: fewer of its cores free before the run than the largest
    /// P needs, or other processes busy during it (each with half a core's slack for the
    /// host's own noise).
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
    fn other_work_is_the_hosts_busy_time_less_the_jobs_over_all_its_cpus() {
        // Two CPUs, 100 ticks each over the run: 200 ticks of the host's time.
        let before = Ticks {
            busy: 1_000,
            total: 10_000,
            job: 50,
        };
        // A quiet host and two ranks of this job, each busy 95 ticks: 196 busy in all, 190
        // of them the job's; 6 ticks of other work are 2 × 6 / 200 = 0.06 cores.
        let quiet = Ticks {
            busy: 1_196,
            total: 10_200,
            job: 240,
        };
        let others = quiet.others_cores_since(&before, 2).unwrap();
        assert!((others - 0.06).abs() < 1e-12, "{others}");
        // A competitor beside them: the host all busy (200), the ranks 60 ticks each (120),
        // so other work kept 2 × 80 / 200 = 0.8 cores busy.
        let shared = Ticks {
            busy: 1_200,
            total: 10_200,
            job: 170,
        };
        let others = shared.others_cores_since(&before, 2).unwrap();
        assert!((others - 0.8).abs() < 1e-12, "{others}");
        // The job's time is never more than the host's busy time, whatever the readings'
        // order; no time passed, nothing measured.
        let odd = Ticks {
            job: 10_000,
            ..quiet
        };
        assert_eq!(odd.others_cores_since(&before, 2), Some(0.0));
        assert_eq!(before.others_cores_since(&before, 2), None);
    }

    #[test]
    fn a_host_is_shared_when_fewer_cores_are_free_than_p() {
        let h = Host {
            cores: 4,
            cpus: 4,
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
