//! The interface templates of a device type: every front-panel port of the platform, named and typed
//! as the fabric's devices of that type use it (a broken-out port as its children, by the names the
//! render gives them, typed by the child's speed; a port no device uses by its own name at the
//! platform's top native speed), and the management port. A device Nautobot makes of the type gets
//! them as interfaces, so the per-device sync adjusts them (description, MTU, tag) instead of
//! creating every one.

use super::{Kind, Object, Value};
use crate::model::FabricModel;
use crate::platform::Platform;
use std::collections::{BTreeMap, BTreeSet};

/// The key of a device type's interface template: `<model>:<name>`.
pub fn key(device_type: &str, name: &str) -> String {
    format!("{device_type}:{name}")
}

/// The templates of the device type `platform` (the catalog profile `p`), from the ports the
/// fabric's devices of that platform use.
pub fn of(model: &FabricModel, platform: &str, p: &Platform, mgmt_type: &str) -> Vec<Object> {
    let names = p.port_names();
    // Per front-panel port, the names it goes by on the fabric's devices, with their speed.
    let mut used: BTreeMap<u32, BTreeMap<&str, u32>> = BTreeMap::new();
    for d in model.devices.iter().filter(|d| d.platform == platform) {
        for i in &d.interfaces {
            if let Some(port) = names.port(&i.name) {
                used.entry(port).or_default().insert(&*i.name, i.speed_gbps);
            }
        }
    }
    let native = p.ports.speeds.iter().map(|s| s.gbps()).max().unwrap_or(0);
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for port in 1..=p.ports.count {
        let mine: Vec<(String, u32)> = match used.get(&port) {
            Some(m) => m.iter().map(|(n, g)| (n.to_string(), *g)).collect(),
            None => vec![(p.interface_name(port), native)],
        };
        for (name, gbps) in mine {
            if seen.insert(name.clone()) {
                out.push(template(platform, &name, port_type(gbps), false));
            }
        }
    }
    if seen.insert(p.management_interface.clone()) {
        out.push(template(platform, &p.management_interface, mgmt_type, true));
    }
    out
}

/// One template: created when missing, never changed (device types are shared).
fn template(device_type: &str, name: &str, kind: &str, mgmt_only: bool) -> Object {
    Object::new(Kind::InterfaceTemplate, key(device_type, name))
        .with_create("device_type", Value::r(Kind::DeviceType, device_type))
        .with_create("name", Value::str(name))
        .with_create("type", Value::str(kind))
        .with_create("mgmt_only", Value::Bool(mgmt_only))
}

/// The Nautobot interface type of a front-panel port of `gbps`.
pub fn port_type(gbps: u32) -> &'static str {
    match gbps {
        0..=1 => "1000base-x-sfp",
        2..=10 => "10gbase-x-sfpp",
        11..=25 => "25gbase-x-sfp28",
        26..=40 => "40gbase-x-qsfpp",
        41..=50 => "50gbase-x-sfp56",
        51..=100 => "100gbase-x-qsfp28",
        101..=200 => "200gbase-x-qsfp56",
        201..=400 => "400gbase-x-qsfpdd",
        _ => "800gbase-x-osfp",
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use crate::dcim::{Kind, Object, Value};
    use crate::model::FabricModel;

    /// An example intent, compiled.
    pub(crate) fn example(name: &str) -> FabricModel {
        example_with(name, |t| t)
    }

    /// An example intent edited by `edit` (its text), compiled.
    pub(crate) fn example_with(name: &str, edit: impl Fn(String) -> String) -> FabricModel {
        let path = format!("{}/intents/{name}.yaml", env!("CARGO_MANIFEST_DIR"));
        let text = edit(std::fs::read_to_string(&path).expect("read intent"));
        let intent: crate::intent::Intent = serde_norway::from_str(&text).expect("parse intent");
        crate::compile::compile(&intent, crate::platform::Catalog::builtin()).expect("compiles")
    }

    fn name(o: &Object) -> &str {
        match &o.create_only["name"] {
            Value::Str(s) => s,
            _ => "",
        }
    }

    #[test]
    fn every_port_the_fabric_uses_is_a_template_by_its_rendered_name_and_speed() {
        let m = example("breakout-small");
        let catalog = crate::platform::Catalog::builtin();
        let platform = &m.devices[0].platform;
        let (_, p) = catalog.get(platform).expect("platform");
        let t = super::of(&m, platform, p, "1000base-t");
        assert!(t.iter().all(|o| o.kind == Kind::InterfaceTemplate));
        let by: std::collections::BTreeMap<&str, &Value> = t
            .iter()
            .map(|o| (name(o), &o.create_only["type"]))
            .collect();
        let mut broken_out = 0;
        for d in m.devices.iter().filter(|x| &x.platform == platform) {
            for i in &d.interfaces {
                let want = Value::str(super::port_type(i.speed_gbps));
                assert_eq!(by.get(&*i.name), Some(&&want), "{}:{}", d.hostname, i.name);
                broken_out += usize::from(
                    p.port_names()
                        .port(&i.name)
                        .is_some_and(|n| *p.interface_name(n) != *i.name),
                );
            }
        }
        assert!(broken_out > 0, "breakout-small breaks ports out");
        let mgmt: Vec<&str> = t
            .iter()
            .filter(|o| o.create_only["mgmt_only"] == Value::Bool(true))
            .map(name)
            .collect();
        assert_eq!(mgmt, [p.management_interface.as_str()]);
        // A port no device uses is a template by its own name.
        let last = p.interface_name(p.ports.count);
        let used = m.devices.iter().any(|d| {
            d.interfaces
                .iter()
                .any(|i| p.port_names().port(&i.name) == Some(p.ports.count))
        });
        assert!(used || by.contains_key(last.as_str()), "{last}");
    }
}
