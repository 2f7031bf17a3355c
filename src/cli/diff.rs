//! `aifab diff`: what changes on which switch between two intents (or an intent and its version at a
//! git revision), what it means for the lossless fabric, and the SONiC JSON patches.

use super::exit::front_failed;
use super::git::git_show;
use super::{Exit, lockfile};
use aifab::delivery::gcu::Release;
use aifab::delivery::route::{self, Plan};
use aifab::diag::Source;
use aifab::lock::read::Loaded;
use aifab::model::FabricModel;
use aifab::pipeline::{self, Front, FrontError};
use aifab::platform::{Catalog, Os};
use aifab::render::{Meta, OutFile, Renderer};
use aifab::review::{change, diff_files, report};
use std::collections::{BTreeMap, BTreeSet};

/// Arguments of `aifab diff`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// `<old-intent> <new-intent>`, or with --against just `<intent>`.
    #[arg(required = true, num_args = 1..=2)]
    pub intents: Vec<String>,
    /// Compare the intent with its version at this git revision (read with `git show`; the work tree is
    /// not touched).
    #[arg(long)]
    pub against: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// With --format markdown: the most characters the comment may take (a pull-request comment holds
    /// 65,536). Blocks that do not fit are left out whole and counted at the end.
    #[arg(long, default_value_t = report::MARKDOWN_BUDGET as u64, value_parser = clap::value_parser!(u64).range(report::MARKDOWN_MIN_BUDGET as u64..))]
    pub max_chars: u64,
    /// SONiC release the switches run (`202405`, `202505`, `master`), for what `config apply-patch`
    /// accepts; default 202405.
    #[arg(long)]
    pub sonic_release: Option<String>,
    /// No notes on stderr (the report on stdout is the same); errors are still printed.
    #[arg(long, short)]
    pub quiet: bool,
    /// Site platforms and templates (both sides render with them; the project file is looked up
    /// from the new intent).
    #[command(flatten)]
    pub site: super::site::SiteArgs,
}

/// Diff output formats.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Change report and unified diffs.
    Text,
    /// A pull-request comment.
    Markdown,
    /// For pipelines.
    Json,
    /// RFC 6902 JSON Patch per SONiC device (for `config apply-patch`).
    SonicPatch,
}

/// An intent `diff` cannot use (unreadable, too large, invalid) is trouble (exit 2): 1 means "differs".
fn cannot_diff(err: FrontError) -> Exit {
    front_failed(err, Exit::Trouble, "cannot diff")
}

/// The old side of a diff: an intent, or nothing (the intent did not exist at the revision).
enum OldSide {
    /// The old intent's text.
    Intent(Source),
    /// No intent at the revision; the label names it in the report.
    Absent(String),
}

impl OldSide {
    /// The old side through the pipeline front (with the old side's lock); `None` when there is no
    /// old intent.
    fn front(&self, lock: Option<&Loaded>, catalog: &Catalog) -> Result<Option<Front>, FrontError> {
        match self {
            OldSide::Intent(s) => {
                pipeline::front_source_locked_in(s.clone(), None, catalog, lock).map(Some)
            }
            OldSide::Absent(_) => Ok(None),
        }
    }
}

/// A fabric with no devices, named as `m`: the old side of an intent added since the revision.
fn empty_like(m: &FabricModel) -> FabricModel {
    FabricModel {
        name: m.name.clone(),
        devices: Vec::new(),
        links: Vec::new(),
        summary: Default::default(),
        hosts: None,
    }
}

