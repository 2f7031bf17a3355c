//! Atomic output: fill a temporary folder next to the target, then swap it into place.
//!
//! An error or a kill mid-way leaves the previous output exactly as it was. A folder that holds files
//! aifab did not write and no [`MARKER`] is never replaced; in aifab's own folders, every file aifab
//! did not write (the manifest lists what it wrote) is carried into the new folder and named
//! ([`user`]). No link aifab did not create is followed: the output, the spare and the temporary
//! folder are refused or left alone when they are links.
//!
//! A write has two steps. **Staging** fills the temporary folder (`.NAME.aifab-tmp-PID`, or the spare
//! claimed under that name) and writes its manifest; nothing the user sees has changed. **Commit**
//! swaps it in and, when the render changed the allocation lock, renames the staged lock over it under
//! a journal ([`journal`]): output and lock change together, and a process killed in between is
//! finished or undone by the next aifab command. SIGINT, SIGTERM, SIGHUP and SIGQUIT during staging
//! remove what the run created ([`interrupt`]). Every file written and every folder whose entries
//! changed is fsynced before the rename that publishes it, the staged lock and the journal before the
//! commit begins, in the order [`durable`] gives: a power cut too leaves the old or the new pair. An
//! output folder (or its parent) that is read-only is refused before anything is staged.
//!
//! A re-render writes only the files whose bytes changed: every unchanged file of the previous output
//! is hard-linked into the new folder (no data written, no inode allocated, the file keeps its
//! modification time), unless the spare the render fills has its own copy of it (see [`spare`]), and
//! the previous output is only read until the swap. An index outside the folder records what was
//! written (see [`index`]), so the next re-render reads back only files whose status changed since.
//! `aifab render` keeps the previous tree as a spare for the next render to fill ([`spare`]) instead of
//! removing it. A render whose files hold secrets filled from the environment writes them owner-only
//! (0600), keeps no spare and no index: no copy and no hash of a secret stays behind.
//!
//! A render of part of the fabric (`--only`) into a folder aifab rendered before replaces only the
//! files whose bytes changed, in place, under a journal of its own ([`inplace`]): staging and swapping
//! the whole folder for one switch's files would cost as much as a full re-render.

mod carry;
mod doubt;
pub mod durable;
mod error;
mod index;
pub mod inplace;
pub mod interrupt;
pub mod journal;
mod manifest;
mod reuse;
mod spare;
mod stale;
mod sums;
mod swap;
mod user;

pub use doubt::Doubt;
pub use error::{FillError, WriteError};
pub use index::CACHE_ENV;
pub use manifest::{MARKER, Manifest, header as manifest};
pub use swap::{SwapError, swap as swap_folders};
pub use user::name_list;

use crate::render::OutFile;
use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Write as _};
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The manifest of output folder `dir` (never read through a link); `None` when there is none.
pub fn read_manifest(dir: &Path) -> Option<Manifest> {
    manifest::read(dir)
}

/// Whether the file at `path` holds exactly `bytes`, read in chunks (an 18 MB lock is compared
/// without reading it into memory whole). A symbolic link is not followed (it holds nothing); a
/// missing file or a folder holds nothing.
pub fn holds(path: &Path, bytes: &[u8]) -> bool {
    crate::files::open_no_follow(path).is_ok_and(|fh| reuse::holds(fh, bytes))
}

/// Test hook: when set to N, writing fails after N files, as an interrupted render would.
pub const FAIL_AFTER_ENV: &str = "AIFAB_TEST_FAIL_AFTER_FILES";

/// Why an output path is refused (the path named).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// Empty, absolute, or more than one line.
    #[error("output path `{0}` is not a relative path")]
    NotRelative(String),
    /// A `..`, `.` or root component: it would leave the output folder.
    #[error("output path `{0}` would leave the output folder")]
    Leaves(String),
}

/// Checks that an output path is relative, stays inside the output folder, and is one line.
pub fn safe_relative(path: &str) -> Result<PathBuf, PathError> {
    let p = Path::new(path);
    if path.is_empty() || p.is_absolute() || path.contains(['\n', '\r']) {
        return Err(PathError::NotRelative(path.to_string()));
    }
    for c in p.components() {
        match c {
            Component::Normal(s) if !s.is_empty() => {}
            _ => return Err(PathError::Leaves(path.to_string())),
        }
    }
    Ok(p.to_path_buf())
}

/// Whether `out` is an output aifab may replace: true when it is aifab's (its [`MARKER`]) or an empty
/// folder, false when there is nothing there; an error for a link, a file, or a folder of someone
/// else's.
fn may_replace(out: &Path) -> Result<bool, WriteError> {
    let (parent, _) = parent_and_name(out)?;
    if std::fs::symlink_metadata(&parent).is_ok_and(|m| m.is_dir()) {
        writable(&parent)?;
    }
    match std::fs::symlink_metadata(out) {
        Err(_) => Ok(false),
        Ok(m) if m.file_type().is_symlink() => Err(WriteError::Link(out.to_path_buf())),
        Ok(m) if !m.is_dir() => Err(WriteError::NotAFolder(out.to_path_buf())),
        Ok(_) => {
            writable(out)?;
            let mut entries = std::fs::read_dir(out).map_err(error::io(out))?;
            let marked = std::fs::symlink_metadata(out.join(MARKER)).is_ok_and(|m| m.is_file());
            if entries.next().is_none() || marked {
                Ok(true)
            } else {
                Err(WriteError::NotOurs(out.to_path_buf()))
            }
        }
    }
}

