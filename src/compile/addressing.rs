//! Address and ASN allocation, arithmetic on the allocation keys the topology assigned:
//!
//! - loopbacks: leaves count up from the pool's first host address, spines and super-spines count down
//!   from its last (super-spines first), so adding a group or a zone moves nothing;
//! - fabric /31s: leaf-spine link n is the n-th /31 from the bottom, spine-super-spine link n the n-th
//!   from the top; the upper-tier switch takes the even address;
//! - server links: one /31 per NIC at (group, rail, slot) order, the leaf takes the even address; or in
//!   `rail-subnet` mode one subnet per leaf, the leaf's gateway is the first host address;
//! - ASNs: leaves take the leaf range in leaf order; spines share the spine ASN (zone n takes the n-th
//!   in a three-tier fabric); super-spines share theirs.

use super::shape::Shape;
use super::topology::Draft;
use crate::diag::Finding;
use crate::intent::{Intent, Role, ServerMode};
use crate::model::{Neighbor, PoolUse, ServerSubnet};
use crate::rules::Rule;
use std::net::{IpAddr, Ipv4Addr};

/// An IPv4 pool as integers.
struct Pool {
    name: &'static str,
    text: String,
    base: u32,
    size: u64,
}

impl Pool {
    fn new(name: &'static str, p: &crate::intent::Prefix, pointer: &str) -> Result<Pool, Finding> {
        match p.0 {
            ipnetwork::IpNetwork::V4(n) => Ok(Pool {
                name,
                text: n.to_string(),
                base: u32::from(n.network()),
                size: 1u64 << (32 - n.prefix() as u32),
            }),
            ipnetwork::IpNetwork::V6(_) => Err(Finding::new(
                Rule::PoolNotIpv4,
                format!("pool `{name}` is IPv6; this version of aifab allocates IPv4 only"),
            )
            .at(pointer)
            .hint("use an IPv4 prefix; IPv6 underlays are planned")),
        }
    }
    fn addr(&self, offset: u64) -> Ipv4Addr {
        Ipv4Addr::from(self.base.wrapping_add(offset as u32))
    }
    fn too_small(&self, need: u64, what: &str, pointer: &str) -> Finding {
        let bits = 64 - need.saturating_sub(1).leading_zeros();
        Finding::new(
            Rule::PoolTooSmall,
            format!(
                "pool `{}` ({}) holds {} addresses; the fabric needs {need} for {what}",
                self.name, self.text, self.size
            ),
        )
        .at(pointer)
        .hint(format!(
            "use at least a /{} for `{}`",
            32 - bits.min(32),
            self.name
        ))
    }
}

