//! The servers of a fabric as DCIM devices (`--servers`): each server that a server-to-leaf link
//! names, of the device type `aifab-server` (manufacturer `Generic`) and role `server`, with its NIC
//! ports as interfaces (typed by the link's speed, described `leaf:port`), the server end of each
//! server link's `/31` on its NIC port, and each server-to-leaf cable with its length. In the
//! rail-subnet mode a server's address is the server's own (DHCP or hosts/), so none is written.

use super::ACTIVE;
use super::plan::{Settings, address, interface};
use super::templates::port_type;
use super::{Kind, Object, Value};
use crate::model::{FabricModel, LinkTier};
use std::collections::{BTreeSet, HashMap};

/// The device type of every server.
pub const DEVICE_TYPE: &str = "aifab-server";
/// The manufacturer of that device type.
const MANUFACTURER: &str = "Generic";
/// The role of servers.
const ROLE: &str = "server";

/// Adds the servers, their NIC ports, addresses and cables to `out`.
pub fn plan(model: &FabricModel, settings: &Settings, out: &mut Vec<Object>) {
    out.push(Object::new(Kind::Manufacturer, MANUFACTURER));
    out.push(
        Object::new(Kind::DeviceType, DEVICE_TYPE)
            .with_create("manufacturer", Value::r(Kind::Manufacturer, MANUFACTURER)),
    );
    out.push(Object::new(Kind::Role, ROLE).with_create(
        "content_types",
        Value::List(vec!["dcim.device".to_string()]),
    ));
    // The leaf end of each server link: its address says the server's (the other end of the /31).
    let leaf_end: HashMap<(&str, &str), &crate::model::Interface> = model
        .devices
        .iter()
        .flat_map(|d| {
            d.interfaces
                .iter()
                .map(move |i| ((d.hostname.as_str(), &*i.name), i))
        })
        .collect();
    let mut servers = BTreeSet::new();
    for l in model
        .links
        .iter()
        .filter(|l| l.tier == LinkTier::ServerLeaf)
    {
        if servers.insert(&*l.a) {
            out.push(server(&l.a, settings));
        }
        let description = format!("{}:{}", l.b, l.b_port);
        out.push(interface(
            &l.a,
            &l.a_port,
            port_type(l.speed_gbps),
            None,
            &description,
        ));
        if let Some(i) = leaf_end.get(&(&*l.b, &*l.b_port))
            && let (Some(peer), Some(own)) = (i.peer_ip, &i.address)
            && let Some((_, len)) = own.split_once('/')
        {
            address(&format!("{peer}/{len}"), &l.a, &l.a_port, settings, out);
        }
        out.push(super::plan::cable(l));
    }
}

/// A server: no platform (aifab does not configure it) and no ASN.
fn server(name: &str, settings: &Settings) -> Object {
    Object::new(Kind::Device, name)
        .with("role", Value::r(Kind::Role, ROLE))
        .with("device_type", Value::r(Kind::DeviceType, DEVICE_TYPE))
        .with("platform", Value::Null)
        .with("location", Value::r(Kind::Location, &settings.location))
        .with("status", Value::r(Kind::Status, ACTIVE))
        .with(
            &format!("custom_fields.{}", super::plan::ASN_FIELD),
            Value::Null,
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_server_link_is_a_cable_between_a_nic_and_its_leaf_with_the_servers_address() {
        let m = crate::dcim::templates::tests::example("breakout-small");
        let settings = Settings {
            location: "x".into(),
            namespace: "Global".into(),
            servers: true,
        };
        let mut out = Vec::new();
        plan(&m, &settings, &mut out);
        let links: Vec<_> = m
            .links
            .iter()
            .filter(|l| l.tier == LinkTier::ServerLeaf)
            .collect();
        let count = |k: Kind| out.iter().filter(|o| o.kind == k).count();
        assert!(!links.is_empty());
        assert_eq!(count(Kind::Cable), links.len());
        assert_eq!(count(Kind::Interface), links.len());
        assert_eq!(count(Kind::IpAddress), links.len());
        assert_eq!(
            count(Kind::Device),
            usize::try_from(m.summary.servers).unwrap_or(0)
        );
        // The server's address is the leaf's peer on the same /31.
        let l = links[0];
        let leaf = m
            .devices
            .iter()
            .find(|d| *d.hostname == *l.b)
            .and_then(|d| d.interfaces.iter().find(|i| *i.name == *l.b_port))
            .expect("leaf end");
        let peer = leaf.peer_ip.expect("routed server link");
        let key = format!("{peer}/31@{}:{}", l.a, l.a_port);
        assert!(
            out.iter()
                .any(|o| o.kind == Kind::IpAssignment && o.key == key),
            "{key}"
        );
    }
}