/// Refuses folder `dir` when this process cannot write it (its permissions, a read-only mount) or
/// when its permissions grant no one write access (`chmod a-w`: marked read-only, which root would
/// otherwise write through). Checked before anything is staged, so nothing is left behind.
fn writable(dir: &Path) -> Result<(), WriteError> {
    let refused = || WriteError::ReadOnly(dir.to_path_buf());
    let meta = std::fs::metadata(dir).map_err(error::io(dir))?;
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        use std::os::unix::fs::PermissionsExt as _;
        if meta.permissions().mode() & 0o222 == 0 {
            return Err(refused());
        }
        let c = std::ffi::CString::new(dir.as_os_str().as_bytes())
            .map_err(|e| error::io(dir)(e.into()))?;
        // SAFETY: a NUL-terminated path that outlives the call, which only reads it.
        let rc =
            unsafe { libc::faccessat(libc::AT_FDCWD, c.as_ptr(), libc::W_OK, libc::AT_EACCESS) };
        if rc != 0 {
            return Err(refused());
        }
    }
    #[cfg(not(unix))]
    if meta.permissions().readonly() {
        return Err(refused());
    }
    Ok(())
}

/// What becomes of the previous output after the swap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Previous {
    /// Removed (golden folders, blessing: nothing is left beside the folder).
    #[default]
    Remove,
    /// Kept beside the folder as the spare the next render fills ([`spare`]): a re-render then
    /// creates, links and removes only what changed.
    KeepAsSpare,
}

/// What a write did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// Files written (new or changed), the manifest included.
    pub written: usize,
    /// Files whose bytes were already in the previous output, linked from it.
    pub unchanged: usize,
}

/// The folder being filled: a temporary folder next to the output and, on a re-render, the previous
/// output, whose unchanged files are linked instead of written. Safe to fill from several threads.
pub struct Staging {
    dir: PathBuf,
    previous: Option<PathBuf>,
    /// The previous output's index: which of its files are known to hold which bytes.
    index: index::Index,
    /// When the folder being filled is a claimed spare: the spare's index (which of its files already
    /// hold which bytes) and what it held.
    spare: Option<(index::Index, spare::Held)>,
    /// Files of the previous output linked into the new one, with their hash and status (one inode
    /// under both names): the next spare's index.
    linked: Mutex<Vec<Entry>>,
    /// Every file put, by its path, with the hash of its bytes and its status as it was put: the new
    /// output's index.
    hashes: Mutex<Vec<Entry>>,
    /// Cleared when the file system refuses a hard link: every later file is written.
    links_work: AtomicBool,
    fail_after: Option<usize>,
    started: AtomicUsize,
    written: AtomicUsize,
    unchanged: AtomicUsize,
    /// The files hold filled secrets: written owner-only, and no file of an earlier render is reused.
    secrets: bool,
    /// Set until the first file is put (the `fill` point of [`interrupt::point`]).
    first: AtomicBool,
    /// The files written and the folders whose entries changed: synced before the swap ([`durable`]).
    pending: durable::Pending,
}

impl Staging {
    /// The temporary folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Puts one file into the folder, creating its sub-folders: kept where a claimed spare already
    /// holds its bytes, rewritten in place where the spare has its own copy, linked from the previous
    /// output when its bytes are the same there, written anew otherwise. Refuses paths that would
    /// leave the folder.
    pub fn put(&self, f: &OutFile) -> Result<(), WriteError> {
        if self.first.swap(false, Ordering::Relaxed) {
            interrupt::point("fill");
        }
        if let Some(sig) = interrupt::pending() {
            return Err(WriteError::Interrupted(sig));
        }
        if let Some(limit) = self.fail_after
            && self.started.fetch_add(1, Ordering::SeqCst) >= limit
        {
            return Err(WriteError::Injected { after: limit });
        }
        let rel = safe_relative(&f.path)?;
        let path = self.dir.join(&rel);
        let bytes = f.content.as_bytes();
        let hash = index::hash(bytes);
        // In a claimed spare, a file that already holds these bytes stays, and a file only the spare
        // has (a single link) is rewritten in place, even when the previous output holds the bytes:
        // linking that file instead would free its inode, and the next change would allocate one
        // again (see `spare`). Otherwise the previous output's file is linked when it holds the
        // bytes; anything else is written anew.
        let here = self
            .spare
            .as_ref()
            .and_then(|_| std::fs::symlink_metadata(&path).ok());
        if let (Some((ix, _)), Some(m)) = (&self.spare, &here)
            && spare_holds(ix.holds(&f.path, index::stamp(m), hash), m, &path, bytes)
        {
            self.unchanged.fetch_add(1, Ordering::Relaxed);
            self.record(&f.path, hash, index::stamp(m));
            return Ok(());
        }
        if let Some(m) = &here
            && reuse::only_link(m)
            && let Ok(fh) = reuse::rewrite(&path, bytes)
        {
            self.wrote(&f.path, &path, hash, &fh);
            return Ok(());
        }
        if self.linked_from_previous(&f.path, &rel, &path, bytes, hash) {
            return Ok(());
        }
        let fh = match &here {
            // The claimed spare's file here (shared with the previous output, or one that could not be
            // rewritten) is never written through: its name is taken away first, which saves
            // `write_new` a failed create and a look.
            Some(m) if !m.is_dir() => match std::fs::remove_file(&path) {
                Err(e) if e.kind() != ErrorKind::NotFound => Err(e),
                _ => write_new(&path, bytes, self.secrets),
            },
            _ => write_new(&path, bytes, self.secrets),
        };
        let fh = fh.map_err(error::io(&path))?;
        self.wrote(&f.path, &path, hash, &fh);
        Ok(())
    }

    /// Links the previous output's file at `rel` to `path` when it holds `bytes` (hashing to `hash`),
    /// and records it; false when it does not, or the link failed (links stop being tried when the
    /// file system has none).
    fn linked_from_previous(
        &self,
        name: &str,
        rel: &Path,
        path: &Path,
        bytes: &[u8],
        hash: u128,
    ) -> bool {
        let Some(previous) = &self.previous else {
            return false;
        };
        let old = previous.join(rel);
        if !self.links_work.load(Ordering::Relaxed) || !self.holds(name, &old, bytes, hash) {
            return false;
        }
        match link_new(&old, path) {
            Ok(()) => {
                // A new name for bytes already on the disk: only its folder is synced.
                self.pending.named(path);
                self.unchanged.fetch_add(1, Ordering::Relaxed);
                // Read after the link, which changed it (the previous output's removal would
                // change it again: see `write_indexes`).
                let stamp = std::fs::symlink_metadata(path)
                    .ok()
                    .as_ref()
                    .and_then(index::stamp);
                self.record(name, hash, stamp);
                if let Ok(mut linked) = self.linked.lock() {
                    linked.push((name.to_string(), hash, stamp));
                }
                true
            }
            Err(e) => {
                if reuse::links_unsupported(&e) {
                    self.links_work.store(false, Ordering::Relaxed);
                }
                false
            }
        }
    }

