//! The lock file as a user meets it (docs/lock.md): `render --out` writes it, `--check` fails on a stale
//! or missing one, a hand-edited lock pins values or fails with `file:line:col`, a renumbering render
//! needs `--allow-renumber`, `--only` refuses cables the lock does not hold, `diff` reads the lock at the
//! revision, and `schema --lock` is `schema/lock.schema.json`.

use crate::common;
use crate::common::git;

use std::path::Path;
use std::process::Output;

/// A scratch folder holding a copy of three-tier-small.yaml (its lock is `three-tier-small.lock.yaml`).
fn scratch(name: &str) -> common::Scratch {
    let d = common::Scratch::new(&format!("lock-{name}"));
    std::fs::copy(
        "intents/three-tier-small.yaml",
        d.join("three-tier-small.yaml"),
    )
    .expect("copy");
    d
}

fn run(dir: &Path, args: &[&str]) -> (i32, String) {
    let o: Output = crate::common::aifab_command()
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("AIFAB_CACHE_DIR", common::tmp_root().join("aifab-cache"))
        .output()
        .expect("run aifab");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code().unwrap_or(-1), text)
}

fn lock_text(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("three-tier-small.lock.yaml")).expect("lock written")
}

fn edit_file(path: &Path, from: &str, to: &str) {
    let t = std::fs::read_to_string(path).expect("read");
    assert!(t.contains(from), "{}: no `{from}`", path.display());
    std::fs::write(path, t.replacen(from, to, 1)).expect("write");
}

/// Four spines per zone instead of two.
fn more_spines(dir: &Path) {
    edit_file(
        &dir.join("three-tier-small.yaml"),
        "hostname: \"z{zone}-spine{index}\"\n      count: 2",
        "hostname: \"z{zone}-spine{index}\"\n      count: 4",
    );
}

#[test]
fn render_writes_the_lock_and_check_needs_it_current() {
    let d = scratch("check");
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("golden/three-tier-small");
    let golden = golden.to_string_lossy();
    let (code, out) = run(&d, &["render", "three-tier-small.yaml", "--check", &golden]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("three-tier-small.lock.yaml: missing"), "{out}");
    assert_eq!(
        run(
            &d,
            &["render", "three-tier-small.yaml", "--out", "out", "-q"]
        )
        .0,
        0
    );
    let text = lock_text(&d);
    assert!(
        text.contains(
            "  - {name: z2-spine1, loopback: 10.20.0.250, router_id: 10.20.0.250, asn: 65021, "
        ),
        "{text}"
    );
    let (code, out) = run(&d, &["render", "three-tier-small.yaml", "--check", &golden]);
    assert_eq!(code, 0, "{out}");
    // A lock that does not read as render writes it (here: two lines swapped) is stale.
    let text = lock_text(&d);
    let (a, b) = ("  - {name: ss1,", "  - {name: ss2,");
    let swapped = text
        .replacen(a, "@@", 1)
        .replacen(b, a, 1)
        .replacen("@@", b, 1);
    std::fs::write(d.join("three-tier-small.lock.yaml"), &swapped).expect("write");
    let (code, out) = run(&d, &["render", "three-tier-small.yaml", "--check", &golden]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("three-tier-small.lock.yaml: stale"), "{out}");
    std::fs::write(d.join("three-tier-small.lock.yaml"), &text).expect("write");
    // A lock that is not a lock at all is refused with its location.
    edit_file(
        &d.join("three-tier-small.lock.yaml"),
        "lower_port: 61, upper: z1-spine1",
        "lower_port: 61, upper: z1-spine1, retired: true, x: 1",
    );
    let (code, out) = run(&d, &["render", "three-tier-small.yaml", "--check", &golden]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("AIF-LOCK-001") && out.contains("three-tier-small.lock.yaml:"),
        "{out}"
    );
}

