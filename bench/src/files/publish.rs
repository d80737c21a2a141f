//! A run's files published as one set, at the end of the run.
//!
//! # A run's folder ([`RunFolder`])
//!
//! 1. **Stage.** The run's files (CSV, JSON, plots, report) are written into a temporary
//!    folder `.mc-tmp-<pid>-…` inside `<out>/<name>/`, on the destination's file system.
//! 2. **Manifest.** `manifest.json` (tool, version, command, date, each file and its size)
//!    is written last into that folder: a folder with a manifest is complete.
//! 3. **Publish the folder.** One rename gives it its final name, `<out>/<name>/<run>`, where
//!    `<run>` is the date and the process id: runs never overwrite each other's files, and
//!    concurrent runs into one folder stay separate.
//! 4. **Point `latest` at it.** A symbolic link made under a temporary name is renamed over
//!    `<out>/<name>/latest`, atomically: a reader of `latest/` sees one complete run, never a
//!    mix of two.
//!
//! A run that fails or is stopped before step 3 leaves nothing but its temporary folder,
//! which is removed when the run's process unwinds, by the signal handler when it is stopped
//! by SIGINT, SIGTERM or SIGHUP ([`super::temps`]), and, if the process was killed outright,
//! by the next run into that folder ([`remove_stale_temps`]: temporary files of processes
//! that are no longer alive). Steps 2 to 4 hold the temporary registry's lock, so a signal
//! waits until they are done.
//!
//! # Single files ([`Publication`])
//!
//! Files at paths the user names (`--report`, `--trace`, `--timeline`, `--output`, the
//! machine profile) follow the one rule of [`super::paths`]: a regular file or a new path is
//! written under a temporary name in its own folder and renamed into place at the end, in the
//! order they were staged; a device, FIFO or socket is written into at the same point, never
//! replaced. Each file is whole, and none is written when the run fails. A failed rename removes every temporary file left. The renames
//! hold the temporary registry's lock (a signal waits for them) and an exclusive `flock` on
//! every destination folder, so that two runs publishing into the same folders publish their
//! sets one after the other, never interleaved: a reader after both sees one run's set.

use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use serde::Serialize;
use tempfile::{TempDir, TempPath};

use super::paths::{Target, folder_of, output_target};
use super::temps::{TEMP_PREFIX, own_prefix, with_lock};

/// Whether process `pid` is alive (Linux: it has an entry in /proc).
fn alive(pid: u32) -> bool {
    pid == std::process::id() || Path::new("/proc").join(pid.to_string()).exists()
}

/// The process id in a temporary name: `.mc-tmp-<pid>-…`, or the old writer's
/// `.<name>.tmp-<pid>`.
fn temp_owner(name: &str) -> Option<u32> {
    if let Some(rest) = name.strip_prefix(TEMP_PREFIX) {
        return rest.split('-').next()?.parse().ok();
    }
    if name.starts_with('.') {
        return name.rsplit_once(".tmp-")?.1.parse().ok();
    }
    None
}

/// Removes the temporary files and folders in `dir` left by processes that are no longer
/// alive (a run killed before it could publish); returns how many. Those of live processes
/// (runs in progress) are kept.
pub(crate) fn remove_stale_temps(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = temp_owner(&name) else {
            continue;
        };
        if alive(pid) {
            continue;
        }
        let path = entry.path();
        let gone = match entry.file_type() {
            Ok(t) if t.is_dir() => std::fs::remove_dir_all(&path),
            _ => std::fs::remove_file(&path),
        };
        removed += usize::from(gone.is_ok());
    }
    removed
}

/// Creates `dir` and its missing ancestors, noting each created one in the registry.
fn create_folder(dir: &Path) -> io::Result<()> {
    let missing: Vec<&Path> = dir
        .ancestors()
        .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
        .collect();
    with_lock(|r| {
        for d in missing.iter().rev() {
            match std::fs::create_dir(d) {
                Ok(()) => r.created(d),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => {
                    return Err(io::Error::new(
                        e.kind(),
                        format!("creating folder {}: {e}", d.display()),
                    ));
                }
            }
        }
        Ok(())
    })
}

/// An exclusive advisory lock on a folder, released when dropped (its descriptor closes).
struct FolderLock {
    _held: std::fs::File,
}

impl FolderLock {
    fn new(dir: &Path) -> io::Result<Self> {
        let f = std::fs::File::open(dir)?;
        // SAFETY: flock on a descriptor this value owns; it is released when `f` closes.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Self { _held: f })
    }
}

