//! What FRR receives on a SONiC switch: every rendered `config_db.json` is turned into FRR commands the way
//! SONiC does it, per SONiC release, and every BGP neighbor must end up up and carrying IPv4 unicast.
//!
//! aifab's SONiC output runs FRR in unified mode with `frr_mgmt_framework_config: "true"`, so at boot
//! docker-fpm-frr renders `/etc/frr/frr.conf` from frrcfgd's Jinja2 templates (sonic-buildimage
//! `src/sonic-frr-mgmt-framework/templates/bgpd/`). Those templates differ per release: in 202405 a
//! `BGP_NEIGHBOR_AF` entry activates its neighbor only when `admin_status` is `true`, a value the YANG
//! (`up`/`down`) refuses, and any other value renders `no neighbor X activate`; the main template always
//! renders `no bgp default ipv4-unicast` unless `BGP_GLOBALS` sets `default_ipv4_unicast: "true"`.
//!
//! `tests/frr/render_bgpd.py` renders each release's templates as sonic-cfggen would (python3 + jinja2,
//! table keys split on `|` into tuples); this file parses the FRR text into each neighbor's final state
//! (FRR semantics: `bgp default ipv4-unicast` activates the neighbors created after it, `[no] neighbor X
//! activate` under `address-family ipv4 unicast` overrides it) and compares it with the compiled model.
//!
//! The templates come from the `shared/` folder beside the repository (`sonic-releases/<release>/frrcfgd-bgpd`);
//! python is `$AIFAB_PYTHON`, else `.ci/venv/bin/python`, else `python3`, and must import jinja2. Without
//! them the tests print one line and skip; under `CI=true` they fail.

use crate::common;

use aifab::model::{Device, FabricModel};
use aifab::platform::Os;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

// ------------------------------------------------------------------------------------------------
// FRR text → final BGP state.
// ------------------------------------------------------------------------------------------------

/// One neighbor's state after FRR has read the whole configuration.
#[derive(Debug, Default, PartialEq)]
struct FrrNeighbor {
    remote_as: Option<String>,
    /// Activated in `address-family ipv4 unicast`.
    ipv4_unicast: bool,
    /// `neighbor X shutdown`.
    shutdown: bool,
    /// The lines that decided `ipv4_unicast`, for the failure message.
    why: Vec<String>,
}

/// The default-VRF `router bgp` instance of one FRR configuration.
#[derive(Debug, Default)]
struct FrrBgp {
    asn: Option<String>,
    /// The last `[no] bgp default ipv4-unicast` seen, when the text says it.
    default_ipv4_unicast: Option<bool>,
    neighbors: BTreeMap<String, FrrNeighbor>,
    /// Commands FRR would refuse (a neighbor activated before it exists).
    errors: Vec<String>,
}

/// Where a line sits in the configuration.
#[derive(Clone, Copy, PartialEq)]
enum Ctx {
    Outside,
    /// `router bgp` of another VRF: ignored.
    OtherVrf,
    Router,
    /// Inside `address-family ipv4 unicast`.
    Ipv4Unicast,
    /// Inside any other address family.
    OtherAf,
}

impl FrrBgp {
    /// Reads FRR configuration text (the frrcfgd render) for the default VRF's BGP instance.
    fn parse(text: &str) -> FrrBgp {
        let mut bgp = FrrBgp::default();
        let mut ctx = Ctx::Outside;
        for raw in text.lines() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('!') {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            if !raw.starts_with(char::is_whitespace) {
                ctx = match words.as_slice() {
                    ["router", "bgp", asn] => {
                        bgp.asn = Some(asn.to_string());
                        Ctx::Router
                    }
                    ["router", "bgp", _, "vrf", ..] => Ctx::OtherVrf,
                    _ => Ctx::Outside,
                };
                continue;
            }
            ctx = bgp.line(ctx, line, &words);
        }
        bgp
    }

