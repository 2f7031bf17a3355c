//! The repository boundary (docs/security.md): the one folder aifab reads from and writes to. It is
//! git's work tree around the intent, or without git the folder of the project file `aifab.yaml`
//! found beside or above it, or else the intent's own folder. A path is inside when, fully resolved
//! (every component, every link), it lies below that folder; a link that leaves it is refused with
//! the path, where it resolves to and the root.
//!
//! What the repository says (a link, a file below a folder, a folder the project file names) must stay
//! inside. A folder typed on the command line that lies outside the repository, with no link of the
//! repository on its way, is the user's own choice (`--out /tmp/x`, `--state /tmp/state`): a pull
//! request changes the repository, not the command line CI runs.

use std::path::{Component, Path, PathBuf};

/// The project file's name (`src/project.rs` reads it).
pub const PROJECT_FILE: &str = "aifab.yaml";

/// How the root was found, for the messages that name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootKind {
    /// The git work tree (a folder holding `.git`).
    Git,
    /// The folder of the project file, without git.
    Project,
    /// The intent's (or the file's) own folder: neither git nor a project file above it.
    Intent,
}

/// Where a path to check came from: the repository's own content must stay inside; a folder typed on
/// the command line may lie outside, as long as no link of the repository leads it there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Named by the repository: a link, a file below a folder, a path in `aifab.yaml`.
    Repository,
    /// Typed by the user on the command line.
    CommandLine,
}

/// The repository root of one run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Root {
    dir: PathBuf,
    kind: RootKind,
    project_file: Option<PathBuf>,
}

/// A path refused: it resolves outside the root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The path as given.
    pub path: PathBuf,
    /// Where it resolves to (`None`: a link that cannot be followed).
    pub resolved: Option<PathBuf>,
    /// The root it leaves.
    pub root: PathBuf,
    /// How the root was found.
    pub kind: RootKind,
}

/// A refusal is the error of a read or a write it stops.
impl std::error::Error for Refusal {}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let root = match self.kind {
            RootKind::Git => format!("the repository {}", self.root.display()),
            RootKind::Project => format!(
                "the repository {} (the folder of {PROJECT_FILE}; no .git)",
                self.root.display()
            ),
            RootKind::Intent => format!(
                "the folder {} (no .git or {PROJECT_FILE} above it marks a repository)",
                self.root.display()
            ),
        };
        let is_link = std::fs::symlink_metadata(&self.path).is_ok_and(|m| m.is_symlink());
        let how = match (&self.resolved, is_link) {
            (None, _) => "is a symbolic link that cannot be followed".to_string(),
            (Some(t), true) => format!("is a symbolic link to {}", t.display()),
            (Some(t), false) => format!("resolves to {} through a linked folder", t.display()),
        };
        write!(
            f,
            "{} {how}, outside {root}: aifab reads and writes nothing outside the repository it works in (docs/security.md); copy the file or folder in instead",
            self.path.display()
        )
    }
}

impl Root {
    /// The root around `file` (an intent, or a file beside one): the nearest folder above it that holds
    /// `.git`; without one, the nearest that holds `aifab.yaml`; else the file's own folder. Folders
    /// are taken as written (not resolved), so a linked folder on the way cannot choose another
    /// repository; a folder that is itself a link is never the root.
    pub fn of(file: &Path) -> Root {
        let abs = absolute(file);
        let folder = abs.parent().unwrap_or(Path::new("/")).to_path_buf();
        let mut project = None;
        let mut own = None;
        for dir in folder.ancestors() {
            if !real_folder(dir) {
                continue;
            }
            own.get_or_insert(dir);
            if project.is_none() && dir.join(PROJECT_FILE).is_file() {
                project = Some(dir);
            }
            if std::fs::symlink_metadata(dir.join(".git")).is_ok() {
                return Root::found(dir, RootKind::Git, project);
            }
        }
        match project {
            Some(p) => Root::found(p, RootKind::Project, Some(p)),
            None => Root::found(own.unwrap_or(&folder), RootKind::Intent, None),
        }
    }

    fn found(dir: &Path, kind: RootKind, project: Option<&Path>) -> Root {
        Root {
            dir: std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf()),
            kind,
            project_file: project.map(|p| p.join(PROJECT_FILE)),
        }
    }

    /// The root folder, resolved.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// How the root was found.
    pub fn kind(&self) -> RootKind {
        self.kind
    }

    /// The project file that applies (beside or above the intent, not above git's work tree), as
    /// written.
    pub fn project_file(&self) -> Option<&Path> {
        self.project_file.as_deref()
    }

    /// Whether `path`, fully resolved, lies inside the root. A path that does not exist yet (an output
    /// folder) is resolved as far as it exists. From the command line, a path typed outside the root
    /// that no link of the repository leads there is accepted as the user's own.
    pub fn admit(&self, path: &Path, origin: Origin) -> Result<(), Refusal> {
        let resolved = resolve(path);
        if resolved.as_ref().is_some_and(|r| r.starts_with(&self.dir)) {
            return Ok(());
        }
        if origin == Origin::CommandLine && self.typed_outside(path, resolved.as_deref()) {
            return Ok(());
        }
        Err(Refusal {
            path: path.to_path_buf(),
            resolved,
            root: self.dir.clone(),
            kind: self.kind,
        })
    }

    /// Whether `path` as typed (made absolute, `.` and `..` taken lexically) stays out of the root all
    /// the way: no folder on it resolves inside the root (so no link of the repository is on its way),
    /// no folder on it below the working folder is a link (the tree around the intent's folder, when
    /// that folder is the root, is no more trusted than the repository), and it resolves where it says.
    fn typed_outside(&self, path: &Path, resolved: Option<&Path>) -> bool {
        let typed = absolute(path);
        let enters = typed
            .ancestors()
            .filter_map(|a| std::fs::canonicalize(a).ok())
            .any(|a| a.starts_with(&self.dir));
        let cwd = std::env::current_dir().unwrap_or_default();
        let linked_below_cwd = typed
            .ancestors()
            .filter(|a| a.starts_with(&cwd) && *a != cwd)
            .any(|a| std::fs::symlink_metadata(a).is_ok_and(|m| m.is_symlink()));
        !enters
            && !linked_below_cwd
            && resolved.is_some_and(|r| resolve(&typed).as_deref() == Some(r))
    }
}

