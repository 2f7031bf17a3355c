//! The optional project file `aifab.yaml`, found beside the intent or in a folder above it (up to the
//! repository root, the first folder holding `.git`), so CI and a laptop render with the same site
//! platforms and templates:
//!
//! ```yaml
//! platforms: site/platforms   # extra <os>.yaml platform files (like --platforms)
//! templates: site/templates   # <os>/<name>.j2 templates (like --templates)
//! ```
//!
//! Paths are relative to the project file. Command-line flags win over the file.

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The project file's name.
pub const FILE: &str = "aifab.yaml";

/// Where a site's extensions are, after the project file and the flags.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Extensions {
    /// Folder of extra `<os>.yaml` platform files.
    pub platforms: Option<PathBuf>,
    /// Folder of `<os>/<name>.j2` templates.
    pub templates: Option<PathBuf>,
    /// The project file these came from, if any.
    pub project_file: Option<PathBuf>,
}

/// The project file's contents.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProjectFile {
    #[serde(default)]
    platforms: Option<PathBuf>,
    #[serde(default)]
    templates: Option<PathBuf>,
}

/// The project file that applies to `intent`: beside it or in a folder above, stopping after the first
/// folder that holds `.git`.
pub fn find(intent: &Path) -> Option<PathBuf> {
    let start = intent
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let start = std::fs::canonicalize(start).ok()?;
    for dir in start.ancestors() {
        let candidate = dir.join(FILE);
        if candidate.is_file() {
            return Some(candidate);
        }
        if dir.join(".git").exists() {
            return None;
        }
    }
    None
}

/// The extensions for `intent`: the flags where given, else the project file's settings (paths made
/// relative to it). Errors name the project file with line and column.
pub fn extensions(
    intent: &Path,
    platforms: Option<PathBuf>,
    templates: Option<PathBuf>,
) -> Result<Extensions, String> {
    let mut ext = Extensions {
        platforms,
        templates,
        project_file: None,
    };
    if ext.platforms.is_some() && ext.templates.is_some() {
        return Ok(ext);
    }
    let Some(file) = find(intent) else {
        return Ok(ext);
    };
    let text = crate::files::read_text(&file, crate::files::SITE_FILE_BYTES)
        .map_err(|e| e.describe(&file, crate::files::SITE_FILE_BYTES))?;
    let p: ProjectFile = serde_norway::from_str(&text).map_err(|e| {
        let (l, c) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
        let msg = e.to_string();
        let msg = msg.split(" at line ").next().unwrap_or(&msg).to_string();
        format!(
            "{}:{l}:{c}: {msg}\n  help: the project file has two optional keys, `platforms` and `templates` (folders, relative to it)",
            file.display()
        )
    })?;
    let base = file.parent().unwrap_or(Path::new("."));
    ext.platforms = ext.platforms.or(p.platforms.map(|d| base.join(d)));
    ext.templates = ext.templates.or(p.templates.map(|d| base.join(d)));
    ext.project_file = Some(file);
    Ok(ext)
}
