//! QoS maps, PORT_QOS_MAP, WRED_PROFILE, SCHEDULER and QUEUE (docs/platforms/sonic.md#qos-maps,
//! #queuing-and-ecn).
//!
//! One set of maps named ROCE. Priority = traffic class = queue = PFC priority, so the TC-to-queue and
//! PFC priority-to-queue maps are the identity and every lossless TC gets the priority group of its own
//! number (the other TCs share lossy PG 0). A strict class's queue uses `scheduler.strict`, or with a
//! rate limit its own `scheduler.<class>.<speed>g` (STRICT, `pir` = its share of that port speed in
//! bytes/s, and `cir` the same because the YANG wants a `cir` under every `pir`), a weighted
//! class's queue `scheduler.<class>` (DWRR, weight = its bandwidth percent; the YANG range is 1..100).
//! Queues no class uses carry no traffic and get no QUEUE entry, so they keep the SAI default scheduler
//! rather than a 0 weight the YANG refuses, except queue 7: SONiC sends the switch's own traffic (BGP,
//! LLDP, ARP) from it (sonic-swss `portsorch.cpp` `DEFAULT_HOSTIF_TX_QUEUE 7`), so when no class uses it
//! it gets `scheduler.control` (STRICT): control traffic is small, and no strict class of the intent can
//! starve the BGP sessions that carry the fabric. WRED/ECN thresholds are bytes (sonic-wred-profile.yang), the
//! same for green, yellow and red.

use super::db::{ConfigDb, Part, Row, Table, Value};
use super::{PortOrder, key};
use crate::model::{ClassPlan, QosPlan};
use crate::platform::EcnUnit;
use crate::units::Speed;
use std::borrow::Cow;

/// The name of the one map of each kind.
const MAP: &str = "ROCE";

/// The queue SONiC sends the switch's own packets from (sonic-swss portsorch `DEFAULT_HOSTIF_TX_QUEUE`).
const HOSTIF_TX_QUEUE: u8 = 7;

/// The scheduler of the host-interface queue when no class uses it.
const CONTROL_SCHEDULER: &str = "scheduler.control";

/// Whether the switch's own traffic has its queue to itself (no class uses queue 7).
fn control_queue_free(qos: &QosPlan) -> bool {
    !qos.classes.iter().any(|c| c.queue == HOSTIF_TX_QUEUE)
}

