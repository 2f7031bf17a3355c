//! The spare: the output before the last one, kept beside the output folder (`.NAME.aifab-spare`) as
//! the folder the next render fills.
//!
//! A render must build a complete new folder to swap in. Building it from nothing creates every
//! sub-folder and file again, and removing the previous tree afterwards frees as many inodes; on file
//! systems that check recently freed inodes at every allocation (ext4 without a journal) that churn
//! costs more than the render itself. So the previous tree is not removed: it is parked as the spare,
//! and the next render claims it (one rename), keeps every file that already holds the new bytes
//! (known from the spare's own index), rewrites only the others, removes what the new output no longer
//! has, and swaps. A render with nothing changed then creates, links and removes nothing.
//!
//! A spare's file with a single link (the spare's own copy, shared with no other folder) is rewritten
//! where it is even when the previous output holds the new bytes and could be linked: the link would
//! free the copy's inode, and the next change would allocate a new one. So after a change, the output
//! and the spare each keep their own copy of the changed files, and later changes, with or without
//! unchanged renders between them, rewrite those copies and allocate and free no inode. Files no
//! render has changed stay shared by both folders.
//!
//! The spare holds a `.gitignore` of `*` (taken out before it becomes the output), so a repository that
//! commits the output never sees it. It can be deleted at any time; the next render builds from nothing.

use std::path::{Path, PathBuf};

/// The name of the ignore file a parked spare holds.
const IGNORE: &str = ".gitignore";

/// The ignore file's text: git ignores everything in the folder, this file included.
const IGNORE_TEXT: &str =
    "# aifab's spare copy of an earlier output, reused by the next render; safe to delete\n*\n";

/// Where the spare of output folder `name` in `parent` is kept.
pub(super) fn path(parent: &Path, name: &str) -> PathBuf {
    parent.join(format!(".{name}.aifab-spare"))
}

/// Takes the spare at `spare` as the folder to fill, `tmp` (one rename: another render cannot claim it
/// too), and removes its ignore file. False when there is no spare to claim.
pub(super) fn claim(spare: &Path, tmp: &Path) -> bool {
    // The spare itself, never a link in its place: a link would be renamed, and everything written
    // into the folder it names.
    let real_folder = std::fs::symlink_metadata(spare).is_ok_and(|m| m.is_dir());
    if !real_folder || std::fs::rename(spare, tmp).is_err() {
        return false;
    }
    if !std::fs::symlink_metadata(tmp).is_ok_and(|m| m.is_dir()) {
        // Swapped for something else between the look and the rename: put it back, untouched.
        let _ = std::fs::rename(tmp, spare);
        return false;
    }
    match std::fs::remove_file(tmp.join(IGNORE)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            // A spare whose ignore file cannot be removed must not become the output.
            let _ = std::fs::rename(tmp, spare);
            false
        }
        _ => true,
    }
}

/// Parks folder `old` as the spare: marks it ignored and renames it to `spare`. False when that fails
/// (another render parked one meanwhile, or the folder cannot be written): the caller removes `old`.
pub(super) fn park(old: &Path, spare: &Path) -> bool {
    // The folder's own `.gitignore` name (a user's file kept in the new output shares it) is removed,
    // never written through.
    let ignore = old.join(IGNORE);
    let unlinked = match std::fs::remove_file(&ignore) {
        Err(e) => e.kind() == std::io::ErrorKind::NotFound,
        Ok(()) => true,
    };
    let written = unlinked
        && std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&ignore)
            .and_then(|mut f| std::io::Write::write_all(&mut f, IGNORE_TEXT.as_bytes()))
            .is_ok();
    // `rename` would replace an empty folder at `spare`, and never a link (a folder cannot replace one).
    written && std::fs::symlink_metadata(spare).is_err() && std::fs::rename(old, spare).is_ok()
}

/// What a claimed spare holds: its regular files and folders, as `/`-separated paths relative to it.
#[derive(Debug, Default)]
pub(super) struct Held {
    /// Regular files.
    pub files: Vec<String>,
    /// Folders, parents before children.
    pub dirs: Vec<String>,
}

/// Lists the claimed spare `dir`, removing on the way anything that is neither a regular file nor a
/// folder (a symbolic link is removed, never followed: nothing is written through one). Top-level
/// folders are walked in parallel.
pub(super) fn survey(dir: &Path) -> Held {
    use rayon::prelude::*;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Held::default();
    };
    let top: Vec<_> = entries.flatten().collect();
    let parts: Vec<Held> = top
        .par_iter()
        .map(|e| {
            let mut held = Held::default();
            visit(dir, &e.path(), e.file_type().ok(), &mut held);
            held
        })
        .collect();
    let mut all = Held::default();
    for p in parts {
        all.files.extend(p.files);
        all.dirs.extend(p.dirs);
    }
    all
}

fn visit(base: &Path, path: &Path, kind: Option<std::fs::FileType>, held: &mut Held) {
    let Some(rel) = path
        .strip_prefix(base)
        .ok()
        .and_then(|r| r.to_str())
        .map(|r| r.replace('\\', "/"))
    else {
        return;
    };
    match kind {
        Some(k) if k.is_file() => held.files.push(rel),
        Some(k) if k.is_dir() => {
            held.dirs.push(rel);
            if let Ok(entries) = std::fs::read_dir(path) {
                for e in entries.flatten() {
                    visit(base, &e.path(), e.file_type().ok(), held);
                }
            }
        }
        _ => {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Removes from the filled folder `dir` every file of `held` the render did not put (`put`), then
/// every folder left without a put file, children first. Returns what it removed.
pub(super) fn prune<'a>(
    dir: &Path,
    held: &'a Held,
    put: &std::collections::HashSet<&str>,
) -> Vec<&'a str> {
    use rayon::prelude::*;
    let mut removed: Vec<&str> = held
        .files
        .par_iter()
        .filter(|f| !put.contains(f.as_str()))
        .filter(|f| std::fs::remove_file(dir.join(f)).is_ok())
        .map(String::as_str)
        .collect();
    let mut used: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for f in put {
        let mut p = *f;
        while let Some((parent, _)) = p.rsplit_once('/') {
            if !used.insert(parent) {
                break;
            }
            p = parent;
        }
    }
    for d in held
        .dirs
        .iter()
        .rev()
        .filter(|d| !used.contains(d.as_str()))
    {
        if std::fs::remove_dir(dir.join(d)).is_ok() {
            removed.push(d);
        }
    }
    removed
}
