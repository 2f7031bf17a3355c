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
//!
//! Each object is a value of the types below ([`IpPool`], [`MultusConfig`]: the fields aifab writes of
//! Spiderpool's CRDs, unknown fields refused when read back), written by [`super::yaml`].

use super::HostFileError;
use super::addr::{Cidr, IpRange};
use super::yaml;
use crate::hosts::names;
use crate::hosts::routes::Destinations;
use crate::hosts::servers::add;
use crate::hosts::{Nic, Server};
use crate::kinds::SpiderCni;
use crate::model::hosts::{HostsPlan, KubernetesPlan};
use crate::output::Meta;
use crate::spell;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::net::Ipv4Addr;

/// The API version of both kinds.
pub const API_VERSION: &str = "spiderpool.spidernet.io/v2beta1";

/// The annotation that groups a rail's network for RDMA resource injection.
pub const INJECT: &str = "cni.spidernet.io/rdma-resource-inject";

/// `apiVersion` of both kinds: [`API_VERSION`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ApiVersion {
    /// `spiderpool.spidernet.io/v2beta1`.
    #[serde(rename = "spiderpool.spidernet.io/v2beta1")]
    V2beta1,
}

/// `kind: SpiderIPPool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PoolKind {
    /// The only value.
    #[serde(rename = "SpiderIPPool")]
    SpiderIpPool,
}

/// `kind: SpiderMultusConfig`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MultusKind {
    /// The only value.
    SpiderMultusConfig,
}

/// A SpiderIPPool (cluster-scoped), the fields aifab writes of Spiderpool's CRD
/// (`charts/spiderpool/crds/spiderpool.spidernet.io_spiderippools.yaml`).
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IpPool<'a> {
    /// [`API_VERSION`].
    pub api_version: ApiVersion,
    /// `SpiderIPPool`.
    pub kind: PoolKind,
    /// Its name.
    pub metadata: Name<'a>,
    /// What it hands out, where, and the routes its pods get.
    pub spec: PoolSpec<'a>,
}

/// `metadata:` of a cluster-scoped object: its name.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Name<'a> {
    /// `<prefix><leaf>` or `<prefix><server>` ([`prefix`]).
    pub name: Cow<'a, str>,
}

/// A SpiderIPPool's `spec`.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PoolSpec<'a> {
    /// 4.
    pub ip_version: u8,
    /// The leaf's server subnet, or the NIC port's /31.
    pub subnet: Cidr,
    /// The leaf's address on it.
    pub gateway: Ipv4Addr,
    /// The addresses the pool hands out.
    pub ips: Vec<IpRange>,
    /// The servers' own NIC port addresses (a leaf's pool).
    #[serde(rename = "excludeIPs", default, skip_serializing_if = "Vec::is_empty")]
    pub exclude_ips: Vec<IpRange>,
    /// The nodes (servers) whose pods it serves.
    pub node_name: Vec<Cow<'a, str>>,
    /// The server addresses routed through the gateway.
    pub routes: Vec<PoolRoute<'a>>,
}

/// One route of a pool's pods.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolRoute<'a> {
    /// The destination prefix.
    pub dst: Cow<'a, str>,
    /// The pool's gateway.
    pub gw: Ipv4Addr,
}

/// A SpiderMultusConfig, the fields aifab writes of Spiderpool's CRD
/// (`charts/spiderpool/crds/spiderpool.spidernet.io_spidermultusconfigs.yaml`).
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MultusConfig<'a> {
    /// [`API_VERSION`].
    pub api_version: ApiVersion,
    /// `SpiderMultusConfig`.
    pub kind: MultusKind,
    /// Name, namespace, annotation.
    pub metadata: MultusMeta<'a>,
    /// The CNI and its settings.
    pub spec: MultusSpec<'a>,
}

/// A SpiderMultusConfig's `metadata`.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MultusMeta<'a> {
    /// `rail<NN>-roce` or `rail<NN>p<port>-roce`.
    pub name: Cow<'a, str>,
    /// `kubernetes.namespace`.
    pub namespace: Cow<'a, str>,
    /// The RDMA resource injection annotation.
    pub annotations: Annotations<'a>,
}

