//! `aifab render`: write every device's configuration, or check it against golden files.

use super::{Exit, front_locked_or_exit, lockfile, only_matcher, only_matches_some};
use aifab::platform::Catalog;
use aifab::render::Meta;
use aifab::review::{Status, compare_tree, compare_tree_where};
use std::path::PathBuf;

/// Arguments of `aifab render`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Intent file.
    pub intent: String,
    /// Output folder: written atomically (a temporary folder renamed into place).
    #[arg(long, conflicts_with = "check")]
    pub out: Option<PathBuf>,
    /// Compare with this folder instead of writing: exit 1 and print a unified diff per differing file.
    #[arg(long)]
    pub check: Option<PathBuf>,
    /// With --check: rewrite the folder with the new output (review the diff first).
    #[arg(long, requires = "check")]
    pub bless: bool,
    /// Only devices whose hostname matches this glob: their files are rendered (or checked), every
    /// other file of the folder stays as it is, and the inventory stays whole. A glob that matches no
    /// device is an error (exit 2).
    #[arg(long)]
    pub only: Option<String>,
    /// No warnings or progress.
    #[arg(long, short)]
    pub quiet: bool,
    /// Render even if it renumbers or re-cables a device the lock holds (the list is printed).
    #[arg(long)]
    pub allow_renumber: bool,
    /// Drop the lock's retired entries (devices and cables that left the fabric): their space may be
    /// reused from this render on.
    #[arg(long)]
    pub release: bool,
    /// Neither read nor write the lock beside the intent: the arithmetic allocation alone.
    #[arg(long)]
    pub no_lock: bool,
    /// Site platforms and templates.
    #[command(flatten)]
    pub site: super::site::SiteArgs,
}

/// A progress bar on stderr that appears only on a terminal, only once a render has taken a second, and
/// never with `--quiet`.
struct Progress {
    bar: indicatif::ProgressBar,
    start: std::time::Instant,
    enabled: bool,
    shown: std::sync::atomic::AtomicBool,
}

