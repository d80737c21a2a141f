//! The host's limits on how many processors it can hold, checked before any run starts.
//!
//! An emulated processor costs the kernel something in every time mode:
//!
//! - **native and dilated** time: an OS thread each, which takes a thread id (bounded by
//!   `kernel.pid_max` and `kernel.threads-max`) and [`MAPS_PER_THREAD`] entries of the
//!   process's memory-map table (its stack and guard page, its signal stack and guard page);
//! - **virtual** time: a coroutine stack each, [`MAPS_PER_COROUTINE`] map entries (the stack
//!   and its guard page), and some resident memory ([`RESIDENT_BYTES_PER_COROUTINE`]).
//!
//! The map table is bounded by `vm.max_map_count` (65 530 by default). Past it, thread
//! creation or `mmap` fails deep inside the run (for threads, with an abort); so a machine is
//! refused up front with [`ConfigError::HostLimit`], naming the limit and the fix. As root the
//! limit can be raised for the session: `sysctl -w vm.max_map_count=262144`.

use serde::Serialize;

use crate::error::ConfigError;

/// Memory-map entries one OS thread takes: stack, its guard page, signal stack, its guard.
pub const MAPS_PER_THREAD: u64 = 4;

/// Memory-map entries one virtual-time processor takes: its stack and its guard page.
pub const MAPS_PER_COROUTINE: u64 = 2;

/// Map entries kept free for the allocator, libraries and the rest of the program.
pub const MAP_HEADROOM: u64 = 2_048;

/// Threads kept free for the rest of the system.
pub(crate) const THREAD_HEADROOM: u64 = 256;

/// Resident memory a virtual-time processor takes, besides what its program allocates: the
/// touched pages of its stack, its coroutine and its share of the scheduler: 6.5 KiB
/// measured with 10⁴ and 10⁶ processors (`emulate`, release build), 6.7–10.8 KiB on the farm
/// engine (issue 21), 11.6 KiB in a debug build; a program with deep recursion or large
/// locals touches more.
pub const RESIDENT_BYTES_PER_COROUTINE: u64 = 10 * 1024;

/// The most processors native or dilated time starts (one OS thread each).
pub const MAX_THREADS: usize = 16_384;

/// What this host allows, read from `/proc` (a value that cannot be read is `None` and not
/// checked).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HostLimits {
    /// `vm.max_map_count`: memory-map entries a process may have.
    pub max_map_count: Option<u64>,
    /// Map entries this process has now.
    pub maps_in_use: Option<u64>,
    /// `kernel.threads-max`.
    pub threads_max: Option<u64>,
    /// `kernel.pid_max` (threads take ids from the same space).
    pub pid_max: Option<u64>,
    /// Threads on the whole system now.
    pub threads_in_use: Option<u64>,
    /// `MemAvailable`, bytes.
    pub memory_available: Option<u64>,
}

fn read_u64(path: &str) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