/// One staged output: a temporary file renamed onto its path, or bytes written into a device,
/// FIFO or socket.
enum Staged {
    Replace(TempPath, PathBuf),
    Into(Vec<u8>, PathBuf),
}

impl Staged {
    fn path(&self) -> &Path {
        match self {
            Self::Replace(_, p) | Self::Into(_, p) => p,
        }
    }
}

/// Files staged under temporary names, each in its destination's folder, renamed into place
/// by [`Publication::commit`] in the order staged (devices and FIFOs written into at that
/// point). Dropped uncommitted, it removes them all.
#[derive(Default)]
pub(crate) struct Publication {
    staged: Vec<Staged>,
}

impl Drop for Publication {
    fn drop(&mut self) {
        // The temporary files go with their `TempPath`s; the registry forgets them first.
        with_lock(|r| {
            for s in &self.staged {
                if let Staged::Replace(temp, _) = s {
                    r.forget(temp, None);
                }
            }
        });
    }
}

/// Writes `bytes` into the device, FIFO or socket `path` (the process's own stdout or stderr
/// when the path names them).
fn write_into(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let own = |fd: u32| {
        path == Path::new(&format!("/proc/self/fd/{fd}"))
            || path == Path::new(&format!("/dev/fd/{fd}"))
    };
    if path == Path::new("/dev/stdout") || own(1) {
        let mut out = io::stdout().lock();
        out.write_all(bytes)?;
        return out.flush();
    }
    if path == Path::new("/dev/stderr") || own(2) {
        return io::stderr().lock().write_all(bytes);
    }
    let meta = std::fs::metadata(path)?;
    if std::os::unix::fs::FileTypeExt::is_socket(&meta.file_type()) {
        return std::os::unix::net::UnixStream::connect(path)?.write_all(bytes);
    }
    // A regular file reached under /dev or /proc is appended to, as `>>` would.
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .append(meta.is_file())
        .open(path)?;
    f.write_all(bytes)?;
    f.flush()
}

impl Publication {
    /// Nothing staged yet.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Writes `bytes` under a temporary name in `path`'s folder (created if needed), removing
    /// stale temporary files there first; or keeps them to write into a device or FIFO.
    pub(crate) fn stage(&mut self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        self.stage_with(path, &mut |w| w.write_all(bytes))
    }

    /// [`Self::stage`], the contents written by `write` into a buffered file (streamed: a
    /// long trace is never held whole in memory).
    pub(crate) fn stage_with(
        &mut self,
        path: &Path,
        write: &mut dyn FnMut(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        let dest = match output_target(path).map_err(io::Error::other)? {
            Target::Into(dest) => {
                let mut bytes = Vec::new();
                write(&mut bytes)?;
                self.staged.push(Staged::Into(bytes, dest));
                return Ok(());
            }
            Target::Replace(dest) => dest,
        };
        let dir = folder_of(&dest).to_path_buf();
        create_folder(&dir)?;
        remove_stale_temps(&dir);
        let temp = with_lock(|r| {
            // Read-write for all, less the umask, as a file written directly would be (a
            // temporary file is private by default).
            let file = tempfile::Builder::new()
                .prefix(&own_prefix())
                .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
                .tempfile_in(&dir)
                .map_err(|e| {
                    io::Error::new(e.kind(), format!("writing in {}: {e}", dir.display()))
                })?;
            r.add(file.path());
            Ok::<_, io::Error>(file.into_temp_path())
        })?;
        // Written outside the lock (a signal removes the registered file meanwhile).
        let mut f = io::BufWriter::with_capacity(
            1 << 16,
            std::fs::OpenOptions::new().write(true).open(&temp)?,
        );
        write(&mut f)?;
        f.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        self.staged.push(Staged::Replace(temp, dest));
        Ok(())
    }

    /// Renames every staged file into place, in order; returns their paths.
    pub(crate) fn commit(self) -> io::Result<Vec<PathBuf>> {
        self.commit_with(&mut |_| Ok(()))
    }

    /// [`Self::commit`], calling `before(i)` before the `i`-th rename (a failure injected
    /// there stops the commit as a failed rename would).
    fn commit_with(
        mut self,
        before: &mut dyn FnMut(usize) -> io::Result<()>,
    ) -> io::Result<Vec<PathBuf>> {
        let staged = std::mem::take(&mut self.staged);
        // One folder named two ways (`cal.html` and `/abs/cwd/profile.json`) is one lock: a
        // second flock of it from this process would wait for the first for ever.
        let mut folders: Vec<PathBuf> = staged
            .iter()
            .filter(|s| matches!(s, Staged::Replace(..)))
            .map(|s| {
                let folder = folder_of(s.path());
                std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf())
            })
            .collect();
        folders.sort();
        folders.dedup();
        with_lock(|r| {
            // Locked in a fixed order: two runs wait for each other, never for ever.
            let _locks = folders
                .into_iter()
                .map(|f| FolderLock::new(&f))
                .collect::<io::Result<Vec<_>>>()?;
            let mut done = Vec::with_capacity(staged.len());
            let mut rest = staged.into_iter().enumerate();
            let result = rest.by_ref().try_for_each(|(i, s)| {
                let (temp, path) = match s {
                    Staged::Into(bytes, path) => {
                        before(i)?;
                        write_into(&path, &bytes).map_err(|e| {
                            io::Error::new(
                                e.kind(),
                                format!("writing into {}: {e}", path.display()),
                            )
                        })?;
                        done.push(path);
                        return Ok(());
                    }
                    Staged::Replace(temp, path) => (temp, path),
                };
                let name = temp.to_path_buf();
                if let Err(e) = before(i) {
                    r.forget(&name, None);
                    return Err(e);
                }
                match temp.persist(&path) {
                    Ok(()) => {
                        r.forget(&name, Some(&path));
                        done.push(path);
                        Ok(())
                    }
                    Err(e) => {
                        r.forget(&name, None);
                        Err(io::Error::new(
                            e.error.kind(),
                            format!("renaming into {}: {}", path.display(), e.error),
                        ))
                    }
                }
            });
            // On an error, the temporary paths not yet renamed are dropped, and so removed.
            for (_, s) in rest {
                if let Staged::Replace(temp, _) = s {
                    r.forget(&temp, None);
                }
            }
            result.map(|()| done)
        })
    }
}

