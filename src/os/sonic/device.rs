//! DEVICE_METADATA, PORT, DEVICE_NEIGHBOR(_METADATA) and MGMT_PORT/MGMT_INTERFACE
//! (docs/platforms/sonic.md#ports-and-lanes, #device-type, #management).
//!
//! PORT carries the SKU's `port_config.ini` row of every front-panel port (name, lanes, alias, index,
//! FEC; an unused port `admin_status` down with the unused-port description), so
//! the file a switch boots from has what portsyncd, xcvrd and ledd read. No `mac`: it is per switch;
//! `config reload` fills it from the platform and `config save -y` keeps it (docs/platforms/sonic.md#loading).

use super::PortOrder;
use super::db::{ConfigDb, Entries, Row, Table, Value};
use crate::intent::Role;
use crate::model::Device;
use crate::os::OsError;
use crate::os::common::UNUSED_DESCRIPTION;
use crate::platform::{BufferModel, Platform, PortMode, SonicFacts, SonicPort};
use crate::units::Speed;
use std::borrow::Cow;

/// DEVICE_METADATA `type` (and DEVICE_NEIGHBOR_METADATA `type`) of a role: SONiC's AI back-end types.
/// SONiC's `buffers_config.j2` picks the SKU's `buffers_defaults_<t>.j2` by this type (`...ToRRouter`:
/// t0, `...LeafRouter`: t1, `...SpineRouter`: t2), so `config qos reload` regenerates the pools and
/// profiles aifab wrote from the same file. Super-spines are `BackEndLeafRouter` too: a `SpineRouter`
/// type would select `buffers_defaults_t2.j2`, which no SKU in `vendors/sonic.yaml` ships, and
/// `BackEndSpineRouter` is not in the 202405 YANG (docs/platforms/sonic.md#device-type).
pub fn device_type(role: Role) -> &'static str {
    match role {
        Role::Leaf => "BackEndToRRouter",
        Role::Spine | Role::SuperSpine => "BackEndLeafRouter",
    }
}

/// PORT rows of the front-panel ports no link uses: the SKU's row, `admin_status` down and the
/// unused-port description, so a `config reload` leaves no port up in its default state.
fn unused_ports<'a>(d: &'a Device, sku: &'a SonicFacts) -> Result<Entries<'a>, OsError> {
    let text = |s: &'a str| Value::Text(Cow::Borrowed(s));
    d.unused_ports
        .iter()
        .map(|u| {
            let row = port_row(d, sku, u.port, &u.name)?;
            let fec = sku.fec_of(&row).map(|f| ("fec", f.as_str().into()));
            let fields = [
                ("admin_status", "down".into()),
                ("alias", row_text(&row, |r| &r.alias)),
                ("description", text(UNUSED_DESCRIPTION)),
            ];
            let rest = [
                ("index", Value::Num(u64::from(row.index))),
                ("lanes", row_text(&row, |r| &r.lanes)),
                ("speed", Value::Num(row.speed)),
            ];
            let sub = subport(d, sku, u.port);
            let fields = fields.into_iter().chain(fec).chain(rest).chain(sub);
            Ok((Cow::Borrowed(&*u.name), Row::new(fields)))
        })
        .collect()
}

/// The PORT row of port number `port` of `d`: the SKU's row, or for a broken-out port the child row
/// derived from its front-panel port's ([`SonicFacts::child`]) at the child speed.
fn port_row<'a>(
    d: &Device,
    sku: &'a SonicFacts,
    port: u32,
    name: &str,
) -> Result<Cow<'a, SonicPort>, OsError> {
    let missing = || OsError::PortNotInSku {
        host: d.hostname.to_string(),
        name: name.to_string(),
        port,
        hwsku: sku.hwsku.clone(),
    };
    let place = d.locate(port).ok_or_else(missing)?;
    if place.children <= 1 {
        return sku.port(place.panel).map(Cow::Borrowed).ok_or_else(missing);
    }
    let mut row = sku
        .child(place.panel, place.child, place.children)
        .ok_or_else(missing)?;
    row.speed = u64::from(place.speed_gbps) * 1000;
    Ok(Cow::Owned(row))
}

