//! SONiC's documents, in the forms SONiC's own tools print: lldpd's `lldpctl -f json` (the `lldp`
//! container), FRR's `show bgp summary json` and `show ip route json` (the `bgp` container's vtysh),
//! and the Redis databases as `sonic-db-dump -n <DB> -k <glob> -y` prints them (the form SONiC's
//! `show techsupport` collects): APPL_DB's PORT_TABLE for the ports' oper state, CONFIG_DB's QoS, PFC
//! watchdog and device tables ([`CONFIG_DB_KEYS`], one dump per glob merged into one object) for the
//! lossless settings the switch runs with. `config-db.json` may also be `show runningconfiguration all`
//! (CONFIG_DB as nested tables). A switch of any OS that runs lldpd and FRR (the twin) gives the
//! first four in the same form.

use super::{Document, ReadError, json};
use crate::verify::Check;
use crate::verify::observed::{
    BgpPeer, BgpSummary, DscpMap, EcnMap, EcnState, LldpNeighbor, Observed, Route, canonical_port,
    peer_state,
};
use serde_json::{Map, Value, json};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The CONFIG_DB keys the lossless check reads, one `sonic-db-dump -k` glob each: only these tables
/// are collected, never the whole database (it holds the switch's TACACS+/RADIUS keys, SNMP
/// communities and user settings, which a state folder has no use for).
pub const CONFIG_DB_KEYS: &[&str] = &[
    "DEVICE_METADATA|localhost",
    "DSCP_TO_TC_MAP|*",
    "WRED_PROFILE|*",
    "PFC_WD|*",
    "PORT_QOS_MAP|*",
    "QUEUE|*",
];

/// SONiC's documents of a state folder.
pub const DOCUMENTS: &[Document] = &[
    Document {
        file: "lldpcli-chassis.json",
        command: "docker exec lldp lldpcli show chassis -f json",
        keys: &[],
        serves: &[Check::Cabling],
        read: read_chassis,
    },
    Document {
        file: "lldpctl.json",
        command: "docker exec lldp lldpctl -f json",
        keys: &[],
        serves: &[Check::Cabling],
        read: read_lldp,
    },
    Document {
        file: "frr-bgp-summary.json",
        command: "vtysh -c 'show bgp summary json'",
        keys: &[],
        serves: &[Check::Sessions],
        read: read_bgp,
    },
    Document {
        file: "frr-ip-route.json",
        command: "vtysh -c 'show ip route {prefix} json'",
        keys: &[],
        serves: &[Check::Sessions],
        read: read_route_list,
    },
    Document {
        file: "appl-db.json",
        command: "sonic-db-dump -n APPL_DB -k 'PORT_TABLE:*' -y",
        keys: &[],
        serves: &[Check::Ports],
        read: read_appl_db,
    },
    Document {
        file: "config-db.json",
        command: "sonic-db-dump -n CONFIG_DB -k '{key}' -y",
        keys: CONFIG_DB_KEYS,
        serves: &[Check::Lossless],
        read: read_config_db,
    },
];

/// The first four documents alone: what lldpd and FRR give on any switch that runs them (the twin).
pub fn daemon_documents() -> &'static [Document] {
    &DOCUMENTS[..4]
}

fn wrong(at: &str, what: &str) -> ReadError {
    ReadError::new(at, what)
}

/// lldpd prints one object where there is one entry and a list of one-key objects where there are
/// several (`"interface": [{"Ethernet0": {...}}, ...]`): both as (key, value) pairs.
fn entries<'a>(v: &'a Value, at: &str) -> Result<Vec<(&'a str, &'a Value)>, ReadError> {
    match v {
        Value::Object(m) => Ok(m.iter().map(|(k, v)| (k.as_str(), v)).collect()),
        Value::Array(items) => {
            let mut out = Vec::new();
            for (n, item) in items.iter().enumerate() {
                let m = item
                    .as_object()
                    .ok_or_else(|| wrong(&format!("{at}/{n}"), "expected an object"))?;
                out.extend(m.iter().map(|(k, v)| (k.as_str(), v)));
            }
            Ok(out)
        }
        _ => Err(wrong(at, "expected an object or a list of objects")),
    }
}

