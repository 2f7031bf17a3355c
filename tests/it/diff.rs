//! `aifab diff`: the change report rules, the markdown PR comment (golden), `--against <rev>` in a git
//! checkout, and the SONiC JSON patch.

use crate::common;
use crate::common::diff_of;

use aifab::compile::compile;
use aifab::intent::Intent;
use aifab::platform::Catalog;
use aifab::review::change::{Change, ChangeRule, Impact, markdown_index, report};
use std::path::PathBuf;

fn changes(old: &Intent, new: &Intent) -> Vec<Change> {
    let a = compile(old, Catalog::builtin()).expect("old compiles");
    let b = compile(new, Catalog::builtin()).expect("new compiles");
    report(&a, &b, Catalog::builtin())
}

fn only(c: &[Change], rule: &str) -> Change {
    let v: Vec<&Change> = c.iter().filter(|x| x.rule == rule).collect();
    assert_eq!(v.len(), 1, "expected one {rule} in {c:#?}");
    v[0].clone()
}

fn fixture(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("diff-fixtures");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p
}

#[test]
fn no_change_reports_nothing() {
    let i = common::intent("intents/pod1-1024.yaml");
    assert!(changes(&i, &i).is_empty());
    let st = common::aifab_command()
        .args(["diff", "intents/pod1-1024.yaml", "intents/pod1-1024.yaml"])
        .output()
        .expect("run");
    assert_eq!(st.status.code(), Some(0));
}

#[test]
fn ecn_change_is_non_disruptive_with_port_counts() {
    let a = common::intent("intents/pod1-1024.yaml");
    let mut b = a.clone();
    b.qos
        .classes
        .get_mut("roce")
        .and_then(|c| c.ecn.as_mut())
        .expect("ecn")
        .min = aifab::units::Size(300 * 1024);
    let c = changes(&a, &b);
    assert_eq!(c.len(), 1, "{c:#?}");
    let e = only(&c, "CHG-ECN");
    assert_eq!(e.impact, Impact::NonDisruptive);
    assert_eq!((e.switches, e.ports), (48, 48 * 64));
    assert!(
        e.summary.contains("class roce (queue 3)") && e.summary.contains("150KB→300KB"),
        "{}",
        e.summary
    );
}

#[test]
fn lossless_set_change_is_disruptive() {
    let a = common::intent("intents/pod1-1024.yaml");
    let mut b = a.clone();
    b.qos.classes.get_mut("roce").expect("roce").priority = Some(4);
    let c = changes(&a, &b);
    let l = only(&c, "CHG-LOSSLESS");
    assert_eq!(l.impact, Impact::Disruptive);
    assert_eq!(l.switches, 48);
    assert!(l.summary.contains("3→4"), "{}", l.summary);
    let d = only(&c, "CHG-DSCP");
    assert_eq!(d.switches, 48);
    // roce's DSCPs (24, 26 in the example) move from priority 3 to 4.
    assert!(d.summary.contains("24,26: priority 3→4"), "{}", d.summary);
}

#[test]
fn nxos_dlb_change_needs_reload() {
    let a = common::intent("intents/pod1-1024.yaml");
    let mut b = a.clone();
    b.load_balancing.dlb.mode = aifab::intent::DlbMode::Flowlet;
    let d = only(&changes(&a, &b), "CHG-DLB");
    assert_eq!(d.impact, Impact::ReloadRequired);
    assert_eq!(
        d.switches, 31,
        "31 NX-OS leaves run DLB (one is overridden off)"
    );
}

#[test]
fn mtu_change_counts_links_once() {
    let a = common::intent("intents/pod1-1024.yaml");
    let mut b = a.clone();
    b.fabric.mtu = 9100;
    let m = only(&changes(&a, &b), "CHG-MTU");
    assert_eq!(m.impact, Impact::Disruptive);
    assert_eq!(
        (m.switches, m.ports),
        (48, 1024 + 1024),
        "1,024 server links + 1,024 leaf-spine links"
    );
}

