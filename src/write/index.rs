//! The output's file index, kept outside the output folder (see [`location`], so the folder, its
//! manifest included, holds the same bytes on every run and machine): for every file aifab wrote, the
//! hash of its bytes and the file's status (size, inode, modification and change times) as it was at
//! the end of the render. A re-render trusts a file whose status is still the recorded one to hold the
//! recorded bytes, so it compares hashes instead of reading the file back, as git's index does. Any
//! difference in status (an edit changes the change time, which no user can set back) falls back to
//! reading and comparing the bytes; so does a file changed in the same clock tick as the index was
//! written (git's "racily clean" case). Without an index (none written yet, no cache folder, another
//! machine) every file is read back, as before it existed.

use std::collections::HashMap;
use std::fs::Metadata;
use std::path::{Path, PathBuf};

/// Overrides the folder that holds the indexes (tests, CI caches).
pub const CACHE_ENV: &str = "AIFAB_CACHE_DIR";

/// Where the index of the output folder `out` is kept: `$AIFAB_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/aifab`, else `$HOME/.cache/aifab`, in a file named after the hash of the folder's
/// canonical path (the same however the path is typed). None when `out` does not exist or no cache
/// folder is known.
pub(super) fn location(out: &Path) -> Option<PathBuf> {
    let base = cache_folder()?;
    let canon = std::fs::canonicalize(out).ok()?;
    let key = hash(canon.as_os_str().as_encoded_bytes());
    Some(base.join(format!("index-{key:032x}")))
}

/// `$AIFAB_CACHE_DIR`, else `$XDG_CACHE_HOME/aifab`, else `$HOME/.cache/aifab`.
#[cfg(not(test))]
fn cache_folder() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var(CACHE_ENV)
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("aifab")))
        .or_else(|| var("HOME").map(|d| d.join(".cache").join("aifab")))
}

/// The library's unit tests keep their indexes under `target/tmp`, never in the user's cache (the
/// environment is the whole test binary's, so they cannot each set `$AIFAB_CACHE_DIR`).
#[cfg(test)]
fn cache_folder() -> Option<PathBuf> {
    Some(PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/target/tmp/unit-cache"
    )))
}

/// Names the hash in every index line: a line with another name is ignored.
const HASH: &str = "xxh3-128";

/// The hash of a file's bytes.
pub(super) fn hash(bytes: &[u8]) -> u128 {
    xxhash_rust::xxh3::xxh3_128(bytes)
}

/// A file's status as recorded: a file is trusted unchanged only while every field is the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Stamp {
    size: u64,
    dev: u64,
    ino: u64,
    mtime_ns: i128,
    ctime_ns: i128,
}

/// The status of a regular file (not a symbolic link); `None` for anything else, or where the system
/// gives no change time.
#[cfg(unix)]
pub(super) fn stamp(m: &Metadata) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt as _;
    let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
    m.is_file().then(|| Stamp {
        size: m.len(),
        dev: m.dev(),
        ino: m.ino(),
        mtime_ns: ns(m.mtime(), m.mtime_nsec()),
        ctime_ns: ns(m.ctime(), m.ctime_nsec()),
    })
}

/// No change time here: no file is ever trusted without reading it.
#[cfg(not(unix))]
pub(super) fn stamp(_: &Metadata) -> Option<Stamp> {
    None
}

/// The previous output's index: what each file held when the index was written.
#[derive(Debug, Default)]
pub(super) struct Index {
    files: HashMap<String, (u128, Stamp)>,
}

impl Index {
    /// Reads the index of the output folder `out`; empty when there is none or it cannot be read.
    /// Entries changed at or after the index file's own modification time are dropped (racily clean).
    pub(super) fn load(out: &Path) -> Index {
        let Some(file) = location(out) else {
            return Index::default();
        };
        // Never through a link, and bounded (a 100K-GPU output with host files indexes about 2.5 MB).
        let text = crate::files::read_own(&file, 256 * 1024 * 1024)
            .ok()
            .and_then(|b| String::from_utf8(b).ok());
        let (Some(text), Ok(meta)) = (text, std::fs::symlink_metadata(&file)) else {
            return Index::default();
        };
        let Some(written) = stamp(&meta) else {
            return Index::default();
        };
        let files = text
            .lines()
            .filter_map(parse)
            .filter(|(_, (_, s))| s.ctime_ns < written.mtime_ns)
            .collect();
        Index { files }
    }

    /// Every entry: path, hash, and the status recorded with it.
    pub(super) fn entries(&self) -> impl Iterator<Item = (&str, u128, Stamp)> {
        self.files.iter().map(|(r, (h, s))| (r.as_str(), *h, *s))
    }

    /// True when the index names no file.
    pub(super) fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Whether the file at `rel`, whose status is `now`, holds bytes hashing to `hash`: known only while
    /// its status is the recorded one.
    pub(super) fn holds(&self, rel: &str, now: Option<Stamp>, hash: u128) -> Known {
        match (self.files.get(rel), now) {
            (Some((h, s)), Some(now)) if *s == now => {
                if *h == hash {
                    Known::Same
                } else {
                    Known::Different
                }
            }
            _ => Known::Unknown,
        }
    }
}

/// What the index says about a file of the previous output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Known {
    /// Unchanged since written, and it holds the new bytes.
    Same,
    /// Unchanged since written, and it holds other bytes.
    Different,
    /// Not in the index or changed since: read it to know.
    Unknown,
}

/// One index line: `xxh3-128 <hash> <size> <dev> <ino> <mtime ns> <ctime ns> <path>`.
pub(super) fn line(rel: &str, hash: u128, s: &Stamp) -> Option<String> {
    (!rel.contains(['\n', '\r'])).then(|| {
        format!(
            "{HASH} {hash:032x} {} {} {} {} {} {rel}\n",
            s.size, s.dev, s.ino, s.mtime_ns, s.ctime_ns
        )
    })
}

/// One index line read back: the path, the hash and the status recorded.
pub(super) fn parse(line: &str) -> Option<(String, (u128, Stamp))> {
    let mut f = line.splitn(8, ' ');
    if f.next()? != HASH {
        return None;
    }
    let hash = u128::from_str_radix(f.next()?, 16).ok()?;
    let stamp = Stamp {
        size: f.next()?.parse().ok()?,
        dev: f.next()?.parse().ok()?,
        ino: f.next()?.parse().ok()?,
        mtime_ns: f.next()?.parse().ok()?,
        ctime_ns: f.next()?.parse().ok()?,
    };
    let rel = f.next().filter(|r| !r.is_empty())?;
    Some((rel.to_string(), (hash, stamp)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip() {
        let s = Stamp {
            size: 12,
            dev: 3,
            ino: 99,
            mtime_ns: 1_700_000_000_123_456_789,
            ctime_ns: 1_700_000_000_223_456_789,
        };
        let text = line("a/b c.cfg", 0xabc, &s).unwrap();
        let (rel, (h, back)) = parse(text.trim_end()).unwrap();
        assert_eq!((rel.as_str(), h, back), ("a/b c.cfg", 0xabc, s));
        assert!(line("a\nb", 1, &s).is_none());
        assert!(parse("md5 00 1 2 3 4 5 x").is_none());
    }
}
