//! `aifab twin` with real FRR (`src/twin`): the rendered `frr.conf` passes FRR's own parser; the small
//! examples converge with every session up and full ECMP in each plane, single link failures reconverge
//! to what the analysis computes, without a valley; a lock that pins one ASN per spine shows in FRR the
//! very valley the analysis names; random small fabrics agree with the analysis; and the twin refuses
//! to run without root and leaves no namespace or daemon behind.
//!
//! Needs Debian's `frr` (and root for the lab): a plain `cargo test` without them skips with one line;
//! under `CI=true` (`.ci/run` installs frr) a missing one fails.

use crate::common;
use aifab::render::{Form, Meta, Renderer};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;

/// One lab at a time: two on 2 cores would slow each other's convergence.
static LAB: Mutex<()> = Mutex::new(());

fn frr_installed() -> bool {
    common::prerequisite(
        Path::new("/usr/lib/frr/bgpd").is_file() && Path::new("/usr/bin/vtysh").is_file(),
        "the FRR twin tests (tests/it/twin.rs)",
        "Debian's frr (bgpd, zebra, vtysh) is not installed",
        "apt-get install -y frr iputils-ping, or bash .ci/run",
    )
}

fn lab_ready() -> bool {
    if !frr_installed() {
        return false;
    }
    let caps = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("CapEff:"))
                .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
        })
        .unwrap_or(0);
    let root = caps & (1 << 12) != 0 && caps & (1 << 21) != 0;
    common::prerequisite(
        root,
        "the FRR twin lab tests (tests/it/twin.rs)",
        "they build network namespaces and need root (CAP_NET_ADMIN, CAP_SYS_ADMIN)",
        "run cargo test as root, or bash .ci/run",
    )
}

/// The namespaces this machine has whose names start with `prefix`.
fn namespaces(prefix: &str) -> Vec<String> {
    let out = Command::new("ip")
        .args(["netns", "list"])
        .output()
        .expect("ip");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| n.starts_with(prefix))
        .map(str::to_string)
        .collect()
}

