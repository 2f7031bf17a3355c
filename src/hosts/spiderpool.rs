//! Spiderpool objects for the rails, as one multi-document YAML (`hosts/kubernetes/spiderpool.yaml`):
//!
//! - a `SpiderIPPool` per rail leaf (`rail-subnet`: the leaf's subnet, the leaf as gateway, the pod
//!   range from the address after the gateway to the one before broadcast, the servers' own NIC
//!   addresses excluded) or per NIC (`routed`: the NIC's /31, the leaf's even address as gateway, the odd
//!   one as the only address: the pod that takes the NIC takes its address), pinned to its servers with
//!   `nodeName` and routing the server pool through the gateway;
//! - a `SpiderMultusConfig` per rail (`sriov` with RDMA isolation, or `macvlan` on the rail NIC) whose
//!   pools are the rail's (`rail01-*`), annotated for Spiderpool's RDMA resource injection.
//!
//! Pool names start with `rail<NN>-` (two digits), so one rail's wildcard never matches another's.

use super::servers::add;
use super::{Nic, Server};
use crate::kinds::SpiderCni;
use crate::model::FabricModel;
use crate::model::hosts::{HostsPlan, KubernetesPlan};
use crate::render::Meta;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::net::Ipv4Addr;

/// The API version of both kinds.
pub const API_VERSION: &str = "spiderpool.spidernet.io/v2beta1";

/// The annotation that groups a rail's network for RDMA resource injection.
pub const INJECT: &str = "cni.spidernet.io/rdma-resource-inject";

/// One pool: name, subnet, gateway, address ranges, excluded ranges, nodes.
struct Pool {
    name: String,
    subnet: String,
    gateway: String,
    ips: String,
    exclude: Option<String>,
    nodes: Vec<String>,
}

/// The prefix of every pool of `rail`.
pub fn rail_prefix(rail: u32) -> String {
    format!("rail{rail:02}-")
}

/// The whole file.
pub fn document(
    meta: &Meta,
    _model: &FabricModel,
    plan: &HostsPlan,
    k: &KubernetesPlan,
    servers: &[Server],
) -> Result<String, String> {
    let mut o = String::with_capacity(600 * servers.len() + 4096);
    let _ = writeln!(o, "{}", super::header(meta, "Spiderpool rails"));
    // Routed fabrics have a pool per NIC (100,000 at 12,500 servers): print them in parallel.
    let printed: Vec<String> = pools(servers)
        .par_iter()
        .map(|p| {
            let mut s = String::with_capacity(512);
            pool(&mut s, plan, p);
            s
        })
        .collect();
    o.extend(printed);
    let mut masters: BTreeMap<u32, &str> = BTreeMap::new();
    for n in servers.iter().flat_map(|s| &s.nics) {
        masters.entry(n.rail).or_insert(n.name);
    }
    for (rail, master) in masters {
        multus(&mut o, plan, k, rail, master)?;
    }
    Ok(o)
}

/// The pools: one per rail leaf when the leaves own a subnet, else one per NIC; in server order.
fn pools(servers: &[Server]) -> Vec<Pool> {
    let mut at: HashMap<&str, usize> = HashMap::new();
    let mut by_leaf: Vec<(&str, Vec<(&str, &Nic)>)> = Vec::new();
    let mut out = Vec::new();
    for s in servers {
        for n in &s.nics {
            if n.leaf.server_subnet.is_some() {
                let leaf = n.leaf.hostname.as_str();
                let i = *at.entry(leaf).or_insert_with(|| {
                    by_leaf.push((leaf, Vec::new()));
                    by_leaf.len() - 1
                });
                by_leaf[i].1.push((s.name, n));
            } else {
                out.push(Pool {
                    name: format!("{}{}", rail_prefix(n.rail), s.name),
                    subnet: n.subnet(),
                    gateway: n.gateway.to_string(),
                    ips: n.ip.to_string(),
                    exclude: None,
                    nodes: vec![s.name.to_string()],
                });
            }
        }
    }
    for (leaf, nics) in by_leaf {
        let n = nics[0].1;
        let size = 1u32 << (32 - u32::from(n.prefix_len));
        let broadcast = add(n.network, size - 1);
        let first = add(n.gateway, 1);
        let last_host = add(n.gateway, nics.len() as u32);
        out.push(Pool {
            name: format!("{}{}", rail_prefix(n.rail), leaf.to_ascii_lowercase()),
            subnet: n.subnet(),
            gateway: n.gateway.to_string(),
            ips: format!("{first}-{}", Ipv4Addr::from(u32::from(broadcast) - 1)),
            exclude: Some(format!("{first}-{last_host}")),
            nodes: nics.iter().map(|(s, _)| s.to_string()).collect(),
        });
    }
    out
}

fn pool(o: &mut String, plan: &HostsPlan, p: &Pool) {
    let _ = writeln!(o, "---");
    let _ = writeln!(o, "apiVersion: {API_VERSION}");
    let _ = writeln!(o, "kind: SpiderIPPool");
    let _ = writeln!(o, "metadata:");
    let _ = writeln!(o, "  name: \"{}\"", p.name);
    let _ = writeln!(o, "spec:");
    let _ = writeln!(o, "  ipVersion: 4");
    let _ = writeln!(o, "  subnet: \"{}\"", p.subnet);
    let _ = writeln!(o, "  gateway: \"{}\"", p.gateway);
    let _ = writeln!(o, "  ips: [\"{}\"]", p.ips);
    if let Some(x) = &p.exclude {
        let _ = writeln!(o, "  excludeIPs: [\"{x}\"]");
    }
    let _ = writeln!(o, "  nodeName:");
    for n in &p.nodes {
        let _ = writeln!(o, "    - \"{n}\"");
    }
    let _ = writeln!(o, "  routes:");
    let _ = writeln!(o, "    - dst: \"{}\"", plan.server_pool);
    let _ = writeln!(o, "      gw: \"{}\"", p.gateway);
}

/// The rail's RDMA resource name: the pattern with `{rail}`, checked.
pub fn resource(k: &KubernetesPlan, rail: u32) -> Result<String, String> {
    let r = k.resource.replace("{rail}", &rail.to_string());
    let ok = r.split_once('/').is_some_and(|(a, b)| {
        !a.is_empty()
            && !b.is_empty()
            && a.bytes()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || b".-".contains(&c))
            && b.bytes()
                .all(|c| c.is_ascii_alphanumeric() || b"_.-".contains(&c))
    });
    if ok {
        Ok(r)
    } else {
        Err(format!(
            "hosts.kubernetes.resource gives `{}` for rail {rail}: not a resource name like spidernet.io/rail1",
            r.escape_debug()
        ))
    }
}

fn multus(
    o: &mut String,
    plan: &HostsPlan,
    k: &KubernetesPlan,
    rail: u32,
    master: &str,
) -> Result<(), String> {
    let res = resource(k, rail)?;
    let cni = k.cni.as_str();
    let _ = writeln!(o, "---");
    let _ = writeln!(o, "apiVersion: {API_VERSION}");
    let _ = writeln!(o, "kind: SpiderMultusConfig");
    let _ = writeln!(o, "metadata:");
    let _ = writeln!(o, "  name: \"{}roce\"", rail_prefix(rail));
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
    let _ = writeln!(o, "      ipv4: [\"{}*\"]", rail_prefix(rail));
    Ok(())
}
