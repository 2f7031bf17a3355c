//! Files of the user's in an output folder: whatever aifab did not write there (`NOTES.txt`, a
//! `README.md`, a `.gitattributes`, a folder of notes) is carried into the new folder unchanged
//! (hard-linked, the same file under the same path; copied where the file system has no links), and
//! named. A render that would write where such a file stands, a git repository (`.git`) and a file aifab
//! cannot carry (a FIFO, a socket, a device) are refused with their path, before anything changes.
//!
//! What aifab wrote is what the folder's manifest lists ([`super::manifest`]), each file with the hash
//! of the bytes aifab wrote: a listed file the render does not write again whose bytes differ from that
//! hash is the user's, and kept ([`unverified`]), so a manifest that did not come from aifab (planted,
//! or put in place by a planted journal) cannot have a file of the user's removed. A file listed without
//! a hash (by an earlier aifab) is aifab's when the caller's `ours` accepts it, or when no file of the
//! manifest has one. A manifest of an earlier aifab lists nothing, and then the files the caller's
//! `ours` accepts (the paths a render of this fabric writes) are taken for aifab's.

use super::error::{WriteError, io};
use std::collections::HashSet;
use std::path::Path;

/// What one entry of the user's is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Kind {
    /// A regular file.
    File,
    /// A symbolic link (kept as a link, never followed).
    Link,
    /// An empty folder.
    Dir,
}

/// An entry of the previous output aifab did not write: its `/`-separated path and kind.
pub(super) type Entry = (String, Kind);

/// Lists the entries of output folder `out` aifab did not write: files and links not in `listed`
/// (the manifest's files; without a list, those `ours` does not accept), and empty folders. The
/// manifest itself is aifab's. A `.git` anywhere, or a FIFO, socket or device, is an error naming it.
pub(super) fn survey(
    out: &Path,
    listed: Option<&HashSet<String>>,
    ours: Option<&(dyn Fn(&str) -> bool + Sync)>,
) -> Result<Vec<Entry>, WriteError> {
    use rayon::prelude::*;
    let mine = |rel: &str| match (listed, ours) {
        (Some(l), _) => l.contains(rel),
        (None, Some(o)) => o(rel),
        // Nothing says what aifab wrote: every file is kept.
        (None, None) => false,
    };
    let top: Vec<std::fs::DirEntry> = match std::fs::read_dir(out) {
        Ok(rd) => rd.flatten().collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(out)(e)),
    };
    let parts: Vec<Result<Vec<Entry>, WriteError>> = top
        .par_iter()
        .map(|e| {
            let mut found = Vec::new();
            visit(out, &e.path(), e.file_type().ok(), &mine, &mut found)?;
            Ok(found)
        })
        .collect();
    let mut all = Vec::new();
    for p in parts {
        all.extend(p?);
    }
    all.sort();
    Ok(all)
}

fn visit(
    base: &Path,
    path: &Path,
    kind: Option<std::fs::FileType>,
    mine: &(dyn Fn(&str) -> bool + Sync),
    found: &mut Vec<Entry>,
) -> Result<(), WriteError> {
    let Some(rel) = path
        .strip_prefix(base)
        .ok()
        .and_then(|r| r.to_str())
        .map(|r| r.replace('\\', "/"))
    else {
        return Err(WriteError::NotUtf8(path.to_path_buf()));
    };
    if path.file_name().is_some_and(|n| n == ".git") {
        return Err(WriteError::Git {
            path: path.to_path_buf(),
            out: base.to_path_buf(),
        });
    }
    match kind {
        Some(k) if k.is_dir() => {
            let entries: Vec<_> = std::fs::read_dir(path)
                .map_err(io(path))?
                .flatten()
                .collect();
            if entries.is_empty() {
                found.push((rel, Kind::Dir));
            }
            for e in entries {
                visit(base, &e.path(), e.file_type().ok(), mine, found)?;
            }
        }
        Some(k) if k.is_file() => {
            if rel != super::MARKER && !mine(&rel) {
                found.push((rel, Kind::File));
            }
        }
        Some(k) if k.is_symlink() => {
            if !mine(&rel) {
                found.push((rel, Kind::Link));
            }
        }
        _ => {
            return Err(WriteError::Special(path.to_path_buf()));
        }
    }
    Ok(())
}

