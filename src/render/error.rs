//! The render stage's errors: why the templates could not be loaded, or a device's files printed.
//! Each names what it is about (the template, the site's file, the device and its file) as the
//! message always did.

use crate::os::OsError;
use crate::platform::{Os, OutputError};
use std::path::PathBuf;

/// Why a render failed.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The template syntax could not be set up.
    #[error("template syntax: {0}")]
    Syntax(minijinja::Error),
    /// A built-in template does not compile.
    #[error("template {name}: {source:#}")]
    Template {
        /// The template.
        name: String,
        /// Why.
        source: minijinja::Error,
    },
    /// A site's template does not compile.
    #[error("{}/{name}: {source:#}", dir.display())]
    SiteTemplate {
        /// The site's template folder.
        dir: PathBuf,
        /// The template.
        name: String,
        /// Why.
        source: minijinja::Error,
    },
    /// A site's template folder could not be listed.
    #[error("{}: {source}", path.display())]
    SiteFolder {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// An entry of a site's template folder that is no OS folder.
    #[error("{}: not an OS folder\n  help: put templates in {}/<os>/<name>.j2 with <os> one of nxos, eos, sonic", path.display(), dir.display())]
    NotAnOsFolder {
        /// The entry.
        path: PathBuf,
        /// The site's template folder.
        dir: PathBuf,
    },
    /// A file of a site's OS folder that is no template.
    #[error("{}: not a template\n  help: template files end in .j2", .0.display())]
    NotATemplate(PathBuf),
    /// A site's template that could not be read (the text names it).
    #[error("{}", error.describe(path, crate::files::SITE_FILE_BYTES))]
    SiteFile {
        /// The file.
        path: PathBuf,
        /// Why.
        error: crate::files::ReadError,
    },
    /// A device on a platform the catalog does not have.
    #[error("{host}: unknown platform {platform}")]
    UnknownPlatform {
        /// The device.
        host: String,
        /// Its platform.
        platform: String,
    },
    /// An OS whose vendor file lists no outputs.
    #[error("no outputs for {0}")]
    NoOutputs(Os),
    /// An output of the vendor file that names no producer.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// The per-OS layer could not build what the file prints.
    #[error(transparent)]
    Os(#[from] OsError),
    /// A template could not be found or printed.
    #[error("{0:#}")]
    Jinja(minijinja::Error),
    /// A template could not print.
    #[error("rendering {name}: {source:#}")]
    Print {
        /// The template.
        name: String,
        /// Why.
        source: minijinja::Error,
    },
    /// A `*_section` block of a template could not print.
    #[error("rendering {template} block {block}: {source:#}")]
    PrintBlock {
        /// The template.
        template: String,
        /// The block.
        block: String,
        /// Why.
        source: minijinja::Error,
    },
    /// A control character in what was printed.
    #[error("line {0} contains a control character")]
    Control(usize),
    /// A built file that could not be cut into its areas.
    #[error("{file}: {source}")]
    Areas {
        /// The file.
        file: String,
        /// Why.
        source: serde_json::Error,
    },
    /// A problem of one file of a device.
    #[error("{file}: {source}")]
    File {
        /// The file, as the vendor file names it.
        file: String,
        /// Why.
        source: Box<RenderError>,
    },
    /// A problem of one device.
    #[error("{host}: {source}")]
    Device {
        /// The device.
        host: String,
        /// Why.
        source: Box<RenderError>,
    },
    /// The host files could not be built (the error names the server or the setting).
    #[error(transparent)]
    Hosts(#[from] crate::render::hosts::HostFileError),
    /// The consumer of the rendered files (the writer) could not take one.
    #[error("{0}")]
    Sink(super::SinkError),
}

impl RenderError {
    /// This error, of device `host`.
    pub fn of(self, host: &str) -> RenderError {
        RenderError::Device {
            host: host.to_string(),
            source: Box::new(self),
        }
    }
}

/// Every error of a render, one a line: what `aifab render` prints when devices fail.
#[derive(Debug, thiserror::Error)]
#[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
pub struct RenderErrors(pub Vec<RenderError>);