/// The locks of the two sides: with `--against REV` the lock at REV (read with `git show`, none when
/// git has none) and the lock in the work tree; with two intents the lock beside each. The new side
/// falls back to the old side's lock (an edited copy of an intent has none of its own).
fn sides_locks(
    args: &Args,
    new_path: &str,
    rev_path: &str,
) -> Result<(Option<Loaded>, Option<Loaded>), FrontError> {
    let old = match (&args.against, args.intents.as_slice()) {
        (Some(rev), _) => {
            let p = lockfile::path(rev_path).to_string_lossy().into_owned();
            match super::git::git_show_lock(rev, &p) {
                Ok(Some(src)) => Some(aifab::lock::read::parse(src)?),
                Ok(None) | Err(_) => None,
            }
        }
        (None, [old, _]) => aifab::lock::read::read_file(&lockfile::path(old))?,
        _ => None,
    };
    let new = aifab::lock::read::read_file(&lockfile::path(new_path))?;
    Ok((old, new))
}

/// Renders one side. Both sides are rendered under the same intent name (`label`), so the file headers
/// do not turn every device into a change.
pub(super) fn render(r: &Renderer, f: &Front, label: &str) -> Result<Vec<OutFile>, Exit> {
    r.fabric(&Meta::for_intent_path(label, &f.model.name), &f.model, None)
        .map_err(|errs| {
            for e in errs {
                eprintln!("error: {e}");
            }
            Exit::Trouble
        })
}

/// Runs `aifab diff`.
pub fn run(args: Args) -> Exit {
    match diff(&args) {
        Ok(true) => Exit::Differs,
        Ok(false) => Exit::Success,
        Err(status) => status,
    }
}

/// Runs the diff and prints its report; `Ok(true)` when any rendered file differs.
fn diff(args: &Args) -> Result<bool, Exit> {
    let (old_src, new_path) = sides(args)?;
    // As every command that reads a lock: an interrupted render's commit is finished or undone first,
    // so the lock read is the one its output was rendered with.
    let beside = match (&args.against, args.intents.as_slice()) {
        (None, [old, _]) => vec![old.as_str(), new_path.as_str()],
        _ => vec![new_path.as_str()],
    };
    for intent in beside {
        lockfile::settle(intent, false)?;
    }
    let new_src = pipeline::read_source(&new_path).map_err(cannot_diff)?;
    let site = super::site::Site::load(new_path.as_ref(), &args.site)?;
    let (old, new) = fronts(args, &new_path, &old_src, new_src, site.catalog)?;
    let renderer = site.renderer()?;
    let old_rendered = match &old {
        Some(f) => render(&renderer, f, &new_path),
        None => Ok(Vec::new()),
    };
    let (old_files, new_files) = match (old_rendered, render(&renderer, &new, &new_path)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(c), _) | (_, Err(c)) => return Err(c),
    };
    let old_model = match &old {
        Some(f) => std::borrow::Cow::Borrowed(&f.model),
        None => std::borrow::Cow::Owned(empty_like(&new.model)),
    };
    let old_name = match (&old, &old_src) {
        (Some(f), _) => f.source.name.clone(),
        (None, OldSide::Absent(label)) => label.clone(),
        (None, OldSide::Intent(s)) => s.name.clone(),
    };
    let files = diff_files(&old_files, &new_files);
    let changed = !files.is_empty();
    let (release, assumed) = sonic_release(args)?;
    let plans = sonic_plans(&new, &old_files, &new_files, release);
    if args.format == Format::SonicPatch {
        super::emit(&sonic_patches(&plans, release, assumed && !args.quiet));
        return Ok(changed);
    }
    let rendered: BTreeSet<&str> = files
        .iter()
        .map(|f| f.device.as_str())
        .filter(|d| !d.is_empty())
        .collect();
    let mut changes = change::report_rendered(&old_model, &new.model, site.catalog, &rendered);
    changes.extend(route::change(&plans, release, assumed));
    let oses = aifab::review::uncovered::oses(site.catalog, &[&old_model, &new.model]);
    let unexplained = aifab::review::uncovered::uncovered(&changes, &files, site.catalog, &oses);
    changes.extend(unexplained);
    change::sort(&mut changes);
    let names = |m: &FabricModel| -> BTreeSet<String> {
        m.devices.iter().map(|d| d.hostname.clone()).collect()
    };
    let totals = report::totals(&files, &names(&old_model), &names(&new.model));
    let (a, b) = (old_name.as_str(), new.source.name.as_str());
    let text = match args.format {
        Format::Text => report::text(a, b, &totals, &changes, &files),
        Format::Markdown => {
            let budget = usize::try_from(args.max_chars).unwrap_or(usize::MAX);
            let picture = aifab::picture::Picture::changes(&old_model, &new.model)
                .map(|p| aifab::picture::mermaid::print(&p));
            report::markdown(a, b, &totals, &changes, &files, picture.as_deref(), budget)
        }
        _ => report::json(a, b, &totals, &changes, &files),
    };
    super::emit(&text);
    Ok(changed)
}

