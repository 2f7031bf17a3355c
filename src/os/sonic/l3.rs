//! LOOPBACK_INTERFACE, INTERFACE, VLAN, VLAN_MEMBER and VLAN_INTERFACE
//! (docs/platforms/sonic.md#interfaces). The interface tables are two YANG lists each (`<name>` and
//! `<name>|<prefix>`), so both key forms are written.

use super::db::{ConfigDb, Row, Table, Value};
use super::{PortOrder, key};
use crate::model::{Device, Interface};
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

/// The INTERFACE keys of the routed ports, in key order: each port's name (in [`PortOrder::plain`]
/// order) and `<name>|<prefix>` (in [`PortOrder::joined`] order), two sorted runs merged.
fn interface_keys<'a>(order: &PortOrder<'a>) -> Vec<Cow<'a, str>> {
    let address = |i: &&'a Interface| i.address.as_deref().filter(|a| !a.is_empty());
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
