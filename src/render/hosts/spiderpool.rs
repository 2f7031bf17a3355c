//! Spiderpool objects for the NIC ports, as one multi-document YAML (`hosts/kubernetes/spiderpool.yaml`):
//!
//! - a `SpiderIPPool` per leaf (`rail-subnet`: the leaf's subnet, the leaf as gateway, the pod range
//!   from the address after the gateway to the one before broadcast, the servers' own NIC addresses
//!   excluded) or per NIC port (`routed`: the port's /31, the leaf's even address as gateway, the odd
//!   one as the only address: the pod that takes the port takes its address), pinned to its servers
//!   with `nodeName` and routing the server pool through the gateway (on two planes only the gateway's
//!   own plane's server addresses, [`crate::hosts::routes`]);
//! - a `SpiderMultusConfig` per NIC port kind (rail, and port on two-port NICs: `sriov` with RDMA
//!   isolation, or `macvlan` on the port's netdev) whose pools are those its leaves give
//!   (`rail01-*`), annotated for Spiderpool's RDMA resource injection.
//!
//! Pool names start with a [`prefix`]: `rail<NN>-` (two digits) for a rail leaf or a rail's NIC,
//! `rack-` for a rack leaf (its subnet holds every rail), with `p<port>` before the dash when a leaf or
//! pool serves one port of two-port NICs (`rail01p2-`, `rackp1-`): one wildcard never matches another's.

use super::line;
use crate::hosts::names;
use crate::hosts::routes::Destinations;
use crate::hosts::servers::add;
use crate::hosts::{Nic, Server};
use crate::kinds::SpiderCni;
use crate::model::FabricModel;
use crate::model::hosts::{HostsPlan, KubernetesPlan};
use crate::output::Meta;
use crate::spell;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::net::Ipv4Addr;

/// The API version of both kinds.
pub const API_VERSION: &str = "spiderpool.spidernet.io/v2beta1";

/// The annotation that groups a rail's network for RDMA resource injection.
pub const INJECT: &str = "cni.spidernet.io/rdma-resource-inject";

/// One pool: name (its prefix and leaf or server), subnet, gateway, address ranges, excluded
/// ranges, nodes, and the NIC port kinds (rail, port, netdev name) it serves.
struct Pool<'m> {
    prefix: String,
    name: String,
    subnet: String,
    gateway: String,
    ips: String,
    exclude: Option<String>,
    nodes: Vec<&'m str>,
    kinds: Vec<(u32, u32, &'m str)>,
    /// The plane of its leaf (two-plane fabrics).
    plane: Option<u32>,
}

/// One pool's text as printed, borrowed from wherever it was spelled: a leaf's [`Pool`], or a routed
/// NIC port's fields spelled into a scratch buffer ([`routed`]).
struct Text<'a> {
    /// The name, in two parts (prefix, then leaf or server).
    name: [&'a str; 2],
    subnet: &'a str,
    gateway: &'a str,
    ips: &'a str,
    exclude: Option<&'a str>,
    nodes: &'a [&'a str],
    /// The destinations routed through the gateway.
    routes: &'a [String],
}

/// The prefix of the pools of one rail (`None`: a rack leaf's, every rail) and one NIC port (`None`:
/// single-port NICs, or a leaf that takes both ports).
pub fn prefix(rail: Option<u32>, port: Option<u32>) -> String {
    let mut p = String::with_capacity(12);
    push_prefix(&mut p, rail, port);
    p
}

/// Appends [`prefix`]`(rail, port)` to `o`.
fn push_prefix(o: &mut String, rail: Option<u32>, port: Option<u32>) {
    match rail {
        Some(r) => {
            o.push_str(if r < 10 { "rail0" } else { "rail" });
            spell::push_decimal(o, r.into());
        }
        None => o.push_str("rack"),
    }
    if let Some(n) = port {
        o.push('p');
        spell::push_decimal(o, n.into());
    }
    o.push('-');
}

/// The pool prefix of a set of NIC ports on one leaf (or one NIC port): the rail when they share one,
/// the port when NICs have two ports and they share one.
fn prefix_of<'a>(plan: &HostsPlan, mut nics: impl Iterator<Item = &'a Nic<'a>> + Clone) -> String {
    let first = nics.clone().next();
    let rail = first
        .map(|f| f.rail)
        .filter(|r| nics.clone().all(|n| n.rail == *r));
    let port = first
        .map(|f| f.port)
        .filter(|p| plan.nic_ports > 1 && nics.all(|n| n.port == *p));
    prefix(rail, port)
}