/// A text field of a PORT row, borrowed from the SKU's table when the row is.
fn row_text<'a>(row: &Cow<'a, SonicPort>, field: fn(&SonicPort) -> &String) -> Value<'a> {
    match row {
        Cow::Borrowed(r) => Value::Text(Cow::Borrowed(field(r).as_str())),
        Cow::Owned(r) => Value::Text(Cow::Owned(field(r).clone())),
    }
}

/// BREAKOUT_CFG of a SKU with breakout facts (`default_brkout_mode`): every front-panel cage keyed by
/// its first port, with the platform's keyword for a cage the device breaks out and the SKU's
/// `hwsku.json` default for the others (the O128S2's default is already 2x400G), as SONiC's
/// sonic-cfggen writes it from hwsku.json at first boot. Without the table SONiC's dynamic port
/// breakout (`config interface breakout`) refuses to run (docs/platforms/sonic.md#breakout).
fn breakout_cfg<'a>(
    d: &Device,
    pf: &'a Platform,
    sku: &'a SonicFacts,
) -> Result<Option<Entries<'a>>, OsError> {
    let Some(default) = sku.default_brkout_mode.as_deref() else {
        return Ok(None);
    };
    let mut rows = Vec::new();
    for panel in 1..=pf.ports.count {
        if !sku.opens_cage(panel) {
            continue;
        }
        let parent = sku.port(panel).ok_or_else(|| OsError::PanelNotInSku {
            host: d.hostname.to_string(),
            panel,
            hwsku: sku.hwsku.clone(),
        })?;
        let group = d
            .breakouts()
            .find(|g| (g.first_panel..g.first_panel + g.panels).contains(&panel));
        let mode = match group {
            None => default,
            Some(g) => {
                let m = PortMode {
                    children: g.children,
                    speed: Speed(g.speed_gbps),
                };
                pf.breakout(m).map(|b| b.keyword.as_str()).ok_or_else(|| {
                    OsError::NoBreakoutMode {
                        host: d.hostname.to_string(),
                        children: g.children,
                        speed_gbps: g.speed_gbps,
                    }
                })?
            }
        };
        let row = Row::new([("brkout_mode", Value::Text(Cow::Borrowed(mode)))]);
        rows.push((Cow::Borrowed(parent.name.as_str()), row));
    }
    Ok(Some(rows))
}

/// PORT `subport` of port number `port` of `d` (SONiC's breakout code writes it; xcvrd reads it):
/// the child's place in a broken-out cage, else the SKU row's ([`SonicFacts::subport`]).
fn subport(d: &Device, sku: &SonicFacts, port: u32) -> Option<(&'static str, Value<'static>)> {
    let place = d.locate(port)?;
    let n = match place.children {
        1 => sku.subport(place.panel)?,
        _ => {
            sku.default_brkout_mode.as_ref()?;
            place.child
        }
    };
    Some(("subport", Value::Num(u64::from(n))))
}

/// Adds DEVICE_METADATA, PORT, BREAKOUT_CFG (broken-out devices), DEVICE_NEIGHBOR(_METADATA) and the
/// management port.
pub(super) fn add<'a>(
    db: &mut ConfigDb<'a>,
    d: &'a Device,
    order: &PortOrder<'a>,
    pf: &'a Platform,
    sku: &'a SonicFacts,
) -> Result<(), OsError> {
    db.put("DEVICE_METADATA", device_metadata(d, sku));
    let (mut port, neighbor) = port_rows(d, order, sku)?;
    port.extend(unused_ports(d, sku)?);
    db.put("PORT", Table::owned(port));
    if let Some(rows) = breakout_cfg(d, pf, sku)? {
        db.put("BREAKOUT_CFG", Table::owned(rows));
    }
    db.put("DEVICE_NEIGHBOR", Table::owned(neighbor));
    // One entry per switch peer (servers have no metadata to give).
    if !d.bgp.peers.is_empty() {
        let rows = d.bgp.peers.iter().map(|p| {
            let row = Row::new([("type", device_type(p.role).into())]);
            (Cow::Borrowed(p.name.as_ref()), row)
        });
        db.put("DEVICE_NEIGHBOR_METADATA", Table::owned(rows.collect()));
    }
    add_management(db, d);
    Ok(())
}

