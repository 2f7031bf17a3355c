//! The lock policy of a render: finish or undo an interrupted render's commit, read the lock (whole,
//! and the intent's own), refuse a renumbering the operator did not allow, and check it is current
//! (docs/lock.md). Every refusal is a [`LockError`] naming the lock; what is said on the way is a
//! [`Note`] given to the caller's [`Say`].

use super::{Note, Say};
use crate::diag::{Finding, Source};
use crate::lock::build::{Renumbered, from_model, renumbered};
use crate::lock::read::{Loaded, read_file_for};
use crate::lock::{self, Lock};
use crate::model::FabricModel;
use crate::write::journal::{self, Recovery};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Why the lock stops a render (the text printed, prefix included, is its `Display`).
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another running render is committing the lock and its output.
    #[error(
        "error: another aifab render (pid {pid}) is writing {} and its output right now; wait for it to finish; nothing written",
        lock.display()
    )]
    Busy {
        /// Its process id.
        pid: u32,
        /// The lock.
        lock: PathBuf,
    },
    /// The journal beside the lock could not be read or acted on.
    #[error("error: {error}")]
    Journal {
        /// The lock.
        lock: PathBuf,
        /// What went wrong with the journal.
        error: journal::JournalError,
    },
    /// The lock file is unusable (its findings, located).
    #[error("{}: invalid lock", lock.display())]
    Read {
        /// The lock.
        lock: PathBuf,
        /// What the reader found.
        error: crate::lock::read::LockError,
    },
    /// The lock's first line names another intent beside this one: a copied lock.
    #[error("error: {}; nothing written", copied_message(intent, lock, other))]
    Copied {
        /// The intent rendered.
        intent: String,
        /// The lock's name as read.
        lock: String,
        /// The intent whose lock it is.
        other: PathBuf,
    },
    /// No lock, but the lock of an intent that is gone lies beside it (a rename of the intent alone).
    #[error("{}", orphaned_message(intent, lock, orphans, how))]
    Orphaned {
        /// The intent rendered.
        intent: String,
        /// Its lock, missing.
        lock: PathBuf,
        /// The orphaned locks beside it.
        orphans: Vec<PathBuf>,
        /// What to do (the `git mv` to run).
        how: String,
    },
    /// The lock is behind the output folder's record or its committed history (AIF-LOCK-006).
    #[error("{}", behind_message(lock, problems))]
    Behind {
        /// The lock.
        lock: PathBuf,
        /// Each way it is behind.
        problems: Vec<String>,
    },
    /// The render renumbers or re-cables devices the lock holds, and that was not allowed.
    #[error("{}", renumbers_message(lock, list))]
    Renumbers {
        /// The lock's name as read.
        lock: String,
        /// The devices and what changes on each.
        list: Vec<Renumbered>,
    },
    /// The new lock could not be staged beside the lock.
    #[error("error: {}: {error}", lock.display())]
    Stage {
        /// The lock.
        lock: PathBuf,
        /// Why.
        error: std::io::Error,
    },
}

/// The lock file of an intent path.
pub fn path(intent: &str) -> PathBuf {
    lock::path_for(Path::new(intent))
}

/// Finishes or undoes the commit of a render that was interrupted, when its journal lies beside the
/// lock of `intent` (and removes staged locks of processes that are gone), saying what it did. With
/// `writing`, a render of another running process is refused; a reader reads the lock as it is.
pub fn settle(intent: &str, writing: bool, say: Say) -> Result<(), LockError> {
    let lock = path(intent);
    match journal::recover(&lock) {
        Ok(Recovery::Clean) => Ok(()),
        Ok(Recovery::Completed(m) | Recovery::RolledBack(m)) => {
            say(Note::Line(format!("note: {m}")));
            Ok(())
        }
        Ok(Recovery::Busy(pid)) if writing => Err(LockError::Busy { pid, lock }),
        Ok(Recovery::Busy(_)) => Ok(()),
        Err(error) => Err(LockError::Journal { lock, error }),
    }
}

