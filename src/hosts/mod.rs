//! The host layer: the servers' half of the fabric, from the same compiled model as the switches.
//!
//! With an enabled `hosts` section the model carries a [`HostsPlan`]; this layer reads it with the
//! server links and the rail leaves' QoS plans and writes, under `hosts/`:
//! - `<server>/netplan.yaml`: each rail NIC's address, a routing table per rail and a source rule, so a
//!   NIC's traffic leaves through its own rail ([`netplan`]);
//! - `<server>/nic-qos.sh`: the ConnectX QoS (`mlnx_qos` trust, DSCP map, PFC, ETS) and DCQCN settings
//!   ([`nic_qos`]);
//! - `<server>/nccl.env`: NCCL's traffic classes, GID index and QPs per connection ([`nccl`]);
//! - `kubernetes/spiderpool.yaml`: a SpiderIPPool per rail leaf or NIC and a SpiderMultusConfig per rail
//!   ([`spiderpool`]).
//!
//! The values are computed here, in Rust; the writers only print them. Every name that reaches a file
//! is checked first ([`names`]): server names are RFC 1123 labels (Kubernetes node names, folder names),
//! NIC names Linux interface names, so nothing can break out of a YAML scalar or a shell word.
//! docs/hosts.md says what each line does and where each fact comes from.

pub mod names;
pub mod nccl;
pub mod netplan;
pub mod nic_qos;
pub mod plan;
pub mod servers;
pub mod spiderpool;

pub use plan::{name_rules, plan, rules};
pub use servers::{Nic, Server, servers};

use crate::model::FabricModel;
use crate::model::hosts::HostsPlan;
use crate::render::{Meta, OutFile};
use rayon::prelude::*;

/// The folder under the output folder that holds every host file.
pub const DIR: &str = "hosts";

/// Whether a path of the output folder is a host file (no switch owns it).
pub fn is_host_path(path: &str) -> bool {
    path.strip_prefix(DIR).is_some_and(|r| r.starts_with('/'))
}

/// Every host file of the fabric, in a stable order (servers in link order, then Kubernetes), or
/// nothing when the model has no host plan.
pub fn files(meta: &Meta, model: &FabricModel) -> Result<Vec<OutFile>, String> {
    let Some(plan) = model.hosts.as_deref() else {
        return Ok(Vec::new());
    };
    let servers = servers(model)?;
    let per_server: Result<Vec<Vec<OutFile>>, String> = servers
        .par_iter()
        .map(|s| server_files(meta, model, plan, s))
        .collect();
    let mut out: Vec<OutFile> = per_server?.into_iter().flatten().collect();
    out.extend(kubernetes(meta, model, plan, &servers)?);
    Ok(out)
}

/// The Kubernetes file, when the plan asks for it.
fn kubernetes(
    meta: &Meta,
    model: &FabricModel,
    plan: &HostsPlan,
    servers: &[Server],
) -> Result<Option<OutFile>, String> {
    plan.kubernetes
        .as_ref()
        .map(|k| {
            spiderpool::document(meta, model, plan, k, servers)
                .map(|text| file(format!("{DIR}/kubernetes/spiderpool.yaml"), text))
        })
        .transpose()
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
    let servers = servers(model)?;
    let per_server: Vec<Result<(usize, u64), String>> = servers
        .par_iter()
        .map(|s| {
            let mut n = (0, 0);
            for f in server_files(meta, model, plan, s)? {
                sink(&f)?;
                n.0 += 1;
                n.1 += f.content.len() as u64;
            }
            Ok(n)
        })
        .collect();
    let mut total = (0, 0);
    for r in per_server {
        let (a, b) = r?;
        total.0 += a;
        total.1 += b;
    }
    if let Some(f) = kubernetes(meta, model, plan, &servers)? {
        sink(&f)?;
        total.0 += 1;
        total.1 += f.content.len() as u64;
    }
    Ok(total)
}

/// The three files of one server.
fn server_files(
    meta: &Meta,
    model: &FabricModel,
    plan: &HostsPlan,
    s: &Server,
) -> Result<Vec<OutFile>, String> {
    let qos = nic_qos::NicQos::of(model, plan, s)?;
    Ok(vec![
        file(
            format!("{DIR}/{}/netplan.yaml", s.name),
            netplan::file(meta, plan, s),
        ),
        file(
            format!("{DIR}/{}/nic-qos.sh", s.name),
            nic_qos::script(meta, s, &qos),
        ),
        file(
            format!("{DIR}/{}/nccl.env", s.name),
            nccl::file(meta, plan, s, &qos),
        ),
    ])
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
