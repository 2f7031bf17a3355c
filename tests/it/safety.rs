//! Nothing of the user's is ever deleted or read through a link (issue 34): a spare or output that is a
//! link, files aifab did not write in its output, a git repository or an intent inside it, temporary
//! folders of dead processes, a kill or a signal at every point of a write (output and lock always
//! match), and links that leave the repository.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

/// A scratch folder holding `fab.yaml`, a copy of three-tier-small.yaml (its lock: `fab.lock.yaml`).
fn scratch(name: &str) -> common::Scratch {
    let d = common::Scratch::new(&format!("safety-{name}"));
    std::fs::copy("intents/three-tier-small.yaml", d.join("fab.yaml")).expect("copy");
    d
}

/// Runs aifab in `dir` with `env` set: the exit code (None: killed by a signal), the signal, and
/// stdout and stderr together.
fn run_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, Option<i32>, String) {
    let mut c = crate::common::aifab_command();
    c.args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("AIFAB_CACHE_DIR", dir.join("cache"));
    for (k, v) in env {
        c.env(k, v);
    }
    let o: Output = c.output().expect("run aifab");
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(&o.status);
    #[cfg(not(unix))]
    let signal = None;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code(), signal, text)
}

fn run(dir: &Path, args: &[&str]) -> (i32, String) {
    let (code, _, text) = run_env(dir, args, &[]);
    (code.unwrap_or(-1), text)
}

fn render_ok(dir: &Path) {
    let (code, text) = run(dir, &["render", "fab.yaml", "--out", "out", "-q"]);
    assert_eq!(code, 0, "{text}");
}

/// Grows fab.yaml by a zone: devices and cables added, none renumbered.
fn grow(d: &Path) {
    let p = d.join("fab.yaml");
    edit_file(&p, "servers: 16", "servers: 24");
    edit_file(&p, "zones: 2", "zones: 3");
    edit_file(&p, "65020-65021", "65020-65022");
}

fn edit_file(path: &Path, from: &str, to: &str) {
    let t = std::fs::read_to_string(path).expect("read");
    assert!(t.contains(from), "{}: no `{from}`", path.display());
    std::fs::write(path, t.replacen(from, to, 1)).expect("write");
}

/// Every file under `dir` with its bytes, links as `-> target`, empty folders as `/`.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let mut empty = true;
        for e in std::fs::read_dir(&d).expect("read dir").flatten() {
            empty = false;
            let p = e.path();
            let rel = p
                .strip_prefix(dir)
                .expect("inside")
                .to_string_lossy()
                .into_owned();
            let t = e.file_type().expect("type");
            if t.is_symlink() {
                let target = std::fs::read_link(&p).expect("link");
                out.push((rel, format!("-> {}", target.display()).into_bytes()));
            } else if t.is_dir() {
                todo.push(p);
            } else {
                out.push((rel, std::fs::read(&p).expect("read")));
            }
        }
        if empty && d != dir {
            let rel = d.strip_prefix(dir).expect("inside").to_string_lossy();
            out.push((format!("{rel}/"), Vec::new()));
        }
    }
    out.sort();
    out
}

/// The names in `dir` that an interrupted or running render leaves: temporary folders, staged locks,
/// journals.
fn leftovers(dir: &Path) -> Vec<String> {
    common::names(dir)
        .into_iter()
        .filter(|n| n.contains("aifab-tmp") || n.contains("aifab-old") || n.contains("journal"))
        // Process 1 runs: what carries its id is not a leftover.
        .filter(|n| !n.ends_with("aifab-tmp-1"))
        .collect()
}

#[cfg(unix)]
#[test]
fn a_spare_that_is_a_link_leaves_its_target_untouched() {
    let d = scratch("spare-link");
    std::fs::create_dir(d.join("victim")).expect("mkdir");
    std::fs::write(d.join("victim/keep.txt"), "x\n").expect("write");
    std::os::unix::fs::symlink("victim", d.join(".out.aifab-spare")).expect("link");
    for _ in 0..3 {
        let (code, text) = run(&d, &["render", "fab.yaml", "--out", "out"]);
        assert_eq!(code, 0, "{text}");
        assert!(
            text.contains(".out.aifab-spare is not a folder aifab made"),
            "the link is named: {text}"
        );
    }
    assert_eq!(
        tree(&d.join("victim")),
        [("keep.txt".to_string(), b"x\n".to_vec())],
        "the link's target is exactly as it was"
    );
    let out = std::fs::symlink_metadata(d.join("out")).expect("out");
    assert!(out.is_dir(), "out is a folder, not a link");
    assert_eq!(
        std::fs::read_link(d.join(".out.aifab-spare")).expect("still a link"),
        PathBuf::from("victim")
    );
    // An output folder that is a link is refused, its target untouched.
    std::os::unix::fs::symlink("victim", d.join("linked")).expect("link");
    let (code, text) = run(&d, &["render", "fab.yaml", "--out", "linked", "-q"]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("linked is a symbolic link"), "{text}");
    assert_eq!(tree(&d.join("victim")).len(), 1);
}

