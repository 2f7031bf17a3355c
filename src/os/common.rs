//! View pieces the CLI OSes (NX-OS, EOS) print alike: header notes, eBGP, the management address,
//! the server VLAN's gateway and the front-panel ports in port order (unused ones included).

use crate::model::{BgpPlan, Device, Interface, ManagementAddr, UnusedPort};
use crate::platform::{Platform, PortMode};
use crate::units::Speed;
use serde::Serialize;
use std::net::{IpAddr, Ipv4Addr};

/// The description of a front-panel port no link uses (rendered shut on every OS).
pub const UNUSED_DESCRIPTION: &str = "aifab: unused";

/// Every front-panel port of `d` in port order, used or not, each mapped by `used` or `unused`: the
/// order a running-config lists them in.
pub fn front_panel<'a, T>(
    d: &'a Device,
    mut used: impl FnMut(&'a Interface) -> T,
    mut unused: impl FnMut(&'a UnusedPort) -> T,
) -> Vec<T> {
    let mut out = Vec::with_capacity(d.interfaces.len() + d.unused_ports.len());
    let (mut a, mut b) = (
        d.interfaces.iter().peekable(),
        d.unused_ports.iter().peekable(),
    );
    loop {
        let take_used = match (a.peek(), b.peek()) {
            (None, None) => return out,
            (Some(i), Some(u)) => i.port < u.port,
            (Some(_), None) => true,
            (None, Some(_)) => false,
        };
        if take_used {
            out.extend(a.next().map(&mut used));
        } else {
            out.extend(b.next().map(&mut unused));
        }
    }
}

/// The eBGP underlay as both CLIs print it.
#[derive(Clone, Debug, Serialize)]
pub struct Bgp<'a> {
    /// Local ASN.
    pub asn: u32,
    /// Router-id.
    pub router_id: Ipv4Addr,
    /// ECMP width.
    pub maximum_paths: u32,
    /// Prefixes to advertise, in model order.
    pub networks: &'a [crate::model::Name],
    /// One per fabric link, in port order.
    pub neighbors: Vec<BgpNeighbor<'a>>,
}

/// One eBGP neighbor.
#[derive(Clone, Debug, Serialize)]
pub struct BgpNeighbor<'a> {
    /// Neighbor address.
    pub ip: Ipv4Addr,
    /// Neighbor ASN.
    pub remote_as: u32,
    /// `peer:peer_port`.
    pub description: &'a str,
}

impl<'a> Bgp<'a> {
    /// The printed part of a device's BGP plan.
    pub fn new(b: &'a BgpPlan) -> Bgp<'a> {
        Bgp {
            asn: b.asn,
            router_id: b.router_id,
            maximum_paths: b.maximum_paths,
            networks: &b.networks,
            neighbors: b
                .neighbors
                .iter()
                .map(|n| BgpNeighbor {
                    ip: n.ip,
                    remote_as: n.remote_as,
                    description: &n.description,
                })
                .collect(),
        }
    }
}

/// The out-of-band management address.
#[derive(Clone, Debug, Serialize)]
pub struct Management<'a> {
    /// The management port (`mgmt0`, `Management1`, `Management0`): the platform's
    /// `management_interface`.
    pub interface: &'a str,
    /// `address/prefix_len`.
    pub address: String,
    /// The address is IPv6.
    pub address_v6: bool,
    /// Default gateway.
    pub gateway: IpAddr,
    /// The gateway is IPv6.
    pub gateway_v6: bool,
}

impl<'a> Management<'a> {
    /// The management address of a device, when it has one, on the platform's management port.
    pub fn new(m: Option<&ManagementAddr>, pf: &'a Platform) -> Option<Management<'a>> {
        m.map(|m| Management {
            interface: &pf.management_interface,
            address: format!("{}/{}", m.ip, m.prefix_len),
            address_v6: m.ip.is_ipv6(),
            gateway: m.gateway,
            gateway_v6: m.gateway.is_ipv6(),
        })
    }
}

/// A rail leaf's server VLAN and its gateway interface.
#[derive(Clone, Debug, Serialize)]
pub struct ServerVlan<'a> {
    /// VLAN id.
    pub vlan: u16,
    /// Server subnet (`10.2.0.0/26`).
    pub prefix: &'a str,
    /// Rail of the leaf.
    pub rail: Option<u32>,
    /// Gateway address with prefix length.
    pub gateway: &'a str,
    /// IP MTU of the VLAN interface: that of its member ports (None when it has none).
    pub mtu: Option<u32>,
}

impl<'a> ServerVlan<'a> {
    /// The server VLAN of a `rail-subnet` leaf.
    pub fn new(d: &'a Device) -> Option<ServerVlan<'a>> {
        let s = d.server_subnet.as_ref()?;
        Some(ServerVlan {
            vlan: s.vlan,
            prefix: &s.prefix,
            rail: d.rail,
            gateway: &s.gateway,
            mtu: d
                .interfaces
                .iter()
                .find(|i| i.vlan == Some(s.vlan))
                .map(|i| i.mtu),
        })
    }
}

/// The texts of a device's notes, each one comment line of the header.
pub fn notes(d: &Device) -> Vec<&str> {
    d.notes.iter().map(|n| n.text.as_str()).collect()
}

/// The header comments of the errors the intent acknowledged for a device
/// (`aifab: acknowledged AIF-LB-005: <reason>`).
pub fn acknowledged(d: &Device) -> Vec<String> {
    d.acknowledged.iter().map(|a| a.comment()).collect()
}

/// `v` joined by `sep` (`24,26`, `24 26`).
pub fn join(v: &[u8], sep: &str) -> String {
    v.iter().map(u8::to_string).collect::<Vec<_>>().join(sep)
}

/// The platform's keyword for the breakout mode of port number `port` of `d`: the NX-OS map, the
/// EOS child `speed`, the SONiC `brkout_mode`. None when the port is not broken out.
pub fn breakout_keyword<'a>(d: &Device, pf: &'a Platform, port: u32) -> Option<&'a str> {
    let place = d.locate(port).filter(|p| p.children > 1)?;
    let mode = PortMode {
        children: place.children,
        speed: Speed(place.speed_gbps),
    };
    pf.breakout(mode).map(|b| b.keyword.as_str())
}
