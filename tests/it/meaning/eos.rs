//! Reads the lossless meaning back out of rendered EOS configs: the text only, never the model.
//!
//! The reader walks the running-config by indentation (EOS indents sub-modes by three spaces) and
//! understands the commands aifab's templates use:
//! - `qos map dscp <dscps> to traffic-class <tc>` (global);
//! - `qos profile <name>` with `priority-flow-control on`, `priority-flow-control priority <p> no-drop`,
//!   `priority-flow-control pause watchdog`, and `tx-queue`/`uc-tx-queue <q>` blocks with `priority strict`
//!   and `random-detect ecn minimum-threshold <n> <unit> maximum-threshold <n> <unit> max-mark-probability <p>`;
//! - `interface <name>` with `service-profile <name>` (or interface-level `priority-flow-control on`)
//!   and `speed <n>g-<lanes>` (a broken-out port; without it the port runs the platform's native speed,
//!   which the caller passes);
//! - `shape rate <n> percent` in a `tx-queue` block: that share of each port's own speed;
//! - `ip hardware fib load-balance distribution dynamic` (DLB, flowlet-style);
//! - `port-channel load-balance trident udf ... header outer l4 offset <n> ...` and
//!   `load-balance policies` / `load-balance sand profile` / `fields udp dst-port 4791` / `payload bytes 5-7`.
use super::Meaning;
use aifab::render::OutFile;
use std::collections::{BTreeMap, BTreeSet};

/// RoCEv2's UDP destination port.
const ROCE_UDP_PORT: &str = "4791";
/// The BTH DestQP counted from the start of the L4 header (UDP 8 bytes + BTH bytes 5-7).
const DEST_QP_L4_OFFSETS: [u32; 3] = [13, 14, 15];

/// One `qos profile` as the text configures it.
#[derive(Default)]
struct Profile {
    pfc_on: bool,
    no_drop: BTreeSet<u8>,
    watchdog: bool,
    strict: BTreeSet<u8>,
    ecn: BTreeMap<u8, (u64, u64, u8)>,
    /// `shape rate <n> percent` per queue.
    shape_percent: BTreeMap<u8, u64>,
}

/// Where the reader is in the config.
enum Block {
    Other,
    Profile(String),
    Interface(String),
    LoadBalancePolicies,
}

/// Extracts the meaning of one device's rendered files; a port without a `speed` line runs at
/// `native_gbps`.
pub fn read(files: &[&OutFile], native_gbps: u32) -> Meaning {
    let mut m = Meaning::default();
    let mut profiles: BTreeMap<String, Profile> = BTreeMap::new();
    // Interface -> profile it carries, and interfaces with interface-level `priority-flow-control on`.
    let mut service_profile: BTreeMap<String, String> = BTreeMap::new();
    let mut pfc_on_port: BTreeSet<String> = BTreeSet::new();
    let mut port_gbps: BTreeMap<String, u32> = BTreeMap::new();
    let mut udf_offsets: BTreeSet<u32> = BTreeSet::new();
    for f in files {
        let mut block = Block::Other;
        let mut queue: Option<u8> = None;
        // Sand profile state: inside `fields udp dst-port 4791`.
        let mut sand_roce_port = false;
        for raw in f.content.lines() {
            let line = raw.trim_end();
            let text = line.trim_start();
            if text.is_empty() || text.starts_with('!') {
                continue;
            }
            let depth = (line.len() - text.len()) / 3;
            let words: Vec<&str> = text.split_whitespace().collect();
            if depth == 0 {
                queue = None;
                sand_roce_port = false;
                block = match words.as_slice() {
                    ["qos", "profile", name] => {
                        profiles.entry(name.to_string()).or_default();
                        Block::Profile(name.to_string())
                    }
                    ["interface", name] => Block::Interface(name.to_string()),
                    ["load-balance", "policies"] => Block::LoadBalancePolicies,
                    _ => Block::Other,
                };
                global(&words, &mut m, &mut udf_offsets);
                continue;
            }
            match &block {
                Block::Profile(name) => {
                    let p = profiles.get_mut(name).expect("profile entered above");
                    if depth == 1 {
                        queue = None;
                        match words.as_slice() {
                            ["priority-flow-control", "on"] => p.pfc_on = true,
                            ["priority-flow-control", "priority", n, "no-drop"] => {
                                p.no_drop.insert(num(n));
                            }
                            ["priority-flow-control", "pause", "watchdog"] => p.watchdog = true,
                            ["tx-queue" | "uc-tx-queue", n] => queue = Some(num(n)),
                            _ => {}
                        }
                    } else if let Some(q) = queue {
                        match words.as_slice() {
                            ["priority", "strict"] => {
                                p.strict.insert(q);
                            }
                            ["random-detect", "ecn", "minimum-threshold", ..] => {
                                p.ecn.insert(q, ecn(&words));
                            }
                            ["shape", "rate", n, "percent"] => {
                                p.shape_percent.insert(q, u64::from(num(n)));
                            }
                            _ => {}
                        }
                    }
                }
                Block::Interface(name) => match words.as_slice() {
                    ["service-profile", profile] => {
                        service_profile.insert(name.clone(), profile.to_string());
                    }
                    ["priority-flow-control", "on"] => {
                        pfc_on_port.insert(name.clone());
                    }
                    ["speed", keyword] => {
                        let gbps = keyword
                            .split_once('g')
                            .and_then(|(n, _)| n.parse().ok())
                            .unwrap_or_else(|| panic!("speed `{keyword}`"));
                        port_gbps.insert(name.clone(), gbps);
                    }
                    _ => {}
                },
                Block::LoadBalancePolicies => match (depth, words.as_slice()) {
                    (1, _) => sand_roce_port = false,
                    (2, ["fields", "udp", "dst-port", port, rest @ ..]) => {
                        sand_roce_port = *port == ROCE_UDP_PORT;
                        // The one-line typed form: `fields udp dst-port 4791 payload bytes 5-7`.
                        if sand_roce_port && rest == ["payload", "bytes", "5-7"] {
                            m.qp_hash = true;
                        }
                    }
                    (3, ["payload", "bytes", "5-7"]) if sand_roce_port => m.qp_hash = true,
                    _ => {}
                },
                Block::Other => {}
            }
        }
    }
    if DEST_QP_L4_OFFSETS.iter().all(|o| udf_offsets.contains(o)) {
        m.qp_hash = true;
    }
    for p in profiles.values() {
        if p.pfc_on {
            m.lossless.extend(&p.no_drop);
            if p.watchdog {
                m.watchdog.extend(&p.no_drop);
            }
        }
        m.strict.extend(&p.strict);
        m.ecn.extend(p.ecn.iter().map(|(q, e)| (*q, *e)));
    }
    m.pfc_ports = service_profile
        .iter()
        .filter(|(_, p)| profiles.get(*p).is_some_and(|p| p.pfc_on))
        .map(|(i, _)| i.clone())
        .chain(pfc_on_port)
        .collect();
    for port in &m.pfc_ports {
        let Some(p) = service_profile.get(port).and_then(|p| profiles.get(p)) else {
            continue;
        };
        if p.shape_percent.is_empty() {
            continue;
        }
        let kbps = u64::from(*port_gbps.get(port).unwrap_or(&native_gbps)) * 1_000_000;
        let rates = p
            .shape_percent
            .iter()
            .map(|(q, pct)| (*q, kbps * pct / 100));
        m.shapers.insert(port.clone(), rates.collect());
    }
    m
}

