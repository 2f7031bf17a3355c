//! The host output (`hosts/`): one netplan file per server and the shared files, Spiderpool objects valid against Spiderpool's own CRD schemas (vendored in
//! `tests/hosts/`, see its README) in both server addressing modes and both CNIs, pools that never hand
//! out a switch address, and netplan files that send each NIC port's traffic through its own leaf: on
//! rail leaves, rack leaves (intents/meta-rack-three-tier.yaml) and two-port NICs on two planes
//! (intents/hpn-dual-plane.yaml) or two leaves, every port's address and gateway the switch side's.

use crate::common;

use aifab::model::{Device, FabricModel, LinkTier, NicEnd};
use aifab::platform::Catalog;
use aifab::render::{Meta, OutFile, Renderer};
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::net::Ipv4Addr;

const MIXED: &str = "intents/mixed-sonic-nxos.yaml";
const HPN: &str = "intents/hpn-dual-plane.yaml";
const META: &str = "intents/meta-rack-three-tier.yaml";

/// The mixed example with `edits` (`(from, to)` text replacements) applied, compiled and rendered.
fn render_edited(edits: &[(&str, &str)]) -> (FabricModel, Vec<OutFile>) {
    render_file(MIXED, edits)
}

/// An example with `edits` applied, compiled and rendered.
fn render_file(path: &str, edits: &[(&str, &str)]) -> (FabricModel, Vec<OutFile>) {
    render_with(path, edits, |_| {})
}

/// An example with `edits` applied and compiled, the model changed by `tweak`, then rendered.
fn render_with(
    path: &str,
    edits: &[(&str, &str)],
    tweak: impl Fn(&mut FabricModel),
) -> (FabricModel, Vec<OutFile>) {
    let mut text = std::fs::read_to_string(path).expect("read");
    for (from, to) in edits {
        assert!(text.contains(from), "{from} not in {path}");
        text = text.replace(from, to);
    }
    let intent: aifab::intent::Intent = serde_norway::from_str(&text).expect("intent");
    let mut model = aifab::compile::compile(&intent, Catalog::builtin()).expect("compile");
    tweak(&mut model);
    let files = Renderer::new(Catalog::builtin())
        .expect("templates")
        .fabric(&Meta::new("edited.yaml", &model.name), &model, None)
        .expect("render");
    (model, files)
}

const ROUTED: (&str, &str) = ("server_mode: rail-subnet", "server_mode: routed");
const MACVLAN: (&str, &str) = ("cni: sriov", "cni: macvlan");
/// Rail subnets with room for a pod address per NIC port (AIF-HOST-008 refuses them without).
const HPN_SUBNETS: (&str, &str) = (
    "server_links: 10.32.0.0/24",
    "server_links: 10.32.0.0/24\n    server_mode: rail-subnet\n    pod_addresses_per_port: 1",
);
const META_SUBNETS: (&str, &str) = (
    "server_links: 10.42.0.0/24",
    "server_links: 10.42.0.0/24\n    server_mode: rail-subnet\n    pod_addresses_per_port: 1",
);
/// HPN's NICs on two leaves of one plane (sides) under the same spines.
const TWO_LEAVES: [(&str, &str); 3] = [
    ("homing: two-planes", "homing: two-leaves"),
    ("-p{plane}\"", "-p{side}\""),
    ("p{plane}-spine{index}", "spine{index}"),
];

/// One fabric the host tests render: the example, its edits, its pools and SpiderMultusConfigs, its
/// servers' NIC ports, server pool and MTU.
struct Case {
    file: &'static str,
    edits: Vec<(&'static str, &'static str)>,
    pools: usize,
    multus: usize,
    ports: usize,
    servers: usize,
    pool: &'static str,
    mtu: u64,
}

/// Rail leaves in both modes, rack leaves in both modes, two-port NICs on two planes in both modes and
/// on two leaves of one plane.
fn cases() -> Vec<Case> {
    let case = |file, edits: &[(&'static str, &'static str)], pools, multus, ports, servers| {
        let (pool, mtu) = match file {
            MIXED => ("10.12.0.0/16", 9100),
            HPN => ("10.32.0.0/24", 9214),
            _ => ("10.42.0.0/24", 9214),
        };
        Case {
            file,
            edits: edits.to_vec(),
            pools,
            multus,
            ports,
            servers,
            pool,
            mtu,
        }
    };
    vec![
        // A pool per rail leaf (32 servers, 2 groups, 8 rails), or per NIC.
        case(MIXED, &[], 16, 8, 8, 32),
        case(MIXED, &[ROUTED], 256, 8, 8, 32),
        case(MIXED, &[MACVLAN], 16, 8, 8, 32),
        case(MIXED, &[ROUTED, MACVLAN], 256, 8, 8, 32),
        // Two-port NICs: a pool per NIC port or per leaf (2 groups x 2 rails x 2 planes).
        case(HPN, &[], 32, 4, 4, 8),
        case(HPN, &[HPN_SUBNETS], 8, 4, 4, 8),
        case(HPN, &TWO_LEAVES, 32, 4, 4, 8),
        // Rack leaves: a pool per NIC or per rack leaf (14 racks of 2 servers).
        case(META, &[], 56, 2, 2, 28),
        case(META, &[META_SUBNETS], 14, 2, 2, 28),
    ]
}

