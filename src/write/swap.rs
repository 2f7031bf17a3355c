//! The swap that puts a filled temporary folder in place of the output folder.

use std::path::{Path, PathBuf};

/// Moves folder `tmp` to `out`. When `out` exists (`exists`), the two folders are exchanged in one
/// step where the system can (Linux `renameat2(RENAME_EXCHANGE)`: `out` is never missing, not even
/// for an instant); elsewhere `out` is renamed to `aside` first and put back if the second rename
/// fails. Returns where the previous output now is, for the caller to remove.
pub fn swap(tmp: &Path, out: &Path, aside: &Path, exists: bool) -> Result<Option<PathBuf>, String> {
    if !exists {
        return std::fs::rename(tmp, out)
            .map(|_| None)
            .map_err(|e| format!("moving the new output into {}: {e}", out.display()));
    }
    if exchange(tmp, out).is_ok() {
        return Ok(Some(tmp.to_path_buf()));
    }
    std::fs::rename(out, aside).map_err(|e| format!("moving {} aside: {e}", out.display()))?;
    match std::fs::rename(tmp, out) {
        Ok(()) => Ok(Some(aside.to_path_buf())),
        Err(e) => {
            let _ = std::fs::rename(aside, out);
            Err(format!("moving the new output into {}: {e}", out.display()))
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