    /// Counts and records a file written (anew or in place) at `path` through the open handle `fh`.
    fn wrote(&self, rel: &str, path: &Path, hash: u128, fh: &File) {
        self.pending.wrote(path, fh);
        self.written.fetch_add(1, Ordering::Relaxed);
        self.record(
            rel,
            hash,
            fh.metadata().ok().as_ref().and_then(index::stamp),
        );
    }

    /// True when the previous output's file `old` (at `rel`) holds `bytes` (hashing to `hash`): known
    /// from the index when the file is as recorded there, read and compared otherwise.
    fn holds(&self, rel: &str, old: &Path, bytes: &[u8], hash: u128) -> bool {
        if self.index.is_empty() {
            return reuse::same_bytes(old, bytes);
        }
        let now = std::fs::symlink_metadata(old)
            .ok()
            .as_ref()
            .and_then(index::stamp);
        match self.index.holds(rel, now, hash) {
            index::Known::Same => true,
            index::Known::Different => false,
            index::Known::Unknown => reuse::same_bytes(old, bytes),
        }
    }

    fn record(&self, rel: &str, hash: u128, stamp: Option<index::Stamp>) {
        if let Ok(mut hashes) = self.hashes.lock() {
            hashes.push((rel.to_string(), hash, stamp));
        }
    }

    fn done(&self) -> Written {
        Written {
            written: self.written.load(Ordering::SeqCst),
            unchanged: self.unchanged.load(Ordering::SeqCst),
        }
    }
}

/// Whether a claimed spare's file (status `m`, at `path`) already holds `bytes`: what its index says,
/// else, for a file of the same size, what reading it says (a spare whose files changed their status,
/// e.g. when the render before unlinked their second name, is still worth a read rather than a write).
fn spare_holds(known: index::Known, m: &std::fs::Metadata, path: &Path, bytes: &[u8]) -> bool {
    match known {
        index::Known::Same => true,
        index::Known::Different => false,
        index::Known::Unknown => {
            m.is_file() && m.len() == bytes.len() as u64 && reuse::same_bytes(path, bytes)
        }
    }
}

/// Runs `op` on `path`; when it fails because the parent folder is missing, creates it and retries.
/// (Creating the folder only on demand saves a system call or two per file.)
fn with_parent<T>(path: &Path, op: impl Fn() -> std::io::Result<T>) -> std::io::Result<T> {
    match op() {
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            if let Some(parent) = path.parent() {
                make_dir(parent)?;
            }
            op()
        }
        r => r,
    }
}

/// Creates folder `dir` and its parents; a file in the way (a claimed spare's file where the new
/// output has a folder) is removed first.
fn make_dir(dir: &Path) -> std::io::Result<()> {
    match std::fs::create_dir_all(dir) {
        Err(e)
            if matches!(
                e.kind(),
                ErrorKind::AlreadyExists | ErrorKind::NotADirectory
            ) =>
        {
            let mut ancestors: Vec<&Path> = dir.ancestors().collect();
            ancestors.reverse();
            for a in ancestors {
                if std::fs::symlink_metadata(a).is_ok_and(|m| !m.is_dir()) {
                    std::fs::remove_file(a)?;
                    break;
                }
            }
            std::fs::create_dir_all(dir)
        }
        r => r,
    }
}

/// Removes whatever is at `path` (a file, a link, or a folder of a claimed spare where the new output
/// has a file).
fn clear(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Hard-links the previous output's file `old` at `path`, replacing what is there.
fn link_new(old: &Path, path: &Path) -> std::io::Result<()> {
    match with_parent(path, || std::fs::hard_link(old, path)) {
        Err(e) if e.kind() == ErrorKind::AlreadyExists => {
            clear(path)?;
            std::fs::hard_link(old, path)
        }
        r => r,
    }
}

/// Writes `bytes` to a new file at `path` (owner-only when `private`). Never writes through an existing
/// file: one there (a link to the previous output) is unlinked first, so the previous output cannot
/// change before the swap.
fn write_new(path: &Path, bytes: &[u8], private: bool) -> std::io::Result<File> {
    let create = || {
        let mut o = OpenOptions::new();
        o.write(true).create_new(true);
        #[cfg(unix)]
        if private {
            std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
        }
        #[cfg(not(unix))]
        let _ = private;
        o.open(path)
    };
    let mut fh: File = match with_parent(path, create) {
        Err(e) if e.kind() == ErrorKind::AlreadyExists => {
            clear(path)?;
            create()?
        }
        r => r?,
    };
    // Durability is the caller's: a staged write syncs its files together before the swap
    // ([`durable`]).
    fh.write_all(bytes)?;
    Ok(fh)
}

/// Writes `files` as the complete content of folder `out`, atomically.
pub fn write_tree(out: &Path, files: &[OutFile]) -> Result<Written, WriteError> {
    write_with(out, |stage| {
        files.iter().try_for_each(|f| stage.put(f))?;
        Ok(())
    })
}

/// Fills a temporary folder next to `out` with `fill`, marks it as aifab's, and swaps it into place.
/// On any error the temporary folder is removed and `out` is left exactly as it was.
pub fn write_with(
    out: &Path,
    fill: impl FnOnce(&Staging) -> Result<(), FillError> + Send,
) -> Result<Written, WriteError> {
    write_keeping(out, None, Previous::Remove, fill)
}

/// [`write_with`] for a render of part of the fabric (`--only`): every file of the previous output
/// that `fill` did not write and `keep` accepts (by its path relative to the folder) is carried into
/// the new folder unchanged, so the rest of the fabric's files stay as they were. `previous` says
/// whether the previous output is removed or kept as the next render's spare.
pub fn write_keeping(
    out: &Path,
    keep: Option<&dyn Fn(&str) -> bool>,
    previous: Previous,
    fill: impl FnOnce(&Staging) -> Result<(), FillError> + Send,
) -> Result<Written, WriteError> {
    let options = Options {
        keep,
        previous,
        ..Options::default()
    };
    write_job(out, &options, |stage| fill(stage).map(|()| None))
        .map(|r| r.written)
        .map_err(|f| f.error)
}

/// How a write treats the folder it replaces.
#[derive(Default)]
pub struct Options<'a> {
    /// With `--only`: the files of the previous output carried over unchanged (by path).
    pub keep: Option<&'a dyn Fn(&str) -> bool>,
    /// What becomes of the previous output.
    pub previous: Previous,
    /// The files hold secrets filled from the environment: written owner-only (0600); no spare is kept
    /// (an earlier one is removed) and no file index, so no copy or hash of a secret stays behind.
    pub secrets: bool,
    /// The paths a render of this fabric writes: what of a folder whose manifest (written by an earlier
    /// aifab) lists no files is taken for aifab's. Without it, every file this render does not write
    /// is kept as the user's.
    pub ours: Option<&'a (dyn Fn(&str) -> bool + Sync)>,
}

