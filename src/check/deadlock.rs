//! The routing of the compiled fabric as BGP computes it ([`super::pathvector`]), with every link up and
//! after every failure in scope ([`super::failures`]: a link, a group of parallel links, a switch):
//! PFC deadlock freedom (`AIF-ROUTE-001`, `-002`) and reachability between leaves (`AIF-ROUTE-003`,
//! [`super::reach`]). Traffic that comes down to a switch and goes up again closes a cycle of buffer
//! dependencies between lossless queues, the classic PFC deadlock; up-down routing keeps a Clos free
//! of it. The destinations are the leaves: lossless traffic runs between servers.
//!
//! The proof (docs/twin.md#why-the-proof-holds): where every link joins adjacent tiers, every switch's
//! neighbors above it share one ASN, no ASN serves two tiers and no two leaves share one (a
//! *symmetric* plan), AS-path loop prevention refuses every route that would turn up after coming
//! down, whatever fails; and every equal-length path a switch can select holds the same ASNs, so
//! which one BGP advertises changes no other switch's choice. Then a failure changes the routes only
//! where it takes every next hop of some switch, and only those cases are computed again; leaves with
//! the same links to the same switches (twins) route alike, so one of each set is computed. Where the
//! plan is not symmetric, every leaf and every other switch is computed with every link up, and every
//! leaf with every failure the failure lemma ([`super::lemma`]) does not cover ([`super::pruned`]):
//! exhaustive, within [`EXHAUSTIVE_BUDGET`]. A larger fabric is searched around each switch that
//! breaks the proof, and the warnings say what was not covered (the leaf cases, the loopbacks).
use super::failures::Failure;
use super::paths::{Fabric, LinkId, Node, Valley};
use super::reach::{self, Cuts};
use crate::diag::Finding;
use crate::model::FabricModel;
use crate::rules::Rule;
use std::collections::HashMap;

/// The work (switch and link visits) the computation may spend on (leaf, failure) cases.
pub const EXHAUSTIVE_BUDGET: u64 = 60_000_000;

/// The cases are chosen for one path-vector computation each; where equal eBGP paths hold different
/// ASNs, a case costs more ([`super::ties`]), and the search stops at this many times the planned work
/// (the cases left are reported as not computed).
const SPEND_CAP: u64 = 4;

pub use super::analysis::{Analysis, Verdict};

/// The routing rules on a compiled fabric (a whole one: not an `--only` model).
pub fn rules(model: &FabricModel) -> Vec<Finding> {
    let fabric = Fabric::new(model);
    let a = analyse(&fabric);
    let mut out = reach::findings(model, &fabric, &a.cuts);
    out.extend(reach::loopback_findings(model, &fabric, &a.loopbacks));
    out.extend(verdict_findings(&fabric, a));
    out
}

/// The findings of an analysis's verdict: the first valley (`AIF-ROUTE-001`), a plan off the proof
/// computed in every case (`AIF-ROUTE-002`) or not (`AIF-ROUTE-005`, which refuses it), a switch past
/// the bound of equal paths (`AIF-ROUTE-005`) and loopbacks not computed (`AIF-ROUTE-004`).
pub fn verdict_findings(fabric: &Fabric, a: Analysis) -> Vec<Finding> {
    let mut out = Vec::new();
    match a.verdict {
        Verdict::Proven => {}
        Verdict::Valley {
            failure,
            origin,
            valley,
        } => {
            out.push(valley_finding(fabric, failure, origin, &valley));
            if let Some((cases, of)) = a.cases_left {
                out.push(partial_finding(cases, of));
            }
        }
        Verdict::Unproven { mixed, cases, of } => {
            out.push(unproven_finding(fabric, mixed, cases, of))
        }
    }
    if let Some((origin, failure, at)) = a.over {
        out.push(over_finding(fabric, origin, failure, at));
    }
    if a.loopbacks_left {
        out.push(loopbacks_left_finding(fabric));
    }
    out
}