/// `annotations:`.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Annotations<'a> {
    /// [`INJECT`]: `kubernetes.inject`.
    #[serde(rename = "cni.spidernet.io/rdma-resource-inject")]
    pub inject: Cow<'a, str>,
}

/// A SpiderMultusConfig's `spec`: the CNI and the settings under its name.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MultusSpec<'a> {
    /// `sriov` or `macvlan`.
    pub cni_type: SpiderCni,
    /// With `cniType: sriov`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sriov: Option<Sriov<'a>>,
    /// With `cniType: macvlan`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub macvlan: Option<Macvlan<'a>>,
}

/// `sriov:` settings: a VF of the rail's resource, its RDMA device isolated.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Sriov<'a> {
    /// The rail's VF resource.
    pub resource_name: Cow<'a, str>,
    /// `true`.
    pub rdma_isolation: bool,
    /// The fabric's IP MTU.
    pub mtu: u32,
    /// The pools.
    pub ippools: IpPools<'a>,
}

/// `macvlan:` settings: on the port's netdev, with the rail's shared RDMA resource.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Macvlan<'a> {
    /// The NIC port's netdev.
    pub master: Vec<Cow<'a, str>>,
    /// The rail's RDMA resource.
    pub rdma_resource_name: Cow<'a, str>,
    /// The fabric's IP MTU.
    pub mtu: u32,
    /// The pools.
    pub ippools: IpPools<'a>,
}

/// `ippools:`.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IpPools<'a> {
    /// The wildcard of the pools the rail's leaves give (`rail01-*`).
    pub ipv4: Vec<Cow<'a, str>>,
}

/// A leaf's pool with what the SpiderMultusConfigs need of it: its name prefix and the NIC port kinds
/// (rail, port, netdev name) it serves.
struct LeafPool<'a> {
    prefix: String,
    kinds: Vec<(u32, u32, &'a str)>,
    pool: IpPool<'a>,
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

/// Every object of the file, in its order: what [`document`] writes, built by the same functions (the
/// tests read the file back and compare).
#[derive(Debug, PartialEq)]
pub struct Objects<'a> {
    /// The routed pools server by server, then the leaves' pools.
    pub pools: Vec<IpPool<'a>>,
    /// One config per NIC port kind.
    pub configs: Vec<MultusConfig<'a>>,
}

/// The objects of the file at once (tests; [`document`] writes the same objects as it builds them).
pub fn objects<'a>(
    plan: &HostsPlan,
    k: &'a KubernetesPlan,
    dest: &'a Destinations,
    servers: &[Server<'a>],
) -> Result<Objects<'a>, HostFileError> {
    let leaves = leaf_pools(plan, dest, servers);
    let configs = multus_configs(plan, k, servers, &leaves)?;
    let pools = servers
        .iter()
        .flat_map(|s| routed_pools(plan, dest, s))
        .chain(leaves.into_iter().map(|l| l.pool))
        .collect();
    Ok(Objects { pools, configs })
}

/// The whole file: a header comment, then every object as its own document (`---`), written by
/// [`super::yaml`].
pub fn document(
    meta: &Meta,
    plan: &HostsPlan,
    k: &KubernetesPlan,
    dest: &Destinations,
    servers: &[Server],
) -> Result<String, HostFileError> {
    let mut header = String::new();
    yaml::comment(
        &mut header,
        super::header(meta, "Spiderpool rails").trim_start_matches("# "),
    )?;
    // Routed fabrics have a pool per NIC port (100,000 at 12,500 servers): each server's are built and
    // written in parallel, then the leaves' pools (one per leaf subnet) after them.
    let routed: Vec<String> = servers
        .par_iter()
        .map(|s| {
            let mut o = String::new();
            for p in routed_pools(plan, dest, s) {
                object(&mut o, &p)?;
            }
            Ok(o)
        })
        .collect::<Result<_, yaml::Error>>()?;
    let leaves = leaf_pools(plan, dest, servers);
    let written: Vec<String> = leaves
        .par_iter()
        .map(|p| {
            let mut o = String::with_capacity(512);
            object(&mut o, &p.pool).map(|()| o)
        })
        .collect::<Result<_, yaml::Error>>()?;
    let mut configs = String::new();
    for c in multus_configs(plan, k, servers, &leaves)? {
        object(&mut configs, &c)?;
    }
    // One allocation of the document's exact size (30 MB at 100,000 pools), filled in order.
    let parts = std::iter::once(&header)
        .chain(&routed)
        .chain(&written)
        .chain(std::iter::once(&configs));
    let mut o = String::with_capacity(parts.clone().map(String::len).sum());
    parts.for_each(|p| o.push_str(p));
    Ok(o)
}