#[test]
fn growth_adds_switches_and_moves_no_address() {
    let a = common::intent("intents/pod1-1024.yaml");
    let mut b = a.clone();
    b.fabric.topology.servers += 32; // one more group of 32 servers
    let c = changes(&a, &b);
    let d = only(&c, "CHG-DEVICES");
    assert_eq!(d.switches, 8);
    assert!(
        c.iter()
            .all(|x| x.rule != "CHG-ADDR" && x.rule != "CHG-BGP"),
        "{c:#?}"
    );
}

#[test]
fn markdown_comment_matches_golden() {
    let text = std::fs::read_to_string("intents/pod1-1024.yaml").expect("read");
    let changed = text.replace("min: 150KB, max: 1500KB", "min: 300KB, max: 1500KB");
    assert_ne!(text, changed);
    let new = fixture("pod1-1024-ecn.yaml", &changed);
    let md = diff_of(&["intents/pod1-1024.yaml"], &new, "markdown")
        .replace(&new.display().to_string(), "pod1-1024-ecn.yaml");
    // Exactly the ECN lines change, nothing else.
    for l in md.lines().filter(|l| {
        (l.starts_with('+') || l.starts_with('-')) && !l.starts_with("+++") && !l.starts_with("---")
    }) {
        assert!(l.contains("threshold"), "unexpected changed line: {l}");
    }
    let golden = PathBuf::from("golden/diff/pod1-1024-ecn.md");
    if std::env::var("AIFAB_BLESS").is_ok_and(|v| v == "1") {
        std::fs::create_dir_all("golden/diff").expect("mkdir");
        std::fs::write(&golden, &md).expect("bless");
    }
    let want = std::fs::read_to_string(&golden)
        .expect("golden/diff/pod1-1024-ecn.md (bless with AIFAB_BLESS=1)");
    assert_eq!(md, want, "markdown differs from {}", golden.display());
}

#[test]
fn against_a_git_revision() {
    let dir = common::Scratch::new("diff-git");
    std::fs::create_dir_all(dir.join("intents")).expect("mkdir");
    let git = |args: &[&str]| common::git(&dir, args);
    git(&["init", "-q"]);
    let text = std::fs::read_to_string("intents/mixed-sonic-nxos.yaml").expect("read");
    let intent = dir.join("intents/x.yaml");
    std::fs::write(&intent, &text).expect("write");
    git(&["add", "."]);
    git(&["commit", "-qm", "one"]);
    std::fs::write(
        &intent,
        text.replace("min: 150KB, max: 1500KB", "min: 200KB, max: 1500KB"),
    )
    .expect("write");
    git(&["commit", "-qam", "two"]);
    let v: serde_json::Value =
        serde_json::from_str(&diff_of(&["--against", "HEAD~1"], &intent, "json")).expect("json");
    // The Dell SKUs are "unknown" to 202405's apply-patch validators: reload, then the ECN change.
    assert_eq!(v["changes"][0]["rule"], "CHG-SONIC-RELOAD");
    assert_eq!(v["changes"][0]["switches"], 16);
    assert_eq!(v["changes"][1]["rule"], "CHG-ECN");
    assert_eq!(v["totals"]["devices_changed"], 24);
    // The work tree is untouched.
    assert!(
        std::fs::read_to_string(&intent)
            .expect("read")
            .contains("min: 200KB")
    );
    // On 202405 (assumed) no SONiC leaf gets a patch: each is named for a reload instead.
    let p = common::aifab_command()
        .args(["diff", "--against", "HEAD~1"])
        .arg(&intent)
        .args(["--format", "sonic-patch"])
        .output()
        .expect("run");
    assert_eq!(p.status.code(), Some(1));
    let patches: serde_json::Value = serde_json::from_slice(&p.stdout).expect("json");
    assert_eq!(patches, serde_json::json!({}));
    let notes = String::from_utf8_lossy(&p.stderr);
    assert!(notes.contains("SONiC 202405 assumed"), "{notes}");
    assert_eq!(
        notes
            .matches(": no patch; load it with config reload")
            .count(),
        16,
        "{notes}"
    );
    // On master (no WRED rule), a SONiC JSON patch replaces exactly the WRED minimums of the leaves.
    let p = common::aifab_command()
        .args(["diff", "--against", "HEAD~1"])
        .arg(&intent)
        .args(["--format", "sonic-patch", "--sonic-release", "master"])
        .output()
        .expect("run");
    assert_eq!(p.status.code(), Some(1));
    let patches: serde_json::Value = serde_json::from_slice(&p.stdout).expect("json");
    let obj = patches.as_object().expect("object");
    assert_eq!(obj.len(), 16, "16 SONiC leaves");
    for (host, ops) in obj {
        for op in ops.as_array().expect("ops") {
            assert_eq!(op["op"], "replace", "{host}: {op}");
            let path = op["path"].as_str().expect("path");
            assert!(
                path.starts_with("/WRED_PROFILE/") && path.ends_with("_min_threshold"),
                "{host}: {path}"
            );
            assert_eq!(op["value"], "204800");
        }
    }
}

