//! Output paths checked before a run: a long run must not end in "cannot write", and a
//! rejected run must write nothing. The checks create nothing that outlives them.

use std::path::{Path, PathBuf};

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

/// Checks that the folder `dir` exists or can be created, and can be written: its nearest
/// existing ancestor is a folder in which a file can be created (probed with a temporary file
/// that is removed at once).
pub(crate) fn check_dir_target(dir: &Path) -> Result<(), String> {
    if dir.exists() && !dir.is_dir() {
        return Err(format!("{} exists and is not a folder", dir.display()));
    }
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
            .prefix(&format!("{}probe-", super::publish::own_prefix()))
            .tempfile_in(&base)
            .map(drop)
    })
    .map_err(|e| format!("cannot write in {}: {e}", base.display()))
}

/// Checks that a file can be written at `path` at the end of a run: it names a file (not a
/// folder) whose folder can be created and written.
pub(crate) fn check_file_target(path: &Path) -> Result<(), String> {
    let text = path.as_os_str().to_string_lossy();
    if text.is_empty() {
        return Err("the path is empty".into());
    }
    if text.ends_with('/') || path.is_dir() || path.file_name().is_none() {
        return Err(format!("{} is a folder, not a file", path.display()));
    }
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    check_dir_target(parent)
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
}