/// The QoS tables and entries of one platform's plan: the same on every device and port.
#[derive(Debug)]
pub(super) struct QosParts {
    /// Whole tables: the four maps, WRED_PROFILE and SCHEDULER (when some class needs them).
    tables: Vec<(&'static str, Table<'static>)>,
    /// PORT_QOS_MAP `global`.
    global: Row<'static>,
    /// PORT_QOS_MAP entry of every port.
    port: Row<'static>,
    /// QUEUE entries of every port by port speed (Gbit/s): key suffix (`|3`) and entry. A shaped strict
    /// class's scheduler is per speed, so the entries differ by speed only when some class is shaped.
    queues: Vec<(u32, Vec<(String, Row<'static>)>)>,
}

/// `3,4`: the lossless priorities as SONiC's `pfc_enable` lists them.
pub(super) fn priority_list(priorities: &[u8]) -> String {
    let list: Vec<String> = priorities.iter().map(u8::to_string).collect();
    list.join(",")
}

/// The WRED_PROFILE name of a class with ECN (`ROCE_LOSSLESS`).
fn wred_name(c: &ClassPlan) -> String {
    let kind = if c.lossless { "_LOSSLESS" } else { "_LOSSY" };
    format!("{}{kind}", c.ident)
}

/// The SCHEDULER name of a weighted class (`scheduler.roce`).
fn scheduler_name(c: &ClassPlan) -> String {
    format!("scheduler.{}", c.name)
}

/// The SCHEDULER of a shaped strict class on ports of one speed (`scheduler.cnp.400g`).
fn shaped_name(c: &ClassPlan, gbps: u32) -> String {
    format!("scheduler.{}.{gbps}g", c.name)
}

/// `percent` of a `gbps` port in bytes per second (SCHEDULER `pir` with `meter_type: bytes`).
fn shaped_bytes_per_s(gbps: u32, percent: u8) -> u64 {
    u64::from(gbps) * 1_000_000_000 / 8 * u64::from(percent) / 100
}

/// A weighted (DWRR) class: not strict, with a non-zero share.
fn weighted(c: &ClassPlan) -> Option<u8> {
    c.bandwidth.filter(|b| *b > 0 && !c.strict)
}

/// One map table `ROCE: {from: to}`.
fn map(pairs: impl Iterator<Item = (u64, u64)>) -> Table<'static> {
    let fields = pairs
        .map(|(from, to)| (Cow::Owned(from.to_string()), Value::Num(to)))
        .collect();
    Table::one(MAP, Row::from_fields(fields))
}

impl QosParts {
    /// The parts of one plan.
    pub(super) fn new(qos: &QosPlan, speeds: &[Speed], unit: &EcnUnit) -> QosParts {
        let speeds: Vec<u32> = speeds.iter().map(|s| s.gbps()).collect();
        let is_lossless = |q: u8| qos.lossless_priorities.contains(&q);
        let queues = || qos.queues.iter().map(|q| u64::from(q.queue));
        let mut tables = vec![
            (
                "DSCP_TO_TC_MAP",
                map((0u64..).zip(qos.dscp_to_tc.iter().map(|tc| u64::from(*tc)))),
            ),
            ("TC_TO_QUEUE_MAP", map(queues().map(|q| (q, q)))),
            (
                "TC_TO_PRIORITY_GROUP_MAP",
                map(qos.queues.iter().map(|q| {
                    let pg = if is_lossless(q.queue) { q.queue } else { 0 };
                    (u64::from(q.queue), u64::from(pg))
                })),
            ),
            ("MAP_PFC_PRIORITY_TO_QUEUE", map(queues().map(|q| (q, q)))),
        ];
        let wred = wred_profiles(qos, unit);
        if !wred.is_empty() {
            tables.push(("WRED_PROFILE", wred));
        }
        let schedulers = schedulers(qos, &speeds);
        if !schedulers.is_empty() {
            tables.push(("SCHEDULER", schedulers));
        }
        let pfc_enable = priority_list(&qos.lossless_priorities);
        let watched = if qos.watchdog.enabled {
            pfc_enable.clone()
        } else {
            String::new()
        };
        QosParts {
            tables,
            global: Row::new([("dscp_to_tc_map", MAP.into())]),
            // An empty priority list is left out: sonic-port-qos-map.yang's pattern `[0-7](,[0-7])*`
            // refuses "" (a fabric without lossless classes, or with the watchdog off).
            port: Row::new(
                [
                    ("dscp_to_tc_map", MAP.into()),
                    ("tc_to_queue_map", MAP.into()),
                    ("tc_to_pg_map", MAP.into()),
                    ("pfc_to_queue_map", MAP.into()),
                ]
                .into_iter()
                .chain(
                    [("pfc_enable", pfc_enable), ("pfcwd_sw_enable", watched)]
                        .into_iter()
                        .filter(|(_, v)| !v.is_empty())
                        .map(|(k, v)| (k, Value::Text(v.into()))),
                ),
            ),
            queues: speeds
                .iter()
                .map(|&gbps| (gbps, queue_entries(qos, gbps)))
                .collect(),
        }
    }

    /// Adds this device's QoS tables.
    pub(super) fn add<'a>(&'a self, db: &mut ConfigDb<'a>, order: &PortOrder<'a>) {
        for (name, table) in &self.tables {
            db.share(name, table);
        }
        let mut ports = Vec::with_capacity(order.plain.len() + 1);
        for i in &order.plain {
            ports.push((Cow::Borrowed(i.name.as_ref()), Part::Shared(&self.port)));
        }
        ports.push((Cow::Borrowed("global"), Part::Shared(&self.global)));
        db.put("PORT_QOS_MAP", Table::new(ports));
        let per_port = self.queues.first().map_or(0, |(_, q)| q.len());
        if per_port > 0 && !order.joined.is_empty() {
            let mut rows = Vec::with_capacity(order.joined.len() * per_port);
            for i in &order.joined {
                // Every port runs at one of the platform's speeds (the compiler checks it).
                let entries = self
                    .queues
                    .iter()
                    .find(|(gbps, _)| *gbps == i.speed_gbps)
                    .or(self.queues.first())
                    .map(|(_, q)| q.as_slice())
                    .unwrap_or_default();
                for (suffix, row) in entries {
                    rows.push((key(&[&i.name, suffix]), Part::Shared(row)));
                }
            }
            db.put("QUEUE", Table::new(rows));
        }
    }
}

