//! Helpers shared by the runtime's integration tests.

use std::time::Duration;

use multicomputer_runtime::{Processor, ProcessorError};

/// `n` microseconds.
pub(crate) fn us(n: u64) -> Duration {
    Duration::from_micros(n)
}

/// Every processor sends the sum of its subtree's ids to its parent; the root's result is
/// the sum of all ids.
pub(crate) fn subtree_sum(p: &mut Processor<u64>) -> Result<u64, ProcessorError> {
    let mut sum = p.id() as u64;
    for &c in p.children().to_vec().iter() {
        sum += p.recv(c)?;
    }
    if let Some(up) = p.parent() {
        p.send(up, sum)?;
    }
    Ok(sum)
}
