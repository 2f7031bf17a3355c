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
