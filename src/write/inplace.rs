//! A partial render (`--only`) written in place: only the files whose bytes changed (the matched
//! devices' files, the inventory, the manifest) are replaced inside the existing output folder, under
//! a journal, instead of staging a whole new folder (at 100K GPUs that folder has 2,145 entries and
//! 1,568 sub-folders to link, walk and park for one switch's config).
//!
//! The steps, each a named point of [`super::interrupt`]:
//!
//! 1. The journal `.NAME.aifab-journal` is put beside the output folder (a complete file, linked into
//!    place: never half written, and never over another render's journal), `state: staging`, listing
//!    every file the render replaces, the manifest last.
//! 2. The new bytes of the `i`-th listed file are written to `i` in the folder `.NAME.aifab-only-PID`
//!    beside the output (`fill` before the first); then `staged`. Nothing inside the output folder has
//!    changed. An error or a signal up to here removes that folder and the journal.
//! 3. The journal is rewritten (a new file renamed over it) with `state: commit` (`journaled`): from
//!    here the change is decided.
//! 4. Each staged file is renamed over the file it replaces (one `rename` each: a reader sees the old or
//!    the new file, never a part; the manifest last), `swapped` (and `locked`: `--only` writes no lock,
//!    the point is kept so the same hooks stop every write); the staging folder and the journal are
//!    removed (`committed`).
//!
//! At every named point the output folder is the old output or the new one, whole. A process killed
//! anywhere leaves the journal, and the next render into (or check of) the folder ([`settle`])
//! finishes the change (`commit`: every staged file still there is renamed into place) or undoes it
//! (`staging`: the staging folder is removed).
//!
//! ```text
//! aifab in-place journal 2
//! pid: 4242 started 918273
//! state: commit
//! file: xxh3-128 77d1... z1-g1-r1.cfg
//! file: xxh3-128 03be... .aifab-output
//! ```
//!
//! The journal's own place names the output folder; each file is named relative to it (a plain path,
//! never absolute, no `..`, no `.git`; the manifest only last) with the hash of the bytes aifab staged
//! for it. A `commit` journal is acted on only when all of it verifies first: each staged file still
//! there is a regular file of the real folder `.NAME.aifab-only-PID`, with no execute bit, whose bytes
//! hash to the recorded hash, and goes to a path inside the output folder with no link on the way, over
//! nothing or over a file the folder's manifest (as it is before the journal is replayed) lists and
//! whose bytes are the ones aifab wrote there; each file no longer staged already holds its recorded
//! bytes. A journal that does not verify is reported with its reason and left alone: nothing is moved
//! or removed. A journal that came from elsewhere (planted, copied) can therefore put in place only
//! files whose bytes its writer chose, over nothing of the user's. The process is recorded with its
//! start time ([`crate::files::process_start`]): a live process that took the id since does not block
//! the folder.
//!
//! The in-place write applies to a folder aifab rendered before (its manifest lists what aifab wrote)
//! where the render only replaces or adds files in folders that exist; anything else (a new folder, a
//! file of a matched device the render no longer writes, a folder where a file goes) is left to the
//! staged write ([`super::stage`]), which handles every case.

use super::{
    Doubt, Failure, MARKER, Options, Report, WriteError, manifest, may_replace, parent_and_name,
    safe_relative,
};
use crate::render::OutFile;
use std::collections::HashSet;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// The first line of every in-place journal.
const HEADER: &str = "aifab in-place journal 2";

/// The journal of output folder `out`: `.NAME.aifab-journal` beside it.
pub fn journal_path(out: &Path) -> Option<PathBuf> {
    let (parent, name) = parent_and_name(out).ok()?;
    Some(parent.join(format!(".{name}.aifab-journal")))
}

/// The folder beside output folder `out` where process `pid` stages the new files.
fn staging_path(out: &Path, pid: u32) -> Option<PathBuf> {
    let (parent, name) = parent_and_name(out).ok()?;
    Some(parent.join(format!(".{name}.{}{pid}", super::stale::ONLY_STAGING)))
}

/// Where process `pid` writes the new text of the journal before it is put in place.
fn journal_new(journal: &Path, pid: u32) -> PathBuf {
    let mut name = journal.as_os_str().to_owned();
    name.push(format!("-new-{pid}"));
    PathBuf::from(name)
}

