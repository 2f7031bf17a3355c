//! What each switch would report if it ran exactly what aifab rendered: the ideal [`Observed`] of a
//! device, built from the compiled model. The checks compare a switch's reported state with it, and
//! [`crate::verify::synth`] prints it in each OS's own documents (tests, `aifab bench`).

use super::observed::{
    BgpPeer, BgpSummary, DscpMap, EcnMap, EcnState, LldpNeighbor, Observed, PortState, Route,
};
use crate::check::paths::{Fabric, Node};
use crate::kinds::Os;
use crate::model::{Device, FabricModel, Interface, PortKind};
use crate::platform::Catalog;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// The model read for verification: per device its ideal state and what a far end sends over LLDP.
pub struct Plan<'m> {
    /// The model.
    pub model: &'m FabricModel,
    /// Device index by hostname.
    pub index: HashMap<&'m str, usize>,
    /// The netdev names a server sends towards each leaf, by (server, leaf) (`hosts:` intents only):
    /// computed when a finding first names one ([`Plan::nics`]; 100,000 NICs at 100K GPUs).
    nics: std::sync::OnceLock<HashMap<(&'m str, &'m str), Vec<&'m str>>>,
    /// The routing analysis of the model (every link up).
    pub fabric: Fabric,
}

impl<'m> Plan<'m> {
    /// The plan of `model`.
    pub fn new(model: &'m FabricModel) -> Plan<'m> {
        let index = model
            .devices
            .iter()
            .enumerate()
            .map(|(i, d)| (d.hostname.as_str(), i))
            .collect();
        Plan {
            model,
            index,
            nics: std::sync::OnceLock::new(),
            fabric: Fabric::new(model),
        }
    }

    /// The netdev names server `server` sends towards leaf `leaf` (`hosts:` intents only).
    pub fn nics(&self, server: &'m str, leaf: &'m str) -> Option<&[&'m str]> {
        let all = self.nics.get_or_init(|| {
            let mut nics: HashMap<(&str, &str), Vec<&str>> = HashMap::new();
            if self.model.hosts.is_some()
                && let Ok(servers) = crate::hosts::servers::servers(self.model)
            {
                for s in servers {
                    for n in s.nics {
                        nics.entry((s.name, n.leaf.hostname.as_str()))
                            .or_default()
                            .push(n.name);
                    }
                }
            }
            nics
        });
        all.get(&(server, leaf)).map(Vec::as_slice)
    }

    /// The device named `name`.
    pub fn device(&self, name: &str) -> Option<&'m Device> {
        self.index.get(name).map(|&i| &self.model.devices[i])
    }

    /// The port `name` of device `host`.
    pub fn port(&self, host: &str, name: &str) -> Option<&'m Interface> {
        self.device(host)?
            .interfaces
            .iter()
            .find(|i| &*i.name == name)
    }
}

/// What `peer`'s OS sends as the LLDP port ID of its port `port`: the interface name on NX-OS and EOS;
/// on SONiC the port's alias from the SKU's port table (SONiC's lldpmgrd sets the port ID to the alias),
/// or the name where the SKU has no alias for it.
pub fn sent_port_id(catalog: &Catalog, peer: &Device, port: &Interface) -> String {
    if peer.os == Os::Sonic
        && let Some((_, pf)) = catalog.get(&peer.platform)
        && let Some(alias) = crate::os::sonic::port_alias(peer, pf, port.port)
    {
        return alias;
    }
    port.name.to_string()
}

/// The ideal state of device `i` of the plan: LLDP neighbours on every fabric port (and server ports,
/// with `hosts:`), every BGP session established, the analysis's routes, every used port up at its
/// speed and rendered MTU with the lossless state of the QoS plan.
pub fn ideal(plan: &Plan, catalog: &Catalog, i: usize, routes: Option<Vec<Route>>) -> Observed {
    let d = &plan.model.devices[i];
    let lldp = d
        .interfaces
        .iter()
        .filter_map(|p| neighbor(plan, catalog, p))
        .collect();
    Observed {
        lldp: Some(lldp),
        bgp: Some(bgp(d)),
        routes,
        ..ideal_ports(plan, catalog, i)
    }
}

