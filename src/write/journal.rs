//! The journal that makes the output folder and the allocation lock change together.
//!
//! A render stages both (the filled temporary folder, whose manifest records the new lock, and the new
//! lock in `.NAME.lock.yaml.aifab-tmp-PID` beside the lock), writes this journal beside the lock
//! (`.NAME.lock.yaml.aifab-journal`: its process id, the output folder and the record), swaps the
//! folders, renames the staged lock over the lock and removes the journal. A process killed anywhere
//! in between leaves the journal, and the next aifab command that reads the lock ([`recover`]) finishes
//! the change or undoes it: when the output's manifest already holds the new record, the folders were
//! swapped and the staged lock is renamed into place; otherwise the staged lock and the temporary folder
//! are removed, and output and lock stay as they were. Either way they match again.
//!
//! ```text
//! aifab render journal 2
//! pid: 4242 started 918273
//! out: ../configs
//! was: x.lock.yaml, 48 devices, 512 links, 1024 servers, xxh3-128 5f0c...
//! record: x.lock.yaml, 49 devices, 520 links, 1040 servers, xxh3-128 77d1...
//! lock: xxh3-128 77d1...
//! ```
//!
//! The journal names the output folder relative to its own folder (the lock's), so it still names it
//! after the tree moved; the record of the lock the output had before (`was`, `none` for none) and
//! after (`record`); and the hash of the staged lock as aifab wrote it. It is acted on only when it
//! verifies: the output folder's manifest holds one of the two records; finishing renames the staged
//! lock only when its bytes hash to the journal's hash and the new record names that hash, and undoing
//! removes it only when they do. A journal that does not verify (another format, an absolute path or
//! a `..` after a name, an output that records neither lock, a staged lock with other bytes) is reported with its reason and left alone, and nothing is moved or removed. The process is
//! recorded with its start time ([`crate::files::process_start`]): a live process that took the id
//! since is not the writer, and does not hold the lock's journal. Only aifab's own names (a temporary
//! folder holding aifab's manifest, a staged lock that is a regular file) are ever removed or renamed.

use super::doubt::Doubt;
use std::path::{Path, PathBuf};

/// The first line of every journal.
const HEADER: &str = "aifab render journal 2";

/// The journal of lock file `lock`.
pub fn path(lock: &Path) -> PathBuf {
    beside(lock, "aifab-journal")
}

/// Where process `pid` stages the new text of lock file `lock`.
pub fn staged_lock(lock: &Path, pid: u32) -> PathBuf {
    beside(lock, &format!("aifab-tmp-{pid}"))
}

/// `.NAME.<suffix>` beside `file`.
fn beside(file: &Path, suffix: &str) -> PathBuf {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    file.with_file_name(format!(".{name}.{suffix}"))
}

/// The temporary folder process `pid` fills for output folder `out`.
pub(super) fn tmp_folder(out: &Path, pid: u32) -> Option<PathBuf> {
    let (parent, name) = super::parent_and_name(out).ok()?;
    Some(parent.join(format!(".{name}.aifab-tmp-{pid}")))
}

/// A journal's content.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Entry {
    /// The process that wrote it.
    pub pid: u32,
    /// When that process started ([`crate::files::process_start`]), where known.
    pub start: Option<u64>,
    /// The output folder, relative to the lock's folder (`/`-separated; `..` only at its start).
    pub out: String,
    /// The manifest's record of the lock the output had before (`None`: no output, or no record).
    pub was: Option<String>,
    /// The manifest's record of the new lock.
    pub record: String,
    /// The hash of the staged lock's bytes ([`super::index::hash`]).
    pub lock: u128,
}

impl Entry {
    fn text(&self) -> String {
        let start = self
            .start
            .map_or_else(String::new, |s| format!(" started {s}"));
        format!(
            "{HEADER}\npid: {}{start}\nout: {}\nwas: {}\nrecord: {}\nlock: xxh3-128 {:032x}\n",
            self.pid,
            self.out,
            self.was.as_deref().unwrap_or("none"),
            self.record,
            self.lock
        )
    }

    fn parse(text: &str) -> Option<Entry> {
        let mut lines = text.lines();
        (lines.next()? == HEADER).then_some(())?;
        let (pid, start) = pid_line(lines.next()?.strip_prefix("pid: ")?)?;
        let out = lines.next()?.strip_prefix("out: ")?.to_string();
        let was = match lines.next()?.strip_prefix("was: ")? {
            "none" => None,
            w => Some(w.to_string()),
        };
        let record = lines.next()?.strip_prefix("record: ")?.to_string();
        let lock = lines.next()?.strip_prefix("lock: xxh3-128 ")?;
        let lock = (lock.len() == 32).then(|| u128::from_str_radix(lock, 16).ok())??;
        lines.next().is_none().then_some(Entry {
            pid,
            start,
            out,
            was,
            record,
            lock,
        })
    }
}

/// A journal's `pid:` line after its name: `4242` or `4242 started 918273`.
pub(super) fn pid_line(text: &str) -> Option<(u32, Option<u64>)> {
    match text.split_once(" started ") {
        Some((pid, start)) => Some((pid.parse().ok()?, Some(start.parse().ok()?))),
        None => Some((text.parse().ok()?, None)),
    }
}

