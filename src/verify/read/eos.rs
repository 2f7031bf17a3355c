//! EOS documents: what an Arista switch prints for `show ... | json` (eAPI returns the same
//! document for the same command), read into [`Observed`], and written back from it.
//!
//! EOS keys its tables by name (`"Ethernet1/1": {...}`, `"10.0.0.1": {...}`), prints counts and
//! MTUs as numbers, ASNs as strings (asplain, or asdot when configured so) and speeds as a
//! `bandwidth` in bit/s. No document aifab collects from EOS reports the lossless state (PFC,
//! watchdog, DSCP, ECN): no public sample of the JSON of `show priority-flow-control`,
//! `show qos interfaces` or `show qos maps` was found to build a reader on (public samples give
//! only the PFC and ECN counters), so those values stay `None` and the lossless check skips them on
//! EOS (docs/verify.md).

use super::cursor::{Esc, Node, Q, ip_text};
use super::{Document, ReadError, json};
use crate::verify::Check;
use crate::verify::observed::{
    BgpPeer, BgpSummary, LldpNeighbor, Observed, PortState, Route, canonical_port, peer_state,
};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::net::Ipv4Addr;

const HOSTNAME: &str = "show hostname | json";
const LLDP: &str = "show lldp neighbors detail | json";
const BGP: &str = "show ip bgp summary | json";
const ROUTES: &str = "show ip route {prefix} | json";
const INTERFACES: &str = "show interfaces | json";

const HOSTNAME_FILE: &str = "hostname.json";
const LLDP_FILE: &str = "lldp-neighbors.json";
const BGP_FILE: &str = "bgp-summary.json";
const ROUTES_FILE: &str = "ip-route.json";
const INTERFACES_FILE: &str = "interfaces.json";

/// The EOS documents of a state folder, in the order `ansible/collect.yml` fetches them.
pub const DOCUMENTS: &[Document] = &[
    Document {
        file: HOSTNAME_FILE,
        command: HOSTNAME,
        keys: &[],
        serves: &[Check::Cabling],
        read: read_hostname,
    },
    Document {
        file: LLDP_FILE,
        command: LLDP,
        keys: &[],
        serves: &[Check::Cabling],
        read: read_lldp,
    },
    Document {
        file: BGP_FILE,
        command: BGP,
        keys: &[],
        serves: &[Check::Sessions],
        read: read_bgp,
    },
    Document {
        file: ROUTES_FILE,
        command: ROUTES,
        keys: &[],
        serves: &[Check::Sessions],
        read: read_route_list,
    },
    Document {
        file: INTERFACES_FILE,
        command: INTERFACES,
        keys: &[],
        serves: &[Check::Ports],
        read: read_interfaces,
    },
];

/// `show hostname | json`: `{"hostname": "leaf1", "fqdn": "leaf1.example.net"}`.
fn read_hostname(text: &str, o: &mut Observed) -> Result<(), ReadError> {
    let doc = json(text)?;
    let root = Node::root(&doc);
    o.hostname = Some(root.top("hostname", HOSTNAME)?.str()?.to_string());
    Ok(())
}

/// `show lldp neighbors detail | json`: every local port, with the list of neighbours heard on it
/// (empty when none).
fn read_lldp(text: &str, o: &mut Observed) -> Result<(), ReadError> {
    let doc = json(text)?;
    let root = Node::root(&doc);
    let ports = root.top("lldpNeighbors", LLDP)?;
    let mut neighbors = Vec::new();
    for (port, node) in ports.entries()? {
        let heard = node.key("lldpNeighborInfo", "the list of neighbours on the port")?;
        for info in heard.items()? {
            neighbors.push(lldp_neighbor(port, &info)?);
        }
    }
    o.lldp = Some(neighbors);
    Ok(())
}

