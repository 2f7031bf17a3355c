//! The `hosts` section resolved into the model's [`HostsPlan`], and the rules that catch host-side
//! mistakes (`AIF-HOST-*`, docs/checks.md).

use super::names;
use crate::diag::Finding;
use crate::intent::hosts::Hosts;
use crate::intent::{Intent, QosClass, ServerMode};
use crate::model::hosts::{HostsPlan, KubernetesPlan};
use crate::model::{FabricModel, LinkTier};
use crate::rules::Rule;

/// The host plan of an intent: `None` without a `hosts` section or with `enabled: false`.
pub fn plan(intent: &Intent) -> Option<HostsPlan> {
    let h = intent.hosts.as_ref().filter(|h| h.enabled)?;
    let qp_hash = intent.load_balancing.hash.roce_dest_qp
        || intent
            .overrides
            .iter()
            .any(|o| o.roce_dest_qp == Some(true));
    Some(HostsPlan {
        nic: h.nic,
        data_class: h.data_class.clone(),
        cts_class: h.cts_class.clone(),
        cnp_class: h.cnp_class.clone(),
        gid_index: h.nccl.gid_index,
        qps_per_connection: qp_hash.then_some(h.nccl.qps_per_connection),
        // A pattern that names no device per port is AIF-HOST-007's, which stops the render first.
        hca: h
            .nccl
            .hca
            .as_deref()
            .and_then(|p| hca_names(intent, p).ok())
            .unwrap_or_default(),
        route_table: h.route_table,
        nic_ports: intent.fabric.topology.nic_ports.max(1),
        leaf_planes: if intent.fabric.topology.homing == Some(crate::intent::Homing::TwoPlanes) {
            2
        } else {
            1
        },
        server_pool: intent.fabric.addressing.server_links.to_string(),
        mtu: intent.fabric.mtu,
        nic_speed_gbps: intent.fabric.topology.nic_speed.gbps(),
        kubernetes: h.kubernetes.as_ref().map(|k| KubernetesPlan {
            cni: k.cni,
            namespace: k.namespace.clone(),
            resource: k.resource.clone(),
            inject: k.inject.clone(),
        }),
    })
}

/// The intent rules of the `hosts` section: the classes it names exist and suit their role, a CTS or
/// DCQCN fabric names its host classes, the rails' routing tables are free.
pub fn rules(intent: &Intent, out: &mut Vec<Finding>) {
    let Some(h) = intent.hosts.as_ref().filter(|h| h.enabled) else {
        return;
    };
    data_class(intent, h, out);
    cts_class(intent, h, out);
    cnp_class(intent, h, out);
    route_tables(intent, h, out);
    port_resources(intent, h, out);
    hca(intent, h, out);
}

/// The RDMA device of every NIC port of a server, from the `hosts.nccl.hca` pattern.
fn hca_names(intent: &Intent, pattern: &str) -> Result<Vec<String>, names::HostNameError> {
    let t = &intent.fabric.topology;
    names::hca_names(pattern, t.rails, t.nic_ports.max(1))
}

/// AIF-HOST-007: `hosts.nccl.hca` names one RDMA device per NIC port, each a device name that cannot
/// break `NCCL_IB_HCA`'s list or the NIC script's shell words.
fn hca(intent: &Intent, h: &Hosts, out: &mut Vec<Finding>) {
    let Some(Err(e)) = h.nccl.hca.as_deref().map(|p| hca_names(intent, p)) else {
        return;
    };
    out.push(
        Finding::new(Rule::HostHcaNames, e.to_string())
            .at("/hosts/nccl/hca")
            .hint("use the servers' RDMA device names (`rdma link show`), one per NIC port, e.g. `mlx5_{index}`"),
    );
}

/// AIF-HOST-006: every rail's NIC, and with two-port NICs every port, is its own netdev with its own
/// SpiderMultusConfig, so Kubernetes needs an RDMA resource per rail and per port: a
/// `kubernetes.resource` without `{rail}` (more than one rail) or without `{port}` (two-port NICs) gives
/// several configs one resource, and Spiderpool's injection asks for one device for all of them.
fn port_resources(intent: &Intent, h: &Hosts, out: &mut Vec<Finding>) {
    let Some(k) = h.kubernetes.as_ref() else {
        return;
    };
    let t = &intent.fabric.topology;
    let missing = |p: &str, n: u32, what: &str| {
        (n > 1 && !k.resource.contains(p)).then(|| format!("{n} {what}"))
    };
    let gaps: Vec<String> = [
        missing("{rail}", t.rails, "rails"),
        missing("{port}", t.nic_ports, "ports per NIC"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if gaps.is_empty() {
        // Every rail's and port's name: an unknown placeholder or a character a resource name cannot
        // hold is refused here, located, rather than when the render prints the configs.
        let bad = (1..=t.rails.max(1))
            .flat_map(|r| (1..=t.nic_ports.max(1)).map(move |p| (r, p)))
            .find_map(|(r, p)| names::resource(&k.resource, r, p).err());
        if let Some(e) = bad {
            out.push(
                Finding::new(Rule::HostPortResources, e.to_string())
                    .at("/hosts/kubernetes/resource")
                    .hint("use `{rail}` and `{port}` only, in a name like `spidernet.io/rail{rail}` (a lower-case DNS prefix, `/`, then letters, digits, `_ . -`)"),
            );
        }
        return;
    }
    out.push(
        Finding::new(
            Rule::HostPortResources,
            format!(
                "the servers have {}, each NIC port its own netdev and SpiderMultusConfig, but `hosts.kubernetes.resource: {}` names one resource for several of them: a pod would get one VF for all its networks, or a VF of another rail",
                gaps.join(" and "),
                k.resource
            ),
        )
        .at("/hosts/kubernetes/resource")
        .hint("name a resource per rail and port, e.g. `spidernet.io/rail{rail}` or `spidernet.io/rail{rail}p{port}`, and advertise each in the device plugin"),
    );
}

fn class<'i>(intent: &'i Intent, name: &str) -> Option<&'i QosClass> {
    intent.qos.classes.get(name)
}

