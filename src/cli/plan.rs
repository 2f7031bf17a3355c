//! `aifab plan`: the cabling plan (CSV), a summary table, or a topology drawing.

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
pub struct Args {
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
    /// neighbours as context.
    #[arg(long)]
    pub only: Option<String>,
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
pub enum Format {
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
}

/// Runs `aifab plan`.
pub fn run(args: Args) -> Exit {
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
    if !matches!(args.format, Format::Dot | Format::Mermaid) {
        eprintln!(
            "error: --zone, --rail and --only draw a part of the fabric: use them with --format dot or mermaid"
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

/// `--format rollout`: every switch, or with `--against` the switches whose configs change, in
/// batches.
fn rollout(args: &Args, new: &aifab::pipeline::Front, catalog: &'static Catalog) -> Exit {
    let old = match &args.against {
        None => None,
        Some(rev) => match old_front(rev, &args.intent, catalog) {
            Ok(o) => Some(o),
            Err(status) => return status,
        },
    };
    let changed = match &old {
        None => None,
        Some(old) => match changed_devices(old.as_ref(), new, &args.intent, catalog) {
            Ok(c) => Some(c),
            Err(status) => return status,
        },
    };
    let m = &new.model;
    let devices: Vec<&aifab::model::Device> = m
        .devices
        .iter()
        .filter(|d| changed.as_ref().is_none_or(|c| c.contains(&d.hostname)))
        .collect();
    let old_model = old.as_ref().and_then(|o| o.as_ref()).map(|f| &f.model);
    let reload = rollout::needing_reload(old_model, m, catalog);
    let plan = rollout::plan(m, &devices, &reload, args.uplink_percent);
    super::emit(&plan.to_yaml());
    Exit::Success
}

/// The intent at `rev` through the pipeline front; `Ok(None)` when it did not exist there.
fn old_front(
    rev: &str,
    path: &str,
    catalog: &Catalog,
) -> Result<Option<aifab::pipeline::Front>, Exit> {
    let src = aifab::git::git_show(rev, path).map_err(|e| {
        eprintln!("error: {e}");
        Exit::Trouble
    })?;
    let Some(src) = src else { return Ok(None) };
    // The lock as it was at `rev`, when git has one: the old side's allocation.
    let lock_path = super::lockfile::path(path).to_string_lossy().into_owned();
    let lock = match aifab::git::git_show_lock(rev, &lock_path) {
        Ok(Some(l)) => Some(aifab::lock::read::parse(l)),
        Ok(None) | Err(_) => None,
    };
    let lock = match lock.transpose() {
        Ok(l) => l,
        Err(e) => {
            return Err(super::exit::front_failed(
                e.into(),
                Exit::Trouble,
                "cannot plan",
            ));
        }
    };
    aifab::pipeline::front_source_locked_in(src, None, catalog, lock.as_ref())
        .map(Some)
        .map_err(|e| super::exit::front_failed(e, Exit::Trouble, "cannot plan"))
}

/// Hostnames whose rendered files differ between the two sides (every new device when `old` is
/// `None`).
fn changed_devices(
    old: Option<&aifab::pipeline::Front>,
    new: &aifab::pipeline::Front,
    label: &str,
    catalog: &'static Catalog,
) -> Result<BTreeSet<String>, Exit> {
    let r = Renderer::new(catalog).map_err(|e| {
        eprintln!("error: {e}");
        Exit::Trouble
    })?;
    let before = match old {
        Some(f) => super::diff::render(&r, f, label)?,
        None => Vec::new(),
    };
    let after = super::diff::render(&r, new, label)?;
    Ok(diff_files(&before, &after)
        .into_iter()
        .filter(|f| !f.device.is_empty())
        .map(|f| f.device)
        .collect())
}

/// The cabling plan: one row per cable.
pub fn csv(m: &FabricModel) -> String {
    let mut s = String::from("device,port,peer,peer_port,speed,cable_length,tier,subnet\n");
    for l in &m.links {
        let _ = writeln!(
            s,
            "{},{},{},{},{}G,{}m,{},{}",
            l.b,
            l.b_port,
            l.a,
            l.a_port,
            l.speed_gbps,
            l.cable_m,
            l.tier,
            l.subnet.as_deref().unwrap_or("")
        );
    }
    s
}

/// The summary table.
pub fn summary(m: &FabricModel) -> String {
    let s = &m.summary;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "fabric {}: {} GPUs on {} servers",
        m.name, s.gpus, s.servers
    );
    let _ = writeln!(out, "{:<28} {:>10}", "devices", "count");
    for (k, v) in [
        ("leaves", s.leaves),
        ("spines", s.spines),
        ("super-spines", s.super_spines),
    ] {
        if v > 0 {
            let _ = writeln!(out, "  {k:<26} {v:>10}");
        }
    }
    let _ = writeln!(out, "{:<28} {:>10}", "links", "count");
    for (k, v) in [
        (LinkTier::ServerLeaf, s.server_links),
        (LinkTier::LeafSpine, s.leaf_spine_links),
        (LinkTier::SpineSuperSpine, s.spine_super_spine_links),
    ] {
        if v > 0 {
            let _ = writeln!(out, "  {k:<26} {v:>10}");
        }
    }
    let _ = writeln!(out, "oversubscription");
    let _ = writeln!(out, "  {:<26} {:>10}", "leaf", s.leaf_oversubscription);
    if let Some(o) = &s.spine_oversubscription {
        let _ = writeln!(out, "  {:<26} {:>10}", "spine", o);
    }
    let _ = writeln!(out, "{:<28} {:>10}", "leaf ECMP width", s.leaf_ecmp_width);
    let _ = writeln!(
        out,
        "{:<28} {:>10} {:>10}",
        "address pools", "used", "capacity"
    );
    for p in &s.pools {
        let _ = writeln!(
            out,
            "  {:<26} {:>10} {:>10}  {}",
            p.pool, p.used, p.capacity, p.prefix
        );
    }
    out
}
