//! `aifab diff --format sonic-patch` against SONiC's own apply-patch validators: for QoS changes
//! (an ECN threshold, a PFC watchdog timer) on the example intents, on Dell (TH4, TH3) and Arista
//! (TH5) SKUs, in releases 202405, 202505 and master, every operation aifab's rule table
//! (src/review/gcu.rs) accepts or rejects is accepted or rejected alike by sonic-utilities'
//! `field_operation_validators.py` of that release (run by tests/gcu/validate.py, switch imports
//! stubbed); every emitted patch is accepted whole; every switch routed to `config reload` for a
//! rejection has an operation the validators reject.

use crate::common;

use aifab::delivery::gcu::{self, Release};
use aifab::delivery::route::{self, Plan, Reason};
use aifab::platform::Os;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const RELEASES: [(Release, &str); 3] = [
    (Release::R202405, "SONiC.20240510.25"),
    (Release::R202505, "SONiC.20250510.03"),
    (Release::Master, "master.0-0123abcd"),
];

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/sonic-releases")
}

fn present() -> bool {
    shared()
        .join("202405/gcu/field_operation_validators.py")
        .exists()
        && common::python_with(&["jsonpointer"]).is_some()
}

/// Writes an intent variant under the test's temp folder.
fn fixture(name: &str, text: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sonic-patch");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p.to_string_lossy().into_owned()
}

/// (old, new) intent pairs: each example with SONiC switches, also moved to the Arista TH5 SKU, with
/// an ECN change and with a watchdog change.
fn pairs() -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for (base, sku) in [
        ("three-tier-small", None),
        ("three-tier-small", Some("sonic/arista-7060x6-64pe-o128s2")),
        ("mixed-sonic-nxos", None),
        ("sonic-lossless-breakout", None),
    ] {
        let mut text = std::fs::read_to_string(format!("intents/{base}.yaml")).expect("read");
        if let Some(sku) = sku {
            text = text.replace("sonic/dell-z9664f-o64", sku);
        }
        let tag = format!("{base}-{}", sku.map_or("base", |_| "th5"));
        let old = fixture(&format!("{tag}.yaml"), &text);
        for (what, from, to) in [
            ("ecn", "min: 200KB, max: 2MB", "min: 300KB, max: 2MB"),
            ("ecn", "min: 150KB, max: 1500KB", "min: 300KB, max: 1500KB"),
            ("wd", "detect: 300ms", "detect: 200ms"),
            (
                "wd",
                "detect: 200ms, restore: 200ms",
                "detect: 300ms, restore: 200ms",
            ),
        ] {
            if text.contains(from) {
                let new = fixture(&format!("{tag}-{what}.yaml"), &text.replace(from, to));
                out.push((format!("{tag}-{what}"), old.clone(), new));
            }
        }
    }
    assert!(out.len() >= 5, "the fixtures no longer apply: {out:?}");
    out
}

/// The config_db.json of every SONiC switch, by hostname.
fn config_dbs(path: &str) -> BTreeMap<String, Value> {
    let (m, files) = common::render(path);
    m.devices
        .iter()
        .filter(|d| d.os == Os::Sonic)
        .filter_map(|d| {
            let f = files
                .iter()
                .find(|f| f.device == d.hostname && f.path.ends_with("config_db.json"))?;
            Some((
                d.hostname.clone(),
                serde_json::from_str(&f.content).expect("json"),
            ))
        })
        .collect()
}

/// The `asic_type` a switch of this HWSKU reports (sonic_version.yml), which decides the validators'
/// list: the NVIDIA SKUs aifab carries are `mellanox`, the others `broadcom`.
fn asic_type(hwsku: &str) -> &'static str {
    if hwsku.contains("SN5600") || hwsku.starts_with("Mellanox-") {
        "mellanox"
    } else {
        "broadcom"
    }
}

