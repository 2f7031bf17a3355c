//! A file's committed history, looked at within bounds: the newest commits reachable from HEAD that
//! changed it, their blobs' sizes asked of git first, and the first bytes of each version read until a
//! budget of bytes is spent (git inflates a whole version to show any of it: a 100K-GPU lock is tens
//! of MB a version). The version the work tree holds unchanged is not read at all.

use super::{dir_and_name, git, read_head};
use std::io::{Read as _, Write as _};
use std::path::Path;
use std::process::{Command, Stdio};

/// How far a look at a file's history goes.
pub struct Bounds {
    /// The newest commits that changed the file, at most.
    pub commits: usize,
    /// The bytes kept of each version read.
    pub head_bytes: u64,
    /// The bytes of the versions read, together, at most (their sizes as git gives them).
    pub budget: u64,
}

/// What was read of one committed version of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Blob {
    /// Its first bytes (at most [`Bounds::head_bytes`]).
    Head(Vec<u8>),
    /// The commit removed the file.
    Removed,
    /// The version the work tree holds, unchanged since HEAD: not read (the caller has it).
    WorkTree,
    /// Not read: the budget was spent, or git could not show it.
    NotRead,
}

/// One commit of a file's history and what was read of the file there.
pub struct Version {
    /// The commit's id.
    pub commit: String,
    /// The file at that commit.
    pub blob: Blob,
    /// Where git has it: `commit:path`.
    spec: String,
}

impl Version {
    /// The whole file at this commit, read from git no further than `max` bytes (`path` the file's
    /// path in the work tree, which gives the repository); `None` when git cannot show it, it is
    /// larger, or it is not UTF-8.
    pub fn read_whole(&self, path: &Path, max: u64) -> Option<String> {
        let (dir, _) = dir_and_name(path.to_str()?).ok()?;
        String::from_utf8(super::read_blob(dir, &self.spec, max).ok()?).ok()
    }
}

/// The newest [`Bounds::commits`] commits reachable from HEAD that changed `path`, newest first, with
/// what [`Bounds`] allow of the file at each. Empty outside a git work tree, before the first commit,
/// and for a file git never held.
pub fn history(path: &Path, bounds: &Bounds) -> Vec<Version> {
    let Some((dir, name)) = path.to_str().and_then(|p| dir_and_name(p).ok()) else {
        return Vec::new();
    };
    let file = format!("./{name}");
    let Some((commits, specs)) = commits(dir, &file, bounds.commits) else {
        return Vec::new();
    };
    let objects = objects(dir, &specs);
    // `git diff --quiet` compares by the index's file stamps: no read of an unchanged file.
    let unchanged =
        git(dir, &["diff", "--quiet", "HEAD", "--", &file]).is_ok_and(|o| o.status.success());
    let work_tree = objects
        .first()
        .and_then(|o| o.as_ref())
        .filter(|_| unchanged)
        .map(|(oid, _)| oid.clone());
    let (mut spent, mut read): (u64, Vec<(String, Vec<u8>)>) = (0, Vec::new());
    let mut blob_of = |spec: &str, object: &Option<(String, u64)>| {
        let Some((oid, size)) = object else {
            return Blob::Removed;
        };
        if work_tree.as_ref() == Some(oid) {
            return Blob::WorkTree;
        }
        if let Some((_, head)) = read.iter().find(|(o, _)| o == oid) {
            return Blob::Head(head.clone());
        }
        if spent.saturating_add(*size) > bounds.budget {
            return Blob::NotRead;
        }
        spent += size;
        match read_head(dir, spec, bounds.head_bytes) {
            Ok(head) => {
                read.push((oid.clone(), head.clone()));
                Blob::Head(head)
            }
            Err(_) => Blob::NotRead,
        }
    };
    commits
        .iter()
        .zip(&specs)
        .zip(objects.iter().chain(std::iter::repeat(&None)))
        .map(|((commit, spec), object)| Version {
            commit: commit.clone(),
            blob: blob_of(spec, object),
            spec: spec.clone(),
        })
        .collect()
}

