//! The new lock staged beside the lock while the render runs, committed with the output by the write
//! (`crate::write::Companion`) or removed when the render fails.

use super::lock::{LockError, path};
use super::record::record;
use crate::lock::Lock;
use crate::write::journal;
use std::path::{Path, PathBuf};

/// A new lock waiting for the render that made it to succeed: nothing to do when the file already holds
/// it, or its text already written to a staged file beside the lock, which the write renames over the
/// lock together with the output ([`crate::write::Companion`]) and which is removed if the render fails.
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
    pub fn companion(&self) -> crate::write::Companion {
        crate::write::Companion {
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
pub fn stage(intent: &str, lock: &Lock, text: &str, folder: &Path) -> Result<Staged, LockError> {
    let path = path(intent);
    let record = record(lock, text, intent, folder);
    let hash = xxhash_rust::xxh3::xxh3_128(text.as_bytes());
    if crate::write::holds(&path, text.as_bytes()) {
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
        Err(error) => {
            let _ = std::fs::remove_file(&tmp);
            Err(LockError::Stage { lock: path, error })
        }
    }
}
