//! Reading an intent or its lock as it was at a git revision, for `diff --against` and `plan
//! --against`, and the lock's committed history for a render (docs/lock.md). Every read is bounded
//! as a read of the work tree is: the intent by its 4 MiB, the lock by its 256 MiB, the history by a
//! count of commits and the bytes read of each.

pub mod history;

use crate::diag::Source;
use std::io::Read as _;
use std::path::Path;
use std::process::{Command, Stdio};

/// Why a file could not be read at a revision, with the file and the revision it names.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// git could not be run, or its output read.
    #[error("running git: {0}")]
    Run(std::io::Error),
    /// The revision starts with `-`: git would take it for an option.
    #[error("revision `{0}` looks like an option")]
    OptionLike(String),
    /// git knows no such revision in the repository that holds the file.
    #[error("git: `{rev}` is not a revision of the repository that holds {path}")]
    NotARevision {
        /// The revision asked for.
        rev: String,
        /// The file asked for.
        path: String,
    },
    /// The path names no file.
    #[error("{0}: not a file")]
    NotAFile(String),
    /// The file at the revision could not be read within its bound.
    #[error("{path} at {rev}: {why}")]
    Blob {
        /// The file.
        path: String,
        /// The revision.
        rev: String,
        /// What went wrong.
        why: BlobError,
    },
    /// The file at the revision is not UTF-8.
    #[error("{path} at {rev} is not UTF-8")]
    NotUtf8 {
        /// The file.
        path: String,
        /// The revision.
        rev: String,
    },
}

/// Why a blob could not be read within its bound.
#[derive(Debug, thiserror::Error)]
pub enum BlobError {
    /// git could not be run.
    #[error("running git: {0}")]
    Run(std::io::Error),
    /// `git cat-file -s` gave no size.
    #[error("git cat-file -s {0}: no size")]
    NoSize(String),
    /// Larger than the bound (the size git gives, when it gave one).
    #[error("larger than {max} bytes{}", size.map(|s| format!(" ({s})")).unwrap_or_default())]
    TooLarge {
        /// The bound.
        max: u64,
        /// The size git gave.
        size: Option<u64>,
    },
    /// git's output could not be read.
    #[error("reading git's output: {0}")]
    Read(std::io::Error),
    /// git could not show the blob.
    #[error("git cat-file blob {0} failed")]
    Failed(String),
}

/// Runs `git -C dir <args>`; its output, or why it could not run.
fn git(dir: &Path, args: &[&str]) -> Result<std::process::Output, GitError> {
    std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(GitError::Run)
}

/// Reads `path` as it was at `rev`, through git, from the folder that holds it; `None` when the
/// revision exists but the file did not (an intent added since: every device is new). A revision git
/// does not know is an error, and so is a file over the intent's limit
/// ([`crate::load::MAX_FILE_BYTES`]), read no further than that.
pub fn git_show(rev: &str, path: &str) -> Result<Option<Source>, GitError> {
    git_show_bounded(rev, path, crate::load::MAX_FILE_BYTES as u64)
}

/// [`git_show`] of a lock file, bounded by the lock's own limit
/// ([`crate::lock::read::MAX_LOCK_BYTES`]: a large fabric's lock is tens of MB).
pub fn git_show_lock(rev: &str, path: &str) -> Result<Option<Source>, GitError> {
    git_show_bounded(rev, path, crate::lock::read::MAX_LOCK_BYTES)
}

/// [`git_show`] with at most `max` bytes read.
fn git_show_bounded(rev: &str, path: &str, max: u64) -> Result<Option<Source>, GitError> {
    let (dir, name) = dir_and_name(path)?;
    if rev.starts_with('-') {
        return Err(GitError::OptionLike(rev.to_string()));
    }
    let commit = git(
        dir,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )?;
    if !commit.status.success() {
        return Err(GitError::NotARevision {
            rev: rev.to_string(),
            path: path.to_string(),
        });
    }
    let spec = format!("{rev}:./{name}");
    if !git(dir, &["cat-file", "-e", &spec])?.status.success() {
        return Ok(None);
    }
    let at = || (path.to_string(), rev.to_string());
    let bytes = read_blob(dir, &spec, max).map_err(|why| {
        let (path, rev) = at();
        GitError::Blob { path, rev, why }
    })?;
    let text = String::from_utf8(bytes).map_err(|_| {
        let (path, rev) = at();
        GitError::NotUtf8 { path, rev }
    })?;
    Ok(Some(Source::new(format!("{path}@{rev}"), text)))
}

