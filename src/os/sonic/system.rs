//! The device baseline as config_db tables (docs/platforms/sonic.md#device-baseline): MGMT_VRF_CONFIG,
//! NTP and NTP_SERVER, SYSLOG_SERVER, TACPLUS/TACPLUS_SERVER or RADIUS_SERVER, AAA, SNMP_USER and
//! SNMP_AGENT_ADDRESS_CONFIG, DNS_NAMESERVER and BANNER_MESSAGE, each checked against the SONiC YANG
//! by tests/it/sonic_yang.rs. Local users are Linux accounts, not config_db: they are not rendered.

use super::db::{ConfigDb, Row, Table, Value};
use crate::kinds::AaaProtocol;
use crate::model::Device;
use crate::model::baseline::{AaaPlan, BaselinePlan};
use std::borrow::Cow;

/// The VRF name SONiC gives the management VRF.
const MGMT_VRF: &str = "mgmt";
/// The SNMP agent's UDP port: empty for the default (161), as sonic-snmp.yang allows.
const SNMP_PORT: &str = "";

/// Adds the baseline tables of `d`, if it has a baseline.
pub(super) fn add<'a>(db: &mut ConfigDb<'a>, d: &'a Device) {
    let Some(b) = d.baseline.as_deref() else {
        return;
    };
    let vrf = d.management.is_some().then_some(MGMT_VRF);
    if vrf.is_some() {
        let row = Row::new([("mgmtVrfEnabled", "true".into())]);
        db.put("MGMT_VRF_CONFIG", Table::one("vrf_global", row));
    }
    ntp(db, b, vrf);
    let in_vrf = || Row::new(vrf.map(|v| ("vrf", Value::from(v))));
    let rows = |ips: &[std::net::IpAddr], row: &dyn Fn() -> Row<'a>| {
        ips.iter()
            .map(|ip| (Cow::Owned(ip.to_string()), row()))
            .collect::<Vec<_>>()
    };
    if !b.syslog.is_empty() {
        db.put("SYSLOG_SERVER", Table::owned(rows(&b.syslog, &in_vrf)));
    }
    if !b.dns_servers.is_empty() {
        db.put(
            "DNS_NAMESERVER",
            Table::owned(rows(&b.dns_servers, &Row::empty)),
        );
    }
    if let Some(a) = &b.aaa {
        aaa(db, a, vrf);
    }
    snmp(db, d, b, vrf);
    if !b.banner.is_empty() {
        let row = Row::new([
            ("login", Value::Text(Cow::Owned(b.banner.join("\n")))),
            ("state", "enabled".into()),
        ]);
        db.put("BANNER_MESSAGE", Table::one("global", row));
    }
}

/// NTP|global (the VRF) and NTP_SERVER. SONiC's NTP_SERVER has no `prefer` (sonic-ntp.yang), so the
/// preferred server is only listed like the others.
fn ntp<'a>(db: &mut ConfigDb<'a>, b: &BaselinePlan, vrf: Option<&'static str>) {
    if b.ntp.is_empty() {
        return;
    }
    if let Some(v) = vrf {
        db.put("NTP", Table::one("global", Row::new([("vrf", v.into())])));
    }
    let rows = b.ntp.iter().map(|n| {
        let row = Row::new([
            ("association_type", "server".into()),
            ("iburst", "on".into()),
        ]);
        (Cow::Owned(n.address.to_string()), row)
    });
    db.put("NTP_SERVER", Table::owned(rows.collect()));
}

/// TACPLUS_SERVER (with TACPLUS|global) or RADIUS_SERVER, and the AAA methods with local fallback.
/// Priorities count down from the first server (SONiC tries the highest first).
fn aaa<'a>(db: &mut ConfigDb<'a>, a: &AaaPlan, vrf: Option<&'static str>) {
    let n = a.servers.len() as u64;
    let rows = a.servers.iter().enumerate().map(|(i, s)| {
        let fields = [
            ("passkey", Value::Text(Cow::Owned(s.key.token()))),
            ("priority", Value::Num(n - i as u64)),
        ];
        let row = Row::new(fields.into_iter().chain(vrf.map(|v| ("vrf", v.into()))));
        (Cow::Owned(s.address.to_string()), row)
    });
    let method = match a.protocol {
        AaaProtocol::Tacacs => {
            db.put("TACPLUS_SERVER", Table::owned(rows.collect()));
            // sonic-system-aaa.yang refuses tacacs+ login without a global passkey: the first
            // server's key (each server's own passkey overrides it).
            let first = a.servers.first().map(|s| s.key.token()).unwrap_or_default();
            let global = Row::new([
                ("auth_type", "pap".into()),
                ("passkey", Value::Text(Cow::Owned(first))),
                ("timeout", Value::Num(5)),
            ]);
            db.put("TACPLUS", Table::one("global", global));
            "tacacs+,local"
        }
        AaaProtocol::Radius => {
            db.put("RADIUS_SERVER", Table::owned(rows.collect()));
            "radius,local"
        }
    };
    let mut methods = vec![(
        Cow::Borrowed("authentication"),
        Row::new([("failthrough", "True".into()), ("login", method.into())]),
    )];
    if a.protocol == AaaProtocol::Tacacs {
        let row = Row::new([("login", method.into())]);
        methods.push((Cow::Borrowed("authorization"), row));
    }
    if a.accounting {
        let row = Row::new([("login", method.into())]);
        methods.push((Cow::Borrowed("accounting"), row));
    }
    db.put("AAA", Table::owned(methods));
}

/// SNMP_USER (read-only, authPriv) and, with a management address, the agent listening on it in the
/// management VRF.
fn snmp<'a>(db: &mut ConfigDb<'a>, d: &Device, b: &BaselinePlan, vrf: Option<&'static str>) {
    if b.snmp.is_empty() {
        return;
    }
    let rows = b.snmp.iter().map(|u| {
        let row = Row::new([
            (
                "SNMP_USER_AUTH_PASSWORD",
                Value::Text(Cow::Owned(u.auth_key.token())),
            ),
            ("SNMP_USER_AUTH_TYPE", "SHA".into()),
            (
                "SNMP_USER_ENCRYPTION_PASSWORD",
                Value::Text(Cow::Owned(u.priv_key.token())),
            ),
            ("SNMP_USER_ENCRYPTION_TYPE", "AES".into()),
            ("SNMP_USER_PERMISSION", "RO".into()),
            ("SNMP_USER_TYPE", "Priv".into()),
        ]);
        (Cow::Owned(u.name.clone()), row)
    });
    db.put("SNMP_USER", Table::owned(rows.collect()));
    if let (Some(m), Some(v)) = (&d.management, vrf) {
        let k = format!("{}|{SNMP_PORT}|{v}", m.ip);
        let row = vec![(Cow::Owned(k), Row::empty())];
        db.put("SNMP_AGENT_ADDRESS_CONFIG", Table::owned(row));
    }
}
