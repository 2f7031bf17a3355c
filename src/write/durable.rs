//! Durability: what a write makes reach the disk, and when, so that a power cut (or a kernel crash)
//! leaves the old or the new output and lock, as a pair, and never a published file whose bytes or
//! name were still only in memory. A rename is atomic against processes, not against the machine:
//! the new file's data, the new folder's entries and the rename itself each reach the disk when the
//! system gets round to it, in any order, unless fsync(2) says when. git (`core.fsync`), SQLite and
//! Terraform's state files do the same.
//!
//! The order of a render (the staged write, [`super::stage`] then [`super::commit`]; the named points of
//! [`super::interrupt`] in brackets):
//!
//! 1. Each file written anew (or rewritten in place in a claimed spare) starts its writeback at once
//!    ([`start`]: Linux `sync_file_range(SYNC_FILE_RANGE_WRITE)`, git's `core.fsyncMethod=batch`
//!    idea), so the disk works while the render goes on. Files hard-linked from the previous output or
//!    kept in the spare are not synced again: the render that wrote them did.
//! 2. When the temporary folder is filled and its manifest written (`staged`), every file written
//!    is fsynced (in parallel: [`Pending::sync`]), then every folder of the temporary tree that gained or
//!    lost an entry (the temporary folder itself always), then the folder beside the output that holds
//!    the temporary folder (its name, when it was made or a spare claimed).
//! 3. The staged lock is fsynced, the journal is written and fsynced, and the lock's folder is fsynced:
//!    the staged lock and the journal, names and bytes, are on the disk before anything is published
//!    (`journaled`).
//! 4. The folders are swapped (one `renameat2(RENAME_EXCHANGE)`, or two renames), then the folder
//!    holding the output is fsynced: the swap is on the disk (`swapped`).
//! 5. The staged lock is renamed over the lock, then the lock's folder is fsynced (`locked`).
//! 6. The journal is removed (`committed`). The spare and the indexes that follow are caches: a power
//!    cut may lose them, and the next render then reads files instead of trusting an index.
//!
//! A power cut before 3 leaves the old pair (the staged files are a dead process's leftovers, removed
//! by the next render); between 3 and 4 the journal names a swap the output does not show, and the
//! next command rolls back; between 4 and 6 the output's manifest holds the new lock's record and the
//! staged lock is on the disk, and the next command renames it into place; after 5 the journal, if it
//! is still there, finds the lock done. Each of those recoveries fsyncs the lock's folder before it
//! removes the journal. A write without a lock change has no journal: 2 and 4 alone.
//!
//! An in-place write (`--only`, [`super::inplace`]) stages its files beside the output and fsyncs them
//! and their folder, writes its `commit` journal and fsyncs it and its folder, renames the files into
//! place, fsyncs each folder they went into, and only then removes the journal.
//!
//! Why per file and in parallel, not `syncfs(2)`: measured on this project's VM (docs/performance.md),
//! fsyncing the 3,714 files of a 100K render one by one after they were written took 1.1-1.2 s; with
//! writeback started as each was written and eight threads fsyncing, 0.13-0.23 s; `syncfs` 0.24 s but
//! it writes out everything dirty on the file system (another process's build too) and reports errors
//! only on recent kernels. A file system that cannot fsync a folder (`EINVAL`) is not an error.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How many threads fsync at once: the disk (or the host behind a virtual disk) takes several
/// flushes together, and each thread mostly waits.
const THREADS: usize = 8;