/// What a published run folder holds; written last, as `manifest.json`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Manifest {
    /// `multicomputer`.
    pub(crate) tool: &'static str,
    /// The tool's version.
    pub(crate) version: &'static str,
    /// The command, e.g. `sweep farm`.
    pub(crate) command: String,
    /// When the run started (RFC 3339, UTC).
    pub(crate) date: String,
    /// The run's folder name.
    pub(crate) run: String,
    /// Every file of the run but the manifest, with its size in bytes.
    pub(crate) files: Vec<ManifestFile>,
}

/// One file of a run.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ManifestFile {
    /// Its name in the run's folder.
    pub(crate) name: String,
    /// Its size.
    pub(crate) bytes: u64,
}

/// A run's own folder, `<out>/<name>/<run>/`, staged under a temporary name and published
/// whole (see the module documentation).
pub(crate) struct RunFolder {
    parent: PathBuf,
    run: String,
    date: String,
    /// The staging folder; none once published.
    temp: Option<TempDir>,
    files: Vec<ManifestFile>,
}

impl Drop for RunFolder {
    fn drop(&mut self) {
        // An unpublished staging folder goes with its `TempDir`; the registry forgets it.
        if let Some(t) = &self.temp {
            with_lock(|r| r.forget(t.path(), None));
        }
    }
}

/// The link to the newest run in a run's parent folder.
pub(crate) const LATEST: &str = "latest";

impl RunFolder {
    /// Stages a new run, started at `date` (RFC 3339), in `<out>/<name>/` (created if
    /// needed), removing stale temporary folders of killed runs there first. Its name is the
    /// date and this process's id (with a suffix if this process already published one
    /// within the second).
    pub(crate) fn create(out: &Path, name: &str, date: &str) -> io::Result<Self> {
        let parent = out.join(name);
        create_folder(&parent)?;
        remove_stale_temps(&parent);
        let stamp: String = date.chars().filter(|c| *c != ':').collect();
        let base = format!("{stamp}-{}", std::process::id());
        let mut run = base.clone();
        let mut n = 1;
        while parent.join(&run).exists() {
            n += 1;
            run = format!("{base}-{n}");
        }
        let temp = with_lock(|r| {
            let t = tempfile::Builder::new()
                .prefix(&own_prefix())
                .tempdir_in(&parent)
                .map_err(|e| {
                    io::Error::new(e.kind(), format!("writing in {}: {e}", parent.display()))
                })?;
            r.add(t.path());
            Ok::<_, io::Error>(t)
        })?;
        Ok(Self {
            parent,
            run,
            date: date.to_string(),
            temp: Some(temp),
            files: Vec::new(),
        })
    }

    /// Where the run will be published: `<out>/<name>/<run>`.
    pub(crate) fn path(&self) -> PathBuf {
        self.parent.join(&self.run)
    }

