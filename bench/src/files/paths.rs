//! The one rule for every path a flag names, checked before a run (a long run must not end in
//! "cannot write", and a rejected run must write nothing; the checks create nothing that
//! outlives them):
//!
//! 1. **A regular file, or a new path**, is written whole under a temporary name in its
//!    folder and renamed into place at the end ([`Target::Replace`]). A symbolic link to a
//!    regular file keeps the link: its target is replaced.
//! 2. **A device, FIFO or socket** (`/dev/null`, `/dev/stdout`, a named pipe) is written into
//!    directly, as a shell's `>` would ([`Target::Into`]); a rename onto one is never right.
//!    So is any path under `/dev` or `/proc`, whatever it resolves to.
//! 3. **A path inside a published run folder** (one with a `manifest.json`, or reached
//!    through a `latest` link) is refused: a published run is never changed.
//! 4. **Two outputs naming one file** are refused, naming both flags ([`distinct`]).
//! 5. **A name the file system cannot hold** (a component over 255 bytes, a path over 4 096)
//!    is refused before the run, not after it.
//!
//! Input files follow the converse rule ([`input_file`]): only a regular file is read; a
//! FIFO or a device (an open pipe, `/dev/stdin`) is not a file and would block or never end.

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

/// The longest name of one path component (Linux `NAME_MAX`).
const NAME_MAX_BYTES: usize = 255;

/// The longest path (Linux `PATH_MAX`, less its terminating zero).
const PATH_MAX_BYTES: usize = 4_095;

/// The file a published run folder holds last, which marks it as published.
const MANIFEST: &str = "manifest.json";

/// How an output file is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// Written whole under a temporary name and renamed onto this path (the link's target
    /// when the flag named a link).
    Replace(PathBuf),
    /// Written into directly: a device, FIFO or socket.
    Into(PathBuf),
}

/// The nearest existing ancestor of `dir` (itself if it exists; `.` for a relative path with
/// no existing part).
fn existing_ancestor(dir: &Path) -> PathBuf {
    let mut p = dir.to_path_buf();
    loop {
        if p.exists() {
            return p;
        }
        match p.parent() {
            Some(q) if !q.as_os_str().is_empty() => p = q.to_path_buf(),
            _ => return PathBuf::from("."),
        }
    }
}

