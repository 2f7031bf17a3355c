//! The server's NIC ports as a netplan file: each port's (netdev's) address and MTU, a routing table
//! per port holding the port's own subnet and the server addresses the port's leaf reaches through the
//! port's leaf (the whole server pool, or on two planes its own plane's: [`crate::hosts::routes`]), and a
//! rule that sends traffic from the port's address to that table: RDMA from a port leaves through its
//! own leaf, whatever the main table says. The same on rail leaves, rack leaves (one leaf, every NIC
//! its own port on it) and two-port NICs (two netdevs, two tables, no bond: Alibaba HPN's two routed
//! ports).
//!
//! With Kubernetes, a routed port's /31 has one server address, and its SpiderIPPool hands that address to
//! the pod that takes the port (docs/hosts.md): the netplan file then gives the port only its MTU (a VF or
//! macvlan cannot exceed its parent's), so the host never holds the pod's address.
//!
//! The file is a [`Netplan`] value ([`model`]), the part of netplan's schema aifab writes
//! (<https://netplan.readthedocs.io/en/stable/netplan-yaml/>), written by [`super::yaml`] after a comment
//! block that names each port's rail and leaf.

use super::addr::Cidr;
use super::yaml;
use crate::hosts::routes::Destinations;
use crate::hosts::{Nic, Server};
use crate::model::hosts::HostsPlan;
use crate::output::Meta;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt::Write as _;
use std::net::Ipv4Addr;

/// The routing table of port `port` of rail `rail`'s NIC (both 1-based): rail 1 port 1 first, the
/// ports of one NIC next to each other.
pub fn table(plan: &HostsPlan, rail: u32, port: u32) -> u32 {
    let ports = plan.nic_ports.max(1);
    plan.route_table + rail.saturating_sub(1) * ports + port.saturating_sub(1).min(ports - 1)
}

/// Whether NIC port `n`'s address belongs to a Kubernetes pod rather than the host: a routed port (its
/// leaf gives no subnet, so the /31 has one server address) when the intent writes Spiderpool pools.
pub fn pod_takes_address(plan: &HostsPlan, n: &Nic) -> bool {
    plan.kubernetes.is_some() && n.leaf.server_subnet.is_none()
}

/// A netplan file: `network:` with netplan's version 2 and the NIC ports as `ethernets`
/// (<https://netplan.readthedocs.io/en/stable/netplan-yaml/>), the fields aifab writes and no other.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Netplan<'a> {
    /// The one top-level key.
    pub network: Network<'a>,
}

/// `network:`.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Network<'a> {
    /// Netplan's format version: 2.
    pub version: u8,
    /// The NIC ports by netdev name.
    pub ethernets: Ethernets<'a>,
}

/// `ethernets:`, one entry per NIC port keyed by its netdev name (a checked Linux interface name), in
/// the server's rail order.
#[derive(Debug, PartialEq)]
pub struct Ethernets<'a>(pub Vec<(Cow<'a, str>, Ethernet<'a>)>);

/// One NIC port (netdev).
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Ethernet<'a> {
    /// The port's address (none when a pod takes it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub addresses: Vec<Cidr>,
    /// The fabric's IP MTU.
    pub mtu: u32,
    /// The routes of the port's table.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub routes: Vec<Route<'a>>,
    /// The source rule into the port's table.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub routing_policy: Vec<Rule>,
}

/// One route of a port's table.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Route<'a> {
    /// The destination prefix.
    pub to: Cow<'a, str>,
    /// The next hop: the port's leaf (none for the port's own subnet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<Ipv4Addr>,
    /// `link` for the port's own subnet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Scope>,
    /// The next hop is on the port's link (`true` with `via`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_link: Option<bool>,
    /// The port's routing table.
    pub table: u32,
}

/// A route's scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// Reached directly on the link.
    Link,
}

/// `routing-policy:` rule: traffic from `from` looks up `table`.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// The port's address.
    pub from: Ipv4Addr,
    /// The port's routing table.
    pub table: u32,
}

impl Serialize for Ethernets<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (name, port) in &self.0 {
            map.serialize_entry(name, port)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Ethernets<'_> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Ports;
        impl<'de> serde::de::Visitor<'de> for Ports {
            type Value = Ethernets<'static>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("netplan ethernets by name")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<Self::Value, A::Error> {
                let mut ports: Vec<(Cow<'static, str>, Ethernet<'static>)> = Vec::new();
                while let Some((name, port)) = m.next_entry::<String, Ethernet<'static>>()? {
                    if ports.iter().any(|(n, _)| *n == name) {
                        return Err(serde::de::Error::custom(format!("port `{name}` twice")));
                    }
                    ports.push((Cow::Owned(name), port));
                }
                Ok(Ethernets(ports))
            }
        }
        d.deserialize_map(Ports)
    }
}