/// Runs `aifab twin` as a user would; its exit code, JSON report and stderr. Checks that the run left
/// no namespace behind.
fn twin_cli(args: &[&str]) -> (Option<i32>, Value, String) {
    let child = crate::common::aifab_command()
        .arg("twin")
        .args(args)
        .args(["--format", "json"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run aifab twin");
    let pid = child.id();
    let out = child.wait_with_output().expect("wait");
    // The reaper may still be finishing: give it a moment.
    for _ in 0..50 {
        if namespaces(&format!("aifab-twin-{pid}-")).is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(
        namespaces(&format!("aifab-twin-{pid}-")),
        Vec::<String>::new(),
        "left behind"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (
        out.status.code(),
        report,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Everything `aifab twin` promises for a fabric that is right: sessions, convergence, agreement with
/// the analysis, full ECMP per plane, and each failure tried reconverged without a valley.
fn assert_healthy(name: &str, code: Option<i32>, r: &Value, err: &str, failures: usize) {
    assert_eq!(code, Some(0), "{name}: {r:#}\n{err}");
    let s = &r["sessions"];
    assert!(
        s[0].as_u64().is_some_and(|n| n > 0) && s[0] == s[1],
        "{name}: sessions {s}"
    );
    assert!(r["converged_in"].is_u64(), "{name}: not converged");
    assert_eq!(r["mismatches"], Value::Array(vec![]), "{name}");
    assert_eq!(r["valleys"], Value::Array(vec![]), "{name}");
    let leaves = r["leaves"].as_array().expect("leaves");
    assert!(!leaves.is_empty(), "{name}");
    for l in leaves {
        assert_eq!(l["reached"][0], l["reached"][1], "{name}: {l}");
        assert_eq!(l["ecmp"][0], l["uplinks"], "{name}: not full ECMP: {l}");
        assert!(
            l["reached"][1].as_u64().is_some_and(|n| n > 0),
            "{name}: {l}"
        );
    }
    let f = r["failures"].as_array().expect("failures");
    assert_eq!(f.len(), failures, "{name}");
    for x in f {
        assert!(x["reconverged_in"].is_u64(), "{name}: {x}");
        assert_eq!(x["mismatches"], Value::Array(vec![]), "{name}: {x}");
        assert!(
            x["valley"].is_null() && x["analysis_valley"].is_null(),
            "{name}: {x}"
        );
        assert_eq!(x["restored"], true, "{name}: {x}");
    }
    assert!(r["capacity"].as_u64().is_some_and(|c| c > 0), "{name}");
}

/// `aifab render --os frr --out` writes one `<hostname>/frr.conf` per switch and nothing else of the
/// native form (no inventory, no host files); `--only` is refused with it.
#[test]
fn render_os_frr_writes_one_config_per_switch() {
    let dir = common::Scratch::new("twin-render-frr");
    let out = dir.join("out");
    let o = common::aifab(&[
        "render",
        "intents/hpn-dual-plane.yaml",
        "--os",
        "frr",
        "--out",
        &out.to_string_lossy(),
        "-q",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let model = common::model("intents/hpn-dual-plane.yaml");
    let mut want: Vec<String> = model
        .devices
        .iter()
        .map(|d| format!("{}/frr.conf", d.hostname))
        .collect();
    want.sort();
    let mut got: Vec<String> = common::files_under(&out)
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| !p.starts_with('.'))
        .collect();
    got.sort();
    assert_eq!(got, want);
    let o = common::aifab(&[
        "render",
        "intents/hpn-dual-plane.yaml",
        "--os",
        "frr",
        "--only",
        "s1-*",
        "--out",
        &out.to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(2));
}

/// The reviewed FRR render of three-tier-small (`golden/frr/three-tier-small`): `aifab render
/// intents/three-tier-small.yaml --os frr --check golden/frr/three-tier-small --bless` after review.
#[test]
fn the_frr_form_matches_its_golden_files() {
    let o = common::aifab(&[
        "render",
        "intents/three-tier-small.yaml",
        "--os",
        "frr",
        "--check",
        "golden/frr/three-tier-small",
        "-q",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn rendered_frr_configs_pass_frrs_own_parser() {
    if !frr_installed() {
        return;
    }
    let dir = common::Scratch::new("twin-vtysh");
    let cat = aifab::platform::Catalog::builtin();
    let renderer = Renderer::new(cat).expect("templates").with_form(Form::Frr);
    let mut checked = 0;
    for path in common::example_intents() {
        let model = common::model(&path);
        let files = renderer
            .fabric(&Meta::for_intent_path(&path, &model.name), &model, None)
            .expect("render");
        for f in &files {
            let file = dir.join(f.path.replace('/', "_"));
            std::fs::write(&file, &f.content).expect("write");
            let out = Command::new("vtysh")
                .arg("-C")
                .arg("-f")
                .arg(&file)
                .output()
                .expect("vtysh");
            assert!(
                out.status.success(),
                "{path}: {}: vtysh -C refuses it: {}{}",
                f.path,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            checked += 1;
        }
    }
    assert!(checked > 50, "{checked} configs");
}

#[test]
fn three_tier_small_converges_and_survives_link_failures() {
    if !lab_ready() {
        return;
    }
    let _one = LAB.lock().unwrap_or_else(|e| e.into_inner());
    let (code, r, err) = twin_cli(&["intents/three-tier-small.yaml", "--failures", "6"]);
    assert_healthy("three-tier-small", code, &r, &err, 6);
    assert_eq!(r["switches"], 22);
    assert_eq!(r["sessions"][1], 160, "80 links, a session at each end");
}

#[test]
fn hpn_dual_plane_converges_per_plane_and_survives_link_failures() {
    if !lab_ready() {
        return;
    }
    let _one = LAB.lock().unwrap_or_else(|e| e.into_inner());
    let (code, r, err) = twin_cli(&["intents/hpn-dual-plane.yaml", "--failures", "6"]);
    assert_healthy("hpn-dual-plane", code, &r, &err, 6);
    // The planes share no link: each leaf reaches the 3 other leaves of its plane, none of the other.
    for l in r["leaves"].as_array().expect("leaves") {
        assert_eq!(l["reached"][1], 3, "{l}");
        assert_eq!(l["other_planes"], 4, "{l}");
    }
}

/// The other examples: FRR's FIBs equal the analysis's with every link up and after two failures each
/// (pod1-1024, 48 switches and 1,024 links, with every link up only: its failures take minutes).
#[test]
fn every_other_example_agrees_with_the_analysis() {
    if !lab_ready() {
        return;
    }
    let _one = LAB.lock().unwrap_or_else(|e| e.into_inner());
    for path in common::example_intents() {
        let name = Path::new(&path)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name == "three-tier-small" || name == "hpn-dual-plane" {
            continue;
        }
        let failures = if name == "pod1-1024" { 0 } else { 2 };
        let (code, r, err) = twin_cli(&[
            &path,
            "--failures",
            &failures.to_string(),
            "--timeout",
            "180",
        ]);
        assert_healthy(&name, code, &r, &err, failures);
    }
}

/// The lab on a model compiled with the intent's lock, through the library (the CLI refuses a model
/// with AIF-ROUTE-001, which is the point of this one).
fn locked_model(intent: &str) -> aifab::model::FabricModel {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join(intent)).expect("intent");
    let intent_v: aifab::intent::Intent = serde_norway::from_str(&text).expect("intent");
    let cat = aifab::platform::Catalog::builtin();
    let shape = aifab::shape::shape(&intent_v).expect("shape");
    let placement = aifab::place::for_rules(&intent_v, cat, Some(&shape));
    let lock_path = root.join(intent.replace(".yaml", ".lock.yaml"));
    let lock = match aifab::lock::read::read_file(&lock_path) {
        Ok(Some(l)) => l,
        _ => panic!("{}: no lock", lock_path.display()),
    };
    aifab::compile::compile_locked(&intent_v, cat, &shape, placement, None, Some(&lock.lock))
        .expect("compile")
}

fn run_lab(model: &aifab::model::FabricModel, failures: Option<usize>) -> aifab::twin::Report {
    let cat = aifab::platform::Catalog::builtin();
    let configs = Renderer::new(cat)
        .expect("templates")
        .with_form(Form::Frr)
        .fabric(&Meta::new("test.yaml", &model.name), model, None)
        .expect("render");
    let opts = aifab::twin::Options {
        failures,
        timeout: std::time::Duration::from_secs(60),
    };
    let report = aifab::twin::run(model, &configs, &opts).expect("twin");
    assert_eq!(
        namespaces(&format!("aifab-twin-{}-", std::process::id())),
        Vec::<String>::new(),
        "the lab was left behind"
    );
    report
}

#[test]
fn frr_installs_the_valley_the_analysis_names() {
    if !lab_ready() {
        return;
    }
    let _one = LAB.lock().unwrap_or_else(|e| e.into_inner());
    let model = locked_model("tests/twin/per-spine-asn.yaml");
    let report = run_lab(&model, None);
    assert!(report.mismatches.is_empty(), "{}", report.text());
    assert_eq!(report.failures.len(), 6, "{}", report.text());
    for f in &report.failures {
        // FRR's FIBs are the analysis's, failure by failure, valley or not.
        assert!(f.mismatches.is_empty(), "{}", report.text());
        assert_eq!(f.valley, f.analysis_valley, "{}", report.text());
    }
    let f = report
        .failures
        .iter()
        .find(|f| f.link == "spine1:Ethernet1/1—leaf1:Ethernet248")
        .expect("the failure of AIF-ROUTE-001's example");
    assert_eq!(
        f.valley.as_deref(),
        Some("towards leaf1: spine1 → leaf2 → spine2 → leaf1"),
        "{}",
        report.text()
    );
    assert!(!report.ok());
}

#[test]
fn random_small_fabrics_agree_with_frr() {
    if !lab_ready() {
        return;
    }
    let _one = LAB.lock().unwrap_or_else(|e| e.into_inner());
    let models = crate::deadlock::random_models(0..40);
    // The smallest two-tier and three-tier fabrics of the batch.
    let mut picked = Vec::new();
    for three in [false, true] {
        let m = models
            .iter()
            .filter(|(_, m)| (m.summary.super_spines > 0) == three && m.summary.leaves >= 2)
            .min_by_key(|(_, m)| m.devices.len())
            .expect("a fabric of each kind");
        picked.push(m);
    }
    for (text, m) in picked {
        let report = run_lab(m, Some(4));
        assert!(report.ok(), "{text}\n{}", report.text());
        assert_eq!(report.failures.len(), 4.min(report.links));
    }
}

#[test]
fn twin_refuses_without_root() {
    if !lab_ready() {
        return;
    }
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_aifab"))
        .args(["twin", "intents/hpn-dual-plane.yaml"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .expect("setpriv");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("aifab twin needs root"), "{err}");
}

/// Killed while it runs (SIGTERM, then `kill -9`), the twin leaves no namespace, FRR folder or daemon:
/// SIGTERM stops the run, which removes its lab and exits 2; after `kill -9` its reaper does.
#[test]
fn a_killed_twin_leaves_nothing_behind() {
    if !lab_ready() {
        return;
    }
    let _one = LAB.lock().unwrap_or_else(|e| e.into_inner());
    for signal in ["-TERM", "-KILL"] {
        let mut child = crate::common::aifab_command()
            .args(["twin", "intents/hpn-dual-plane.yaml", "--failures", "0"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("run aifab twin");
        let prefix = format!("aifab-twin-{}-", child.id());
        // Until every switch of its lab runs zebra and bgpd (12 namespaces, 24 daemons), then kill it.
        let pids = |prefix: &str| -> Vec<String> {
            namespaces(prefix)
                .iter()
                .flat_map(|ns| {
                    let o = Command::new("ip")
                        .args(["netns", "pids", ns])
                        .output()
                        .expect("ip");
                    String::from_utf8_lossy(&o.stdout)
                        .split_whitespace()
                        .map(str::to_string)
                        .collect::<Vec<_>>()
                })
                .collect()
        };
        let end = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while pids(&prefix).len() < 24 && std::time::Instant::now() < end {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let pids = pids(&prefix);
        // (An `ip` reading a FIB may count too.)
        assert!(
            pids.len() >= 24,
            "{signal}: the lab never came up: {pids:?}"
        );
        let k = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .expect("kill");
        assert!(k.success());
        let status = child.wait().expect("wait");
        if signal == "-TERM" {
            assert_eq!(
                status.code(),
                Some(2),
                "SIGTERM: exits 2 once the lab is removed"
            );
        }
        // After kill -9 the reaper removes the namespaces, then the FRR folders: wait for both.
        let folders = |prefix: &str| {
            std::fs::read_dir("/var/run/frr")
                .into_iter()
                .flatten()
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
                .count()
        };
        let end = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while (!namespaces(&prefix).is_empty() || folders(&prefix) > 0)
            && std::time::Instant::now() < end
        {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        assert_eq!(
            namespaces(&prefix),
            Vec::<String>::new(),
            "{signal}: namespaces left"
        );
        assert_eq!(folders(&prefix), 0, "{signal}: FRR folders left");
        for pid in pids {
            assert!(
                !Path::new(&format!("/proc/{pid}")).exists()
                    || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                        .is_ok_and(|s| s.contains(") Z ")),
                "{signal}: daemon {pid} still runs"
            );
        }
    }
}
