//! The write stage's errors: why an output folder (or a file in it) could not be written, and why a
//! journal left by an interrupted write is not acted on. Each names the file or folder it is about;
//! the text is what `aifab render` prints.

use super::PathError;
use super::doubt::Doubt;
use std::path::PathBuf;

/// What the caller's `fill` of a staged write returns when it fails (the render's errors, a lock
/// that could not be staged): kept as the error it is, printed as it prints.
pub type FillError = Box<dyn std::error::Error + Send + Sync>;

/// Why an output folder could not be written; nothing changed unless the [`super::Failure`] that
/// carries it says so.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// A file or folder could not be read, written, created, renamed or removed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// An entry of the user's could not be carried into the new folder.
    #[error("keeping {}: {source}", path.display())]
    Keeping {
        /// The entry.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file aifab reads (a journal) could not be read within its bound (the text names it).
    #[error("{}", error.describe(path, *limit))]
    Read {
        /// The file.
        path: PathBuf,
        /// The bound.
        limit: u64,
        /// Why.
        error: crate::files::ReadError,
    },
    /// An output path that would leave the folder.
    #[error(transparent)]
    Path(#[from] PathError),
    /// The new folder could not be swapped in.
    #[error(transparent)]
    Swap(#[from] super::swap::SwapError),
    /// A file or folder could not be made durable.
    #[error(transparent)]
    Sync(#[from] super::durable::SyncError),
    /// The lock's journal could not be written or settled.
    #[error(transparent)]
    Journal(#[from] super::journal::JournalError),
    /// The output folder is a symbolic link.
    #[error("{} is a symbolic link: aifab follows no link for its output folder; give the folder it points to", .0.display())]
    Link(PathBuf),
    /// The output path is a file.
    #[error("{} exists and is not a folder", .0.display())]
    NotAFolder(PathBuf),
    /// The output folder holds files aifab did not write, and no manifest.
    #[error("refusing to replace {}: it holds files aifab did not write (no {}); choose an empty or new folder", .0.display(), super::MARKER)]
    NotOurs(PathBuf),
    /// A folder this process cannot write.
    #[error("{} is read-only: aifab stages the new output beside the output folder and swaps it in, and changes nothing in a read-only folder; make it writable (chmod u+w) or choose another folder", .0.display())]
    ReadOnly(PathBuf),
    /// An output path with no folder name.
    #[error("{}: not a folder name", .0.display())]
    NoName(PathBuf),
    /// A signal stopped the write.
    #[error("interrupted by {}", super::interrupt::name(*.0))]
    Interrupted(i32),
    /// The test hook's failure ([`super::FAIL_AFTER_ENV`]).
    #[error("injected failure after {after} files ({})", super::FAIL_AFTER_ENV)]
    Injected {
        /// How many files were written first.
        after: usize,
    },
    /// A thread of the render failed while it held the list of files put.
    #[error("a render thread failed")]
    Thread,
    /// The staged lock's folder names no output folder the journal can record.
    #[error("{}: cannot name it from {}'s folder", out.display(), lock.display())]
    Unnamed {
        /// The output folder.
        out: PathBuf,
        /// The lock.
        lock: PathBuf,
    },
    /// A `.git` inside the output folder.
    #[error("{} is a git repository inside the output folder: aifab replaces that folder on every render, so keep the repository outside it (render into a sub-folder, e.g. {}/configs)", path.display(), out.display())]
    Git {
        /// The `.git`.
        path: PathBuf,
        /// The output folder.
        out: PathBuf,
    },
    /// A name in the output folder that is not UTF-8.
    #[error("{}: a name that is not UTF-8, which aifab never writes; move it out of the folder", .0.display())]
    NotUtf8(PathBuf),
    /// A FIFO, socket or device in the output folder.
    #[error("{} is not a file, folder or link (a FIFO, socket or device): aifab did not write it and cannot keep it; move it out of the folder", .0.display())]
    Special(PathBuf),
    /// Files of the user's where this render writes (the text lists them).
    #[error("{names} {} not written by aifab (not in {}), and this render writes there: move {} out of the folder, then render again", if *count == 1 { "was" } else { "were" }, manifest.display(), if *count == 1 { "it" } else { "them" })]
    Collision {
        /// The entries, listed ([`super::name_list`]).
        names: String,
        /// How many there are.
        count: usize,
        /// The manifest they are not in.
        manifest: PathBuf,
    },
    /// A render that writes aifab's own manifest.
    #[error("output path `{0}` is aifab's manifest")]
    ManifestPath(String),
    /// Another aifab render is writing the folder.
    #[error("another aifab render (pid {pid}) is writing {} right now; wait for it to finish", out.display())]
    Busy {
        /// Its process.
        pid: u32,
        /// The output folder.
        out: PathBuf,
    },
    /// Another aifab render holds the folder's in-place journal.
    #[error("another aifab render (pid {pid}) is writing {} right now ({}); wait for it to finish", out.display(), journal.display())]
    BusyJournal {
        /// Its process.
        pid: u32,
        /// The output folder.
        out: PathBuf,
        /// Its journal.
        journal: PathBuf,
    },
    /// The in-place journal is already there: another render is writing.
    #[error("{}: another aifab render is writing {} right now; wait for it to finish", journal.display(), out.display())]
    JournalTaken {
        /// The journal.
        journal: PathBuf,
        /// The output folder.
        out: PathBuf,
    },
    /// An in-place journal that does not verify: it is left alone.
    #[error("{}: not acted on: {why}; nothing was moved or removed. If no aifab render runs, check {} (render --check) and remove the journal", journal.display(), out.display())]
    NotActedOn {
        /// The journal.
        journal: PathBuf,
        /// The output folder.
        out: PathBuf,
        /// Why it does not verify.
        why: Doubt,
    },
    /// The output changed, but what should have followed it could not (the text says what stays for
    /// the next aifab command).
    #[error("{}; the journal {} lets the next aifab render finish it", failed.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "), journal.display())]
    Unfinished {
        /// What failed.
        failed: Vec<WriteError>,
        /// The journal that stays.
        journal: PathBuf,
    },
    /// The output folder holds the new output, but the new lock could not be put beside it.
    #[error("{} holds the new output, but the new lock could not be put in place ({}: {source}); the journal {} lets the next aifab command finish it", out.display(), lock.display(), journal.as_ref().map_or_else(String::new, |j| j.display().to_string()))]
    LockNotPlaced {
        /// The output folder.
        out: PathBuf,
        /// The lock.
        lock: PathBuf,
        /// Why.
        source: std::io::Error,
        /// The journal that stays.
        journal: Option<PathBuf>,
    },
    /// The caller's `fill` failed (the render's errors, a lock that could not be staged).
    #[error("{0}")]
    Fill(FillError),
}

/// A [`WriteError::Io`] of `path`.
pub(super) fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> WriteError + '_ {
    move |source| WriteError::Io {
        path: path.to_path_buf(),
        source,
    }
}
