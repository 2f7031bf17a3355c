//! The FRR view: the routing of one switch as FRR's `frr.conf` (zebra and bgpd) prints it, from the
//! same neutral device the vendor views read: the same loopback, /31s, ASN, neighbors, maximum-paths
//! and announcements, on Linux interface names. It is the fourth output form (`aifab render --os frr`)
//! and what `aifab twin` runs (docs/platforms/frr.md). The template `templates/frr/frr.conf.j2` only
//! prints it.
//!
//! FRR carries the routing alone: link settings (MTU, breakout, shut unused ports), QoS, DLB and the
//! device baseline belong to the switch's own OS and are not part of this form.

use super::common::{self, Bgp};
use crate::model::{Device, Interface, PortKind};
use serde::Serialize;
use std::net::Ipv4Addr;

/// The largest `maximum-paths` Debian's FRR accepts: it is built with `--enable-multipath=256`.
pub const MAX_PATHS: u32 = 256;

/// One switch's `frr.conf`.
#[derive(Clone, Debug, Serialize)]
pub struct FrrView<'a> {
    /// Hostname.
    pub hostname: &'a str,
    /// Header comments of the acknowledged errors (`aifab: acknowledged AIF-LB-005: <reason>`).
    pub acknowledged: Vec<String>,
    /// Loopback address (on `lo`, as a /32).
    pub loopback: Ipv4Addr,
    /// Every used port with an address or a peer, in port order.
    pub interfaces: Vec<FrrInterface<'a>>,
    /// The server subnet's gateway interface (`rail-subnet` leaves).
    pub server_vlan: Option<FrrInterface<'a>>,
    /// eBGP underlay, as the CLI OSes print it.
    pub bgp: Bgp<'a>,
}

/// One interface of the switch as FRR names it.
#[derive(Clone, Debug, Serialize)]
pub struct FrrInterface<'a> {
    /// Linux interface name: `swp<port>` for a front-panel port, `vlan<id>` for the server VLAN.
    pub name: String,
    /// Description: the peer and its port on the peer's own OS (`z1-spine1:Ethernet0`).
    pub description: &'a str,
    /// Address with prefix length, if the port is routed.
    pub address: Option<&'a str>,
    /// The port faces a switch (a BGP neighbor's link) rather than a server.
    pub fabric: bool,
}

/// The Linux name FRR and the twin give front-panel port number `port`: `swp<port>`, as Linux-based
/// switch OSes (Cumulus Linux) name them; at most 15 bytes, the kernel's limit.
pub fn port_name(port: u32) -> String {
    format!("swp{port}")
}

/// The Linux name of the server VLAN's gateway interface.
pub fn vlan_name(vlan: u16) -> String {
    format!("vlan{vlan}")
}

/// The FRR view of `d`. Fails when FRR cannot carry a value (more ECMP paths than FRR is built for).
/// `maximum-paths` is the one the switch's own OS runs: the intent's on NX-OS and EOS, the release's on
/// SONiC (the compiler puts it in the model); a SONiC release's 514 is carried as FRR's 256, the most
/// paths Debian's FRR installs.
pub fn view(d: &Device) -> Result<FrrView<'_>, super::OsError> {
    let sonic = d.os == crate::platform::Os::Sonic;
    if d.bgp.maximum_paths > MAX_PATHS && !sonic {
        return Err(super::OsError::FrrPaths {
            host: d.hostname.to_string(),
            paths: d.bgp.maximum_paths,
            max: MAX_PATHS,
        });
    }
    Ok(FrrView {
        hostname: &d.hostname,
        acknowledged: common::acknowledged(d),
        loopback: d.loopback,
        interfaces: d.interfaces.iter().map(interface).collect(),
        server_vlan: d.server_subnet.as_ref().map(|s| FrrInterface {
            name: vlan_name(s.vlan),
            description: "servers",
            address: Some(&s.gateway),
            fabric: false,
        }),
        bgp: Bgp {
            maximum_paths: d.bgp.maximum_paths.min(MAX_PATHS),
            ..Bgp::new(&d.bgp)
        },
    })
}

fn interface(i: &Interface) -> FrrInterface<'_> {
    FrrInterface {
        name: port_name(i.port),
        description: &i.description,
        address: i.address.as_deref(),
        fabric: i.kind == PortKind::Fabric,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fit_the_kernel() {
        assert_eq!(port_name(61), "swp61");
        assert!(port_name(u32::MAX).len() <= 15);
        assert!(vlan_name(u16::MAX).len() <= 15);
    }
}
