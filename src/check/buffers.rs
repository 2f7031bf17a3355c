//! The lossless buffer-dependency graph of the routes BGP installs ([`super::pathvector`]): a node is
//! an ingress queue of the lossless class (a switch's queue on one fabric port, fed by the switch at the
//! link's other end); an edge runs from queue A to queue B where traffic that arrives in A leaves
//! through the port whose far end queues it in B: when B fills, PFC pauses the port that fills A. A
//! cycle of such edges is a PFC deadlock. The destinations are the leaves (lossless traffic runs
//! between servers), every switch's installed next hops count (packets in flight while BGP settles
//! take them too, as [`Fabric::valley`] says), and where equal eBGP paths of different ASNs make the
//! next hops depend on session order ([`super::ties`]), every next hop some outcome installs counts: a
//! superset, so "acyclic" holds for every outcome.
//!
//! Up-down routing keeps the graph acyclic: a queue fed from below leads only up or down, one fed
//! from above only down, so a cycle needs a turn from down to up (a valley, AIF-ROUTE-001); one turn
//! alone closes none, a cycle needs a second (docs/twin.md#why-the-proof-holds).

use super::ecmp;
use super::failures::Failure;
use super::paths::{Fabric, LinkId, Node};
use super::twins;
use rayon::prelude::*;

/// One lossless ingress queue: switch `at`'s queue on its port of `link`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Queue {
    /// The link.
    pub link: LinkId,
    /// The switch whose port queues the traffic (the link's far end feeds it).
    pub at: Node,
}

/// A turn at a switch: traffic that arrived over `from` leaves over `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Turn {
    /// The switch.
    pub at: Node,
    /// The link traffic arrives on.
    pub from: LinkId,
    /// The link it leaves by.
    pub to: LinkId,
}

/// Per switch and port (in [`Fabric::links_of`] order), the ports traffic arriving there leaves by,
/// as bit sets over the same order.
type Turns = Vec<Vec<Vec<u64>>>;

/// The graph, for the routes with some failures together (none: every link up).
#[derive(Clone, Debug)]
pub struct Buffers {
    /// The failures it was computed with.
    pub failures: Vec<Failure>,
    turns: Turns,
    /// How many dependencies (edges) the graph has.
    pub edges: u64,
    /// Every turn from a link down to a link up (traffic that came down goes up again), in order.
    pub down_up: Vec<Turn>,
    /// A cycle of queues, the first found (None: the graph is acyclic).
    pub cycle: Option<Vec<Queue>>,
    /// How many destinations were computed (a twin of one computed takes its turns swapped).
    pub computed: usize,
}

impl Buffers {
    /// The graph of `fabric`'s routes towards every leaf with every failure of `failures` at once.
    pub fn build(fabric: &Fabric, failures: &[Failure]) -> Buffers {
        let down = |l: LinkId| failures.iter().any(|f| f.takes(fabric, l));
        let dead: Vec<Node> = failures.iter().filter_map(|f| f.switch()).collect();
        let empty = || -> Turns {
            (0..fabric.len() as Node)
                .map(|x| {
                    let k = fabric.links_of(x).len();
                    vec![vec![0u64; k.div_ceil(64)]; k]
                })
                .collect()
        };
        let origins: Vec<Node> = fabric.leaves().filter(|o| !dead.contains(o)).collect();
        let slots = fabric.port_slots();
        let mut turns = empty();
        let computed = if failures.is_empty() {
            by_twins(fabric, &slots, &mut turns)
        } else {
            every(fabric, &slots, &origins, &down, &dead, &mut turns)
        };
        Self::finish(fabric, failures, turns, computed)
    }

    /// [`Buffers::build`] with every destination computed (no twin taking another's turns): what the
    /// built graph must equal.
    #[cfg(test)]
    pub(super) fn build_every(fabric: &Fabric) -> Buffers {
        let slots = fabric.port_slots();
        let mut turns: Turns = (0..fabric.len() as Node)
            .map(|x| {
                let k = fabric.links_of(x).len();
                vec![vec![0u64; k.div_ceil(64)]; k]
            })
            .collect();
        let origins: Vec<Node> = fabric.leaves().collect();
        let computed = every(fabric, &slots, &origins, &|_| false, &[], &mut turns);
        Self::finish(fabric, &[], turns, computed)
    }

    /// The graph of `turns`, with its edges, down-up turns and first cycle.
    fn finish(fabric: &Fabric, failures: &[Failure], turns: Turns, computed: usize) -> Buffers {
        let mut b = Buffers {
            computed,
            failures: failures.to_vec(),
            edges: turns
                .iter()
                .flatten()
                .flatten()
                .map(|w| u64::from(w.count_ones()))
                .sum(),
            turns,
            down_up: Vec::new(),
            cycle: None,
        };
        b.down_up = b.turns_where(fabric, |f, x, i, j| {
            f.tier_of_port(x, i) > f.tier[x as usize] && f.tier_of_port(x, j) > f.tier[x as usize]
        });
        b.cycle = b.find_cycle(fabric);
        b
    }

