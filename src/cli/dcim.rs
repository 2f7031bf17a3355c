//! `aifab dcim sync|check <intent> --nautobot URL`: publish the compiled fabric into Nautobot, or
//! report where Nautobot disagrees with it (docs/dcim.md). Exit 0: done, or nothing differs; 1: `check`
//! found differences (or a sync left objects held); 2: could not run (unreachable, refused token, a
//! Nautobot major aifab does not speak, an intent that does not validate).

use super::{Exit, front_or_exit};
use aifab::dcim::{diff, nautobot::Nautobot, plan, report, store};
use std::time::Duration;

/// `aifab dcim`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// What to do.
    #[command(subcommand)]
    pub action: Action,
}

/// The two directions.
#[derive(clap::Subcommand, Debug)]
pub(crate) enum Action {
    /// Make Nautobot hold the fabric as compiled (only objects tagged `aifab:<fabric>` are updated or
    /// deleted).
    Sync(Common),
    /// Report where Nautobot disagrees with the intent, without writing; exit 1 on any difference.
    Check(Common),
}

/// Arguments both take.
#[derive(clap::Args, Debug)]
pub(crate) struct Common {
    /// Intent file (its lock beside it is read, as `render` reads it).
    pub intent: String,
    /// The Nautobot server (`https://nautobot.example.net`).
    #[arg(long, value_name = "URL")]
    pub nautobot: String,
    /// The environment variable holding the API token.
    #[arg(long, value_name = "VAR", default_value = "NAUTOBOT_TOKEN")]
    pub token_env: String,
    /// Print what would change, write nothing (sync).
    #[arg(long)]
    pub dry_run: bool,
    /// Take over untagged objects in the way (a device of a planned name made by hand): tag and update them.
    #[arg(long)]
    pub adopt: bool,
    /// The location of the fabric's devices (created when missing); the fabric's name by default.
    #[arg(long)]
    pub location: Option<String>,
    /// The IPAM namespace of its prefixes and addresses (created when missing).
    #[arg(long, default_value = "Global")]
    pub namespace: String,
    /// Sync the servers too: their NIC ports, the server end of each server link's address and the
    /// server-to-leaf cables (off by default: a 100K-GPU fabric has 100,000 of each).
    #[arg(long)]
    pub servers: bool,
    /// Objects per bulk write request (sync): lower it when a reverse proxy in front of Nautobot cuts
    /// requests short (nginx's `proxy_read_timeout` is 60 s; Nautobot takes about 0.1-0.2 s per object).
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u16).range(1..=1000))]
    pub batch_size: u16,
    /// Seconds each request may take.
    #[arg(long, default_value_t = 300)]
    pub timeout: u64,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// No warnings about the intent.
    #[arg(short, long)]
    pub quiet: bool,
    /// Site platforms and templates.
    #[command(flatten)]
    pub site: super::site::SiteArgs,
}

/// Report format of `aifab dcim`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Format {
    /// A table per object type, then each change.
    #[default]
    Text,
    /// Markdown for a pull request.
    Markdown,
    /// One JSON document.
    Json,
}

/// Runs `aifab dcim`.
pub(super) fn run(args: Args) -> Exit {
    let (check, c) = match &args.action {
        Action::Sync(c) => (false, c),
        Action::Check(c) => (true, c),
    };
    let site = match super::site::Site::load(c.intent.as_ref(), &c.site) {
        Ok(s) => s,
        Err(e) => return e,
    };
    let front = match front_or_exit(&c.intent, c.quiet, None, site.catalog) {
        Ok(f) => f,
        Err(e) => return e,
    };
    match dcim(c, check, &front.model, site.catalog) {
        Ok(e) => e,
        Err(msg) => {
            eprintln!("error: {msg}");
            Exit::Trouble
        }
    }
}

fn dcim(
    c: &Common,
    check: bool,
    model: &aifab::model::FabricModel,
    catalog: &aifab::platform::Catalog,
) -> Result<Exit, String> {
    let token = std::env::var(&c.token_env).map_err(|_| {
        format!(
            "no API token: set {} (or name another variable with --token-env); nothing read or written",
            c.token_env
        )
    })?;
    let settings = plan::Settings {
        location: c.location.clone().unwrap_or_else(|| model.name.clone()),
        namespace: c.namespace.clone(),
        servers: c.servers,
    };
    let tag = aifab::dcim::tag(&model.name);
    let desired = aifab::dcim::desired(model, catalog, &settings).map_err(|e| e.to_string())?;
    let timeout = Duration::from_secs(c.timeout.max(1));
    let (nb, version) = Nautobot::connect(
        &c.nautobot,
        &token,
        timeout,
        &tag,
        &settings.location,
        &settings.namespace,
    )
    .map_err(|e| e.to_string())?;
    let mut nb = nb.with_batch(usize::from(c.batch_size));
    let dry = check || c.dry_run;
    let opts = diff::Options { adopt: c.adopt };
    let out = store::sync(&mut nb, &desired, opts, dry).map_err(|e| e.to_string())?;
    let (reads, _) = nb.requests();
    let header = report::Header {
        command: if check {
            "check".into()
        } else if dry {
            "sync --dry-run".into()
        } else {
            "sync".into()
        },
        fabric: model.name.clone(),
        server: c.nautobot.clone(),
        version,
        tag,
        applied: out.applied,
        write_requests: out.write_requests,
        read_requests: reads,
    };
    let text = match c.format {
        Format::Text => report::text(&header, &out.changes),
        Format::Markdown => report::markdown(&header, &out.changes),
        Format::Json => report::json(&header, &out.changes),
    };
    super::emit(&text);
    let differs = if check {
        !out.changes.is_empty()
    } else {
        out.changes.held() > 0
    };
    Ok(if differs {
        Exit::Differs
    } else {
        Exit::Success
    })
}
