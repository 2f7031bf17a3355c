//! SONiC: a device of the neutral model as a typed community-SONiC `config_db.json` (the SKU's buffer
//! model: traditional, or dynamic on NVIDIA Spectrum; FRR in SONiC's default separated mode with
//! bgpcfgd), the way AVD's eos_designs builds a structured config that templates only print.
//!
//! Everything SONiC spells its own way is derived here: DEVICE_METADATA types, PORT rows from the SKU's
//! port table (`lanes`, `alias`, `index`, `fec`), speeds in Mbit/s, the `pfc_enable` list, cable lengths
//! rounded to the SKU's PG lookup rows, headroom profile names, egress queue runs, WRED and scheduler
//! names, and every number as a string. The tables
//! and fields are described in docs/platforms/sonic.md; tests/it/sonic_yang.rs checks every rendered file
//! against the SONiC YANG models. What depends only on the platform and its QoS plan ([`Parts`]) is
//! built once and borrowed by every device and port.

pub mod db;

mod bgp;
mod buffers;
mod device;
pub use device::port_alias;
mod l3;
mod pfcwd;
mod qos;
mod system;

pub use db::{ConfigDb, Part, Row, Table, Value};
pub use device::device_type;

use super::OsError;
use crate::model::{Device, Interface, QosPlan};
use crate::platform::Platform;
use serde::Serialize;
use std::borrow::Cow;
use std::sync::{Arc, Mutex, Weak};

/// The parts of a config_db that depend only on a platform and its QoS plan: the QoS maps, WRED and
/// scheduler tables, the entries every port repeats and the SKU's buffer tables.
#[derive(Debug)]
pub struct Parts {
    qos: qos::QosParts,
    watchdog: Option<pfcwd::WatchdogParts>,
    buffers: Option<buffers::BufferParts>,
}

impl Parts {
    /// The parts of platform `pf` with plan `qos`.
    pub fn new(pf: &Platform, qos: &QosPlan) -> Parts {
        Parts {
            qos: qos::QosParts::new(qos, &pf.port_speeds(), &pf.ecn_unit),
            watchdog: pfcwd::WatchdogParts::new(&qos.watchdog),
            buffers: buffers::BufferParts::new(pf, qos),
        }
    }
}

/// The config_db of device `d` on platform `pf`, whose [`Parts`] are `parts`.
pub fn config_db<'a>(
    d: &'a Device,
    pf: &'a Platform,
    parts: &'a Parts,
) -> Result<ConfigDb<'a>, OsError> {
    let sku = pf.sonic.as_ref().ok_or_else(|| OsError::NoSonicFacts {
        host: d.hostname.to_string(),
        platform: d.platform.to_string(),
    })?;
    let mut db = ConfigDb::default();
    let ports = PortOrder::of(d);
    device::add(&mut db, d, &ports, pf, sku)?;
    l3::add(&mut db, d, &ports);
    parts.qos.add(&mut db, &ports);
    buffers::add(&mut db, d, &ports, parts.buffers.as_ref());
    if let Some(w) = &parts.watchdog {
        w.add(&mut db, &ports);
    }
    bgp::add(&mut db, d);
    system::add(&mut db, d);
    Ok(db)
}

/// A device's ports in the order of the config_db keys made from their names, so that the tables of
/// a hundred or more entries per port are built in order and [`Table::new`] finds them sorted instead
/// of sorting them. The two orders differ where one name begins another: `Ethernet1` comes before
/// `Ethernet10`, but `Ethernet10|3` before `Ethernet1|3` (`|` sorts after the digits).
#[derive(Debug)]
pub(crate) struct PortOrder<'a> {
    /// By name: keys that are the port name (`PORT`, `PFC_WD`).
    pub plain: Vec<&'a Interface>,
    /// By name and `|`: keys that begin with the port name and a `|` (`QUEUE`, `BUFFER_PG`).
    pub joined: Vec<&'a Interface>,
}

