//! PFC deadlock freedom (`AIF-ROUTE-001`, `-002`): every path BGP selects in the compiled fabric goes up
//! and then down (up*-down*), with every link up and after any single link failure. Traffic that comes
//! down to a switch and goes up again closes a cycle of buffer dependencies between lossless queues,
//! the classic PFC deadlock; up-down routing is what keeps a Clos free of it.
//!
//! The proof (docs/twin.md#why-the-proof-holds): where every link joins adjacent tiers and every
//! switch's neighbors above it share one ASN, BGP's AS-path loop prevention refuses every route that
//! would turn up after coming down, whatever links fail. It costs one pass over the links, so it runs
//! at every size. Where it does not hold, the paths BGP selects ([`super::paths`]) are computed for the
//! failures that could open a valley (every failure, on a small fabric) and the first valley is
//! reported with its failure and path (`AIF-ROUTE-001`); if none is found, the plan is still one link
//! failure pattern away from it (`AIF-ROUTE-002`). The destinations are the leaves: lossless traffic
//! runs between servers.

use super::paths::{Fabric, LinkId, Node, Valley};
use crate::diag::Finding;
use crate::model::FabricModel;
use crate::rules::Rule;

/// The work (switch visits) the exhaustive search may spend: every destination with every single
/// link failure, on a fabric small enough (about 20 ms here).
const EXHAUSTIVE_BUDGET: u64 = 40_000_000;
/// Destinations the targeted search tries at most on a larger fabric.
const TARGETED_ORIGINS: usize = 48;

/// What the analysis found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The ASN plan keeps every path up-down whatever links fail.
    Proven,
    /// A path that goes down and up: with which link failed (None: with every link up).
    Valley {
        /// The failed link.
        failed: Option<LinkId>,
        /// The destination switch.
        origin: Node,
        /// The path.
        valley: Valley,
    },
    /// The proof does not hold at this switch (two neighbors above it with different ASNs), but no
    /// single failure that was tried opened a valley.
    Unproven {
        /// The switch whose two neighbors above have different ASNs, with them; None when the proof
        /// failed because a link joins tiers that are not adjacent.
        mixed: Option<(Node, Node, Node)>,
        /// How many (destination, failure) cases were computed.
        cases: u64,
    },
}

/// The deadlock rules on a compiled fabric (a whole one: not an `--only` model).
pub fn rules(model: &FabricModel) -> Vec<Finding> {
    let fabric = Fabric::new(model);
    match analyse(&fabric) {
        Verdict::Proven => Vec::new(),
        Verdict::Valley {
            failed,
            origin,
            valley,
        } => vec![valley_finding(&fabric, failed, origin, &valley)],
        Verdict::Unproven { mixed, cases } => {
            let name = |n: Node| &*fabric.names[n as usize];
            let asn = |n: Node| fabric.asn[n as usize];
            let why = match mixed {
                Some((at, a, b)) => format!(
                    "{}'s neighbors above it have different ASNs ({} AS {}, {} AS {}): BGP may route traffic down to {} and up again once links fail",
                    name(at), name(a), asn(a), name(b), asn(b), name(at)
                ),
                None => "a link joins two tiers that are not adjacent, so up-down routing is not assured".to_string(),
            };
            vec![
                Finding::new(
                    Rule::MixedUpperAsns,
                    format!("{why}; no single link failure did in {cases} cases computed"),
                )
                .at("/fabric/bgp")
                .hint(HINT),
            ]
        }
    }
}

const HINT: &str = "give the switches above each switch one ASN: one spine ASN per zone (or per fabric), one super-spine ASN; check lock pins of `asn` (docs/twin.md#safe-asn-plans)";

/// The proof, or the search for a valley where the proof does not hold.
pub fn analyse(fabric: &Fabric) -> Verdict {
    let mixed = fabric.mixed_upper_asns();
    if fabric.layered() && mixed.is_none() {
        return Verdict::Proven;
    }
    let above = mixed.map(|(_, a, b)| (a, b)).unwrap_or((0, 0));
    let mut cases = 0u64;
    let work = (fabric.len() as u64)
        .saturating_mul(fabric.links.len() as u64 + 1)
        .saturating_mul(fabric.links.len() as u64 + fabric.len() as u64);
    let origins: Vec<Node> = if work <= EXHAUSTIVE_BUDGET {
        leaves(fabric).collect()
    } else {
        targeted_origins(fabric, above)
    };
    for o in origins {
        let steady = fabric.select(o, None);
        cases += 1;
        if let Some(v) = fabric.valley(&steady) {
            return Verdict::Valley {
                failed: None,
                origin: o,
                valley: v,
            };
        }
        let failures: Vec<LinkId> = if work <= EXHAUSTIVE_BUDGET {
            (0..fabric.links.len() as LinkId).collect()
        } else {
            // The links the switch above forwards over: losing one sends it looking elsewhere.
            steady.via[above.0 as usize].clone()
        };
        for l in failures {
            let r = fabric.select(o, Some(l));
            cases += 1;
            if let Some(v) = fabric.valley(&r) {
                return Verdict::Valley {
                    failed: Some(l),
                    origin: o,
                    valley: v,
                };
            }
        }
    }
    Verdict::Unproven { mixed, cases }
}

/// The destinations whose traffic is lossless: the leaves, where the servers are (a spine's own
/// loopback carries no RoCE traffic).
fn leaves(fabric: &Fabric) -> impl Iterator<Item = Node> + '_ {
    (0..fabric.len() as Node).filter(|&n| fabric.tier[n as usize] == 0)
}

/// On a large fabric: the leaves below the two neighbors above the mixed switch (the first reaches
/// them through the switch below once its own links fail), then the other leaves, up to
/// [`TARGETED_ORIGINS`].
fn targeted_origins(fabric: &Fabric, above: (Node, Node)) -> Vec<Node> {
    let below = |x: Node| {
        fabric
            .links_of(x)
            .iter()
            .map(|&(y, _)| y)
            .filter(move |&y| fabric.tier[y as usize] == 0)
    };
    let mut out: Vec<Node> = below(above.1).chain(below(above.0)).collect();
    out.extend(leaves(fabric));
    let mut seen = vec![false; fabric.len()];
    out.retain(|&n| !std::mem::replace(&mut seen[n as usize], true));
    out.truncate(TARGETED_ORIGINS);
    out
}

fn valley_finding(fabric: &Fabric, failed: Option<LinkId>, origin: Node, v: &Valley) -> Finding {
    let name = |n: Node| &*fabric.names[n as usize];
    let when = match failed {
        Some(l) => format!("after link {} fails", fabric.link_name(l)),
        None => "with every link up".to_string(),
    };
    let turn = v.path[v.turn];
    let before = v.path[v.turn - 1];
    let after = v.path[v.turn + 1];
    Finding::new(
        Rule::ValleyPath,
        format!(
            "{when}, BGP routes traffic for {} down and up again (a PFC deadlock cycle): {}; {} (AS {}) accepts {}'s route through {} (AS {}) because their ASNs differ",
            name(origin),
            fabric.path_text(&v.path),
            name(before),
            fabric.asn[before as usize],
            name(turn),
            name(after),
            fabric.asn[after as usize],
        ),
    )
    .at("/fabric/bgp")
    .hint(HINT)
}
