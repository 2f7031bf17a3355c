//! Reads the routing meaning (BGP identity, neighbors, ECMP, announcements, link addresses) back out of
//! a rendered FRR `frr.conf` (`aifab render --os frr`) and, to compare it with, out of each device's own
//! config: the NX-OS and EOS `router bgp` section and SONiC's BGP tables of `config_db.json`.
use aifab::render::OutFile;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// What a config says about a switch's eBGP underlay, OS-neutral.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Routing {
    /// Local ASN.
    pub asn: u32,
    /// Router-id.
    pub router_id: String,
    /// ECMP width of eBGP multipath; `None` where the config does not set it (SONiC: the release's).
    pub maximum_paths: Option<u32>,
    /// `as-path multipath-relax`: paths through different neighbor ASNs share the ECMP group.
    pub multipath_relax: bool,
    /// Neighbor address to its remote ASN.
    pub neighbors: BTreeMap<String, u32>,
    /// Announced prefixes.
    pub networks: BTreeSet<String>,
}

/// The routing meaning of one device's `frr.conf`, with its interface addresses (`ip/len`).
pub fn read_frr(file: &OutFile) -> (Routing, BTreeSet<String>) {
    assert!(file.path.ends_with("/frr.conf"), "{}", file.path);
    let text = &file.content;
    assert!(
        text.starts_with("frr defaults datacenter\n"),
        "{}: the profile line must come first",
        file.path
    );
    let mut addresses = BTreeSet::new();
    for line in text.lines() {
        if let Some(a) = line.strip_prefix(" ip address ") {
            addresses.insert(a.to_string());
        }
    }
    let r = read_cli(text, &file.path);
    // FRR refuses eBGP routes without a policy unless told not to: without this line nothing is
    // exchanged.
    assert!(
        text.lines().any(|l| l == " no bgp ebgp-requires-policy"),
        "{}: eBGP needs `no bgp ebgp-requires-policy` (the vendor configs have no policy)",
        file.path
    );
    // With `no bgp default ipv4-unicast`, a neighbor not activated carries no route.
    for ip in r.neighbors.keys() {
        assert!(
            text.contains(&format!("\n  neighbor {ip} activate\n")),
            "{}: neighbor {ip} is not activated for IPv4",
            file.path
        );
    }
    (r, addresses)
}

/// The routing meaning of an NX-OS or EOS config (their `router bgp` sections differ only in where the
/// remote AS and the maximum-paths stand).
pub fn read_native(files: &[&OutFile]) -> Routing {
    if let Some(db) = files.iter().find(|f| f.path.ends_with("/config_db.json")) {
        return read_sonic(db);
    }
    let cfg = files
        .iter()
        .find(|f| f.path.ends_with(".cfg"))
        .unwrap_or_else(|| panic!("no .cfg among {:?}", paths(files)));
    read_cli(&cfg.content, &cfg.path)
}

/// The `router bgp` section of a CLI config: from its line to the next line that is not indented.
fn read_cli(text: &str, path: &str) -> Routing {
    let mut r = Routing::default();
    let mut lines = text.lines().skip_while(|l| !l.starts_with("router bgp "));
    let head = lines
        .next()
        .unwrap_or_else(|| panic!("{path}: no `router bgp`"));
    r.asn = number(head.trim_start_matches("router bgp "), path);
    let mut current: Option<String> = None;
    for line in lines.take_while(|l| l.starts_with(' ')) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["router-id", id] | ["bgp", "router-id", id] => r.router_id = id.to_string(),
            ["bgp", "bestpath", "as-path", "multipath-relax"]
            | ["bestpath", "as-path", "multipath-relax"] => r.multipath_relax = true,
            ["maximum-paths", n, ..] => r.maximum_paths = Some(number(n, path)),
            ["network", p] => {
                r.networks.insert(p.to_string());
            }
            ["neighbor", ip, "remote-as", asn] => {
                r.neighbors.insert(ip.to_string(), number(asn, path));
            }
            // NX-OS: `neighbor <ip>` opens a block whose `remote-as` follows.
            ["neighbor", ip] => current = Some(ip.to_string()),
            ["remote-as", asn] => {
                let ip = current
                    .clone()
                    .unwrap_or_else(|| panic!("{path}: remote-as outside a neighbor"));
                r.neighbors.insert(ip, number(asn, path));
            }
            _ => {}
        }
    }
    r
}

/// SONiC's tables as its default (separated) routing mode reads them: bgpcfgd's templates take the ASN
/// and router-id from DEVICE_METADATA, a neighbor per BGP_NEIGHBOR row, announce Loopback0 and every
/// VLAN interface subnet (`bgpd.main.conf.j2`), and always set `bgp bestpath as-path multipath-relax`.
/// maximum-paths is the release's (constants.yml), not in config_db.json: `None` here, and
/// tests/it/sonic_frr.rs checks it is at least the ECMP width.
fn read_sonic(file: &OutFile) -> Routing {
    let db: Value = serde_json::from_str(&file.content)
        .unwrap_or_else(|e| panic!("{}: not JSON: {e}", file.path));
    let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let meta = &db["DEVICE_METADATA"]["localhost"];
    let mut r = Routing {
        asn: number(&s(&meta["bgp_asn"]), &file.path),
        router_id: s(&meta["bgp_router_id"]),
        maximum_paths: None,
        multipath_relax: true,
        ..Routing::default()
    };
    for (k, v) in db["BGP_NEIGHBOR"].as_object().into_iter().flatten() {
        let ip = k.strip_prefix("default|").unwrap_or(k).to_string();
        r.neighbors.insert(ip, number(&s(&v["asn"]), &file.path));
    }
    for table in ["LOOPBACK_INTERFACE", "VLAN_INTERFACE"] {
        for key in db[table].as_object().into_iter().flatten().map(|(k, _)| k) {
            let Some((name, prefix)) = key.split_once('|') else {
                continue;
            };
            if table == "LOOPBACK_INTERFACE" && name != "Loopback0" {
                continue;
            }
            let net: ipnetwork::Ipv4Network = prefix
                .parse()
                .unwrap_or_else(|e| panic!("{}: {key}: {e}", file.path));
            r.networks
                .insert(format!("{}/{}", net.network(), net.prefix()));
        }
    }
    r
}

fn number(s: &str, path: &str) -> u32 {
    s.trim()
        .parse()
        .unwrap_or_else(|_| panic!("{path}: `{s}` is not a number"))
}

fn paths(files: &[&OutFile]) -> Vec<String> {
    files.iter().map(|f| f.path.clone()).collect()
}