impl<'a> PortOrder<'a> {
    /// The orders of `d`'s ports.
    pub(crate) fn of(d: &'a Device) -> PortOrder<'a> {
        let mut plain: Vec<&Interface> = d.interfaces.iter().collect();
        plain.sort_unstable_by(|a, b| a.name.cmp(&b.name));
        let mut joined = plain.clone();
        joined.sort_by(|a, b| joined_cmp(&a.name, &b.name));
        PortOrder { plain, joined }
    }
}

/// The order of `a|…` and `b|…` for names without `|`: the order of `a|` and `b|`, compared as
/// slices (a name that begins the other compares its `|` with the other's next byte).
fn joined_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len().min(b.len());
    let next = |s: &[u8]| s.get(n).copied().unwrap_or(b'|');
    a[..n]
        .cmp(&b[..n])
        .then_with(|| next(a).cmp(&next(b)))
        .then_with(|| a.len().cmp(&b.len()))
}

/// `a|b|c` from its pieces, in one allocation: a composite config_db key.
pub(crate) fn key(pieces: &[&str]) -> Cow<'static, str> {
    let mut k = String::with_capacity(pieces.iter().map(|p| p.len()).sum());
    for p in pieces {
        k.push_str(p);
    }
    Cow::Owned(k)
}

/// A cached [`Parts`]: the QoS plan it was built from (the model shares one plan per platform), the
/// platform, the parts. The weak reference keeps the plan's address from being reused while the entry
/// exists.
type Cached = (Weak<QosPlan>, String, Arc<Parts>);

/// Writes `config_db.json` files, building each platform's [`Parts`] once for all its devices.
#[derive(Debug, Default)]
pub struct ConfigDbBuilder {
    /// Parts in use; entries whose plan is gone are dropped when a new one is added.
    cache: Mutex<Vec<Cached>>,
}

impl ConfigDbBuilder {
    /// A builder with nothing cached.
    pub fn new() -> ConfigDbBuilder {
        ConfigDbBuilder::default()
    }

    /// The parts for `d` on `pf`, built on first use.
    fn parts(&self, d: &Device, pf: &Platform) -> Arc<Parts> {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let plan = Arc::as_ptr(&d.qos);
        if let Some((_, _, p)) = cache
            .iter()
            .find(|(q, name, _)| q.as_ptr() == plan && *name == d.platform)
        {
            return Arc::clone(p);
        }
        cache.retain(|(q, _, _)| q.strong_count() > 0);
        let parts = Arc::new(Parts::new(pf, &d.qos));
        cache.push((
            Arc::downgrade(&d.qos),
            d.platform.clone(),
            Arc::clone(&parts),
        ));
        parts
    }

    /// The `config_db.json` of device `d` on platform `pf`.
    pub fn file(&self, d: &Device, pf: &Platform) -> Result<String, OsError> {
        let parts = self.parts(d, pf);
        Ok(config_db(d, pf, &parts)?.to_json())
    }
}

/// What `GENERATED.txt` (templates/sonic/header.j2) prints beside config_db.json, which cannot hold
/// comments: provenance, what aifab left to SONiC, and the model's notes.
#[derive(Debug, Serialize)]
pub struct Generated<'a> {
    /// Hostname.
    pub hostname: &'a str,
    /// DEVICE_METADATA `hwsku`.
    pub hwsku: &'a str,
    /// Whether config_db carries the SKU's BUFFER_* tables (else buffermgrd and the SKU provide them).
    pub sku_buffers: bool,
    /// DEVICE_METADATA `buffer_model` (`traditional`, `dynamic`).
    pub buffer_model: &'static str,
    /// One line per acknowledged error (`aifab: acknowledged AIF-LB-005: <reason>`).
    pub acknowledged: Vec<String>,
    /// One line per model note.
    pub notes: Vec<&'a str>,
}