/// Fills in loopbacks, link addresses, server addressing, ASNs, BGP neighbors and networks, management.
pub fn assign(intent: &Intent, s: &Shape, f: &mut Draft) -> Result<(), Vec<Finding>> {
    let a = &intent.fabric.addressing;
    let mut errs = Vec::new();
    let pools = (
        Pool::new("loopbacks", &a.loopbacks, "/fabric/addressing/loopbacks"),
        Pool::new(
            "fabric_links",
            &a.fabric_links,
            "/fabric/addressing/fabric_links",
        ),
        Pool::new(
            "server_links",
            &a.server_links,
            "/fabric/addressing/server_links",
        ),
    );
    let (lo, fl, sl) = match pools {
        (Ok(a), Ok(b), Ok(c)) => (a, b, c),
        (a, b, c) => {
            for r in [a.err(), b.err(), c.err()].into_iter().flatten() {
                errs.push(r);
            }
            return Err(errs);
        }
    };

    // Capacity.
    let lo_need = f.devices.len() as u64 + 2;
    if lo.size < lo_need {
        errs.push(lo.too_small(
            lo_need,
            &format!("{} switches (plus network and broadcast)", f.devices.len()),
            "/fabric/addressing/loopbacks",
        ));
    }
    let ls_links = s.leaves() as u64 * s.leaf_up as u64;
    let sss_links = s.spines() as u64 * s.spine_up as u64;
    let fl_need = 2 * (ls_links + sss_links);
    if fl.size < fl_need {
        errs.push(fl.too_small(
            fl_need,
            &format!("{} switch links", ls_links + sss_links),
            "/fabric/addressing/fabric_links",
        ));
    }
    let server_subnet_bits = {
        // network + gateway + servers + broadcast
        let hosts = s.servers_per_group as u64 + 3;
        64 - (hosts - 1).leading_zeros()
    };
    let sl_need = match a.server_mode {
        ServerMode::Routed => 2 * s.groups as u64 * s.rails as u64 * s.servers_per_group as u64,
        ServerMode::RailSubnet => s.leaves() as u64 * (1u64 << server_subnet_bits),
    };
    if sl.size < sl_need {
        let what = match a.server_mode {
            ServerMode::Routed => format!("{} server /31s", sl_need / 2),
            ServerMode::RailSubnet => format!(
                "{} rail-leaf subnets of /{}",
                s.leaves(),
                32 - server_subnet_bits
            ),
        };
        errs.push(sl.too_small(sl_need, &what, "/fabric/addressing/server_links"));
    }
    // Pools must not overlap.
    let ranges = [
        (&lo, "loopbacks"),
        (&fl, "fabric_links"),
        (&sl, "server_links"),
    ];
    for i in 0..ranges.len() {
        for j in i + 1..ranges.len() {
            let (p, q) = (ranges[i].0, ranges[j].0);
            let (p0, p1) = (p.base as u64, p.base as u64 + p.size);
            let (q0, q1) = (q.base as u64, q.base as u64 + q.size);
            if p0 < q1 && q0 < p1 {
                errs.push(
                    Finding::new(
                        Rule::PoolsOverlap,
                        format!(
                            "pools `{}` ({}) and `{}` ({}) overlap",
                            ranges[i].1, p.text, ranges[j].1, q.text
                        ),
                    )
                    .at(format!("/fabric/addressing/{}", ranges[j].1))
                    .hint("give each pool its own prefix"),
                );
            }
        }
    }
    // ASNs.
    let bgp = &intent.fabric.bgp;
    if bgp.leaf_asn.len() < s.leaves() as u64 {
        errs.push(
            Finding::new(
                Rule::LeafAsnsTooFew,
                format!(
                    "leaf ASN range {} holds {} ASNs; the fabric has {} leaves",
                    bgp.leaf_asn,
                    bgp.leaf_asn.len(),
                    s.leaves()
                ),
            )
            .at("/fabric/bgp/leaf_asn")
            .hint("widen the range, e.g. a 4-byte private range 4200000000-4200099999"),
        );
    }
    if s.three_tier && bgp.spine_asn.len() < s.zones as u64 {
        errs.push(
            Finding::new(
                Rule::SpineAsnsTooFew,
                format!(
                    "a three-tier fabric needs one spine ASN per zone: {} holds {}, there are {} zones",
                    bgp.spine_asn,
                    bgp.spine_asn.len(),
                    s.zones
                ),
            )
            .at("/fabric/bgp/spine_asn")
            .hint(format!("give a range such as {}-{}", bgp.spine_asn.first, bgp.spine_asn.first as u64 + s.zones as u64 - 1)),
        );
    }
    if s.three_tier && bgp.super_spine_asn.is_none() {
        errs.push(
            Finding::new(
                Rule::SuperSpineAsnMissing,
                "a three-tier fabric needs `super_spine_asn`",
            )
            .at("/fabric/bgp")
            .hint("add `super_spine_asn: <asn>` under fabric.bgp"),
        );
    }
    if !errs.is_empty() {
        return Err(errs);
    }

    // Loopbacks and ASNs.
    let top = lo.size - 2; // last host offset
    for d in f.devices.iter_mut() {
        let off = match d.role {
            Role::Leaf => 1 + d.seq as u64,
            Role::SuperSpine => top - d.seq as u64,
            Role::Spine => top - s.super_spines as u64 - d.seq as u64,
        };
        d.loopback = lo.addr(off);
        d.bgp.router_id = d.loopback;
        let lo_net = format!("{}/32", d.loopback);
        d.bgp.networks.push(lo_net);
        d.bgp.asn = match d.role {
            Role::Leaf => bgp.leaf_asn.nth(d.seq as u64).unwrap_or(0),
            Role::Spine => bgp
                .spine_asn
                .nth(d.zone.map(|z| z as u64 - 1).unwrap_or(0))
                .unwrap_or(bgp.spine_asn.first),
            Role::SuperSpine => bgp.super_spine_asn.map(|r| r.first).unwrap_or(0),
        };
    }

    // Links.
    let fl_top_block = fl.size / 2 - 1;
    let mut server_networks: Vec<(usize, String)> = Vec::new();
    for l in f.links.iter_mut() {
        match l.tier {
            "server-leaf" => {
                if a.server_mode == ServerMode::Routed {
                    let even = sl.addr(2 * l.seq);
                    let odd = sl.addr(2 * l.seq + 1);
                    let ifc = &mut f.devices[l.upper.dev].interfaces[l.upper.iface];
                    ifc.address = Some(format!("{even}/31"));
                    ifc.ip = Some(even);
                    ifc.peer_ip = Some(odd);
                    l.subnet = Some(format!("{even}/31"));
                    server_networks.push((l.upper.dev, format!("{even}/31")));
                } else {
                    let ifc = &mut f.devices[l.upper.dev].interfaces[l.upper.iface];
                    ifc.vlan = Some(a.server_vlan);
                }
            }
            tier => {
                let block = if tier == "leaf-spine" {
                    l.seq
                } else {
                    fl_top_block - l.seq
                };
                let even = fl.addr(2 * block);
                let odd = fl.addr(2 * block + 1);
                let Some(lower) = l.lower else { continue };
                l.subnet = Some(format!("{even}/31"));
                let (up_host, up_port, up_asn, up_role) = {
                    let d = &f.devices[l.upper.dev];
                    (
                        d.hostname.clone(),
                        d.interfaces[l.upper.iface].name.clone(),
                        d.bgp.asn,
                        d.role,
                    )
                };
                let (lo_host, lo_port, lo_asn, lo_role) = {
                    let d = &f.devices[lower.dev];
                    (
                        d.hostname.clone(),
                        d.interfaces[lower.iface].name.clone(),
                        d.bgp.asn,
                        d.role,
                    )
                };
                {
                    let ifc = &mut f.devices[l.upper.dev].interfaces[l.upper.iface];
                    ifc.address = Some(format!("{even}/31"));
                    ifc.ip = Some(even);
                    ifc.peer_ip = Some(odd);
                }
                {
                    let ifc = &mut f.devices[lower.dev].interfaces[lower.iface];
                    ifc.address = Some(format!("{odd}/31"));
                    ifc.ip = Some(odd);
                    ifc.peer_ip = Some(even);
                }
                let up_port_no = f.devices[l.upper.dev].interfaces[l.upper.iface].port;
                let lo_port_no = f.devices[lower.dev].interfaces[lower.iface].port;
                f.devices[l.upper.dev].bgp.neighbors.push(Neighbor {
                    port: up_port_no,
                    ip: odd,
                    local_ip: even,
                    remote_as: lo_asn,
                    description: format!("{lo_host}:{lo_port}"),
                    peer: lo_host,
                    peer_port: lo_port.clone(),
                    interface: up_port.clone(),
                    peer_role: lo_role,
                });
                f.devices[lower.dev].bgp.neighbors.push(Neighbor {
                    port: lo_port_no,
                    ip: even,
                    local_ip: odd,
                    remote_as: up_asn,
                    description: format!("{up_host}:{up_port}"),
                    peer: up_host,
                    peer_port: up_port,
                    interface: lo_port,
                    peer_role: up_role,
                });
            }
        }
    }
    // Server /31 networks in port order, or the rail subnet.
    for (dev, net) in server_networks {
        f.devices[dev].bgp.networks.push(net);
    }
    if a.server_mode == ServerMode::RailSubnet {
        let size = 1u64 << server_subnet_bits;
        let plen = 32 - server_subnet_bits as u8;
        for d in f.devices.iter_mut().filter(|d| d.role == Role::Leaf) {
            let net = sl.addr(d.seq as u64 * size);
            let gw = sl.addr(d.seq as u64 * size + 1);
            d.server_subnet = Some(ServerSubnet {
                vlan: a.server_vlan,
                prefix: format!("{net}/{plen}"),
                gateway: format!("{gw}/{plen}"),
                gateway_ip: gw,
                prefix_len: plen,
            });
            d.bgp.networks.push(format!("{net}/{plen}"));
        }
        for l in f.links.iter_mut().filter(|l| l.tier == "server-leaf") {
            let d = &f.devices[l.upper.dev];
            l.subnet = d.server_subnet.as_ref().map(|s| s.prefix.clone());
        }
    }
    // Neighbors in port order, so configs read top to bottom like the port list.
    for d in f.devices.iter_mut() {
        if !d.bgp.neighbors.is_sorted_by_key(|n| n.port) {
            d.bgp.neighbors.sort_by_key(|n| n.port);
        }
        let mut seen = std::collections::HashSet::new();
        d.bgp.peers = d
            .bgp
            .neighbors
            .iter()
            .filter(|n| seen.insert(n.peer.as_str()))
            .map(|n| crate::model::Peer {
                name: n.peer.clone(),
                role: n.peer_role,
            })
            .collect();
    }

    // Management.
    if let Some(m) = &intent.fabric.management {
        let plen = m.subnet.0.prefix();
        let next = |first: IpAddr, seq: u32| -> Option<IpAddr> {
            match first {
                IpAddr::V4(v) => Some(IpAddr::V4(Ipv4Addr::from(u32::from(v).checked_add(seq)?))),
                IpAddr::V6(_) => None,
            }
        };
        for d in f.devices.iter_mut() {
            let first = match d.role {
                Role::Leaf => Some(m.first.leaf),
                Role::Spine => Some(m.first.spine),
                Role::SuperSpine => m.first.super_spine,
            };
            let ip = first.and_then(|fst| next(fst, d.seq));
            if let Some(ip) = ip {
                if !m.subnet.0.contains(ip) {
                    errs.push(
                        Finding::new(
                            Rule::ManagementOutsideSubnet,
                            format!(
                                "management address {ip} of {} is outside {}",
                                d.hostname, m.subnet
                            ),
                        )
                        .at("/fabric/management/first")
                        .hint("move the role's first address down or widen the subnet"),
                    );
                    break;
                }
                d.management = Some(crate::model::ManagementAddr {
                    ip,
                    prefix_len: plen,
                    gateway: m.gateway,
                });
            }
        }
    }
    for (i, o) in intent.overrides.iter().enumerate() {
        if let Some(ip) = o.management {
            let Some(m) = &intent.fabric.management else {
                errs.push(
                    Finding::new(Rule::ManagementOverrideNeedsSubnet, "a management override needs `fabric.management` for its prefix length and gateway")
                        .at(format!("/overrides/{i}/management"))
                        .hint("add fabric.management"),
                );
                continue;
            };
            for d in f.devices.iter_mut().filter(|d| d.overrides.contains(&i)) {
                d.management = Some(crate::model::ManagementAddr {
                    ip,
                    prefix_len: m.subnet.0.prefix(),
                    gateway: m.gateway,
                });
            }
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }

    f.summary.pools = vec![
        PoolUse {
            pool: "loopbacks".into(),
            prefix: lo.text.clone(),
            used: f.devices.len() as u64,
            capacity: lo.size,
        },
        PoolUse {
            pool: "fabric_links".into(),
            prefix: fl.text.clone(),
            used: fl_need,
            capacity: fl.size,
        },
        PoolUse {
            pool: "server_links".into(),
            prefix: sl.text.clone(),
            used: sl_need,
            capacity: sl.size,
        },
    ];
    Ok(())
}