/// The two states of a journal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// New files are being staged: undone by [`settle`].
    Staging,
    /// Every new file is staged: finished by [`settle`].
    Commit,
}

/// A journal's content.
#[derive(Debug, PartialEq, Eq)]
struct Entry {
    pid: u32,
    /// When that process started ([`crate::files::process_start`]), where known.
    start: Option<u64>,
    state: State,
    /// The files replaced, relative to the output folder, each with the hash of its staged bytes; the
    /// `i`-th is staged as `i`.
    files: Vec<(String, u128)>,
}

impl Entry {
    fn text(&self) -> String {
        use std::fmt::Write as _;
        let state = match self.state {
            State::Staging => "staging",
            State::Commit => "commit",
        };
        let start = self
            .start
            .map_or_else(String::new, |s| format!(" started {s}"));
        let mut s = format!("{HEADER}\npid: {}{start}\nstate: {state}\n", self.pid);
        for (f, h) in &self.files {
            let _ = writeln!(s, "file: xxh3-128 {h:032x} {f}");
        }
        s
    }

    /// The journal in `text`, or why it is not one this aifab acts on.
    fn parse(text: &str) -> Result<Entry, Doubt> {
        let not_ours = || Doubt::NotOurs(HEADER);
        let mut lines = text.lines();
        (lines.next() == Some(HEADER))
            .then_some(())
            .ok_or_else(not_ours)?;
        let (pid, start) = lines
            .next()
            .and_then(|l| l.strip_prefix("pid: "))
            .and_then(super::journal::pid_line)
            .ok_or_else(not_ours)?;
        let state = match lines.next().and_then(|l| l.strip_prefix("state: ")) {
            Some("staging") => State::Staging,
            Some("commit") => State::Commit,
            _ => return Err(not_ours()),
        };
        let files = lines.map(file_line).collect::<Result<Vec<_>, _>>()?;
        if let Some(i) = files.iter().position(|(f, _)| f == MARKER)
            && i + 1 != files.len()
        {
            return Err(Doubt::MarkerFirst);
        }
        Ok(Entry {
            pid,
            start,
            state,
            files,
        })
    }
}

/// One `file:` line of a journal: its path (plain, relative, no `.git`) and hash.
fn file_line(line: &str) -> Result<(String, u128), Doubt> {
    let bad = || Doubt::BadFileLine(line.to_string());
    let rest = line.strip_prefix("file: xxh3-128 ").ok_or_else(bad)?;
    let (hex, rel) = rest.split_once(' ').ok_or_else(bad)?;
    let hash = (hex.len() == 32)
        .then(|| u128::from_str_radix(hex, 16).ok())
        .flatten()
        .ok_or_else(bad)?;
    safe_relative(rel).map_err(Doubt::Leaves)?;
    if rel.split('/').any(|p| p == ".git") {
        return Err(Doubt::InGit(rel.to_string()));
    }
    Ok((rel.to_string(), hash))
}

