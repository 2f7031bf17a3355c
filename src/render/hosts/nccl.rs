//! NCCL's environment: the traffic classes its QPs use and how it finds the RoCEv2 GID.
//!
//! - `NCCL_IB_TC`: the IP traffic-class byte of NCCL's RDMA QPs, DSCP x 4 (the two low bits are ECN,
//!   which the NIC sets itself when DCQCN runs) of the data class's first DSCP;
//! - `NCCL_IB_FIFO_TC`: the same for the QP that carries NCCL's clear-to-send (FIFO) messages
//!   (NVIDIA/nccl PR #1194), from the CTS class;
//! - `NCCL_IB_GID_INDEX`: the GID table entry of the NIC's IPv4 RoCEv2 address;
//! - `NCCL_IB_QPS_PER_CONNECTION`: QPs per connection, when the switches hash on the destination QP;
//! - `NCCL_CROSS_NIC=0` on two planes (`homing: two-planes`): the planes share no link, so a ring or
//!   tree must use the same NIC port (the same plane) on every server; NCCL's default (2) may pair a
//!   port of plane 1 with one of plane 2, whose addresses have no route to each other;
//! - `NCCL_IB_HCA`: when the intent names the NIC ports' RDMA devices, exactly those (`=` makes each
//!   item a whole name, not a prefix: `mlx5_1` alone would also pick `mlx5_10`), port 1 of each (an mlx5
//!   Ethernet function is one RDMA device with one port).
//!
//! Pods do not read the server's `/etc/nccl.conf`: with Kubernetes the same variables, less
//! `NCCL_IB_HCA` (a pod sees its VF's or the shared device's names, not the host's list), are also
//! written as a ConfigMap for the jobs' `envFrom` ([`configmap`]).

use super::nic_qos::{NicQos, tc_byte};
use crate::model::hosts::HostsPlan;
use crate::output::Meta;
use std::fmt::Write as _;

/// The name of the pods' ConfigMap.
pub const CONFIGMAP: &str = "aifab-nccl";

/// Which variables a file leaves out.
#[derive(Clone, Copy)]
struct Leave {
    /// `NCCL_IB_HCA`: the server's own device names.
    hca: bool,
    /// `NCCL_IB_GID_INDEX`: a macvlan pod shares the host device's GID table, whose entries for the
    /// pod's address are not at the host's index.
    gid: bool,
}

/// The variables and their values, in file order, less those `leave` names.
fn vars(plan: &HostsPlan, q: &NicQos, leave: Leave) -> Vec<(&'static str, String)> {
    let mut v = Vec::with_capacity(5);
    if !leave.gid {
        v.push(("NCCL_IB_GID_INDEX", plan.gid_index.to_string()));
    }
    v.push(("NCCL_IB_TC", tc_byte(q.data_dscp).to_string()));
    if let Some(d) = q.cts_dscp {
        v.push(("NCCL_IB_FIFO_TC", tc_byte(d).to_string()));
    }
    if let Some(n) = plan.qps_per_connection {
        v.push(("NCCL_IB_QPS_PER_CONNECTION", n.to_string()));
    }
    if plan.leaf_planes > 1 {
        v.push(("NCCL_CROSS_NIC", "0".to_string()));
    }
    if !leave.hca && !plan.hca.is_empty() {
        let devices: Vec<String> = plan.hca.iter().map(|d| format!("{d}:1")).collect();
        v.push(("NCCL_IB_HCA", format!("={}", devices.join(","))));
    }
    v
}

/// `KEY=value` lines for a systemd `EnvironmentFile=` or `set -a; . ./nccl.env`.
pub fn file(meta: &Meta, plan: &HostsPlan, q: &NicQos) -> String {
    let mut o = String::with_capacity(512);
    let _ = writeln!(
        o,
        "{}",
        super::header(meta, "NCCL environment of every server")
    );
    let all = Leave {
        hca: false,
        gid: false,
    };
    for (k, v) in vars(plan, q, all) {
        let _ = writeln!(o, "{k}={v}");
    }
    o
}

/// The same variables, less `NCCL_IB_HCA` (and, for macvlan pods, `NCCL_IB_GID_INDEX`: NCCL then finds
/// the RoCEv2 IPv4 GID of the pod's address itself), as a ConfigMap for the pods that take the rail
/// NICs (`hosts/kubernetes/nccl.yaml`): applied in the jobs' namespace, read with `envFrom`. Every
/// value is a number, quoted as ConfigMap data must be.
pub fn configmap(meta: &Meta, plan: &HostsPlan, q: &NicQos) -> String {
    let mut o = String::with_capacity(512);
    let _ = writeln!(
        o,
        "{}",
        super::header(meta, "NCCL environment of the pods on the rail NICs")
    );
    let _ = writeln!(
        o,
        "# kubectl apply -n <the jobs' namespace> -f nccl.yaml; in each pod: envFrom: [{{configMapRef: {{name: {CONFIGMAP}}}}}]"
    );
    let _ = writeln!(o, "apiVersion: v1\nkind: ConfigMap\nmetadata:");
    let _ = writeln!(o, "  name: \"{CONFIGMAP}\"\ndata:");
    let macvlan = plan
        .kubernetes
        .as_ref()
        .is_some_and(|k| k.cni == crate::kinds::SpiderCni::Macvlan);
    let leave = Leave {
        hca: true,
        gid: macvlan,
    };
    for (k, v) in vars(plan, q, leave) {
        let _ = writeln!(o, "  {k}: \"{v}\"");
    }
    o
}
