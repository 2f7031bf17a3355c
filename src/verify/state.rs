//! Reading a state folder: `DIR/<hostname>/<document>` for every switch, each document a regular file
//! inside the folder (a link is not followed), at most [`MAX_DOCUMENT`] bytes, read by its OS's reader.
//! What cannot be read becomes a finding for that switch, never a crash and never a pass.

use super::Check;
use super::finding::{Finding, Kind};
use super::observed::Observed;
use super::read::{Document, documents, sonic};
use crate::model::{Device, FabricModel};
use std::path::{Path, PathBuf};

/// Why a state folder, or a document in it, cannot be read (the path named; its `Display` is the
/// message, a finding's text for a document).
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The folder or file could not be looked at or read.
    #[error("{}: {error}", path.display())]
    Io {
        /// The folder or file.
        path: PathBuf,
        /// Why.
        #[source]
        error: std::io::Error,
    },
    /// The state folder is a link.
    #[error("{}: a link; give the state folder itself (links are not followed)", dir.display())]
    FolderLink {
        /// The folder.
        dir: PathBuf,
    },
    /// The state folder is not a folder.
    #[error("{}: not a folder", dir.display())]
    NotAFolder {
        /// The path.
        dir: PathBuf,
    },
    /// The folder holds no folder of any switch of the fabric.
    #[error(
        "{}: no folder of any of the {switches} switches of fabric `{fabric}` (it holds: {}); is it the state of another fabric? `ansible-playbook ansible/collect.yml` writes DIR/<hostname>/",
        dir.display(),
        if holds.is_empty() { "nothing".to_string() } else { holds.join(", ") }
    )]
    OtherFabric {
        /// The folder.
        dir: PathBuf,
        /// The fabric's switch count.
        switches: usize,
        /// The fabric's name.
        fabric: String,
        /// The first few names the folder holds, sorted.
        holds: Vec<String>,
    },
    /// A document is a link.
    #[error("{}: a link, not followed (copy the document itself into the folder)", path.display())]
    DocumentLink {
        /// The document.
        path: PathBuf,
    },
    /// A document is not a regular file.
    #[error("{}: not a regular file", path.display())]
    NotAFile {
        /// The document.
        path: PathBuf,
    },
    /// A document over [`MAX_DOCUMENT`].
    #[error("{}: {len} bytes, over the {MAX_DOCUMENT}-byte bound of a document", path.display())]
    TooLarge {
        /// The document.
        path: PathBuf,
        /// Its size.
        len: u64,
    },
}

/// The error for an I/O failure on `path`.
fn io(path: &Path) -> impl FnOnce(std::io::Error) -> StateError + '_ {
    move |error| StateError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// The largest document read: a 288-port chassis's `show interface | json` is a few MB; a route table
/// of a 100K-GPU fabric's leaf some tens of MB.
pub const MAX_DOCUMENT: u64 = 256 * 1024 * 1024;

/// What one switch's folder gave.
#[derive(Debug, Default)]
pub struct Collected {
    /// The state read.
    pub observed: Observed,
    /// The checks a missing or unreadable document leaves without input on this switch.
    pub blind: Vec<Check>,
    /// Findings about the folder itself (missing documents, unreadable ones, another switch's files).
    pub findings: Vec<Finding>,
    /// The documents were the lldpd/FRR form of a switch of another OS (the twin).
    pub daemon_form: bool,
    /// The LLDP neighbours resolved to the fabric's ports ([`super::portmap`]), once read: the
    /// observed names are then dropped.
    pub lldp: Option<super::portmap::Lldp>,
    /// The routes' prefixes and widths, once read: the observed routes are then dropped.
    pub routes: Option<Vec<super::observed::RouteWidth>>,
}

/// Refuses a state folder verify cannot use: missing, not a folder, a link, or one that holds no
/// folder of any switch of `model` (the state of another fabric). The message names what it found.
pub fn check_dir(dir: &Path, model: &FabricModel) -> Result<(), StateError> {
    let meta = std::fs::symlink_metadata(dir).map_err(io(dir))?;
    if meta.file_type().is_symlink() {
        return Err(StateError::FolderLink {
            dir: dir.to_path_buf(),
        });
    }
    if !meta.is_dir() {
        return Err(StateError::NotAFolder {
            dir: dir.to_path_buf(),
        });
    }
    let any = model.devices.iter().any(|d| dir.join(&d.hostname).is_dir());
    if any {
        return Ok(());
    }
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(io(dir))?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names.truncate(4);
    Err(StateError::OtherFabric {
        dir: dir.to_path_buf(),
        switches: model.devices.len(),
        fabric: model.name.clone(),
        holds: names,
    })
}

