//! Which server addresses a NIC port's routing table sends through the port's leaf.
//!
//! Without planes every leaf reaches every other through the spines, so each port's table routes the
//! whole server pool (`fabric.addressing.server_links`) through its own leaf. With `homing: two-planes`
//! the two planes share no link (Alibaba HPN: a plane's leaves, spines and super-spines never meet the
//! other's), so a port reaches only the server ports of its own plane: its table routes exactly those
//! (the subnets of the plane's server links, merged into the fewest prefixes), and an address of the
//! other plane has no route through it. The pool's addresses of the two planes interleave (each leaf
//! takes the next block), so a plane's destinations are one prefix per run of its leaves' blocks.

use super::Server;
use crate::model::hosts::HostsPlan;
use std::collections::BTreeMap;
use std::net::Ipv4Addr;

/// The destinations of every NIC port's table, by the plane of the port's leaf.
#[derive(Clone, Debug)]
pub struct Destinations {
    /// Without planes (or for a leaf in none): the whole server pool.
    all: Vec<String>,
    /// Per leaf plane: that plane's server subnets, merged, in address order.
    by_plane: BTreeMap<u32, Vec<String>>,
}

impl Destinations {
    /// The destinations of a fabric's servers: per plane when its leaves are in planes.
    pub fn of(plan: &HostsPlan, servers: &[Server]) -> Destinations {
        let mut subnets: BTreeMap<u32, Vec<(u32, u8)>> = BTreeMap::new();
        for n in servers.iter().flat_map(|s| &s.nics) {
            if let Some(p) = n.leaf.plane {
                subnets
                    .entry(p)
                    .or_default()
                    .push((u32::from(n.network), n.prefix_len));
            }
        }
        Destinations {
            all: vec![plan.server_pool.clone()],
            by_plane: subnets
                .into_iter()
                .map(|(p, s)| (p, merge(s).into_iter().map(spell).collect()))
                .collect(),
        }
    }

    /// The prefixes a port on a leaf of `plane` routes through its leaf.
    pub fn of_plane(&self, plane: Option<u32>) -> &[String] {
        plane
            .and_then(|p| self.by_plane.get(&p))
            .unwrap_or(&self.all)
    }
}

/// `a.b.c.d/len`.
fn spell((net, len): (u32, u8)) -> String {
    format!("{}/{len}", Ipv4Addr::from(net))
}

/// The fewest prefixes that cover exactly the union of `prefixes` (each given by its network address
/// and length): contained prefixes dropped, sibling halves joined, in address order.
pub fn merge(mut prefixes: Vec<(u32, u8)>) -> Vec<(u32, u8)> {
    let size = |len: u8| 1u64 << (32 - u32::from(len));
    prefixes.sort_unstable();
    let mut out: Vec<(u32, u8)> = Vec::with_capacity(prefixes.len());
    for (net, len) in prefixes {
        let contained = out
            .last()
            .is_some_and(|&(n, l)| l <= len && u64::from(net) < u64::from(n) + size(l) && net >= n);
        if contained {
            continue;
        }
        out.push((net, len));
        // Join the last two while they are the two halves of one prefix.
        while let [.., (a, la), (b, lb)] = out[..] {
            let halves = la == lb
                && la > 0
                && u64::from(a) % size(la - 1) == 0
                && u64::from(b) == u64::from(a) + size(la);
            if !halves {
                break;
            }
            out.truncate(out.len() - 2);
            out.push((a, la - 1));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::merge;

    fn p(s: &str) -> (u32, u8) {
        let (a, l) = s.split_once('/').expect("prefix");
        (
            u32::from(a.parse::<std::net::Ipv4Addr>().expect("address")),
            l.parse().expect("length"),
        )
    }

    fn m(v: &[&str]) -> Vec<(u32, u8)> {
        merge(v.iter().map(|s| p(s)).collect())
    }

    #[test]
    fn siblings_join_and_contained_prefixes_drop() {
        // Four /31s of one leaf: one /29.
        assert_eq!(
            m(&["10.0.0.6/31", "10.0.0.0/31", "10.0.0.2/31", "10.0.0.4/31"]),
            [p("10.0.0.0/29")]
        );
        // Two planes' leaf blocks interleave: plane 1 keeps its own blocks, never the gap.
        assert_eq!(
            m(&["10.0.0.0/29", "10.0.0.16/29", "10.0.0.32/29"]),
            [p("10.0.0.0/29"), p("10.0.0.16/29"), p("10.0.0.32/29")]
        );
        // A /31 inside a leaf subnet listed beside it.
        assert_eq!(m(&["10.0.0.0/26", "10.0.0.8/31"]), [p("10.0.0.0/26")]);
        // Halves that are not one prefix's (10.0.0.8/29 + 10.0.0.16/29) stay apart.
        assert_eq!(
            m(&["10.0.0.8/29", "10.0.0.16/29"]),
            [p("10.0.0.8/29"), p("10.0.0.16/29")]
        );
        // Joins cascade.
        assert_eq!(
            m(&[
                "10.0.0.0/26",
                "10.0.0.64/27",
                "10.0.0.96/27",
                "10.0.0.128/25"
            ]),
            [p("10.0.0.0/24")]
        );
        assert_eq!(m(&[]), []);
    }
}
