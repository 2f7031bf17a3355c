//! The rail-subnet mode's server VLANs as Nautobot objects: each rail leaf is its own layer-2 domain
//! (its servers' subnet, its `Vlan<id>` gateway), so each gets a VLAN group of its own holding one
//! VLAN of the fabric's server VLAN id, and the leaf's server ports are access ports with that VLAN
//! untagged.
//!
//! Why a group per leaf: Nautobot 2.x makes a VLAN unique by `(vlan_group, vid)` and
//! `(vlan_group, name)`, and not at all without a group (a null group is never equal in SQL). Every
//! rail leaf uses the same id (`server_vlan`), so one group per fabric could hold only one of them;
//! without a group nothing would key them. A group per leaf, named `<fabric>/<leaf>` (group names are
//! unique server-wide), matches what the network is, and gives each VLAN the key
//! `<fabric>/<leaf>:<vid>` that Nautobot itself keeps unique.

use super::{ACTIVE, Kind, Object, Value, tag};
use crate::model::{Device, FabricModel};

/// The key (and name) of a rail leaf's VLAN group: `<fabric>/<leaf>`.
pub fn group_key(fabric: &str, leaf: &str) -> String {
    format!("{fabric}/{leaf}")
}

/// The key of a VLAN: its group's key and its id, `<fabric>/<leaf>:<vid>`.
pub fn key(group: &str, vid: i64) -> String {
    format!("{group}:{vid}")
}

/// The key of the server VLAN of `leaf`, when it is a rail leaf of the rail-subnet mode.
pub fn of_leaf(fabric: &str, leaf: &Device) -> Option<String> {
    leaf.server_subnet
        .as_ref()
        .map(|s| key(&group_key(fabric, &leaf.hostname), i64::from(s.vlan)))
}

