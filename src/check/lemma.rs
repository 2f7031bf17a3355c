//! Which failures can change what BGP settles for one destination beyond what it settles with every
//! link up: the routing analysis ([`super::deadlock`]) computes only those, and counts the others as
//! covered by the steady state.
//!
//! **The lemma.** Let `C` be the computation for destination `o` with every link up, and `f` a failure
//! (links, or a switch and its links). Call `x` an *endpoint* of `f` when it is not the failed switch
//! and one of its links is down in `f`. Suppose at every endpoint `x` (not `o`):
//!
//! 1. *best kept*: where a link down in `f` carries one of `x`'s equal-best routes in `C` (it is one of
//!    `x`'s next hops, or `x` is at its `maximum-paths` and the neighbor's path is as long as the
//!    others), `x` keeps a next hop of `C` over a live link to a live switch; and no link down in `f`
//!    joins `o` to an iBGP peer (the only iBGP routes that carry anything);
//! 2. *closed kept* (where equal eBGP paths of different ASN sets make `C` follow every choice,
//!    [`super::ties`]): `x` may lose its route under some choice in `C` already, or a neighbor over a
//!    live link *closes* it ([`super::ties::Ties::closes`]): that neighbor settled at a shorter length
//!    than `x` closed at, and `x` accepts every path it may advertise; and `C` followed every path
//!    (no switch past [`super::ties::PATHS_BOUND`]).
//!
//! Then every switch's routes after `f` are among those of `C`, restricted to the live links:
//!
//! - *Without ties* (every switch's equal-best eBGP paths hold one ASN set): by induction on the
//!   AS-path length. A switch that is no endpoint receives what it received in `C` (its neighbors, by
//!   induction, advertise paths of the same length and ASN set: that is all a receiver's loop check
//!   and selection read). An endpoint loses some candidates; one that was not equal-best changes
//!   nothing, and where an equal-best one goes, (1) keeps another of the same length, and of the same
//!   ASN set, since they all hold one: the switch settles at the same length and advertises the same
//!   ASN set. So the lengths, the advertised ASN sets and the acceptances are those of `C`, and the
//!   next hops are `C`'s minus the links down.
//! - *With ties*: the computation runs by length with, per switch, the set of paths it may advertise
//!   and whether it may still settle later (`open`). By induction on the length `d`, after the
//!   failure every switch's paths are a subset of those in `C` and `open` holds only where it held in
//!   `C`: a switch's paths at `d` come from its neighbors' at `d - 1` over fewer links, and it stays
//!   open only when every live neighbor may give it nothing it accepts (a neighbor still open, or one
//!   that may advertise a path it rejects), which with fewer paths and fewer open neighbors holds
//!   only where it held in `C`, except that an endpoint has fewer neighbors to ask: where `C` closed
//!   it, (2) names a live neighbor that closed it and, by induction, still does. The origin and its
//!   iBGP peers (length 0) are kept by (1). So no switch may lose a route it was sure of in `C`, no
//!   switch may advertise a path it could not in `C` (a valley of the ties, a switch that forwards
//!   down to one that may have taken its path from above, was one in `C`), and no switch passes the
//!   bound.
//!
//! The router-id outcome after the failure is one of the outcomes the ties follow (the
//! computation's contract, `routing_tests::every_router_id_order_is_an_outcome_the_tie_computation_allows`);
//! without ties it is `C`'s restricted. Hence: if `C` has no valley, the failure opens none; if no
//! leaf lacks (or may lack) its route to `o` in `C`, none does after `f`; and no switch passes the
//! bound of equal paths. A failure of `o` itself leaves nothing to route. What the analysis reports
//! (the first valley, the failures that leave pairs without a route, the first case past the bound)
//! is therefore read from the steady state and the failures this module calls relevant; the first
//! failure a finding names is computed again with every destination, so its counts are exact.
//! `routing_tests::the_pruned_search_is_the_exhaustive_one` compares the two on random plans.

use super::failures::Failure;
use super::paths::{Fabric, LinkId, Node, UNREACHABLE};
use super::pathvector::Computed;

/// The indices in `failures` of the failures that may change the routes of `c` beyond its own
/// (the others are covered by the lemma above).
pub fn relevant(fabric: &Fabric, c: &Computed, failures: &[Failure]) -> Vec<u32> {
    (0..failures.len() as u32)
        .filter(|&i| matters(fabric, c, failures[i as usize]))
        .collect()
}

/// Whether failure `f` may change the routes of `c` beyond its own: the lemma's conditions fail at
/// some endpoint.
pub fn matters(fabric: &Fabric, c: &Computed, f: Failure) -> bool {
    let o = c.routes.origin;
    let dead = f.switch();
    if dead == Some(o) {
        return false;
    }
    if c.ties.as_ref().is_some_and(|t| t.over.is_some()) {
        return true;
    }
    let taken = |l: LinkId| f.takes(fabric, l);
    for l in f.links(fabric) {
        let k = &fabric.links[l as usize];
        for (x, y) in [(k.a, k.b), (k.b, k.a)] {
            if Some(x) == dead || x == o {
                continue;
            }
            if fabric.asn[x as usize] == fabric.asn[y as usize] && y == o {
                return true;
            }
            if !keeps_best(fabric, c, x, y, l, &taken, dead) {
                return true;
            }
            if let Some(t) = &c.ties {
                let closed = t.closed[x as usize];
                let kept = closed == u16::MAX
                    || fabric
                        .links_of(x)
                        .iter()
                        .any(|&(w, l2)| !taken(l2) && Some(w) != dead && t.closes(fabric, w, x));
                if !kept {
                    return true;
                }
            }
        }
    }
    false
}

/// Condition (1) at endpoint `x` for the link `l` to `y`: `l` carries none of `x`'s equal-best routes,
/// or `x` keeps a next hop over a live link to a live switch.
fn keeps_best(
    fabric: &Fabric,
    c: &Computed,
    x: Node,
    y: Node,
    l: LinkId,
    taken: &dyn Fn(LinkId) -> bool,
    dead: Option<Node>,
) -> bool {
    let r = &c.routes;
    let dx = r.dist[x as usize];
    if dx == UNREACHABLE {
        return true;
    }
    let via = &r.via[x as usize];
    let full = via.len() >= fabric.max_paths[x as usize].max(1) as usize;
    let dy = r.dist[y as usize];
    let used = via.contains(&l) || (full && dy != UNREACHABLE && dy.saturating_add(1) == dx);
    !used
        || via
            .iter()
            .any(|&l2| !taken(l2) && Some(fabric.links[l2 as usize].other(x)) != dead)
}
