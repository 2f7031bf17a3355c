//! Delivery as a pipeline uses it: `--only` renders and checks only what it matches and leaves the rest
//! of the folder alone, exit codes say 0 same / 1 differs / 2 could not run, `diff --against` handles
//! an intent added since the revision, and the Markdown comment stays within its budget.

use crate::common;

use std::path::Path;
use std::process::Output;

fn tmpdir(name: &str) -> common::Scratch {
    common::Scratch::new(&format!("delivery-{name}"))
}

fn run(args: &[&str], dirs: &[&Path]) -> Output {
    let mut c = common::aifab_command();
    c.args(args);
    for d in dirs {
        c.arg(d);
    }
    c.output().expect("run aifab")
}

#[cfg(unix)]
fn inode(p: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata(p).expect("meta").ino()
}

#[test]
fn only_rerenders_its_devices_and_keeps_the_rest_of_the_folder() {
    let t = tmpdir("only-out");
    let out = t.join("out");
    let full = run(
        &["render", "intents/pod1-1024.yaml", "-q", "--out"],
        &[&out],
    );
    assert_eq!(full.status.code(), Some(0));
    let before = common::files_under(&out);
    // A hand edit on a device outside the glob survives; one inside it is rendered back.
    let outside = out.join("spine01.cfg");
    let inside = out.join("su1-r1-leaf.cfg");
    std::fs::write(&outside, "edited by hand\n").expect("write");
    std::fs::write(&inside, "edited by hand\n").expect("write");
    let o = run(
        &[
            "render",
            "intents/pod1-1024.yaml",
            "-q",
            "--only",
            "su1-*",
            "--out",
        ],
        &[&out],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let after = common::files_under(&out);
    assert_eq!(after.len(), before.len(), "no file may disappear");
    assert_eq!(
        std::fs::read_to_string(&outside).expect("read"),
        "edited by hand\n"
    );
    let fresh = before
        .iter()
        .find(|(p, _)| p == "su1-r1-leaf.cfg")
        .expect("leaf");
    assert_eq!(std::fs::read(&inside).expect("read"), fresh.1);
    // The inventory stays whole: the same bytes as the full render's.
    let inv = |v: &[(String, Vec<u8>)]| v.iter().find(|(p, _)| p == "inventory.yml").cloned();
    assert_eq!(inv(&after), inv(&before));
    #[cfg(unix)]
    {
        // Kept files are carried by link, not rewritten.
        let again = run(
            &[
                "render",
                "intents/pod1-1024.yaml",
                "-q",
                "--only",
                "su2-*",
                "--out",
            ],
            &[&out],
        );
        assert_eq!(again.status.code(), Some(0));
        let spine = out.join("spine02.cfg");
        let ino = inode(&spine);
        let third = run(
            &[
                "render",
                "intents/pod1-1024.yaml",
                "-q",
                "--only",
                "su3-*",
                "--out",
            ],
            &[&out],
        );
        assert_eq!(third.status.code(), Some(0));
        assert_eq!(
            inode(&spine),
            ino,
            "spine02.cfg was rewritten by an --only su3-* render"
        );
    }
}

#[test]
fn only_matching_nothing_is_an_error_and_writes_nothing() {
    let t = tmpdir("only-none");
    let out = t.join("out");
    let o = run(
        &[
            "render",
            "intents/pod1-1024.yaml",
            "--only",
            "su9-*",
            "--out",
        ],
        &[&out],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--only 'su9-*' matches none of the 48 devices"),
        "{err}"
    );
    assert!(!out.exists(), "nothing may be written");
    let c = run(
        &["compile", "intents/pod1-1024.yaml", "--only", "nope"],
        &[],
    );
    assert_eq!(c.status.code(), Some(2));
}

#[test]
fn check_only_compares_only_the_matched_devices() {
    let t = tmpdir("only-check");
    let out = t.join("golden");
    assert_eq!(
        run(
            &["render", "intents/pod1-1024.yaml", "-q", "--out"],
            &[&out]
        )
        .status
        .code(),
        Some(0)
    );
    std::fs::write(out.join("spine01.cfg"), "drifted\n").expect("write");
    let su1 = run(
        &[
            "render",
            "intents/pod1-1024.yaml",
            "-q",
            "--only",
            "su1-*",
            "--check",
        ],
        &[&out],
    );
    assert_eq!(
        su1.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&su1.stdout)
    );
    let spine = run(
        &[
            "render",
            "intents/pod1-1024.yaml",
            "-q",
            "--only",
            "spine01",
            "--check",
        ],
        &[&out],
    );
    assert_eq!(spine.status.code(), Some(1));
    let diff = String::from_utf8_lossy(&spine.stdout);
    assert!(
        diff.contains("spine01.cfg") && !diff.contains("only in"),
        "{diff}"
    );
    // --bless with --only rewrites the matched device and keeps every other file.
    let count = common::files_under(&out).len();
    let bless = run(
        &[
            "render",
            "intents/pod1-1024.yaml",
            "-q",
            "--only",
            "spine01",
            "--bless",
            "--check",
        ],
        &[&out],
    );
    assert_eq!(bless.status.code(), Some(0));
    assert_eq!(common::files_under(&out).len(), count);
    assert_ne!(
        std::fs::read_to_string(out.join("spine01.cfg")).expect("read"),
        "drifted\n"
    );
}