/// The pools of server `s`'s NIC ports whose leaves give no subnet, in rail order.
fn routed_pools<'a, 's>(
    plan: &'s HostsPlan,
    dest: &'a Destinations,
    s: &'s Server<'a>,
) -> impl Iterator<Item = IpPool<'a>> + 's
where
    'a: 's,
{
    s.nics
        .iter()
        .filter(|n| n.leaf.server_subnet.is_none())
        .map(move |n| routed(plan, dest, s, n))
}

/// Appends `---` and one object.
fn object<T: Serialize>(o: &mut String, v: &T) -> Result<(), yaml::Error> {
    o.push_str("---\n");
    yaml::push(o, v)
}

/// One config per NIC port kind (rail, port): its netdev on the first server and the prefix of the
/// pools its leaves give (every server is homed alike, so one prefix per kind), routed pools first.
fn multus_configs<'a>(
    plan: &HostsPlan,
    k: &'a KubernetesPlan,
    servers: &[Server<'a>],
    leaves: &[LeafPool<'a>],
) -> Result<Vec<MultusConfig<'a>>, HostFileError> {
    let mut kinds: BTreeMap<(u32, u32), (&str, String)> = BTreeMap::new();
    for n in servers.iter().flat_map(|s| &s.nics) {
        if n.leaf.server_subnet.is_none() {
            kinds
                .entry((n.rail, n.port))
                .or_insert_with(|| (n.name, prefix_of(plan, std::iter::once(n))));
        }
    }
    for p in leaves {
        for &(rail, port, name) in &p.kinds {
            kinds
                .entry((rail, port))
                .or_insert_with(|| (name, p.prefix.clone()));
        }
    }
    kinds
        .into_iter()
        .map(|(kind, (master, pools))| multus(plan, k, kind, master, &pools))
        .collect()
}

/// The pool of one NIC port whose leaf gives no subnet (`routed`): the port's /31, the leaf as
/// gateway, the port's own address as the only one, pinned to its server.
fn routed<'a>(plan: &HostsPlan, dest: &'a Destinations, s: &Server<'a>, n: &Nic) -> IpPool<'a> {
    let mut name = String::with_capacity(12 + s.name.len());
    push_prefix(
        &mut name,
        Some(n.rail),
        (plan.nic_ports > 1).then_some(n.port),
    );
    name.push_str(s.name);
    pool(
        name,
        Cidr {
            ip: n.network,
            len: n.prefix_len,
        },
        n.gateway,
        IpRange {
            first: n.ip,
            last: n.ip,
        },
        None,
        vec![Cow::Borrowed(s.name)],
        dest.of_plane(n.leaf.plane),
    )
}

/// A SpiderIPPool from its parts, routing `routes` through its gateway.
fn pool<'a>(
    name: String,
    subnet: Cidr,
    gateway: Ipv4Addr,
    ips: IpRange,
    exclude: Option<IpRange>,
    node_name: Vec<Cow<'a, str>>,
    routes: &'a [String],
) -> IpPool<'a> {
    IpPool {
        api_version: ApiVersion::V2beta1,
        kind: PoolKind::SpiderIpPool,
        metadata: Name {
            name: Cow::Owned(name),
        },
        spec: PoolSpec {
            ip_version: 4,
            subnet,
            gateway,
            ips: vec![ips],
            exclude_ips: exclude.into_iter().collect(),
            node_name,
            routes: routes
                .iter()
                .map(|dst| PoolRoute {
                    dst: Cow::Borrowed(dst.as_str()),
                    gw: gateway,
                })
                .collect(),
        },
    }
}