/// `DEVICE_METADATA|localhost`: name, SKU, role, BGP identity and the fixed switch settings.
fn device_metadata<'a>(d: &'a Device, sku: &'a SonicFacts) -> Table<'a> {
    let text = |s: &'a str| Value::Text(Cow::Borrowed(s));
    let fixed = [
        ("hostname", text(&d.hostname)),
        ("hwsku", text(&sku.hwsku)),
        ("type", device_type(d.role).into()),
        ("bgp_asn", Value::Num(u64::from(d.bgp.asn))),
        ("bgp_router_id", Value::Ip(d.bgp.router_id.into())),
        ("buffer_model", buffer_model(sku).into()),
        ("default_bgp_status", "up".into()),
        ("default_pfcwd_status", "disable".into()),
        ("docker_routing_config_mode", "separated".into()),
        ("frr_mgmt_framework_config", "false".into()),
        ("synchronous_mode", "enable".into()),
    ];
    let platform = [("platform", text(&sku.platform))];
    Table::one("localhost", Row::new(fixed.into_iter().chain(platform)))
}

/// DEVICE_METADATA `buffer_model`: the SKU's buffer model, traditional for a SKU without buffer
/// numbers (docs/platforms/sonic.md#buffers).
fn buffer_model(sku: &SonicFacts) -> &'static str {
    sku.buffers
        .as_ref()
        .map_or(BufferModel::Traditional, |b| b.model)
        .as_str()
}

/// A `PORT` row and a `DEVICE_NEIGHBOR` row for each cabled port, in port order.
fn port_rows<'a>(
    d: &'a Device,
    order: &PortOrder<'a>,
    sku: &'a SonicFacts,
) -> Result<(Entries<'a>, Entries<'a>), OsError> {
    let text = |s: &'a str| Value::Text(Cow::Borrowed(s));
    let (mut port, mut neighbor) = (Vec::new(), Vec::new());
    for i in &order.plain {
        let name = Cow::Borrowed(i.name.as_ref());
        let row = port_row(d, sku, i.port, &i.name)?;
        let fec = sku.fec_of(&row).map(|f| ("fec", f.as_str().into()));
        // In field order (`fec` between `description` and `index`): the row needs no sort.
        let fields = [
            ("admin_status", "up".into()),
            ("alias", row_text(&row, |r| &r.alias)),
            ("description", text(&i.description)),
        ];
        let rest = [
            ("index", Value::Num(u64::from(row.index))),
            ("lanes", row_text(&row, |r| &r.lanes)),
            ("mtu", Value::Num(u64::from(i.mtu))),
            ("speed", Value::Num(u64::from(i.speed_gbps) * 1000)),
        ];
        let sub = subport(d, sku, i.port);
        let fields = fields.into_iter().chain(fec).chain(rest).chain(sub);
        port.push((name.clone(), Row::new(fields)));
        let peer = Row::new([("name", text(&i.peer)), ("port", text(&i.peer_port))]);
        neighbor.push((name, peer));
    }
    Ok((port, neighbor))
}

/// sonic-mgmt_interface.yang: MGMT_INTERFACE|<port>|<prefix> with gwaddr; its `name` is a leafref to
/// MGMT_PORT, so the out-of-band port eth0 is declared too.
fn add_management<'a>(db: &mut ConfigDb<'a>, d: &'a Device) {
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

/// The alias of port number `port` of `d` in its SKU's port table (`etp1`, `fourhundredGigE1/1`): what
/// SONiC's lldpmgrd sends as the port's LLDP port ID. `None` when the platform has no SONiC facts or the
/// port is not in its table.
pub fn port_alias(d: &Device, pf: &Platform, port: u32) -> Option<String> {
    let sku = pf.sonic.as_ref()?;
    let row = port_row(d, sku, port, "").ok()?;
    Some(row.alias.to_string())
}
