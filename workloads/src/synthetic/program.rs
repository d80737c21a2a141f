//! The synthetic program run by every processor.

use multicomputer_runtime::{Processor, ProcessorError};

use super::{Pattern, SyntheticSpec};

/// The program: `rounds` occupations of `occupy`; with [`Pattern::Reduce`], after each round
/// a processor adds its children's values to the round number and sends the sum up. Returns
/// the processor's sum over the rounds.
pub fn program(
    spec: SyntheticSpec,
) -> impl Fn(&mut Processor<u64>) -> Result<u64, ProcessorError> + Sync {
    move |p| {
        let children = p.children().to_vec();
        let mut sum = 0;
        for round in 0..spec.rounds {
            p.occupy(spec.occupy);
            if spec.pattern == Pattern::Reduce {
                let mut s = round;
                for &c in &children {
                    s += p.recv(c)?;
                }
                if let Some(up) = p.parent() {
                    p.send(up, s)?;
                }
                sum += s;
            }
        }
        Ok(sum)
    }
}
