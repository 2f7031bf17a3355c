//! BGP as the rendered configs run it, for the prefixes of one switch: what each switch receives,
//! rejects, selects and advertises. Every switch advertises its best path to every peer; a switch
//! rejects a path that holds its own ASN (AS-path loop prevention); a route learned over iBGP (both ends
//! of the session in one ASN) is not advertised to another iBGP peer (split horizon), and is usable
//! only when the iBGP peer originated it: iBGP keeps the eBGP next hop, a /31 of a link the receiver is
//! not on, and no config announces the fabric /31s, so the next hop does not resolve. Among the routes
//! left a switch prefers the shortest AS path, then eBGP over iBGP, then the lowest router-id of the
//! advertising neighbor, then its lowest address; with `as-path multipath-relax` every route of the
//! best one's length and kind is a next hop, up to `maximum-paths`. Between eBGP paths equal up to the
//! router-id, FRR and NX-OS keep the oldest (RFC 5004), so the router-id outcome computed here is one
//! of several: where the equal paths hold different ASNs, [`super::ties`] computes them all
//! ([`Computed::ties`]).
//!
//! Preference grows with the path (a longer path is never preferred, an iBGP hop is never preferred
//! over the route it came from), so BGP settles on one stable state, which a breadth-first pass by
//! (AS-path length, iBGP) computes: a switch's best path depends only on the best paths of neighbors
//! settled before it.

use super::failures::Failure;
use super::paths::{Fabric, LinkId, Node, Routes, UNREACHABLE, asn_sig};

/// Why a switch has no route for a prefix that reached a neighbor of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The neighbor's best path holds the switch's own ASN.
    AsPathLoop {
        /// The neighbor whose path was rejected.
        from: Node,
    },
    /// The neighbor learned its route over iBGP and the session to it is iBGP too.
    SplitHorizon {
        /// The neighbor that did not advertise.
        from: Node,
    },
    /// The route came over iBGP with a next hop the switch cannot resolve.
    NextHopUnresolved {
        /// The iBGP neighbor.
        from: Node,
    },
}

impl Refusal {
    /// The neighbor the route came from (or did not).
    pub fn from(self) -> Node {
        match self {
            Refusal::AsPathLoop { from }
            | Refusal::SplitHorizon { from }
            | Refusal::NextHopUnresolved { from } => from,
        }
    }
}

/// What one computation gives: the routes, and per switch without a route why it dropped the one its
/// neighbors had (None where no neighbor had one).
#[derive(Clone, Debug)]
pub struct Computed {
    /// Each switch's AS-path length and next hops.
    pub routes: Routes,
    /// Per switch, why it has no route though a neighbor has one.
    pub dropped: Vec<Option<Refusal>>,
    /// Per switch with a route, the neighbor whose path it selected (itself at the origin).
    pub from: Vec<Option<Node>>,
    /// Where a switch has equal-best eBGP paths of different ASN sets, every outcome over which one
    /// each such switch advertises ([`super::ties`]); None where the outcome above is the only one.
    pub ties: Option<Box<super::ties::Ties>>,
    /// Some switch had more equal-best paths than its `maximum-paths` and installed those of the
    /// lowest router-ids: its next hops depend on the router-ids, not on the cabling and ASNs alone.
    pub truncated: bool,
}

impl Computed {
    /// A valley in these routes ([`Fabric::valley`]), else one that some choice between equal eBGP
    /// paths opens ([`super::ties::Ties::valley`]).
    pub fn valley_any(&self, fabric: &Fabric) -> Option<super::paths::Valley> {
        fabric
            .valley(&self.routes)
            .or_else(|| self.ties.as_ref().and_then(|t| t.valley(fabric)))
    }

    /// The AS path switch `u` advertises over eBGP: its own ASN, then its best neighbor's path.
    pub fn as_path(&self, fabric: &Fabric, u: Node) -> Vec<u32> {
        let mut out = vec![fabric.asn[u as usize]];
        let mut at = u;
        while let Some(f) = self.from[at as usize].filter(|&f| f != at) {
            at = f;
            if out.last() != Some(&fabric.asn[at as usize]) {
                out.push(fabric.asn[at as usize]);
            }
        }
        out
    }
}

/// One switch's selected route: whom it learned it from, over which kind of session.
#[derive(Clone, Copy, Debug)]
struct Best {
    /// The neighbor it selected (itself at the origin).
    from: Node,
    /// Learned over iBGP.
    ibgp: bool,
}

