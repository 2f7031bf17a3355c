//! The failures the routing analysis covers ([`super::deadlock`]): every single link, every group of
//! parallel links between two switches (a line card, a shared optic cage, a cable bundle takes them
//! together), and every single switch. For each, which links are down, and which switches the cabling
//! still joins (a leaf pair the failure cuts off physically is no routing plan's fault).

use super::paths::{Fabric, LinkId, Node};

/// One failure in scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// One link.
    Link(LinkId),
    /// Every link between two switches (there are two or more).
    Parallel(Node, Node),
    /// A switch, whole: every link of it, and its own prefixes.
    Switch(Node),
}

impl Failure {
    /// Whether link `l` of `fabric` is down in this failure.
    pub fn takes(self, fabric: &Fabric, l: LinkId) -> bool {
        let k = &fabric.links[l as usize];
        match self {
            Failure::Link(x) => x == l,
            Failure::Parallel(a, b) => (k.a == a && k.b == b) || (k.a == b && k.b == a),
            Failure::Switch(n) => k.a == n || k.b == n,
        }
    }

    /// The links this failure takes down.
    pub fn links(self, fabric: &Fabric) -> Vec<LinkId> {
        match self {
            Failure::Link(l) => vec![l],
            Failure::Parallel(a, b) => fabric
                .links_of(a)
                .iter()
                .filter(|&&(x, _)| x == b)
                .map(|&(_, l)| l)
                .collect(),
            Failure::Switch(n) => fabric.links_of(n).iter().map(|&(_, l)| l).collect(),
        }
    }

    /// The failed switch, if the failure is one.
    pub fn switch(self) -> Option<Node> {
        match self {
            Failure::Switch(n) => Some(n),
            _ => None,
        }
    }

    /// The single failed link, if the failure is one.
    pub fn link(self) -> Option<LinkId> {
        match self {
            Failure::Link(l) => Some(l),
            _ => None,
        }
    }

    /// `after link a:p—b:q fails`, `after the 2 links between a and b fail`, `after switch a fails`.
    pub fn text(self, fabric: &Fabric) -> String {
        let name = |n: Node| &*fabric.names[n as usize];
        match self {
            Failure::Link(l) => format!("after link {} fails", fabric.link_name(l)),
            Failure::Parallel(a, b) => {
                let n = (0..fabric.links.len() as LinkId)
                    .filter(|&l| self.takes(fabric, l))
                    .count();
                format!(
                    "after the {n} parallel links between {} and {} fail together",
                    name(a),
                    name(b)
                )
            }
            Failure::Switch(n) => format!("after switch {} fails", name(n)),
        }
    }
}

impl Fabric {
    /// Every failure in scope: each link, each group of two or more parallel links, each switch.
    pub fn failure_sets(&self) -> Vec<Failure> {
        let mut out: Vec<Failure> = (0..self.links.len() as LinkId).map(Failure::Link).collect();
        let mut above: Vec<Node> = Vec::new();
        for a in 0..self.len() as Node {
            above.clear();
            above.extend(self.links_of(a).iter().map(|&(b, _)| b).filter(|&b| b > a));
            above.sort_unstable();
            for (i, &b) in above.iter().enumerate() {
                // The first of two or more links to b.
                if above.get(i + 1) == Some(&b) && (i == 0 || above[i - 1] != b) {
                    out.push(Failure::Parallel(a, b));
                }
            }
        }
        out.extend((0..self.len() as Node).map(Failure::Switch));
        out
    }

    /// The switches the live links join, as a component number per switch (a failed switch is alone).
    pub fn components(&self, failure: Option<Failure>) -> Vec<u32> {
        let n = self.len();
        let mut comp = vec![u32::MAX; n];
        let mut stack = Vec::new();
        let mut next = 0u32;
        for start in 0..n as Node {
            if comp[start as usize] != u32::MAX {
                continue;
            }
            comp[start as usize] = next;
            stack.push(start);
            let dead = failure.and_then(Failure::switch) == Some(start);
            while let Some(u) = stack.pop() {
                if dead {
                    break;
                }
                for &(v, l) in self.links_of(u) {
                    let down = failure.is_some_and(|f| f.takes(self, l));
                    if !down && comp[v as usize] == u32::MAX {
                        comp[v as usize] = next;
                        stack.push(v);
                    }
                }
            }
            next += 1;
        }
        comp
    }
}

