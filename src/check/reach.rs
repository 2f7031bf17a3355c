//! Reachability between leaves (`AIF-ROUTE-003`): every leaf has a route to the server prefixes of
//! every other leaf the cabling joins it to, with every link up and after every failure in scope. A
//! pair the failure cuts off physically is no routing plan's fault and is not counted; a pair BGP
//! leaves without a route is named with the switch that drops the prefix and why (an AS-path loop, iBGP
//! split horizon, an iBGP next hop that does not resolve). `maximum-paths` narrows the next hops but
//! always keeps the best one, so it never drops a prefix.

use super::failures::Failure;
use super::paths::{Fabric, Node, Routes, UNREACHABLE};
use super::pathvector::{Computed, Refusal};
use crate::diag::Finding;
use crate::model::FabricModel;
use crate::rules::Rule;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};

/// How many leaf pairs a finding names.
const NAMED: usize = 4;

/// The leaf pairs without a route in one case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cut {
    /// The failure (None: every link up).
    pub failure: Option<Failure>,
    /// Ordered (from, to) leaf pairs without a route.
    pub pairs: u64,
    /// Ordered leaf pairs the cabling joins, in the destinations computed.
    pub joined: u64,
    /// The first pairs: (from, to).
    pub first: Vec<(Node, Node)>,
    /// Where the first pair's prefix is dropped: the switch, why, and the path it rejected.
    pub drop: Option<(Node, Refusal, Vec<u32>)>,
    /// Of `pairs`, those that have a route when every tie between equal eBGP paths goes to the lowest
    /// router-id, and lose it when another of the equal paths is advertised ([`super::ties`]).
    pub maybe: u64,
    /// The rejected path of `drop` is one of several equal paths its neighbor may advertise: how many.
    pub tie: usize,
}

impl Cut {
    /// An empty cut of `failure`.
    pub fn new(failure: Option<Failure>) -> Cut {
        Cut {
            failure,
            pairs: 0,
            joined: 0,
            first: Vec::new(),
            drop: None,
            maybe: 0,
            tie: 0,
        }
    }

    /// Adds the leaves of one computation that the cabling (`comp`) joins to its origin and that have
    /// no route; `weight` is how many destinations the origin stands for (its twins).
    pub fn add(&mut self, fabric: &Fabric, c: &Computed, comp: &[u32], weight: u64) {
        let o = c.routes.origin;
        let dead = self.failure.and_then(Failure::switch);
        for s in fabric.leaves() {
            if s == o || Some(s) == dead || comp[s as usize] != comp[o as usize] {
                continue;
            }
            self.joined += weight;
            let reached = c.routes.dist[s as usize] != UNREACHABLE;
            let may_lose = c.ties.as_ref().is_some_and(|t| t.may_lose[s as usize]);
            if reached && !may_lose {
                continue;
            }
            self.pairs += weight;
            self.maybe += if reached { weight } else { 0 };
            if self.first.len() < NAMED {
                self.first.push((s, o));
            }
            if self.drop.is_none()
                && let Some((at, why, path, tie)) = drop_point(fabric, c, s, self.failure)
            {
                self.drop = Some((at, why, path));
                self.tie = tie;
            }
        }
    }
}

impl Cut {
    /// Adds `other`'s pairs (of the same case) after this cut's, as [`Cut::add`] would have.
    pub fn merge(&mut self, other: Cut) {
        self.pairs += other.pairs;
        self.joined += other.joined;
        self.maybe += other.maybe;
        let room = NAMED.saturating_sub(self.first.len());
        self.first.extend(other.first.into_iter().take(room));
        if self.drop.is_none() {
            self.drop = other.drop;
            self.tie = other.tie;
        }
    }
}

/// Every case's leaf pairs without a route, as the findings report them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cuts {
    /// With every link up.
    pub steady: Option<Cut>,
    /// The first failure that leaves pairs without a route that had one.
    pub failed: Option<Cut>,
    /// How many failures do.
    pub failures: u64,
}

impl Cuts {
    /// Records one case (its pairs, if it has any).
    pub fn push(&mut self, cut: Cut) {
        if cut.pairs == 0 {
            return;
        }
        if cut.failure.is_none() {
            self.steady = Some(cut);
        } else if self.steady.is_none() {
            self.failures += 1;
            self.failed.get_or_insert(cut);
        }
    }
}

