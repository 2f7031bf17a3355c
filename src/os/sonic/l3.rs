//! LOOPBACK_INTERFACE, INTERFACE, VLAN, VLAN_MEMBER and VLAN_INTERFACE
//! (docs/platforms/sonic.md#interfaces). The interface tables are two YANG lists each (`<name>` and
//! `<name>|<prefix>`), so both key forms are written.

use super::db::{ConfigDb, Row, Table, Value};
use super::key;
use crate::model::Device;
use std::borrow::Cow;

/// Adds the loopback, routed ports and the server VLAN.
pub(super) fn add<'a>(db: &mut ConfigDb<'a>, d: &'a Device) {
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
    let mut routed = Vec::new();
    for i in &d.interfaces {
        if let Some(a) = i.address.as_deref().filter(|a| !a.is_empty()) {
            routed.push((Cow::Borrowed(i.name.as_ref()), Row::empty()));
            routed.push((key(&[&i.name, "|", a]), Row::empty()));
        }
    }
    if !routed.is_empty() {
        db.put("INTERFACE", Table::owned(routed));
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