/// The allocation lock, committed with the output folder (see [`journal`]).
#[derive(Debug)]
pub struct Companion {
    /// The manifest's record of the lock: its file name, entry counts and hash.
    pub record: String,
    /// The staged new lock's text and the lock file it replaces; `None` when the lock file already
    /// holds the text.
    pub staged: Option<(PathBuf, PathBuf)>,
    /// The hash of the new lock's text ([`index`]'s hash, as the record names it), recorded in the
    /// journal: the staged lock is renamed into place only while it holds those bytes.
    pub hash: u128,
}

/// What a write did.
#[derive(Debug, Default)]
pub struct Report {
    /// Files written and kept.
    pub written: Written,
    /// Entries of the folder aifab did not write, carried over unchanged (paths relative to it).
    pub kept: Vec<String>,
    /// Temporary folders of interrupted renders (of processes that no longer run), removed.
    pub stale: Vec<PathBuf>,
    /// A note for the user: no spare was kept because the spare's path is a link, and the like.
    pub notes: Vec<String>,
}

/// Why a write failed, and what it changed.
#[derive(Debug)]
pub struct Failure {
    /// What went wrong.
    pub error: WriteError,
    /// Whether the output folder changed (it then holds the new output, and the lock could not be
    /// put beside it: the journal left says so, and the next aifab command finishes it).
    pub changed: bool,
    /// The signal that stopped the write, if one did.
    pub signal: Option<i32>,
}

impl Failure {
    fn unchanged(error: impl Into<WriteError>) -> Failure {
        Failure {
            error: error.into(),
            changed: false,
            signal: None,
        }
    }
}

/// Writes the output folder `out` in two steps, [`stage`] and [`commit`] (see the module doc): `fill`
/// puts every file and returns the lock to commit with it, if any.
pub fn write_job(
    out: &Path,
    options: &Options,
    fill: impl FnOnce(&Staging) -> Result<Option<Companion>, FillError> + Send,
) -> Result<Report, Failure> {
    interrupt::busy(true);
    let result = stage(out, options, fill).and_then(|staged| commit(staged, options));
    interrupt::busy(false);
    result
}

/// A filled temporary folder, its manifest written, waiting for [`commit`].
pub struct Staged {
    stage: Staging,
    out: PathBuf,
    exists: bool,
    aside: PathBuf,
    spare: Option<PathBuf>,
    companion: Option<Companion>,
    /// The previous output's record of the lock (its manifest's `lock:` line), for the journal.
    was: Option<String>,
    report: Report,
}

