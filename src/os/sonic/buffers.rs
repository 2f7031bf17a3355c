//! CABLE_LENGTH and the traditional-model buffer tables (docs/platforms/sonic.md#buffers).
//!
//! CABLE_LENGTH is always written: each cable is rounded up to a row of the SKU's `pg_profile_lookup.ini`
//! (more headroom, never less), so buffermgrd finds a headroom profile for the port's speed and cable.
//! BUFFER_POOL/BUFFER_PROFILE/BUFFER_PG/BUFFER_QUEUE are written when the platform carries the SKU's
//! sourced buffer numbers, which every lossless fabric has (AIF-PFC-006 refuses lossless classes on a SKU
//! without them); a lossy fabric on such a SKU keeps the SKU's own buffer defaults. The pools and the
//! lossy and egress profiles are the SKU's `buffers_defaults_t0/t1.j2`, the files the DEVICE_METADATA types
//! aifab writes select. The lossless PG profile is exactly what buffermgrd would write
//! (doSpeedUpdateTask): named `pg_lossless_<speed>_<cable>_profile`, in pool `ingress_lossless_pool`, with
//! the lookup row's numbers. PG 0 is the lossy ingress PG; egress queues are lossy except the lossless
//! ones, in ranges as the SKU templates write them (`0-2`, `3`, `4-6` for lossless priority 3).

use super::db::{ConfigDb, Part, Row, Table, Value};
use super::{PortOrder, key};
use crate::model::{Device, Interface, QosPlan};
use crate::platform::{Platform, SonicBuffers};
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
    headroom: Vec<Headroom>,
    pools: Table<'static>,
    /// The SKU's own BUFFER_PROFILE entries (lossy ingress, egress).
    profiles: Vec<(String, Row<'static>)>,
    /// BUFFER_PG entry of lossy PG 0.
    lossy_pg: Row<'static>,
    /// Key suffixes of the lossless PGs (`|3`).
    lossless_pgs: Vec<String>,
    /// BUFFER_QUEUE entries of every port: key suffix (`|0-2`) and entry.
    queue_runs: Vec<(String, Row<'static>)>,
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

/// The row naming one buffer profile (`{"profile": ...}`).
fn profile_ref(name: &str) -> Row<'static> {
    Row::new([("profile", Value::Text(Cow::Owned(name.to_string())))])
}

impl BufferParts {
    /// The tables of a platform, when it carries the SKU's buffer numbers.
    pub(super) fn new(pf: &Platform, qos: &QosPlan) -> Option<BufferParts> {
        let b: &SonicBuffers = pf.sonic.as_ref()?.buffers.as_ref()?;
        let headroom = b
            .pg_lookup
            .iter()
            .map(|r| {
                let name = format!("pg_lossless_{}_{}m_profile", r.speed, r.cable);
                let text = |s: &String| Value::Text(Cow::Owned(s.clone()));
                Headroom {
                    speed: r.speed,
                    cable: r.cable,
                    cable_length: format!("{}m", r.cable),
                    pg: profile_ref(&name),
                    profile: Row::new([
                        ("pool", "ingress_lossless_pool".into()),
                        ("size", text(&r.size)),
                        ("xon", text(&r.xon)),
                        ("xoff", text(&r.xoff)),
                        ("xon_offset", text(&r.xon_offset)),
                        ("dynamic_th", text(&r.dynamic_th)),
                    ]),
                    name,
                }
            })
            .collect();
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
        Some(BufferParts {
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
            lossless_pgs: lossless.iter().map(|p| format!("|{p}")).collect(),
            queue_runs,
        })
    }

    /// The headroom row a port uses: the shortest row of its speed at least as long as its cable.
    fn headroom(&self, i: &Interface) -> Option<usize> {
        let speed = u64::from(i.speed_gbps) * 1000;
        self.headroom
            .iter()
            .enumerate()
            .filter(|(_, r)| r.speed == speed && r.cable >= i.cable_m)
            .min_by_key(|(_, r)| r.cable)
            .map(|(n, _)| n)
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

/// Adds CABLE_LENGTH and, with the SKU's numbers, the BUFFER_* tables.
pub(super) fn add<'a>(
    db: &mut ConfigDb<'a>,
    d: &'a Device,
    order: &PortOrder<'a>,
    parts: Option<&'a BufferParts>,
) {
    // Each port's headroom row, in name order (CABLE_LENGTH's field order).
    let rows: Vec<Option<usize>> = order
        .plain
        .iter()
        .map(|i| parts.and_then(|p| p.headroom(i)))
        .collect();
    let cables = order
        .plain
        .iter()
        .zip(&rows)
        .map(|(i, n)| {
            let length = match (parts, n) {
                (Some(p), Some(n)) => Cow::Borrowed(p.headroom[*n].cable_length.as_str()),
                _ => Cow::Owned(format!("{}m", i.cable_m)),
            };
            (Cow::Borrowed(i.name.as_ref()), Value::Text(length))
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
    for &n in rows.iter().flatten() {
        if !std::mem::replace(&mut used[n], true) {
            let h = &p.headroom[n];
            profiles.push((Cow::Borrowed(h.name.as_str()), Part::Shared(&h.profile)));
        }
    }
    db.put("BUFFER_PROFILE", Table::new(profiles));

    let mut pgs = Vec::with_capacity(d.interfaces.len() * (1 + p.lossless_pgs.len()));
    for i in &order.joined {
        pgs.push((key(&[&i.name, "|0"]), Part::Shared(&p.lossy_pg)));
        if let Some(h) = p.headroom(i).map(|n| &p.headroom[n]) {
            for suffix in &p.lossless_pgs {
                pgs.push((key(&[&i.name, suffix]), Part::Shared(&h.pg)));
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