/// A CRD's OpenAPI schema as the API server applies it with strict field validation (kubectl's default
/// since 1.27): an object schema with `properties` rejects any other field.
fn validator(kind: &str) -> jsonschema::Validator {
    let path = format!("tests/hosts/{kind}.v2beta1.schema.json");
    let mut schema: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("schema")).expect("json");
    close(&mut schema);
    jsonschema::validator_for(&schema).expect("schema compiles")
}

fn close(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if m.contains_key("properties") && !m.contains_key("additionalProperties") {
                m.insert("additionalProperties".into(), Value::Bool(false));
            }
            m.values_mut().for_each(close);
        }
        Value::Array(a) => a.iter_mut().for_each(close),
        _ => {}
    }
}

/// The documents of the Spiderpool file.
fn spiderpool_docs(files: &[OutFile]) -> Vec<Value> {
    let f = files
        .iter()
        .find(|f| f.path == "hosts/kubernetes/spiderpool.yaml")
        .expect("spiderpool.yaml");
    serde_norway::Deserializer::from_str(&f.content)
        .map(|d| Value::deserialize(d).expect("YAML document"))
        .filter(|v| !v.is_null())
        .collect()
}

#[test]
fn spiderpool_objects_are_valid_crds_in_both_addressing_modes() {
    let pools = validator("spiderippools");
    let multus = validator("spidermultusconfigs");
    for c in cases() {
        let (_, files) = render_file(c.file, &c.edits);
        let docs = spiderpool_docs(&files);
        let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
        for d in &docs {
            let kind = d["kind"].as_str().expect("kind").to_string();
            let v = match kind.as_str() {
                "SpiderIPPool" => &pools,
                "SpiderMultusConfig" => &multus,
                other => panic!("unexpected kind {other}"),
            };
            let errors: Vec<String> = v.iter_errors(d).map(|e| e.to_string()).collect();
            assert!(
                errors.is_empty(),
                "{} {:?}: {kind} {}: {errors:?}",
                c.file,
                c.edits,
                d["metadata"]
            );
            assert_eq!(d["apiVersion"], "spiderpool.spidernet.io/v2beta1");
            *kinds.entry(kind).or_default() += 1;
        }
        let at = format!("{} {:?}", c.file, c.edits);
        assert_eq!(kinds.get("SpiderIPPool"), Some(&c.pools), "{at}");
        assert_eq!(kinds.get("SpiderMultusConfig"), Some(&c.multus), "{at}");
        multus_pools_serve_every_server(&docs, c.servers, &at);
    }
}

/// Every SpiderMultusConfig's pool wildcard gives every server an address: some pool it matches pins
/// that server.
fn multus_pools_serve_every_server(docs: &[Value], servers: usize, at: &str) {
    let pools: Vec<(&str, BTreeSet<&str>)> = docs
        .iter()
        .filter(|d| d["kind"] == "SpiderIPPool")
        .map(|d| {
            let name = d["metadata"]["name"].as_str().expect("name");
            (name, strings(&d["spec"]["nodeName"]).into_iter().collect())
        })
        .collect();
    for m in docs.iter().filter(|d| d["kind"] == "SpiderMultusConfig") {
        let cni = m["spec"]["cniType"].as_str().expect("cni");
        let wild = strings(&m["spec"][cni]["ippools"]["ipv4"]);
        let prefixes: Vec<&str> = wild.iter().map(|w| w.trim_end_matches('*')).collect();
        let nodes: BTreeSet<&str> = pools
            .iter()
            .filter(|(n, _)| prefixes.iter().any(|p| n.starts_with(p)))
            .flat_map(|(_, nodes)| nodes.iter().copied())
            .collect();
        assert_eq!(
            nodes.len(),
            servers,
            "{at}: {} {wild:?}",
            m["metadata"]["name"]
        );
    }
}

/// The test's own check of the closed schema: a misspelt field is refused.
#[test]
fn the_closed_schemas_refuse_unknown_fields() {
    let v = validator("spiderippools");
    let good: Value = serde_json::json!({"apiVersion": "spiderpool.spidernet.io/v2beta1",
        "kind": "SpiderIPPool", "metadata": {"name": "x"}, "spec": {"subnet": "10.0.0.0/24"}});
    assert!(v.is_valid(&good));
    let mut bad = good.clone();
    bad["spec"]["gatway"] = "10.0.0.1".into();
    assert!(!v.is_valid(&bad));
}

