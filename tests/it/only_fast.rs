//! `render --only` into a folder aifab rendered before (issue 39): only the matched switch's files, the
//! inventory and the manifest are replaced, in place under a journal (`aifab::write::inplace`); every
//! other file keeps its inode and time, the switch's files equal a full render's byte for byte, a kill
//! or a signal at every point of the write leaves the old or the new output whole (the next render
//! settles it), no link is followed and the user's files stay.

use crate::common;

use std::path::Path;

/// The switches the tests narrow to: an EOS leaf (one file) and a SONiC spine (a folder of two).
const LEAF: &str = "z1-g1-r1";
const SPINE: &str = "z1-spine1";

/// A scratch folder holding `fab.yaml`, a copy of three-tier-small.yaml, rendered into `out`.
fn rendered(name: &str) -> common::Scratch {
    let d = common::Scratch::new(&format!("only-fast-{name}"));
    std::fs::copy("intents/three-tier-small.yaml", d.join("fab.yaml")).expect("copy");
    let (code, _, text) = run(&d, &["render", "fab.yaml", "--out", "out", "-q"], &[]);
    assert_eq!(code, Some(0), "{text}");
    d
}

/// Runs aifab in `dir` with `env` set: the exit code (None: killed by a signal), the signal, and
/// stdout and stderr together.
fn run(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, Option<i32>, String) {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_aifab"));
    c.args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("AIFAB_CACHE_DIR", dir.join("cache"));
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().expect("run aifab");
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

/// `render fab.yaml --out out --only <host>` in `dir`, which must succeed.
fn only_ok(dir: &Path, host: &str) -> String {
    let (code, _, text) = run(
        dir,
        &["render", "fab.yaml", "--out", "out", "--only", host],
        &[],
    );
    assert_eq!(code, Some(0), "{text}");
    text
}

/// An edit every switch's config follows: the fabric's MTU.
fn change_mtu(dir: &Path) {
    let p = dir.join("fab.yaml");
    let t = std::fs::read_to_string(&p).expect("read");
    assert!(t.contains("mtu: 9214"), "three-tier-small sets mtu 9214");
    std::fs::write(&p, t.replacen("mtu: 9214", "mtu: 9100", 1)).expect("write");
}

/// Every entry of a folder (links as `-> target`), with its bytes.
type Tree = Vec<(String, Vec<u8>)>;

/// Every entry under `dir` (links as `-> target`, never followed), with its bytes.
fn tree(dir: &Path) -> Tree {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).expect("read dir").flatten() {
            let p = e.path();
            let rel = p.strip_prefix(dir).expect("inside").to_string_lossy();
            let t = e.file_type().expect("type");
            if t.is_symlink() {
                let target = std::fs::read_link(&p).expect("link");
                out.push((rel.into_owned(), format!("-> {}", target.display()).into()));
            } else if t.is_dir() {
                todo.push(p);
            } else {
                out.push((rel.into_owned(), std::fs::read(&p).expect("read")));
            }
        }
    }
    out.sort();
    out
}

/// Every file under `dir` with its inode and modification time.
#[cfg(unix)]
fn stamps(dir: &Path) -> Vec<(String, u64, i64, i64)> {
    use std::os::unix::fs::MetadataExt as _;
    tree(dir)
        .into_iter()
        .map(|(rel, _)| {
            let m = std::fs::symlink_metadata(dir.join(&rel)).expect("stat");
            (rel, m.ino(), m.mtime(), m.mtime_nsec())
        })
        .collect()
}

/// The names beside the output an interrupted or running write leaves: journals, staging folders.
fn leftovers(dir: &Path) -> Vec<String> {
    common::names(dir)
        .into_iter()
        .filter(|n| n.contains("aifab-") && !n.contains("aifab-spare"))
        .collect()
}

/// Whether `rel` is a file of switch `host`.
fn of(host: &str, rel: &str) -> bool {
    rel == format!("{host}.cfg") || rel.starts_with(&format!("{host}/"))
}