/// The first step of a write: checks `out` (not a link, aifab's or empty, no git repository in it),
/// removes what interrupted renders left beside it, claims the spare, fills the temporary folder with
/// `fill`, carries the user's files over and writes the manifest. On any error or signal the temporary
/// folder is removed, and nothing the user sees has changed.
pub fn stage(
    out: &Path,
    options: &Options,
    fill: impl FnOnce(&Staging) -> Result<Option<Companion>, FillError> + Send,
) -> Result<Staged, Failure> {
    // An interrupted in-place write (`--only`) is finished or undone first: its files are aifab's.
    let settled = inplace::settle(out).map_err(Failure::unchanged)?;
    let exists = may_replace(out).map_err(Failure::unchanged)?;
    let (parent, name) = parent_and_name(out).map_err(Failure::unchanged)?;
    std::fs::create_dir_all(&parent).map_err(|e| Failure::unchanged(error::io(&parent)(e)))?;
    let mut report = Report {
        stale: stale::folders(&parent, &name),
        notes: settled.into_iter().collect(),
        ..Report::default()
    };
    let previous = if exists { manifest::read(out) } else { None };
    let pid = std::process::id();
    let tmp = parent.join(format!(".{name}.aifab-tmp-{pid}"));
    let aside = parent.join(format!(".{name}.aifab-old-{pid}"));
    let spare_dir = spare_for(&parent, &name, options, &mut report);
    clear(&tmp).map_err(|e| Failure::unchanged(error::io(&tmp)(e)))?;
    let mut stage = Staging::new(&tmp, exists.then_some(out), spare_dir.as_deref());
    stage.secrets = options.secrets;
    let made = match &stage.spare {
        Some(_) => Ok(()),
        None => std::fs::create_dir(&tmp),
    };
    let listed = previous.as_ref().and_then(|m| m.files.as_ref());
    let from_index = (listed.is_none() && !stage.index.is_empty()).then(|| {
        stage
            .index
            .entries()
            .map(|(r, _, _)| r.to_string())
            .collect()
    });
    let listed = listed.or(from_index.as_ref());
    let known = listed.is_some() || options.ours.is_some();
    let ours = options.ours;
    let filled = made
        .map_err(error::io(&tmp))
        .and_then(|()| {
            let (companion, users) = rayon::join(
                || fill(&stage).map_err(WriteError::Fill),
                || match exists {
                    true => user::survey(out, listed, ours),
                    false => Ok(Vec::new()),
                },
            );
            Ok((companion?, users?))
        })
        .and_then(|(companion, users)| {
            stage.prune();
            // A partial render (`keep`) writes no lock: the record of the last full render stays.
            let kept_record = previous
                .as_ref()
                .and_then(|m| m.lock.as_deref())
                .filter(|_| options.keep.is_some());
            let record = companion.as_ref().map(|c| c.record.as_str());
            let record = record.or(kept_record);
            let before = Before {
                known,
                manifest: previous.as_ref(),
            };
            finish_stage(&stage, out, exists, options, before, users, record)
                .map(|kept| (companion, kept))
        })
        .and_then(|done| {
            // Every byte and name of the staged tree on the disk, and the temporary folder's own
            // name beside the output, before anything publishes them ([`durable`], step 2).
            stage.pending.sync()?;
            durable::folder(&parent)?;
            Ok(done)
        });
    let (companion, kept) = match filled {
        Ok(x) => x,
        Err(error) => {
            remove_tree(&tmp);
            return Err(Failure {
                signal: interrupt::pending(),
                ..Failure::unchanged(error)
            });
        }
    };
    report.kept = kept;
    not_interrupted_after_staging(&tmp)?;
    Ok(Staged {
        stage,
        out: out.to_path_buf(),
        exists,
        aside,
        spare: spare_dir,
        companion,
        was: previous.and_then(|m| m.lock),
        report,
    })
}

/// The stage `tmp` is filled: a signal that came meanwhile removes it, and the write stops there.
fn not_interrupted_after_staging(tmp: &Path) -> Result<(), Failure> {
    interrupt::point("staged");
    if let Some(sig) = interrupt::pending() {
        remove_tree(tmp);
        return Err(Failure {
            signal: Some(sig),
            ..Failure::unchanged(WriteError::Interrupted(sig))
        });
    }
    Ok(())
}

/// The spare the render fills and keeps, if any: none for a render that fills secrets (an earlier
/// spare is removed) or that keeps no spare, and none when the spare's path is not a folder aifab can
/// use (a link is left alone, and said).
fn spare_for(parent: &Path, name: &str, options: &Options, report: &mut Report) -> Option<PathBuf> {
    let path = spare::path(parent, name);
    let meta = std::fs::symlink_metadata(&path).ok();
    if meta.as_ref().is_some_and(|m| !m.is_dir()) {
        report.notes.push(format!(
            "{} is not a folder aifab made (a link or a file): it is left alone, and no spare is kept beside {name}",
            path.display()
        ));
        return None;
    }
    if options.secrets {
        if meta.is_some() {
            forget_index(&path);
            remove_tree(&path);
        }
        return None;
    }
    (options.previous == Previous::KeepAsSpare).then_some(path)
}

/// What the folder being replaced says of itself: whether anything says what aifab wrote there
/// (`known`: a listing, an index, or the caller's `ours`), and its manifest.
struct Before<'a> {
    known: bool,
    manifest: Option<&'a Manifest>,
}

/// After `fill`: carries the `--only` files and the user's entries `users` over (refusing a file
/// written where one of the user's stands) and writes the manifest, each file with the hash of its
/// bytes; returns the user's entries kept. A file the previous manifest lists that this render does not
/// write, and whose bytes are not the ones aifab wrote there, is the user's ([`user::unverified`]).
fn finish_stage(
    stage: &Staging,
    out: &Path,
    exists: bool,
    options: &Options,
    before: Before,
    mut users: Vec<user::Entry>,
    lock: Option<&str>,
) -> Result<Vec<String>, WriteError> {
    let hashes = stage.hashes.lock().map_err(|_| WriteError::Thread)?;
    let put: std::collections::HashSet<&str> = hashes.iter().map(|(r, _, _)| r.as_str()).collect();
    if let (Some(m), true) = (before.manifest, exists) {
        users.extend(user::unverified(out, m, &put, &stage.index, options.ours));
        users.sort();
        users.dedup();
    }
    user::collisions(out, &mut users, &put, before.known)?;
    let mut carried = Vec::new();
    if let (Some(keep), true) = (options.keep, exists) {
        carried = carry::carry(out, &stage.dir, keep)?;
    }
    user::carry(out, &stage.dir, &users)?;
    let user_paths: std::collections::HashSet<&str> =
        users.iter().map(|(r, _)| r.as_str()).collect();
    let mut files: Vec<(&str, Option<u128>)> = hashes
        .iter()
        .map(|(r, h, _)| (r.as_str(), Some(*h)))
        .collect();
    files.extend(
        carried
            .iter()
            .map(String::as_str)
            .filter(|r| !user_paths.contains(r) && !put.contains(r))
            .map(|r| (r, before.manifest.and_then(|m| m.entry(r)).flatten())),
    );
    // Carried files are new names for bytes already on the disk, unless the file system refused the
    // links and they were copied.
    let copied = !stage.links_work.load(Ordering::Relaxed);
    for rel in carried
        .iter()
        .map(String::as_str)
        .chain(user_paths.iter().copied())
    {
        let path = stage.dir.join(rel);
        match copied && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            true => stage.pending.copied(&path),
            false => stage.pending.named(&path),
        }
    }
    let text = manifest::text(lock, &mut files);
    let marker = stage.dir.join(MARKER);
    let fh = write_new(&marker, text.as_bytes(), false).map_err(error::io(&stage.dir))?;
    stage.pending.wrote(&marker, &fh);
    stage.written.fetch_add(1, Ordering::Relaxed);
    Ok(users.into_iter().map(|(r, _)| r).collect())
}

