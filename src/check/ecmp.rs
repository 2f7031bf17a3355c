//! The ECMP width BGP installs ([`super::pathvector`]): per switch and destination leaf, how many next
//! hops (links) it installs, and where equal eBGP paths of different ASNs make the outcome depend on
//! which session came up first ([`super::ties`]), the range over every outcome: enumerated
//! ([`super::outcomes`]), or past the enumeration's bound the tie computation's superset. `aifab plan
//! --format ecmp` prints it per (leaf, destination leaf); `aifab verify` accepts any width of the
//! range.

use super::outcomes;
use super::paths::{Fabric, LinkId, Node};
use super::pathvector::Computed;
use super::twins;
use rayon::prelude::*;
use std::collections::HashMap;

/// How many next hops a switch installs towards one destination, over every outcome BGP may settle on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Width {
    /// Fewest next hops (0: some outcome leaves the switch without a route).
    pub min: u32,
    /// Most next hops.
    pub max: u32,
    /// Every link it may install as a next hop, in link order.
    pub links: Vec<LinkId>,
}

impl Width {
    /// Whether BGP may install `n` next hops.
    pub fn allows(&self, n: usize) -> bool {
        (self.min as usize..=self.max as usize).contains(&n)
    }

    /// Whether every outcome installs the same number of next hops.
    pub fn is_fixed(&self) -> bool {
        self.min == self.max
    }

    /// `4`, or `2-4` where the outcome depends on session order.
    pub fn text(&self) -> String {
        if self.is_fixed() {
            self.min.to_string()
        } else {
            format!("{}-{}", self.min, self.max)
        }
    }