/// WRED_PROFILE: one profile per class with ECN, thresholds in the platform's `unit` (bytes).
fn wred_profiles(qos: &QosPlan, unit: &EcnUnit) -> Table<'static> {
    let rows = qos
        .classes
        .iter()
        .filter_map(|c| Some((c, c.ecn.as_ref()?)))
        .map(|(c, e)| {
            let (min, max, p) = (
                Value::Num(unit.count(e.min_bytes)),
                Value::Num(unit.count(e.max_bytes)),
                Value::Num(u64::from(e.probability)),
            );
            let row = Row::new([
                ("ecn", "ecn_all".into()),
                ("wred_green_enable", "true".into()),
                ("green_min_threshold", min.clone()),
                ("green_max_threshold", max.clone()),
                ("green_drop_probability", p.clone()),
                ("wred_yellow_enable", "true".into()),
                ("yellow_min_threshold", min.clone()),
                ("yellow_max_threshold", max.clone()),
                ("yellow_drop_probability", p.clone()),
                ("wred_red_enable", "true".into()),
                ("red_min_threshold", min),
                ("red_max_threshold", max),
                ("red_drop_probability", p),
            ]);
            (Cow::Owned(wred_name(c)), row)
        })
        .collect();
    Table::owned(rows)
}

/// SCHEDULER: `scheduler.control` for the switch's own queue when no class uses it, `scheduler.strict`
/// when some class is strict, and one DWRR scheduler per weighted class.
fn schedulers(qos: &QosPlan, speeds: &[u32]) -> Table<'static> {
    let mut rows = Vec::new();
    for c in qos.classes.iter().filter(|c| c.strict) {
        let Some(pct) = c.max_rate else { continue };
        for &gbps in speeds {
            let rate = shaped_bytes_per_s(gbps, pct);
            rows.push((
                Cow::Owned(shaped_name(c, gbps)),
                Row::new([
                    ("type", "STRICT".into()),
                    ("meter_type", "bytes".into()),
                    ("cir", Value::Num(rate)),
                    ("pir", Value::Num(rate)),
                ]),
            ));
        }
    }
    if control_queue_free(qos) {
        rows.push((
            Cow::Borrowed(CONTROL_SCHEDULER),
            Row::new([("type", "STRICT".into())]),
        ));
    }
    if qos.classes.iter().any(|c| c.strict && c.max_rate.is_none()) {
        rows.push((
            Cow::Borrowed("scheduler.strict"),
            Row::new([("type", "STRICT".into())]),
        ));
    }
    for c in &qos.classes {
        if let Some(w) = weighted(c) {
            rows.push((
                Cow::Owned(scheduler_name(c)),
                Row::new([
                    ("type", "DWRR".into()),
                    ("weight", Value::Num(u64::from(w))),
                ]),
            ));
        }
    }
    Table::owned(rows)
}

/// The QUEUE entry of each queue a class schedules or marks: (`|<queue>`, entry), in key order, so
/// that a device's QUEUE table (its ports in [`PortOrder::joined`] order, each with these entries) is
/// built sorted.
fn queue_entries(qos: &QosPlan, gbps: u32) -> Vec<(String, Row<'static>)> {
    let mut out = Vec::new();
    for c in &qos.classes {
        let mut fields = Vec::new();
        if c.strict && c.max_rate.is_some() {
            fields.push((
                Cow::Borrowed("scheduler"),
                Value::Text(shaped_name(c, gbps).into()),
            ));
        } else if c.strict {
            fields.push((Cow::Borrowed("scheduler"), "scheduler.strict".into()));
        } else if weighted(c).is_some() {
            fields.push((
                Cow::Borrowed("scheduler"),
                Value::Text(scheduler_name(c).into()),
            ));
        }
        if c.ecn.is_some() {
            fields.push((
                Cow::Borrowed("wred_profile"),
                Value::Text(wred_name(c).into()),
            ));
        }
        if !fields.is_empty() {
            out.push((format!("|{}", c.queue), Row::from_fields(fields)));
        }
    }
    if control_queue_free(qos) {
        out.push((
            format!("|{HOSTIF_TX_QUEUE}"),
            Row::new([("scheduler", CONTROL_SCHEDULER.into())]),
        ));
    }
    out.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pfc_enable_is_a_comma_list() {
        assert_eq!(priority_list(&[3]), "3");
        assert_eq!(priority_list(&[3, 4]), "3,4");
        assert_eq!(priority_list(&[]), "");
    }
}