    /// Applies one indented line; returns the context for the next.
    fn line(&mut self, ctx: Ctx, line: &str, words: &[&str]) -> Ctx {
        match (ctx, words) {
            (Ctx::Outside | Ctx::OtherVrf, _) => ctx,
            (Ctx::Router, ["address-family", "ipv4", "unicast"]) => Ctx::Ipv4Unicast,
            (Ctx::Router, ["address-family", ..]) => Ctx::OtherAf,
            (Ctx::Ipv4Unicast | Ctx::OtherAf, ["exit-address-family"]) => Ctx::Router,
            (Ctx::OtherAf, _) => ctx,
            (Ctx::Router, ["bgp", "default", "ipv4-unicast"]) => {
                self.default_ipv4_unicast = Some(true);
                ctx
            }
            (Ctx::Router, ["no", "bgp", "default", "ipv4-unicast"]) => {
                self.default_ipv4_unicast = Some(false);
                ctx
            }
            (Ctx::Router, ["neighbor", ip, "remote-as", asn]) => {
                let default_on = self.default_ipv4_unicast.unwrap_or(true);
                let n = self.neighbors.entry(ip.to_string()).or_insert_with(|| {
                    let why = match default_on {
                        true => "created while `bgp default ipv4-unicast` is on",
                        false => "created under `no bgp default ipv4-unicast`",
                    };
                    FrrNeighbor {
                        ipv4_unicast: default_on,
                        why: vec![why.to_string()],
                        ..FrrNeighbor::default()
                    }
                });
                n.remote_as = Some(asn.to_string());
                ctx
            }
            (Ctx::Router, ["neighbor", ip, "shutdown", ..]) => {
                if let Some(n) = self.neighbor(ip, line) {
                    n.shutdown = true;
                }
                ctx
            }
            // Router-level activate is FRR's legacy spelling for IPv4 unicast.
            (Ctx::Router | Ctx::Ipv4Unicast, ["neighbor", ip, "activate"]) => {
                self.set_ipv4(ip, true, line);
                ctx
            }
            (Ctx::Router | Ctx::Ipv4Unicast, ["no", "neighbor", ip, "activate"]) => {
                self.set_ipv4(ip, false, line);
                ctx
            }
            _ => ctx,
        }
    }

    fn neighbor(&mut self, ip: &str, line: &str) -> Option<&mut FrrNeighbor> {
        if !self.neighbors.contains_key(ip) {
            self.errors
                .push(format!("`{line}` names a neighbor not configured yet"));
        }
        self.neighbors.get_mut(ip)
    }

    fn set_ipv4(&mut self, ip: &str, on: bool, line: &str) {
        if let Some(n) = self.neighbor(ip, line) {
            n.ipv4_unicast = on;
            n.why.push(format!("`{line}`"));
        }
    }
}

// ------------------------------------------------------------------------------------------------
// The model's view and the comparison.
// ------------------------------------------------------------------------------------------------

/// What is wrong with one device's FRR BGP state: empty when every model neighbor is up and carries IPv4.
fn problems(device: &Device, bgp: &FrrBgp) -> Vec<String> {
    let mut out = bgp.errors.clone();
    let want_asn = device.bgp.asn.to_string();
    if bgp.asn.as_deref() != Some(want_asn.as_str()) {
        out.push(format!(
            "router bgp is {:?}, the model says {want_asn}",
            bgp.asn
        ));
    }
    if bgp.default_ipv4_unicast.is_none() {
        out.push("no `[no] bgp default ipv4-unicast`: FRR's default depends on its profile".into());
    }
    for n in &device.bgp.neighbors {
        let ip = n.ip.to_string();
        let Some(f) = bgp.neighbors.get(&ip) else {
            out.push(format!("neighbor {ip} ({}) is not configured", n.peer));
            continue;
        };
        if f.remote_as != Some(n.remote_as.to_string()) {
            out.push(format!(
                "neighbor {ip} remote-as {:?}, the model says {}",
                f.remote_as, n.remote_as
            ));
        }
        if !f.ipv4_unicast {
            out.push(format!(
                "neighbor {ip} ({}) is not activated for IPv4 unicast: {}",
                n.peer,
                f.why.join(", then ")
            ));
        }
        if f.shutdown {
            out.push(format!("neighbor {ip} ({}) is shut down", n.peer));
        }
    }
    for ip in bgp.neighbors.keys() {
        if !device.bgp.neighbors.iter().any(|n| n.ip.to_string() == *ip) {
            out.push(format!("neighbor {ip} is not in the model"));
        }
    }
    out
}

// ------------------------------------------------------------------------------------------------
// Environment: the release templates, python with jinja2, the rendered devices.
// ------------------------------------------------------------------------------------------------

const HOW: &str = "put the project's shared/ folder (sonic-releases/<release>/frrcfgd-bgpd/) beside the \
     repository and a python3 with jinja2 on PATH (or set AIFAB_PYTHON); .ci/run creates .ci/venv with it";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// frrcfgd's bgpd templates of one release, when present.
fn templates(release: &str) -> Option<PathBuf> {
    let dir = root()
        .join("../shared/sonic-releases")
        .join(release)
        .join("frrcfgd-bgpd");
    common::prerequisite(
        dir.join("bgpd.conf.db.j2").is_file(),
        &format!("the frrcfgd {release} test"),
        &format!("no frrcfgd templates at {}", dir.display()),
        HOW,
    )
    .then_some(dir)
}

/// The python that renders: `$AIFAB_PYTHON`, else CI's venv, else `python3`; None when it cannot import jinja2.
fn python() -> Option<PathBuf> {
    let found = common::python_with(&["jinja2"]);
    let present = common::prerequisite(
        found.is_some(),
        "the frrcfgd tests",
        "no python (AIFAB_PYTHON, .ci/venv, python3) can import jinja2",
        HOW,
    );
    if present { found } else { None }
}

