//! NX-OS documents: what a Nexus switch prints for `show ... | json` (the body NX-API returns for the
//! same command is the same document), read into [`Observed`], and written back from it.
//!
//! NX-OS's JSON nests every table as `TABLE_x` / `ROW_x`, and prints a table of one row as that row
//! rather than a list of one ([`Node::rows`] takes both). `| json` prints every number as a string and
//! `| json native` as a number; the readers take both, the writer prints strings as `| json` does.
//! No document aifab collects from NX-OS reports the lossless state (PFC, watchdog, DSCP, ECN): no
//! public sample of the JSON of `show interface priority-flow-control` or `show queuing pfc-queue`
//! was found to build a reader on, so those values stay `None` and the lossless check skips them on
//! NX-OS (docs/verify.md).

use super::cursor::{Esc, Node, Q};
use super::{Document, ReadError, json};
use crate::verify::Check;
use crate::verify::observed::{
    BgpPeer, BgpSummary, LldpNeighbor, Observed, PortState, Route, canonical_port, peer_state,
};
use std::collections::BTreeMap;
use std::fmt::Write as _;

const HOSTNAME: &str = "show hostname | json";
const LLDP: &str = "show lldp neighbors detail | json";
const BGP: &str = "show bgp ipv4 unicast summary | json";
const ROUTES: &str = "show ip route {prefix} | json";
const INTERFACES: &str = "show interface | json";

const HOSTNAME_FILE: &str = "hostname.json";
const LLDP_FILE: &str = "lldp-neighbors.json";
const BGP_FILE: &str = "bgp-summary.json";
const ROUTES_FILE: &str = "ip-route.json";
const INTERFACES_FILE: &str = "interfaces.json";

/// The NX-OS documents of a state folder, in the order `ansible/collect.yml` fetches them.
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

/// `show hostname | json`: `{"hostname": "leaf1"}`.
fn read_hostname(text: &str, o: &mut Observed) -> Result<(), ReadError> {
    let doc = json(text)?;
    let root = Node::root(&doc);
    o.hostname = Some(root.top("hostname", HOSTNAME)?.str()?.to_string());
    Ok(())
}

/// `show lldp neighbors detail | json`: one `ROW_nbor_detail` per neighbour; with none, NX-OS prints
/// the count alone.
fn read_lldp(text: &str, o: &mut Observed) -> Result<(), ReadError> {
    let doc = json(text)?;
    let root = Node::root(&doc);
    let rows = match root.rows("TABLE_nbor_detail", "ROW_nbor_detail")? {
        Some(rows) => rows,
        None if root.opt("neigh_count")?.is_some() => Vec::new(),
        None => return Err(root.not_from("TABLE_nbor_detail", LLDP)),
    };
    let neighbors = rows.iter().map(lldp_row).collect::<Result<_, _>>()?;
    o.lldp = Some(neighbors);
    Ok(())
}

/// One LLDP neighbour: the local port (`Eth1/1`), the system name, port ID and port description.
fn lldp_row(row: &Node) -> Result<LldpNeighbor, ReadError> {
    let local = row
        .key("l_port_id", "the local port's name (a string)")?
        .str()?;
    Ok(LldpNeighbor {
        local_port: canonical_port(local),
        system_name: advertised(row.opt_str("sys_name")?),
        port_id: advertised(row.opt_str("port_id")?),
        port_descr: advertised(row.opt_str("port_desc")?),
    })
}

/// A TLV's value, `None` where NX-OS says the neighbour did not send it (`null`, `not advertised`).
fn advertised(value: Option<&str>) -> Option<String> {
    value
        .filter(|v| !matches!(*v, "" | "null" | "not advertised"))
        .map(str::to_string)
}

