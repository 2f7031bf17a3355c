//! `aifab drift --write DIR`: the replace files, written as one folder that changes in one step, with
//! the manifest the playbooks check before they push (docs/push.md).
//!
//! The journal discipline of `aifab render --out` (src/write/): every file is written into a folder
//! beside `DIR` (`.NAME.aifab-drift-tmp-PID`, 0700), the manifest last, then that folder is swapped
//! with `DIR` in one step (Linux `renameat2(RENAME_EXCHANGE)`, elsewhere two renames) and the
//! previous folder removed. A process killed at any point leaves `DIR` either as it was or complete
//! and new; what a killed run left beside it is removed by the next one.
//!
//! The manifest, `DIR/.aifab-drift` (JSON), names per device the file and SHA-256 of the rendered
//! config the replace file was assembled from (its path in the `aifab render --out` folder, its bytes
//! as written there: vault secrets as placeholders), of the replace file and of the running-config it
//! kept sections from:
//!
//! ```text
//! {"written_by": "aifab drift --write 0.1.0",
//!  "hosts": {"leaf1": {"rendered": {"file": "leaf1.cfg", "sha256": "..."},
//!                      "assembled": {"file": "leaf1.cfg", "sha256": "..."},
//!                      "base": {"file": "leaf1.base.cfg", "sha256": "..."}}}}
//! ```
//! `ansible/tasks/assembled.yml`
//! refuses a device whose rendered file in the pushed folder, or whose files here, hash otherwise.

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Why `aifab drift --write` wrote nothing (the folder named; its `Display` is the message).
#[derive(Debug, thiserror::Error)]
pub enum DriftError {
    /// The folder holds files this command did not write.
    #[error(
        "{}: holds what `aifab drift --write` did not write ({}): move it out, or give a new folder; nothing written",
        dir.display(),
        foreign.join(", ")
    )]
    Foreign {
        /// The folder.
        dir: PathBuf,
        /// The entries it did not write.
        foreign: Vec<String>,
    },
    /// The folder was not made by this command.
    #[error(
        "{}: a folder `aifab drift --write` did not make (no {MANIFEST}); give a new folder, nothing written",
        dir.display()
    )]
    NotOurs {
        /// The folder.
        dir: PathBuf,
    },
    /// Not a folder (a link is not followed).
    #[error("{}: not a folder (a link is not followed); nothing written", dir.display())]
    NotAFolder {
        /// The path.
        dir: PathBuf,
    },
    /// The folder could not be looked at.
    #[error("{}: {error}; nothing written", dir.display())]
    Unreadable {
        /// The folder.
        dir: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The path names no folder.
    #[error("{}: not a folder name", dir.display())]
    NoName {
        /// The path.
        dir: PathBuf,
    },
    /// A file or folder could not be read or written.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// A device's file path is not a relative path.
    #[error(transparent)]
    Path(#[from] crate::write::PathError),
    /// The manifest could not be printed.
    #[error("{0}")]
    Manifest(#[from] serde_json::Error),
    /// Filling the new folder failed; the folder is unchanged.
    #[error("{error}; nothing written, {} unchanged", dir.display())]
    Staging {
        /// The folder.
        dir: PathBuf,
        /// Why.
        error: Box<DriftError>,
    },
    /// Swapping the new folder in failed; the folder is unchanged.
    #[error("{error}; {} unchanged", dir.display())]
    Swap {
        /// The folder.
        dir: PathBuf,
        /// Why.
        error: crate::write::SwapError,
    },
}

/// A [`DriftError::Io`] of `path`.
fn io(path: &Path) -> impl FnOnce(std::io::Error) -> DriftError + '_ {
    move |error| DriftError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// The manifest (and marker) of a folder `aifab drift --write` made.
pub const MANIFEST: &str = ".aifab-drift";

/// Test hook: `AIFAB_TEST_KILL_AT=drift-fill` kills the process (SIGKILL) after the first file of
/// the new folder is written, `drift-staged` after the manifest, before the swap.
const KILL_AT_ENV: &str = "AIFAB_TEST_KILL_AT";

/// One device's files.
pub struct Entry<'a> {
    /// Hostname.
    pub host: &'a str,
    /// The config's path in the rendered folder (`<host>.cfg`), also its path here.
    pub config: &'a str,
    /// The rendered config, as `aifab render --out` writes it.
    pub rendered: &'a str,
    /// The replace file.
    pub assembled: &'a str,
    /// The running-config it kept sections from.
    pub base: &'a str,
}

/// Writes `entries` as the whole content of `dir` (with the manifest), atomically. `dir` is created
/// or must be a folder this command made (it has [`MANIFEST`]); a link is refused. On an error `dir`
/// is as it was.
pub fn write(dir: &Path, entries: &[Entry]) -> Result<(), DriftError> {
    let exists = check_target(dir)?;
    let (parent, name) = parent_and_name(dir)?;
    remove_stale(&parent, &name);
    let tmp = parent.join(format!(".{name}.aifab-drift-tmp-{}", std::process::id()));
    let aside = parent.join(format!(".{name}.aifab-drift-old-{}", std::process::id()));
    let staged = stage(&tmp, entries);
    if let Err(e) = staged {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(DriftError::Staging {
            dir: dir.to_path_buf(),
            error: Box::new(e),
        });
    }
    kill_at("drift-staged");
    match crate::write::swap_folders(&tmp, dir, &aside, exists) {
        Ok(old) => {
            if let Some(old) = old {
                let _ = std::fs::remove_dir_all(old);
            }
            sync_dir(&parent);
            Ok(())
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            Err(DriftError::Swap {
                dir: dir.to_path_buf(),
                error: e,
            })
        }
    }
}

/// Whether `dir` exists (then it is a folder with [`MANIFEST`]); an error for a link, a file or a
/// folder this command did not make.
fn check_target(dir: &Path) -> Result<bool, DriftError> {
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.file_type().is_dir() => {
            if std::fs::symlink_metadata(dir.join(MANIFEST)).is_ok_and(|m| m.is_file()) {
                // The swap removes the previous folder whole: only when all of it is aifab's.
                let foreign = foreign_files(dir)?;
                if foreign.is_empty() {
                    return Ok(true);
                }
                Err(DriftError::Foreign {
                    dir: dir.to_path_buf(),
                    foreign,
                })
            } else {
                Err(DriftError::NotOurs {
                    dir: dir.to_path_buf(),
                })
            }
        }
        Ok(_) => Err(DriftError::NotAFolder {
            dir: dir.to_path_buf(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(error) => Err(DriftError::Unreadable {
            dir: dir.to_path_buf(),
            error,
        }),
    }
}

/// The entries of `dir` its manifest does not name (the manifest itself aside), sorted.
fn foreign_files(dir: &Path) -> Result<Vec<String>, DriftError> {
    let manifest = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&manifest).map_err(io(&manifest))?;
    let manifest: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let mut ours: Vec<&str> = vec![MANIFEST];
    for files in manifest["hosts"]
        .as_object()
        .into_iter()
        .flat_map(|h| h.values())
    {
        for kind in ["assembled", "base"] {
            ours.extend(files[kind]["file"].as_str());
        }
    }
    let entries = std::fs::read_dir(dir).map_err(io(dir))?;
    let mut foreign: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !ours.contains(&n.as_str()))
        .collect();
    foreign.sort();
    Ok(foreign)
}

/// The folder `dir` is in (created when missing) and its name.
fn parent_and_name(dir: &Path) -> Result<(PathBuf, String), DriftError> {
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| DriftError::NoName {
            dir: dir.to_path_buf(),
        })?
        .to_string();
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(io(&parent))?;
    Ok((parent, name))
}