#[test]
fn a_pinned_loopback_and_asn_are_rendered_and_checked() {
    let d = scratch("pin");
    assert_eq!(
        run(
            &d,
            &["render", "three-tier-small.yaml", "--out", "out", "-q"]
        )
        .0,
        0
    );
    let lock = d.join("three-tier-small.lock.yaml");
    edit_file(
        &lock,
        "{name: z1-g1-r1, loopback: 10.20.0.1, router_id: 10.20.0.1, asn: 65200,",
        "{name: z1-g1-r1, loopback: 10.20.0.100, router_id: 10.20.0.100, asn: 65290,",
    );
    let (code, out) = run(
        &d,
        &[
            "compile",
            "three-tier-small.yaml",
            "--only",
            "z1-g1-r1",
            "--format",
            "yaml",
        ],
    );
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("10.20.0.100") && out.contains("65290"),
        "{out}"
    );
    assert_eq!(
        run(
            &d,
            &["render", "three-tier-small.yaml", "--out", "out", "-q"]
        )
        .0,
        0
    );
    assert!(lock_text(&d).contains("loopback: 10.20.0.100"));
    // A pin another device holds is a collision, located in the lock file.
    edit_file(
        &lock,
        "{name: z1-g1-r2, loopback: 10.20.0.2, router_id: 10.20.0.2",
        "{name: z1-g1-r2, loopback: 10.20.0.100, router_id: 10.20.0.100",
    );
    let (code, out) = run(
        &d,
        &["render", "three-tier-small.yaml", "--out", "out", "-q"],
    );
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("AIF-LOCK-003"), "{out}");
    let line = lock_text(&d)
        .lines()
        .position(|l| l.contains("name: z1-g1-r2"))
        .expect("line")
        + 1;
    assert!(
        out.contains(&format!("three-tier-small.lock.yaml:{line}:")),
        "{out}"
    );
}

#[test]
fn a_hand_edited_lock_is_refused_with_its_location() {
    let d = scratch("bad");
    assert_eq!(
        run(
            &d,
            &["render", "three-tier-small.yaml", "--out", "out", "-q"]
        )
        .0,
        0
    );
    let good = lock_text(&d);
    let cases = [
        (
            "loopback: 10.20.0.1,",
            "loopback: 10.99.0.1,",
            "AIF-LOCK-004",
        ),
        ("asn: 65200,", "asn: 70000,", "AIF-LOCK-004"),
        (
            "subnet: 10.21.0.0/31",
            "subnet: 10.21.0.1/31",
            "AIF-LOCK-002",
        ),
        (
            "subnet: 10.21.0.0/31",
            "subnet: 10.21.0.2/31",
            "AIF-LOCK-003",
        ),
        (
            "subnet: 10.21.0.2/31}",
            "subnet: 10.99.0.2/31}",
            "AIF-LOCK-004",
        ),
        (
            "subnet: 10.22.0.2/31}",
            "subnet: 10.99.0.2/31}",
            "AIF-LOCK-004",
        ),
        ("version: 3", "version: 3\nextra: 2", "AIF-LOCK-001"),
        ("devices:\n", "devices: [\n", "AIF-YAML-001"),
    ];
    for (from, to, rule) in cases {
        std::fs::write(
            d.join("three-tier-small.lock.yaml"),
            good.replacen(from, to, 1),
        )
        .expect("write");
        let (code, out) = run(
            &d,
            &["render", "three-tier-small.yaml", "--out", "out", "-q"],
        );
        assert_eq!(code, 2, "{to}: {out} (an invalid lock: render cannot run)");
        assert!(out.contains(rule), "{to}: expected {rule}: {out}");
        assert!(
            out.contains("three-tier-small.lock.yaml:"),
            "{to}: no location: {out}"
        );
    }
}

#[test]
fn a_renumbering_render_needs_allow_renumber() {
    let d = scratch("renumber");
    assert_eq!(
        run(
            &d,
            &["render", "three-tier-small.yaml", "--out", "out", "-q"]
        )
        .0,
        0
    );
    let before = lock_text(&d);
    let (files, entries) = (common::files_under(&d.join("out")), common::names(&d));
    more_spines(&d);
    let (code, out) = run(
        &d,
        &["render", "three-tier-small.yaml", "--out", "out", "-q"],
    );
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("z1-g1-r1: port 63: z1-spine1:2"), "{out}");
    assert_eq!(lock_text(&d), before, "a refused render wrote the lock");
    // The render ran beside the guard: what it wrote is discarded, nothing is left behind.
    assert!(
        common::files_under(&d.join("out")) == files,
        "a refused render changed the output"
    );
    assert_eq!(
        common::names(&d),
        entries,
        "a refused render left a folder behind"
    );
    let (code, out) = run(
        &d,
        &[
            "render",
            "three-tier-small.yaml",
            "--out",
            "out",
            "-q",
            "--allow-renumber",
        ],
    );
    assert_eq!(code, 0, "{out}");
    let after = lock_text(&d);
    assert!(
        after.contains("{name: z2-spine1, loopback: 10.20.0.250,"),
        "{after}"
    );
    assert!(after.contains("{name: z1-spine3,"), "{after}");
}

