//! The one-way time of a cut link's message between two ranks, as `calibrate` measures it
//! under `mpirun` ([`RankCrossing`](crate::RankCrossing)): `auto` dilation over ranks picks
//! D from it (`clock.rs`, `choose_dilation`).
//!
//! The message goes the way a cut link's does (`cut.rs`): a [`Note::Message`] with an
//! envelope, found by its sender's proxy after a round (a pause of [`PROXY_IDLE`], as an
//! idle proxy takes), posted through the same [`Post`] and serialised as the proxies' notes
//! are, taken by polling as a proxy polls (the same pause whenever nothing has come). Rank 0
//! with each other rank q in turn, `samples` times:
//!
//! 1. **Ping** ([`ping`]): rank 0 pauses, posts q the note and waits for it to come back.
//! 2. **Echo** ([`echo`]): rank q, polling the same way, pauses and posts each note back.
//! 3. **Halve**: half of each round trip is one sample (on rank 0; the others keep none):
//!    one crossing, from a sender's proxy round to the receiver's proxy taking it.

use std::time::{Duration, Instant};

use super::cut::{Note, recv_by};
use crate::link::Envelope;
use crate::transport::{Post, TransportError};
use crate::tuning::PROXY_IDLE;

/// What the ranks are doing, for a rank that does not answer.
const MEASURING: &str = "the ranks measured their one-way time";

/// The note that crosses: a cut link's message with a `u64` payload, numbered `n`.
pub(crate) fn message(n: u64) -> Note<u64> {
    Note::Message {
        link: 0,
        envelope: Envelope {
            payload: n,
            from: 0,
            sent_ns: n,
            arrive_ns: n,
            bytes: 8,
            seq: n,
        },
    }
}

/// Polls as a proxy does: a pause whenever nothing has come.
fn idle() {
    std::thread::sleep(PROXY_IDLE);
}

/// Step 1, rank 0: `samples` round trips with rank `q`, each halved (ns).
fn ping<P: Post<Note<u64>>>(
    post: &mut P,
    q: usize,
    samples: usize,
    timeout: Duration,
) -> Result<Vec<f64>, TransportError> {
    let mut one_way = Vec::with_capacity(samples);
    for n in 0..samples as u64 {
        let sent = Instant::now();
        idle();
        post.send(vec![(q, vec![message(n)])])?;
        let deadline = sent + timeout;
        'answer: loop {
            let (from, notes) = recv_by(post, deadline, (q, MEASURING), idle)?;
            for note in notes {
                if let (true, Note::Message { envelope, .. }) = (from == q, note) {
                    if envelope.payload == n {
                        break 'answer;
                    }
                }
            }
        }
        one_way.push(sent.elapsed().as_nanos() as f64 / 2.0);
    }
    Ok(one_way)
}

/// Step 2, rank q > 0: posts each of rank 0's `samples` notes back, a proxy round later.
fn echo<P: Post<Note<u64>>>(
    post: &mut P,
    samples: usize,
    timeout: Duration,
) -> Result<(), TransportError> {
    let mut echoed = 0;
    let mut deadline = Instant::now() + timeout;
    while echoed < samples {
        let (from, notes) = recv_by(post, deadline, (0, MEASURING), idle)?;
        let back: Vec<_> = notes
            .into_iter()
            .filter(|n| matches!(n, Note::Message { .. }))
            .collect();
        echoed += back.len();
        if !back.is_empty() {
            idle();
            post.send(vec![(from, back)])?;
        }
        deadline = Instant::now() + timeout;
    }
    Ok(())
}

/// Steps 1 to 3: on rank 0 the one-way samples (ns) with every other rank in turn, on the
/// others none. Rank q waits its turn for up to `timeout` per rank before it (a rank that
/// does not answer in `timeout` is named lost).
pub(crate) fn one_way_samples<P: Post<Note<u64>>>(
    post: &mut P,
    samples: usize,
    timeout: Duration,
) -> Result<Vec<f64>, TransportError> {
    let (me, ranks) = (post.rank(), post.ranks());
    if me != 0 {
        let turn = timeout.saturating_mul(me as u32);
        echo(post, samples, turn)?;
        return Ok(Vec::new());
    }
    let mut all = Vec::with_capacity(samples * ranks.saturating_sub(1));
    for q in 1..ranks {
        all.extend(ping(post, q, samples, timeout)?);
    }
    Ok(all)
}

/// The serialised size of the note that crosses, bytes (as the post sends it: a batch of
/// one).
pub(crate) fn note_bytes() -> u64 {
    serde_json::to_vec(&vec![message(u64::MAX / 2)]).map_or(0, |b| b.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::threads::post;

    #[test]
    fn rank_0_times_a_round_trip_with_every_other_rank() {
        // Three ranks as threads: rank 0 gets 2 × 5 samples, the others none, and nobody
        // is named lost.
        let ends = post::<Note<u64>>(3);
        let timeout = Duration::from_secs(30);
        let got: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = ends
                .into_iter()
                .map(|mut end| s.spawn(move || one_way_samples(&mut end, 5, timeout)))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let got: Vec<_> = got.into_iter().map(Result::unwrap).collect();
        assert_eq!(got[0].len(), 10);
        assert!(got[0].iter().all(|&ns| ns > 0.0), "{:?}", got[0]);
        assert!(got[1].is_empty() && got[2].is_empty());
        assert!(note_bytes() > 8);
    }

    #[test]
    fn a_rank_that_never_echoes_is_named() {
        // Rank 1 holds its end but never answers: rank 0 names it after the timeout.
        let mut ends = post::<Note<u64>>(2);
        let _silent = ends.pop();
        let mut zero = ends.pop().unwrap();
        let err = one_way_samples(&mut zero, 3, Duration::from_millis(50)).unwrap_err();
        assert!(
            matches!(err, TransportError::PartLost { part: 1, .. }),
            "{err}"
        );
    }
}