/// One neighbour heard on `port`. Its port ID is `interfaceId_v2` where EOS prints it, else
/// `interfaceId`, which EOS wraps in double quotes (`"\"Ethernet5\""`).
fn lldp_neighbor(port: &str, info: &Node) -> Result<LldpNeighbor, ReadError> {
    let (mut port_id, mut port_descr) = (None, None);
    if let Some(remote) = info.opt("neighborInterfaceInfo")? {
        let id = match remote.opt_str("interfaceId_v2")? {
            Some(id) => Some(id),
            None => remote.opt_str("interfaceId")?.map(unquote),
        };
        port_id = sent(id);
        port_descr = sent(remote.opt_str("interfaceDescription")?);
    }
    Ok(LldpNeighbor {
        local_port: canonical_port(port),
        system_name: sent(info.opt_str("systemName")?),
        port_id,
        port_descr,
    })
}

/// `"Ethernet5"` without its surrounding double quotes.
fn unquote(id: &str) -> &str {
    id.strip_prefix('"')
        .and_then(|inner| inner.strip_suffix('"'))
        .unwrap_or(id)
}

/// A TLV's value, `None` when empty.
fn sent(value: Option<&str>) -> Option<String> {
    value.filter(|v| !v.is_empty()).map(str::to_string)
}

/// `show ip bgp summary | json`: the default VRF's router-id, ASN and IPv4 unicast peers. Without
/// BGP, EOS prints `{"vrfs": {}}`: a summary without sessions.
fn read_bgp(text: &str, o: &mut Observed) -> Result<(), ReadError> {
    let doc = json(text)?;
    let root = Node::root(&doc);
    let vrfs = root.top("vrfs", BGP)?;
    let Some(vrf) = vrfs.opt("default")? else {
        o.bgp = Some(BgpSummary::default());
        return Ok(());
    };
    let router_id = match vrf.opt("routerId")? {
        Some(id) if id.v.as_str() != Some("") => id.ipv4_or_v6()?,
        _ => None,
    };
    let mut summary = BgpSummary {
        router_id,
        local_as: vrf.opt("asn")?.map(|n| n.asn()).transpose()?,
        peers: Vec::new(),
    };
    let peers = vrf.key("peers", "the VRF's peers, by address")?;
    for (address, peer) in peers.entries()? {
        let ip =
            ip_text(address).ok_or_else(|| peer.error("expected the peer's address as the key"))?;
        if let Some(ip) = ip {
            summary.peers.push(bgp_peer(ip, &peer)?);
        }
    }
    o.bgp = Some(summary);
    Ok(())
}

/// One IPv4 peer.
fn bgp_peer(ip: Ipv4Addr, peer: &Node) -> Result<BgpPeer, ReadError> {
    let state = peer.key("peerState", "the session state")?.str()?;
    Ok(BgpPeer {
        ip,
        remote_as: peer.opt("asn")?.map(|n| n.asn()).transpose()?,
        state: peer_state(state),
        established: state == "Established",
        prefixes_received: peer.opt("prefixReceived")?.map(|n| n.u32()).transpose()?,
    })
}

/// `show ip route | json`: the default VRF's routes (other VRFs of a `vrf all` are passed over).
/// The route document: one `show ip route <prefix> | json` per sampled prefix, as a JSON list (or one
/// document of the whole table).
fn read_route_list(text: &str, o: &mut Observed) -> Result<(), ReadError> {
    super::routes_list(text, o, read_routes)
}

fn read_routes(text: &str, o: &mut Observed) -> Result<(), ReadError> {
    let doc = json(text)?;
    let root = Node::root(&doc);
    let vrfs = root.top("vrfs", ROUTES)?;
    let vrf = vrfs.key("default", "the default VRF")?;
    let table = vrf.key("routes", "the default VRF's routes, by prefix")?;
    let mut routes = Vec::new();
    for (prefix, route) in table.entries()? {
        let kind = route.key("routeType", "the route's type")?.str()?;
        let mut next_hops = Vec::new();
        if let Some(vias) = route.opt("vias")? {
            for via in vias.items()? {
                match via.opt("nexthopAddr")? {
                    Some(hop) if hop.v.as_str() != Some("") => next_hops.extend(hop.ipv4_or_v6()?),
                    _ => {}
                }
            }
        }
        routes.push(Route {
            prefix: prefix.to_string(),
            protocol: protocol(kind),
            next_hops,
        });
    }
    o.routes = Some(routes);
    Ok(())
}