/// The lossless classes with DSCPs, comma-separated; `None` when there is none.
fn lossless(intent: &Intent) -> Option<String> {
    let names: Vec<&str> = intent
        .qos
        .classes
        .iter()
        .filter(|(_, c)| c.lossless && c.dscp.is_some())
        .map(|(n, _)| n.as_str())
        .collect();
    (!names.is_empty()).then(|| names.join(", "))
}

fn known(intent: &Intent) -> String {
    intent
        .qos
        .classes
        .keys()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

/// AIF-HOST-001: NCCL's data class exists and is lossless.
fn data_class(intent: &Intent, h: &Hosts, out: &mut Vec<Finding>) {
    let problem = match class(intent, &h.data_class) {
        None => format!("`hosts.data_class: {}` names no class", h.data_class),
        Some(c) if !c.lossless || c.dscp.is_none() => format!(
            "`hosts.data_class: {}` is not a lossless class: NCCL's RDMA data would ride a queue PFC does not protect",
            h.data_class
        ),
        Some(_) => return,
    };
    out.push(
        Finding::new(Rule::HostDataClass, problem)
            .at("/hosts/data_class")
            .hint(match lossless(intent) {
                Some(names) => format!("name the lossless RoCE class ({names})"),
                None => format!(
                    "no class is lossless: mark the RoCE class `lossless: true` with its DSCPs (classes: {})",
                    known(intent)
                ),
            }),
    );
}

/// AIF-HOST-002: a fabric with a CTS class tells NCCL which traffic class its clear-to-send messages
/// use, and that class is strict.
fn cts_class(intent: &Intent, h: &Hosts, out: &mut Vec<Finding>) {
    let (problem, at) = match &h.cts_class {
        None => match intent
            .qos
            .classes
            .keys()
            .find(|n| n.eq_ignore_ascii_case("cts"))
        {
            Some(n) => (
                format!(
                    "the fabric has a CTS class `{n}` but `hosts.cts_class` is not set: NCCL would send its clear-to-send messages in the data class"
                ),
                "/hosts",
            ),
            None => return,
        },
        Some(n) => match class(intent, n) {
            None => (
                format!("`hosts.cts_class: {n}` names no class"),
                "/hosts/cts_class",
            ),
            Some(c) if !c.strict || c.dscp.is_none() => (
                format!(
                    "`hosts.cts_class: {n}` is not a strict class with a DSCP: CTS must overtake the data it admits"
                ),
                "/hosts/cts_class",
            ),
            Some(_) if h.cnp_class.as_deref() == Some(n.as_str()) => (
                format!(
                    "`hosts.cts_class` and `hosts.cnp_class` both name `{n}`: NCCL's clear-to-send messages would share the CNPs' queue"
                ),
                "/hosts/cts_class",
            ),
            Some(_) => return,
        },
    };
    out.push(
        Finding::new(Rule::HostCtsClass, problem).at(at).hint(
            "set `cts_class: cts` (a strict class): it becomes NCCL_IB_FIFO_TC, its DSCP x 4",
        ),
    );
}

/// AIF-HOST-003: a fabric whose lossless classes mark ECN tells the NICs which class CNPs use, and
/// that class is strict.
fn cnp_class(intent: &Intent, h: &Hosts, out: &mut Vec<Finding>) {
    let dcqcn = intent
        .qos
        .classes
        .values()
        .any(|c| c.lossless && c.ecn.is_some());
    let (problem, at) = match &h.cnp_class {
        None if dcqcn => (
            "lossless classes mark ECN but `hosts.cnp_class` is not set: the NICs would send CNPs with their own default DSCP and priority".to_string(),
            "/hosts",
        ),
        None => return,
        Some(n) => match class(intent, n) {
            None => (format!("`hosts.cnp_class: {n}` names no class"), "/hosts/cnp_class"),
            Some(c) if !c.strict || c.dscp.is_none() => (
                format!("`hosts.cnp_class: {n}` is not a strict class with a DSCP: CNPs must travel ahead of the data they slow down"),
                "/hosts/cnp_class",
            ),
            Some(_) => return,
        },
    };
    out.push(
        Finding::new(Rule::HostCnpClass, problem)
            .at(at)
            .hint("set `cnp_class: cnp` (the strict class the switches give DSCP 48): the NIC's cnp_dscp and cnp_802p_prio follow it"),
    );
}

/// AIF-HOST-005: the NIC ports' routing tables stay clear of the kernel's own (253 default, 254 main,
/// 255 local), of Spiderpool's host rule table (500) when the intent writes Spiderpool objects, and
/// below 2^31.
fn route_tables(intent: &Intent, h: &Hosts, out: &mut Vec<Finding>) {
    // Routed ports under Kubernetes leave their address, and with it their table, to the pod.
    if h.kubernetes.is_some() && intent.fabric.addressing.server_mode == ServerMode::Routed {
        return;
    }
    let t = &intent.fabric.topology;
    let first = u64::from(h.route_table);
    let last = first + u64::from(t.rails.max(1)) * u64::from(t.nic_ports.max(1)) - 1;
    let kernel = (253..=255).any(|t| (first..=last).contains(&t));
    // Spiderpool's coordinator puts its host routes in table 500 (SpiderCoordinator `hostRuleTable`).
    let spiderpool = h.kubernetes.is_some() && (first..=last).contains(&SPIDERPOOL_HOST_TABLE);
    if kernel || spiderpool || last >= 1 << 31 {
        let whose = if spiderpool {
            "Spiderpool's host rule table 500"
        } else {
            "the kernel's tables 253-255 or 2^31"
        };
        out.push(
            Finding::new(
                Rule::HostRouteTables,
                format!("the NIC ports use routing tables {first}-{last}, which reach {whose}"),
            )
            .at("/hosts/route_table")
            .hint("start the rails' tables elsewhere, e.g. `route_table: 100`"),
        );
    }
}

/// The table Spiderpool's coordinator keeps its host routes in, by default (`hostRuleTable`).
const SPIDERPOOL_HOST_TABLE: u64 = 500;

/// AIF-HOST-004 on the compiled model: every server name a lower-case RFC 1123 label, every NIC name a
/// Linux interface name (the first offender of each).
pub fn name_rules(model: &FabricModel) -> Vec<Finding> {
    if model.hosts.is_none() {
        return Vec::new();
    }
    let links = || {
        model
            .links
            .iter()
            .filter(|l| l.tier == LinkTier::ServerLeaf)
    };
    let mut out = Vec::new();
    if let Some(e) = links().find_map(|l| names::check_server(&l.a).err()) {
        out.push(
            Finding::new(Rule::HostNames, e.to_string())
                .at("/fabric/topology/server_hostname")
                .hint("host files need lower-case names like `gpu{index:04}`"),
        );
    }
    if let Some(e) = links().find_map(|l| names::check_nic(&l.a_port).err()) {
        out.push(
            Finding::new(Rule::HostNames, e.to_string())
                .at("/fabric/topology/server_nic")
                .hint(
                    "use the interface names the servers have, e.g. `eth{nic}` or `ens{rail}f0np0`",
                ),
        );
    }
    out
}

/// AIF-HOST-008 on the compiled model: with Kubernetes, every leaf subnet (`rail-subnet`) has, beside
/// its gateway and the servers' own addresses, at least one pod address per NIC port on the leaf, or
/// the pods of some servers get none from its SpiderIPPool (the first short leaf, and how many are).
pub fn pool_rules(model: &FabricModel) -> Vec<Finding> {
    if model.hosts.as_ref().is_none_or(|h| h.kubernetes.is_none()) {
        return Vec::new();
    }
    let mut ports: std::collections::HashMap<&str, u64> = std::collections::HashMap::new();
    for l in model
        .links
        .iter()
        .filter(|l| l.tier == LinkTier::ServerLeaf)
    {
        *ports.entry(&*l.b).or_default() += 1;
    }
    let short: Vec<(&str, u64, u64, u8)> = model
        .devices
        .iter()
        .filter_map(|d| {
            let s = d.server_subnet.as_ref()?;
            let n = *ports.get(d.hostname.as_str())?;
            // network, gateway and broadcast are never handed out; the servers' own are excluded
            let free = (1u64 << (32 - u32::from(s.prefix_len))).saturating_sub(3 + n);
            (free < n).then_some((d.hostname.as_str(), n, free, s.prefix_len))
        })
        .collect();
    let Some(&(leaf, n, free, plen)) = short.first() else {
        return Vec::new();
    };
    vec![
        Finding::new(
            Rule::HostPodAddresses,
            format!(
                "leaf {leaf}'s /{plen} holds its gateway and {n} server NIC ports, leaving {free} addresses for the pods of those {n} ports ({} leaves alike): pods on some servers would get no address",
                short.len()
            ),
        )
        .at("/hosts/kubernetes")
        .hint("set `fabric.addressing.pod_addresses_per_port: 1` (or one per pod a server runs): each leaf subnet grows to hold them"),
    ]
}