/// Finishes or undoes the in-place write a journal beside `out` records, when the process that wrote
/// it no longer runs and the journal verifies (see the module doc), and removes journal texts of
/// processes that are gone. `Ok(Some(message))` says what it did; an error names a journal of a process
/// that still runs (another render is writing the folder), or one that does not verify and why (it is
/// left alone).
pub fn settle(out: &Path) -> Result<Option<String>, WriteError> {
    let Some(journal) = journal_path(out) else {
        return Ok(None);
    };
    remove_dead_journal_texts(&journal);
    let bytes = match crate::files::read_own(&journal, 16 * 1024 * 1024) {
        Ok(b) => b,
        Err(crate::files::ReadError::Missing) => return Ok(None),
        Err(error) => {
            return Err(WriteError::Read {
                path: journal,
                limit: 16 * 1024 * 1024,
                error,
            });
        }
    };
    let refuse = |why: Doubt| WriteError::NotActedOn {
        journal: journal.clone(),
        out: out.to_path_buf(),
        why,
    };
    let entry = std::str::from_utf8(&bytes)
        .map_err(|_| Doubt::NotText)
        .and_then(Entry::parse)
        .map_err(refuse)?;
    if entry.pid != std::process::id() && crate::files::process_alive(entry.pid, entry.start) {
        return Err(WriteError::BusyJournal {
            pid: entry.pid,
            out: out.to_path_buf(),
            journal,
        });
    }
    let staging = staging_path(out, entry.pid);
    let renamed = match (entry.state, &staging) {
        (State::Commit, Some(dir)) => {
            let moves = verify(out, dir, &entry.files).map_err(refuse)?;
            replay(out, dir, &entry.files, &moves)
        }
        _ => 0,
    };
    if renamed > 0 {
        // What the replay renamed, on the disk before the journal goes ([`super::durable`]).
        let mut folders: Vec<PathBuf> = entry
            .files
            .iter()
            .filter_map(|(rel, _)| safe_relative(rel).ok())
            .filter_map(|rel| out.join(rel).parent().map(Path::to_path_buf))
            .collect();
        folders.sort();
        folders.dedup();
        super::durable::all(&folders, super::durable::folder_if_there)?;
    }
    if let Some(dir) = &staging {
        remove_staging(dir);
    }
    std::fs::remove_file(&journal).map_err(super::error::io(&journal))?;
    let what = match entry.state {
        State::Commit => format!(
            "had decided its change: it is now in place ({renamed} of its {} files were still to rename)",
            entry.files.len()
        ),
        State::Staging => "had not changed it: what it staged is removed".to_string(),
    };
    Ok(Some(format!(
        "an interrupted --only render (pid {}) of {} {what}",
        entry.pid,
        out.display()
    )))
}

/// Checks a `commit` journal's `files` against the staging folder `staging` and the output folder `out`
/// before anything is moved (see the module doc); returns which of them are still staged (to rename),
/// or why the journal does not verify.
fn verify(out: &Path, staging: &Path, files: &[(String, u128)]) -> Result<Vec<bool>, Doubt> {
    let real = match std::fs::symlink_metadata(staging) {
        Ok(m) if m.is_dir() => true,
        Ok(_) => return Err(Doubt::StagingNotAFolder(staging.to_path_buf())),
        Err(_) => false,
    };
    let before = manifest::read(out);
    let mut moves = Vec::with_capacity(files.len());
    for (i, (rel, hash)) in files.iter().enumerate() {
        let staged = staging.join(i.to_string());
        let target = out.join(rel);
        let here = real && std::fs::symlink_metadata(&staged).is_ok();
        if !here {
            if super::sums::holds(&target, *hash) {
                moves.push(false);
                continue;
            }
            return Err(Doubt::Lost {
                rel: rel.clone(),
                staged,
            });
        }
        if !super::sums::plain_mode(&staged) || !super::sums::holds(&staged, *hash) {
            return Err(Doubt::NotStaged {
                staged,
                rel: rel.clone(),
                hash: *hash,
            });
        }
        if !folders_are_real(out, Path::new(rel)) || !replaceable(&target, rel, before.as_ref()) {
            return Err(Doubt::NotFree(target));
        }
        moves.push(true);
    }
    Ok(moves)
}

/// Whether `target` (the file `rel` of the output folder) may be replaced by a staged file: nothing
/// stands there, or it is the manifest, or a regular file the folder's manifest `before` lists whose
/// bytes are the ones aifab wrote there (a file listed without a hash, by an earlier aifab, when no
/// file of that manifest has one).
fn replaceable(target: &Path, rel: &str, before: Option<&manifest::Manifest>) -> bool {
    let m = match std::fs::symlink_metadata(target) {
        Err(e) => return e.kind() == ErrorKind::NotFound,
        Ok(m) => m,
    };
    if !m.is_file() {
        return false;
    }
    if rel == MARKER {
        return true;
    }
    match before.and_then(|b| b.entry(rel).map(|h| (b, h))) {
        Some((_, Some(h))) => super::sums::holds(target, h),
        Some((b, None)) => b.hashes.is_empty(),
        None => false,
    }
}

/// Renames every file still staged in `staging` (`moves`, verified by [`verify`]) into place in `out`,
/// the manifest last; returns how many.
fn replay(out: &Path, staging: &Path, files: &[(String, u128)], moves: &[bool]) -> usize {
    let mut renamed = 0;
    for (i, ((rel, _), go)) in files.iter().zip(moves).enumerate() {
        if *go && std::fs::rename(staging.join(i.to_string()), out.join(rel)).is_ok() {
            renamed += 1;
        }
    }
    renamed
}

