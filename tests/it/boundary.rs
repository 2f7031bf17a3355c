//! One boundary, enforced everywhere (issue 47, docs/security.md): the repository root (git's work
//! tree, else the folder of `aifab.yaml`, else the intent's folder) is the only place aifab reads from
//! or writes to. Each attack of the issue, with and without `.git`, is refused with its path, nothing
//! written and nothing of the linked file printed; the paths a user types keep working. The trees lie
//! in the system's temporary folder, outside this repository's own `.git`.

use std::path::{Path, PathBuf};

/// What stands in for `~/.aws/credentials`: it must never reach an output or a message.
const SECRET: &str = "aws_secret_access_key=Leak3dBoundaryValue";

/// How the tree marks its root.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// A `.git` folder at the top.
    Git,
    /// An `aifab.yaml` at the top, no git (a tarball of the repository).
    Project,
    /// Neither: the intent's folder is the root.
    Bare,
}

const KINDS: [Kind; 3] = [Kind::Git, Kind::Project, Kind::Bare];

/// A repository and a folder outside it, side by side in the temporary folder.
struct Tree {
    top: PathBuf,
    repo: PathBuf,
    outside: PathBuf,
}

impl Tree {
    fn new(name: &str, kind: Kind) -> Tree {
        let top = std::env::temp_dir().join(format!(
            "aifab-boundary-{name}-{kind:?}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&top);
        let (repo, outside) = (top.join("repo"), top.join("outside"));
        for d in [&repo, &outside] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        let root = crate::common::root();
        std::fs::copy(
            root.join("intents/three-tier-small.yaml"),
            repo.join("fab.yaml"),
        )
        .expect("copy");
        std::fs::write(outside.join("credentials"), format!("{SECRET}\n")).expect("write");
        match kind {
            Kind::Git => std::fs::create_dir(repo.join(".git")).expect("mkdir"),
            Kind::Project => std::fs::write(repo.join("aifab.yaml"), "# the top\n").expect("write"),
            Kind::Bare => {}
        }
        Tree { top, repo, outside }
    }

    /// Runs aifab in `dir` (the probe variable set): exit code and stdout+stderr.
    fn run_in(&self, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String) {
        let mut c = crate::common::aifab_command();
        c.args(args)
            .current_dir(dir)
            .env("NO_COLOR", "1")
            .env("AIFAB_LEAK_PROBE", "probe-Leak3dEnvironValue")
            .env("AIFAB_CACHE_DIR", self.top.join("cache"));
        for (k, v) in env {
            c.env(k, v);
        }
        let o = c.output().expect("run aifab");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        (o.status.code().unwrap_or(-1), text)
    }

    fn run(&self, args: &[&str]) -> (i32, String) {
        self.run_in(&self.repo, args, &[])
    }

    /// Asserts `args` is refused (exit 2) naming `path` as outside, with nothing of the linked files
    /// printed.
    fn refused(&self, args: &[&str], path: &str) {
        let (code, text) = self.run(args);
        assert_eq!(code, 2, "{args:?}: {text}");
        assert!(text.contains(path), "{args:?} names {path}: {text}");
        assert!(text.contains("outside"), "{args:?}: {text}");
        assert!(
            !text.contains("Leak3d"),
            "{args:?} printed a secret: {text}"
        );
    }

    /// Every file under the outside folder and the repository's `out`, and nothing of them holding the
    /// secret but the credentials themselves.
    fn nothing_leaked(&self) {
        for dir in [&self.repo, &self.outside] {
            for f in files(dir) {
                if f.ends_with("credentials") {
                    continue;
                }
                let bytes = std::fs::read(&f).unwrap_or_default();
                assert!(
                    !String::from_utf8_lossy(&bytes).contains("Leak3d"),
                    "{} holds a secret",
                    f.display()
                );
            }
        }
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.top);
        }
    }
}

/// Every regular file below `dir`, links not followed.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let Ok(t) = e.file_type() else { continue };
        if t.is_dir() {
            out.extend(files(&e.path()));
        } else if t.is_file() {
            out.push(e.path());
        }
    }
    out
}

#[cfg(unix)]
fn link(target: &Path, at: &Path) {
    if let Some(p) = at.parent() {
        std::fs::create_dir_all(p).expect("mkdir");
    }
    std::os::unix::fs::symlink(target, at).expect("link");
}