/// The old side (an intent read from a file or from git at `--against`, or its absence there) and the
/// new intent's path.
fn sides(args: &Args) -> Result<(OldSide, String), Exit> {
    match (&args.against, args.intents.as_slice()) {
        (Some(rev), [path]) => match git_show(rev, path) {
            Ok(Some(s)) => Ok((OldSide::Intent(s), path.clone())),
            // Renamed since (`git mv`): the intent under its name at the revision.
            Ok(None) => match super::git::renamed_from(rev, path)
                .and_then(|from| git_show(rev, &from).ok().flatten())
            {
                Some(s) => Ok((OldSide::Intent(s), path.clone())),
                None => Ok((
                    OldSide::Absent(format!("{path}@{rev} (absent)")),
                    path.clone(),
                )),
            },
            Err(e) => {
                eprintln!("error: {e}");
                Err(Exit::Trouble)
            }
        },
        (None, [old, new]) => match pipeline::read_source(old) {
            Ok(s) => Ok((OldSide::Intent(s), new.clone())),
            Err(e) => Err(cannot_diff(e)),
        },
        _ => {
            eprintln!("error: give two intents, or one intent with --against <rev>");
            Err(Exit::Trouble)
        }
    }
}

/// Both sides checked and compiled, each with its own lock (the new side falls back to the old side's
/// lock when it has none); when both are invalid, both are reported.
fn fronts(
    args: &Args,
    new_path: &str,
    old_src: &OldSide,
    new_src: Source,
    catalog: &'static Catalog,
) -> Result<(Option<Front>, Front), Exit> {
    // The lock at the revision beside the intent as it was named there (renamed since, or not).
    let rev_path = match (&args.against, old_src) {
        (Some(rev), OldSide::Intent(s)) => s
            .name
            .strip_suffix(&format!("@{rev}"))
            .unwrap_or(new_path)
            .to_string(),
        _ => new_path.to_string(),
    };
    let (old_lock, new_lock) = sides_locks(args, new_path, &rev_path).map_err(cannot_diff)?;
    let new_side = match (new_lock, &old_lock) {
        (Some(own), _) => pipeline::front_source_locked_in(new_src, None, catalog, Some(&own)),
        (None, Some(borrowed)) => {
            new_with_borrowed_lock(new_src, new_path, borrowed, catalog, args.quiet)
        }
        (None, None) => pipeline::front_source_locked_in(new_src, None, catalog, None),
    };
    match (old_src.front(old_lock.as_ref(), catalog), new_side) {
        (Ok(a), Ok(b)) => Ok((a, b)),
        (a, b) => {
            for e in [a.err(), b.err()].into_iter().flatten() {
                cannot_diff(e);
            }
            Err(Exit::Trouble)
        }
    }
}

