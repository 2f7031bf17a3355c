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
//! The values are computed here, in Rust; the writers only print them. The two YAML files are built as
//! serde values of netplan's and Spiderpool's schemas ([`netplan::Netplan`], [`spiderpool::IpPool`],
//! [`spiderpool::MultusConfig`]) and written by [`yaml`], which quotes and escapes every string; the
//! tests read each file back into the same types. Every name that reaches a file was checked by the
//! plan ([`crate::hosts::names`]): server names are RFC 1123 labels (Kubernetes node names, folder
//! names), NIC names Linux interface names, so nothing can break out of a YAML scalar, a comment or a
//! shell word. docs/hosts.md says what each line does and where each fact comes from.

pub mod addr;
pub mod nccl;
pub mod netplan;
pub mod nic_qos;
pub mod spiderpool;
pub mod sysctl;
pub mod yaml;

use crate::hosts::{DIR, Server, routes, servers};
use crate::model::FabricModel;
use crate::model::hosts::HostsPlan;
use crate::output::{Meta, OutFile};
use rayon::prelude::*;

/// Why the host files could not be built.
#[derive(Debug, thiserror::Error)]
pub enum HostFileError {
    /// The host plan refused the servers.
    #[error(transparent)]
    Servers(#[from] crate::hosts::servers::ServerError),
    /// A pod resource name the plan's pattern gives is not a valid name.
    #[error(transparent)]
    Resource(#[from] crate::hosts::names::HostNameError),
    /// A server's NIC settings.
    #[error(transparent)]
    NicQos(#[from] nic_qos::NicQosError),
    /// A server whose NIC names or QoS differ from the first server's, so the shared script cannot
    /// serve both.
    #[error(
        "{server}: its NICs or their QoS differ from {first}'s: the shared hosts/nic-qos.sh cannot serve both"
    )]
    NicsDiffer {
        /// The server that differs.
        server: String,
        /// The first server.
        first: String,
    },
    /// A YAML file could not be written.
    #[error(transparent)]
    Yaml(#[from] yaml::Error),
    /// The sink (the writer) refused a file.
    #[error("{0}")]
    Sink(crate::render::SinkError),
}

/// Every host file of the fabric, in a stable order (servers in link order, the shared files, then
/// Kubernetes), or nothing when the model has no host plan.
pub fn files(meta: &Meta, model: &FabricModel) -> Result<Vec<OutFile>, HostFileError> {
    let Some(plan) = model.hosts.as_deref() else {
        return Ok(Vec::new());
    };
    let servers = servers(model)?;
    let dest = routes::Destinations::of(plan, &servers);
    let per_server: Result<Vec<OutFile>, HostFileError> = servers
        .par_iter()
        .map(|s| netplan_file(meta, plan, &dest, s))
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
    sink: &(dyn Fn(&OutFile) -> Result<(), crate::render::SinkError> + Sync),
) -> Result<(usize, u64), HostFileError> {
    let Some(plan) = model.hosts.as_deref() else {
        return Ok((0, 0));
    };
    let servers = servers(model)?;
    let dest = routes::Destinations::of(plan, &servers);
    // The shared files (one of them, the Spiderpool document, covers every server) are built beside
    // the per-server ones.
    let (per_server, shared) = rayon::join(
        || -> Result<Vec<u64>, HostFileError> {
            servers
                .par_iter()
                .map(|s| {
                    let f = netplan_file(meta, plan, &dest, s)?;
                    sink(&f).map_err(HostFileError::Sink)?;
                    Ok(f.content.len() as u64)
                })
                .collect()
        },
        || shared(meta, model, plan, &dest, &servers),
    );
    let mut total = (servers.len(), per_server?.iter().sum());
    for f in shared? {
        sink(&f).map_err(HostFileError::Sink)?;
        total.0 += 1;
        total.1 += f.content.len() as u64;
    }
    Ok(total)
}

/// `hosts/netplan/<server>.yaml`: the one file that differs per server.
fn netplan_file(
    meta: &Meta,
    plan: &HostsPlan,
    dest: &routes::Destinations,
    s: &Server,
) -> Result<OutFile, HostFileError> {
    Ok(file(
        format!("{DIR}/netplan/{}.yaml", s.name),
        netplan::file(meta, plan, dest, s)?,
    ))
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
) -> Result<Vec<OutFile>, HostFileError> {
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
            return Err(HostFileError::NicsDiffer {
                server: s.name.to_string(),
                first: first.name.to_string(),
            });
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
            spiderpool::document(meta, plan, k, dest, servers)?,
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

/// The header line every host file starts with (after a shebang): the server (or `fabric`), the
/// fabric and the intent, from the checked [`Meta`].
pub fn header(meta: &Meta, what: &str) -> String {
    format!(
        "# aifab: {what} (fabric {}, intent {}); see docs/hosts.md",
        meta.fabric, meta.intent_file
    )
}
