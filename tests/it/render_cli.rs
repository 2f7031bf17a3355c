//! `aifab render` as a user runs it: writes atomically, keeps the previous output on failure, checks
//! goldens, and is byte-identical across runs and thread counts.

use crate::common;

use std::path::{Path, PathBuf};

fn tmpdir(name: &str) -> common::Scratch {
    common::Scratch::new(&format!("render-{name}"))
}

fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    common::files_under(dir)
}

#[test]
fn render_writes_every_device_and_check_passes() {
    let t = tmpdir("write");
    let out = t.join("out");
    let st = common::aifab_command()
        .args(["render", "intents/pod1-1024.yaml", "--out"])
        .arg(&out)
        .arg("-q")
        .status()
        .expect("run");
    assert_eq!(st.code(), Some(0));
    let files = snapshot(&out);
    assert_eq!(
        files.iter().filter(|(p, _)| p.ends_with(".cfg")).count(),
        48
    );
    let st = common::aifab_command()
        .args(["render", "intents/pod1-1024.yaml", "--check"])
        .arg(&out)
        .arg("-q")
        .status()
        .expect("run");
    assert_eq!(
        st.code(),
        Some(0),
        "a fresh render checks clean against itself"
    );
    // A changed file makes --check exit 1 and print a unified diff naming it.
    let victim = out.join("spine01.cfg");
    let text = std::fs::read_to_string(&victim).expect("read");
    std::fs::write(
        &victim,
        text.replacen("router bgp", "router bgp-tampered", 1),
    )
    .expect("write");
    let o = common::aifab_command()
        .args(["render", "intents/pod1-1024.yaml", "--check"])
        .arg(&out)
        .arg("-q")
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("a/spine01.cfg")
            && stdout.contains("-router bgp-tampered")
            && stdout.contains("+router bgp"),
        "{stdout}"
    );
}

#[test]
fn interrupted_render_leaves_previous_output_untouched() {
    let t = tmpdir("interrupt");
    let out = t.join("out");
    let st = common::aifab_command()
        .args(["render", "intents/mixed-sonic-nxos.yaml", "--out"])
        .arg(&out)
        .arg("-q")
        .status()
        .expect("run");
    assert_eq!(st.code(), Some(0));
    let before = snapshot(&out);
    // Render a different intent into the same folder, failing after 3 files.
    let o = common::aifab_command()
        .args(["render", "intents/pod1-1024.yaml", "--out"])
        .arg(&out)
        .arg("-q")
        .env(aifab::write::FAIL_AFTER_ENV, "3")
        .output()
        .expect("run");
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        snapshot(&out),
        before,
        "the previous output must be exactly as it was"
    );
    let leftovers: Vec<_> = std::fs::read_dir(&t)
        .expect("read")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(
        leftovers.len(),
        1,
        "no temporary folder left behind: {leftovers:?}"
    );
}

#[test]
fn render_refuses_to_replace_a_folder_it_did_not_write() {
    let t = tmpdir("foreign");
    let out = t.join("mine");
    std::fs::create_dir_all(&out).expect("mkdir");
    std::fs::write(out.join("notes.txt"), "precious").expect("write");
    let o = common::aifab_command()
        .args(["render", "intents/pod1-1024.yaml", "--out"])
        .arg(&out)
        .arg("-q")
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).expect("kept"),
        "precious"
    );
}

#[test]
fn invalid_intent_writes_nothing() {
    let t = tmpdir("invalid");
    let bad = t.join("bad.yaml");
    let text = std::fs::read_to_string("intents/pod1-1024.yaml").expect("read");
    std::fs::write(
        &bad,
        text.replace("min: 150KB, max: 1500KB", "min: 1500KB, max: 150KB"),
    )
    .expect("write");
    let out = t.join("out");
    let o = common::aifab_command()
        .arg("render")
        .arg(&bad)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("run");
    assert_eq!(
        o.status.code(),
        Some(2),
        "an intent render cannot use is trouble (2); 1 means a real difference"
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("AIF-QOS-001"));
    assert!(
        !out.exists(),
        "nothing may be written for an invalid intent"
    );
}

