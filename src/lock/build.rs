//! The lock a compiled fabric implies ([`from_model`]), and what a new lock renumbers or re-cables on
//! devices the old one already held ([`renumbered`]).

use super::{Lock, LockDevice, LockLink, LockServer, VERSION, natural_cmp};
use crate::model::{FabricModel, LinkTier};
use foldhash::{HashMap, HashMapExt as _, HashSet};
use std::collections::BTreeMap;

/// The lock for `model`: every device, switch link and (routed) server /31 it holds. Entries of
/// `previous` whose device left the fabric are kept as `retired` (their space stays reserved) unless
/// `release` drops them.
pub fn from_model(model: &FabricModel, previous: Option<&Lock>, release: bool) -> Lock {
    let mut lock = live(model);
    if let (Some(prev), false) = (previous, release) {
        retire(&mut lock, prev, model);
    }
    lock.sort();
    lock
}

/// The entries the model holds (devices, then each link's entry, in parallel and in model order).
fn live(model: &FabricModel) -> Lock {
    let devices = model
        .devices
        .iter()
        .map(|d| LockDevice {
            name: d.hostname.clone(),
            loopback: d.loopback,
            router_id: d.bgp.router_id,
            asn: d.bgp.asn,
            management: d.management.as_ref().map(|m| m.ip),
            server_subnet: d.server_subnet.as_ref().map(|s| s.prefix.to_string()),
            retired: false,
        })
        .collect();
    let (links, servers) = cable_entries(model);
    Lock {
        version: VERSION,
        lineage: None,
        serial: None,
        digest: None,
        devices,
        links,
        servers,
        total: None,
        narrowed: None,
    }
}

/// The lock entries of the model's addressed cables: switch-to-switch links, and server links (a
/// server on a rail leaf whose servers share one subnet has no entry of its own).
fn cable_entries(model: &FabricModel) -> (Vec<LockLink>, Vec<LockServer>) {
    use rayon::prelude::*;
    let ports: HashMap<&str, HashMap<&str, u32>> = model
        .devices
        .par_iter()
        .map(|d| {
            let by_name = d.interfaces.iter().map(|i| (i.name.as_ref(), i.port));
            (d.hostname.as_str(), by_name.collect())
        })
        .collect();
    let port = |dev: &str, name: &str| ports.get(dev).and_then(|p| p.get(name)).copied();
    let rail: HashSet<&str> = model
        .devices
        .iter()
        .filter(|d| d.server_subnet.is_some())
        .map(|d| d.hostname.as_str())
        .collect();
    // Mapped (not filtered) in parallel: an indexed collect writes each result in place.
    let entries: Vec<Option<Entry>> = model
        .links
        .par_iter()
        .map(|l| {
            let (subnet, up) = (l.subnet.as_ref()?, port(&l.b, &l.b_port)?);
            if l.tier == LinkTier::ServerLeaf {
                return (!rail.contains(l.b.as_ref())).then(|| {
                    Entry::Server(LockServer {
                        leaf: l.b.clone(),
                        port: up,
                        subnet: subnet.clone(),
                        retired: false,
                    })
                });
            }
            Some(Entry::Link(LockLink {
                lower: l.a.clone(),
                lower_port: port(&l.a, &l.a_port)?,
                upper: l.b.clone(),
                upper_port: up,
                subnet: subnet.clone(),
                retired: false,
            }))
        })
        .collect();
    let cables = entries
        .iter()
        .filter(|e| matches!(e, Some(Entry::Link(_))))
        .count();
    let mut links = Vec::with_capacity(cables);
    let mut servers = Vec::with_capacity(entries.len() - cables);
    for e in entries.into_iter().flatten() {
        match e {
            Entry::Link(k) => links.push(k),
            Entry::Server(v) => servers.push(v),
        }
    }
    (links, servers)
}

/// One link's lock entry.
enum Entry {
    Link(LockLink),
    Server(LockServer),
}

/// Adds `prev`'s entries for devices (and server ports) the model no longer has, as retired.
fn retire(lock: &mut Lock, prev: &Lock, model: &FabricModel) {
    let present: HashSet<&str> = model.devices.iter().map(|d| d.hostname.as_str()).collect();
    for d in prev
        .devices
        .iter()
        .filter(|d| !present.contains(d.name.as_str()))
    {
        lock.devices.push(LockDevice {
            retired: true,
            ..d.clone()
        });
    }
    for k in prev
        .links
        .iter()
        .filter(|k| !present.contains(k.lower.as_ref()) || !present.contains(k.upper.as_ref()))
    {
        lock.links.push(LockLink {
            retired: true,
            ..k.clone()
        });
    }
    let ports: HashSet<(&str, u32)> = lock
        .servers
        .iter()
        .map(|v| (v.leaf.as_ref(), v.port))
        .collect();
    let subnets: HashSet<&str> = lock.servers.iter().map(|v| v.subnet.as_ref()).collect();
    // A server port the fabric no longer uses (its leaf left, or the group shrank): reserved.
    let gone: Vec<LockServer> = prev
        .servers
        .iter()
        .filter(|v| {
            !ports.contains(&(v.leaf.as_ref(), v.port)) && !subnets.contains(v.subnet.as_ref())
        })
        .map(|v| LockServer {
            retired: true,
            ..v.clone()
        })
        .collect();
    lock.servers.extend(gone);
}