/// A `routeType` as a protocol: `eBGP`, `iBGP` and `bgpAggregate` are `bgp`, `OSPF` and
/// `ospfIntraArea` are `ospf`, others lower case (`connected`, `static`).
fn protocol(route_type: &str) -> String {
    let lower = route_type.to_ascii_lowercase();
    if lower.contains("bgp") {
        "bgp".to_string()
    } else if lower.starts_with("ospf") {
        "ospf".to_string()
    } else {
        lower
    }
}

/// `show interfaces | json`: the front-panel Ethernet ports' admin and oper state, speed and MTU.
/// `interfaceStatus` is `disabled` for a port shut down (`connected`, `notconnect`, `errdisabled`
/// otherwise); `lineProtocolStatus` is `up` for a port whose link is up.
fn read_interfaces(text: &str, o: &mut Observed) -> Result<(), ReadError> {
    let doc = json(text)?;
    let root = Node::root(&doc);
    let interfaces = root.top("interfaces", INTERFACES)?;
    for (name, node) in interfaces.entries()? {
        let name = canonical_port(name);
        if !front_panel(&name) {
            continue;
        }
        let port = o.ports.entry(name).or_default();
        port.admin_up = node.opt_str("interfaceStatus")?.map(|s| s != "disabled");
        port.oper_up = node.opt_str("lineProtocolStatus")?.map(|s| s == "up");
        port.mtu = node.opt("mtu")?.map(|n| n.u32()).transpose()?;
        port.speed_gbps = match node.opt("bandwidth")? {
            Some(bits) => whole_gbps(bits.u64()?),
            None => None,
        };
    }
    Ok(())
}

/// A front-panel port: `Ethernet1`, `Ethernet1/1`, not a subinterface, management, loopback,
/// VLAN or port-channel.
fn front_panel(name: &str) -> bool {
    name.starts_with("Ethernet") && !name.contains('.')
}

/// A bandwidth in bit/s as whole Gbit/s; `None` for 0 (EOS's unknown, on a virtual switch) and for
/// a speed that is not a whole number of Gbit/s.
fn whole_gbps(bits: u64) -> Option<u32> {
    const GBIT: u64 = 1_000_000_000;
    (bits > 0 && bits.is_multiple_of(GBIT))
        .then(|| u32::try_from(bits / GBIT).ok())
        .flatten()
}

/// The documents an EOS switch prints for exactly the state `o`, as `(file, JSON text)`: one per
/// field of `o` that EOS reports and `o` holds (`interfaces.json` when `o.ports` is not empty).
pub fn write(o: &Observed) -> Vec<(&'static str, String)> {
    let mut docs = Vec::with_capacity(DOCUMENTS.len());
    if let Some(name) = &o.hostname {
        let text = format!("{{\"hostname\":{},\"fqdn\":{}}}", Q(name), Q(name));
        docs.push((HOSTNAME_FILE, text));
    }
    if let Some(neighbors) = &o.lldp {
        docs.push((LLDP_FILE, write_lldp(neighbors)));
    }
    if let Some(bgp) = &o.bgp {
        docs.push((BGP_FILE, write_bgp(bgp)));
    }
    if let Some(routes) = &o.routes {
        docs.push((ROUTES_FILE, write_routes(routes)));
    }
    if !o.ports.is_empty() {
        docs.push((INTERFACES_FILE, write_interfaces(&o.ports)));
    }
    docs
}

