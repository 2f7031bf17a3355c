//! The DCIM objects a compiled fabric needs: its vendors, platform profiles as device types with
//! their interface templates, OSes, roles, location, switches with their interfaces, the address pools
//! and every address on its interface, the management address as primary IP, and every planned
//! switch-to-switch cable with its length; with [`Settings::servers`], the servers too, with their NICs,
//! addresses and cables ([`super::servers`]).

use super::{ACTIVE, Kind, Object, Value, tag};
use crate::kinds::Os;
use crate::model::{Device, FabricModel, LinkTier};
use crate::platform::Catalog;
use std::collections::BTreeMap;
use std::net::IpAddr;

/// Where the fabric goes in the DCIM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The location its devices are at (`--location`; the fabric's name by default).
    pub location: String,
    /// The IPAM namespace of its prefixes and addresses (`--namespace`; `Global` by default).
    pub namespace: String,
    /// Whether the servers, their NICs, addresses and cables are synced too (`--servers`).
    pub servers: bool,
}

/// The custom field (on devices) that holds a switch's BGP ASN.
pub const ASN_FIELD: &str = "aifab_asn";

/// The status of cables.
pub(crate) const CONNECTED: &str = "Connected";
/// The interface type of a management port.
const MGMT_TYPE: &str = "1000base-t";

/// Why the DCIM objects of a fabric cannot be planned.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// A device's platform is not in the catalog.
    #[error("{device}: platform {platform} is not in the catalog")]
    NotInCatalog {
        /// The device.
        device: String,
        /// Its platform.
        platform: String,
    },
}

/// The objects `model` needs, in [`Kind`] order, its servers left to [`super::desired`]. Fails on a
/// device whose platform the catalog lacks.
pub fn plan(
    model: &FabricModel,
    catalog: &Catalog,
    settings: &Settings,
) -> Result<Vec<Object>, PlanError> {
    let mut out = shared(model, catalog, settings)?;
    for d in &model.devices {
        let mgmt_if = catalog
            .get(&d.platform)
            .map(|(_, p)| p.management_interface.clone())
            .ok_or_else(|| PlanError::NotInCatalog {
                device: d.hostname.clone(),
                platform: d.platform.clone(),
            })?;
        device(d, &model.name, &mgmt_if, settings, &mut out);
    }
    super::vlans::plan(model, &mut out);
    prefixes(model, settings, &mut out);
    cables(model, &mut out);
    out.sort_by_key(|o| o.kind);
    Ok(out)
}

