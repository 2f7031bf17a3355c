//! LOOPBACK_INTERFACE, INTERFACE, VLAN, VLAN_MEMBER and VLAN_INTERFACE
//! (docs/platforms/sonic.md#interfaces). The interface tables are two YANG lists each (`<name>` and
//! `<name>|<prefix>`), so both key forms are written.
//!
//! A routed server port (a /31 to a NIC) is a VLAN of its own, `Vlan<3000 + port>` with the port as
//! its one untagged member and the /31 on the VLAN interface: SONiC's default routing mode announces
//! Loopback0 and the VLAN_INTERFACE subnets and nothing else (docker-fpm-frr bgpd.main.conf.j2), so a
//! /31 on a routed port would never reach the fabric (docs/platforms/sonic.md#bgp).

use super::db::{ConfigDb, Row, Table, Value};
use super::{PortOrder, key};
use crate::model::{Device, Interface, PortKind};
use std::borrow::Cow;

/// Adds the loopback, routed ports and the server VLAN.
pub(super) fn add<'a>(db: &mut ConfigDb<'a>, d: &'a Device, order: &PortOrder<'a>) {
    db.put(
        "LOOPBACK_INTERFACE",
        Table::owned(vec![
            (Cow::Borrowed("Loopback0"), Row::empty()),
            (
                Cow::Owned(format!("Loopback0|{}/32", d.loopback)),
                Row::empty(),
            ),
        ]),
    );
    let routed = interface_keys(order);
    if !routed.is_empty() {
        let rows = routed.into_iter().map(|k| (k, Row::empty()));
        db.put("INTERFACE", Table::owned(rows.collect()));
    }
    add_port_vlans(db, order);
    let Some(s) = &d.server_subnet else { return };
    let vlan = format!("Vlan{}", s.vlan);
    let members: Vec<_> = d
        .interfaces
        .iter()
        .filter(|i| i.vlan == Some(s.vlan))
        .collect();
    let mtu = members
        .first()
        .map(|i| ("mtu", Value::Num(u64::from(i.mtu))));
    let fields = [
        ("admin_status", "up".into()),
        ("vlanid", Value::Num(u64::from(s.vlan))),
    ];
    db.put(
        "VLAN",
        Table::owned(vec![(
            Cow::Owned(vlan.clone()),
            Row::new(fields.into_iter().chain(mtu)),
        )]),
    );
    if !members.is_empty() {
        let rows = members.iter().map(|i| {
            let k = key(&[&vlan, "|", &i.name]);
            (k, Row::new([("tagging_mode", "untagged".into())]))
        });
        db.put("VLAN_MEMBER", Table::owned(rows.collect()));
    }
    db.put(
        "VLAN_INTERFACE",
        Table::owned(vec![
            (key(&[&vlan, "|", &s.gateway]), Row::empty()),
            (Cow::Owned(vlan), Row::empty()),
        ]),
    );
}

/// The VLAN of a routed server port: 3000 plus its port number (a device has no other VLAN, since
/// rail-subnet homing and routed server ports do not mix).
pub(super) const PORT_VLAN_BASE: u32 = 3000;

/// Whether `i` is a routed server port, which SONiC carries as a one-port VLAN.
pub(crate) fn is_port_vlan(i: &Interface) -> bool {
    i.kind == PortKind::Server && i.address.as_deref().is_some_and(|a| !a.is_empty())
}

/// VLAN, VLAN_MEMBER and VLAN_INTERFACE of the routed server ports: one VLAN per port, the port its
/// untagged member, the port's /31 on the VLAN interface.
fn add_port_vlans<'a>(db: &mut ConfigDb<'a>, order: &PortOrder<'a>) {
    let ports: Vec<&Interface> = order
        .plain
        .iter()
        .copied()
        .filter(|i| is_port_vlan(i))
        .collect();
    if ports.is_empty() {
        return;
    }
    let (mut vlans, mut members, mut svis) = (Vec::new(), Vec::new(), Vec::new());
    for i in ports {
        let id = PORT_VLAN_BASE + i.port;
        let vlan = format!("Vlan{id}");
        let fields = [
            ("admin_status", "up".into()),
            ("mtu", Value::Num(u64::from(i.mtu))),
            ("vlanid", Value::Num(u64::from(id))),
        ];
        vlans.push((Cow::Owned(vlan.clone()), Row::new(fields)));
        let member = Row::new([("tagging_mode", "untagged".into())]);
        members.push((key(&[&vlan, "|", &i.name]), member));
        let address = i.address.as_deref().unwrap_or_default();
        svis.push((key(&[&vlan, "|", address]), Row::empty()));
        svis.push((Cow::Owned(vlan), Row::empty()));
    }
    db.put("VLAN", Table::owned(vlans));
    db.put("VLAN_MEMBER", Table::owned(members));
    db.put("VLAN_INTERFACE", Table::owned(svis));
}

/// The INTERFACE keys of the routed ports, in key order: each port's name (in [`PortOrder::plain`]
/// order) and `<name>|<prefix>` (in [`PortOrder::joined`] order), two sorted runs merged.
fn interface_keys<'a>(order: &PortOrder<'a>) -> Vec<Cow<'a, str>> {
    let address = |i: &&'a Interface| {
        let a = i.address.as_deref().filter(|a| !a.is_empty())?;
        (!is_port_vlan(i)).then_some(a)
    };
    let names = order
        .plain
        .iter()
        .filter(|i| address(i).is_some())
        .map(|i| Cow::Borrowed(i.name.as_ref()));
    let mut prefixed = order
        .joined
        .iter()
        .filter_map(|i| Some(key(&[&i.name, "|", address(i)?])))
        .peekable();
    let mut keys = Vec::new();
    for name in names {
        while let Some(p) = prefixed.next_if(|p| p < &name) {
            keys.push(p);
        }
        keys.push(name);
    }
    keys.extend(prefixed);
    keys
}
