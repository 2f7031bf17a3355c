//! The two YAML host files read back: every netplan file into netplan's serde types and into a plain
//! YAML value, every Spiderpool document into Spiderpool's, each equal to the model the render built
//! them from, in every addressing mode, CNI and homing the examples have; and `netplan generate` (the
//! Debian package netplan.io) turns every netplan file into the systemd-networkd settings of that model.

use super::{HPN, HPN_SUBNETS, MACVLAN, META, META_SUBNETS, MIXED, ROUTED, render_file};
use crate::common;
use aifab::hosts::routes::Destinations;
use aifab::hosts::{Server, servers};
use aifab::model::FabricModel;
use aifab::render::OutFile;
use aifab::render::hosts::netplan::{self, Netplan};
use aifab::render::hosts::spiderpool::{self, IpPool, MultusConfig};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The examples and edits that between them have every kind of host file: rail subnets with SR-IOV
/// or macvlan, routed ports (addresses taken by pods), two-port NICs on two planes, rack leaves.
fn variants() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    vec![
        (MIXED, vec![]),
        (MIXED, vec![MACVLAN]),
        (MIXED, vec![ROUTED]),
        (HPN, vec![]),
        (HPN, vec![HPN_SUBNETS]),
        (META, vec![]),
        (META, vec![META_SUBNETS]),
    ]
}

fn by_path(files: &[OutFile]) -> BTreeMap<&str, &str> {
    files
        .iter()
        .map(|f| (f.path.as_str(), f.content.as_str()))
        .collect()
}

/// The servers and their route destinations, as the render works them out.
fn servers_of(model: &FabricModel) -> (Vec<Server<'_>>, Destinations) {
    let plan = model.hosts.as_deref().expect("a host plan");
    let servers = servers(model).expect("servers");
    let dest = Destinations::of(plan, &servers);
    (servers, dest)
}

#[test]
fn every_netplan_file_reads_back_as_its_model() {
    for (path, edits) in variants() {
        let (model, files) = render_file(path, &edits);
        let files = by_path(&files);
        let plan = model.hosts.as_deref().expect("a host plan");
        let (servers, dest) = servers_of(&model);
        for s in &servers {
            let at = format!("{path} {edits:?} {}", s.name);
            let text = files[format!("hosts/netplan/{}.yaml", s.name).as_str()];
            let expected = netplan::model(plan, &dest, s);
            let typed: Netplan =
                serde_norway::from_str(text).unwrap_or_else(|e| panic!("{at}: {e}"));
            assert_eq!(typed, expected, "{at}");
            let generic: serde_norway::Value = serde_norway::from_str(text).expect("YAML");
            assert_eq!(
                generic,
                serde_norway::to_value(&expected).expect("value"),
                "{at}"
            );
            // The comment block: the header, where to install it, one line per NIC port naming it.
            let comments: Vec<&str> = text.lines().take_while(|l| l.starts_with("# ")).collect();
            assert_eq!(comments.len(), 2 + s.nics.len(), "{at}: {comments:?}");
            for (line, n) in comments[2..].iter().zip(&s.nics) {
                assert!(
                    line.starts_with(&format!("# {}: rail {}", n.name, n.rail)),
                    "{at}: {line}"
                );
                assert!(
                    line.contains(&format!(" to {}", n.leaf.hostname)),
                    "{at}: {line}"
                );
            }
            assert!(
                text[comments.iter().map(|l| l.len() + 1).sum::<usize>()..]
                    .starts_with("network:\n")
            );
        }
    }
}

/// One object of the Spiderpool file.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Object {
    Pool(IpPool<'static>),
    Config(MultusConfig<'static>),
}

#[test]
fn every_spiderpool_object_reads_back_as_its_model() {
    for (path, edits) in variants() {
        let (model, files) = render_file(path, &edits);
        let at = format!("{path} {edits:?}");
        let text = by_path(&files)["hosts/kubernetes/spiderpool.yaml"];
        let plan = model.hosts.as_deref().expect("a host plan");
        let k = plan.kubernetes.as_ref().expect("kubernetes");
        let (servers, dest) = servers_of(&model);
        let expected = spiderpool::objects(plan, k, &dest, &servers).expect("objects");
        let (mut pools, mut configs) = (Vec::new(), Vec::new());
        for doc in serde_norway::Deserializer::from_str(text) {
            match Object::deserialize(doc).unwrap_or_else(|e| panic!("{at}: {e}")) {
                Object::Pool(p) => pools.push(p),
                Object::Config(c) => configs.push(c),
            }
        }
        assert!(!pools.is_empty() && !configs.is_empty(), "{at}");
        assert_eq!(pools, expected.pools, "{at}");
        assert_eq!(configs, expected.configs, "{at}");
        assert!(text.starts_with("# aifab: Spiderpool rails"), "{at}");
    }
}

/// `netplan`, on PATH or in /usr/sbin (root's PATH only has it there).
fn netplan_binary() -> Option<PathBuf> {
    common::find_tool("netplan").or_else(|| {
        let p = PathBuf::from("/usr/sbin/netplan");
        p.is_file().then_some(p)
    })
}

/// The sections of a systemd-networkd file in order, each with its `key=value` lines.
fn sections(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        match line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            Some(name) => out.push((name.to_string(), Vec::new())),
            None => out
                .last_mut()
                .expect("a section first")
                .1
                .push(line.to_string()),
        }
    }
    out
}