/// A search that found a valley but left cases out: the findings may not be all.
fn partial_finding(cases: u64, of: u64) -> Finding {
    Finding::new(
        Rule::RoutingUncovered,
        format!(
            "the routing analysis computed {cases} of {of} (leaf, failure) cases (the fabric is too large to compute every case within validate's time): the valleys and lost routes reported may not be all of them, and the plan is refused unless acknowledged"
        ),
    )
    .at("/fabric/bgp")
    .hint(UNCOVERED_HINT)
}

fn loopbacks_left_finding(fabric: &Fabric) -> Finding {
    let others = (0..fabric.len() as Node)
        .filter(|&n| !fabric.is_leaf(n))
        .count();
    Finding::new(
        Rule::LoopbackUnreachable,
        format!(
            "the routes from the leaves to the loopbacks of the {others} spines and super-spines were not computed: the ASN plan is not one the proof covers, and the fabric is too large to compute every destination within validate's time, so whether every leaf reaches them is not known"
        ),
    )
    .at("/fabric/bgp")
    .hint(HINT)
}

const HINT: &str = "give the switches above each switch one ASN: one spine ASN per zone (or per fabric), one super-spine ASN; check lock pins of `asn` (docs/twin.md#safe-asn-plans)";

/// The plan is symmetric: the proof holds and BGP's choice between equal paths changes nothing.
pub fn symmetric(fabric: &Fabric) -> bool {
    if !fabric.layered() || fabric.mixed_upper_asns().is_some() {
        return false;
    }
    let mut tier_of: HashMap<u32, u8> = HashMap::new();
    for n in 0..fabric.len() {
        let (asn, tier) = (fabric.asn[n], fabric.tier[n]);
        match tier_of.insert(asn, tier) {
            Some(t) if t != tier || tier == 0 => return false,
            _ => {}
        }
    }
    true
}

/// The analysis of `fabric`.
pub fn analyse(fabric: &Fabric) -> Analysis {
    analyse_within(fabric, EXHAUSTIVE_BUDGET)
}

/// The analysis of `fabric` with `budget` switch and link visits for a plan the proof does not cover:
/// every leaf with every link up, and with every failure the failure lemma ([`super::lemma`]) does not
/// cover; the rest is covered by the steady state. Where even that passes the budget, a search around
/// the switches that break the proof ([`budgeted`]), which says what it left out.
pub fn analyse_within(fabric: &Fabric, budget: u64) -> Analysis {
    if symmetric(fabric) {
        let (cuts, loopbacks) = reach::symmetric(fabric);
        return Analysis {
            verdict: Verdict::Proven,
            cuts,
            loopbacks,
            over: None,
            loopbacks_left: false,
            cases_left: None,
        };
    }
    super::pruned::analyse(fabric, budget).unwrap_or_else(|| budgeted(fabric, budget))
}

/// Every leaf with every failure and every other switch's loopback with every link up, each computed:
/// the plain computation the lemma's pruning is compared with (tests), whatever the fabric's size.
pub fn exhaustive(fabric: &Fabric) -> Analysis {
    let failures = fabric.failure_sets();
    let leaves: Vec<Node> = fabric.leaves().collect();
    let all = (failures.len() as u64 + 1) * leaves.len() as u64;
    let mut search = Search::new(fabric, 1, u64::MAX);
    let steady: Vec<Node> = (0..fabric.len() as Node)
        .filter(|&n| fabric.is_leaf(n))
        .chain((0..fabric.len() as Node).filter(|&n| !fabric.is_leaf(n)))
        .collect();
    search.run(&steady, None);
    for f in failures {
        search.run(&leaves, Some(f));
    }
    search.finish(all, false)
}

