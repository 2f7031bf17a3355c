//! What FRR runs on a SONiC switch loaded with aifab's `config_db.json`, per SONiC release, found by
//! starting the release's own bgp container chain on every rendered SONiC device.
//!
//! `tests/frr/sonic_startup.py` runs, for 202405, 202505 and master (the files in
//! `shared/sonic-releases/<release>/routing`, unchanged from sonic-buildimage): docker-fpm-frr's
//! docker_init.sh (the mode DEVICE_METADATA selects, sonic-cfggen with the release's constants.yml and
//! templates), then, where the rendered supervisord.conf starts it, bgpcfgd with every manager the
//! release builds, fed the config_db tables; then TSA (BGP_DEVICE_GLOBAL|STATE tsa_enabled) and TSB.
//! This file then asserts what a switch needs: the daemons' files render without an error; zebra
//! hands routes to fpmsyncd (`fpm address`); every model neighbor has its ASN, is activated for IPv4
//! unicast and not shut down; the loopback and the server subnets are announced and nothing else;
//! `maximum-paths` covers the ECMP width; after TSA the outbound policy denies every route but the
//! loopback, which it marks with the traffic-shift community, and after TSB it permits every route
//! again. Real FRR (Debian's `frr`) then reads every file with its own parser (`vtysh --dryrun`).
//!
//! Prerequisites: the project's `shared/` folder beside the repository; a python (`$AIFAB_PYTHON`,
//! `.ci/venv`, `python3`) with jinja2, netaddr, pyyaml, lxml and natsort (sonic-cfggen's imports);
//! bash, jq and vtysh (Debian's `jq` and `frr`). Without them the tests print one line and skip;
//! under `CI=true` they fail. `.ci/run` installs them.

mod config;

use crate::common;
use crate::common::root;
use aifab::model::{Device, FabricModel};
use aifab::platform::Os;
use config::{Frr, normalize};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// SONiC's traffic-shift community (constants.yml `bgp.traffic_shift_community`, every release).
const TRAFFIC_SHIFT: &str = "12345:12345";

/// What one device's bgp container holds after start-up (sonic_startup.py's output).
#[derive(Debug, Deserialize)]
struct Startup {
    files: BTreeMap<String, String>,
    supervisord: Vec<String>,
    init_rc: i32,
    init_stderr: String,
    bgpcfgd: String,
    tsa: String,
    tsb: String,
    bgpcfgd_errors: Vec<String>,
}

// ------------------------------------------------------------------------------------------------
// Environment.
// ------------------------------------------------------------------------------------------------

const HOW: &str = "put the project's shared/ folder beside the repository, a python3 with jinja2, netaddr, \
     pyyaml, lxml and natsort (or set AIFAB_PYTHON), and Debian's jq and frr (vtysh) on PATH; .ci/run \
     installs them";

/// The release's routing folder, when present.
fn routing(release: &str) -> Option<PathBuf> {
    let dir = root()
        .join("../shared/sonic-releases")
        .join(release)
        .join("routing");
    let present = dir.join("docker-fpm-frr/docker_init.sh").is_file();
    common::prerequisite(
        present,
        &format!("the SONiC {release} start-up test"),
        &format!("no bgp container files at {}", dir.display()),
        HOW,
    )
    .then_some(dir)
}

