//! The lock beside the intent as `render` and `diff` use it: finish or undo an interrupted render's
//! commit, read it (whole, and the intent's own), refuse a renumbering the operator did not allow, stage
//! it for the write to commit with the output, and check it is current (docs/lock.md).

use super::Exit;
use super::exit::front_failed;
mod history;

use aifab::lock::build::{Renumbered, from_model, renumbered};
use aifab::lock::history::Stamp;
use aifab::lock::read::{Loaded, read_file_for};
use aifab::lock::{self, Lock};
use aifab::model::FabricModel;
use aifab::write::journal::{self, Recovery};
use std::path::{Path, PathBuf};

/// The lock file of an intent path.
pub fn path(intent: &str) -> PathBuf {
    lock::path_for(Path::new(intent))
}

/// Finishes or undoes the commit of a render that was interrupted, when its journal lies beside the
/// lock of `intent` (and removes staged locks of processes that are gone), saying what it did. With
/// `writing`, a render of another running process is an error (exit 2); a reader reads the lock as
/// it is.
pub fn settle(intent: &str, writing: bool) -> Result<(), Exit> {
    let lock = path(intent);
    match journal::recover(&lock) {
        Ok(Recovery::Clean) => Ok(()),
        Ok(Recovery::Completed(m) | Recovery::RolledBack(m)) => {
            eprintln!("note: {m}");
            Ok(())
        }
        Ok(Recovery::Busy(pid)) if writing => {
            eprintln!(
                "error: another aifab render (pid {pid}) is writing {} and its output right now; wait for it to finish; nothing written",
                lock.display()
            );
            Err(Exit::Trouble)
        }
        Ok(Recovery::Busy(_)) => Ok(()),
        Err(e) => {
            eprintln!("error: {e}");
            Err(Exit::Trouble)
        }
    }
}

/// Reads the lock of `intent` (`None` when there is none, or with `--no-lock`) after [`settle`]; an
/// unusable lock prints its findings and is [`Exit::Trouble`] (could not run). A lock that is not
/// whole (`AIF-LOCK-006`), a lock whose first line names another intent beside it, and a missing lock
/// while the lock of a renamed intent is beside it are refused; `allow_renumber` accepts them (the
/// render then allocates afresh what they lost), saying so.
pub fn load(intent: &str, no_lock: bool, allow_renumber: bool) -> Result<Option<Loaded>, Exit> {
    load_for(intent, no_lock, allow_renumber, None)
}

/// [`load`] for a render of the devices `only` matches (`--only`): the lock read narrowed to what they
/// use (`aifab::lock::read::read_file_for`).
pub fn load_for(
    intent: &str,
    no_lock: bool,
    allow_renumber: bool,
    only: Option<&globset::GlobMatcher>,
) -> Result<Option<Loaded>, Exit> {
    if no_lock {
        return Ok(None);
    }
    settle(intent, false)?;
    let p = path(intent);
    let selected = only.map(|g| move |name: &str| g.is_match(name));
    let selected = selected
        .as_ref()
        .map(|s| s as &(dyn Fn(&str) -> bool + Sync));
    let loaded = read_file_for(&p, !allow_renumber, selected)
        .map_err(|e| front_failed(e.into(), Exit::Trouble, "nothing written"))?;
    match &loaded {
        Some(l) => {
            if !l.not_whole.is_empty() {
                super::print_findings(&l.source, &l.not_whole);
                eprintln!(
                    "note: {} is not whole; --allow-renumber allocates afresh what it lost",
                    p.display()
                );
            }
            header_names_this_intent(intent, l, allow_renumber)?;
        }
        None => no_orphaned_lock(intent, allow_renumber)?,
    }
    Ok(loaded)
}