/// Whether every folder between `out` and the file `rel` (and `out` itself) is a real folder (no
/// link, nothing else).
fn folders_are_real(out: &Path, rel: &Path) -> bool {
    let mut dir = out.to_path_buf();
    if !std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
        return false;
    }
    let parts: Vec<_> = rel.components().collect();
    for c in &parts[..parts.len().saturating_sub(1)] {
        dir.push(c);
        if !std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
            return false;
        }
    }
    true
}

/// Removes staging folder `dir` and the files in it, when it is a real folder (never through a
/// link). A staging folder holds only files, named by number.
fn remove_staging(dir: &Path) {
    if std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Removes the journal texts (`.NAME.aifab-journal-new-PID`) of processes that no longer run.
fn remove_dead_journal_texts(journal: &Path) {
    let (Some(parent), Some(name)) = (journal.parent(), journal.file_name()) else {
        return;
    };
    let prefix = format!("{}-new-", name.to_string_lossy());
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(pid) = file
            .to_str()
            .and_then(|n| n.strip_prefix(&prefix))
            .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|d| d.parse::<u32>().ok())
        else {
            continue;
        };
        if super::stale::gone(pid, &e.path()) && e.file_type().is_ok_and(|t| t.is_file()) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// What [`write`] did.
#[derive(Debug)]
pub enum Outcome {
    /// The files were written in place (or none had changed).
    Done(Report),
    /// The in-place write does not apply here (the reason): the caller stages a new folder instead.
    Staged(String),
}

/// One file the render replaces: its path relative to the folder, where it goes, its bytes and their
/// hash.
struct Change<'a> {
    rel: String,
    target: PathBuf,
    bytes: &'a [u8],
    hash: u128,
}

/// What a partial render changes in the folder.
struct Plan<'a> {
    changes: Vec<Change<'a>>,
    manifest: Option<String>,
    unchanged: usize,
}

/// Writes the files of a partial render (`options.keep`: every file it does not write stays) into the
/// existing output folder `out` in place, under a journal (see the module doc). Returns
/// [`Outcome::Staged`] where the in-place write does not apply, before anything is written.
pub fn write(out: &Path, options: &Options, files: &[OutFile]) -> Result<Outcome, Failure> {
    let staged = |why: &str| Ok(Outcome::Staged(why.to_string()));
    let Some(keep) = options.keep else {
        return staged("not a partial render");
    };
    let settled = settle(out).map_err(Failure::unchanged)?;
    if !may_replace(out).map_err(Failure::unchanged)? {
        return staged("no output folder yet");
    }
    let Some(previous) = manifest::read(out) else {
        return staged("no manifest");
    };
    let Some(listed) = previous.files.as_ref() else {
        return staged("a manifest of an earlier aifab");
    };
    let (parent, name) = parent_and_name(out).map_err(Failure::unchanged)?;
    if let Some(pid) = super::stale::live_staging(&parent, &name) {
        return Err(Failure::unchanged(WriteError::Busy {
            pid,
            out: out.to_path_buf(),
        }));
    }
    let mut report = Report {
        stale: super::stale::folders(&parent, &name),
        notes: settled.into_iter().collect(),
        ..Report::default()
    };
    let plan = match plan(out, &previous, listed, keep, files, options.secrets)? {
        Ok(plan) => plan,
        Err(why) => return staged(why),
    };
    let mut changes = plan.changes;
    if let Some(text) = &plan.manifest {
        changes.push(Change {
            rel: MARKER.to_string(),
            target: out.join(MARKER),
            bytes: text.as_bytes(),
            hash: super::index::hash(text.as_bytes()),
        });
    }
    report.written.unchanged = plan.unchanged;
    report.written.written = changes.len();
    if !changes.is_empty() {
        super::interrupt::busy(true);
        let result = commit(out, &changes, options.secrets);
        super::interrupt::busy(false);
        result?;
    }
    if options.secrets {
        // As a full render that fills secrets: no index and no spare keep a copy or hash of them.
        super::forget_index(out);
        let spare = super::spare::path(&parent, &name);
        if std::fs::symlink_metadata(&spare).is_ok_and(|m| m.is_dir()) {
            super::forget_index(&spare);
            super::remove_tree(&spare);
        }
    }
    Ok(Outcome::Done(report))
}