#[cfg(unix)]
#[test]
fn a_template_folder_linked_out_of_the_repository_is_refused() {
    for kind in KINDS {
        let t = Tree::new("templates", kind);
        // templates/eos -> /elsewhere, whose baseline.j2 -> the credentials.
        link(
            &t.outside.join("credentials"),
            &t.outside.join("eos/baseline.j2"),
        );
        link(&t.outside.join("eos"), &t.repo.join("site/templates/eos"));
        let render = [
            "render",
            "fab.yaml",
            "--out",
            "out",
            "-q",
            "--templates",
            "site/templates",
        ];
        t.refused(&render, "site/templates/eos/baseline.j2");
        // The same folder named by the project file.
        if kind != Kind::Bare {
            std::fs::write(t.repo.join("aifab.yaml"), "templates: site/templates\n")
                .expect("write");
            t.refused(&render[..5], "site/templates/eos/baseline.j2");
        }
        // The template folder itself a link out.
        std::fs::remove_dir_all(t.repo.join("site")).expect("rm");
        link(&t.outside, &t.repo.join("site/templates"));
        t.refused(&render, "site/templates");
        assert!(!t.repo.join("out").exists(), "{kind:?}: nothing written");
        t.nothing_leaked();
    }
}

#[cfg(unix)]
#[test]
fn a_platform_folder_linked_out_of_the_repository_is_refused() {
    for kind in KINDS {
        let t = Tree::new("platforms", kind);
        std::fs::create_dir_all(t.outside.join("platforms")).expect("mkdir");
        link(
            &t.outside.join("credentials"),
            &t.outside.join("platforms/eos.yaml"),
        );
        link(&t.outside.join("platforms"), &t.repo.join("site/platforms"));
        let args = ["validate", "fab.yaml", "--platforms", "site/platforms"];
        t.refused(&args, "site/platforms");
        // A real folder holding a file that links out.
        std::fs::remove_file(t.repo.join("site/platforms")).expect("rm");
        link(
            &t.outside.join("credentials"),
            &t.repo.join("site/platforms/eos.yaml"),
        );
        t.refused(&args, "site/platforms/eos.yaml");
        t.nothing_leaked();
    }
}

#[cfg(unix)]
#[test]
fn an_intent_or_lock_through_a_linked_folder_or_link_is_refused() {
    for kind in KINDS {
        let t = Tree::new("intent", kind);
        std::fs::create_dir_all(t.outside.join("intents")).expect("mkdir");
        let text = std::fs::read_to_string(t.repo.join("fab.yaml")).expect("read");
        std::fs::write(
            t.outside.join("intents/fab.yaml"),
            format!("{text}{SECRET}: [\n"),
        )
        .expect("write");
        link(&t.outside.join("intents"), &t.repo.join("intents"));
        // The lock beside it is looked for first: either is named, through the linked folder.
        t.refused(&["validate", "intents/fab.yaml"], "intents/fab");
        // Without git too, an intent or a lock that links to the environment is not read.
        link(Path::new("/proc/self/environ"), &t.repo.join("env.yaml"));
        t.refused(
            &["validate", "env.yaml"],
            "env.yaml is a symbolic link to /proc/",
        );
        link(
            Path::new("/proc/self/environ"),
            &t.repo.join("fab.lock.yaml"),
        );
        t.refused(
            &["render", "fab.yaml", "--out", "out", "-q"],
            "fab.lock.yaml is a symbolic link to /proc/",
        );
        assert!(!t.repo.join("out").exists(), "{kind:?}: nothing written");
    }
}

#[cfg(unix)]
#[test]
fn a_golden_file_linked_to_the_environment_is_not_read_without_git() {
    for kind in KINDS {
        let t = Tree::new("golden", kind);
        let (code, text) = t.run(&["render", "fab.yaml", "--out", "out", "-q"]);
        assert_eq!(code, 0, "{kind:?}: {text}");
        std::fs::remove_file(t.repo.join("out/ss1.cfg")).expect("rm");
        link(Path::new("/proc/self/environ"), &t.repo.join("out/ss1.cfg"));
        t.refused(&["render", "fab.yaml", "--check", "out"], "out/ss1.cfg");
        // The golden folder itself a link out.
        link(&t.outside, &t.repo.join("golden"));
        t.refused(&["render", "fab.yaml", "--check", "golden"], "golden");
    }
}

