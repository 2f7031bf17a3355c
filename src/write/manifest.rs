//! The output folder's manifest, [`MARKER`]: the one file that names the aifab version, the record of
//! the allocation lock the folder was rendered with, and every file aifab wrote into the folder (so a
//! file it did not write is known as the user's, and kept).
//!
//! ```text
//! written by aifab 0.1.0: aifab replaces this folder on every render and keeps the files it did not write
//! lock: x.lock.yaml, 48 devices, 512 links, 1024 servers, lineage e170..., serial 4, xxh3-128 5f0c...
//! file: inventory.yml
//! file: leaf1.cfg
//! ```
//!
//! Every line is deterministic (the same render writes the same manifest on every machine). A
//! manifest of an earlier aifab has the first line only: what it wrote is not known from it.

use std::collections::HashSet;
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

/// The manifest's text: the header, the lock's record when the render used one, then every file aifab
/// wrote, in path order (`files` need not be sorted).
pub fn text(lock: Option<&str>, files: &mut [&str]) -> String {
    files.sort_unstable();
    let mut s = header();
    s.reserve(files.iter().map(|f| f.len() + 7).sum::<usize>() + 128);
    if let Some(l) = lock {
        s.push_str("lock: ");
        s.push_str(l);
        s.push('\n');
    }
    for f in files.iter() {
        s.push_str("file: ");
        s.push_str(f);
        s.push('\n');
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
}

/// Reads the manifest of folder `dir` (never through a link, at most 64 MiB); `None` when there is
/// none or it cannot be read.
pub fn read(dir: &Path) -> Option<Manifest> {
    let bytes = crate::files::read_own(&dir.join(MARKER), MAX_BYTES).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    Some(parse(&text))
}

/// The manifest in `text`.
pub fn parse(text: &str) -> Manifest {
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
        }
    }
    // A manifest of this aifab always has more than its header: at least one file.
    m.files = listed.then_some(files);
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_reads_back() {
        let t = text(Some("x.lock.yaml, 1 devices"), &mut ["b/c.cfg", "a.cfg"]);
        assert!(t.starts_with(&header()));
        assert!(t.ends_with("lock: x.lock.yaml, 1 devices\nfile: a.cfg\nfile: b/c.cfg\n"));
        let m = parse(&t);
        assert_eq!(m.lock.as_deref(), Some("x.lock.yaml, 1 devices"));
        let files = m.files.expect("listed");
        assert!(files.contains("a.cfg") && files.contains("b/c.cfg") && files.len() == 2);
        let old =
            parse("written by aifab 0.1.0: this folder is replaced as a whole on every render\n");
        assert!(old.files.is_none() && old.lock.is_none());
    }
}
