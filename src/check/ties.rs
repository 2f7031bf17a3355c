//! Every outcome BGP may settle on when a switch keeps the oldest of its equal eBGP paths. FRR (so
//! SONiC, whose bgpd template sets no `bgp bestpath compare-routerid`) and NX-OS (without `bestpath
//! compare-routerid`) prefer, between two eBGP paths equal up to the router-id, the one already
//! selected (RFC 5004): which of a switch's equal-best eBGP paths it advertises depends on which
//! session came up first. Multipath installs all of them, so the switch's own next hops are the same
//! whichever it advertises; what varies is the AS path its neighbors receive, and with it which of them
//! reject it (AS-path loop) and what they select in turn.
//!
//! The computation is by AS-path length, as [`super::pathvector`]'s, with sets: per switch the AS paths
//! it may advertise (distinct ASN sets of one length act alike downstream: a receiver only asks whether
//! its own ASN is in the path, and how long it is), and whether some choice leaves it without a route.
//! A switch may settle at length `d` when some neighbor may advertise a path of length `d - 1` it
//! accepts while every other neighbor may advertise nothing shorter it accepts (no route, a path it
//! rejects, or a longer one). Each neighbor's choice is taken on its own, as if the choices of
//! different switches were free of each other: a superset of what BGP can reach, so a destination
//! counts as reachable only when it is under every choice, and a valley is reported when any choice
//! opens one. At most [`PATHS_BOUND`] distinct paths are kept per switch; a switch with more is named
//! ([`Ties::over`]) and the analysis says it could not cover the plan. The computation runs only where
//! the plan has such a tie (two equal-best eBGP paths of different ASN sets): in a symmetric plan every
//! equal path holds the same ASNs and the path-vector's single outcome is the only one.

use super::paths::{Fabric, LinkId, Node, asn_sig};

/// How many distinct AS paths (ASN sets, per length) the computation follows per switch and prefix.
pub const PATHS_BOUND: usize = 16;

/// One AS path a switch may advertise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Offer {
    /// Its AS-path length (eBGP hops from the origin).
    pub len: u16,
    /// The path as the switch advertises it over eBGP: its own ASN first, back to the origin's.
    pub path: Vec<u32>,
    /// The path's ASNs, sorted.
    set: Vec<u32>,
    /// A sum over `set` ([`super::paths::asn_sig`]): unequal sums are unequal sets.
    sig: u64,
    /// Whom it may have come from: (neighbor, index of the neighbor's offer).
    pub from: Vec<(Node, u32)>,
}

/// The next hops a switch installs when it settles at one length: every link in `must`, any of `may`
/// (neighbors that may advertise that length or something else).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hops {
    /// The AS-path length.
    pub len: u16,
    /// Links to neighbors that advertise a path of that length it accepts under every choice.
    pub must: Vec<LinkId>,
    /// Links to neighbors that do under some choices only.
    pub may: Vec<LinkId>,
}

/// What BGP may settle on for one destination, over every choice of equal eBGP paths.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ties {
    /// Per switch, the paths it may advertise (empty without a route under every choice).
    pub offers: Vec<Vec<Offer>>,
    /// Per switch, whether some choice leaves it without a route.
    pub may_lose: Vec<bool>,
    /// Per switch, the next hops it may install, per length it may settle at.
    pub hops: Vec<Vec<Hops>>,
    /// A switch that may advertise more than [`PATHS_BOUND`] distinct paths: only that many were
    /// followed, and the analysis does not cover the plan.
    pub over: Option<Node>,
    /// How many lengths the computation went through (each one pass over every link): its cost.
    pub levels: u16,
    /// Per switch, the length at which it stops being able to settle later (every choice gives it a
    /// route by then): 0 at the origin and its iBGP peers, [`u16::MAX`] where some choice leaves it
    /// without a route ([`Ties::may_lose`]). The failure lemma reads it ([`super::lemma`]).
    pub closed: Vec<u16>,
}