    fn staging(&self) -> io::Result<&Path> {
        self.temp
            .as_ref()
            .map(TempDir::path)
            .ok_or_else(|| io::Error::other("the run's folder is already published"))
    }

    /// Adds a file to the run (a plain name, no folders).
    pub(crate) fn add(&mut self, file: &str, bytes: &[u8]) -> io::Result<()> {
        let path = self.staging()?.join(file);
        with_lock(|_| std::fs::write(path, bytes))?;
        self.files.push(ManifestFile {
            name: file.to_string(),
            bytes: bytes.len() as u64,
        });
        Ok(())
    }

    /// Writes the manifest, publishes the folder under its run name and points `latest` at
    /// it; returns the published folder.
    pub(crate) fn publish(self, command: &str) -> io::Result<PathBuf> {
        self.publish_with(command, &mut |_| Ok(()))
    }

    /// [`Self::publish`], calling `before(step)` before step 2 (`"manifest"`), step 3
    /// (`"rename"`) and step 4 (`"latest"`): a failure injected there stops the publication.
    fn publish_with(
        mut self,
        command: &str,
        before: &mut dyn FnMut(&str) -> io::Result<()>,
    ) -> io::Result<PathBuf> {
        let staging = self.staging()?.to_path_buf();
        let target = self.parent.join(&self.run);
        let manifest = Manifest {
            tool: "multicomputer",
            version: env!("CARGO_PKG_VERSION"),
            command: command.to_string(),
            date: self.date.clone(),
            run: self.run.clone(),
            files: self.files.clone(),
        };
        with_lock(|r| {
            before("manifest")?;
            let json = serde_json::to_vec_pretty(&manifest).map_err(io::Error::other)?;
            std::fs::write(staging.join("manifest.json"), json)?;
            before("rename")?;
            if target.exists() {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!("publishing {}: it exists", target.display()),
                ));
            }
            std::fs::rename(&staging, &target).map_err(|e| {
                io::Error::new(e.kind(), format!("publishing {}: {e}", target.display()))
            })?;
            // The staging folder is now the published one: nothing left to remove.
            r.forget(&staging, Some(&target));
            if let Some(t) = self.temp.take() {
                let _ = t.keep();
            }
            before("latest")?;
            let run = self.run.clone();
            let link = tempfile::Builder::new()
                .prefix(&own_prefix())
                .make_in(&self.parent, |p| std::os::unix::fs::symlink(&run, p))?;
            link.persist(self.parent.join(LATEST)).map_err(|e| {
                io::Error::new(
                    e.error.kind(),
                    format!(
                        "pointing {} at the new run: {} (is it a folder rather than a link?)",
                        self.parent.join(LATEST).display(),
                        e.error
                    ),
                )
            })?;
            Ok(target.clone())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    fn run(out: &Path, csv: &str) -> io::Result<PathBuf> {
        let mut f = RunFolder::create(out, "sweep", "2026-01-02T03:04:05Z")?;
        f.add("rows.csv", csv.as_bytes())?;
        f.add("report.json", b"{}")?;
        let path = f.path();
        assert_eq!(f.publish("sweep farm")?, path);
        Ok(path)
    }

    #[test]
    fn files_in_one_folder_named_two_ways_are_committed_under_one_lock() {
        // `calibrate --profile /abs/dir/p.json --report r.html` run in dir hung for ever.
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(dir.path(), dir.path().join("same")).unwrap();
        let (a, b) = (dir.path().join("a.txt"), dir.path().join("same/b.txt"));
        let (done, finished) = std::sync::mpsc::channel();
        let (a2, b2) = (a.clone(), b.clone());
        std::thread::spawn(move || {
            let mut p = Publication::new();
            p.stage(&a2, b"a").unwrap();
            p.stage(&b2, b"b").unwrap();
            done.send(p.commit().map(|v| v.len())).unwrap();
        });
        let committed = finished
            .recv_timeout(std::time::Duration::from_secs(30))
            .expect("the commit finishes (no second lock on its own folder)");
        assert_eq!(committed.unwrap(), 2);
        assert_eq!(std::fs::read(&a).unwrap(), b"a");
        assert_eq!(std::fs::read(&b).unwrap(), b"b");
    }

    #[test]
    fn a_run_is_published_whole_and_latest_points_at_it() {
        let out = tempfile::tempdir().unwrap();
        let first = run(out.path(), "a").unwrap();
        let second = run(out.path(), "b").unwrap();
        assert_ne!(first, second, "runs never overwrite each other");
        let parent = out.path().join("sweep");
        let latest = std::fs::read_to_string(parent.join("latest/rows.csv")).unwrap();
        assert_eq!(latest, "b");
        assert_eq!(
            std::fs::read_to_string(first.join("rows.csv")).unwrap(),
            "a"
        );
        let m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(second.join("manifest.json")).unwrap()).unwrap();
        assert_eq!(m["files"].as_array().unwrap().len(), 2);
        assert_eq!(m["command"], "sweep farm");
        // Only the two runs and the link: no temporary files.
        assert_eq!(names(&parent).len(), 3, "{:?}", names(&parent));
    }