impl<'a> Generated<'a> {
    /// The values for device `d` on platform `pf`.
    pub fn new(d: &'a Device, pf: &'a Platform) -> Result<Generated<'a>, OsError> {
        let sku = pf.sonic.as_ref().ok_or_else(|| OsError::NoSonicFacts {
            host: d.hostname.to_string(),
            platform: d.platform.to_string(),
        })?;
        Ok(Generated {
            hostname: &d.hostname,
            hwsku: &sku.hwsku,
            sku_buffers: sku.buffers.is_some(),
            buffer_model: sku
                .buffers
                .as_ref()
                .map_or(crate::platform::BufferModel::Traditional, |b| b.model)
                .as_str(),
            acknowledged: super::common::acknowledged(d),
            notes: d.notes.iter().map(|n| n.text.as_str()).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::FabricModel;
    use crate::platform::Catalog;

    #[test]
    fn port_orders_are_the_key_orders() {
        let names = [
            "Ethernet2",
            "Ethernet10",
            "Ethernet1",
            "Ethernet100",
            "Ethernet0",
        ];
        let mut names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        names.sort();
        let plain: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut joined: Vec<String> = names.iter().map(|n| format!("{n}|3")).collect();
        joined.sort();
        let mut by_name: Vec<&str> = plain.clone();
        by_name.sort_by(|a, b| joined_cmp(a, b));
        let rebuilt: Vec<String> = by_name.iter().map(|n| format!("{n}|3")).collect();
        assert_eq!(rebuilt, joined);
        assert_eq!(
            by_name,
            [
                "Ethernet0",
                "Ethernet100",
                "Ethernet10",
                "Ethernet1",
                "Ethernet2"
            ]
        );
        assert_eq!(
            plain,
            [
                "Ethernet0",
                "Ethernet1",
                "Ethernet10",
                "Ethernet100",
                "Ethernet2"
            ]
        );
    }

    fn model(intent: &str) -> FabricModel {
        model_edited(intent, &[])
    }

    /// The model of an example intent with text replacements (`from`, `to`) applied first.
    fn model_edited(intent: &str, edits: &[(&str, &str)]) -> FabricModel {
        let path = format!("{}/intents/{intent}", env!("CARGO_MANIFEST_DIR"));
        let mut text = std::fs::read_to_string(path).expect("read intent");
        for (from, to) in edits {
            assert!(text.contains(from), "{intent} has no {from:?}");
            text = text.replace(from, to);
        }
        let intent = serde_norway::from_str(&text).expect("parse intent");
        crate::compile::compile(&intent, Catalog::builtin()).expect("compile")
    }

    fn device<'m>(m: &'m FabricModel, host: &str) -> (&'m Device, &'static Platform) {
        let d = m
            .devices
            .iter()
            .find(|d| d.hostname == host)
            .expect("device");
        (d, &Catalog::builtin().get(&d.platform).expect("platform").1)
    }

    fn text(row: &Row<'_>, field: &str) -> String {
        match row.get(field) {
            Some(Value::Text(t)) => t.to_string(),
            Some(Value::Num(n)) => n.to_string(),
            Some(Value::Ip(ip)) => ip.to_string(),
            other => panic!("{field}: {other:?}"),
        }
    }

    /// The per-port tables and rows of a config_db are built in key order: only a handful of small
    /// tables and rows are sorted per device, however many ports it has (at 100K GPUs, sorting
    /// QUEUE, INTERFACE and every PORT row took 5% of a render).
    #[test]
    fn per_port_tables_and_rows_need_no_sort() {
        for intent in [
            "mixed-sonic-nxos.yaml",
            "hpn-dual-plane.yaml",
            "meta-rack-three-tier.yaml",
        ] {
            let m = model(intent);
            let catalog = Catalog::builtin();
            let sonic = m.devices.iter().filter_map(|d| {
                let pf = &catalog.get(&d.platform)?.1;
                pf.sonic.is_some().then_some((d, pf))
            });
            let mut seen = 0;
            for (d, pf) in sonic {
                let parts = Parts::new(pf, &d.qos);
                db::SORTS.with(|n| n.set(0));
                let built = config_db(d, pf, &parts).expect("config_db");
                let sorts = db::SORTS.with(|n| n.get());
                assert!(
                    built
                        .table("QUEUE")
                        .is_some_and(|t| t.len() >= d.interfaces.len())
                );
                assert!(sorts <= 12, "{intent} {}: {sorts} sorts", d.hostname);
                seen += 1;
            }
            assert!(seen > 0, "{intent} has no SONiC device");
        }
    }

    /// The SONiC spellings the neutral model no longer carries: the SKU's port row (lanes, alias, index),
    /// FEC, Mbit/s, cable rounding to the SKU's PG lookup rows, headroom profile names, `pfc_enable`,
    /// queue runs, the back-end device type.
    #[test]
    fn z9332f_leaf_gets_sonic_spellings() {
        let m = model("mixed-sonic-nxos.yaml");
        let (d, pf) = device(&m, "g1-rail1");
        let parts = Parts::new(pf, &d.qos);
        let db = config_db(d, pf, &parts).expect("config_db");
        let table = |n: &str| db.table(n).unwrap_or_else(|| panic!("no {n}"));
        let port = table("PORT").get("Ethernet0").expect("Ethernet0");
        assert_eq!(text(port, "lanes"), "33,34,35,36,37,38,39,40");
        assert_eq!(text(port, "alias"), "etp1");
        assert_eq!(text(port, "index"), "1");
        // The Z9332F's port_config.ini has no fec column: FEC comes from the SKU's `sonic.fec`.
        assert_eq!(text(port, "fec"), "rs");
        assert_eq!(text(port, "speed"), "400000");
        // 3 m server cables and 30 m uplinks round up to the 5 m and 40 m rows.
        let cables = table("CABLE_LENGTH").get("AZURE").expect("AZURE");
        assert_eq!(text(cables, "Ethernet0"), "5m");
        assert_eq!(text(cables, "Ethernet128"), "40m");
        let profiles: Vec<_> = table("BUFFER_PROFILE").keys().collect();
        assert!(
            profiles.contains(&"pg_lossless_400000_5m_profile"),
            "{profiles:?}"
        );
        assert!(
            profiles.contains(&"pg_lossless_400000_40m_profile"),
            "{profiles:?}"
        );
        let pg = table("BUFFER_PG")
            .get("Ethernet128|3")
            .expect("lossless PG");
        assert_eq!(text(pg, "profile"), "pg_lossless_400000_40m_profile");
        let qos = table("PORT_QOS_MAP").get("Ethernet0").expect("port qos");
        assert_eq!(text(qos, "pfc_enable"), "3");
        assert_eq!(text(qos, "pfcwd_sw_enable"), "3");
        let runs: Vec<_> = table("BUFFER_QUEUE")
            .keys()
            .filter(|k| k.starts_with("Ethernet0|"))
            .collect();
        assert_eq!(runs, ["Ethernet0|0-2", "Ethernet0|3", "Ethernet0|4-6"]);
        let meta = table("DEVICE_METADATA")
            .get("localhost")
            .expect("localhost");
        assert_eq!(text(meta, "type"), "BackEndToRRouter");
        assert_eq!(text(meta, "platform"), "x86_64-dellemc_z9332f_d1508-r0");
        assert!(meta.get("mac").is_none(), "the MAC is per switch");
        let peer = table("DEVICE_NEIGHBOR_METADATA")
            .get("spine1")
            .expect("spine1");
        assert_eq!(text(peer, "type"), "BackEndLeafRouter");
    }

    /// The SN5600's dynamic buffer model: DEVICE_METADATA says so, each cable is written as it is (no
    /// rounding to a lookup row), a lossless PG names profile NULL for buffermgrd, no headroom profile
    /// is written, the lossy queues use the SKU's q_lossy_profile, every used port (broken-out children
    /// too) has its profile lists, unused ports have none.
    #[test]
    fn sn5600_leaf_gets_the_dynamic_buffer_model() {
        let m = model("sonic-lossless-breakout.yaml");
        let (d, pf) = device(&m, "g1-r1-leaf");
        let parts = Parts::new(pf, &d.qos);
        let db = config_db(d, pf, &parts).expect("config_db");
        let table = |n: &str| db.table(n).unwrap_or_else(|| panic!("no {n}"));
        let meta = table("DEVICE_METADATA")
            .get("localhost")
            .expect("localhost");
        assert_eq!(text(meta, "buffer_model"), "dynamic");
        let cables = table("CABLE_LENGTH").get("AZURE").expect("AZURE");
        assert_eq!(text(cables, "Ethernet4"), "3m");
        assert_eq!(text(cables, "Ethernet384"), "30m");
        assert!(
            table("BUFFER_PROFILE")
                .keys()
                .all(|k| !k.starts_with("pg_lossless"))
        );
        let pg = table("BUFFER_PG")
            .get("Ethernet4|3")
            .expect("lossless PG of a child");
        assert_eq!(text(pg, "profile"), "NULL");
        let q = table("BUFFER_QUEUE")
            .get("Ethernet4|0-2")
            .expect("lossy queues");
        assert_eq!(text(q, "profile"), "q_lossy_profile");
        for list in [
            "BUFFER_PORT_INGRESS_PROFILE_LIST",
            "BUFFER_PORT_EGRESS_PROFILE_LIST",
        ] {
            assert_eq!(table(list).len(), d.interfaces.len(), "{list}");
            assert!(
                table(list).get("Ethernet128").is_none(),
                "{list}: unused port"
            );
        }
        let lists = table("BUFFER_PORT_INGRESS_PROFILE_LIST");
        let l = lists.get("Ethernet4").expect("child port list");
        assert_eq!(
            text(l, "profile_list"),
            "ingress_lossless_profile,ingress_lossy_profile"
        );
        let pattern = table("LOSSLESS_TRAFFIC_PATTERN")
            .get("AZURE")
            .expect("AZURE");
        assert_eq!(text(pattern, "mtu"), "1024");
    }

    /// A lossy fabric on a SKU without sourced buffer numbers (lossless is refused there, AIF-PFC-006):
    /// no BUFFER_* tables, the cable as it is, the port row and FEC from the SKU's own fec column.
    #[test]
    fn sku_without_buffers_writes_no_buffer_tables() {
        let m = model_edited(
            "mixed-sonic-nxos.yaml",
            &[
                ("sonic/dell-z9664f-o64 ", "sonic/arista-7060dx5-64s "),
                ("lossless: true", "lossless: false"),
            ],
        );
        let (d, pf) = device(&m, "g2-rail8");
        let parts = Parts::new(pf, &d.qos);
        let db = config_db(d, pf, &parts).expect("config_db");
        assert!(db.names().all(|n| !n.starts_with("BUFFER_")));
        let cables = db.table("CABLE_LENGTH").and_then(|t| t.get("AZURE"));
        assert_eq!(text(cables.expect("AZURE"), "Ethernet0"), "3m");
        let port = db
            .table("PORT")
            .and_then(|t| t.get("Ethernet8"))
            .expect("port");
        assert_eq!(text(port, "lanes"), "9,10,11,12,13,14,15,16");
        assert_eq!(text(port, "alias"), "Ethernet2/1");
        assert_eq!(text(port, "index"), "2");
        assert_eq!(text(port, "fec"), "rs");
    }

    /// The cached parts give the same bytes as parts built for the device alone, and the model keeps
    /// no SONiC spelling.
    #[test]
    fn cached_parts_match_and_the_model_stays_neutral() {
        let m = model("three-tier-small.yaml");
        let builder = ConfigDbBuilder::new();
        let mut sonic = 0;
        for d in m
            .devices
            .iter()
            .filter(|d| d.os == crate::platform::Os::Sonic)
        {
            let pf = &Catalog::builtin().get(&d.platform).expect("platform").1;
            let fresh = Parts::new(pf, &d.qos);
            let want = config_db(d, pf, &fresh).expect("db").to_json();
            assert_eq!(builder.file(d, pf).expect("file"), want, "{}", d.hostname);
            sonic += 1;
        }
        assert!(sonic > 1);
        let json = serde_json::to_string(&m).expect("model json");
        for spelling in [
            "\"lanes\"",
            "\"fec\"",
            "cable_length",
            "pg_profile",
            "pfc_enable",
        ] {
            assert!(!json.contains(spelling), "the model carries {spelling}");
        }
    }
}