/// A route a switch received: (AS-path length, iBGP, neighbor's router-id, neighbor's address, link).
type Candidate = (u16, bool, u32, u32, LinkId);

/// The state of one computation as it settles.
struct State {
    dist: Vec<u16>,
    via: Vec<Vec<LinkId>>,
    best: Vec<Option<Best>>,
    dropped: Vec<Option<Refusal>>,
    /// Per switch with a route, a signature of the ASN set of the path it advertises.
    sig: Vec<u64>,
    /// Some switch has two equal-best eBGP paths whose ASN sets differ: which one it advertises
    /// depends on session age ([`super::ties`]).
    tie: bool,
    /// Some switch had more equal-best paths than its `maximum-paths` ([`Computed::truncated`]).
    truncated: bool,
    /// Per switch, the ASN-set signature of the equal-best eBGP path it advertises where that is
    /// chosen ([`Fabric::settle_choosing`]); the lowest router-id's elsewhere.
    prefer: Vec<Option<u64>>,
    /// The switches with equal-best eBGP paths of different ASN sets, in the order they settled,
    /// with those sets' signatures (sorted).
    tied: Vec<(Node, Vec<u64>)>,
}

impl State {
    fn new(n: usize) -> State {
        State {
            dist: vec![UNREACHABLE; n],
            via: vec![Vec::new(); n],
            best: vec![None; n],
            dropped: vec![None; n],
            sig: vec![0; n],
            tie: false,
            truncated: false,
            prefer: Vec::new(),
            tied: Vec::new(),
        }
    }
}

impl Fabric {
    /// BGP's settled state for the prefixes of `origin`, with the links `is_down` names and the switch
    /// `dead` (all its links) down.
    pub fn compute(
        &self,
        origin: Node,
        failed: Option<LinkId>,
        is_down: &dyn Fn(LinkId) -> bool,
        dead: Option<Node>,
    ) -> Computed {
        // Which links are up, read once: the pass and the tie computation ask per link visit.
        let up: Vec<bool> = self
            .links
            .iter()
            .enumerate()
            .map(|(l, k)| !is_down(l as LinkId) && dead != Some(k.a) && dead != Some(k.b))
            .collect();
        self.compute_up(origin, failed, &up, dead)
    }

    /// BGP's settled state for the prefixes of `origin` after `failure` (None: every link up).
    pub fn compute_after(&self, origin: Node, failure: Option<Failure>) -> Computed {
        let mut up = vec![true; self.links.len()];
        for l in failure.map(|f| f.links(self)).unwrap_or_default() {
            up[l as usize] = false;
        }
        self.compute_up(
            origin,
            failure.and_then(Failure::link),
            &up,
            failure.and_then(Failure::switch),
        )
    }

    /// [`Fabric::compute`] with `up` saying which links are up (`dead`'s are not).
    fn compute_up(
        &self,
        origin: Node,
        failed: Option<LinkId>,
        up: &[bool],
        dead: Option<Node>,
    ) -> Computed {
        let mut s = State::new(self.len());
        let live = |l: LinkId| up[l as usize];
        if dead != Some(origin) {
            self.run(origin, &live, &mut s);
        }
        for (d, b) in s.dropped.iter_mut().zip(&s.best) {
            if b.is_some() {
                *d = None;
            }
        }
        let ties = s.tie.then(|| Box::new(self.ties(origin, &live)));
        Computed {
            ties,
            truncated: s.truncated,
            routes: Routes {
                origin,
                failed,
                dist: s.dist,
                via: s.via,
            },
            dropped: s.dropped,
            from: s.best.iter().map(|b| b.map(|b| b.from)).collect(),
        }
    }

    /// The routes for `origin` with `up` naming the links up and `dead` down, where each switch of
    /// `prefer` advertises the equal-best eBGP path of that ASN-set signature (the others the lowest
    /// router-id's); with the switches whose equal-best eBGP paths hold different ASN sets, in the
    /// order they settled, and those sets' signatures ([`super::outcomes`]).
    pub(super) fn settle_choosing(
        &self,
        origin: Node,
        up: &[bool],
        dead: Option<Node>,
        prefer: &[Option<u64>],
    ) -> (Routes, Vec<(Node, Vec<u64>)>) {
        let mut s = State::new(self.len());
        s.prefer = prefer.to_vec();
        if dead != Some(origin) {
            self.run(origin, &|l: LinkId| up[l as usize], &mut s);
        }
        let routes = Routes {
            origin,
            failed: None,
            dist: s.dist,
            via: s.via,
        };
        (routes, s.tied)
    }