impl Progress {
    fn new(total: u64, quiet: bool) -> Progress {
        use std::io::IsTerminal;
        let bar = indicatif::ProgressBar::hidden();
        bar.set_length(total);
        if let Ok(style) = indicatif::ProgressStyle::default_bar()
            .template("{bar:40} {pos}/{len} devices {per_sec} {eta}")
        {
            bar.set_style(style);
        }
        Progress {
            bar,
            start: std::time::Instant::now(),
            enabled: !quiet && std::io::stderr().is_terminal(),
            shown: std::sync::atomic::AtomicBool::new(false),
        }
    }
    fn tick(&self) {
        self.bar.inc(1);
        if self.enabled
            && self.start.elapsed() > std::time::Duration::from_secs(1)
            && !self.shown.swap(true, std::sync::atomic::Ordering::Relaxed)
        {
            self.bar
                .set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
    }
    fn done(&self) {
        self.bar.finish_and_clear();
    }
}

/// Runs `aifab render`.
pub fn run(args: Args) -> Exit {
    if args.out.is_none() && args.check.is_none() {
        eprintln!("error: give --out DIR to write, or --check DIR to compare");
        return Exit::Trouble;
    }
    let only = match only_matcher(args.only.as_deref()) {
        Ok(o) => o,
        Err(status) => return status,
    };
    let site = match super::site::Site::load(args.intent.as_ref(), &args.site) {
        Ok(s) => s,
        Err(status) => return status,
    };
    let mut prev = match lockfile::load(&args.intent, args.no_lock) {
        Ok(l) => l,
        Err(status) => return status,
    };
    // The templates compile (1-2 ms) on a second thread while this one reads and checks the intent;
    // their error, if any, is printed only for an intent that passed.
    let (front, renderer) = rayon::join(
        || {
            front_locked_or_exit(
                &args.intent,
                args.quiet,
                only.as_ref(),
                prev.as_ref(),
                site.catalog,
            )
        },
        || site.build_renderer(),
    );
    let front = match front {
        Ok(f) => f,
        Err(status) => return status,
    };
    if let Err(status) = only_matches_some(&front.model, args.only.as_deref(), only.as_ref()) {
        return status;
    }
    if let Some(p) = &mut prev {
        p.forget_text();
    }
    // The lock is written (and checked) by full renders only: `--only` reads it and never writes it.
    let full = only.is_none() && !args.no_lock;
    // The previous lock is freed as soon as the new one is built and compared: during the render,
    // while the model and the files in flight hold the most memory.
    let lock_step = || {
        let text = lock_text(&args, &front.model, prev.as_ref(), full);
        drop(prev);
        text
    };
    let renderer = match renderer {
        Ok(r) => r,
        Err(e) => return super::site::renderer_failed(&e),
    };
    // Secrets named `{env: NAME}` are read only when writing: --check compares with placeholders.
    let renderer = if args.out.is_some() {
        let lookup = |k: &str| std::env::var(k).ok();
        match aifab::render::secrets::EnvSecrets::read(&front.intent, &lookup) {
            Ok(values) => renderer.with_env_secrets(values),
            Err(mut findings) => {
                aifab::pipeline::locate(&mut findings, &front.spans, &front.source);
                super::exit::print_findings(&front.source, &findings);
                eprintln!(
                    "{}: an environment secret is unset or unusable; nothing written",
                    args.intent
                );
                return Exit::Trouble;
            }
        }
    } else {
        renderer
    };
    let meta = Meta::for_intent_path(&args.intent, &front.model.name);
    let progress = Progress::new(front.model.devices.len() as u64, args.quiet);
    if let Some(out) = &args.out {
        // Stream: each device's files are written by the thread that rendered them.
        let mut written = (0, 0);
        let mut lock = Ok(None);
        let others = others_kept(only.as_ref(), site.catalog);
        let previous = aifab::write::Previous::KeepAsSpare;
        let result = aifab::write::write_keeping(out, others.as_deref(), previous, |stage| {
            let sink = |f: &aifab::render::OutFile| stage.put(f);
            // The new lock and its renumbering guard run beside the render: a refused renumbering
            // discards what was rendered before anything is swapped in.
            let (rendered, next) = rayon::join(
                || {
                    renderer.fabric_each(&meta, &front.model, only.as_ref(), &sink, &|| {
                        progress.tick()
                    })
                },
                || {
                    let text = lock_step()?;
                    text.map(|t| lockfile::stage(&args.intent, &t))
                        .transpose()
                        .map_err(|e| {
                            eprintln!("error: {e}");
                            Exit::Trouble
                        })
                },
            );
            let refused = next.is_err();
            lock = next;
            written = rendered.map_err(|errs| errs.join("\n"))?;
            if refused {
                return Err("the new lock was refused or could not be staged".into());
            }
            Ok(())
        });
        progress.done();
        let staged = match lock {
            Ok(staged) => staged,
            Err(status) => return status,
        };
        let devices = front
            .model
            .devices
            .iter()
            .filter(|d| only.as_ref().is_none_or(|g| g.is_match(&d.hostname)))
            .count();
        // The process ends next: freeing a large model node by node (half a million interfaces at
        // 100K GPUs) would only delay the exit.
        std::mem::forget(front);
        let result =
            result.and_then(|w| staged.map_or(Ok(()), lockfile::Staged::commit).map(|()| w));
        return match result {
            Ok(_) => {
                if !args.quiet {
                    eprintln!(
                        "{}: {devices} devices, {} files, {} bytes written",
                        out.display(),
                        written.0,
                        written.1
                    );
                }
                Exit::Success
            }
            Err(e) => {
                eprintln!("error: {e}; nothing was changed in {}", out.display());
                Exit::Trouble
            }
        };
    }
    let lock_text = match lock_step() {
        Ok(text) => text,
        Err(status) => return status,
    };
    let files =
        renderer.fabric_with_progress(&meta, &front.model, only.as_ref(), &|| progress.tick());
    progress.done();
    let files = match files {
        Ok(f) => f,
        Err(errs) => {
            for e in errs {
                eprintln!("error: {e}");
            }
            return Exit::Trouble;
        }
    };
    if let Some(dir) = &args.check {
        if !dir.is_dir() && !args.bless {
            eprintln!(
                "error: --check {}: no such folder; create it with --check {} --bless (after review), or write with --out",
                dir.display(),
                dir.display()
            );
            return Exit::Trouble;
        }
        let mine = |path: &str| checked(only.as_ref(), site.catalog, path);
        let compared = match only {
            Some(_) => compare_tree_where(dir, &files, &mine),
            None => compare_tree(dir, &files),
        };
        let diffs = match compared {
            Ok(d) => d,
            Err(e) => {
                eprintln!("error: {}: {e}", dir.display());
                return Exit::Trouble;
            }
        };
        let lock_current = lock_text
            .as_deref()
            .is_none_or(|t| args.bless || lockfile::is_current(&args.intent, t));
        if args.bless
            && let Some(t) = &lock_text
            && let Err(e) = lockfile::write(&args.intent, t)
        {
            eprintln!("error: {e}");
            return Exit::Trouble;
        }
        if diffs.is_empty() && !lock_current {
            return Exit::Differs;
        }
        if diffs.is_empty() {
            if !args.quiet {
                eprintln!("{}: {} files identical", dir.display(), files.len());
            }
            return Exit::Success;
        }
        if args.bless {
            let others = others_kept(only.as_ref(), site.catalog);
            let previous = aifab::write::Previous::Remove;
            let result = aifab::write::write_keeping(dir, others.as_deref(), previous, |stage| {
                files.iter().try_for_each(|f| stage.put(f))
            });
            return match result {
                Ok(_) => {
                    eprintln!("{}: blessed {} changed files", dir.display(), diffs.len());
                    Exit::Success
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    Exit::Trouble
                }
            };
        }
        for d in &diffs {
            match d.status {
                Status::Added => super::emit(&format!("only in new output: {}\n", d.path)),
                Status::Removed => super::emit(&format!("only in {}: {}\n", dir.display(), d.path)),
                Status::Changed => super::emit(&d.diff),
            }
        }
        eprintln!("{}: {} files differ", dir.display(), diffs.len());
        return Exit::Differs;
    }
    Exit::Success
}

/// The text of the lock a full render (`full`) writes, after refusing (exit 2, the list printed) a
/// renumbering the operator did not allow; `None` for a partial render or with `--no-lock`.
fn lock_text(
    args: &Args,
    model: &aifab::model::FabricModel,
    prev: Option<&aifab::lock::read::Loaded>,
    full: bool,
) -> Result<Option<String>, Exit> {
    if !full {
        return Ok(None);
    }
    let next = lockfile::next(model, prev, args.release);
    lockfile::guard(prev, &next, args.allow_renumber)?;
    Ok(Some(lockfile::text(&next, &args.intent)))
}

/// A test on a path relative to the output folder.
type PathFilter<'a> = Box<dyn Fn(&str) -> bool + 'a>;

/// With `--only`: which files of the previous output a partial render keeps, by path: every file
/// that does not belong to a device the glob matches (the rest of the fabric, files others put there).
/// The inventory is rendered whole and replaces the old one.
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

/// Which files `--check` compares: all of them, or with `--only` the files of the matched devices and
/// the files no device owns except the host files (the inventory, rendered whole).
fn checked(only: Option<&globset::GlobMatcher>, catalog: &Catalog, path: &str) -> bool {
    match (only, catalog.device_of(path)) {
        (Some(g), Some(host)) => g.is_match(host),
        // A narrowed render has no host files (they need every server link): keep them out of it.
        (Some(_), None) => !aifab::hosts::is_host_path(path),
        (None, _) => true,
    }
}
