//! Topologies read from text: a parent relation (`parents:FILE`) and an edge list
//! (`edges:FILE`). Both are UTF-8, at most [`MAX_FILE_BYTES`], `#` starts a comment, a
//! byte-order mark is ignored; every error names the file and the line.

use std::io::Read;
use std::path::Path;

use super::{MAX_PROCESSORS, Topology};
use crate::error::TopologyError;

/// The largest topology file read: 64 MiB.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// The text of a topology file; errors are `Parse` errors for `spec`, naming the file.
fn read_text(spec: &str, file: &str, what: &str) -> Result<String, TopologyError> {
    let err = |reason: String| TopologyError::Parse {
        spec: spec.to_string(),
        reason,
    };
    // Asked before opening: opening a FIFO (`/dev/stdin` on a pipe) waits for a writer,
    // and reading one may never end. A topology file is a regular file.
    match std::fs::metadata(Path::new(file)) {
        Ok(m) if !m.is_file() => {
            return Err(err(format!(
                "'{file}' is not a regular file (a FIFO, device or socket is not read: \
                 it could block or never end); save the {what} to a file"
            )));
        }
        _ => {}
    }
    let mut bytes = Vec::new();
    std::fs::File::open(Path::new(file))
        .and_then(|f| f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| err(format!("cannot read {what} '{file}': {e}")))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(err(format!(
            "{what} '{file}' is larger than {} MiB",
            MAX_FILE_BYTES >> 20
        )));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        let line = 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        err(format!("{file}: line {line}: not UTF-8 text"))
    })?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    })
}

/// Prefixes the reason of a `Parse` error with the file name, under `spec`.
fn in_file(spec: &str, file: &str, e: TopologyError) -> TopologyError {
    match e {
        TopologyError::Parse { reason, .. } => TopologyError::Parse {
            spec: spec.to_string(),
            reason: format!("{file}: {reason}"),
        },
        e => e,
    }
}

/// Reads `parents:FILE`.
pub(super) fn read_parents(file: &str) -> Result<Topology, TopologyError> {
    let spec = format!("parents:{file}");
    let text = read_text(&spec, file, "parent file")?;
    Topology::parse_parents(&text).map_err(|e| in_file(&spec, file, e))
}

/// Reads `edges:FILE`.
pub(super) fn read_edges(file: &str) -> Result<Topology, TopologyError> {
    let spec = format!("edges:{file}");
    let text = read_text(&spec, file, "edge file")?;
    Topology::parse_edges(&text, file).map_err(|e| in_file(&spec, file, e))
}

/// One edge `a b` of an edge list, and the line it was on.
pub(super) struct Edge {
    pub(super) a: u32,
    pub(super) b: u32,
    pub(super) line: usize,
}

/// The edges of an edge list: one a line, two processor indices separated by spaces or a
/// comma; blank lines and `#` comments are skipped.
pub(super) fn parse_edge_lines(text: &str) -> Result<Vec<Edge>, TopologyError> {
    let err = |line: usize, reason: String| TopologyError::Parse {
        spec: "an edge list".into(),
        reason: format!("line {line}: {reason}"),
    };
    let mut edges = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line_no = number + 1;
        let body = line.split('#').next().unwrap_or("");
        let tokens: Vec<&str> = body
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|t| !t.is_empty())
            .collect();
        if tokens.is_empty() {
            continue;
        }
        if tokens.len() != 2 {
            return Err(err(
                line_no,
                format!(
                    "expected two processor indices (an edge 'A B'), found {} item{}",
                    tokens.len(),
                    if tokens.len() == 1 { "" } else { "s" }
                ),
            ));
        }
        let index = |t: &str| -> Result<u32, TopologyError> {
            let v = t.parse::<u64>().map_err(|_| {
                err(
                    line_no,
                    format!("'{}' is not a processor index", t.escape_default()),
                )
            })?;
            if v >= MAX_PROCESSORS as u64 {
                return Err(err(
                    line_no,
                    format!("processor {v} is past the limit: at most {MAX_PROCESSORS} processors"),
                ));
            }
            Ok(v as u32)
        };
        let (a, b) = (index(tokens[0])?, index(tokens[1])?);
        if a == b {
            return Err(err(line_no, format!("processor {a} is linked to itself")));
        }
        if edges.len() >= super::graph::MAX_LINKS {
            return Err(err(
                line_no,
                format!("more than {} links", super::graph::MAX_LINKS),
            ));
        }
        edges.push(Edge {
            a,
            b,
            line: line_no,
        });
    }
    Ok(edges)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_lines_skip_comments_and_name_bad_lines() {
        let edges = parse_edge_lines("# ring\n0 1\n1,2 # two\n\n2 0\n").unwrap();
        let pairs: Vec<(u32, u32, usize)> = edges.iter().map(|e| (e.a, e.b, e.line)).collect();
        assert_eq!(pairs, vec![(0, 1, 2), (1, 2, 3), (2, 0, 5)]);
        for (text, needle) in [
            ("0 1\n1\n", "line 2: expected two processor indices"),
            ("0 1\n1 x\n", "line 2: 'x' is not a processor index"),
            ("0 0\n", "line 1: processor 0 is linked to itself"),
            ("0 1 2\n", "found 3 items"),
            ("0 99999999\n", "past the limit"),
        ] {
            let e = parse_edge_lines(text).err().unwrap().to_string();
            assert!(e.contains(needle), "{text:?}: {e}");
        }
    }

    #[test]
    fn a_fifo_is_not_read_as_a_topology_file() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo reads the zero-terminated path. Nobody writes into the FIFO: reading
        // it would wait for ever.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        for kind in ["parents", "edges"] {
            let e = Topology::parse(&format!("{kind}:{}", fifo.display()))
                .unwrap_err()
                .to_string();
            assert!(e.contains("not a regular file"), "{kind}: {e}");
        }
    }
}
