//! The hash of a file as it stands, to check it against the hash aifab recorded when it wrote the file
//! (a manifest's `hash:` line, a journal's staged file): the hash the file index keeps,
//! [`super::index::hash`], read a chunk at a time and never through a link.

use std::io::Read as _;
use std::path::Path;

/// Bytes read at a time.
const CHUNK: usize = 64 * 1024;

/// The hash of the regular file at `path` ([`super::index::hash`] of its bytes); `None` for a link, a
/// folder, anything else, or a file that cannot be read.
pub(super) fn of_file(path: &Path) -> Option<u128> {
    let mut fh = crate::files::open_no_follow(path).ok()?;
    if !fh.metadata().ok()?.is_file() {
        return None;
    }
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = vec![0u8; CHUNK];
    loop {
        match fh.read(&mut buf) {
            Ok(0) => return Some(hasher.digest128()),
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
}

/// Whether the regular file at `path` holds bytes hashing to `hash`.
pub(super) fn holds(path: &Path, hash: u128) -> bool {
    of_file(path) == Some(hash)
}

/// Whether the file at `path` (regular, not a link) has no execute, set-id or sticky bit: aifab never
/// writes one that has.
#[cfg(unix)]
pub(super) fn plain_mode(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::symlink_metadata(path)
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o7111 == 0)
}

/// No modes here: any regular file.
#[cfg(not(unix))]
pub(super) fn plain_mode(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file's hash is the one-shot hash of its bytes, across several chunks.
    #[test]
    fn a_file_hashes_as_its_bytes() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("target/tmp")
            .join(format!("aifab-sums-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("mkdir");
        let bytes: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let f = dir.join("f");
        std::fs::write(&f, &bytes).expect("write");
        assert_eq!(of_file(&f), Some(super::super::index::hash(&bytes)));
        assert!(holds(&f, super::super::index::hash(&bytes)));
        assert!(!holds(&f, super::super::index::hash(b"other")));
        assert_eq!(of_file(&dir), None, "a folder holds nothing");
        assert!(plain_mode(&f));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
