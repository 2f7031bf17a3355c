//! What FRR holds after it has read a configuration: the default VRF's BGP instance (neighbors,
//! peer groups, activation, outbound route-maps, networks, maximum-paths), route-maps and prefix
//! lists, read the way FRR reads commands (a command that does not belong to the current node leaves
//! it, indentation means nothing), and the outcome of an outbound route-map for a prefix.

use std::collections::BTreeMap;
use std::net::Ipv4Addr;

/// One neighbor or peer group.
#[derive(Debug, Default, Clone)]
pub struct Peer {
    pub remote_as: Option<String>,
    /// Member of this peer group.
    pub group: Option<String>,
    /// Activated for IPv4 unicast (None: not said, the `bgp default ipv4-unicast` default applies).
    pub ipv4: Option<bool>,
    pub shutdown: bool,
    /// `route-map X out` for IPv4 unicast.
    pub out_map: Option<String>,
    /// Whether `bgp default ipv4-unicast` was on when the neighbor was created.
    pub default_on: bool,
}

/// One route-map entry.
#[derive(Debug, Clone, Default)]
pub struct Entry {
    pub permit: bool,
    pub matches: Vec<Vec<String>>,
    pub sets: Vec<Vec<String>>,
    pub call: Option<String>,
}

/// The parts of FRR's configuration the tests read.
#[derive(Debug, Default)]
pub struct Frr {
    pub asn: Option<String>,
    pub router_id: Option<String>,
    pub default_ipv4_unicast: bool,
    pub peers: BTreeMap<String, Peer>,
    /// IPv4 `network` statements, as written.
    pub networks: Vec<String>,
    pub maximum_paths: Option<u32>,
    /// route-map name → sequence → entry.
    pub route_maps: BTreeMap<String, BTreeMap<u32, Entry>>,
    /// prefix-list name → its permitted prefixes (exact matches only).
    pub prefix_lists: BTreeMap<String, Vec<String>>,
    /// Lines that name a neighbor or group FRR has not seen.
    pub errors: Vec<String>,
}

#[derive(Clone, PartialEq, Debug)]
enum Node {
    Top,
    OtherRouter,
    Router,
    Ipv4,
    OtherAf,
    RouteMap(String, u32),
}