/// Reads the lock of `intent` (`None` when there is none, or with `no_lock`) after [`settle`]. A lock
/// that is not whole (`AIF-LOCK-006`), a lock whose first line names another intent beside it, and a
/// missing lock while the lock of a renamed intent is beside it are refused; `allow_renumber` accepts
/// them (the render then allocates afresh what they lost), saying so. With `only` (`--only`), the
/// lock read is narrowed to what the matched devices use (`crate::lock::read::read_file_for`).
pub fn load(
    intent: &str,
    (no_lock, allow_renumber): (bool, bool),
    only: Option<&globset::GlobMatcher>,
    say: Say,
) -> Result<Option<Loaded>, LockError> {
    if no_lock {
        return Ok(None);
    }
    settle(intent, false, say)?;
    let p = path(intent);
    let selected = only.map(|g| move |name: &str| g.is_match(name));
    let selected = selected
        .as_ref()
        .map(|s| s as &(dyn Fn(&str) -> bool + Sync));
    let loaded = read_file_for(&p, !allow_renumber, selected).map_err(|error| LockError::Read {
        lock: p.clone(),
        error,
    })?;
    match &loaded {
        Some(l) => {
            if !l.not_whole.is_empty() {
                say(not_whole(&l.source, &l.not_whole, &p));
            }
            header_names_this_intent(intent, l, allow_renumber, say)?;
        }
        None => no_orphaned_lock(intent, allow_renumber, say)?,
    }
    Ok(loaded)
}

/// The note of a lock read though not whole: its findings, and what `--allow-renumber` does.
fn not_whole(source: &Source, findings: &[Finding], p: &Path) -> Note {
    Note::Findings {
        source: source.clone(),
        findings: findings.to_vec(),
        then: format!(
            "note: {} is not whole; --allow-renumber allocates afresh what it lost",
            p.display()
        ),
    }
}

/// Refuses a lock whose first line names another intent that lies beside it (a copied lock), unless
/// `allow`; a lock naming an intent that is gone is the lock of a renamed intent, and is followed.
fn header_names_this_intent(
    intent: &str,
    l: &Loaded,
    allow: bool,
    say: Say,
) -> Result<(), LockError> {
    let own = own_name(intent);
    let Some(named) = l.header_intent.as_deref().filter(|n| *n != own) else {
        return Ok(());
    };
    let Some(other) = copied_from(intent, l) else {
        say(Note::Line(format!(
            "note: {} is the lock of {named} (its first line), which is gone: {own} is taken for {named} renamed, and keeps its allocation; the next full render names {own} in the lock",
            l.source.name
        )));
        return Ok(());
    };
    if allow {
        say(Note::Line(format!(
            "note: {} is the lock of {} (its first line); used for {own} (--allow-renumber)",
            l.source.name,
            other.display()
        )));
        return Ok(());
    }
    Err(LockError::Copied {
        intent: intent.to_string(),
        lock: l.source.name.clone(),
        other,
    })
}

