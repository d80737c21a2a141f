//! This process's temporary files and folders, known to one registry so that a signal can
//! remove them all before the process exits, and so that a set of files being published is
//! never cut in two.
//!
//! Every temporary path is created, written and renamed while holding the registry's lock
//! ([`with_lock`]); [`on_signal`] takes the same lock. So a signal finds each temporary path
//! either not yet created or registered, and a publication (a run folder's renames, a set of
//! loose files' renames) either not started — its files are removed and the results folder is
//! as it was — or finished, the whole set in place.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// Prefix of every temporary file and folder: `.mc-tmp-<pid>-`.
pub(crate) const TEMP_PREFIX: &str = ".mc-tmp-";

/// This process's prefix for temporary names: `.mc-tmp-<pid>-`.
pub(super) fn own_prefix() -> String {
    format!("{TEMP_PREFIX}{}-", std::process::id())
}

/// The registry: temporary paths alive now, folders this process created for its files, and
/// what it has published.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    temps: Vec<PathBuf>,
    created: Vec<PathBuf>,
    published: Vec<PathBuf>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    temps: Vec::new(),
    created: Vec::new(),
    published: Vec::new(),
});

fn lock() -> MutexGuard<'static, Registry> {
    // A panic while holding the lock leaves the registry as consistent as it was.
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `f` holding the registry's lock: no signal removes temporary files meanwhile, and a
/// signal that comes waits until `f` has finished.
pub(crate) fn with_lock<T>(f: impl FnOnce(&mut Registry) -> T) -> T {
    f(&mut lock())
}

impl Registry {
    /// Notes a temporary path that now exists.
    pub(crate) fn add(&mut self, path: &Path) {
        self.temps.push(path.to_path_buf());
    }

    /// Notes a folder created for this process's files (removed on a signal if still empty).
    pub(crate) fn created(&mut self, dir: &Path) {
        self.created.push(dir.to_path_buf());
    }

    /// Forgets a temporary path: renamed into place (`published`) or removed.
    pub(crate) fn forget(&mut self, path: &Path, published: Option<&Path>) {
        self.temps.retain(|p| p != path);
        if let Some(p) = published {
            self.published.push(p.to_path_buf());
        }
    }
}

/// What a signal did: the temporary paths removed, and the files published before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stopped {
    /// Temporary files and folders removed.
    pub(crate) removed: usize,
    /// Files and folders published by this process before the signal (whole sets).
    pub(crate) published: Vec<PathBuf>,
}

/// Whether this process has published anything yet (a run folder or a file).
pub(crate) fn published_any() -> bool {
    !lock().published.is_empty()
}

/// On a signal: waits for a publication in progress to finish, removes every temporary path
/// of this process and the folders it created that stayed empty, and returns what was done.
/// The lock stays held (the guard is leaked) so that nothing is created or published until
/// the process exits.
pub(crate) fn on_signal() -> Stopped {
    let mut guard = lock();
    let removed = remove(&guard.temps);
    for dir in guard.created.iter().rev() {
        // Only an empty folder goes: it held nothing but this run's temporary files.
        let _ = std::fs::remove_dir(dir);
    }
    let published = guard.published.clone();
    guard.temps.clear();
    std::mem::forget(guard);
    Stopped { removed, published }
}

fn remove(paths: &[PathBuf]) -> usize {
    paths
        .iter()
        .filter(|p| {
            if p.is_dir() {
                std::fs::remove_dir_all(p).is_ok()
            } else {
                std::fs::remove_file(p).is_ok()
            }
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_paths_are_removed_and_published_ones_reported() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = Registry::default();
        let file = dir.path().join(".mc-tmp-1-a");
        let folder = dir.path().join(".mc-tmp-1-b");
        std::fs::write(&file, "x").unwrap();
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("rows.csv"), "x").unwrap();
        r.add(&file);
        r.add(&folder);
        let kept = dir.path().join(".mc-tmp-1-c");
        r.add(&kept);
        r.forget(&kept, Some(&dir.path().join("report.html")));
        assert_eq!(remove(&r.temps), 2);
        assert!(!file.exists() && !folder.exists());
        assert_eq!(r.published, vec![dir.path().join("report.html")]);
    }
}