/// `show bgp ipv4 unicast summary | json`: the default VRF's router-id and ASN, and the peers of its
/// IPv4 unicast family (`af-id` 1, `safi` 1). Other VRFs and families (a `vrf all` or `all` summary)
/// are passed over. NX-OS may print a VRF's row twice, once without its families.
fn read_bgp(text: &str, o: &mut Observed) -> Result<(), ReadError> {
    let doc = json(text)?;
    let root = Node::root(&doc);
    let vrfs = root.top_rows("TABLE_vrf", "ROW_vrf", BGP)?;
    let rows = default_vrf(&root, &vrfs)?;
    let mut summary = BgpSummary::default();
    let mut peers = None;
    for vrf in &rows {
        if let Some(id) = vrf.opt("vrf-router-id")? {
            summary.router_id = summary.router_id.or(id.ipv4_or_v6()?);
        }
        if let Some(asn) = vrf.opt("vrf-local-as")? {
            summary.local_as = summary.local_as.or(Some(asn.asn()?));
        }
        if peers.is_none() {
            peers = ipv4_unicast_peers(vrf)?;
        }
    }
    let missing =
        "expected the IPv4 unicast family (`af-id` 1, `safi` 1) of the default VRF, found none";
    summary.peers = peers.ok_or_else(|| rows[0].error(missing))?;
    o.bgp = Some(summary);
    Ok(())
}

/// The rows of the default VRF (at least one).
fn default_vrf<'b>(root: &Node, vrfs: &[Node<'b>]) -> Result<Vec<Node<'b>>, ReadError> {
    let mut rows = Vec::with_capacity(1);
    for vrf in vrfs {
        if vrf.key("vrf-name-out", "the VRF's name")?.str()? == "default" {
            rows.push(*vrf);
        }
    }
    if rows.is_empty() {
        return Err(
            root.error("expected a `ROW_vrf` whose `vrf-name-out` is `default`, found none")
        );
    }
    Ok(rows)
}

/// The peers of the IPv4 unicast family of a VRF's row, `None` when the row has no such family.
fn ipv4_unicast_peers(vrf: &Node) -> Result<Option<Vec<BgpPeer>>, ReadError> {
    for af in vrf.rows("TABLE_af", "ROW_af")?.unwrap_or_default() {
        if af.key("af-id", "the address family's number")?.u64()? != 1 {
            continue;
        }
        for saf in af.rows("TABLE_saf", "ROW_saf")?.unwrap_or_default() {
            let safi = saf.key("safi", "the subsequent address family's number")?;
            if safi.u64()? != 1 {
                continue;
            }
            let rows = saf.rows("TABLE_neighbor", "ROW_neighbor")?;
            let peers = rows
                .unwrap_or_default()
                .iter()
                .map(bgp_peer)
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(Some(peers.into_iter().flatten().collect()));
        }
    }
    Ok(None)
}

/// One BGP peer; `None` for an IPv6 peer.
fn bgp_peer(row: &Node) -> Result<Option<BgpPeer>, ReadError> {
    let Some(ip) = row.key("neighborid", "the peer's address")?.ipv4_or_v6()? else {
        return Ok(None);
    };
    let state = row.key("state", "the session state")?.str()?;
    Ok(Some(BgpPeer {
        ip,
        remote_as: row.opt("neighboras")?.map(|n| n.asn()).transpose()?,
        state: peer_state(state),
        established: state == "Established",
        prefixes_received: row.opt("prefixreceived")?.map(|n| n.u32()).transpose()?,
    }))
}

/// `show ip route | json`: the default VRF's IPv4 prefixes (other VRFs of a `vrf all` are passed
/// over).
/// The route document: one `show ip route <prefix> | json` per sampled prefix, as a JSON list (or one
/// document of the whole table).
fn read_route_list(text: &str, o: &mut Observed) -> Result<(), ReadError> {
    super::routes_list(text, o, read_routes)
}

fn read_routes(text: &str, o: &mut Observed) -> Result<(), ReadError> {
    let doc = json(text)?;
    let root = Node::root(&doc);
    let vrfs = root.top_rows("TABLE_vrf", "ROW_vrf", ROUTES)?;
    let rows = default_vrf(&root, &vrfs)?;
    let mut routes = None;
    for vrf in &rows {
        for af in vrf.rows("TABLE_addrf", "ROW_addrf")?.unwrap_or_default() {
            if af.key("addrf", "the address family's name")?.str()? != "ipv4" {
                continue;
            }
            let prefixes = af.rows("TABLE_prefix", "ROW_prefix")?.unwrap_or_default();
            let list = prefixes.iter().map(route).collect::<Result<Vec<_>, _>>()?;
            routes.get_or_insert_with(Vec::new).extend(list);
        }
    }
    let missing = "expected the `ipv4` family (`TABLE_addrf`) of the default VRF, found none";
    o.routes = Some(routes.ok_or_else(|| rows[0].error(missing))?);
    Ok(())
}