/// The switch where the prefix of `c` stops on its way to leaf `s`: the first switch, from `s` along
/// live links through switches without a route (or that may lose it), that rejected a neighbor's
/// route; with the path it rejected, and how many equal paths that neighbor may advertise when the
/// rejected one is one of several (0 otherwise).
fn drop_point(
    fabric: &Fabric,
    c: &Computed,
    s: Node,
    failure: Option<Failure>,
) -> Option<(Node, Refusal, Vec<u32>, usize)> {
    let lost = |v: Node| {
        c.routes.dist[v as usize] == UNREACHABLE
            || c.ties.as_ref().is_some_and(|t| t.may_lose[v as usize])
    };
    let mut seen = vec![false; fabric.len()];
    let mut queue = vec![s];
    seen[s as usize] = true;
    let mut i = 0;
    while let Some(&u) = queue.get(i) {
        i += 1;
        if let Some(why) = c.dropped[u as usize] {
            return Some((u, why, c.as_path(fabric, why.from()), 0));
        }
        if let Some(found) = tie_drop(fabric, c, u, failure) {
            return Some(found);
        }
        for &(v, l) in fabric.links_of(u) {
            let down = failure.is_some_and(|f| f.takes(fabric, l));
            if !down && !seen[v as usize] && lost(v) {
                seen[v as usize] = true;
                queue.push(v);
            }
        }
    }
    None
}

/// Where switch `u` may lose the prefix of `c` because an eBGP neighbor with several equal paths may
/// advertise one that holds `u`'s ASN: (u, the AS-path loop, that path, how many paths it may
/// advertise).
fn tie_drop(
    fabric: &Fabric,
    c: &Computed,
    u: Node,
    failure: Option<Failure>,
) -> Option<(Node, Refusal, Vec<u32>, usize)> {
    let t = c.ties.as_ref()?;
    if !t.may_lose[u as usize] {
        return None;
    }
    let own = fabric.asn[u as usize];
    fabric.links_of(u).iter().find_map(|&(v, l)| {
        let down = failure.is_some_and(|f| f.takes(fabric, l));
        let offers = &t.offers[v as usize];
        if down || fabric.asn[v as usize] == own || offers.len() < 2 {
            return None;
        }
        let o = offers.iter().find(|o| o.path.contains(&own))?;
        Some((
            u,
            Refusal::AsPathLoop { from: v },
            o.path.clone(),
            offers.len(),
        ))
    })
}

/// The cuts of a symmetric plan ([`super::deadlock::symmetric`]): one leaf of each set of twins (the
/// same links to the same switches) is computed with every link up, and again after a failure only
/// where the failure takes every next hop of some switch: elsewhere every switch keeps its AS-path
/// length and, the plan being symmetric, the same path, so no pair loses its route. The failure the
/// finding names is then computed again with every leaf as a destination, so its pair count is exact
/// (a failure at one twin's link treats the twins apart); the other failures are only counted.
pub fn symmetric(fabric: &Fabric) -> (Cuts, Cuts) {
    let comp = fabric.components(None);
    let failures = fabric.failure_sets();
    // Each set of twins on its own thread, merged in their order (the same as one after the other).
    let per_rep: Vec<RepCuts> = twins(fabric)
        .into_par_iter()
        .map(|(rep, weight)| rep_cuts(fabric, &comp, &failures, rep, weight))
        .collect();
    let mut steady = Cut::new(None);
    // Per failure (by index), the pairs of the destinations computed.
    let mut cut_by: BTreeMap<usize, Cut> = BTreeMap::new();
    for r in per_rep {
        steady.merge(r.steady);
        for (i, c) in r.lost {
            match cut_by.entry(i) {
                std::collections::btree_map::Entry::Occupied(mut e) => e.get_mut().merge(c),
                std::collections::btree_map::Entry::Vacant(e) => {
                    e.insert(c);
                }
            }
        }
    }
    let mut servers = Cuts::default();
    servers.push(steady);
    // The failure a finding names (the first whose pairs the cabling still joins) is counted again
    // over every leaf: twins are not all alike once a link of one of them is down.
    let mut named = false;
    for c in cut_by.into_values() {
        if c.pairs > 0 && !named {
            named = true;
            servers.push(every_leaf(fabric, c.failure));
        } else {
            servers.push(c);
        }
    }
    let mut loopbacks = Cuts::default();
    loopbacks.push(loopbacks_symmetric(fabric, &comp));
    (servers, loopbacks)
}

