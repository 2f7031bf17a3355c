//! A partial render (`--only`) keeps the rest of the previous output: the files it did not write are
//! carried into the new folder unchanged (hard-linked, copied where the file system refuses links).

use super::MARKER;
use super::error::{WriteError, io};
use std::path::Path;

/// Carries every regular file of `prev` that is not yet in `tmp` and that `keep` accepts (by its path
/// relative to the folder, `/`-separated) into `tmp`, and returns their paths. Symbolic links are never
/// followed or carried here (the user's links are carried as links by [`super::user`]).
pub(super) fn carry(
    prev: &Path,
    tmp: &Path,
    keep: &dyn Fn(&str) -> bool,
) -> Result<Vec<String>, WriteError> {
    let mut carried = Vec::new();
    walk(prev, prev, tmp, keep, &mut carried)?;
    Ok(carried)
}

fn walk(
    dir: &Path,
    base: &Path,
    tmp: &Path,
    keep: &dyn Fn(&str) -> bool,
    carried: &mut Vec<String>,
) -> Result<(), WriteError> {
    let entries = std::fs::read_dir(dir).map_err(io(dir))?;
    for e in entries {
        let e = e.map_err(io(dir))?;
        let kind = e.file_type().map_err(io(&e.path()))?;
        let path = e.path();
        if kind.is_dir() {
            walk(&path, base, tmp, keep, carried)?;
            continue;
        }
        let Ok(rel) = path.strip_prefix(base) else {
            continue;
        };
        let rel_text = rel.to_string_lossy().replace('\\', "/");
        if !kind.is_file() || rel_text == MARKER || !keep(&rel_text) {
            continue;
        }
        let target = tmp.join(rel);
        if target.symlink_metadata().is_ok() {
            continue;
        }
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        if std::fs::hard_link(&path, &target).is_err() {
            std::fs::copy(&path, &target).map_err(io(&path))?;
        }
        carried.push(rel_text);
    }
    Ok(())
}
