//! Reads the lossless meaning back out of a rendered SONiC `config_db.json` (parsed with serde_json; it
//! follows the references by name, so a QUEUE pointing at the wrong scheduler or WRED profile is read as
//! what it means, not as what the template intended).
use super::Meaning;
use aifab::render::OutFile;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Extracts the meaning of one device's rendered files.
pub fn read(files: &[&OutFile]) -> Meaning {
    let file = files
        .iter()
        .find(|f| f.path.ends_with("/config_db.json"))
        .unwrap_or_else(|| panic!("no config_db.json among {:?}", paths(files)));
    let db: Value = serde_json::from_str(&file.content)
        .unwrap_or_else(|e| panic!("{}: not JSON: {e}", file.path));
    let table = |name: &str| -> Map<String, Value> {
        db.get(name)
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    };
    let field = |entry: &Value, name: &str| -> Option<String> {
        entry.get(name).map(|v| {
            v.as_str()
                .unwrap_or_else(|| panic!("{}: {name} is not a string: {v}", file.path))
                .to_string()
        })
    };
    let mut m = Meaning::default();

    // PFC and its watchdog, per port: every port must say the same.
    let port_qos = table("PORT_QOS_MAP");
    let pfc_wd = table("PFC_WD");
    let mut lossless: Option<BTreeSet<u8>> = None;
    let mut watchdog: Option<BTreeSet<u8>> = None;
    for (port, e) in port_qos.iter().filter(|(k, _)| k.as_str() != "global") {
        let pfc = prio_list(&field(e, "pfc_enable").unwrap_or_default(), &file.path);
        // The watchdog runs on a port's pfcwd_sw_enable priorities only when PFC_WD has the port.
        let wd = if pfc_wd.contains_key(port) {
            prio_list(&field(e, "pfcwd_sw_enable").unwrap_or_default(), &file.path)
        } else {
            BTreeSet::new()
        };
        if !pfc.is_empty() {
            m.pfc_ports.insert(port.clone());
        }
        agree(&mut lossless, pfc, &file.path, port, "pfc_enable");
        agree(
            &mut watchdog,
            wd,
            &file.path,
            port,
            "pfcwd_sw_enable / PFC_WD",
        );
    }
    m.lossless = lossless.unwrap_or_default();
    m.watchdog = watchdog.unwrap_or_default();

    // DSCP → TC through the map the ports use. The map lists all 64 DSCPs; the ones no class names
    // fall to the default class, whose TC is the one most DSCPs map to. Report the others.
    let map_names: BTreeSet<String> = port_qos
        .values()
        .filter_map(|e| field(e, "dscp_to_tc_map"))
        .collect();
    assert!(
        map_names.len() <= 1,
        "{}: ports use different DSCP maps {map_names:?}",
        file.path
    );
    if let Some(name) = map_names.first() {
        let map = table("DSCP_TO_TC_MAP");
        let map = map
            .get(name)
            .and_then(Value::as_object)
            .unwrap_or_else(|| panic!("{}: DSCP_TO_TC_MAP {name} is missing", file.path));
        let dscp: BTreeMap<u8, u8> = map
            .iter()
            .map(|(d, tc)| {
                let tc = tc.as_str().and_then(|t| t.parse().ok());
                (d.parse().ok(), tc)
            })
            .map(|(d, tc)| match (d, tc) {
                (Some(d), Some(tc)) => (d, tc),
                _ => panic!(
                    "{}: DSCP_TO_TC_MAP {name} has a non-numeric entry",
                    file.path
                ),
            })
            .collect();
        assert_eq!(
            dscp.len(),
            64,
            "{}: DSCP_TO_TC_MAP {name} must list all 64 DSCPs",
            file.path
        );
        m.dscp = dscp;
    }

    // Queues: strict scheduling and ECN, followed through SCHEDULER and WRED_PROFILE by name.
    let schedulers = table("SCHEDULER");
    let wred = table("WRED_PROFILE");
    let mut strict: BTreeMap<String, BTreeSet<u8>> = BTreeMap::new();
    let mut ecn: BTreeMap<String, BTreeMap<u8, (u64, u64, u8)>> = BTreeMap::new();
    let mut shapers: BTreeMap<String, BTreeMap<u8, u64>> = BTreeMap::new();
    for (key, e) in &table("QUEUE") {
        let (port, q) = key
            .split_once('|')
            .unwrap_or_else(|| panic!("{}: QUEUE key {key} is not <port>|<queue>", file.path));
        let q: u8 = q.parse().unwrap_or_else(|_| {
            panic!(
                "{}: QUEUE key {key}: a queue range is not expected",
                file.path
            )
        });
        if let Some(s) = field(e, "scheduler") {
            let sch = schedulers
                .get(&s)
                .unwrap_or_else(|| panic!("{}: QUEUE {key} uses missing scheduler {s}", file.path));
            if field(sch, "type").as_deref() == Some("STRICT") {
                strict.entry(port.to_string()).or_default().insert(q);
            }
            // `pir` in bytes per second (`meter_type: bytes`), as kbit/s.
            if let Some(pir) = field(sch, "pir") {
                assert_eq!(
                    field(sch, "meter_type").as_deref(),
                    Some("bytes"),
                    "{}: SCHEDULER {s}: pir without meter_type bytes",
                    file.path
                );
                let bytes: u64 = pir
                    .parse()
                    .unwrap_or_else(|_| panic!("{}: SCHEDULER {s}: pir {pir}", file.path));
                shapers
                    .entry(port.to_string())
                    .or_default()
                    .insert(q, bytes * 8 / 1000);
            }
        }
        if let Some(w) = field(e, "wred_profile") {
            let p = wred.get(&w).unwrap_or_else(|| {
                panic!("{}: QUEUE {key} uses missing WRED profile {w}", file.path)
            });
            let num = |f: &str| -> u64 {
                field(p, f)
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| panic!("{}: WRED_PROFILE {w} has no numeric {f}", file.path))
            };
            let marks = field(p, "ecn").is_some_and(|e| e != "ecn_none")
                && field(p, "wred_green_enable").as_deref() == Some("true");
            if marks {
                let prob = u8::try_from(num("green_drop_probability")).unwrap_or(u8::MAX);
                ecn.entry(port.to_string()).or_default().insert(
                    q,
                    (num("green_min_threshold"), num("green_max_threshold"), prob),
                );
            }
        }
    }
    m.strict = same_everywhere(strict, &m.pfc_ports, &file.path, "strict queues");
    m.shapers = shapers;
    m.ecn = same_everywhere(ecn, &m.pfc_ports, &file.path, "ECN queues");

    // Community SONiC has no DLB (ARS) and no QP hashing in config_db.
    m.dlb = None;
    m.qp_hash = db
        .get("SWITCH_HASH")
        .is_some_and(|h| h.to_string().contains("RDMA"));
    m
}