#[test]
fn output_is_identical_across_runs_and_thread_counts() {
    for path in common::example_intents() {
        let m = common::model(&path);
        let r =
            aifab::render::Renderer::new(aifab::platform::Catalog::builtin()).expect("templates");
        let meta = aifab::render::Meta::for_intent_path(&path, &m.name);
        let render_with = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("pool")
                .install(|| r.fabric(&meta, &m, None).expect("render"))
        };
        let one = render_with(1);
        let four = render_with(4);
        let again = render_with(3);
        assert_eq!(one, four, "{path}: 1 vs 4 threads");
        assert_eq!(one, again, "{path}: run to run");
        // And a second compile gives the same model bytes.
        let m2 = common::model(&path);
        assert_eq!(
            serde_json::to_string(&m).expect("json"),
            serde_json::to_string(&m2).expect("json"),
            "{path}: compile is deterministic"
        );
    }
}

/// `--only` builds ports and cables only for the matching devices; what it renders for them must be
/// byte-identical to the full render.
#[test]
fn only_renders_the_same_bytes_as_a_full_render() {
    let cat = aifab::platform::Catalog::builtin();
    let r = aifab::render::Renderer::new(cat).expect("templates");
    for path in common::example_intents() {
        let intent = common::intent(&path);
        let full = common::model(&path);
        let meta = aifab::render::Meta::for_intent_path(&path, &full.name);
        let all = r.fabric(&meta, &full, None).expect("render");
        // First and last device of each role.
        let mut picks = Vec::new();
        for role in [
            aifab::intent::Role::SuperSpine,
            aifab::intent::Role::Spine,
            aifab::intent::Role::Leaf,
        ] {
            let of_role: Vec<_> = full.devices.iter().filter(|d| d.role == role).collect();
            picks.extend(of_role.first().map(|d| d.hostname.clone()));
            picks.extend(of_role.last().map(|d| d.hostname.clone()));
        }
        for host in picks {
            let g = globset::Glob::new(&host).expect("glob").compile_matcher();
            let partial = aifab::compile::compile_only(&intent, cat, Some(&g)).expect("compile");
            let one = r.fabric(&meta, &partial, Some(&g)).expect("render");
            let want: Vec<_> = all.iter().filter(|f| f.device == host).collect();
            let got: Vec<_> = one.iter().filter(|f| f.device == host).collect();
            assert!(!want.is_empty());
            assert_eq!(
                got, want,
                "{path}: --only {host} differs from the full render"
            );
            assert_eq!(partial.summary.server_links, full.summary.server_links);
        }
    }
}

/// Every file under `dir` with its inode number and link count.
#[cfg(unix)]
fn inodes(dir: &Path) -> std::collections::BTreeMap<String, (u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    snapshot(dir)
        .into_iter()
        .map(|(rel, _)| {
            let m = std::fs::symlink_metadata(dir.join(&rel)).expect("stat");
            (rel, (m.ino(), m.nlink()))
        })
        .collect()
}

/// Every file of an output folder but its manifest, which must be exactly aifab's manifest text: the
/// file index (inodes, times) is kept outside the folder, so the folder is the same on every run.
fn configs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = snapshot(dir);
    let manifest = files
        .iter()
        .position(|(rel, _)| rel == aifab::write::MARKER);
    let manifest = files.remove(manifest.expect("manifest"));
    let text = String::from_utf8_lossy(&manifest.1);
    assert!(
        text.starts_with(&aifab::write::manifest()),
        "manifest text: {text}"
    );
    // The manifest lists every other file, and nothing else.
    let listed: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("file: "))
        .collect();
    let mut paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    paths.sort_unstable();
    assert_eq!(listed, paths, "the manifest's files");
    files
}