/// The pools of the leaves that own a subnet, one per leaf, in the order servers first reach them.
fn leaf_pools<'a>(
    plan: &HostsPlan,
    dest: &'a Destinations,
    servers: &[Server<'a>],
) -> Vec<LeafPool<'a>> {
    let mut at: HashMap<&str, usize> = HashMap::new();
    let mut by_leaf: Vec<(&str, Vec<(&'a str, &Nic<'a>)>)> = Vec::new();
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
        .map(|(leaf, nics)| leaf_pool(plan, dest, leaf, &nics))
        .collect()
}

/// The pool of one leaf's subnet: the addresses after the servers' own, every server on it once.
fn leaf_pool<'a>(
    plan: &HostsPlan,
    dest: &'a Destinations,
    leaf: &str,
    nics: &[(&'a str, &Nic<'a>)],
) -> LeafPool<'a> {
    let n = nics[0].1;
    let size = 1u32 << (32 - u32::from(n.prefix_len));
    let broadcast = add(n.network, size - 1);
    let first = add(n.gateway, 1);
    let last_host = add(n.gateway, nics.len() as u32);
    let prefix = prefix_of(plan, nics.iter().map(|(_, n)| *n));
    let mut nodes: Vec<Cow<'a, str>> = Vec::new();
    for (s, _) in nics {
        if nodes.last().is_none_or(|l| l != s) {
            nodes.push(Cow::Borrowed(s));
        }
    }
    let mut kinds: Vec<(u32, u32, &'a str)> =
        nics.iter().map(|(_, n)| (n.rail, n.port, n.name)).collect();
    kinds.sort();
    kinds.dedup_by_key(|k| (k.0, k.1));
    let pool = pool(
        format!("{prefix}{}", leaf.to_ascii_lowercase()),
        Cidr {
            ip: n.network,
            len: n.prefix_len,
        },
        n.gateway,
        IpRange {
            first,
            last: Ipv4Addr::from(u32::from(broadcast) - 1),
        },
        Some(IpRange {
            first,
            last: last_host,
        }),
        nodes,
        dest.of_plane(n.leaf.plane),
    );
    LeafPool {
        prefix,
        kinds,
        pool,
    }
}

/// The SpiderMultusConfig of one NIC port kind `(rail, port)`: its netdev `master` (macvlan) and the
/// prefix of the pools its leaves give.
fn multus<'a>(
    plan: &HostsPlan,
    k: &'a KubernetesPlan,
    (rail, port): (u32, u32),
    master: &'a str,
    pools: &str,
) -> Result<MultusConfig<'a>, HostFileError> {
    let res = Cow::Owned(names::resource(&k.resource, rail, port)?);
    let ippools = IpPools {
        ipv4: vec![Cow::Owned(format!("{pools}*"))],
    };
    let (sriov, macvlan) = match k.cni {
        SpiderCni::Sriov => (
            Some(Sriov {
                resource_name: res,
                rdma_isolation: true,
                mtu: plan.mtu,
                ippools,
            }),
            None,
        ),
        SpiderCni::Macvlan => (
            None,
            Some(Macvlan {
                master: vec![Cow::Borrowed(master)],
                rdma_resource_name: res,
                mtu: plan.mtu,
                ippools,
            }),
        ),
    };
    let name = prefix(Some(rail), (plan.nic_ports > 1).then_some(port));
    Ok(MultusConfig {
        api_version: ApiVersion::V2beta1,
        kind: MultusKind::SpiderMultusConfig,
        metadata: MultusMeta {
            name: Cow::Owned(format!("{name}roce")),
            namespace: Cow::Borrowed(&k.namespace),
            annotations: Annotations {
                inject: Cow::Borrowed(&k.inject),
            },
        },
        spec: MultusSpec {
            cni_type: k.cni,
            sriov,
            macvlan,
        },
    })
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