#[test]
fn a_new_or_reworded_acknowledgement_is_a_change_to_review() {
    let a = common::intent("intents/pod1-1024.yaml");
    // An override re-words the reason for one scalable unit: the last matching entry wins there.
    let mut b = a.clone();
    b.overrides.push(aifab::intent::Override {
        matches: "su1-*".into(),
        platform: None,
        dlb: None,
        roce_dest_qp: None,
        management: None,
        os_version: None,
        acknowledge: vec![aifab::intent::Acknowledgement {
            rule: "AIF-LB-005".into(),
            reason: "su1 tested in the lab".into(),
        }],
        site_lines: Vec::new(),
    });
    let c = only(&changes(&a, &b), "CHG-ACK");
    assert_eq!(c.switches, 8, "{c:?}");
    assert!(
        c.summary.contains("new reason (\"su1 tested in the lab\")"),
        "{c:?}"
    );
    // Dropping the fabric-wide entry: 31 DLB leaves lose it (su4-r8-leaf runs no DLB, so never had it).
    let mut d = a.clone();
    d.acknowledge.retain(|x| x.rule != "AIF-LB-005");
    let c = only(&changes(&a, &d), "CHG-ACK");
    assert_eq!(c.switches, 31, "{c:?}");
    assert!(
        c.summary.contains("AIF-LB-005 no longer acknowledged"),
        "{c:?}"
    );
}

#[test]
fn every_change_names_its_switches() {
    let a = common::intent("intents/pod1-1024.yaml");
    let mut b = a.clone();
    b.fabric.mtu = 9100;
    b.load_balancing.dlb.mode = aifab::intent::DlbMode::Flowlet;
    let c = changes(&a, &b);
    assert!(!c.is_empty());
    for x in &c {
        assert_eq!(x.devices.len(), x.switches, "{x:?}");
        let first = x.devices.first().expect("a named switch");
        assert!(x.summary.contains(first.as_str()), "{x:?}");
    }
    // DLB on the NX-OS leaves: the change carries the egress-QoS caveat (AIF-LB-005).
    let d = only(&c, "CHG-DLB");
    assert!(d.summary.contains("AIF-LB-005"), "{}", d.summary);
    assert!(
        d.devices.iter().all(|h| h.ends_with("-leaf")),
        "{:?}",
        d.devices
    );
}

#[test]
fn fewer_spines_recable_the_leaf_uplinks_and_name_them() {
    let a = common::intent("intents/pod1-1024.yaml");
    let mut b = a.clone();
    b.fabric.topology.spine.count = 8; // each leaf now runs two cables to each of 8 spines
    let c = changes(&a, &b);
    let r = only(&c, "CHG-RECABLE");
    assert_eq!(r.impact, Impact::Disruptive);
    assert!(r.ports > 0, "{r:?}");
    assert!(r.devices.iter().any(|h| h == "su1-r1-leaf"), "{r:?}");
    assert!(r.devices.iter().any(|h| h == "spine01"), "{r:?}");
    let gone = c
        .iter()
        .find(|x| x.rule == "CHG-DEVICES" && x.impact == Impact::Disruptive)
        .expect("spines removed");
    assert_eq!(gone.devices.len(), 8);
    assert!(gone.devices.contains(&"spine16".to_string()));
}