/// The lookups and shared objects: statuses, namespace, tag, custom field, vendors, device types,
/// OSes, roles, location type and location.
fn shared(
    model: &FabricModel,
    catalog: &Catalog,
    settings: &Settings,
) -> Result<Vec<Object>, PlanError> {
    let mut out = vec![
        Object::new(Kind::Status, ACTIVE),
        Object::new(Kind::Status, CONNECTED),
        Object::new(Kind::Namespace, &settings.namespace),
        Object::new(Kind::Tag, tag(&model.name)).with_create(
            "content_types",
            words(&[
                "dcim.device",
                "dcim.interface",
                "dcim.cable",
                "ipam.prefix",
                "ipam.ipaddress",
                "ipam.vlangroup",
                "ipam.vlan",
            ]),
        ),
        Object::new(Kind::CustomField, ASN_FIELD)
            .with_create("label", Value::str("BGP ASN (aifab)"))
            .with_create("type", Value::str("integer"))
            .with_create("content_types", words(&["dcim.device"])),
        Object::new(Kind::LocationType, "aifab fabric")
            .with_create("content_types", words(&["dcim.device"])),
        Object::new(Kind::Location, &settings.location)
            .with_create(
                "location_type",
                Value::r(Kind::LocationType, "aifab fabric"),
            )
            .with_create("status", Value::r(Kind::Status, ACTIVE)),
    ];
    let mut types: BTreeMap<&str, Object> = BTreeMap::new();
    let mut vendors: BTreeMap<String, Object> = BTreeMap::new();
    let mut oses: BTreeMap<Os, Object> = BTreeMap::new();
    let mut roles: BTreeMap<&str, Object> = BTreeMap::new();
    let mut templates = Vec::new();
    for d in &model.devices {
        let (os, p) = catalog
            .get(&d.platform)
            .ok_or_else(|| PlanError::NotInCatalog {
                device: d.hostname.clone(),
                platform: d.platform.clone(),
            })?;
        let vendor = manufacturer(&p.description);
        if !types.contains_key(d.platform.as_str()) {
            templates.extend(super::templates::of(model, &d.platform, p, MGMT_TYPE));
        }
        types.entry(&d.platform).or_insert_with(|| {
            Object::new(Kind::DeviceType, &d.platform)
                .with_create("manufacturer", Value::r(Kind::Manufacturer, &vendor))
        });
        vendors
            .entry(vendor.clone())
            .or_insert_with(|| Object::new(Kind::Manufacturer, vendor));
        oses.entry(*os).or_insert_with(|| {
            Object::new(Kind::Platform, os.as_str())
                .with_create("network_driver", Value::str(network_driver(*os)))
        });
        roles.entry(d.role.as_str()).or_insert_with(|| {
            Object::new(Kind::Role, d.role.as_str())
                .with_create("content_types", words(&["dcim.device"]))
        });
    }
    out.extend(vendors.into_values());
    out.extend(types.into_values());
    out.extend(templates);
    out.extend(oses.into_values());
    out.extend(roles.into_values());
    Ok(out)
}

fn words(w: &[&str]) -> Value {
    Value::List(w.iter().map(|s| s.to_string()).collect())
}

/// The vendor of a platform: the first word of its description (`Cisco Nexus ...`, `Arista 7060X5`,
/// `Dell EMC Z9332F-ON`, `NVIDIA SN5600`).
fn manufacturer(description: &str) -> String {
    description
        .split_whitespace()
        .next()
        .unwrap_or("unknown")
        .to_string()
}

/// The OS's network driver as Nautobot names it (netutils' normalized names, which Nautobot's
/// `Platform.network_driver` takes).
fn network_driver(os: Os) -> &'static str {
    match os {
        Os::Nxos => "cisco_nxos",
        Os::Eos => "arista_eos",
        Os::Sonic => "sonic",
    }
}

/// The loopback interface's name as each OS's template writes it (`templates/<os>/`).
fn loopback_name(os: Os) -> &'static str {
    match os {
        Os::Nxos => "loopback0",
        Os::Eos | Os::Sonic => "Loopback0",
    }
}

/// An interface of a device: routed, no 802.1Q mode and no untagged VLAN (a rail-subnet server port
/// sets both, [`device`]).
pub(crate) fn interface(
    host: &str,
    name: &str,
    kind: &str,
    mtu: Option<u32>,
    description: &str,
) -> Object {
    Object::new(Kind::Interface, format!("{host}:{name}"))
        .with_create("device", Value::r(Kind::Device, host))
        .with_create("name", Value::str(name))
        .with("type", Value::str(kind))
        .with("status", Value::r(Kind::Status, ACTIVE))
        .with("mtu", mtu.map_or(Value::Null, |m| Value::Int(i64::from(m))))
        .with("description", Value::str(description))
        // No 802.1Q mode (Nautobot reads a blank mode back as null): a port that was an access
        // port (rail-subnet mode) is cleared when the fabric leaves that mode.
        .with("mode", Value::Null)
        .with("untagged_vlan", Value::Null)
}

/// An address, on the interface `host:ifname`.
pub(crate) fn address(
    addr: &str,
    host: &str,
    ifname: &str,
    settings: &Settings,
    out: &mut Vec<Object>,
) {
    out.push(
        Object::new(Kind::IpAddress, addr)
            .with("status", Value::r(Kind::Status, ACTIVE))
            .with("type", Value::str("host"))
            .with_create("namespace", Value::r(Kind::Namespace, &settings.namespace)),
    );
    let ifkey = format!("{host}:{ifname}");
    out.push(
        Object::new(Kind::IpAssignment, format!("{addr}@{ifkey}"))
            .with_create("ip_address", Value::r(Kind::IpAddress, addr))
            .with_create("interface", Value::r(Kind::Interface, ifkey)),
    );
}