/// Whether `dir` exists as a folder and is not itself a symbolic link.
fn real_folder(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir())
}

/// `path` made absolute against the working folder, `.` dropped and `..` taken lexically.
pub fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .unwrap_or_else(|_| PathBuf::from("/"))
            .join(path)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `path` fully resolved: every link of its existing part followed; the part that does not exist yet
/// appended as written. `None` for a link that cannot be followed (dangling, a loop).
pub fn resolve(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = std::fs::canonicalize(path) {
        return Some(p);
    }
    let abs = absolute_keeping_parents(path);
    let mut missing = Vec::new();
    let mut at = abs.as_path();
    loop {
        if std::fs::symlink_metadata(at).is_ok() {
            // It exists but does not resolve: a dangling link on the way.
            let mut base = std::fs::canonicalize(at).ok()?;
            for part in missing.iter().rev() {
                match *part {
                    Component::ParentDir => {
                        base.pop();
                    }
                    Component::CurDir => {}
                    c => base.push(c),
                }
            }
            return Some(base);
        }
        let (Some(parent), Some(last)) = (at.parent(), at.components().next_back()) else {
            return None;
        };
        missing.push(last);
        at = parent;
    }
}

/// `path` made absolute against the working folder, its `..` kept (the kernel resolves them after the
/// links before them).
fn absolute_keeping_parents(path: &Path) -> PathBuf {
    if path.is_absolute() {
        return path.to_path_buf();
    }
    std::env::current_dir()
        .unwrap_or_else(|_| PathBuf::from("/"))
        .join(path)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A scratch folder outside any repository (the system's temporary folder).
    fn scratch(name: &str) -> PathBuf {
        let t = std::env::temp_dir().join(format!("aifab-boundary-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&t);
        std::fs::create_dir_all(&t).expect("mkdir");
        std::fs::canonicalize(&t).expect("canonical")
    }

    #[test]
    fn the_root_is_git_then_the_project_file_then_the_intent_folder() {
        let t = scratch("kinds");
        std::fs::create_dir_all(t.join("a/b/c")).expect("mkdir");
        let intent = t.join("a/b/c/x.yaml");
        assert_eq!(Root::of(&intent).kind(), RootKind::Intent);
        assert_eq!(Root::of(&intent).dir(), t.join("a/b/c"));
        std::fs::write(t.join("a/aifab.yaml"), "").expect("write");
        let r = Root::of(&intent);
        assert_eq!(
            (r.kind(), r.dir()),
            (RootKind::Project, t.join("a").as_path())
        );
        assert_eq!(r.project_file(), Some(t.join("a/aifab.yaml").as_path()));
        std::fs::create_dir(t.join("a/b/.git")).expect("mkdir");
        let r = Root::of(&intent);
        assert_eq!(
            (r.kind(), r.dir()),
            (RootKind::Git, t.join("a/b").as_path())
        );
        assert_eq!(r.project_file(), None, "no project file above git's root");
        let _ = std::fs::remove_dir_all(&t);
    }

    #[test]
    fn a_linked_folder_cannot_choose_the_root_and_what_leaves_is_refused() {
        let t = scratch("linked");
        let (repo, elsewhere) = (t.join("repo"), t.join("elsewhere"));
        std::fs::create_dir_all(repo.join(".git")).expect("mkdir");
        std::fs::create_dir_all(elsewhere.join(".git")).expect("mkdir");
        std::fs::write(elsewhere.join("x.yaml"), "x").expect("write");
        symlink(&elsewhere, repo.join("intents")).expect("link");
        let intent = repo.join("intents/x.yaml");
        let root = Root::of(&intent);
        assert_eq!(root.dir(), repo, "the link's own .git is not the root");
        let e = root.admit(&intent, Origin::Repository).expect_err("leaves");
        assert_eq!(
            e.resolved.as_deref(),
            Some(elsewhere.join("x.yaml").as_path())
        );
        assert!(e.to_string().contains("through a linked folder"), "{e}");
        // Typed on the command line, through the repository's link: still refused.
        assert!(root.admit(&intent, Origin::CommandLine).is_err());
        // Typed outside the repository, no link of it on the way: the user's own.
        assert!(
            root.admit(&elsewhere.join("out"), Origin::CommandLine)
                .is_ok()
        );
        assert!(
            root.admit(&elsewhere.join("out"), Origin::Repository)
                .is_err()
        );
        // Inside, with `..`, absent yet, or through a link that stays inside: admitted.
        std::fs::create_dir_all(repo.join("a")).expect("mkdir");
        symlink("a", repo.join("in")).expect("link");
        for ok in ["a/../out/new", "in/x", "./a"] {
            assert!(
                root.admit(&repo.join(ok), Origin::Repository).is_ok(),
                "{ok}"
            );
        }
        // A dangling link is refused: what it names cannot be known inside.
        symlink("/nonexistent/aifab", repo.join("dangling")).expect("link");
        let e = root
            .admit(&repo.join("dangling"), Origin::Repository)
            .expect_err("dangling");
        assert!(e.to_string().contains("outside"), "{e}");
        let _ = std::fs::remove_dir_all(&t);
    }
}