#[test]
fn could_not_run_is_2_and_never_1() {
    let t = tmpdir("exit");
    let missing = t.join("no-such-folder");
    let o = run(
        &["render", "intents/pod1-1024.yaml", "--check"],
        &[&missing],
    );
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("--bless"));
    let bad = t.join("bad.yaml");
    let text = std::fs::read_to_string("intents/pod1-1024.yaml").expect("read");
    std::fs::write(&bad, text.replace("mtu: 9214", "mtu: 99999")).expect("write");
    let o = run(
        &["render"],
        &[&bad, Path::new("--check"), Path::new("golden/pod1-1024")],
    );
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn diff_against_a_revision_without_the_intent_adds_every_device() {
    let dir = tmpdir("git-new");
    common::git(&dir, &["init", "-q"]);
    std::fs::write(dir.join("README"), "x\n").expect("write");
    common::git(&dir, &["add", "."]);
    common::git(&dir, &["commit", "-qm", "one"]);
    let intent = dir.join("pod.yaml");
    std::fs::copy("intents/mixed-sonic-nxos.yaml", &intent).expect("copy");
    let o = run(
        &["diff", "--against", "HEAD", "--format", "json"],
        &[&intent],
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["totals"]["devices_added"], 24);
    assert_eq!(v["totals"]["devices_removed"], 0);
    assert!(
        v["old"].as_str().expect("old").ends_with("@HEAD (absent)"),
        "{}",
        v["old"]
    );
    // A revision git does not know is trouble, not "every device added".
    let o = run(&["diff", "--against", "no-such-rev"], &[&intent]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn markdown_comment_stays_within_its_budget_and_closes_every_block() {
    let t = tmpdir("md");
    let old = t.join("old.yaml");
    let new = t.join("new.yaml");
    let text = std::fs::read_to_string("intents/pod1-1024.yaml").expect("read");
    std::fs::write(&old, &text).expect("write");
    std::fs::write(&new, text.replace("mtu: 9214", "mtu: 9100")).expect("write");
    for budget in [None, Some("8000")] {
        let mut args = vec!["diff", "--format", "markdown"];
        if let Some(b) = budget {
            args.extend(["--max-chars", b]);
        }
        let o = run(&args, &[&old, &new]);
        assert_eq!(o.status.code(), Some(1));
        let md = String::from_utf8(o.stdout).expect("utf-8");
        let limit: usize = budget.map_or(60_000, |b| b.parse().expect("n"));
        assert!(
            md.chars().count() <= limit,
            "{} > {limit}",
            md.chars().count()
        );
        assert_eq!(
            md.matches("<details>").count(),
            md.matches("</details>").count()
        );
        assert_eq!(md.matches("```").count() % 2, 0, "an unclosed code block");
        assert!(md.contains("more diffs not shown"), "{md}");
        assert!(
            md.contains("devices su1-r1-leaf") || md.contains("devices spine"),
            "{md}"
        );
    }
    let small = run(
        &["diff", "--format", "markdown", "--max-chars", "100"],
        &[&old, &new],
    );
    assert_eq!(
        small.status.code(),
        Some(2),
        "a budget too small to hold the totals is refused"
    );
}

/// The inventory of an `--only` render lists exactly the devices with a config in the folder: into a
/// new folder the matched ones only (the playbooks would find no file for the others); into a folder
/// that already holds the rest of the fabric, every device.
#[test]
fn only_lists_in_the_inventory_the_devices_with_a_config() {
    let t = tmpdir("only-inventory");
    let hosts_of = |dir: &Path| -> Vec<String> {
        let inv = std::fs::read_to_string(dir.join("inventory.yml")).expect("inventory");
        let mut hosts: Vec<String> = inv
            .lines()
            .filter(|l| l.trim_start().starts_with("aifab_config: "))
            .map(|l| l.trim_start()["aifab_config: ".len()..].to_string())
            .collect();
        hosts.sort();
        hosts
    };
    let configs_in = |dir: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .expect("read out")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".cfg"))
            .collect();
        v.sort();
        v
    };
    let fresh = t.join("fresh");
    let o = run(
        &[
            "render",
            "intents/pod1-1024.yaml",
            "-q",
            "--only",
            "su1-r1-*",
            "--out",
        ],
        &[&fresh],
    );
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(configs_in(&fresh), ["su1-r1-leaf.cfg"]);
    assert_eq!(hosts_of(&fresh), configs_in(&fresh));
    let full = t.join("full");
    let o = run(
        &["render", "intents/pod1-1024.yaml", "-q", "--out"],
        &[&full],
    );
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let o = run(
        &[
            "render",
            "intents/pod1-1024.yaml",
            "-q",
            "--only",
            "su1-r1-*",
            "--out",
        ],
        &[&full],
    );
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(configs_in(&full).len(), 48);
    assert_eq!(hosts_of(&full), configs_in(&full));
}