    /// Whether the graph has no cycle: no PFC deadlock.
    pub fn acyclic(&self) -> bool {
        self.cycle.is_none()
    }

    /// Every queue with a dependency, in or out, in order.
    pub fn queues(&self, fabric: &Fabric) -> Vec<Queue> {
        let mut used = vec![false; 2 * fabric.links.len()];
        let mut mark = |l: LinkId, at: Node| {
            used[2 * l as usize + usize::from(fabric.links[l as usize].a != at)] = true;
        };
        for x in 0..fabric.len() as Node {
            let ports = fabric.links_of(x);
            for (i, row) in self.turns[x as usize].iter().enumerate() {
                if row.iter().all(|&w| w == 0) {
                    continue;
                }
                mark(ports[i].1, x);
                for j in bits(row) {
                    mark(ports[j].1, ports[j].0);
                }
            }
        }
        let mut out: Vec<Queue> = used
            .iter()
            .enumerate()
            .filter(|(_, u)| **u)
            .map(|(i, _)| {
                let k = &fabric.links[i / 2];
                Queue {
                    link: (i / 2) as LinkId,
                    at: if i % 2 == 0 { k.a } else { k.b },
                }
            })
            .collect();
        out.sort_unstable();
        out
    }

    /// Every dependency: (the queue traffic waits in, the queue it waits for), queue by queue.
    pub fn dependencies<'a>(
        &'a self,
        fabric: &'a Fabric,
    ) -> impl Iterator<Item = (Queue, Queue)> + 'a {
        (0..fabric.len() as Node).flat_map(move |x| {
            let ports = fabric.links_of(x);
            ports.iter().enumerate().flat_map(move |(i, &(_, from))| {
                bits(&self.turns[x as usize][i]).map(move |j| {
                    let (n, to) = ports[j];
                    (Queue { link: from, at: x }, Queue { link: to, at: n })
                })
            })
        })
    }

    /// The turns whose (switch, in port, out port) `keep` selects.
    fn turns_where(
        &self,
        fabric: &Fabric,
        keep: impl Fn(&Fabric, Node, usize, usize) -> bool,
    ) -> Vec<Turn> {
        let mut out = Vec::new();
        for x in 0..fabric.len() as Node {
            let ports = fabric.links_of(x);
            for (i, row) in self.turns[x as usize].iter().enumerate() {
                for j in bits(row).filter(|&j| keep(fabric, x, i, j)) {
                    out.push(Turn {
                        at: x,
                        from: ports[i].1,
                        to: ports[j].1,
                    });
                }
            }
        }
        out
    }

    /// The successors of queue `q`: the queues of the far ends of the ports traffic in `q` leaves by.
    fn next(&self, fabric: &Fabric, q: Queue) -> Vec<Queue> {
        let ports = fabric.links_of(q.at);
        let Some(i) = ports.iter().position(|&(_, l)| l == q.link) else {
            return Vec::new();
        };
        bits(&self.turns[q.at as usize][i])
            .map(|j| Queue {
                link: ports[j].1,
                at: ports[j].0,
            })
            .collect()
    }

    /// A cycle, by depth-first search from every queue with a dependency (iterative: no recursion
    /// limit at 100K GPUs).
    fn find_cycle(&self, fabric: &Fabric) -> Option<Vec<Queue>> {
        if self.down_up.is_empty() && fabric.layered() {
            // Up-down: every path climbs, then descends; none comes back.
            return None;
        }
        let id =
            |q: Queue| 2 * q.link as usize + usize::from(fabric.links[q.link as usize].b == q.at);
        let mut colour = vec![0u8; 2 * fabric.links.len()];
        for start in self.queues(fabric) {
            if colour[id(start)] != 0 {
                continue;
            }
            let mut stack: Vec<(Queue, Vec<Queue>)> = vec![(start, self.next(fabric, start))];
            colour[id(start)] = 1;
            while let Some((q, succ)) = stack.last_mut() {
                let q = *q;
                let Some(n) = succ.pop() else {
                    colour[id(q)] = 2;
                    stack.pop();
                    continue;
                };
                match colour[id(n)] {
                    0 => {
                        colour[id(n)] = 1;
                        let more = self.next(fabric, n);
                        stack.push((n, more));
                    }
                    1 => {
                        let from = stack.iter().position(|(s, _)| *s == n).unwrap_or(0);
                        return Some(stack[from..].iter().map(|(s, _)| *s).collect());
                    }
                    _ => {}
                }
            }
        }
        None
    }
}