fn read_chassis(text: &str, o: &mut Observed) -> Result<(), ReadError> {
    let v = json(text)?;
    let chassis = v.pointer("/local-chassis/chassis").ok_or_else(|| {
        wrong(
            "/local-chassis/chassis",
            "missing: not `lldpcli show chassis -f json`",
        )
    })?;
    let (name, body) = entries(chassis, "/local-chassis/chassis")?
        .into_iter()
        .next()
        .ok_or_else(|| wrong("/local-chassis/chassis", "no chassis"))?;
    // A chassis without a system name is keyed by nothing and carries its `id` directly.
    if body.get("id").is_some() && name != "id" {
        o.hostname = Some(name.to_string());
    }
    Ok(())
}

fn read_lldp(text: &str, o: &mut Observed) -> Result<(), ReadError> {
    let v = json(text)?;
    let lldp = v
        .get("lldp")
        .ok_or_else(|| wrong("/lldp", "missing: not `lldpctl -f json`"))?;
    let mut out = Vec::new();
    if let Some(ifaces) = lldp.get("interface") {
        for (port, n) in entries(ifaces, "/lldp/interface")? {
            out.push(neighbor(port, n)?);
        }
    }
    o.lldp = Some(out);
    Ok(())
}

fn neighbor(port: &str, n: &Value) -> Result<LldpNeighbor, ReadError> {
    let at = format!("/lldp/interface/{port}");
    let mut system_name = None;
    if let Some(ch) = n.get("chassis") {
        let first = entries(ch, &format!("{at}/chassis"))?.into_iter().next();
        if let Some((name, body)) = first
            && name != "id"
            && body.is_object()
        {
            system_name = Some(name.to_string());
        }
    }
    let p = n.get("port");
    let text = |ptr: &str| p.and_then(|p| p.pointer(ptr)).and_then(Value::as_str);
    Ok(LldpNeighbor {
        local_port: canonical_port(port),
        system_name,
        port_id: text("/id/value").map(str::to_string),
        port_descr: text("/descr").map(str::to_string),
    })
}

fn read_bgp(text: &str, o: &mut Observed) -> Result<(), ReadError> {
    let v = json(text)?;
    let mut s = BgpSummary::default();
    if let Some(u) = v.get("ipv4Unicast") {
        s.router_id = u
            .get("routerId")
            .and_then(Value::as_str)
            .and_then(|r| r.parse().ok());
        s.local_as = u
            .get("as")
            .and_then(Value::as_u64)
            .and_then(|a| u32::try_from(a).ok());
        let peers = u
            .get("peers")
            .and_then(Value::as_object)
            .ok_or_else(|| wrong("/ipv4Unicast/peers", "missing: not `show bgp summary json`"))?;
        for (ip, p) in peers {
            s.peers.push(peer(ip, p)?);
        }
    } else if !v.as_object().is_some_and(Map::is_empty) {
        // FRR prints `{}` with no BGP instance; anything else without `ipv4Unicast` is another command.
        return Err(wrong(
            "/ipv4Unicast",
            "missing: not `show bgp summary json`",
        ));
    }
    o.bgp = Some(s);
    Ok(())
}

fn peer(ip: &str, p: &Value) -> Result<BgpPeer, ReadError> {
    let at = format!("/ipv4Unicast/peers/{ip}");
    let ip = ip.parse().map_err(|_| {
        wrong(
            &at,
            "not an IPv4 address (an interface peer is not planned)",
        )
    })?;
    let state = p
        .get("state")
        .and_then(Value::as_str)
        .ok_or_else(|| wrong(&format!("{at}/state"), "missing"))?;
    let num = |k: &str| {
        p.get(k)
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok())
    };
    Ok(BgpPeer {
        ip,
        remote_as: num("remoteAs"),
        state: peer_state(state),
        established: state == "Established",
        prefixes_received: num("pfxRcd"),
    })
}

/// One route of `show ip route json`, with only the fields read (serde skips the rest without
/// building them: the route documents of a 64-wide fabric are its largest).
#[derive(serde::Deserialize)]
struct FrrRoute<'a> {
    #[serde(borrow, default)]
    protocol: Option<Cow<'a, str>>,
    #[serde(default)]
    selected: bool,
    #[serde(borrow, default)]
    nexthops: Vec<FrrHop<'a>>,
}

/// One next hop of a [`FrrRoute`].
#[derive(serde::Deserialize)]
struct FrrHop<'a> {
    #[serde(borrow, default)]
    ip: Option<Cow<'a, str>>,
    #[serde(default)]
    fib: bool,
}