/// Refuses a lock whose first line names another intent that lies beside it (a copied lock), unless
/// `allow`; a lock naming an intent that is gone is the lock of a renamed intent, and is followed.
fn header_names_this_intent(intent: &str, l: &Loaded, allow: bool) -> Result<(), Exit> {
    let own = own_name(intent);
    let Some(named) = l.header_intent.as_deref().filter(|n| *n != own) else {
        return Ok(());
    };
    let Some(other) = copied_from(intent, l) else {
        eprintln!(
            "note: {} is the lock of {named} (its first line), which is gone: {own} is taken for {named} renamed, and keeps its allocation; the next full render names {own} in the lock",
            l.source.name
        );
        return Ok(());
    };
    if allow {
        eprintln!(
            "note: {} is the lock of {} (its first line); used for {own} (--allow-renumber)",
            l.source.name,
            other.display()
        );
        return Ok(());
    }
    eprintln!(
        "error: {}; nothing written",
        copied_message(intent, l, &other)
    );
    Err(Exit::Trouble)
}

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

/// Why a copied lock (the lock of `other`) is refused for `intent`, and what to do.
pub fn copied_message(intent: &str, l: &Loaded, other: &Path) -> String {
    let own = own_name(intent);
    format!(
        "{} is the lock of {} (its first line says so), another intent beside {intent}: a copied lock gives {own} the allocation of another fabric. If {own} is meant to start from it, change the lock's first line to name {own} (or render with --allow-renumber); otherwise delete {}",
        l.source.name,
        other.display(),
        l.source.name
    )
}

