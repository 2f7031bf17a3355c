//! The lock's history against what it must not be behind (docs/lock.md, "A lock knows its history"):
//! the record of the output folder rendered with it, or, for a new folder, the lock's committed
//! versions in git, bounded ([`BOUNDS`]: the newest commits that changed it, the first bytes of each,
//! a budget of bytes; one committed version read whole, up to the lock's own limit, when the lock's
//! body differs from it).

use crate::git;
use crate::git::history::{Blob, Bounds, Version};
use crate::lock::history::{History, Stamp, of_head};
use crate::lock::read::Loaded;
use std::path::Path;

/// How far the lock's committed history is looked at: the newest 16 commits that changed it, the first
/// 4 KiB of each version (its history lines are in the first few hundred bytes), and versions of 32 MiB
/// together at most (git inflates a whole version to show any of it: at 100K GPUs the lock is tens of
/// MB, so one version besides the work tree's).
const BOUNDS: Bounds = Bounds {
    commits: 16,
    head_bytes: HEAD_BYTES,
    budget: 32 * 1024 * 1024,
};

/// The bytes read of each committed version, and of a lock's text for its history lines.
pub(super) const HEAD_BYTES: u64 = 4096;

/// Why `h` (the history of the lock at `p`) is behind `reference` (`where_` says what holds it, for
/// the message): another lineage (another fabric's lock), no lineage, or an older serial.
pub(super) fn behind(p: &Path, h: &History, reference: &Stamp, where_: &str) -> Option<String> {
    let p = p.display();
    match &h.lineage {
        Some(l) if *l != reference.lineage => Some(format!(
            "{p} is {}, but {where_}: it is the lock of another fabric",
            h.describe()
        )),
        None => Some(format!(
            "{p} has no lineage (an aifab before lineages wrote it: serial 0), but {where_}: an older lock was put back"
        )),
        Some(_) if h.serial < reference.serial => Some(format!(
            "{p} is {}, but {where_}: an older lock was put back",
            h.describe()
        )),
        Some(_) => None,
    }
}

/// What is wrong with `lock` (the lock at `p`, `None` when there is none) against its committed
/// history in git, and the newest history git holds (the highest serial of the newest committed
/// lineage). Nothing outside a git work tree or for a lock never committed.
pub(super) fn against_git(p: &Path, lock: Option<&Loaded>) -> (Vec<String>, Option<Stamp>) {
    let versions = git::history::history(p, &BOUNDS);
    let known: Vec<(&Version, History)> = versions
        .iter()
        .filter_map(|v| {
            let h = match &v.blob {
                Blob::Head(head) => of_head(head),
                // The work tree's own lock: its body is the committed one, whatever its digest says.
                Blob::WorkTree => lock.map(|l| History {
                    digest: l.history.actual.clone(),
                    ..l.history.clone()
                })?,
                Blob::Removed | Blob::NotRead => return None,
            };
            h.lineage.is_some().then_some((v, h))
        })
        .collect();
    let newest = newest_history(&known);
    let stamp = newest.as_ref().map(|(_, s)| s.clone());
    let Some(lock) = lock else {
        let at_head = versions.first().filter(|v| v.blob != Blob::Removed);
        let problem = at_head.map(|v| {
            format!(
                "{} is missing, but git holds it (committed in {}): rendering without it renumbers what it holds",
                p.display(),
                short(&v.commit)
            )
        });
        return (problem.into_iter().collect(), stamp);
    };
    let Some((commit, floor)) = newest else {
        return (Vec::new(), None);
    };
    let where_ = format!(
        "git's history of it holds serial {} of lineage {} (committed in {})",
        floor.serial,
        floor.lineage,
        short(commit)
    );
    if let Some(problem) = behind(p, &lock.history, &floor, &where_) {
        return (vec![problem], stamp);
    }
    let lost = lost_since(p, lock, &known, &floor.lineage);
    (lost.into_iter().collect(), stamp)
}

/// The highest serial of the lineage of the newest committed lock that has one, and the newest commit
/// that holds it.
fn newest_history<'k>(known: &[(&'k Version, History)]) -> Option<(&'k str, Stamp)> {
    let lineage = known.first()?.1.lineage.clone()?;
    let (version, h) = known
        .iter()
        .filter(|(_, h)| h.lineage.as_deref() == Some(lineage.as_str()))
        .rev()
        .max_by_key(|(_, h)| h.serial)?;
    Some((
        version.commit.as_str(),
        Stamp {
            lineage,
            serial: h.serial,
        },
    ))
}

/// Entries the lock lost against a committed version of its lineage: the oldest committed version of
/// its own serial whose body differs from the lock's (a lock shortened by hand, its `total:` line
/// adjusted, committed or not), or, for a lock edited by hand (its digest does not match), the newest
/// committed version of an older serial. The version compared with is read whole (bounded by the
/// lock's limit) and only counted.
fn lost_since(
    p: &Path,
    lock: &Loaded,
    known: &[(&Version, History)],
    lineage: &str,
) -> Option<String> {
    let h = &lock.history;
    let ours = |v: &&(&Version, History)| v.1.lineage.as_deref() == Some(lineage);
    let same_serial = known
        .iter()
        .filter(ours)
        .rfind(|(_, c)| c.serial == h.serial && c.digest != h.actual);
    let older = || {
        let edited = h.edited();
        known
            .iter()
            .filter(ours)
            .find(|(_, c)| edited && c.serial < h.serial)
    };
    let (version, committed) = same_serial.or_else(older)?;
    let text = version.read_whole(p, crate::lock::read::MAX_LOCK_BYTES)?;
    let then = crate::lock::entry_counts(&text)?;
    let now = crate::lock::Total::of(&lock.lock);
    let fewer: Vec<String> = [
        ("devices", now.devices, then.devices),
        ("links", now.links, then.links),
        ("servers", now.servers, then.servers),
    ]
    .into_iter()
    .filter(|(_, n, t)| n < t)
    .map(|(w, n, t)| format!("{n} {w} where it held {t}"))
    .collect();
    (!fewer.is_empty()).then(|| {
        format!(
            "{} holds fewer entries than serial {} of its lineage committed in {} ({}): entries were deleted by hand (the `total:` line changed to match) or lost",
            p.display(),
            committed.serial,
            short(&version.commit),
            fewer.join(", ")
        )
    })
}

/// A commit id as messages name it (12 hex digits).
fn short(commit: &str) -> &str {
    &commit[..commit.len().min(12)]
}