/// The whole file.
pub fn document(
    meta: &Meta,
    _model: &FabricModel,
    plan: &HostsPlan,
    k: &KubernetesPlan,
    dest: &Destinations,
    servers: &[Server],
) -> Result<String, String> {
    let header = format!("{}\n", super::header(meta, "Spiderpool rails"));
    // Routed fabrics have a pool per NIC port (100,000 at 12,500 servers): each server's are built and
    // printed in parallel, then the leaves' pools (one per leaf subnet) after them.
    let routed: Vec<String> = servers
        .par_iter()
        .map_init(String::new, |scratch, s| {
            let mut o = String::new();
            for n in s.nics.iter().filter(|n| n.leaf.server_subnet.is_none()) {
                routed(&mut o, plan, dest, s, n, scratch);
            }
            o
        })
        .collect();
    let leaves = leaf_pools(plan, servers);
    let printed: Vec<String> = leaves
        .par_iter()
        .map(|p| {
            let mut s = String::with_capacity(512);
            print(&mut s, &p.text(dest));
            s
        })
        .collect();
    // One config per NIC port kind (rail, port): its netdev on the first server and the prefix of the
    // pools its leaves give (every server is homed alike, so one prefix per kind), routed pools first.
    let mut kinds: BTreeMap<(u32, u32), (&str, String)> = BTreeMap::new();
    for n in servers.iter().flat_map(|s| &s.nics) {
        if n.leaf.server_subnet.is_none() {
            kinds
                .entry((n.rail, n.port))
                .or_insert_with(|| (n.name, prefix_of(plan, std::iter::once(n))));
        }
    }
    for p in &leaves {
        for &(rail, port, name) in &p.kinds {
            kinds
                .entry((rail, port))
                .or_insert_with(|| (name, p.prefix.clone()));
        }
    }
    let mut configs = String::new();
    for ((rail, port), (master, pools)) in kinds {
        multus(&mut configs, plan, k, (rail, port), master, &pools)?;
    }
    // One allocation of the document's exact size (30 MB at 100,000 pools), filled in order.
    let parts = std::iter::once(&header)
        .chain(&routed)
        .chain(&printed)
        .chain(std::iter::once(&configs));
    let mut o = String::with_capacity(parts.clone().map(String::len).sum());
    parts.for_each(|p| o.push_str(p));
    Ok(o)
}

/// Prints the pool of one NIC port whose leaf gives no subnet (`routed`): the port's /31, the leaf
/// as gateway, the port's own address as the only one, pinned to its server. Its fields are spelled
/// into `scratch` (100,000 pools at 12,500 servers: no allocation each).
fn routed(
    o: &mut String,
    plan: &HostsPlan,
    dest: &Destinations,
    s: &Server,
    n: &Nic,
    scratch: &mut String,
) {
    scratch.clear();
    push_prefix(
        scratch,
        Some(n.rail),
        (plan.nic_ports > 1).then_some(n.port),
    );
    let a = scratch.len();
    n.push_subnet(scratch);
    let b = scratch.len();
    spell::push_ipv4(scratch, n.gateway);
    let c = scratch.len();
    spell::push_ipv4(scratch, n.ip);
    let text = Text {
        name: [&scratch[..a], s.name],
        subnet: &scratch[a..b],
        gateway: &scratch[b..c],
        ips: &scratch[c..],
        exclude: None,
        nodes: &[s.name],
        routes: dest.of_plane(n.leaf.plane),
    };
    print(o, &text);
}

/// The pools of the leaves that own a subnet, one per leaf, in the order servers first reach them.
fn leaf_pools<'m>(plan: &HostsPlan, servers: &[Server<'m>]) -> Vec<Pool<'m>> {
    let mut at: HashMap<&str, usize> = HashMap::new();
    let mut by_leaf: Vec<(&str, Vec<(&str, &Nic)>)> = Vec::new();
    for s in servers {
        for n in s.nics.iter().filter(|n| n.leaf.server_subnet.is_some()) {
            let leaf = n.leaf.hostname.as_str();
            let i = *at.entry(leaf).or_insert_with(|| {
                by_leaf.push((leaf, Vec::new()));
                by_leaf.len() - 1
            });
            by_leaf[i].1.push((s.name, n));
        }
    }
    by_leaf
        .into_iter()
        .map(|(leaf, nics)| leaf_pool(plan, leaf, &nics))
        .collect()
}