/// aifab's copies of sonic-utilities' validator data (vendors/sonic-gcu/) are the files of each
/// release, unmodified.
#[test]
fn carried_validator_data_is_the_releases_own() {
    if !common::prerequisite(
        shared().join("202405/gcu").exists(),
        "sonic_patch",
        "needs ../shared/sonic-releases/<release>/gcu",
        "put sonic-utilities' generic_config_updater data there",
    ) {
        return;
    }
    for (release, _) in RELEASES {
        let theirs = std::fs::read(
            shared()
                .join(release.name())
                .join("gcu/gcu_field_operation_validators.conf.json"),
        )
        .expect("release data");
        let ours =
            std::fs::read(format!("vendors/sonic-gcu/{}.json", release.name())).expect("carried");
        assert!(
            theirs == ours,
            "vendors/sonic-gcu/{}.json differs from the release's file",
            release.name()
        );
    }
}

fn hwsku(doc: &Value) -> String {
    doc["DEVICE_METADATA"]["localhost"]["hwsku"]
        .as_str()
        .expect("hwsku")
        .to_string()
}

/// Runs the real validators of `release` on `cases` (`[{host, hwsku, ops}]`).
fn validate(release: Release, build: &str, cases: &Value) -> BTreeMap<String, Vec<bool>> {
    let dir = shared().join(release.name()).join("gcu");
    let py = common::python_with(&["jsonpointer"]).expect("python with jsonpointer");
    let mut child = Command::new(py)
        .arg("tests/gcu/validate.py")
        .arg(&dir)
        .arg(build)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(cases.to_string().as_bytes())
        .expect("write");
    let o = child.wait_with_output().expect("wait");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("validator output")
}

#[test]
fn emitted_patches_pass_the_real_validators() {
    if !common::prerequisite(
        present(),
        "sonic_patch",
        "needs ../shared/sonic-releases/<release>/gcu and python3 with jsonpointer",
        "put sonic-utilities' generic_config_updater validators there and `pip install jsonpointer` (or set AIFAB_PYTHON; .ci/run installs it into .ci/venv)",
    ) {
        return;
    }
    let mut counts = BTreeMap::new();
    let mut counts_sn5600 = (0usize, 0usize);
    for (release, build) in RELEASES {
        let mut plans: Vec<(String, Plan, String)> = Vec::new();
        for (tag, old, new) in pairs() {
            let (a, b) = (config_dbs(&old), config_dbs(&new));
            for (host, doc) in &b {
                if a.get(host) != Some(doc) {
                    let p = route::plan(host, a.get(host), doc, release);
                    plans.push((format!("{tag}/{host}"), p, hwsku(doc)));
                }
            }
            check_cli(release, &old, &new, &plans, &tag);
        }
        let cases: Vec<Value> = plans
            .iter()
            .map(|(key, p, sku)| json!({"host": key, "hwsku": sku, "asic_type": asic_type(sku), "ops": p.ops}))
            .collect();
        let verdicts = validate(release, build, &Value::Array(cases));
        for (key, p, _) in &plans {
            let v = &verdicts[key];
            for (op, ok) in p.ops.iter().zip(v) {
                let ours = gcu::check(release, p.family, op);
                assert_eq!(ours.is_ok(), *ok, "{release:?} {key}: {op} ({ours:?})");
            }
            if p.patchable() {
                assert!(
                    v.iter().all(|ok| *ok),
                    "{release:?} {key}: emitted but rejected"
                );
            } else if p
                .reasons
                .iter()
                .all(|r| matches!(r, Reason::Rejected { .. }))
            {
                assert!(
                    v.iter().any(|ok| !ok),
                    "{release:?} {key}: routed, nothing rejected"
                );
            }
            *counts.entry(p.patchable()).or_insert(0) += 1;
            if key.starts_with("sonic-lossless-breakout-base-wd/") {
                assert_eq!(p.family, Some("spc4"), "{key}");
                counts_sn5600.0 += usize::from(p.patchable());
                counts_sn5600.1 += 1;
            }
        }
    }
    // The SN5600 (spc4) takes a watchdog timer change as a patch on every release.
    assert!(
        counts_sn5600.0 > 0 && counts_sn5600.0 == counts_sn5600.1,
        "SN5600 watchdog plans patchable, of all: {counts_sn5600:?}"
    );
    // Both outcomes occur, so the comparison covers accepted and rejected patches.
    assert!(counts.get(&true).is_some_and(|n| *n > 0), "{counts:?}");
    assert!(counts.get(&false).is_some_and(|n| *n > 0), "{counts:?}");
}