/// Starts writing `fh`'s data to the disk without waiting (Linux `sync_file_range` with
/// `SYNC_FILE_RANGE_WRITE`; nothing elsewhere): the fsync that [`Pending::sync`] makes later then
/// waits less. Best effort.
pub fn start(fh: &File) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd as _;
        // SAFETY: a valid open descriptor, offsets 0..0 (the whole file), a documented flag; the call
        // only schedules writeback and touches no memory of ours.
        unsafe {
            libc::sync_file_range(fh.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = fh;
}

/// Why a file or folder could not be made durable (the write stage's fsync), naming it.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    /// A file's fsync failed.
    #[error("{}: making it durable (fsync): {error}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// A folder's fsync failed.
    #[error("{}: making the folder durable (fsync): {error}", path.display())]
    Folder {
        /// The folder.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
}

/// Makes the file at `path` (never through a symbolic link) durable: its data and status.
pub fn file(path: &Path) -> Result<(), SyncError> {
    let named = |error| SyncError::File {
        path: path.to_path_buf(),
        error,
    };
    open(path, false).and_then(|f| f.sync_all()).map_err(named)
}

/// [`folder`] of a folder the write may have removed since it named it (a spare's folder pruned, a
/// folder a replayed journal names that is gone): a folder that is gone has nothing to sync, and its
/// removal is in its parent, which is synced too.
pub fn folder_if_there(dir: &Path) -> Result<(), SyncError> {
    unless_gone(dir, folder)
}

/// `op` on `path` unless nothing is there any more (see [`folder_if_there`]; a file written where
/// the new output then needs a folder is removed the same way).
fn unless_gone(path: &Path, op: fn(&Path) -> Result<(), SyncError>) -> Result<(), SyncError> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        _ => op(path),
    }
}

/// Makes folder `dir`'s entries durable (the names created, renamed or removed in it). Nothing where
/// folders cannot be opened (Windows) or the file system does not sync them.
pub fn folder(dir: &Path) -> Result<(), SyncError> {
    #[cfg(unix)]
    {
        // A folder named through a link the repository boundary admitted (`--out inside/x` with
        // `inside -> real`) is synced where the link leads.
        let done = match open(dir, true) {
            Err(e) if matches!(e.raw_os_error(), Some(libc::ENOTDIR | libc::ELOOP)) => {
                std::fs::canonicalize(dir).and_then(|real| open(&real, true))
            }
            other => other,
        }
        .and_then(|f| f.sync_all());
        match done {
            Err(error) if !matches!(error.raw_os_error(), Some(libc::EINVAL | libc::ENOTSUP)) => {
                Err(SyncError::Folder {
                    path: dir.to_path_buf(),
                    error,
                })
            }
            _ => Ok(()),
        }
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

/// [`folder`] of the folder holding `path` (`.` for a bare name).
pub fn parent(path: &Path) -> Result<(), SyncError> {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => folder(p),
        _ => folder(Path::new(".")),
    }
}

/// Opens `path` to fsync it: read-only and never through a link on Unix (fsync needs no write access
/// there); for writing elsewhere (Windows flushes only a handle open for writing).
fn open(path: &Path, dir: bool) -> std::io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        let flags = libc::O_NOFOLLOW | if dir { libc::O_DIRECTORY } else { 0 };
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(flags)
            .open(path)
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        std::fs::OpenOptions::new().write(true).open(path)
    }
}

/// What a staged write must make durable before its folder is published: the files it wrote and the
/// folders of its tree whose entries changed. Safe to fill from several threads.
#[derive(Debug, Default)]
pub struct Pending {
    /// The folder being filled: every marked folder's chain stops here.
    root: PathBuf,
    files: Mutex<Vec<PathBuf>>,
    folders: Mutex<std::collections::HashSet<PathBuf>>,
}

impl Pending {
    /// Nothing pending yet in the tree rooted at `root`.
    pub fn new(root: &Path) -> Pending {
        Pending {
            root: root.to_path_buf(),
            ..Pending::default()
        }
    }

    /// A file written at `path` through `fh`: its writeback starts now ([`start`]), its fsync waits
    /// for [`Pending::sync`], and its folder is marked ([`Pending::named`]).
    pub fn wrote(&self, path: &Path, fh: &File) {
        start(fh);
        if let Ok(mut files) = self.files.lock() {
            files.push(path.to_path_buf());
        }
        self.named(path);
    }

    /// A file put at `path` without a handle of ours (copied where links fail): fsynced by
    /// [`Pending::sync`], its folder marked.
    pub fn copied(&self, path: &Path) {
        if let Ok(mut files) = self.files.lock() {
            files.push(path.to_path_buf());
        }
        self.named(path);
    }

