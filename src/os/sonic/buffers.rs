//! CABLE_LENGTH and the buffer tables of the SKU's buffer model (docs/platforms/sonic.md#buffers).
//!
//! CABLE_LENGTH is always written. BUFFER_POOL/BUFFER_PROFILE/BUFFER_PG/BUFFER_QUEUE (and, where the SKU
//! has them, BUFFER_PORT_INGRESS/EGRESS_PROFILE_LIST) are written when the platform carries the SKU's
//! sourced buffer tables, which every lossless fabric has (AIF-PFC-006 refuses lossless classes on a SKU
//! without them); a lossy fabric on a SKU without them keeps the SKU's own buffer defaults. The pools,
//! the lossy and egress profiles and the profile lists are the SKU's `buffers_defaults_t0/t1.j2`, the
//! files the DEVICE_METADATA types aifab writes select. PG 0 is the lossy ingress PG; egress queues are
//! lossy except the lossless ones, in ranges as the SKU templates write them (`0-2`, `3`, `4-6` for
//! lossless priority 3). Only the ports a device uses get buffer entries; unused ports are shut.
//!
//! The lossless PGs follow the SKU's [`BufferModel`]:
//! - traditional: each cable is rounded up to a row of the SKU's `pg_profile_lookup.ini` (more headroom,
//!   never less), and the lossless PG profile is exactly what buffermgrd would write (doSpeedUpdateTask):
//!   named `pg_lossless_<speed>_<cable>_profile`, in pool `ingress_lossless_pool`, with the row's numbers.
//! - dynamic (NVIDIA Spectrum SKUs): each cable is written as it is (at least 1 m: buffermgrd gives a
//!   `0m` port no lossless PG), a lossless PG names profile `NULL`, and buffermgrd computes its headroom
//!   from the port's speed, cable length and MTU and the ASIC's parameters; DEFAULT_LOSSLESS_BUFFER_PARAMETER
//!   and LOSSLESS_TRAFFIC_PATTERN carry the SKU template's parameters of that calculation.

use super::db::{ConfigDb, Part, Row, Table, Value};
use super::{PortOrder, key};
use crate::model::{Device, Interface, QosPlan};
use crate::platform::{BufferModel, Platform, SonicBuffers};
use std::borrow::Cow;

/// One lossless headroom profile of the SKU: a row of its PG lookup table.
#[derive(Debug)]
struct Headroom {
    /// Port speed, Mbit/s.
    speed: u64,
    /// Cable length of the row, metres.
    cable: u32,
    /// CABLE_LENGTH value of the row (`5m`).
    cable_length: String,
    /// Profile name (`pg_lossless_400000_5m_profile`).
    name: String,
    /// Its BUFFER_PROFILE entry.
    profile: Row<'static>,
    /// The BUFFER_PG entry of a lossless PG that uses it.
    pg: Row<'static>,
}

/// The buffer tables of a SKU with sourced numbers, built once per platform.
#[derive(Debug)]
pub(super) struct BufferParts {
    model: BufferModel,
    /// Traditional model: the lookup rows' profiles (empty in the dynamic model).
    headroom: Vec<Headroom>,
    pools: Table<'static>,
    /// The SKU's own BUFFER_PROFILE entries (lossy ingress, egress).
    profiles: Vec<(String, Row<'static>)>,
    /// BUFFER_PG entry of lossy PG 0.
    lossy_pg: Row<'static>,
    /// Dynamic model: BUFFER_PG entry of a lossless PG (`{"profile": "NULL"}`).
    dynamic_pg: Row<'static>,
    /// Key suffixes of the lossless PGs (`|3`).
    lossless_pgs: Vec<String>,
    /// BUFFER_QUEUE entries of every port: key suffix (`|0-2`) and entry.
    queue_runs: Vec<(String, Row<'static>)>,
    /// BUFFER_PORT_INGRESS_PROFILE_LIST and ..._EGRESS_... entry of every used port, when the SKU has them.
    profile_lists: [Option<Row<'static>>; 2],
    /// Dynamic model: DEFAULT_LOSSLESS_BUFFER_PARAMETER and LOSSLESS_TRAFFIC_PATTERN.
    dynamic_tables: Option<[Table<'static>; 2]>,
}

/// A map of strings from the vendor file as a row.
fn row_of(fields: &std::collections::BTreeMap<String, String>) -> Row<'static> {
    Row::from_fields(
        fields
            .iter()
            .map(|(k, v)| (Cow::Owned(k.clone()), Value::Text(Cow::Owned(v.clone()))))
            .collect(),
    )
}

/// A text value owned by a shared part.
fn text(s: &str) -> Value<'static> {
    Value::Text(Cow::Owned(s.to_string()))
}

/// The row naming one buffer profile (`{"profile": ...}`).
fn profile_ref(name: &str) -> Row<'static> {
    Row::new([("profile", text(name))])
}

/// The row of a port's profile list (`{"profile_list": "a,b"}`), None for an empty list.
fn profile_list(names: &[String]) -> Option<Row<'static>> {
    (!names.is_empty()).then(|| Row::new([("profile_list", text(&names.join(",")))]))
}

