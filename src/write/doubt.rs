//! Why a journal left by an interrupted write (the lock's, [`super::journal`], or an in-place
//! write's, [`super::inplace`]) does not verify: the next aifab command then leaves it alone and says
//! why.

use super::PathError;
use std::path::PathBuf;

/// Why a journal left by an interrupted write does not verify, and is not acted on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Doubt {
    /// Not the journal text this aifab writes.
    #[error("not a journal this aifab writes (`{0}`)")]
    NotOurs(&'static str),
    /// Not text.
    #[error("not text")]
    NotText,
    /// The manifest is put in place before other files.
    #[error("it puts {} in place before other files", super::MARKER)]
    MarkerFirst,
    /// A line that is no file line.
    #[error("`{0}` is not a file line of a journal")]
    BadFileLine(String),
    /// A file path that would leave the folder.
    #[error("it names {0}")]
    Leaves(PathError),
    /// A file inside a git folder.
    #[error("it names `{0}`, inside a git folder")]
    InGit(String),
    /// Its output folder is not a plain relative path.
    #[error("its output folder `{0}` is not a plain relative path")]
    OutFolder(String),
    /// Its staging folder is not a folder.
    #[error("{} is not a folder", .0.display())]
    StagingNotAFolder(PathBuf),
    /// A file neither staged nor in place.
    #[error("{rel} is neither staged ({}) nor in place", staged.display())]
    Lost {
        /// The file.
        rel: String,
        /// Where it was staged.
        staged: PathBuf,
    },
    /// A staged file that is not the one aifab staged.
    #[error("{} is not the file aifab staged for {rel} (a regular file, no execute bit, xxh3-128 {hash:032x})", staged.display())]
    NotStaged {
        /// The staged file.
        staged: PathBuf,
        /// The file it stands for.
        rel: String,
        /// The hash the journal records.
        hash: u128,
    },
    /// A file in place that aifab did not write.
    #[error("{} is not a file aifab wrote there (its manifest's hash), nor free", .0.display())]
    NotFree(PathBuf),
    /// A staged lock that is not the one the journal records.
    #[error("{} is not the lock the journal records (a regular file, xxh3-128 {hash:032x})", staged.display())]
    NotTheLock {
        /// The staged lock.
        staged: PathBuf,
        /// The hash the journal records.
        hash: u128,
    },
    /// The new record names another hash.
    #[error("its new record does not name the hash of its staged lock")]
    RecordHash,
    /// The output records the new lock, which is nowhere.
    #[error("{} records the new lock, but neither {} nor {} holds it", out.display(), staged.display(), lock.display())]
    LockGone {
        /// The output folder.
        out: PathBuf,
        /// The staged lock.
        staged: PathBuf,
        /// The lock.
        lock: PathBuf,
    },
    /// The output records neither lock.
    #[error("{} records neither the lock this render wrote nor the one before it (moved, or not this journal's folder)", .0.display())]
    Neither(PathBuf),
}
