//! Leaves that BGP cannot tell apart: the same links to the same switches, the same `maximum-paths`,
//! and an ASN each holds alone (or one ASN they share). Swapping two of them (and their links to each
//! switch, in link order) maps the cabling and the ASN plan onto themselves, so a computation for one
//! as the destination is the other's with the two swapped, wherever it read nothing but the cabling
//! and the ASNs: no ties between equal paths of different ASNs (whose outcome the lowest router-id
//! settles) and no switch with more equal paths than its `maximum-paths` (which installs the lowest
//! router-ids'): [`reusable`].

use super::paths::{Fabric, LinkId, Node};
use super::pathvector::Computed;
use std::collections::HashMap;

/// The sets of twin leaves.
pub(super) struct Twins {
    /// Per switch, the lowest leaf of its set (itself where it has no twin, and for the other tiers).
    pub(super) rep: Vec<Node>,
    /// Per switch that is the lowest of its set, the highest.
    pub(super) last: Vec<Node>,
}

/// The twin leaves of `fabric`.
pub(super) fn leaves(fabric: &Fabric) -> Twins {
    let n = fabric.len();
    let mut holders: HashMap<u32, usize> = HashMap::new();
    for &asn in &fabric.asn {
        *holders.entry(asn).or_default() += 1;
    }
    let mut sets: HashMap<(u32, Option<u32>, Vec<Node>), Node> = HashMap::new();
    let mut rep: Vec<Node> = (0..n as Node).collect();
    let mut last = rep.clone();
    for s in fabric.leaves() {
        let asn = fabric.asn[s as usize];
        let shared = (holders[&asn] > 1).then_some(asn);
        let mut next: Vec<Node> = fabric.links_of(s).iter().map(|&(x, _)| x).collect();
        next.sort_unstable();
        let first = *sets
            .entry((fabric.max_paths[s as usize], shared, next))
            .or_insert(s);
        rep[s as usize] = first;
        last[first as usize] = s;
    }
    Twins { rep, last }
}

/// Whether computation `c` read nothing but the cabling and the ASNs, so that it stands for every
/// twin of its destination.
pub(super) fn reusable(c: &Computed) -> bool {
    c.ties.is_none() && !c.truncated
}

/// The swap of twins `a` and `b` on links: each link of one to a switch, by its place among the links
/// to that switch, for the other's, both ways; every other link is its own.
pub(super) fn swap(fabric: &Fabric, a: Node, b: Node) -> HashMap<LinkId, LinkId> {
    let mut out = HashMap::new();
    let mut rank: HashMap<Node, usize> = HashMap::new();
    let mut of_a: HashMap<(Node, usize), LinkId> = HashMap::new();
    for &(x, l) in fabric.links_of(a) {
        let k = rank.entry(x).or_default();
        of_a.insert((x, *k), l);
        *k += 1;
    }
    rank.clear();
    for &(x, l) in fabric.links_of(b) {
        let k = rank.entry(x).or_default();
        if let Some(&la) = of_a.get(&(x, *k)) {
            out.insert(la, l);
            out.insert(l, la);
        }
        *k += 1;
    }
    out
}

/// The switches with a link the swap of `a` and `b` moves: the two and their neighbors, sorted.
pub(super) fn near(fabric: &Fabric, a: Node, b: Node) -> Vec<Node> {
    let mut out: Vec<Node> = [a, b]
        .iter()
        .flat_map(|&x| fabric.links_of(x).iter().map(|&(y, _)| y))
        .chain([a, b])
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}
