//! Which files of the previous output a re-render can keep: those whose bytes are the new bytes.

use std::fs::File;
use std::io::Read as _;
use std::path::Path;

/// Bytes read at a time when comparing.
const CHUNK: usize = 32 * 1024;

/// True when `path` is a regular file (not a link to one) holding exactly `want`.
pub(super) fn same_bytes(path: &Path, want: &[u8]) -> bool {
    open_no_follow(path).is_ok_and(|fh| holds(fh, want))
}

/// True when the open file `fh` is a regular file holding exactly `want`, read a chunk at a time.
pub(super) fn holds(mut fh: File, want: &[u8]) -> bool {
    match fh.metadata() {
        Ok(m) if m.is_file() && m.len() == want.len() as u64 => {}
        _ => return false,
    }
    let mut buf = [0u8; CHUNK];
    let mut rest = want;
    loop {
        match fh.read(&mut buf) {
            Ok(0) => return rest.is_empty(),
            Ok(n) if n <= rest.len() && buf[..n] == rest[..n] => rest = &rest[n..],
            Ok(_) => return false,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
}

/// Opens `path` for reading; a symbolic link fails to open rather than being followed (a link is never
/// what aifab wrote, so it is never kept).
#[cfg(unix)]
fn open_no_follow(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

/// Opens `path` for reading, when it is not a symbolic link.
#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> std::io::Result<File> {
    if std::fs::symlink_metadata(path)?.file_type().is_symlink() {
        return Err(std::io::ErrorKind::InvalidInput.into());
    }
    File::open(path)
}

/// True when a failed hard link means the file system has none (EPERM on Linux, e.g. vfat), links
/// are not allowed here, or not across these folders: linking is not worth trying again.
pub(super) fn links_unsupported(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::Unsupported
            | std::io::ErrorKind::PermissionDenied
            | std::io::ErrorKind::CrossesDevices
    )
}

/// True when `m` is a regular file with a single name: a claimed spare's file no other folder links,
/// which can be rewritten in place.
#[cfg(unix)]
pub(super) fn only_link(m: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    m.is_file() && m.nlink() == 1
}

/// Without link counts, no file is known to be unshared: every file is written anew.
#[cfg(not(unix))]
pub(super) fn only_link(_: &std::fs::Metadata) -> bool {
    false
}

/// Replaces the bytes of the unshared file `path` in place (never through a symbolic link): written
/// over the old bytes, then cut to length, so a file of the same size or larger frees no block (freeing
/// blocks costs a discard on file systems mounted with `discard`) and gets none newly allocated.
/// Returns the open file, for its status.
#[cfg(unix)]
pub(super) fn rewrite(path: &Path, bytes: &[u8]) -> std::io::Result<std::fs::File> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut fh = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    fh.write_all(bytes)?;
    fh.set_len(bytes.len() as u64)?;
    Ok(fh)
}

/// Not reached where [`only_link`] is always false.
#[cfg(not(unix))]
pub(super) fn rewrite(_: &Path, _: &[u8]) -> std::io::Result<std::fs::File> {
    Err(std::io::ErrorKind::Unsupported.into())
}
