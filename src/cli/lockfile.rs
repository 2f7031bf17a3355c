//! The lock beside the intent as `render` and `diff` use it: read it, refuse a renumbering the operator
//! did not allow, write it atomically, and check it is current (docs/lock.md).

use super::Exit;
use super::exit::front_failed;
use aifab::lock::build::{Renumbered, from_model, renumbered};
use aifab::lock::read::{Loaded, read_file};
use aifab::lock::{self, Lock};
use aifab::model::FabricModel;
use std::path::{Path, PathBuf};

/// The lock file of an intent path.
pub fn path(intent: &str) -> PathBuf {
    lock::path_for(Path::new(intent))
}

/// Reads the lock of `intent` (`None` when there is none, or with `--no-lock`); an unusable lock prints
/// its findings and is [`Exit::Trouble`] (could not run).
pub fn load(intent: &str, no_lock: bool) -> Result<Option<Loaded>, Exit> {
    if no_lock {
        return Ok(None);
    }
    read_file(&path(intent)).map_err(|e| front_failed(e.into(), Exit::Trouble, "nothing written"))
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

/// The lock's text for the intent at `intent`.
pub fn text(lock: &Lock, intent: &str) -> String {
    let name = Path::new(intent)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    lock.to_yaml(&name)
}

/// A new lock waiting for the render that made it to succeed: nothing to do when the file already holds
/// it, or its text already written to a temporary file beside the lock, renamed over the lock by
/// [`Staged::commit`] and removed if the render fails. Staging while the render runs frees the text
/// (18 MB at 100K GPUs) before the render's peak.
#[derive(Debug)]
pub enum Staged {
    /// The lock file already holds these bytes.
    Unchanged,
    /// The new text in file `tmp`, for `path`.
    Written {
        /// The temporary file.
        tmp: PathBuf,
        /// The lock file it replaces.
        path: PathBuf,
    },
}

impl Staged {
    /// Renames the staged lock over the lock file.
    pub fn commit(mut self) -> Result<(), String> {
        let Staged::Written { tmp, path } = &mut self else {
            return Ok(());
        };
        // Taken out, so that the drop at the end of this call finds nothing left to remove.
        let (tmp, path) = (std::mem::take(tmp), std::mem::take(path));
        std::fs::rename(&tmp, &path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            format!("{}: {e}", path.display())
        })
    }
}

impl Drop for Staged {
    /// An uncommitted lock is removed: the lock file stays as it was.
    fn drop(&mut self) {
        if let Staged::Written { tmp, .. } = self
            && !tmp.as_os_str().is_empty()
        {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// Stages `text` as the lock of `intent` (see [`Staged`]); an unchanged lock is not rewritten.
pub fn stage(intent: &str, text: &str) -> Result<Staged, String> {
    let path = path(intent);
    if aifab::write::holds(&path, text.as_bytes()) {
        return Ok(Staged::Unchanged);
    }
    let tmp = path.with_extension(format!("yaml.tmp-{}", std::process::id()));
    match std::fs::write(&tmp, text) {
        Ok(()) => Ok(Staged::Written { tmp, path }),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(format!("{}: {e}", path.display()))
        }
    }
}

/// Writes `text` to the lock of `intent` atomically (a temporary file renamed over it); an unchanged
/// lock is not rewritten.
pub fn write(intent: &str, text: &str) -> Result<(), String> {
    stage(intent, text)?.commit()
}

/// Whether the lock of `intent` holds exactly `text`; prints why not.
pub fn is_current(intent: &str, text: &str) -> bool {
    let p = path(intent);
    if aifab::write::holds(&p, text.as_bytes()) {
        return true;
    }
    if p.exists() {
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