/// `a.b.c.d-e.f.g.h` or one address → the addresses.
fn range(text: &str) -> Vec<Ipv4Addr> {
    let (a, b) = text.split_once('-').unwrap_or((text, text));
    let (a, b): (Ipv4Addr, Ipv4Addr) = (a.parse().expect("ip"), b.parse().expect("ip"));
    (u32::from(a)..=u32::from(b)).map(Ipv4Addr::from).collect()
}

fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Every switch address of the fabric: loopbacks, routed port addresses, server-subnet gateways.
fn switch_addresses(model: &FabricModel) -> BTreeSet<Ipv4Addr> {
    let mut out = BTreeSet::new();
    for d in &model.devices {
        out.insert(d.loopback);
        out.extend(d.interfaces.iter().filter_map(|i| i.ip));
        out.extend(d.server_subnet.as_ref().map(|s| s.gateway_ip));
    }
    out
}

/// The leaf a server's NIC port is cabled to and which NIC port it is, by (server, netdev).
fn cabling(model: &FabricModel) -> BTreeMap<(String, String), (&Device, NicEnd)> {
    let by_name: BTreeMap<&str, &Device> = model
        .devices
        .iter()
        .map(|d| (d.hostname.as_str(), d))
        .collect();
    model
        .links
        .iter()
        .filter(|l| l.tier == "server-leaf")
        .map(|l| {
            let end = l.nic.expect("server link names its NIC port");
            (
                (l.a.to_string(), l.a_port.to_string()),
                (by_name[&*l.b], end),
            )
        })
        .collect()
}

/// The rail and port a pool name's prefix names: `rail01-`, `rail01p2-`, `rack-`, `rackp1-`.
fn pool_kind(name: &str) -> (Option<u32>, Option<u32>) {
    let (head, _) = name.split_once('-').expect("prefix-");
    let (rail, rest) = match head.strip_prefix("rail") {
        Some(r) => (Some(r[..2].parse().expect("rail")), &r[2..]),
        None => (None, head.strip_prefix("rack").expect("rail or rack")),
    };
    let port = rest.strip_prefix('p').map(|p| p.parse().expect("port"));
    assert!(port.is_some() || rest.is_empty(), "{name}");
    (rail, port)
}

#[test]
fn pools_hand_out_no_switch_address_and_pin_their_servers() {
    for c in cases() {
        let (model, files) = render_file(c.file, &c.edits);
        let at = format!("{} {:?}", c.file, c.edits);
        let switches = switch_addresses(&model);
        let cabled = cabling(&model);
        let mut handed: BTreeSet<Ipv4Addr> = BTreeSet::new();
        for d in spiderpool_docs(&files)
            .iter()
            .filter(|d| d["kind"] == "SpiderIPPool")
        {
            let spec = &d["spec"];
            let name = d["metadata"]["name"].as_str().expect("name");
            let subnet: ipnetwork::Ipv4Network = spec["subnet"]
                .as_str()
                .expect("subnet")
                .parse()
                .expect("subnet");
            let gateway: Ipv4Addr = spec["gateway"].as_str().expect("gw").parse().expect("gw");
            assert!(
                switches.contains(&gateway),
                "{name}: gateway {gateway} is no switch address"
            );
            let excluded: BTreeSet<Ipv4Addr> = strings(&spec["excludeIPs"])
                .iter()
                .flat_map(|r| range(r))
                .collect();
            let usable: Vec<Ipv4Addr> = strings(&spec["ips"])
                .iter()
                .flat_map(|r| range(r))
                .filter(|ip| !excluded.contains(ip))
                .collect();
            assert!(!usable.is_empty(), "{name}: nothing to hand out");
            for ip in &usable {
                assert!(subnet.contains(*ip), "{name}: {ip} outside {subnet}");
                assert!(
                    !switches.contains(ip),
                    "{name}: hands out switch address {ip}"
                );
                if subnet.prefix() < 31 {
                    assert!(
                        *ip != subnet.network() && *ip != subnet.broadcast(),
                        "{name}: {ip}"
                    );
                }
                assert!(handed.insert(*ip), "{name}: {ip} in two pools");
            }
            // Its servers are exactly those whose NIC ports of the pool's rail and port are cabled to
            // the gateway's leaf.
            let (rail, port) = pool_kind(name);
            let nodes: BTreeSet<&str> = strings(&spec["nodeName"]).into_iter().collect();
            let served: Vec<_> = cabled
                .iter()
                .filter(|(_, (_, end))| rail.is_none_or(|r| end.rail == r))
                .filter(|(_, (_, end))| port.is_none_or(|p| end.port == p))
                .filter(|((server, nic), (leaf, _))| match &leaf.server_subnet {
                    Some(s) => s.gateway_ip == gateway,
                    None => leaf.interfaces.iter().any(|i| {
                        *i.peer == **server && *i.peer_port == **nic && i.ip == Some(gateway)
                    }),
                })
                .collect();
            let want: BTreeSet<&str> = served
                .iter()
                .map(|((server, _), _)| server.as_str())
                .collect();
            assert_eq!(nodes, want, "{at} {name}");
            // At least one address for each NIC port the pool serves (one pod per server at least).
            let ports = served.len();
            assert!(
                usable.len() >= ports,
                "{at} {name}: {} addresses for {ports} NIC ports",
                usable.len()
            );
            // Every route goes through the gateway, to server addresses; without planes to the whole
            // pool (tests/it/meaning.rs checks which server ports each pool's routes reach).
            let routes = spec["routes"].as_array().expect("routes");
            assert!(!routes.is_empty(), "{at} {name}: no route");
            for r in routes {
                assert_eq!(r["gw"], gateway.to_string(), "{at} {name}");
                assert!(within(&r["dst"], c.pool), "{at} {name}: {}", r["dst"]);
            }
            let planes = served.iter().any(|(_, (leaf, _))| leaf.plane.is_some());
            if !planes {
                assert_eq!(routes.len(), 1, "{at} {name}");
                assert_eq!(routes[0]["dst"], c.pool, "{at} {name}");
            }
        }
        assert!(!handed.is_empty());
    }
}