/// A fabric too large to compute every case the lemma leaves: the steady state's destinations, each
/// pinned switch's own failures, and the failures around the switches that break the proof, within
/// `budget` (times [`SPEND_CAP`] where ties cost more).
fn budgeted(fabric: &Fabric, budget: u64) -> Analysis {
    let failures = fabric.failure_sets();
    let leaves: Vec<Node> = fabric.leaves().collect();
    let leaf_count = leaves.len();
    let per_case = (fabric.links.len() as u64 * 2 + fabric.len() as u64).max(1);
    let all = (failures.len() as u64 + 1) * leaves.len() as u64;
    let (origins, failures) = if all.saturating_mul(per_case) <= budget {
        (leaves, failures)
    } else {
        targeted(fabric, failures, budget / per_case)
    };
    // The planned cases: the steady state's destinations, each pinned switch's own failures, and
    // every chosen failure with every chosen destination.
    let planned = (origins.len() as u64 + fabric.len() as u64)
        .saturating_add((failures.len() as u64).saturating_mul(origins.len() as u64))
        .saturating_add(3 * fabric.len() as u64);
    let cap = planned
        .saturating_mul(per_case)
        .max(budget)
        .saturating_mul(SPEND_CAP);
    let mut search = Search::new(fabric, per_case, cap);
    // With every link up, the other switches' loopbacks too (a leaf cut off from a spine loses
    // that spine's loopback after a failure under any plan that gives a tier one ASN). Within the
    // budget: on a large fabric the cases around the switches that break the proof come first, and
    // the loopbacks are left out, which the analysis says (docs/checks.md#aif-route-004).
    let others: Vec<Node> = (0..fabric.len() as Node)
        .filter(|&n| !fabric.is_leaf(n))
        .collect();
    let with_others = ((origins.len() + others.len()) as u64).saturating_mul(per_case) <= budget;
    let steady = if with_others {
        [origins.as_slice(), &others].concat()
    } else {
        origins.clone()
    };
    search.run(&steady, None);
    if origins.len() < leaf_count {
        // Not every case fits: first, around each switch whose ASN differs from the other switches
        // above a leaf, that leaf's own failures towards it, with the leaf as the destination (the
        // classic valley: its link to that switch fails, and the switch reaches it down and up).
        for (o, f) in paired(fabric) {
            search.run(&[o], Some(f));
        }
        // Then, unless a valley is already found, around each switch above such a switch, its links
        // down to the other switches below it (half the cases at most, so the failures around the
        // proof's breaks keep their turn).
        let room = if search.valley.is_some() {
            0
        } else {
            (budget / per_case / 2) as usize
        };
        for (o, f) in crossed(fabric).into_iter().take(room) {
            search.run(&[o], Some(f));
        }
    }
    for f in failures {
        search.run(&origins, Some(f));
    }
    search.finish(all, !with_others && !others.is_empty())
}

/// The exhaustive computation: every case's routes, its first valley, its leaf pairs without a route
/// and its leaves without a route to another switch's loopback.
struct Search<'a> {
    fabric: &'a Fabric,
    /// Which failures can split the cabling: the others keep the components of every link up.
    splits: super::failures::Splits,
    valley: Option<(Option<Failure>, Node, Valley)>,
    cuts: Cuts,
    loopbacks: Cuts,
    /// (leaf, failure) cases computed.
    cases: u64,
    /// The first case whose equal paths passed the bound.
    over: Option<(Node, Option<Failure>, Node)>,
    /// The work of one path-vector computation, the work spent, and where the search stops.
    per_case: u64,
    spent: u64,
    cap: u64,
}

