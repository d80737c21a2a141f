//! The tie order of virtual time: processors acting at the same emulated instant act in the
//! order [`TieOrder`] gives, every order a legal execution.

use std::sync::Mutex;
use std::time::Duration;

use multicomputer_runtime::{Machine, MachineConfig, Processor, TieOrder, TimeMode, Topology};

/// The order in which the processors of a 5-processor chain start (all at emulated time 0)
/// and wake from a 1 ms sleep (all at 1 ms), under `ties`.
fn order(ties: TieOrder) -> Vec<usize> {
    let config = MachineConfig {
        mode: TimeMode::Virtual,
        ties,
        ..MachineConfig::default()
    };
    let m = Machine::new(Topology::chain(5).unwrap(), config).unwrap();
    let seen = Mutex::new(Vec::new());
    m.run(|p: &mut Processor<u8>| {
        seen.lock().unwrap().push(p.id());
        p.occupy(Duration::from_millis(1));
        seen.lock().unwrap().push(p.id());
        Ok(())
    })
    .unwrap();
    seen.into_inner().unwrap()
}

#[test]
fn simultaneous_processors_act_in_the_tie_order() {
    assert_eq!(order(TieOrder::Index), [0, 1, 2, 3, 4, 0, 1, 2, 3, 4]);
    assert_eq!(order(TieOrder::Reverse), [4, 3, 2, 1, 0, 4, 3, 2, 1, 0]);
    let shuffled = order(TieOrder::Shuffle(3));
    let ranks = TieOrder::Shuffle(3).ranks(5);
    let mut want: Vec<usize> = (0..5).collect();
    want.sort_by_key(|&p| ranks[p]);
    assert_eq!(shuffled[..5], want[..]);
    assert_eq!(shuffled[5..], want[..]);
}