#[test]
fn only_refuses_cables_the_lock_does_not_hold() {
    let d = scratch("only");
    assert_eq!(
        run(
            &d,
            &["render", "three-tier-small.yaml", "--out", "out", "-q"]
        )
        .0,
        0
    );
    more_spines(&d);
    let (code, out) = run(
        &d,
        &[
            "render",
            "three-tier-small.yaml",
            "--out",
            "out",
            "--only",
            "z1-spine3",
            "-q",
        ],
    );
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("AIF-LOCK-005"), "{out}");
    // A device the lock holds renders alone, and the lock is not rewritten.
    let before = lock_text(&d);
    edit_file(&d.join("three-tier-small.yaml"), "count: 4", "count: 2");
    let (code, out) = run(
        &d,
        &[
            "render",
            "three-tier-small.yaml",
            "--out",
            "one",
            "--only",
            "z1-g1-r1",
            "-q",
        ],
    );
    assert_eq!(code, 0, "{out}");
    assert_eq!(lock_text(&d), before);
}

#[test]
fn release_drops_retired_entries() {
    let d = scratch("release");
    edit_file(
        &d.join("three-tier-small.yaml"),
        "servers: 16",
        "servers: 24",
    );
    edit_file(&d.join("three-tier-small.yaml"), "zones: 2", "zones: 3");
    edit_file(
        &d.join("three-tier-small.yaml"),
        "65020-65021",
        "65020-65022",
    );
    assert_eq!(
        run(
            &d,
            &["render", "three-tier-small.yaml", "--out", "out", "-q"]
        )
        .0,
        0
    );
    edit_file(
        &d.join("three-tier-small.yaml"),
        "servers: 24",
        "servers: 16",
    );
    edit_file(&d.join("three-tier-small.yaml"), "zones: 3", "zones: 2");
    let (code, out) = run(
        &d,
        &["render", "three-tier-small.yaml", "--out", "out", "-q"],
    );
    assert_eq!(code, 0, "{out}");
    let retired = lock_text(&d);
    assert!(
        retired.lines().any(|l| l.contains(
            "{name: z3-spine1, loopback: 10.20.0.248, router_id: 10.20.0.248, asn: 65022,"
        ) && l.ends_with("retired: true}")),
        "{retired}"
    );
    assert_eq!(
        run(
            &d,
            &[
                "render",
                "three-tier-small.yaml",
                "--out",
                "out",
                "-q",
                "--release"
            ]
        )
        .0,
        0
    );
    assert!(!lock_text(&d).contains("retired"));
}

#[test]
fn diff_against_a_revision_reads_the_lock_at_that_revision() {
    let d = scratch("diff");
    git(&d, &["init", "-q"]);
    assert_eq!(
        run(
            &d,
            &["render", "three-tier-small.yaml", "--out", "out", "-q"]
        )
        .0,
        0
    );
    git(
        &d,
        &["add", "three-tier-small.yaml", "three-tier-small.lock.yaml"],
    );
    git(&d, &["commit", "-qm", "first"]);
    // A grow by a zone: devices added, none renumbered.
    edit_file(
        &d.join("three-tier-small.yaml"),
        "servers: 16",
        "servers: 24",
    );
    edit_file(&d.join("three-tier-small.yaml"), "zones: 2", "zones: 3");
    edit_file(
        &d.join("three-tier-small.yaml"),
        "65020-65021",
        "65020-65022",
    );
    let (code, out) = run(&d, &["diff", "--against", "HEAD", "three-tier-small.yaml"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("10 devices added (") && out.contains("no existing switch renumbered"),
        "{out}"
    );
    assert!(!out.contains("CHG-RENUMBER"), "{out}");
    // Removing the committed lock: the new side has none and the old side's lock is used.
    std::fs::remove_file(d.join("three-tier-small.lock.yaml")).expect("rm");
    let (_, out2) = run(&d, &["diff", "--against", "HEAD", "three-tier-small.yaml"]);
    assert!(out2.contains("no existing switch renumbered"), "{out2}");
    // More spines re-cable existing devices: CHG-RENUMBER names them.
    git(&d, &["checkout", "-q", "--", "."]);
    more_spines(&d);
    let (_, out) = run(
        &d,
        &[
            "diff",
            "--against",
            "HEAD",
            "three-tier-small.yaml",
            "--format",
            "json",
        ],
    );
    assert!(
        out.contains("\"CHG-RENUMBER\"")
            && out.contains("22 existing switches renumbered or re-cabled (ss1, ss2, z1-g1-r1"),
        "{out}"
    );
}

#[test]
fn schema_lock_is_the_committed_schema() {
    let out = common::aifab(&["schema", "--lock"]);
    let committed =
        std::fs::read_to_string("schema/lock.schema.json").expect("schema/lock.schema.json");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        committed,
        "regenerate: cargo run -q -- schema --lock > schema/lock.schema.json"
    );
}