impl<'a> Search<'a> {
    fn new(fabric: &'a Fabric, per_case: u64, cap: u64) -> Search<'a> {
        Search {
            per_case,
            spent: 0,
            cap,
            fabric,
            splits: fabric.splits(),
            valley: None,
            cuts: Cuts::default(),
            loopbacks: Cuts::default(),
            cases: 0,
            over: None,
        }
    }

    /// Every origin of `origins` with `failure`.
    fn run(&mut self, origins: &[Node], failure: Option<Failure>) {
        let fabric = self.fabric;
        let comp = self.splits.components(fabric, failure);
        // [leaf destinations, the other switches' loopbacks]
        let mut cut = [reach::Cut::new(failure), reach::Cut::new(failure)];
        for &o in origins {
            if self.spent >= self.cap {
                break;
            }
            let leaf = fabric.is_leaf(o);
            if failure.and_then(Failure::switch) == Some(o) {
                // The destination is gone with its switch: nothing to route.
                self.cases += u64::from(leaf);
                continue;
            }
            let c = fabric.compute_after(o, failure);
            let levels = c.ties.as_ref().map_or(0, |t| u64::from(t.levels));
            self.spent += self.per_case * (1 + levels);
            if let Some(at) = c.ties.as_ref().and_then(|t| t.over) {
                self.over.get_or_insert((o, failure, at));
            }
            if leaf {
                self.cases += 1;
                if self.valley.is_none()
                    && let Some(v) = c.valley_any(fabric)
                {
                    self.valley = Some((failure, o, v));
                }
            }
            cut[usize::from(!leaf)].add(fabric, &c, &comp, 1);
        }
        let [servers, loopbacks] = cut;
        self.cuts.push(servers);
        self.loopbacks.push(loopbacks);
    }
}

impl Search<'_> {
    /// The analysis of what was computed, of `all` (leaf, failure) cases; `loopbacks_left` when the
    /// other switches' loopbacks were not computed.
    fn finish(self, all: u64, loopbacks_left: bool) -> Analysis {
        let verdict = match self.valley {
            Some((failure, origin, valley)) => Verdict::Valley {
                failure,
                origin,
                valley,
            },
            None => Verdict::Unproven {
                mixed: self.fabric.mixed_upper_asns(),
                cases: self.cases,
                of: all,
            },
        };
        Analysis {
            verdict,
            cuts: self.cuts,
            loopbacks: self.loopbacks,
            over: self.over,
            loopbacks_left,
            cases_left: (self.cases < all).then_some((self.cases, all)),
        }
    }
}

/// On a fabric too large for every case: around every switch whose neighbors above have different
/// ASNs, the failures of it, its links and its neighbors above, with the leaves below those neighbors
/// as destinations (then the other leaves), within `cases` (leaf, failure) cases. Where several
/// switches break the proof, their destinations take turns, so each is searched around, not only the
/// first.
pub(super) fn targeted(
    fabric: &Fabric,
    all: Vec<Failure>,
    cases: u64,
) -> (Vec<Node>, Vec<Failure>) {
    // Per switch, the first region (switch that breaks the proof) it is near.
    let mut near: Vec<Option<usize>> = vec![None; fabric.len()];
    // Per switch that breaks the proof, the leaves below its neighbors above.
    let mut regions: Vec<Vec<Node>> = Vec::new();
    for n in 0..fabric.len() as Node {
        let above: Vec<Node> = fabric
            .links_of(n)
            .iter()
            .map(|&(x, _)| x)
            .filter(|&x| fabric.tier[x as usize] > fabric.tier[n as usize])
            .collect();
        if above
            .iter()
            .any(|&x| fabric.asn[x as usize] != fabric.asn[above[0] as usize])
        {
            let r = regions.len();
            near[n as usize].get_or_insert(r);
            let mut below: Vec<Node> = Vec::new();
            for &x in &above {
                near[x as usize].get_or_insert(r);
                below.extend(fabric.links_of(x).iter().map(|&(y, _)| y));
            }
            below.push(n);
            below.retain(|&y| fabric.is_leaf(y));
            regions.push(below);
        }
    }
    // The region a failure touches first, if any.
    let region = |f: &Failure| match *f {
        Failure::Link(l) => {
            let k = &fabric.links[l as usize];
            near[k.a as usize].or(near[k.b as usize])
        }
        Failure::Parallel(a, b) => near[a as usize].or(near[b as usize]),
        Failure::Switch(n) => near[n as usize],
    };
    let mut by_region: Vec<Vec<Failure>> = vec![Vec::new(); regions.len()];
    for f in all {
        if let Some(r) = region(&f) {
            by_region[r].push(f);
        }
    }
    // The regions take turns, and the failures leave room for one destination at least.
    let mut failures = take_turns(&by_region);
    failures.truncate(cases.saturating_sub(1).max(1) as usize);
    let mut origins = take_turns(&regions);
    origins.extend(fabric.leaves());
    let mut seen = vec![false; fabric.len()];
    origins.retain(|&n| !std::mem::replace(&mut seen[n as usize], true));
    let fit = (cases / (failures.len() as u64 + 1)).max(1) as usize;
    origins.truncate(fit);
    (origins, failures)
}

