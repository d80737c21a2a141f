//! No thread outlives its run, whether it ends well or badly (its own process: the count of
//! this process's threads is not disturbed by other tests).

use multicomputer_runtime::{LinkCost, Machine, MachineConfig, TimeMode, Topology, WaitStrategy};

fn threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .map(|d| d.count())
        .unwrap_or(0)
}

#[test]
fn every_thread_is_joined_after_success_panic_and_deadlock() {
    let config = MachineConfig {
        mode: TimeMode::Dilated(1.0),
        wait: WaitStrategy::Sleep,
        link: LinkCost::default(),
        ..MachineConfig::default()
    };
    let machine = Machine::new(Topology::kary_tree(2, 5).unwrap(), config).unwrap();
    let before = threads();
    machine
        .run(|p: &mut multicomputer_runtime::Processor<u64>| Ok(p.id()))
        .unwrap();
    assert_eq!(threads(), before);
    machine
        .run(|p| -> Result<(), _> {
            if p.id() == 5 {
                panic!("boom");
            }
            p.recv_any().map(|_: (_, u64)| ())
        })
        .unwrap_err();
    assert_eq!(threads(), before);
    machine
        .run(|p| p.recv_any().map(|(_, m): (_, u64)| m))
        .unwrap_err();
    assert_eq!(threads(), before);
}