/// Whether the prefix `dst` (a YAML string) lies inside the prefix `pool`.
fn within(dst: &Value, pool: &str) -> bool {
    let (Some(dst), Ok(pool)) = (
        dst.as_str()
            .and_then(|d| d.parse::<ipnetwork::Ipv4Network>().ok()),
        pool.parse::<ipnetwork::Ipv4Network>(),
    ) else {
        return false;
    };
    pool.contains(dst.network()) && dst.prefix() >= pool.prefix()
}

/// Without Kubernetes every NIC port's address is the host's.
fn without_kubernetes(m: &mut FabricModel) {
    if let Some(h) = m.hosts.as_mut() {
        std::sync::Arc::make_mut(h).kubernetes = None;
    }
}

#[test]
fn netplan_sends_each_nic_port_through_its_own_leaf() {
    for c in cases() {
        let (model, files) = render_with(c.file, &c.edits, without_kubernetes);
        let at = format!("{} {:?}", c.file, c.edits);
        let switches = switch_addresses(&model);
        let cabled = cabling(&model);
        let mut seen: BTreeSet<Ipv4Addr> = BTreeSet::new();
        let (mut ports, mut servers) = (0, 0);
        for f in files
            .iter()
            .filter(|f| f.path.starts_with("hosts/netplan/"))
        {
            let server = f.path["hosts/netplan/".len()..].trim_end_matches(".yaml");
            let doc: Value = serde_norway::from_str(&f.content).expect("netplan YAML");
            let eths = doc["network"]["ethernets"].as_object().expect("ethernets");
            let mut tables = BTreeSet::new();
            let mut leaves = BTreeSet::new();
            for (nic, e) in eths {
                let (leaf, _) = cabled[&(server.to_string(), nic.clone())];
                leaves.insert(leaf.hostname.as_str());
                let addr = strings(&e["addresses"])[0];
                let net: ipnetwork::Ipv4Network = addr.parse().expect("address");
                let ip = net.ip();
                assert!(seen.insert(ip), "{server} {nic}: {ip} used twice");
                assert!(
                    !switches.contains(&ip),
                    "{server} {nic}: {ip} is a switch address"
                );
                let gw: Ipv4Addr = e["routes"][1]["via"]
                    .as_str()
                    .expect("via")
                    .parse()
                    .expect("via");
                let leaf_side = leaf
                    .interfaces
                    .iter()
                    .find(|i| *i.peer == *server && *i.peer_port == **nic)
                    .expect("leaf port");
                match &leaf.server_subnet {
                    Some(s) => {
                        assert_eq!(gw, s.gateway_ip, "{server} {nic}");
                        assert_eq!(net.prefix(), s.prefix_len, "{server} {nic}");
                    }
                    None => {
                        assert_eq!(Some(gw), leaf_side.ip, "{server} {nic}");
                        assert_eq!(Some(ip), leaf_side.peer_ip, "{server} {nic}");
                        assert_eq!(net.prefix(), 31, "{server} {nic}");
                    }
                }
                assert!(net.contains(gw), "{server} {nic}: gateway off the subnet");
                let routes = e["routes"].as_array().expect("routes");
                let table = &e["routes"][1]["table"];
                for r in &routes[1..] {
                    assert_eq!(r["via"], gw.to_string(), "{server} {nic}");
                    assert_eq!(&r["table"], table, "{server} {nic}");
                    assert!(within(&r["to"], c.pool), "{server} {nic}: {}", r["to"]);
                }
                if leaf.plane.is_none() {
                    assert_eq!(routes.len(), 2, "{server} {nic}");
                    assert_eq!(e["routes"][1]["to"], c.pool);
                }
                assert_eq!(&e["routes"][0]["table"], table);
                assert_eq!(e["routing-policy"][0]["table"], *table);
                assert_eq!(e["routing-policy"][0]["from"], ip.to_string());
                assert_eq!(e["mtu"], c.mtu);
                assert!(
                    tables.insert(table.as_u64().expect("table")),
                    "{server}: table twice"
                );
                ports += 1;
            }
            assert_eq!(eths.len(), c.ports, "{at} {server}");
            // A rack leaf takes all of a server's ports; else each port has its own leaf (rails, and
            // the two planes or sides of a two-port NIC).
            let want_leaves = if c.file == META { 1 } else { c.ports };
            assert_eq!(leaves.len(), want_leaves, "{at} {server}: {leaves:?}");
            servers += 1;
        }
        assert_eq!(servers, c.servers, "{at}");
        assert_eq!(ports, c.servers * c.ports, "{at}");
    }
}

