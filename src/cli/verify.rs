//! `aifab verify <intent> --state DIR`: whether the running fabric is the intended one, from what each
//! switch reports (docs/verify.md). Exit 0: every check holds; 1: findings; 2: could not run (no such
//! folder, the state of another fabric, an intent that does not validate).

use super::{Exit, front_or_exit, only_matcher, only_matches_some};
use aifab::verify::{Check, Options, report};
use std::path::PathBuf;

/// Arguments of `aifab verify`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Intent file (its lock beside it is read, as `render` reads it).
    pub intent: String,
    /// The state folder: `DIR/<hostname>/` holds each switch's documents (ansible/collect.yml).
    #[arg(long, value_name = "DIR", required_unless_present = "emit")]
    pub state: Option<PathBuf>,
    /// Only switches whose hostname matches this glob.
    #[arg(long)]
    pub only: Option<String>,
    /// Only these checks (comma-separated: cabling, sessions, ports, lossless, hosts); all by default.
    #[arg(long, value_delimiter = ',')]
    pub checks: Vec<Check>,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Markdown: the longest report (findings that do not fit are left out whole and counted).
    #[arg(long, default_value_t = 60_000)]
    pub max_chars: usize,
    /// Print the same checks in another tool's form instead of verifying (`anta`: an ANTA catalog of
    /// the EOS switches).
    #[arg(long, value_enum, conflicts_with = "state")]
    pub emit: Option<Emit>,
    /// No warnings about the intent.
    #[arg(short, long)]
    pub quiet: bool,
    /// Site platforms and templates.
    #[command(flatten)]
    pub site: super::site::SiteArgs,
}

/// Output format of `aifab verify`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Format {
    /// One line per failing check, then a summary per check kind.
    #[default]
    Text,
    /// One JSON document.
    Json,
    /// A Markdown table for a pull request or ticket.
    Markdown,
    /// JUnit XML: a test case per switch and check.
    Junit,
}

/// Another tool's form of the checks.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Emit {
    /// An ANTA catalog for the EOS switches.
    Anta,
}

/// Runs `aifab verify`.
pub(super) fn run(args: Args) -> Exit {
    match verify(&args) {
        Ok(e) | Err(e) => e,
    }
}

fn verify(args: &Args) -> Result<Exit, Exit> {
    let only = only_matcher(args.only.as_deref())?;
    let site = super::site::Site::load(args.intent.as_ref(), &args.site)?;
    let front = front_or_exit(&args.intent, args.quiet, None, site.catalog)?;
    only_matches_some(&front.model, args.only.as_deref(), only.as_ref())?;
    if let Some(Emit::Anta) = args.emit {
        super::emit(&aifab::verify::anta::catalog(&front.model, only.as_ref()));
        return Ok(Exit::Success);
    }
    let Some(dir) = &args.state else {
        return Err(Exit::Trouble);
    };
    site.admit(dir)?;
    let opts = Options {
        checks: args.checks.clone(),
        only: only.clone(),
    };
    let r = aifab::verify::verify(&front.model, site.catalog, dir, &opts).map_err(|e| {
        eprintln!("error: {e}");
        Exit::Trouble
    })?;
    let hosts: Vec<&str> = front
        .model
        .devices
        .iter()
        .map(|d| d.hostname.as_str())
        .filter(|h| only.as_ref().is_none_or(|g| g.is_match(h)))
        .collect();
    let text = match args.format {
        Format::Text => report::text(&r),
        Format::Json => report::json(&r),
        Format::Markdown => report::markdown(&r, args.max_chars),
        Format::Junit => report::junit(&r, &hosts),
    };
    super::emit(&text);
    Ok(if r.holds() {
        Exit::Success
    } else {
        Exit::Differs
    })
}