fn paths(files: &[&OutFile]) -> Vec<String> {
    files.iter().map(|f| f.path.clone()).collect()
}

/// `3,4` → {3, 4}; empty → {}.
fn prio_list(s: &str, path: &str) -> BTreeSet<u8> {
    s.split(',')
        .filter(|p| !p.is_empty())
        .map(|p| {
            p.trim()
                .parse()
                .unwrap_or_else(|_| panic!("{path}: priority list {s:?} is not numeric"))
        })
        .collect()
}

fn agree(acc: &mut Option<BTreeSet<u8>>, v: BTreeSet<u8>, path: &str, port: &str, what: &str) {
    match acc {
        None => *acc = Some(v),
        Some(a) => assert_eq!(
            *a, v,
            "{path}: {port} has another {what} than the other ports"
        ),
    }
}

/// A per-port fact that must be the same on every PFC port: returns that common value.
fn same_everywhere<T: PartialEq + Default + Clone + std::fmt::Debug>(
    per_port: BTreeMap<String, T>,
    ports: &BTreeSet<String>,
    path: &str,
    what: &str,
) -> T {
    let mut common: Option<T> = None;
    for p in ports {
        let v = per_port.get(p).cloned().unwrap_or_default();
        match &common {
            None => common = Some(v),
            Some(c) => assert_eq!(*c, v, "{path}: {p} has other {what} than the other ports"),
        }
    }
    for p in per_port.keys() {
        assert!(
            ports.contains(p),
            "{path}: QUEUE has port {p}, which has no PFC entry"
        );
    }
    common.unwrap_or_default()
}