/// The second step of a write: swaps the staged folder in and, with a changed lock, renames the staged
/// lock over it under the journal (see the module doc); then parks the previous output as the spare
/// (or removes it) and writes the indexes. A failure before the swap changes nothing; a lock that
/// cannot be renamed after the swap puts the previous output back.
pub fn commit(staged: Staged, options: &Options) -> Result<Report, Failure> {
    let Staged {
        stage,
        out,
        exists,
        aside,
        spare,
        companion,
        was,
        mut report,
    } = staged;
    let tmp = stage.dir.clone();
    let abandon = |error: WriteError| {
        remove_tree(&tmp);
        Failure::unchanged(error)
    };
    let lock = companion.as_ref().and_then(|c| c.staged.clone());
    let journal = durable_journal(&out, companion.as_ref(), was).map_err(abandon)?;
    interrupt::point("journaled");
    let old = match swap::swap(&tmp, &out, &aside, exists) {
        Ok(old) => old,
        Err(e) => {
            if let Some(j) = &journal {
                let _ = std::fs::remove_file(j);
            }
            return Err(abandon(e.into()));
        }
    };
    // The swap on the disk before the lock moves (step 4); a failure here or after keeps the journal,
    // which the next aifab command settles.
    let mut unsynced: Vec<String> = durable::parent(&out)
        .err()
        .into_iter()
        .map(|e| e.to_string())
        .collect();
    interrupt::point("swapped");
    if let Some((staged_lock, target)) = &lock {
        if let Err(e) = std::fs::rename(staged_lock, target) {
            let paths = (tmp.as_path(), out.as_path(), aside.as_path());
            let lock = (staged_lock.as_path(), target.as_path());
            return Err(undo_swap(paths, old, journal.as_deref(), lock, e));
        }
        unsynced.extend(durable::parent(target).err().map(|e| e.to_string()));
    }
    interrupt::point("locked");
    report
        .notes
        .extend(remove_journal(journal.as_deref(), unsynced));
    interrupt::point("committed");
    let mut written = stage.done();
    written.written = written.written.max(1);
    report.written = written;
    let (parked, removed) = match (old, &spare) {
        (Some(old), Some(s)) if spare::park(&old, s) => (Some(s.as_path()), false),
        (Some(old), _) => {
            remove_tree(&old);
            (None, true)
        }
        (None, _) => (None, false),
    };
    if options.secrets {
        forget_index(&out);
    } else {
        stage.write_indexes(&out, parked, removed);
    }
    Ok(report)
}

/// With a changed lock (`companion` names a staged one): the staged lock made durable, then the
/// journal of output `out` written and made durable with its folder ([`durable`], step 3); its path.
/// `None` without a lock to commit. On an error nothing of the journal is left.
fn durable_journal(
    out: &Path,
    companion: Option<&Companion>,
    was: Option<String>,
) -> Result<Option<PathBuf>, WriteError> {
    let Some((c, (staged_lock, target))) =
        companion.and_then(|c| c.staged.as_ref().map(|s| (c, s)))
    else {
        return Ok(None);
    };
    let entry = journal::Entry {
        pid: std::process::id(),
        start: crate::files::process_start(std::process::id()),
        out: journal::out_from_lock(target, out).ok_or_else(|| WriteError::Unnamed {
            out: out.to_path_buf(),
            lock: target.to_path_buf(),
        })?,
        was,
        record: c.record.clone(),
        lock: c.hash,
    };
    durable::file(staged_lock)?;
    let j = journal::write(target, &entry)?;
    if let Err(e) = durable::file(&j).and_then(|()| durable::parent(&j)) {
        let _ = std::fs::remove_file(&j);
        return Err(e.into());
    }
    Ok(Some(j))
}

/// The last step of a commit: removes the journal, unless a sync after the swap failed (`unsynced`):
/// then it stays for the next aifab command to settle. Returns the notes to print.
fn remove_journal(journal: Option<&Path>, unsynced: Vec<String>) -> Vec<String> {
    match (journal, unsynced.is_empty()) {
        (Some(j), true) => {
            let _ = std::fs::remove_file(j);
            Vec::new()
        }
        (Some(j), false) => vec![format!(
            "{}; the journal {} stays for the next aifab command",
            unsynced.join("; "),
            j.display()
        )],
        (None, _) => unsynced,
    }
}

/// After a swap whose lock could not be renamed into place (`e`): swaps the previous output back and
/// removes the staged files, so nothing changed; when even that fails, the journal stays for the next
/// aifab command to finish the change.
fn undo_swap(
    paths: (&Path, &Path, &Path),
    old: Option<PathBuf>,
    journal: Option<&Path>,
    (staged_lock, target): (&Path, &Path),
    e: std::io::Error,
) -> Failure {
    let (tmp, out, aside) = paths;
    let back = match &old {
        // Where the new output went when the previous one came back.
        Some(old) => swap::swap(old, out, aside, true).ok().flatten(),
        None => std::fs::rename(out, tmp).is_ok().then(|| tmp.to_path_buf()),
    };
    if let Some(new) = back {
        // The previous output back, and the staged lock gone, on the disk before the journal goes.
        let _ = durable::parent(out);
        remove_tree(&new);
        let _ = std::fs::remove_file(staged_lock);
        let _ = durable::parent(staged_lock);
        if let Some(j) = journal {
            let _ = std::fs::remove_file(j);
        }
        return Failure::unchanged(error::io(target)(e));
    }
    Failure {
        error: WriteError::LockNotPlaced {
            out: out.to_path_buf(),
            lock: target.to_path_buf(),
            source: e,
            journal: journal.map(Path::to_path_buf),
        },
        changed: true,
        signal: None,
    }
}

