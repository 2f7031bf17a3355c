//! A render is one transaction: every way aifab writes or checks an output folder (`render --out`,
//! `render --only`, `render --check [--bless]`, `render --release`) goes through [`Render`], so a new
//! safety rule lands here once.
//!
//! 1. [`Render::open`], before the intent is compiled: refuses a folder that holds the intent, finishes
//!    or undoes an interrupted render (the journals beside the lock and the folder), and reads the lock
//!    under its policy ([`lock`]: a copied or orphaned lock, a lock not whole, AIF-LOCK-*).
//! 2. [`Render::history`], while the intent compiles: the lock against the folder's record and its
//!    committed history in git ([`record`]).
//! 3. [`Render::plan`], once the model is built: the [`Plan`] holds the lock read and the history
//!    floor; [`Plan::lock_change`] is the lock the render writes, after the renumbering guard.
//! 4. [`Plan::commit`] (`--out`, `--only`) streams the files into the folder and commits the lock
//!    with it (`crate::write`); [`Plan::checking`] then [`Checking::check`] compares with the folder
//!    (`--check`) or rewrites it (`--bless`).
//!
//! Refusals and failures are typed ([`LockError`], [`PublishError`]); what is said on the way is a
//! [`Note`], given to the caller's [`Say`] as it happens. `aifab drift --write`'s folder of replace
//! files is swapped in by [`drift`].

mod check;
pub mod drift;
mod history;
pub mod lock;
mod out;
pub mod record;
pub mod stage;

pub use check::{Checked, Checking};
pub use lock::LockError;
pub use out::Written;
pub use stage::Staged;

use crate::diag::{Finding, Source};
use crate::lock::history::Stamp;
use crate::lock::read::Loaded;
use crate::platform::Catalog;
use std::path::{Path, PathBuf};

/// Something a render says on the way (printed on stderr by the command line, in order).
#[derive(Debug, Clone)]
pub enum Note {
    /// A line (or lines) said as it is, its `note:` or `warning:` prefix included.
    Line(String),
    /// Findings of a file, then a line.
    Findings {
        /// The file.
        source: Source,
        /// Its findings.
        findings: Vec<Finding>,
        /// The line said after them.
        then: String,
    },
}

/// Where a render's notes go, as they are made.
pub type Say<'a> = &'a (dyn Fn(Note) + Sync);

/// Where a render goes: written into a folder (`--out`), or compared with one (`--check`) and, with
/// `bless`, rewritten.
#[derive(Clone, Copy, Debug)]
pub enum Target<'a> {
    /// `--out DIR`.
    Out(&'a Path),
    /// `--check DIR [--bless]`.
    Check {
        /// The folder.
        dir: &'a Path,
        /// `--bless`: rewrite it.
        bless: bool,
    },
}

impl<'a> Target<'a> {
    /// The folder written or compared.
    pub fn folder(&self) -> &'a Path {
        match self {
            Target::Out(d) | Target::Check { dir: d, .. } => d,
        }
    }

    /// Whether the render may write the folder and the lock.
    pub fn writes(&self) -> bool {
        matches!(self, Target::Out(_) | Target::Check { bless: true, .. })
    }
}

/// How a render treats the lock beside the intent.
#[derive(Clone, Copy, Debug, Default)]
pub struct LockPolicy {
    /// `--no-lock`: neither read nor written.
    pub no_lock: bool,
    /// `--allow-renumber`: a renumbering, a lock behind its history, a copied or orphaned lock are
    /// said, not refused.
    pub allow_renumber: bool,
    /// `--release`: the lock's retired entries are dropped.
    pub release: bool,
}

/// One render of an intent into (or against) a folder.
#[derive(Clone, Copy)]
pub struct Render<'a> {
    /// The intent's path as given.
    pub intent: &'a str,
    /// The folder and what is done with it.
    pub target: Target<'a>,
    /// `--only`: the devices rendered.
    pub only: Option<&'a globset::GlobMatcher>,
    /// The lock's policy.
    pub lock: LockPolicy,
    /// The platforms (which file is which device's).
    pub catalog: &'a Catalog,
}