#[cfg(unix)]
#[test]
fn only_rewrites_the_switch_in_place_and_touches_nothing_else() {
    use std::os::unix::fs::MetadataExt as _;
    let d = rendered("in-place");
    let (code, _, text) = run(&d, &["render", "fab.yaml", "--out", "out", "-q"], &[]);
    assert_eq!(code, Some(0), "a second render leaves a spare: {text}");
    let spare = d.join(".out.aifab-spare");
    let (folder, spare_before) = (
        std::fs::metadata(d.join("out")).expect("out").ino(),
        stamps(&spare),
    );
    // A config gone from the folder: the inventory and the manifest change with the switch.
    std::fs::remove_file(d.join("out/z2-g4-r4.cfg")).expect("remove");
    let before = stamps(&d.join("out"));
    let old = tree(&d.join("out"));
    change_mtu(&d);
    for host in [LEAF, SPINE] {
        let text = only_ok(&d, host);
        assert!(text.contains("out: 1 devices"), "{text}");
    }
    let after = stamps(&d.join("out"));
    assert_eq!(
        std::fs::metadata(d.join("out")).expect("out").ino(),
        folder,
        "the folder is written in place, not swapped"
    );
    assert_eq!(stamps(&spare), spare_before, "the spare is left alone");
    assert_eq!(leftovers(&d), Vec::<String>::new());
    let changed: Vec<&str> = after
        .iter()
        .filter(|a| !before.contains(a))
        .map(|a| a.0.as_str())
        .collect();
    let mut want = vec![
        ".aifab-output",
        "inventory.yml",
        "z1-g1-r1.cfg",
        "z1-spine1/config_db.json",
    ];
    want.sort();
    assert_eq!(changed, want, "only these files were written");
    assert_eq!(after.len(), before.len(), "no file added or removed");
    // The switch's files are a full render's, byte for byte; every other file is as it was.
    let (code, _, text) = run(&d, &["render", "fab.yaml", "--out", "full", "-q"], &[]);
    assert_eq!(code, Some(0), "{text}");
    let full = tree(&d.join("full"));
    let now = tree(&d.join("out"));
    for host in [LEAF, SPINE] {
        let pick = |t: &[(String, Vec<u8>)]| -> Tree {
            t.iter().filter(|(r, _)| of(host, r)).cloned().collect()
        };
        assert!(!pick(&full).is_empty());
        assert_eq!(pick(&now), pick(&full), "{host}: as a full render wrote it");
        assert_ne!(pick(&now), pick(&old), "{host}: the MTU changed its config");
    }
    for (rel, bytes) in &now {
        if !of(LEAF, rel) && !of(SPINE, rel) && !want.contains(&rel.as_str()) {
            let was = old.iter().find(|(r, _)| r == rel).expect("was there");
            assert_eq!(&was.1, bytes, "{rel} unchanged");
        }
    }
    let inventory = std::fs::read_to_string(d.join("out/inventory.yml")).expect("inventory");
    assert!(
        inventory.contains("z2-g4-r3") && !inventory.contains("z2-g4-r4"),
        "the inventory lists the devices with a config in the folder:\n{inventory}"
    );
    let manifest = std::fs::read_to_string(d.join("out/.aifab-output")).expect("manifest");
    assert!(
        manifest.contains("file: z2-g4-r3.cfg\n") && !manifest.contains("z2-g4-r4"),
        "{manifest}"
    );
    // The same render again writes nothing.
    only_ok(&d, LEAF);
    assert_eq!(
        stamps(&d.join("out")),
        after,
        "nothing changed, nothing written"
    );
    // A full render after it takes the folder over as usual.
    let (code, _, text) = run(&d, &["render", "fab.yaml", "--out", "out", "-q"], &[]);
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(tree(&d.join("out")), full);
}

/// The output before and after `--only LEAF` of the MTU change, with z2-g4-r4.cfg removed first (so
/// that the switch's file, the inventory and the manifest all change), each made cleanly.
fn reference() -> (Tree, Tree) {
    let r = rendered("reference");
    prepare(&r);
    let old = tree(&r.join("out"));
    only_ok(&r, LEAF);
    let new = tree(&r.join("out"));
    assert_eq!(
        old.len(),
        new.len(),
        "the same files: {:?}",
        new.iter().map(|e| &e.0).collect::<Vec<_>>()
    );
    (old, new)
}

fn prepare(d: &Path) {
    std::fs::remove_file(d.join("out/z2-g4-r4.cfg")).expect("remove");
    change_mtu(d);
}

