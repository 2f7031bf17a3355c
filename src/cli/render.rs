//! `aifab render`: write every device's configuration, or check it against golden files.

use super::{Exit, front_locked_or_exit, lockfile, only_matcher, only_matches_some};
use aifab::platform::Catalog;
use aifab::render::Meta;
use aifab::review::mask::Masker;
use aifab::review::{Status, compare_tree_masked};
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
    /// other file of the folder stays as it is, and the inventory lists the devices with a config
    /// there. A glob that matches no device is an error (exit 2).
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
    /// `frr`: every switch's routing as FRR instead of its own OS, `<hostname>/frr.conf` each (the
    /// same ASNs, neighbors, maximum-paths and networks; no inventory, no host files), for FRR-based
    /// switches, labs and `aifab twin` (docs/platforms/frr.md).
    #[arg(long, value_enum, conflicts_with = "only")]
    pub os: Option<OutputForm>,
}

/// An output form other than each device's own OS.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputForm {
    /// FRR (zebra and bgpd) `frr.conf`.
    Frr,
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

/// What every `aifab render` works from once the intent has passed: the device filter, the site, the
/// checked front, the renderer and the previous lock.
struct Prepared {
    only: Option<globset::GlobMatcher>,
    site: super::site::Site,
    front: aifab::pipeline::Front,
    renderer: aifab::render::Renderer,
    prev: Option<aifab::lock::read::Loaded>,
    /// The newest history of the lock known elsewhere (the output folder's record, git's), which the
    /// lock written is numbered past.
    floor: Option<aifab::lock::history::Stamp>,
}

impl Prepared {
    /// Whether this render writes (and guards) the lock: full renders only; `--only` reads the lock
    /// and never writes it, `--no-lock` neither reads nor writes it.
    fn writes_lock(&self, args: &Args) -> bool {
        self.only.is_none() && !args.no_lock
    }
}

/// Runs `aifab render`.
pub fn run(args: Args) -> Exit {
    let target = match (&args.out, &args.check) {
        (Some(out), _) => Target::Out(out),
        (None, Some(dir)) => Target::Check(dir),
        (None, None) => {
            eprintln!("error: give --out DIR to write, or --check DIR to compare");
            return Exit::Trouble;
        }
    };
    let prepared = match prepare(&args, &target) {
        Ok(p) => p,
        Err(status) => return status,
    };
    match target {
        Target::Out(out) => write_out(&args, prepared, out),
        Target::Check(dir) => check_folder(&args, prepared, dir),
    }
}

/// Refuses (exit 2) a render whose intent or lock lies inside the folder it writes: that folder is
/// replaced on every render, and the intent would move with it.
fn not_inside(intent: &str, folder: &std::path::Path) -> Result<(), Exit> {
    let Ok(dir) = std::fs::canonicalize(folder) else {
        return Ok(());
    };
    let lock = lockfile::path(intent);
    let parent = lock
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let inside = std::fs::canonicalize(parent).is_ok_and(|p| p.starts_with(&dir));
    if inside {
        eprintln!(
            "error: {intent} and its lock {} are inside {}, the folder this render writes: aifab replaces that folder on every render, so keep the intent outside it (render into another folder, e.g. a sub-folder beside the intent); nothing written",
            lock.display(),
            folder.display()
        );
        return Err(Exit::Trouble);
    }
    Ok(())
}

/// Finishes or undoes an interrupted `--only` write of `folder` (its journal lies beside it: see
/// `aifab::write::inplace`), saying what it did; another render writing it now is an error (exit 2).
fn settle_folder(folder: &std::path::Path) -> Result<(), Exit> {
    match aifab::write::inplace::settle(folder) {
        Ok(None) => Ok(()),
        Ok(Some(m)) => {
            eprintln!("note: {m}");
            Ok(())
        }
        Err(e) => {
            eprintln!("error: {e}; nothing written");
            Err(Exit::Trouble)
        }
    }
}