/// The part of [`ideal`] a switch is checked on alone (its name, ports and lossless state), without
/// the neighbours and sessions the checks across switches compare: what `aifab verify` builds per
/// switch as it reads it.
pub fn ideal_ports(plan: &Plan, catalog: &Catalog, i: usize) -> Observed {
    let d = &plan.model.devices[i];
    let pf = catalog.get(&d.platform).map(|(_, pf)| pf);
    let mut ports = BTreeMap::new();
    let (map, marks) = (Arc::new(dscp_map(d)), Arc::new(ecn(d)));
    for p in &d.interfaces {
        let mtu = pf.map_or(p.mtu, |pf| crate::os::port_mtu(d.os, pf, p));
        ports.insert(p.name.to_string(), port_state(d, p, mtu, &map, &marks));
    }
    for u in &d.unused_ports {
        let state = PortState {
            admin_up: Some(false),
            ..PortState::default()
        };
        ports.insert(u.name.to_string(), state);
    }
    Observed {
        hostname: Some(d.hostname.clone()),
        lldp: None,
        bgp: None,
        routes: None,
        ports,
        qos: super::observed::QosState {
            dscp_to_tc: Some(map),
            watchdog_enabled: Some(d.qos.watchdog.enabled),
            ecn: Some(marks),
        },
    }
}

/// The LLDP neighbour planned at port `p`: the far switch and the port ID its OS sends; a server's
/// name and its netdev (lldpd sends the netdev name as port description) where the intent has hosts.
fn neighbor(plan: &Plan, catalog: &Catalog, p: &Interface) -> Option<LldpNeighbor> {
    match p.kind {
        PortKind::Fabric => {
            let peer = plan.device(&p.peer)?;
            let far = peer.interfaces.iter().find(|i| i.name == p.peer_port)?;
            Some(LldpNeighbor {
                local_port: p.name.to_string(),
                system_name: Some(peer.hostname.clone()),
                port_id: Some(sent_port_id(catalog, peer, far)),
                port_descr: Some(far.description.clone()),
            })
        }
        PortKind::Server if plan.model.hosts.is_some() => Some(LldpNeighbor {
            local_port: p.name.to_string(),
            system_name: Some(p.peer.to_string()),
            port_id: None,
            port_descr: None,
        }),
        PortKind::Server => None,
    }
}

fn port_state(d: &Device, p: &Interface, mtu: u32, map: &DscpMap, marks: &EcnMap) -> PortState {
    let qos = &d.qos;
    let watched = qos.watchdog.enabled && !qos.lossless_priorities.is_empty();
    PortState {
        admin_up: Some(true),
        oper_up: Some(true),
        speed_gbps: Some(p.speed_gbps),
        mtu: Some(mtu),
        pfc_priorities: Some(qos.lossless_priorities.clone()),
        pfc_watchdog: Some(watched),
        trust_dscp: Some(true),
        dscp_to_tc: Some(map.clone()),
        ecn: Some(marks.clone()),
    }
}

fn bgp(d: &Device) -> BgpSummary {
    BgpSummary {
        router_id: Some(d.bgp.router_id),
        local_as: Some(d.bgp.asn),
        peers: d
            .bgp
            .neighbors
            .iter()
            .map(|n| BgpPeer {
                ip: n.ip,
                remote_as: Some(n.remote_as),
                state: "Established".into(),
                established: true,
                prefixes_received: None,
            })
            .collect(),
    }
}

/// DSCP to traffic class for all 64 DSCPs.
fn dscp_map(d: &Device) -> BTreeMap<u8, u8> {
    (0u8..).zip(d.qos.dscp_to_tc.iter().copied()).collect()
}

/// ECN thresholds per queue, for the queues that mark.
fn ecn(d: &Device) -> BTreeMap<u8, EcnState> {
    d.qos
        .queues
        .iter()
        .filter_map(|q| {
            let e = q.ecn.as_ref()?;
            Some((
                q.queue,
                EcnState {
                    min_bytes: e.min_bytes,
                    max_bytes: e.max_bytes,
                },
            ))
        })
        .collect()
}

/// The routes every switch should install with every link up towards the sampled leaves' loopbacks
/// ([`FabricModel::route_samples`]), per switch in model order: what `ansible/collect.yml` collects.
///
/// [`FabricModel::route_samples`]: crate::model::FabricModel::route_samples
pub fn routes(plan: &Plan) -> Vec<Vec<Route>> {
    let fabric = &plan.fabric;
    let mut out: Vec<Vec<Route>> = vec![Vec::new(); fabric.len()];
    for (host, lo) in plan.model.route_samples() {
        let Some(&origin) = plan.index.get(host) else {
            continue;
        };
        let r = fabric.select(origin as Node, None);
        for (s, via) in r.via.iter().enumerate() {
            if s == origin || via.is_empty() {
                continue;
            }
            let mut hops: Vec<_> = via
                .iter()
                .map(|&l| {
                    let k = &fabric.links[l as usize];
                    k.ip_of(k.other(s as Node))
                })
                .collect();
            hops.sort_unstable();
            hops.dedup();
            out[s].push(Route {
                prefix: format!("{lo}/32"),
                protocol: "bgp".into(),
                next_hops: hops,
            });
        }
    }
    out
}
