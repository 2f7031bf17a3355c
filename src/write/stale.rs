//! What an interrupted render left behind and a later one removes: temporary folders
//! (`.NAME.aifab-tmp-PID`, `.NAME.aifab-old-PID` beside the output, and `.NAME.aifab-only-PID` of an
//! `--only` render whose journal is settled: [`super::inplace`]) and staged locks
//! (`.NAME.lock.yaml.aifab-tmp-PID`, and `NAME.lock.yaml.tmp-PID` of earlier aifab versions) of
//! processes that no longer run. Only entries with exactly those names, of a process id that is not
//! alive (or that a process took since the entry last changed: the id was reused), are removed: a folder only when it is a folder (never through a link), a staged lock only
//! when it is a regular file.

use std::path::{Path, PathBuf};

/// The name of an `--only` render's staging folder after `.NAME.` and before the process id
/// (`super::inplace` stages there).
pub(super) const ONLY_STAGING: &str = "aifab-only-";

/// The process id in `name` when it is `prefix` followed by a number.
fn pid_after(name: &str, prefix: &str) -> Option<u32> {
    let digits = name.strip_prefix(prefix)?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// Whether `pid` is a process other than this one that no longer runs, or a process that took the id
/// since `path` last changed (it did not make it: [`crate::files::process_alive_before`]).
pub(super) fn gone(pid: u32, path: &Path) -> bool {
    pid != std::process::id() && !crate::files::process_alive_before(pid, changed(path))
}

/// When `path` (never followed through a link) last changed: the later of its modification and status
/// change times (renaming a claimed spare to a staging folder changes only the latter).
fn changed(path: &Path) -> Option<std::time::SystemTime> {
    let m = std::fs::symlink_metadata(path).ok()?;
    let modified = m.modified().ok()?;
    Some(status_changed(&m).map_or(modified, |c| c.max(modified)))
}

/// When the status of the entry `m` describes last changed (a rename, a new link, a new mode).
#[cfg(unix)]
fn status_changed(m: &std::fs::Metadata) -> Option<std::time::SystemTime> {
    use std::os::unix::fs::MetadataExt as _;
    let secs = u64::try_from(m.ctime()).ok()?;
    let nanos = u32::try_from(m.ctime_nsec()).ok()?;
    std::time::UNIX_EPOCH.checked_add(std::time::Duration::new(secs, nanos))
}

#[cfg(not(unix))]
fn status_changed(_: &std::fs::Metadata) -> Option<std::time::SystemTime> {
    None
}

/// Removes the temporary folders of output folder `name` in `parent` that belong to processes that no
/// longer run; returns their paths. Called after [`super::inplace::settle`], which needs a staging
/// folder its journal decided to commit.
pub(super) fn folders(parent: &Path, name: &str) -> Vec<PathBuf> {
    let (tmp, old) = (format!(".{name}.aifab-tmp-"), format!(".{name}.aifab-old-"));
    let only = format!(".{name}.{}", ONLY_STAGING);
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(n) = file.to_str() else { continue };
        let pid = pid_after(n, &tmp)
            .or_else(|| pid_after(n, &old))
            .or_else(|| pid_after(n, &only));
        if pid.is_some_and(|p| gone(p, &e.path())) && remove_folder(&e.path()) {
            removed.push(e.path());
        }
    }
    removed
}

/// The process id of another process, still running, whose temporary folder for output folder `name`
/// lies in `parent` (a render staging a new folder), if any.
pub(super) fn live_staging(parent: &Path, name: &str) -> Option<u32> {
    let tmp = format!(".{name}.aifab-tmp-");
    std::fs::read_dir(parent).ok()?.flatten().find_map(|e| {
        let pid = pid_after(e.file_name().to_str()?, &tmp)?;
        (pid != std::process::id() && !gone(pid, &e.path())).then_some(pid)
    })
}

/// Removes the staged locks beside lock file `lock` that belong to processes that no longer run;
/// returns their paths.
pub(super) fn staged_locks(lock: &Path) -> Vec<PathBuf> {
    let Some(name) = lock.file_name().and_then(|n| n.to_str()) else {
        return Vec::new();
    };
    let parent = match lock.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let (new, old) = (format!(".{name}.aifab-tmp-"), format!("{name}.tmp-"));
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(n) = file.to_str() else { continue };
        let pid = pid_after(n, &new).or_else(|| pid_after(n, &old));
        let is_file = e.file_type().is_ok_and(|t| t.is_file());
        if pid.is_some_and(|p| gone(p, &e.path()))
            && is_file
            && std::fs::remove_file(e.path()).is_ok()
        {
            removed.push(e.path());
        }
    }
    removed
}

/// Removes `dir` when it is a folder holding aifab's manifest (never through a link).
pub(super) fn remove_if_ours(dir: &Path) {
    if std::fs::symlink_metadata(dir.join(super::MARKER)).is_ok_and(|m| m.is_file()) {
        remove_folder(dir);
    }
}

/// Removes `dir` and everything in it when it is a folder, not a link; true when it is gone.
fn remove_folder(dir: &Path) -> bool {
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() => {
            super::remove_tree(dir);
            std::fs::symlink_metadata(dir).is_err()
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_exact_names_carry_a_pid() {
        assert_eq!(
            pid_after(".out.aifab-tmp-123", ".out.aifab-tmp-"),
            Some(123)
        );
        assert_eq!(pid_after(".out.aifab-tmp-", ".out.aifab-tmp-"), None);
        assert_eq!(pid_after(".out.aifab-tmp-12x", ".out.aifab-tmp-"), None);
        assert_eq!(pid_after(".other.aifab-tmp-1", ".out.aifab-tmp-"), None);
    }
}