/// What the render changes in `out`: each file whose bytes differ from the folder's (with `secrets`,
/// also one that is not owner-only), and the new manifest when its text changes. `Ok(Err(why))` where
/// the in-place write does not apply; an error for an entry of the user's where the render writes.
fn plan<'a>(
    out: &Path,
    previous: &manifest::Manifest,
    listed: &HashSet<String>,
    keep: &dyn Fn(&str) -> bool,
    files: &'a [OutFile],
    secrets: bool,
) -> Result<Result<Plan<'a>, &'static str>, Failure> {
    let mut clash: Vec<String> = Vec::new();
    let mut changes = Vec::new();
    let mut unchanged = 0;
    let put: HashSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    for f in files {
        let rel = safe_relative(&f.path).map_err(Failure::unchanged)?;
        if f.path == MARKER {
            return Err(Failure::unchanged(WriteError::ManifestPath(f.path.clone())));
        }
        let target = out.join(&rel);
        match ancestors(out, &rel, listed) {
            Ancestors::Real => {}
            Ancestors::Missing => return Ok(Err("a new folder")),
            Ancestors::Ours => return Ok(Err("a file of aifab's where a folder goes")),
            Ancestors::Users(p) => {
                clash.push(p);
                continue;
            }
        }
        let bytes = f.content.as_bytes();
        match std::fs::symlink_metadata(&target) {
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(Failure::unchanged(super::error::io(&target)(e))),
            Ok(m) if m.is_dir() => return Ok(Err("a folder where a file goes")),
            // A file or link of the user's where the render writes: refused below, as a staged write
            // refuses it.
            Ok(_) if !listed.contains(&f.path) => {
                clash.push(f.path.clone());
                continue;
            }
            Ok(m) if m.is_file() && owner_only(&m, secrets) && super::holds(&target, bytes) => {
                unchanged += 1;
                continue;
            }
            // aifab's file with other bytes, or a link in its place (replaced, never followed).
            Ok(_) => {}
        }
        changes.push(Change {
            rel: f.path.clone(),
            target,
            bytes,
            hash: super::index::hash(bytes),
        });
    }
    if !clash.is_empty() {
        clash.sort();
        clash.dedup();
        let mut entries: Vec<super::user::Entry> = clash
            .into_iter()
            .map(|p| (p, super::user::Kind::File))
            .collect();
        super::user::collisions(out, &mut entries, &put, true).map_err(Failure::unchanged)?;
    }
    // The files the folder's manifest lists that the render does not write: the rest of the fabric's
    // (kept), and those of a matched device it no longer writes, which a staged write removes.
    let (kept, gone): (Vec<&str>, Vec<&str>) = listed
        .iter()
        .map(String::as_str)
        .filter(|f| *f != MARKER && !put.contains(f))
        .partition(|f| keep(f));
    if gone
        .iter()
        .any(|f| std::fs::symlink_metadata(out.join(f)).is_ok())
    {
        return Ok(Err(
            "a file of a matched device the render no longer writes",
        ));
    }
    let manifest = new_manifest(out, previous, kept, files);
    Ok(Ok(Plan {
        changes,
        manifest,
        unchanged,
    }))
}

/// Where the folders above a file stand.
enum Ancestors {
    /// Every one is a real folder.
    Real,
    /// One does not exist yet.
    Missing,
    /// A file aifab wrote stands where a folder goes.
    Ours,
    /// An entry of the user's (a link, a file) stands where a folder goes: its path.
    Users(String),
}

/// Where the folders between `out` and the file `rel` stand (`listed`: the files aifab wrote).
fn ancestors(out: &Path, rel: &Path, listed: &HashSet<String>) -> Ancestors {
    let parts: Vec<_> = rel.components().collect();
    let mut dir = out.to_path_buf();
    let mut text = String::new();
    for c in &parts[..parts.len().saturating_sub(1)] {
        dir.push(c);
        if !text.is_empty() {
            text.push('/');
        }
        text.push_str(&c.as_os_str().to_string_lossy());
        match std::fs::symlink_metadata(&dir) {
            Err(_) => return Ancestors::Missing,
            Ok(m) if m.is_dir() => {}
            Ok(_) if listed.contains(&text) => return Ancestors::Ours,
            Ok(_) => return Ancestors::Users(text),
        }
    }
    Ancestors::Real
}