#[test]
fn the_example_locks_are_current() {
    for path in common::example_intents() {
        let lock = aifab::lock::path_for(Path::new(&path));
        let committed = std::fs::read_to_string(&lock).unwrap_or_default();
        let m = common::model(&path);
        let name = Path::new(&path)
            .file_name()
            .expect("name")
            .to_string_lossy();
        let fresh = aifab::lock::build::from_model(&m, None, false).to_yaml(&name);
        assert_eq!(
            committed,
            fresh,
            "{}: render {path} --out DIR and commit it",
            lock.display()
        );
    }
}

/// The lock's path in the scratch folder.
fn lock_path(dir: &Path) -> std::path::PathBuf {
    dir.join("three-tier-small.lock.yaml")
}

const RENDER: [&str; 5] = ["render", "three-tier-small.yaml", "--out", "out", "-q"];

#[test]
fn a_lock_that_lost_lines_is_refused_with_its_location() {
    let d = scratch("lost");
    assert_eq!(run(&d, &RENDER).0, 0);
    let good = lock_text(&d);
    let device_line = good
        .lines()
        .find(|l| l.contains("name: z1-g1-r1,"))
        .expect("a leaf's line")
        .to_string();
    let cut = &good[..good.find("\nservers:").expect("servers") + 1];
    let cases: [(&str, String, &str); 5] = [
        (
            "a deleted device line",
            good.replacen(&format!("{device_line}\n"), "", 1),
            "`devices` holds 21 entries, but the lock's `total:` line counts 22: 1 deleted or lost",
        ),
        (
            "cut short at a line break",
            cut.to_string(),
            "does not end with its `total:` line",
        ),
        (
            "a bare version 2",
            "version: 2\n".to_string(),
            "does not end with its `total:` line",
        ),
        (
            "a bare version 1",
            "version: 1\n".to_string(),
            "has no `devices:`, `links:`, `servers:` list",
        ),
        ("an empty file", String::new(), "AIF-LOCK"),
    ];
    for (what, text, message) in &cases {
        std::fs::write(lock_path(&d), text).expect("write");
        let (code, out) = run(&d, &RENDER);
        assert_eq!(code, 2, "{what}: {out}");
        assert!(out.contains(message), "{what}: {out}");
        assert!(
            out.contains("three-tier-small.lock.yaml:"),
            "{what}: located: {out}"
        );
        let (code, out) = run(&d, &["validate", "three-tier-small.yaml"]);
        assert_eq!(code, 1, "validate reads the lock: {what}: {out}");
        assert_eq!(lock_text(&d), *text, "{what}: the lock is left as it is");
    }
    // The deleted line, on purpose: --allow-renumber renders and writes the lock whole again.
    std::fs::write(lock_path(&d), &cases[0].1).expect("write");
    let (code, out) = run(
        &d,
        &[
            "render",
            "three-tier-small.yaml",
            "--out",
            "out",
            "--allow-renumber",
        ],
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("is not whole"), "{out}");
    assert_eq!(lock_text(&d), good, "the same allocation, whole again");
}