/// Per switch whose ASN is the odd one among the switches above some leaf (a pin), the first such
/// leaf with the failures between them: its link, the group of its parallel links, the switch.
fn paired(fabric: &Fabric) -> Vec<(Node, Failure)> {
    let mut done = vec![false; fabric.len()];
    let mut out = Vec::new();
    for n in fabric.leaves() {
        let above: Vec<(Node, LinkId)> = fabric
            .links_of(n)
            .iter()
            .copied()
            .filter(|&(x, _)| fabric.tier[x as usize] > 0)
            .collect();
        // How many of the switches above hold each ASN: an odd one holds fewer than the most.
        let mut count: HashMap<u32, usize> = HashMap::new();
        for &(y, _) in &above {
            *count.entry(fabric.asn[y as usize]).or_default() += 1;
        }
        let most = count.values().copied().max().unwrap_or(0);
        for &(x, l) in &above {
            let odd = count[&fabric.asn[x as usize]] < most;
            if !odd || std::mem::replace(&mut done[x as usize], true) {
                continue;
            }
            out.push((n, Failure::Link(l)));
            if above.iter().filter(|&&(y, _)| y == x).count() > 1 {
                out.push((n, Failure::Parallel(n.min(x), n.max(x))));
            }
            out.push((n, Failure::Switch(x)));
        }
    }
    out
}

/// Around every switch *n* whose neighbors above hold different ASNs, per neighbor *r* above it and
/// switch *s* below *r*: the failure of every link between *r* and *s*, with a leaf below
/// *s* (or *s*) as the destination. *r* then reaches that leaf only down through a switch like *n* and
/// up again through a neighbor of another ASN, which accepts the route: a valley unless *r* keeps a
/// path as short. [`paired`] is the case where *n* and *s* are leaves below an odd switch *r*; this
/// one also finds it a tier up (a super-spine pinned to another ASN than its plane's twin, whose
/// twin loses its links to one zone's spine). One case per (*r*, *s*), the *r*s taking turns.
pub(super) fn crossed(fabric: &Fabric) -> Vec<(Node, Failure)> {
    let above = |n: Node| {
        fabric
            .links_of(n)
            .iter()
            .map(|&(x, _)| x)
            .filter(move |&x| fabric.tier[x as usize] > fabric.tier[n as usize])
    };
    let below = |n: Node| {
        fabric
            .links_of(n)
            .iter()
            .copied()
            .filter(move |&(x, _)| fabric.tier[x as usize] < fabric.tier[n as usize])
    };
    let mut uppers: Vec<Node> = Vec::new();
    let mut seen = vec![false; fabric.len()];
    for n in 0..fabric.len() as Node {
        let first = above(n).next();
        let mixed = first
            .is_some_and(|a| above(n).any(|x| fabric.asn[x as usize] != fabric.asn[a as usize]));
        if mixed {
            for r in above(n) {
                if !std::mem::replace(&mut seen[r as usize], true) {
                    uppers.push(r);
                }
            }
        }
    }
    let per_upper: Vec<Vec<(Node, Failure)>> = uppers
        .iter()
        .map(|&r| {
            // Per switch below r, in link order: its first link and how many join them.
            let mut order: Vec<Node> = Vec::new();
            let mut links: HashMap<Node, (LinkId, usize)> = HashMap::new();
            for (s, l) in below(r) {
                let e = links.entry(s).or_insert_with(|| {
                    order.push(s);
                    (l, 0)
                });
                e.1 += 1;
            }
            order
                .into_iter()
                .filter_map(|s| {
                    let (l, count) = links[&s];
                    let f = if count > 1 {
                        Failure::Parallel(r.min(s), r.max(s))
                    } else {
                        Failure::Link(l)
                    };
                    Some((leaf_below(fabric, s)?, f))
                })
                .collect()
        })
        .collect();
    take_turns(&per_upper)
}