/// Whether a file's mode is fine for the render: any without `secrets`, owner-only with them.
#[cfg(unix)]
fn owner_only(m: &std::fs::Metadata, secrets: bool) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    !secrets || m.permissions().mode() & 0o077 == 0
}

#[cfg(not(unix))]
fn owner_only(_: &std::fs::Metadata, _: bool) -> bool {
    true
}

/// The manifest after the render, when its text differs from the folder's: what the render wrote
/// (`files`, with the hash of their bytes) and every file of the folder's manifest `previous` the render
/// keeps (`kept`) that is still a file there, with the hash that manifest has for it (as the staged
/// write lists what it carried over; looked at in parallel). The lock record stays: `--only` writes no
/// lock.
fn new_manifest(
    out: &Path,
    previous: &manifest::Manifest,
    kept: Vec<&str>,
    files: &[OutFile],
) -> Option<String> {
    use rayon::prelude::*;
    let kept: Vec<(&str, Option<u128>)> = kept
        .into_par_iter()
        .filter(|f| std::fs::symlink_metadata(out.join(f)).is_ok_and(|m| m.is_file()))
        .map(|f| (f, previous.hashes.get(f).copied()))
        .collect();
    let mut listed: Vec<(&str, Option<u128>)> = files
        .par_iter()
        .map(|f| {
            (
                f.path.as_str(),
                Some(super::index::hash(f.content.as_bytes())),
            )
        })
        .collect();
    listed.extend(kept);
    let text = manifest::text(previous.lock.as_deref(), &mut listed);
    (!super::holds(&out.join(MARKER), text.as_bytes())).then_some(text)
}

/// Stages `changes` beside the folder, then renames them into place under the journal (see the
/// module doc). Before the journal says `commit`, an error or a signal removes what was staged.
fn commit(out: &Path, changes: &[Change], secrets: bool) -> Result<(), Failure> {
    let pid = std::process::id();
    let not_a_name = || Failure::unchanged(WriteError::NoName(out.to_path_buf()));
    let journal = journal_path(out).ok_or_else(not_a_name)?;
    let staging = staging_path(out, pid).ok_or_else(not_a_name)?;
    let mut entry = Entry {
        pid,
        start: crate::files::process_start(pid),
        state: State::Staging,
        files: changes.iter().map(|c| (c.rel.clone(), c.hash)).collect(),
    };
    put_journal(&journal, &entry, false, out).map_err(Failure::unchanged)?;
    let undo = |error: WriteError| {
        remove_staging(&staging);
        let _ = std::fs::remove_file(&journal);
        Failure {
            signal: super::interrupt::pending(),
            ..Failure::unchanged(error)
        }
    };
    // A folder of this process id left by an earlier process is aifab's: emptied first.
    remove_staging(&staging);
    std::fs::create_dir(&staging).map_err(|e| undo(super::error::io(&staging)(e)))?;
    for (i, c) in changes.iter().enumerate() {
        if i == 0 {
            super::interrupt::point("fill");
        }
        if let Some(sig) = super::interrupt::pending() {
            return Err(undo(WriteError::Interrupted(sig)));
        }
        let new = staging.join(i.to_string());
        let written = fail_after(i).and_then(|()| {
            // The manifest holds no secret: it is written as a staged write writes it.
            let private = secrets && c.rel != MARKER;
            super::write_new(&new, c.bytes, private)
                .map(drop)
                .map_err(super::error::io(&new))
        });
        if let Err(e) = written {
            return Err(undo(e));
        }
    }
    // The staged files and their folder on the disk before the journal decides ([`super::durable`]).
    let staged: Vec<PathBuf> = (0..changes.len())
        .map(|i| staging.join(i.to_string()))
        .collect();
    super::durable::all(&staged, super::durable::file)
        .and_then(|()| super::durable::folder(&staging))
        .and_then(|()| super::durable::parent(&staging))
        .map_err(|e| undo(e.into()))?;
    super::interrupt::point("staged");
    if let Some(sig) = super::interrupt::pending() {
        return Err(undo(WriteError::Interrupted(sig)));
    }
    entry.state = State::Commit;
    put_journal(&journal, &entry, true, out).map_err(undo)?;
    super::durable::file(&journal)
        .and_then(|()| super::durable::parent(&journal))
        .map_err(|e| undo(e.into()))?;
    super::interrupt::point("journaled");
    // Decided: every rename below is done now, or by the next render from the journal.
    let mut failed = Vec::new();
    for (i, c) in changes.iter().enumerate() {
        if let Err(e) = std::fs::rename(staging.join(i.to_string()), &c.target) {
            failed.push(super::error::io(&c.target)(e));
        }
    }
    // The renames on the disk before the journal goes.
    let folders: HashSet<&Path> = changes.iter().filter_map(|c| c.target.parent()).collect();
    let folders: Vec<PathBuf> = folders.into_iter().map(Path::to_path_buf).collect();
    if let Err(e) = super::durable::all(&folders, super::durable::folder) {
        failed.push(e.into());
    }
    super::interrupt::point("swapped");
    super::interrupt::point("locked");
    if !failed.is_empty() {
        return Err(Failure {
            error: WriteError::Unfinished { failed, journal },
            changed: true,
            signal: None,
        });
    }
    let _ = std::fs::remove_dir(&staging);
    let _ = std::fs::remove_file(&journal);
    super::interrupt::point("committed");
    Ok(())
}

