//! `aifab twin` with real FRR (`src/twin`): the rendered `frr.conf` passes FRR's own parser; the small
//! examples converge with every session up and full ECMP in each plane, single link failures reconverge
//! to what the analysis computes, without a valley; a lock that pins one ASN per spine shows in FRR the
//! very valley the analysis names; random small fabrics agree with the analysis; and the twin refuses
//! to run without root and leaves no namespace or daemon behind. `--state` writes every switch's LLDP
//! and FRR state, its lldpd hearing every planned neighbour with the port ID the neighbour's OS sends
//! (a SONiC port's alias); `--swap` and `--down` show in that state as on a miscabled fabric.
//!
//! Needs Debian's `frr` and `lldpd` (and root for the lab): a plain `cargo test` without them skips
//! with one line; under `CI=true` (`.ci/run` installs both) a missing one fails.

use crate::common;
use aifab::model::{Device, FabricModel, Interface, PortKind};
use aifab::render::{Form, Meta, Renderer};
use serde_json::Value;
use std::collections::BTreeMap;
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

fn lldpd_installed() -> bool {
    common::prerequisite(
        Path::new("/usr/sbin/lldpd").is_file() && Path::new("/usr/sbin/lldpcli").is_file(),
        "the twin lab tests (tests/it/twin.rs)",
        "Debian's lldpd (lldpd, lldpcli, lldpctl) is not installed",
        "apt-get install -y lldpd, or bash .ci/run",
    )
}