#[cfg(unix)]
#[test]
fn a_kill_at_every_point_of_an_only_write_leaves_the_old_or_the_new_output() {
    let (old, new) = reference();
    assert_ne!(old, new);
    let points = aifab::write::interrupt::POINTS;
    for (i, point) in points.iter().enumerate() {
        let d = rendered(&format!("kill-{point}"));
        prepare(&d);
        assert_eq!(tree(&d.join("out")), old, "{point}: the start");
        let (code, signal, text) = run(
            &d,
            &["render", "fab.yaml", "--out", "out", "--only", LEAF, "-q"],
            &[(aifab::write::interrupt::KILL_AT_ENV, point)],
        );
        assert_eq!((code, signal), (None, Some(9)), "{point}: killed: {text}");
        // Up to the journal's `commit`, nothing in the folder has changed; after the renames, all.
        let renamed = i >= 3;
        assert!(
            tree(&d.join("out")) == if renamed { new.clone() } else { old.clone() },
            "{point}: the folder is the {} output, whole",
            if renamed { "new" } else { "old" }
        );
        // The next render settles it: the change was decided once the journal said so.
        let (code, _, text) = run(
            &d,
            &["render", "fab.yaml", "--check", "out", "--only", LEAF],
            &[],
        );
        let decided = i >= 2;
        assert_eq!(code, Some(if decided { 0 } else { 1 }), "{point}: {text}");
        assert!(
            tree(&d.join("out")) == if decided { new.clone() } else { old.clone() },
            "{point}: settled to the {} output",
            if decided { "new" } else { "old" }
        );
        if i < points.len() - 1 {
            assert!(
                text.contains("note: an interrupted --only render"),
                "{point}: {text}"
            );
        }
        assert_eq!(leftovers(&d), Vec::<String>::new(), "{point}: {text}");
        only_ok(&d, LEAF);
        assert_eq!(tree(&d.join("out")), new, "{point}: rendered after");
        assert_eq!(leftovers(&d), Vec::<String>::new(), "{point}");
    }
}

#[cfg(unix)]
#[test]
fn sigterm_during_an_only_write_removes_what_it_staged_or_lets_it_commit() {
    let (old, new) = reference();
    for (i, point) in aifab::write::interrupt::POINTS.iter().enumerate() {
        let d = rendered(&format!("term-{point}"));
        prepare(&d);
        let (code, _, text) = run(
            &d,
            &["render", "fab.yaml", "--out", "out", "--only", LEAF, "-q"],
            &[(aifab::write::interrupt::SIGNAL_AT_ENV, point)],
        );
        assert_eq!(code, Some(128 + 15), "{point}: {text}");
        assert_eq!(leftovers(&d), Vec::<String>::new(), "{point}: {text}");
        if i < 2 {
            assert!(tree(&d.join("out")) == old, "{point}: nothing changed");
            assert!(
                text.contains("interrupted by SIGTERM: removed what this render had created; nothing was changed in out"),
                "{point}: {text}"
            );
        } else {
            assert!(tree(&d.join("out")) == new, "{point}: committed whole");
            assert!(
                text.contains("the render had committed when SIGTERM came"),
                "{point}: {text}"
            );
        }
    }
}

/// A failure while staging (the disk full, say) changes nothing and leaves nothing behind.
#[test]
fn a_failed_only_write_changes_nothing() {
    let d = rendered("fail");
    prepare(&d);
    let old = tree(&d.join("out"));
    let (code, _, text) = run(
        &d,
        &["render", "fab.yaml", "--out", "out", "--only", LEAF, "-q"],
        &[(aifab::write::FAIL_AFTER_ENV, "1")],
    );
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("injected failure after 1 files"), "{text}");
    assert!(text.contains("nothing was changed in out"), "{text}");
    assert!(tree(&d.join("out")) == old);
    assert_eq!(leftovers(&d), Vec::<String>::new());
}

