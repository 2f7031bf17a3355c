//! `aifab drift <intent> --running DIR [--write DIR]`: per device, what a push adds, which owned lines
//! of the switch's running-config it removes and which sections it keeps (docs/push.md). `--write`
//! writes the replace files the playbooks push (the rendered config with the kept sections), each
//! with the running-config it was assembled from beside it (`<host>.base.cfg`), so the playbook can
//! refuse a switch that changed since, atomically and with a manifest of the render it came from
//! (`drift_write.rs`).
//!
//! SONiC devices are compared table by table with their running config_db (`<host>.json`, `show
//! runningconfiguration all`) in the tables aifab owns; nothing is assembled for them.
//!
//! Exit 0: no device changes; 1: some do; 2: could not run (no running-config for any device, an
//! unreadable or unsafe file, another switch's config_db, a folder it may not write).

use super::drift_write::Entry;
use super::{Exit, front_or_exit, only_matcher, only_matches_some};
use aifab::delivery::secret::{Known, engine, type7::Cipher, values};
use aifab::delivery::{Drift, Mark, Ownership, config_db, drift_with, mask::mask};
use aifab::platform::{Catalog, Os};
use aifab::render::OutFile;
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The largest running-config read (a 288-port chassis prints a few hundred KB).
const MAX_RUNNING: u64 = 16 * 1024 * 1024;

/// Arguments of `aifab drift`.
#[derive(clap::Args, Debug)]
pub struct Args {
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

/// One device compared.
struct Compared {
    host: String,
    os: Os,
    config: String,
    running: String,
    drift: Drift,
}

/// Runs `aifab drift`.
pub fn run(args: Args) -> Exit {
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
        renderer = super::render::with_secrets(renderer, &front, &args.intent, &site.env)?;
    }
    let meta = aifab::render::Meta::for_intent_path(&args.intent, &front.model.name);
    let files = renderer
        .fabric(&meta, &front.model, only.as_ref())
        .map_err(|errs| {
            errs.iter().for_each(|e| eprintln!("error: {e}"));
            Exit::Trouble
        })?;
    let vault = match &args.secrets {
        Some(p) => values::read(p).map_err(|e| trouble(&format!("--secrets {e}")))?,
        None => BTreeMap::new(),
    };
    let env = env_values(files.iter().map(|f| f.content.as_str()), &site.env);
    let mut compared: Vec<Compared> = Vec::new();
    let (mut missing, mut skipped) = (Vec::new(), Vec::new());
    for d in &front.model.devices {
        if only.as_ref().is_some_and(|g| !g.is_match(&d.hostname)) {
            continue;
        }
        let Some((os, config)) = config_of(site.catalog, &d.platform, &d.hostname) else {
            skipped.push(d.hostname.clone());
            continue;
        };
        let Some(rendered) = files.iter().find(|f| f.path == config) else {
            continue;
        };
        let ext = if os == Os::Sonic { "json" } else { "cfg" };
        let Some(running) = read_running(&args.running, &d.hostname, ext)? else {
            missing.push(d.hostname.clone());
            continue;
        };
        let running = if os == Os::Sonic {
            running
        } else {
            aifab::delivery::running::check(&running, &rendered.content, &d.hostname)
                .map(std::borrow::Cow::into_owned)
                .map_err(|why| {
                    trouble(&format!(
                        "{}: {why}",
                        args.running.join(format!("{}.cfg", d.hostname)).display()
                    ))
                })?
        };
        let drift = if os == Os::Sonic {
            let own = &site.catalog.owned_tables[&os];
            config_db::drift(&rendered.content, &running, own).map_err(|e| {
                trouble(&format!(
                    "{}: {e}",
                    args.running.join(format!("{}.json", d.hostname)).display()
                ))
            })?
        } else {
            let ports = site
                .catalog
                .get(&d.platform)
                .map(|p| p.1.port_names())
                .unwrap_or_default();
            let own = Ownership {
                sections: &site.catalog.owned[&os],
                ports: &ports,
            };
            let known = Known {
                cipher: if os == Os::Nxos {
                    Cipher::Nxos
                } else {
                    Cipher::Ios
                },
                vault: vault.clone(),
                env: env.clone(),
                engine: read_engine(&args.running, &d.hostname),
            };
            drift_with(&rendered.content, &running, own, &known)
        };
        compared.push(Compared {
            host: d.hostname.clone(),
            os,
            config,
            running,
            drift,
        });
    }
    report(&compared, args.summary);
    footer(&compared, &missing, &skipped, &args.running);
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

/// The OS of a device and the path of its config file, for an OS whose sections (NX-OS, EOS) or
/// CONFIG_DB tables (SONiC) aifab owns; `None` for one `aifab drift` does not compare.
fn config_of(catalog: &Catalog, platform: &str, host: &str) -> Option<(Os, String)> {
    let os = catalog.get(platform)?.0;
    let sections = catalog.owned.get(&os).is_some_and(|o| !o.is_empty());
    let tables = catalog.owned_tables.get(&os).is_some_and(|o| !o.is_empty());
    if !sections && !tables {
        return None;
    }
    let spec = catalog.outputs.get(&os)?.first()?;
    Some((os, spec.file.replace("{hostname}", host)))
}

/// The environment's value of every `AIFAB_ENV(NAME)` the rendered texts name, the project allows
/// (`policy`: another name is never read) and the environment sets.
fn env_values<'a>(
    texts: impl Iterator<Item = &'a str>,
    policy: &aifab::render::secrets::EnvPolicy,
) -> BTreeMap<String, String> {
    let token = aifab::model::baseline::ENV_TOKEN;
    let mut out = BTreeMap::new();
    for text in texts {
        for part in text.split(token).skip(1) {
            let Some((name, _)) = part.split_once(')') else {
                continue;
            };
            if !policy.admits(name) {
                continue;
            }
            if let Ok(v) = std::env::var(name) {
                out.insert(name.to_string(), v);
            }
        }
    }
    out
}