/// The lossless headroom profiles of the SKU's lookup rows (traditional model).
fn headroom_rows(b: &SonicBuffers) -> Vec<Headroom> {
    b.pg_lookup
        .iter()
        .map(|r| {
            let name = format!("pg_lossless_{}_{}m_profile", r.speed, r.cable);
            let offset = r.xon_offset.as_deref().map(|o| ("xon_offset", text(o)));
            let fields = [
                ("pool", "ingress_lossless_pool".into()),
                ("size", text(&r.size)),
                ("xon", text(&r.xon)),
                ("xoff", text(&r.xoff)),
                ("dynamic_th", text(&r.dynamic_th)),
            ];
            Headroom {
                speed: r.speed,
                cable: r.cable,
                cable_length: format!("{}m", r.cable),
                pg: profile_ref(&name),
                profile: Row::new(fields.into_iter().chain(offset)),
                name,
            }
        })
        .collect()
}

impl BufferParts {
    /// The tables of a platform, when it carries the SKU's buffer numbers.
    pub(super) fn new(pf: &Platform, qos: &QosPlan) -> Option<BufferParts> {
        let b: &SonicBuffers = pf.sonic.as_ref()?.buffers.as_ref()?;
        let headroom = match b.model {
            BufferModel::Traditional => headroom_rows(b),
            BufferModel::Dynamic => Vec::new(),
        };
        let lossless = &qos.lossless_priorities;
        let queue_runs = queue_runs(lossless)
            .into_iter()
            .map(|(first, last, is_lossless)| {
                let suffix = if first == last {
                    format!("|{first}")
                } else {
                    format!("|{first}-{last}")
                };
                let profile = if is_lossless {
                    &b.egress_lossless_profile
                } else {
                    &b.egress_lossy_profile
                };
                (suffix, profile_ref(profile))
            })
            .collect();
        let dynamic_tables = b.dynamic.as_ref().map(|d| {
            [
                Table::one(
                    "AZURE",
                    Row::new([("default_dynamic_th", text(&d.default_dynamic_th))]),
                ),
                Table::one(
                    "AZURE",
                    Row::new([
                        ("mtu", text(&d.traffic_mtu)),
                        ("small_packet_percentage", text(&d.small_packet_percentage)),
                    ]),
                ),
            ]
        });
        Some(BufferParts {
            model: b.model,
            headroom,
            pools: Table::owned(
                b.pools
                    .iter()
                    .map(|(name, fields)| (Cow::Owned(name.clone()), row_of(fields)))
                    .collect(),
            ),
            profiles: b
                .profiles
                .iter()
                .map(|(name, fields)| (name.clone(), row_of(fields)))
                .collect(),
            lossy_pg: profile_ref(&b.ingress_lossy_profile),
            dynamic_pg: profile_ref("NULL"),
            lossless_pgs: lossless.iter().map(|p| format!("|{p}")).collect(),
            queue_runs,
            profile_lists: [
                profile_list(&b.ingress_profile_list),
                profile_list(&b.egress_profile_list),
            ],
            dynamic_tables,
        })
    }

    /// The headroom row a port uses (traditional model): the shortest row of its speed at least as
    /// long as its cable.
    fn headroom(&self, i: &Interface) -> Option<usize> {
        let speed = u64::from(i.speed_gbps) * 1000;
        self.headroom
            .iter()
            .enumerate()
            .filter(|(_, r)| r.speed == speed && r.cable >= i.cable_m)
            .min_by_key(|(_, r)| r.cable)
            .map(|(n, _)| n)
    }

    /// The BUFFER_PG entry of a lossless PG of port `i`: its headroom row's profile (traditional), or
    /// `NULL` for buffermgrd to compute (dynamic).
    fn lossless_pg(&self, i: &Interface) -> Option<&Row<'static>> {
        match self.model {
            BufferModel::Traditional => self.headroom(i).map(|n| &self.headroom[n].pg),
            BufferModel::Dynamic => Some(&self.dynamic_pg),
        }
    }
}