/// The new side with the old side's lock, when it has none of its own (an edited copy of an intent):
/// that keeps what did not change where it was. When the borrowed lock does not fit the new intent (a
/// pool or range the change moved), its problems are the old side's file, not the new intent's: the new
/// side is then compiled without a lock, so the diff shows what the change renumbers, and a note says
/// so (`aifab render` of the new intent would refuse until `--allow-renumber`).
fn new_with_borrowed_lock(
    new_src: Source,
    new_path: &str,
    borrowed: &Loaded,
    catalog: &Catalog,
    quiet: bool,
) -> Result<Front, FrontError> {
    match pipeline::front_source_locked_in(new_src.clone(), None, catalog, Some(borrowed)) {
        Err(FrontError::Lock(..)) if quiet => {
            pipeline::front_source_locked_in(new_src, None, catalog, None)
        }
        Err(FrontError::Lock(lock_src, problems)) => {
            let first = problems
                .first()
                .map(|f| format!(", the first: {}", f.message))
                .unwrap_or_default();
            eprintln!(
                "note: {new_path} has no lock of its own and the old side's, {}, does not fit it ({} problem{}{first}): the new side is allocated without it, so the diff shows what the change renumbers; `aifab render` of it would refuse until --allow-renumber",
                lock_src.name,
                problems.len(),
                if problems.len() == 1 { "" } else { "s" },
            );
            pipeline::front_source_locked_in(new_src, None, catalog, None)
        }
        // The borrowed lock is the old side's file: only the new intent's own errors are its problem.
        Err(FrontError::Both { intent, .. }) => Err(FrontError::Invalid(intent.0, intent.1)),
        other => other,
    }
}

/// `--sonic-release`, or the default release (then `true`: the report says it assumed one).
fn sonic_release(args: &Args) -> Result<(Release, bool), Exit> {
    match args.sonic_release.as_deref().map(Release::parse) {
        Some(Some(r)) => Ok((r, false)),
        Some(None) => {
            eprintln!("error: --sonic-release: give 202405, 202505 or master");
            Err(Exit::Trouble)
        }
        None => Ok((Release::DEFAULT, true)),
    }
}

/// The config_db.json of `host` in `files`, if it has one.
fn config_db(files: &[OutFile], host: &str) -> Option<serde_json::Value> {
    files
        .iter()
        .find(|f| f.device == host && f.path.ends_with("config_db.json"))
        .and_then(|f| serde_json::from_str(&f.content).ok())
}

/// A patch-or-reload plan for every SONiC switch of the new side whose config_db.json is new or
/// changed.
fn sonic_plans(
    new: &Front,
    old_files: &[OutFile],
    new_files: &[OutFile],
    release: Release,
) -> Vec<Plan> {
    let mut out = Vec::new();
    for d in new.model.devices.iter().filter(|d| d.os == Os::Sonic) {
        let Some(b) = config_db(new_files, &d.hostname) else {
            continue;
        };
        let a = config_db(old_files, &d.hostname);
        if a.as_ref() != Some(&b) {
            out.push(route::plan(&d.hostname, a.as_ref(), &b, release));
        }
    }
    out
}

/// `{ "<host>": [ops] }` for every SONiC switch `config apply-patch` can move; each switch routed to
/// `config reload` instead gets a `note:` on stderr saying why (stdout stays one JSON document).
fn sonic_patches(plans: &[Plan], release: Release, assumed: bool) -> String {
    if assumed && !plans.is_empty() {
        eprintln!(
            "note: SONiC {} assumed for what config apply-patch accepts (--sonic-release to choose)",
            release.name()
        );
    }
    let mut out = BTreeMap::new();
    for p in plans {
        if p.patchable() {
            out.insert(p.host.clone(), p.ops.clone());
        } else {
            let more = match p.reasons.len() {
                n if n > 3 => format!(" (and {} more)", n - 3),
                _ => String::new(),
            };
            eprintln!(
                "note: {}: no patch; load it with config reload + config save: {}{more}",
                p.host,
                p.reasons
                    .iter()
                    .take(3)
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            );
        }
    }
    let mut s = serde_json::to_string_pretty(&out).unwrap_or_default();
    s.push('\n');
    s
}