/// `show ip route json`: prefix to its routes.
type FrrTable<'a> = BTreeMap<Cow<'a, str>, Vec<FrrRoute<'a>>>;

/// The route document: the JSON list of `show ip route <prefix> json` outputs (one per sampled
/// prefix), or one output of the whole table.
fn read_route_list(text: &str, o: &mut Observed) -> Result<(), ReadError> {
    let typed = |e: serde_json::Error| {
        ReadError::new(
            format!("line {} column {}", e.line(), e.column()),
            format!("not `show ip route json` (a list of its outputs, or one): {e}"),
        )
    };
    let tables: Vec<FrrTable> = if text.trim_start().starts_with('[') {
        serde_json::from_str(text).map_err(typed)?
    } else {
        vec![serde_json::from_str(text).map_err(typed)?]
    };
    let mut out = Vec::new();
    for table in tables {
        for (prefix, routes) in table {
            let Some(sel) = routes.into_iter().find(|r| r.selected) else {
                continue;
            };
            let next_hops = sel
                .nexthops
                .iter()
                .filter(|h| h.fib)
                .filter_map(|h| h.ip.as_deref()?.parse().ok())
                .collect();
            out.push(Route {
                prefix: prefix.into_owned(),
                protocol: sel.protocol.map(Cow::into_owned).unwrap_or_default(),
                next_hops,
            });
        }
    }
    o.routes = Some(out);
    Ok(())
}

/// The rows of a Redis dump (`sonic-db-dump -y`: `"TABLE<sep>key": {"type": "hash", "value": {...}}`)
/// or of CONFIG_DB as nested tables (`show runningconfiguration all`): (table, key, fields).
/// A row's fields, borrowed from the document where they need no unescaping.
type Fields<'a> = Vec<(Cow<'a, str>, Cow<'a, str>)>;

/// One database row: (table, key, fields).
type DbRow<'a> = (Cow<'a, str>, Cow<'a, str>, Fields<'a>);

/// One key of a `sonic-db-dump` document: its hash's fields (its `type`, `ttl` and `expireat` are
/// not read).
#[derive(serde::Deserialize)]
struct DumpEntry<'a> {
    #[serde(borrow)]
    value: BTreeMap<Cow<'a, str>, Cow<'a, str>>,
}

/// The rows of a Redis dump (`sonic-db-dump -y`: `"TABLE<sep>key": {"type": "hash", "value": {...}}`,
/// read typed: these are a SONiC switch's largest documents) or of CONFIG_DB as nested tables
/// (`show runningconfiguration all`): (table, key, fields).
fn rows(text: &str, sep: char) -> Result<Vec<DbRow<'_>>, ReadError> {
    if first_key(text).is_some_and(|k| k.contains(sep)) {
        let dump: BTreeMap<Cow<str>, DumpEntry> = serde_json::from_str(text).map_err(|e| {
            ReadError::new(
                format!("line {} column {}", e.line(), e.column()),
                format!("not `sonic-db-dump -y` (keys `TABLE{sep}key` with a hash `value` of strings): {e}"),
            )
        })?;
        return Ok(dump
            .into_iter()
            .filter_map(|(k, e)| {
                let (table, key) = k.split_once(sep)?;
                let fields = e.value.into_iter().collect();
                Some((
                    Cow::Owned(table.to_string()),
                    Cow::Owned(key.to_string()),
                    fields,
                ))
            })
            .collect());
    }
    let v = json(text)?;
    let top = v
        .as_object()
        .ok_or_else(|| wrong("", "expected an object"))?;
    let mut out = Vec::new();
    for (table, body) in top {
        let at = format!("/{}", table.replace('~', "~0").replace('/', "~1"));
        let obj = body
            .as_object()
            .ok_or_else(|| wrong(&at, "expected an object of keys"))?;
        for (key, fields) in obj {
            let Some(f) = fields.as_object() else {
                continue;
            };
            let fields = f
                .iter()
                .filter_map(|(n, v)| {
                    Some((Cow::Owned(n.clone()), Cow::Owned(v.as_str()?.to_string())))
                })
                .collect();
            out.push((Cow::Owned(table.clone()), Cow::Owned(key.clone()), fields));
        }
    }
    Ok(out)
}

