//! Atomic output: render into a temporary folder next to the target, then rename it into place.
//!
//! An error or a kill mid-way leaves the previous output exactly as it was. A folder that holds files
//! aifab did not write is never replaced: aifab marks its own folders with [`MARKER`].

use crate::render::OutFile;
use std::io::Write as _;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The file that marks a folder as aifab's output.
pub const MARKER: &str = ".aifab-output";

/// The text of [`MARKER`]: the output folder's manifest, the one file that names the aifab version (the
/// per-device files do not, so an upgrade changes no config that did not change).
pub fn manifest() -> String {
    format!(
        "written by aifab {}: this folder is replaced as a whole on every render\n",
        env!("CARGO_PKG_VERSION")
    )
}

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
    write_with(out, |tmp| files.iter().try_for_each(|f| write_file(tmp, f)))
}

/// Fills a temporary folder next to `out` with `fill`, marks it as aifab's, and renames it into place.
/// On any error the temporary folder is removed and `out` is left exactly as it was.
pub fn write_with(
    out: &Path,
    fill: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), String> {
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
    WRITTEN.store(0, Ordering::SeqCst);
    let result = std::fs::create_dir_all(&tmp)
        .map_err(|e| format!("{}: {e}", tmp.display()))
        .and_then(|_| fill(&tmp))
        .and_then(|_| {
            std::fs::write(tmp.join(MARKER), manifest())
                .map_err(|e| format!("{}: {e}", tmp.display()))
        })
        .and_then(|_| {
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

/// Files written since the last [`write_with`] began (for the failure-injection test hook).
static WRITTEN: AtomicUsize = AtomicUsize::new(0);

/// Writes one file under `dir`, creating its folders; refuses paths that would leave `dir`. Safe to
/// call from several threads.
pub fn write_file(dir: &Path, f: &OutFile) -> Result<(), String> {
    if let Some(limit) = std::env::var(FAIL_AFTER_ENV)
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        let n = WRITTEN.fetch_add(1, Ordering::SeqCst);
        if n >= limit {
            return Err(format!(
                "injected failure after {limit} files ({FAIL_AFTER_ENV})"
            ));
        }
    }
    let rel = safe_relative(&f.path)?;
    let path = dir.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    // No fsync per file: atomicity comes from the final rename; a crash before it leaves the old output.
    let mut fh = std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    fh.write_all(f.content.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))
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
