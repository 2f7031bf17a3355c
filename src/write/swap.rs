//! The swap that puts a filled temporary folder in place of the output folder.

use std::path::{Path, PathBuf};

/// Why the new output could not be put in place (the output folder is then as it was), naming it.
#[derive(Debug, thiserror::Error)]
pub enum SwapError {
    /// The new folder could not be renamed into place.
    #[error("moving the new output into {}: {error}", out.display())]
    Into {
        /// The output folder.
        out: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The previous output could not be moved aside.
    #[error("moving {} aside: {error}", out.display())]
    Aside {
        /// The output folder.
        out: PathBuf,
        /// Why.
        error: std::io::Error,
    },
}

/// Moves folder `tmp` to `out`. When `out` exists (`exists`), the two folders are exchanged in one
/// step where the system can (Linux `renameat2(RENAME_EXCHANGE)`: `out` is never missing, not even
/// for an instant); elsewhere `out` is renamed to `aside` first and put back if the second rename
/// fails. Returns where the previous output now is, for the caller to remove.
pub fn swap(
    tmp: &Path,
    out: &Path,
    aside: &Path,
    exists: bool,
) -> Result<Option<PathBuf>, SwapError> {
    let into = |error| SwapError::Into {
        out: out.to_path_buf(),
        error,
    };
    if !exists {
        return std::fs::rename(tmp, out).map(|_| None).map_err(into);
    }
    if exchange(tmp, out).is_ok() {
        return Ok(Some(tmp.to_path_buf()));
    }
    std::fs::rename(out, aside).map_err(|error| SwapError::Aside {
        out: out.to_path_buf(),
        error,
    })?;
    match std::fs::rename(tmp, out) {
        Ok(()) => Ok(Some(aside.to_path_buf())),
        Err(e) => {
            let _ = std::fs::rename(aside, out);
            Err(into(e))
        }
    }
}

/// Exchanges two paths atomically.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt as _;
    let a = CString::new(a.as_os_str().as_bytes())?;
    let b = CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: both pointers are NUL-terminated paths that outlive the call, which only reads them.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// No atomic exchange here: the caller falls back to two renames.
#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::ErrorKind::Unsupported.into())
}