fn lab_ready() -> bool {
    if !frr_installed() || !lldpd_installed() {
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
pub(crate) fn locked_model(intent: &str) -> aifab::model::FabricModel {
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
    run_lab_grouped(model, failures, 0)
}

/// [`run_lab`] that also fails `grouped` groups of parallel links and `grouped` whole switches.
fn run_lab_grouped(
    model: &aifab::model::FabricModel,
    failures: Option<usize>,
    grouped: usize,
) -> aifab::twin::Report {
    let cat = aifab::platform::Catalog::builtin();
    let configs = Renderer::new(cat)
        .expect("templates")
        .with_form(Form::Frr)
        .fabric(&Meta::new("test.yaml", &model.name), model, None)
        .expect("render");
    let opts = aifab::twin::Options {
        failures,
        grouped,
        timeout: std::time::Duration::from_secs(60),
        faults: aifab::twin::faults::Faults::default(),
        state: None,
    };
    let report = aifab::twin::run(model, cat, &configs, &opts).expect("twin");
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
        // Four single links, then two groups of parallel links (where the fabric has them) and two
        // whole switches: the plans are symmetric, so which of two equal paths a switch prefers (FRR
        // keeps the oldest eBGP route, the analysis takes the lowest router-id) changes no FIB.
        let report = run_lab_grouped(m, Some(4), 2);
        assert!(report.ok(), "{text}\n{}", report.text());
        let fabric = aifab::check::paths::Fabric::new(m);
        let groups = fabric
            .failure_sets()
            .iter()
            .filter(|f| matches!(f, aifab::check::failures::Failure::Parallel(..)))
            .count();
        let kinds = 4.min(report.links) + groups.min(2) + 2.min(fabric.len());
        assert_eq!(report.failures.len(), kinds, "{text}\n{}", report.text());
        assert!(
            report
                .failures
                .iter()
                .any(|f| f.link.starts_with("switch ")),
            "{text}\n{}",
            report.text()
        );
    }
}

/// The plan the random test found (seed 1795821435): z2-s1 pinned to zone 1's spine ASN, under the
/// only super-spine. The super-spine has two equal eBGP paths to zone 2's leaves, through z2-s1 (AS
/// 65020) and z2-s2, and advertises the one whose session came up first (RFC 5004: FRR keeps the
/// oldest eBGP route; SONiC's bgpd template sets no `bgp bestpath compare-routerid`); zone 1's spines,
/// AS 65020, reject the path through z2-s1. The analysis says so without FRR (zone 1's leaves may
/// lose zone 2's prefixes: AIF-ROUTE-003 refuses the plan, naming the pair, the prefix, the spine and
/// the AS-path loop); and in the lab, with every link up, after a group of parallel links and after
/// a whole switch (the super-spine, then its return), every FIB FRR installs is one the analysis
/// allows: where it says a prefix is reachable under every choice FRR has it, with the next hops it
/// allows.
#[test]
fn a_pin_whose_tie_break_depends_on_session_age() {
    let (text, m) = seed_847();
    let findings = aifab::check::deadlock_rules(&m);
    let lost = findings
        .iter()
        .find(|f| f.code == aifab::rules::Rule::LeafUnreachable)
        .unwrap_or_else(|| panic!("{text}\nno AIF-ROUTE-003: {findings:?}"));
    for part in [
        "with every link up",
        "z1-",
        "→ z2-",
        "(AS 65020): it rejects",
        "(AS-path loop)",
        "which session came up first",
    ] {
        assert!(lost.message.contains(part), "{part}: {}", lost.message);
    }
    if !lab_ready() {
        return;
    }
    let _one = LAB.lock().unwrap_or_else(|e| e.into_inner());
    let report = run_lab_grouped(&m, Some(0), 1);
    assert!(report.mismatches.is_empty(), "{text}\n{}", report.text());
    assert!(report.converged_in.is_some(), "{text}\n{}", report.text());
    for f in &report.failures {
        assert!(f.mismatches.is_empty(), "{text}\n{}", report.text());
        assert!(f.restored, "{text}\n{}", report.text());
    }
    // Zone 2's leaves reach zone 1's under every choice (z2-s2 passes them on): FRR has them all.
    for l in report.leaves.iter().filter(|l| l.leaf.starts_with("z2-")) {
        assert_eq!(l.reached.0, l.reached.1, "{text}\n{}", report.text());
    }
}

/// Seed 847 of the random fabrics with z2-s1 pinned to AS 65020.
fn seed_847() -> (String, FabricModel) {
    let (text, mut m) = crate::deadlock::random_models(847..848)
        .into_iter()
        .next()
        .expect("seed 847 compiles");
    let i = m
        .devices
        .iter()
        .position(|d| &*d.hostname == "z2-s1")
        .expect("z2-s1");
    pin(&mut m, i, 65020);
    (text, m)
}

/// Gives switch `i` of `m` the ASN `asn`, as a lock pin does (its neighbors' `remote_as` follow).
fn pin(m: &mut FabricModel, i: usize, asn: u32) {
    let name = m.devices[i].hostname.clone();
    m.devices[i].bgp.asn = asn;
    for d in &mut m.devices {
        for n in &mut d.bgp.neighbors {
            if *n.peer == *name {
                n.remote_as = asn;
            }
        }
    }
}

/// The seed of the random plans: `AIFAB_TWIN_SEED` to replay one, else the clock's.
fn plan_seed() -> u64 {
    std::env::var("AIFAB_TWIN_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        })
}

/// Random small fabrics with random ASN pins (one switch moved to another tier's or another
/// switch's ASN, or its own): FRR installs, switch by switch and prefix by prefix, next hops the
/// path-vector allows (its router-id outcome, or another the eBGP tie-break by age allows), with every
/// link up and after a sample of link failures, a group of parallel links and a whole switch. The
/// seed is printed (`AIFAB_TWIN_SEED=<seed>` replays it).
#[test]
fn random_pinned_plans_agree_with_frr() {
    if !lab_ready() {
        return;
    }
    let _one = LAB.lock().unwrap_or_else(|e| e.into_inner());
    let seed = plan_seed();
    eprintln!("random_pinned_plans_agree_with_frr: AIFAB_TWIN_SEED={seed}");
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut pick = |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n.max(1)
    };
    let start = pick(1000);
    let mut models: Vec<_> = crate::deadlock::random_models(start..start + 12)
        .into_iter()
        .filter(|(_, m)| m.devices.len() <= 14 && m.summary.leaves >= 2)
        .collect();
    models.sort_by_key(|(_, m)| m.summary.super_spines > 0);
    let mut picked = Vec::new();
    for three in [false, true] {
        if let Some(k) = models
            .iter()
            .position(|(_, m)| (m.summary.super_spines > 0) == three)
        {
            picked.push(models.swap_remove(k));
        }
    }
    assert!(!picked.is_empty(), "seed {seed}: no small fabric");
    for (text, mut m) in picked {
        let n = m.devices.len() as u64;
        let i = pick(n) as usize;
        // Another switch's ASN (of its tier or another: iBGP), or one of its own.
        let other = m.devices[pick(n) as usize].bgp.asn;
        let asn = if pick(2) == 0 && other != m.devices[i].bgp.asn {
            other
        } else {
            64_999
        };
        pin(&mut m, i, asn);
        let what = format!(
            "seed {seed}: {} pinned to AS {asn}\n{text}",
            m.devices[i].hostname
        );
        eprintln!(
            "seed {seed}: {} switches ({} super-spines), {} pinned to AS {asn}",
            m.devices.len(),
            m.summary.super_spines,
            m.devices[i].hostname
        );
        let report = run_lab_grouped(&m, Some(3), 1);
        assert!(report.mismatches.is_empty(), "{what}\n{}", report.text());
        for f in &report.failures {
            assert!(f.mismatches.is_empty(), "{what}\n{}", report.text());
        }
    }
}

/// The FRR form carries the `maximum-paths` each switch's own OS runs: the intent's 16 on NX-OS, the
/// release's 64 on SONiC 202405, whose config_db cannot set it.
#[test]
fn the_frr_form_carries_each_oss_maximum_paths() {
    let model = common::model("intents/mixed-sonic-nxos.yaml");
    let cat = aifab::platform::Catalog::builtin();
    let configs = Renderer::new(cat)
        .expect("templates")
        .with_form(Form::Frr)
        .fabric(&Meta::new("test.yaml", &model.name), &model, None)
        .expect("render");
    let mut seen = BTreeMap::new();
    for d in &model.devices {
        let want = match d.os {
            aifab::platform::Os::Sonic => 64,
            _ => 16,
        };
        assert_eq!(d.bgp.maximum_paths, want, "{}", d.hostname);
        let text = &configs
            .iter()
            .find(|f| *f.device == *d.hostname)
            .expect("a config per switch")
            .content;
        assert!(
            text.contains(&format!("\n  maximum-paths {want}\n")),
            "{}: {text}",
            d.hostname
        );
        *seen.entry(want).or_insert(0) += 1;
    }
    assert_eq!(seen.len(), 2, "both OSes: {seen:?}");
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

/// The processes in namespace `ns`: pid and name (`comm`).
fn ns_processes(ns: &str) -> Vec<(u32, String)> {
    let o = Command::new("ip")
        .args(["netns", "pids", ns])
        .output()
        .expect("ip");
    String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .filter_map(|pid| pid.parse::<u32>().ok())
        .map(|pid| {
            let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            (pid, comm.trim().to_string())
        })
        .collect()
}

/// The processes in the namespaces named `prefix*`.
fn lab_processes(prefix: &str) -> Vec<(u32, String)> {
    namespaces(prefix)
        .iter()
        .flat_map(|n| ns_processes(n))
        .collect()
}

/// Every one of the `switches` namespaces named `prefix*` runs zebra, bgpd and both halves of lldpd.
fn lab_running(prefix: &str, switches: usize) -> bool {
    let ns = namespaces(prefix);
    ns.len() == switches
        && ns.iter().all(|n| {
            let names: Vec<String> = ns_processes(n).into_iter().map(|(_, c)| c).collect();
            let count = |c: &str| names.iter().filter(|x| *x == c).count();
            count("zebra") == 1 && count("bgpd") == 1 && count("lldpd") == 2
        })
}

/// Killed while it runs (SIGTERM, then `kill -9`), the twin leaves no namespace, FRR folder or daemon
/// (zebra, bgpd, lldpd):
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
        // Until every switch of its lab runs zebra, bgpd and lldpd (both halves): 12 namespaces, 48
        // processes; then kill it.
        let end = std::time::Instant::now() + std::time::Duration::from_secs(120);
        while !lab_running(&prefix, 12) && std::time::Instant::now() < end {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        assert!(
            lab_running(&prefix, 12),
            "{signal}: the lab never came up: {:?}",
            lab_processes(&prefix)
        );
        let pids: Vec<u32> = lab_processes(&prefix).into_iter().map(|(p, _)| p).collect();
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
        // After kill -9 the reaper removes the namespaces, then the FRR folders, and the killed daemons
        // are reaped (lldpd's two processes among them): wait for all three.
        let alive = |pid: &u32| {
            Path::new(&format!("/proc/{pid}")).exists()
                && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
                    .is_ok_and(|s| s.contains(") Z "))
        };
        let folders = |prefix: &str| {
            std::fs::read_dir("/var/run/frr")
                .into_iter()
                .flatten()
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
                .count()
        };
        let end = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while (!namespaces(&prefix).is_empty() || folders(&prefix) > 0 || pids.iter().any(alive))
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
        for pid in &pids {
            let what = std::fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            assert!(!alive(pid), "{signal}: daemon {pid} still runs: {what:?}");
        }
    }
}

/// The four files of a switch's state folder.
const STATE_FILES: [&str; 4] = [
    "frr-bgp-summary.json",
    "frr-ip-route.json",
    "lldpcli-chassis.json",
    "lldpctl.json",
];

/// What port `name` of `host` sends as its LLDP port ID, read apart from the twin: a SONiC port's
/// PORT `alias` in the switch's rendered `config_db.json` (what SONiC's lldpmgrd configures), else the
/// interface name.
struct PortIds(BTreeMap<String, Value>);

impl PortIds {
    fn new(intent: &str, model: &FabricModel) -> PortIds {
        let files = Renderer::new(aifab::platform::Catalog::builtin())
            .expect("templates")
            .fabric(&Meta::for_intent_path(intent, &model.name), model, None)
            .expect("render");
        let dbs = files
            .iter()
            .filter(|f| f.path.ends_with("config_db.json"))
            .map(|f| {
                let db: Value = serde_json::from_str(&f.content).expect("config_db.json");
                (f.device.to_string(), db)
            })
            .collect();
        PortIds(dbs)
    }

    fn of(&self, host: &str, name: &str) -> String {
        match self.0.get(host) {
            Some(db) => db["PORT"][name]["alias"]
                .as_str()
                .unwrap_or_else(|| panic!("{host}: no PORT alias for {name}"))
                .to_string(),
            None => name.to_string(),
        }
    }
}

/// `DIR/<host>/<file>` parsed.
fn state_json(dir: &Path, host: &str, file: &str) -> Value {
    let path = dir.join(host).join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A switch's `lldpctl.json` as local interface to (system name, port ID) of each neighbour heard
/// there. lldpd prints one neighbour as an object, several as a list.
fn lldp_heard(v: &Value) -> BTreeMap<String, Vec<(String, String)>> {
    let entries = match &v["lldp"]["interface"] {
        Value::Array(a) => a.clone(),
        Value::Null => Vec::new(),
        o => vec![o.clone()],
    };
    let mut out: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for e in &entries {
        for (ifname, n) in e.as_object().expect("an interface entry") {
            let system = n["chassis"]
                .as_object()
                .and_then(|c| c.keys().next().cloned())
                .unwrap_or_default();
            let port = n["port"]["id"]["value"].as_str().unwrap_or_default();
            out.entry(ifname.clone())
                .or_default()
                .push((system, port.to_string()));
        }
    }
    out
}

/// A switch's `frr-bgp-summary.json` as neighbour address to session state.
fn bgp_states(v: &Value) -> BTreeMap<String, String> {
    v["ipv4Unicast"]["peers"]
        .as_object()
        .expect("peers")
        .iter()
        .map(|(ip, p)| (ip.clone(), p["state"].as_str().unwrap_or("").to_string()))
        .collect()
}

/// The Linux name of a port in the lab: `swp<port>`, the FRR form's name (docs/platforms/frr.md).
fn lab_port(i: &Interface) -> String {
    // The state names local ports as the switch's OS does (the lab's veths are swp<N>).
    i.name.to_string()
}

fn fabric_ports(d: &Device) -> impl Iterator<Item = &Interface> {
    d.interfaces.iter().filter(|i| i.kind == PortKind::Fabric)
}

/// Each switch's folder holds exactly the four files, each JSON; its chassis is named after it.
fn assert_state_files(dir: &Path, model: &FabricModel) {
    let mut hosts: Vec<String> = std::fs::read_dir(dir)
        .expect("state folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    hosts.sort();
    let mut want: Vec<String> = model.devices.iter().map(|d| d.hostname.clone()).collect();
    want.sort();
    assert_eq!(hosts, want);
    for d in &model.devices {
        let mut files: Vec<String> = std::fs::read_dir(dir.join(&d.hostname))
            .expect("switch folder")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        assert_eq!(files, STATE_FILES, "{}", d.hostname);
        let chassis = state_json(dir, &d.hostname, "lldpcli-chassis.json");
        assert!(
            chassis["local-chassis"]["chassis"][&d.hostname].is_object(),
            "{}: {chassis}",
            d.hostname
        );
        // One `show ip route <prefix> json` per sampled leaf loopback, as collect.yml gathers them:
        // an object per prefix (empty where the switch has no route: the other plane of a two-plane
        // fabric), a BGP route to some of them (aifab verify checks which, against the analysis).
        let routes = state_json(dir, &d.hostname, "frr-ip-route.json");
        let docs = routes.as_array().expect("a list of route documents");
        let samples = model.route_samples();
        assert_eq!(docs.len(), samples.len(), "{}", d.hostname);
        assert!(
            docs.iter().all(Value::is_object),
            "{}: {routes}",
            d.hostname
        );
        let bgp = docs
            .iter()
            .zip(&samples)
            .filter(|(doc, (_, lo))| {
                doc[format!("{lo}/32")]
                    .as_array()
                    .is_some_and(|r| r.iter().any(|e| e["protocol"] == "bgp"))
            })
            .count();
        assert!(
            bgp > 0,
            "{}: no BGP route to any sampled loopback: {routes}",
            d.hostname
        );
    }
}

/// `--state` on the smallest example with switches of all three OSes (hpn-dual-plane: NX-OS spines,
/// SONiC and EOS leaves): every switch's folder holds the four files; its lldpd heard every planned
/// neighbour at the planned local port with the neighbour's hostname and the port ID its OS sends (a
/// SONiC port's alias, an NX-OS or EOS interface name), and nothing else; every session is
/// Established. No failure is tried (`--failures` is 0 with `--state`).
#[test]
fn twin_state_holds_every_planned_neighbour_and_session() {
    if !lab_ready() {
        return;
    }
    let _one = LAB.lock().unwrap_or_else(|e| e.into_inner());
    let intent = "intents/hpn-dual-plane.yaml";
    let scratch = common::Scratch::new("twin-state");
    let dir = scratch.join("state");
    let (code, r, err) = twin_cli(&[intent, "--state", &dir.to_string_lossy()]);
    assert_eq!(code, Some(0), "{r:#}\n{err}");
    assert_eq!(r["failures"], Value::Array(vec![]), "--state tries none");
    assert_eq!(r["lldp"][0], r["lldp"][1], "{r:#}");
    let model = common::model(intent);
    assert_state_files(&dir, &model);
    // aifab verify reads the twin's state as SONiC's lldpd and FRR print it: every cable and session
    // holds (the NX-OS and EOS switches' state is the daemons' form: a note, not a finding). The twin
    // has no servers: the hosts check (the server at each server port) is left out.
    let state = dir.to_string_lossy();
    let out = common::aifab(&[
        "verify",
        intent,
        "--state",
        &state,
        "-q",
        "--checks",
        "cabling,sessions",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("cabling   ") && text.contains("the fabric runs as intended"),
        "{text}"
    );
    assert!(text.contains("gave only lldpd and FRR documents"), "{text}");
    let ids = PortIds::new(intent, &model);
    let mut aliased = 0;
    for d in &model.devices {
        let heard = lldp_heard(&state_json(&dir, &d.hostname, "lldpctl.json"));
        let sessions = bgp_states(&state_json(&dir, &d.hostname, "frr-bgp-summary.json"));
        for i in fabric_ports(d) {
            let id = ids.of(&i.peer, &i.peer_port);
            aliased += usize::from(id != *i.peer_port);
            assert_eq!(
                heard.get(&lab_port(i)),
                Some(&vec![(i.peer.to_string(), id)]),
                "{}:{}",
                d.hostname,
                i.name
            );
            let peer_ip = i.peer_ip.expect("a fabric port's peer address").to_string();
            assert_eq!(
                sessions.get(&peer_ip).map(String::as_str),
                Some("Established")
            );
        }
        assert_eq!(
            heard.len(),
            fabric_ports(d).count(),
            "{}: {heard:?}",
            d.hostname
        );
        assert_eq!(sessions.len(), d.bgp.neighbors.len(), "{}", d.hostname);
    }
    assert!(
        aliased >= 8,
        "the SONiC leaves' aliases differ from their names: {aliased}"
    );
}

/// The ports of breakout-small's two leaves the fault test plants on: a cable of leaf 1 (`x`) and a
/// cable of leaf 2 to another spine (`y`) are crossed, another of leaf 2's cables is down.
struct FaultPorts<'a> {
    l1: &'a Device,
    x: &'a Interface,
    l2: &'a Device,
    y: &'a Interface,
    down: &'a Interface,
}

fn fault_ports(model: &FabricModel) -> FaultPorts<'_> {
    let leaves: Vec<&Device> = model
        .devices
        .iter()
        .filter(|d| d.role == aifab::kinds::Role::Leaf)
        .collect();
    let (l1, l2) = (leaves[0], leaves[1]);
    let x = fabric_ports(l1).next().expect("a leaf 1 uplink");
    let y = fabric_ports(l2)
        .find(|i| i.peer != x.peer)
        .expect("a leaf 2 uplink to another spine");
    let down = fabric_ports(l2)
        .find(|i| i.name != y.name)
        .expect("another leaf 2 uplink");
    FaultPorts { l1, x, l2, y, down }
}

/// A switch port: hostname and interface name.
type At = (String, String);

/// What a port should show: the neighbour it hears (hostname, port ID), if any, and whether its
/// session is Established.
struct Expect {
    heard: Option<(String, String)>,
    up: bool,
}

/// Every fabric port's [`Expect`] with `f`'s faults planted: the crossed ports hear the other cable's
/// far end, the down cable's ends no one; those six sessions are down, every other is up and hears
/// its planned neighbour.
fn fault_expectations(model: &FabricModel, ids: &PortIds, f: &FaultPorts) -> BTreeMap<At, Expect> {
    let at = |h: &str, p: &str| (h.to_string(), p.to_string());
    let mut want = BTreeMap::new();
    for d in &model.devices {
        for i in fabric_ports(d) {
            let heard = Some((i.peer.to_string(), ids.of(&i.peer, &i.peer_port)));
            want.insert(at(&d.hostname, &i.name), Expect { heard, up: true });
        }
    }
    let (l1, l2) = (f.l1.hostname.as_str(), f.l2.hostname.as_str());
    let (x, y, down) = (f.x, f.y, f.down);
    let crossed = [
        (at(l1, &x.name), (&*y.peer, &*y.peer_port)),
        (at(l2, &y.name), (&*x.peer, &*x.peer_port)),
        (at(&x.peer, &x.peer_port), (l2, &*y.name)),
        (at(&y.peer, &y.peer_port), (l1, &*x.name)),
    ];
    for (port, (host, far)) in crossed {
        let heard = Some((host.to_string(), ids.of(host, far)));
        want.insert(port, Expect { heard, up: false });
    }
    for port in [at(l2, &down.name), at(&down.peer, &down.peer_port)] {
        want.insert(
            port,
            Expect {
                heard: None,
                up: false,
            },
        );
    }
    want
}

/// `--swap` and `--down` on the smallest example (breakout-small: 4 switches, 32 cables). The crossed
/// cables show in LLDP at all four ends (each port hears the other cable's far end) and their four
/// sessions are not Established; the down cable's ports hear no one and its two sessions are down;
/// every other cable is heard as planned with its sessions up. The twin names the faults at the top of
/// its report, checks FRR against the fabric as cabled, and exits 0.
#[test]
fn twin_state_shows_a_swap_and_a_down() {
    if !lab_ready() {
        return;
    }
    let _one = LAB.lock().unwrap_or_else(|e| e.into_inner());
    let intent = "intents/breakout-small.yaml";
    let model = common::model(intent);
    let f = fault_ports(&model);
    let scratch = common::Scratch::new("twin-faults");
    let dir = scratch.join("state");
    let swap = format!(
        "{}:{},{}:{}",
        f.l1.hostname, f.x.name, f.l2.hostname, f.y.name
    );
    let down = format!("{}:{}", f.l2.hostname, f.down.name);
    let state = dir.to_string_lossy();
    let args = [intent, "--state", &state, "--swap", &swap, "--down", &down];
    let (code, r, err) = twin_cli(&args);
    assert_eq!(code, Some(0), "{r:#}\n{err}");
    assert_eq!(r["faults"].as_array().map(Vec::len), Some(2), "{r:#}");
    assert!(r["converged_in"].is_u64(), "{r:#}");
    assert_state_files(&dir, &model);
    // aifab verify names exactly the two faults: the crossed pair (both cables, both ends) and the
    // down cable, each with the sessions (and nothing else) they explain.
    let out = common::aifab(&[
        "verify", intent, "--state", &state, "-q", "--format", "json",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let v: Value = serde_json::from_str(&text).expect("a JSON report");
    let findings = v["findings"].as_array().expect("findings");
    let kinds: Vec<&str> = findings.iter().filter_map(|x| x["kind"].as_str()).collect();
    assert_eq!(kinds, ["crossed", "no-neighbor"], "{text}");
    let crossed = findings[0]["found"].as_str().unwrap_or("");
    for end in [
        format!("{}:{}", f.l1.hostname, f.x.name),
        format!("{}:{}", f.l2.hostname, f.y.name),
        format!("{}:{}", f.x.peer, f.x.peer_port),
        format!("{}:{}", f.y.peer, f.y.peer_port),
    ] {
        assert!(crossed.contains(&end), "{end}: {text}");
    }
    assert_eq!(
        findings[0]["explains"].as_array().map(Vec::len),
        Some(4),
        "four sessions: {text}"
    );
    assert_eq!(findings[1]["switch"], f.l2.hostname.as_str(), "{text}");
    assert_eq!(findings[1]["port"], &*f.down.name, "{text}");
    assert_eq!(
        findings[1]["explains"].as_array().map(Vec::len),
        Some(2),
        "two sessions: {text}"
    );
    let want = fault_expectations(&model, &PortIds::new(intent, &model), &f);
    for d in &model.devices {
        let heard = lldp_heard(&state_json(&dir, &d.hostname, "lldpctl.json"));
        let sessions = bgp_states(&state_json(&dir, &d.hostname, "frr-bgp-summary.json"));
        for i in fabric_ports(d) {
            let at = format!("{}:{}", d.hostname, i.name);
            let e = &want[&(d.hostname.clone(), i.name.to_string())];
            let got = heard.get(&lab_port(i)).cloned().unwrap_or_default();
            assert_eq!(got, e.heard.iter().cloned().collect::<Vec<_>>(), "{at}");
            let peer_ip = i.peer_ip.expect("a fabric port's peer address").to_string();
            let state = sessions.get(&peer_ip).cloned().unwrap_or_default();
            assert_eq!(state == "Established", e.up, "{at}: session {state}");
        }
    }
}

/// A fault the twin cannot plant, or a state folder it will not write, stops it before anything
/// starts (exit 2, each problem named): an unknown switch or port, a server port, one cable named
/// twice, a malformed port, a state folder that is not empty.
#[test]
fn twin_refuses_faults_it_cannot_plant() {
    let intent = "intents/breakout-small.yaml";
    let model = common::model(intent);
    let FaultPorts { l1, x, l2, y, .. } = fault_ports(&model);
    let server = l1
        .interfaces
        .iter()
        .find(|i| i.kind == PortKind::Server)
        .expect("a server port");
    let at = |p: &str| format!("{}:{p}", l1.hostname);
    let far = format!("{}:{}", x.peer, x.peer_port);
    let scratch = common::Scratch::new("twin-refuse");
    std::fs::write(scratch.join("mine.txt"), "the user's").expect("write");
    let full = scratch.to_string_lossy().into_owned();
    let cases: [(Vec<String>, &str); 7] = [
        (
            vec!["--down".into(), "nosuch:Ethernet1/1".into()],
            "no switch is named nosuch",
        ),
        (
            vec!["--down".into(), at("Ethernet9/9")],
            "has no port Ethernet9/9",
        ),
        (vec!["--down".into(), at(&server.name)], "a server port"),
        (
            vec!["--swap".into(), format!("{},{far}", at(&x.name))],
            "is already named by",
        ),
        (
            vec![
                "--swap".into(),
                format!("{},{}:{}", at(&x.name), l2.hostname, y.name),
                "--down".into(),
                far.clone(),
            ],
            "each cable may be named once",
        ),
        (vec!["--down".into(), l1.hostname.clone()], "is not SW:PORT"),
        (vec!["--state".into(), full], "the folder is not empty"),
    ];
    for (args, says) in cases {
        let child = common::aifab_command()
            .arg("twin")
            .arg(intent)
            .args(&args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run aifab twin");
        let pid = child.id();
        let out = child.wait_with_output().expect("wait");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: wants {says:?}: {err}");
        assert!(namespaces(&format!("aifab-twin-{pid}-")).is_empty());
    }
    assert!(scratch.join("mine.txt").is_file(), "the user's file stays");
}

/// A leaf whose ASN the lock pins to another value (an adopted fabric): the twin of that copy runs it,
/// and `aifab verify` of the original intent names that one switch's ASN, its peers' sessions under it.
#[test]
fn verify_names_a_switch_running_another_asn_than_the_intent() {
    if !lab_ready() {
        return;
    }
    let _one = LAB.lock().unwrap_or_else(|e| e.into_inner());
    let intent = "intents/breakout-small.yaml";
    let scratch = common::Scratch::new("twin-asn");
    let copy = scratch.join("breakout-small.yaml");
    std::fs::copy(intent, &copy).expect("copy intent");
    let lock = std::fs::read_to_string("intents/breakout-small.lock.yaml").expect("lock");
    let pinned = lock.replace(
        "name: g1-r2-leaf, loopback: 10.30.0.2, router_id: 10.30.0.2, asn: 65301",
        "name: g1-r2-leaf, loopback: 10.30.0.2, router_id: 10.30.0.2, asn: 65350",
    );
    assert_ne!(pinned, lock, "the lock line to pin");
    std::fs::write(scratch.join("breakout-small.lock.yaml"), pinned).expect("write lock");
    let dir = scratch.join("state");
    let (code, r, err) = twin_cli(&[&copy.to_string_lossy(), "--state", &dir.to_string_lossy()]);
    assert_eq!(code, Some(0), "{r:#}\n{err}");
    let out = common::aifab(&["verify", intent, "--state", &dir.to_string_lossy(), "-q"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let lines: Vec<&str> = text.lines().filter(|l| l.contains(": expected")).collect();
    assert_eq!(lines.len(), 1, "{text}");
    assert!(
        lines[0].contains("g1-r2-leaf: expected AS 65301, found AS 65350"),
        "{text}"
    );
}