/// The newest `limit` commits reachable from HEAD that changed `file` (`./name` in `dir`), followed
/// across renames (`git mv` of an intent and its lock), and the spec of the file at each
/// (`commit:path`, the path it had there from the repository's root); `None` outside a git work tree.
fn commits(dir: &Path, file: &str, limit: usize) -> Option<(Vec<String>, Vec<String>)> {
    let prefix = git(dir, &["rev-parse", "--show-prefix"]).ok()?;
    let prefix = String::from_utf8_lossy(&prefix.stdout).trim().to_string();
    let name = file.strip_prefix("./").unwrap_or(file);
    let limit = format!("-n{limit}");
    let args = [
        "log",
        "--follow",
        &limit,
        "--name-only",
        "--format=commit %H",
        "HEAD",
        "--",
        file,
    ];
    let log = git(dir, &args).ok().filter(|o| o.status.success())?;
    let (mut commits, mut paths): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    // Newest first; a commit that names no path (a merge) holds the path of the one after it.
    let mut path = format!("{prefix}{name}");
    for line in String::from_utf8_lossy(&log.stdout).lines() {
        if let Some(c) = line.strip_prefix("commit ") {
            commits.push(c.to_string());
            paths.push(path.clone());
        } else if !line.is_empty()
            && let Some(last) = paths.last_mut()
        {
            path = line.to_string();
            *last = path.clone();
        }
    }
    let specs = commits
        .iter()
        .zip(&paths)
        .map(|(c, p)| format!("{c}:{p}"))
        .collect();
    Some((commits, specs))
}

/// The blob id and size of each of `specs` (`rev:./path`), `None` for one git does not have (the file
/// removed there), in order: one `git cat-file --batch-check`, which reads no blob.
fn objects(dir: &Path, specs: &[String]) -> Vec<Option<(String, u64)>> {
    let child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["cat-file", "--batch-check"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        return Vec::new();
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(specs.join("\n").as_bytes());
        let _ = stdin.write_all(b"\n");
    }
    let mut out = String::new();
    // One short line a spec.
    let limit = 256 * (specs.len() as u64 + 1);
    if let Some(stdout) = child.stdout.take() {
        let _ = stdout.take(limit).read_to_string(&mut out);
    }
    let _ = child.wait();
    out.lines()
        .map(|line| {
            let mut f = line.split(' ');
            match (f.next(), f.next(), f.next()) {
                (Some(oid), Some("blob"), Some(size)) => {
                    size.parse().ok().map(|n| (oid.to_string(), n))
                }
                _ => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(dir: &Path, args: &[&str]) {
        let ok = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(["-c", "commit.gpgsign=false"])
            .args(args)
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(ok, "git {args:?}");
    }

    /// Four commits of `x.txt` (10, 20, 30 and 40 bytes), then `y.txt` removed after one.
    fn repo() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("aifab-githist-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch");
        run(&dir, &["init", "-q"]);
        for n in 1..=4 {
            std::fs::write(dir.join("x.txt"), format!("{n}").repeat(10 * n)).expect("write");
            std::fs::write(dir.join("y.txt"), "y").expect("write");
            run(&dir, &["add", "x.txt", "y.txt"]);
            run(&dir, &["commit", "-qm", &format!("{n}")]);
        }
        run(&dir, &["rm", "-q", "y.txt"]);
        run(&dir, &["commit", "-qm", "rm"]);
        dir
    }

    #[test]
    fn a_history_is_read_within_its_bounds() {
        let dir = repo();
        let x = dir.join("x.txt");
        let all = Bounds {
            commits: 16,
            head_bytes: 4,
            budget: 1000,
        };
        let v = history(&x, &all);
        // The work tree holds the newest version: not read.
        let blobs: Vec<&Blob> = v.iter().map(|v| &v.blob).collect();
        assert_eq!(blobs[0], &Blob::WorkTree);
        assert_eq!(blobs[1], &Blob::Head(b"3333".to_vec()));
        assert_eq!(v.len(), 4);
        // Changed in the work tree: the newest is read too; two commits only.
        std::fs::write(&x, "changed").expect("write");
        let two = Bounds { commits: 2, ..all };
        let v = history(&x, &two);
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].blob, Blob::Head(b"4444".to_vec()));
        // A budget of 70 bytes: the 40- and 30-byte versions, not the 20-byte one.
        let tight = Bounds { budget: 70, ..all };
        let v = history(&x, &tight);
        let read: Vec<bool> = v.iter().map(|v| matches!(v.blob, Blob::Head(_))).collect();
        assert_eq!(read, [true, true, false, false]);
        // A removed file: its removal is the newest version.
        let y = history(&dir.join("y.txt"), &all);
        assert_eq!(y[0].blob, Blob::Removed);
        assert_eq!(y[1].blob, Blob::Head(b"y".to_vec()));
        assert!(history(&dir.join("absent.txt"), &all).is_empty());
        // Renamed: the history goes on under the old name.
        std::fs::write(&x, "4".repeat(40)).expect("restore");
        run(&dir, &["mv", "x.txt", "z.txt"]);
        run(&dir, &["commit", "-qm", "renamed"]);
        let z = history(&dir.join("z.txt"), &all);
        let blobs: Vec<&Blob> = z.iter().map(|v| &v.blob).collect();
        assert_eq!(blobs.len(), 5, "{blobs:?}");
        assert_eq!(blobs[2], &Blob::Head(b"3333".to_vec()));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