/// One prefix: its protocol is the first best path's (`clientname` `bgp-65001` is `bgp`, `direct`
/// is `connected`), its next hops those of the best paths of that protocol (NX-OS lists a local
/// address twice, as `local` and `direct`).
fn route(row: &Node) -> Result<Route, ReadError> {
    let prefix = row.key("ipprefix", "the prefix")?.str()?;
    let paths = row.rows_req("TABLE_path", "ROW_path", "the prefix's paths")?;
    let mut best = Vec::with_capacity(paths.len());
    for path in &paths {
        if path.opt("ubest")?.map(|b| b.boolean()).transpose()? == Some(true) {
            best.push(*path);
        }
    }
    let chosen = if best.is_empty() { &paths } else { &best };
    if chosen.is_empty() {
        return Err(row.error("expected at least one path in `TABLE_path`, found none"));
    }
    let mut protocol = None;
    let mut next_hops = Vec::with_capacity(chosen.len());
    for path in chosen {
        let this = client_protocol(path.key("clientname", "the path's protocol")?.str()?);
        if protocol.get_or_insert_with(|| this.clone()) != &this {
            continue;
        }
        if let Some(hop) = path.opt("ipnexthop")? {
            next_hops.extend(hop.ipv4_or_v6()?);
        }
    }
    Ok(Route {
        prefix: prefix.to_string(),
        protocol: protocol.unwrap_or_default(),
        next_hops,
    })
}

/// A path's `clientname` as a protocol: lower case, the instance cut off (`ospf-UNDERLAY` is
/// `ospf`), `direct` spelled `connected`.
fn client_protocol(client: &str) -> String {
    let base = client.split_once('-').map_or(client, |(base, _)| base);
    match base.to_ascii_lowercase().as_str() {
        "direct" => "connected".to_string(),
        other => other.to_string(),
    }
}

/// `show interface | json`: the front-panel Ethernet ports' admin and oper state, speed and MTU.
fn read_interfaces(text: &str, o: &mut Observed) -> Result<(), ReadError> {
    let doc = json(text)?;
    let root = Node::root(&doc);
    let rows = root.top_rows("TABLE_interface", "ROW_interface", INTERFACES)?;
    for row in &rows {
        let name = canonical_port(row.key("interface", "the interface's name")?.str()?);
        if !front_panel(&name) {
            continue;
        }
        let port = o.ports.entry(name).or_default();
        port.admin_up = row.opt_str("admin_state")?.map(|s| s == "up");
        port.oper_up = row.opt_str("state")?.map(|s| s == "up");
        port.mtu = row.opt("eth_mtu")?.map(|n| n.u32()).transpose()?;
        port.speed_gbps = speed_gbps(row)?;
    }
    Ok(())
}

/// A front-panel port: `Ethernet1/5`, `Ethernet1/1/2`, not a subinterface, `mgmt0`, a loopback or a
/// VLAN.
fn front_panel(name: &str) -> bool {
    name.starts_with("Ethernet") && !name.contains('.')
}

/// The port's speed in Gbit/s: `eth_speed` (`400 Gb/s`, `1000 Mb/s`; `auto-speed` on a port whose
/// link is down says nothing), else `eth_bw` in kbit/s. `None` for a speed that is not a whole
/// number of Gbit/s.
fn speed_gbps(row: &Node) -> Result<Option<u32>, ReadError> {
    if let Some(text) = row.opt_str("eth_speed")? {
        return Ok(parse_speed(text));
    }
    Ok(match row.opt("eth_bw")? {
        Some(kbit) => whole_gbps(kbit.u64()?, 1_000_000),
        None => None,
    })
}

/// `400 Gb/s` is 400, `1000 Mb/s` is 1; anything else is `None`.
fn parse_speed(text: &str) -> Option<u32> {
    let (number, unit) = text.trim().split_once(' ')?;
    let number: u64 = number.parse().ok()?;
    match unit {
        "Gb/s" => whole_gbps(number, 1),
        "Mb/s" => whole_gbps(number, 1000),
        _ => None,
    }
}