/// The first key of a JSON object's text, as written (`None` when the text is no object).
fn first_key(text: &str) -> Option<&str> {
    let rest = text
        .trim_start()
        .strip_prefix('{')?
        .trim_start()
        .strip_prefix('"')?;
    rest.split('"').next()
}

fn field<'b>(f: &'b Fields, k: &str) -> Option<&'b str> {
    f.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_ref())
}

fn read_appl_db(text: &str, o: &mut Observed) -> Result<(), ReadError> {
    for (table, key, f) in rows(text, ':')? {
        if table != "PORT_TABLE" || !key.starts_with("Ethernet") {
            continue;
        }
        let p = o.ports.entry(key.into_owned()).or_default();
        let f = &f;
        p.admin_up = field(f, "admin_status").map(|s| s == "up");
        p.oper_up = field(f, "oper_status").map(|s| s == "up");
        p.speed_gbps = field(f, "speed")
            .and_then(|s| s.parse::<u32>().ok())
            .map(|m| m / 1000);
        p.mtu = field(f, "mtu").and_then(|s| s.parse().ok());
    }
    Ok(())
}

/// Priorities as SONiC lists them (`3,4`), ascending.
fn priorities(s: &str) -> Vec<u8> {
    let mut v: Vec<u8> = s.split(',').filter_map(|p| p.trim().parse().ok()).collect();
    v.sort_unstable();
    v
}

fn read_config_db(text: &str, o: &mut Observed) -> Result<(), ReadError> {
    let rows = rows(text, '|')?;
    let table = |t: &'static str| rows.iter().filter(move |r| r.0 == t);
    if let Some((_, _, f)) = table("DEVICE_METADATA").find(|r| r.1 == "localhost") {
        o.hostname = field(f, "hostname")
            .map(str::to_string)
            .or(o.hostname.take());
    }
    let maps: BTreeMap<&str, DscpMap> = table("DSCP_TO_TC_MAP")
        .map(|(_, k, f)| {
            let m = f
                .iter()
                .filter_map(|(d, t)| Some((d.parse().ok()?, t.parse().ok()?)))
                .collect();
            (k.as_ref(), Arc::new(m))
        })
        .collect();
    let wred: BTreeMap<&str, EcnState> = table("WRED_PROFILE")
        .filter_map(|(_, k, f)| {
            let n = |x: &str| field(f, x).and_then(|s| s.parse().ok());
            let on = field(f, "ecn").is_some_and(|e| e != "ecn_none");
            on.then_some((
                k.as_ref(),
                EcnState {
                    min_bytes: n("green_min_threshold")?,
                    max_bytes: n("green_max_threshold")?,
                },
            ))
        })
        .collect();
    let watched: Vec<&str> = table("PFC_WD").map(|r| r.1.as_ref()).collect();
    o.qos.watchdog_enabled = Some(watched.iter().any(|k| *k != "GLOBAL"));
    for (_, port, f) in table("PORT_QOS_MAP").filter(|r| r.1.starts_with("Ethernet")) {
        let p = o.ports.entry(port.to_string()).or_default();
        p.pfc_priorities = Some(field(f, "pfc_enable").map(priorities).unwrap_or_default());
        let sw = field(f, "pfcwd_sw_enable")
            .map(priorities)
            .unwrap_or_default();
        p.pfc_watchdog = Some(!sw.is_empty() && watched.contains(&port.as_ref()));
        let map = field(f, "dscp_to_tc_map").and_then(|m| maps.get(m));
        p.trust_dscp = Some(map.is_some());
        p.dscp_to_tc = Some(map.cloned().unwrap_or_default());
        p.ecn = Some(EcnMap::default());
    }
    for (_, key, f) in table("QUEUE") {
        let Some((port, q)) = key.rsplit_once('|') else {
            continue;
        };
        let (Ok(q), Some(e)) = (
            q.parse::<u8>(),
            field(f, "wred_profile").and_then(|w| wred.get(w)),
        ) else {
            continue;
        };
        if let Some(m) = o.ports.get_mut(port).and_then(|p| p.ecn.as_mut()) {
            Arc::make_mut(m).insert(q, *e);
        }
    }
    Ok(())
}