/// One existing device whose allocation a change moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Renumbered {
    /// Hostname.
    pub device: String,
    /// What moves, one phrase each (`loopback 10.0.0.1 -> 10.0.0.9`, `port 57: spine1:3 -> spine3:1`).
    pub changes: Vec<String>,
}

/// Devices `old` held (live) that keep their name in `new` but change loopback, router-id, ASN,
/// management address or server subnet, or whose live cables or server /31s move. A device or cable
/// that leaves the fabric, or one that is added, is not a renumbering.
pub fn renumbered(old: &Lock, new: &Lock) -> Vec<Renumbered> {
    // The usual re-render allocates exactly what the lock holds: nothing can have moved.
    if old == new {
        return Vec::new();
    }
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let newdev: HashMap<&str, &LockDevice> = new
        .devices
        .iter()
        .filter(|d| !d.retired)
        .map(|d| (d.name.as_str(), d))
        .collect();
    for o in old.devices.iter().filter(|d| !d.retired) {
        if let Some(n) = newdev.get(o.name.as_str()) {
            for c in device_changes(o, n) {
                out.entry(o.name.clone()).or_default().push(c);
            }
        }
    }
    recabled(old, new, &newdev, &mut out);
    servers_moved(old, new, &newdev, &mut out);
    let mut v: Vec<Renumbered> = out
        .into_iter()
        .map(|(device, changes)| Renumbered { device, changes })
        .collect();
    v.sort_by(|a, b| natural_cmp(&a.device, &b.device));
    v
}

/// What moves on one device, one phrase each. Values are compared as the lock writes them, and
/// formatted only when they differ.
fn device_changes(o: &LockDevice, n: &LockDevice) -> Vec<String> {
    let mut c = Vec::new();
    let mut cmp = |what: &str, a: &dyn std::fmt::Display, b: &dyn std::fmt::Display| {
        c.push(format!("{what} {a} -> {b}"));
    };
    if o.loopback != n.loopback {
        cmp("loopback", &o.loopback, &n.loopback);
    }
    if o.router_id != n.router_id {
        cmp("router-id", &o.router_id, &n.router_id);
    }
    if o.asn != n.asn {
        cmp("ASN", &o.asn, &n.asn);
    }
    let opt = |x: Option<&str>| x.unwrap_or("none").to_string();
    // A first management address moves nothing that runs: only a held one can be renumbered.
    if let Some(held) = o.management
        && n.management != Some(held)
    {
        let now = n.management.map(|m| m.to_string());
        cmp("management", &held, &opt(now.as_deref()));
    }
    if o.server_subnet != n.server_subnet {
        cmp(
            "server subnet",
            &opt(o.server_subnet.as_deref()),
            &opt(n.server_subnet.as_deref()),
        );
    }
    c
}

type End<'a> = (&'a str, u32);

/// What a live link puts on each of its two ports: (peer, peer port, subnet).
fn ends(lock: &Lock) -> HashMap<End<'_>, (&str, u32, &str)> {
    let mut m = HashMap::with_capacity(lock.links.len() * 2);
    for k in lock.links.iter().filter(|k| !k.retired) {
        m.insert(
            (k.lower.as_ref(), k.lower_port),
            (k.upper.as_ref(), k.upper_port, k.subnet.as_ref()),
        );
        m.insert(
            (k.upper.as_ref(), k.upper_port),
            (k.lower.as_ref(), k.lower_port, k.subnet.as_ref()),
        );
    }
    m
}

/// Ports of existing devices whose cable or /31 differs: a cable between two devices that both stay
/// must stay; a port of an existing device that gets a different cable is re-cabled.
fn recabled(
    old: &Lock,
    new: &Lock,
    present: &HashMap<&str, &LockDevice>,
    out: &mut BTreeMap<String, Vec<String>>,
) {
    let (before, after) = (ends(old), ends(new));
    let mut moved: Vec<(String, String)> = Vec::new();
    for ((dev, port), (peer, pport, subnet)) in &before {
        if !present.contains_key(dev) {
            continue;
        }
        let was = || format!("{peer}:{pport} {subnet}");
        match after.get(&(*dev, *port)) {
            Some((p2, pp2, s2)) if p2 == peer && pp2 == pport && s2 == subnet => {}
            Some((p2, pp2, s2)) => moved.push((
                dev.to_string(),
                format!("port {port}: {} -> {p2}:{pp2} {s2}", was()),
            )),
            None if present.contains_key(peer) => {
                moved.push((dev.to_string(), format!("port {port}: {} -> unused", was())))
            }
            None => {}
        }
    }
    moved.sort();
    for (dev, what) in moved {
        out.entry(dev).or_default().push(what);
    }
}

/// Server /31s that move on a leaf port that keeps its server.
fn servers_moved(
    old: &Lock,
    new: &Lock,
    present: &HashMap<&str, &LockDevice>,
    out: &mut BTreeMap<String, Vec<String>>,
) {
    let after: HashMap<(&str, u32), &str> = new
        .servers
        .iter()
        .filter(|v| !v.retired)
        .map(|v| ((v.leaf.as_ref(), v.port), v.subnet.as_ref()))
        .collect();
    for v in old.servers.iter().filter(|v| !v.retired) {
        if !present.contains_key(v.leaf.as_ref()) {
            continue;
        }
        if let Some(s) = after.get(&(v.leaf.as_ref(), v.port))
            && *s != &*v.subnet
        {
            out.entry(v.leaf.to_string())
                .or_default()
                .push(format!("server port {}: {} -> {s}", v.port, v.subnet));
        }
    }
}