/// `show lldp neighbors detail | json` for `neighbors`, grouped by local port in the order the
/// ports first appear.
fn write_lldp(neighbors: &[LldpNeighbor]) -> String {
    let mut ports: Vec<(&str, Vec<&LldpNeighbor>)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::with_capacity(neighbors.len());
    for n in neighbors {
        let i = *index.entry(n.local_port.as_str()).or_insert_with(|| {
            ports.push((&n.local_port, Vec::new()));
            ports.len() - 1
        });
        ports[i].1.push(n);
    }
    let mut out = String::with_capacity(32 + 220 * neighbors.len());
    out.push_str("{\"lldpNeighbors\":{");
    for (i, (port, heard)) in ports.iter().enumerate() {
        let comma = if i > 0 { "," } else { "" };
        let _ = write!(out, "{comma}{}:{{\"lldpNeighborInfo\":[", Q(port));
        for (j, n) in heard.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            write_neighbor(&mut out, n);
        }
        out.push_str("]}");
    }
    out.push_str("}}");
    out
}

/// One `lldpNeighborInfo` item: the port ID both quoted (`interfaceId`) and not (`interfaceId_v2`),
/// as EOS prints it.
fn write_neighbor(out: &mut String, n: &LldpNeighbor) {
    out.push('{');
    if let Some(name) = &n.system_name {
        let _ = write!(out, "\"systemName\":{},", Q(name));
    }
    out.push_str("\"neighborInterfaceInfo\":{\"interfaceIdType\":\"interfaceName\"");
    if let Some(id) = &n.port_id {
        let _ = write!(
            out,
            ",\"interfaceId\":\"\\\"{}\\\"\",\"interfaceId_v2\":{}",
            Esc(id),
            Q(id)
        );
    }
    if let Some(descr) = &n.port_descr {
        let _ = write!(out, ",\"interfaceDescription\":{}", Q(descr));
    }
    out.push_str("}}");
}

/// `show ip bgp summary | json` for `bgp`, in the default VRF.
fn write_bgp(bgp: &BgpSummary) -> String {
    let mut out = String::with_capacity(128 + 180 * bgp.peers.len());
    out.push_str("{\"vrfs\":{\"default\":{\"vrf\":\"default\"");
    if let Some(id) = bgp.router_id {
        let _ = write!(out, ",\"routerId\":\"{id}\"");
    }
    if let Some(asn) = bgp.local_as {
        let _ = write!(out, ",\"asn\":\"{asn}\"");
    }
    out.push_str(",\"peers\":{");
    for (i, p) in bgp.peers.iter().enumerate() {
        let comma = if i > 0 { "," } else { "" };
        let _ = write!(out, "{comma}\"{}\":{{\"peerState\":{}", p.ip, Q(&p.state));
        if let Some(asn) = p.remote_as {
            let _ = write!(out, ",\"asn\":\"{asn}\"");
        }
        if let Some(n) = p.prefixes_received {
            let _ = write!(out, ",\"prefixReceived\":{n}");
        }
        out.push('}');
    }
    out.push_str("}}}}");
    out
}

/// `show ip route | json` for `routes`, in the default VRF; BGP routes are `eBGP`, as in a fabric
/// of eBGP sessions.
fn write_routes(routes: &[Route]) -> String {
    let mut out = String::with_capacity(64 + 160 * routes.len());
    out.push_str("{\"vrfs\":{\"default\":{\"routes\":{");
    for (i, r) in routes.iter().enumerate() {
        let kind = match r.protocol.as_str() {
            "bgp" => "eBGP",
            "ospf" => "OSPF",
            other => other,
        };
        let comma = if i > 0 { "," } else { "" };
        let _ = write!(
            out,
            "{comma}{}:{{\"routeType\":{},\"vias\":[",
            Q(&r.prefix),
            Q(kind)
        );
        for (j, hop) in r.next_hops.iter().enumerate() {
            let comma = if j > 0 { "," } else { "" };
            let _ = write!(out, "{comma}{{\"nexthopAddr\":\"{hop}\"}}");
        }
        out.push_str("]}");
    }
    out.push_str("}}}}");
    out
}

