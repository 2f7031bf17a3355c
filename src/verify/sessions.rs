//! The sessions check: every planned BGP session established with the planned peer ASN, each switch
//! running its planned ASN and router-id, no session the plan does not have, and per leaf the number of
//! paths to the other leaves' server subnets (the ECMP width the plan promises, with the cables the
//! cabling check found broken taken out, since those findings already name them).

use super::Check;
use super::cabling::{Cabling, End};
use super::expect::Plan;
use super::finding::{Finding, Kind};
use super::observed::{Observed, RouteWidth};
use crate::check::ecmp::{self, Width};
use crate::check::paths::Node;
use crate::kinds::Role;
use std::collections::{BTreeMap, HashMap};
use std::net::Ipv4Addr;

/// Runs the check over the switches whose BGP summary was read (and the routes, `routes[i]`, of those
/// whose routes were); findings a broken cable explains are added to that cable's finding in
/// `cabling` instead.
pub fn check(
    plan: &Plan,
    observed: &[Option<&Observed>],
    routes: &[Option<&[RouteWidth]>],
    cabling: &mut Cabling,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let wrong_as = identity(plan, observed, &mut out);
    for (i, o) in observed.iter().enumerate() {
        let Some(bgp) = o.and_then(|o| o.bgp.as_ref()) else {
            continue;
        };
        let d = &plan.model.devices[i];
        let got: HashMap<Ipv4Addr, &super::observed::BgpPeer> =
            bgp.peers.iter().map(|p| (p.ip, p)).collect();
        for n in &d.bgp.neighbors {
            let end: End = (i, n.interface.to_string());
            let what = format!("{} (AS {}, {}:{})", n.ip, n.remote_as, n.peer, n.peer_port);
            let f = match got.get(&n.ip) {
                None => Some(
                    Finding::new(Check::Sessions, Kind::SessionMissing, &d.hostname)
                        .saw(format!("session {what}"), "no such neighbor"),
                ),
                Some(p) if p.remote_as.is_some_and(|a| a != n.remote_as) => {
                    let a = p.remote_as.unwrap_or(0);
                    if wrong_as.contains_key(&(n.peer.to_string(), a)) {
                        continue; // the peer's own finding names its ASN
                    }
                    Some(
                        Finding::new(Check::Sessions, Kind::WrongAsn, &d.hostname).saw(
                            format!("session {what}"),
                            format!("peer AS {a} ({})", p.state),
                        ),
                    )
                }
                Some(p) if !p.established => Some(
                    Finding::new(Check::Sessions, Kind::SessionDown, &d.hostname).saw(
                        format!("session {what} Established"),
                        format!("{}, not Established", p.state),
                    ),
                ),
                Some(_) => None,
            };
            let Some(f) = f.map(|f| f.at(n.interface.to_string())) else {
                continue;
            };
            if let Some(&k) = cabling.owner.get(&end) {
                cabling.findings[k].explains.push(format!(
                    "{}: {}: {}",
                    d.hostname,
                    f.expected.trim_end_matches(" Established"),
                    f.found
                ));
            } else {
                out.push(f);
            }
        }
        let planned: Vec<Ipv4Addr> = d.bgp.neighbors.iter().map(|n| n.ip).collect();
        for p in bgp.peers.iter().filter(|p| !planned.contains(&p.ip)) {
            out.push(
                Finding::new(Check::Sessions, Kind::UnplannedSession, &d.hostname).saw(
                    "no such session",
                    format!(
                        "{} AS {} {}",
                        p.ip,
                        p.remote_as.map_or("?".into(), |a| a.to_string()),
                        p.state
                    ),
                ),
            );
        }
    }
    out.extend(ecmp(plan, routes, cabling));
    out
}

/// Each switch's own ASN and router-id; returns the (switch, ASN it runs) of every switch whose ASN
/// differs, so its peers' sessions are not reported once more.
fn identity(
    plan: &Plan,
    observed: &[Option<&Observed>],
    out: &mut Vec<Finding>,
) -> BTreeMap<(String, u32), ()> {
    let mut wrong = BTreeMap::new();
    for (i, o) in observed.iter().enumerate() {
        let Some(bgp) = o.and_then(|o| o.bgp.as_ref()) else {
            continue;
        };
        let d = &plan.model.devices[i];
        if let Some(a) = bgp.local_as.filter(|&a| a != d.bgp.asn) {
            wrong.insert((d.hostname.clone(), a), ());
            let peers: Vec<&str> = d.bgp.peers.iter().map(|p| &*p.name).collect();
            let mut f = Finding::new(Check::Sessions, Kind::WrongIdentity, &d.hostname)
                .saw(format!("AS {}", d.bgp.asn), format!("AS {a}"));
            f.explains.push(format!(
                "its sessions with {} see peer AS {a}",
                peers.join(", ")
            ));
            out.push(f);
        }
        if let Some(r) = bgp.router_id.filter(|&r| r != d.bgp.router_id) {
            out.push(
                Finding::new(Check::Sessions, Kind::WrongIdentity, &d.hostname).saw(
                    format!("router-id {}", d.bgp.router_id),
                    format!("router-id {r}"),
                ),
            );
        }
    }
    wrong
}

