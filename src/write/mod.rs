//! Atomic output: fill a temporary folder next to the target, then swap it into place.
//!
//! An error or a kill mid-way leaves the previous output exactly as it was. A folder that holds files
//! aifab did not write is never replaced: aifab marks its own folders with [`MARKER`].
//!
//! A re-render writes only the files whose bytes changed: every unchanged file of the previous output
//! is hard-linked into the new folder (no data written, no inode allocated, the file keeps its
//! modification time), unless the spare the render fills has its own copy of it (see [`spare`]), and
//! the previous output is only read until the swap. The folder still changes
//! all at once or not at all. An index outside the folder records what was written (see [`index`]),
//! so the next re-render reads back only files whose status changed since. `aifab render` keeps the
//! previous tree as a spare for the next render to fill ([`spare`]) instead of removing it.

mod carry;
mod index;
mod reuse;
mod spare;
mod swap;

pub use index::CACHE_ENV;

use crate::render::OutFile;
use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Write as _};
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The file that marks a folder as aifab's output.
pub const MARKER: &str = ".aifab-output";

/// The text of [`MARKER`]: the output folder's manifest, the one file that names the aifab version (the
/// per-device files do not, so an upgrade changes no config that did not change).
pub fn manifest() -> String {
    format!(
        "written by aifab {}: this folder is replaced as a whole on every render\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// Whether the file at `path` holds exactly `bytes`, read in chunks (an 18 MB lock is compared
/// without reading it into memory whole). A symbolic link is followed; a missing file or a folder
/// holds nothing.
pub fn holds(path: &Path, bytes: &[u8]) -> bool {
    File::open(path).is_ok_and(|fh| reuse::holds(fh, bytes))
}

/// Test hook: when set to N, writing fails after N files, as an interrupted render would.
pub const FAIL_AFTER_ENV: &str = "AIFAB_TEST_FAIL_AFTER_FILES";

/// Checks that an output path is relative and stays inside the output folder.
pub fn safe_relative(path: &str) -> Result<PathBuf, String> {
    let p = Path::new(path);
    if path.is_empty() || p.is_absolute() {
        return Err(format!("output path `{path}` is not a relative path"));
    }
    for c in p.components() {
        match c {
            Component::Normal(s) if !s.is_empty() => {}
            _ => {
                return Err(format!(
                    "output path `{path}` would leave the output folder"
                ));
            }
        }
    }
    Ok(p.to_path_buf())
}

fn may_replace(out: &Path) -> Result<bool, String> {
    match std::fs::symlink_metadata(out) {
        Err(_) => Ok(false),
        Ok(m) if !m.is_dir() => Err(format!("{} exists and is not a folder", out.display())),
        Ok(_) => {
            let mut entries =
                std::fs::read_dir(out).map_err(|e| format!("{}: {e}", out.display()))?;
            if entries.next().is_none() || out.join(MARKER).exists() {
                Ok(true)
            } else {
                Err(format!(
                    "refusing to replace {}: it holds files aifab did not write (no {MARKER}); choose an empty or new folder",
                    out.display()
                ))
            }
        }
    }
}

/// What becomes of the previous output after the swap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Previous {
    /// Removed (golden folders, blessing: nothing is left beside the folder).
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
    pub fn put(&self, f: &OutFile) -> Result<(), String> {
        if let Some(limit) = self.fail_after
            && self.started.fetch_add(1, Ordering::SeqCst) >= limit
        {
            return Err(format!(
                "injected failure after {limit} files ({FAIL_AFTER_ENV})"
            ));
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
            self.wrote(&f.path, hash, &fh);
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
                _ => write_new(&path, bytes),
            },
            _ => write_new(&path, bytes),
        };
        let fh = fh.map_err(|e| format!("{}: {e}", path.display()))?;
        self.wrote(&f.path, hash, &fh);
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

    /// Counts and records a file written (anew or in place) through the open handle `fh`.
    fn wrote(&self, rel: &str, hash: u128, fh: &File) {
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

/// Writes `bytes` to a new file at `path`. Never writes through an existing file: one there (a link to
/// the previous output) is unlinked first, so the previous output cannot change before the swap.
fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<File> {
    let create = || OpenOptions::new().write(true).create_new(true).open(path);
    let mut fh: File = match with_parent(path, create) {
        Err(e) if e.kind() == ErrorKind::AlreadyExists => {
            clear(path)?;
            create()?
        }
        r => r?,
    };
    // No fsync per file: atomicity comes from the final swap; a crash before it leaves the old output.
    fh.write_all(bytes)?;
    Ok(fh)
}

/// Writes `files` as the complete content of folder `out`, atomically.
pub fn write_tree(out: &Path, files: &[OutFile]) -> Result<Written, String> {
    write_with(out, |stage| files.iter().try_for_each(|f| stage.put(f)))
}

/// Fills a temporary folder next to `out` with `fill`, marks it as aifab's, and swaps it into place.
/// On any error the temporary folder is removed and `out` is left exactly as it was.
pub fn write_with(
    out: &Path,
    fill: impl FnOnce(&Staging) -> Result<(), String>,
) -> Result<Written, String> {
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
    fill: impl FnOnce(&Staging) -> Result<(), String>,
) -> Result<Written, String> {
    let exists = may_replace(out)?;
    let (parent, name) = parent_and_name(out)?;
    std::fs::create_dir_all(&parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    let pid = std::process::id();
    let tmp = parent.join(format!(".{name}.aifab-tmp-{pid}"));
    let aside = parent.join(format!(".{name}.aifab-old-{pid}"));
    let spare_dir = (previous == Previous::KeepAsSpare).then(|| spare::path(&parent, &name));
    let _ = std::fs::remove_dir_all(&tmp);
    let stage = Staging::new(&tmp, exists.then_some(out), spare_dir.as_deref());
    let filled = std::fs::create_dir_all(&tmp)
        .map_err(|e| format!("{}: {e}", tmp.display()))
        .and_then(|_| fill(&stage))
        .map(|_| stage.prune())
        .and_then(|_| match (keep, exists) {
            (Some(keep), true) => carry::carry(out, &tmp, keep),
            _ => Ok(()),
        })
        .and_then(|_| {
            write_new(&tmp.join(MARKER), manifest().as_bytes())
                .map(drop)
                .map_err(|e| format!("{}: {e}", tmp.display()))
        });
    if let Err(e) = filled {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    let mut written = stage.done();
    written.written += 1;
    match swap::swap(&tmp, out, &aside, exists) {
        Ok(old) => {
            let (parked, removed) = match (old, &spare_dir) {
                (Some(old), Some(s)) if spare::park(&old, s) => (Some(s.as_path()), false),
                (Some(old), _) => {
                    remove_tree(&old);
                    (None, true)
                }
                (None, _) => (None, false),
            };
            stage.write_indexes(out, parked, removed);
            Ok(written)
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            Err(e)
        }
    }
}

/// The folder that holds `out`, and `out`'s own name.
fn parent_and_name(out: &Path) -> Result<(PathBuf, String), String> {
    let name = out
        .file_name()
        .ok_or_else(|| format!("{}: not a folder name", out.display()))?
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
        }
    }

    /// In a claimed spare: removes what the render did not put.
    fn prune(&self) {
        let (Some((_, held)), Ok(hashes)) = (&self.spare, self.hashes.lock()) else {
            return;
        };
        let put: std::collections::HashSet<&str> =
            hashes.iter().map(|(r, _, _)| r.as_str()).collect();
        spare::prune(&self.dir, held, &put);
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
        && write_new(&new, text.as_bytes()).is_ok()
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
                fs.iter().try_for_each(|f| stage.put(f))
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
                fs.iter().try_for_each(|f| stage.put(f))
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
                fs.iter().try_for_each(|f| stage.put(f))
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
        assert!(safe_relative("../x").is_err());
        assert!(safe_relative("/etc/passwd").is_err());
        assert!(safe_relative("a/../../x").is_err());
        assert!(safe_relative("").is_err());
    }
}
