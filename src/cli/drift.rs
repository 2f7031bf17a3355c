//! `aifab drift <intent> --running DIR [--write DIR]`: per device, what a push adds, which owned lines
//! of the switch's running-config it removes and which sections it keeps (docs/push.md). `--write`
//! writes the replace files the playbooks push (the rendered config with the kept sections), each
//! with the running-config it was assembled from beside it (`<host>.base.cfg`), so the playbook can
//! refuse a switch that changed since, atomically and with a manifest of the render it came from
//! (`aifab::publish::drift`).
//!
//! SONiC devices are compared table by table with their running config_db (`<host>.json`, `show
//! runningconfiguration all`) in the tables aifab owns; nothing is assembled for them.
//!
//! Exit 0: no device changes; 1: some do; 2: could not run (no running-config for any device, an
//! unreadable or unsafe file, another switch's config_db, a folder it may not write).

use super::{Exit, front_or_exit, only_matcher, only_matches_some};
use aifab::delivery::Drift;
use aifab::delivery::secret::values;
use aifab::platform::Os;
use aifab::publish::drift::Entry;
use aifab::render::OutFile;
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The largest running-config read (a 288-port chassis prints a few hundred KB).
const MAX_RUNNING: u64 = 16 * 1024 * 1024;

/// Arguments of `aifab drift`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Intent file.
    pub intent: String,
    /// Folder of `<host>.cfg` files as `show running-config` prints them (ansible/running.yml
    /// fetches them).
    #[arg(long, value_name = "DIR")]
    pub running: PathBuf,
    /// Write each compared device's replace file (`<host>.cfg`, mode 0600) and the running-config it
    /// keeps sections from (`<host>.base.cfg`) into this folder, which aifab creates (or wrote before).
    #[arg(long, value_name = "DIR")]
    pub write: Option<PathBuf>,
    /// The secret values to compare the switch's keys with: the decrypted vault file (a YAML mapping
    /// of name to value, e.g. `ansible-vault view secrets.vault.yml`), mode 0600; `-` reads stdin.
    /// `AIFAB_ENV(NAME)` secrets are read from the environment.
    #[arg(long, value_name = "FILE")]
    pub secrets: Option<PathBuf>,
    /// Only devices whose hostname matches this glob.
    #[arg(long)]
    pub only: Option<String>,
    /// Print only the per-device summary lines, not the changed and kept lines.
    #[arg(long)]
    pub summary: bool,
    /// No warnings about the intent.
    #[arg(short, long)]
    pub quiet: bool,
    /// Site platforms and templates.
    #[command(flatten)]
    pub site: super::site::SiteArgs,
}

mod device;
mod print;

/// One device compared.
struct Compared {
    host: String,
    os: Os,
    config: String,
    running: String,
    drift: Drift,
}

/// Runs `aifab drift`.
pub(super) fn run(args: Args) -> Exit {
    match compare(&args) {
        Ok(changed) if changed => Exit::Differs,
        Ok(_) => Exit::Success,
        Err(e) => e,
    }
}

/// Compares, prints, writes; `Ok(true)` when some device changes.
fn compare(args: &Args) -> Result<bool, Exit> {
    let only = only_matcher(args.only.as_deref())?;
    let site = super::site::Site::load(args.intent.as_ref(), &args.site)?;
    site.admit(&args.running)?;
    if let Some(w) = &args.write {
        site.admit(w)?;
    }
    let front = front_or_exit(&args.intent, args.quiet, only.as_ref(), site.catalog)?;
    only_matches_some(&front.model, args.only.as_deref(), only.as_ref())?;
    let mut renderer = site.renderer()?;
    if args.write.is_some() {
        renderer = super::site::with_secrets(renderer, &front, &args.intent, &site.env)?;
    }
    let meta = aifab::render::Meta::for_intent_path(&args.intent, &front.model.name);
    let files = renderer
        .fabric(&meta, &front.model, only.as_ref())
        .map_err(|errs| {
            errs.iter().for_each(|e| eprintln!("error: {e}"));
            Exit::Trouble
        })?;
    let vault = match &args.secrets {
        Some(p) => values::read(p).map_err(|e| device::trouble(&format!("--secrets {e}")))?,
        None => BTreeMap::new(),
    };
    let env = device::env_values(files.iter().map(|f| f.content.as_str()), &site.env);
    let mut compared: Vec<Compared> = Vec::new();
    let (mut missing, mut skipped) = (Vec::new(), Vec::new());
    let secrets = device::Secrets { vault, env };
    for d in &front.model.devices {
        if only.as_ref().is_some_and(|g| !g.is_match(&d.hostname)) {
            continue;
        }
        match device::compare(args, site.catalog, d, &files, &secrets)? {
            device::Seen::Skipped => skipped.push(d.hostname.clone()),
            device::Seen::Missing => missing.push(d.hostname.clone()),
            device::Seen::NoFile => {}
            device::Seen::Compared(c) => compared.push(*c),
        }
    }
    print::report(&compared, args.summary);
    print::footer(&compared, &missing, &skipped, &args.running);
    if compared.is_empty() {
        eprintln!(
            "error: no device has a running-config in {} (`<host>.cfg`, SONiC `<host>.json`; fetched by ansible/running.yml)",
            args.running.display()
        );
        return Err(Exit::Trouble);
    }
    let changed = compared.iter().any(|c| !c.drift.unchanged());
    if let Some(dir) = &args.write {
        // SONiC loads the whole rendered file: there is nothing to assemble.
        compared.retain(|c| c.os != Os::Sonic);
        write(dir, &compared, &files)?;
    }
    Ok(changed)
}

/// Writes every compared device's replace file and base into `dir`, atomically, with the manifest
/// of the rendered files they were assembled from (`aifab::publish::drift`).
fn write(dir: &Path, compared: &[Compared], files: &[OutFile]) -> Result<(), Exit> {
    let rendered: HashMap<&str, &str> = files
        .iter()
        .map(|f| (f.path.as_str(), f.content.as_str()))
        .collect();
    let entries: Vec<Entry> = compared
        .iter()
        .filter_map(|c| {
            Some(Entry {
                host: &c.host,
                config: &c.config,
                rendered: rendered.get(c.config.as_str())?,
                assembled: &c.drift.assembled,
                base: &c.running,
            })
        })
        .collect();
    aifab::publish::drift::write(dir, &entries).map_err(|e| device::trouble(&e.to_string()))?;
    eprintln!(
        "wrote {} replace file(s) to {} (mode 0600: they hold the switch's own secrets)",
        entries.len(),
        dir.display()
    );
    Ok(())
}