/// Where a render goes: written into a folder (`--out`), or compared with one (`--check`).
#[derive(Clone, Copy)]
enum Target<'a> {
    Out(&'a std::path::Path),
    Check(&'a std::path::Path),
}

/// Reads the site, the lock and the intent, checks and compiles it while the templates compile, and
/// (for `--out`) reads the environment secrets the intent names. Every refusal is printed here.
fn prepare(args: &Args, target: &Target) -> Result<Prepared, Exit> {
    let only = only_matcher(args.only.as_deref())?;
    let site = super::site::Site::load(args.intent.as_ref(), &args.site)?;
    let writes = matches!(target, Target::Out(_)) || args.bless;
    match target {
        Target::Out(d) | Target::Check(d) => site.admit(d)?,
    }
    if writes {
        aifab::write::interrupt::install();
        let folder = match target {
            Target::Out(d) | Target::Check(d) => d,
        };
        not_inside(&args.intent, folder)?;
        if !args.no_lock {
            lockfile::settle(&args.intent, true)?;
        }
    }
    match target {
        Target::Out(d) | Target::Check(d) => settle_folder(d)?,
    }
    // A render into a folder with `--only` reads the lock narrowed to the matched devices; `--check`
    // and `--bless` read it whole.
    let narrow = only.as_ref().filter(|_| matches!(target, Target::Out(_)));
    let mut prev = lockfile::load_for(&args.intent, args.no_lock, args.allow_renumber, narrow)?;
    // The templates compile (1-2 ms) on a second thread while this one reads and checks the intent;
    // their error, if any, is printed only for an intent that passed. The lock is compared with its
    // history meanwhile (git runs in processes of its own); `--check` refuses a lock behind the
    // folder's record or its committed history too: CI compares with it.
    let history = || match (target, args.no_lock) {
        (Target::Out(dir) | Target::Check(dir), false) => {
            lockfile::matches_output(&args.intent, dir, prev.as_ref(), args.allow_renumber)
        }
        _ => Ok(None),
    };
    let ((front, renderer), floor) = rayon::join(
        || {
            rayon::join(
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
            )
        },
        history,
    );
    let floor = floor?;
    let front = front?;
    only_matches_some(&front.model, args.only.as_deref(), only.as_ref())?;
    if let Some(p) = &mut prev {
        p.forget_text();
    }
    let renderer = renderer.map_err(|e| super::site::renderer_failed(&e))?;
    let renderer = match args.os {
        Some(OutputForm::Frr) => renderer.with_form(aifab::render::Form::Frr),
        None => renderer,
    };
    // Secrets named `{env: NAME}` are read only when writing: --check compares with placeholders.
    let renderer = match target {
        Target::Out(_) => with_secrets(renderer, &front, &args.intent, &site.env)?,
        Target::Check(_) => renderer,
    };
    // An --only inventory lists the devices with a config in the folder (src/render/inventory.rs).
    let renderer = match target {
        Target::Out(d) | Target::Check(d) => renderer.for_folder(d),
    };
    Ok(Prepared {
        only,
        site,
        front,
        renderer,
        prev,
        floor,
    })
}

/// The renderer with the values of the environment secrets the intent names (`{env: NAME}`); an unset
/// or unusable one, or one outside the prefix the project allows (`policy`, never read), is refused,
/// located in the intent. (`aifab drift --write` fills them the same way.)
pub(super) fn with_secrets(
    renderer: aifab::render::Renderer,
    front: &aifab::pipeline::Front,
    intent: &str,
    policy: &aifab::render::secrets::EnvPolicy,
) -> Result<aifab::render::Renderer, Exit> {
    let lookup = |k: &str| std::env::var(k).ok();
    match aifab::render::secrets::EnvSecrets::read(&front.intent, &lookup, policy) {
        Ok(values) => Ok(renderer.with_env_secrets(values)),
        Err(mut findings) => {
            aifab::pipeline::locate(&mut findings, &front.spans, &front.source);
            super::exit::print_findings(&front.source, &findings);
            eprintln!("{intent}: an environment secret is unset or unusable; nothing written");
            Err(Exit::Trouble)
        }
    }
}

/// `--out`: streams every device's files into the folder (each written by the thread that rendered
/// it) while the new lock is built, guarded and staged beside the render, then commits the folder and
/// the lock together (`aifab::write`); a refused renumbering discards what was rendered before anything
/// is swapped in.
fn write_out(args: &Args, p: Prepared, out: &std::path::Path) -> Exit {
    let full = p.writes_lock(args);
    let Prepared {
        only,
        site,
        front,
        renderer,
        prev,
        floor,
    } = p;
    // The previous lock is freed as soon as the new one is built and compared: during the render,
    // while the model and the files in flight hold the most memory.
    let lock_step = || {
        let next = lock_text(args, &front.model, (prev.as_ref(), floor.as_ref()), full);
        drop(prev);
        next
    };
    let meta = Meta::for_intent_path(&args.intent, &front.model.name);
    let progress = Progress::new(front.model.devices.len() as u64, args.quiet);
    let mut written = (0, 0);
    let mut lock = Ok(None);
    let others = others_kept(only.as_ref(), site.catalog);
    let ours = |path: &str| written_by_render(site.catalog, path);
    let options = aifab::write::Options {
        keep: others.as_deref(),
        previous: aifab::write::Previous::KeepAsSpare,
        secrets: renderer.fills_secrets(),
        ours: Some(&ours),
    };
    let matched = |g: &globset::GlobMatcher| {
        let n = front
            .model
            .devices
            .iter()
            .filter(|d| g.is_match(&d.hostname));
        n.count()
    };
    let result = if only.as_ref().is_some_and(|g| matched(g) <= IN_PLACE_MAX) {
        drop(lock_step);
        let tick = || progress.tick();
        write_only(
            &renderer,
            (&meta, &front.model),
            only.as_ref(),
            out,
            &options,
            &tick,
        )
        .map(|(report, files)| {
            written = files;
            report
        })
    } else {
        aifab::write::write_job(out, &options, |stage| {
            let sink = |f: &aifab::render::OutFile| stage.put(f);
            let (rendered, next) = rayon::join(
                || {
                    renderer.fabric_each(&meta, &front.model, only.as_ref(), &sink, &|| {
                        progress.tick()
                    })
                },
                || {
                    let next = lock_step()?;
                    next.map(|(l, t)| lockfile::stage(&args.intent, &l, &t, out))
                        .transpose()
                        .map_err(|e| {
                            eprintln!("error: {e}");
                            Exit::Trouble
                        })
                },
            );
            let companion = next
                .as_ref()
                .ok()
                .and_then(|s| s.as_ref().map(|s| s.companion()));
            let refused = next.is_err();
            lock = next;
            written = rendered.map_err(|errs| errs.join("\n"))?;
            if refused {
                return Err("the new lock was refused or could not be staged".into());
            }
            Ok(companion)
        })
    };
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
    let writes_hosts = front.model.hosts.is_some();
    // The process ends next: freeing a large model node by node (half a million interfaces at
    // 100K GPUs) would only delay the exit.
    std::mem::forget(front);
    match result {
        Ok(report) => {
            let lock = staged
                .as_ref()
                .and_then(|s| s.changes())
                .map(|p| p.display().to_string());
            if let Some(s) = staged {
                s.handed_over();
            }
            print_report(args, out, &report);
            if !args.quiet {
                if let Some(l) = lock {
                    eprintln!("{l}: written with the output (commit it with the intent)");
                }
                eprintln!(
                    "{}: {devices} devices, {} files, {} bytes written",
                    out.display(),
                    written.0,
                    written.1
                );
            }
            hosts_warning(out, only.is_some(), writes_hosts);
            match aifab::write::interrupt::pending() {
                Some(sig) => {
                    eprintln!(
                        "{}: the render had committed when {} came: {} and its lock are complete",
                        out.display(),
                        aifab::write::interrupt::name(sig),
                        out.display()
                    );
                    Exit::Interrupted(sig)
                }
                None => Exit::Success,
            }
        }
        Err(f) => failed(args, out, f, staged),
    }
}

/// The most switches an `--only` render holds in memory to write in place ([`write_only`]); one that
/// matches more streams its files into a staged folder as a full render does.
const IN_PLACE_MAX: usize = 256;

/// `--only`: renders the matched devices' files and the inventory into memory (one switch's files are
/// small) and writes the ones whose bytes changed in place (`aifab::write::inplace`); where that does
/// not apply (a first render, a device that gained a folder or lost a file), stages a new folder as a
/// full render does, carrying every other file over. Returns the report and the files and bytes
/// rendered.
fn write_only(
    renderer: &aifab::render::Renderer,
    (meta, model): (&Meta, &aifab::model::FabricModel),
    only: Option<&globset::GlobMatcher>,
    out: &std::path::Path,
    options: &aifab::write::Options,
    tick: &(dyn Fn() + Sync),
) -> Result<(aifab::write::Report, (usize, u64)), aifab::write::Failure> {
    let files = renderer
        .fabric_with_progress(meta, model, only, tick)
        .map_err(|errs| aifab::write::Failure {
            message: errs.join("\n"),
            changed: false,
            signal: None,
        })?;
    let rendered = (
        files.len(),
        files.iter().map(|f| f.content.len() as u64).sum(),
    );
    let report = match aifab::write::inplace::write(out, options, &files)? {
        aifab::write::inplace::Outcome::Done(report) => report,
        aifab::write::inplace::Outcome::Staged(_) => {
            aifab::write::write_job(out, options, |stage| {
                files.iter().try_for_each(|f| stage.put(f))?;
                Ok(None)
            })?
        }
    };
    Ok((report, rendered))
}

/// Prints what a write kept of the user's and cleaned up, unless `--quiet`.
fn print_report(args: &Args, out: &std::path::Path, report: &aifab::write::Report) {
    for n in &report.notes {
        eprintln!("warning: {n}");
    }
    if args.quiet {
        return;
    }
    for s in &report.stale {
        eprintln!(
            "note: removed {}, left by an interrupted render of a process that no longer runs",
            s.display()
        );
    }
    if !report.kept.is_empty() {
        let kept: Vec<&str> = report.kept.iter().map(String::as_str).collect();
        eprintln!(
            "note: kept {} aifab did not write, unchanged: {}",
            plural(kept.len(), "entry", "entries"),
            aifab::write::name_list(out, &kept)
        );
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A failed write's message: what changed (nothing, or the output without its lock, which the journal
/// finishes), and a signal's exit status.
fn failed(
    args: &Args,
    out: &std::path::Path,
    f: aifab::write::Failure,
    staged: Option<lockfile::Staged>,
) -> Exit {
    let lock = lockfile::path(&args.intent);
    if f.changed {
        // The staged lock stays for the journal: the next aifab command puts it in place.
        if let Some(s) = staged {
            s.handed_over();
        }
        eprintln!("error: {}", f.message);
        return Exit::Trouble;
    }
    drop(staged);
    let lock_part = if args.no_lock || args.only.is_some() {
        String::new()
    } else {
        format!(" or {}", lock.display())
    };
    match f.signal {
        Some(sig) => {
            eprintln!(
                "interrupted by {}: removed what this render had created; nothing was changed in {}{lock_part}",
                aifab::write::interrupt::name(sig),
                out.display()
            );
            Exit::Interrupted(sig)
        }
        None => {
            eprintln!(
                "error: {}; nothing was changed in {}{lock_part}",
                f.message,
                out.display()
            );
            Exit::Trouble
        }
    }
}

/// With `--only`: warns that the host files are the last full render's (or left from one).
fn hosts_warning(out: &std::path::Path, only: bool, writes_hosts: bool) {
    // A narrowed render carries the host files of the last full one over unchanged.
    if !only || !out.join("hosts").is_dir() {
        return;
    }
    let hosts = out.join("hosts");
    if writes_hosts {
        eprintln!(
            "warning: --only renders no host file: {} is the last full render's; after a change to the QoS classes, the addressing or `hosts`, render without --only before installing it",
            hosts.display()
        );
    } else {
        eprintln!(
            "warning: --only kept {} from an earlier render, but this intent writes no host files: render without --only to remove it",
            hosts.display()
        );
    }
}

/// Whether a path of an output folder is one a render of a fabric on `catalog` writes (a device's
/// file, the inventory, a host file): what of a folder an earlier aifab wrote, whose manifest lists no
/// files, is taken for aifab's.
fn written_by_render(catalog: &Catalog, path: &str) -> bool {
    path == "inventory.yml" || aifab::hosts::is_host_path(path) || catalog.device_of(path).is_some()
}

/// `--check`: renders into memory and compares with the folder (printing a unified diff per differing
/// file, no secret shown); with `--bless`, rewrites the folder and the lock together instead. Files of
/// the folder aifab did not write (not in its manifest) are not compared.
fn check_folder(args: &Args, p: Prepared, dir: &std::path::Path) -> Exit {
    let history = (p.prev.as_ref(), p.floor.as_ref());
    let next = match lock_text(args, &p.front.model, history, p.writes_lock(args)) {
        Ok(next) => next,
        Err(status) => return status,
    };
    drop(p.prev);
    let Prepared {
        only,
        site,
        front,
        renderer,
        ..
    } = p;
    let meta = Meta::for_intent_path(&args.intent, &front.model.name);
    let progress = Progress::new(front.model.devices.len() as u64, args.quiet);
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
    if !dir.is_dir() && !args.bless {
        eprintln!(
            "error: --check {}: no such folder; create it with --check {} --bless (after review), or write with --out",
            dir.display(),
            dir.display()
        );
        return Exit::Trouble;
    }
    let listed = aifab::write::read_manifest(dir).and_then(|m| m.files);
    let rendered: std::collections::HashSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let ours = |path: &str| match &listed {
        Some(l) => l.contains(path),
        None => written_by_render(site.catalog, path),
    };
    let compared_here = |path: &str| {
        checked(only.as_ref(), site.catalog, path) && (rendered.contains(path) || ours(path))
    };
    let lookup = |k: &str| std::env::var(k).ok();
    let values = aifab::render::secrets::set_values(&front.intent, &lookup);
    let masker = Masker::new(files.iter().map(|f| f.content.as_str()), values);
    let diffs = match compare_tree_masked(dir, &files, &compared_here, Some(&masker)) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {}: {e}", dir.display());
            return Exit::Trouble;
        }
    };
    let lock_current = next
        .as_ref()
        .is_none_or(|(_, t)| args.bless || lockfile::is_current(&args.intent, t));
    if args.bless {
        let lock_changed = next.as_ref().is_some_and(|(_, t)| {
            !aifab::write::holds(&lockfile::path(&args.intent), t.as_bytes())
        });
        if diffs.is_empty() && !lock_changed {
            if !args.quiet {
                eprintln!("{}: {} files identical", dir.display(), files.len());
            }
            return Exit::Success;
        }
        return bless(
            args,
            dir,
            &files,
            diffs.len(),
            only.as_ref(),
            site.catalog,
            next,
        );
    }
    if diffs.is_empty() {
        if !lock_current {
            return Exit::Differs;
        }
        if !args.quiet {
            eprintln!("{}: {} files identical", dir.display(), files.len());
        }
        return Exit::Success;
    }
    print_diffs(dir, &diffs);
    Exit::Differs
}

/// `--check --bless`: rewrites the folder with `files` (with `--only`, keeping every other device's
/// files) and the lock `next` together, as `--out` does.
fn bless(
    args: &Args,
    dir: &std::path::Path,
    files: &[aifab::render::OutFile],
    changed: usize,
    only: Option<&globset::GlobMatcher>,
    catalog: &Catalog,
    next: Option<(aifab::lock::Lock, String)>,
) -> Exit {
    let staged = match next
        .map(|(l, t)| lockfile::stage(&args.intent, &l, &t, dir))
        .transpose()
    {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}; nothing was changed");
            return Exit::Trouble;
        }
    };
    let others = others_kept(only, catalog);
    let ours = |path: &str| written_by_render(catalog, path);
    let options = aifab::write::Options {
        keep: others.as_deref(),
        previous: aifab::write::Previous::Remove,
        secrets: false,
        ours: Some(&ours),
    };
    let companion = staged.as_ref().map(lockfile::Staged::companion);
    let result = aifab::write::write_job(dir, &options, |stage| {
        files.iter().try_for_each(|f| stage.put(f))?;
        Ok(companion)
    });
    match result {
        Ok(report) => {
            if let Some(s) = staged {
                s.handed_over();
            }
            print_report(args, dir, &report);
            eprintln!("{}: blessed {changed} changed files", dir.display());
            Exit::Success
        }
        Err(f) => failed(args, dir, f, staged),
    }
}

