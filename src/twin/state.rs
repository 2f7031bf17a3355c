//! `aifab twin --state DIR`: every switch's state as a SONiC switch prints it, one folder per switch
//! (`DIR/<hostname>/`), the daemons' own JSON: what `aifab verify` reads. Two things differ from the raw
//! output, both to give what the switch itself would print: `lldpctl.json` names each local port by
//! its OS name (`Ethernet1/5`; the lab's veths are `swp<N>`, as a Linux name cannot hold `/`), and
//! `frr-ip-route.json` is the list of `show ip route <prefix> json` for each of the fabric's sampled
//! prefixes ([`crate::model::FabricModel::route_samples`]), as `ansible/collect.yml` collects it.

use super::lab::Lab;
use crate::model::{Device, FabricModel, Name};
use rayon::prelude::*;
use std::io::Write as _;
use std::path::Path;

/// A state file: its name in `DIR/<hostname>/` and what prints it (the arguments after the tool).
pub struct StateFile {
    /// File name.
    pub name: &'static str,
    /// The tool: `lldpctl`, `lldpcli` (both against the switch's lldpd) or `vtysh`.
    pub tool: &'static str,
    /// Its arguments.
    pub args: &'static [&'static str],
}

/// The files of each switch's folder, in the order they are read.
pub const FILES: [StateFile; 4] = [
    StateFile {
        name: "lldpctl.json",
        tool: "lldpctl",
        args: &["-f", "json"],
    },
    StateFile {
        name: "lldpcli-chassis.json",
        tool: "lldpcli",
        args: &["show", "chassis", "-f", "json"],
    },
    StateFile {
        name: "frr-bgp-summary.json",
        tool: "vtysh",
        args: &["show bgp summary json"],
    },
    StateFile {
        name: "frr-ip-route.json",
        tool: "vtysh",
        args: &["show ip route {prefix} json"],
    },
];

/// Refuses a state folder that cannot be used: a link, something that is not a folder, or a folder
/// that is not empty (whatever is in it is the user's). A folder that does not exist is fine.
pub fn check(dir: &Path) -> Result<(), String> {
    let Ok(meta) = std::fs::symlink_metadata(dir) else {
        return Ok(());
    };
    let at = dir.display();
    if meta.file_type().is_symlink() {
        return Err(format!("--state {at}: a link; name a new or empty folder"));
    }
    if !meta.is_dir() {
        return Err(format!(
            "--state {at}: not a folder; name a new or empty folder"
        ));
    }
    let mut entries = std::fs::read_dir(dir).map_err(|e| format!("--state {at}: {e}"))?;
    if entries.next().is_some() {
        return Err(format!(
            "--state {at}: the folder is not empty; name a new or empty folder (aifab writes into none that holds files)"
        ));
    }
    Ok(())
}

/// Reads every switch's state from the lab and writes it under `dir` (checked again, then created):
/// each file written to a temporary name, synced, renamed, and each folder synced.
pub fn write(dir: &Path, lab: &Lab, model: &FabricModel) -> Result<(), String> {
    let names: Vec<Name> = model
        .devices
        .iter()
        .map(|d| Name::from(d.hostname.as_str()))
        .collect();
    let names = names.as_slice();
    let texts = read(lab, model)?;
    check(dir)?;
    std::fs::create_dir_all(dir).map_err(|e| format!("--state {}: {e}", dir.display()))?;
    for (name, files) in names.iter().zip(&texts) {
        if name.is_empty() || name.contains(['/', '\0']) || &**name == "." || &**name == ".." {
            return Err(format!("{name:?}: not a usable folder name"));
        }
        let sub = dir.join(&**name);
        std::fs::create_dir(&sub).map_err(|e| format!("{}: {e}", sub.display()))?;
        for (f, text) in FILES.iter().zip(files) {
            write_atomic(&sub, f.name, text)?;
        }
        sync_dir(&sub)?;
    }
    sync_dir(dir)
}

