//! The output folder's record of the lock it was rendered with (a line of its manifest), and the
//! check that the lock read is not behind that record or the lock's committed history in git.

use super::history;
use super::lock::{LockError, path};
use super::{Note, Say};
use crate::lock::history::Stamp;
use crate::lock::read::Loaded;
use crate::lock::{self, Lock};
use std::path::{Path, PathBuf};

/// The manifest's record of a lock: its path from the output folder `folder` (the same on every machine
/// that has the same layout, however the paths were typed), the entries of each list, the hash of its
/// text, and its lineage and serial (read back from `text`'s history lines) before the hash.
pub fn record(lock: &Lock, text: &str, intent: &str, folder: &Path) -> String {
    let t = lock::Total::of(lock);
    let head = &text.as_bytes()[..text.len().min(history::HEAD_BYTES as usize)];
    let h = crate::lock::history::of_head(head);
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
    say: Say,
) -> Result<Option<Stamp>, LockError> {
    let p = path(intent);
    let recorded = crate::write::read_manifest(out).and_then(|m| m.lock);
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
            say(Note::Line(format!(
                "note: {} was edited by hand since aifab wrote its serial {} (its digest line no longer matches): the edit is kept, and this render writes it as the next serial",
                p.display(),
                l.history.serial
            )));
        }
        return Ok(floor);
    }
    if allow {
        for problem in &problems {
            say(Note::Line(format!(
                "note: {problem}; rendering with it (--allow-renumber)"
            )));
        }
        return Ok(floor);
    }
    Err(LockError::Behind { lock: p, problems })
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
    let marker = out.join(crate::write::MARKER);
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
