//! One device of `aifab drift`: its running-config read and compared with its rendered config.

use super::super::Exit;
use super::{Args, Compared, MAX_RUNNING};
use aifab::delivery::secret::{Known, engine, type7::Cipher};
use aifab::delivery::{Ownership, config_db, drift_with};
use aifab::model::Device;
use aifab::platform::{Catalog, Os};
use aifab::render::OutFile;
use std::collections::BTreeMap;
use std::path::Path;

/// The secret values the switches' keys are compared with: the vault's and the environment's.
pub(super) struct Secrets {
    /// `--secrets`.
    pub vault: BTreeMap<String, String>,
    /// The `AIFAB_ENV(NAME)` values.
    pub env: BTreeMap<String, String>,
}

/// What became of one device.
pub(super) enum Seen {
    /// An OS whose sections or tables aifab does not own.
    Skipped,
    /// No rendered config.
    NoFile,
    /// No running-config in the folder.
    Missing,
    /// Compared.
    Compared(Box<Compared>),
}

/// Compares device `d`'s rendered config (among `files`) with its running-config in `--running`.
pub(super) fn compare(
    args: &Args,
    catalog: &Catalog,
    d: &Device,
    files: &[OutFile],
    secrets: &Secrets,
) -> Result<Seen, Exit> {
    let Some((os, config)) = config_of(catalog, &d.platform, &d.hostname) else {
        return Ok(Seen::Skipped);
    };
    let Some(rendered) = files.iter().find(|f| f.path == config) else {
        return Ok(Seen::NoFile);
    };
    let ext = if os == Os::Sonic { "json" } else { "cfg" };
    let Some(running) = read_running(&args.running, &d.hostname, ext)? else {
        return Ok(Seen::Missing);
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
        let own = &catalog.owned_tables[&os];
        config_db::drift(&rendered.content, &running, own).map_err(|e| {
            trouble(&format!(
                "{}: {e}",
                args.running.join(format!("{}.json", d.hostname)).display()
            ))
        })?
    } else {
        let ports = catalog
            .get(&d.platform)
            .map(|p| p.1.port_names())
            .unwrap_or_default();
        let own = Ownership {
            sections: &catalog.owned[&os],
            ports: &ports,
        };
        let known = Known {
            cipher: if os == Os::Nxos {
                Cipher::Nxos
            } else {
                Cipher::Ios
            },
            vault: secrets.vault.clone(),
            env: secrets.env.clone(),
            engine: read_engine(&args.running, &d.hostname),
        };
        drift_with(&rendered.content, &running, own, &known)
    };
    Ok(Seen::Compared(Box::new(Compared {
        host: d.hostname.clone(),
        os,
        config,
        running,
        drift,
    })))
}

/// The OS of a device and the path of its config file, for an OS whose sections (NX-OS, EOS) or
/// CONFIG_DB tables (SONiC) aifab owns; `None` for one `aifab drift` does not compare.
pub(super) fn config_of(catalog: &Catalog, platform: &str, host: &str) -> Option<(Os, String)> {
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
pub(super) fn env_values<'a>(
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

pub(super) fn trouble(msg: &str) -> Exit {
    eprintln!("error: {msg}");
    Exit::Trouble
}
