//! QoS maps, PORT_QOS_MAP, WRED_PROFILE, SCHEDULER and QUEUE (docs/platforms/sonic.md#qos-maps,
//! #queuing-and-ecn).
//!
//! One set of maps named ROCE. Priority = traffic class = queue = PFC priority, so the TC-to-queue and
//! PFC priority-to-queue maps are the identity and every lossless TC gets the priority group of its own
//! number (the other TCs share lossy PG 0). A strict class's queue uses `scheduler.strict`, a weighted
//! class's queue `scheduler.<class>` (DWRR, weight = its bandwidth percent; the YANG range is 1..100).
//! Queues no class uses carry no traffic and get no QUEUE entry, so they keep the SAI default scheduler
//! rather than a 0 weight the YANG refuses, except queue 7: SONiC sends the switch's own traffic (BGP,
//! LLDP, ARP) from it (sonic-swss `portsorch.cpp` `DEFAULT_HOSTIF_TX_QUEUE 7`), so when no class uses it
//! it gets `scheduler.control` (STRICT): control traffic is small, and no strict class of the intent can
//! starve the BGP sessions that carry the fabric. WRED/ECN thresholds are bytes (sonic-wred-profile.yang), the
//! same for green, yellow and red.

use super::db::{ConfigDb, Part, Row, Table, Value};
use super::key;
use crate::model::{ClassPlan, Device, QosPlan};
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
    /// QUEUE entries of every port: key suffix (`|3`) and entry.
    queues: Vec<(String, Row<'static>)>,
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
    pub(super) fn new(qos: &QosPlan) -> QosParts {
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
        let wred = wred_profiles(qos);
        if !wred.is_empty() {
            tables.push(("WRED_PROFILE", wred));
        }
        let schedulers = schedulers(qos);
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
            port: Row::new([
                ("dscp_to_tc_map", MAP.into()),
                ("tc_to_queue_map", MAP.into()),
                ("tc_to_pg_map", MAP.into()),
                ("pfc_to_queue_map", MAP.into()),
                ("pfc_enable", Value::Text(pfc_enable.into())),
                ("pfcwd_sw_enable", Value::Text(watched.into())),
            ]),
            queues: queue_entries(qos),
        }
    }

    /// Adds this device's QoS tables.
    pub(super) fn add<'a>(&'a self, db: &mut ConfigDb<'a>, d: &'a Device) {
        for (name, table) in &self.tables {
            db.share(name, table);
        }
        let mut ports = Vec::with_capacity(d.interfaces.len() + 1);
        ports.push((Cow::Borrowed("global"), Part::Shared(&self.global)));
        for i in &d.interfaces {
            ports.push((Cow::Borrowed(i.name.as_str()), Part::Shared(&self.port)));
        }
        db.put("PORT_QOS_MAP", Table::new(ports));
        if !self.queues.is_empty() && !d.interfaces.is_empty() {
            let mut rows = Vec::with_capacity(d.interfaces.len() * self.queues.len());
            for i in &d.interfaces {
                for (suffix, row) in &self.queues {
                    rows.push((key(&[&i.name, suffix]), Part::Shared(row)));
                }
            }
            db.put("QUEUE", Table::new(rows));
        }
    }
}

/// WRED_PROFILE: one profile per class with ECN.
fn wred_profiles(qos: &QosPlan) -> Table<'static> {
    let rows = qos
        .classes
        .iter()
        .filter_map(|c| Some((c, c.ecn.as_ref()?)))
        .map(|(c, e)| {
            let (min, max, p) = (
                Value::Num(e.min),
                Value::Num(e.max),
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
fn schedulers(qos: &QosPlan) -> Table<'static> {
    let mut rows = Vec::new();
    if control_queue_free(qos) {
        rows.push((
            Cow::Borrowed(CONTROL_SCHEDULER),
            Row::new([("type", "STRICT".into())]),
        ));
    }
    if qos.classes.iter().any(|c| c.strict) {
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

/// The QUEUE entry of each queue a class schedules or marks: (`|<queue>`, entry).
fn queue_entries(qos: &QosPlan) -> Vec<(String, Row<'static>)> {
    let mut out = Vec::new();
    for c in &qos.classes {
        let mut fields = Vec::new();
        if c.strict {
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
