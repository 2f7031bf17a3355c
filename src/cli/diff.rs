//! `aifab diff`: what changes on which switch between two intents (or an intent and its version at a
//! git revision), what it means for the lossless fabric, and the SONiC JSON patches.

mod sides;
mod sonic;

use super::exit::front_failed;
use super::{Exit, lockfile};
use aifab::delivery::gcu::Release;
use aifab::delivery::route::{self, Plan};
use aifab::diag::Source;
use aifab::git::git_show;
use aifab::lock::read::Loaded;
use aifab::model::FabricModel;
use aifab::pipeline::{self, Front, FrontError};
use aifab::platform::{Catalog, Os};
use aifab::render::{Meta, OutFile, Renderer};
use aifab::review::{change, diff_files, report};
use sides::*;
use sonic::*;
use std::collections::{BTreeMap, BTreeSet};

/// Arguments of `aifab diff`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
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
pub(crate) enum Format {
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
pub(super) fn run(args: Args) -> Exit {
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