/// The path of output folder `out` from the folder of lock file `lock` (`configs`, `../configs`),
/// `/`-separated, both resolved through the links of their folders; `None` when either cannot be
/// resolved or the path is not UTF-8.
pub(super) fn out_from_lock(lock: &Path, out: &Path) -> Option<String> {
    let folder = |p: &Path| match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => std::fs::canonicalize(d).ok(),
        _ => std::fs::canonicalize(".").ok(),
    };
    let base = folder(lock)?;
    let target = folder(out)?.join(out.file_name()?);
    let (b, t): (Vec<_>, Vec<_>) = (base.components().collect(), target.components().collect());
    let common = b.iter().zip(&t).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<&str> = vec![".."; b.len() - common];
    for c in &t[common..] {
        parts.push(c.as_os_str().to_str()?);
    }
    let text = parts.join("/");
    (!text.contains(['\n', '\r'])).then_some(text)
}

/// The output folder a journal's `out` names, from the folder of lock `lock`: a relative path of
/// plain names, `..` only at its start. Anything else (absolute, `.`, a `..` after a name) is an error
/// saying why.
fn out_folder(lock: &Path, out: &str) -> Result<PathBuf, Doubt> {
    let p = Path::new(out);
    let mut names = 0;
    for c in p.components() {
        match c {
            std::path::Component::ParentDir if names == 0 => {}
            std::path::Component::Normal(_) => names += 1,
            _ => {
                return Err(Doubt::OutFolder(out.to_string()));
            }
        }
    }
    if names == 0 || out.contains('\\') {
        return Err(Doubt::OutFolder(out.to_string()));
    }
    let dir = match lock.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Ok(dir.join(p))
}

/// Why a journal beside a lock could not be written, read or acted on, naming it.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// The journal could not be read (missing aside: then there is nothing to do).
    #[error("{}", error.describe(path, *limit))]
    Unreadable {
        /// The journal.
        path: PathBuf,
        /// The bound it is read within.
        limit: u64,
        /// Why.
        error: crate::files::ReadError,
    },
    /// The journal does not verify: it is left alone.
    #[error(
        "{}: not acted on: {why}; nothing was moved or removed. If no aifab render runs, compare the lock with the output (render --check) and remove the journal",
        journal.display()
    )]
    NotActedOn {
        /// The journal.
        journal: PathBuf,
        /// Why it does not verify (boxed: it names up to three paths).
        why: Box<Doubt>,
    },
    /// A file could not be written, renamed or removed.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The lock put in place could not be made durable.
    #[error(transparent)]
    Sync(#[from] super::durable::SyncError),
}

/// A [`JournalError::Io`] of `path`.
fn io(path: &Path) -> impl FnOnce(std::io::Error) -> JournalError + '_ {
    move |error| JournalError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// Writes the journal of lock `lock` (a new file: a journal there is an error).
pub(super) fn write(lock: &Path, entry: &Entry) -> Result<PathBuf, JournalError> {
    let path = path(lock);
    let done = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .and_then(|mut f| std::io::Write::write_all(&mut f, entry.text().as_bytes()));
    match done {
        Ok(()) => Ok(path),
        Err(e) => {
            if e.kind() != std::io::ErrorKind::AlreadyExists {
                let _ = std::fs::remove_file(&path);
            }
            Err(io(&path)(e))
        }
    }
}

/// What [`recover`] found beside a lock.
#[derive(Debug, PartialEq, Eq)]
pub enum Recovery {
    /// No journal: the lock and the output match.
    Clean,
    /// Another process, still running, is committing: its pid.
    Busy(u32),
    /// An interrupted render had swapped the folders: its lock was put in place. The message says so.
    Completed(String),
    /// An interrupted render had not swapped the folders: what it staged was removed.
    RolledBack(String),
}

/// Finishes or undoes the render a journal beside lock `lock` records, when the process that wrote it
/// no longer runs (see the module doc). An unreadable journal is an error naming it.
pub fn recover(lock: &Path) -> Result<Recovery, JournalError> {
    let found = replay(lock)?;
    // Staged locks of processes gone without a journal (killed before it was written).
    if !matches!(found, Recovery::Busy(_)) {
        super::stale::staged_locks(lock);
    }
    Ok(found)
}

