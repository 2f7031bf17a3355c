//! The eBGP underlay in FRR unified mode (frrcfgd; docs/platforms/sonic.md#bgp): DEVICE_METADATA sets
//! `docker_routing_config_mode: unified` and `frr_mgmt_framework_config: true`. Every neighbor gets the
//! permit-all route-map RM_ALLOW_ALL in and out because frrcfgd never renders
//! `no bgp ebgp-requires-policy`. The model's networks (loopback /32, server subnet or /31s) are
//! advertised with BGP_GLOBALS_AF_NETWORK (`network` statements) rather than ROUTE_REDISTRIBUTE
//! connected, so the fabric /31s stay out of BGP. IPv4 unicast is activated by `default_ipv4_unicast`,
//! not by BGP_NEIGHBOR_AF `admin_status`: frrcfgd 202405/202411 activate a neighbor only on `"true"`,
//! which the YANG refuses, and render any other value as `no neighbor X activate`
//! (tests/it/sonic_frr.rs renders frrcfgd's templates per release).

use super::db::{ConfigDb, Row, Table, Value};
use super::key;
use crate::model::Device;
use crate::spell::push_ipv4;
use std::borrow::Cow;

/// The permit-all route-map.
const ALLOW_ALL: &[&str] = &["RM_ALLOW_ALL"];

/// Adds BGP_GLOBALS(_AF, _AF_NETWORK), ROUTE_MAP(_SET) and BGP_NEIGHBOR(_AF).
pub(super) fn add<'a>(db: &mut ConfigDb<'a>, d: &'a Device) {
    let b = &d.bgp;
    db.put(
        "BGP_GLOBALS",
        Table::one(
            "default",
            Row::new([
                ("local_asn", Value::Num(u64::from(b.asn))),
                ("router_id", Value::Ip(b.router_id.into())),
                ("default_ipv4_unicast", "true".into()),
                ("load_balance_mp_relax", "true".into()),
                ("log_nbr_state_changes", "true".into()),
            ]),
        ),
    );
    db.put(
        "BGP_GLOBALS_AF",
        Table::one(
            "default|ipv4_unicast",
            Row::new([("max_ebgp_paths", Value::Num(u64::from(b.maximum_paths)))]),
        ),
    );
    if !b.networks.is_empty() {
        let rows = b
            .networks
            .iter()
            .map(|n| (key(&["default|ipv4_unicast|", n]), Row::empty()));
        db.put("BGP_GLOBALS_AF_NETWORK", Table::owned(rows.collect()));
    }
    db.put("ROUTE_MAP_SET", Table::one(ALLOW_ALL[0], Row::empty()));
    db.put(
        "ROUTE_MAP",
        Table::one(
            "RM_ALLOW_ALL|10",
            Row::new([("route_operation", "permit".into())]),
        ),
    );
    if b.neighbors.is_empty() {
        return;
    }
    let (mut peers, mut afs) = (Vec::new(), Vec::new());
    for n in &b.neighbors {
        let peer = Row::new([
            ("admin_status", "up".into()),
            ("asn", Value::Num(u64::from(n.remote_as))),
            ("local_addr", Value::Ip(n.local_ip.into())),
            ("name", Value::Text(Cow::Borrowed(&n.peer))),
        ]);
        // `default|<ip>`: the neighbor's key, and the start of its address family's.
        let mut peer_key = String::with_capacity(36);
        peer_key.push_str("default|");
        push_ipv4(&mut peer_key, n.ip);
        let af = Row::new([
            ("route_map_in", Value::List(ALLOW_ALL)),
            ("route_map_out", Value::List(ALLOW_ALL)),
        ]);
        afs.push((key(&[&peer_key, "|ipv4_unicast"]), af));
        peers.push((Cow::Owned(peer_key), peer));
    }
    db.put("BGP_NEIGHBOR", Table::owned(peers));
    db.put("BGP_NEIGHBOR_AF", Table::owned(afs));
}