/// The folder of `path` (`.` for a bare name).
pub(super) fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Where a run writing `path` may keep a temporary file of its own (a trace's spill): the
/// folder the file is staged in when it is written whole and renamed; `None` when it is
/// written into (a device, FIFO or socket), whose folder is not ours.
pub(crate) fn staging_folder(path: &Path) -> Option<PathBuf> {
    match output_target(path).ok()? {
        Target::Replace(real) => Some(folder_of(&real).to_path_buf()),
        Target::Into(_) => None,
    }
}

/// Step 5: every component fits `NAME_MAX`, the whole `PATH_MAX`.
fn check_length(path: &Path) -> Result<(), String> {
    let bytes = path.as_os_str().len();
    if bytes > PATH_MAX_BYTES {
        return Err(format!(
            "the path is {bytes} bytes long; the file system allows {PATH_MAX_BYTES}"
        ));
    }
    if let Some(long) = path
        .components()
        .map(|c| c.as_os_str())
        .find(|c| c.len() > NAME_MAX_BYTES)
    {
        return Err(format!(
            "the name '{}…' is {} bytes long; the file system allows {NAME_MAX_BYTES} a name",
            long.to_string_lossy().chars().take(24).collect::<String>(),
            long.len()
        ));
    }
    Ok(())
}

/// The published run folder `path` lies in, if any: an existing ancestor (followed through
/// links) that holds a `manifest.json`.
pub(crate) fn published_run_of(path: &Path) -> Option<PathBuf> {
    let real = existing_ancestor(path).canonicalize().ok()?;
    real.ancestors()
        .find(|a| a.join(MANIFEST).is_file())
        .map(Path::to_path_buf)
}

/// Step 3, for a file or a folder.
fn check_not_published(path: &Path) -> Result<(), String> {
    match published_run_of(path) {
        Some(run) => Err(format!(
            "is inside the published run folder {}: a published run is never changed; name a \
             path outside it",
            run.display()
        )),
        None => Ok(()),
    }
}

/// Whether `path` names a place under `/dev` or `/proc`, as given or resolved.
fn system_path(path: &Path) -> bool {
    let under = |p: &Path| p.starts_with("/dev") || p.starts_with("/proc");
    under(path) || path.canonicalize().is_ok_and(|p| under(&p))
}

/// Checks that the folder `dir` exists or can be created, and can be written: its nearest
/// existing ancestor is a folder in which a file can be created (probed with a temporary file
/// that is removed at once), and it is not inside a published run.
pub(crate) fn check_dir_target(dir: &Path) -> Result<(), String> {
    check_length(dir)?;
    if dir.exists() && !dir.is_dir() {
        return Err(format!("{} exists and is not a folder", dir.display()));
    }
    check_not_published(dir)?;
    let base = existing_ancestor(dir);
    if !base.is_dir() {
        return Err(format!(
            "cannot create {}: {} is not a folder",
            dir.display(),
            base.display()
        ));
    }
    // Created and removed under the registry's lock: a signal never leaves it behind.
    super::temps::with_lock(|_| {
        tempfile::Builder::new()
            // A probe left by a killed process is stale like its other temporary files.
            .prefix(&format!("{}probe-", super::temps::own_prefix()))
            .tempfile_in(&base)
            .map(drop)
    })
    .map_err(|e| format!("cannot write in {}: {e}", base.display()))
}

/// How a file named by a flag is written (steps 1, 2, 3 and 5), checked before the run.
pub(crate) fn output_target(path: &Path) -> Result<Target, String> {
    let text = path.as_os_str().to_string_lossy();
    if text.is_empty() {
        return Err("the path is empty".into());
    }
    check_length(path)?;
    if text.ends_with('/') || path.is_dir() || path.file_name().is_none() {
        return Err(format!("{} is a folder, not a file", path.display()));
    }
    let link = std::fs::symlink_metadata(path).ok();
    let followed = std::fs::metadata(path).ok();
    match (link, followed) {
        // A link to nothing: writing through it would create a file elsewhere.
        (Some(l), None) if l.file_type().is_symlink() => Err(format!(
            "{} is a link to nothing; name the file itself",
            path.display()
        )),
        (Some(_), None) => Err(format!("cannot read what {} is", path.display())),
        (Some(_), Some(m)) if !m.is_file() || system_path(path) => {
            let t = m.file_type();
            let special = t.is_char_device() || t.is_block_device() || t.is_fifo() || t.is_socket();
            if !special && !t.is_file() {
                return Err(format!("{} is not a file", path.display()));
            }
            writable(path)?;
            Ok(Target::Into(path.to_path_buf()))
        }
        (Some(l), Some(_)) => {
            // A regular file, or a link to one: the file itself is replaced.
            let real = if l.file_type().is_symlink() {
                path.canonicalize()
                    .map_err(|e| format!("resolving {}: {e}", path.display()))?
            } else {
                path.to_path_buf()
            };
            check_not_published(&real)?;
            check_dir_target(folder_of(&real))?;
            Ok(Target::Replace(real))
        }
        (None, _) => {
            if system_path(folder_of(path)) {
                return Err(format!(
                    "{} does not exist, and no file is created under /dev or /proc",
                    path.display()
                ));
            }
            check_not_published(path)?;
            check_dir_target(folder_of(path))?;
            Ok(Target::Replace(path.to_path_buf()))
        }
    }
}

/// Whether this process may write into `path` (a device, FIFO or socket), asked without
/// opening it (opening a FIFO waits for a reader).
fn writable(path: &Path) -> Result<(), String> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| format!("{} holds a zero byte", path.display()))?;
    // SAFETY: access(2) reads the zero-terminated path and nothing else.
    if unsafe { libc::access(c.as_ptr(), libc::W_OK) } == 0 {
        Ok(())
    } else {
        Err(format!(
            "cannot write into {}: {}",
            path.display(),
            std::io::Error::last_os_error()
        ))
    }
}

