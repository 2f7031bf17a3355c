//! DEVICE_METADATA, PORT, DEVICE_NEIGHBOR(_METADATA) and MGMT_PORT/MGMT_INTERFACE
//! (docs/platforms/sonic.md#ports-and-lanes, #management).
//!
//! No `mac` (the YANG does not require it and aifab has no source for it: SONiC takes the system MAC from
//! the platform EEPROM when it is absent), no PORT `alias`/`index` (they come from the SKU's
//! `port_config.ini`, which aifab only has lane numbers from).

use super::db::{ConfigDb, Row, Table, Value};
use crate::intent::Role;
use crate::model::Device;
use crate::platform::{Platform, SonicFacts};
use std::borrow::Cow;

/// The PORT `lanes` of every front-panel port of a platform (index = port - 1): `33,34,...,40`.
#[derive(Debug)]
pub(super) struct PortParts {
    lanes: Vec<Option<String>>,
}

impl PortParts {
    /// The lanes of every port of `pf`.
    pub(super) fn new(pf: &Platform) -> PortParts {
        PortParts {
            lanes: (1..=pf.ports.count).map(|p| pf.lanes(p)).collect(),
        }
    }

    fn lanes(&self, port: u32) -> Option<&str> {
        let i = usize::try_from(port.checked_sub(1)?).ok()?;
        self.lanes.get(i)?.as_deref()
    }
}

/// DEVICE_METADATA `type` and DEVICE_NEIGHBOR_METADATA `type` of a role.
fn device_type(role: Role) -> &'static str {
    match role {
        Role::Leaf => "LeafRouter",
        Role::Spine | Role::SuperSpine => "SpineRouter",
    }
}

/// Adds DEVICE_METADATA, PORT, DEVICE_NEIGHBOR(_METADATA) and the management port.
pub(super) fn add<'a>(
    db: &mut ConfigDb<'a>,
    d: &'a Device,
    pf: &'a Platform,
    sku: &'a SonicFacts,
    ports: &'a PortParts,
) {
    let text = |s: &'a str| Value::Text(Cow::Borrowed(s));
    let fixed = [
        ("hostname", text(&d.hostname)),
        ("hwsku", text(&sku.hwsku)),
        ("type", device_type(d.role).into()),
        ("bgp_asn", Value::Num(u64::from(d.bgp.asn))),
        ("bgp_router_id", Value::Ip(d.bgp.router_id.into())),
        ("buffer_model", "traditional".into()),
        ("default_bgp_status", "up".into()),
        ("default_pfcwd_status", "disable".into()),
        ("docker_routing_config_mode", "unified".into()),
        ("frr_mgmt_framework_config", "true".into()),
        ("synchronous_mode", "enable".into()),
    ];
    let platform = sku.platform.as_deref().map(|p| ("platform", text(p)));
    db.put(
        "DEVICE_METADATA",
        Table::one("localhost", Row::new(fixed.into_iter().chain(platform))),
    );

    let (mut port, mut neighbor) = (Vec::new(), Vec::new());
    for i in &d.interfaces {
        let name = Cow::Borrowed(i.name.as_str());
        let fec = pf.ports.fec.get(&i.speed_gbps).filter(|f| !f.is_empty());
        let optional = [
            fec.map(|f| ("fec", text(f))),
            ports.lanes(i.port).map(|l| ("lanes", text(l))),
        ];
        let fields = [
            ("admin_status", "up".into()),
            ("description", text(&i.description)),
            ("mtu", Value::Num(u64::from(i.mtu))),
            ("speed", Value::Num(u64::from(i.speed_gbps) * 1000)),
        ];
        port.push((
            name.clone(),
            Row::new(fields.into_iter().chain(optional.into_iter().flatten())),
        ));
        let peer = Row::new([("name", text(&i.peer)), ("port", text(&i.peer_port))]);
        neighbor.push((name, peer));
    }
    db.put("PORT", Table::owned(port));
    db.put("DEVICE_NEIGHBOR", Table::owned(neighbor));
    // One entry per switch peer (servers have no metadata to give).
    if !d.bgp.peers.is_empty() {
        let rows = d.bgp.peers.iter().map(|p| {
            let row = Row::new([("type", device_type(p.role).into())]);
            (Cow::Borrowed(p.name.as_str()), row)
        });
        db.put("DEVICE_NEIGHBOR_METADATA", Table::owned(rows.collect()));
    }
    // sonic-mgmt_interface.yang: MGMT_INTERFACE|<port>|<prefix> with gwaddr; its `name` is a leafref to
    // MGMT_PORT, so the out-of-band port eth0 is declared too.
    if let Some(m) = &d.management {
        db.put(
            "MGMT_PORT",
            Table::one("eth0", Row::new([("admin_status", "up".into())])),
        );
        let k = format!("eth0|{}/{}", m.ip, m.prefix_len);
        let row = Row::new([("gwaddr", Value::Ip(m.gateway))]);
        db.put("MGMT_INTERFACE", Table::owned(vec![(Cow::Owned(k), row)]));
    }
}