    /// The breadth-first pass: level 0 is the origin and the iBGP peers it announces to, level `d` the
    /// switches whose best AS path has length `d`.
    fn run(&self, origin: Node, live: &impl Fn(LinkId) -> bool, s: &mut State) {
        let o = origin as usize;
        s.dist[o] = 0;
        s.sig[o] = asn_sig(self.asn[o]);
        s.best[o] = Some(Best {
            from: origin,
            ibgp: false,
        });
        let mut seen = vec![false; self.len()];
        seen[o] = true;
        let mut cands: Vec<Candidate> = Vec::new();
        let mut level: Vec<Node> = vec![origin];
        let mut d = 0u16;
        let mut next: Vec<Node> = Vec::new();
        loop {
            for &u in &level {
                for &(v, _) in &self.adj[u as usize] {
                    if s.best[v as usize].is_none()
                        && !std::mem::replace(&mut seen[v as usize], true)
                    {
                        next.push(v);
                    }
                }
            }
            let mut settled = Vec::new();
            for &v in &next {
                seen[v as usize] = false;
                self.receive(v, d, live, s, &mut cands);
                if self.take(&mut cands, v, s) {
                    settled.push(v);
                }
            }
            next.clear();
            if d == 0 {
                // The origin's iBGP peers join level 0 and announce at level 1 with it.
                level.extend(settled);
                d = 1;
                continue;
            }
            if settled.is_empty() {
                break;
            }
            level = settled;
            d += 1;
        }
    }

    /// The routes `v` receives from its settled neighbors that are of AS-path length `d` (or over iBGP
    /// from the origin itself), into `cands`; a rejected one is remembered in `s.dropped`.
    fn receive(
        &self,
        v: Node,
        d: u16,
        live: &impl Fn(LinkId) -> bool,
        s: &mut State,
        cands: &mut Vec<Candidate>,
    ) {
        cands.clear();
        let own = self.asn[v as usize];
        for &(u, l) in &self.adj[v as usize] {
            let Some(bu) = s.best[u as usize] else {
                continue;
            };
            if !live(l) {
                continue;
            }
            let internal = self.asn[u as usize] == own;
            let why = if internal && bu.from == u {
                None
            } else if internal && bu.ibgp {
                Some(Refusal::SplitHorizon { from: u })
            } else if internal {
                Some(Refusal::NextHopUnresolved { from: u })
            } else if s.dist[u as usize] + 1 != d {
                continue;
            } else if self.path_holds(u, own, &s.best) {
                Some(Refusal::AsPathLoop { from: u })
            } else {
                None
            };
            if let Some(w) = why {
                s.dropped[v as usize].get_or_insert(w);
                continue;
            }
            let k = &self.links[l as usize];
            let len = if internal { 0 } else { d };
            cands.push((
                len,
                internal,
                u32::from(self.router_id[u as usize]),
                u32::from(k.ip_of(u)),
                l,
            ));
        }
    }

    /// Selects `v`'s best of `cands` and its multipath set; false when there was none.
    fn take(&self, cands: &mut [Candidate], v: Node, s: &mut State) -> bool {
        cands.sort_unstable();
        let Some(&(d, ibgp, _, _, l)) = cands.first() else {
            return false;
        };
        let vi = v as usize;
        let mut from = self.links[l as usize].other(v);
        if !ibgp {
            let of = |c: &Candidate| s.sig[self.links[c.4 as usize].other(v) as usize];
            let first = of(&cands[0]);
            // The sets are gathered only where they differ (rare; this runs at every switch).
            if cands
                .iter()
                .take_while(|c| c.0 == d && !c.1)
                .any(|c| of(c) != first)
            {
                let mut sigs: Vec<u64> = cands
                    .iter()
                    .take_while(|c| c.0 == d && !c.1)
                    .map(of)
                    .collect();
                sigs.sort_unstable();
                sigs.dedup();
                s.tie = true;
                if let Some(c) = s.prefer.get(vi).copied().flatten().and_then(|want| {
                    cands
                        .iter()
                        .take_while(|c| c.0 == d && !c.1)
                        .find(|c| of(c) == want)
                }) {
                    from = self.links[c.4 as usize].other(v);
                }
                s.tied.push((v, sigs));
            }
        }
        s.dist[vi] = d;
        s.best[vi] = Some(Best { from, ibgp });
        let sig = s.sig[from as usize];
        s.sig[vi] = if self.asn[from as usize] == self.asn[vi] {
            sig
        } else {
            sig.wrapping_add(asn_sig(self.asn[vi]))
        };
        let width = self.max_paths[vi].max(1) as usize;
        let equal = || cands.iter().filter(|c| c.0 == d && c.1 == ibgp);
        s.truncated |= equal().nth(width).is_some();
        let mut via: Vec<LinkId> = equal().take(width).map(|c| c.4).collect();
        via.sort_unstable();
        s.via[vi] = via;
        true
    }