/// Whether `path` names the file this process's stdout writes into: `/dev/stdout`, or the
/// file, pipe or terminal stdout was sent to.
pub(crate) fn is_stdout(path: &Path) -> bool {
    use std::os::fd::AsFd;
    std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .is_ok_and(|fd| same_file(path, &std::fs::File::from(fd)))
}

/// Whether `path` names the file `file` is open on (the same device and inode).
fn same_file(path: &Path, file: &std::fs::File) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(path), file.metadata()) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Checks that a file can be written at `path` at the end of a run (see [`output_target`]).
pub(crate) fn check_file_target(path: &Path) -> Result<(), String> {
    output_target(path).map(drop)
}

/// What identifies the file `path` will write: the device and inode of an existing file, else
/// the resolved folder and the name.
fn identity(path: &Path) -> PathBuf {
    use std::os::unix::fs::MetadataExt;
    if let Ok(m) = std::fs::metadata(path) {
        return PathBuf::from(format!("inode {}:{}", m.dev(), m.ino()));
    }
    let folder = existing_ancestor(folder_of(path))
        .canonicalize()
        .unwrap_or_else(|_| folder_of(path).to_path_buf());
    let rest = folder_of(path)
        .strip_prefix(existing_ancestor(folder_of(path)))
        .map(Path::to_path_buf)
        .unwrap_or_default();
    folder.join(rest).join(path.file_name().unwrap_or_default())
}

/// Step 4: the outputs `(flag, path)` of one run name different files; an error names the two
/// flags that name one. Devices and FIFOs may be shared (`--trace /dev/null --report
/// /dev/null`).
pub(crate) fn distinct(outputs: &[(&str, &Path)]) -> Result<(), (String, String)> {
    let mut seen: Vec<(&str, PathBuf)> = Vec::new();
    for (flag, path) in outputs {
        if matches!(output_target(path), Ok(Target::Into(_))) {
            continue;
        }
        let id = identity(path);
        if let Some((first, _)) = seen.iter().find(|(_, i)| *i == id) {
            return Err((
                format!("{first} and {flag}"),
                format!(
                    "both name {}: one file cannot hold two outputs; give each its own path",
                    path.display()
                ),
            ));
        }
        seen.push((flag, id));
    }
    Ok(())
}

