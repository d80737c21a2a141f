//! The spill file of a traced run: one unnamed temporary file (gone when the last handle
//! closes, so a killed run leaves nothing behind) into which every processor's full trace
//! buffer is appended as one chunk.
//!
//! A chunk is a header (the offset of the next chunk of the same stream, 0 until there is
//! one, then the body's length) and the body, the records as the recorder encoded them. The
//! chunks of one stream (one processor's events, messages or flow starts) are linked forward:
//! appending a chunk writes its offset into the previous chunk's header. So a reader needs
//! only each stream's first offset, whatever the run's length.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

use parking_lot::Mutex;

/// Bytes of a chunk's header: the next chunk's offset (u64), then the body's length (u32).
const HEADER_BYTES: u64 = 12;

/// The spill file of one run, shared by its processors.
#[derive(Debug)]
pub(crate) struct Spill {
    file: File,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    /// Where the next chunk goes.
    end: u64,
    /// The first write that failed (later chunks are dropped; the trace's reader reports it).
    error: Option<(io::ErrorKind, String)>,
}

impl Spill {
    /// An unnamed temporary file in `dir`.
    pub(crate) fn create_in(dir: &Path) -> io::Result<Self> {
        Ok(Self {
            file: tempfile::tempfile_in(dir)?,
            state: Mutex::new(State {
                end: 0,
                error: None,
            }),
        })
    }

    /// Appends `body` as a chunk of the stream whose last chunk is at `last`; returns the new
    /// chunk's offset, or `None` once a write has failed (the failure is kept for the reader).
    pub(crate) fn append(&self, last: Option<u64>, body: &[u8]) -> Option<u64> {
        let mut state = self.state.lock();
        if state.error.is_some() {
            return None;
        }
        let at = state.end;
        let len = u32::try_from(body.len()).expect("a trace chunk is under 4 GiB");
        let mut header = [0u8; HEADER_BYTES as usize];
        header[8..].copy_from_slice(&len.to_le_bytes());
        let written = self
            .file
            .write_all_at(&header, at)
            .and_then(|()| self.file.write_all_at(body, at + HEADER_BYTES))
            .and_then(|()| match last {
                Some(previous) => self.file.write_all_at(&at.to_le_bytes(), previous),
                None => Ok(()),
            });
        match written {
            Ok(()) => {
                state.end = at + HEADER_BYTES + u64::from(len);
                Some(at)
            }
            Err(e) => {
                state.error = Some((e.kind(), e.to_string()));
                None
            }
        }
    }

    /// The first write that failed, if one did.
    pub(crate) fn check(&self) -> io::Result<()> {
        match &self.state.lock().error {
            None => Ok(()),
            Some((kind, message)) => Err(io::Error::new(
                *kind,
                format!("the trace could not be spilled to its temporary file: {message}"),
            )),
        }
    }

    /// Reads the chunk at `at` into `body` (replacing what it held); returns the offset of
    /// the stream's next chunk, if there is one.
    pub(crate) fn read(&self, at: u64, body: &mut Vec<u8>) -> io::Result<Option<u64>> {
        let mut header = [0u8; HEADER_BYTES as usize];
        self.file.read_exact_at(&mut header, at)?;
        let next = u64::from_le_bytes(header[..8].try_into().expect("8 bytes"));
        let len = u32::from_le_bytes(header[8..].try_into().expect("4 bytes"));
        body.clear();
        body.resize(len as usize, 0);
        self.file.read_exact_at(body, at + HEADER_BYTES)?;
        Ok((next != 0).then_some(next))
    }

    /// The offset of the chunk after the one at `at`, reading only its header.
    pub(crate) fn next_of(&self, at: u64) -> io::Result<Option<u64>> {
        let mut next = [0u8; 8];
        self.file.read_exact_at(&mut next, at)?;
        let next = u64::from_le_bytes(next);
        Ok((next != 0).then_some(next))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_of_a_stream_are_linked_in_the_order_appended() {
        let dir = tempfile::tempdir().unwrap();
        let spill = Spill::create_in(dir.path()).unwrap();
        let a = spill.append(None, b"first").unwrap();
        let other = spill.append(None, b"another stream").unwrap();
        let b = spill.append(Some(a), b"second").unwrap();
        let mut body = Vec::new();
        assert_eq!(spill.read(a, &mut body).unwrap(), Some(b));
        assert_eq!(body, b"first");
        assert_eq!(spill.read(b, &mut body).unwrap(), None);
        assert_eq!(body, b"second");
        assert_eq!(spill.read(other, &mut body).unwrap(), None);
        assert_eq!(body, b"another stream");
        assert_eq!(spill.next_of(a).unwrap(), Some(b));
        spill.check().unwrap();
        // Unnamed: nothing is left in the folder.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