/// What systemd-networkd must get for one port of the model: its `[Route]` and `[RoutingPolicyRule]`
/// sections (every key), and the address and MTU lines.
fn expected_network(port: &netplan::Ethernet) -> (Vec<(String, Vec<String>)>, Vec<String>) {
    let mut want = Vec::new();
    for r in &port.routes {
        let mut keys = vec![format!("Destination={}", r.to)];
        if let Some(via) = r.via {
            keys.push(format!("Gateway={via}"));
        }
        if r.on_link == Some(true) {
            keys.push("GatewayOnLink=true".to_string());
        }
        if r.scope.is_some() {
            keys.push("Scope=link".to_string());
        }
        keys.push(format!("Table={}", r.table));
        want.push(("Route".to_string(), keys));
    }
    for rule in &port.routing_policy {
        let keys = vec![
            format!("From={}", rule.from),
            format!("Table={}", rule.table),
        ];
        want.push(("RoutingPolicyRule".to_string(), keys));
    }
    let mut lines: Vec<String> = port
        .addresses
        .iter()
        .map(|a| format!("Address={a}"))
        .collect();
    lines.push(format!("MTUBytes={}", port.mtu));
    (want, lines)
}

/// Runs `netplan generate` on one file in a fresh root and returns the folder of what it wrote.
fn generate(netplan: &Path, root: &Path, text: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt as _;
    let etc = root.join("etc/netplan");
    std::fs::create_dir_all(&etc).expect("mkdir");
    let file = etc.join("60-aifab-rails.yaml");
    std::fs::write(&file, text).expect("write");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let out = std::process::Command::new(netplan)
        .arg("generate")
        .arg("--root-dir")
        .arg(root)
        .output()
        .expect("run netplan");
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "netplan generate refused {}:\n{}\n{text}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    root.join("run/systemd/network")
}

#[test]
fn netplan_generate_writes_each_ports_model() {
    let netplan = netplan_binary();
    if !common::prerequisite(
        netplan.is_some(),
        "netplan generate of the host files",
        "netplan is not installed",
        "apt-get install netplan.io",
    ) {
        return;
    }
    let netplan = netplan.expect("checked");
    let tmp = common::Scratch::new("netplan-generate");
    for (path, edits) in [(MIXED, vec![]), (HPN, vec![]), (META, vec![META_SUBNETS])] {
        let (model, files) = render_file(path, &edits);
        let files = by_path(&files);
        let plan = model.hosts.as_deref().expect("a host plan");
        let (servers, dest) = servers_of(&model);
        // Two servers per example: the first and the last (another leaf, plane or rack).
        for s in [&servers[0], &servers[servers.len() - 1]] {
            let at = format!("{path} {}", s.name);
            let root = tmp.path().join(format!("{}-{}", model.name, s.name));
            let text = files[format!("hosts/netplan/{}.yaml", s.name).as_str()];
            let dir = generate(&netplan, &root, text);
            for (name, port) in &netplan::model(plan, &dest, s).network.ethernets.0 {
                let file = dir.join(format!("10-netplan-{name}.network"));
                let got = sections(
                    &std::fs::read_to_string(&file)
                        .unwrap_or_else(|e| panic!("{at}: {}: {e}", file.display())),
                );
                let (want, lines) = expected_network(port);
                let routing: Vec<_> = got
                    .iter()
                    .filter(|(n, _)| n == "Route" || n == "RoutingPolicyRule")
                    .cloned()
                    .collect();
                assert_eq!(routing, want, "{at} {name}");
                assert!(
                    got.contains(&("Match".to_string(), vec![format!("Name={name}")])),
                    "{at} {name}: {got:?}"
                );
                for line in lines {
                    assert!(
                        got.iter().any(|(_, keys)| keys.contains(&line)),
                        "{at} {name}: no {line} in {got:?}"
                    );
                }
            }
        }
    }
}