/// [`recover`] of the journal alone.
fn replay(lock: &Path) -> Result<Recovery, JournalError> {
    let journal = path(lock);
    let bytes = match crate::files::read_own(&journal, 64 * 1024) {
        Ok(b) => b,
        Err(crate::files::ReadError::Missing) => return Ok(Recovery::Clean),
        Err(error) => {
            return Err(JournalError::Unreadable {
                path: journal,
                limit: 64 * 1024,
                error,
            });
        }
    };
    let refuse = |why: Doubt| JournalError::NotActedOn {
        journal: journal.clone(),
        why: Box::new(why),
    };
    let entry = std::str::from_utf8(&bytes)
        .ok()
        .and_then(Entry::parse)
        .ok_or_else(|| refuse(Doubt::NotOurs(HEADER)))?;
    if entry.pid != std::process::id() && crate::files::process_alive(entry.pid, entry.start) {
        return Ok(Recovery::Busy(entry.pid));
    }
    let out = out_folder(lock, &entry.out).map_err(refuse)?;
    let decision = decide(lock, &out, &entry).map_err(refuse)?;
    let staged = staged_lock(lock, entry.pid);
    let result = match decision {
        Decision::Finish { rename } => {
            if rename {
                std::fs::rename(&staged, lock).map_err(io(lock))?;
                // The lock in place on the disk before the journal goes ([`super::durable`]).
                super::durable::parent(lock)?;
            }
            Recovery::Completed(format!(
                "an interrupted render (pid {}) had put its output in place in {}: its lock is now in place too, {}",
                entry.pid,
                out.display(),
                lock.display()
            ))
        }
        Decision::Undo { remove } => {
            if remove {
                let _ = std::fs::remove_file(&staged);
            }
            Recovery::RolledBack(format!(
                "an interrupted render (pid {}) had not changed {} or {}: what it staged is removed",
                entry.pid,
                out.display(),
                lock.display()
            ))
        }
    };
    if let Some(tmp) = tmp_folder(&out, entry.pid) {
        super::stale::remove_if_ours(&tmp);
    }
    std::fs::remove_file(&journal).map_err(io(&journal))?;
    Ok(result)
}

/// What a journal that verifies asks for.
#[derive(Debug, PartialEq, Eq)]
enum Decision {
    /// The folders were swapped: the staged lock is renamed into place (`rename`; false when the lock
    /// already holds it).
    Finish { rename: bool },
    /// The folders were not swapped: the staged lock is removed (`remove`; false when there is none).
    Undo { remove: bool },
}

/// Whether the journal `entry` of lock `lock` verifies against the output folder `out`, the staged
/// lock and the lock, and what it asks for; an error says why it does not.
fn decide(lock: &Path, out: &Path, entry: &Entry) -> Result<Decision, Doubt> {
    let staged = staged_lock(lock, entry.pid);
    // Whether the staged lock is there, as aifab wrote it; anything else there is not acted on.
    let ours = match std::fs::symlink_metadata(&staged) {
        Err(_) => false,
        Ok(m) if m.is_file() && super::sums::holds(&staged, entry.lock) => true,
        Ok(_) => {
            return Err(Doubt::NotTheLock {
                staged,
                hash: entry.lock,
            });
        }
    };
    let now = super::manifest::read(out).and_then(|m| m.lock);
    if now.as_deref() == Some(entry.record.as_str()) {
        if !names_hash(&entry.record, entry.lock) {
            return Err(Doubt::RecordHash);
        }
        if ours {
            return Ok(Decision::Finish { rename: true });
        }
        if super::sums::holds(lock, entry.lock) {
            return Ok(Decision::Finish { rename: false });
        }
        return Err(Doubt::LockGone {
            out: out.to_path_buf(),
            staged,
            lock: lock.to_path_buf(),
        });
    }
    if now == entry.was {
        return Ok(Decision::Undo { remove: ours });
    }
    Err(Doubt::Neither(out.to_path_buf()))
}

/// Whether the manifest record `record` names the lock hash `hash` (its `xxh3-128 HEX` part).
fn names_hash(record: &str, hash: u128) -> bool {
    let want = format!("xxh3-128 {hash:032x}");
    record.split(", ").any(|part| part == want)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_names_sit_beside_the_lock() {
        let e = Entry {
            pid: 42,
            start: Some(9),
            out: "../out".into(),
            was: None,
            record: "x.lock.yaml, 1 devices, xxh3-128 0000000000000000000000000000000a".into(),
            lock: 10,
        };
        assert_eq!(Entry::parse(&e.text()), Some(e));
        assert_eq!(
            Entry::parse("aifab render journal 1\npid: 1\nout: /abs\nrecord: r\n"),
            None,
            "the format before hashes is not acted on"
        );
        assert!(names_hash(
            "x.lock.yaml, 1 devices, xxh3-128 0000000000000000000000000000000a",
            10
        ));
        assert!(!names_hash("x.lock.yaml, 1 devices, xxh3-128 0b", 11));
        assert_eq!(
            path(Path::new("i/x.lock.yaml")),
            PathBuf::from("i/.x.lock.yaml.aifab-journal")
        );
        assert_eq!(
            staged_lock(Path::new("i/x.lock.yaml"), 7),
            PathBuf::from("i/.x.lock.yaml.aifab-tmp-7")
        );
    }

    /// An output folder is a relative path of names, `..` only at its start.
    #[test]
    fn only_plain_relative_output_folders_are_followed() {
        let lock = Path::new("i/x.lock.yaml");
        assert_eq!(out_folder(lock, "out"), Ok(PathBuf::from("i/out")));
        assert_eq!(
            out_folder(lock, "../configs/a"),
            Ok(PathBuf::from("i/../configs/a"))
        );
        for bad in ["/etc", "a/../b", ".", "..", "./a", ""] {
            assert!(out_folder(lock, bad).is_err(), "{bad}");
        }
    }
}
