//! A test program for CI's MPI stage (`.ci/run`), not an example to copy: one rank goes
//! silent, and the others must name it and end the job within `MULTICOMPUTER_MPI_TIMEOUT`.
//!
//! `mpirun -np K silent_rank virtual|dilated`: a chain of K processors, one a rank, each
//! passing a number to the next. The last rank's processor blocks for ever outside the
//! exchange before it receives: in virtual time its part's scheduler never reaches the next
//! window; in dilated time the whole rank stops (SIGSTOP, as a frozen host would), its
//! cut-link proxy with it. Every other rank must say that the last rank died or hangs, and
//! the job ends with exit code 3.

use std::num::NonZeroUsize;
use std::time::Duration;

use multicomputer_runtime::{
    LinkCost, Machine, MachineConfig, Processor, Ranks, TimeMode, Topology,
};

fn main() {
    let Some(ranks) = Ranks::initialize() else {
        eprintln!("error: MPI was initialised twice");
        std::process::exit(1);
    };
    let (me, k) = (ranks.rank(), ranks.size());
    let mode = match std::env::args().nth(1).as_deref() {
        Some("virtual") => TimeMode::Virtual,
        Some("dilated") => TimeMode::Dilated(1.0),
        _ => {
            eprintln!("usage: mpirun -np K silent_rank virtual|dilated");
            std::process::exit(2);
        }
    };
    let config = MachineConfig {
        mode,
        link: LinkCost {
            latency: Duration::from_micros(50),
            ..LinkCost::default()
        },
        partitions: NonZeroUsize::new(k),
        ..MachineConfig::default()
    };
    let topology = Topology::chain(k).expect("a chain of K processors");
    let machine = Machine::new(topology, config).expect("a machine one processor a rank");
    let silent = me + 1 == k;
    let run = machine.run(|p: &mut Processor<u64>| {
        let mut got = 0;
        if p.id() > 0 {
            if silent {
                hang(mode);
            }
            got = p.recv(p.links()[0])?;
        }
        if p.id() + 1 < k {
            let next = *p.links().last().expect("a next processor");
            p.send(next, got + 1)?;
        }
        Ok(got)
    });
    match run {
        Ok(_) => {
            eprintln!(
                "error: rank {me}: the run completed with rank {} silent",
                k - 1
            );
            std::process::exit(1);
        }
        Err(e) => {
            eprintln!("error: rank {me}: {e}");
            if ranks.lost_a_rank() {
                ranks.abort(3);
            }
            std::process::exit(1);
        }
    }
}

/// Blocks for ever: the processor's thread (virtual time: the part's scheduler), or the
/// whole rank (dilated time: the proxy would otherwise go on answering for it).
fn hang(mode: TimeMode) -> ! {
    if mode != TimeMode::Virtual {
        // SAFETY: raise sends a signal to this process; SIGSTOP stops it until killed.
        unsafe {
            libc::raise(libc::SIGSTOP);
        }
    }
    loop {
        std::thread::sleep(Duration::from_secs(1));
    }
}
