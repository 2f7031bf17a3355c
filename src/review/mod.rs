//! Reviewing output: unified diffs between rendered files and files on disk (golden checks).

use crate::render::OutFile;
use crate::write::MARKER;
use similar::TextDiff;
use std::collections::BTreeMap;
use std::path::Path;

/// How one file differs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileDiff {
    /// Rendered but not on disk.
    Missing(String),
    /// On disk but no longer rendered.
    Extra(String),
    /// Both exist and differ: the unified diff (disk → rendered).
    Changed(String, String),
}

/// A unified diff with 3 lines of context, `a/<path>` → `b/<path>`.
pub fn unified(path: &str, old: &str, new: &str) -> String {
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

fn read_tree(dir: &Path, base: &Path, out: &mut BTreeMap<String, String>) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let p = e.path();
        if e.file_type()?.is_dir() {
            read_tree(&p, base, out)?;
        } else if let Ok(rel) = p.strip_prefix(base) {
            let rel = rel.to_string_lossy().replace('\\', "/");
            if rel != MARKER {
                out.insert(rel, std::fs::read_to_string(&p).unwrap_or_default());
            }
        }
    }
    Ok(())
}

/// Compares rendered files with a folder; an absent folder counts as empty.
pub fn compare_tree(dir: &Path, files: &[OutFile]) -> std::io::Result<Vec<FileDiff>> {
    let mut disk = BTreeMap::new();
    if dir.exists() {
        read_tree(dir, dir, &mut disk)?;
    }
    let mut diffs = Vec::new();
    for f in files {
        match disk.remove(&f.path) {
            None => diffs.push(FileDiff::Missing(f.path.clone())),
            Some(old) if old != f.content => {
                diffs.push(FileDiff::Changed(f.path.clone(), unified(&f.path, &old, &f.content)))
            }
            Some(_) => {}
        }
    }
    diffs.extend(disk.into_keys().map(FileDiff::Extra));
    Ok(diffs)
}
