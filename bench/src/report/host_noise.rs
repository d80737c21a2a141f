//! Whether other processes disturbed a measurement in real time, and what to do about it
//! (issue 22: every command that times real execution warns when the host was busy).
//!
//! A run touches the host's clock when it runs natively or dilated, or in virtual time with
//! measured compute charging; a virtual-time run with model charging owes nothing to the host
//! and never gets this warning.

use multicomputer_runtime::{ComputeCharge, RunSpec};
use multicomputer_workloads::speedup::OtherLoad;

/// Cores other processes may keep busy before a measurement is called disturbed: half a core,
/// the slack `speedup` allows for the host's own noise.
const BUSY_CORES: f64 = 0.5;

/// Whether a run that ran as `ran` timed anything on the host.
pub(crate) fn times_the_host(ran: &RunSpec) -> bool {
    !ran.time.is_virtual() || ran.charging.charge() == ComputeCharge::Measured
}

/// The warning for `others` of `cores` kept busy by other processes during `what`, if more than
/// [`BUSY_CORES`]; `virtual_hint` adds that virtual time does not depend on the host.
pub(crate) fn busy_host(
    others: Option<f64>,
    cores: usize,
    what: &str,
    virtual_hint: bool,
) -> Option<String> {
    let others = others.filter(|o| *o > BUSY_CORES)?;
    Some(format!(
        "other processes kept {others:.1} of the {cores} cores busy on average during {what}: \
         its times shared the host, so they are longer and noisier than a quiet host's. Rerun \
         on an idle host (stop builds and other jobs){}",
        if virtual_hint {
            ", or run in virtual time (--mode virtual), whose emulated times do not depend on \
             the host"
        } else {
            ""
        }
    ))
}

/// The busy-host warning for a run that ran as `ran`, watched by `watch` since it started;
/// none where the run timed nothing on the host.
pub(crate) fn run_warning(ran: &RunSpec, watch: &OtherLoad, cores: usize) -> Option<String> {
    if !times_the_host(ran) {
        return None;
    }
    busy_host(
        watch.cores_busy(cores),
        cores,
        "the run",
        !ran.time.is_virtual(),
    )
}

#[cfg(test)]
mod tests {
    use multicomputer_runtime::{MachineConfig, TimeMode};

    use super::*;

    fn ran(mode: TimeMode, compute: Option<ComputeCharge>) -> RunSpec {
        MachineConfig {
            mode,
            compute,
            ..MachineConfig::default()
        }
        .resolve(&"chain:2".parse().unwrap())
        .unwrap()
    }

    #[test]
    fn only_runs_that_time_the_host_can_be_disturbed() {
        assert!(times_the_host(&ran(TimeMode::Native, None)));
        assert!(times_the_host(&ran(TimeMode::Dilated(2.0), None)));
        let measured = ran(TimeMode::Virtual, Some(ComputeCharge::Measured));
        assert!(times_the_host(&measured));
        // Virtual time with model charging: never a busy-host warning, however busy.
        let model = ran(TimeMode::Virtual, Some(ComputeCharge::Model));
        assert!(!times_the_host(&model));
        assert_eq!(run_warning(&model, &OtherLoad::start(), 2), None);
    }

    #[test]
    fn a_busy_host_is_warned_about_and_a_quiet_one_is_not() {
        let w = busy_host(Some(1.3), 2, "the run", true).unwrap();
        assert!(w.contains("1.3 of the 2 cores"), "{w}");
        assert!(w.contains("--mode virtual"), "{w}");
        assert!(
            !busy_host(Some(1.3), 2, "calibration", false)
                .unwrap()
                .contains("virtual")
        );
        assert_eq!(busy_host(Some(0.4), 2, "the run", true), None);
        assert_eq!(busy_host(None, 2, "the run", true), None);
    }
}