/// `show interfaces | json` for `ports`: status, line protocol, MTU and bandwidth (bit/s).
fn write_interfaces(ports: &BTreeMap<String, PortState>) -> String {
    let mut out = String::with_capacity(32 + 200 * ports.len());
    out.push_str("{\"interfaces\":{");
    for (i, (name, port)) in ports.iter().enumerate() {
        let comma = if i > 0 { "," } else { "" };
        let _ = write!(out, "{comma}{}:{{\"name\":{}", Q(name), Q(name));
        if let Some(admin) = port.admin_up {
            let status = match (admin, port.oper_up) {
                (false, _) => "disabled",
                (true, Some(true)) => "connected",
                (true, _) => "notconnect",
            };
            let _ = write!(out, ",\"interfaceStatus\":\"{status}\"");
        }
        if let Some(up) = port.oper_up {
            let _ = write!(
                out,
                ",\"lineProtocolStatus\":\"{}\"",
                if up { "up" } else { "down" }
            );
        }
        if let Some(mtu) = port.mtu {
            let _ = write!(out, ",\"mtu\":{mtu}");
        }
        if let Some(gbps) = port.speed_gbps {
            let _ = write!(out, ",\"bandwidth\":{}", u64::from(gbps) * 1_000_000_000);
        }
        out.push('}');
    }
    out.push_str("}}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::observed::EcnState;

    const HOSTNAME_SAMPLE: &str = include_str!("../../../tests/verify/eos/hostname.json");
    const LLDP_SAMPLE: &str = include_str!("../../../tests/verify/eos/lldp-neighbors.json");
    const LLDP_V2_SAMPLE: &str = include_str!("../../../tests/verify/eos/lldp-neighbors-v2.json");
    const BGP_SAMPLE: &str = include_str!("../../../tests/verify/eos/bgp-summary.json");
    const BGP_ASDOT_SAMPLE: &str = include_str!("../../../tests/verify/eos/bgp-summary-asdot.json");
    const ROUTES_SAMPLE: &str = include_str!("../../../tests/verify/eos/ip-route.json");
    const INTERFACES_SAMPLE: &str = include_str!("../../../tests/verify/eos/interfaces.json");
    const VEOS_SAMPLE: &str = include_str!("../../../tests/verify/eos/interfaces-veos.json");

    /// Every document with its real sample.
    const SAMPLES: [(&str, &str); 5] = [
        (HOSTNAME_FILE, HOSTNAME_SAMPLE),
        (LLDP_FILE, LLDP_SAMPLE),
        (BGP_FILE, BGP_SAMPLE),
        (ROUTES_FILE, ROUTES_SAMPLE),
        (INTERFACES_FILE, INTERFACES_SAMPLE),
    ];

    fn read(file: &str, text: &str) -> Result<Observed, ReadError> {
        let doc = DOCUMENTS
            .iter()
            .find(|d| d.file == file)
            .expect("a document of that name");
        let mut o = Observed::default();
        (doc.read)(text, &mut o)?;
        Ok(o)
    }

    fn ip(text: &str) -> Ipv4Addr {
        text.parse().expect("an address")
    }

    #[test]
    fn documents_are_named_and_serve_their_checks() {
        let files: Vec<&str> = DOCUMENTS.iter().map(|d| d.file).collect();
        assert_eq!(
            files,
            [
                HOSTNAME_FILE,
                LLDP_FILE,
                BGP_FILE,
                ROUTES_FILE,
                INTERFACES_FILE
            ]
        );
        assert_eq!(DOCUMENTS[2].command, "show ip bgp summary | json");
        assert_eq!(DOCUMENTS[2].serves, [Check::Sessions]);
        assert_eq!(DOCUMENTS[0].serves, [Check::Cabling]);
    }

    #[test]
    fn hostname_sample() {
        let o = read(HOSTNAME_FILE, HOSTNAME_SAMPLE).unwrap();
        assert_eq!(o.hostname.as_deref(), Some("leaf01"));
    }

    /// A neighbour as (local port, system name, port ID, port description).
    type Heard<'a> = (&'a str, Option<&'a str>, Option<&'a str>, Option<&'a str>);

    #[test]
    fn lldp_sample_with_quoted_port_ids() {
        let lldp = read(LLDP_FILE, LLDP_SAMPLE).unwrap().lldp.unwrap();
        let heard: Vec<Heard> = lldp
            .iter()
            .map(|n| {
                let name = n.system_name.as_deref();
                (
                    n.local_port.as_str(),
                    name,
                    n.port_id.as_deref(),
                    n.port_descr.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            heard,
            [
                ("Ethernet2", Some("spine02"), Some("Ethernet5"), None),
                ("Ethernet1", Some("spine01"), Some("Ethernet5"), None),
                ("Ethernet4", Some("dcedge01"), Some("516"), Some("xe-0/0/0")),
            ]
        );
    }

    #[test]
    fn lldp_sample_with_interface_id_v2() {
        let lldp = read(LLDP_FILE, LLDP_V2_SAMPLE).unwrap().lldp.unwrap();
        assert_eq!(
            lldp[1],
            LldpNeighbor {
                local_port: "Ethernet2".into(),
                system_name: Some("DC1-SPINE2.local.com".into()),
                port_id: Some("Ethernet1".into()),
                port_descr: Some("P2P_LINK_TO_DC1-LEAF1A_Ethernet2".into()),
            }
        );
        assert_eq!(lldp.len(), 2);
    }

    #[test]
    fn bgp_sample_established_and_active() {
        let bgp = read(BGP_FILE, BGP_SAMPLE).unwrap().bgp.unwrap();
        assert_eq!(bgp.router_id, Some(ip("192.168.0.0")));
        assert_eq!(bgp.local_as, Some(65001));
        let first = &bgp.peers[0];
        assert_eq!(
            (first.ip, first.remote_as, &*first.state),
            (ip("10.0.0.1"), Some(65002), "Established")
        );
        assert_eq!(
            (first.established, first.prefixes_received),
            (true, Some(3))
        );
        let second = &bgp.peers[1];
        assert_eq!(
            (second.ip, second.remote_as, &*second.state),
            (ip("10.0.0.3"), Some(65003), "Active")
        );
        assert_eq!(
            (second.established, second.prefixes_received),
            (false, Some(0))
        );
        assert_eq!(bgp.peers.len(), 2);
    }

    #[test]
    fn bgp_sample_in_asdot_with_link_local_peers_only() {
        let bgp = read(BGP_FILE, BGP_ASDOT_SAMPLE).unwrap().bgp.unwrap();
        assert_eq!(bgp.local_as, Some(65002 * 65536 + 2048));
        assert_eq!(bgp.router_id, Some(ip("172.18.8.0")));
        assert!(
            bgp.peers.is_empty(),
            "IPv6 link-local peers have no place: {:?}",
            bgp.peers
        );
        let none = read(BGP_FILE, r#"{"vrfs": {}}"#).unwrap();
        assert_eq!(none.bgp, Some(BgpSummary::default()));
    }

    #[test]
    fn routes_sample_is_the_default_vrf() {
        let routes = read(ROUTES_FILE, ROUTES_SAMPLE).unwrap().routes.unwrap();
        assert_eq!(routes.len(), 22);
        let find = |p: &str| routes.iter().find(|r| r.prefix == p).expect(p);
        let default = find("0.0.0.0/0");
        assert_eq!(
            (default.protocol.as_str(), &default.next_hops[..]),
            ("bgp", &[ip("169.254.254.2")][..])
        );
        let ecmp = find("10.0.0.12/32");
        assert_eq!(ecmp.protocol, "ospf");
        assert_eq!(ecmp.next_hops, [ip("10.0.0.21"), ip("10.0.0.22")]);
        let own = find("10.0.0.31/32");
        assert_eq!(
            (own.protocol.as_str(), own.next_hops.len()),
            ("connected", 0)
        );
        assert_eq!(find("192.168.0.179/32").protocol, "static");
        assert!(
            routes.iter().all(|r| r.prefix != "172.16.3.202/32"),
            "an evpn-vrf route"
        );
    }

    #[test]
    fn interfaces_sample_10g_notconnect_without_port_channels() {
        let ports = read(INTERFACES_FILE, INTERFACES_SAMPLE).unwrap().ports;
        let names: Vec<&str> = ports.keys().map(String::as_str).collect();
        assert_eq!(names, ["Ethernet1"]);
        let down = PortState {
            admin_up: Some(true),
            oper_up: Some(false),
            speed_gbps: Some(10),
            mtu: Some(9214),
            ..PortState::default()
        };
        assert_eq!(ports["Ethernet1"], down);
    }

    #[test]
    fn interfaces_sample_of_a_virtual_switch_without_speeds() {
        let ports = read(INTERFACES_FILE, VEOS_SAMPLE).unwrap().ports;
        let names: Vec<&str> = ports.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "Ethernet1",
                "Ethernet2",
                "Ethernet3",
                "Ethernet4",
                "Ethernet5"
            ]
        );
        let e5 = &ports["Ethernet5"];
        assert_eq!(
            (e5.admin_up, e5.oper_up, e5.mtu),
            (Some(true), Some(true), Some(9214))
        );
        assert_eq!(
            e5.speed_gbps, None,
            "2.5 Mbit/s is no whole number of Gbit/s"
        );
        assert_eq!(ports["Ethernet1"].speed_gbps, None, "0 is EOS's unknown");
        assert_eq!(whole_gbps(400_000_000_000), Some(400));
    }

    /// A state with every field EOS's documents report, and none they do not.
    fn reported_state() -> Observed {
        let neighbor = |local: &str, name: &str, port: &str, descr: Option<&str>| LldpNeighbor {
            local_port: local.into(),
            system_name: Some(name.into()),
            port_id: Some(port.into()),
            port_descr: descr.map(str::to_string),
        };
        let peer = |addr: &str, asn: u32, state: &str, received: Option<u32>| BgpPeer {
            ip: ip(addr),
            remote_as: Some(asn),
            state: peer_state(state),
            established: state == "Established",
            prefixes_received: received,
        };
        let route = |prefix: &str, protocol: &str, hops: &[&str]| Route {
            prefix: prefix.into(),
            protocol: protocol.into(),
            next_hops: hops.iter().map(|h| ip(h)).collect(),
        };
        let port = |admin: bool, oper: bool, speed: Option<u32>| PortState {
            admin_up: Some(admin),
            oper_up: Some(oper),
            speed_gbps: speed,
            mtu: Some(9214),
            ..PortState::default()
        };
        Observed {
            hostname: Some("z1-g2-r2".into()),
            lldp: Some(vec![
                neighbor("Ethernet1/1", "server0005", "enp1s0f1", Some("nic2")),
                neighbor("Ethernet2/1", "ss1", "Ethernet1/3", None),
                neighbor("Ethernet1/1", "server0005-bmc", "\"odd\" id", None),
            ]),
            bgp: Some(BgpSummary {
                router_id: Some(ip("10.30.0.9")),
                local_as: Some(65109),
                peers: vec![
                    peer("10.22.0.41", 65300, "Established", Some(40)),
                    peer("10.22.0.43", 65300, "Idle", Some(0)),
                    peer("10.22.0.45", 65301, "Connect", None),
                ],
            }),
            routes: Some(vec![
                route("10.2.0.0/26", "bgp", &["10.22.0.41", "10.22.0.43"]),
                route("10.22.0.40/31", "connected", &[]),
                route("0.0.0.0/0", "static", &["192.0.2.1"]),
            ]),
            ports: BTreeMap::from([
                ("Ethernet1/1".into(), port(true, true, Some(400))),
                ("Ethernet2/1".into(), port(true, false, Some(200))),
                ("Ethernet3/1".into(), port(false, false, None)),
            ]),
            qos: Default::default(),
        }
    }

    fn read_all(docs: &[(&'static str, String)]) -> Observed {
        let mut o = Observed::default();
        for (file, text) in docs {
            let doc = DOCUMENTS
                .iter()
                .find(|d| d.file == *file)
                .expect("a known file");
            (doc.read)(text, &mut o).unwrap_or_else(|e| panic!("{file}: {e}\n{text}"));
        }
        o
    }

    #[test]
    fn round_trip() {
        let mut o = reported_state();
        let docs = write(&o);
        assert_eq!(docs.len(), DOCUMENTS.len());
        // EOS groups the neighbours of a port under its name.
        o.lldp.as_mut().unwrap().swap(1, 2);
        assert_eq!(read_all(&docs), o);
    }

    #[test]
    fn round_trip_of_empty_tables() {
        let empty = Observed {
            lldp: Some(Vec::new()),
            bgp: Some(BgpSummary::default()),
            routes: Some(Vec::new()),
            ..Observed::default()
        };
        assert_eq!(read_all(&write(&empty)), empty);
    }

    #[test]
    fn written_lldp_quotes_interface_id_as_eos_does() {
        let docs = write(&reported_state());
        let lldp: serde_json::Value = serde_json::from_str(&docs[1].1).unwrap();
        let info = &lldp["lldpNeighbors"]["Ethernet2/1"]["lldpNeighborInfo"][0];
        assert_eq!(
            info["neighborInterfaceInfo"]["interfaceId"],
            "\"Ethernet1/3\""
        );
        assert_eq!(
            info["neighborInterfaceInfo"]["interfaceId_v2"],
            "Ethernet1/3"
        );
    }

    #[test]
    fn what_eos_does_not_report_is_not_written() {
        let mut o = reported_state();
        let port = o.ports.get_mut("Ethernet1/1").unwrap();
        port.pfc_priorities = Some(vec![3]);
        port.trust_dscp = Some(true);
        o.qos.ecn = Some(std::sync::Arc::new(BTreeMap::from([(
            3,
            EcnState {
                min_bytes: 1,
                max_bytes: 2,
            },
        )])));
        let mut expected = reported_state();
        expected.lldp.as_mut().unwrap().swap(1, 2);
        assert_eq!(read_all(&write(&o)), expected);
    }

    #[test]
    fn a_truncated_document_is_located() {
        for (file, text) in SAMPLES {
            let cut = &text[..text.len() / 2];
            let err = read(file, cut).unwrap_err();
            assert!(
                err.at.starts_with("line ") && err.at.contains(" column "),
                "{file}: {err}"
            );
            assert!(err.message.contains("cut short"), "{file}: {err}");
        }
    }

    #[test]
    fn another_commands_output_is_an_error() {
        for (file, _) in SAMPLES {
            for (other, text) in SAMPLES.iter().filter(|(other, _)| *other != file) {
                let err = read(file, text).expect_err(&format!("{other} read as {file}"));
                assert!(
                    !err.at.is_empty() && !err.message.is_empty(),
                    "{other} as {file}"
                );
            }
        }
        let err = read(BGP_FILE, ROUTES_SAMPLE).unwrap_err();
        assert_eq!(err.at, "/vrfs/default/peers");
        let err = read(LLDP_FILE, BGP_SAMPLE).unwrap_err();
        assert_eq!(err.at, "/lldpNeighbors");
        assert!(
            err.message.contains("show lldp neighbors detail | json"),
            "{err}"
        );
    }

    #[test]
    fn a_wrong_value_is_named_by_its_path() {
        let mut doc: serde_json::Value = serde_json::from_str(LLDP_SAMPLE).unwrap();
        doc["lldpNeighbors"]["Ethernet4"]["lldpNeighborInfo"][0]["systemName"] = 7.into();
        let err = read(LLDP_FILE, &doc.to_string()).unwrap_err();
        assert_eq!(
            err.at,
            "/lldpNeighbors/Ethernet4/lldpNeighborInfo/0/systemName"
        );
        assert_eq!(err.message, "expected a string, found a number");
        let mut doc: serde_json::Value = serde_json::from_str(BGP_SAMPLE).unwrap();
        doc["vrfs"]["default"]["peers"]["10.0.0.3"]["asn"] = "AS65003".into();
        let err = read(BGP_FILE, &doc.to_string()).unwrap_err();
        assert_eq!(err.at, "/vrfs/default/peers/10.0.0.3/asn");
    }
}