/// Why a render stopped (the text printed, prefix included, is its `Display`).
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    /// The intent and its lock lie inside the folder this render replaces.
    #[error(
        "error: {intent} and its lock {} are inside {}, the folder this render writes: aifab replaces that folder on every render, so keep the intent outside it (render into another folder, e.g. a sub-folder beside the intent); nothing written",
        lock.display(),
        folder.display()
    )]
    Inside {
        /// The intent.
        intent: String,
        /// Its lock.
        lock: PathBuf,
        /// The folder.
        folder: PathBuf,
    },
    /// The journal of an interrupted `--only` write beside the folder could not be acted on.
    #[error("error: {message}; nothing written")]
    FolderJournal {
        /// The folder.
        folder: PathBuf,
        /// What the journal said.
        message: crate::write::WriteError,
    },
    /// The lock refused the render.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// The new lock could not be staged; nothing was changed.
    #[error("{0}; nothing was changed")]
    StageUnchanged(LockError),
    /// Devices could not be rendered.
    #[error("{}", errors.iter().map(|e| format!("error: {e}")).collect::<Vec<_>>().join("\n"))]
    Render {
        /// One error a device.
        errors: Vec<crate::render::RenderError>,
    },
    /// `--check` of a folder that does not exist.
    #[error(
        "error: --check {}: no such folder; create it with --check {} --bless (after review), or write with --out",
        dir.display(),
        dir.display()
    )]
    NoFolder {
        /// The folder.
        dir: PathBuf,
    },
    /// The folder could not be compared.
    #[error("error: {}: {error}", dir.display())]
    Compare {
        /// The folder.
        dir: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The write failed: nothing changed, or the output without its lock (the journal finishes it).
    #[error("{}", write_failed(folder, lock.as_deref(), failure))]
    Write {
        /// The folder.
        folder: PathBuf,
        /// The lock the render would have written with it, named when nothing was changed.
        lock: Option<PathBuf>,
        /// What the write said.
        failure: crate::write::Failure,
    },
}

impl PublishError {
    /// The signal that interrupted a write that changed nothing (the exit status says it).
    pub fn signal(&self) -> Option<i32> {
        match self {
            PublishError::Write { failure, .. } if !failure.changed => failure.signal,
            _ => None,
        }
    }
}

/// The message of [`PublishError::Write`].
fn write_failed(folder: &Path, lock: Option<&Path>, f: &crate::write::Failure) -> String {
    if f.changed {
        return format!("error: {}", f.error);
    }
    let lock_part = lock
        .map(|l| format!(" or {}", l.display()))
        .unwrap_or_default();
    match f.signal {
        Some(sig) => format!(
            "interrupted by {}: removed what this render had created; nothing was changed in {}{lock_part}",
            crate::write::interrupt::name(sig),
            folder.display()
        ),
        None => format!(
            "error: {}; nothing was changed in {}{lock_part}",
            f.error,
            folder.display()
        ),
    }
}

impl<'a> Render<'a> {
    /// Whether this render writes (and guards) the lock: full renders only; `--only` reads the lock
    /// and never writes it, `--no-lock` neither reads nor writes it.
    pub fn writes_lock(&self) -> bool {
        self.only.is_none() && !self.lock.no_lock
    }

    /// Before the intent is compiled: for a render that writes, installs the interrupt handler,
    /// refuses a folder that holds the intent and settles the lock's journal (another render writing
    /// it is refused); settles the folder's `--only` journal; reads the lock under its policy (with
    /// `--only` into a folder, narrowed to the matched devices; `--check` and `--bless` read it whole).
    pub fn open(&self, say: Say) -> Result<Option<Loaded>, PublishError> {
        let folder = self.target.folder();
        if self.target.writes() {
            crate::write::interrupt::install();
            not_inside(self.intent, folder)?;
            if !self.lock.no_lock {
                lock::settle(self.intent, true, say)?;
            }
        }
        settle_folder(folder, say)?;
        let narrow = self.only.filter(|_| matches!(self.target, Target::Out(_)));
        let policy = (self.lock.no_lock, self.lock.allow_renumber);
        Ok(lock::load(self.intent, policy, narrow, say)?)
    }

    /// The lock read (`prev`) against the folder's record and its committed history in git (run while
    /// the intent compiles: git runs in processes of its own); `--check` refuses a lock behind them
    /// too, as CI compares with it. The newest history known, which the lock written is numbered past.
    pub fn history(&self, prev: Option<&Loaded>, say: Say) -> Result<Option<Stamp>, LockError> {
        if self.lock.no_lock {
            return Ok(None);
        }
        let folder = self.target.folder();
        record::matches_output(self.intent, folder, prev, self.lock.allow_renumber, say)
    }