/// Reads the folder of `d` in `dir`.
pub fn collect(dir: &Path, d: &Device) -> Collected {
    let mut c = Collected::default();
    let folder = dir.join(&d.hostname);
    match std::fs::symlink_metadata(&folder) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            c.findings.push(
                Finding::new(Check::Cabling, Kind::Unreadable, &d.hostname).saw(
                    "a folder of documents",
                    format!(
                        "{}: not a folder (a link is not followed)",
                        folder.display()
                    ),
                ),
            );
            c.blind = Check::ALL.to_vec();
            return c;
        }
        Err(_) => {
            c.findings.push(
                Finding::new(Check::Cabling, Kind::NotCollected, &d.hostname).saw(
                    format!("{}/", folder.display()),
                    "no folder: nothing was collected from this switch",
                ),
            );
            c.blind = Check::ALL.to_vec();
            return c;
        }
    }
    let own = documents(d.os);
    let present = |docs: &[Document]| docs.iter().any(|doc| folder.join(doc.file).exists());
    let docs =
        if !present(own) && d.os != crate::kinds::Os::Sonic && present(sonic::daemon_documents()) {
            c.daemon_form = true;
            sonic::daemon_documents()
        } else {
            own
        };
    for doc in docs {
        read_one(&folder, doc, d, &mut c);
    }
    if c.daemon_form {
        // The lldpd/FRR form has no port or lossless documents.
        for check in [Check::Ports, Check::Lossless] {
            if !c.blind.contains(&check) {
                c.blind.push(check);
            }
        }
    }
    c
}

fn read_one(folder: &Path, doc: &Document, d: &Device, c: &mut Collected) {
    let path = folder.join(doc.file);
    let failed = |kind: Kind, found: String| {
        Finding::new(doc.serves[0], kind, &d.hostname)
            .saw(format!("{} (`{}`)", doc.file, doc.command), found)
    };
    let text = match read_text(&path) {
        Ok(Some(t)) => t,
        Ok(None) => {
            c.findings
                .push(failed(Kind::NotCollected, "not collected".into()));
            c.blind.extend(doc.serves);
            return;
        }
        Err(e) => {
            c.findings.push(failed(Kind::Unreadable, e.to_string()));
            c.blind.extend(doc.serves);
            return;
        }
    };
    if let Err(e) = (doc.read)(&text, &mut c.observed) {
        c.findings
            .push(failed(Kind::Unreadable, format!("{}: {e}", path.display())));
        c.blind.extend(doc.serves);
    }
}

/// The text of a regular file, `None` when there is none; a link, a folder, a file over
/// [`MAX_DOCUMENT`] or one that is not UTF-8 is an error saying so.
fn read_text(path: &Path) -> Result<Option<String>, StateError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(path)(e)),
    };
    let path_buf = || path.to_path_buf();
    if meta.file_type().is_symlink() {
        return Err(StateError::DocumentLink { path: path_buf() });
    }
    if !meta.is_file() {
        return Err(StateError::NotAFile { path: path_buf() });
    }
    if meta.len() > MAX_DOCUMENT {
        return Err(StateError::TooLarge {
            path: path_buf(),
            len: meta.len(),
        });
    }
    std::fs::read_to_string(path).map(Some).map_err(io(path))
}

#[cfg(test)]
mod tests {
    use super::{MAX_DOCUMENT, read_text};

    #[test]
    fn a_document_over_the_bound_or_a_link_is_refused_unread() {
        let dir = std::env::temp_dir().join(format!("aifab-state-bound-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("mkdir");
        // A sparse file one byte over the bound: refused by its size, never read into memory.
        let big = dir.join("lldpctl.json");
        let f = std::fs::File::create(&big).expect("create");
        f.set_len(MAX_DOCUMENT + 1).expect("set_len");
        let err = read_text(&big).expect_err("over the bound").to_string();
        assert!(err.contains("over the 268435456-byte bound"), "{err}");
        let small = dir.join("small.json");
        std::fs::write(&small, "{}").expect("write");
        assert_eq!(read_text(&small).expect("read").as_deref(), Some("{}"));
        assert_eq!(read_text(&dir.join("absent.json")).expect("absent"), None);
        #[cfg(unix)]
        {
            let link = dir.join("link.json");
            std::os::unix::fs::symlink(&small, &link).expect("link");
            assert!(
                read_text(&link)
                    .expect_err("a link")
                    .to_string()
                    .contains("a link, not followed")
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
