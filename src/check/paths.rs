//! The paths BGP selects in the fabric, computed from the compiled model: every switch's eBGP sessions
//! (one per fabric link), its ASN and its ECMP width, under the configs' policy (shortest AS path,
//! AS-path loop prevention, iBGP split horizon, `as-path multipath-relax`, at most `maximum-paths` next
//! hops; no route-map changes a route). For one destination switch and an optional failed link,
//! [`Fabric::select`] gives each switch's next hops as BGP settles them ([`super::pathvector`]), and [`Fabric::valley`] a path that goes down and then up
//! again, if the forwarding has one. The deadlock rules ([`super::deadlock`]) and `aifab twin`, which
//! compares these next hops with the FIB FRR installs, both read it.

use crate::kinds::Role;
use crate::model::{FabricModel, Name};
use std::collections::HashMap;
use std::net::Ipv4Addr;

/// A switch's index in [`Fabric`] (its index in the model's devices).
pub type Node = u32;
/// A fabric link's index in [`Fabric::links`].
pub type LinkId = u32;

/// Distance of a switch that has no route.
pub const UNREACHABLE: u16 = u16::MAX;

/// The switch graph of a fabric as its BGP sessions draw it.
#[derive(Clone, Debug)]
pub struct Fabric {
    /// Hostname of each switch.
    pub names: Vec<Name>,
    /// Local ASN of each switch.
    pub asn: Vec<u32>,
    /// Tier of each switch: 0 leaf, 1 spine, 2 super-spine.
    pub tier: Vec<u8>,
    /// `maximum-paths` of each switch.
    pub max_paths: Vec<u32>,
    /// BGP router-id of each switch (its loopback): BGP's tie-break between equal paths.
    pub router_id: Vec<Ipv4Addr>,
    /// Every fabric link with a BGP session on it.
    pub links: Vec<FabricLink>,
    /// Per switch, its links: (the other end, the link), in link order.
    pub(super) adj: Vec<Vec<(Node, LinkId)>>,
}

/// A fabric link: its two ends and their addresses (each end's address is the other's BGP neighbor).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FabricLink {
    /// One end (the switch that lists the session first in model order).
    pub a: Node,
    /// The other end.
    pub b: Node,
    /// `a`'s address on the link.
    pub a_ip: Ipv4Addr,
    /// `b`'s address on the link.
    pub b_ip: Ipv4Addr,
    /// `a`'s port (OS name).
    pub a_port: Name,
    /// `b`'s port (OS name).
    pub b_port: Name,
}

impl FabricLink {
    /// The end of the link that is not `n`.
    pub fn other(&self, n: Node) -> Node {
        if self.a == n { self.b } else { self.a }
    }

    /// `n`'s address on the link.
    pub fn ip_of(&self, n: Node) -> Ipv4Addr {
        if self.a == n { self.a_ip } else { self.b_ip }
    }
}

/// What BGP settles for one destination switch: per switch its AS-path length to it and the links it
/// forwards over (its ECMP next hops).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Routes {
    /// The destination switch (its prefixes: loopback, server /31s or subnet).
    pub origin: Node,
    /// The failed link, if any.
    pub failed: Option<LinkId>,
    /// AS-path length per switch ([`UNREACHABLE`] without a route; 0 at the origin).
    pub dist: Vec<u16>,
    /// Next-hop links per switch, in link order (empty at the origin and without a route).
    pub via: Vec<Vec<LinkId>>,
}

/// A path that goes down and then up again: the switches in order, and where it turns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Valley {
    /// Switches from a leaf that sends traffic to the destination.
    pub path: Vec<Node>,
    /// Index in `path` of the switch where traffic that came down turns up.
    pub turn: usize,
}

fn tier(role: Role) -> u8 {
    match role {
        Role::Leaf => 0,
        Role::Spine => 1,
        Role::SuperSpine => 2,
    }
}