/// The switch's SNMP engine ID from `<dir>/<host>.engineid` (`show snmp engineID`, fetched by
/// ansible/running.yml); `None` without a readable regular file that gives one.
fn read_engine(dir: &Path, host: &str) -> Option<Vec<u8>> {
    let path = dir.join(format!("{host}.engineid"));
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if !meta.file_type().is_file() || meta.len() > 64 * 1024 {
        return None;
    }
    engine::parse(&std::fs::read_to_string(&path).ok()?)
}

/// `<dir>/<host>.<ext>` (`cfg`, SONiC's `json`), if there is one: a regular file (a link is
/// refused), at most [`MAX_RUNNING`] bytes of text without control characters other than tab.
fn read_running(dir: &Path, host: &str, ext: &str) -> Result<Option<String>, Exit> {
    let path = dir.join(format!("{host}.{ext}"));
    let meta = match std::fs::symlink_metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(trouble(&format!("{}: {e}", path.display()))),
    };
    if !meta.file_type().is_file() {
        return Err(trouble(&format!(
            "{}: not a regular file (a link or folder is not followed); give the `show running-config` text itself",
            path.display()
        )));
    }
    if meta.len() > MAX_RUNNING {
        return Err(trouble(&format!(
            "{}: larger than {MAX_RUNNING} bytes, not a running-config",
            path.display()
        )));
    }
    let text =
        std::fs::read_to_string(&path).map_err(|e| trouble(&format!("{}: {e}", path.display())))?;
    if let Some((n, _)) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.chars().any(|c| c.is_control() && c != '\t' && c != '\r'))
    {
        return Err(trouble(&format!(
            "{}:{}: a control character: this is not `show running-config` text, and a kept line must not carry one into the replace file",
            path.display(),
            n + 1
        )));
    }
    Ok(Some(text))
}

fn trouble(msg: &str) -> Exit {
    eprintln!("error: {msg}");
    Exit::Trouble
}

/// Per device: a summary line, then (unless `summary`) the changed lines and the kept sections, every
/// secret value masked.
fn report(compared: &[Compared], summary: bool) {
    let mut out = String::new();
    for c in compared {
        let d = &c.drift;
        let kept_lines: usize = d.kept.iter().map(|s| s.lines.len()).sum();
        let _ = write!(
            out,
            "{} ({}): {} line(s) added, {} owned line(s) removed, {} section(s) kept ({kept_lines} lines)",
            c.host,
            c.os,
            d.added,
            d.removed,
            d.kept.len()
        );
        let _ = match d.unverified {
            0 => writeln!(out),
            n => writeln!(out, ", {n} secret value(s) not compared"),
        };
        if summary {
            continue;
        }
        for (mark, line) in &d.lines {
            let sign = match mark {
                Mark::Context => ' ',
                Mark::Added => '+',
                Mark::Removed => '-',
            };
            let _ = writeln!(out, "  {sign} {}", mask(line));
        }
        for s in &d.kept {
            let more = s.lines.len() - 1;
            let tail = if more > 0 {
                format!(" (+{more} lines)")
            } else {
                String::new()
            };
            let _ = writeln!(out, "  = {}{tail}", mask(&s.lines[0]));
        }
    }
    super::emit(&out);
}

/// The totals, and the devices not compared, on stderr.
fn footer(compared: &[Compared], missing: &[String], skipped: &[String], dir: &Path) {
    let changed = compared.iter().filter(|c| !c.drift.unchanged()).count();
    eprintln!(
        "{} device(s) compared: {changed} change, {} unchanged",
        compared.len(),
        compared.len() - changed
    );
    let some = |v: &[String]| {
        let mut s = v.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
        if v.len() > 5 {
            let _ = write!(s, " and {} more", v.len() - 5);
        }
        s
    };
    let unverified: usize = compared.iter().map(|c| c.drift.unverified).sum();
    if unverified > 0 {
        eprintln!(
            "note: {unverified} secret value(s) not compared (give --secrets FILE / set the env variables, and fetch <host>.engineid for SNMPv3 keys)"
        );
    }
    if !missing.is_empty() {
        eprintln!(
            "warning: no running-config in {} for {} device(s), not compared: {}",
            dir.display(),
            missing.len(),
            some(missing)
        );
    }
    if !skipped.is_empty() {
        eprintln!(
            "note: {} device(s) of an OS whose sections or tables aifab does not own, not compared: {}",
            skipped.len(),
            some(skipped)
        );
    }
}

/// Writes every compared device's replace file and base into `dir`, atomically, with the manifest
/// of the rendered files they were assembled from (`super::drift_write`).
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
    super::drift_write::write(dir, &entries).map_err(|e| trouble(&e))?;
    eprintln!(
        "wrote {} replace file(s) to {} (mode 0600: they hold the switch's own secrets)",
        entries.len(),
        dir.display()
    );
    Ok(())
}