/// With Kubernetes, a routed port's only server address is its pod's (the port's SpiderIPPool): the
/// netplan file gives the port its MTU and no address, route or rule; a rail-subnet port keeps its own
/// address beside the pods'.
#[test]
fn routed_ports_leave_their_address_to_the_pod() {
    for c in cases() {
        let (model, files) = render_file(c.file, &c.edits);
        let at = format!("{} {:?}", c.file, c.edits);
        let cabled = cabling(&model);
        let pooled: BTreeSet<String> = spiderpool_docs(&files)
            .iter()
            .filter(|d| d["kind"] == "SpiderIPPool")
            .flat_map(|d| {
                strings(&d["spec"]["ips"])
                    .into_iter()
                    .map(String::from)
                    .collect::<Vec<_>>()
            })
            .collect();
        let mut routed = 0;
        for f in files
            .iter()
            .filter(|f| f.path.starts_with("hosts/netplan/"))
        {
            let server = f.path["hosts/netplan/".len()..].trim_end_matches(".yaml");
            let doc: Value = serde_norway::from_str(&f.content).expect("netplan YAML");
            for (nic, e) in doc["network"]["ethernets"].as_object().expect("ethernets") {
                let (leaf, _) = cabled[&(server.to_string(), nic.clone())];
                assert_eq!(e["mtu"], c.mtu, "{at} {server} {nic}");
                if leaf.server_subnet.is_some() {
                    assert!(e["addresses"].is_array(), "{at} {server} {nic}: {e}");
                    continue;
                }
                let keys: Vec<&String> = e.as_object().expect("port").keys().collect();
                assert_eq!(keys, ["mtu"], "{at} {server} {nic}");
                let port = leaf
                    .interfaces
                    .iter()
                    .find(|i| *i.peer == *server && *i.peer_port == **nic)
                    .and_then(|i| i.peer_ip)
                    .expect("the server's /31 address");
                assert!(
                    pooled.contains(&port.to_string()),
                    "{at} {server} {nic}: {port} in no pool"
                );
                routed += 1;
            }
        }
        let subnets = model.devices.iter().any(|d| d.server_subnet.is_some());
        assert_eq!(routed == 0, subnets, "{at}: {routed} routed ports");
    }
}

/// Every netdev of a two-port NIC gets the NIC QoS (the script loops over both ports).
#[test]
fn nic_qos_runs_on_every_port() {
    let (_, files) = render_file(HPN, &[]);
    let script = files
        .iter()
        .find(|f| f.path == "hosts/nic-qos.sh")
        .expect("nic-qos.sh");
    assert!(
        script
            .content
            .contains("for nic in 'eth0p1' 'eth0p2' 'eth1p1' 'eth1p2'"),
        "{}",
        script.content
    );
}

#[test]
fn without_the_section_no_host_file_is_written() {
    let (_, files) = common::render("intents/pod1-1024.yaml");
    assert!(files.iter().all(|f| !f.path.starts_with("hosts/")));
    let (_, files) = render_edited(&[(
        "hosts:\n  nic: connectx",
        "hosts:\n  enabled: false\n  nic: connectx",
    )]);
    assert!(files.iter().all(|f| !f.path.starts_with("hosts/")));
}

