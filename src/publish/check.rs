//! `--check`: the rendered files compared with the folder (a unified diff per differing file, no
//! secret shown) and the lock with the one beside the intent; with `--bless`, the folder and the lock
//! rewritten together instead, as `--out` does. Files of the folder aifab did not write (not in its
//! manifest) are not compared.

use super::lock::{Stale, staleness};
use super::stage::stage;
use super::{LockChange, Plan, PublishError, Say, Target, others_kept, written_by_render};
use crate::model::FabricModel;
use crate::output::OutFile;
use crate::platform::Catalog;
use crate::review::FileChange;
use crate::review::mask::Masker;
use crate::write::{Options, Previous, Report};

/// What `--check` found, or what `--bless` wrote.
#[derive(Debug)]
pub enum Checked {
    /// Compared: the files that differ, and why the lock is not the one this render writes.
    Compared {
        /// The differing files.
        diffs: Vec<FileChange>,
        /// The lock's staleness (`None`: current, or no lock written).
        stale: Option<Stale>,
        /// The files compared.
        files: usize,
    },
    /// `--bless` rewrote the folder (and the lock).
    Blessed {
        /// What the write kept of the user's and cleaned up.
        report: Report,
        /// The files that had changed.
        changed: usize,
    },
}

/// A `--check` render whose lock change is decided (before its files are rendered: a refused
/// renumbering renders nothing).
pub struct Checking<'a> {
    render: super::Render<'a>,
    next: Option<LockChange>,
}

impl<'a> Plan<'a> {
    /// Decides the lock a `--check` render compares (or, with `--bless`, writes) and frees the lock
    /// read.
    pub fn checking(self, model: &FabricModel, say: Say) -> Result<Checking<'a>, PublishError> {
        let next = self.lock_change(model, say)?;
        Ok(Checking {
            render: self.render,
            next,
        })
    }
}

impl Checking<'_> {
    /// Checks `files` (rendered from the model, whose `intent` names the secrets masked) against the
    /// folder, or blesses them into it.
    pub fn check(
        self,
        intent: &crate::intent::Intent,
        files: &[OutFile],
    ) -> Result<Checked, PublishError> {
        let Checking { render, next } = self;
        let (dir, bless) = match render.target {
            Target::Check { dir, bless } => (dir, bless),
            Target::Out(dir) => (dir, false),
        };
        if !dir.is_dir() && !bless {
            return Err(PublishError::NoFolder {
                dir: dir.to_path_buf(),
            });
        }
        let diffs = compare(dir, files, (render.only, render.catalog), intent)?;
        if bless {
            let lock_changed = next.as_ref().is_some_and(|c| {
                !crate::write::holds(&super::lock::path(render.intent), c.text.as_bytes())
            });
            if diffs.is_empty() && !lock_changed {
                return Ok(Checked::Compared {
                    diffs,
                    stale: None,
                    files: files.len(),
                });
            }
            let report = self::bless(&render, files, next)?;
            let changed = diffs.len();
            return Ok(Checked::Blessed { report, changed });
        }
        let stale = next
            .as_ref()
            .and_then(|c| staleness(render.intent, &c.text));
        Ok(Checked::Compared {
            diffs,
            stale,
            files: files.len(),
        })
    }
}

/// The files of `dir` that differ from `files`, secrets masked: every file, or with `--only` the
/// matched devices' files and the files no device owns except the host files.
fn compare(
    dir: &std::path::Path,
    files: &[OutFile],
    (only, catalog): (Option<&globset::GlobMatcher>, &Catalog),
    intent: &crate::intent::Intent,
) -> Result<Vec<FileChange>, PublishError> {
    let listed = crate::write::read_manifest(dir).and_then(|m| m.files);
    let rendered: std::collections::HashSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let ours = |path: &str| match &listed {
        Some(l) => l.contains(path),
        None => written_by_render(catalog, path),
    };
    let compared_here =
        |path: &str| checked(only, catalog, path) && (rendered.contains(path) || ours(path));
    let lookup = |k: &str| std::env::var(k).ok();
    let values = crate::render::secrets::set_values(intent, &lookup);
    let masker = Masker::new(files.iter().map(|f| f.content.as_str()), values);
    crate::review::compare_tree_masked(dir, files, &compared_here, Some(&masker)).map_err(|error| {
        PublishError::Compare {
            dir: dir.to_path_buf(),
            error,
        }
    })
}

/// `--bless`: rewrites the folder with `files` (with `--only`, keeping every other device's files)
/// and the lock `next` together, as `--out` does.
fn bless(
    render: &super::Render,
    files: &[OutFile],
    next: Option<LockChange>,
) -> Result<Report, PublishError> {
    let dir = render.target.folder();
    let staged = next
        .map(|c| stage(render.intent, &c.lock, &c.text, dir))
        .transpose()
        .map_err(PublishError::StageUnchanged)?;
    let others = others_kept(render.only, render.catalog);
    let ours = |path: &str| written_by_render(render.catalog, path);
    let options = Options {
        keep: others.as_deref(),
        previous: Previous::Remove,
        secrets: false,
        ours: Some(&ours),
    };
    let companion = staged.as_ref().map(super::Staged::companion);
    let result = crate::write::write_job(dir, &options, |stage| {
        files.iter().try_for_each(|f| stage.put(f))?;
        Ok(companion)
    });
    match result {
        Ok(report) => {
            if let Some(s) = staged {
                s.handed_over();
            }
            Ok(report)
        }
        Err(f) => {
            let lock = render
                .writes_lock()
                .then(|| super::lock::path(render.intent));
            Err(super::out::failed(dir, lock, f, staged))
        }
    }
}

/// Which files `--check` compares: all of them, or with `--only` the files of the matched devices and
/// the files no device owns except the host files (the inventory).
fn checked(only: Option<&globset::GlobMatcher>, catalog: &Catalog, path: &str) -> bool {
    match (only, catalog.device_of(path)) {
        (Some(g), Some(host)) => g.is_match(host),
        // A narrowed render has no host files (they need every server link): keep them out of it.
        (Some(_), None) => !crate::hosts::is_host_path(path),
        (None, _) => true,
    }
}
