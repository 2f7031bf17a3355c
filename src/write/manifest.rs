//! The output folder's manifest, [`MARKER`]: the one file that names the aifab version, the record of
//! the allocation lock the folder was rendered with, and every file aifab wrote into the folder (so a
//! file it did not write is known as the user's, and kept).
//!
//! ```text
//! written by aifab 0.1.0: aifab replaces this folder on every render and keeps the files it did not write
//! lock: x.lock.yaml, 48 devices, 512 links, 1024 servers, lineage e170..., serial 4, xxh3-128 5f0c...
//! file: inventory.yml
//! hash: xxh3-128 9a41... inventory.yml
//! file: leaf1.cfg
//! hash: xxh3-128 03be... leaf1.cfg
//! ```
//!
//! Every line is deterministic (the same render writes the same manifest on every machine). The
//! `hash:` line of a file is the hash of the bytes aifab wrote there (the hash the file index keeps,
//! [`super::index::hash`]): a listed file whose bytes no longer hash to it is the user's, and is kept
//! ([`super::user`]), so a manifest written by anyone but aifab can claim only files whose exact bytes
//! its writer already knew. Readers that know only `file:` lines (earlier aifab versions) skip the
//! `hash:` lines. A manifest of an earlier aifab lists files without hashes, or (earlier still) has
//! the first line only: what it wrote is not known from it.

use std::collections::{HashMap, HashSet};
use std::path::Path;

/// The file that marks a folder as aifab's output.
pub const MARKER: &str = ".aifab-output";

/// The largest manifest read back (a 100K-GPU output with host files lists about 16,000 files).
const MAX_BYTES: u64 = 64 * 1024 * 1024;

/// The manifest's first line, which names the aifab version (the per-device files do not, so an
/// upgrade changes no config that did not change), with its newline.
pub fn header() -> String {
    format!(
        "written by aifab {}: aifab replaces this folder on every render and keeps the files it did not write\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// Names the hash in every `hash:` line: a line with another name is ignored.
const HASH: &str = "xxh3-128";

/// The manifest's text: the header, the lock's record when the render used one, then every file aifab
/// wrote with the hash of its bytes (none for a file an earlier aifab listed without one), in path
/// order (`files` need not be sorted).
pub(super) fn text(lock: Option<&str>, files: &mut [(&str, Option<u128>)]) -> String {
    files.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut s = header();
    s.reserve(files.iter().map(|f| 2 * f.0.len() + 60).sum::<usize>() + 128);
    if let Some(l) = lock {
        s.push_str("lock: ");
        s.push_str(l);
        s.push('\n');
    }
    for (f, hash) in files.iter() {
        s.push_str("file: ");
        s.push_str(f);
        s.push('\n');
        if let Some(h) = hash {
            use std::fmt::Write as _;
            let _ = writeln!(s, "hash: {HASH} {h:032x} {f}");
        }
    }
    s
}

/// A manifest read back.
#[derive(Debug, Default)]
pub struct Manifest {
    /// The lock record (`lock:` line), when the render that wrote it used a lock.
    pub lock: Option<String>,
    /// Every file aifab wrote; `None` for a manifest of an earlier aifab, which does not list them.
    pub files: Option<HashSet<String>>,
    /// The hash of the bytes aifab wrote, of each listed file that has a `hash:` line.
    pub hashes: HashMap<String, u128>,
}

impl Manifest {
    /// Whether `rel` is listed (aifab wrote it) with the hash of its bytes; `Some(None)` for a file
    /// listed without one (by an earlier aifab), `None` for a file not listed.
    pub fn entry(&self, rel: &str) -> Option<Option<u128>> {
        let listed = self.files.as_ref()?.contains(rel);
        listed.then(|| self.hashes.get(rel).copied())
    }
}

/// Reads the manifest of folder `dir` (never through a link, at most 64 MiB); `None` when there is
/// none or it cannot be read.
pub(super) fn read(dir: &Path) -> Option<Manifest> {
    let bytes = crate::files::read_own(&dir.join(MARKER), MAX_BYTES).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    Some(parse(&text))
}

/// The manifest in `text`.
pub(super) fn parse(text: &str) -> Manifest {
    let mut m = Manifest::default();
    let mut files = HashSet::new();
    let mut listed = false;
    for line in text.lines().skip(1) {
        if let Some(l) = line.strip_prefix("lock: ") {
            m.lock = Some(l.to_string());
            listed = true;
        } else if let Some(f) = line.strip_prefix("file: ") {
            files.insert(f.to_string());
            listed = true;
        } else if let Some((rel, hash)) = line.strip_prefix("hash: ").and_then(hash_line) {
            m.hashes.insert(rel.to_string(), hash);
        }
    }
    // A manifest of this aifab always has more than its header: at least one file.
    m.hashes.retain(|rel, _| files.contains(rel));
    m.files = listed.then_some(files);
    m
}

/// A `hash:` line's path and hash (after `hash: `): `xxh3-128 <32 hex digits> <path>`.
fn hash_line(rest: &str) -> Option<(&str, u128)> {
    let rest = rest.strip_prefix(HASH)?.strip_prefix(' ')?;
    let (hex, rel) = rest.split_once(' ')?;
    (hex.len() == 32 && !rel.is_empty())
        .then(|| u128::from_str_radix(hex, 16).ok())
        .flatten()
        .map(|h| (rel, h))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_reads_back() {
        let t = text(
            Some("x.lock.yaml, 1 devices"),
            &mut [("b/c.cfg", Some(0xab)), ("a.cfg", None)],
        );
        assert!(t.starts_with(&header()));
        assert!(t.ends_with(&format!(
            "lock: x.lock.yaml, 1 devices\nfile: a.cfg\nfile: b/c.cfg\nhash: xxh3-128 {:032x} b/c.cfg\n",
            0xab
        )));
        let m = parse(&t);
        assert_eq!(m.lock.as_deref(), Some("x.lock.yaml, 1 devices"));
        assert_eq!(m.entry("b/c.cfg"), Some(Some(0xab)));
        assert_eq!(m.entry("a.cfg"), Some(None));
        assert_eq!(m.entry("d.cfg"), None);
        let files = m.files.expect("listed");
        assert!(files.contains("a.cfg") && files.contains("b/c.cfg") && files.len() == 2);
        let old =
            parse("written by aifab 0.1.0: this folder is replaced as a whole on every render\n");
        assert!(old.files.is_none() && old.lock.is_none());
        // A hash line of a file the manifest does not list, or of another hash, claims nothing.
        let odd = parse(&format!(
            "{}file: a\nhash: xxh3-128 {:032x} b\nhash: md5 {:032x} a\n",
            header(),
            1,
            2
        ));
        assert_eq!((odd.entry("a"), odd.entry("b")), (Some(None), None));
    }
}