/// Per leaf whose routes were read: the sampled leaves' loopbacks ([`FabricModel::route_samples`]) it
/// has no route to, and every other leaf's prefix in its routes with fewer next hops than the analysis
/// selects with every cable up but the broken ones. Where the width depends on BGP session order
/// (equal eBGP paths of different ASNs, [`crate::check::ecmp`]), any width of its range is accepted,
/// and a route no session order must install is not asked for.
///
/// [`FabricModel::route_samples`]: crate::model::FabricModel::route_samples
fn ecmp(plan: &Plan, routes: &[Option<&[RouteWidth]>], cabling: &Cabling) -> Vec<Finding> {
    let model = plan.model;
    let fabric = &plan.fabric;
    let leaves: Vec<usize> = (0..model.devices.len())
        .filter(|&i| model.devices[i].role == Role::Leaf && routes[i].is_some())
        .collect();
    if leaves.is_empty() {
        return Vec::new();
    }
    let down = broken_links(fabric, cabling);
    let origin_of = origin_of(model);
    let samples: Vec<usize> = model
        .route_samples()
        .iter()
        .filter_map(|(h, _)| plan.index.get(h).copied())
        .collect();
    // The origins to compute paths towards: the samples and any whose prefix a leaf reported.
    let mut origins: std::collections::BTreeSet<usize> = samples.iter().copied().collect();
    for &s in &leaves {
        for r in routes[s].into_iter().flatten() {
            if let Some(&o) = origin_of.get(&*r.prefix) {
                origins.insert(o);
            }
        }
    }
    // Every width BGP may install, over every session order where equal eBGP paths of different
    // ASNs make the outcome depend on it (check::ecmp).
    let width: BTreeMap<usize, Vec<Width>> = origins
        .iter()
        .map(|&o| {
            let down = |l: u32| down.get(l as usize).copied().unwrap_or(false);
            (o, ecmp::toward(fabric, o as Node, &down))
        })
        .collect();
    let mut out = Vec::new();
    for &s in &leaves {
        let routes = routes[s].unwrap_or(&[]);
        let got: HashMap<&str, usize> = routes.iter().map(|r| (&*r.prefix, r.hops)).collect();
        let mut short = Vec::new();
        let mut missing = Vec::new();
        for r in routes {
            let Some(&o) = origin_of.get(&*r.prefix) else {
                continue;
            };
            let want = &width[&o][s];
            if o != s && r.hops < want.min as usize {
                short.push(format!(
                    "{} ({}): {} of {} next hops",
                    r.prefix,
                    model.devices[o].hostname,
                    r.hops,
                    want.text()
                ));
            }
        }
        for &o in samples.iter().filter(|&&o| o != s && width[&o][s].min > 0) {
            let lo = format!("{}/32", model.devices[o].loopback);
            if !got.contains_key(lo.as_str()) {
                missing.push(format!("{lo} ({})", model.devices[o].hostname));
            }
        }
        if missing.is_empty() && short.is_empty() {
            continue;
        }
        let mut found = Vec::new();
        if !missing.is_empty() {
            found.push(format!("no route to {}", list(&missing)));
        }
        if !short.is_empty() {
            found.push(format!("fewer paths: {}", list(&short)));
        }
        out.push(Finding::new(Check::Sessions, Kind::Ecmp, &model.devices[s].hostname).saw("a route with the planned next hops to every other leaf (its loopback and server subnets)", found.join("; ")));
    }
    out
}

/// Per link of the fabric, whether the cabling check found it broken.
fn broken_links(fabric: &crate::check::paths::Fabric, cabling: &Cabling) -> Vec<bool> {
    fabric
        .links
        .iter()
        .map(|k| {
            cabling
                .broken
                .contains(&(k.a as usize, k.a_port.to_string()))
                || cabling
                    .broken
                    .contains(&(k.b as usize, k.b_port.to_string()))
        })
        .collect()
}

/// The leaf that announces each prefix (its loopback and its networks).
fn origin_of(model: &crate::model::FabricModel) -> HashMap<String, usize> {
    let mut origin_of: HashMap<String, usize> = HashMap::new();
    for (i, d) in model
        .devices
        .iter()
        .enumerate()
        .filter(|(_, d)| d.role == Role::Leaf)
    {
        origin_of.insert(format!("{}/32", d.loopback), i);
        for n in &d.bgp.networks {
            origin_of.insert(n.to_string(), i);
        }
    }
    origin_of
}

/// The first three items and a count of the rest.
fn list(items: &[String]) -> String {
    match items.len() {
        0..=3 => items.join(", "),
        n => format!("{}, and {} more", items[..3].join(", "), n - 3),
    }
}
