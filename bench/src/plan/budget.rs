//! The memory a run will need, estimated before anything is allocated: task vectors, keys,
//! streams, lattices, samples and the links' buffers. A run that would need more than
//! [`MEMORY_SHARE`] of the memory available now is refused, naming the flag whose value
//! takes the most.

use multicomputer_runtime::HostLimits;

use super::ArgError;
use crate::args::MEMORY_SHARE;
use crate::units::human_bytes;

/// Bytes one buffered message takes in a thread link's channel (a crossbeam array slot:
/// the message, its arrival stamp and the slot's own stamp), rounded up.
pub(crate) const SLOT_BYTES: f64 = 128.0;

/// Bytes per task of the farm's and divide and conquer's task and result vectors (task
/// times, packets, results, keys of the results), rounded up.
pub(crate) const TASK_BYTES: f64 = 64.0;

/// What a run will allocate, part by part, each with the flag that sets it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Footprint {
    parts: Vec<Part>,
}

#[derive(Debug, Clone)]
struct Part {
    flag: String,
    what: String,
    bytes: f64,
}

/// The memory available now (`MemAvailable`), bytes, if it can be read.
pub(crate) fn available_memory() -> Option<u64> {
    HostLimits::read().memory_available
}

impl Footprint {
    /// Nothing yet.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Adds `bytes` that `flag` sets, described by `what` (e.g. `4 lattices of 10000³
    /// spins`).
    pub(crate) fn add(&mut self, flag: &str, what: impl Into<String>, bytes: f64) -> &mut Self {
        self.parts.push(Part {
            flag: flag.to_string(),
            what: what.into(),
            bytes,
        });
        self
    }

    /// The total, bytes.
    pub(crate) fn bytes(&self) -> f64 {
        self.parts.iter().map(|p| p.bytes).sum()
    }

    /// Checks the total against the memory available now.
    pub(crate) fn check(&self) -> Result<(), ArgError> {
        self.check_against(available_memory())
    }

    /// Checks the total against `available` bytes (unknown: not checked).
    pub(crate) fn check_against(&self, available: Option<u64>) -> Result<(), ArgError> {
        let Some(available) = available else {
            return Ok(());
        };
        let total = self.bytes();
        let allowed = available as f64 * MEMORY_SHARE;
        if total <= allowed {
            return Ok(());
        }
        let Some(largest) = self.parts.iter().max_by(|a, b| a.bytes.total_cmp(&b.bytes)) else {
            return Ok(());
        };
        Err(ArgError::new(
            &largest.flag,
            format!(
                "the run would need about {} of memory ({}: {}), more than {:.0} % of the {} \
                 available now; give a smaller value",
                human_bytes(total),
                largest.what,
                human_bytes(largest.bytes),
                MEMORY_SHARE * 100.0,
                human_bytes(available as f64)
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_part_names_the_flag() {
        let mut f = Footprint::new();
        f.add("--tasks", "task vectors", 1e6)
            .add("--size", "lattices", 1e12);
        assert_eq!(f.bytes(), 1e12 + 1e6);
        let e = f.check_against(Some(16 << 30)).unwrap_err();
        assert_eq!(e.flag, "--size");
        assert!(e.message.contains("about 931.3 GiB"), "{e}");
        assert!(e.message.contains("lattices: 931.3 GiB"), "{e}");
        assert!(e.message.contains("16.0 GiB available"), "{e}");
        assert!(f.check_against(Some(2 << 40)).is_ok());
        assert!(f.check_against(None).is_ok());
        let mut inf = Footprint::new();
        inf.add("--keys", "keys", f64::INFINITY);
        assert_eq!(inf.check_against(Some(1 << 30)).unwrap_err().flag, "--keys");
    }
}