impl Fabric {
    /// The graph of `model`'s BGP sessions: a link for each pair of neighbor entries that name each
    /// other's addresses. Sessions whose peer is no switch of the model are left out.
    pub fn new(model: &FabricModel) -> Fabric {
        let index: HashMap<&str, Node> = model
            .devices
            .iter()
            .enumerate()
            .map(|(i, d)| (d.hostname.as_str(), i as Node))
            .collect();
        let n = model.devices.len();
        let mut links: Vec<FabricLink> = Vec::new();
        // By the link's lower address: the two neighbor entries of one link.
        let mut by_subnet: HashMap<u32, LinkId> = HashMap::new();
        let mut adj: Vec<Vec<(Node, LinkId)>> = vec![Vec::new(); n];
        for (i, d) in model.devices.iter().enumerate() {
            for nb in &d.bgp.neighbors {
                let Some(&j) = index.get(&*nb.peer) else {
                    continue;
                };
                let key = u32::from(nb.ip).min(u32::from(nb.local_ip));
                if let Some(&l) = by_subnet.get(&key) {
                    let link = &links[l as usize];
                    let mine = link.a == j && link.b == i as Node;
                    if mine && link.a_ip == nb.ip && link.b_ip == nb.local_ip {
                        adj[i].push((j, l));
                        adj[j as usize].push((i as Node, l));
                    }
                    continue;
                }
                let l = links.len() as LinkId;
                by_subnet.insert(key, l);
                links.push(FabricLink {
                    a: i as Node,
                    b: j,
                    a_ip: nb.local_ip,
                    b_ip: nb.ip,
                    a_port: nb.interface.clone(),
                    b_port: nb.peer_port.clone(),
                });
            }
        }
        for a in &mut adj {
            a.sort_unstable_by_key(|&(_, l)| l);
        }
        Fabric {
            names: model
                .devices
                .iter()
                .map(|d| d.hostname.as_str().into())
                .collect(),
            asn: model.devices.iter().map(|d| d.bgp.asn).collect(),
            tier: model.devices.iter().map(|d| tier(d.role)).collect(),
            max_paths: model.devices.iter().map(|d| d.bgp.maximum_paths).collect(),
            router_id: model.devices.iter().map(|d| d.bgp.router_id).collect(),
            links,
            adj,
        }
    }

    /// A fabric drawn by hand (tests): per switch (name, tier, ASN, router-id's last octet), and the
    /// links between them by index, addressed from 10.1.0.0/31 on in order.
    #[cfg(test)]
    pub(super) fn hand(switches: &[(&str, u8, u32, u8)], links: &[(Node, Node)]) -> Fabric {
        let n = switches.len();
        let mut adj: Vec<Vec<(Node, LinkId)>> = vec![Vec::new(); n];
        let mut out = Vec::new();
        for (i, &(a, b)) in links.iter().enumerate() {
            let base = u32::from(Ipv4Addr::new(10, 1, 0, 0)) + 2 * i as u32;
            adj[a as usize].push((b, i as LinkId));
            adj[b as usize].push((a, i as LinkId));
            out.push(FabricLink {
                a,
                b,
                a_ip: Ipv4Addr::from(base),
                b_ip: Ipv4Addr::from(base + 1),
                a_port: format!("e{i}").as_str().into(),
                b_port: format!("e{i}").as_str().into(),
            });
        }
        Fabric {
            names: switches.iter().map(|s| s.0.into()).collect(),
            asn: switches.iter().map(|s| s.2).collect(),
            tier: switches.iter().map(|s| s.1).collect(),
            max_paths: vec![64; n],
            router_id: switches
                .iter()
                .map(|s| Ipv4Addr::new(10, 0, 0, s.3))
                .collect(),
            links: out,
            adj,
        }
    }