/// Removes the temporary folders of `--write` runs into `name` whose process no longer runs.
fn remove_stale(parent: &Path, name: &str) {
    let prefixes = [
        format!(".{name}.aifab-drift-tmp-"),
        format!(".{name}.aifab-drift-old-"),
    ];
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(pid) = file.to_str().and_then(|n| {
            prefixes
                .iter()
                .find_map(|p| n.strip_prefix(p.as_str()))
                .and_then(|d| d.parse::<u32>().ok())
        }) else {
            continue;
        };
        let is_dir = std::fs::symlink_metadata(e.path()).is_ok_and(|m| m.file_type().is_dir());
        if is_dir && pid != std::process::id() && !crate::files::pid_alive(pid) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// Fills the new folder `tmp` (0700): every device's replace file and base (0600), then the manifest.
fn stage(tmp: &Path, entries: &[Entry]) -> Result<(), DriftError> {
    if std::fs::symlink_metadata(tmp).is_ok() {
        std::fs::remove_dir_all(tmp).map_err(io(tmp))?;
    }
    let mut b = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(tmp).map_err(io(tmp))?;
    let mut hosts = Map::new();
    for (i, e) in entries.iter().enumerate() {
        let config = crate::write::safe_relative(e.config).map_err(DriftError::Path)?;
        let base = base_name(e.config);
        put(&tmp.join(&config), e.assembled)?;
        if i == 0 {
            kill_at("drift-fill");
        }
        put(&tmp.join(&base), e.base)?;
        hosts.insert(
            e.host.to_string(),
            json!({
                "rendered": {"file": e.config, "sha256": sha256(e.rendered)},
                "assembled": {"file": e.config, "sha256": sha256(e.assembled)},
                "base": {"file": base, "sha256": sha256(e.base)},
            }),
        );
    }
    let manifest = json!({
        "written_by": format!("aifab drift --write {}", env!("CARGO_PKG_VERSION")),
        "hosts": Value::Object(hosts),
    });
    let text = serde_json::to_string_pretty(&manifest)? + "\n";
    put(&tmp.join(MANIFEST), &text)?;
    sync_dir(tmp);
    Ok(())
}

/// `<host>.base.cfg` beside `<host>.cfg`.
pub fn base_name(config: &str) -> String {
    let stem = config.strip_suffix(".cfg").unwrap_or(config);
    format!("{stem}.base.cfg")
}

/// The lowercase hex SHA-256 of `text`'s bytes (what Ansible's `hash('sha256')` prints).
pub fn sha256(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().fold(String::with_capacity(64), |mut s, b| {
        s.push(char::from(b"0123456789abcdef"[usize::from(b >> 4)]));
        s.push(char::from(b"0123456789abcdef"[usize::from(b & 15)]));
        s
    })
}

/// Writes a new file (mode 0600) at `path` and flushes it to disk.
fn put(path: &Path, text: &str) -> Result<(), DriftError> {
    let mut o = OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    o.open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()).and_then(|()| f.sync_all()))
        .map_err(io(path))
}

/// Flushes a folder's entries to disk (best effort: not every system can open a folder).
fn sync_dir(dir: &Path) {
    if let Ok(f) = std::fs::File::open(dir) {
        let _ = f.sync_all();
    }
}

/// The test hook: SIGKILL here when [`KILL_AT_ENV`] names `point`.
fn kill_at(point: &str) {
    #[cfg(unix)]
    if std::env::var(KILL_AT_ENV).is_ok_and(|v| v == point) {
        // SAFETY: sends a signal to this process.
        unsafe {
            libc::raise(libc::SIGKILL);
        }
    }
    #[cfg(not(unix))]
    let _ = point;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FIPS 180-2's example "abc" and the empty string.
    #[test]
    fn sha256_is_the_standard_digest() {
        assert_eq!(
            sha256("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            sha256(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn the_base_sits_beside_the_config() {
        assert_eq!(base_name("leaf1.cfg"), "leaf1.base.cfg");
        assert_eq!(base_name("x"), "x.base.cfg");
    }
}