#[test]
fn removing_servers_is_a_ports_change_on_their_leaves() {
    let a = common::intent("intents/pod1-1024.yaml");
    let mut b = a.clone();
    b.fabric.topology.servers -= 1; // the last group keeps its 8 leaves, one server fewer
    let c = changes(&a, &b);
    let p = c
        .iter()
        .find(|x| x.rule == "CHG-PORTS" && x.impact == Impact::Disruptive)
        .unwrap_or_else(|| panic!("no CHG-PORTS in {c:#?}"));
    assert_eq!((p.ports, p.switches), (8, 8), "{p:?}");
    assert!(p.devices.iter().all(|h| h.starts_with("su4-")), "{p:?}");
    // Adding it back gains the same ports.
    let back = changes(&b, &a);
    let g = back
        .iter()
        .find(|x| x.rule == "CHG-PORTS" && x.impact == Impact::NonDisruptive)
        .expect("ports gained");
    assert_eq!(g.ports, 8);
}

#[test]
fn a_new_nic_speed_changes_the_leaves_breakout_and_says_so() {
    let a = common::intent("intents/breakout-small.yaml");
    let mut b = a.clone();
    b.fabric.topology.nic_speed = aifab::units::Speed(400);
    b.fabric.topology.leaf.breakout = None;
    b.fabric.topology.leaf.oversubscription = aifab::units::Ratio { down: 2, up: 1 };
    let c = changes(&a, &b);
    let r = only(&c, "CHG-BREAKOUT");
    assert_eq!(r.impact, Impact::Disruptive);
    assert!(
        r.devices.iter().all(|h| h.ends_with("-leaf")) && !r.devices.is_empty(),
        "only the leaves change mode: {r:?}"
    );
    assert!(changes(&a, &a).iter().all(|x| x.rule != "CHG-BREAKOUT"));
}

/// A change the servers must follow (a class's DSCP) says that the server files changed, in every
/// format: they are installed on the servers, not pushed to switches.
#[test]
fn server_file_changes_are_named_apart_from_the_switches() {
    let text = std::fs::read_to_string("intents/mixed-sonic-nxos.yaml").expect("read");
    let changed = text.replacen("      dscp: [26]\n", "      dscp: [28]\n", 1);
    assert_ne!(text, changed);
    let new = fixture("mixed-dscp.yaml", &changed);
    let run = |format: &str| diff_of(&["intents/mixed-sonic-nxos.yaml"], &new, format);
    // nic-qos.sh, nccl.env and the pods' ConfigMap carry the DSCP; no netplan file does.
    let json: serde_json::Value = serde_json::from_str(&run("json")).expect("json");
    assert_eq!(
        json["totals"]["host_files_changed"], 3,
        "{}",
        json["totals"]
    );
    for format in ["text", "markdown"] {
        let out = run(format);
        assert!(
            out.contains("3 server files under hosts/ changed"),
            "{format}: {}",
            &out[..out.len().min(600)]
        );
    }
    let none = common::aifab_command()
        .args(["diff", "intents/pod1-1024.yaml", "intents/pod1-1024.yaml"])
        .output()
        .expect("run");
    assert!(!String::from_utf8_lossy(&none.stdout).contains("server files"));
}

/// `aifab diff old new` where the new intent (an edited copy, so it borrows the old side's lock) has
/// an error of its own and moves a pool: the report is the new intent's error, located in it, not a
/// problem per lock entry of the old side's lock file.
#[test]
fn an_invalid_new_intent_reports_its_own_error_not_the_old_lock() {
    let old = std::fs::read_to_string("intents/pod1-1024.yaml").expect("read");
    let new = old
        .replace("server_links: 10.2.0.0/16", "server_links: 10.9.0.0/16")
        .replace("min: 150KB, max: 1500KB", "min: 1500KB, max: 150KB");
    assert_ne!(old, new);
    let path = fixture("pool-and-qos-error.yaml", &new);
    let o = common::aifab_command()
        .args(["diff", "intents/pod1-1024.yaml"])
        .arg(&path)
        .env("NO_COLOR", "1")
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("AIF-QOS-001"), "{err}");
    assert!(err.contains("pool-and-qos-error.yaml: invalid"), "{err}");
    assert!(!err.contains("AIF-LOCK"), "{err}");
}

