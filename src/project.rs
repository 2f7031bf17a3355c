//! The optional project file `aifab.yaml`, found beside the intent or in a folder above it (up to the
//! repository root, the first folder holding `.git`), so CI and a laptop render with the same site
//! platforms and templates:
//!
//! ```yaml
//! platforms: site/platforms   # extra <os>.yaml platform files (like --platforms)
//! templates: site/templates   # <os>/<name>.j2 templates (like --templates)
//! secrets:
//!   env_prefix: AIFAB_        # the only environment variables `{env: NAME}` may name (the default)
//! ```
//!
//! Paths are relative to the project file and must stay inside the repository (docs/security.md).
//! Command-line flags win over the file. The file may be empty: without git, it marks the top of the
//! repository.

use crate::render::secrets::EnvPolicy;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The project file's name.
pub const FILE: &str = crate::boundary::PROJECT_FILE;

/// Where a site's extensions are, after the project file and the flags.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Extensions {
    /// Folder of extra `<os>.yaml` platform files.
    pub platforms: Option<PathBuf>,
    /// Folder of `<os>/<name>.j2` templates.
    pub templates: Option<PathBuf>,
    /// The project file these came from, if any.
    pub project_file: Option<PathBuf>,
    /// The prefix every `{env: NAME}` secret must have (`""`: any name).
    pub env_prefix: EnvPolicy,
}

/// The project file's contents.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProjectFile {
    #[serde(default)]
    platforms: Option<PathBuf>,
    #[serde(default)]
    templates: Option<PathBuf>,
    #[serde(default)]
    secrets: Option<SecretsSettings>,
}

/// `secrets:` of the project file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SecretsSettings {
    env_prefix: String,
}

/// The project file that applies to `intent`: beside it or in a folder above, stopping after the first
/// folder that holds `.git` (the folders as written: a linked folder on the way is passed over, as
/// [`crate::boundary::Root::of`] passes it over).
pub fn find(intent: &Path) -> Option<PathBuf> {
    crate::boundary::Root::of(intent)
        .project_file()
        .map(Path::to_path_buf)
}

/// The hint every problem of the project file carries.
const HELP: &str = "the project file has three optional keys: `platforms` and `templates` (folders, relative to it) and `secrets: {env_prefix: AIFAB_}`";

/// Why the project file could not be used, naming it (with line and column where it has them).
#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    /// The file could not be read (the message names it).
    #[error("{}", error.describe(file, crate::files::SITE_FILE_BYTES))]
    Unreadable {
        /// The project file.
        file: PathBuf,
        /// Why.
        error: crate::files::ReadError,
    },
    /// The file is not the project file's YAML.
    #[error("{}:{line}:{col}: {what}\n  help: {HELP}", file.display())]
    Syntax {
        /// The project file.
        file: PathBuf,
        /// Line, 1-based.
        line: usize,
        /// Column, 1-based.
        col: usize,
        /// What the YAML reader says.
        what: String,
    },
    /// An `env_prefix` that cannot start an environment variable name.
    #[error(
        "{at}: env_prefix `{prefix}` is not the start of an environment variable name\n  help: give capital letters, digits and `_` (e.g. `AIFAB_`), or `\"\"` to allow any name"
    )]
    EnvPrefix {
        /// `file:line:col` of the key.
        at: String,
        /// The prefix given.
        prefix: String,
    },
}

/// The extensions for `intent`: the flags where given, else the project file's settings (paths made
/// relative to it), and the environment prefix of its secrets. Errors name the project file with line
/// and column.
pub fn extensions(
    intent: &Path,
    platforms: Option<PathBuf>,
    templates: Option<PathBuf>,
) -> Result<Extensions, ProjectError> {
    let mut ext = Extensions {
        platforms,
        templates,
        project_file: None,
        env_prefix: EnvPolicy::default(),
    };
    let Some(file) = find(intent) else {
        return Ok(ext);
    };
    let text = crate::files::read_text(&file, crate::files::SITE_FILE_BYTES).map_err(|error| {
        ProjectError::Unreadable {
            file: file.clone(),
            error,
        }
    })?;
    let p = parse(&file, &text)?;
    let base = file.parent().unwrap_or(Path::new("."));
    ext.platforms = ext.platforms.or(p.platforms.map(|d| base.join(d)));
    ext.templates = ext.templates.or(p.templates.map(|d| base.join(d)));
    if let Some(s) = p.secrets {
        let (l, c) = key_position(&text, "env_prefix");
        let at = format!("{}:{l}:{c}", file.display());
        if !valid_prefix(&s.env_prefix) {
            return Err(ProjectError::EnvPrefix {
                at,
                prefix: s.env_prefix,
            });
        }
        ext.env_prefix = EnvPolicy {
            prefix: s.env_prefix,
            set_at: Some(at),
        };
    }
    ext.project_file = Some(file);
    Ok(ext)
}

/// The project file's settings; an empty file (or one of comments) sets nothing.
fn parse(file: &Path, text: &str) -> Result<ProjectFile, ProjectError> {
    let blank = text
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'));
    if blank {
        return Ok(ProjectFile::default());
    }
    serde_norway::from_str(text).map_err(|e| {
        let (line, col) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
        let msg = e.to_string();
        let what = msg.split(" at line ").next().unwrap_or(&msg).to_string();
        ProjectError::Syntax {
            file: file.to_path_buf(),
            line,
            col,
            what,
        }
    })
}

/// Whether `p` can start an environment variable name: empty, or capital letters, digits and `_`, not
/// starting with a digit.
fn valid_prefix(p: &str) -> bool {
    p.chars()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && !p.starts_with(|c: char| c.is_ascii_digit())
}

/// Line and column (1-based) of the first `key:` in `text`, or 1:1.
fn key_position(text: &str, key: &str) -> (usize, usize) {
    let pat = format!("{key}:");
    text.lines()
        .enumerate()
        .find_map(|(i, l)| l.find(&pat).map(|c| (i + 1, c + 1)))
        .unwrap_or((1, 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_files_parse_with_a_located_prefix() {
        let f = Path::new("aifab.yaml");
        assert!(
            parse(f, "# only a comment\n").is_ok(),
            "a blank file marks the root"
        );
        let p = parse(f, "secrets:\n  env_prefix: CI_AIFAB_\n").expect("parses");
        assert_eq!(
            p.secrets.map(|s| s.env_prefix).as_deref(),
            Some("CI_AIFAB_")
        );
        let e = parse(f, "secrets: {prefix: X}\n")
            .expect_err("unknown key")
            .to_string();
        assert!(e.starts_with("aifab.yaml:1:"), "{e}");
        assert_eq!(
            key_position("a: 1\nsecrets:\n  env_prefix: X\n", "env_prefix"),
            (3, 3)
        );
        for ok in ["", "AIFAB_", "CI_2_"] {
            assert!(valid_prefix(ok), "{ok}");
        }
        for bad in ["aifab_", "2X", "A-B", "A B"] {
            assert!(!valid_prefix(bad), "{bad}");
        }
    }
}