/// Which failures can split the cabling (the links that are a pair's only link and its only way
/// round, and the switches whose loss separates others), with the components of every link up: a
/// failure that splits nothing leaves those components, less the failed switch, and needs no walk of
/// the fabric ([`Splits::components`]).
pub struct Splits {
    /// The components with every link up ([`Fabric::components`]).
    steady: Vec<u32>,
    /// Per switch pair joined by links, as (lower, higher): whether removing every link between them
    /// separates the fabric (a bridge of the graph without parallel links).
    bridges: std::collections::HashSet<(Node, Node)>,
    /// Per switch, whether its loss separates other switches (an articulation point).
    cut: Vec<bool>,
}

impl Fabric {
    /// The splits of this cabling (Tarjan's low-link walk, iterative).
    pub fn splits(&self) -> Splits {
        let n = self.len();
        // The neighbors of each switch once, whatever the number of links between them.
        let simple: Vec<Vec<Node>> = (0..n)
            .map(|v| {
                let mut s: Vec<Node> = self.adj[v].iter().map(|&(w, _)| w).collect();
                s.sort_unstable();
                s.dedup();
                s
            })
            .collect();
        let mut disc = vec![u32::MAX; n];
        let mut low = vec![0u32; n];
        let mut parent = vec![Node::MAX; n];
        let mut cut = vec![false; n];
        let mut bridges = std::collections::HashSet::new();
        let mut time = 0u32;
        let mut stack: Vec<(Node, usize)> = Vec::new();
        for root in 0..n as Node {
            if disc[root as usize] != u32::MAX {
                continue;
            }
            disc[root as usize] = time;
            low[root as usize] = time;
            time += 1;
            let mut children = 0;
            stack.push((root, 0));
            while let Some((v, i)) = stack.last_mut() {
                let v = *v;
                if let Some(&w) = simple[v as usize].get(*i) {
                    *i += 1;
                    if disc[w as usize] == u32::MAX {
                        parent[w as usize] = v;
                        disc[w as usize] = time;
                        low[w as usize] = time;
                        time += 1;
                        children += usize::from(v == root);
                        stack.push((w, 0));
                    } else if w != parent[v as usize] {
                        low[v as usize] = low[v as usize].min(disc[w as usize]);
                    }
                    continue;
                }
                stack.pop();
                if let Some(&(p, _)) = stack.last() {
                    low[p as usize] = low[p as usize].min(low[v as usize]);
                    if low[v as usize] > disc[p as usize] {
                        bridges.insert((p.min(v), p.max(v)));
                    }
                    if p != root && low[v as usize] >= disc[p as usize] {
                        cut[p as usize] = true;
                    }
                }
            }
            cut[root as usize] = children > 1;
        }
        Splits {
            steady: self.components(None),
            bridges,
            cut,
        }
    }
}

impl Splits {
    /// [`Fabric::components`] of `failure`: the same partition of the switches (the numbers may
    /// differ), from the steady components where the failure splits nothing.
    pub fn components(&self, fabric: &Fabric, failure: Option<Failure>) -> Vec<u32> {
        let pair = |a: Node, b: Node| self.bridges.contains(&(a.min(b), a.max(b)));
        let splits = match failure {
            None => false,
            Some(Failure::Link(l)) => {
                let k = &fabric.links[l as usize];
                pair(k.a, k.b)
                    && fabric
                        .links_of(k.a)
                        .iter()
                        .filter(|&&(x, _)| x == k.b)
                        .count()
                        == 1
            }
            Some(Failure::Parallel(a, b)) => pair(a, b),
            Some(Failure::Switch(n)) => self.cut[n as usize],
        };
        if splits {
            return fabric.components(failure);
        }
        let mut comp = self.steady.clone();
        if let Some(n) = failure.and_then(Failure::switch) {
            // Alone, as the walk leaves it: no other switch has this number.
            comp[n as usize] = u32::MAX;
        }
        comp
    }
}