    /// The plan of this render once its model is built: the lock read (`prev`) and the newest history
    /// known (`floor`, from [`Render::history`]).
    pub fn plan(self, prev: Option<Loaded>, floor: Option<Stamp>) -> Plan<'a> {
        Plan {
            render: self,
            prev,
            floor,
        }
    }
}

/// A render about to be committed or checked: what it writes where, and the lock it was read with.
pub struct Plan<'a> {
    /// The render.
    pub render: Render<'a>,
    /// The lock read (freed as soon as the new one is built).
    prev: Option<Loaded>,
    /// The newest history of the lock known elsewhere.
    floor: Option<Stamp>,
}

/// The lock a full render writes, and its text.
pub struct LockChange {
    /// The lock.
    pub lock: crate::lock::Lock,
    /// Its text.
    pub text: String,
}

impl Plan<'_> {
    /// The lock this render writes (`None` for a partial render or with `--no-lock`), after refusing
    /// a renumbering the operator did not allow ([`lock::guard`]).
    pub fn lock_change(
        &self,
        model: &crate::model::FabricModel,
        say: Say,
    ) -> Result<Option<LockChange>, LockError> {
        lock_change(
            &self.render,
            model,
            (self.prev.as_ref(), self.floor.as_ref()),
            say,
        )
    }
}

/// [`Plan::lock_change`] with the lock read and the history floor given.
fn lock_change(
    render: &Render,
    model: &crate::model::FabricModel,
    (prev, floor): (Option<&Loaded>, Option<&Stamp>),
    say: Say,
) -> Result<Option<LockChange>, LockError> {
    if !render.writes_lock() {
        return Ok(None);
    }
    let next = lock::next(model, prev, render.lock.release);
    lock::guard(prev, &next, render.lock.allow_renumber, say)?;
    let text = lock::text(&next, render.intent, prev, floor);
    Ok(Some(LockChange { lock: next, text }))
}

/// Refuses a render whose intent or lock lies inside the folder it writes: that folder is replaced on
/// every render, and the intent would move with it.
fn not_inside(intent: &str, folder: &Path) -> Result<(), PublishError> {
    let Ok(dir) = std::fs::canonicalize(folder) else {
        return Ok(());
    };
    let lock = lock::path(intent);
    let parent = lock
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if std::fs::canonicalize(parent).is_ok_and(|p| p.starts_with(&dir)) {
        return Err(PublishError::Inside {
            intent: intent.to_string(),
            lock,
            folder: folder.to_path_buf(),
        });
    }
    Ok(())
}

/// Finishes or undoes an interrupted `--only` write of `folder` (its journal lies beside it: see
/// `crate::write::inplace`), saying what it did; another render writing it now is refused.
fn settle_folder(folder: &Path, say: Say) -> Result<(), PublishError> {
    match crate::write::inplace::settle(folder) {
        Ok(None) => Ok(()),
        Ok(Some(m)) => {
            say(Note::Line(format!("note: {m}")));
            Ok(())
        }
        Err(message) => Err(PublishError::FolderJournal {
            folder: folder.to_path_buf(),
            message,
        }),
    }
}

/// Whether a path of an output folder is one a render of a fabric on `catalog` writes (a device's
/// file, the inventory, a host file): what of a folder an earlier aifab wrote, whose manifest lists no
/// files, is taken for aifab's.
fn written_by_render(catalog: &Catalog, path: &str) -> bool {
    path == "inventory.yml" || crate::hosts::is_host_path(path) || catalog.device_of(path).is_some()
}

/// A test on a path relative to the output folder.
type PathFilter<'a> = Box<dyn Fn(&str) -> bool + 'a>;

/// With `--only`: which files of the previous output a partial render keeps, by path: every file
/// that does not belong to a device the glob matches (the rest of the fabric, files others put there).
/// The inventory is rendered anew (the devices with a config in the folder) and replaces the old one.
fn others_kept<'a>(
    only: Option<&'a globset::GlobMatcher>,
    catalog: &'a Catalog,
) -> Option<PathFilter<'a>> {
    let only = only?;
    Some(Box::new(move |path: &str| {
        catalog
            .device_of(path)
            .is_none_or(|host| !only.is_match(host))
    }))
}