#[cfg(unix)]
#[test]
fn links_planted_in_the_folder_are_never_followed() {
    let d = rendered("links");
    change_mtu(&d);
    std::fs::create_dir(d.join("victim")).expect("mkdir");
    std::fs::write(d.join("victim/secret.txt"), "keep me\n").expect("write");
    std::fs::write(d.join("victim/config_db.json"), "theirs\n").expect("write");
    // A link where the leaf's file goes: the file is aifab's (the manifest lists it), so the link is
    // replaced by the file, and what it points to is not written.
    let leaf = d.join(format!("out/{LEAF}.cfg"));
    std::fs::remove_file(&leaf).expect("remove");
    std::os::unix::fs::symlink("../victim/secret.txt", &leaf).expect("link");
    only_ok(&d, LEAF);
    let m = std::fs::symlink_metadata(&leaf).expect("stat");
    assert!(m.is_file(), "the link is replaced by aifab's file");
    assert!(
        std::fs::read_to_string(&leaf)
            .expect("read")
            .contains("9100")
    );
    assert_eq!(
        std::fs::read_to_string(d.join("victim/secret.txt")).expect("read"),
        "keep me\n"
    );
    // A link where the spine's folder goes is the user's: refused, nothing written through it.
    let spine = d.join(format!("out/{SPINE}"));
    std::fs::remove_dir_all(&spine).expect("remove");
    std::os::unix::fs::symlink("../victim", &spine).expect("link");
    let before = tree(&d.join("out"));
    let (code, _, text) = run(
        &d,
        &["render", "fab.yaml", "--out", "out", "--only", SPINE],
        &[],
    );
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("not written by aifab") && text.contains(SPINE),
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(d.join("victim/config_db.json")).expect("read"),
        "theirs\n"
    );
    assert!(tree(&d.join("out")) == before, "nothing changed");
    // A journal that is a link is not read through either: the render stops, the target unchanged.
    std::fs::remove_file(&spine).expect("remove");
    let (code, _, text) = run(&d, &["render", "fab.yaml", "--out", "out", "-q"], &[]);
    assert_eq!(code, Some(0), "{text}");
    std::os::unix::fs::symlink("victim/secret.txt", d.join(".out.aifab-journal")).expect("link");
    let (code, _, text) = run(
        &d,
        &["render", "fab.yaml", "--out", "out", "--only", LEAF],
        &[],
    );
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains(".out.aifab-journal"), "{text}");
    assert_eq!(
        std::fs::read_to_string(d.join("victim/secret.txt")).expect("read"),
        "keep me\n"
    );
    assert!(
        std::fs::symlink_metadata(d.join(".out.aifab-journal"))
            .expect("still there")
            .file_type()
            .is_symlink()
    );
}

#[cfg(unix)]
#[test]
fn the_users_files_stay_through_an_only_write() {
    use std::os::unix::fs::MetadataExt as _;
    let d = rendered("users");
    change_mtu(&d);
    let notes = [
        "NOTES.txt".to_string(),
        format!("{SPINE}/mine.txt"),
        "extra/readme.md".to_string(),
    ];
    for n in &notes {
        let p = d.join("out").join(n);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, format!("{n}\n")).expect("write");
    }
    let ino = |n: &str| {
        std::fs::metadata(d.join("out").join(n))
            .expect("stat")
            .ino()
    };
    let inodes: Vec<u64> = notes.iter().map(|n| ino(n)).collect();
    for host in [SPINE, LEAF] {
        only_ok(&d, host);
    }
    for (n, i) in notes.iter().zip(&inodes) {
        assert_eq!(ino(n), *i, "{n}: the same file");
        assert_eq!(
            std::fs::read_to_string(d.join("out").join(n)).expect("read"),
            format!("{n}\n")
        );
    }
    let manifest = std::fs::read_to_string(d.join("out/.aifab-output")).expect("manifest");
    assert!(!manifest.contains("mine.txt") && !manifest.contains("NOTES"));
    // A file of the user's where the render writes (one the manifest does not list) is refused, as a
    // full render refuses it, and stays.
    let manifest_path = d.join("out/.aifab-output");
    std::fs::write(&manifest_path, manifest.replace("file: z2-g4-r4.cfg\n", "")).expect("write");
    std::fs::write(d.join("out/z2-g4-r4.cfg"), "mine\n").expect("write");
    let before = tree(&d.join("out"));
    let (code, _, text) = run(
        &d,
        &["render", "fab.yaml", "--out", "out", "--only", "z2-g4-r4"],
        &[],
    );
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains("z2-g4-r4.cfg was not written by aifab"),
        "{text}"
    );
    assert!(tree(&d.join("out")) == before, "nothing changed");
    assert_eq!(leftovers(&d), Vec::<String>::new());
}

