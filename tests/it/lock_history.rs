//! A lock that knows its history (docs/lock.md, "A lock knows its history"): its `lineage:` and
//! `serial:` lines, the output folder's record of them, and the lock's committed history in git, so that
//! an older lock put back, a lock shortened with its `total:` adjusted, or another fabric's lock is
//! refused whatever folder the render writes, unless `--allow-renumber`.

use crate::common;
use crate::common::git;
use std::path::Path;

const LOCK: &str = "three-tier-small.lock.yaml";

/// A scratch folder holding a copy of three-tier-small.yaml; with `repo`, a git repository.
fn scratch(name: &str, repo: bool) -> common::Scratch {
    let d = common::Scratch::new(&format!("lockhist-{name}"));
    std::fs::copy(
        "intents/three-tier-small.yaml",
        d.join("three-tier-small.yaml"),
    )
    .expect("copy");
    if repo {
        git(&d, &["init", "-q"]);
    }
    d
}

fn run(dir: &Path, args: &[&str]) -> (i32, String) {
    let o = common::aifab_command()
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run aifab");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code().unwrap_or(-1), text)
}

/// `aifab render three-tier-small.yaml --out <out>` and `extra`.
fn render(dir: &Path, out: &str, extra: &[&str]) -> (i32, String) {
    let mut args = vec!["render", "three-tier-small.yaml", "--out", out, "-q"];
    args.extend_from_slice(extra);
    run(dir, &args)
}

fn lock_text(dir: &Path) -> String {
    std::fs::read_to_string(dir.join(LOCK)).expect("lock written")
}

fn write_lock(dir: &Path, text: &str) {
    std::fs::write(dir.join(LOCK), text).expect("write lock");
}

/// The value of a lock's top-level line `key: value` (without its double quotes).
fn header<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    text.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(": "))
        .map(|v| v.trim_matches('"'))
}

fn commit(dir: &Path, message: &str) {
    git(dir, &["add", "three-tier-small.yaml", LOCK]);
    git(dir, &["commit", "-qm", message]);
}

/// The lock with z1-g1-r1 pinned to another loopback (as an operator pins by hand): the same entry
/// counts.
fn pinned(text: &str) -> String {
    let from = "{name: z1-g1-r1, loopback: 10.20.0.1, router_id: 10.20.0.1,";
    assert!(text.contains(from), "{text}");
    text.replacen(
        from,
        "{name: z1-g1-r1, loopback: 10.20.0.100, router_id: 10.20.0.100,",
        1,
    )
}

/// The lock without one leaf's line, its `total:` line adjusted to match.
fn shortened(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| l.contains("{name: z1-g1-r2,"))
        .expect("a leaf's line");
    let cut = text.replacen(&format!("{line}\n"), "", 1);
    assert!(cut.contains("total: {devices: 22,"), "{text}");
    cut.replacen("total: {devices: 22,", "total: {devices: 21,", 1)
}

/// The lock as an aifab before lineages wrote it: version 2, no history lines.
fn pre_lineage(text: &str) -> String {
    text.lines()
        .filter(|l| {
            !["lineage: ", "serial: ", "digest: "]
                .iter()
                .any(|k| l.starts_with(k))
        })
        .map(|l| match l.starts_with("version: ") {
            true => "version: 2\n".to_string(),
            false => format!("{l}\n"),
        })
        .collect()
}

#[test]
fn the_lineage_is_the_same_in_two_fresh_repositories_and_the_serial_counts_changes() {
    let a = scratch("fresh-a", true);
    let b = scratch("fresh-b", true);
    assert_eq!(render(&a, "out", &[]).0, 0);
    assert_eq!(render(&b, "elsewhere", &[]).0, 0);
    let first = lock_text(&a);
    assert_eq!(first, lock_text(&b), "the same lock, byte for byte");
    let lineage = header(&first, "lineage").expect("a lineage line");
    assert!(
        lineage.len() == 32 && lineage.bytes().all(|c| c.is_ascii_hexdigit()),
        "{first}"
    );
    assert_eq!(header(&first, "serial"), Some("1"), "{first}");
    assert_eq!(header(&first, "version"), Some("3"), "{first}");
    // A render that changes nothing keeps the serial; one that changes the lock adds one.
    assert_eq!(render(&a, "out", &[]).0, 0);
    assert_eq!(lock_text(&a), first);
    write_lock(&a, &pinned(&first));
    assert_eq!(render(&a, "out", &[]).0, 0);
    let second = lock_text(&a);
    assert_eq!(header(&second, "serial"), Some("2"), "{second}");
    assert_eq!(header(&second, "lineage"), Some(lineage), "kept forever");
    assert!(second.contains("loopback: 10.20.0.100"), "{second}");
    // The output folder's manifest records the lineage and the serial it was rendered with.
    let manifest = std::fs::read_to_string(a.join("out/.aifab-output")).expect("manifest");
    assert!(
        manifest.contains(&format!(", lineage {lineage}, serial 2, xxh3-128 ")),
        "{manifest}"
    );
}

