//! The host files: the servers' half of the fabric, printed from the host plan the compiler stored in
//! the model ([`crate::hosts`]) with the server links and the rail leaves' QoS plans. Under `hosts/`:
//! - `netplan/<server>.yaml`, one file per server: each NIC port's address, a routing table per port and
//!   a source rule, so a port's traffic leaves through its own leaf, on rail or rack leaves and for
//!   two-port NICs alike ([`netplan`]), to the server addresses that leaf reaches
//!   ([`crate::hosts::routes`]: on two planes, its own plane's only);
//! - `nic-qos.sh`, for every server: the ConnectX QoS (`mlnx_qos` trust, DSCP map, PFC, ETS) and DCQCN
//!   settings of every NIC port ([`nic_qos`]);
//! - `nccl.env`, for every server: NCCL's traffic classes, GID index, QPs per connection and, when the
//!   intent names them, the NIC ports' RDMA devices ([`nccl`]);
//! - `kubernetes/spiderpool.yaml`: a SpiderIPPool per leaf or NIC port and a SpiderMultusConfig per
//!   rail (and port) ([`spiderpool`]);
//! - `sysctl-arp.conf`, when a server has several NIC ports in one subnet: the ARP settings that keep
//!   each port answering for its own address ([`sysctl`]).
//!
//! The values are computed here, in Rust; the writers only print them. Every name that reaches a file
//! was checked by the plan ([`crate::hosts::names`]): server names are RFC 1123 labels (Kubernetes node
//! names, folder names), NIC names Linux interface names, so nothing can break out of a YAML scalar or a
//! shell word. docs/hosts.md says what each line does and where each fact comes from.

pub mod nccl;
pub mod netplan;
pub mod nic_qos;
pub mod spiderpool;
pub mod sysctl;

use crate::hosts::{DIR, Server, routes, servers};
use crate::model::FabricModel;
use crate::model::hosts::HostsPlan;
use crate::output::{Meta, OutFile};
use rayon::prelude::*;

/// Every host file of the fabric, in a stable order (servers in link order, the shared files, then
/// Kubernetes), or nothing when the model has no host plan.
pub fn files(meta: &Meta, model: &FabricModel) -> Result<Vec<OutFile>, String> {
    let Some(plan) = model.hosts.as_deref() else {
        return Ok(Vec::new());
    };
    let servers = servers(model).map_err(|e| e.to_string())?;
    let dest = routes::Destinations::of(plan, &servers);
    let per_server: Result<Vec<OutFile>, String> = servers
        .par_iter()
        .map(|s| Ok(netplan_file(meta, plan, &dest, s)))
        .collect();
    let mut out = per_server?;
    out.extend(shared(meta, model, plan, &dest, &servers)?);
    Ok(out)
}

/// Hands every host file to `sink` as soon as it exists, servers in parallel. Returns the number of
/// files and bytes.
pub fn each(
    meta: &Meta,
    model: &FabricModel,
    sink: &(dyn Fn(&OutFile) -> Result<(), String> + Sync),
) -> Result<(usize, u64), String> {
    let Some(plan) = model.hosts.as_deref() else {
        return Ok((0, 0));
    };
    let servers = servers(model).map_err(|e| e.to_string())?;
    let dest = routes::Destinations::of(plan, &servers);
    // The shared files (one of them, the Spiderpool document, covers every server) are built beside
    // the per-server ones.
    let (per_server, shared) = rayon::join(
        || -> Result<Vec<u64>, String> {
            servers
                .par_iter()
                .map(|s| {
                    let f = netplan_file(meta, plan, &dest, s);
                    sink(&f)?;
                    Ok(f.content.len() as u64)
                })
                .collect()
        },
        || shared(meta, model, plan, &dest, &servers),
    );
    let mut total = (servers.len(), per_server?.iter().sum());
    for f in shared? {
        sink(&f)?;
        total.0 += 1;
        total.1 += f.content.len() as u64;
    }
    Ok(total)
}

/// `hosts/netplan/<server>.yaml`: the one file that differs per server.
fn netplan_file(meta: &Meta, plan: &HostsPlan, dest: &routes::Destinations, s: &Server) -> OutFile {
    file(
        format!("{DIR}/netplan/{}.yaml", s.name),
        netplan::file(meta, plan, dest, s),
    )
}

/// The files every server shares: the NIC script and the NCCL environment (the same on every server:
/// NIC names follow one pattern per rail and every leaf's QoS plan maps DSCPs alike; checked here), the
/// ARP settings when ports share a subnet, and the Spiderpool objects when asked for.
fn shared(
    meta: &Meta,
    model: &FabricModel,
    plan: &HostsPlan,
    dest: &routes::Destinations,
    servers: &[Server],
) -> Result<Vec<OutFile>, String> {
    let Some(first) = servers.first() else {
        return Ok(Vec::new());
    };
    let qos = nic_qos::NicQos::of(model, plan, first)?;
    let same_names = |s: &Server| {
        s.nics
            .iter()
            .map(|n| n.name)
            .eq(first.nics.iter().map(|n| n.name))
    };
    // A server whose rail leaves all share the first leaf's QoS plan (one plan per platform: nearly
    // always) has the first server's NIC settings by construction; only the others are worked out.
    let first_plan = first.nics.first().map(|n| &n.leaf.qos);
    let same_plan = |s: &Server| {
        !s.nics.is_empty()
            && s.nics
                .iter()
                .all(|n| first_plan.is_some_and(|p| std::sync::Arc::ptr_eq(p, &n.leaf.qos)))
    };
    servers.par_iter().try_for_each(|s| {
        if !same_names(s) || (!same_plan(s) && nic_qos::NicQos::of(model, plan, s)? != qos) {
            return Err(format!(
                "{}: its NICs or their QoS differ from {}'s: the shared hosts/nic-qos.sh cannot serve both",
                s.name, first.name
            ));
        }
        Ok(())
    })?;
    let mut out = vec![
        file(
            format!("{DIR}/nic-qos.sh"),
            nic_qos::script(meta, plan, first, &qos),
        ),
        file(format!("{DIR}/nccl.env"), nccl::file(meta, plan, &qos)),
    ];
    if sysctl::needed(servers) {
        out.push(file(sysctl::PATH.to_string(), sysctl::file(meta)));
    }
    if let Some(k) = &plan.kubernetes {
        out.push(file(
            format!("{DIR}/kubernetes/spiderpool.yaml"),
            spiderpool::document(meta, model, plan, k, dest, servers)?,
        ));
        out.push(file(
            format!("{DIR}/kubernetes/nccl.yaml"),
            nccl::configmap(meta, plan, &qos),
        ));
    }
    Ok(out)
}

fn file(path: String, content: String) -> OutFile {
    OutFile {
        path,
        content,
        device: String::new(),
    }
}

/// Appends `parts` and a newline: one line of a host file, from text already spelled.
fn line(o: &mut String, parts: &[&str]) {
    parts.iter().for_each(|t| o.push_str(t));
    o.push('\n');
}

/// The header line every host file starts with (after a shebang): the server (or `fabric`), the
/// fabric and the intent, from the checked [`Meta`].
pub fn header(meta: &Meta, what: &str) -> String {
    format!(
        "# aifab: {what} (fabric {}, intent {}); see docs/hosts.md",
        meta.fabric, meta.intent_file
    )
}