/// The folder that holds `path` (`.` for a bare name) and its file name.
fn dir_and_name(path: &str) -> Result<(&Path, String), GitError> {
    let p = Path::new(path);
    let dir = p
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = p
        .file_name()
        .ok_or_else(|| GitError::NotAFile(path.to_string()))?
        .to_string_lossy()
        .into_owned();
    Ok((dir, name))
}

/// The blob `spec` (`rev:./name`), refused when git says it is larger than `max` bytes, and never read
/// past `max` bytes whatever git says.
fn read_blob(dir: &Path, spec: &str, max: u64) -> Result<Vec<u8>, BlobError> {
    let size = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["cat-file", "-s", spec])
        .output()
        .map_err(BlobError::Run)?;
    let size: u64 = String::from_utf8_lossy(&size.stdout)
        .trim()
        .parse()
        .map_err(|_| BlobError::NoSize(spec.to_string()))?;
    if size > max {
        return Err(BlobError::TooLarge {
            max,
            size: Some(size),
        });
    }
    let bytes = read_head(dir, spec, max.saturating_add(1))?;
    if bytes.len() as u64 > max {
        return Err(BlobError::TooLarge { max, size: None });
    }
    Ok(bytes)
}

/// At most the first `max` bytes of blob `spec`, read from `git cat-file` (stopped once that many are
/// read); an error when git cannot show it.
fn read_head(dir: &Path, spec: &str, max: u64) -> Result<Vec<u8>, BlobError> {
    let mut child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["cat-file", "blob", spec])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(BlobError::Run)?;
    let mut bytes = Vec::new();
    let read = child
        .stdout
        .take()
        .map(|out| out.take(max).read_to_end(&mut bytes));
    // Whatever git has not written yet is not wanted: it is stopped, and waited for.
    if bytes.len() as u64 >= max {
        let _ = child.kill();
    }
    let status = child.wait().map_err(BlobError::Run)?;
    match read {
        Some(Ok(_)) if status.success() || bytes.len() as u64 >= max => Ok(bytes),
        Some(Err(e)) => Err(BlobError::Read(e)),
        _ => Err(BlobError::Failed(spec.to_string())),
    }
}

/// The path `path` had at `rev` when git sees it renamed since (`git mv`, committed or not), beside
/// `path`'s folder as the caller names it; `None` when git sees no rename.
pub fn renamed_from(rev: &str, path: &str) -> Option<String> {
    let p = Path::new(path);
    let dir = p
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = p.file_name()?.to_str()?;
    if rev.starts_with('-') {
        return None;
    }
    let out = git(
        dir,
        &["diff", "--name-status", "-M", "--relative", rev, "--", "."],
    )
    .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    text.lines().find_map(|l| {
        let mut f = l.split('\t');
        let (status, from, to) = (f.next()?, f.next()?, f.next()?);
        (status.starts_with('R') && to == name)
            .then(|| dir.join(from).to_string_lossy().into_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch repository with one commit holding `x.txt` of `size` bytes.
    fn repo(name: &str, size: usize) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("aifab-git-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch");
        std::fs::write(dir.join("x.txt"), "a".repeat(size)).expect("write");
        for args in [
            &["init", "-q"][..],
            &["add", "x.txt"],
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@example.com",
                "-c",
                "commit.gpgsign=false",
                "commit",
                "-qm",
                "one",
            ],
        ] {
            assert!(git(&dir, args).expect("git").status.success(), "{args:?}");
        }
        dir
    }

    #[test]
    fn a_file_at_a_revision_is_read_no_further_than_its_bound() {
        let dir = repo("bound", 200_000);
        let path = dir.join("x.txt").to_string_lossy().into_owned();
        assert_eq!(
            read_head(&dir, "HEAD:./x.txt", 100).expect("head").len(),
            100
        );
        let err = git_show_bounded("HEAD", &path, 1000).expect_err("over the bound");
        let err = err.to_string();
        assert!(err.contains("larger than 1000 bytes"), "{err}");
        let whole = git_show_bounded("HEAD", &path, 200_000).expect("at the bound");
        assert_eq!(whole.map(|s| s.text.len()), Some(200_000));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
