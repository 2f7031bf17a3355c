//! `aifab twin --state DIR`: every switch's state as a SONiC switch prints it, one folder per switch
//! (`DIR/<hostname>/`), the daemons' own JSON written unchanged: what `aifab verify` reads.

use super::lab::Lab;
use crate::model::Name;
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
        args: &["show ip route json"],
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
pub fn write(dir: &Path, lab: &Lab, names: &[Name]) -> Result<(), String> {
    let texts = read(lab, names)?;
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
fn read(lab: &Lab, names: &[Name]) -> Result<Vec<Vec<String>>, String> {
    (0..names.len())
        .into_par_iter()
        .map(|i| {
            FILES
                .iter()
                .map(|f| {
                    let text = match f.tool {
                        "vtysh" => lab.vtysh(i, f.args[0])?,
                        tool => lab.lldp_tool(i, tool, f.args)?,
                    };
                    serde_json::from_str::<serde_json::Value>(&text)
                        .map_err(|e| format!("{}: {} printed no JSON ({e})", names[i], f.name))?;
                    Ok(text)
                })
                .collect()
        })
        .collect()
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
