//! The platform stage's errors: why a vendor file (built-in or a site's) could not be read into its
//! types, why an output it lists names no producer, and each problem of a catalog, naming the file
//! (and, for a site file, the line and column with a hint).

use super::Os;
use super::family::FamilyError;
use std::path::PathBuf;

/// Why a vendor file's text could not be read into its types.
#[derive(Debug, thiserror::Error)]
pub enum VendorFileError {
    /// Not YAML.
    #[error("{0}")]
    Yaml(#[from] serde_norway::Error),
    /// Not the JSON build.rs wrote.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// Its `families` could not be resolved.
    #[error(transparent)]
    Family(#[from] FamilyError),
    /// A value of the wrong shape, at its path (`platforms.x.ports`).
    #[error("{at}: {source}")]
    Field {
        /// The path of the value.
        at: String,
        /// What is wrong with it.
        source: serde_json::Error,
    },
}

/// Why an output of a vendor file names no producer (`outputs:` in `vendors/<os>.yaml`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OutputError {
    /// A template without its `context`.
    #[error("{0}: a template needs a `context` (what the per-OS layer prepares for it)")]
    NoContext(String),
    /// A builder with a `context`.
    #[error("{0}: `context` goes with a template")]
    ContextWithBuilder(String),
    /// Neither or both of `template` and `builder`.
    #[error("{0}: give exactly one of `template` and `builder`")]
    NotOne(String),
}

/// One problem of the vendor files a catalog is built from, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum VendorProblem {
    /// A built-in file that could not be read.
    #[error("vendors/{os}.yaml: {source}")]
    Unreadable {
        /// The file's OS.
        os: Os,
        /// Why.
        source: VendorFileError,
    },
    /// A built-in file's section (owned sections, change sections) that is wrong.
    #[error("vendors/{os}.yaml: {what}")]
    Section {
        /// The file's OS.
        os: Os,
        /// What is wrong, as the section's check says it.
        what: String,
    },
    /// A built-in file that says another OS.
    #[error("vendors/{os}.yaml: says `os: {said}`")]
    OtherOs {
        /// The file's OS.
        os: Os,
        /// The OS it says.
        said: Os,
    },
    /// A built-in file that renders no file.
    #[error("vendors/{os}.yaml: outputs: no file is rendered")]
    NoOutputs {
        /// The file's OS.
        os: Os,
    },
    /// An output that names no producer.
    #[error("vendors/{os}.yaml: outputs: {source}")]
    Output {
        /// The file's OS.
        os: Os,
        /// Why.
        source: OutputError,
    },
    /// A platform that fails a consistency or source check.
    #[error("vendors/{os}.yaml: platform {platform}: {what}")]
    Platform {
        /// The file's OS.
        os: Os,
        /// The platform.
        platform: String,
        /// What the check says.
        what: String,
    },
    /// A built-in platform of an OS aifab does not know.
    #[error("built-in platform {os}/{name}")]
    BuiltinOs {
        /// The OS as written.
        os: String,
        /// The platform.
        name: String,
    },
    /// A problem of the built-in files, met while a site's files were read.
    #[error("built-in: {0}")]
    BuiltIn(Box<VendorProblem>),
    /// A site's platform folder that could not be read.
    #[error("{}: {source}\n  help: give a folder of <os>.yaml files", dir.display())]
    Folder {
        /// The folder.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A site platform file that could not be read (its message names the path).
    #[error("{}", error.describe(path, crate::files::SITE_FILE_BYTES))]
    SiteFile {
        /// The file.
        path: PathBuf,
        /// Why.
        error: crate::files::ReadError,
    },
    /// A problem of a site platform file, at its line and column, with a hint.
    #[error("{}:{line}:{col}: {what}\n  help: {hint}", path.display())]
    Located {
        /// The file.
        path: PathBuf,
        /// Line, 1-based.
        line: usize,
        /// Column, 1-based.
        col: usize,
        /// What is wrong.
        what: String,
        /// How to fix it.
        hint: String,
    },
}