/// Every destination of `origins` computed, a chunk at a time in parallel, its turns added in order;
/// how many were computed.
fn every(
    fabric: &Fabric,
    slots: &[[u32; 2]],
    origins: &[Node],
    down: &(dyn Fn(LinkId) -> bool + Sync),
    dead: &[Node],
    turns: &mut Turns,
) -> usize {
    for chunk in origins.chunks(64) {
        let nexts: Vec<Vec<Vec<LinkId>>> = chunk
            .par_iter()
            .map(|&o| next_hops(fabric, o, down, dead).0)
            .collect();
        for next in &nexts {
            add_turns(fabric, slots, next, turns);
        }
    }
    origins.len()
}

/// With every link up: one leaf of each set of twins ([`super::twins`]) computed, its turns added,
/// and each twin's turns from the same next hops with the two swapped, where the computation read
/// only the cabling and the ASNs. The swap moves only the turns at the two and their neighbors: at
/// any other switch the next hops, and the neighbors that forward to it over which links, are the
/// same for both destinations. How many destinations were computed.
fn by_twins(fabric: &Fabric, slots: &[[u32; 2]], turns: &mut Turns) -> usize {
    let twins = twins::leaves(fabric);
    let mut members: Vec<Vec<Node>> = vec![Vec::new(); fabric.len()];
    for s in fabric.leaves() {
        members[twins.rep[s as usize] as usize].push(s);
    }
    let reps: Vec<Node> = fabric
        .leaves()
        .filter(|&s| twins.rep[s as usize] == s)
        .collect();
    let mut rest: Vec<Node> = Vec::new();
    for chunk in reps.chunks(64) {
        let nexts: Vec<(Node, Vec<Vec<LinkId>>, bool)> = chunk
            .par_iter()
            .map(|&o| {
                let (next, reusable) = next_hops(fabric, o, &|_| false, &[]);
                (o, next, reusable)
            })
            .collect();
        for (r, next, reusable) in &nexts {
            add_turns(fabric, slots, next, turns);
            let others = members[*r as usize].iter().copied().filter(|m| m != r);
            if *reusable {
                others.for_each(|m| add_swapped_turns(fabric, slots, next, *r, m, turns));
            } else {
                rest.extend(others);
            }
        }
    }
    rest.sort_unstable();
    reps.len() + every(fabric, slots, &rest, &|_| false, &[], turns)
}

/// Adds the turns of destination `m` from `next`, the next hops towards its twin `r`: at `r`, `m` and
/// their neighbors, each switch's next hops and its neighbors' are those towards `r` with the two
/// (and their links) swapped.
fn add_swapped_turns(
    fabric: &Fabric,
    slots: &[[u32; 2]],
    next: &[Vec<LinkId>],
    r: Node,
    m: Node,
    acc: &mut Turns,
) {
    let links = twins::swap(fabric, r, m);
    let swap = |l: LinkId| links.get(&l).copied().unwrap_or(l);
    let node = |x: Node| match x {
        x if x == r => m,
        x if x == m => r,
        x => x,
    };
    let slot = |l: LinkId, at: Node| {
        let k = &fabric.links[l as usize];
        slots[l as usize][usize::from(k.b == at && k.a != at)] as usize
    };
    // Whether `p` forwards over `l` towards `m`: `p`'s image forwards over `l`'s towards `r`.
    let forwards = |p: Node, l: LinkId| next[node(p) as usize].binary_search(&swap(l)).is_ok();
    for x in twins::near(fabric, r, m) {
        let ports = fabric.links_of(x);
        let mut out = vec![0u64; ports.len().div_ceil(64)];
        for &l in &next[node(x) as usize] {
            let j = slot(swap(l), x);
            out[j / 64] |= 1 << (j % 64);
        }
        if out.iter().all(|&w| w == 0) {
            continue;
        }
        for &(p, l) in ports {
            if forwards(p, l) {
                let i = slot(l, x);
                for (a, b) in acc[x as usize][i].iter_mut().zip(&out) {
                    *a |= b;
                }
            }
        }
    }
}

/// Every switch's next hops towards `o` with the links `down` names and the switches `dead` down
/// (every next hop some outcome installs, where the plan has ties), and whether they stand for `o`'s
/// twins ([`twins::reusable`]).
fn next_hops(
    fabric: &Fabric,
    o: Node,
    down: &(dyn Fn(LinkId) -> bool + Sync),
    dead: &[Node],
) -> (Vec<Vec<LinkId>>, bool) {
    let live = |l: LinkId| {
        let k = &fabric.links[l as usize];
        !down(l) && !dead.contains(&k.a) && !dead.contains(&k.b)
    };
    let c = fabric.compute(o, None, &|l| !live(l), None);
    let reusable = twins::reusable(&c);
    let next = match c.ties {
        None => c.routes.via,
        Some(_) => (0..fabric.len() as Node)
            .map(|s| ecmp::width(fabric, &c, s).links)
            .collect(),
    };
    (next, reusable)
}

