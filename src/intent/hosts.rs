//! The `hosts` section: the server half of the lossless classes (NIC QoS, NCCL, per-rail routing and
//! Kubernetes pools), rendered under `hosts/` from the same intent as the switches. Absent, aifab writes
//! no host file.

pub use crate::kinds::{NicModel, SpiderCni};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Host-side output: what each GPU server must set so that its NICs mean what the switches mean.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Hosts {
    /// Write the `hosts/` folder (`false` keeps the section but writes nothing).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// NIC family of the GPU servers: its QoS tool and sysfs are what the NIC script calls.
    #[serde(default)]
    pub nic: NicModel,
    /// The class NCCL's RDMA data rides (`NCCL_IB_TC` = its first DSCP x 4): a lossless class.
    #[schemars(regex(pattern = r"^[A-Za-z][A-Za-z0-9_-]{0,31}$"), example = &"roce")]
    pub data_class: String,
    /// The class of NCCL's clear-to-send (FIFO) messages (`NCCL_IB_FIFO_TC` = its first DSCP x 4): a
    /// strict class. Required when the intent has a class named `cts`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[A-Za-z][A-Za-z0-9_-]{0,31}$"), example = &"cts")]
    pub cts_class: Option<String>,
    /// The class the NIC sends DCQCN congestion notifications (CNPs) in: its first DSCP and its
    /// priority become the NIC's CNP DSCP and 802.1p priority. Required when a lossless class marks ECN.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[A-Za-z][A-Za-z0-9_-]{0,31}$"), example = &"cnp")]
    pub cnp_class: Option<String>,
    /// NCCL settings that are not a class.
    #[serde(default)]
    pub nccl: Nccl,
    /// Routing table of rail 1 on the servers; rail n uses `route_table + n - 1` (two-port NICs: port p
    /// of rail n uses `route_table + 2(n - 1) + p - 1`). The tables must avoid 253-255 (the kernel's
    /// default, main and local tables).
    #[serde(default = "default_route_table")]
    #[schemars(range(min = 1, max = 2_000_000_000), example = 100)]
    pub route_table: u32,
    /// Kubernetes objects for the rails (Spiderpool), written to `hosts/kubernetes/spiderpool.yaml`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kubernetes: Option<Kubernetes>,
}

/// NCCL settings the fabric does not derive from a class.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Nccl {
    /// `NCCL_IB_GID_INDEX`: the GID table entry of the NIC's IPv4 RoCEv2 address. 3 is where mlx5 puts
    /// it on a port with one IPv4 address and its IPv6 link-local (check with `show_gids`).
    #[serde(default = "default_gid_index")]
    #[schemars(range(min = 0, max = 255), example = 3)]
    pub gid_index: u8,
    /// `NCCL_IB_QPS_PER_CONNECTION`, written when `load_balancing.hash.roce_dest_qp` is on: more QPs per
    /// connection give the switches' QP hashing more entropy.
    #[serde(default = "default_qps")]
    #[schemars(range(min = 1, max = 128), example = 4)]
    pub qps_per_connection: u32,
    /// `NCCL_IB_HCA`: the RDMA device of each NIC port, as a pattern (`rdma link show` and
    /// `ibdev2netdev` list them). Placeholders: `{rail}` (1-based), `{nic}` (0-based), `{port}`
    /// (1-based NIC port) and `{index}` (0-based position of the port on the server, rail by rail).
    /// Written as an exact list (`=mlx5_0:1,mlx5_1:1,...`) so NCCL uses these devices and no other (a
    /// front-end or storage NIC); `nic-qos.sh` ends by failing unless each device is its port's. Absent:
    /// NCCL picks every RDMA device it finds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(example = &"mlx5_{index}")]
    pub hca: Option<String>,
}

impl Default for Nccl {
    fn default() -> Self {
        Nccl {
            gid_index: default_gid_index(),
            qps_per_connection: default_qps(),
            hca: None,
        }
    }
}

/// Spiderpool objects: a SpiderIPPool per rail leaf (rail-subnet) or per NIC (routed), and a
/// SpiderMultusConfig per rail.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Kubernetes {
    /// The IPAM and CNI meta-plugin: only `spiderpool` exists.
    #[serde(default)]
    pub ipam: Ipam,
    /// The CNI each rail's SpiderMultusConfig uses.
    #[serde(default)]
    pub cni: SpiderCni,
    /// Namespace of the SpiderMultusConfigs.
    #[serde(default = "default_namespace")]
    #[schemars(regex(pattern = r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"), example = &"kube-system")]
    pub namespace: String,
    /// The RDMA resource of a rail: the SR-IOV VF resource (`sriov`) or the shared RDMA device resource
    /// (`macvlan`) your device plugin advertises. Placeholders: `{rail}` (required with more than one
    /// rail) and `{port}` (required with two-port NICs): each NIC port is its own netdev and resource.
    #[serde(default = "default_resource")]
    #[schemars(
        regex(pattern = r"^[a-z0-9.-]{1,63}/[A-Za-z0-9_.{}-]{1,63}$"),
        example = &"spidernet.io/rail{rail}"
    )]
    pub resource: String,
    /// Value of the `cni.spidernet.io/rdma-resource-inject` annotation on every rail's
    /// SpiderMultusConfig: a pod annotated the same gets all rails' NICs and RDMA resources.
    #[serde(default = "default_inject")]
    #[schemars(regex(pattern = r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"), example = &"rdma-network")]
    pub inject: String,
}

/// The Kubernetes IPAM aifab writes objects for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Ipam {
    /// Spiderpool (spidernet-io/spiderpool): SpiderIPPool and SpiderMultusConfig, `v2beta1`.
    #[default]
    Spiderpool,
}

fn yes() -> bool {
    true
}

fn default_route_table() -> u32 {
    100
}

fn default_gid_index() -> u8 {
    3
}

fn default_qps() -> u32 {
    4
}

fn default_namespace() -> String {
    "kube-system".into()
}

fn default_resource() -> String {
    "spidernet.io/rail{rail}".into()
}

fn default_inject() -> String {
    "rdma-network".into()
}