/// Leaves without a route to a spine's or super-spine's loopback with every link up, in a symmetric
/// plan, from its structure instead of one path-vector computation per switch (a 100K-GPU fabric has
/// hundreds of spines, none the twin of another): no ASN serves two tiers and the switches above each
/// switch share one, so a loopback reaches a leaf only down from its own switch, or (a spine's) up to
/// a super-spine and down through another spine of another ASN (a path through a second super-spine
/// holds the super-spines' ASN twice, one back down through a leaf is refused by the next spine above
/// it, which shares the first one's ASN). A super-spine's loopback reaches the leaves below every spine
/// below it. [`loopbacks_computed`] is the same cut by computation; tests hold them equal.
pub fn loopbacks_symmetric(fabric: &Fabric, comp: &[u32]) -> Cut {
    let n = fabric.len();
    let tier = |v: Node| fabric.tier[v as usize];
    let below = |v: Node| {
        fabric
            .links_of(v)
            .iter()
            .map(|&(x, _)| x)
            .filter(move |&x| tier(x) + 1 == tier(v))
    };
    let above = |v: Node| {
        fabric
            .links_of(v)
            .iter()
            .map(|&(x, _)| x)
            .filter(move |&x| tier(x) == tier(v) + 1)
    };
    let mut cut = Cut::new(None);
    let mut reached = vec![false; n];
    let mut via = vec![false; n];
    for s in (0..n as Node).filter(|&s| !fabric.is_leaf(s)) {
        reached.fill(false);
        via.fill(false);
        // The spines whose leaves get the loopback.
        match tier(s) {
            1 => {
                via[s as usize] = true;
                for x in above(s) {
                    for t in below(x) {
                        via[t as usize] |= fabric.asn[t as usize] != fabric.asn[s as usize];
                    }
                }
            }
            _ => {
                for t in below(s) {
                    via[t as usize] = true;
                }
            }
        }
        for t in (0..n as Node).filter(|&t| via[t as usize]) {
            for l in below(t) {
                reached[l as usize] = true;
            }
        }
        for l in fabric
            .leaves()
            .filter(|&l| comp[l as usize] == comp[s as usize])
        {
            cut.joined += 1;
            if !reached[l as usize] {
                cut.pairs += 1;
                if cut.first.len() < NAMED {
                    cut.first.push((l, s));
                }
            }
        }
    }
    if let Some(&(l, s)) = cut.first.first() {
        let c = fabric.compute(s, None, &|_| false, None);
        cut.drop = drop_point(fabric, &c, l, None).map(|(at, why, path, _)| (at, why, path));
    }
    cut
}

/// [`loopbacks_symmetric`]'s cut by one path-vector computation per spine and super-spine.
pub fn loopbacks_computed(fabric: &Fabric) -> Cut {
    let comp = fabric.components(None);
    let mut cut = Cut::new(None);
    for s in (0..fabric.len() as Node).filter(|&s| !fabric.is_leaf(s)) {
        let c = fabric.compute(s, None, &|_| false, None);
        cut.add(fabric, &c, &comp, 1);
    }
    cut
}

/// What one set of twin leaves contributes: their cut with every link up, and the failures (by index)
/// after which they lose a route.
struct RepCuts {
    steady: Cut,
    lost: Vec<(usize, Cut)>,
}

/// The cuts of destination `rep`, standing for `weight` twins.
fn rep_cuts(
    fabric: &Fabric,
    comp: &[u32],
    failures: &[Failure],
    rep: Node,
    weight: u64,
) -> RepCuts {
    let c = fabric.compute(rep, None, &|_| false, None);
    let mut steady = Cut::new(None);
    steady.add(fabric, &c, comp, weight);
    let mut lost = Vec::new();
    let order = by_length(&c.routes);
    for (i, &f) in failures.iter().enumerate() {
        if f.switch() == Some(rep) || !takes_all(fabric, &c.routes, f) {
            continue;
        }
        let down = |l| f.takes(fabric, l);
        let Some(cf) = fabric.repair(&c, &order, &down, f.switch()) else {
            continue;
        };
        let gone = fabric.leaves().any(|s| {
            cf.routes.dist[s as usize] == UNREACHABLE && c.routes.dist[s as usize] != UNREACHABLE
        });
        if gone {
            let mut cut = Cut::new(Some(f));
            cut.add(fabric, &cf, &fabric.components(Some(f)), 1);
            lost.push((i, cut));
        }
    }
    RepCuts { steady, lost }
}