impl Ties {
    /// Whether switch `v` rejects offer `o` (it holds `v`'s ASN: an AS-path loop, or an iBGP peer's
    /// path, which it does not take unless the peer originated it).
    fn rejects(fabric: &Fabric, v: Node, o: &Offer) -> bool {
        o.set.binary_search(&fabric.asn[v as usize]).is_ok()
    }

    /// Whether neighbor `u` may give `v` nothing of length `d` or shorter: no route or a longer one
    /// (`open[u]`: it may settle at `d` or later), or a path `v` rejects.
    fn avoids(&self, fabric: &Fabric, open: &[bool], u: Node, v: Node) -> bool {
        open[u as usize]
            || self.offers[u as usize]
                .iter()
                .any(|o| Self::rejects(fabric, v, o))
    }

    /// Whether neighbor `w` closes `x` ([`Ties::closed`]): it settled at a shorter length than `x`
    /// closed at and every path it may advertise is one `x` accepts, so whatever `w` chooses, `x` has
    /// a route by the time it closed.
    pub(super) fn closes(&self, fabric: &Fabric, w: Node, x: Node) -> bool {
        self.closed[w as usize] < self.closed[x as usize]
            && !self.offers[w as usize]
                .iter()
                .any(|o| Self::rejects(fabric, x, o))
    }

    /// A path that goes down and up under some choice: a switch `x` may take a path from `t` below it
    /// that `t` may have taken from `m` above it. The path runs x → t → m and on to the origin.
    pub fn valley(&self, fabric: &Fabric) -> Option<super::paths::Valley> {
        let tier = |n: Node| fabric.tier[n as usize];
        for (x, offers) in self.offers.iter().enumerate() {
            let x = x as Node;
            for &(t, ti) in offers.iter().flat_map(|o| &o.from) {
                if tier(t) >= tier(x) {
                    continue;
                }
                let ot = &self.offers[t as usize][ti as usize];
                let Some(&(m, mi)) = ot.from.iter().find(|&&(m, _)| tier(m) > tier(t)) else {
                    continue;
                };
                let mut path = vec![x, t, m];
                let (mut at, mut i) = (m, mi);
                while let Some(&(next, ni)) = self.offers[at as usize][i as usize].from.first() {
                    if next == at || path.len() > fabric.len() {
                        break;
                    }
                    path.push(next);
                    (at, i) = (next, ni);
                }
                return Some(super::paths::Valley { path, turn: 1 });
            }
        }
        None
    }
}

impl Fabric {
    /// Every outcome for the prefixes of `origin` with only the links `live` names up, over every
    /// choice of equal eBGP paths.
    pub(super) fn ties(&self, origin: Node, live: &impl Fn(LinkId) -> bool) -> Ties {
        let n = self.len();
        let mut t = Ties {
            offers: vec![Vec::new(); n],
            may_lose: vec![false; n],
            hops: vec![Vec::new(); n],
            over: None,
            levels: 0,
            closed: vec![u16::MAX; n],
        };
        // open[v]: v may settle at the current length or later, or not at all.
        let mut open = vec![true; n];
        self.level_zero(origin, live, &mut t, &mut open);
        let mut d = 1u16;
        loop {
            let added = self.level(d, live, &mut t, &open);
            let next: Vec<bool> = (0..n as Node)
                .map(|v| {
                    open[v as usize]
                        && self.adj[v as usize]
                            .iter()
                            .all(|&(u, l)| !live(l) || t.avoids(self, &open, u, v))
                })
                .collect();
            if !added && next == open {
                break;
            }
            for (c, (&was, &now)) in t.closed.iter_mut().zip(open.iter().zip(&next)) {
                if was && !now {
                    *c = d;
                }
            }
            open = next;
            d = d.saturating_add(1);
            if usize::from(d) > 2 * n + 2 {
                break;
            }
        }
        t.may_lose = open;
        t.levels = d;
        t
    }