/// The same pool move without the error: the borrowed lock does not fit, so the new side is allocated
/// without it (a note says so, once) and the diff shows the renumbering.
#[test]
fn a_pool_move_diffs_as_a_renumbering_with_one_note() {
    let old = std::fs::read_to_string("intents/pod1-1024.yaml").expect("read");
    let new = old.replace("server_links: 10.2.0.0/16", "server_links: 10.9.0.0/16");
    let path = fixture("pool-move.yaml", &new);
    let o = common::aifab_command()
        .args(["diff", "intents/pod1-1024.yaml"])
        .arg(&path)
        .env("NO_COLOR", "1")
        .output()
        .expect("run");
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(err.matches("note:").count(), 1, "{err}");
    assert!(err.contains("does not fit it (1024 problems"), "{err}");
    assert!(!err.contains("AIF-LOCK"), "{err}");
    assert!(out.contains("+  ip address 10.9.0.0/31"), "{out}");
    assert!(out.contains("--allow-renumber"), "{out}");
}

/// The change rules no other test trips, each from a one-field edit of the example: the rule fires
/// once, with the impact its table row gives, on the switches the edit reaches.
#[test]
fn platform_scheduling_watchdog_and_hash_changes_are_reported() {
    let a = common::intent("intents/pod1-1024.yaml");
    let mut b = a.clone();
    b.fabric.topology.spine.platform = "eos/7060x5-64".into();
    let p = only(&changes(&a, &b), "CHG-PLATFORM");
    assert_eq!((p.impact, p.switches), (Impact::Disruptive, 16), "{p:?}");

    let mut b = a.clone();
    for (class, share) in [("roce", 80), ("default", 20)] {
        b.qos.classes.get_mut(class).expect(class).bandwidth = Some(aifab::units::Percent(share));
    }
    let s = only(&changes(&a, &b), "CHG-SCHED");
    assert_eq!((s.impact, s.switches), (Impact::NonDisruptive, 48), "{s:?}");
    // Each queue that changed, with its class and the old and new share.
    let old_share = |c: &str| a.qos.classes[c].bandwidth.map(|p| p.0).expect("a share");
    for (class, share) in [("roce", 80), ("default", 20)] {
        let want = format!("class {class}: bandwidth {}%→{share}%", old_share(class));
        assert!(s.summary.contains(&want), "{want}: {s:?}");
    }

    // A strict class's shaper is scheduling too: a wrong rate starves CNP or lets it starve RoCE.
    let mut b = a.clone();
    let cnp = b.qos.classes.get_mut("cnp").expect("cnp");
    assert!(cnp.max_rate.is_some(), "the example shapes CNP");
    cnp.max_rate = Some(aifab::units::Percent(10));
    let s = only(&changes(&a, &b), "CHG-SCHED");
    assert_eq!((s.impact, s.switches), (Impact::NonDisruptive, 48), "{s:?}");
    let old_rate = a.qos.classes["cnp"].max_rate.map(|p| p.0).expect("a rate");
    let want = format!("class cnp: max rate {old_rate}%→10%");
    assert!(s.summary.contains(&want), "{want}: {s:?}");

    let mut b = a.clone();
    b.qos.pfc_watchdog.detect = aifab::units::Duration(300_000);
    let w = only(&changes(&a, &b), "CHG-WATCHDOG");
    assert_eq!((w.impact, w.switches), (Impact::NonDisruptive, 48), "{w:?}");
    let was = a.qos.pfc_watchdog.detect.0 / 1000;
    let want = format!("detect {was}ms→300ms");
    assert!(w.summary.contains(&want), "{want}: {w:?}");

    let mut b = a.clone();
    b.load_balancing.hash.roce_dest_qp = false;
    let h = only(&changes(&a, &b), "CHG-HASH");
    assert_eq!(h.impact, Impact::NonDisruptive, "{h:?}");
    assert!(h.devices.iter().all(|d| d.starts_with("spine")), "{h:?}");
}

const CHANGE_DOCS: &str = "docs/change-report.md";

/// The byte range of the rule index in docs/change-report.md: the table after `## Rules`.
fn change_index_range(md: &str) -> Option<(usize, usize)> {
    let rules = md.find("\n## Rules\n")?;
    let start = rules + md[rules..].find("\n| Rule |")? + 1;
    let end = md[start..].find("\n\n").map_or(md.len(), |i| start + i + 1);
    Some((start, end))
}