/// One SONiC device of an example intent with its rendered config_db.json.
struct Rendered {
    name: String,
    device: Device,
    config_db: Value,
}

/// Every SONiC device of every example intent, named `<intent stem>/<hostname>`.
fn rendered_sonic() -> Vec<Rendered> {
    let mut out = Vec::new();
    for path in common::example_intents() {
        let (model, files): (FabricModel, _) = common::render(&path);
        let stem = Path::new(&path)
            .file_stem()
            .unwrap()
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

/// Renders every device with one release's templates: name → FRR text.
fn render_frr(python: &Path, templates: &Path, devices: &[Rendered]) -> BTreeMap<String, String> {
    let request = json!({
        "releases": {"r": templates},
        "devices": devices.iter().map(|d| (d.name.clone(), d.config_db.clone())).collect::<serde_json::Map<_, _>>(),
    });
    let mut child = Command::new(python)
        .arg(root().join("tests/frr/render_bgpd.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start render_bgpd.py");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(request.to_string().as_bytes())
        .expect("write request");
    let out = child.wait_with_output().expect("run render_bgpd.py");
    assert!(
        out.status.success(),
        "render_bgpd.py failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v: BTreeMap<String, BTreeMap<String, String>> =
        serde_json::from_slice(&out.stdout).expect("render_bgpd.py output is JSON");
    v.remove("r").expect("the release's renders")
}

/// Renders one release's templates for every SONiC device and asserts every neighbor carries IPv4 unicast.
fn every_neighbor_carries_ipv4(release: &str) {
    let Some(templates) = templates(release) else {
        return;
    };
    let Some(python) = python() else { return };
    let devices = rendered_sonic();
    let texts = render_frr(&python, &templates, &devices);
    let mut failing = Vec::new();
    for d in &devices {
        let text = texts.get(&d.name).expect("a render per device");
        let p = problems(&d.device, &FrrBgp::parse(text));
        if !p.is_empty() {
            let shown: Vec<&String> = p.iter().take(3).collect();
            let more = p.len().saturating_sub(shown.len());
            failing.push(format!(
                "{}: {}{}",
                d.name,
                shown
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join("\n    "),
                if more > 0 {
                    format!("\n    … and {more} more")
                } else {
                    String::new()
                }
            ));
        }
    }
    eprintln!(
        "frrcfgd {release}: {}/{} SONiC devices carry IPv4 unicast to every BGP neighbor",
        devices.len() - failing.len(),
        devices.len()
    );
    assert!(
        failing.is_empty(),
        "frrcfgd {release}: {} of {} SONiC devices lose BGP IPv4 unicast:\n  {}",
        failing.len(),
        devices.len(),
        failing.join("\n  ")
    );
}

// ------------------------------------------------------------------------------------------------
// Tests.
// ------------------------------------------------------------------------------------------------

#[test]
fn parser_follows_frr_activation_rules() {
    let text = "\
router bgp 65001
 bgp router-id 10.0.0.1
 no bgp default ipv4-unicast
 neighbor 10.0.0.1 remote-as 65002
 neighbor 10.0.0.3 remote-as 65002
 bgp default ipv4-unicast
 neighbor 10.0.0.5 remote-as 65002
 neighbor 10.0.0.7 remote-as 65002
 neighbor 10.0.0.7 shutdown
 !
 address-family ipv4 unicast
  neighbor 10.0.0.3 activate
  no neighbor 10.0.0.5 activate
  neighbor 10.0.0.9 activate
 exit-address-family
 !
 address-family ipv6 unicast
  neighbor 10.0.0.1 activate
 exit-address-family
!
router bgp 65001 vrf red
 neighbor 10.0.0.1 activate
";
    let bgp = FrrBgp::parse(text);
    assert_eq!(bgp.asn.as_deref(), Some("65001"));
    assert_eq!(bgp.default_ipv4_unicast, Some(true));
    let on = |ip: &str| bgp.neighbors[ip].ipv4_unicast;
    // Created under `no bgp default ipv4-unicast`; the ipv6 activate does not count.
    assert!(!on("10.0.0.1"));
    assert!(on("10.0.0.3"), "explicit activate");
    assert!(
        !on("10.0.0.5"),
        "created with the default on, then deactivated"
    );
    assert!(on("10.0.0.7"), "created with the default on");
    assert!(bgp.neighbors["10.0.0.7"].shutdown);
    assert_eq!(bgp.neighbors.len(), 4);
    assert_eq!(
        bgp.errors.len(),
        1,
        "10.0.0.9 is activated before it exists"
    );
}

#[test]
fn frrcfgd_202405_activates_every_neighbor() {
    every_neighbor_carries_ipv4("202405");
}

#[test]
fn frrcfgd_202505_activates_every_neighbor() {
    every_neighbor_carries_ipv4("202505");
}

#[test]
fn frrcfgd_master_activates_every_neighbor() {
    every_neighbor_carries_ipv4("master");
}