impl HostLimits {
    /// Reads the limits of this host now.
    pub fn read() -> Self {
        let maps_in_use = std::fs::read_to_string("/proc/self/maps")
            .ok()
            .map(|s| s.lines().count() as u64);
        // /proc/loadavg's fourth field is "running/total" scheduling entities (threads).
        let threads_in_use = std::fs::read_to_string("/proc/loadavg").ok().and_then(|s| {
            let field = s.split_whitespace().nth(3)?;
            field.split_once('/')?.1.parse().ok()
        });
        let memory_available = std::fs::read_to_string("/proc/meminfo").ok().and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("MemAvailable:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib * 1024)
        });
        Self {
            max_map_count: read_u64("/proc/sys/vm/max_map_count"),
            maps_in_use,
            threads_max: read_u64("/proc/sys/kernel/threads-max"),
            pid_max: read_u64("/proc/sys/kernel/pid_max"),
            threads_in_use,
            memory_available,
        }
    }

    /// Limits that allow anything (for tests of the checks).
    pub fn unlimited() -> Self {
        Self {
            max_map_count: None,
            maps_in_use: None,
            threads_max: None,
            pid_max: None,
            threads_in_use: None,
            memory_available: None,
        }
    }

    fn check_maps(
        &self,
        processors: usize,
        mode: &'static str,
        per_processor: u64,
    ) -> Result<(), ConfigError> {
        let Some(limit) = self.max_map_count else {
            return Ok(());
        };
        let in_use = self.maps_in_use.unwrap_or(0);
        let needed = (processors as u64).saturating_mul(per_processor);
        if needed.saturating_add(in_use).saturating_add(MAP_HEADROOM) <= limit {
            return Ok(());
        }
        let suggest = needed
            .saturating_add(in_use)
            .saturating_add(MAP_HEADROOM)
            .next_power_of_two();
        let alternative = if per_processor > MAPS_PER_COROUTINE {
            "use virtual time (--mode virtual: 2 maps a processor), or "
        } else {
            ""
        };
        Err(ConfigError::HostLimit {
            processors,
            mode,
            what: "memory maps",
            needed,
            limit_name: "vm.max_map_count",
            limit,
            in_use,
            fix: format!(
                "{needed} for the processors + {in_use} in use + {MAP_HEADROOM} kept free for \
                 the allocator and libraries = {} in all; {alternative}raise the limit as root \
                 for this boot (`sysctl -w vm.max_map_count={suggest}`, and back with \
                 `sysctl -w vm.max_map_count={limit}`), or use fewer processors",
                needed.saturating_add(in_use).saturating_add(MAP_HEADROOM)
            ),
        })
    }

    /// Whether `processors` OS threads can be started (native and dilated time).
    pub fn check_threads(&self, processors: usize, mode: &'static str) -> Result<(), ConfigError> {
        if processors > MAX_THREADS {
            return Err(ConfigError::TooManyThreads {
                processors,
                mode,
                max: MAX_THREADS,
            });
        }
        self.check_maps(processors, mode, MAPS_PER_THREAD)?;
        let limit = match (self.threads_max, self.pid_max) {
            (Some(a), Some(b)) => Some((
                a.min(b),
                if a <= b {
                    "kernel.threads-max"
                } else {
                    "kernel.pid_max"
                },
            )),
            (Some(a), None) => Some((a, "kernel.threads-max")),
            (None, Some(b)) => Some((b, "kernel.pid_max")),
            (None, None) => None,
        };
        if let Some((limit, limit_name)) = limit {
            let in_use = self.threads_in_use.unwrap_or(0);
            let needed = processors as u64;
            if needed
                .saturating_add(in_use)
                .saturating_add(THREAD_HEADROOM)
                > limit
            {
                return Err(ConfigError::HostLimit {
                    processors,
                    mode,
                    what: "threads",
                    needed,
                    limit_name,
                    limit,
                    in_use,
                    fix: "use virtual time (--mode virtual: one thread in all), or fewer \
                          processors"
                        .into(),
                });
            }
        }
        Ok(())
    }

    /// Whether `processors` coroutines with stacks of `stack_bytes` fit (virtual time).
    pub fn check_coroutines(
        &self,
        processors: usize,
        stack_bytes: usize,
    ) -> Result<(), ConfigError> {
        self.check_maps(processors, "virtual", MAPS_PER_COROUTINE)?;
        // Address space: stacks are reserved whole (47 bits of user space; keep half free).
        let reserved = (processors as u64).saturating_mul(stack_bytes as u64 + 4096);
        let space = 1u64 << 46;
        if reserved > space {
            return Err(ConfigError::HostLimit {
                processors,
                mode: "virtual",
                what: "MiB of address space for stacks",
                needed: reserved >> 20,
                limit_name: "the address space",
                limit: space >> 20,
                in_use: 0,
                fix: "give each processor a smaller stack (--stack-size), or use fewer \
                      processors"
                    .into(),
            });
        }
        if let Some(available) = self.memory_available {
            let needed = (processors as u64).saturating_mul(RESIDENT_BYTES_PER_COROUTINE);
            if needed > available {
                return Err(ConfigError::HostLimit {
                    processors,
                    mode: "virtual",
                    what: "MiB of memory",
                    needed: needed >> 20,
                    limit_name: "MemAvailable",
                    limit: available >> 20,
                    in_use: 0,
                    fix: "use fewer processors, or free memory".into(),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(max_map_count: u64, maps_in_use: u64) -> HostLimits {
        HostLimits {
            max_map_count: Some(max_map_count),
            maps_in_use: Some(maps_in_use),
            threads_max: Some(192_731),
            pid_max: Some(32_768),
            threads_in_use: Some(200),
            memory_available: Some(20 << 30),
        }
    }

    #[test]
    fn threads_need_four_maps_each_and_a_thread_id() {
        let h = host(65_530, 100);
        // (65 530 − 100 − 2 048) / 4 = 15 845 threads fit the map table.
        assert!(h.check_threads(15_845, "dilated").is_ok());
        let err = h.check_threads(15_846, "dilated").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("vm.max_map_count"), "{text}");
        assert!(text.contains("--mode virtual"), "{text}");
        assert!(text.contains("sysctl -w vm.max_map_count="), "{text}");
        // The numbers add up: 15 846 × 4 + 100 in use + 2 048 kept free.
        assert!(
            text.contains("63384 for the processors + 100 in use + 2048 kept free")
                && text.contains("= 65532 in all"),
            "{text}"
        );
        // Past MAX_THREADS whatever the kernel allows.
        let big = host(10_000_000, 100);
        assert!(matches!(
            big.check_threads(MAX_THREADS + 1, "native"),
            Err(ConfigError::TooManyThreads { .. })
        ));
        // A small pid space: 32 768 − 200 − 256 ids left.
        let pids = HostLimits {
            pid_max: Some(4_096),
            ..big
        };
        let err = pids.check_threads(4_000, "dilated").unwrap_err();
        assert!(err.to_string().contains("kernel.pid_max"), "{err}");
    }

    #[test]
    fn coroutines_need_two_maps_each_so_thirty_thousand_fit_the_default() {
        let h = host(65_530, 200);
        assert!(h.check_coroutines(30_000, 256 * 1024).is_ok());
        let err = h.check_coroutines(131_071, 256 * 1024).unwrap_err();
        assert!(
            matches!(
                err,
                ConfigError::HostLimit {
                    needed: 262_142,
                    limit_name: "vm.max_map_count",
                    ..
                }
            ),
            "{err}"
        );
        let raised = host(1 << 20, 200);
        assert!(raised.check_coroutines(131_071, 256 * 1024).is_ok());
        // Memory: 10 KiB a processor against 1 GiB available (104 857 fit).
        let small = HostLimits {
            memory_available: Some(1 << 30),
            ..raised.clone()
        };
        assert!(small.check_coroutines(104_857, 64 * 1024).is_ok());
        assert!(small.check_coroutines(104_858, 64 * 1024).is_err());
        // 10⁶ processors fit a 24 GiB host once the map limit is raised.
        let host24 = HostLimits {
            max_map_count: Some(4 << 20),
            memory_available: Some(22 << 30),
            ..raised
        };
        assert!(host24.check_coroutines(1_000_000, 256 * 1024).is_ok());
    }

    #[test]
    fn unknown_limits_are_not_checked() {
        let h = HostLimits::unlimited();
        assert!(h.check_coroutines(1_000_000, 64 * 1024).is_ok());
        assert!(h.check_threads(MAX_THREADS, "dilated").is_ok());
    }

    #[test]
    fn this_host_can_be_read() {
        let h = HostLimits::read();
        // Linux always has these.
        assert!(h.max_map_count.is_some_and(|m| m > 0));
        assert!(h.maps_in_use.is_some_and(|m| m > 0));
    }
}