/// Every switch's files, checked to be JSON (a daemon's error text would mislead a reader).
fn read(lab: &Lab, model: &FabricModel) -> Result<Vec<Vec<String>>, String> {
    let samples: Vec<String> = model
        .route_samples()
        .iter()
        .map(|(_, ip)| format!("{ip}/32"))
        .collect();
    (0..model.devices.len())
        .into_par_iter()
        .map(|i| {
            let d = &model.devices[i];
            FILES
                .iter()
                .map(|f| {
                    let text = match (f.tool, f.args[0].contains("{prefix}")) {
                        ("vtysh", true) => per_prefix(lab, i, f.args[0], &samples)?,
                        ("vtysh", false) => lab.vtysh(i, f.args[0])?,
                        (tool, _) => lab.lldp_tool(i, tool, f.args)?,
                    };
                    let v = serde_json::from_str::<serde_json::Value>(&text)
                        .map_err(|e| format!("{}: {} printed no JSON ({e})", d.hostname, f.name))?;
                    Ok(if f.name == "lldpctl.json" {
                        os_port_names(v, d).to_string()
                    } else {
                        text
                    })
                })
                .collect()
        })
        .collect()
}

/// `command` once per prefix, the outputs as one JSON list.
fn per_prefix(lab: &Lab, i: usize, command: &str, prefixes: &[String]) -> Result<String, String> {
    let mut items = Vec::with_capacity(prefixes.len());
    for p in prefixes {
        items.push(
            lab.vtysh(i, &command.replace("{prefix}", p))?
                .trim()
                .to_string(),
        );
    }
    Ok(format!("[{}]", items.join(",")))
}

/// lldpd's JSON with each local port keyed by the switch's own name for it (`swp<N>` is port N of the
/// model; [`crate::os::frr::port_name`]).
fn os_port_names(mut v: serde_json::Value, d: &Device) -> serde_json::Value {
    let rename = |key: &str| {
        d.interfaces
            .iter()
            .find(|p| crate::os::frr::port_name(p.port) == key)
            .map(|p| p.name.to_string())
    };
    let fix = |m: &mut serde_json::Map<String, serde_json::Value>| {
        let old = std::mem::take(m);
        for (k, val) in old {
            m.insert(rename(&k).unwrap_or(k), val);
        }
    };
    match v.pointer_mut("/lldp/interface") {
        Some(serde_json::Value::Object(m)) => fix(m),
        Some(serde_json::Value::Array(items)) => {
            for it in items.iter_mut() {
                if let Some(m) = it.as_object_mut() {
                    fix(m);
                }
            }
        }
        _ => {}
    }
    v
}

/// Writes `text` to `dir/name` whole or not at all: a temporary file beside it, synced, renamed.
fn write_atomic(dir: &Path, name: &str, text: &str) -> Result<(), String> {
    let tmp = dir.join(format!(".{name}.tmp"));
    let path = dir.join(name);
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let mut f = std::fs::File::create(&tmp).map_err(err)?;
    f.write_all(text.as_bytes()).map_err(err)?;
    f.sync_all().map_err(err)?;
    drop(f);
    std::fs::rename(&tmp, &path).map_err(err)
}

/// Syncs folder `dir`, so the names written in it last.
fn sync_dir(dir: &Path) -> Result<(), String> {
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| format!("{}: {e}", dir.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_folder_must_be_new_or_empty_and_no_link() {
        let base = std::env::temp_dir().join(format!("aifab-state-check-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&base).expect("mkdir");
        assert!(check(&base.join("new")).is_ok());
        assert!(check(&base).is_ok(), "empty");
        std::fs::write(base.join("x"), "").expect("write");
        assert!(check(&base).is_err(), "not empty");
        assert!(check(&base.join("x")).is_err(), "a file");
        let link = base.join("link");
        std::os::unix::fs::symlink(std::env::temp_dir(), &link).expect("symlink");
        assert!(check(&link).unwrap_err().contains("a link"));
        let _ = std::fs::remove_dir_all(&base);
    }
}