#[test]
fn no_name_reaches_a_host_file_unchecked() {
    // A NIC name that check_token accepts (`:`) but no Linux interface can have.
    let text = std::fs::read_to_string(MIXED)
        .expect("read")
        .replace("server_nic: \"eth{nic}\"", "server_nic: \"eth:{nic}\"");
    let intent: aifab::intent::Intent = serde_norway::from_str(&text).expect("intent");
    let model = aifab::compile::compile(&intent, Catalog::builtin()).expect("compile");
    let err = aifab::render::hosts::files(&Meta::new("x.yaml", "f"), &model)
        .expect_err("refused")
        .to_string();
    assert!(err.contains("eth:0"), "{err}");
    assert_eq!(aifab::hosts::name_rules(&model).len(), 1);
}

#[test]
fn one_file_per_server_and_the_shared_files() {
    let (model, files) = common::render(MIXED);
    let hosts: Vec<&str> = files
        .iter()
        .filter(|f| f.path.starts_with("hosts/"))
        .map(|f| f.path.as_str())
        .collect();
    assert_eq!(hosts.len(), model.summary.servers as usize + 4, "{hosts:?}");
    for shared in [
        "hosts/nic-qos.sh",
        "hosts/nccl.env",
        "hosts/kubernetes/spiderpool.yaml",
        "hosts/kubernetes/nccl.yaml",
    ] {
        assert!(hosts.contains(&shared), "{shared}");
    }
    assert!(
        files
            .iter()
            .filter(|f| f.path.starts_with("hosts/"))
            .all(|f| f.device.is_empty())
    );
}

/// A server with several NIC ports in one subnet (rack leaves in rail-subnet mode) gets the ARP
/// sysctls; one whose ports all have subnets of their own does not.
#[test]
fn arp_settings_only_where_ports_share_a_subnet() {
    let arp = |files: &[OutFile]| {
        files
            .iter()
            .find(|f| f.path == "hosts/sysctl-arp.conf")
            .map(|f| f.content.clone())
    };
    let (_, files) = render_file(META, &[META_SUBNETS]);
    let text = arp(&files).expect("rack leaves in rail-subnet mode: ARP settings");
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(
        lines,
        [
            "net.ipv4.conf.all.arp_ignore = 1",
            "net.ipv4.conf.all.arp_announce = 2"
        ]
    );
    // A /31 per port, or one rail leaf per NIC: no two ports share a subnet.
    for (file, edits) in [(META, vec![]), (MIXED, vec![]), (HPN, vec![HPN_SUBNETS])] {
        let (_, files) = render_file(file, &edits);
        assert_eq!(arp(&files), None, "{file} {edits:?}");
    }
}