#[cfg(unix)]
#[test]
fn files_aifab_did_not_write_survive_every_render() {
    let d = scratch("notes");
    render_ok(&d);
    let out = d.join("out");
    std::fs::write(out.join("NOTES.txt"), "my notes\n").expect("write");
    std::fs::write(out.join(".gitattributes"), "*.cfg text\n").expect("write");
    std::fs::create_dir_all(out.join("docs/empty")).expect("mkdir");
    std::fs::write(out.join("docs/README.md"), "# readme\n").expect("write");
    std::os::unix::fs::symlink("NOTES.txt", out.join("notes-link")).expect("link");
    let mine = |t: &[(String, Vec<u8>)]| -> Vec<(String, Vec<u8>)> {
        t.iter()
            .filter(|(p, _)| {
                ["NOTES.txt", ".gitattributes", "docs/", "notes-link"]
                    .iter()
                    .any(|m| p.starts_with(m))
            })
            .cloned()
            .collect()
    };
    let before = mine(&tree(&out));
    assert_eq!(before.len(), 5, "{before:?}");
    // Renders with nothing changed, with a change, and the spare filled: each keeps them and says so.
    for round in 0..4 {
        if round == 2 {
            edit_file(&d.join("fab.yaml"), "mtu: 9214", "mtu: 9100");
        }
        let (code, text) = run(&d, &["render", "fab.yaml", "--out", "out"]);
        assert_eq!(code, 0, "{text}");
        assert!(
            text.contains("kept 5 entries aifab did not write") && text.contains("out/NOTES.txt"),
            "round {round}: the kept files are named: {text}"
        );
        assert_eq!(mine(&tree(&out)), before, "round {round}");
    }
    // --check compares aifab's files only, and passes.
    let (code, text) = run(&d, &["render", "fab.yaml", "--check", "out"]);
    assert_eq!(code, 0, "{text}");
    // --check --bless into a folder with notes, twice (the golden-folder case).
    let g = d.join("golden");
    let (code, text) = run(&d, &["render", "fab.yaml", "--check", "golden", "--bless"]);
    assert_eq!(code, 0, "{text}");
    std::fs::write(g.join("NOTES.txt"), "golden notes\n").expect("write");
    edit_file(&d.join("fab.yaml"), "mtu: 9100", "mtu: 9214");
    for _ in 0..2 {
        let (code, text) = run(&d, &["render", "fab.yaml", "--check", "golden", "--bless"]);
        assert_eq!(code, 0, "{text}");
        assert_eq!(
            std::fs::read_to_string(g.join("NOTES.txt")).expect("kept"),
            "golden notes\n"
        );
    }
    // A folder an earlier aifab wrote (its manifest lists no files), on a machine without its index:
    // what a render writes is aifab's, anything else is kept.
    std::fs::remove_dir_all(d.join("cache")).expect("rm cache");
    std::fs::write(
        out.join(".aifab-output"),
        "written by aifab 0.1.0: this folder is replaced as a whole on every render\n",
    )
    .expect("write");
    std::fs::write(out.join("gone-leaf.cfg"), "an old device's file\n").expect("write");
    let (code, text) = run(&d, &["render", "fab.yaml", "--out", "out"]);
    assert_eq!(code, 0, "{text}");
    assert_eq!(mine(&tree(&out)), before, "legacy manifest: kept");
    assert!(
        !out.join("gone-leaf.cfg").exists(),
        "a device file of the fabric that left"
    );
}

