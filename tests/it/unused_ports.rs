//! Unused ports: on every device of every example, the front-panel ports the rendered config brings up
//! and the ones it shuts (description `aifab: unused`) are together exactly the platform's port list,
//! read back from the rendered files (CLI configs and config_db.json alike).

use crate::common;

use aifab::platform::Catalog;
use aifab::render::OutFile;
use std::collections::{BTreeMap, BTreeSet};

/// Front-panel ports of a rendered file: (up, shut) interface names.
#[derive(Default, Debug)]
struct Ports {
    up: BTreeSet<String>,
    shut: BTreeSet<String>,
}

impl Ports {
    fn add(&mut self, name: &str, up: bool, shut: bool, description: &str, file: &str) {
        assert!(up != shut, "{file}: {name} is neither clearly up nor shut");
        if shut {
            assert_eq!(description, "aifab: unused", "{file}: {name}");
        }
        let set = if up { &mut self.up } else { &mut self.shut };
        assert!(set.insert(name.to_string()), "{file}: {name} twice");
    }
}

/// The `interface Ethernet...` blocks of a NX-OS or EOS config.
fn cli_ports(f: &OutFile) -> Ports {
    let mut ports = Ports::default();
    let mut lines = f.content.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(name) = line.strip_prefix("interface Ethernet") else {
            continue;
        };
        let (mut up, mut shut, mut description) = (false, false, String::new());
        while let Some(body) = lines.next_if(|l| l.starts_with(' ')) {
            match body.trim() {
                "no shutdown" => up = true,
                "shutdown" => shut = true,
                t => {
                    if let Some(d) = t.strip_prefix("description ") {
                        description = d.to_string();
                    }
                }
            }
        }
        ports.add(&format!("Ethernet{name}"), up, shut, &description, &f.path);
    }
    ports
}

/// The PORT table of a config_db.json.
fn sonic_ports(f: &OutFile) -> Ports {
    let db: serde_json::Value = serde_json::from_str(&f.content).expect("json");
    let mut ports = Ports::default();
    for (name, row) in db["PORT"].as_object().expect("PORT table") {
        let admin = row["admin_status"].as_str().unwrap_or("");
        let description = row["description"].as_str().unwrap_or("");
        ports.add(name, admin == "up", admin == "down", description, &f.path);
    }
    ports
}

#[test]
fn every_front_panel_port_is_used_or_shut() {
    let catalog = Catalog::builtin();
    let mut checked = 0;
    for path in common::example_and_extra_intents() {
        let (model, files) = common::render(&path);
        let mut by_device: BTreeMap<&str, Ports> = BTreeMap::new();
        for f in &files {
            let ports = if f.path.ends_with(".cfg") {
                cli_ports(f)
            } else if f.path.ends_with("config_db.json") {
                sonic_ports(f)
            } else {
                continue;
            };
            assert!(by_device.insert(&f.device, ports).is_none(), "{}", f.path);
        }
        for d in &model.devices {
            let ports = by_device
                .get(d.hostname.as_str())
                .unwrap_or_else(|| panic!("{path}: no config for {}", d.hostname));
            let pf = &catalog.get(&d.platform).expect("platform").1;
            // The platform's ports in the device's modes: each front-panel port, or its children.
            let mut all = BTreeSet::new();
            for port in 1.. {
                let Some(at) = d.locate(port) else { break };
                if at.panel > pf.ports.count {
                    break;
                }
                assert!(
                    all.insert(pf.child_name(at.panel, at.child, at.children)),
                    "{path}: {}: port {port}'s name twice",
                    d.hostname
                );
            }
            let used: BTreeSet<String> = d.interfaces.iter().map(|i| i.name.to_string()).collect();
            assert_eq!(ports.up, used, "{path}: {}: ports brought up", d.hostname);
            assert!(ports.up.is_disjoint(&ports.shut), "{}", d.hostname);
            let union: BTreeSet<String> = ports.up.union(&ports.shut).cloned().collect();
            assert_eq!(union, all, "{path}: {}: used + shut ports", d.hostname);
            checked += 1;
        }
    }
    assert!(checked > 50, "only {checked} devices checked");
}

#[test]
fn a_partly_used_leaf_shuts_the_rest() {
    // At least one example device really has unused ports, and they come after the used ones in the
    // same interface list (so the assertion above is not vacuous).
    let (model, _) = common::render("intents/three-tier-small.yaml");
    let d = model
        .devices
        .iter()
        .find(|d| !d.unused_ports.is_empty() && !d.interfaces.is_empty())
        .expect("a device with unused ports");
    let first_unused = d.unused_ports[0].port;
    assert!(d.interfaces.iter().all(|i| i.port != first_unused));
}