/// Prints each difference `--check` found (a unified diff, or which side alone has the file) and the
/// count.
fn print_diffs(dir: &std::path::Path, diffs: &[aifab::review::FileChange]) {
    for d in diffs {
        match d.status {
            Status::Added => super::emit(&format!("only in new output: {}\n", d.path)),
            Status::Removed => super::emit(&format!("only in {}: {}\n", dir.display(), d.path)),
            Status::Changed => super::emit(&d.diff),
        }
    }
    eprintln!("{}: {} files differ", dir.display(), diffs.len());
}

/// The lock a full render (`full`) writes and its text, after refusing (exit 2, the list printed) a
/// renumbering the operator did not allow; `None` for a partial render or with `--no-lock`. `history`
/// is the lock read and the newest history known elsewhere (see `lockfile::text`).
fn lock_text(
    args: &Args,
    model: &aifab::model::FabricModel,
    (prev, floor): (
        Option<&aifab::lock::read::Loaded>,
        Option<&aifab::lock::history::Stamp>,
    ),
    full: bool,
) -> Result<Option<(aifab::lock::Lock, String)>, Exit> {
    if !full {
        return Ok(None);
    }
    let next = lockfile::next(model, prev, args.release);
    lockfile::guard(prev, &next, args.allow_renumber)?;
    let text = lockfile::text(&next, &args.intent, prev, floor);
    Ok(Some((next, text)))
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

/// Which files `--check` compares: all of them, or with `--only` the files of the matched devices and
/// the files no device owns except the host files (the inventory).
fn checked(only: Option<&globset::GlobMatcher>, catalog: &Catalog, path: &str) -> bool {
    match (only, catalog.device_of(path)) {
        (Some(g), Some(host)) => g.is_match(host),
        // A narrowed render has no host files (they need every server link): keep them out of it.
        (Some(_), None) => !aifab::hosts::is_host_path(path),
        (None, _) => true,
    }
}