/// `n` if it is a leaf, else the first leaf down its first links below.
fn leaf_below(fabric: &Fabric, mut n: Node) -> Option<Node> {
    while !fabric.is_leaf(n) {
        n = fabric
            .links_of(n)
            .iter()
            .map(|&(x, _)| x)
            .find(|&x| fabric.tier[x as usize] < fabric.tier[n as usize])?;
    }
    Some(n)
}

/// The first of each list, then the second of each, and so on.
fn take_turns<T: Copy>(lists: &[Vec<T>]) -> Vec<T> {
    let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
    (0..longest)
        .flat_map(|i| lists.iter().filter_map(move |l| l.get(i).copied()))
        .collect()
}

fn valley_finding(fabric: &Fabric, failure: Option<Failure>, origin: Node, v: &Valley) -> Finding {
    let name = |n: Node| &*fabric.names[n as usize];
    let when = match failure {
        Some(f) => f.text(fabric),
        None => "with every link up".to_string(),
    };
    let turn = v.path[v.turn];
    let before = v.path[v.turn - 1];
    let after = v.path[v.turn + 1];
    Finding::new(
        Rule::ValleyPath,
        format!(
            "{when}, BGP routes traffic for {} down and up again, a valley (the failure opens one; a PFC deadlock cycle closes when a second failure opens another): {}; {} (AS {}) accepts {}'s route through {} (AS {}) because their ASNs differ",
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

fn over_finding(fabric: &Fabric, origin: Node, failure: Option<Failure>, at: Node) -> Finding {
    let name = |n: Node| &*fabric.names[n as usize];
    let when = match failure {
        Some(f) => f.text(fabric),
        None => "with every link up".to_string(),
    };
    Finding::new(
        Rule::RoutingUncovered,
        format!(
            "{when}, {} may advertise more than {} distinct equal-length AS paths towards {} (BGP keeps the oldest of equal eBGP paths, so which one depends on which session came up first): the analysis followed {} of them and cannot prove the plan valley-free or every leaf reachable: the plan is refused unless acknowledged",
            name(at),
            super::ties::PATHS_BOUND,
            name(origin),
            super::ties::PATHS_BOUND,
        ),
    )
    .at("/fabric/bgp")
    .hint(UNCOVERED_HINT)
}

fn unproven_finding(
    fabric: &Fabric,
    mixed: Option<(Node, Node, Node)>,
    cases: u64,
    of: u64,
) -> Finding {
    let name = |n: Node| &*fabric.names[n as usize];
    let asn = |n: Node| fabric.asn[n as usize];
    let why = match mixed {
        Some((at, a, b)) => format!(
            "{}'s neighbors above it have different ASNs ({} AS {}, {} AS {}): BGP may route traffic down to {} and up again once links fail",
            name(at), name(a), asn(a), name(b), asn(b), name(at)
        ),
        None => "the ASN plan is not one the proof covers (a link joins tiers that are not adjacent, an ASN serves two tiers or two leaves), so up-down routing is not assured".to_string(),
    };
    if cases >= of {
        let covered = format!(
            "no single failure (link, parallel links, switch) did in the {cases} (leaf, failure) cases, every leaf with every failure (a failure that leaves every switch on a route of its steady length was covered by the steady state, docs/twin.md#why-the-proof-holds); two failures together may"
        );
        return Finding::new(Rule::MixedUpperAsns, format!("{why}; {covered}"))
            .at("/fabric/bgp")
            .hint(HINT);
    }
    let covered = format!(
        "no failure did in the {cases} of {of} (leaf, failure) cases computed around the switches that break the proof, and the others were not computed (the fabric is too large to compute every case within validate's time): a valley or a lost route may hide in them, so the plan is refused unless acknowledged"
    );
    Finding::new(Rule::RoutingUncovered, format!("{why}; {covered}"))
        .at("/fabric/bgp")
        .hint(UNCOVERED_HINT)
}

const UNCOVERED_HINT: &str = "give the switches above each switch one ASN (one spine ASN per zone or per fabric, one super-spine ASN; check lock pins of `asn`), which the proof covers at any size (docs/twin.md#safe-asn-plans); or, to render a plan adopted as it runs, acknowledge AIF-ROUTE-005 with the reason";