/// The file name of `intent`.
fn own_name(intent: &str) -> String {
    Path::new(intent)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The other intent beside `intent` whose lock `l` is, by its first line (a copied lock); None for
/// the intent's own lock or the lock of a renamed intent (the one it names is gone).
pub fn copied_from(intent: &str, l: &Loaded) -> Option<PathBuf> {
    let own = own_name(intent);
    let named = l.header_intent.as_deref().filter(|n| *n != own)?;
    let other = Path::new(intent).with_file_name(named);
    other.exists().then_some(other)
}

/// Why a copied lock (named `lock`, the lock of `other`) is refused for `intent`, and what to do.
pub fn copied_message(intent: &str, lock: &str, other: &Path) -> String {
    let own = own_name(intent);
    format!(
        "{lock} is the lock of {} (its first line says so), another intent beside {intent}: a copied lock gives {own} the allocation of another fabric. If {own} is meant to start from it, change the lock's first line to name {own} (or render with --allow-renumber); otherwise delete {lock}",
        other.display(),
    )
}

/// The folder `intent` lies in (`.` for a bare name).
fn folder_of(intent: &str) -> &Path {
    match Path::new(intent).parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// With no lock beside `intent`: refuses (unless `allow`) when a lock beside it belongs to an intent
/// that is gone, as after `git mv` of the intent alone: rendering from the arithmetic would undo what
/// that lock holds.
fn no_orphaned_lock(intent: &str, allow: bool, say: Say) -> Result<(), LockError> {
    let dir = folder_of(intent);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    let mut orphans: Vec<String> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let stem = name.strip_suffix(".lock.yaml")?;
            let gone = !dir.join(format!("{stem}.yaml")).exists()
                && !dir.join(format!("{stem}.yml")).exists();
            gone.then_some(name)
        })
        .collect();
    if orphans.is_empty() {
        return Ok(());
    }
    orphans.sort();
    if allow {
        say(Note::Line(format!(
            "note: {} has no lock; {} beside it belongs to an intent that is gone; allocating afresh (--allow-renumber)",
            intent,
            orphans.join(", ")
        )));
        return Ok(());
    }
    let lock = path(intent);
    let first = dir.join(&orphans[0]);
    let how = match git_renamed_from(intent) {
        Some(from) => format!(
            "git shows {intent} renamed from {from}: `git mv {} {}`",
            first.display(),
            lock.display()
        ),
        None => format!(
            "if {intent} is that intent renamed, rename its lock too: `git mv {} {}`",
            first.display(),
            lock.display()
        ),
    };
    Err(LockError::Orphaned {
        intent: intent.to_string(),
        lock,
        orphans: orphans.iter().map(|o| dir.join(o)).collect(),
        how,
    })
}