    /// Whether the AS path `u` advertises over eBGP holds `asn`: its own ASN, then its best neighbor's
    /// path, back to the origin.
    fn path_holds(&self, u: Node, asn: u32, best: &[Option<Best>]) -> bool {
        let mut at = u;
        loop {
            if self.asn[at as usize] == asn {
                return true;
            }
            match best[at as usize] {
                Some(b) if b.from != at => at = b.from,
                _ => return false,
            }
        }
    }
}

impl Fabric {
    /// The AS-path lengths after a failure, from `steady` (every link up) of a symmetric plan
    /// ([`super::deadlock::symmetric`]), where every equal-length path holds the same ASNs: a switch
    /// keeps its length while one next hop survives to a switch that keeps its own, so only the others
    /// (the switches the failure takes every next hop of, and those that depend on them alone) are
    /// settled again. `order` is every switch by its steady length. None when no switch changes; else
    /// the computation, whose next hops are those of the switches settled again only.
    pub(super) fn repair(
        &self,
        steady: &Computed,
        order: &[Node],
        is_down: &dyn Fn(LinkId) -> bool,
        dead: Option<Node>,
    ) -> Option<Computed> {
        let n = self.len();
        let live = |l: LinkId| {
            let k = &self.links[l as usize];
            !is_down(l) && dead != Some(k.a) && dead != Some(k.b)
        };
        let mut hit = vec![false; n];
        if let Some(d) = dead {
            hit[d as usize] = true;
        }
        let mut any = dead.is_some_and(|d| d != steady.routes.origin);
        for &v in order {
            let via = &steady.routes.via[v as usize];
            if via.is_empty() || hit[v as usize] {
                continue;
            }
            let kept = via
                .iter()
                .any(|&l| live(l) && !hit[self.links[l as usize].other(v) as usize]);
            hit[v as usize] = !kept;
            any |= !kept;
        }
        if !any {
            return None;
        }
        Some(self.resettle(steady, &hit, &live))
    }

    /// Settles the switches `hit` marks again, around the others' steady state.
    fn resettle(
        &self,
        steady: &Computed,
        hit: &[bool],
        live: &impl Fn(LinkId) -> bool,
    ) -> Computed {
        let n = self.len();
        let mut s = State::new(n);
        s.dist = steady.routes.dist.clone();
        s.best = steady
            .from
            .iter()
            .map(|f| f.map(|from| Best { from, ibgp: false }))
            .collect();
        let mut todo: Vec<Node> = (0..n as Node).filter(|&v| hit[v as usize]).collect();
        for &v in &todo {
            s.dist[v as usize] = UNREACHABLE;
            s.best[v as usize] = None;
        }
        // A kept switch whose selected neighbor is settled again takes another of its next hops (all
        // hold the same ASNs).
        for v in 0..n {
            let Some(b) = s.best[v].filter(|b| hit[b.from as usize]) else {
                continue;
            };
            let other = steady.routes.via[v]
                .iter()
                .map(|&l| self.links[l as usize].other(v as Node))
                .find(|&u| !hit[u as usize]);
            s.best[v] = other.map(|from| Best { from, ..b });
        }
        let mut top = s
            .dist
            .iter()
            .filter(|&&d| d != UNREACHABLE)
            .max()
            .copied()
            .unwrap_or(0);
        let mut cands: Vec<Candidate> = Vec::new();
        let mut d = 1u16;
        while d <= top.saturating_add(1) && !todo.is_empty() {
            todo.retain(|&v| {
                self.receive(v, d, live, &mut s, &mut cands);
                if self.take(&mut cands, v, &mut s) {
                    top = top.max(d);
                    false
                } else {
                    true
                }
            });
            d += 1;
        }
        for (dr, b) in s.dropped.iter_mut().zip(&s.best) {
            if b.is_some() {
                *dr = None;
            }
        }
        Computed {
            routes: Routes {
                origin: steady.routes.origin,
                failed: None,
                dist: s.dist,
                via: s.via,
            },
            dropped: s.dropped,
            from: s.best.iter().map(|b| b.map(|b| b.from)).collect(),
            // A symmetric plan: every equal path holds the same ASNs.
            ties: None,
            truncated: s.truncated,
        }
    }
}