#[cfg(unix)]
#[test]
fn an_output_folder_through_a_link_out_of_the_repository_is_refused() {
    for kind in KINDS {
        let t = Tree::new("out", kind);
        std::fs::create_dir_all(t.outside.join("build")).expect("mkdir");
        link(&t.outside.join("build"), &t.repo.join("build"));
        t.refused(&["render", "fab.yaml", "--out", "build/x", "-q"], "build/x");
        link(&t.outside.join("build"), &t.repo.join("out"));
        t.refused(&["render", "fab.yaml", "--out", "out", "-q"], "out");
        t.refused(
            &["render", "fab.yaml", "--out", "./out/../out/sub", "-q"],
            "out/sub",
        );
        assert!(
            files(&t.outside.join("build")).is_empty(),
            "{kind:?}: nothing written"
        );
        assert!(
            !t.repo.join("fab.lock.yaml").exists(),
            "{kind:?}: no lock written"
        );
        // Folders a command reads switches' state from, or writes the push files into.
        std::fs::create_dir_all(t.outside.join("state")).expect("mkdir");
        link(&t.outside.join("state"), &t.repo.join("state"));
        t.refused(&["verify", "fab.yaml", "--state", "state", "-q"], "state");
        t.refused(&["drift", "fab.yaml", "--running", "state", "-q"], "state");
        t.refused(
            &[
                "drift",
                "fab.yaml",
                "--running",
                "running",
                "--write",
                "build/push",
                "-q",
            ],
            "build/push",
        );
    }
}

#[cfg(unix)]
#[test]
fn without_a_marked_root_the_tree_above_the_intent_still_cannot_lead_out() {
    // No .git, no aifab.yaml: the root is intents/, yet the tarball's top, where the command runs, is
    // no more trusted: a link there is not followed, a real sibling folder is the user's.
    let t = Tree::new("bare-top", Kind::Bare);
    std::fs::create_dir_all(t.repo.join("intents")).expect("mkdir");
    std::fs::rename(t.repo.join("fab.yaml"), t.repo.join("intents/fab.yaml")).expect("mv");
    std::fs::create_dir_all(t.outside.join("build")).expect("mkdir");
    link(&t.outside.join("build"), &t.repo.join("build"));
    t.refused(
        &["render", "intents/fab.yaml", "--out", "build/x", "-q"],
        "build/x",
    );
    assert!(
        files(&t.outside.join("build")).is_empty(),
        "nothing written"
    );
    let (code, text) = t.run(&["render", "intents/fab.yaml", "--out", "configs/x", "-q"]);
    assert_eq!(code, 0, "a real folder beside the intents: {text}");
}

#[cfg(unix)]
#[test]
fn the_paths_a_user_types_keep_working() {
    for kind in [Kind::Git, Kind::Project] {
        let t = Tree::new("legit", kind);
        let abs = t.repo.join("abs");
        let abs = abs.to_string_lossy();
        // Absolute inside, `./`, `..`, a link that stays inside, a sub-folder.
        std::fs::create_dir_all(t.repo.join("real/sub")).expect("mkdir");
        link(Path::new("real"), &t.repo.join("inside"));
        for out in [&*abs, "./dot", "real/../dotdot", "inside/linked"] {
            let (code, text) = t.run(&["render", "fab.yaml", "--out", out, "-q"]);
            assert_eq!(code, 0, "{kind:?} --out {out}: {text}");
        }
        assert!(
            t.repo.join("real/linked").is_dir(),
            "written through the inner link"
        );
        let (code, text) = t.run_in(
            &t.repo.join("real/sub"),
            &["render", "../../fab.yaml", "--out", "../../fromsub", "-q"],
            &[],
        );
        assert_eq!(code, 0, "{kind:?} from a sub-folder: {text}");
        // An intent in a sub-folder renders into a sibling folder: the root is the repository's.
        std::fs::create_dir_all(t.repo.join("intents")).expect("mkdir");
        std::fs::rename(t.repo.join("fab.yaml"), t.repo.join("intents/fab.yaml")).expect("mv");
        let (code, text) = t.run(&["render", "intents/fab.yaml", "--out", "configs/fab", "-q"]);
        assert_eq!(code, 0, "{kind:?} a sibling folder: {text}");
        // Site templates through a link that stays inside the repository.
        std::fs::create_dir_all(t.repo.join("shared/tpl/eos")).expect("mkdir");
        std::fs::copy(
            crate::common::root().join("tests/site/templates/eos/device.j2"),
            t.repo.join("shared/tpl/eos/device.j2"),
        )
        .expect("copy");
        link(Path::new("../shared/tpl"), &t.repo.join("site/templates"));
        let args = [
            "validate",
            "intents/fab.yaml",
            "--templates",
            "site/templates",
        ];
        let (code, text) = t.run(&args);
        assert_eq!(code, 0, "{kind:?} templates linked inside: {text}");
        // A folder typed outside the repository, no link of it on the way, is the user's own.
        let typed = t.outside.join("typed");
        let typed = typed.to_string_lossy();
        let (code, text) = t.run(&["render", "intents/fab.yaml", "--out", &typed, "-q"]);
        assert_eq!(code, 0, "{kind:?} --out {typed}: {text}");
    }
}