/// `value`, in a unit of which `per_gbit` make one Gbit/s, as whole Gbit/s; `None` for 0 and for a
/// value that is not a whole number of Gbit/s.
fn whole_gbps(value: u64, per_gbit: u64) -> Option<u32> {
    (value > 0 && value.is_multiple_of(per_gbit))
        .then(|| u32::try_from(value / per_gbit).ok())
        .flatten()
}

/// The documents an NX-OS switch prints for exactly the state `o`, as `(file, JSON text)`: one per
/// field of `o` that NX-OS reports and `o` holds (`interfaces.json` when `o.ports` is not empty).
pub fn write(o: &Observed) -> Vec<(&'static str, String)> {
    let mut docs = Vec::with_capacity(DOCUMENTS.len());
    if let Some(name) = &o.hostname {
        docs.push((HOSTNAME_FILE, format!("{{\"hostname\":{}}}", Q(name))));
    }
    if let Some(neighbors) = &o.lldp {
        docs.push((LLDP_FILE, write_lldp(neighbors)));
    }
    if let Some(bgp) = &o.bgp {
        docs.push((BGP_FILE, write_bgp(bgp)));
    }
    if let Some(routes) = &o.routes {
        let local_as = o.bgp.as_ref().and_then(|b| b.local_as);
        docs.push((ROUTES_FILE, write_routes(routes, local_as)));
    }
    if !o.ports.is_empty() {
        docs.push((INTERFACES_FILE, write_interfaces(&o.ports)));
    }
    docs
}

/// `items` as NX-OS prints a table's rows: the row itself when there is one, else a list.
fn write_rows<T>(out: &mut String, items: &[T], mut one: impl FnMut(&mut String, &T)) {
    if let [single] = items {
        return one(out, single);
    }
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        one(out, item);
    }
    out.push(']');
}

/// `show lldp neighbors detail | json` for `neighbors`, local ports abbreviated (`Eth1/1`) as NX-OS
/// prints them, a description not sent as `null`.
fn write_lldp(neighbors: &[LldpNeighbor]) -> String {
    let mut out = String::with_capacity(64 + 160 * neighbors.len());
    out.push('{');
    if !neighbors.is_empty() {
        out.push_str("\"TABLE_nbor_detail\":{\"ROW_nbor_detail\":");
        write_rows(&mut out, neighbors, |out, n| {
            let _ = match n.local_port.strip_prefix("Ethernet") {
                Some(rest) => write!(out, "{{\"l_port_id\":\"Eth{}\"", Esc(rest)),
                None => write!(out, "{{\"l_port_id\":{}", Q(&n.local_port)),
            };
            if let Some(id) = &n.port_id {
                let _ = write!(out, ",\"port_id\":{}", Q(id));
            }
            let _ = write!(
                out,
                ",\"port_desc\":{}",
                Q(n.port_descr.as_deref().unwrap_or("null"))
            );
            if let Some(name) = &n.system_name {
                let _ = write!(out, ",\"sys_name\":{}", Q(name));
            }
            out.push('}');
        });
        out.push_str("},");
    }
    let _ = write!(out, "\"neigh_count\":\"{}\"}}", neighbors.len());
    out
}

/// `show bgp ipv4 unicast summary | json` for `bgp`: the default VRF with its IPv4 unicast family.
fn write_bgp(bgp: &BgpSummary) -> String {
    let mut out = String::with_capacity(256 + 160 * bgp.peers.len());
    out.push_str("{\"TABLE_vrf\":{\"ROW_vrf\":{\"vrf-name-out\":\"default\"");
    if let Some(id) = bgp.router_id {
        let _ = write!(out, ",\"vrf-router-id\":\"{id}\"");
    }
    if let Some(asn) = bgp.local_as {
        let _ = write!(out, ",\"vrf-local-as\":\"{asn}\"");
    }
    out.push_str(",\"TABLE_af\":{\"ROW_af\":{\"af-id\":\"1\",\"TABLE_saf\":{\"ROW_saf\":");
    out.push_str("{\"safi\":\"1\",\"af-name\":\"IPv4 Unicast\"");
    if !bgp.peers.is_empty() {
        out.push_str(",\"TABLE_neighbor\":{\"ROW_neighbor\":");
        write_rows(&mut out, &bgp.peers, write_peer);
        out.push('}');
    }
    out.push_str("}}}}}}}");
    out
}