/// A switch, its interfaces and addresses, and its primary IP; a rail leaf's server ports (rail-subnet
/// mode) are access ports with its server VLAN untagged ([`super::vlans`]).
fn device(d: &Device, fabric: &str, mgmt_if: &str, settings: &Settings, out: &mut Vec<Object>) {
    let host = d.hostname.as_str();
    out.push(
        Object::new(Kind::Device, host)
            .with("role", Value::r(Kind::Role, d.role.as_str()))
            .with("device_type", Value::r(Kind::DeviceType, &d.platform))
            .with("platform", Value::r(Kind::Platform, d.os.as_str()))
            .with("location", Value::r(Kind::Location, &settings.location))
            .with("status", Value::r(Kind::Status, ACTIVE))
            .with(
                &format!("custom_fields.{ASN_FIELD}"),
                Value::Int(i64::from(d.bgp.asn)),
            ),
    );
    let lo = loopback_name(d.os);
    out.push(interface(host, lo, "virtual", None, "router-id"));
    address(&format!("{}/32", d.loopback), host, lo, settings, out);
    let mut primary = Object::new(Kind::PrimaryIp, host)
        .with("primary_ip4", Value::Null)
        .with_create("device", Value::r(Kind::Device, host));
    if let Some(m) = &d.management {
        out.push(
            interface(host, mgmt_if, MGMT_TYPE, None, "management")
                .with("mgmt_only", Value::Bool(true)),
        );
        let addr = format!("{}/{}", m.ip, m.prefix_len);
        address(&addr, host, mgmt_if, settings, out);
        let field = match m.ip {
            IpAddr::V4(_) => "primary_ip4",
            IpAddr::V6(_) => "primary_ip6",
        };
        primary = primary.with(field, Value::r(Kind::IpAddress, addr));
    }
    out.push(primary);
    let server_vlan = super::vlans::of_leaf(fabric, d);
    for i in &d.interfaces {
        let mtu = Some(i.mtu);
        let mut port = interface(
            host,
            &i.name,
            super::templates::port_type(i.speed_gbps),
            mtu,
            &i.description,
        );
        if let (Some(_), Some(vlan)) = (i.vlan, &server_vlan) {
            port = port
                .with("mode", Value::str("access"))
                .with("untagged_vlan", Value::r(Kind::Vlan, vlan));
        }
        out.push(port);
        if let Some(a) = &i.address {
            address(a, host, &i.name, settings, out);
        }
    }
    if let Some(s) = &d.server_subnet {
        // The rail leaf's server VLAN interface (`rail-subnet`): its servers' gateway. Every OS
        // names it `Vlan<id>` (the NX-OS and EOS templates' `interface Vlan…`, SONiC's VLAN table).
        let svi = format!("Vlan{}", s.vlan);
        let description = format!("rail server subnet {}", s.prefix);
        out.push(interface(host, &svi, "virtual", None, &description));
        address(&s.gateway, host, &svi, settings, out);
    }
}