/// The staged write's test hook ([`super::FAIL_AFTER_ENV`]): fails after that many files.
fn fail_after(i: usize) -> Result<(), WriteError> {
    let limit: Option<usize> = std::env::var(super::FAIL_AFTER_ENV)
        .ok()
        .and_then(|v| v.parse().ok());
    match limit {
        Some(n) if i >= n => Err(WriteError::Injected { after: n }),
        _ => Ok(()),
    }
}

/// Puts the journal of output folder `out` in place: its text written whole to a file of this process
/// first, then linked into place (`replace` false: a journal already there is an error) or renamed
/// over it.
fn put_journal(journal: &Path, entry: &Entry, replace: bool, out: &Path) -> Result<(), WriteError> {
    let new = journal_new(journal, entry.pid);
    let _ = std::fs::remove_file(&new);
    let placed = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&new)
        .and_then(|mut f| std::io::Write::write_all(&mut f, entry.text().as_bytes()))
        .and_then(|()| match replace {
            true => std::fs::rename(&new, journal),
            false => std::fs::hard_link(&new, journal),
        });
    let _ = std::fs::remove_file(&new);
    placed.map_err(|e| match e.kind() {
        ErrorKind::AlreadyExists => WriteError::JournalTaken {
            journal: journal.to_path_buf(),
            out: out.to_path_buf(),
        },
        _ => super::error::io(journal)(e),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journals_round_trip_and_sit_beside_the_folder() {
        let e = Entry {
            pid: 42,
            start: Some(7),
            state: State::Commit,
            files: vec![
                ("a.cfg".into(), 1),
                ("g/config_db.json".into(), 2),
                (MARKER.into(), 3),
            ],
        };
        assert_eq!(Entry::parse(&e.text()), Ok(e));
        assert!(Entry::parse(&format!("{HEADER}\npid: 1\nstate: maybe\n")).is_err());
        assert_eq!(
            journal_path(Path::new("d/out")),
            Some(PathBuf::from("d/.out.aifab-journal"))
        );
        assert_eq!(
            staging_path(Path::new("d/out"), 7),
            Some(PathBuf::from("d/.out.aifab-only-7"))
        );
    }

    /// A journal naming a path out of the folder, into a git folder, or the manifest before other
    /// files, or a journal of the format before hashes, is not one aifab acts on.
    #[test]
    fn journals_that_name_odd_paths_are_refused() {
        let h = format!("{:032x}", 1);
        for files in [
            vec!["../x"],
            vec!["/etc/passwd"],
            vec![".git/hooks/post-checkout"],
            vec!["a/.git/config"],
            vec![MARKER, "a.cfg"],
        ] {
            let mut text = format!("{HEADER}\npid: 1\nstate: commit\n");
            for f in &files {
                text.push_str(&format!("file: xxh3-128 {h} {f}\n"));
            }
            assert!(Entry::parse(&text).is_err(), "{files:?}");
        }
        let old = "aifab in-place journal 1\npid: 1\nout: /o\nstate: commit\nfile: a.cfg\n";
        assert!(Entry::parse(old).is_err());
    }
}