/// `--only` renders no host file (they need every server link): `--out` keeps the previous ones and
/// `--check` leaves them out of the comparison.
#[test]
fn only_keeps_the_host_files() {
    let scratch = common::Scratch::new("hosts-only");
    let dir = scratch.join("out");
    let out = dir.to_string_lossy().into_owned();
    let full = common::aifab(&["render", MIXED, "--out", &out, "-q"]);
    assert_eq!(full.status.code(), Some(0), "{full:?}");
    let before = std::fs::read_to_string(dir.join("hosts/nic-qos.sh")).expect("nic-qos.sh");
    let only = common::aifab(&["render", MIXED, "--out", &out, "--only", "g1-rail1", "-q"]);
    assert_eq!(only.status.code(), Some(0), "{only:?}");
    let after = std::fs::read_to_string(dir.join("hosts/nic-qos.sh")).expect("kept");
    assert_eq!(before, after);
    // The kept host files may be stale: the render says so, even with -q.
    let said = String::from_utf8_lossy(&only.stderr);
    assert!(
        said.contains("--only renders no host file")
            && said.contains("hosts is the last full render's"),
        "{said}"
    );
    // With the section switched off, the kept folder is stale whatever changed: said too.
    let text = std::fs::read_to_string(MIXED).expect("read");
    let off = scratch.join("off.yaml");
    std::fs::write(
        &off,
        text.replacen("hosts:\n", "hosts:\n  enabled: false\n", 1),
    )
    .expect("write");
    let off = off.to_string_lossy().into_owned();
    let only_off = common::aifab(&[
        "render",
        &off,
        "--out",
        &out,
        "--only",
        "g1-rail1",
        "-q",
        "--no-lock",
    ]);
    assert_eq!(only_off.status.code(), Some(0), "{only_off:?}");
    let said = String::from_utf8_lossy(&only_off.stderr);
    assert!(said.contains("this intent writes no host files"), "{said}");
    assert!(dir.join("hosts/netplan/gpu032.yaml").exists());
    let check = common::aifab(&[
        "render",
        MIXED,
        "--check",
        "golden/mixed-sonic-nxos",
        "--only",
        "g1-rail1",
        "-q",
    ]);
    assert_eq!(check.status.code(), Some(0), "{check:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The NIC script is valid POSIX shell (`sh -n`) and quotes every NIC name.
#[test]
fn the_nic_script_parses_as_shell() {
    let (_, files) = common::render(MIXED);
    let script = files
        .iter()
        .find(|f| f.path == "hosts/nic-qos.sh")
        .expect("nic-qos.sh");
    assert!(script.content.starts_with("#!/bin/sh\n"));
    assert!(script.content.contains("for nic in 'eth0' 'eth1'"));
    let scratch = common::Scratch::new("hosts-nic-qos");
    let path = scratch.join("nic-qos.sh");
    std::fs::write(&path, &script.content).expect("write");
    let out = std::process::Command::new("sh")
        .arg("-n")
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    let out = out.expect("run sh");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The shared file `path` of a render.
/// Pods read NCCL's variables from a ConfigMap: every line of `nccl.env` but `NCCL_IB_HCA` (the host's
/// device names), with the same values; without Kubernetes there is no ConfigMap.
#[test]
fn pods_get_ncclenv_as_a_configmap_without_the_host_devices() {
    for file in [MIXED, HPN, META] {
        let (_, files) = common::render(file);
        let env: BTreeMap<String, String> = shared_file(&files, "hosts/nccl.env")
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split_once('='))
            .filter(|(k, _)| *k != "NCCL_IB_HCA")
            // A macvlan pod's GIDs are not at the host's index: NCCL finds its own.
            .filter(|(k, _)| !(file == META && *k == "NCCL_IB_GID_INDEX"))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let doc: Value = serde_norway::from_str(shared_file(&files, "hosts/kubernetes/nccl.yaml"))
            .expect("ConfigMap YAML");
        assert_eq!(doc["apiVersion"], "v1", "{file}");
        assert_eq!(doc["kind"], "ConfigMap", "{file}");
        assert_eq!(doc["metadata"]["name"], "aifab-nccl", "{file}");
        let data: BTreeMap<String, String> =
            serde_json::from_value(doc["data"].clone()).expect("string data");
        assert!(data.contains_key("NCCL_IB_TC"), "{file}");
        assert_eq!(data, env, "{file}");
    }
    let (_, files) = render_with(MIXED, &[], without_kubernetes);
    assert!(
        files
            .iter()
            .all(|f| !f.path.starts_with("hosts/kubernetes/"))
    );
}

fn shared_file<'f>(files: &'f [OutFile], path: &str) -> &'f str {
    &files
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("no {path}"))
        .content
}

/// `hosts.nccl.hca` gives NCCL exactly one RDMA device per NIC port (two-port NICs: one per port), as
/// whole names (`=`) on port 1, and the NIC script's check of each device against its port's netdev
/// passes on a sysfs where each device is its port's and fails, naming the device, where two are
/// swapped.
#[test]
fn nccl_gets_one_rdma_device_per_nic_port_and_the_script_checks_them() {
    let (model, files) = common::render(HPN);
    let env = shared_file(&files, "hosts/nccl.env");
    let hca = env
        .lines()
        .find_map(|l| l.strip_prefix("NCCL_IB_HCA="))
        .expect("NCCL_IB_HCA");
    let exact = hca.strip_prefix('=').expect("an exact list (`=`)");
    let devices: Vec<&str> = exact
        .split(',')
        .map(|d| d.strip_suffix(":1").expect("port 1 of each device"))
        .collect();
    let distinct: BTreeSet<&str> = devices.iter().copied().collect();
    let first = model
        .links
        .iter()
        .find(|l| l.tier == LinkTier::ServerLeaf)
        .expect("a server link");
    let ports_per_server = model
        .links
        .iter()
        .filter(|l| l.tier == LinkTier::ServerLeaf && l.a == first.a)
        .count();
    assert_eq!(ports_per_server, 4, "HPN: 2 NICs x 2 ports");
    assert_eq!(devices.len(), ports_per_server, "{hca}");
    assert_eq!(distinct.len(), devices.len(), "{hca}");

    let script = shared_file(&files, "hosts/nic-qos.sh");
    let netdevs: Vec<&str> = script
        .lines()
        .find_map(|l| l.strip_prefix("for nic in "))
        .expect("the NIC loop")
        .trim_end_matches("; do")
        .split(' ')
        .map(|n| n.trim_matches('\''))
        .collect();
    let checks: Vec<(&str, &str)> = script
        .lines()
        .filter_map(|l| l.strip_prefix("hca '"))
        .map(|l| {
            let (dev, nic) = l.split_once("' '").expect("hca 'dev' 'nic'");
            (dev, nic.trim_end_matches('\''))
        })
        .collect();
    // The n-th device is the n-th netdev's, in the order the NIC loop (and netplan) lists the ports.
    let pairs: Vec<(&str, &str)> = devices.iter().copied().zip(netdevs.clone()).collect();
    assert_eq!(checks, pairs);

    let check_with = |tree: &[(&str, &str)]| {
        let scratch = common::Scratch::new("hosts-hca");
        for (dev, nic) in tree {
            std::fs::create_dir_all(scratch.join(dev).join("device/net").join(nic)).expect("mkdir");
        }
        let root = scratch.path().to_str().expect("utf-8 path").to_string();
        let body: String = script
            .lines()
            .skip_while(|l| !l.starts_with("hca() "))
            .map(|l| format!("{}\n", l.replace("/sys/class/infiniband", &root)))
            .collect();
        assert!(body.starts_with("hca() "), "no check function:\n{script}");
        std::process::Command::new("sh")
            .arg("-c")
            .arg(&body)
            .output()
            .expect("run sh")
    };
    let ok = check_with(&pairs);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    // The first two ports' devices the other way round, as a server that enumerated them so would be.
    let mut swapped = pairs.clone();
    swapped[0].0 = pairs[1].0;
    swapped[1].0 = pairs[0].0;
    let bad = check_with(&swapped);
    assert!(!bad.status.success(), "a swapped device passed the check");
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains(pairs[0].0) && err.contains("hosts.nccl.hca"),
        "{err}"
    );
}