/// Adds the turns of one destination's next hops `next` to `acc`: at every switch, from each port a
/// neighbor forwards over to it, to each of its own next hops. `slots` is [`Fabric::port_slots`].
fn add_turns(fabric: &Fabric, slots: &[[u32; 2]], next: &[Vec<LinkId>], acc: &mut Turns) {
    let slot = |l: LinkId, at: Node| {
        let k = &fabric.links[l as usize];
        slots[l as usize][usize::from(k.b == at && k.a != at)] as usize
    };
    // Per switch, its next hops as a bit set over its ports.
    let out: Vec<Vec<u64>> = (0..fabric.len() as Node)
        .map(|x| {
            let ports = fabric.links_of(x);
            let mut w = vec![0u64; ports.len().div_ceil(64)];
            for &l in &next[x as usize] {
                let j = slot(l, x);
                w[j / 64] |= 1 << (j % 64);
            }
            w
        })
        .collect();
    for (p, hops) in next.iter().enumerate() {
        for &l in hops {
            let x = fabric.links[l as usize].other(p as Node);
            if out[x as usize].iter().all(|&w| w == 0) {
                continue;
            }
            let i = slot(l, x);
            for (a, b) in acc[x as usize][i].iter_mut().zip(&out[x as usize]) {
                *a |= b;
            }
        }
    }
}

/// The set bits of a bit set, ascending.
fn bits(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(k, &w)| {
        (0..64)
            .filter(move |b| w & (1 << b) != 0)
            .map(move |b| 64 * k + b)
    })
}

impl Fabric {
    /// Per link, its index among the ports of each end ([`Fabric::links_of`] order): `[at a, at b]`.
    fn port_slots(&self) -> Vec<[u32; 2]> {
        let mut out = vec![[0u32; 2]; self.links.len()];
        for x in 0..self.len() as Node {
            for (i, &(_, l)) in self.links_of(x).iter().enumerate() {
                let side = usize::from(self.links[l as usize].a != x);
                out[l as usize][side] = i as u32;
            }
        }
        out
    }

    /// The tier of the switch at the far end of switch `x`'s port `i` (in [`Fabric::links_of`] order).
    fn tier_of_port(&self, x: Node, i: usize) -> u8 {
        self.tier[self.links_of(x)[i].0 as usize]
    }
}

/// Why a failure an operator names (`aifab plan --fail`) is not one of the fabric's.
#[derive(Debug, thiserror::Error)]
pub enum FailureNameError {
    /// No switch of that name.
    #[error("no switch `{0}` in the fabric")]
    NoSwitch(String),
    /// The two switches share no link.
    #[error("no link between {0} and {1}")]
    NoLink(String, String),
    /// No fabric link at that `SWITCH:PORT`.
    #[error("no fabric link at {0}")]
    NoPort(String),
}

/// The failure an operator names (`aifab plan --fail`): `SWITCH` (the switch, whole), `SWITCH:PORT`
/// (the link at that port) or `SWITCH+SWITCH` (every link between the two); the error names what is
/// not in the fabric.
pub fn parse_failure(fabric: &Fabric, text: &str) -> Result<Failure, FailureNameError> {
    let find = |name: &str| {
        fabric
            .names
            .iter()
            .position(|n| &**n == name)
            .map(|i| i as Node)
            .ok_or_else(|| FailureNameError::NoSwitch(name.to_string()))
    };
    if let Some((a, b)) = text.split_once('+') {
        let (a, b) = (find(a)?, find(b)?);
        let n = fabric.links_of(a).iter().filter(|&&(x, _)| x == b).count();
        return match n {
            0 => Err(FailureNameError::NoLink(
                fabric.names[a as usize].to_string(),
                fabric.names[b as usize].to_string(),
            )),
            1 => Ok(Failure::Link(
                fabric
                    .links_of(a)
                    .iter()
                    .find(|&&(x, _)| x == b)
                    .map_or(0, |&(_, l)| l),
            )),
            _ => Ok(Failure::Parallel(a.min(b), a.max(b))),
        };
    }
    if let Some((s, port)) = text.split_once(':') {
        let s = find(s)?;
        return fabric
            .links_of(s)
            .iter()
            .find(|&&(_, l)| {
                let k = &fabric.links[l as usize];
                (k.a == s && &*k.a_port == port) || (k.b == s && &*k.b_port == port)
            })
            .map(|&(_, l)| Failure::Link(l))
            .ok_or_else(|| FailureNameError::NoPort(text.to_string()));
    }
    find(text).map(Failure::Switch)
}