impl Frr {
    /// Reads configuration text in order, as `vtysh -f` applies it.
    pub fn read(text: &str) -> Frr {
        let mut f = Frr {
            default_ipv4_unicast: true,
            ..Frr::default()
        };
        let mut node = Node::Top;
        for raw in text.lines() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('!') {
                continue;
            }
            let w: Vec<&str> = line.split_whitespace().collect();
            node = f.line(node, line, &w);
        }
        f
    }

    fn line(&mut self, node: Node, line: &str, w: &[&str]) -> Node {
        // Commands that open a node of their own, from anywhere.
        match w {
            ["router", "bgp", asn] => {
                self.asn = Some(asn.to_string());
                return Node::Router;
            }
            ["router", ..] => return Node::OtherRouter,
            ["route-map", name, action, seq] => {
                let seq: u32 = seq
                    .parse()
                    .unwrap_or_else(|_| panic!("route-map seq in {line}"));
                let e = self.route_maps.entry(name.to_string()).or_default();
                e.entry(seq).or_default().permit = *action == "permit";
                return Node::RouteMap(name.to_string(), seq);
            }
            ["no", "route-map", name, _action, seq] => {
                let seq: u32 = seq
                    .parse()
                    .unwrap_or_else(|_| panic!("route-map seq in {line}"));
                if let Some(m) = self.route_maps.get_mut(*name) {
                    m.remove(&seq);
                }
                return Node::Top;
            }
            ["ip", "prefix-list", name, rest @ ..] => {
                let rest: Vec<&str> = match rest {
                    ["seq", _, r @ ..] => r.to_vec(),
                    r => r.to_vec(),
                };
                if let ["permit", prefix] = rest.as_slice() {
                    let l = self.prefix_lists.entry(name.to_string()).or_default();
                    l.push(prefix.to_string());
                }
                return Node::Top;
            }
            ["exit"] => {
                return match node {
                    Node::Ipv4 | Node::OtherAf => Node::Router,
                    _ => Node::Top,
                };
            }
            _ => {}
        }
        match (&node, w) {
            (Node::Router, ["address-family", "ipv4"] | ["address-family", "ipv4", "unicast"]) => {
                Node::Ipv4
            }
            (Node::Router, ["address-family", ..]) => Node::OtherAf,
            (Node::Ipv4 | Node::OtherAf, ["exit-address-family"]) => Node::Router,
            (Node::OtherAf | Node::OtherRouter, _) => node,
            (Node::RouteMap(name, seq), _) => {
                let e = self
                    .route_maps
                    .get_mut(name)
                    .and_then(|m| m.get_mut(seq))
                    .expect("route-map entry");
                match w {
                    ["match", rest @ ..] => e.matches.push(owned(rest)),
                    ["set", rest @ ..] => e.sets.push(owned(rest)),
                    ["call", target] => e.call = Some(target.to_string()),
                    ["on-match", ..] | ["description", ..] => {}
                    _ => return self.line(Node::Top, line, w),
                }
                node
            }
            (Node::Router | Node::Ipv4, _) => self.bgp_line(node, line, w),
            (Node::Top, _) => Node::Top,
        }
    }

    /// A line inside `router bgp` or its IPv4 address family.
    fn bgp_line(&mut self, node: Node, line: &str, w: &[&str]) -> Node {
        let af = node == Node::Ipv4;
        match w {
            ["bgp", "router-id", id] => self.router_id = Some(id.to_string()),
            ["bgp", "default", "ipv4-unicast"] => self.default_ipv4_unicast = true,
            ["no", "bgp", "default", "ipv4-unicast"] => self.default_ipv4_unicast = false,
            ["network", prefix, ..] => self.networks.push(prefix.to_string()),
            ["maximum-paths", n] if af => self.maximum_paths = n.parse().ok(),
            ["neighbor", name, "peer-group"] => {
                let on = self.default_ipv4_unicast;
                self.peers.entry(name.to_string()).or_insert_with(|| Peer {
                    default_on: on,
                    ..Peer::default()
                });
            }
            ["neighbor", name, "remote-as", asn] => {
                let on = self.default_ipv4_unicast;
                let p = self.peers.entry(name.to_string()).or_insert_with(|| Peer {
                    default_on: on,
                    ..Peer::default()
                });
                p.remote_as = Some(asn.to_string());
            }
            ["neighbor", name, "peer-group", group] => {
                if !self.peers.contains_key(*group) {
                    self.errors.push(format!("`{line}`: no peer group {group}"));
                }
                let on = self.default_ipv4_unicast;
                let p = self.peers.entry(name.to_string()).or_insert_with(|| Peer {
                    default_on: on,
                    ..Peer::default()
                });
                p.group = Some(group.to_string());
            }
            ["neighbor", name, "shutdown"] => self.peer(name, line).shutdown = true,
            ["no", "neighbor", name, "shutdown"] => self.peer(name, line).shutdown = false,
            ["neighbor", name, "activate"] => self.peer(name, line).ipv4 = Some(true),
            ["no", "neighbor", name, "activate"] => self.peer(name, line).ipv4 = Some(false),
            ["neighbor", name, "route-map", map, "out"] if af => {
                self.peer(name, line).out_map = Some(map.to_string())
            }
            _ => {}
        }
        node
    }

    fn peer(&mut self, name: &str, line: &str) -> &mut Peer {
        if !self.peers.contains_key(name) {
            self.errors
                .push(format!("`{line}` names a neighbor not configured yet"));
        }
        self.peers.entry(name.to_string()).or_default()
    }

    /// Whether neighbor `ip` (or its peer group) is activated for IPv4 unicast.
    pub fn ipv4_active(&self, ip: &str) -> bool {
        let p = &self.peers[ip];
        let group = p.group.as_ref().and_then(|g| self.peers.get(g));
        p.ipv4
            .or_else(|| group.and_then(|g| g.ipv4))
            .unwrap_or(p.default_on)
    }

    /// The outbound IPv4 route-map of neighbor `ip`, its own or its group's.
    pub fn out_map(&self, ip: &str) -> Option<&str> {
        let p = &self.peers[ip];
        let group = p.group.as_ref().and_then(|g| self.peers.get(g));
        p.out_map
            .as_deref()
            .or_else(|| group.and_then(|g| g.out_map.as_deref()))
    }

    /// What route-map `map` does with a route to `prefix` carrying `tag`: None when it denies it,
    /// else the `set` clauses it applies (a map that does not exist denies, as FRR's outbound maps do).
    pub fn apply(&self, map: &str, prefix: &str, tag: Option<u32>) -> Option<Vec<Vec<String>>> {
        let entries = self.route_maps.get(map)?;
        for e in entries.values() {
            if !e.matches.iter().all(|m| self.matches(m, prefix, tag)) {
                continue;
            }
            if !e.permit {
                return None;
            }
            let mut sets = e.sets.clone();
            if let Some(target) = &e.call {
                sets.extend(self.apply(target, prefix, tag)?);
            }
            return Some(sets);
        }
        None
    }

    fn matches(&self, clause: &[String], prefix: &str, tag: Option<u32>) -> bool {
        let c: Vec<&str> = clause.iter().map(String::as_str).collect();
        match c.as_slice() {
            ["ip", "address", "prefix-list", list] => self
                .prefix_lists
                .get(*list)
                .is_some_and(|l| l.iter().any(|p| same_prefix(p, prefix))),
            ["tag", t] => tag.is_some_and(|tag| t.parse() == Ok(tag)),
            other => panic!("route-map match clause {other:?}: the test cannot evaluate it"),
        }
    }
}

