//! A site's templates (`--templates DIR`, or `templates:` in the project file): `<dir>/<os>/<name>.j2`
//! files that override the built-in template of the same name, or extend it through the `{% block %}`s
//! the built-in device templates declare (docs/extending.md).

use super::RenderError;
use crate::platform::Os;
use std::path::Path;

/// Every `<os>/<name>.j2` of `dir`, as (template name, source), sorted by name. Anything else in the
/// folder is an error (a misplaced file would silently change nothing).
pub(super) fn templates(dir: &Path) -> Result<Vec<(String, String)>, RenderError> {
    let read = |p: &Path| {
        std::fs::read_dir(p).map_err(|source| RenderError::SiteFolder {
            path: p.to_path_buf(),
            source,
        })
    };
    let mut out = Vec::new();
    for entry in read(dir)?.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(os) = Os::parse(&name).filter(|_| path.is_dir()) else {
            return Err(RenderError::NotAnOsFolder {
                path,
                dir: dir.to_path_buf(),
            });
        };
        for file in read(&path)?.flatten() {
            let fpath = file.path();
            let fname = file.file_name().to_string_lossy().into_owned();
            if !fname.ends_with(".j2") || !fpath.is_file() {
                return Err(RenderError::NotATemplate(fpath));
            }
            let src = crate::files::read_text(&fpath, crate::files::SITE_FILE_BYTES).map_err(
                |error| RenderError::SiteFile {
                    path: fpath.clone(),
                    error,
                },
            )?;
            out.push((format!("{}/{fname}", os.as_str()), src));
        }
    }
    out.sort();
    Ok(out)
}
