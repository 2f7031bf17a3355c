//! `--out` (and `--only`): the files streamed into the folder while the new lock is built, guarded
//! and staged beside the render, then the folder and the lock committed together (`crate::write`); a
//! refused renumbering discards what was rendered before anything is swapped in.

use super::stage::{Staged, stage};
use super::{Plan, PublishError, Say, lock_change, others_kept, written_by_render};
use crate::model::FabricModel;
use crate::output::{Meta, OutFile};
use crate::render::Renderer;
use crate::write::{Failure, Options, Previous, Report};
use std::path::{Path, PathBuf};

/// What a committed render wrote.
#[derive(Debug)]
pub struct Written {
    /// What the write kept of the user's and cleaned up.
    pub report: Report,
    /// The lock file written with the output, when its text changed.
    pub lock: Option<PathBuf>,
    /// The files and bytes rendered.
    pub files: (usize, u64),
    /// A signal that came once the render had committed (the output and its lock are complete).
    pub interrupted: Option<i32>,
}

/// The most switches an `--only` render holds in memory to write in place ([`write_only`]); one that
/// matches more streams its files into a staged folder as a full render does.
const IN_PLACE_MAX: usize = 256;

impl Plan<'_> {
    /// Renders `model` with `renderer` into the folder of an `--out` render and commits it with the
    /// lock ([`Plan::lock_change`], built while the devices render). `tick` is called once a device.
    pub fn commit(
        self,
        renderer: &Renderer,
        (meta, model): (&Meta, &FabricModel),
        tick: &(dyn Fn() + Sync),
        say: Say,
    ) -> Result<Written, PublishError> {
        let Plan {
            render,
            prev,
            floor,
        } = self;
        let out = render.target.folder();
        let only = render.only;
        let others = others_kept(only, render.catalog);
        let ours = |path: &str| written_by_render(render.catalog, path);
        let options = Options {
            keep: others.as_deref(),
            previous: Previous::KeepAsSpare,
            secrets: renderer.fills_secrets(),
            ours: Some(&ours),
        };
        let matched = |g: &globset::GlobMatcher| {
            let n = model.devices.iter().filter(|d| g.is_match(&d.hostname));
            n.count()
        };
        let in_place = only.is_some_and(|g| matched(g) <= IN_PLACE_MAX);
        let (result, staged, files) = if in_place {
            drop(prev);
            let r = write_only(renderer, (meta, model), only, out, &options, tick);
            match r {
                Ok((report, files)) => (Ok(report), Ok(None), files),
                Err(f) => (Err(f), Ok(None), (0, 0)),
            }
        } else {
            // The previous lock is freed as soon as the new one is built and compared: during the
            // render, while the model and the files in flight hold the most memory.
            let lock_step = move || {
                let next = lock_change(&render, model, (prev.as_ref(), floor.as_ref()), say);
                drop(prev);
                next?
                    .map(|c| stage(render.intent, &c.lock, &c.text, out))
                    .transpose()
            };
            let stream = Stream {
                renderer,
                meta,
                model,
                only,
                tick,
            };
            stream.write(out, &options, lock_step)
        };
        let staged = staged?;
        let lock = render
            .writes_lock()
            .then(|| super::lock::path(render.intent));
        match result {
            Ok(report) => Ok(committed(report, staged, files)),
            Err(failure) => Err(failed(out, lock, failure, staged)),
        }
    }
}

/// A full render's files on their way to a staged folder.
struct Stream<'r> {
    renderer: &'r Renderer,
    meta: &'r Meta,
    model: &'r FabricModel,
    only: Option<&'r globset::GlobMatcher>,
    tick: &'r (dyn Fn() + Sync),
}

/// What a streamed write gives: the write's result, the staged lock (or why not), files and bytes.
type Streamed = (
    Result<Report, Failure>,
    Result<Option<Staged>, super::LockError>,
    (usize, u64),
);

impl Stream<'_> {
    /// Streams every device's files into a staged folder (each written by the thread that rendered
    /// it) while `lock_step` builds, guards and stages the lock; commits both unless either failed.
    fn write(
        &self,
        out: &Path,
        options: &Options,
        lock_step: impl FnOnce() -> Result<Option<Staged>, super::LockError> + Send,
    ) -> Streamed {
        let mut written = (0, 0);
        let mut lock = Ok(None);
        let result = crate::write::write_job(out, options, |stage| {
            let sink = |f: &OutFile| -> Result<(), crate::render::SinkError> { Ok(stage.put(f)?) };
            let (rendered, next) = rayon::join(
                || {
                    self.renderer
                        .fabric_each(self.meta, self.model, self.only, &sink, self.tick)
                },
                lock_step,
            );
            let companion = next
                .as_ref()
                .ok()
                .and_then(|s| s.as_ref().map(Staged::companion));
            let refused = next.is_err();
            lock = next;
            written = rendered.map_err(crate::render::RenderErrors)?;
            if refused {
                return Err("the new lock was refused or could not be staged".into());
            }
            Ok(companion)
        });
        (result, lock, written)
    }
}

/// The outcome of a write that committed: the staged lock handed over to it.
fn committed(report: Report, staged: Option<Staged>, files: (usize, u64)) -> Written {
    let lock = staged
        .as_ref()
        .and_then(Staged::changes)
        .map(Path::to_path_buf);
    if let Some(s) = staged {
        s.handed_over();
    }
    Written {
        report,
        lock,
        files,
        interrupted: crate::write::interrupt::pending(),
    }
}

/// A failed write: the staged lock stays for the journal when the output changed (the next aifab
/// command puts it in place), else it is removed.
pub(super) fn failed(
    folder: &Path,
    lock: Option<PathBuf>,
    failure: Failure,
    staged: Option<Staged>,
) -> PublishError {
    match staged {
        Some(s) if failure.changed => s.handed_over(),
        other => drop(other),
    }
    PublishError::Write {
        folder: folder.to_path_buf(),
        lock,
        failure,
    }
}

/// `--only`: renders the matched devices' files and the inventory into memory (one switch's files are
/// small) and writes the ones whose bytes changed in place (`crate::write::inplace`); where that does
/// not apply (a first render, a device that gained a folder or lost a file), stages a new folder as a
/// full render does, carrying every other file over. Returns the report and the files and bytes
/// rendered.
fn write_only(
    renderer: &Renderer,
    (meta, model): (&Meta, &FabricModel),
    only: Option<&globset::GlobMatcher>,
    out: &Path,
    options: &Options,
    tick: &(dyn Fn() + Sync),
) -> Result<(Report, (usize, u64)), Failure> {
    let files = renderer
        .fabric_with_progress(meta, model, only, tick)
        .map_err(|errs| Failure {
            error: crate::write::WriteError::Fill(Box::new(crate::render::RenderErrors(errs))),
            changed: false,
            signal: None,
        })?;
    let rendered = (
        files.len(),
        files.iter().map(|f| f.content.len() as u64).sum(),
    );
    let report = match crate::write::inplace::write(out, options, &files)? {
        crate::write::inplace::Outcome::Done(report) => report,
        crate::write::inplace::Outcome::Staged(_) => {
            crate::write::write_job(out, options, |stage| {
                files.iter().try_for_each(|f| stage.put(f))?;
                Ok(None)
            })?
        }
    };
    Ok((report, rendered))
}