/// Egress queue runs: queues 0-6 (and any lossless queue above), consecutive queues of the same kind
/// joined: (first, last, lossless).
fn queue_runs(lossless: &[u8]) -> Vec<(u8, u8, bool)> {
    let mut runs: Vec<(u8, u8, bool)> = Vec::new();
    for q in (0u8..8).filter(|q| *q <= 6 || lossless.contains(q)) {
        let kind = lossless.contains(&q);
        match runs.last_mut() {
            Some((_, last, k)) if *k == kind && *last + 1 == q => *last = q,
            _ => runs.push((q, q, kind)),
        }
    }
    runs
}

/// The CABLE_LENGTH value of port `i`: its headroom row's length (traditional), the cable itself (at
/// least 1 m) in the dynamic model or without buffer numbers.
fn cable_length<'p>(parts: Option<&'p BufferParts>, i: &Interface) -> Cow<'p, str> {
    match parts {
        Some(p) if p.model == BufferModel::Traditional => match p.headroom(i) {
            Some(n) => Cow::Borrowed(p.headroom[n].cable_length.as_str()),
            None => Cow::Owned(format!("{}m", i.cable_m)),
        },
        Some(_) => Cow::Owned(format!("{}m", i.cable_m.max(1))),
        None => Cow::Owned(format!("{}m", i.cable_m)),
    }
}

/// Adds CABLE_LENGTH and, with the SKU's numbers, the BUFFER_* tables.
pub(super) fn add<'a>(
    db: &mut ConfigDb<'a>,
    d: &'a Device,
    order: &PortOrder<'a>,
    parts: Option<&'a BufferParts>,
) {
    // In name order (CABLE_LENGTH's field order).
    let cables = order
        .plain
        .iter()
        .map(|i| {
            let length = Value::Text(cable_length(parts, i));
            (Cow::Borrowed(i.name.as_ref()), length)
        })
        .collect();
    db.put(
        "CABLE_LENGTH",
        Table::one("AZURE", Row::from_fields(cables)),
    );
    let Some(p) = parts else { return };

    db.share("BUFFER_POOL", &p.pools);
    let mut profiles: Vec<_> = p
        .profiles
        .iter()
        .map(|(name, row)| (Cow::Borrowed(name.as_str()), Part::Shared(row)))
        .collect();
    let mut used = vec![false; p.headroom.len()];
    for n in order.plain.iter().filter_map(|i| p.headroom(i)) {
        if !std::mem::replace(&mut used[n], true) {
            let h = &p.headroom[n];
            profiles.push((Cow::Borrowed(h.name.as_str()), Part::Shared(&h.profile)));
        }
    }
    db.put("BUFFER_PROFILE", Table::new(profiles));

    let mut pgs = Vec::with_capacity(d.interfaces.len() * (1 + p.lossless_pgs.len()));
    for i in &order.joined {
        pgs.push((key(&[&i.name, "|0"]), Part::Shared(&p.lossy_pg)));
        if let Some(pg) = p.lossless_pg(i) {
            for suffix in &p.lossless_pgs {
                pgs.push((key(&[&i.name, suffix]), Part::Shared(pg)));
            }
        }
    }
    db.put("BUFFER_PG", Table::new(pgs));

    let mut queues = Vec::with_capacity(d.interfaces.len() * p.queue_runs.len());
    for i in &order.joined {
        for (suffix, row) in &p.queue_runs {
            queues.push((key(&[&i.name, suffix]), Part::Shared(row)));
        }
    }
    db.put("BUFFER_QUEUE", Table::new(queues));

    let list_tables = [
        "BUFFER_PORT_INGRESS_PROFILE_LIST",
        "BUFFER_PORT_EGRESS_PROFILE_LIST",
    ];
    for (name, row) in list_tables.into_iter().zip(&p.profile_lists) {
        if let Some(row) = row {
            let rows = order
                .plain
                .iter()
                .map(|i| (Cow::Borrowed(i.name.as_ref()), Part::Shared(row)));
            db.put(name, Table::new(rows.collect()));
        }
    }
    if let Some([param, pattern]) = &p.dynamic_tables {
        db.share("DEFAULT_LOSSLESS_BUFFER_PARAMETER", param);
        db.share("LOSSLESS_TRAFFIC_PATTERN", pattern);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_runs_join_queues_of_a_kind() {
        assert_eq!(
            queue_runs(&[3]),
            vec![(0, 2, false), (3, 3, true), (4, 6, false)]
        );
        assert_eq!(
            queue_runs(&[3, 4]),
            vec![(0, 2, false), (3, 4, true), (5, 6, false)]
        );
        assert_eq!(
            queue_runs(&[3, 7]),
            vec![(0, 2, false), (3, 3, true), (4, 6, false), (7, 7, true)]
        );
        assert_eq!(queue_runs(&[]), vec![(0, 6, false)]);
    }
}