    /// The switches at the far end of its possible next hops, in node order, each once.
    pub fn switches(&self, fabric: &Fabric, at: Node) -> Vec<Node> {
        let mut out: Vec<Node> = self
            .links
            .iter()
            .map(|&l| fabric.links[l as usize].other(at))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Switch `s`'s width in the computation `c`: the router-id outcome's next hops and, where the plan
/// has ties, every length `s` may settle at with the next hops it must and may install there (capped
/// at its `maximum-paths`).
pub fn width(fabric: &Fabric, c: &Computed, s: Node) -> Width {
    let si = s as usize;
    let base = &c.routes.via[si];
    let n = base.len() as u32;
    let Some(t) = c.ties.as_ref() else {
        return Width {
            min: n,
            max: n,
            links: base.clone(),
        };
    };
    let cap = fabric.max_paths[si].max(1);
    let (mut min, mut max) = (n, n);
    let mut links = base.clone();
    for h in &t.hops[si] {
        let sure = (h.must.len() as u32).max(1).min(cap);
        let most = ((h.must.len() + h.may.len()) as u32).min(cap);
        min = min.min(sure);
        max = max.max(most);
        links.extend(&h.must);
        links.extend(&h.may);
    }
    if t.may_lose[si] || (n == 0 && t.hops[si].is_empty()) {
        min = 0;
    }
    if s == c.routes.origin {
        (min, max) = (0, 0);
        links.clear();
    }
    links.sort_unstable();
    links.dedup();
    Width { min, max, links }
}

/// Every switch's width towards `origin` with the links `down` names down.
pub fn toward(fabric: &Fabric, origin: Node, down: &dyn Fn(LinkId) -> bool) -> Vec<Width> {
    let c = fabric.compute(origin, None, down, None);
    let up: Vec<bool> = (0..fabric.links.len() as LinkId)
        .map(|l| !down(l))
        .collect();
    widths(fabric, &c, &up)
}

/// Every switch's width in `c` (computed with the links `up` names up): over every outcome
/// enumerated where the plan has ties and the enumeration stays within its bound ([`exact`]),
/// else [`width`]'s range.
pub fn widths(fabric: &Fabric, c: &Computed, up: &[bool]) -> Vec<Width> {
    let o = c.routes.origin;
    c.ties
        .as_ref()
        .and_then(|_| exact(fabric, o, up, None))
        .unwrap_or_else(|| {
            (0..fabric.len() as Node)
                .map(|s| width(fabric, c, s))
                .collect()
        })
}

/// Every switch's width towards `origin` over every outcome BGP may settle on, enumerated
/// ([`outcomes::every`]): exact, where [`width`]'s range from the tie computation may be wider (it
/// takes each switch's choice on its own). None where the enumeration passes its bound.
pub fn exact(fabric: &Fabric, origin: Node, up: &[bool], dead: Option<Node>) -> Option<Vec<Width>> {
    let all = outcomes::every(fabric, origin, up, dead)?;
    let one = |s: usize| {
        if s == origin as usize {
            return Width {
                min: 0,
                max: 0,
                links: Vec::new(),
            };
        }
        let lens = all.iter().map(|r| r.via[s].len() as u32);
        let mut links: Vec<LinkId> = all.iter().flat_map(|r| r.via[s].iter().copied()).collect();
        links.sort_unstable();
        links.dedup();
        Width {
            min: lens.clone().min().unwrap_or(0),
            max: lens.max().unwrap_or(0),
            links,
        }
    };
    Some((0..fabric.len()).map(one).collect())
}

/// The widths of every leaf towards one destination leaf, with every link up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The destination leaf.
    pub origin: Node,
    /// (leaf, its width) for every other leaf, in node order.
    pub leaves: Vec<(Node, Width)>,
}

/// Every (leaf, destination leaf) width with every link up, between leaves the cabling joins (a
/// dual-plane fabric's planes are apart), destinations in node order.
pub fn table(fabric: &Fabric) -> Vec<Row> {
    let mut out = Vec::new();
    for_each_row(fabric, |r| out.push(r));
    out
}

/// How many destinations [`for_each_row`] computes at once (in parallel) before handing them on.
const CHUNK: usize = 64;

/// [`table`] row by row, destinations in node order, computed in parallel a chunk at a time, so a
/// fabric of thousands of leaves is printed without holding every pair. A twin of a destination
/// already computed ([`super::twins`]) takes that row with the two swapped, where the computation
/// read nothing but the cabling and the ASNs.
pub fn for_each_row(fabric: &Fabric, f: impl FnMut(Row)) {
    rows(fabric, f);
}

/// [`for_each_row`], returning how many destinations it computed (the others were twins).
pub(super) fn rows(fabric: &Fabric, mut f: impl FnMut(Row)) -> usize {
    let leaves: Vec<Node> = fabric.leaves().collect();
    let comp = fabric.components(None);
    let twins = twins::leaves(fabric);
    // The rows of the lowest twins that stand for the others, until their last twin is printed.
    let mut kept: HashMap<Node, Row> = HashMap::new();
    let mut computed = 0;
    for chunk in leaves.chunks(CHUNK) {
        // The lowest of each set first (a twin comes after it), then the twins they cannot stand for.
        let reps: Vec<Node> = chunk
            .iter()
            .copied()
            .filter(|&o| twins.rep[o as usize] == o)
            .collect();
        let mut fresh: HashMap<Node, Row> = HashMap::new();
        for (o, row, reusable) in reps
            .par_iter()
            .map(|&o| row(fabric, &leaves, &comp, o))
            .collect::<Vec<_>>()
        {
            if reusable && twins.last[o as usize] != o {
                kept.insert(o, row.clone());
            }
            fresh.insert(o, row);
        }
        let rest: Vec<Node> = chunk
            .iter()
            .copied()
            .filter(|&o| twins.rep[o as usize] != o && !kept.contains_key(&twins.rep[o as usize]))
            .collect();
        computed += reps.len() + rest.len();
        let more: Vec<(Node, Row, bool)> = rest
            .par_iter()
            .map(|&o| row(fabric, &leaves, &comp, o))
            .collect();
        fresh.extend(more.into_iter().map(|(o, r, _)| (o, r)));
        for &o in chunk {
            let r = twins.rep[o as usize];
            let out = match fresh.remove(&o) {
                Some(row) => row,
                None => swapped(fabric, &leaves, &comp, &kept[&r], o),
            };
            if twins.last[r as usize] == o {
                kept.remove(&r);
            }
            f(out);
        }
    }
    computed
}

/// Destination `o`'s row computed, and whether it stands for `o`'s twins ([`twins::reusable`]).
fn row(fabric: &Fabric, leaves: &[Node], comp: &[u32], o: Node) -> (Node, Row, bool) {
    let c = fabric.compute(o, None, &|_| false, None);
    let mut all = widths(fabric, &c, &vec![true; fabric.links.len()]);
    let row = Row {
        origin: o,
        leaves: leaves
            .iter()
            .filter(|&&s| s != o && comp[s as usize] == comp[o as usize])
            .map(|&s| (s, std::mem::take(&mut all[s as usize])))
            .collect(),
    };
    (o, row, twins::reusable(&c))
}

/// The row of `o` from the row of its twin `rep.origin`: each leaf's width is its image's under the
/// swap of the two (the twin's towards `rep.origin` becomes `rep.origin`'s towards `o`), its links
/// swapped with them.
fn swapped(fabric: &Fabric, leaves: &[Node], comp: &[u32], rep: &Row, o: Node) -> Row {
    let r = rep.origin;
    let links = twins::swap(fabric, r, o);
    let of = |s: Node| {
        rep.leaves
            .binary_search_by_key(&s, |e| e.0)
            .ok()
            .map(|i| &rep.leaves[i].1)
    };
    // Only a leaf next to the two (none, in a fabric whose leaves meet only switches above them) has
    // links the swap moves.
    let near = twins::near(fabric, r, o);
    let leaves = leaves
        .iter()
        .filter(|&&s| s != o && comp[s as usize] == comp[o as usize])
        .filter_map(|&s| {
            let w = of(if s == r { o } else { s })?;
            if near.binary_search(&s).is_err() {
                return Some((s, w.clone()));
            }
            let mut moved: Vec<LinkId> = w
                .links
                .iter()
                .map(|l| links.get(l).copied().unwrap_or(*l))
                .collect();
            moved.sort_unstable();
            Some((
                s,
                Width {
                    min: w.min,
                    max: w.max,
                    links: moved,
                },
            ))
        })
        .collect();
    Row { origin: o, leaves }
}

/// The table in numbers: how many (leaf, destination) pairs have each width, and those below the
/// planned width.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Pairs per width (min, max), ascending.
    pub by_width: Vec<((u32, u32), u64)>,
    /// Pairs whose fewest next hops are below the planned width: how many.
    pub below: u64,
    /// The first of them: (leaf, destination, width).
    pub first_below: Vec<(Node, Node, Width)>,
}

/// How many pairs below the planned width a summary names.
pub const NAMED_BELOW: usize = 10;

/// The summary of `rows` against the planned width `planned` (the model's `leaf_ecmp_width`).
pub fn summary(rows: &[Row], planned: u32) -> Summary {
    let mut s = Summary::default();
    for r in rows {
        s.add(r, planned);
    }
    s
}

impl Summary {
    /// Counts one row's pairs against the planned width `planned`.
    pub fn add(&mut self, r: &Row, planned: u32) {
        for (leaf, w) in &r.leaves {
            match self.by_width.binary_search_by_key(&(w.min, w.max), |e| e.0) {
                Ok(i) => self.by_width[i].1 += 1,
                Err(i) => self.by_width.insert(i, ((w.min, w.max), 1)),
            }
            if w.min < planned {
                self.below += 1;
                if self.first_below.len() < NAMED_BELOW {
                    self.first_below.push((*leaf, r.origin, w.clone()));
                }
            }
        }
    }
}