/// The pool of one leaf's subnet: the addresses after the servers' own, every server on it once.
fn leaf_pool<'m>(plan: &HostsPlan, leaf: &str, nics: &[(&'m str, &Nic<'m>)]) -> Pool<'m> {
    let n = nics[0].1;
    let size = 1u32 << (32 - u32::from(n.prefix_len));
    let broadcast = add(n.network, size - 1);
    let first = add(n.gateway, 1);
    let last_host = add(n.gateway, nics.len() as u32);
    let prefix = prefix_of(plan, nics.iter().map(|(_, n)| *n));
    let mut nodes: Vec<&str> = Vec::new();
    for (s, _) in nics {
        if nodes.last().is_none_or(|l| l != s) {
            nodes.push(s);
        }
    }
    let mut kinds: Vec<(u32, u32, &'m str)> =
        nics.iter().map(|(_, n)| (n.rail, n.port, n.name)).collect();
    kinds.sort();
    kinds.dedup_by_key(|k| (k.0, k.1));
    Pool {
        name: format!("{prefix}{}", leaf.to_ascii_lowercase()),
        prefix,
        subnet: n.subnet(),
        gateway: n.gateway.to_string(),
        ips: format!("{first}-{}", Ipv4Addr::from(u32::from(broadcast) - 1)),
        exclude: Some(format!("{first}-{last_host}")),
        nodes,
        kinds,
        plane: n.leaf.plane,
    }
}

impl Pool<'_> {
    fn text<'a>(&'a self, dest: &'a Destinations) -> Text<'a> {
        Text {
            name: [&self.name, ""],
            subnet: &self.subnet,
            gateway: &self.gateway,
            ips: &self.ips,
            exclude: self.exclude.as_deref(),
            nodes: &self.nodes,
            routes: dest.of_plane(self.plane),
        }
    }
}

/// Prints one SpiderIPPool document.
fn print(o: &mut String, p: &Text) {
    o.push_str("---\napiVersion: ");
    o.push_str(API_VERSION);
    o.push_str("\nkind: SpiderIPPool\nmetadata:\n");
    line(o, &["  name: \"", p.name[0], p.name[1], "\""]);
    o.push_str("spec:\n  ipVersion: 4\n");
    line(o, &["  subnet: \"", p.subnet, "\""]);
    line(o, &["  gateway: \"", p.gateway, "\""]);
    line(o, &["  ips: [\"", p.ips, "\"]"]);
    if let Some(x) = p.exclude {
        line(o, &["  excludeIPs: [\"", x, "\"]"]);
    }
    o.push_str("  nodeName:\n");
    for n in p.nodes {
        line(o, &["    - \"", n, "\""]);
    }
    o.push_str("  routes:\n");
    for dst in p.routes {
        line(o, &["    - dst: \"", dst, "\""]);
        line(o, &["      gw: \"", p.gateway, "\""]);
    }
}

/// The SpiderMultusConfig of one NIC port kind `(rail, port)`: its netdev `master` (macvlan) and the
/// prefix of the pools its leaves give.
fn multus(
    o: &mut String,
    plan: &HostsPlan,
    k: &KubernetesPlan,
    (rail, port): (u32, u32),
    master: &str,
    pools: &str,
) -> Result<(), String> {
    let res = names::resource(&k.resource, rail, port).map_err(|e| e.to_string())?;
    let name = prefix(Some(rail), (plan.nic_ports > 1).then_some(port));
    let cni = k.cni.as_str();
    let _ = writeln!(o, "---");
    let _ = writeln!(o, "apiVersion: {API_VERSION}");
    let _ = writeln!(o, "kind: SpiderMultusConfig");
    let _ = writeln!(o, "metadata:");
    let _ = writeln!(o, "  name: \"{name}roce\"");
    let _ = writeln!(o, "  namespace: \"{}\"", k.namespace);
    let _ = writeln!(o, "  annotations:");
    let _ = writeln!(o, "    {INJECT}: \"{}\"", k.inject);
    let _ = writeln!(o, "spec:");
    let _ = writeln!(o, "  cniType: {cni}");
    let _ = writeln!(o, "  {cni}:");
    match k.cni {
        SpiderCni::Sriov => {
            let _ = writeln!(o, "    resourceName: \"{res}\"");
            let _ = writeln!(o, "    rdmaIsolation: true");
        }
        SpiderCni::Macvlan => {
            let _ = writeln!(o, "    master: [\"{master}\"]");
            let _ = writeln!(o, "    rdmaResourceName: \"{res}\"");
        }
    }
    let _ = writeln!(o, "    mtu: {}", plan.mtu);
    let _ = writeln!(o, "    ippools:");
    let _ = writeln!(o, "      ipv4: [\"{pools}*\"]");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::prefix;

    #[test]
    fn prefixes_never_match_each_other() {
        let all = [
            prefix(Some(1), None),
            prefix(Some(10), None),
            prefix(Some(1), Some(1)),
            prefix(Some(1), Some(2)),
            prefix(None, None),
            prefix(None, Some(1)),
            prefix(None, Some(2)),
        ];
        assert_eq!(all[0], "rail01-");
        assert_eq!(all[1], "rail10-");
        assert_eq!(prefix(Some(100), Some(12)), "rail100p12-");
        assert_eq!(all[3], "rail01p2-");
        assert_eq!(all[5], "rackp1-");
        for (i, a) in all.iter().enumerate() {
            for (j, b) in all.iter().enumerate() {
                assert_eq!(i == j, b.starts_with(a.as_str()), "{a} {b}");
            }
        }
    }
}