/// The cut of `failure` with every leaf as a destination.
pub(super) fn every_leaf(fabric: &Fabric, failure: Option<Failure>) -> Cut {
    let mut cut = Cut::new(failure);
    let comp = fabric.components(failure);
    let dead = failure.and_then(Failure::switch);
    for o in fabric.leaves().filter(|&o| Some(o) != dead) {
        let c = fabric.compute_after(o, failure);
        cut.add(fabric, &c, &comp, 1);
    }
    cut
}

/// One leaf of each set of twins (the same links to the same switches), with the size of the set.
fn twins(fabric: &Fabric) -> Vec<(Node, u64)> {
    let mut sets: HashMap<Vec<Node>, usize> = HashMap::new();
    let mut out: Vec<(Node, u64)> = Vec::new();
    for s in fabric.leaves() {
        let mut key: Vec<Node> = fabric.links_of(s).iter().map(|&(x, _)| x).collect();
        key.sort_unstable();
        match sets.get(&key) {
            Some(&i) => out[i].1 += 1,
            None => {
                sets.insert(key, out.len());
                out.push((s, 1));
            }
        }
    }
    out
}

/// Every switch with a route, by its AS-path length.
fn by_length(r: &Routes) -> Vec<Node> {
    let mut order: Vec<Node> = (0..r.dist.len() as Node)
        .filter(|&v| r.dist[v as usize] != UNREACHABLE)
        .collect();
    order.sort_by_key(|&v| r.dist[v as usize]);
    order
}

/// Whether failure `f` takes every next hop of some switch in `r` (or the origin itself).
fn takes_all(fabric: &Fabric, r: &Routes, f: Failure) -> bool {
    let gone = |v: Node| {
        let via = &r.via[v as usize];
        !via.is_empty() && via.iter().all(|&l| f.takes(fabric, l))
    };
    match f {
        Failure::Link(l) => {
            let k = &fabric.links[l as usize];
            gone(k.a) || gone(k.b)
        }
        Failure::Parallel(a, b) => gone(a) || gone(b),
        Failure::Switch(n) => n != r.origin && fabric.links_of(n).iter().any(|&(v, _)| gone(v)),
    }
}

/// The `AIF-ROUTE-003` findings of `cuts`.
pub fn findings(model: &FabricModel, fabric: &Fabric, cuts: &Cuts) -> Vec<Finding> {
    kind_findings(model, fabric, cuts, Dest::Servers)
}

/// The `AIF-ROUTE-004` finding of `loopbacks`: leaves without a route to a spine's or super-spine's
/// loopback with every link up. After a failure a leaf cut off from a spine loses that spine's
/// loopback under every plan that gives the spines one ASN (the other spines reject the path), so
/// failures are not reported.
pub fn loopback_findings(model: &FabricModel, fabric: &Fabric, loopbacks: &Cuts) -> Vec<Finding> {
    let steady = Cuts {
        steady: loopbacks.steady.clone(),
        ..Cuts::default()
    };
    kind_findings(model, fabric, &steady, Dest::Loopbacks)
}

/// What a cut's destinations are.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dest {
    /// Leaves: their server prefixes (and loopbacks).
    Servers,
    /// Spines and super-spines: their loopbacks.
    Loopbacks,
}

fn kind_findings(model: &FabricModel, fabric: &Fabric, cuts: &Cuts, dest: Dest) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some(c) = &cuts.steady {
        out.push(finding(model, fabric, c, "", dest));
    }
    if let Some(c) = &cuts.failed {
        let more = match cuts.failures {
            0 | 1 => String::new(),
            n => format!(
                " ({} other failures in scope leave such pairs without a route too)",
                n - 1
            ),
        };
        out.push(finding(model, fabric, c, &more, dest));
    }
    out
}