#[cfg(unix)]
#[test]
fn what_cannot_be_kept_is_refused_before_anything_changes() {
    let d = scratch("refused");
    render_ok(&d);
    let out = d.join("out");
    let lock = std::fs::read(d.join("fab.lock.yaml")).expect("lock");
    // A git repository inside the output.
    std::fs::create_dir_all(out.join(".git/objects")).expect("mkdir");
    std::fs::write(out.join(".git/HEAD"), "ref: refs/heads/main\n").expect("write");
    let before = tree(&out);
    grow(&d);
    let (code, text) = run(&d, &["render", "fab.yaml", "--out", "out", "-q"]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("out/.git is a git repository inside the output folder"),
        "{text}"
    );
    assert!(text.contains("nothing was changed in out"), "{text}");
    assert_eq!(tree(&out), before, "the output as it was");
    assert_eq!(std::fs::read(d.join("fab.lock.yaml")).expect("lock"), lock);
    assert_eq!(leftovers(&d), Vec::<String>::new());
    std::fs::remove_dir_all(out.join(".git")).expect("rm");
    // A file aifab did not write where the render writes one: not in the manifest's list.
    let manifest = out.join(".aifab-output");
    edit_file(&manifest, "file: ss1.cfg\n", "");
    let before = tree(&out);
    let (code, text) = run(&d, &["render", "fab.yaml", "--out", "out", "-q"]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("out/ss1.cfg was not written by aifab") && text.contains("move it out"),
        "{text}"
    );
    assert_eq!(tree(&out), before);
    assert_eq!(std::fs::read(d.join("fab.lock.yaml")).expect("lock"), lock);
    edit_file(
        &manifest,
        "file: ss2.cfg\n",
        "file: ss1.cfg\nfile: ss2.cfg\n",
    );
    // A FIFO.
    let fifo = std::ffi::CString::new(out.join("pipe").to_string_lossy().as_bytes()).expect("path");
    // SAFETY: a NUL-terminated path; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let (code, text) = run(&d, &["render", "fab.yaml", "--out", "out", "-q"]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("out/pipe is not a file, folder or link"),
        "{text}"
    );
    std::fs::remove_file(out.join("pipe")).expect("rm");
    // The intent inside its own output folder.
    std::fs::copy(d.join("fab.yaml"), out.join("fab.yaml")).expect("copy");
    std::fs::copy(d.join("fab.lock.yaml"), out.join("fab.lock.yaml")).expect("copy");
    let before = tree(&out);
    let (code, text) = run(&d, &["render", "out/fab.yaml", "--out", "out", "-q"]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("are inside out, the folder this render writes"),
        "{text}"
    );
    assert_eq!(tree(&out), before, "nothing moved");
    assert_eq!(leftovers(&d), Vec::<String>::new());
    // With all that gone, the render runs.
    render_ok(&d);
}

/// The process id of a process that has ended.
fn dead_pid() -> u32 {
    let mut c = std::process::Command::new("true").spawn().expect("spawn");
    let pid = c.id();
    c.wait().expect("wait");
    pid
}

#[test]
fn leftovers_of_dead_processes_are_removed_and_of_live_ones_kept() {
    let d = scratch("stale");
    render_ok(&d);
    let dead = dead_pid();
    let tmp = d.join(format!(".out.aifab-tmp-{dead}"));
    std::fs::create_dir_all(tmp.join("sub")).expect("mkdir");
    std::fs::write(tmp.join("sub/x.cfg"), "x").expect("write");
    std::fs::create_dir_all(d.join(format!(".out.aifab-old-{dead}"))).expect("mkdir");
    std::fs::write(d.join(format!(".fab.lock.yaml.aifab-tmp-{dead}")), "lock").expect("write");
    std::fs::write(d.join(format!("fab.lock.yaml.tmp-{dead}")), "lock").expect("write");
    // Process 1 runs: what carries its id is left alone.
    std::fs::create_dir_all(d.join(".out.aifab-tmp-1")).expect("mkdir");
    std::fs::write(d.join(".fab.lock.yaml.aifab-tmp-1"), "lock").expect("write");
    let (code, text) = run(&d, &["render", "fab.yaml", "--out", "out"]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains(&format!(
            "removed ./.out.aifab-tmp-{dead}, left by an interrupted render"
        )),
        "{text}"
    );
    assert_eq!(leftovers(&d), Vec::<String>::new(), "{text}");
    assert!(d.join(".out.aifab-tmp-1").is_dir() && d.join(".fab.lock.yaml.aifab-tmp-1").is_file());
}