/// Global (unindented) commands.
fn global(words: &[&str], m: &mut Meaning, udf_offsets: &mut BTreeSet<u32>) {
    const DLB: &[&str] = &[
        "ip",
        "hardware",
        "fib",
        "load-balance",
        "distribution",
        "dynamic",
    ];
    const UDF: &[&str] = &["port-channel", "load-balance", "trident", "udf", "eth-type"];
    if let ["qos", "map", "dscp", rest @ ..] = words {
        let to = rest
            .iter()
            .position(|w| *w == "to")
            .expect("qos map dscp ... to");
        if let ["traffic-class", tc, ..] = &rest[to + 1..] {
            for d in &rest[..to] {
                m.dscp.insert(num(d), num(tc));
            }
        }
    } else if words.starts_with(DLB) {
        m.dlb = Some("flowlet".to_string());
    } else if let Some([eth, rest @ ..]) = words.strip_prefix(UDF)
        && eth.eq_ignore_ascii_case("ipv4")
    {
        let header = rest.iter().position(|w| *w == "header").map(|i| &rest[i..]);
        if let Some(["header", "outer", "l4", "offset", n, "mask", "0xff"]) = header {
            udf_offsets.insert(n.parse().expect("udf offset"));
        }
    }
}

/// `random-detect ecn minimum-threshold <n> <unit> maximum-threshold <n> <unit> max-mark-probability <p> ...`
fn ecn(words: &[&str]) -> (u64, u64, u8) {
    let after = |key: &str| {
        let i = words
            .iter()
            .position(|w| *w == key)
            .unwrap_or_else(|| panic!("`{key}` missing in: {}", words.join(" ")));
        &words[i + 1..]
    };
    let bytes = |v: &[&str]| -> u64 {
        let n: u64 = v[0].parse().expect("ECN threshold");
        let unit = match v[1] {
            "bytes" => 1,
            "kbytes" => 1024,
            "mbytes" => 1024 * 1024,
            other => panic!("ECN unit `{other}` is not a byte unit"),
        };
        n * unit
    };
    let min = bytes(after("minimum-threshold"));
    let max = bytes(after("maximum-threshold"));
    let prob = num(after("max-mark-probability")[0]);
    (min, max, prob)
}

fn num(s: &str) -> u8 {
    s.parse().unwrap_or_else(|_| panic!("not a number: {s}"))
}
