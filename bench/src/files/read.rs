//! Reading a user's file whole, within a size limit: a table, a stream or a profile can be
//! no larger than [`MAX_FILE_BYTES`], so that `--csv /dev/zero` stops at once with a clear
//! error instead of reading forever. Text is UTF-8 with an optional byte-order mark.

use std::io::Read;
use std::path::Path;

/// The largest file a reader accepts (a CSV table, an OCL stream): 64 MiB.
pub(crate) const MAX_FILE_BYTES: u64 = 64 << 20;

/// Reads at most `limit` bytes of `path`; a longer file (or an endless one) is an error.
pub(crate) fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    // Asked before opening: opening a FIFO waits for a writer.
    super::paths::input_file(path)?;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > limit {
        return Err(format!(
            "larger than the limit of {} MiB for an input file",
            limit >> 20
        ));
    }
    Ok(bytes)
}

/// `bytes` as UTF-8 text without its byte-order mark; an invalid byte names its line.
pub(crate) fn text(bytes: Vec<u8>) -> Result<String, String> {
    let bytes = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => rest.to_vec(),
        None => bytes,
    };
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = 1 + valid.iter().filter(|&&b| b == b'\n').count();
        format!("line {line}: not UTF-8 text")
    })
}

/// A text file of at most [`MAX_FILE_BYTES`], without its byte-order mark.
pub(crate) fn read_text(path: &Path) -> Result<String, String> {
    text(read_limited(path, MAX_FILE_BYTES)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_file_stops_at_the_limit_and_a_device_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big");
        std::fs::write(&big, vec![b'1'; (1 << 20) + 1]).unwrap();
        let e = read_limited(&big, 1 << 20).unwrap_err();
        assert!(e.contains("larger than the limit of 1 MiB"), "{e}");
        let e = read_limited(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert!(e.contains("not a regular file"), "{e}");
        assert!(read_limited(dir.path(), 10).unwrap_err().contains("folder"));
    }

    #[test]
    fn text_loses_its_byte_order_mark_and_bad_bytes_name_their_line() {
        assert_eq!(text(b"\xEF\xBB\xBFa\nb".to_vec()).unwrap(), "a\nb");
        let e = text(b"a\nb\n\xff".to_vec()).unwrap_err();
        assert_eq!(e, "line 3: not UTF-8 text");
    }
}