/// Output and lock, as a pair.
type State = (Vec<(String, Vec<u8>)>, Vec<u8>);

fn state(d: &Path) -> State {
    (
        tree(&d.join("out")),
        std::fs::read(d.join("fab.lock.yaml")).expect("lock"),
    )
}

/// The render before and after a grow, each made cleanly: (before, after).
fn reference_states() -> (State, State) {
    let r = scratch("reference");
    render_ok(&r);
    let before = state(&r);
    grow(&r);
    render_ok(&r);
    let after = state(&r);
    assert_ne!(before.1, after.1, "the grow changes the lock");
    (before, after)
}

/// The manifest's record of the lock names the hash of the lock beside it.
fn record_matches(d: &Path) {
    let manifest = std::fs::read_to_string(d.join("out/.aifab-output")).expect("manifest");
    let lock = std::fs::read(d.join("fab.lock.yaml")).expect("lock");
    let hash = format!("{:032x}", xxhash_rust::xxh3::xxh3_128(&lock));
    assert!(
        manifest
            .lines()
            .any(|l| l.starts_with("lock: ") && l.ends_with(&hash)),
        "the manifest records the lock beside it: {manifest}"
    );
}

#[cfg(unix)]
#[test]
fn a_kill_at_every_point_of_a_write_leaves_output_and_lock_matching() {
    let (before, after) = reference_states();
    for (i, point) in aifab::write::interrupt::POINTS.iter().enumerate() {
        let d = scratch(&format!("kill-{point}"));
        render_ok(&d);
        assert_eq!(state(&d), before, "{point}: the first render");
        grow(&d);
        let (code, signal, text) = run_env(
            &d,
            &["render", "fab.yaml", "--out", "out", "-q"],
            &[(aifab::write::interrupt::KILL_AT_ENV, point)],
        );
        assert_eq!((code, signal), (None, Some(9)), "{point}: killed: {text}");
        // The next command that reads the lock finishes or undoes the write.
        let (code, text) = run(&d, &["validate", "fab.yaml", "-q"]);
        assert_eq!(code, 0, "{point}: {text}");
        let want = if i < 3 { &before } else { &after };
        assert!(
            state(&d) == *want,
            "{point}: output and lock are the {} pair: {text}",
            if i < 3 { "old" } else { "new" }
        );
        record_matches(&d);
        let journal = d.join(".fab.lock.yaml.aifab-journal");
        assert!(!journal.exists(), "{point}: the journal is gone");
        // The next render removes the rest and renders the grown fabric.
        let (code, text) = run(&d, &["render", "fab.yaml", "--out", "out", "-q"]);
        assert_eq!(code, 0, "{point}: {text}");
        assert_eq!(state(&d), after, "{point}: rendered after");
        assert_eq!(leftovers(&d), Vec::<String>::new(), "{point}");
    }
}

#[cfg(unix)]
#[test]
fn sigterm_removes_what_the_render_created_or_lets_it_commit() {
    let (before, after) = reference_states();
    for (i, point) in aifab::write::interrupt::POINTS.iter().enumerate() {
        let d = scratch(&format!("term-{point}"));
        render_ok(&d);
        grow(&d);
        let (code, _, text) = run_env(
            &d,
            &["render", "fab.yaml", "--out", "out", "-q"],
            &[(aifab::write::interrupt::SIGNAL_AT_ENV, point)],
        );
        assert_eq!(code, Some(128 + 15), "{point}: {text}");
        assert_eq!(
            leftovers(&d),
            Vec::<String>::new(),
            "{point}: nothing left behind"
        );
        if i < 2 {
            assert!(state(&d) == before, "{point}: nothing changed");
            assert!(
                text.contains("interrupted by SIGTERM: removed what this render had created; nothing was changed in out or fab.lock.yaml"),
                "{point}: {text}"
            );
        } else {
            assert!(state(&d) == after, "{point}: committed whole");
            assert!(
                text.contains("the render had committed when SIGTERM came"),
                "{point}: {text}"
            );
        }
        record_matches(&d);
    }
}