/// `--only` reads the lock narrowed to the switches it renders; a problem in what it reads is located
/// at its line in the lock as a full render locates it, and a problem elsewhere in the lock is found
/// too (the whole lock is then read).
#[test]
fn lock_problems_are_located_as_a_full_render_locates_them() {
    let d = rendered("lock-problems");
    let lock = d.join("fab.lock.yaml");
    let text = std::fs::read_to_string(&lock).expect("lock");
    for (line, bad) in [
        // The leaf's own server /31, outside server_links: AIF-LOCK-004 (the leaf's second entry
        // read, the 38th in the file).
        (
            "  - {leaf: z2-g3-r2, port: 2, subnet: 10.22.0.74/31}".to_string(),
            "  - {leaf: z2-g3-r2, port: 2, subnet: 10.99.0.74/31}".to_string(),
        ),
        // Another leaf's entry, not a /31 boundary.
        (
            "  - {leaf: z2-g4-r4, port: 4, subnet: 10.22.0.126/31}".to_string(),
            "  - {leaf: z2-g4-r4, port: 4, subnet: 10.22.0.127/31}".to_string(),
        ),
    ] {
        let at = text
            .lines()
            .position(|l| l == line)
            .unwrap_or_else(|| panic!("no `{line}` in the lock"))
            + 1;
        std::fs::write(&lock, text.replacen(&line, &bad, 1)).expect("write");
        let before = tree(&d.join("out"));
        let (only, _, only_text) = run(
            &d,
            &["render", "fab.yaml", "--out", "out", "--only", "z2-g3-r2"],
            &[],
        );
        let (full, _, full_text) = run(&d, &["render", "fab.yaml", "--out", "out"], &[]);
        assert_eq!((only, full), (Some(2), Some(2)), "{only_text}\n{full_text}");
        let located = format!("fab.lock.yaml:{at}:");
        assert!(only_text.contains(&located), "{located}: {only_text}");
        assert!(full_text.contains(&located), "{located}: {full_text}");
        assert!(tree(&d.join("out")) == before, "nothing written");
    }
}

/// An `--only` render that fills a secret writes the switch's files owner-only and, as a full render
/// that fills secrets, keeps no spare and no index of the folder.
#[cfg(unix)]
#[test]
fn an_only_render_with_secrets_keeps_no_copy_or_hash() {
    use std::os::unix::fs::PermissionsExt as _;
    const SECRET: &str = "Only.secret-Value_39";
    let d = rendered("secrets");
    let (code, _, text) = run(&d, &["render", "fab.yaml", "--out", "out", "-q"], &[]);
    assert_eq!(code, Some(0), "{text}");
    assert!(d.join(".out.aifab-spare").is_dir());
    let p = d.join("fab.yaml");
    let t = std::fs::read_to_string(&p).expect("read");
    assert!(t.contains("key: { vault: aaa_key }"));
    std::fs::write(
        &p,
        t.replace("key: { vault: aaa_key }", "key: { env: AIFAB_ONLY_KEY }"),
    )
    .expect("write");
    let (code, _, text) = run(
        &d,
        &["render", "fab.yaml", "--out", "out", "--only", LEAF, "-q"],
        &[("AIFAB_ONLY_KEY", SECRET)],
    );
    assert_eq!(code, Some(0), "{text}");
    let leaf = d.join(format!("out/{LEAF}.cfg"));
    assert!(
        std::fs::read_to_string(&leaf)
            .expect("read")
            .contains(SECRET),
        "the secret is filled in"
    );
    let mode = std::fs::metadata(&leaf).expect("stat").permissions().mode();
    assert_eq!(mode & 0o077, 0, "owner-only");
    assert!(!d.join(".out.aifab-spare").exists(), "no spare kept");
    for (p, _) in tree(&d.join("cache")) {
        assert!(!p.starts_with("index-"), "no index of the folder: {p}");
    }
    assert_eq!(leftovers(&d), Vec::<String>::new());
}

