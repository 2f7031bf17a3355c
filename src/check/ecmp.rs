//! The ECMP width BGP installs ([`super::pathvector`]): per switch and destination leaf, how many next
//! hops (links) it installs, and where equal eBGP paths of different ASNs make the outcome depend on
//! which session came up first ([`super::ties`]), the range over every outcome the tie computation
//! allows. `aifab plan --format ecmp` prints it per (leaf, destination leaf); `aifab verify` accepts any
//! width of the range.

use super::paths::{Fabric, LinkId, Node};
use super::pathvector::Computed;
use rayon::prelude::*;

/// How many next hops a switch installs towards one destination, over every outcome BGP may settle on.
#[derive(Clone, Debug, PartialEq, Eq)]
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
    (0..fabric.len() as Node)
        .map(|s| width(fabric, &c, s))
        .collect()
}

/// The widths of every leaf towards one destination leaf, with every link up.
#[derive(Clone, Debug)]
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
/// fabric of thousands of leaves is printed without holding every pair.
pub fn for_each_row(fabric: &Fabric, mut f: impl FnMut(Row)) {
    let leaves: Vec<Node> = fabric.leaves().collect();
    let comp = fabric.components(None);
    for chunk in leaves.chunks(CHUNK) {
        let rows: Vec<Row> = chunk
            .par_iter()
            .map(|&o| {
                let c = fabric.compute(o, None, &|_| false, None);
                Row {
                    origin: o,
                    leaves: leaves
                        .iter()
                        .filter(|&&s| s != o && comp[s as usize] == comp[o as usize])
                        .map(|&s| (s, width(fabric, &c, s)))
                        .collect(),
                }
            })
            .collect();
        rows.into_iter().for_each(&mut f);
    }
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