#[test]
fn a_lock_behind_the_output_rendered_with_it_is_refused() {
    let d = scratch("behind");
    assert_eq!(run(&d, &RENDER).0, 0);
    let small = lock_text(&d);
    // A render of part of the fabric writes no lock, and keeps the record of the full one.
    let (code, out) = run(
        &d,
        &[
            "render",
            "three-tier-small.yaml",
            "--out",
            "out",
            "--only",
            "ss1",
            "-q",
        ],
    );
    assert_eq!(code, 0, "{out}");
    let manifest = std::fs::read_to_string(d.join("out/.aifab-output")).expect("manifest");
    assert!(
        manifest.contains("lock: ../three-tier-small.lock.yaml, 22 devices, "),
        "{manifest}"
    );
    // Deleted: the output's manifest says it was rendered with one.
    std::fs::remove_file(lock_path(&d)).expect("rm");
    let (code, out) = run(&d, &RENDER);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("three-tier-small.lock.yaml is missing, but out was rendered with it"),
        "{out}"
    );
    assert!(!lock_path(&d).exists(), "nothing written");
    std::fs::write(lock_path(&d), &small).expect("restore");
    // An older lock put back after a grow.
    edit_file(
        &d.join("three-tier-small.yaml"),
        "servers: 16",
        "servers: 24",
    );
    edit_file(&d.join("three-tier-small.yaml"), "zones: 2", "zones: 3");
    edit_file(
        &d.join("three-tier-small.yaml"),
        "65020-65021",
        "65020-65022",
    );
    assert_eq!(run(&d, &RENDER).0, 0);
    let grown = lock_text(&d);
    std::fs::write(lock_path(&d), &small).expect("the old lock");
    let (code, out) = run(&d, &RENDER);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("holds fewer entries than when out was rendered with it")
            && out.contains("22 devices where it held 32"),
        "{out}"
    );
    // Another folder, rendered without that lock, is not concerned.
    let (code, out) = run(
        &d,
        &["render", "three-tier-small.yaml", "--out", "other", "-q"],
    );
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        lock_text(&d),
        grown,
        "the small lock grew back to the same allocation"
    );
}

