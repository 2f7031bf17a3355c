//! Reviewing output: unified diffs between rendered files and files on disk (golden checks).

use crate::render::OutFile;
use crate::write::MARKER;
use similar::TextDiff;
use std::collections::BTreeMap;
use std::path::Path;

/// A unified diff with 3 lines of context, `a/<path>` → `b/<path>`.
pub fn unified(path: &str, old: &str, new: &str) -> String {
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

/// The largest file `--check` reads from a folder (a 100K-GPU SONiC config_db.json is a few MB).
const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Reads every file of `dir` (a folder inside the repository) that `wanted` accepts (by path relative to
/// `base`) into `out`, never following a link out of the repository and at most [`MAX_FILE_BYTES`] each; the manifest is left out.
fn read_tree(
    dir: &Path,
    base: &Path,
    wanted: &dyn Fn(&str) -> bool,
    out: &mut Vec<OutFile>,
) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let p = e.path();
        if e.file_type()?.is_dir() {
            read_tree(&p, base, wanted, out)?;
            continue;
        }
        let Ok(rel) = p.strip_prefix(base) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        if rel == MARKER || !wanted(&rel) {
            continue;
        }
        // The folder was admitted once (below): its files are opened without following a link, and
        // only a link is resolved.
        let content = crate::files::read_text_below(&p, MAX_FILE_BYTES)
            .map_err(|e| std::io::Error::other(e.describe(&p, MAX_FILE_BYTES)))?;
        out.push(OutFile {
            path: rel,
            content,
            device: String::new(),
        });
    }
    Ok(())
}

/// Compares rendered files with a folder (the folder is the old side, an absent folder counts as
/// empty): `Added` = rendered but not on disk, `Removed` = on disk but no longer rendered.
pub fn compare_tree(dir: &Path, files: &[OutFile]) -> std::io::Result<Vec<FileChange>> {
    compare_tree_where(dir, files, &|_| true)
}

/// [`compare_tree`] on the files `wanted` accepts (by path, on both sides): `render --check --only`
/// compares the matched devices' files and leaves the rest of the folder out.
pub fn compare_tree_where(
    dir: &Path,
    files: &[OutFile],
    wanted: &dyn Fn(&str) -> bool,
) -> std::io::Result<Vec<FileChange>> {
    compare_tree_masked(dir, files, wanted, None)
}

/// [`compare_tree_where`] through `masker`: a line of the folder that differs from the rendered line
/// only by the secrets filled for its placeholders is no difference, and no diff shows a secret
/// ([`mask`]). A link in the folder that leaves the repository is an error.
pub fn compare_tree_masked(
    dir: &Path,
    files: &[OutFile],
    wanted: &dyn Fn(&str) -> bool,
    masker: Option<&mask::Masker>,
) -> std::io::Result<Vec<FileChange>> {
    crate::files::inside_repository(dir).map_err(std::io::Error::other)?;
    let mut disk = Vec::new();
    if dir.exists() {
        read_tree(dir, dir, wanted, &mut disk)?;
    }
    let new: Vec<OutFile> = files.iter().filter(|f| wanted(&f.path)).cloned().collect();
    let Some(m) = masker else {
        return Ok(diff_files(&disk, &new));
    };
    let rendered: BTreeMap<&str, &OutFile> = new.iter().map(|f| (f.path.as_str(), f)).collect();
    for f in &mut disk {
        if let Some(r) = rendered.get(f.path.as_str())
            && f.content != r.content
        {
            f.content = m.align(&f.content, &r.content);
        }
    }
    let mut changes = diff_files(&disk, &new);
    for c in &mut changes {
        c.diff = m.hide(&c.diff);
    }
    Ok(changes)
}

pub mod cabling;
pub mod change;
pub mod mask;
pub mod report;
pub mod uncovered;

/// What happened to one file between two renders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// New file.
    Added,
    /// File gone.
    Removed,
    /// Content differs.
    Changed,
}

impl Status {
    /// `added`, `removed`, `changed`: as the JSON and Markdown reports print it.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Added => "added",
            Status::Removed => "removed",
            Status::Changed => "changed",
        }
    }
}

/// One file's change between two renders.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FileChange {
    /// Path relative to the output folder.
    pub path: String,
    /// Device the file belongs to ("" for fabric-wide files).
    pub device: String,
    /// Added, removed or changed.
    pub status: Status,
    /// Lines added.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
    /// Unified diff.
    pub diff: String,
    /// The config sections (CLI) or tables (config_db.json) whose lines changed, for `CHG-CONFIG`.
    #[serde(skip)]
    pub sections: Vec<String>,
}

/// Per-file changes between two renders, in path order.
pub fn diff_files(old: &[OutFile], new: &[OutFile]) -> Vec<FileChange> {
    let o: BTreeMap<&str, &OutFile> = old.iter().map(|f| (f.path.as_str(), f)).collect();
    let n: BTreeMap<&str, &OutFile> = new.iter().map(|f| (f.path.as_str(), f)).collect();
    let mut paths: Vec<&str> = o.keys().chain(n.keys()).copied().collect();
    paths.sort_unstable();
    paths.dedup();
    let mut out = Vec::new();
    for p in paths {
        let (a, b) = (o.get(p), n.get(p));
        let (old_text, new_text, status, device) = match (a, b) {
            (Some(a), Some(b)) if a.content == b.content => continue,
            (Some(a), Some(b)) => (
                a.content.as_str(),
                b.content.as_str(),
                Status::Changed,
                b.device.clone(),
            ),
            (None, Some(b)) => ("", b.content.as_str(), Status::Added, b.device.clone()),
            (Some(a), None) => (a.content.as_str(), "", Status::Removed, a.device.clone()),
            (None, None) => continue,
        };
        let td = TextDiff::from_lines(old_text, new_text);
        let (mut added, mut removed) = (0, 0);
        for op in td.iter_all_changes() {
            match op.tag() {
                similar::ChangeTag::Insert => added += 1,
                similar::ChangeTag::Delete => removed += 1,
                similar::ChangeTag::Equal => {}
            }
        }
        out.push(FileChange {
            path: p.to_string(),
            device,
            status,
            added,
            removed,
            diff: unified(p, old_text, new_text),
            sections: uncovered::sections_changed(p, old_text, new_text),
        });
    }
    out
}
