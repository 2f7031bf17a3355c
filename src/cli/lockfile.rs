//! The lock beside the intent as the commands read it: the library's lock policy
//! (`aifab::publish::lock`), its notes and refusals printed here.

use super::Exit;
use super::exit::{front_failed, print_findings};
use aifab::lock::read::Loaded;
use aifab::publish::{LockError, Note, PublishError, lock};
use std::path::PathBuf;

/// The lock file of an intent path.
pub(super) fn path(intent: &str) -> PathBuf {
    lock::path(intent)
}

/// Prints a note of the lock policy or the render transaction on stderr.
pub(super) fn say(note: Note) {
    match note {
        Note::Line(line) => eprintln!("{line}"),
        Note::Findings {
            source,
            findings,
            then,
        } => {
            print_findings(&source, &findings);
            eprintln!("{then}");
        }
    }
}

/// Prints why the lock refused a command; exit 2 (could not run).
pub(super) fn refused(e: LockError) -> Exit {
    match e {
        LockError::Read { error, .. } => {
            front_failed(error.into(), Exit::Trouble, "nothing written")
        }
        e => {
            eprintln!("{e}");
            Exit::Trouble
        }
    }
}

/// Prints why a render stopped; exit 2, or the signal's status when one interrupted it.
pub(super) fn failed(e: PublishError) -> Exit {
    match e {
        PublishError::Lock(l) => refused(l),
        e => {
            eprintln!("{e}");
            e.signal().map_or(Exit::Trouble, Exit::Interrupted)
        }
    }
}

/// Finishes or undoes an interrupted render's commit beside the lock of `intent`, saying what it did
/// ([`lock::settle`]).
pub(super) fn settle(intent: &str, writing: bool) -> Result<(), Exit> {
    lock::settle(intent, writing, &say).map_err(refused)
}

/// Reads the lock of `intent` under the policy ([`lock::load`]); `None` when there is none, or with
/// `no_lock`.
pub(super) fn load(
    intent: &str,
    no_lock: bool,
    allow_renumber: bool,
) -> Result<Option<Loaded>, Exit> {
    lock::load(intent, (no_lock, allow_renumber), None, &say).map_err(refused)
}