/// A file edited in the output to other bytes of the same size, its modification time set back to
/// what aifab wrote, is still replaced on a re-render: the file index (kept outside the output, in the
/// cache folder) trusts a file only while its change time (which no user can set back) is the
/// recorded one.
#[cfg(unix)]
#[test]
fn rerender_replaces_a_hand_edited_file_with_its_time_restored() {
    let t = tmpdir("rerender-edited");
    let (out, cache) = (t.join("out"), t.join("cache"));
    let intent = Path::new("intents/mixed-sonic-nxos.yaml");
    let render = || {
        let o = common::aifab_command()
            .env("AIFAB_CACHE_DIR", &cache)
            .arg("render")
            .arg(intent)
            .arg("--out")
            .arg(&out)
            .arg("-q")
            .output()
            .expect("run");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    render();
    let bytes = configs(&out);
    let rel = "g1-rail1/GENERATED.txt";
    let indexes: Vec<_> = std::fs::read_dir(&cache)
        .expect("cache folder")
        .map(|e| e.expect("entry").path())
        .collect();
    assert_eq!(indexes.len(), 1, "one index for one output: {indexes:?}");
    let index = std::fs::read_to_string(&indexes[0]).expect("read index");
    assert!(
        index.lines().any(|l| l.ends_with(&format!(" {rel}"))),
        "{rel} is indexed"
    );
    let path = out.join(rel);
    let mtime = std::fs::metadata(&path)
        .expect("stat")
        .modified()
        .expect("mtime");
    // Past the clock tick of the render, so the index does not drop the entry as racily clean.
    std::thread::sleep(std::time::Duration::from_millis(50));
    let text = std::fs::read_to_string(&path).expect("read");
    let edited = text.replacen("generated", "GENERATED", 1);
    assert_eq!(edited.len(), text.len());
    let fh = std::fs::File::options()
        .write(true)
        .open(&path)
        .expect("open");
    std::io::Write::write_all(&mut &fh, edited.as_bytes()).expect("write");
    fh.set_modified(mtime).expect("set mtime");
    drop(fh);
    assert_eq!(
        std::fs::metadata(&path)
            .expect("stat")
            .modified()
            .expect("mtime"),
        mtime
    );
    render();
    assert_eq!(configs(&out), bytes, "the edit is undone");
    // Again with a spare: the output's files share their inodes with it, so an edit in place changes
    // the spare's copy too; neither index trusts it any more and the edit is undone all the same.
    render();
    let path = out.join("g2-rail1/GENERATED.txt");
    let meta = std::fs::metadata(&path).expect("stat");
    assert_eq!(std::os::unix::fs::MetadataExt::nlink(&meta), 2, "shared");
    std::thread::sleep(std::time::Duration::from_millis(50));
    let text = std::fs::read_to_string(&path).expect("read");
    let fh = std::fs::File::options()
        .write(true)
        .open(&path)
        .expect("open");
    std::io::Write::write_all(
        &mut &fh,
        text.replacen("generated", "GENERATED", 1).as_bytes(),
    )
    .expect("write");
    fh.set_modified(meta.modified().expect("mtime"))
        .expect("set mtime");
    drop(fh);
    render();
    assert_eq!(
        configs(&out),
        bytes,
        "the edit through the shared inode is undone"
    );
}

/// Renders `intent` into `out`; panics unless it succeeds.
fn render_ok(intent: &Path, out: &Path) {
    let o = common::aifab_command()
        .arg("render")
        .arg(intent)
        .arg("--out")
        .arg(out)
        .arg("-q")
        .output()
        .expect("run");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// `intents/mixed-sonic-nxos.yaml` under the same file name in `dir`, with `from` replaced by `to`.
fn intent_copy(dir: &Path, from: &str, to: &str) -> PathBuf {
    std::fs::create_dir_all(dir).expect("mkdir");
    let text = std::fs::read_to_string("intents/mixed-sonic-nxos.yaml").expect("read");
    assert!(text.contains(from), "{from}");
    let path = dir.join("mixed-sonic-nxos.yaml");
    std::fs::write(&path, text.replace(from, to)).expect("write");
    path
}

/// A re-render of the same intent writes nothing: every file keeps its inode (it was linked into the
/// new folder) and its bytes; the previous tree is parked beside the output as the spare (git ignores
/// it), and the render after that fills the spare without creating, linking or removing anything.
#[cfg(unix)]
#[test]
fn rerender_keeps_unchanged_files() {
    use std::os::unix::fs::MetadataExt as _;
    let t = tmpdir("rerender-same");
    let (out, spare) = (t.join("out"), t.join(".out.aifab-spare"));
    let intent = Path::new("intents/mixed-sonic-nxos.yaml");
    render_ok(intent, &out);
    let (bytes, before) = (configs(&out), inodes(&out));
    render_ok(intent, &out);
    assert_eq!(configs(&out), bytes);
    for (rel, (ino, links)) in &inodes(&out) {
        if rel == aifab::write::MARKER {
            continue;
        }
        assert_eq!(Some(ino), before.get(rel).map(|b| &b.0), "{rel}: rewritten");
        assert_eq!(*links, 2, "{rel}: shared with the spare");
    }
    assert_eq!(common::names(&t), [".out.aifab-spare", "out"]);
    let ignore = std::fs::read_to_string(spare.join(".gitignore")).expect("ignore file");
    assert!(ignore.ends_with("\n*\n"), "{ignore}");
    assert!(
        !out.join(".gitignore").exists(),
        "the output has no ignore file"
    );
    // The next render fills the spare: its folders become the output's, every file stays as it was.
    let folder = |p: &Path| std::fs::metadata(p.join("g1-rail1")).expect("folder").ino();
    let (spare_folder, times) = (folder(&spare), mtimes(&out));
    std::thread::sleep(std::time::Duration::from_millis(20));
    render_ok(intent, &out);
    assert_eq!(configs(&out), bytes);
    assert_eq!(
        folder(&out),
        spare_folder,
        "the spare's folder became the output's"
    );
    assert_eq!(mtimes(&out), times, "no file was written");
    for (rel, (_, links)) in &inodes(&out) {
        assert!(
            rel == aifab::write::MARKER || *links == 2,
            "{rel}: {links} links"
        );
    }
}

/// Every file's modification time but the manifest's.
fn mtimes(dir: &Path) -> std::collections::BTreeMap<String, std::time::SystemTime> {
    snapshot(dir)
        .into_iter()
        .filter(|(rel, _)| rel != aifab::write::MARKER)
        .map(|(rel, _)| {
            let m = std::fs::metadata(dir.join(&rel)).expect("stat");
            (rel, m.modified().expect("mtime"))
        })
        .collect()
}

/// Asserts that `out` holds exactly what `intent` renders into the new folder `fresh`.
fn same_as_fresh(intent: &Path, out: &Path, fresh: &Path) {
    render_ok(intent, fresh);
    assert_eq!(
        configs(out),
        configs(fresh),
        "{}: = a render into a new folder",
        out.display()
    );
}

/// Renders that alternate between fabrics reuse the spare's files: A, A, B, A keeps every file of the
/// final A as the second render left it (read back where its status changed, not rewritten), and a
/// following B, C rewrites the spare's unshared files (A's tree) in place: same inode, one link.
#[cfg(unix)]
#[test]
fn alternating_renders_reuse_the_spare() {
    let t = tmpdir("alternate");
    let out = t.join("out");
    let a = intent_copy(&t.join("a"), "mtu: 9100", "mtu: 9100");
    let b = intent_copy(&t.join("b"), "mtu: 9100", "mtu: 9000");
    let c = intent_copy(&t.join("c"), "mtu: 9100", "mtu: 9050");
    render_ok(&a, &out);
    render_ok(&a, &out);
    let (a_bytes, a_times, a_inodes) = (configs(&out), mtimes(&out), inodes(&out));
    render_ok(&b, &out);
    std::thread::sleep(std::time::Duration::from_millis(20));
    render_ok(&a, &out);
    assert_eq!(configs(&out), a_bytes);
    assert_eq!(mtimes(&out), a_times, "A's files kept, none rewritten");
    // B claims B's tree back; C then claims A's tree and rewrites its unshared files where they are.
    render_ok(&b, &out);
    let b_inodes = inodes(&out);
    render_ok(&c, &out);
    same_as_fresh(&c, &out, &t.join("fresh"));
    let mut in_place = 0;
    for (rel, (ino, links)) in &inodes(&out) {
        let (b_ino, a_ino) = (b_inodes.get(rel), a_inodes.get(rel));
        if *links == 1 && a_ino.map(|a| a.0) == Some(*ino) && b_ino.map(|b| b.0) != Some(*ino) {
            in_place += 1;
        }
    }
    assert!(in_place > 2, "A's files rewritten in place: {in_place}");
}

/// Changes with unchanged renders between them allocate and free no inode: the render after a change
/// rewrites the spare's own copies of the changed files where they are, rather than linking the
/// output's (which would free the copies and make the next change allocate new ones; on ext4 without a
/// journal each allocation then steps over every inode freed in the last minutes). The first change
/// after renders that linked everything still writes its changed files anew, once.
#[cfg(unix)]
#[test]
fn changes_between_unchanged_renders_reuse_the_same_files() {
    let t = tmpdir("no-churn");
    let (out, spare) = (t.join("out"), t.join(".out.aifab-spare"));
    let a = intent_copy(&t.join("a"), "mtu: 9100", "mtu: 9100");
    let b = intent_copy(&t.join("b"), "mtu: 9100", "mtu: 9000");
    let c = intent_copy(&t.join("c"), "mtu: 9100", "mtu: 9050");
    // The inodes of the output's and the spare's files, by folder and path (the manifest and the
    // spare's ignore file are written anew each time and left out).
    let files = || {
        let mut all = std::collections::BTreeMap::new();
        for (name, dir) in [("out", &out), ("spare", &spare)] {
            for (rel, (ino, links)) in inodes(dir) {
                if rel != aifab::write::MARKER && rel != ".gitignore" {
                    all.insert(format!("{name}/{rel}"), (ino, links));
                }
            }
        }
        all
    };
    let inode_set = |f: &std::collections::BTreeMap<String, (u64, u64)>| {
        f.values()
            .map(|v| v.0)
            .collect::<std::collections::BTreeSet<_>>()
    };
    render_ok(&a, &out);
    render_ok(&a, &out);
    render_ok(&b, &out);
    let after_change = files();
    let own: Vec<&String> = after_change
        .iter()
        .filter(|(k, v)| k.starts_with("out/") && v.1 == 1)
        .map(|(k, _)| k)
        .collect();
    assert!(own.len() > 2, "B's changed files are its own: {own:?}");
    for (step, intent) in [("B again", &b), ("C", &c), ("C again", &c)] {
        render_ok(intent, &out);
        let now = files();
        let (was, is) = (inode_set(&after_change), inode_set(&now));
        let (new, gone) = (is.difference(&was).count(), was.difference(&is).count());
        assert_eq!((new, gone), (0, 0), "{step}: files allocated, freed");
        for k in &own {
            let rel = k.trim_start_matches("out/");
            for name in ["out", "spare"] {
                let links = now.get(&format!("{name}/{rel}")).map(|v| v.1);
                assert_eq!(links, Some(1), "{step}: {name}/{rel} is its folder's own");
            }
        }
    }
    same_as_fresh(&c, &out, &t.join("fresh"));
}

/// A render into a folder whose spare is out of date, holds another fabric's files, or was tampered
/// with gives exactly a fresh render's output: stale files and folders are removed, a symbolic link in
/// the spare is removed and never written through, and a failed render leaves the output as it was.
#[cfg(unix)]
#[test]
fn a_stale_or_tampered_spare_gives_a_fresh_render() {
    let t = tmpdir("spare");
    let (out, spare) = (t.join("out"), t.join(".out.aifab-spare"));
    let mixed = Path::new("intents/mixed-sonic-nxos.yaml");
    render_ok(mixed, &out);
    render_ok(mixed, &out);
    assert!(spare.is_dir(), "the second render parked a spare");
    // Tamper: a folder of the spare replaced by a link to a folder outside, a stray file added.
    let outside = t.join("outside");
    std::fs::create_dir_all(&outside).expect("mkdir");
    std::fs::remove_dir_all(spare.join("g1-rail1")).expect("rm");
    std::os::unix::fs::symlink(&outside, spare.join("g1-rail1")).expect("symlink");
    std::fs::write(spare.join("stray.cfg"), "stray").expect("write");
    // Another fabric into the same folder: its files only.
    let pod = Path::new("intents/pod1-1024.yaml");
    render_ok(pod, &out);
    same_as_fresh(pod, &out, &t.join("fresh"));
    assert_eq!(
        common::names(&outside),
        Vec::<String>::new(),
        "nothing written through the link"
    );
    // Back to the first fabric, whose tree is the spare now (with the tampering gone).
    render_ok(mixed, &out);
    same_as_fresh(mixed, &out, &t.join("fresh-mixed"));
    // A render that fails part-way, with a spare claimed, leaves the output as it was.
    let (bytes, before) = (snapshot(&out), inodes(&out));
    let o = common::aifab_command()
        .args(["render", "intents/pod1-1024.yaml", "--out"])
        .arg(&out)
        .arg("-q")
        .env(aifab::write::FAIL_AFTER_ENV, "5")
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(snapshot(&out), bytes, "bytes");
    assert_eq!(inodes(&out), before, "inodes, links");
    assert!(
        common::names(&t).iter().all(|n| !n.contains("aifab-tmp")),
        "no temporary folder left: {:?}",
        common::names(&t)
    );
}

/// A re-render after a change writes exactly the changed files: the result is byte-identical to a
/// render into a new folder, changed files are new inodes, unchanged ones are kept. A file edited in
/// the output (same size) and a symbolic link in place of a file are replaced, never kept.
#[cfg(unix)]
#[test]
fn rerender_writes_only_changed_files() {
    let t = tmpdir("rerender-changed");
    let out = t.join("out");
    render_ok(&intent_copy(&t.join("a"), "mtu: 9100", "mtu: 9100"), &out);
    let before = inodes(&out);
    let old_bytes: std::collections::BTreeMap<_, _> = snapshot(&out).into_iter().collect();
    // Tamper with two files the change leaves alone: other bytes of the same length, and a link to
    // the same bytes where the file was.
    let edited = out.join("g1-rail1/GENERATED.txt");
    let text = std::fs::read_to_string(&edited).expect("read");
    std::fs::write(&edited, text.replacen("generated", "GENERATED", 1)).expect("write");
    let linked = out.join("g2-rail1/GENERATED.txt");
    std::fs::remove_file(&linked).expect("rm");
    let target = t.join("elsewhere.txt");
    std::fs::write(&target, &old_bytes["g2-rail1/GENERATED.txt"]).expect("write");
    std::os::unix::fs::symlink(&target, &linked).expect("symlink");

    let changed = intent_copy(&t.join("b"), "mtu: 9100", "mtu: 9000");
    render_ok(&changed, &out);
    same_as_fresh(&changed, &out, &t.join("fresh"));

    let after = inodes(&out);
    let new_bytes: std::collections::BTreeMap<_, _> = snapshot(&out).into_iter().collect();
    let (mut kept, mut rewritten) = (0, 0);
    for (rel, (ino, links)) in &after {
        let same = old_bytes.get(rel) == new_bytes.get(rel);
        if rel == "g2-rail1/GENERATED.txt" || rel == aifab::write::MARKER {
            // Written anew (the link's freed inode number may come back, so it is not compared).
            assert_eq!(*links, 1, "{rel}");
        } else if same && rel != "g1-rail1/GENERATED.txt" {
            assert_eq!(Some(ino), before.get(rel).map(|b| &b.0), "{rel}: unchanged");
            assert_eq!(*links, 2, "{rel}: shared with the spare");
            kept += 1;
        } else {
            assert_ne!(Some(ino), before.get(rel).map(|b| &b.0), "{rel}: changed");
            assert_eq!(*links, 1, "{rel}: the new output's own");
            rewritten += 1;
        }
    }
    assert!(
        kept > 0 && rewritten > 2,
        "kept {kept}, rewritten {rewritten}"
    );
    assert!(
        std::fs::symlink_metadata(&linked)
            .expect("stat")
            .file_type()
            .is_file(),
        "the link became a file"
    );
    assert_eq!(
        std::fs::read(&target).expect("read"),
        old_bytes["g2-rail1/GENERATED.txt"],
        "the link's target is untouched"
    );
}

/// A re-render that fails part-way, after linking some files and writing others, leaves the previous
/// output as it was: same bytes, same inodes, one link each, no temporary folder.
#[cfg(unix)]
#[test]
fn interrupted_rerender_leaves_previous_output_untouched() {
    let t = tmpdir("rerender-interrupt");
    let out = t.join("out");
    render_ok(Path::new("intents/mixed-sonic-nxos.yaml"), &out);
    let (bytes, before) = (snapshot(&out), inodes(&out));
    let changed = intent_copy(&t.join("b"), "mtu: 9100", "mtu: 9000");
    for fail_after in ["0", "7", "20"] {
        let o = common::aifab_command()
            .arg("render")
            .arg(&changed)
            .arg("--out")
            .arg(&out)
            .arg("-q")
            .env(aifab::write::FAIL_AFTER_ENV, fail_after)
            .output()
            .expect("run");
        assert_eq!(o.status.code(), Some(2), "fail after {fail_after}");
        assert_eq!(snapshot(&out), bytes, "fail after {fail_after}: bytes");
        assert_eq!(
            inodes(&out),
            before,
            "fail after {fail_after}: inodes, links"
        );
        let entries: Vec<_> = std::fs::read_dir(&t)
            .expect("read")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(entries.len(), 2, "no temporary folder left: {entries:?}");
        // The new lock is staged beside the intent while the render runs; a failed render removes it.
        let beside: Vec<_> = std::fs::read_dir(t.join("b"))
            .expect("read")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(beside, ["mixed-sonic-nxos.yaml"], "fail after {fail_after}");
    }
}