/// The files `manifest` lists in `out` that this render does not write (`put`) and whose bytes are not
/// the ones aifab wrote there, by the manifest's hash (known from the previous output's `index` while
/// the file's status is the recorded one, read and hashed otherwise), and the links it lists (aifab
/// writes none): the user's, to be kept. A file listed without a hash is aifab's when `ours` accepts
/// it, or, without `ours`, when no file of the manifest has a hash (a manifest of an earlier aifab).
/// Paths that leave the folder, or lie under a link, are not looked at.
pub(super) fn unverified(
    out: &Path,
    manifest: &super::Manifest,
    put: &HashSet<&str>,
    index: &super::index::Index,
    ours: Option<&(dyn Fn(&str) -> bool + Sync)>,
) -> Vec<Entry> {
    use rayon::prelude::*;
    let Some(files) = &manifest.files else {
        return Vec::new();
    };
    let hashed = !manifest.hashes.is_empty();
    files
        .par_iter()
        .filter(|rel| rel.as_str() != super::MARKER && !put.contains(rel.as_str()))
        .filter(|rel| super::safe_relative(rel).is_ok() && under_real_folders(out, rel))
        .filter_map(|rel| {
            let path = out.join(rel);
            let m = std::fs::symlink_metadata(&path).ok()?;
            if m.file_type().is_symlink() {
                return Some((rel.clone(), Kind::Link));
            }
            if !m.is_file() {
                return None;
            }
            let aifabs = match manifest.hashes.get(rel) {
                Some(&h) => match index.holds(rel, super::index::stamp(&m), h) {
                    super::index::Known::Same => true,
                    super::index::Known::Different => false,
                    super::index::Known::Unknown => super::sums::holds(&path, h),
                },
                None => ours.map_or(!hashed, |o| o(rel)),
            };
            (!aifabs).then(|| (rel.clone(), Kind::File))
        })
        .collect()
}

/// Whether every folder between `out` and the file `rel` (a safe relative path) is a real folder,
/// not a link.
pub(super) fn under_real_folders(out: &Path, rel: &str) -> bool {
    let mut dir = out.to_path_buf();
    let mut parts: Vec<&str> = rel.split('/').collect();
    parts.pop();
    parts.into_iter().all(|p| {
        dir.push(p);
        std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir())
    })
}

/// Refuses a render that writes where an entry of the user's stands (the same path, a folder above it,
/// or a file below it): `put` holds the paths the render wrote. When nothing says what aifab wrote
/// (`known` false: a manifest of an earlier aifab and no `ours`), such entries are taken for aifab's
/// and dropped from `entries` instead.
pub(super) fn collisions(
    out: &Path,
    entries: &mut Vec<Entry>,
    put: &HashSet<&str>,
    known: bool,
) -> Result<(), WriteError> {
    let mut clash = Vec::new();
    let put_dirs: HashSet<&str> = put
        .iter()
        .flat_map(|p| {
            let mut v = Vec::new();
            let mut p: &str = p;
            while let Some((parent, _)) = p.rsplit_once('/') {
                v.push(parent);
                p = parent;
            }
            v
        })
        .collect();
    for (rel, _) in entries.iter() {
        let above = {
            let mut p: &str = rel;
            let mut hit = false;
            while let Some((parent, _)) = p.rsplit_once('/') {
                hit |= put.contains(parent);
                p = parent;
            }
            hit
        };
        if put.contains(rel.as_str()) || put_dirs.contains(rel.as_str()) || above {
            clash.push(rel.clone());
        }
    }
    if clash.is_empty() {
        return Ok(());
    }
    if !known {
        entries.retain(|(rel, _)| !clash.contains(rel));
        return Ok(());
    }
    let clash: Vec<&str> = clash.iter().map(String::as_str).collect();
    Err(WriteError::Collision {
        names: name_list(out, &clash),
        count: clash.len(),
        manifest: out.join(super::MARKER),
    })
}

/// Carries every entry of the user's from `out` into the filled folder `tmp`: files hard-linked
/// (copied where links fail), links recreated with the same target (never followed), empty folders
/// made. An entry already in `tmp` (carried by `--only`) is left.
pub(super) fn carry(out: &Path, tmp: &Path, entries: &[Entry]) -> Result<(), WriteError> {
    for (rel, kind) in entries {
        let (from, to) = (out.join(rel), tmp.join(rel));
        if std::fs::symlink_metadata(&to).is_ok() {
            continue;
        }
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        let done = match kind {
            Kind::Dir => std::fs::create_dir_all(&to),
            Kind::File => {
                std::fs::hard_link(&from, &to).or_else(|_| std::fs::copy(&from, &to).map(drop))
            }
            Kind::Link => relink(&from, &to),
        };
        done.map_err(|source| WriteError::Keeping { path: from, source })?;
    }
    Ok(())
}

/// Makes `to` a symbolic link with the target of the link `from`.
#[cfg(unix)]
fn relink(from: &Path, to: &Path) -> std::io::Result<()> {
    let target = std::fs::read_link(from)?;
    std::os::unix::fs::symlink(target, to)
}

#[cfg(not(unix))]
fn relink(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::hard_link(from, to)
}

/// Up to five paths of `list` inside `out`, and how many more.
pub fn name_list(out: &Path, list: &[&str]) -> String {
    let shown: Vec<String> = list
        .iter()
        .take(5)
        .map(|r| out.join(r).display().to_string())
        .collect();
    let more = list.len().saturating_sub(5);
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}