/// The message of [`LockError::Orphaned`].
fn orphaned_message(intent: &str, lock: &Path, orphans: &[PathBuf], how: &str) -> String {
    format!(
        "error: {intent} has no lock ({}), but {} beside it is the lock of an intent that is gone; rendering from the arithmetic would renumber what it holds. {how}; or, to allocate {intent} afresh, render with --allow-renumber (and delete the old lock); nothing written",
        lock.display(),
        orphans
            .iter()
            .map(|o| o.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The path git records `intent` as renamed from (staged, or in the last commits that touched it),
/// if git knows one.
fn git_renamed_from(intent: &str) -> Option<String> {
    let dir = folder_of(intent);
    let name = Path::new(intent).file_name()?.to_str()?;
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["status", "--porcelain", "-M", "--", "."])
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    text.lines().find_map(|l| {
        let (from, to) = l.get(3..)?.split_once(" -> ")?;
        to.ends_with(name).then(|| from.to_string())
    })
}

/// The message of [`LockError::Behind`]: each problem, then what to do.
fn behind_message(lock: &Path, problems: &[String]) -> String {
    let mut text = String::new();
    for problem in problems {
        let _ = writeln!(text, "error [AIF-LOCK-006]: {problem}");
    }
    let _ = write!(
        text,
        "  help: restore the newest lock from git (`git checkout -- {}`); if this lock is meant (entries released or deleted on purpose, an older allocation brought back), render with --allow-renumber, which writes it as the next serial; nothing written",
        lock.display()
    );
    text
}

/// The lock a full render of `model` writes: the model's allocation plus `prev`'s retired entries
/// (dropped with `release`).
pub fn next(model: &FabricModel, prev: Option<&Loaded>, release: bool) -> Lock {
    from_model(model, prev.map(|l| &l.lock), release)
}

/// The devices a change renumbers or re-cables, up to `limit` lines each, one line a device.
pub fn renumbered_lines(list: &[Renumbered], limit: usize) -> String {
    let mut text = String::new();
    for r in list {
        let more = r.changes.len().saturating_sub(limit);
        let tail = if more > 0 {
            format!("; and {more} more")
        } else {
            String::new()
        };
        let shown: Vec<&str> = r.changes.iter().take(limit).map(String::as_str).collect();
        let _ = writeln!(text, "  {}: {}{tail}", r.device, shown.join("; "));
    }
    text
}

/// The message of [`LockError::Renumbers`]: the list and what to do.
fn renumbers_message(lock: &str, list: &[Renumbered]) -> String {
    format!(
        "error: this render would renumber or re-cable {} existing devices held by {lock}:\n{}hint: review the list (aifab diff shows CHG-RENUMBER), then render with --allow-renumber",
        list.len(),
        renumbered_lines(list, 4)
    )
}

/// Refuses a render that would renumber or re-cable a device the lock holds, unless `allow` (then the
/// list is said).
pub fn guard(prev: Option<&Loaded>, new: &Lock, allow: bool, say: Say) -> Result<(), LockError> {
    let Some(prev) = prev else { return Ok(()) };
    let list = renumbered(&prev.lock, new);
    if list.is_empty() {
        return Ok(());
    }
    if allow {
        let lines = renumbered_lines(&list, 4);
        say(Note::Line(format!(
            "note: renumbering or re-cabling {} existing devices (--allow-renumber):\n{}",
            list.len(),
            lines.trim_end_matches('\n')
        )));
        return Ok(());
    }
    Err(LockError::Renumbers {
        lock: prev.source.name.clone(),
        list,
    })
}

/// The lock's text for the intent at `intent`, written after the lock `prev` (the one read, if any)
/// and past `floor` (the newest history the output folder and git know): its lineage kept, its serial
/// one more when its entries changed.
pub fn text(
    lock: &Lock,
    intent: &str,
    prev: Option<&Loaded>,
    floor: Option<&crate::lock::history::Stamp>,
) -> String {
    lock.to_yaml_after(&own_name(intent), prev.map(|l| &l.history), floor)
}

/// Why the lock beside an intent is not the one a render writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stale {
    /// An earlier aifab wrote it (its version).
    Version(u32),
    /// This render allocates differently.
    Differs,
    /// There is none.
    Missing,
}

/// Whether the lock of `intent` holds exactly `text`: `None` when it does, else why not.
pub fn staleness(intent: &str, text: &str) -> Option<Stale> {
    let p = path(intent);
    if crate::write::holds(&p, text.as_bytes()) {
        return None;
    }
    Some(match earlier_version(&p) {
        Some(version) => Stale::Version(version),
        None if p.exists() => Stale::Differs,
        None => Stale::Missing,
    })
}

/// What `render --check` prints for a stale lock of `intent`.
pub fn stale_message(intent: &str, stale: &Stale) -> String {
    let p = path(intent);
    let run =
        format!("run `aifab render {intent} --out DIR` (or --check --bless) and commit the lock");
    match stale {
        Stale::Version(version) => format!(
            "{}: stale: an earlier aifab wrote it (version {version}); this aifab writes version {} (its lineage and serial added, docs/lock.md): {run}",
            p.display(),
            lock::VERSION
        ),
        Stale::Differs => format!(
            "{}: stale: this render allocates differently; {run}",
            p.display()
        ),
        Stale::Missing => format!("{}: missing: {run}", p.display()),
    }
}

/// The version of the lock at `p` when an earlier aifab wrote it (its `version:` line, among its first
/// bytes, below this aifab's).
fn earlier_version(p: &Path) -> Option<u32> {
    use std::io::Read as _;
    // A regular file only (never a link, a FIFO or a device), its first bytes only.
    if !std::fs::symlink_metadata(p).ok()?.is_file() {
        return None;
    }
    let mut head = Vec::new();
    std::fs::File::open(p)
        .ok()?
        .take(super::history::HEAD_BYTES)
        .read_to_end(&mut head)
        .ok()?;
    let text = String::from_utf8_lossy(&head);
    let version: u32 = text
        .lines()
        .find_map(|l| l.strip_prefix("version: "))?
        .trim()
        .parse()
        .ok()?;
    (version < lock::VERSION).then_some(version)
}