/// The netplan model of one server: per NIC port its address and MTU, the routes of its table and the
/// rule into it; only the MTU for a port whose address a pod takes ([`pod_takes_address`]).
pub fn model<'a>(plan: &HostsPlan, dest: &'a Destinations, s: &Server<'a>) -> Netplan<'a> {
    let ports = s
        .nics
        .iter()
        .map(|n| (Cow::Borrowed(n.name), port(plan, dest, n)));
    Netplan {
        network: Network {
            version: 2,
            ethernets: Ethernets(ports.collect()),
        },
    }
}

/// One NIC port's entry.
fn port<'a>(plan: &HostsPlan, dest: &'a Destinations, n: &Nic) -> Ethernet<'a> {
    if pod_takes_address(plan, n) {
        return Ethernet {
            addresses: Vec::new(),
            mtu: plan.mtu,
            routes: Vec::new(),
            routing_policy: Vec::new(),
        };
    }
    let table = table(plan, n.rail, n.port);
    let own = Route {
        to: Cow::Owned(n.subnet()),
        via: None,
        scope: Some(Scope::Link),
        on_link: None,
        table,
    };
    let through_leaf = dest.of_plane(n.leaf.plane).iter().map(|to| Route {
        to: Cow::Borrowed(to.as_str()),
        via: Some(n.gateway),
        scope: None,
        on_link: Some(true),
        table,
    });
    Ethernet {
        addresses: vec![Cidr {
            ip: n.ip,
            len: n.prefix_len,
        }],
        mtu: plan.mtu,
        routes: std::iter::once(own).chain(through_leaf).collect(),
        routing_policy: vec![Rule { from: n.ip, table }],
    }
}

/// The netplan YAML of one server (`/etc/netplan/60-aifab-rails.yaml`): a comment block (the header,
/// where to install it, and per NIC port its rail, port and leaf, and whether a pod takes its address),
/// then [`model`] written by [`super::yaml`].
pub fn file(
    meta: &Meta,
    plan: &HostsPlan,
    dest: &Destinations,
    s: &Server,
) -> Result<String, yaml::Error> {
    let mut o = String::with_capacity(420 * s.nics.len() + 240);
    yaml::comment(
        &mut o,
        super::header(meta, &format!("rail NICs of {}", s.name)).trim_start_matches("# "),
    )?;
    yaml::comment(
        &mut o,
        "install as /etc/netplan/60-aifab-rails.yaml, then `netplan apply`",
    )?;
    for n in &s.nics {
        yaml::comment(&mut o, &about(plan, n))?;
    }
    yaml::push(&mut o, &model(plan, dest, s))?;
    Ok(o)
}

/// What the comment block says of a NIC port: `eth0p1: rail 1 port 1 to s1-r1-p1`, and where its
/// address went when a pod takes it.
fn about(plan: &HostsPlan, n: &Nic) -> String {
    let mut t = format!("{}: rail {}", n.name, n.rail);
    if plan.nic_ports > 1 {
        let _ = write!(t, " port {}", n.port);
    }
    let _ = write!(t, " to {}", n.leaf.hostname);
    if pod_takes_address(plan, n) {
        t.push_str(
            "; the pod that takes this port takes its address (hosts/kubernetes/spiderpool.yaml)",
        );
    }
    t
}

#[cfg(test)]
mod tests {
    use super::table;
    use crate::kinds::NicModel;
    use crate::model::hosts::HostsPlan;

    fn plan(nic_ports: u32) -> HostsPlan {
        HostsPlan {
            nic: NicModel::Connectx,
            data_class: "roce".into(),
            cts_class: None,
            cnp_class: None,
            gid_index: 3,
            qps_per_connection: None,
            hca: Vec::new(),
            route_table: 100,
            nic_ports,
            leaf_planes: 1,
            server_pool: "10.0.0.0/16".into(),
            mtu: 9100,
            nic_speed_gbps: 400,
            kubernetes: None,
        }
    }

    #[test]
    fn one_table_per_nic_port() {
        assert_eq!([1, 2, 8].map(|r| table(&plan(1), r, 1)), [100, 101, 107]);
        let two = plan(2);
        let tables: Vec<u32> = (1..=2)
            .flat_map(|r| (1..=2).map(move |p| (r, p)))
            .map(|(r, p)| table(&two, r, p))
            .collect();
        assert_eq!(tables, [100, 101, 102, 103]);
    }
}