    /// An entry made, replaced or removed at `path` (a link, a removal, a new folder): the folder
    /// holding it and every folder above it up to the root are synced (a new folder's own name is in
    /// its parent).
    pub fn named(&self, path: &Path) {
        let Ok(mut folders) = self.folders.lock() else {
            return;
        };
        let mut at = path.parent();
        while let Some(dir) = at {
            // A folder already marked had its whole chain marked with it.
            if !folders.insert(dir.to_path_buf()) || dir == self.root || dir.as_os_str().is_empty()
            {
                break;
            }
            if !dir.starts_with(&self.root) {
                break;
            }
            at = dir.parent();
        }
    }

    /// Fsyncs every file written, then every folder marked and the root: after this, the tree is on
    /// the disk as it stands. The first failure is returned, naming its path.
    pub fn sync(&self) -> Result<(), SyncError> {
        let files = self.files.lock().map(|f| f.clone()).unwrap_or_default();
        all(&files, |p| unless_gone(p, file))?;
        let mut folders: Vec<PathBuf> = self
            .folders
            .lock()
            .map(|f| f.iter().cloned().collect())
            .unwrap_or_default();
        if !folders.contains(&self.root) {
            folders.push(self.root.clone());
        }
        all(&folders, folder_if_there)
    }

    /// How many files are waiting for their fsync.
    pub fn files(&self) -> usize {
        self.files.lock().map(|f| f.len()).unwrap_or_default()
    }
}

/// Runs `op` on every path, [`THREADS`] at a time; the first error is returned (the others still
/// run: each is a sync, harmless to finish).
pub fn all(paths: &[PathBuf], op: fn(&Path) -> Result<(), SyncError>) -> Result<(), SyncError> {
    if paths.len() <= 2 {
        return paths.iter().try_for_each(|p| op(p));
    }
    let next = AtomicUsize::new(0);
    let failed: Mutex<Option<SyncError>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..THREADS.min(paths.len()) {
            s.spawn(|| {
                while let Some(p) = paths.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if let Err(e) = op(p)
                        && let Ok(mut f) = failed.lock()
                    {
                        f.get_or_insert(e);
                    }
                }
            });
        }
    });
    match failed.into_inner() {
        Ok(Some(e)) => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let t = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("target/tmp")
            .join(format!("aifab-durable-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&t);
        std::fs::create_dir_all(&t).expect("scratch");
        t
    }

    /// A name marks its folder and every folder above it up to the root, and nothing above the root.
    #[test]
    fn a_name_marks_its_folders_up_to_the_root() {
        let root = PathBuf::from("/o/.x.aifab-tmp-1");
        let p = Pending::new(&root);
        p.named(&root.join("a/b/c.cfg"));
        p.named(&root.join("a/d.cfg"));
        p.named(&root.join("top.cfg"));
        let mut got: Vec<PathBuf> = p.folders.lock().expect("lock").iter().cloned().collect();
        got.sort();
        assert_eq!(got, vec![root.clone(), root.join("a"), root.join("a/b")]);
    }

    /// Files and folders sync; a missing file is an error that names it; a link is not followed.
    #[test]
    fn sync_reports_the_path_it_could_not_sync() {
        let t = scratch("sync");
        let f = t.join("f");
        let fh = File::create(&f).expect("create");
        let p = Pending::new(&t);
        p.wrote(&f, &fh);
        assert_eq!(p.files(), 1);
        assert!(p.sync().is_ok());
        let gone = t.join("gone");
        let e = all(&[f.clone(), gone.clone(), f.clone()], file).expect_err("missing");
        assert!(
            matches!(&e, SyncError::File { path, .. } if *path == gone),
            "{e}"
        );
        assert!(e.to_string().contains(&gone.display().to_string()), "{e}");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&f, t.join("l")).expect("link");
            assert!(file(&t.join("l")).is_err(), "a link is not followed");
        }
        assert!(parent(&f).is_ok());
        let _ = std::fs::remove_dir_all(&t);
    }
}