    /// The origin, and its iBGP peers, which take its route at length 0 whatever else happens.
    fn level_zero(&self, o: Node, live: &impl Fn(LinkId) -> bool, t: &mut Ties, open: &mut [bool]) {
        let asn = self.asn[o as usize];
        t.offers[o as usize].push(Offer {
            len: 0,
            path: vec![asn],
            set: vec![asn],
            sig: asn_sig(asn),
            from: vec![(o, 0)],
        });
        open[o as usize] = false;
        t.closed[o as usize] = 0;
        for &(v, l) in &self.adj[o as usize] {
            if !live(l) || self.asn[v as usize] != asn || v == o {
                continue;
            }
            if t.offers[v as usize].is_empty() {
                t.offers[v as usize].push(Offer {
                    len: 0,
                    path: vec![asn],
                    set: vec![asn],
                    sig: asn_sig(asn),
                    from: vec![(o, 0)],
                });
                t.hops[v as usize].push(Hops {
                    len: 0,
                    must: Vec::new(),
                    may: Vec::new(),
                });
                open[v as usize] = false;
                t.closed[v as usize] = 0;
            }
            if let Some(h) = t.hops[v as usize].last_mut() {
                h.must.push(l);
            }
        }
    }

    /// The offers of length `d` of every switch that may still settle (`open`), from its neighbors'
    /// offers of length `d - 1`; true when any was added.
    fn level(&self, d: u16, live: &impl Fn(LinkId) -> bool, t: &mut Ties, open: &[bool]) -> bool {
        let mut settled: Vec<(Node, Vec<Offer>, Hops)> = Vec::new();
        for v in (0..self.len() as Node).filter(|&v| open[v as usize]) {
            let own = self.asn[v as usize];
            let mut offers: Vec<Offer> = Vec::new();
            let mut hops = Hops {
                len: d,
                must: Vec::new(),
                may: Vec::new(),
            };
            for &(u, l) in &self.adj[v as usize] {
                if !live(l) || self.asn[u as usize] == own {
                    continue;
                }
                let mut gives = false;
                for (i, o) in t.offers[u as usize].iter().enumerate() {
                    if o.len + 1 != d || Ties::rejects(self, v, o) {
                        continue;
                    }
                    gives = true;
                    add_offer(&mut offers, own, o, (u, i as u32), &mut t.over, v);
                }
                if gives {
                    if t.avoids(self, open, u, v) {
                        hops.may.push(l);
                    } else {
                        hops.must.push(l);
                    }
                }
            }
            if !offers.is_empty() {
                settled.push((v, offers, hops));
            }
        }
        let added = !settled.is_empty();
        for (v, offers, hops) in settled {
            let kept = PATHS_BOUND.saturating_sub(t.offers[v as usize].len());
            if offers.len() > kept {
                t.over.get_or_insert(v);
            }
            t.offers[v as usize].extend(offers.into_iter().take(kept));
            t.hops[v as usize].push(hops);
        }
        added
    }
}

/// Adds to `offers` the path `own` + `o`, from `source`, merged with one of the same ASN set.
fn add_offer(
    offers: &mut Vec<Offer>,
    own: u32,
    o: &Offer,
    source: (Node, u32),
    over: &mut Option<Node>,
    v: Node,
) {
    // The new path's set is `o`'s with `own` added: compared with the offers so far without
    // building it (most differ in their sum).
    let at = o.set.binary_search(&own);
    let sig = match at {
        Ok(_) => o.sig,
        Err(_) => o.sig.wrapping_add(asn_sig(own)),
    };
    let same = |x: &Offer| {
        x.sig == sig
            && match at {
                Ok(_) => x.set == o.set,
                Err(i) => {
                    x.set.len() == o.set.len() + 1
                        && x.set[..i] == o.set[..i]
                        && x.set[i] == own
                        && x.set[i + 1..] == o.set[i..]
                }
            }
    };
    if let Some(same) = offers.iter_mut().find(|x| same(x)) {
        same.from.push(source);
        return;
    }
    if offers.len() >= PATHS_BOUND {
        over.get_or_insert(v);
        return;
    }
    let mut set = o.set.clone();
    if let Err(i) = at {
        set.insert(i, own);
    }
    let mut path = Vec::with_capacity(o.path.len() + 1);
    path.push(own);
    path.extend_from_slice(&o.path);
    offers.push(Offer {
        len: o.len + 1,
        path,
        set,
        sig,
        from: vec![source],
    });
}
