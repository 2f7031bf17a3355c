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
//! The journal names no file but the output folder: the staged lock's path follows from the lock's and
//! the process id, and only aifab's own names (a temporary folder holding aifab's manifest, a staged
//! lock that is a regular file) are ever removed or renamed, so a journal that came from elsewhere
//! (committed to a repository, say) cannot move or remove anything else.

use std::path::{Path, PathBuf};

/// The first line of every journal.
const HEADER: &str = "aifab render journal 1";

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
    /// The output folder, absolute.
    pub out: PathBuf,
    /// The manifest's record of the new lock.
    pub record: String,
}

impl Entry {
    fn text(&self) -> String {
        format!(
            "{HEADER}\npid: {}\nout: {}\nrecord: {}\n",
            self.pid,
            self.out.display(),
            self.record
        )
    }

    fn parse(text: &str) -> Option<Entry> {
        let mut lines = text.lines();
        (lines.next()? == HEADER).then_some(())?;
        let pid = lines.next()?.strip_prefix("pid: ")?.parse().ok()?;
        let out = PathBuf::from(lines.next()?.strip_prefix("out: ")?);
        let record = lines.next()?.strip_prefix("record: ")?.to_string();
        out.is_absolute().then_some(Entry { pid, out, record })
    }
}

/// Writes the journal of lock `lock` (a new file: a journal there is an error).
pub(super) fn write(lock: &Path, entry: &Entry) -> Result<PathBuf, String> {
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
            Err(format!("{}: {e}", path.display()))
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
pub fn recover(lock: &Path) -> Result<Recovery, String> {
    let found = replay(lock)?;
    // Staged locks of processes gone without a journal (killed before it was written).
    if !matches!(found, Recovery::Busy(_)) {
        super::stale::staged_locks(lock);
    }
    Ok(found)
}

/// [`recover`] of the journal alone.
fn replay(lock: &Path) -> Result<Recovery, String> {
    let journal = path(lock);
    let bytes = match crate::files::read_own(&journal, 64 * 1024) {
        Ok(b) => b,
        Err(crate::files::ReadError::Missing) => return Ok(Recovery::Clean),
        Err(e) => return Err(e.describe(&journal, 64 * 1024)),
    };
    let entry = std::str::from_utf8(&bytes)
        .ok()
        .and_then(Entry::parse)
        .ok_or_else(|| {
            format!(
                "{}: not a journal aifab can read; if no aifab render runs, compare the lock with the output (render --check) and remove it",
                journal.display()
            )
        })?;
    if entry.pid != std::process::id() && crate::files::pid_alive(entry.pid) {
        return Ok(Recovery::Busy(entry.pid));
    }
    let staged = staged_lock(lock, entry.pid);
    let swapped = super::manifest::read(&entry.out).and_then(|m| m.lock) == Some(entry.record);
    let staged_is_file = std::fs::symlink_metadata(&staged).is_ok_and(|m| m.is_file());
    let result = if swapped {
        if staged_is_file {
            std::fs::rename(&staged, lock).map_err(|e| format!("{}: {e}", lock.display()))?;
            // The lock in place on the disk before the journal goes ([`super::durable`]).
            super::durable::parent(lock)?;
        }
        Recovery::Completed(format!(
            "an interrupted render (pid {}) had put its output in place in {}: its lock is now in place too, {}",
            entry.pid,
            entry.out.display(),
            lock.display()
        ))
    } else {
        if staged_is_file {
            let _ = std::fs::remove_file(&staged);
        }
        Recovery::RolledBack(format!(
            "an interrupted render (pid {}) had not changed {} or {}: what it staged is removed",
            entry.pid,
            entry.out.display(),
            lock.display()
        ))
    };
    if let Some(tmp) = tmp_folder(&entry.out, entry.pid) {
        super::stale::remove_if_ours(&tmp);
    }
    std::fs::remove_file(&journal).map_err(|e| format!("{}: {e}", journal.display()))?;
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_names_sit_beside_the_lock() {
        let e = Entry {
            pid: 42,
            out: PathBuf::from("/x/out"),
            record: "x.lock.yaml, 1 devices".into(),
        };
        assert_eq!(Entry::parse(&e.text()), Some(e));
        assert_eq!(
            Entry::parse("aifab render journal 1\npid: 1\nout: rel\nrecord: r\n"),
            None
        );
        assert_eq!(
            path(Path::new("i/x.lock.yaml")),
            PathBuf::from("i/.x.lock.yaml.aifab-journal")
        );
        assert_eq!(
            staged_lock(Path::new("i/x.lock.yaml"), 7),
            PathBuf::from("i/.x.lock.yaml.aifab-tmp-7")
        );
    }
}