/// Removes the index of output folder `out`: a render that filled secrets keeps none.
fn forget_index(out: &Path) {
    if let Some(file) = index::location(out) {
        let _ = std::fs::remove_file(file);
    }
}

/// The folder that holds `out`, and `out`'s own name.
fn parent_and_name(out: &Path) -> Result<(PathBuf, String), WriteError> {
    let name = out
        .file_name()
        .ok_or_else(|| WriteError::NoName(out.to_path_buf()))?
        .to_string_lossy()
        .into_owned();
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((parent, name))
}

impl Staging {
    /// A staging folder `tmp` replacing `previous` (when there is an output to replace), filled from
    /// the spare at `spare` when one can be claimed (renamed to `tmp`), else from nothing.
    fn new(tmp: &Path, previous: Option<&Path>, spare: Option<&Path>) -> Staging {
        Staging {
            dir: tmp.to_path_buf(),
            previous: previous.map(Path::to_path_buf),
            index: previous.map(index::Index::load).unwrap_or_default(),
            spare: spare.and_then(|s| {
                let ix = index::Index::load(s);
                spare::claim(s, tmp).then(|| (ix, spare::survey(tmp)))
            }),
            linked: Mutex::new(Vec::new()),
            hashes: Mutex::new(Vec::new()),
            links_work: AtomicBool::new(true),
            fail_after: std::env::var(FAIL_AFTER_ENV)
                .ok()
                .and_then(|v| v.parse().ok()),
            started: AtomicUsize::new(0),
            written: AtomicUsize::new(0),
            unchanged: AtomicUsize::new(0),
            secrets: false,
            first: AtomicBool::new(true),
            pending: durable::Pending::new(tmp),
        }
    }

    /// In a claimed spare: removes what the render did not put.
    fn prune(&self) {
        let (Some((_, held)), Ok(hashes)) = (&self.spare, self.hashes.lock()) else {
            return;
        };
        let put: std::collections::HashSet<&str> =
            hashes.iter().map(|(r, _, _)| r.as_str()).collect();
        // The spare's files and folders the render did not put are gone: their folders changed.
        for gone in spare::prune(&self.dir, held, &put) {
            self.pending.named(&self.dir.join(gone));
        }
    }

    /// Writes the index of the new output `out` and, when the previous output was parked as the spare
    /// `parked`, the spare's: the files linked from it into the new output, and the files of the
    /// previous output's index with the status recorded there (a file changed since no longer has
    /// it, and is read when next compared). When the previous output was `removed`, its unlinked
    /// names changed the status of files the new output shares with it: every status is read again.
    fn write_indexes(self, out: &Path, parked: Option<&Path>, removed: bool) {
        let mut hashes = self.hashes.into_inner().unwrap_or_default();
        if removed {
            hashes.iter_mut().for_each(|e| e.2 = None);
        }
        write_index(out, hashes);
        let Some(spare) = parked else { return };
        let linked = self.linked.into_inner().unwrap_or_default();
        let seen: std::collections::HashSet<&str> =
            linked.iter().map(|(r, _, _)| r.as_str()).collect();
        let mut entries: Vec<Entry> = self
            .index
            .entries()
            .filter(|(rel, _, _)| !seen.contains(rel))
            .map(|(rel, hash, stamp)| (rel.to_string(), hash, Some(stamp)))
            .collect();
        entries.extend(linked);
        write_index(spare, entries);
    }
}

/// An index entry in the making: a file's path relative to its folder, the hash of its bytes, and its
/// status when known (`None`: read from the file when the index is written).
type Entry = (String, u128, Option<index::Stamp>);

/// Writes the index of folder `dir` ([`index::location`]): each file's hash and its status, as given or
/// read now. Best effort, and atomic (a new file renamed over the old): without it the next render
/// reads the files back, as without an index. An index that already holds these bytes is left alone.
fn write_index(dir: &Path, mut entries: Vec<Entry>) {
    use rayon::prelude::*;
    let Some(file) = index::location(dir) else {
        return;
    };
    entries.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let lines: Vec<Option<String>> = entries
        .par_iter()
        .map(|(rel, hash, known)| {
            let now = match known {
                Some(s) => *s,
                None => index::stamp(&std::fs::symlink_metadata(dir.join(rel)).ok()?)?,
            };
            index::line(rel, *hash, &now)
        })
        .collect();
    let text: String = lines.into_iter().flatten().collect();
    // A render that changed nothing since the one before leaves both indexes as they were: reading one
    // back costs less than writing it, and replacing it would free a file for the next to allocate.
    if holds(&file, text.as_bytes()) {
        return;
    }
    let new = file.with_extension(format!("new-{}", std::process::id()));
    let saved = file
        .parent()
        .is_some_and(|d| std::fs::create_dir_all(d).is_ok())
        && write_new(&new, text.as_bytes(), true).is_ok()
        && std::fs::rename(&new, &file).is_ok();
    if !saved {
        let _ = std::fs::remove_file(&new);
    }
}

