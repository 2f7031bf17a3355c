//! SONiC: a device of the neutral model as a typed community-SONiC `config_db.json` (traditional
//! buffer model, FRR unified mode), the way AVD's eos_designs builds a structured config that templates
//! only print.
//!
//! Everything SONiC spells its own way is derived here: DEVICE_METADATA types, PORT `lanes` and `fec`,
//! speeds in Mbit/s, the `pfc_enable` list, cable lengths rounded to the SKU's PG lookup rows, headroom
//! profile names, egress queue runs, WRED and scheduler names, and every number as a string. The tables
//! and fields are described in docs/platforms/sonic.md; tests/sonic_yang.rs checks every rendered file
//! against the SONiC YANG models. What depends only on the platform and its QoS plan ([`Parts`]) is
//! built once and borrowed by every device and port.

pub mod db;

mod bgp;
mod buffers;
mod device;
mod l3;
mod pfcwd;
mod qos;

pub use db::{ConfigDb, Part, Row, Table, Value};

use crate::model::{Device, QosPlan};
use crate::platform::Platform;
use serde::Serialize;
use std::borrow::Cow;
use std::sync::{Arc, Mutex, Weak};

/// The parts of a config_db that depend only on a platform and its QoS plan: the QoS maps, WRED and
/// scheduler tables, the entries every port repeats, the SKU's buffer tables and the port lanes.
#[derive(Debug)]
pub struct Parts {
    qos: qos::QosParts,
    watchdog: Option<pfcwd::WatchdogParts>,
    buffers: Option<buffers::BufferParts>,
    ports: device::PortParts,
}

impl Parts {
    /// The parts of platform `pf` with plan `qos`.
    pub fn new(pf: &Platform, qos: &QosPlan) -> Parts {
        Parts {
            qos: qos::QosParts::new(qos),
            watchdog: pfcwd::WatchdogParts::new(&qos.watchdog),
            buffers: buffers::BufferParts::new(pf, qos),
            ports: device::PortParts::new(pf),
        }
    }
}

/// The config_db of device `d` on platform `pf`, whose [`Parts`] are `parts`.
pub fn config_db<'a>(
    d: &'a Device,
    pf: &'a Platform,
    parts: &'a Parts,
) -> Result<ConfigDb<'a>, String> {
    let sku = pf
        .sonic
        .as_ref()
        .ok_or_else(|| format!("{}: platform {} has no `sonic` facts", d.hostname, d.platform))?;
    let mut db = ConfigDb::default();
    device::add(&mut db, d, pf, sku, &parts.ports);
    l3::add(&mut db, d);
    parts.qos.add(&mut db, d);
    buffers::add(&mut db, d, parts.buffers.as_ref());
    if let Some(w) = &parts.watchdog {
        w.add(&mut db, d);
    }
    bgp::add(&mut db, d);
    Ok(db)
}

/// `a|b|c` from its pieces, in one allocation: a composite config_db key.
pub(crate) fn key(pieces: &[&str]) -> Cow<'static, str> {
    let mut k = String::with_capacity(pieces.iter().map(|p| p.len()).sum());
    for p in pieces {
        k.push_str(p);
    }
    Cow::Owned(k)
}

/// Writes `config_db.json` files, building each platform's [`Parts`] once for all its devices.
#[derive(Debug, Default)]
pub struct ConfigDbBuilder {
    /// Parts by QoS plan (the model shares one plan per platform) and platform. The weak reference keeps
    /// the plan's address from being reused while its entry exists; dead entries are dropped.
    cache: Mutex<Vec<(Weak<QosPlan>, String, Arc<Parts>)>>,
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
        cache.push((Arc::downgrade(&d.qos), d.platform.clone(), Arc::clone(&parts)));
        parts
    }

    /// The `config_db.json` of device `d` on platform `pf`.
    pub fn file(&self, d: &Device, pf: &Platform) -> Result<String, String> {
        let parts = self.parts(d, pf);
        config_db(d, pf, &parts)?
            .to_json()
            .map_err(|e| format!("{}: config_db.json: {e}", d.hostname))
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
    /// One line per model note.
    pub notes: Vec<&'a str>,
}

impl<'a> Generated<'a> {
    /// The values for device `d` on platform `pf`.
    pub fn new(d: &'a Device, pf: &'a Platform) -> Result<Generated<'a>, String> {
        let sku = pf
            .sonic
            .as_ref()
            .ok_or_else(|| format!("{}: platform {} has no `sonic` facts", d.hostname, d.platform))?;
        Ok(Generated {
            hostname: &d.hostname,
            hwsku: &sku.hwsku,
            sku_buffers: sku.buffers.is_some(),
            notes: d.notes.iter().map(|n| n.text.as_str()).collect(),
        })
    }
}