#[cfg(unix)]
#[test]
fn links_that_leave_the_repository_are_not_read() {
    let d = scratch("links");
    // The scratch folder lies inside this repository (target/tmp).
    std::os::unix::fs::symlink("/proc/self/environ", d.join("env.yaml")).expect("link");
    let (code, text) = run(&d, &["validate", "env.yaml"]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("outside the repository"), "{text}");
    // A lock linked to /dev/zero: refused at once, nothing read.
    std::os::unix::fs::symlink("/dev/zero", d.join("fab.lock.yaml")).expect("link");
    let (code, text) = run(&d, &["render", "fab.yaml", "--out", "out", "-q"]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("fab.lock.yaml is a symbolic link to /dev/zero"),
        "{text}"
    );
    std::fs::remove_file(d.join("fab.lock.yaml")).expect("rm");
    // A golden file linked out of the repository: no diff shows what it points at.
    render_ok(&d);
    std::fs::remove_file(d.join("out/ss1.cfg")).expect("rm");
    std::os::unix::fs::symlink("/proc/self/environ", d.join("out/ss1.cfg")).expect("link");
    let o = crate::common::aifab_command()
        .args(["render", "fab.yaml", "--check", "out"])
        .current_dir(&d)
        .env("AIFAB_LEAK_PROBE", "leak-probe-value")
        .output()
        .expect("run");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.code(), Some(2), "{text}");
    assert!(!text.contains("leak-probe-value"), "{text}");
    assert!(text.contains("outside the repository"), "{text}");
}

/// three-tier-small with its RADIUS keys read from the environment.
fn with_env_key(d: &Path) {
    let p = d.join("fab.yaml");
    let t = std::fs::read_to_string(&p).expect("read");
    std::fs::write(
        &p,
        t.replace("key: { vault: aaa_key }", "key: { env: AIFAB_SAFETY_KEY }"),
    )
    .expect("write");
}

#[cfg(unix)]
#[test]
fn no_filled_secret_reaches_a_diff_the_cache_or_the_spare() {
    use std::os::unix::fs::PermissionsExt as _;
    const SECRET: &str = "Sq9.secret-Value_77";
    let d = scratch("secrets");
    // Renders without secrets first: they leave a spare and an index.
    render_ok(&d);
    render_ok(&d);
    assert!(d.join(".out.aifab-spare").is_dir());
    assert!(
        tree(&d.join("cache"))
            .iter()
            .any(|(p, _)| p.starts_with("index-"))
    );
    with_env_key(&d);
    let (code, text) = run(&d, &["render", "fab.yaml", "--out", "out", "-q"]);
    assert_eq!(code, 2, "the key must be set: {text}");
    let key = [("AIFAB_SAFETY_KEY", SECRET)];
    for _ in 0..3 {
        let (code, _, text) = run_env(&d, &["render", "fab.yaml", "--out", "out", "-q"], &key);
        assert_eq!(code, Some(0), "{text}");
    }
    let filled: Vec<_> = tree(&d.join("out"))
        .into_iter()
        .filter(|(_, b)| String::from_utf8_lossy(b).contains(SECRET))
        .collect();
    assert!(!filled.is_empty(), "the secret is filled in");
    for (p, _) in &filled {
        let mode = std::fs::metadata(d.join("out").join(p))
            .expect("stat")
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "{p}: owner-only");
    }
    assert!(!d.join(".out.aifab-spare").exists(), "no spare kept");
    // The cache holds no index of the folder, and nothing with the secret in it.
    for (p, b) in tree(&d.join("cache")) {
        assert!(!String::from_utf8_lossy(&b).contains(SECRET), "{p}");
        assert!(
            !p.starts_with("index-"),
            "no index of a folder with secrets: {p}"
        );
    }
    // --check against the folder: equal but for the secret, with the key set or not.
    for env in [&key[..], &[]] {
        let (code, _, text) = run_env(&d, &["render", "fab.yaml", "--check", "out"], env);
        assert_eq!(code, Some(0), "{text}");
    }
    // A change on the secret's line: the diff shows it, never the secret.
    edit_file(
        &d.join("fab.yaml"),
        "address: 192.0.2.11",
        "address: 192.0.2.19",
    );
    for env in [&key[..], &[]] {
        let (code, _, text) = run_env(&d, &["render", "fab.yaml", "--check", "out"], env);
        assert_eq!(code, Some(1), "{text}");
        assert!(
            text.contains("192.0.2.19") && text.contains("<secret>"),
            "{text}"
        );
        assert!(
            !text.contains(SECRET),
            "the secret in --check output: {text}"
        );
    }
}