/// The VLAN group and VLAN of every rail leaf of the rail-subnet mode (none in the /31 mode).
pub fn plan(model: &FabricModel, out: &mut Vec<Object>) {
    for d in &model.devices {
        let Some(s) = &d.server_subnet else { continue };
        let group = group_key(&model.name, &d.hostname);
        out.push(Object::new(Kind::VlanGroup, &group).with(
            "description",
            Value::str(format!(
                "{}: {}'s server VLANs",
                tag(&model.name),
                d.hostname
            )),
        ));
        out.push(
            Object::new(Kind::Vlan, key(&group, i64::from(s.vlan)))
                .with("name", Value::str(format!("{} servers", d.hostname)))
                .with("status", Value::r(Kind::Status, ACTIVE))
                .with(
                    "description",
                    Value::str(format!("rail server subnet {}", s.prefix)),
                )
                .with_create("vid", Value::Int(i64::from(s.vlan)))
                .with_create("vlan_group", Value::r(Kind::VlanGroup, group)),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::dcim::Settings;
    use crate::dcim::diff::{Options, diff};
    use crate::dcim::store::{Memory, sync};
    use crate::dcim::{Kind, Object, Value, desired};

    fn planned(example: &str) -> (crate::model::FabricModel, Vec<Object>) {
        let m = crate::dcim::templates::tests::example(example);
        let settings = Settings {
            location: "x".into(),
            namespace: "Global".into(),
            servers: false,
        };
        let out = desired(&m, crate::platform::Catalog::builtin(), &settings).expect("plan");
        (m, out)
    }

    /// An in-memory DCIM holding the statuses Nautobot comes with.
    fn store(want: &[Object]) -> Memory {
        let objects = want
            .iter()
            .filter(|o| o.kind == Kind::Status)
            .map(|o| crate::dcim::Existing {
                kind: o.kind,
                key: o.key.clone(),
                id: format!("status-{}", o.key),
                fields: o.fields.clone(),
                tagged: false,
                tag_ids: Vec::new(),
            })
            .collect();
        let mut m = Memory::default();
        m.objects = objects;
        m
    }

    #[test]
    fn each_rail_leaf_has_its_vlan_and_its_server_ports_carry_it_untagged() {
        let (m, out) = planned("mixed-sonic-nxos");
        let leaves: Vec<_> = m
            .devices
            .iter()
            .filter(|d| d.server_subnet.is_some())
            .collect();
        assert!(!leaves.is_empty(), "the example has rail-subnet leaves");
        let vlans: Vec<&Object> = out.iter().filter(|o| o.kind == Kind::Vlan).collect();
        assert_eq!(vlans.len(), leaves.len());
        for d in leaves {
            let s = d.server_subnet.as_ref().expect("rail leaf");
            let vlan = super::of_leaf(&m.name, d).expect("vlan key");
            let o = vlans.iter().find(|o| o.key == vlan).expect("planned");
            assert_eq!(o.create_only["vid"], Value::Int(i64::from(s.vlan)));
            assert_eq!(
                o.fields["name"],
                Value::str(format!("{} servers", d.hostname))
            );
            let group = super::group_key(&m.name, &d.hostname);
            assert_eq!(
                o.create_only["vlan_group"],
                Value::r(Kind::VlanGroup, &group)
            );
            assert!(
                out.iter()
                    .any(|g| g.kind == Kind::VlanGroup && g.key == group)
            );
            let ports: Vec<_> = d.interfaces.iter().filter(|i| i.vlan.is_some()).collect();
            assert!(!ports.is_empty(), "{}: no server ports", d.hostname);
            for i in ports {
                let key = format!("{}:{}", d.hostname, i.name);
                let p = out
                    .iter()
                    .find(|o| o.kind == Kind::Interface && o.key == key)
                    .expect("port planned");
                assert_eq!(p.fields["mode"], Value::str("access"), "{key}");
                assert_eq!(
                    p.fields["untagged_vlan"],
                    Value::r(Kind::Vlan, &vlan),
                    "{key}"
                );
            }
            // The fabric ports stay routed: no mode, no VLAN, both compared (so they are cleared).
            for i in d.interfaces.iter().filter(|i| i.vlan.is_none()) {
                let key = format!("{}:{}", d.hostname, i.name);
                let p = out
                    .iter()
                    .find(|o| o.kind == Kind::Interface && o.key == key)
                    .expect("port planned");
                assert_eq!(p.fields.get("mode"), Some(&Value::Null), "{key}");
                assert_eq!(p.fields.get("untagged_vlan"), Some(&Value::Null), "{key}");
            }
        }
        // VLANs are written before the interfaces that name them.
        assert!(Kind::VlanGroup < Kind::Vlan && Kind::Vlan < Kind::Interface);
    }

    #[test]
    fn each_rail_leafs_server_subnet_is_a_prefix_on_its_vlan_and_resyncs_with_no_write() {
        let (m, want) = planned("mixed-sonic-nxos");
        let mut rails = 0;
        for d in &m.devices {
            let Some(s) = &d.server_subnet else { continue };
            rails += 1;
            let p = want
                .iter()
                .find(|o| o.kind == Kind::Prefix && o.key == s.prefix.to_string())
                .expect("the leaf's subnet is a prefix");
            let vlan = super::of_leaf(&m.name, d).expect("vlan");
            assert_eq!(p.fields["vlan"], Value::r(Kind::Vlan, vlan));
            assert_eq!(p.fields["type"], Value::str("network"));
            assert_eq!(
                p.create_only["namespace"],
                Value::r(Kind::Namespace, "Global")
            );
        }
        let on_vlan = |o: &&Object| o.kind == Kind::Prefix && o.fields["vlan"] != Value::Null;
        assert_eq!(want.iter().filter(on_vlan).count(), rails);
        assert!(rails > 1);
        // The prefixes are written after the VLANs they name, and a re-sync finds them by key.
        assert!(Kind::Vlan < Kind::Prefix);
        let mut store = store(&want);
        let first = sync(&mut store, &want, Options::default(), false).expect("sync");
        assert!(first.changes.kinds[&Kind::Prefix].creates.len() > rails);
        let second = sync(&mut store, &want, Options::default(), false).expect("sync");
        assert_eq!((second.write_requests, second.changes.writes()), (0, 0));
    }

    #[test]
    fn a_rail_subnet_fabric_switched_to_31_clears_its_ports_mode_and_drops_its_vlans() {
        let (_, rail) = planned("mixed-sonic-nxos");
        let mut store = store(&rail);
        sync(&mut store, &rail, Options::default(), false).expect("sync");
        let m = crate::dcim::templates::tests::example_with("mixed-sonic-nxos", |t| {
            t.replace("    server_mode: rail-subnet\n", "")
                .replace("    server_vlan: 100\n", "")
        });
        assert!(m.devices.iter().all(|d| d.server_subnet.is_none()));
        let settings = Settings {
            location: "x".into(),
            namespace: "Global".into(),
            servers: false,
        };
        let routed = desired(&m, crate::platform::Catalog::builtin(), &settings).expect("plan");
        let report = sync(&mut store, &routed, Options::default(), false).expect("sync");
        let was_access = report.changes.kinds[&Kind::Interface]
            .updates
            .iter()
            .filter(|u| u.was.get("mode") == Some(&Value::str("access")))
            .inspect(|u| {
                assert_eq!(u.set["mode"], Value::Null, "{}", u.key);
                assert_eq!(u.set["untagged_vlan"], Value::Null, "{}", u.key);
            })
            .count();
        let ports = rail
            .iter()
            .filter(|o| o.fields.get("mode") == Some(&Value::str("access")))
            .count();
        assert_eq!(was_access, ports);
        assert!(store.objects.iter().all(|e| {
            !matches!(e.kind, Kind::Vlan | Kind::VlanGroup)
                && e.fields.get("mode").is_none_or(|v| *v == Value::Null)
        }));
        let again = sync(&mut store, &routed, Options::default(), false).expect("sync");
        assert_eq!((again.write_requests, again.changes.writes()), (0, 0));
    }

    #[test]
    fn the_default_31_mode_has_no_vlans() {
        let (_, out) = planned("pod1-1024");
        assert!(out.iter().all(|o| {
            !matches!(o.kind, Kind::Vlan | Kind::VlanGroup)
                && o.fields
                    .get("untagged_vlan")
                    .is_none_or(|v| *v == Value::Null)
                && o.fields.get("vlan").is_none_or(|v| *v == Value::Null)
        }));
    }

    #[test]
    fn a_rail_subnet_fabric_synced_twice_writes_nothing_the_second_time() {
        let (_, want) = planned("mixed-sonic-nxos");
        let mut store = store(&want);
        let first = sync(&mut store, &want, Options::default(), false).expect("sync");
        assert!(first.changes.kinds[&Kind::Vlan].creates.len() > 1);
        let second = sync(&mut store, &want, Options::default(), false).expect("sync");
        assert_eq!((second.write_requests, second.changes.writes()), (0, 0));
        // A port's untagged VLAN changed by hand is an update (what `dcim check` reports).
        let port = want
            .iter()
            .find(|o| o.fields.contains_key("untagged_vlan"))
            .expect("a server port");
        let e = store
            .objects
            .iter_mut()
            .find(|e| e.kind == Kind::Interface && e.key == port.key)
            .expect("synced");
        e.fields
            .insert("untagged_vlan".into(), Value::str("id:someone-elses"));
        let c = diff(&want, &store.objects, Options::default());
        let u = &c.kinds[&Kind::Interface].updates;
        assert_eq!(u.len(), 1, "{u:?}");
        assert_eq!(u[0].was["untagged_vlan"], Value::str("id:someone-elses"));
        assert_eq!(u[0].set["untagged_vlan"], port.fields["untagged_vlan"]);
    }

    #[test]
    fn an_untagged_vlan_in_the_way_is_held_with_the_ports_that_name_it() {
        let (_, want) = planned("mixed-sonic-nxos");
        let mut store = store(&want);
        sync(&mut store, &want, Options::default(), false).expect("sync");
        let vlan = store
            .objects
            .iter_mut()
            .find(|e| e.kind == Kind::Vlan)
            .expect("a VLAN");
        vlan.tagged = false;
        let key = vlan.key.clone();
        let c = diff(&want, &store.objects, Options::default());
        assert_eq!(c.kinds[&Kind::Vlan].conflicts[0].key, key);
        assert!(!c.kinds[&Kind::Interface].blocked.is_empty());
        assert_eq!(c.writes(), 0);
    }
}