/// The python sonic-cfggen and bgpcfgd run with, and the tools docker_init.sh and the check use.
fn tools() -> Option<PathBuf> {
    let python = common::python_with(&["jinja2", "netaddr", "yaml", "lxml", "natsort"]);
    let on_path = |tool: &str| {
        Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let missing: Vec<&str> = ["bash", "jq", "vtysh"]
        .into_iter()
        .filter(|t| !on_path(t))
        .collect();
    let present = python.is_some() && missing.is_empty();
    let why = match &python {
        None => "no python (AIFAB_PYTHON, .ci/venv, python3) imports jinja2, netaddr, yaml, lxml and natsort".to_string(),
        Some(_) => format!("{} not on PATH", missing.join(", ")),
    };
    if common::prerequisite(present, "the SONiC start-up tests", &why, HOW) {
        python
    } else {
        None
    }
}

/// One SONiC device of an example intent with its rendered config_db.json.
struct Rendered {
    name: String,
    device: Device,
    config_db: Value,
}

/// Every SONiC device of every example intent (and the extra intents), `<intent stem>/<hostname>`.
fn rendered_sonic() -> Vec<Rendered> {
    let mut out = Vec::new();
    for path in common::example_and_extra_intents() {
        let (model, files): (FabricModel, _) = common::render(&path);
        let stem = Path::new(&path)
            .file_stem()
            .expect("file name")
            .to_string_lossy()
            .into_owned();
        for d in model.devices.iter().filter(|d| d.os == Os::Sonic) {
            let f = files
                .iter()
                .find(|f| f.device == d.hostname && f.path.ends_with("config_db.json"))
                .unwrap_or_else(|| panic!("{path}: {} has no config_db.json", d.hostname));
            out.push(Rendered {
                name: format!("{stem}/{}", d.hostname),
                device: d.clone(),
                config_db: serde_json::from_str(&f.content)
                    .unwrap_or_else(|e| panic!("{path}: {}: {e}", d.hostname)),
            });
        }
    }
    assert!(!out.is_empty(), "no example intent has a SONiC device");
    out
}

/// Starts the bgp container of `release` for each `(name, config_db)`.
fn start(
    python: &Path,
    release: &str,
    routing: &Path,
    devices: &[(String, Value)],
) -> BTreeMap<String, Startup> {
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let scratch = common::Scratch::new(&format!("sonic-frr-{release}-{run}"));
    let request = json!({
        "routing": routing,
        "constants": root().join("tests/frr/constants").join(format!("{release}.yml")),
        "stubs": root().join("tests/frr/stubs"),
        "scratch": scratch.path(),
        "devices": devices.iter().cloned().collect::<serde_json::Map<_, _>>(),
    });
    common::python_json(
        python,
        &root().join("tests/frr/sonic_startup.py"),
        &request,
        release,
    )
}

// ------------------------------------------------------------------------------------------------
// FRR's own parser.
// ------------------------------------------------------------------------------------------------

/// SONiC builds FRR with `--enable-multipath=514` from 202505 (sonic-buildimage
/// src/sonic-frr/patch/0016-Set-multipath-to-514-and-disable-bgp-vnc-for-optimiz.patch), so its
/// constants.yml sets `maximum-paths 514`; a Debian FRR built for fewer refuses that number.
const SONIC_MULTIPATH: u32 = 514;

/// The largest `maximum-paths` this machine's FRR accepts (its --enable-multipath).
fn local_multipath() -> u32 {
    static LIMIT: OnceLock<u32> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        let dir = common::Scratch::new("sonic-frr-multipath");
        let accepts = |n: u32| {
            let f = dir.join("mp.conf");
            let text = format!(
                "router bgp 1\n address-family ipv4 unicast\n  maximum-paths {n}\n exit-address-family\n"
            );
            std::fs::write(&f, text).expect("write probe");
            dryrun(&f).is_ok()
        };
        let (mut lo, mut hi) = (1, SONIC_MULTIPATH);
        assert!(accepts(lo), "this FRR refuses maximum-paths 1");
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if accepts(mid) { lo = mid } else { hi = mid - 1 }
        }
        lo
    })
}

/// `vtysh --dryrun -f file`: FRR reads the file with its own command parser.
fn dryrun(file: &Path) -> Result<(), String> {
    let out = Command::new("vtysh")
        .args(["--dryrun", "-f"])
        .arg(file)
        .output()
        .expect("run vtysh");
    match out.status.success() {
        true => Ok(()),
        false => Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )),
    }
}

/// FRR's parser on `text`; `maximum-paths` above this FRR's build limit but within SONiC's is read
/// at the local limit (its value is checked on its own).
fn frr_accepts(dir: &Path, name: &str, text: &str) -> Result<(), String> {
    let limit = local_multipath();
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            match w.as_slice() {
                ["maximum-paths", n] => match n.parse::<u32>() {
                    Ok(n) if n > limit && n <= SONIC_MULTIPATH => {
                        l.replace(&n.to_string(), &limit.to_string())
                    }
                    _ => l.to_string(),
                },
                _ => l.to_string(),
            }
        })
        .collect();
    let file = dir.join(name.replace('/', "_"));
    std::fs::write(&file, lines.join("\n") + "\n").expect("write config");
    dryrun(&file)
}