/// With no lock beside `intent`: refuses (unless `allow`) when a lock beside it belongs to an intent
/// that is gone, as after `git mv` of the intent alone: rendering from the arithmetic would undo what
/// that lock holds.
fn no_orphaned_lock(intent: &str, allow: bool) -> Result<(), Exit> {
    let dir = match Path::new(intent).parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
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
    let lock = path(intent);
    let renamed = git_renamed_from(intent);
    let first = &orphans[0];
    let how = match &renamed {
        Some(from) => format!(
            "git shows {intent} renamed from {from}: `git mv {} {}`",
            dir.join(first).display(),
            lock.display()
        ),
        None => format!(
            "if {intent} is that intent renamed, rename its lock too: `git mv {} {}`",
            dir.join(first).display(),
            lock.display()
        ),
    };
    if allow {
        eprintln!(
            "note: {} has no lock; {} beside it belongs to an intent that is gone; allocating afresh (--allow-renumber)",
            intent,
            orphans.join(", ")
        );
        return Ok(());
    }
    eprintln!(
        "error: {intent} has no lock ({}), but {} beside it is the lock of an intent that is gone; rendering from the arithmetic would renumber what it holds. {how}; or, to allocate {intent} afresh, render with --allow-renumber (and delete the old lock); nothing written",
        lock.display(),
        orphans
            .iter()
            .map(|o| dir.join(o).display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Err(Exit::Trouble)
}

/// The path git records `intent` as renamed from (staged, or in the last commits that touched it),
/// if git knows one.
fn git_renamed_from(intent: &str) -> Option<String> {
    let p = Path::new(intent);
    let dir = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = p.file_name()?.to_str()?;
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

/// The manifest's record of a lock: its path from the output folder `folder` (the same on every machine
/// that has the same layout, however the paths were typed), the entries of each list, the hash of its
/// text, and its lineage and serial (read back from `text`'s history lines) before the hash.
pub fn record(lock: &Lock, text: &str, intent: &str, folder: &Path) -> String {
    let t = lock::Total::of(lock);
    let head = &text.as_bytes()[..text.len().min(history::HEAD_BYTES as usize)];
    let h = aifab::lock::history::of_head(head);
    let stamp = h
        .lineage
        .map(|l| format!("lineage {l}, serial {}, ", h.serial))
        .unwrap_or_default();
    format!(
        "{}, {} devices, {} links, {} servers, {stamp}xxh3-128 {:032x}",
        from_folder(intent, folder),
        t.devices,
        t.links,
        t.servers,
        xxhash_rust::xxh3::xxh3_128(text.as_bytes())
    )
}

/// The path of the lock of `intent` relative to output folder `folder` (`../intents/x.lock.yaml`),
/// `/`-separated; the lock's file name when either cannot be resolved.
fn from_folder(intent: &str, folder: &Path) -> String {
    let lock = path(intent);
    let name = lock
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let canon_dir = |p: &Path| -> Option<PathBuf> {
        let parent = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        Some(std::fs::canonicalize(parent).ok()?.join(p.file_name()?))
    };
    let (Some(base), Some(target)) = (canon_dir(folder), canon_dir(&lock)) else {
        return name;
    };
    let (b, t): (Vec<_>, Vec<_>) = (base.components().collect(), target.components().collect());
    let common = b.iter().zip(&t).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".to_string(); b.len() - common];
    parts.extend(
        t[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// A [`record`] read back: the lock file it names, its entry counts, and its lineage and serial (a
/// record of an aifab before lineages has none).
struct Record<'r> {
    name: &'r str,
    had: [usize; 3],
    stamp: Option<Stamp>,
}

/// The [`Record`] of manifest line `r`.
fn read_record(r: &str) -> Option<Record<'_>> {
    let mut parts = r.split(", ");
    let name = parts.next()?;
    let mut had = [0; 3];
    for (slot, word) in had.iter_mut().zip(["devices", "links", "servers"]) {
        *slot = parts
            .next()?
            .strip_suffix(&format!(" {word}"))?
            .parse()
            .ok()?;
    }
    let mut stamp = (None, None);
    for part in parts {
        if let Some(l) = part.strip_prefix("lineage ") {
            stamp.0 = Some(l.to_string());
        } else if let Some(n) = part.strip_prefix("serial ") {
            stamp.1 = n.parse().ok();
        }
    }
    let stamp = match stamp {
        (Some(lineage), Some(serial)) => Some(Stamp { lineage, serial }),
        _ => None,
    };
    Some(Record { name, had, stamp })
}

/// Refuses (unless `allow`) a render into `out` with a lock of `intent` that is behind what the
/// folder was rendered with, or behind the lock's committed history in git (a new folder too): a
/// lock that is gone, holds fewer entries, is of another lineage (another fabric's) or of an older
/// serial (an older lock put back) would renumber what runs. Gives the newest history known (the
/// folder's record, git's), which the lock written is numbered past.
pub fn matches_output(
    intent: &str,
    out: &Path,
    lock: Option<&Loaded>,
    allow: bool,
) -> Result<Option<Stamp>, Exit> {
    let p = path(intent);
    let recorded = aifab::write::read_manifest(out).and_then(|m| m.lock);
    // A record of another intent's lock (another fabric rendered into this folder before) says
    // nothing of this one.
    let record = recorded
        .as_deref()
        .and_then(read_record)
        .filter(|r| r.name == from_folder(intent, out));
    let mut problems = Vec::new();
    if let Some(r) = &record {
        problems.extend(behind_record(&p, out, lock, r));
    }
    // The committed history too, whatever the folder: a record can be edited as a lock can. A lock
    // missing is said once.
    let (found, committed) = history::against_git(&p, lock);
    if lock.is_some() || record.is_none() {
        problems.extend(found);
    }
    let floor = newest(committed, record.and_then(|r| r.stamp));
    if problems.is_empty() {
        if let Some(l) = lock.filter(|l| l.history.edited()) {
            eprintln!(
                "note: {} was edited by hand since aifab wrote its serial {} (its digest line no longer matches): the edit is kept, and this render writes it as the next serial",
                p.display(),
                l.history.serial
            );
        }
        return Ok(floor);
    }
    if allow {
        for problem in &problems {
            eprintln!("note: {problem}; rendering with it (--allow-renumber)");
        }
        return Ok(floor);
    }
    for problem in &problems {
        eprintln!("error [AIF-LOCK-006]: {problem}");
    }
    eprintln!(
        "  help: restore the newest lock from git (`git checkout -- {}`); if this lock is meant (entries released or deleted on purpose, an older allocation brought back), render with --allow-renumber, which writes it as the next serial; nothing written",
        p.display()
    );
    Err(Exit::Trouble)
}

/// The history a lock written now is numbered past: git's lineage (the repository's history outlives
/// a folder), at the highest serial git or the folder's record knows of it; the record's alone
/// without git.
fn newest(committed: Option<Stamp>, recorded: Option<Stamp>) -> Option<Stamp> {
    match (committed, recorded) {
        (Some(c), Some(r)) if c.lineage == r.lineage => Some(Stamp {
            serial: c.serial.max(r.serial),
            ..c
        }),
        (Some(c), _) => Some(c),
        (None, r) => r,
    }
}

/// What is wrong with `lock` against the record `r` of output folder `out`: missing, fewer entries,
/// another lineage, an older serial.
fn behind_record(p: &Path, out: &Path, lock: Option<&Loaded>, r: &Record) -> Vec<String> {
    let (name, had) = (r.name, r.had);
    let Some(l) = lock else {
        return vec![format!(
            "{} is missing, but {} was rendered with it ({name}: {} devices, {} links, {} servers)",
            p.display(),
            out.display(),
            had[0],
            had[1],
            had[2]
        )];
    };
    let mut problems = Vec::new();
    let marker = out.join(aifab::write::MARKER);
    if let Some(stamp) = &r.stamp {
        problems.extend(history::behind(
            p,
            &l.history,
            stamp,
            &format!(
                "{} was rendered with serial {} of lineage {} (as {} records)",
                out.display(),
                stamp.serial,
                stamp.lineage,
                marker.display()
            ),
        ));
    }
    let t = lock::Total::of(&l.lock);
    let now = [t.devices, t.links, t.servers];
    let short: Vec<String> = ["devices", "links", "servers"]
        .iter()
        .zip(now.iter().zip(had))
        .filter(|(_, (n, h))| **n < *h)
        .map(|(w, (n, h))| format!("{n} {w} where it held {h}"))
        .collect();
    if !short.is_empty() {
        problems.push(format!(
            "{} holds fewer entries than when {} was rendered with it ({}, as {} records): entries were lost, or an older lock was put back",
            p.display(),
            out.display(),
            short.join(", "),
            marker.display()
        ));
    }
    problems
}

/// The lock a full render of `model` writes: the model's allocation plus `prev`'s retired entries
/// (dropped with `release`).
pub fn next(model: &FabricModel, prev: Option<&Loaded>, release: bool) -> Lock {
    from_model(model, prev.map(|l| &l.lock), release)
}

/// Prints the devices a change renumbers or re-cables, up to `limit` lines each.
pub fn print_renumbered(list: &[Renumbered], limit: usize) {
    for r in list {
        let more = r.changes.len().saturating_sub(limit);
        let tail = if more > 0 {
            format!("; and {more} more")
        } else {
            String::new()
        };
        let shown: Vec<&str> = r.changes.iter().take(limit).map(String::as_str).collect();
        eprintln!("  {}: {}{tail}", r.device, shown.join("; "));
    }
}

/// Refuses (exit 2, with the list) a render that would renumber or re-cable a device the lock holds,
/// unless `allow`.
pub fn guard(prev: Option<&Loaded>, new: &Lock, allow: bool) -> Result<(), Exit> {
    let Some(prev) = prev else { return Ok(()) };
    let list = renumbered(&prev.lock, new);
    if list.is_empty() {
        return Ok(());
    }
    if allow {
        eprintln!(
            "note: renumbering or re-cabling {} existing devices (--allow-renumber):",
            list.len()
        );
        print_renumbered(&list, 4);
        return Ok(());
    }
    eprintln!(
        "error: this render would renumber or re-cable {} existing devices held by {}:",
        list.len(),
        prev.source.name
    );
    print_renumbered(&list, 4);
    eprintln!(
        "hint: review the list (aifab diff shows CHG-RENUMBER), then render with --allow-renumber"
    );
    Err(Exit::Trouble)
}

/// The lock's text for the intent at `intent`, written after the lock `prev` (the one read, if any)
/// and past `floor` (the newest history [`matches_output`] knows): its lineage kept, its serial one
/// more when its entries changed.
pub fn text(lock: &Lock, intent: &str, prev: Option<&Loaded>, floor: Option<&Stamp>) -> String {
    let name = Path::new(intent)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    lock.to_yaml_after(&name, prev.map(|l| &l.history), floor)
}

/// A new lock waiting for the render that made it to succeed: nothing to do when the file already holds
/// it, or its text already written to a staged file beside the lock, which the write renames over the
/// lock together with the output ([`aifab::write::Companion`]) and which is removed if the render fails.
/// Staging while the render runs frees the text (18 MB at 100K GPUs) before the render's peak.
#[derive(Debug)]
pub struct Staged {
    /// The manifest's record of the new lock ([`record`]).
    pub record: String,
    /// The hash of the new lock's text, as the record names it (the journal records it).
    hash: u128,
    /// The staged file and the lock it replaces; `None` when the lock already holds the text.
    files: Option<(PathBuf, PathBuf)>,
}

impl Staged {
    /// What the write commits with the output.
    pub fn companion(&self) -> aifab::write::Companion {
        aifab::write::Companion {
            record: self.record.clone(),
            staged: self.files.clone(),
            hash: self.hash,
        }
    }

    /// The lock file this render changes, when its text differs from the file's.
    pub fn changes(&self) -> Option<&Path> {
        self.files.as_ref().map(|(_, lock)| lock.as_path())
    }

    /// The write took the staged file over (renamed it, or left it for its journal): nothing to remove.
    pub fn handed_over(mut self) {
        self.files = None;
    }
}

impl Drop for Staged {
    /// An uncommitted lock is removed: the lock file stays as it was.
    fn drop(&mut self) {
        if let Some((tmp, _)) = &self.files {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// Stages `text` (the text of `lock`) as the lock of `intent` (see [`Staged`]); an unchanged lock is
/// not rewritten. The staged file is new (never a file or link already there).
pub fn stage(intent: &str, lock: &Lock, text: &str, folder: &Path) -> Result<Staged, String> {
    let path = path(intent);
    let record = record(lock, text, intent, folder);
    let hash = xxhash_rust::xxh3::xxh3_128(text.as_bytes());
    if aifab::write::holds(&path, text.as_bytes()) {
        return Ok(Staged {
            record,
            hash,
            files: None,
        });
    }
    let tmp = journal::staged_lock(&path, std::process::id());
    let _ = std::fs::remove_file(&tmp);
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()));
    match written {
        Ok(()) => Ok(Staged {
            record,
            hash,
            files: Some((tmp, path)),
        }),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(format!("{}: {e}", path.display()))
        }
    }
}

/// Whether the lock of `intent` holds exactly `text`; prints why not.
pub fn is_current(intent: &str, text: &str) -> bool {
    let p = path(intent);
    if aifab::write::holds(&p, text.as_bytes()) {
        return true;
    }
    if let Some(version) = earlier_version(&p) {
        eprintln!(
            "{}: stale: an earlier aifab wrote it (version {version}); this aifab writes version {} (its lineage and serial added, docs/lock.md): run `aifab render {intent} --out DIR` (or --check --bless) and commit the lock",
            p.display(),
            lock::VERSION
        );
    } else if p.exists() {
        eprintln!(
            "{}: stale: this render allocates differently; run `aifab render {intent} --out DIR` (or --check --bless) and commit the lock",
            p.display()
        );
    } else {
        eprintln!(
            "{}: missing: run `aifab render {intent} --out DIR` (or --check --bless) and commit the lock",
            p.display()
        );
    }
    false
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
        .take(history::HEAD_BYTES)
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