/// Checks that `path` is a regular file that can be read: a FIFO, a device or a socket (an
/// open pipe, `/dev/stdin`, `/dev/zero`) is not a file; reading one could block or never end.
pub(crate) fn input_file(path: &Path) -> Result<(), String> {
    let m = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if m.is_dir() {
        return Err("is a folder, not a file".into());
    }
    if !m.is_file() {
        return Err(
            "is not a regular file (a FIFO, device or socket is not read: it could \
                    block or never end); save its contents to a file first"
                .into(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_files_and_unwritable_places_are_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        assert!(check_file_target(&d.join("new/deeper/report.html")).is_ok());
        assert!(!d.join("new").exists(), "a check creates nothing");
        assert!(check_file_target(d).unwrap_err().contains("is a folder"));
        assert!(check_file_target(Path::new("")).is_err());
        std::fs::write(d.join("plain"), "x").unwrap();
        let e = check_file_target(&d.join("plain/report.html")).unwrap_err();
        assert!(e.contains("not a folder"), "{e}");
        assert!(check_dir_target(&d.join("plain")).is_err());
        let leftovers: Vec<_> = std::fs::read_dir(d).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "only the file this test wrote");
    }

    #[test]
    fn a_path_is_the_file_an_open_handle_writes_when_it_names_its_inode() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
        let file = std::fs::File::create(&a).unwrap();
        std::fs::write(&b, "").unwrap();
        assert!(same_file(&a, &file));
        assert!(!same_file(&b, &file));
        assert!(!same_file(&dir.path().join("none.json"), &file));
        // Through a link too, as /dev/stdout is one.
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&a, &link).unwrap();
        assert!(same_file(&link, &file));
    }

    #[test]
    fn devices_and_fifos_are_written_into_and_files_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        // A FIFO made in the test's own folder (a device node needs root).
        let fifo = d.join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo reads the zero-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert_eq!(output_target(&fifo).unwrap(), Target::Into(fifo.clone()));
        assert_eq!(
            output_target(Path::new("/dev/null")).unwrap(),
            Target::Into("/dev/null".into())
        );
        let file = d.join("report.json");
        assert_eq!(output_target(&file).unwrap(), Target::Replace(file.clone()));
        std::fs::write(&file, "old").unwrap();
        assert_eq!(output_target(&file).unwrap(), Target::Replace(file.clone()));
        // A link to a file: its target is replaced, the link stays.
        let link = d.join("link.json");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert_eq!(
            output_target(&link).unwrap(),
            Target::Replace(file.canonicalize().unwrap())
        );
        let dangling = d.join("dangling.json");
        std::os::unix::fs::symlink(d.join("nothing"), &dangling).unwrap();
        assert!(
            output_target(&dangling)
                .unwrap_err()
                .contains("link to nothing")
        );
        assert!(output_target(Path::new("/dev/new-file")).is_err());
    }

    #[test]
    fn a_path_inside_a_published_run_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("sweep-farm/2026-run");
        std::fs::create_dir_all(&run).unwrap();
        std::fs::write(run.join("rows.csv"), "a").unwrap();
        std::fs::write(run.join(MANIFEST), "{}").unwrap();
        let latest = dir.path().join("sweep-farm/latest");
        std::os::unix::fs::symlink("2026-run", &latest).unwrap();
        for p in [
            latest.join("rows.csv"),
            run.join("rows.csv"),
            run.join("new.json"),
        ] {
            let e = output_target(&p).unwrap_err();
            assert!(e.contains("published run folder"), "{}: {e}", p.display());
        }
        let e = check_dir_target(&latest.join("sweep-farm")).unwrap_err();
        assert!(e.contains("published run folder"), "{e}");
        // Beside the run folders is fine.
        assert!(output_target(&dir.path().join("sweep-farm/report.json")).is_ok());
    }

    #[test]
    fn names_too_long_for_the_file_system_are_refused_before_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let long = dir.path().join(format!("{}.json", "r".repeat(300)));
        let e = output_target(&long).unwrap_err();
        assert!(e.contains("allows 255"), "{e}");
        assert!(output_target(&dir.path().join(format!("{}.json", "r".repeat(250)))).is_ok());
    }

    #[test]
    fn two_outputs_naming_one_file_are_refused_naming_both_flags() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let same = d.join("same.json");
        let (flags, why) = distinct(&[("--trace", &same), ("--report", &same)]).unwrap_err();
        assert_eq!(flags, "--trace and --report");
        assert!(why.contains("same.json"), "{why}");
        // The same file by two spellings.
        let other = d.join(".").join("same.json");
        assert!(distinct(&[("--trace", &same), ("--timeline", &other)]).is_err());
        assert!(distinct(&[("--trace", &same), ("--report", &d.join("r.json"))]).is_ok());
        let null = Path::new("/dev/null");
        assert!(distinct(&[("--trace", null), ("--report", null)]).is_ok());
    }

    #[test]
    fn only_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo reads the zero-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(
            input_file(&fifo)
                .unwrap_err()
                .contains("not a regular file")
        );
        assert!(input_file(Path::new("/dev/zero")).is_err());
        assert!(input_file(dir.path()).unwrap_err().contains("folder"));
        std::fs::write(dir.path().join("f"), "x").unwrap();
        assert!(input_file(&dir.path().join("f")).is_ok());
    }
}
