//! Atomic output: render into a temporary folder next to the target, then rename it into place.
//!
//! An error or a kill mid-way leaves the previous output exactly as it was. A folder that holds files
//! aifab did not write is never replaced: aifab marks its own folders with [`MARKER`].

use crate::render::OutFile;
use std::io::Write as _;
use std::path::{Component, Path, PathBuf};

/// The file that marks a folder as aifab's output.
pub const MARKER: &str = ".aifab-output";

/// Test hook: when set to N, writing fails after N files, as an interrupted render would.
pub const FAIL_AFTER_ENV: &str = "AIFAB_TEST_FAIL_AFTER_FILES";

/// Checks that an output path is relative and stays inside the output folder.
pub fn safe_relative(path: &str) -> Result<PathBuf, String> {
    let p = Path::new(path);
    if path.is_empty() || p.is_absolute() {
        return Err(format!("output path `{path}` is not a relative path"));
    }
    for c in p.components() {
        match c {
            Component::Normal(s) if !s.is_empty() => {}
            _ => {
                return Err(format!(
                    "output path `{path}` would leave the output folder"
                ));
            }
        }
    }
    Ok(p.to_path_buf())
}

fn may_replace(out: &Path) -> Result<bool, String> {
    match std::fs::symlink_metadata(out) {
        Err(_) => Ok(false),
        Ok(m) if !m.is_dir() => Err(format!("{} exists and is not a folder", out.display())),
        Ok(_) => {
            let mut entries =
                std::fs::read_dir(out).map_err(|e| format!("{}: {e}", out.display()))?;
            if entries.next().is_none() || out.join(MARKER).exists() {
                Ok(true)
            } else {
                Err(format!(
                    "refusing to replace {}: it holds files aifab did not write (no {MARKER}); choose an empty or new folder",
                    out.display()
                ))
            }
        }
    }
}

/// Writes `files` as the complete content of folder `out`, atomically.
pub fn write_tree(out: &Path, files: &[OutFile]) -> Result<(), String> {
    let exists = may_replace(out)?;
    let name = out
        .file_name()
        .ok_or_else(|| format!("{}: not a folder name", out.display()))?
        .to_string_lossy()
        .into_owned();
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    let pid = std::process::id();
    let tmp = parent.join(format!(".{name}.aifab-tmp-{pid}"));
    let old = parent.join(format!(".{name}.aifab-old-{pid}"));
    let _ = std::fs::remove_dir_all(&tmp);
    let result = fill(&tmp, files).and_then(|_| {
        if exists {
            std::fs::rename(out, &old)
                .map_err(|e| format!("moving {} aside: {e}", out.display()))?;
        }
        match std::fs::rename(&tmp, out) {
            Ok(()) => {
                if exists {
                    let _ = std::fs::remove_dir_all(&old);
                }
                Ok(())
            }
            Err(e) => {
                if exists {
                    let _ = std::fs::rename(&old, out);
                }
                Err(format!("moving the new output into {}: {e}", out.display()))
            }
        }
    });
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    result
}

fn fill(tmp: &Path, files: &[OutFile]) -> Result<(), String> {
    let fail_after: Option<usize> = std::env::var(FAIL_AFTER_ENV)
        .ok()
        .and_then(|v| v.parse().ok());
    std::fs::create_dir_all(tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    for (n, f) in files.iter().enumerate() {
        if fail_after == Some(n) {
            return Err(format!(
                "injected failure after {n} files ({FAIL_AFTER_ENV})"
            ));
        }
        let rel = safe_relative(&f.path)?;
        let path = tmp.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        // No fsync per file: atomicity comes from the final rename; a crash before it leaves the old
        // output in place.
        let mut fh =
            std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        fh.write_all(f.content.as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    std::fs::write(
        tmp.join(MARKER),
        "written by aifab: this folder is replaced as a whole on every render\n",
    )
    .map_err(|e| format!("{}: {e}", tmp.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside() {
        assert!(safe_relative("a/b.cfg").is_ok());
        assert!(safe_relative("../x").is_err());
        assert!(safe_relative("/etc/passwd").is_err());
        assert!(safe_relative("a/../../x").is_err());
        assert!(safe_relative("").is_err());
    }
}
