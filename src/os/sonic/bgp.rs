//! The eBGP underlay in SONiC's default routing mode (docs/platforms/sonic.md#bgp): DEVICE_METADATA
//! sets `docker_routing_config_mode: separated` and `frr_mgmt_framework_config: false`, so at boot
//! docker-fpm-frr renders bgpd.conf, zebra.conf and staticd.conf from SONiC's own templates and
//! bgpcfgd adds one neighbor per BGP_NEIGHBOR row (peer group PEER_V4, route-maps FROM_BGP_PEER_V4 /
//! TO_BGP_PEER_V4, activated for IPv4 unicast). That is the mode SONiC's traffic shift (TSA/TSB)
//! works in: bgpcfgd rewrites TO_BGP_PEER_V4 when BGP_DEVICE_GLOBAL|STATE says `tsa_enabled`.
//!
//! BGP_NEIGHBOR rows are keyed by the peer address (the YANG list bgpcfgd reads) and carry the peer's
//! ASN, our address and its name; no `admin_status`: `default_bgp_status: up` brings every neighbor
//! up, and frrcfgd (should a switch run it) logs two errors per neighbor for `admin_status: up`.
//! The device's own prefixes are announced by the bgpd template itself: Loopback0 and every
//! VLAN_INTERFACE subnet (a routed server port is a one-port VLAN for that reason, see l3.rs).
//! `maximum-paths` comes from the release's constants.yml (64 on 202405, 514 from 202411), not from
//! config_db; AIF-BGP-008 refuses an ECMP width above it (`sonic.bgp_max_paths`).
//! tests/it/sonic_frr.rs starts each release's bgp container chain on every file.

use super::db::{ConfigDb, Row, Table, Value};
use crate::model::Device;
use std::borrow::Cow;

/// Adds BGP_NEIGHBOR, one row per fabric link, keyed by the neighbor address.
pub(super) fn add<'a>(db: &mut ConfigDb<'a>, d: &'a Device) {
    if d.bgp.neighbors.is_empty() {
        return;
    }
    let mut rows: Vec<_> = d
        .bgp
        .neighbors
        .iter()
        .map(|n| {
            let row = Row::new([
                ("asn", Value::Num(u64::from(n.remote_as))),
                ("local_addr", Value::Ip(n.local_ip.into())),
                ("name", Value::Text(Cow::Borrowed(&n.peer))),
            ]);
            (Cow::<str>::Owned(n.ip.to_string()), row)
        })
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    db.put("BGP_NEIGHBOR", Table::owned(rows));
}