/// The process id of a process that has ended.
fn dead_pid() -> u32 {
    let mut c = std::process::Command::new("true").spawn().expect("spawn");
    let pid = c.id();
    c.wait().expect("wait");
    pid
}

/// A journal that did not come from this folder's render (copied, or planted) is acted on only when
/// all of it verifies: each staged file a regular file of a real staging folder holding the bytes the
/// journal records, renamed inside the output folder over nothing or over a file aifab wrote (its bytes
/// the manifest's hash). One that names a file of the user's, a path out of the folder or a folder not
/// there, or whose staging folder is a link, is reported and left alone: nothing moves.
#[cfg(unix)]
#[test]
fn a_planted_journal_moves_nothing_of_the_users() {
    let d = rendered("planted");
    let pid = dead_pid();
    std::fs::write(d.join("out/NOTES.txt"), "mine\n").expect("write");
    let staging = d.join(format!(".out.aifab-only-{pid}"));
    let journal = |files: &[&str]| {
        let _ = std::fs::remove_dir_all(&staging);
        std::fs::create_dir(&staging).expect("mkdir");
        let mut text = format!("aifab in-place journal 2\npid: {pid}\nstate: commit\n");
        for (i, f) in files.iter().enumerate() {
            let bytes = format!("staged {i}\n");
            std::fs::write(staging.join(i.to_string()), &bytes).expect("write");
            let hash = xxhash_rust::xxh3::xxh3_128(bytes.as_bytes());
            text.push_str(&format!("file: xxh3-128 {hash:032x} {f}\n"));
        }
        std::fs::write(d.join(".out.aifab-journal"), text).expect("journal");
    };
    let before = tree(&d.join("out"));
    for files in [
        &["ss1.cfg", "NOTES.txt"][..],
        &["ss1.cfg", "../escape.txt"][..],
        &["ss1.cfg", "new/x.cfg"][..],
    ] {
        journal(files);
        let (code, _, text) = run(&d, &["render", "fab.yaml", "--check", "out"], &[]);
        assert_eq!(code, Some(2), "{files:?}: {text}");
        assert!(text.contains("not acted on"), "{files:?}: {text}");
        assert_eq!(tree(&d.join("out")), before, "{files:?}: nothing moved");
        assert!(!d.join("escape.txt").exists() && !d.join("out/new").exists());
        assert!(
            d.join(".out.aifab-journal").is_file(),
            "{files:?}: left alone"
        );
    }
    // A journal that verifies is acted on: aifab's file is replaced, as the journal decided.
    journal(&["ss1.cfg"]);
    let (code, _, text) = run(&d, &["render", "fab.yaml", "--check", "out"], &[]);
    assert!(
        text.contains("note: an interrupted --only render"),
        "{text}"
    );
    assert_eq!(
        code,
        Some(1),
        "ss1.cfg was replaced, and --check says so: {text}"
    );
    assert_eq!(
        std::fs::read_to_string(d.join("out/ss1.cfg")).expect("read"),
        "staged 0\n",
    );
    assert_eq!(
        std::fs::read_to_string(d.join("out/NOTES.txt")).expect("read"),
        "mine\n",
        "the user's file stays"
    );
    assert_eq!(leftovers(&d), Vec::<String>::new(), "{text}");
    // A staging folder that is a link: nothing is read or removed through it.
    journal(&["ss2.cfg"]);
    std::fs::remove_dir_all(&staging).expect("rm");
    std::fs::create_dir(d.join("victim")).expect("mkdir");
    std::fs::write(d.join("victim/0"), "staged 0\n").expect("write");
    std::os::unix::fs::symlink("victim", &staging).expect("link");
    let before = std::fs::read(d.join("out/ss2.cfg")).expect("read");
    let (code, _, text) = run(&d, &["render", "fab.yaml", "--check", "out"], &[]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("is not a folder"), "{text}");
    assert_eq!(std::fs::read(d.join("out/ss2.cfg")).expect("read"), before);
    assert_eq!(
        std::fs::read_to_string(d.join("victim/0")).expect("read"),
        "staged 0\n"
    );
    assert!(
        std::fs::symlink_metadata(&staging)
            .expect("the link stays")
            .file_type()
            .is_symlink()
    );
    assert!(d.join(".out.aifab-journal").is_file(), "left alone");
}
