//! How the parts of a partitioned virtual-time run talk: once per window, each part hands
//! every other part the effects that crossed a cut link, and all agree on what comes next.
//!
//! A run partitioned into K parts (`--partitions K`, see `engines/parts/`) runs each part's
//! processors under its own sequential scheduler. Every effect that crosses a link — a
//! message, room freed on a full link, a link's closure — becomes visible to the other end at
//! least one lookahead L (the per-hop latency) after it happened, so a part can run the
//! window [T, T + L) on its own and hand its cut-link effects over at the window's end. An
//! [`Exchange`] is that hand-over, with a [`Summary`] from every part from which all parts
//! decide the same next step.
//!
//! Native and dilated runs across ranks (`engines/threads/cut.rs`) need no windows: each
//! rank's proxy thread posts what crosses its cut links as it happens, through a [`Post`].
//!
//! Implementations, one per file, of both:
//!
//! - [`threads`]: the parts are threads of one process; effects move by value;
//! - `mpi` (feature `mpi`): the parts are MPI ranks; effects are serialised.

#[cfg(feature = "mpi")]
pub(crate) mod mpi;
pub(crate) mod threads;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// What a part tells every other part at a window boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub(crate) struct Summary {
    /// A lower bound of this part's next event time, ns: the earliest event in its queue or
    /// the earliest time of an effect it sends in this exchange; `None` if it has neither.
    pub(crate) next_ns: Option<u64>,
    /// The (time, processor) of this part's first failure, if one failed.
    pub(crate) failure: Option<(u64, usize)>,
    /// Every processor of the part has returned.
    pub(crate) finished: bool,
    /// Cut-link effects this part has sent and received since the run began (the sum over
    /// parts of `sent` equals that of `received` after every exchange).
    pub(crate) sent: u64,
    /// See `sent`.
    pub(crate) received: u64,
}

/// Carries cut-link effects between the parts of a run once per window.
///
/// `E` is the engine's cut-link effect (`engines::effect::Effect<M>`); a transport across
/// processes needs `E: Serialize + DeserializeOwned`, the threads transport moves it.
pub(crate) trait Exchange<E> {
    /// This part's index, 0 to `parts() - 1`.
    fn part(&self) -> usize;

    /// The number of parts K.
    fn parts(&self) -> usize;

    /// Sends `outgoing[q]` to part q (`outgoing` has `parts()` entries; this part's own is
    /// empty) and returns what every other part sent to this one, in increasing part order
    /// and, within a part, in the order it sent them; with the summaries of all parts
    /// (index = part). Blocks until every part has called it for this round.
    fn exchange(
        &mut self,
        outgoing: Vec<Vec<E>>,
        summary: Summary,
    ) -> Result<(Vec<E>, Vec<Summary>), TransportError>;
}

/// Carries batches of notes between the ranks of a native or dilated run as they come, in
/// order between any two ranks (the proxies' link, `engines/threads/cut.rs`).
pub(crate) trait Post<T> {
    /// This rank's index, 0 to `ranks() - 1`.
    fn rank(&self) -> usize;

    /// The number of ranks.
    fn ranks(&self) -> usize;

    /// Sends each `(rank, notes)` batch to its rank (never this one).
    fn send(&mut self, batches: Vec<(usize, Vec<T>)>) -> Result<(), TransportError>;

    /// A batch another rank sent, with its rank, if one has come.
    fn try_recv(&mut self) -> Result<Option<(usize, Vec<T>)>, TransportError>;
}

/// Why an exchange could not be completed.
#[derive(Debug, Error, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum TransportError {
    /// Another part stopped taking part in the exchange (its thread ended, its rank died or
    /// did not answer in time).
    #[error("part {part} of the run stopped taking part: {reason}")]
    PartLost {
        /// The part (the MPI rank, over MPI).
        part: usize,
        /// What was seen.
        reason: String,
    },
    /// The transport itself failed.
    #[error("the exchange between parts failed: {0}")]
    Failed(String),
}