/// The index of docs/change-report.md is the rule table of src/review/change.rs (`change_rules!`).
/// With AIFAB_BLESS=1 the index is rewritten from the table instead.
#[test]
fn the_docs_index_is_the_change_rule_table() {
    let md = std::fs::read_to_string(CHANGE_DOCS).expect("read the change-report docs");
    let (start, end) = change_index_range(&md).expect("a table after `## Rules`");
    let fresh = markdown_index();
    if std::env::var_os("AIFAB_BLESS").is_some_and(|v| v == "1") {
        let text = format!("{}{fresh}{}", &md[..start], &md[end..]);
        std::fs::write(CHANGE_DOCS, text).expect("write the change-report docs");
        return;
    }
    assert!(
        md[start..end] == fresh,
        "the rule index of {CHANGE_DOCS} differs from src/review/change.rs's table\nrun `AIFAB_BLESS=1 cargo test --test it diff::the_docs_index` to regenerate it"
    );
}

/// Every change rule has a `## <id> — <summary>` section in docs/change-report.md, every such section
/// is a rule of the table, and some test of tests/it/ asserts the rule by its id.
#[test]
fn every_change_rule_has_a_docs_section_and_a_test() {
    let md = std::fs::read_to_string(CHANGE_DOCS).expect("read the change-report docs");
    let tests: String = common::paths_under(std::path::Path::new("tests/it"))
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .map(|p| std::fs::read_to_string(p).expect("read a test"))
        .collect();
    let mut problems = Vec::new();
    for r in ChangeRule::ALL {
        if !md.contains(&format!("\n## {}\n", r.heading())) {
            problems.push(format!("{CHANGE_DOCS} has no section `## {}`", r.heading()));
        }
        if !tests.contains(&format!("\"{}\"", r.id())) {
            problems.push(format!("no test of tests/it/ asserts \"{}\"", r.id()));
        }
    }
    for heading in md.lines().filter_map(|l| l.strip_prefix("## CHG-")) {
        let id = format!("CHG-{}", heading.split_whitespace().next().unwrap_or(""));
        if !ChangeRule::ALL.iter().any(|r| r.id() == id) {
            problems.push(format!(
                "{CHANGE_DOCS} documents {id}, which src/review/change.rs's table lacks"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// No change is silent: a syslog server change is `CHG-BASELINE` on every switch (with the field), and
/// a change no model rule covers (a site line) is `CHG-CONFIG` on every switch it touches, naming the
/// section; `changes` is never 0 when a config differs.
#[test]
fn baseline_and_unexplained_changes_are_reported_per_switch() {
    let text = std::fs::read_to_string("intents/pod1-1024.yaml").expect("read");
    let switches = text.matches("platform:").count();
    assert!(switches >= 2, "{text}");
    let syslog = text.replace("syslog: [192.0.2.31]", "syslog: [192.0.2.32]");
    assert_ne!(syslog, text);
    let new = fixture("pod1-1024-syslog.yaml", &syslog);
    let json: serde_json::Value =
        serde_json::from_str(&diff_of(&["intents/pod1-1024.yaml"], &new, "json")).expect("json");
    let changes = json["changes"].as_array().expect("changes");
    assert_eq!(changes.len(), 1, "{changes:#?}");
    assert_eq!(changes[0]["rule"], "CHG-BASELINE");
    assert!(
        changes[0]["summary"]
            .as_str()
            .expect("summary")
            .contains("(syslog)")
    );
    let devices = json["totals"]["devices_changed"].as_u64().expect("totals");
    assert_eq!(
        changes[0]["switches"].as_u64(),
        Some(devices),
        "{changes:#?}"
    );
    // A site line: nothing in the model names it, CHG-CONFIG does, with its section.
    let site = text.replacen(
        "\nfabric:",
        "\nsite_lines:\n  - \"clock timezone UTC 0 0\"\nfabric:",
        1,
    );
    assert_ne!(site, text);
    let new = fixture("pod1-1024-site.yaml", &site);
    let json: serde_json::Value =
        serde_json::from_str(&diff_of(&["intents/pod1-1024.yaml"], &new, "json")).expect("json");
    let changes = json["changes"].as_array().expect("changes");
    assert!(
        !changes.is_empty(),
        "a changed config with no change reported"
    );
    let config: Vec<&serde_json::Value> = changes
        .iter()
        .filter(|c| c["rule"] == "CHG-CONFIG")
        .collect();
    assert_eq!(config.len(), 1, "{changes:#?}");
    assert_eq!(config[0]["impact"], "unclassified");
    assert!(
        config[0]["summary"]
            .as_str()
            .expect("summary")
            .contains("`clock timezone`"),
        "{config:#?}"
    );
    let named: usize = changes
        .iter()
        .map(|c| c["switches"].as_u64().unwrap_or(0) as usize)
        .sum();
    assert_eq!(
        named as u64,
        json["totals"]["devices_changed"].as_u64().expect("totals"),
        "{changes:#?}"
    );
}

/// A switch where a specific rule fired is still named by `CHG-CONFIG` for a section that rule does not
/// explain: an ECN change together with a site line names the ECN switches under `CHG-ECN` (with the
/// class and the old and new threshold) and again under `CHG-CONFIG` for `clock timezone`, never for
/// the queuing policy `CHG-ECN` explains.
#[test]
fn a_section_no_fired_rule_explains_is_named_beside_the_rule() {
    let text = std::fs::read_to_string("intents/pod1-1024.yaml").expect("read");
    let both = text
        .replace("min: 150KB, max: 1500KB", "min: 300KB, max: 1500KB")
        .replacen(
            "\nfabric:",
            "\nsite_lines:\n  - \"clock timezone UTC 0 0\"\nfabric:",
            1,
        );
    assert_ne!(both, text);
    let new = fixture("pod1-1024-ecn-site.yaml", &both);
    let json: serde_json::Value =
        serde_json::from_str(&diff_of(&["intents/pod1-1024.yaml"], &new, "json")).expect("json");
    let changes = json["changes"].as_array().expect("changes");
    let of = |rule: &str| -> Vec<&serde_json::Value> {
        changes.iter().filter(|c| c["rule"] == rule).collect()
    };
    let (ecn, config) = (of("CHG-ECN"), of("CHG-CONFIG"));
    assert_eq!((ecn.len(), config.len()), (1, 1), "{changes:#?}");
    let summary = |c: &serde_json::Value| c["summary"].as_str().unwrap_or_default().to_string();
    assert!(
        summary(ecn[0]).contains("class roce") && summary(ecn[0]).contains("min 150KB→300KB"),
        "{ecn:#?}"
    );
    let config_summary = summary(config[0]);
    assert!(config_summary.contains("`clock timezone`"), "{config:#?}");
    assert!(
        !config_summary.contains("policy-map") && !config_summary.contains("qos profile"),
        "{config:#?}"
    );
    let devices = |c: &serde_json::Value| -> Vec<String> {
        c["devices"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|d| d.as_str().map(String::from))
            .collect()
    };
    let (e, k) = (devices(ecn[0]), devices(config[0]));
    assert!(
        !e.is_empty() && e.iter().all(|d| k.contains(d)),
        "{changes:#?}"
    );
}

/// `aifab diff` of an intent with its own lock, where the intent has an error and its lock no longer
/// fits it: both files' problems in one run, as `validate` gives them.
#[test]
fn an_invalid_intent_and_its_unfitting_lock_are_both_reported() {
    let dir = common::Scratch::new("diff-both");
    let text = std::fs::read_to_string("intents/pod1-1024.yaml").expect("read");
    let bad = text
        .replace("leaf_asn: 65100-65299", "leaf_asn: 65200-65299")
        .replace("min: 150KB, max: 1500KB", "min: 1600KB, max: 1500KB");
    std::fs::write(dir.join("new.yaml"), &bad).expect("write");
    std::fs::copy("intents/pod1-1024.lock.yaml", dir.join("new.lock.yaml")).expect("copy");
    let o = common::aifab_command()
        .args(["diff", "intents/pod1-1024.yaml"])
        .arg(dir.join("new.yaml"))
        .env("NO_COLOR", "1")
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("AIF-QOS-001") && err.contains("AIF-LOCK-004"),
        "{err}"
    );
    assert!(
        err.contains("new.yaml: invalid") && err.contains("new.lock.yaml: invalid lock"),
        "{err}"
    );
}
