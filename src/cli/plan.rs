//! `aifab plan`: the cabling plan (CSV), a summary table, or a topology drawing.

mod batches;
mod routing;
mod table;

use batches::*;
pub(super) use table::*;

use super::{Exit, front_or_exit};
use aifab::delivery::rollout;
use aifab::model::{FabricModel, LinkTier};
use aifab::picture::{self, Picture, View};
use aifab::platform::Catalog;
use aifab::render::Renderer;
use aifab::review::diff_files;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// Arguments of `aifab plan`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Intent file.
    pub intent: String,
    /// `csv`: one row per cable on stdout, the summary on stderr. `summary`: the summary table.
    /// `dot` / `mermaid`: the topology picture (docs/topologies.md#pictures): leaves clustered per zone
    /// and server group in rail order, spines and super-spines in rows, collapsed per rail and zone
    /// for large fabrics.
    #[arg(long, value_enum, default_value = "csv")]
    pub format: Format,
    /// With --format dot|mermaid: only the switches of this zone, with their neighbours as context.
    #[arg(long)]
    pub zone: Option<u32>,
    /// With --format dot|mermaid: only the leaves of this rail, with their spines as context.
    #[arg(long)]
    pub rail: Option<u32>,
    /// With --format dot|mermaid: only the switches whose hostname matches this glob, with their
    /// neighbours as context. With --format ecmp: only the rows of the leaves it matches.
    #[arg(long)]
    pub only: Option<String>,
    /// With --format buffers|buffers-json: compute the routes with this failure (repeat for several
    /// together): `SWITCH`, `SWITCH:PORT` (one link) or `SWITCH+SWITCH` (every link between two).
    #[arg(long, value_name = "FAILURE")]
    pub fail: Vec<String>,
    /// With --format rollout: the most uplinks (percent, at least one) a switch may lose to one batch.
    #[arg(long, default_value_t = 25, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub uplink_percent: u32,
    /// With --format rollout: plan only the switches whose configs differ from the intent at this git
    /// revision (all of them when the intent did not exist there).
    #[arg(long)]
    pub against: Option<String>,
    /// No warnings on stderr (the output on stdout is the same).
    #[arg(long, short)]
    pub quiet: bool,
    /// Site platforms and templates.
    #[command(flatten)]
    pub site: super::site::SiteArgs,
}

/// Plan formats.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// Cabling plan as CSV.
    Csv,
    /// Summary table.
    Summary,
    /// Graphviz dot.
    Dot,
    /// Mermaid flowchart.
    Mermaid,
    /// Rollout batches (YAML, also the vars file of `ansible/deploy.yml`).
    Rollout,
    /// ECMP width per (leaf, destination leaf) as CSV; the summary on stderr.
    Ecmp,
    /// The lossless buffer-dependency graph as Graphviz dot, with whether it is acyclic.
    Buffers,
    /// The lossless buffer-dependency graph as JSON.
    BuffersJson,
}

/// Runs `aifab plan`.
pub(super) fn run(args: Args) -> Exit {
    let site = match super::site::Site::load(args.intent.as_ref(), &args.site) {
        Ok(s) => s,
        Err(status) => return status,
    };
    let front = match front_or_exit(&args.intent, args.quiet, None, site.catalog) {
        Ok(f) => f,
        Err(status) => return status,
    };
    let m = &front.model;
    let view = match view(&args, m) {
        Ok(v) => v,
        Err(status) => return status,
    };
    match args.format {
        Format::Csv => {
            super::emit(&csv(m));
            if !args.quiet {
                eprint!("{}", summary(m));
            }
        }
        Format::Summary => super::emit(&summary(m)),
        Format::Dot => super::emit(&picture::dot::print(&Picture::of(m, &view))),
        Format::Mermaid => super::emit(&picture::mermaid::print(&Picture::of(m, &view))),
        Format::Rollout => return rollout(&args, &front, site.catalog),
        Format::Ecmp => routing::ecmp(m, view.only.as_ref(), args.quiet),
        Format::Buffers | Format::BuffersJson => return routing::buffers(m, &args),
    }
    if !args.fail.is_empty() && !matches!(args.format, Format::Buffers | Format::BuffersJson) {
        eprintln!("note: --fail applies to --format buffers and buffers-json only");
    }
    Exit::Success
}

/// The `--zone`, `--rail` and `--only` view of a drawing; exit 2 when given with another format or
/// when it selects no switch.
fn view(args: &Args, m: &FabricModel) -> Result<View, Exit> {
    let view = View {
        zone: args.zone,
        rail: args.rail,
        only: super::only_matcher(args.only.as_deref())?,
        only_text: args.only.clone(),
    };
    if view.is_all() {
        return Ok(view);
    }
    let rows_only = args.format == Format::Ecmp && view.zone.is_none() && view.rail.is_none();
    if !matches!(args.format, Format::Dot | Format::Mermaid) && !rows_only {
        eprintln!(
            "error: --zone, --rail and --only draw a part of the fabric: use them with --format dot or mermaid (--only also with ecmp)"
        );
        return Err(Exit::Trouble);
    }
    if !Picture::view_matches_some(m, &view) {
        let zones = m.devices.iter().filter_map(|d| d.zone).max();
        let rails = m.devices.iter().filter_map(|d| d.rail).max();
        let range = |what: &str, n: Option<u32>| match n {
            Some(n) => format!("{what} 1-{n}"),
            None => format!("no {what}s"),
        };
        eprintln!(
            "error: no switch of {} is in this view ({} has {}, {}); nothing drawn",
            m.name,
            m.name,
            range("zone", zones),
            range("rail", rails)
        );
        return Err(Exit::Trouble);
    }
    Ok(view)
}
