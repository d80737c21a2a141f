//! Helpers shared by the runtime's integration tests.

use std::time::Duration;

use multicomputer_runtime::{Processor, ProcessorError};

/// One test per engine, named after it as tokio's `rt_test!` names its runtimes: `NAME::threads`
/// (OS threads, dilated time at D = 1) and `NAME::sim` (the discrete-event scheduler, virtual
/// time), so that a failure says which engine broke. The body gets the time mode as `$mode`.
#[allow(unused_macros)]
macro_rules! per_engine {
    ($(#[$meta:meta])* fn $name:ident($mode:ident) $body:block) => {
        $(#[$meta])*
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            #[test]
            fn threads() {
                let $mode = multicomputer_runtime::TimeMode::Dilated(1.0);
                $body
            }

            #[test]
            fn sim() {
                let $mode = multicomputer_runtime::TimeMode::Virtual;
                $body
            }
        }
    };
}

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