/// The documents a SONiC switch in state `o` prints (file, JSON text), in the forms above: the inverse
/// of the readers, for generated state folders (tests, `aifab bench`).
pub fn write(o: &Observed) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if let Some(h) = &o.hostname {
        let doc = json!({"local-chassis": {"chassis": {h.as_str(): {"id": {"type": "mac", "value": "02:00:00:00:00:01"}}}}});
        out.push(("lldpcli-chassis.json", doc.to_string()));
    }
    if let Some(lldp) = &o.lldp {
        out.push(("lldpctl.json", write_lldp(lldp).to_string()));
    }
    if let Some(b) = &o.bgp {
        out.push(("frr-bgp-summary.json", write_bgp(b).to_string()));
    }
    if let Some(r) = &o.routes {
        out.push(("frr-ip-route.json", write_routes(r).to_string()));
    }
    if !o.ports.is_empty() {
        out.push(("appl-db.json", write_appl_db(o).to_string()));
        out.push(("config-db.json", write_config_db(o).to_string()));
    }
    out
}

fn write_lldp(lldp: &[LldpNeighbor]) -> Value {
    let items: Vec<Value> = lldp
        .iter()
        .map(|n| {
            let mut port = Map::new();
            if let Some(id) = &n.port_id {
                port.insert("id".into(), json!({"type": "local", "value": id}));
            }
            if let Some(d) = &n.port_descr {
                port.insert("descr".into(), json!(d));
            }
            let mut body = json!({"via": "LLDP", "rid": "1", "port": port});
            if let Some(s) = &n.system_name {
                body["chassis"] =
                    json!({s.as_str(): {"id": {"type": "mac", "value": "02:00:00:00:00:02"}}});
            }
            json!({n.local_port.as_str(): body})
        })
        .collect();
    match items.len() {
        0 => json!({"lldp": {}}),
        1 => json!({"lldp": {"interface": items[0]}}),
        _ => json!({"lldp": {"interface": items}}),
    }
}

fn write_bgp(b: &BgpSummary) -> Value {
    let peers: Map<String, Value> = b
        .peers
        .iter()
        .map(|p| {
            let mut v = json!({"remoteAs": p.remote_as, "state": p.state, "peerState": "OK"});
            if let Some(n) = p.prefixes_received {
                v["pfxRcd"] = json!(n);
            }
            (p.ip.to_string(), v)
        })
        .collect();
    let mut u = json!({"vrfId": 0, "vrfName": "default", "peers": peers});
    if let Some(r) = b.router_id {
        u["routerId"] = json!(r.to_string());
    }
    if let Some(a) = b.local_as {
        u["as"] = json!(a);
    }
    json!({ "ipv4Unicast": u })
}

fn write_routes(routes: &[Route]) -> Value {
    let m: Map<String, Value> = routes
        .iter()
        .map(|r| {
            let hops: Vec<Value> = r
                .next_hops
                .iter()
                .map(|h| json!({"ip": h.to_string(), "afi": "ipv4", "fib": true, "active": true}))
                .collect();
            let e = json!([{"prefix": r.prefix, "protocol": r.protocol, "selected": true, "installed": true, "nexthops": hops}]);
            (r.prefix.clone(), e)
        })
        .collect();
    Value::Object(m)
}

fn hash(fields: Map<String, Value>) -> Value {
    json!({"type": "hash", "ttl": -0.001, "expireat": 0, "value": fields})
}

fn write_appl_db(o: &Observed) -> Value {
    let mut top = Map::new();
    for (name, p) in &o.ports {
        let mut f = Map::new();
        let mut put = |k: &str, v: Option<String>| {
            if let Some(v) = v {
                f.insert(k.into(), json!(v));
            }
        };
        let status = |b: bool| {
            if b {
                "up".to_string()
            } else {
                "down".to_string()
            }
        };
        put("admin_status", p.admin_up.map(status));
        put("oper_status", p.oper_up.map(status));
        put("speed", p.speed_gbps.map(|s| (s * 1000).to_string()));
        put("mtu", p.mtu.map(|m| m.to_string()));
        top.insert(format!("PORT_TABLE:{name}"), hash(f));
    }
    Value::Object(top)
}

fn list(p: &[u8]) -> String {
    p.iter().map(u8::to_string).collect::<Vec<_>>().join(",")
}