// ------------------------------------------------------------------------------------------------
// The assertions.
// ------------------------------------------------------------------------------------------------

/// The prefixes the model says the device announces, normalized.
fn model_networks(d: &Device) -> BTreeSet<String> {
    d.bgp.networks.iter().map(|n| normalize(n)).collect()
}

/// The ECMP width a device's FRR must allow: every uplink to the tier above, and every parallel
/// link to one peer.
fn ecmp_width(d: &Device) -> usize {
    let up = d
        .bgp
        .neighbors
        .iter()
        .filter(|n| n.peer_role > d.role)
        .count();
    let mut per_peer: BTreeMap<&str, usize> = BTreeMap::new();
    for n in &d.bgp.neighbors {
        *per_peer.entry(&n.peer).or_default() += 1;
    }
    up.max(per_peer.values().copied().max().unwrap_or(0))
}

/// Everything wrong with one device's start-up, empty when the switch would route as the model says.
fn problems(d: &Device, s: &Startup, release: &str, dir: &Path, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    if s.init_rc != 0 || s.init_stderr.contains("Traceback") || s.init_stderr.contains("Error") {
        let tail: String = s
            .init_stderr
            .lines()
            .rev()
            .take(3)
            .collect::<Vec<_>>()
            .join(" / ");
        out.push(format!("docker_init.sh failed (rc {}): {tail}", s.init_rc));
    }
    for program in ["zebra", "staticd", "bgpd", "fpmsyncd", "bgpcfgd"] {
        if !s.supervisord.iter().any(|p| p == program) {
            out.push(format!(
                "supervisord starts no {program}: {:?}",
                s.supervisord
            ));
        }
    }
    if s.supervisord.iter().any(|p| p == "frrcfgd") {
        out.push("supervisord starts frrcfgd, not bgpcfgd".into());
    }
    for f in ["bgpd.conf", "zebra.conf", "staticd.conf"] {
        if !s.files.contains_key(f) {
            out.push(format!("no /etc/frr/{f}: {:?}", s.files.keys()));
        }
    }
    if s.files.get("vtysh.conf").map(|t| t.trim()) != Some("no service integrated-vtysh-config") {
        out.push("vtysh.conf is not the per-daemon one".into());
    }
    let zebra = s.files.get("zebra.conf").map(String::as_str).unwrap_or("");
    if !zebra.lines().any(|l| l.trim() == "fpm address 127.0.0.1") {
        out.push("zebra.conf has no `fpm address 127.0.0.1`: routes never reach fpmsyncd".into());
    }
    for e in &s.bgpcfgd_errors {
        out.push(format!("bgpcfgd logged: {e}"));
    }
    let bgpd = s.files.get("bgpd.conf").map(String::as_str).unwrap_or("");
    let running = format!("{bgpd}\n{}", s.bgpcfgd);
    let frr = Frr::read(&running);
    out.extend(frr.errors.iter().cloned());
    bgp_problems(d, &frr, &mut out);
    drain_problems(d, &frr, s, &mut out);
    // FRR's own parser on every daemon file, and on the commands bgpcfgd pushed (TSA and TSB too).
    let parsed = [
        ("bgpd", format!("{running}\n{}\n{}", s.tsa, s.tsb)),
        ("zebra", zebra.to_string()),
        (
            "staticd",
            s.files.get("staticd.conf").cloned().unwrap_or_default(),
        ),
    ];
    for (daemon, text) in parsed {
        if let Err(e) = frr_accepts(dir, &format!("{release}-{name}-{daemon}.conf"), &text) {
            out.push(format!(
                "FRR's parser refuses the {daemon} config: {}",
                e.trim()
            ));
        }
    }
    out
}