#[test]
fn a_put_back_older_lock_is_refused_whatever_folder_it_renders_into() {
    let d = scratch("put-back", true);
    assert_eq!(render(&d, "out", &[]).0, 0);
    let old = lock_text(&d);
    commit(&d, "first");
    // A pin: the same entry counts, another loopback; serial 2, committed.
    write_lock(&d, &pinned(&old));
    assert_eq!(render(&d, "out", &[]).0, 0);
    let new = lock_text(&d);
    commit(&d, "pin");
    // The older lock put back: the folder was rendered with serial 2.
    git(&d, &["checkout", "HEAD~1", "--", LOCK]);
    assert_eq!(lock_text(&d), old);
    let (code, out) = render(&d, "out", &[]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("three-tier-small.lock.yaml is serial 1")
            && out.contains("serial 2")
            && out.contains("git checkout"),
        "{out}"
    );
    assert_eq!(lock_text(&d), old, "nothing written");
    // The folder's record edited to say nothing of the lineage: git's history still holds serial 2.
    let manifest = d.join("out/.aifab-output");
    let m = std::fs::read_to_string(&manifest).expect("manifest");
    let cut = m.find("lineage ").expect("a lineage in the record");
    let end = cut + m[cut..].find("xxh3-128").expect("the hash after it");
    std::fs::write(&manifest, format!("{}{}", &m[..cut], &m[end..])).expect("write");
    let (code, out) = render(&d, "out", &[]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("git's history of it holds serial 2"), "{out}");
    std::fs::write(&manifest, &m).expect("restore");
    // `--check` against that folder (what CI runs) refuses it the same way.
    let (code, out) = run(&d, &["render", "three-tier-small.yaml", "--check", "out"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("an older lock was put back"), "{out}");
    // A new folder: git's history of the lock holds serial 2.
    let (code, out) = render(&d, "fresh", &[]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("three-tier-small.lock.yaml is serial 1")
            && out.contains("serial 2")
            && out.contains("committed"),
        "{out}"
    );
    assert!(!d.join("fresh").exists(), "nothing written");
    // Committed as it is (a rollback commit): still below what the history holds.
    git(&d, &["commit", "-qam", "rollback"]);
    let (code, out) = render(&d, "fresh", &[]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("serial 2"), "{out}");
    // On purpose: --allow-renumber renders it, and the lock moves past the history (serial 3).
    let (code, out) = render(&d, "fresh", &["--allow-renumber"]);
    assert_eq!(code, 0, "{out}");
    let after = lock_text(&d);
    assert_eq!(header(&after, "serial"), Some("3"), "{after}");
    assert_eq!(header(&after, "lineage"), header(&new, "lineage"));
    assert!(
        after.contains("loopback: 10.20.0.1,"),
        "the older allocation"
    );
    assert_eq!(render(&d, "fresh2", &[]).0, 0, "then renders as any lock");
}

#[test]
fn a_shortened_lock_with_its_total_adjusted_is_refused() {
    let d = scratch("shortened", true);
    assert_eq!(render(&d, "out", &[]).0, 0);
    let good = lock_text(&d);
    commit(&d, "first");
    write_lock(&d, &shortened(&good));
    // The folder rendered with it records 22 devices; a new folder has git's history.
    for folder in ["out", "fresh"] {
        let (code, out) = render(&d, folder, &[]);
        assert_eq!(code, 2, "{folder}: {out}");
        assert!(
            out.contains("three-tier-small.lock.yaml") && out.contains("21 devices"),
            "{folder}: {out}"
        );
    }
    assert!(!d.join("fresh").exists(), "nothing written");
    // Committed as it is: the committed version of the same serial held 22 devices.
    commit(&d, "shortened");
    let (code, out) = render(&d, "fresh", &[]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("21 devices") && out.contains("22"), "{out}");
    // On purpose: --allow-renumber allocates the device afresh; here the arithmetic gives it its old
    // values back, so the lock is serial 1 as committed first, byte for byte.
    let (code, out) = render(&d, "fresh", &["--allow-renumber"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(lock_text(&d), good);
}

#[test]
fn another_fabrics_lock_is_refused() {
    let d = scratch("other", true);
    std::fs::copy(d.join("three-tier-small.yaml"), d.join("other.yaml")).expect("copy");
    assert_eq!(render(&d, "out", &[]).0, 0);
    assert_eq!(
        run(&d, &["render", "other.yaml", "--out", "other-out", "-q"]).0,
        0
    );
    let own = lock_text(&d);
    let other = std::fs::read_to_string(d.join("other.lock.yaml")).expect("other lock");
    assert_ne!(
        header(&own, "lineage"),
        header(&other, "lineage"),
        "two fabrics, two lineages"
    );
    commit(&d, "first");
    // The other fabric's lock, its first line changed to name this intent.
    write_lock(
        &d,
        &other.replacen("lock for other.yaml", "lock for three-tier-small.yaml", 1),
    );
    for folder in ["out", "fresh"] {
        let (code, out) = render(&d, folder, &[]);
        assert_eq!(code, 2, "{folder}: {out}");
        assert!(
            out.contains("another fabric")
                && out.contains(header(&own, "lineage").expect("lineage"))
                && out.contains(header(&other, "lineage").expect("lineage")),
            "{folder}: {out}"
        );
    }
    let (code, out) = render(&d, "fresh", &["--allow-renumber"]);
    assert_eq!(code, 0, "{out}");
    let after = lock_text(&d);
    assert_eq!(
        header(&after, "lineage"),
        header(&own, "lineage"),
        "the lock of this intent goes on: its lineage, the next serial"
    );
    assert_eq!(header(&after, "serial"), Some("2"), "{after}");
}

#[test]
fn a_pre_lineage_lock_upgrades_and_is_then_older_than_its_upgrade() {
    let d = scratch("upgrade", true);
    assert_eq!(render(&d, "out", &[]).0, 0);
    let fresh = lock_text(&d);
    // What an earlier aifab left: a version 2 lock, committed, and a folder record without a lineage.
    let v2 = pre_lineage(&fresh);
    assert!(
        !v2.contains("lineage") && v2.contains("version: 2\n"),
        "{v2}"
    );
    write_lock(&d, &v2);
    commit(&d, "an earlier aifab's lock");
    let manifest = d.join("out/.aifab-output");
    let m = std::fs::read_to_string(&manifest).expect("manifest");
    let cut = m.find("lineage ").expect("a lineage in the record");
    let end = cut + m[cut..].find("xxh3-128").expect("the hash after it");
    std::fs::write(&manifest, format!("{}{}", &m[..cut], &m[end..])).expect("write");
    // `--check` says why the lock is stale: an earlier aifab's, to be upgraded and committed.
    let (code, out) = run(&d, &["render", "three-tier-small.yaml", "--check", "out"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("stale: an earlier aifab wrote it (version 2)"),
        "{out}"
    );
    // The next render upgrades it: the lock a first render writes.
    for folder in ["out", "fresh"] {
        let (code, out) = render(&d, folder, &[]);
        assert_eq!(code, 0, "{folder}: {out}");
        assert_eq!(lock_text(&d), fresh, "{folder}");
        write_lock(&d, &v2);
    }
    write_lock(&d, &fresh);
    commit(&d, "upgraded");
    // Once the upgrade is committed, the version 2 lock put back is older (serial 0).
    write_lock(&d, &v2);
    let (code, out) = render(&d, "fresh2", &[]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("has no lineage") && out.contains("serial 1"),
        "{out}"
    );
}

/// `diff --against REV` reads the lock at REV bounded by the lock's own limit, not the intent's 4 MiB:
/// a committed lock of 5 MiB (a large fabric's) is the old side's allocation.
#[test]
fn a_lock_at_a_revision_is_read_up_to_the_locks_limit() {
    let d = scratch("big-at-rev", true);
    assert_eq!(render(&d, "out", &[]).0, 0);
    let pad = "# padding, as a large fabric's lock is large\n".repeat(5 * 1024 * 1024 / 46);
    write_lock(&d, &format!("{}{pad}", pinned(&lock_text(&d))));
    commit(&d, "pinned, large");
    let (code, out) = run(&d, &["diff", "--against", "HEAD", "three-tier-small.yaml"]);
    assert_eq!(code, 0, "the same lock on both sides: {out}");
    assert!(out.contains("0 devices changed"), "{out}");
}

/// A version 3 lock that lost its history lines (the lines removed by hand, to pass it off as a lock
/// of no history) is refused, located; one that says version 2 is read as a lock before lineages.
#[test]
fn a_version_3_lock_without_its_history_lines_is_refused() {
    let d = scratch("no-history", false);
    assert_eq!(render(&d, "out", &[]).0, 0);
    let good = lock_text(&d);
    let stripped = pre_lineage(&good).replacen("version: 2\n", "version: 3\n", 1);
    write_lock(&d, &stripped);
    let (code, out) = render(&d, "fresh", &[]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("AIF-LOCK-006")
            && out.contains("has no `lineage:`, `serial:`, `digest:` line")
            && out.contains("three-tier-small.lock.yaml:3:"),
        "{out}"
    );
    // A lineage that is not one is a bad value.
    let lineage = header(&good, "lineage").expect("lineage");
    write_lock(&d, &good.replacen(lineage, "not-a-lineage", 1));
    let (code, out) = render(&d, "fresh", &[]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("AIF-LOCK-002") && out.contains("is not a lineage"),
        "{out}"
    );
}

/// A committed lock deleted from the work tree: a new folder would be rendered from the arithmetic.
#[test]
fn a_deleted_committed_lock_is_refused_for_a_new_folder() {
    let d = scratch("deleted", true);
    assert_eq!(render(&d, "out", &[]).0, 0);
    let good = lock_text(&d);
    commit(&d, "first");
    std::fs::remove_file(d.join(LOCK)).expect("rm");
    let (code, out) = render(&d, "fresh", &[]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("three-tier-small.lock.yaml is missing, but git holds it"),
        "{out}"
    );
    assert!(
        !d.join(LOCK).exists() && !d.join("fresh").exists(),
        "nothing written"
    );
    // Allowed: the allocation afresh continues the committed lineage.
    let (code, out) = render(&d, "fresh", &["--allow-renumber"]);
    assert_eq!(code, 0, "{out}");
    let after = lock_text(&d);
    assert_eq!(header(&after, "lineage"), header(&good, "lineage"));
    assert_eq!(header(&after, "serial"), Some("2"), "{after}");
}

/// Without git and without a folder rendered with it, an edit by hand is known by the digest: said,
/// kept (a pin), and written as the next serial.
#[test]
fn an_edit_by_hand_is_said_and_written_as_the_next_serial() {
    let d = scratch("edited", false);
    assert_eq!(render(&d, "out", &[]).0, 0);
    write_lock(&d, &pinned(&lock_text(&d)));
    let (code, out) = render(&d, "fresh", &[]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("was edited by hand since aifab wrote its serial 1"),
        "{out}"
    );
    let after = lock_text(&d);
    assert!(after.contains("loopback: 10.20.0.100"), "the pin is kept");
    assert_eq!(header(&after, "serial"), Some("2"), "{after}");
}

/// The history follows the lock across a rename (`git mv` of the intent and its lock): a shortened
/// lock under the new name is compared with the versions under the old one.
#[test]
fn the_history_follows_a_renamed_lock() {
    let d = scratch("renamed", true);
    assert_eq!(render(&d, "out", &[]).0, 0);
    let good = lock_text(&d);
    commit(&d, "first");
    git(&d, &["mv", "three-tier-small.yaml", "fabric.yaml"]);
    git(&d, &["mv", LOCK, "fabric.lock.yaml"]);
    git(&d, &["commit", "-qm", "renamed"]);
    std::fs::write(d.join("fabric.lock.yaml"), shortened(&good)).expect("write");
    git(&d, &["commit", "-qam", "shortened"]);
    let (code, out) = run(&d, &["render", "fabric.yaml", "--out", "fresh", "-q"]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("fabric.lock.yaml holds fewer entries than serial 1")
            && out.contains("21 devices where it held 22"),
        "{out}"
    );
}
