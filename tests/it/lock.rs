//! The lock file as a user meets it (docs/lock.md): `render --out` writes it, `--check` fails on a stale
//! or missing one, a hand-edited lock pins values or fails with `file:line:col`, a renumbering render
//! needs `--allow-renumber`, `--only` refuses cables the lock does not hold, `diff` reads the lock at the
//! revision, and `schema --lock` is `schema/lock.schema.json`.

use crate::common;

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
    let o: Output = std::process::Command::new(env!("CARGO_BIN_EXE_aifab"))
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
        ("version: 2", "version: 2\nextra: 2", "AIF-LOCK-001"),
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

fn git(dir: &Path, args: &[&str]) {
    let o = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git");
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
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
        out.contains("10 devices added (") && out.contains("0 existing devices renumbered"),
        "{out}"
    );
    assert!(!out.contains("CHG-RENUMBER"), "{out}");
    // Removing the committed lock: the new side has none and the old side's lock is used.
    std::fs::remove_file(d.join("three-tier-small.lock.yaml")).expect("rm");
    let (_, out2) = run(&d, &["diff", "--against", "HEAD", "three-tier-small.yaml"]);
    assert!(out2.contains("0 existing devices renumbered"), "{out2}");
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