/// Neighbors, networks and maximum-paths against the model.
fn bgp_problems(d: &Device, frr: &Frr, out: &mut Vec<String>) {
    if frr.asn != Some(d.bgp.asn.to_string()) {
        out.push(format!(
            "router bgp {:?}, the model says {}",
            frr.asn, d.bgp.asn
        ));
    }
    if frr.router_id != Some(d.bgp.router_id.to_string()) {
        out.push(format!(
            "bgp router-id {:?}, the model says {}",
            frr.router_id, d.bgp.router_id
        ));
    }
    for n in &d.bgp.neighbors {
        let ip = n.ip.to_string();
        let Some(p) = frr.peers.get(&ip) else {
            out.push(format!("neighbor {ip} ({}) is not configured", n.peer));
            continue;
        };
        if p.remote_as != Some(n.remote_as.to_string()) {
            out.push(format!(
                "neighbor {ip} remote-as {:?}, the model says {}",
                p.remote_as, n.remote_as
            ));
        }
        if !frr.ipv4_active(&ip) {
            out.push(format!(
                "neighbor {ip} ({}) is not active for IPv4 unicast",
                n.peer
            ));
        }
        if p.shutdown {
            out.push(format!("neighbor {ip} ({}) is shut down", n.peer));
        }
    }
    let model_ips: BTreeSet<String> = d.bgp.neighbors.iter().map(|n| n.ip.to_string()).collect();
    for (name, p) in &frr.peers {
        if p.remote_as.is_some() && !model_ips.contains(name) {
            out.push(format!("neighbor {name} is not in the model"));
        }
    }
    let announced: BTreeSet<String> = frr.networks.iter().map(|n| normalize(n)).collect();
    let want = model_networks(d);
    for n in want.difference(&announced) {
        out.push(format!("{n} is not announced"));
    }
    for n in announced.difference(&want) {
        out.push(format!("{n} is announced but not in the model"));
    }
    let width = ecmp_width(d);
    match frr.maximum_paths {
        Some(m) if m as usize >= width => {}
        other => out.push(format!(
            "maximum-paths {other:?} is below the ECMP width {width}"
        )),
    }
}

/// The outbound policy of every neighbor before TSA, after TSA and after TSB.
fn drain_problems(d: &Device, frr: &Frr, s: &Startup, out: &mut Vec<String>) {
    let maps: BTreeSet<&str> = d
        .bgp
        .neighbors
        .iter()
        .map(|n| n.ip.to_string())
        .filter(|ip| frr.peers.contains_key(ip))
        .map(|ip| frr.out_map(&ip).unwrap_or("(none)"))
        .collect();
    let loopback = normalize(&format!("{}/32", d.loopback));
    let routes: Vec<String> = model_networks(d)
        .into_iter()
        .chain(["0.0.0.0/0".to_string(), "192.0.2.0/24".to_string()])
        .collect();
    let drained = Frr::read(&format!(
        "{}\n{}\n{}",
        s.files.get("bgpd.conf").map(String::as_str).unwrap_or(""),
        s.bgpcfgd,
        s.tsa
    ));
    let undrained = Frr::read(&format!(
        "{}\n{}\n{}\n{}",
        s.files.get("bgpd.conf").map(String::as_str).unwrap_or(""),
        s.bgpcfgd,
        s.tsa,
        s.tsb
    ));
    for map in maps {
        if map == "(none)" {
            out.push("a neighbor has no outbound route-map: TSA cannot drain it".into());
            continue;
        }
        for r in &routes {
            if frr.apply(map, r, None) != Some(vec![]) {
                out.push(format!("before TSA, {map} does not pass {r} unchanged"));
            }
            if undrained.apply(map, r, None) != Some(vec![]) {
                out.push(format!("after TSB, {map} does not pass {r} unchanged"));
            }
            let after = drained.apply(map, r, None);
            if *r == loopback {
                let marked = vec!["community".to_string(), TRAFFIC_SHIFT.to_string()];
                if after.as_ref().is_none_or(|sets| !sets.contains(&marked)) {
                    out.push(format!(
                        "after TSA, {map} sends the loopback {r} without {TRAFFIC_SHIFT}: {after:?}"
                    ));
                }
            } else if after.is_some() {
                out.push(format!("after TSA, {map} still sends {r}: {after:?}"));
            }
        }
    }
}