    /// The destinations whose traffic is lossless: the leaves, where the servers are (a spine's own
    /// loopback carries no RoCE traffic).
    pub fn leaves(&self) -> impl Iterator<Item = Node> + '_ {
        (0..self.len() as Node).filter(|&n| self.is_leaf(n))
    }

    /// The same fabric without the links `gone` names (a thinned cabling, for what-if analyses and
    /// tests); link ids are renumbered.
    pub fn without_links(&self, gone: impl Fn(&FabricLink) -> bool) -> Fabric {
        let links: Vec<FabricLink> = self.links.iter().filter(|k| !gone(k)).cloned().collect();
        let mut adj: Vec<Vec<(Node, LinkId)>> = vec![Vec::new(); self.len()];
        for (i, k) in links.iter().enumerate() {
            adj[k.a as usize].push((k.b, i as LinkId));
            adj[k.b as usize].push((k.a, i as LinkId));
        }
        Fabric {
            links,
            adj,
            ..self.clone()
        }
    }

    /// Whether switch `n` is a leaf (the lowest tier).
    pub fn is_leaf(&self, n: Node) -> bool {
        self.tier[n as usize] == 0
    }

    /// Number of switches.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True for a fabric without switches.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The links of switch `n`: (the other end, the link).
    pub fn links_of(&self, n: Node) -> &[(Node, LinkId)] {
        &self.adj[n as usize]
    }

    /// Whether the link goes up from `from` (towards a higher tier).
    pub fn is_up(&self, from: Node, link: LinkId) -> bool {
        let to = self.links[link as usize].other(from);
        self.tier[to as usize] > self.tier[from as usize]
    }

    /// `a—b` with both ports, for messages: `z1-spine1:Ethernet0—z1-g1-r1:Ethernet61/1`.
    pub fn link_name(&self, l: LinkId) -> String {
        let k = &self.links[l as usize];
        format!(
            "{}:{}—{}:{}",
            self.names[k.a as usize], k.a_port, self.names[k.b as usize], k.b_port
        )
    }

    /// What BGP settles for the prefixes of `origin` with link `failed` down
    /// ([`super::pathvector`]: every switch selects its best path and advertises it).
    pub fn select(&self, origin: Node, failed: Option<LinkId>) -> Routes {
        self.compute(origin, failed, &|l| Some(l) == failed, None)
            .routes
    }

    /// [`Fabric::select`] with every link whose `down` entry is true down at once (`aifab verify`: the
    /// paths BGP settles for with the cables it found broken); the routes' `failed` is `None`.
    pub fn select_down(&self, origin: Node, down: &[bool]) -> Routes {
        self.compute(
            origin,
            None,
            &|l| down.get(l as usize).copied().unwrap_or(false),
            None,
        )
        .routes
    }

    /// A path the switches' routes of `r` select that goes down and then up again: a switch forwards to
    /// a switch below it that forwards up. Every switch counts, not only those that traffic from the
    /// leaves reaches once BGP has settled: packets in flight while it settles, or from a switch
    /// not yet told, take the path all the same, and a PFC deadlock that forms then outlives it. The path
    /// starts at a leaf whose traffic takes it when there is one, else at the switch above the turn.
    pub fn valley(&self, r: &Routes) -> Option<Valley> {
        let n = self.len();
        // Which switches traffic from the other leaves reaches, and from where (to name a path).
        let mut from: Vec<Option<Node>> = vec![None; n];
        let mut fed = vec![false; n];
        let mut queue: Vec<Node> = (0..n as Node)
            .filter(|&v| {
                self.tier[v as usize] == 0 && v != r.origin && !r.via[v as usize].is_empty()
            })
            .collect();
        for &v in &queue {
            fed[v as usize] = true;
        }
        let mut i = 0;
        while i < queue.len() {
            let u = queue[i];
            i += 1;
            for &l in &r.via[u as usize] {
                let v = self.links[l as usize].other(u);
                if !fed[v as usize] {
                    fed[v as usize] = true;
                    from[v as usize] = Some(u);
                    queue.push(v);
                }
            }
        }
        let mut found: Option<(Node, Node, LinkId)> = None;
        for turn in 0..n as Node {
            let Some(&up) = r.via[turn as usize].iter().find(|&&l| self.is_up(turn, l)) else {
                continue;
            };
            for &(x, l) in &self.adj[turn as usize] {
                if self.tier[x as usize] > self.tier[turn as usize]
                    && r.via[x as usize].contains(&l)
                {
                    if fed[x as usize] {
                        found = Some((x, turn, up));
                        break;
                    }
                    found = found.or(Some((x, turn, up)));
                }
            }
            if found.is_some_and(|(x, _, _)| fed[x as usize]) {
                break;
            }
        }
        let (x, turn, up) = found?;
        // From a leaf to x (when traffic reaches x), then x -> turn -> up, then on to the origin.
        let mut path = vec![x];
        let mut at = x;
        while let Some(p) = from[at as usize] {
            path.push(p);
            at = p;
        }
        path.reverse();
        path.push(turn);
        let turn_at = path.len() - 1;
        let mut at = self.links[up as usize].other(turn);
        path.push(at);
        while at != r.origin && path.len() <= n {
            let Some(&l) = r.via[at as usize].first() else {
                break;
            };
            at = self.links[l as usize].other(at);
            path.push(at);
        }
        Some(Valley {
            path,
            turn: turn_at,
        })
    }

    /// The first switch whose neighbors above it do not share one ASN: (the switch, two neighbors above
    /// it with different ASNs). Where there is none and every link joins adjacent tiers, no path BGP
    /// selects can go down and up again, whatever links fail (docs/twin.md#why-the-proof-holds).
    pub fn mixed_upper_asns(&self) -> Option<(Node, Node, Node)> {
        for n in 0..self.len() as Node {
            let mut first: Option<Node> = None;
            for &(x, _) in &self.adj[n as usize] {
                if self.tier[x as usize] <= self.tier[n as usize] {
                    continue;
                }
                match first {
                    None => first = Some(x),
                    Some(f) if self.asn[f as usize] != self.asn[x as usize] => {
                        return Some((n, f, x));
                    }
                    Some(_) => {}
                }
            }
        }
        None
    }

    /// True when every link joins two adjacent tiers (leaf-spine, spine-super-spine).
    pub fn layered(&self) -> bool {
        self.links
            .iter()
            .all(|k| self.tier[k.a as usize].abs_diff(self.tier[k.b as usize]) == 1)
    }

    /// `a → b → c` with the hostnames.
    pub fn path_text(&self, path: &[Node]) -> String {
        path.iter()
            .map(|&n| &*self.names[n as usize])
            .collect::<Vec<_>>()
            .join(" → ")
    }
}

/// One ASN's part of a path's signature (a sum over the path's distinct ASNs: splitmix64's finalizer).
pub(super) fn asn_sig(asn: u32) -> u64 {
    let mut z = u64::from(asn).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