#[cfg(unix)]
#[test]
fn an_intent_read_from_standard_input_is_the_users_own() {
    use std::io::Write as _;
    let text =
        std::fs::read(crate::common::root().join("intents/three-tier-small.yaml")).expect("read");
    let mut child = crate::common::aifab_command()
        .args(["validate", "/dev/stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&text)
        .expect("write");
    let o = child.wait_with_output().expect("wait");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// fab.yaml with its RADIUS keys read from the environment variable `name`.
fn env_key(t: &Tree, name: &str) -> usize {
    let p = t.repo.join("fab.yaml");
    let text = std::fs::read_to_string(&p).expect("read");
    let line = text
        .lines()
        .position(|l| l.contains("key: { vault: aaa_key }"))
        .expect("aaa");
    let text = text.replace(
        "key: { vault: aaa_key }",
        &format!("key: {{ env: {name} }}"),
    );
    std::fs::write(&p, text).expect("write");
    line + 1
}

#[test]
fn an_environment_secret_outside_the_projects_prefix_is_not_read() {
    let t = Tree::new("envprefix", Kind::Git);
    let line = env_key(&t, "GITHUB_TOKEN");
    let token = [("GITHUB_TOKEN", "ghpLeak3dToken")];
    let render = ["render", "fab.yaml", "--out", "out", "-q"];
    let (code, text) = t.run_in(&t.repo, &render, &token);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("`GITHUB_TOKEN` does not start with `AIFAB_`"),
        "{text}"
    );
    assert!(
        text.contains(&format!("fab.yaml:{line}:")),
        "located: {text}"
    );
    assert!(text.contains("aifab.yaml"), "the fix: {text}");
    assert!(
        !text.contains("Leak3d") && !t.repo.join("out").exists(),
        "{text}"
    );
    // `validate`, where a pull request's check runs, refuses it too, without the variable.
    let (code, text) = t.run(&["validate", "fab.yaml"]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("`GITHUB_TOKEN` does not start with `AIFAB_`"),
        "{text}"
    );
    // The project widens it on purpose: read and filled.
    std::fs::write(t.repo.join("aifab.yaml"), "secrets:\n  env_prefix: \"\"\n").expect("write");
    let (code, text) = t.run_in(&t.repo, &render, &token);
    assert_eq!(code, 0, "{text}");
    let filled = files(&t.repo.join("out")).iter().any(|f| {
        std::fs::read_to_string(f)
            .unwrap_or_default()
            .contains("ghpLeak3dToken")
    });
    assert!(filled, "the widened prefix admits it");
    // A narrower prefix refuses the default's names, naming where it is set.
    std::fs::write(t.repo.join("aifab.yaml"), "secrets:\n  env_prefix: CI_\n").expect("write");
    let text = std::fs::read_to_string(t.repo.join("fab.yaml")).expect("read");
    std::fs::write(
        t.repo.join("fab.yaml"),
        text.replace("GITHUB_TOKEN", "AIFAB_KEY"),
    )
    .expect("write");
    let (code, text) = t.run_in(&t.repo, &render, &[("AIFAB_KEY", "x1")]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("aifab.yaml:2:3"), "{text}");
    // A prefix that cannot start a variable name is refused where it is written.
    std::fs::write(t.repo.join("aifab.yaml"), "secrets: {env_prefix: ci-}\n").expect("write");
    let (code, text) = t.run(&["validate", "fab.yaml"]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("aifab.yaml:1:11: env_prefix `ci-`"), "{text}");
}