fn every_device_routes(release: &str) {
    let Some(routing) = routing(release) else {
        return;
    };
    let Some(python) = tools() else { return };
    let devices = rendered_sonic();
    let input: Vec<(String, Value)> = devices
        .iter()
        .map(|d| (d.name.clone(), d.config_db.clone()))
        .collect();
    let started = start(&python, release, &routing, &input);
    let dir = common::Scratch::new(&format!("sonic-frr-parse-{release}"));
    let mut failing = Vec::new();
    for d in &devices {
        let s = started.get(&d.name).expect("a start-up per device");
        let p = problems(&d.device, s, release, &dir, &d.name);
        if !p.is_empty() {
            let shown: Vec<&str> = p.iter().take(4).map(String::as_str).collect();
            failing.push(format!(
                "{}: {}{}",
                d.name,
                shown.join("\n    "),
                more(p.len(), shown.len())
            ));
        }
    }
    eprintln!(
        "SONiC {release}: {}/{} devices start routing as the model says (maximum-paths read by this FRR at most {})",
        devices.len() - failing.len(),
        devices.len(),
        local_multipath()
    );
    assert!(
        failing.is_empty(),
        "SONiC {release}: {} of {} devices do not:\n  {}",
        failing.len(),
        devices.len(),
        failing.join("\n  ")
    );
}

fn more(total: usize, shown: usize) -> String {
    match total - shown {
        0 => String::new(),
        n => format!("\n    … and {n} more"),
    }
}

// ------------------------------------------------------------------------------------------------
// Tests.
// ------------------------------------------------------------------------------------------------

#[test]
fn sonic_202405_starts_every_device_routing() {
    every_device_routes("202405");
}

#[test]
fn sonic_202505_starts_every_device_routing() {
    every_device_routes("202505");
}

#[test]
fn sonic_master_starts_every_device_routing() {
    every_device_routes("master");
}

/// Why 202405 cannot run frrcfgd's unified mode (what aifab rendered before): its docker_init.sh
/// renders frr.conf without `-T /usr/local/sonic/frrcfgd`, so the include of frrcfgd's
/// staticd.db.conf.j2 is not found and no frr.conf is written; supervisord still starts frrcfgd.
#[test]
fn sonic_202405_unified_mode_renders_no_frr_conf() {
    let Some(routing) = routing("202405") else {
        return;
    };
    let Some(python) = tools() else { return };
    let d = &rendered_sonic()[0];
    let mut db = d.config_db.clone();
    let meta = &mut db["DEVICE_METADATA"]["localhost"];
    meta["docker_routing_config_mode"] = json!("unified");
    meta["frr_mgmt_framework_config"] = json!("true");
    let started = start(&python, "202405", &routing, &[(d.name.clone(), db)]);
    let s = &started[&d.name];
    assert!(
        s.supervisord.iter().any(|p| p == "frrcfgd"),
        "{:?}",
        s.supervisord
    );
    assert!(!s.files.contains_key("frr.conf"), "{:?}", s.files.keys());
    assert!(
        s.init_stderr.contains("TemplateNotFound") && s.init_stderr.contains("staticd.db.conf.j2"),
        "{}",
        s.init_stderr
    );
}

/// The same chain on a file whose neighbor is shut down and whose loopback is missing fails the
/// checks above: the test can see what it claims to check.
#[test]
fn a_broken_file_is_caught() {
    let Some(routing) = routing("202405") else {
        return;
    };
    let Some(python) = tools() else { return };
    let d = rendered_sonic()
        .into_iter()
        .find(|d| !d.device.bgp.neighbors.is_empty())
        .expect("a device with neighbors");
    let mut db = d.config_db.clone();
    let first = d.device.bgp.neighbors[0].ip.to_string();
    db["BGP_NEIGHBOR"][&first]["admin_status"] = json!("down");
    db["DEVICE_METADATA"]["localhost"]["docker_routing_config_mode"] = json!("split");
    let started = start(&python, "202405", &routing, &[(d.name.clone(), db)]);
    let dir = common::Scratch::new("sonic-frr-broken");
    let p = problems(&d.device, &started[&d.name], "202405", &dir, "broken");
    let text = p.join("\n");
    assert!(
        text.contains("fpm address") || text.contains("no /etc/frr/bgpd.conf"),
        "{text}"
    );
    assert!(
        text.contains("is not configured") || text.contains("is shut down"),
        "{text}"
    );
}
