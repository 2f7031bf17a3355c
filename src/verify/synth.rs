//! A state folder as a fabric running exactly its model would give it: every switch's ideal state
//! ([`super::expect::ideal`]) printed in its OS's own documents. For tests (a clean fabric verifies;
//! a state edited to one fault reports that fault) and for `aifab bench`'s verify figure.

use super::expect::{Plan, ideal, routes};
use super::read;
use crate::model::FabricModel;
use crate::platform::Catalog;
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// Why the state folder could not be written: the file or folder, and the system's reason.
#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    /// A file or folder could not be created or written.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        #[source]
        error: std::io::Error,
    },
}

/// The error for an I/O failure on `path`.
fn io(path: &Path) -> impl FnOnce(std::io::Error) -> SynthError + '_ {
    move |error| SynthError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// Writes `DIR/<hostname>/<document>` for every switch of `model` into `dir` (created; it must not
/// exist yet).
pub fn write_state(model: &FabricModel, catalog: &Catalog, dir: &Path) -> Result<(), SynthError> {
    std::fs::create_dir(dir).map_err(io(dir))?;
    let plan = Plan::new(model);
    routes(&plan)
        .into_par_iter()
        .enumerate()
        .try_for_each(|(i, r)| {
            let d = &model.devices[i];
            let o = ideal(&plan, catalog, i, Some(r));
            let folder = dir.join(&d.hostname);
            std::fs::create_dir(&folder).map_err(io(&folder))?;
            for (file, text) in read::write(d.os, &o) {
                let path = folder.join(file);
                std::fs::write(&path, text).map_err(io(&path))?;
            }
            Ok(())
        })
}