/// Removes the previous output after the swap, its top-level entries in parallel: on a re-render most
/// of its files are links to the new output, so this is mostly unlinking names and removing folders.
/// Best effort: what cannot be removed stays behind, hidden, beside the output.
fn remove_tree(dir: &Path) {
    use rayon::prelude::*;
    if let Ok(entries) = std::fs::read_dir(dir) {
        let entries: Vec<_> = entries.flatten().collect();
        entries.par_iter().for_each(|e| {
            let path = e.path();
            let _ = match e.file_type() {
                Ok(t) if t.is_dir() => std::fs::remove_dir_all(&path),
                _ => std::fs::remove_file(&path),
            };
        });
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[(&str, &str)]) -> Vec<OutFile> {
        list.iter()
            .map(|(p, c)| OutFile {
                path: p.to_string(),
                content: c.to_string(),
                device: String::new(),
            })
            .collect()
    }

    /// A scratch folder under `target/tmp` (never the system temp folder), removed first.
    fn scratch(name: &str) -> PathBuf {
        let t = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("target/tmp")
            .join(format!("aifab-{name}-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&t);
        t
    }

    /// Removes the scratch folder `t` and the indexes of its output and spare.
    fn forget(t: &Path) {
        for dir in [t.join("out"), t.join(".out.aifab-spare")] {
            if let Some(file) = index::location(&dir) {
                let _ = std::fs::remove_file(file);
            }
        }
        let _ = std::fs::remove_dir_all(t);
    }

    /// Every file under `dir` and its text, the manifest left out.
    fn read_back(dir: &Path) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut todo = vec![dir.to_path_buf()];
        while let Some(d) = todo.pop() {
            for e in std::fs::read_dir(&d).expect("read").flatten() {
                let p = e.path();
                if p.is_dir() {
                    todo.push(p);
                } else if e.file_name() != MARKER {
                    let rel = p.strip_prefix(dir).expect("inside").to_string_lossy();
                    out.push((rel.into_owned(), std::fs::read_to_string(&p).expect("text")));
                }
            }
        }
        out.sort();
        out
    }

    /// A claimed spare whose files stand where the new output has folders, and folders where it has
    /// files, still gives exactly the new output.
    #[test]
    fn a_spare_with_files_and_folders_swapped_gives_the_new_output() {
        let t = scratch("spare");
        let out = t.join("out");
        let put = |list: &[(&str, &str)]| {
            let fs = files(list);
            write_keeping(&out, None, Previous::KeepAsSpare, |stage| {
                fs.iter().try_for_each(|f| stage.put(f))?;
                Ok(())
            })
            .expect("write");
            let mut want: Vec<(String, String)> = list
                .iter()
                .map(|(p, c)| (p.to_string(), c.to_string()))
                .collect();
            want.sort();
            assert_eq!(read_back(&out), want);
        };
        let a = [("x", "1"), ("d/f", "2"), ("d/g", "3")];
        let b = [("x/y", "4"), ("d", "5"), ("e/h", "6")];
        put(&a);
        put(&a);
        assert!(t.join(".out.aifab-spare").is_dir());
        put(&b);
        put(&a);
        put(&b);
        put(&b);
        forget(&t);
    }

    /// Asserts that every entry of the index of `dir` records the status its file has now (the status
    /// taken as each file was put, not read after the swap, must be the final one), and returns how
    /// many entries there are.
    fn index_is_current(dir: &Path) -> usize {
        let file = index::location(dir).expect("a cache folder");
        let text = std::fs::read_to_string(&file).expect("the index is written");
        for line in text.lines() {
            let (rel, (_, recorded)) = index::parse(line).expect("an index line");
            let m = std::fs::symlink_metadata(dir.join(&rel)).expect("the file is there");
            assert_eq!(
                Some(recorded),
                index::stamp(&m),
                "{rel} in {}",
                dir.display()
            );
        }
        text.lines().count()
    }

    /// After every kind of write (new, unchanged, changed, files and folders swapped; the previous
    /// output kept as the spare or removed) the new output's index holds every file with its status
    /// as it is after the render, so the next render trusts it without reading a file.
    #[test]
    fn the_index_records_each_file_as_it_stands_after_the_render() {
        let t = scratch("index");
        let out = t.join("out");
        let put = |list: &[(&str, &str)], previous: Previous| {
            let fs = files(list);
            write_keeping(&out, None, previous, |stage| {
                fs.iter().try_for_each(|f| stage.put(f))?;
                Ok(())
            })
            .expect("write");
            assert_eq!(index_is_current(&out), list.len(), "{list:?}");
        };
        let a = [("x", "1"), ("d/f", "2"), ("d/g", "3")];
        let a2 = [("x", "1"), ("d/f", "changed"), ("d/g", "3")];
        let b = [("x/y", "4"), ("d", "5"), ("e/h", "6")];
        for previous in [Previous::KeepAsSpare, Previous::Remove] {
            for list in [&a[..], &a, &a2, &a, &b, &a, &a, &b, &b] {
                put(list, previous);
            }
        }
        forget(&t);
    }

    /// Renders that change nothing leave both indexes untouched once their text is settled (the same
    /// file, not a new one with the same text), and a render that changes a file rewrites them.
    #[cfg(unix)]
    #[test]
    fn settled_indexes_are_left_alone() {
        use std::os::unix::fs::MetadataExt as _;
        let t = scratch("settled");
        let (out, spare) = (t.join("out"), t.join(".out.aifab-spare"));
        let put = |list: &[(&str, &str)]| {
            let fs = files(list);
            write_keeping(&out, None, Previous::KeepAsSpare, |stage| {
                fs.iter().try_for_each(|f| stage.put(f))?;
                Ok(())
            })
            .expect("write");
        };
        let ids = || {
            [&out, &spare].map(|d| {
                let file = index::location(d).expect("a cache folder");
                let m = std::fs::metadata(&file).expect("an index");
                (m.ino(), std::fs::read(&file).expect("read"))
            })
        };
        let a = [("x", "1"), ("d/f", "2"), ("d/g", "3")];
        for _ in 0..4 {
            put(&a);
        }
        let settled = ids();
        put(&a);
        assert_eq!(ids(), settled, "nothing changed: the same index files");
        put(&[("x", "1"), ("d/f", "changed"), ("d/g", "3")]);
        let changed = ids();
        assert_ne!(changed[0].1, settled[0].1, "the output's index text");
        assert_ne!(
            changed[0].0, settled[0].0,
            "the output's index written anew"
        );
        assert_eq!(index_is_current(&out), 3);
        forget(&t);
    }

    #[test]
    fn paths_stay_inside() {
        assert!(safe_relative("a/b.cfg").is_ok());
        assert_eq!(safe_relative("../x"), Err(PathError::Leaves("../x".into())));
        assert_eq!(
            safe_relative("/etc/passwd"),
            Err(PathError::NotRelative("/etc/passwd".into()))
        );
        assert!(safe_relative("a/../../x").is_err());
        assert!(safe_relative("").is_err());
    }
}