fn owned(words: &[&str]) -> Vec<String> {
    words.iter().map(|s| s.to_string()).collect()
}

/// `a.b.c.d/n` with the host bits cleared (`network 10.12.0.1/26` is FRR's 10.12.0.0/26).
pub fn normalize(prefix: &str) -> String {
    let (addr, len) = prefix.split_once('/').unwrap_or((prefix, "32"));
    let len: u32 = len.parse().unwrap_or_else(|_| panic!("prefix {prefix}"));
    let addr: Ipv4Addr = addr.parse().unwrap_or_else(|_| panic!("prefix {prefix}"));
    let mask = if len == 0 { 0 } else { u32::MAX << (32 - len) };
    format!("{}/{len}", Ipv4Addr::from(u32::from(addr) & mask))
}

fn same_prefix(a: &str, b: &str) -> bool {
    normalize(a) == normalize(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_nodes_groups_and_route_maps_as_frr_does() {
        let text = "\
router bgp 65001
  no bgp default ipv4-unicast
  network 10.0.0.1/32
  network 10.2.0.1/26
  neighbor PG peer-group
  address-family ipv4
    neighbor PG route-map OUT_V4 out
    maximum-paths 64
  exit-address-family
ip prefix-list PL seq 5 permit 10.0.0.1/32
route-map OUT_V4 permit 100
  call CHECK
route-map CHECK permit 10
router bgp 65001
  neighbor 10.1.0.0 remote-as 65002
  neighbor 10.1.0.2 remote-as 65002
  address-family ipv4
    neighbor 10.1.0.0 peer-group PG
    neighbor 10.1.0.0 activate
  exit-address-family
route-map OUT_V4 permit 20
  match ip address prefix-list PL
  set community 1:1
route-map OUT_V4 deny 40
";
        let f = Frr::read(text);
        assert_eq!(f.asn.as_deref(), Some("65001"));
        assert!(f.errors.is_empty(), "{:?}", f.errors);
        assert!(f.ipv4_active("10.1.0.0"));
        assert!(
            !f.ipv4_active("10.1.0.2"),
            "created under no bgp default ipv4-unicast"
        );
        assert_eq!(f.out_map("10.1.0.0"), Some("OUT_V4"));
        assert_eq!(f.out_map("10.1.0.2"), None);
        assert_eq!(f.maximum_paths, Some(64));
        assert_eq!(normalize(&f.networks[1]), "10.2.0.0/26");
        let lo = f
            .apply("OUT_V4", "10.0.0.1/32", None)
            .expect("loopback permitted");
        assert_eq!(lo, vec![owned(&["community", "1:1"])]);
        assert!(
            f.apply("OUT_V4", "10.2.0.0/26", None).is_none(),
            "denied by 40"
        );
        assert!(f.apply("NO_SUCH_MAP", "10.2.0.0/26", None).is_none());
    }
}
