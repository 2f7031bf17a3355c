//! `aifab twin --state DIR`: every switch's state as a SONiC switch prints it, one folder per switch
//! (`DIR/<hostname>/`), the daemons' own JSON: what `aifab verify` reads. Two things differ from the raw
//! output, both to give what the switch itself would print: `lldpctl.json` names each local port by
//! its OS name (`Ethernet1/5`; the lab's veths are `swp<N>`, as a Linux name cannot hold `/`), and
//! `frr-ip-route.json` is the list of `show ip route <prefix> json` for each of the fabric's sampled
//! prefixes ([`crate::model::FabricModel::route_samples`]), as `ansible/collect.yml` collects it.

use super::lab::{Lab, LabError};
use crate::model::{Device, FabricModel, Name};
use rayon::prelude::*;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Why the state could not be written: the `--state` folder (named as the user gave it), a file in
/// it, or a switch whose daemon printed no JSON.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The folder is a link.
    #[error("--state {}: a link; name a new or empty folder", dir.display())]
    Link {
        /// The folder.
        dir: PathBuf,
    },
    /// Not a folder.
    #[error("--state {}: not a folder; name a new or empty folder", dir.display())]
    NotAFolder {
        /// The path.
        dir: PathBuf,
    },
    /// The folder holds something.
    #[error(
        "--state {}: the folder is not empty; name a new or empty folder (aifab writes into none that holds files)",
        dir.display()
    )]
    NotEmpty {
        /// The folder.
        dir: PathBuf,
    },
    /// The folder could not be read or created.
    #[error("--state {}: {error}", dir.display())]
    Folder {
        /// The folder.
        dir: PathBuf,
        /// Why.
        #[source]
        error: std::io::Error,
    },
    /// A hostname that cannot name a folder.
    #[error("{name:?}: not a usable folder name")]
    BadName {
        /// The hostname.
        name: Name,
    },
    /// A file or folder inside could not be written.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        #[source]
        error: std::io::Error,
    },
    /// A switch's daemon printed no JSON for a state file.
    #[error("{device}: {file} printed no JSON ({error})")]
    NotJson {
        /// The switch.
        device: String,
        /// The state file.
        file: &'static str,
        /// Why.
        #[source]
        error: serde_json::Error,
    },
    /// A lab command failed.
    #[error(transparent)]
    Lab(#[from] LabError),
}

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
pub fn check(dir: &Path) -> Result<(), StateError> {
    let Ok(meta) = std::fs::symlink_metadata(dir) else {
        return Ok(());
    };
    let dir = dir.to_path_buf();
    if meta.file_type().is_symlink() {
        return Err(StateError::Link { dir });
    }
    if !meta.is_dir() {
        return Err(StateError::NotAFolder { dir });
    }
    let mut entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(error) => return Err(StateError::Folder { dir, error }),
    };
    if entries.next().is_some() {
        return Err(StateError::NotEmpty { dir });
    }
    Ok(())
}

/// Reads every switch's state from the lab and writes it under `dir` (checked again, then created):
/// each file written to a temporary name, synced, renamed, and each folder synced.
pub fn write(dir: &Path, lab: &Lab, model: &FabricModel) -> Result<(), StateError> {
    let names: Vec<Name> = model
        .devices
        .iter()
        .map(|d| Name::from(d.hostname.as_str()))
        .collect();
    let names = names.as_slice();
    let texts = read(lab, model)?;
    check(dir)?;
    std::fs::create_dir_all(dir).map_err(|error| StateError::Folder {
        dir: dir.to_path_buf(),
        error,
    })?;
    for (name, files) in names.iter().zip(&texts) {
        if name.is_empty() || name.contains(['/', '\0']) || &**name == "." || &**name == ".." {
            return Err(StateError::BadName { name: name.clone() });
        }
        let sub = dir.join(&**name);
        std::fs::create_dir(&sub).map_err(io(&sub))?;
        for (f, text) in FILES.iter().zip(files) {
            write_atomic(&sub, f.name, text)?;
        }
        sync_dir(&sub)?;
    }
    sync_dir(dir)
}

/// Every switch's files, checked to be JSON (a daemon's error text would mislead a reader).
fn read(lab: &Lab, model: &FabricModel) -> Result<Vec<Vec<String>>, StateError> {
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
                    let v = serde_json::from_str::<serde_json::Value>(&text).map_err(|error| {
                        StateError::NotJson {
                            device: d.hostname.clone(),
                            file: f.name,
                            error,
                        }
                    })?;
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
fn per_prefix(lab: &Lab, i: usize, command: &str, prefixes: &[String]) -> Result<String, LabError> {
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
fn write_atomic(dir: &Path, name: &str, text: &str) -> Result<(), StateError> {
    let tmp = dir.join(format!(".{name}.tmp"));
    let path = dir.join(name);
    let mut f = std::fs::File::create(&tmp).map_err(io(&path))?;
    f.write_all(text.as_bytes()).map_err(io(&path))?;
    f.sync_all().map_err(io(&path))?;
    drop(f);
    std::fs::rename(&tmp, &path).map_err(io(&path))
}

/// Syncs folder `dir`, so the names written in it last.
fn sync_dir(dir: &Path) -> Result<(), StateError> {
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io(dir))
}

/// The error for an I/O failure on `path`.
fn io(path: &Path) -> impl Fn(std::io::Error) -> StateError + '_ {
    move |error| StateError::Io {
        path: path.to_path_buf(),
        error,
    }
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
        assert!(check(&link).unwrap_err().to_string().contains("a link"));
        let _ = std::fs::remove_dir_all(&base);
    }
}