/// One `ROW_neighbor`.
fn write_peer(out: &mut String, p: &BgpPeer) {
    let _ = write!(out, "{{\"neighborid\":\"{}\"", p.ip);
    if let Some(asn) = p.remote_as {
        let _ = write!(out, ",\"neighboras\":\"{asn}\"");
    }
    let _ = write!(out, ",\"state\":{}", Q(&p.state));
    if let Some(n) = p.prefixes_received {
        let _ = write!(out, ",\"prefixreceived\":\"{n}\"");
    }
    out.push('}');
}

/// `show ip route | json` for `routes` in the default VRF; a BGP path's `clientname` carries the
/// local ASN when known (`bgp-65001`), a route without a next hop gets one path to `Null0`.
fn write_routes(routes: &[Route], local_as: Option<u32>) -> String {
    let bgp_client = local_as.map_or_else(|| "bgp".to_string(), |asn| format!("bgp-{asn}"));
    let mut out = String::with_capacity(128 + 200 * routes.len());
    out.push_str("{\"TABLE_vrf\":{\"ROW_vrf\":{\"vrf-name-out\":\"default\",");
    out.push_str("\"TABLE_addrf\":{\"ROW_addrf\":{\"addrf\":\"ipv4\"");
    if !routes.is_empty() {
        out.push_str(",\"TABLE_prefix\":{\"ROW_prefix\":");
        write_rows(&mut out, routes, |out, r| write_prefix(out, r, &bgp_client));
        out.push('}');
    }
    out.push_str("}}}}}");
    out
}

/// One `ROW_prefix` with its best paths.
fn write_prefix(out: &mut String, r: &Route, bgp_client: &str) {
    let client = match r.protocol.as_str() {
        "connected" => "direct",
        "bgp" => bgp_client,
        other => other,
    };
    let _ = write!(
        out,
        "{{\"ipprefix\":{},\"ucast-nhops\":\"{}\",\"mcast-nhops\":\"0\",\"TABLE_path\":{{\"ROW_path\":",
        Q(&r.prefix),
        r.next_hops.len()
    );
    if r.next_hops.is_empty() {
        let _ = write!(
            out,
            "{{\"ifname\":\"Null0\",\"clientname\":{},\"ubest\":\"true\"}}",
            Q(client)
        );
    } else {
        write_rows(out, &r.next_hops, |out, hop| {
            let _ = write!(
                out,
                "{{\"ipnexthop\":\"{hop}\",\"clientname\":{},\"ubest\":\"true\"}}",
                Q(client)
            );
        });
    }
    out.push_str("}}");
}

/// `show interface | json` for `ports`: state, admin state, MTU, bandwidth (kbit/s) and speed.
fn write_interfaces(ports: &BTreeMap<String, PortState>) -> String {
    let mut out = String::with_capacity(64 + 180 * ports.len());
    out.push_str("{\"TABLE_interface\":{\"ROW_interface\":");
    let list: Vec<(&String, &PortState)> = ports.iter().collect();
    write_rows(&mut out, &list, |out, (name, port)| {
        let _ = write!(out, "{{\"interface\":{}", Q(name));
        if let Some(up) = port.oper_up {
            let _ = write!(out, ",\"state\":\"{}\"", up_down(up));
        }
        if let Some(up) = port.admin_up {
            let _ = write!(out, ",\"admin_state\":\"{}\"", up_down(up));
        }
        if let Some(mtu) = port.mtu {
            let _ = write!(out, ",\"eth_mtu\":\"{mtu}\"");
        }
        if let Some(gbps) = port.speed_gbps {
            let kbit = u64::from(gbps) * 1_000_000;
            let _ = write!(out, ",\"eth_bw\":\"{kbit}\",\"eth_speed\":\"{gbps} Gb/s\"");
        }
        out.push('}');
    });
    out.push_str("}}");
    out
}