/// The address pools, the management subnets and, in the rail-subnet mode, each rail leaf's server
/// subnet on its VLAN.
fn prefixes(model: &FabricModel, settings: &Settings, out: &mut Vec<Object>) {
    let mut nets: BTreeMap<String, String> = BTreeMap::new();
    for p in &model.summary.pools {
        nets.insert(
            p.prefix.clone(),
            format!("aifab {}: {}", model.name, p.pool),
        );
    }
    for d in &model.devices {
        if let Some(m) = &d.management
            && let Ok(net) = ipnetwork::IpNetwork::new(m.ip, m.prefix_len)
        {
            let p = format!("{}/{}", net.network(), m.prefix_len);
            nets.entry(p)
                .or_insert_with(|| format!("aifab {}: management", model.name));
        }
    }
    // Each rail leaf's server subnet (rail-subnet mode), on the leaf's server VLAN: a child of the
    // `server_links` pool, which Nautobot 2.x files it under in the same namespace.
    let mut vlans: BTreeMap<String, Value> = BTreeMap::new();
    for d in &model.devices {
        if let (Some(s), Some(vlan)) = (&d.server_subnet, super::vlans::of_leaf(&model.name, d)) {
            nets.entry(s.prefix.to_string())
                .or_insert_with(|| format!("aifab {}: {}'s servers", model.name, d.hostname));
            vlans.insert(s.prefix.to_string(), Value::r(Kind::Vlan, vlan));
        }
    }
    for (p, description) in nets {
        let vlan = vlans.remove(&p).unwrap_or(Value::Null);
        out.push(
            Object::new(Kind::Prefix, p)
                .with("status", Value::r(Kind::Status, ACTIVE))
                .with("type", Value::str("network"))
                .with("description", Value::str(description))
                .with("vlan", vlan)
                .with_create("namespace", Value::r(Kind::Namespace, &settings.namespace)),
        );
    }
}

/// The key of a cable between two interfaces: the two `device:port` ends in order, so either
/// direction names it.
pub fn cable_key(a: &str, b: &str) -> String {
    if a <= b {
        format!("{a} -- {b}")
    } else {
        format!("{b} -- {a}")
    }
}

/// Every planned switch-to-switch cable.
fn cables(model: &FabricModel, out: &mut Vec<Object>) {
    for l in model
        .links
        .iter()
        .filter(|l| l.tier != LinkTier::ServerLeaf)
    {
        out.push(cable(l));
    }
}

/// The cable of planned link `l`: both interface ends (in order), status Connected, its length.
pub(crate) fn cable(l: &crate::model::Link) -> Object {
    let a = format!("{}:{}", l.a, l.a_port);
    let b = format!("{}:{}", l.b, l.b_port);
    Object::new(Kind::Cable, cable_key(&a, &b))
        .with("status", Value::r(Kind::Status, CONNECTED))
        .with("length", Value::Int(i64::from(l.cable_m)))
        .with("length_unit", Value::str("m"))
        .with_create("termination_a_type", Value::str("dcim.interface"))
        .with_create("termination_a_id", Value::r(Kind::Interface, a))
        .with_create("termination_b_type", Value::str("dcim.interface"))
        .with_create("termination_b_id", Value::r(Kind::Interface, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rail_subnet_leaf_holds_its_server_vlan_interface_with_the_gateway_address() {
        let m = crate::dcim::templates::tests::example("mixed-sonic-nxos");
        let settings = Settings {
            location: "x".into(),
            namespace: "Global".into(),
            servers: false,
        };
        let out = plan(&m, crate::platform::Catalog::builtin(), &settings).expect("plan");
        let leaves: Vec<_> = m
            .devices
            .iter()
            .filter_map(|d| d.server_subnet.as_ref().map(|s| (d, s)))
            .collect();
        assert!(!leaves.is_empty(), "the example has rail-subnet leaves");
        for (d, s) in leaves {
            let ifkey = format!("{}:Vlan{}", d.hostname, s.vlan);
            assert!(
                out.iter()
                    .any(|o| o.kind == Kind::Interface && o.key == ifkey),
                "{ifkey}"
            );
            // Nautobot 2 files an address under a prefix of its namespace: one must hold it.
            let held = out.iter().filter(|o| o.kind == Kind::Prefix).any(|o| {
                o.key
                    .parse::<ipnetwork::Ipv4Network>()
                    .is_ok_and(|n| n.contains(s.gateway_ip))
            });
            assert!(held, "no prefix holds {}", s.gateway);
            let key = format!("{}@{ifkey}", s.gateway);
            assert!(
                out.iter()
                    .any(|o| o.kind == Kind::IpAssignment && o.key == key),
                "{key}"
            );
        }
    }
}
