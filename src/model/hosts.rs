//! The host plan: the intent's `hosts` choices, resolved for the host layer ([`crate::hosts`]), which
//! reads them with the leaves' QoS plans and the server links of the same model.

use crate::kinds::{NicModel, SpiderCni};
use serde::Serialize;

/// What the host layer writes and with which settings.
#[derive(Clone, Debug, Serialize)]
pub struct HostsPlan {
    /// NIC family of the servers.
    pub nic: NicModel,
    /// Class NCCL's data rides (a lossless class of the QoS plan).
    pub data_class: String,
    /// Class of NCCL's clear-to-send messages, when the intent names one.
    pub cts_class: Option<String>,
    /// Class the NIC sends DCQCN CNPs in, when the intent names one.
    pub cnp_class: Option<String>,
    /// `NCCL_IB_GID_INDEX`.
    pub gid_index: u8,
    /// `NCCL_IB_QPS_PER_CONNECTION`, when the fabric hashes on the RoCE destination QP.
    pub qps_per_connection: Option<u32>,
    /// `NCCL_IB_HCA`: the RDMA device of each NIC port, in netdev order (empty: not set).
    pub hca: Vec<String>,
    /// Routing table of rail 1 (port 1); NIC port p of rail n uses
    /// `route_table + (n - 1) * nic_ports + p - 1`.
    pub route_table: u32,
    /// Ports per NIC: each is its own netdev, address, gateway and routing table.
    pub nic_ports: u32,
    /// Leaf planes that share no link (`homing: two-planes`: 2, else 1): NCCL must keep each
    /// connection on one plane (`NCCL_CROSS_NIC=0`).
    pub leaf_planes: u32,
    /// The server-link pool (`10.2.0.0/16`): every server NIC address is in it, so each rail's table
    /// routes it through that rail's gateway.
    pub server_pool: String,
    /// IP MTU of the NICs: the fabric's MTU.
    pub mtu: u32,
    /// Speed of each NIC port, Gbit/s: the base of the strict classes' `max_rate` on the NIC.
    pub nic_speed_gbps: u32,
    /// Spiderpool objects, when the intent asks for them.
    pub kubernetes: Option<KubernetesPlan>,
}

impl HostsPlan {
    /// The RDMA device of port `port` of rail `rail` (both 1-based), when the intent names them.
    pub fn hca_of(&self, rail: u32, port: u32) -> Option<&str> {
        let i = rail.checked_sub(1)? * self.nic_ports + port.checked_sub(1)?;
        self.hca.get(usize::try_from(i).ok()?).map(String::as_str)
    }
}

/// Spiderpool settings.
#[derive(Clone, Debug, Serialize)]
pub struct KubernetesPlan {
    /// CNI of each rail's SpiderMultusConfig.
    pub cni: SpiderCni,
    /// Namespace of the SpiderMultusConfigs (a DNS label).
    pub namespace: String,
    /// RDMA resource name pattern with `{rail}`.
    pub resource: String,
    /// Value of the `cni.spidernet.io/rdma-resource-inject` annotation.
    pub inject: String,
}
