//! `aifab drift <intent> --running DIR [--write DIR]`: per device, what a push adds, which owned lines
//! of the switch's running-config it removes and which sections it keeps (docs/push.md). `--write`
//! writes the replace files the playbooks push (the rendered config with the kept sections), each
//! with the running-config it was assembled from beside it (`<host>.base.cfg`), so the playbook can
//! refuse a switch that changed since.
//!
//! SONiC devices are compared table by table with their running config_db (`<host>.json`, `show
//! runningconfiguration all`) in the tables aifab owns; nothing is assembled for them.
//!
//! Exit 0: no device changes; 1: some do; 2: could not run (no running-config for any device, an
//! unreadable or unsafe file, another switch's config_db, a folder it may not write).

use super::{Exit, front_or_exit, only_matcher, only_matches_some};
use aifab::delivery::{Drift, Mark, Ownership, config_db, drift, mask::mask};
use aifab::platform::{Catalog, Os};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The largest running-config read (a 288-port chassis prints a few hundred KB).
const MAX_RUNNING: u64 = 16 * 1024 * 1024;

/// The file in a `--write` folder that says aifab made it (a folder without it is not written into).
const MARKER: &str = ".aifab-drift";

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
    let front = front_or_exit(&args.intent, args.quiet, only.as_ref(), site.catalog)?;
    only_matches_some(&front.model, args.only.as_deref(), only.as_ref())?;
    let mut renderer = site.renderer()?;
    if args.write.is_some() {
        renderer = super::render::with_secrets(renderer, &front, &args.intent)?;
    }
    let meta = aifab::render::Meta::for_intent_path(&args.intent, &front.model.name);
    let files = renderer
        .fabric(&meta, &front.model, only.as_ref())
        .map_err(|errs| {
            errs.iter().for_each(|e| eprintln!("error: {e}"));
            Exit::Trouble
        })?;
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
            drift(&rendered.content, &running, own)
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
        write(dir, &compared)?;
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
        let _ = writeln!(
            out,
            "{} ({}): {} line(s) added, {} owned line(s) removed, {} section(s) kept ({kept_lines} lines)",
            c.host,
            c.os,
            d.added,
            d.removed,
            d.kept.len()
        );
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

/// Writes every compared device's replace file and base into `dir` (created 0700 with the marker, or
/// one aifab made before), each file 0600 through a temporary file and a rename.
fn write(dir: &Path, compared: &[Compared]) -> Result<(), Exit> {
    prepare_dir(dir)?;
    for c in compared {
        put(&dir.join(&c.config), &c.drift.assembled)?;
        let base = c.config.strip_suffix(".cfg").unwrap_or(&c.config);
        put(&dir.join(format!("{base}.base.cfg")), &c.running)?;
    }
    eprintln!(
        "wrote {} replace file(s) to {} (mode 0600: they hold the switch's own secrets)",
        compared.len(),
        dir.display()
    );
    Ok(())
}

/// Creates `dir` (mode 0700) with the marker, or accepts a folder that has the marker; refuses a
/// link and a folder aifab did not make.
fn prepare_dir(dir: &Path) -> Result<(), Exit> {
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.file_type().is_dir() => {
            if std::fs::symlink_metadata(dir.join(MARKER)).is_ok_and(|m| m.is_file()) {
                return Ok(());
            }
            Err(trouble(&format!(
                "{}: a folder `aifab drift --write` did not make (no {MARKER}); give a new folder, nothing written",
                dir.display()
            )))
        }
        Ok(_) => Err(trouble(&format!(
            "{}: not a folder (a link is not followed); nothing written",
            dir.display()
        ))),
        Err(_) => {
            let mut b = std::fs::DirBuilder::new();
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
            b.create(dir)
                .and_then(|()| std::fs::write(dir.join(MARKER), "written by aifab drift --write\n"))
                .map_err(|e| trouble(&format!("{}: {e}; nothing written", dir.display())))
        }
    }
}

/// Writes `text` to `path` (mode 0600) through a temporary file beside it; a link at `path` is
/// replaced, never followed.
fn put(path: &Path, text: &str) -> Result<(), Exit> {
    use std::io::Write;
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    let done = o
        .open(&tmp)
        .and_then(|mut f| f.write_all(text.as_bytes()).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::rename(&tmp, path));
    done.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        trouble(&format!("{}: {e}", path.display()))
    })
}