/// NX-OS's spelling of a state.
fn up_down(up: bool) -> &'static str {
    if up { "up" } else { "down" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::observed::EcnState;
    use std::net::Ipv4Addr;

    const HOSTNAME_SAMPLE: &str = include_str!("../../../tests/verify/nxos/hostname.json");
    const LLDP_SAMPLE: &str = include_str!("../../../tests/verify/nxos/lldp-neighbors.json");
    const BGP_SAMPLE: &str = include_str!("../../../tests/verify/nxos/bgp-summary.json");
    const BGP_ASDOT_SAMPLE: &str =
        include_str!("../../../tests/verify/nxos/bgp-summary-asdot.json");
    const ROUTES_SAMPLE: &str = include_str!("../../../tests/verify/nxos/ip-route.json");
    const INTERFACES_SAMPLE: &str = include_str!("../../../tests/verify/nxos/interfaces.json");
    const ADMIN_DOWN_SAMPLE: &str =
        include_str!("../../../tests/verify/nxos/interfaces-admin-down.json");

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
        assert!(DOCUMENTS.iter().all(|d| d.command.ends_with(" | json")));
        let lldp = &DOCUMENTS[1];
        assert_eq!(lldp.command, "show lldp neighbors detail | json");
        assert_eq!(lldp.serves, [Check::Cabling]);
        assert_eq!(DOCUMENTS[4].serves, [Check::Ports]);
    }

    #[test]
    fn hostname_sample() {
        let o = read(HOSTNAME_FILE, HOSTNAME_SAMPLE).unwrap();
        assert_eq!(o.hostname.as_deref(), Some("nxos-spine1.domain.com"));
    }

    #[test]
    fn lldp_sample_expands_local_ports_and_drops_null_descriptions() {
        let lldp = read(LLDP_FILE, LLDP_SAMPLE).unwrap().lldp.unwrap();
        assert_eq!(lldp.len(), 13);
        let isl = LldpNeighbor {
            local_port: "Ethernet1/35".into(),
            system_name: Some("sa-tme-flexpod-9336-fx2-gg28-02".into()),
            port_id: Some("Ethernet1/35".into()),
            port_descr: Some("LOCAL_ISL Switch 100G Port".into()),
        };
        assert_eq!(lldp[11], isl);
        assert_eq!(lldp[1].local_port, "Ethernet1/1");
        assert_eq!(
            lldp[1].system_name.as_deref(),
            Some("sa-tme-flexpod-afx-c1-01")
        );
        assert_eq!(lldp[1].port_id.as_deref(), Some("e4b"));
        assert_eq!(lldp[1].port_descr, None, "`null` is a description not sent");
        assert_eq!(lldp[0].local_port, "mgmt0");
        assert_eq!(lldp[0].port_id.as_deref(), Some("Ethernet1/44"));
    }

    #[test]
    fn lldp_single_row_is_an_object_and_no_neighbour_is_the_count_alone() {
        let mut doc: serde_json::Value = serde_json::from_str(LLDP_SAMPLE).unwrap();
        let row = doc["TABLE_nbor_detail"]["ROW_nbor_detail"][12].take();
        doc["TABLE_nbor_detail"]["ROW_nbor_detail"] = row;
        let lldp = read(LLDP_FILE, &doc.to_string()).unwrap().lldp.unwrap();
        assert_eq!(lldp.len(), 1);
        assert_eq!(lldp[0].local_port, "Ethernet1/36");
        assert_eq!(lldp[0].port_id.as_deref(), Some("Ethernet1/36"));
        let none = read(LLDP_FILE, r#"{"neigh_count": "0"}"#).unwrap();
        assert_eq!(none.lldp, Some(Vec::new()));
    }

    /// A peer as (address, ASN, state, established, prefixes received).
    type PeerRow<'a> = (Ipv4Addr, Option<u32>, &'a str, bool, Option<u32>);

    #[test]
    fn bgp_sample_is_the_default_vrf_ipv4_unicast_family() {
        let bgp = read(BGP_FILE, BGP_SAMPLE).unwrap().bgp.unwrap();
        assert_eq!(bgp.router_id, Some(ip("10.0.0.31")));
        assert_eq!(bgp.local_as, Some(64520));
        let peers: Vec<PeerRow> = bgp
            .peers
            .iter()
            .map(|p| {
                (
                    p.ip,
                    p.remote_as,
                    &*p.state,
                    p.established,
                    p.prefixes_received,
                )
            })
            .collect();
        assert_eq!(
            peers,
            [
                (ip("10.0.0.21"), Some(64520), "Established", true, Some(0)),
                (ip("10.0.0.22"), Some(64520), "Established", true, Some(0)),
                (
                    ip("169.254.254.2"),
                    Some(65533),
                    "Established",
                    true,
                    Some(10)
                ),
            ],
            "the EVPN family's and the other VRFs' peers are not the IPv4 unicast sessions"
        );
    }

    #[test]
    fn bgp_sample_in_strings_and_asdot_with_evpn_peers_only() {
        let bgp = read(BGP_FILE, BGP_ASDOT_SAMPLE).unwrap().bgp.unwrap();
        assert_eq!(bgp.router_id, Some(ip("10.3.1.136")));
        assert_eq!(bgp.local_as, Some(8 * 65536 + 1201), "`8.1201` in asdot");
        assert_eq!(
            bgp.peers,
            [],
            "10.1.1.134 and .135 are L2VPN EVPN peers, not IPv4 unicast"
        );
    }

    #[test]
    fn routes_sample_is_the_default_vrf_with_best_paths() {
        let routes = read(ROUTES_FILE, ROUTES_SAMPLE).unwrap().routes.unwrap();
        assert_eq!(routes.len(), 28);
        let find = |p: &str| routes.iter().find(|r| r.prefix == p).expect(p);
        let default = find("0.0.0.0/0");
        assert_eq!(
            (default.protocol.as_str(), &default.next_hops[..]),
            ("bgp", &[ip("169.254.254.2")][..])
        );
        let ecmp = find("10.0.0.11/32");
        assert_eq!(ecmp.protocol, "ospf");
        assert_eq!(ecmp.next_hops, [ip("10.0.0.21"), ip("10.0.0.22")]);
        let own = find("10.0.0.31/32");
        assert_eq!(
            (own.protocol.as_str(), &own.next_hops[..]),
            ("local", &[ip("10.0.0.31")][..])
        );
        assert_eq!(find("169.254.254.0/30").protocol, "connected");
        assert!(
            routes.iter().all(|r| r.prefix != "172.16.1.101/32"),
            "an evpn-vrf route"
        );
    }

    #[test]
    fn interfaces_sample_in_strings_40g_and_mgmt0_left_out() {
        let ports = read(INTERFACES_FILE, INTERFACES_SAMPLE).unwrap().ports;
        let names: Vec<&str> = ports.keys().map(String::as_str).collect();
        assert_eq!(names, ["Ethernet1/1", "Ethernet1/2"]);
        let up = PortState {
            admin_up: Some(true),
            oper_up: Some(true),
            speed_gbps: Some(40),
            mtu: Some(9216),
            ..PortState::default()
        };
        assert_eq!(ports["Ethernet1/1"], up);
        assert_eq!(ports["Ethernet1/2"], up);
    }

    #[test]
    fn interfaces_sample_down_and_shut_with_auto_speed() {
        let ports = read(INTERFACES_FILE, ADMIN_DOWN_SAMPLE).unwrap().ports;
        let link_down = &ports["Ethernet1/1"];
        assert_eq!(
            (link_down.admin_up, link_down.oper_up),
            (Some(true), Some(false))
        );
        assert_eq!((link_down.speed_gbps, link_down.mtu), (None, Some(1500)));
        let shut = &ports["Ethernet1/2"];
        assert_eq!((shut.admin_up, shut.oper_up), (Some(false), Some(false)));
    }

    #[test]
    fn speeds_turn_into_whole_gbits() {
        assert_eq!(parse_speed("400 Gb/s"), Some(400));
        assert_eq!(parse_speed("1000 Mb/s"), Some(1));
        assert_eq!(parse_speed("100 Mb/s"), None);
        assert_eq!(parse_speed("auto-speed"), None);
        assert_eq!(whole_gbps(400_000_000, 1_000_000), Some(400));
        assert_eq!(whole_gbps(0, 1_000_000), None);
    }

    /// A state with every field NX-OS's documents report, and none they do not.
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
            mtu: Some(9216),
            ..PortState::default()
        };
        Observed {
            hostname: Some("z1-g1-r1".into()),
            lldp: Some(vec![
                neighbor(
                    "Ethernet1/1",
                    "ss1",
                    "Ethernet1/1",
                    Some("z1-g1-r1:Ethernet1/1"),
                ),
                neighbor("Ethernet1/2", "server0001", "enp1s0f0", None),
                neighbor("Ethernet1/1/2", "ss2", "Ethernet3/1", Some("uplink \"a\"")),
            ]),
            bgp: Some(BgpSummary {
                router_id: Some(ip("10.30.0.1")),
                local_as: Some(4_200_000_001),
                peers: vec![
                    peer("10.31.0.1", 65300, "Established", Some(12)),
                    peer("10.31.0.3", 65300, "Idle", None),
                    peer("10.31.0.5", 65301, "Active", Some(0)),
                ],
            }),
            routes: Some(vec![
                route("10.2.0.0/26", "bgp", &["10.31.0.1", "10.31.0.3"]),
                route("10.31.0.0/31", "connected", &["10.31.0.0"]),
                route("10.30.0.1/32", "local", &["10.30.0.1"]),
                route("10.9.0.0/16", "bgp", &[]),
            ]),
            ports: BTreeMap::from([
                ("Ethernet1/1".into(), port(true, true, Some(400))),
                ("Ethernet1/1/2".into(), port(true, false, None)),
                ("Ethernet1/2".into(), port(false, false, Some(100))),
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
        let o = reported_state();
        let docs = write(&o);
        assert_eq!(docs.len(), DOCUMENTS.len());
        assert_eq!(read_all(&docs), o);
    }

    #[test]
    fn round_trip_of_single_rows_and_empty_tables() {
        let mut o = reported_state();
        o.lldp.as_mut().unwrap().truncate(1);
        o.bgp.as_mut().unwrap().peers.truncate(1);
        o.routes.as_mut().unwrap().truncate(1);
        o.ports.retain(|name, _| name == "Ethernet1/1");
        let docs = write(&o);
        let lldp: serde_json::Value = serde_json::from_str(&docs[1].1).unwrap();
        assert!(
            lldp["TABLE_nbor_detail"]["ROW_nbor_detail"].is_object(),
            "one row is an object"
        );
        assert_eq!(
            lldp["TABLE_nbor_detail"]["ROW_nbor_detail"]["l_port_id"],
            "Eth1/1"
        );
        assert_eq!(read_all(&docs), o);
        let empty = Observed {
            lldp: Some(Vec::new()),
            bgp: Some(BgpSummary::default()),
            routes: Some(Vec::new()),
            ..Observed::default()
        };
        assert_eq!(read_all(&write(&empty)), empty);
    }

    #[test]
    fn what_nxos_does_not_report_is_not_written() {
        let mut o = reported_state();
        let port = o.ports.get_mut("Ethernet1/1").unwrap();
        port.pfc_priorities = Some(vec![3]);
        port.ecn = Some(std::sync::Arc::new(BTreeMap::from([(
            3,
            EcnState {
                min_bytes: 1,
                max_bytes: 2,
            },
        )])));
        o.qos.watchdog_enabled = Some(true);
        assert_eq!(read_all(&write(&o)), reported_state());
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
        let err = read(LLDP_FILE, BGP_SAMPLE).unwrap_err();
        assert_eq!(err.at, "/TABLE_nbor_detail");
        assert!(
            err.message.contains("show lldp neighbors detail | json"),
            "{err}"
        );
        assert!(read(BGP_FILE, "[]").is_err());
    }

    #[test]
    fn a_wrong_value_is_named_by_its_path() {
        let mut doc: serde_json::Value = serde_json::from_str(LLDP_SAMPLE).unwrap();
        doc["TABLE_nbor_detail"]["ROW_nbor_detail"][3]["l_port_id"] = 7.into();
        let err = read(LLDP_FILE, &doc.to_string()).unwrap_err();
        assert_eq!(err.at, "/TABLE_nbor_detail/ROW_nbor_detail/3/l_port_id");
        assert_eq!(err.message, "expected a string, found a number");
        let mut doc: serde_json::Value = serde_json::from_str(INTERFACES_SAMPLE).unwrap();
        doc["TABLE_interface"]["ROW_interface"][2]["eth_mtu"] = "jumbo".into();
        let err = read(INTERFACES_FILE, &doc.to_string()).unwrap_err();
        assert_eq!(err.at, "/TABLE_interface/ROW_interface/2/eth_mtu");
    }
}