/// The CLI emits exactly the patchable plans of `tag`, with their operations.
fn check_cli(release: Release, old: &str, new: &str, plans: &[(String, Plan, String)], tag: &str) {
    let o = common::aifab(&[
        "diff",
        old,
        new,
        "--format",
        "sonic-patch",
        "--sonic-release",
        release.name(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let emitted: BTreeMap<String, Value> = serde_json::from_slice(&o.stdout).expect("json");
    let prefix = format!("{tag}/");
    let want: BTreeMap<String, Value> = plans
        .iter()
        .filter_map(|(k, p, _)| Some((k.strip_prefix(&prefix)?.to_string(), p)))
        .filter(|(_, p)| p.patchable())
        .map(|(h, p)| (h, Value::Array(p.ops.clone())))
        .collect();
    assert_eq!(emitted, want, "{release:?} {tag}");
    let stderr = String::from_utf8_lossy(&o.stderr);
    for (k, p, _) in plans
        .iter()
        .filter(|(k, p, _)| k.starts_with(&prefix) && !p.patchable())
    {
        let host = &k[prefix.len()..];
        assert!(
            stderr.contains(&format!("note: {host}: no patch")),
            "{stderr}"
        );
        assert!(!p.reasons.is_empty());
    }
}

/// New SONiC switches (a third server group) get no patch: the report routes them to a reload, and
/// the switches already running are patched or routed on their own merits.
#[test]
fn new_switches_are_reloaded_not_patched() {
    let text = std::fs::read_to_string("intents/mixed-sonic-nxos.yaml").expect("read");
    let small = text
        .replace("servers: 32", "servers: 16")
        .replace("match: \"g2-rail8\"", "match: \"g1-rail8\"");
    assert_ne!(text, small);
    let old = fixture("mixed-one-group.yaml", &small);
    let (old, new) = (old.as_str(), "intents/mixed-sonic-nxos.yaml");
    let added: Vec<String> = config_dbs(new)
        .into_keys()
        .filter(|h| !config_dbs(old).contains_key(h))
        .collect();
    assert_eq!(added.len(), 8, "{added:?}");
    // g1-rail8 also changes SKU (DEVICE_METADATA): routed by aifab's own reload rule.
    let o = common::aifab(&["diff", old, new, "--format", "sonic-patch"]);
    let emitted: BTreeMap<String, Value> = serde_json::from_slice(&o.stdout).expect("json");
    let stderr = String::from_utf8_lossy(&o.stderr);
    for h in &added {
        assert!(!emitted.contains_key(h), "{h} patched");
        assert!(stderr.contains(&format!("note: {h}: no patch")), "{stderr}");
    }
    assert!(!emitted.contains_key("g1-rail8"), "a SKU change is patched");
    assert!(stderr.contains("note: g1-rail8: no patch"), "{stderr}");
    let o = common::aifab(&["diff", old, new, "--format", "json"]);
    let v: Value = serde_json::from_slice(&o.stdout).expect("json");
    let reload = v["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .find(|c| c["rule"] == "CHG-SONIC-RELOAD")
        .expect("CHG-SONIC-RELOAD");
    assert_eq!(reload["impact"], "reload-required");
    // The 8 new leaves and g1-rail8 (SKU change), the first three by name.
    assert_eq!(reload["switches"], 9, "{reload}");
    let summary = reload["summary"].as_str().expect("summary");
    assert!(
        summary.contains("g1-rail8, g2-rail1, g2-rail2 and 6 more"),
        "{summary}"
    );
}