fn finding(model: &FabricModel, fabric: &Fabric, c: &Cut, more: &str, dest: Dest) -> Finding {
    let name = |n: Node| &*fabric.names[n as usize];
    let when = match c.failure {
        Some(f) => f.text(fabric),
        None => "with every link up".to_string(),
    };
    let pairs: Vec<String> = c
        .first
        .iter()
        .map(|&(s, o)| format!("{} → {}", name(s), name(o)))
        .collect();
    let named = if c.pairs as usize > pairs.len() {
        ", ..."
    } else {
        ""
    };
    let why = match (c.first.first(), &c.drop) {
        (Some(&(_, o)), Some((at, d, path))) => {
            format!(
                "; {} of {} stop at {}{}",
                prefixes(model, o),
                name(o),
                because(fabric, *at, *d, path),
                tie_text(fabric, *d, c.tie)
            )
        }
        _ => String::new(),
    };
    let maybe = match c.maybe {
        0 => String::new(),
        m if m == c.pairs => {
            " (each may lose it: which depends on which eBGP session came up first)".to_string()
        }
        m => {
            format!(" ({m} of them may lose it: which depends on which eBGP session came up first)")
        }
    };
    let (rule, what, hint) = match dest {
        Dest::Servers => (
            Rule::LeafUnreachable,
            "leaf pairs the cabling joins have no route (from → to)",
            "BGP drops these prefixes because of the ASN plan: give every leaf its own ASN, every spine of a zone the zone's ASN and every super-spine the one super-spine ASN, each tier apart from the others (correct or delete the `asn` pins in the lock, docs/lock.md)",
        ),
        Dest::Loopbacks => (
            Rule::LoopbackUnreachable,
            "(leaf, switch) pairs the cabling joins have no route from the leaf to the switch's loopback (leaf → switch)",
            "in-band management, telemetry or BGP sessions to these loopbacks fail from those leaves: BGP drops the loopback routes because of the ASN plan (a switch rejects a path through another switch of its own ASN); cable each leaf to every spine of its ASN, or reach the loopbacks out of band",
        ),
    };
    Finding::new(
        rule,
        format!(
            "{when}, {} of {} {what}{maybe}: {}{named}{why}{more}",
            c.pairs,
            c.joined,
            pairs.join(", ")
        ),
    )
    .at("/fabric/bgp")
    .hint(hint)
}

/// `, when z1-ss1 advertises that one of its 2 equal-length paths (...)`: where the rejected path is
/// one of several its neighbor may advertise.
fn tie_text(fabric: &Fabric, d: Refusal, paths: usize) -> String {
    if paths < 2 {
        return String::new();
    }
    format!(
        ", when {} advertises that one of its {paths} equal-length eBGP paths (BGP keeps the oldest eBGP route, RFC 5004: which one depends on which session came up first)",
        fabric.names[d.from() as usize]
    )
}

/// `10.52.0.0/31 and 7 more`: the server prefixes a leaf announces (its loopback when it has none).
fn prefixes(model: &FabricModel, o: Node) -> String {
    let Some(d) = model.devices.get(o as usize) else {
        return "the prefixes".into();
    };
    let lo = format!("{}/32", d.loopback);
    let servers: Vec<&str> = d
        .bgp
        .networks
        .iter()
        .map(|n| &**n)
        .filter(|n| *n != lo)
        .collect();
    match servers.as_slice() {
        [] => lo,
        [one] => (*one).to_string(),
        [first, rest @ ..] => format!("{first} and {} more", rest.len()),
    }
}

/// `z2-spine1 (AS 65021): it rejects z1-ss1's path 65001 65020 65400, which holds AS 65021 (AS-path loop)`.
fn because(fabric: &Fabric, at: Node, d: Refusal, path: &[u32]) -> String {
    let name = |n: Node| &*fabric.names[n as usize];
    let asn = fabric.asn[at as usize];
    let path: Vec<String> = path.iter().map(u32::to_string).collect();
    let path = path.join(" ");
    match d {
        Refusal::AsPathLoop { from } => format!(
            "{} (AS {asn}): it rejects {}'s path {path}, which holds AS {asn} (AS-path loop)",
            name(at),
            name(from)
        ),
        Refusal::SplitHorizon { from } => format!(
            "{} (AS {asn}): its iBGP peer {} learned the route over iBGP and does not pass it on to another iBGP peer (iBGP split horizon)",
            name(at),
            name(from)
        ),
        Refusal::NextHopUnresolved { from } => format!(
            "{} (AS {asn}): its iBGP peer {} passes the route on with the eBGP next hop it learned it from, an address on a link {} is not on, and no config announces the fabric links (iBGP next hop unresolved)",
            name(at),
            name(from),
            name(at)
        ),
    }
}