#[test]
fn a_lock_of_another_intent_is_refused_and_a_renamed_intents_is_followed() {
    let d = scratch("named");
    assert_eq!(run(&d, &RENDER).0, 0);
    let good = lock_text(&d);
    // A copied intent with the other's lock beside it.
    std::fs::copy(d.join("three-tier-small.yaml"), d.join("copy.yaml")).expect("copy");
    std::fs::write(d.join("copy.lock.yaml"), &good).expect("copy");
    let (code, out) = run(&d, &["render", "copy.yaml", "--out", "copy-out", "-q"]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("copy.lock.yaml is the lock of ./three-tier-small.yaml")
            || out.contains("copy.lock.yaml is the lock of three-tier-small.yaml"),
        "{out}"
    );
    // validate and compile refuse it the same way (could not check: exit 2), naming the other intent.
    for cmd in [
        &["validate", "copy.yaml"][..],
        &["compile", "copy.yaml"][..],
    ] {
        let (code, out) = run(&d, cmd);
        assert_eq!(code, 2, "{cmd:?}: {out}");
        assert!(
            out.contains("copy.lock.yaml is the lock of")
                && out.contains("three-tier-small.yaml (its first line says so)"),
            "{cmd:?}: {out}"
        );
    }
    // The intent renamed with its lock (the lock still names the old name): followed.
    std::fs::remove_file(d.join("copy.yaml")).expect("rm");
    std::fs::remove_file(d.join("copy.lock.yaml")).expect("rm");
    std::fs::rename(d.join("three-tier-small.yaml"), d.join("renamed.yaml")).expect("mv");
    std::fs::rename(lock_path(&d), d.join("renamed.lock.yaml")).expect("mv");
    let (code, out) = run(&d, &["render", "renamed.yaml", "--out", "out2"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("is taken for three-tier-small.yaml renamed"),
        "{out}"
    );
    let now = std::fs::read_to_string(d.join("renamed.lock.yaml")).expect("lock");
    assert_eq!(
        now,
        good.replace("lock for three-tier-small.yaml", "lock for renamed.yaml")
    );
}

#[test]
fn an_intent_renamed_without_its_lock_is_refused_until_the_lock_follows() {
    let d = scratch("git-mv");
    git(&d, &["init", "-q"]);
    assert_eq!(run(&d, &RENDER).0, 0);
    git(
        &d,
        &["add", "three-tier-small.yaml", "three-tier-small.lock.yaml"],
    );
    git(&d, &["commit", "-qm", "first"]);
    let good = lock_text(&d);
    git(&d, &["mv", "three-tier-small.yaml", "fabric.yaml"]);
    let (code, out) = run(&d, &["render", "fabric.yaml", "--out", "out", "-q"]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("git shows fabric.yaml renamed from three-tier-small.yaml")
            && out.contains("git mv ./three-tier-small.lock.yaml fabric.lock.yaml"),
        "{out}"
    );
    assert!(!d.join("fabric.lock.yaml").exists(), "nothing written");
    // diff follows the rename: the intent at HEAD under its old name, with its lock; nothing changes.
    let (code, out) = run(&d, &["diff", "--against", "HEAD", "fabric.yaml"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("0 devices changed (0 added, 0 removed)"),
        "{out}"
    );
    git(
        &d,
        &["mv", "three-tier-small.lock.yaml", "fabric.lock.yaml"],
    );
    let (code, out) = run(&d, &["render", "fabric.yaml", "--out", "out"]);
    assert_eq!(code, 0, "{out}");
    let now = std::fs::read_to_string(d.join("fabric.lock.yaml")).expect("lock");
    assert_eq!(
        now,
        good.replace("lock for three-tier-small.yaml", "lock for fabric.yaml")
    );
    // Committed, and grown by a zone: the diff against the commit before the rename reads the lock
    // there and renumbers nothing.
    git(&d, &["commit", "-qm", "renamed"]);
    edit_file(&d.join("fabric.yaml"), "servers: 16", "servers: 24");
    edit_file(&d.join("fabric.yaml"), "zones: 2", "zones: 3");
    edit_file(&d.join("fabric.yaml"), "65020-65021", "65020-65022");
    let (code, out) = run(&d, &["diff", "--against", "HEAD~1", "fabric.yaml"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("10 devices added (") && out.contains("no existing switch renumbered"),
        "{out}"
    );
}

#[test]
fn validate_reads_the_lock_and_management_blocks_are_checked_with_it() {
    let d = scratch("validate");
    let intent = d.join("three-tier-small.yaml");
    // Leaves from .100, spines from .120: 16 leaves fit below the spines.
    edit_file(&intent, "spine: 198.51.100.20", "spine: 198.51.100.120");
    assert_eq!(run(&d, &RENDER).0, 0);
    // A pinned loopback outside the pool: validate reports it in the lock; --no-lock does not.
    let good = lock_text(&d);
    std::fs::write(
        lock_path(&d),
        good.replacen("loopback: 10.20.0.1,", "loopback: 10.99.0.1,", 1),
    )
    .expect("write");
    let (code, out) = run(&d, &["validate", "three-tier-small.yaml"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("AIF-LOCK-004") && out.contains("three-tier-small.lock.yaml:"),
        "{out}"
    );
    let (code, out) = run(&d, &["validate", "three-tier-small.yaml", "--no-lock"]);
    assert_eq!(code, 0, "{out}");
    std::fs::write(lock_path(&d), &good).expect("restore");
    // Twice the leaves: their block runs into the spines' (.116 on). Without the lock that is
    // AIF-ADDR-006; with it too, though the lock would step the new leaves past the spines.
    edit_file(&intent, "servers: 16", "servers: 32");
    edit_file(&intent, "zones: 2", "zones: 4");
    edit_file(&intent, "65020-65021", "65020-65023");
    edit_file(
        &intent,
        "fabric_links: 10.21.0.0/24",
        "fabric_links: 10.21.0.0/23",
    );
    for args in [
        &["validate", "three-tier-small.yaml"][..],
        &["validate", "three-tier-small.yaml", "--no-lock"],
    ] {
        let (code, out) = run(&d, args);
        assert_eq!(code, 1, "{args:?}: {out}");
        assert!(out.contains("AIF-ADDR-006"), "{args:?}: {out}");
    }
    let (code, out) = run(&d, &RENDER);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("AIF-ADDR-006"), "{out}");
}