    #[test]
    fn a_failure_at_any_step_leaves_the_previous_run_and_no_temporary_file() {
        for step in ["manifest", "rename", "latest"] {
            let out = tempfile::tempdir().unwrap();
            run(out.path(), "old").unwrap();
            let parent = out.path().join("sweep");
            let before_names = names(&parent);
            let mut f = RunFolder::create(out.path(), "sweep", "2026-01-02T03:04:06Z").unwrap();
            f.add("rows.csv", b"new").unwrap();
            let e = f
                .publish_with("sweep farm", &mut |s| {
                    if s == step {
                        Err(io::Error::other("injected"))
                    } else {
                        Ok(())
                    }
                })
                .unwrap_err();
            assert_eq!(e.to_string(), "injected");
            let latest = std::fs::read_to_string(parent.join("latest/rows.csv")).unwrap();
            assert_eq!(
                latest, "old",
                "{step}: a reader of latest still sees the old run"
            );
            let after: Vec<String> = names(&parent)
                .into_iter()
                .filter(|n| n.starts_with(TEMP_PREFIX))
                .collect();
            assert!(after.is_empty(), "{step}: temporary files left: {after:?}");
            if step != "latest" {
                assert_eq!(names(&parent), before_names, "{step}");
            }
        }
    }

    #[test]
    fn single_files_are_renamed_in_order_and_a_failure_removes_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let mut p = Publication::new();
        p.stage(&d.join("a.json"), b"1").unwrap();
        p.stage(&d.join("sub/b.svg"), b"2").unwrap();
        p.stage(&d.join("c.html"), b"3").unwrap();
        let e = p
            .commit_with(&mut |i| {
                if i == 1 {
                    Err(io::Error::other("injected"))
                } else {
                    Ok(())
                }
            })
            .unwrap_err();
        assert_eq!(e.to_string(), "injected");
        // The first was renamed, the others never appear and leave no temporary file.
        assert_eq!(names(d), vec!["a.json", "sub"]);
        assert!(names(&d.join("sub")).is_empty());
        let mut p = Publication::new();
        p.stage(&d.join("c.html"), b"ok").unwrap();
        p.commit().unwrap();
        assert_eq!(std::fs::read_to_string(d.join("c.html")).unwrap(), "ok");
    }

    #[test]
    fn a_fifo_is_written_into_and_stays_a_fifo() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo reads the zero-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        let mut p = Publication::new();
        p.stage(&fifo, b"trace").unwrap();
        p.stage(&dir.path().join("report.json"), b"{}").unwrap();
        p.commit().unwrap();
        assert_eq!(reader.join().unwrap(), b"trace");
        let t = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(t.is_fifo(), "the FIFO was replaced by a {t:?}");
        assert_eq!(names(dir.path()), vec!["pipe", "report.json"]);
    }

    #[test]
    fn stale_temps_of_dead_processes_go_and_live_ones_stay() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        // No process has a pid this large (pid_max ≤ 2^22).
        let dead = 999_999_999_u32;
        std::fs::write(d.join(format!("{TEMP_PREFIX}{dead}-x")), "").unwrap();
        std::fs::create_dir(d.join(format!("{TEMP_PREFIX}{dead}-dir"))).unwrap();
        std::fs::write(d.join(format!(".sweep-farm.csv.tmp-{dead}")), "").unwrap();
        // Process 1 is always alive.
        std::fs::write(d.join(format!("{TEMP_PREFIX}1-y")), "").unwrap();
        std::fs::write(d.join("rows.csv"), "").unwrap();
        assert_eq!(remove_stale_temps(d), 3);
        assert_eq!(
            names(d),
            vec![format!("{TEMP_PREFIX}1-y"), "rows.csv".into()]
        );
    }

    #[test]
    fn a_dropped_folder_leaves_nothing() {
        let out = tempfile::tempdir().unwrap();
        {
            let mut f = RunFolder::create(out.path(), "sweep", "2026-01-02T03:04:05Z").unwrap();
            f.add("rows.csv", b"x").unwrap();
        }
        assert!(names(&out.path().join("sweep")).is_empty());
    }
}