/// Without `hosts.nccl.hca`, NCCL finds its devices itself: no NCCL_IB_HCA and no device check.
#[test]
fn without_hca_nccl_picks_its_devices() {
    let (_, files) = common::render(META);
    assert!(!shared_file(&files, "hosts/nccl.env").contains("NCCL_IB_HCA"));
    let script = shared_file(&files, "hosts/nic-qos.sh");
    assert!(
        !script.contains("hca()") && !script.contains("hca '"),
        "{script}"
    );
}

/// Connections made through RDMA CM (perftest `-R`, UCX, MPI, NVMe-oF) get the data class's ToS by
/// default: the script writes DSCP x 4 into the rdma_cm configfs `default_roce_tos` of every RDMA
/// device of every NIC port, and stops, naming the port, when a port has no RDMA device.
#[test]
fn rdma_cm_connections_default_to_the_lossless_class() {
    let (_, files) = common::render(HPN);
    let script = shared_file(&files, "hosts/nic-qos.sh");
    let tc: u16 = shared_file(&files, "hosts/nccl.env")
        .lines()
        .find_map(|l| l.strip_prefix("NCCL_IB_TC="))
        .expect("NCCL_IB_TC")
        .parse()
        .expect("a number");
    assert_eq!(tc, 26 * 4, "HPN's roce class is DSCP 26");
    let block: String = script
        .lines()
        .skip_while(|l| !l.starts_with("# RDMA CM"))
        .take_while(|l| !l.starts_with("# NCCL_IB_HCA"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(block.contains("default_roce_tos"), "{script}");
    let run = |devices: &[(&str, &str)]| {
        let scratch = common::Scratch::new("hosts-rdma-cm");
        let (net, cfg) = (scratch.join("net"), scratch.join("config"));
        for (nic, dev) in devices {
            std::fs::create_dir_all(net.join(nic).join("device/infiniband").join(dev))
                .expect("mkdir");
            std::fs::create_dir_all(cfg.join("rdma_cm").join(dev).join("ports/1")).expect("mkdir");
        }
        for nic in ["eth0p1", "eth0p2", "eth1p1", "eth1p2"] {
            std::fs::create_dir_all(net.join(nic).join("device")).expect("mkdir");
        }
        // modprobe and mountpoint as on a server where both are done already.
        let body = format!(
            "modprobe() {{ :; }}\nmountpoint() {{ return 0; }}\n{}",
            block
                .replace("/sys/class/net", net.to_str().expect("utf-8"))
                .replace("/sys/kernel/config", cfg.to_str().expect("utf-8"))
        );
        let out = std::process::Command::new("sh")
            .args(["-eu", "-c", &body])
            .output()
            .expect("run sh");
        let tos: Vec<String> = devices
            .iter()
            .map(|(_, dev)| {
                std::fs::read_to_string(
                    cfg.join("rdma_cm")
                        .join(dev)
                        .join("ports/1/default_roce_tos"),
                )
                .unwrap_or_default()
            })
            .collect();
        (out, tos)
    };
    let all = [
        ("eth0p1", "mlx5_0"),
        ("eth0p2", "mlx5_1"),
        ("eth1p1", "mlx5_2"),
        ("eth1p2", "mlx5_3"),
    ];
    let (out, tos) = run(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(tos.iter().all(|t| t.trim() == tc.to_string()), "{tos:?}");
    let (out, _) = run(&all[..3]);
    assert!(
        !out.status.success(),
        "a port without an RDMA device passed"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("eth1p2: no RDMA device"), "{err}");
}

mod files;