fn write_config_db(o: &Observed) -> Value {
    let mut top = Map::new();
    let mut put = |k: String, f: Map<String, Value>| {
        top.insert(k, hash(f));
    };
    if let Some(h) = &o.hostname {
        put(
            "DEVICE_METADATA|localhost".into(),
            json!({"hostname": h})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        );
    }
    let mut profiles: Vec<EcnState> = Vec::new();
    let mut maps: Vec<DscpMap> = Vec::new();
    for (name, p) in &o.ports {
        let Some(pfc) = &p.pfc_priorities else {
            continue;
        };
        let mut f = Map::new();
        f.insert("pfc_enable".into(), json!(list(pfc)));
        if p.pfc_watchdog == Some(true) {
            f.insert("pfcwd_sw_enable".into(), json!(list(pfc)));
            put(
                format!("PFC_WD|{name}"),
                json!({"action": "drop"})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            );
        }
        if let (Some(true), Some(m)) = (p.trust_dscp, &p.dscp_to_tc) {
            let k = maps
                .iter()
                .position(|x| Arc::ptr_eq(x, m) || x == m)
                .unwrap_or_else(|| {
                    maps.push(m.clone());
                    maps.len() - 1
                });
            f.insert("dscp_to_tc_map".into(), json!(format!("MAP_{k}")));
        }
        put(format!("PORT_QOS_MAP|{name}"), f);
        for (q, e) in p.ecn.iter().flat_map(|m| m.iter()) {
            let k = profiles.iter().position(|x| x == e).unwrap_or_else(|| {
                profiles.push(*e);
                profiles.len() - 1
            });
            put(
                format!("QUEUE|{name}|{q}"),
                json!({"wred_profile": format!("WRED_{k}")})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            );
        }
    }
    for (k, m) in maps.iter().enumerate() {
        let fields = m
            .iter()
            .map(|(d, t)| (d.to_string(), json!(t.to_string())))
            .collect();
        put(format!("DSCP_TO_TC_MAP|MAP_{k}"), fields);
    }
    for (k, e) in profiles.iter().enumerate() {
        let f = json!({"ecn": "ecn_all", "green_min_threshold": e.min_bytes.to_string(), "green_max_threshold": e.max_bytes.to_string()});
        put(
            format!("WRED_PROFILE|WRED_{k}"),
            f.as_object().cloned().unwrap_or_default(),
        );
    }
    Value::Object(top)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `docs` (file, text) into one state, each by its table entry.
    fn read_all(docs: &[(&str, &str)]) -> Observed {
        let mut o = Observed::default();
        for (file, text) in docs {
            let doc = DOCUMENTS
                .iter()
                .find(|d| d.file == *file)
                .expect("a SONiC document");
            (doc.read)(text, &mut o).unwrap_or_else(|e| panic!("{file}: {e}"));
        }
        o
    }

    const LLDPCTL: &str = include_str!("../../../tests/verify/sonic/lldpctl.json");
    const CHASSIS: &str = include_str!("../../../tests/verify/sonic/lldpcli-chassis.json");
    const BGP: &str = include_str!("../../../tests/verify/sonic/frr-bgp-summary.json");
    const ROUTES: &str = include_str!("../../../tests/verify/sonic/frr-ip-route.json");

    #[test]
    fn lldpd_and_frr_documents_read_as_the_daemons_print_them() {
        let o = read_all(&[
            ("lldpcli-chassis.json", CHASSIS),
            ("lldpctl.json", LLDPCTL),
            ("frr-bgp-summary.json", BGP),
            ("frr-ip-route.json", ROUTES),
        ]);
        assert_eq!(o.hostname.as_deref(), Some("g1-r1-leaf"));
        let lldp = o.lldp.as_ref().expect("neighbours");
        assert_eq!(lldp.len(), 16);
        let first = lldp
            .iter()
            .find(|n| n.local_port == "Ethernet1/49")
            .expect("Ethernet1/49");
        assert_eq!(first.system_name.as_deref(), Some("spine1"));
        assert_eq!(first.port_id.as_deref(), Some("Ethernet1/1"));
        assert_eq!(first.port_descr.as_deref(), Some("g1-r1-leaf:Ethernet1/49"));
        let bgp = o.bgp.as_ref().expect("bgp");
        assert_eq!(bgp.router_id, Some("10.30.0.1".parse().expect("ip")));
        assert_eq!(bgp.local_as, Some(65300));
        assert_eq!(bgp.peers.len(), 16);
        let p = bgp
            .peers
            .iter()
            .find(|p| p.ip.to_string() == "10.31.0.0")
            .expect("peer");
        assert!(p.established && p.remote_as == Some(65030) && p.prefixes_received == Some(34));
        let routes = o.routes.as_ref().expect("routes");
        let other = routes
            .iter()
            .find(|r| r.prefix == "10.30.0.2/32")
            .expect("the other leaf");
        assert_eq!(
            (other.protocol.as_str(), other.next_hops.len()),
            ("bgp", 16)
        );
        let own = routes
            .iter()
            .find(|r| r.prefix == "10.30.0.1/32")
            .expect("its own loopback");
        assert_eq!(own.protocol, "connected");
    }

    #[test]
    fn a_cut_or_foreign_document_is_an_error_never_an_empty_state() {
        for (file, text) in [
            ("lldpctl.json", LLDPCTL),
            ("frr-bgp-summary.json", BGP),
            ("frr-ip-route.json", ROUTES),
        ] {
            let doc = DOCUMENTS.iter().find(|d| d.file == file).expect("doc");
            let e = (doc.read)(&text[..text.len() / 2], &mut Observed::default()).expect_err(file);
            assert!(e.at.starts_with("line "), "{file}: {e}");
        }
        let routes = DOCUMENTS
            .iter()
            .find(|d| d.file == "frr-ip-route.json")
            .expect("doc");
        assert!(
            (routes.read)(BGP, &mut Observed::default()).is_err(),
            "the BGP summary as routes"
        );
        let lldp = DOCUMENTS
            .iter()
            .find(|d| d.file == "lldpctl.json")
            .expect("doc");
        assert!(
            (lldp.read)(BGP, &mut Observed::default()).is_err(),
            "the BGP summary as LLDP"
        );
        let bgp = DOCUMENTS
            .iter()
            .find(|d| d.file == "frr-bgp-summary.json")
            .expect("doc");
        assert!(
            (bgp.read)(LLDPCTL, &mut Observed::default()).is_err(),
            "LLDP as the BGP summary"
        );
    }

    #[test]
    fn config_db_reads_as_a_dump_and_as_nested_tables() {
        let dump = r#"{"PORT_QOS_MAP|Ethernet0": {"type": "hash", "value": {"pfc_enable": "3,4", "pfcwd_sw_enable": "3,4", "dscp_to_tc_map": "ROCE"}},
            "DSCP_TO_TC_MAP|ROCE": {"type": "hash", "value": {"26": "3", "0": "0"}},
            "PFC_WD|Ethernet0": {"type": "hash", "value": {"action": "drop"}},
            "QUEUE|Ethernet0|3": {"type": "hash", "value": {"wred_profile": "W"}},
            "WRED_PROFILE|W": {"type": "hash", "value": {"ecn": "ecn_all", "green_min_threshold": "204800", "green_max_threshold": "2097152"}},
            "DEVICE_METADATA|localhost": {"type": "hash", "value": {"hostname": "leaf1"}}}"#;
        let nested = r#"{"PORT_QOS_MAP": {"Ethernet0": {"pfc_enable": "3,4", "pfcwd_sw_enable": "3,4", "dscp_to_tc_map": "ROCE"}},
            "DSCP_TO_TC_MAP": {"ROCE": {"26": "3", "0": "0"}},
            "PFC_WD": {"Ethernet0": {"action": "drop"}},
            "QUEUE": {"Ethernet0|3": {"wred_profile": "W"}},
            "WRED_PROFILE": {"W": {"ecn": "ecn_all", "green_min_threshold": "204800", "green_max_threshold": "2097152"}},
            "DEVICE_METADATA": {"localhost": {"hostname": "leaf1"}}}"#;
        let a = read_all(&[("config-db.json", dump)]);
        assert_eq!(a, read_all(&[("config-db.json", nested)]));
        let p = &a.ports["Ethernet0"];
        assert_eq!(p.pfc_priorities, Some(vec![3, 4]));
        assert_eq!(p.pfc_watchdog, Some(true));
        assert_eq!(p.dscp_to_tc.as_ref().and_then(|m| m.get(&26)), Some(&3));
        let e = p
            .ecn
            .as_ref()
            .and_then(|m| m.get(&3))
            .expect("queue 3 marks");
        assert_eq!((e.min_bytes, e.max_bytes), (204_800, 2_097_152));
        assert_eq!(a.hostname.as_deref(), Some("leaf1"));
    }
}
